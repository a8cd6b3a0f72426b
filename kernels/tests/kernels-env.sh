# kernels/tests/kernels-env.sh -- sourced by the kernels-<backend>.sh tests: what every run of check_kernels needs.
# Where a CBLAS is installed the suite must find and use it (ldconfig's cache
# lists what the dynamic loader will find).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
if command -v ldconfig >/dev/null 2>&1 || [ -x /sbin/ldconfig ]; then
  if { ldconfig -p 2>/dev/null || /sbin/ldconfig -p 2>/dev/null; } | grep -q -e 'libopenblas\.so\.0' -e 'libblas\.so\.3' -e 'libcblas\.so\.3'; then
    KK_KERNELS_TEST_EXPECT_CBLAS=1
    export KK_KERNELS_TEST_EXPECT_CBLAS
  fi
fi
# One process (CK_FORK=no): PoCL's threads do not survive fork(), and the
# other backends do not need it; under AddressSanitizer PoCL keeps caches
# until exit (not kk's leaks).
CK_FORK=no
export CK_FORK
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
