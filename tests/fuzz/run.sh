#!/usr/bin/env bash
# tests/fuzz/run.sh -- builds kk's libFuzzer harnesses with clang (ASan + UBSan) and runs each for a bounded time.
#
# usage: tests/fuzz/run.sh [SECONDS] [TREE]
#   SECONDS   time per harness, the harnesses side by side (default 60)
#   TREE      an unpacked, unconfigured kk source tree (e.g. from make dist) to
#             configure and build in with clang; reused when already
#             configured (default: build-fuzz)
# The harnesses and seed corpora are this script's tree's.  Exits non-zero when a harness reports
# anything (crash, leak, sanitizer report, timeout); the reproducer is left
# in BUILDDIR/fuzz/<harness>/.  Prints per harness: executions, coverage
# (edges), features and corpus size, the figures docs/ci.md quotes.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -euo pipefail
secs=${1:-60}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=${2:-$top/build-fuzz}
cc=${FUZZ_CC:-$(command -v clang-14 || command -v clang)}
san="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer"
mkdir -p "$build"
build=$(cd "$build" && pwd)
if [ ! -f "$build/config.status" ]; then
  # --disable-werror: this build is for the fuzzers; the gcc builds of CI
  # hold the no-warnings rule
  (cd "$build" && ./configure -q --disable-werror CC="$cc" CFLAGS="-O1 -g $san -fsanitize=fuzzer-no-link" LDFLAGS="$san")
fi
make -C "$build" -s core/libkkcore.la >/dev/null
libs="$build/core/.libs/libkkcore.a $build/hostexec/.libs/libkkhost.a -ljansson -lltdl -lpthread -lm"
# Build every harness, then run them side by side (their SECONDS each run
# at the same time: CI's two cores fuzz the three harnesses in one SECONDS
# instead of three, each at two thirds of a core), then report each.
names=()
for src in "$top"/tests/fuzz/fuzz_*.c; do
  name=$(basename "$src" .c)
  out="$build/fuzz/$name"
  mkdir -p "$out/corpus"
  "$cc" -g -O1 $san -fsanitize=fuzzer -I"$build" -I"$build/include" -I"$top/include" -I"$top/core" \
    "$src" $libs -o "$out/$name"
  names+=("$name")
done
pids=()
for name in "${names[@]}"; do
  out="$build/fuzz/$name"
  seeds="$top/tests/fuzz/corpus/${name#fuzz_}"
  ASAN_OPTIONS=allocator_may_return_null=1:detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    "$out/$name" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/" "$out/corpus" "$seeds" >"$out/log" 2>&1 &
  pids+=($!)
done
status=0
for i in "${!names[@]}"; do
  name=${names[$i]}
  out="$build/fuzz/$name"
  if wait "${pids[$i]}"; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$out/log")
    last=$(grep -E '^#[0-9]+' "$out/log" | tail -n 1)
    cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
    ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
    corp=$(sed -n 's/.* corp: \([0-9]*\).*/\1/p' <<<"$last")
    printf '%-22s %s s: %s executions, cov %s edges, ft %s, corpus %s\n' "$name" "$secs" "$execs" "$cov" "$ft" "$corp"
  else
    echo "$name: FAILED (log and reproducer in $out)"
    grep -E 'ERROR|runtime error|SUMMARY|Test unit written' "$out/log" | head -n 20
    tail -n 40 "$out/log"
    status=1
  fi
done
exit $status
