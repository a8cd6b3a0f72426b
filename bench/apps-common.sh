# bench/apps-common.sh -- what bench/cloverleaf.sh and bench/minibude.sh share: the prebuilt upstream Kokkos binaries and
# whether CUDA can run here, the platform names and header of the PHI rows.  Sourced, not run.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception

# a prebuilt upstream Kokkos binary of KOKKOS_BIN into kbin, when there is one; a host version's -avx512
# build (x86-64-v4) where the host builds are for this CPU (UP_FLAGS) and the CPU has AVX-512
kokkos_bin() {
  [ -n "${KOKKOS_BIN:-}" ] || return 1
  kbin="$KOKKOS_BIN/$1"
  if [ -n "$UP_FLAGS" ] && [ -x "$kbin-avx512" ] && grep -qw avx512f /proc/cpuinfo; then kbin="$kbin-avx512"; fi
  [ -x "$kbin" ] && { echo "kokkos: $kbin"; return 0; }
  echo "no $kbin: the Kokkos version is skipped"
  status=1
  return 1
}

# cuda_ok=1 where nvcc is on PATH and kk's cuda backend has a device (kk is the built kk tree)
cuda_ok=0
if command -v nvcc >/dev/null && "$kk/tools/kk-info/kk-info" --kokkos-device=cuda >/dev/null 2>&1; then cuda_ok=1; fi

# a platform's name in PHI_CSV (PHI_HOST, PHI_GPU, PHI_OPENCL override the defaults)
pname() { case $1 in openmp) echo "${PHI_HOST:-host$(nproc)}" ;; cuda) echo "${PHI_GPU:-gpu}" ;; opencl) echo "${PHI_OPENCL:-pocl}" ;; *) echo "$1" ;; esac; }
# PHI_CSV, where asked for, starts with its header line (a file that has rows is appended to)
phi_start() {
  if [ -n "${PHI_CSV:-}" ] && [ ! -s "$PHI_CSV" ]; then echo "app,platform,version,metric,value,check" >"$PHI_CSV"; fi
}
