/* bench/bench_common.h -- what the parts of kk-bench share: the result table, the clock, case selection. */
#ifndef KK_BENCH_COMMON_H
#define KK_BENCH_COMMON_H

/* Records one row: figures for kk and for the hand-written version. */
void bench_record(const char *kcase, const char *backend, const char *size, double kk, double native, const char *unit,
                  int lower_is_better);
/* Seconds on the monotonic clock. */
double bench_now(void);
/* Lets the other runtime's spinning threads go to sleep before timing. */
void bench_settle(void);
/* 1 when `name` is in the comma list `cases` ("all" selects everything). */
int bench_wants(const char *cases, const char *name);
/* The MDRange, atomics, ScatterView, reduction, team and CG cases (kk-bench-hier.c). */
void bench_hier(const char *backend, int nt, int reps, const char *cases, int quick);

#endif
