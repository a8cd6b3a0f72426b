#!/bin/sh
# tests/conformance-host-nthreads.sh -- the conformance suite on threads and openmp with 1, 3 and 4 threads: a pool of one, and pools larger than a small machine's cores, must be as correct as the default.
: "${top_builddir:=.}"
status=77
for b in threads openmp; do
  for n in 1 3 4; do
    echo "== $b, $n threads"
    "$top_builddir/tests/conformance/conformance" $b $n
    case $? in
      0) [ $status = 77 ] && status=0 ;;
      77) ;;
      *) echo "FAIL: the conformance suite on $b with $n threads"; status=1 ;;
    esac
  done
done
exit $status
