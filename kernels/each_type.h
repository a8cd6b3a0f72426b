/* kernels/each_type.h -- the kernel template named by KKK_TMPL (a quoted file name), included once per element type of kk-kernels: float, double, complex float and complex double, as SFX s, d, c, z with SC the element, RT its real type and CPLX 1 for the complex ones.  Include it after defining KKK_TMPL; it may be included more than once. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#define SFX s
#define SC float
#define RT float
#define CPLX 0
#include KKK_TMPL
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX d
#define SC double
#define RT double
#define CPLX 0
#include KKK_TMPL
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX c
#define SC kk_complex_float
#define RT float
#define CPLX 1
#include KKK_TMPL
#undef SFX
#undef SC
#undef RT
#undef CPLX

#define SFX z
#define SC kk_complex_double
#define RT double
#define CPLX 1
#include KKK_TMPL
#undef SFX
#undef SC
#undef RT
#undef CPLX
