/* bench/bench_base.h -- what every bench program shares (bench_base.c): its name in messages, its options read from a table, stopping on a failed kk call, starting kk on each backend, the clock, random inputs, the rest before a timed host run. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_BENCH_BASE_H
#define KK_BENCH_BASE_H

#include <stdint.h>
#include <time.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The program's name, which begins its messages ("kk-bench-kernels"): each
 * program defines it once. */
extern const char bench_program[];

/* Prints "<bench_program>: <kk's last error>" on stderr and exits with
 * status 1: a kk call the bench cannot go on without has failed. */
void bench_fail(void);

/* A kk call that must succeed (the caller includes kk.h). */
#define CHECK(call)                                                                                                  \
  do {                                                                                                               \
    if ((call) != KK_OK)                                                                                             \
      bench_fail();                                                                                                  \
  } while (0)

/* kk_initialize_ex on `backend` (one of the program's --backends=), with the
 * program's command line, whose --kokkos-* flags kk reads, and the plugin
 * path of KOKKOS_PLUGIN_PATH.  1 when kk runs on it; otherwise prints
 * "<bench_program>: backend <backend> skipped: <kk's message>" on stderr and
 * returns 0.  The caller calls kk_finalize after the backend's cases. */
int bench_init_backend(const char *backend, int argc, char **argv);

/* Seconds on `clock` (CLOCK_PROCESS_CPUTIME_ID: the CPU time of all the
 * process's threads), and on the monotonic clock, which times every run. */
double bench_clock(clockid_t clock);
double bench_now(void);

/* The next number of Marsaglia's xorshift64 sequence (shifts 13, 7, 17)
 * from *state (not 0), and the next double of [0, 1) made of its top 53
 * bits: the programs' inputs, the same on every run. */
uint64_t bench_xorshift64(uint64_t *state);
double bench_uniform(uint64_t *state);

/* The rest before a timed run on a host backend, so that the run does not
 * share the cores with the previous side's idle threads (libgomp's spin for
 * 5-20 ms after a region, OpenBLAS's pthreads too): `min_ms` milliseconds,
 * then, where `max_ms` > `min_ms`, 1 ms at a time while another thread of
 * this process is running or runnable (/proc/self/task/<tid>/stat says R),
 * until `max_ms` in all.  Returns 1 when a thread still ran at `max_ms`;
 * 0 otherwise, and where /proc cannot tell. */
int bench_rest(int min_ms, int max_ms);

/* The command line, read from a table: each bench program lists its options
 * (bench_option_t, the last one {0}) and bench_options gives each argument
 * of argv[1..argc-1] to the entries whose name it begins with, in the
 * table's order, until one takes it.  An option with '=' at the end of its
 * name takes the rest of the argument as its value ("--reps=3"); one
 * without is a flag that must match whole ("--full").  Numbers are read as
 * atoi, atoll and atof read them (a value that is not a number reads as 0),
 * and then checked:
 *   BENCH_ANY:      any value is taken;
 *   BENCH_RANGE:    the value must be in [lo, hi];
 *   BENCH_ABOVE:    the value must be greater than lo;
 *   BENCH_AT_LEAST: a value below lo is taken as lo.
 * A value that fails its check leaves the argument to the entries after
 * it; an argument that no entry takes is refused.  BENCH_PARSE hands the
 * value (and the whole argument, for a message) to `parse`, which stores it
 * and returns 0 to refuse it. */
typedef enum bench_option_kind {
  BENCH_STRING, /* const char *: points into argv */
  BENCH_FLAG,   /* int: set to `flag` */
  BENCH_INT,    /* int, atoi */
  BENCH_INT64,  /* int64_t, atoll */
  BENCH_DOUBLE, /* double, atof */
  BENCH_PARSE   /* `parse` reads it */
} bench_option_kind_t;

typedef enum bench_check { BENCH_ANY, BENCH_RANGE, BENCH_ABOVE, BENCH_AT_LEAST } bench_check_t;

typedef struct bench_option {
  const char *name;         /* "--reps=" (takes a value) or "--full" (a flag); NULL ends the table */
  bench_option_kind_t kind; /* what `to` points to, and how the value is read */
  void *to;                 /* where the value goes */
  bench_check_t check;      /* numbers: how the value is checked (BENCH_ANY: not at all) */
  double lo, hi;            /* numbers: the bounds `check` uses */
  int flag;                 /* BENCH_FLAG: the value stored */
  int (*parse)(const char *arg, const char *value, void *to); /* BENCH_PARSE: 0 refuses the argument */
} bench_option_t;

/* Table entries. */
#define BENCH_OPT_STRING(name, to) {(name), BENCH_STRING, (to), BENCH_ANY, 0, 0, 0, NULL}
#define BENCH_OPT_FLAG(name, to, value) {(name), BENCH_FLAG, (to), BENCH_ANY, 0, 0, (value), NULL}
#define BENCH_OPT_INT(name, to, check, lo, hi) {(name), BENCH_INT, (to), (check), (lo), (hi), 0, NULL}
#define BENCH_OPT_INT64(name, to, check, lo, hi) {(name), BENCH_INT64, (to), (check), (lo), (hi), 0, NULL}
#define BENCH_OPT_DOUBLE(name, to, check, lo, hi) {(name), BENCH_DOUBLE, (to), (check), (lo), (hi), 0, NULL}
#define BENCH_OPT_PARSE(name, to, parse) {(name), BENCH_PARSE, (to), BENCH_ANY, 0, 0, 0, (parse)}

/* Reads argv[1..argc-1] into the table's variables, passing over kk's own
 * flags (--kokkos-*, which kk_initialize_ex reads) when `pass_kokkos` is 1.
 * Returns 1 when it took every argument; otherwise 0 at the first argument
 * refused (the variables of the arguments before it are set), and the
 * program prints its usage. */
int bench_options(int argc, char **argv, const bench_option_t *options, int pass_kokkos);

#ifdef __cplusplus
}
#endif

#endif
