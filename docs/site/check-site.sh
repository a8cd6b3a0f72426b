#!/bin/sh
# check-site.sh -- loads the built docs site's front page, the API page of kk_parallel_for and the benchmarks page in headless Chromium: each must render, with no error on the console.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# Usage: docs/site/check-site.sh [SITE_DIR]   (default docs-site/html; make html builds it)
# For each page: a screenshot is taken and must be a PNG of at least 15 kB (a
# blank or unstyled page is smaller), the page's DOM must hold what the page
# is for, and Chromium's console log must show no error (a script error, a
# missing style sheet, image or script).
set -u
site=${1:-docs-site/html}
browser=${CHROMIUM:-}
[ -n "$browser" ] || for b in chromium chromium-browser google-chrome; do
  command -v "$b" >/dev/null 2>&1 && { browser=$b; break; }
done
[ -n "$browser" ] || { echo "SKIP: no chromium (Debian: chromium)"; exit 77; }
[ -f "$site/index.html" ] || { echo "FAIL: $site/index.html missing: run make html first"; exit 1; }
site=$(cd "$site" && pwd)
out=$(mktemp -d); trap 'rm -rf "$out"' EXIT
status=0

# page  what its DOM must contain
check() {
  page=$1 want=$2 name=$(echo "$1" | tr '/.' '__')
  url="file://$site/$page"
  flags="--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --hide-scrollbars
    --user-data-dir=$out/profile --enable-logging=stderr --v=0 --window-size=1280,1600"
  # shellcheck disable=SC2086
  timeout 60 "$browser" $flags --screenshot="$out/$name.png" "$url" 2>"$out/$name.log" >/dev/null
  # shellcheck disable=SC2086
  timeout 60 "$browser" $flags --dump-dom "$url" 2>>"$out/$name.log" >"$out/$name.html"
  size=$(wc -c <"$out/$name.png" 2>/dev/null || echo 0)
  if [ "$size" -lt 15000 ] || ! head -c 8 "$out/$name.png" | grep -q PNG; then
    echo "FAIL: $page: screenshot missing or too small ($size bytes)"; status=1
  fi
  if ! grep -q "$want" "$out/$name.html"; then
    echo "FAIL: $page: the rendered page lacks '$want'"; status=1
  fi
  if grep -E 'CONSOLE.*(Uncaught|Error|Failed to load resource|ERR_)' "$out/$name.log"; then
    echo "FAIL: $page: errors on the console (above)"; status=1
  fi
  [ "$status" = 0 ] && echo "ok: $page ($size-byte screenshot)"
  if [ -n "${KK_SITE_SCREENSHOTS:-}" ]; then mkdir -p "$KK_SITE_SCREENSHOTS" && cp "$out/$name.png" "$KK_SITE_SCREENSHOTS/"; fi
}
check index.html 'kk documentation'
check api/kk.html 'id="c.kk_parallel_for"'
check benchmarks.html '<img'
exit $status
