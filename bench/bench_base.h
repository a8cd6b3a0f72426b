/* bench/bench_base.h -- what every bench program shares (bench_base.c): its name in messages, stopping on a failed kk call, starting kk on each backend, the clock, random inputs, the rest before a timed host run. */
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

#ifdef __cplusplus
}
#endif

#endif
