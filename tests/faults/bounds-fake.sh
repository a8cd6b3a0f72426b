#!/bin/sh
# tests/faults/bounds-fake.sh -- a bounds-checked kernel's failure on cuda with the fake libcuda (tests/faults/fake_cuda.c), whose bc_for1 writes the record a checked kernel writes on a GPU: the plugin's side of bounds checking (module globals, the fence, the core's sentence) checked without a GPU.
top=${top_builddir:-.}
fake=$top/tests/faults/.libs/fake_cuda.so
if [ ! -f "$top/plugins/.libs/kk_cuda.so" ] || [ ! -f "$fake" ]; then
  echo "SKIP: the cuda plugin or the fake driver ($fake) was not built"
  exit 77
fi
KK_CUDA_DRIVER_LIBRARY=$fake
export KK_CUDA_DRIVER_LIBRARY
exec "$top/tests/faults/faults" cuda bounds-fake
