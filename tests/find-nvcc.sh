# tests/find-nvcc.sh -- sourced by the tests that read what nvcc makes of kk's kernels (no GPU needed): sets $nvcc, or skips the test.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# kk_find_nvcc [ARCH]: $nvcc becomes the nvcc the tree's cuda recipe names
# (targets/cuda.json), else $NVCC, else the CUDA toolkit's, else PATH's.
# Without one the test is skipped (exit 77), and likewise when ARCH (a
# virtual architecture such as compute_90) is given and that nvcc cannot
# build it.
kk_find_nvcc() {
  nvcc=$(sed -n 's/.*"NVCC": *"\([^"]*\)".*/\1/p' "${top_builddir:-.}/targets/cuda.json" 2>/dev/null | head -1)
  for c in "$nvcc" "${NVCC:-}" /usr/local/cuda/bin/nvcc "$(command -v nvcc 2>/dev/null)"; do
    if [ -n "$c" ] && [ -x "$c" ]; then nvcc=$c; break; fi
    nvcc=
  done
  if [ -z "$nvcc" ]; then
    echo "SKIP: no nvcc"
    exit 77
  fi
  if [ -n "${1:-}" ] && ! "$nvcc" --list-gpu-arch 2>/dev/null | grep -qx "$1"; then
    echo "SKIP: $nvcc does not build $1"
    exit 77
  fi
}
