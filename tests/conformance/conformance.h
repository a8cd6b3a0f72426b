/* tests/conformance/conformance.h -- argument and value types shared by the conformance kernels and the test program. */
#ifndef KK_CONFORMANCE_H
#define KK_CONFORMANCE_H

#include <kk/kernel_abi.h>

/* Every scalar type a reducer takes, with a tag usable in names. */
#define CONF_TYPES(X) \
  X(int8_t) X(uint8_t) X(int16_t) X(uint16_t) X(int32_t) X(uint32_t) X(int64_t) X(uint64_t) X(float) X(double)
#define CONF_INT_TYPES(X) \
  X(int8_t) X(uint8_t) X(int16_t) X(uint16_t) X(int32_t) X(uint32_t) X(int64_t) X(uint64_t)

struct one_view { kk_view v; };
struct two_views { kk_view x, y; };
struct axpy_args { double a; kk_view x, y; };
struct count_args { kk_view hits; int64_t base; };
struct layout_args { kk_view_right r; kk_view_left l; kk_view_strided s; kk_view out; int64_t n0, n1; };
struct rank_args { kk_view v; int rank; };
struct nothing { int unused; };

/* value of KK_REDUCE_N: min, sum and minloc of one pass */
struct min_sum_loc {
  double mn;
  double sum;
  kk_valloc_double loc;
};

/* custom reducer: a complex sum together with the entry of largest modulus */
struct cplx { double re, im; };
struct cplx_stats { struct cplx sum; double max_abs2; int64_t argmax; };
struct sum_and_stats { int64_t n; struct cplx_stats st; };

#endif
