#!/bin/sh
# tests/dist-unconditional.sh -- what make dist puts in the tarball does not depend on configure's choices: no EXTRA_DIST entry under an automake conditional.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Automake distributes the sources, headers and dist_ scripts of every
# condition, but an EXTRA_DIST entry (or a variable it names) under `if` goes
# into the tarball only when configure chose that condition: a tarball made
# from a tree configured --enable-kernels=no, say, would lack files that a
# build with kernels needs.  Automake writes such an entry into Makefile.in
# with a @COND_TRUE@ / @COND_FALSE@ prefix; this test reads Makefile.in for
# one, which needs no second configure.
set -eu
top=${srcdir:-.}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
[ -f "$top/Makefile.in" ] || { echo "SKIP: no Makefile.in (run autoreconf -fi)"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

cat > "$tmp/check.py" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read().replace("\\\n", " ")
defs = {}  # variable -> [(condition prefix, value), ...]
for line in text.split("\n"):
    m = re.match(r"^((?:@[A-Za-z0-9_]+@)*)([A-Za-z0-9_]+)\s*\+?=(.*)$", line)
    if m:
        defs.setdefault(m.group(2), []).append((m.group(1), m.group(3)))
bad, seen, todo = [], set(), [("EXTRA_DIST", "EXTRA_DIST")]
while todo:
    var, via = todo.pop()
    if var in seen:
        continue
    seen.add(var)
    for cond, value in defs.get(var, []):
        # every condition's line of a conditional entry carries a prefix
        values = [v.strip() for v in re.split(r"(?:@[A-Za-z0-9_]+@)+", value) if v.strip()]
        if cond:
            bad.append("%s (in %s) under %s: %s" % (var, via, cond, " ".join(values)))
        for v in values:
            for ref in re.findall(r"\$\(([A-Za-z0-9_]+)\)", v):
                todo.append((ref, via if var == via else "%s via %s" % (via, var)))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY

# The check must catch an entry under a condition (here through a variable).
cat > "$tmp/Makefile.in" <<'MK'
EXTRA_DIST = README.md $(am__append_1)
@KK_BUILD_KERNELS_TRUE@am__append_1 = bench/solvers-gpu.sh \
@KK_BUILD_KERNELS_TRUE@	bench/run-common.sh
MK
if python3 "$tmp/check.py" "$tmp/Makefile.in" > "$tmp/out"; then
  cat "$tmp/out"; echo "FAIL: the check passed an EXTRA_DIST entry under a condition"; exit 1
fi
grep -q 'KK_BUILD_KERNELS_TRUE.*bench/solvers-gpu.sh' "$tmp/out" || { cat "$tmp/out"; echo "FAIL: the entry was not named"; exit 1; }

# kk's own.
if ! python3 "$tmp/check.py" "$top/Makefile.in"; then
  echo "FAIL: the EXTRA_DIST entries above are under an automake conditional (Makefile.am or a */local.mk): move them out of the if"
  exit 1
fi
echo "PASS: every EXTRA_DIST entry is unconditional"
