/* kk/target/freestanding/stdbool.h -- <stdbool.h> for kernel files on device targets that have no C library. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/* See stdint.h here.  The device targets compile kernel files as C++, where
 * bool, true and false are keywords (CUDA's NVRTC source is preprocessed as C
 * first: a bool macro there would reach NVRTC as _Bool). */
#ifndef KK_FREESTANDING_STDBOOL_H
#define KK_FREESTANDING_STDBOOL_H

#if !defined(__cplusplus) && !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__)
#define bool _Bool
#define true 1
#define false 0
#endif
#define __bool_true_false_are_defined 1

#endif /* KK_FREESTANDING_STDBOOL_H */
