# tests/faults/fake-cuda-env.sh -- sourced by the *-fake.sh tests: points the cuda plugin at the fake libcuda (tests/faults/fake_cuda.c), or skips the test when it or the plugin was not built.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
top=${top_builddir:-.}
fake=$top/tests/faults/.libs/fake_cuda.so
if [ ! -f "$top/plugins/.libs/kk_cuda.so" ] || [ ! -f "$fake" ]; then
  echo "SKIP: the cuda plugin or the fake driver ($fake) was not built"
  exit 77
fi
KK_CUDA_DRIVER_LIBRARY=$fake
export KK_CUDA_DRIVER_LIBRARY
