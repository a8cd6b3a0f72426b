#!/bin/sh
# tests/faults/device-fault-fake.sh -- device-fault.sh on cuda with a fake libcuda (tests/faults/fake_cuda.c) whose 'bad_write' kernel leaves CUDA_ERROR_ILLEGAL_ADDRESS behind: the GPU layer's handling of a lost device, checked without a GPU.
top=${top_builddir:-.}
fake=$top/tests/faults/.libs/fake_cuda.so
if [ ! -f "$top/plugins/.libs/kk_cuda.so" ] || [ ! -f "$fake" ]; then
  echo "SKIP: the cuda plugin or the fake driver ($fake) was not built"
  exit 77
fi
KK_CUDA_DRIVER_LIBRARY=$fake
export KK_CUDA_DRIVER_LIBRARY
exec sh "${top_srcdir:-.}/tests/faults/device-fault.sh" cuda
