# bench/apps-common.sh -- what bench/cloverleaf.sh and bench/minibude.sh share: the environment both sides run in and
# the output's first lines, the prebuilt upstream Kokkos binaries and whether CUDA can run here, the platform names and
# header of the PHI rows.  Sourced, not run.
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

# apps_start TITLE: the environment both sides run in and the output's first lines.  The environment: a build tree's
# plugins, unless a plugin path is set (an installed kk finds its own); OMP_NUM_THREADS (default every core),
# OMP_PROC_BIND=close and OMP_PLACES=cores unless set; UP_FLAGS, unless set, the -march of kk's host recipe (if any);
# cuda_ok=1 where nvcc is on PATH and kk's cuda backend has a device.  The lines: TITLE with kk's and the upstream's
# commits and the date, the host, the GPU (where nvidia-smi is).  up is the upstream checkout, kk the built kk tree.
apps_start() {
  if [ -z "${KOKKOS_PLUGIN_PATH:-}" ] && [ -d "$kk/plugins/.libs" ]; then export KOKKOS_PLUGIN_PATH="$kk/plugins/.libs"; fi
  export OMP_NUM_THREADS=${OMP_NUM_THREADS:-$(nproc)}
  export OMP_PROC_BIND=${OMP_PROC_BIND:-close} OMP_PLACES=${OMP_PLACES:-cores}
  if [ -z "${UP_FLAGS+x}" ]; then
    UP_FLAGS=$("$kk/tools/kkcc/kkcc" --list-targets 2>/dev/null | grep -o -- '-march=[^ "]*' | head -1)
  fi
  cuda_ok=0
  if command -v nvcc >/dev/null && "$kk/tools/kk-info/kk-info" --kokkos-device=cuda >/dev/null 2>&1; then cuda_ok=1; fi
  local commit
  commit=$(git -C "$up" rev-parse --short HEAD 2>/dev/null || echo "unknown (not a git checkout)")
  echo "$1: kk $(git -C "$kk" rev-parse --short HEAD 2>/dev/null) against upstream $commit, $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(nproc) cores, OMP_NUM_THREADS=$OMP_NUM_THREADS"
  if command -v nvidia-smi >/dev/null; then
    echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>&1 | head -1)"
  fi
}

# a platform's name in PHI_CSV (PHI_HOST, PHI_GPU, PHI_OPENCL override the defaults)
pname() { case $1 in openmp) echo "${PHI_HOST:-host$(nproc)}" ;; cuda) echo "${PHI_GPU:-gpu}" ;; opencl) echo "${PHI_OPENCL:-pocl}" ;; *) echo "$1" ;; esac; }
# PHI_CSV, where asked for, starts with its header line (a file that has rows is appended to)
phi_start() {
  if [ -n "${PHI_CSV:-}" ] && [ ! -s "$PHI_CSV" ]; then echo "app,platform,version,metric,value,check" >"$PHI_CSV"; fi
}
