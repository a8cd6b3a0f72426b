#!/bin/sh
# tests/docs-links.sh -- every local link in docs/ and the README leads to an existing page and heading; the checker itself catches a broken one.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
top=${srcdir:-.}
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
checker="$top/docs/site/check-links.py"

# The checker must fail on a tree with a missing page and a missing anchor.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/docs"
printf '# contents\n## S\na\n' > "$tmp/docs/contents.txt"
printf '# A\n\n## Real heading\n\n[ok](#real-heading) [gone](b.md) [bad](#no-such-heading)\n' > "$tmp/docs/a.md"
printf '# R\n[a](docs/a.md#real-heading)\n' > "$tmp/README.md"
if python3 "$checker" "$tmp" > "$tmp/out"; then
  cat "$tmp/out"; echo "FAIL: the checker passed a page with broken links"; exit 1
fi
grep -q 'b.md: no such file' "$tmp/out" || { cat "$tmp/out"; echo "FAIL: missing page not named"; exit 1; }
grep -q 'no-such-heading' "$tmp/out" || { cat "$tmp/out"; echo "FAIL: missing anchor not named"; exit 1; }
if grep -q 'real-heading' "$tmp/out"; then cat "$tmp/out"; echo "FAIL: a good anchor was reported"; exit 1; fi

# The real pages.
python3 "$checker" "$top"
