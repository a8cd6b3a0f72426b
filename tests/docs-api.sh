#!/bin/sh
# tests/docs-api.sh -- every public function, type and macro of the installed headers has its doc comment, and each header has its API page.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Doxygen reads the headers as the docs site does (docs/site/Doxyfile, through
# docs/site/doxygen-filter.py) and warns of each undocumented declaration;
# this test fails on any that is a function, a type or a macro (struct
# members and enumerators are documented by their type's comment), and on an
# id that Doxygen's XML gives twice in one header (Sphinx would report the
# page's "Duplicate ID").
set -eu
top=$(cd "${srcdir:-.}" && pwd)
build=$(pwd)
command -v doxygen >/dev/null 2>&1 || { echo "SKIP: doxygen not found (Debian: doxygen)"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

run_doxygen() { # $1: source top; writes $tmp/undocumented
  rm -rf "$tmp/out"; mkdir -p "$tmp/out"
  KK_TOP_SRCDIR="$1" KK_TOP_BUILDDIR="$build" KK_DOXY_OUT="$tmp/out" KK_DOXY_WARN="$tmp/out/warnings.txt" \
    doxygen "$top/docs/site/Doxyfile" >/dev/null 2>&1
  grep 'is not documented' "$tmp/out/warnings.txt" | grep -v -E 'Member .* of (struct|union|enum) |\(enumvalue\)' > "$tmp/undocumented" || true
  # ids given to two declarations of one header's XML -> $tmp/duplicates
  python3 - "$tmp/out/xml" > "$tmp/duplicates" <<'EOF'
import collections, glob, os, re, sys
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*_8h.xml"))):
    text = open(path, encoding="utf-8").read()
    found = re.findall(r'<(?:memberdef|enumvalue)\b[^>]*\bid="([^"]+)"[^>]*>\s*(?:<type>.*?</type>\s*)?<name>([^<]*)</name>', text, re.S)
    names = collections.defaultdict(list)
    for ident, name in found:
        names[ident].append(name)
    for ident, named in names.items():
        if len(named) > 1:
            print("%s: id %s given to %s" % (os.path.basename(path), ident, ", ".join(named)))
EOF
}

# The check must see a declaration without a comment: a copy of the headers
# with one function added bare.
mkdir -p "$tmp/src/docs" "$tmp/src/include"
cp -R "$top/include/." "$tmp/src/include/"
cp -R "$top/docs/site" "$tmp/src/docs/"
chmod -R u+w "$tmp/src"
printf '\nint kk_undocumented_probe(int x);\n' >> "$tmp/src/include/kk/types.h"
# and an internal enumerator that the filter leaves (not the enum's last
# one): Doxygen gives it its enum's id
printf '\n/* A probe. */\ntypedef enum kk_probe { KK__PROBE_HIDDEN = 0, KK_PROBE_SHOWN = 1 } kk_probe_t;\n' >> "$tmp/src/include/kk/types.h"
run_doxygen "$tmp/src"
grep -q kk_undocumented_probe "$tmp/undocumented" || { cat "$tmp/out/warnings.txt"; echo "FAIL: a bare declaration was not reported"; exit 1; }
grep -q 'kk_probe_t, KK__PROBE_HIDDEN' "$tmp/duplicates" || { cat "$tmp/duplicates"; echo "FAIL: a duplicate id was not reported"; exit 1; }

run_doxygen "$top"
if [ -s "$tmp/undocumented" ]; then
  sed "s|$top/||" "$tmp/undocumented"
  echo "FAIL: $(wc -l < "$tmp/undocumented") public declarations above have no doc comment in their header"
  exit 1
fi
if [ -s "$tmp/duplicates" ]; then
  cat "$tmp/duplicates"
  echo "FAIL: Doxygen's XML gives each id above twice (an internal KK__ enumerator that docs/site/doxygen-filter.py leaves?)"
  exit 1
fi

# Each installed header has its page in the API reference.
missing=0
for h in "$top"/include/kk.h "$top"/include/kk/*.h "$build"/include/kk/version.h; do
  b=$(basename "$h" .h)
  [ -f "$top/docs/api/$b.md" ] || { echo "FAIL: docs/api/$b.md missing (the reference page of $(basename "$h"))"; missing=1; }
done
[ $missing = 0 ]
echo "PASS: every public declaration documented, no id given twice, every header has its page"
