#!/bin/bash
# bench/kk-bench-md.sh -- examples/md (kk) and miniMD's OpenMP reference on the same Lennard-Jones problems in one call: atom-steps per second, one table.
#
# usage: bench/kk-bench-md.sh BUILDDIR MINIMD THREADS [BACKEND [SIZES [STEPS]]]
#   BUILDDIR  a kk build tree with examples/md/md built
#   MINIMD    miniMD's OpenMP binary (Mantevo/miniMD ref/: make openmpi), or "none"
#   THREADS   host threads for both (OMP_NUM_THREADS / KOKKOS_NUM_THREADS; miniMD's -t)
#   BACKEND   kk's backend for md (default openmp; cuda on a GPU machine)
#   SIZES     FCC unit cells per side (default "32 64": 131,072 and 1,048,576 atoms)
#   STEPS     time steps (default 100)
# One rank each; thermo only at the first and the last step (as miniMD's
# in.lj.miniMD); kk's three force modes each.  KK_MD_BENCH_TIMEOUT bounds
# each run (seconds, default 300).  Prints the machine, then one table; no
# timing is judged (the exit status says whether every run completed).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -u
B=$(cd "${1:?usage: kk-bench-md.sh BUILDDIR MINIMD THREADS [BACKEND [SIZES [STEPS]]]}" && pwd)
minimd=${2:?MINIMD binary or none}
threads=${3:?THREADS}
backend=${4:-openmp}
sizes=${5:-32 64}
steps=${6:-100}
T=${KK_MD_BENCH_TIMEOUT:-300}
export KK_PLUGIN_PATH_NO_DEFAULT=1 KOKKOS_PLUGIN_PATH=$B/plugins/.libs OMP_NUM_THREADS=$threads KOKKOS_NUM_THREADS=$threads
export OMP_PROC_BIND=${OMP_PROC_BIND:-spread} OMP_PLACES=${OMP_PLACES:-cores}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0

echo "# $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -n), $(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1), $threads threads"
if [ "$backend" != openmp ] && [ "$backend" != threads ] && [ "$backend" != serial ]; then
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | head -1 | sed 's/^/# GPU: /'
fi
echo "# command: bench/kk-bench-md.sh BUILDDIR $minimd $threads $backend \"$sizes\" $steps"

# miniMD's input: in.lj.miniMD's problem, thermo at the first and last step
cat >"$tmp/in.lj" <<'IN'
Lennard-Jones input file for miniMD

lj             units (lj or metal)
none           data file (none or filename)
lj             force style (lj or eam)
1.0 1.0        LJ parameters (epsilon and sigma; COMD: 0.167 / 2.315)
32 32 32       size of problem
100            timesteps
0.005          timestep size
1.44           initial temperature
0.8442         density
20             reneighboring every this many steps
2.5 0.30       force cutoff and neighbor skin
0              thermo calculation every this many steps (0 = start,end)
IN
# "0" divides by zero in miniMD's integrator wherever it counts thermo steps (integrate.cpp): the run's
# length gives the same two thermo points, the first and the last step
sed -i "s/^0 \( *thermo calculation\)/$steps\1/" "$tmp/in.lj"

printf '%-6s %-9s %-22s %14s %8s %14s\n' cells atoms code atom-steps/s "vs mini" "last U"
for s in $sizes; do
  atoms=$((4 * s * s * s))
  ref=""
  if [ "$minimd" != none ]; then
    if (cd "$tmp" && timeout -k 5 "$T" "$minimd" -i in.lj -s "$s" -n "$steps" -t "$threads") >"$tmp/mini.out" 2>&1; then
      ref=$(awk '/PERF_SUMMARY/ { print $10 }' "$tmp/mini.out")
      u=$(awk '/^# Timestep/ { on = 1; next } on && NF == 0 { on = 0 } on && NF >= 4 { u = $3 } END { print u }' "$tmp/mini.out")
      printf '%-6s %-9s %-22s %14.4e %8s %14s\n' "$s^3" "$atoms" "miniMD openmp (half)" "$ref" 1.00 "$u"
    else
      echo "miniMD failed on -s $s:"; tail -5 "$tmp/mini.out"; status=1
    fi
  fi
  for f in full half-atomic half-scatter; do
    if timeout -k 5 "$T" "$B/examples/md/md" --kokkos-device="$backend" -s "$s" -n "$steps" --thermo 0 --force "$f" \
      >"$tmp/kk.out" 2>&1; then
      r=$(sed -n 's/.*s: \([0-9.e+-]*\) atom-steps\/s/\1/p' "$tmp/kk.out")
      u=$(awk 'NF == 5 && $1 ~ /^[0-9]+$/ { u = $3 } END { print u }' "$tmp/kk.out")
      ratio=$( [ -n "$ref" ] && awk -v a="$r" -v b="$ref" 'BEGIN { printf "%.2f", a / b }' || echo -)
      printf '%-6s %-9s %-22s %14.4e %8s %14s\n' "$s^3" "$atoms" "kk $backend ($f)" "$r" "$ratio" "$u"
    else
      echo "kk md ($f) failed on -s $s:"; tail -5 "$tmp/kk.out"; status=1
    fi
  done
done
exit $status
