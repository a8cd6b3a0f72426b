# algorithms/tests/algorithms-env.sh -- sourced by the algorithms-<backend>.sh tests: what every run of check_algorithms needs.
# One process (CK_FORK=no): PoCL's threads do not survive fork(), and the
# other backends do not need it; under AddressSanitizer PoCL keeps caches
# until exit (not kk's leaks).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
CK_FORK=no
export CK_FORK
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
