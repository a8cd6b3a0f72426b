#!/bin/sh
# maint/deps.sh -- who leans on whom inside a room: call and include arrows between its .c files, the circles they make, and the arrows that run against the room's layer order.
#
# usage: maint/deps.sh [--check] [--room=core] [BUILDDIR]
#   Reads the room's compiled objects (nm: what each defines and what it
#   uses) and its sources (#include "x.h" of a header owned by x.c), so it
#   runs in a built tree (BUILDDIR, default .; the sources beside this
#   script).  Prints every arrow "a -> b  (symbols)", every circle (a
#   strongly connected set of files), and the arrows that point up the
#   layer order below.  --check exits 1 when a circle holds one of the
#   files that must stay out of circles, or when there are more upward
#   arrows than the room allows.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
check=0 room=core build=.
for a in "$@"; do
  case $a in
  --check) check=1 ;;
  --room=*) room=${a#--room=} ;;
  -h | --help) sed -n '3,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) build=$a ;;
  esac
done

# Layer order, lowest first: a file may use what is below it.  Files of the
# room that are not listed are put on top (and reported).
# core/: state (kk__g, the generation, versions: calls nothing), then the
# services (status, handles, package, dl, paths, conf, probe), the serial
# backend and the tools hooks; then recording into graphs (capture), spaces,
# views and bounds records; the registry of modules; the checked launch
# (launch); then the public layers: graph, dispatch, scatter, the loader,
# info and init.  One arrow runs up, and makes the one circle left (capture,
# space, view): a graph node holds references to the views it names
# (capture -> view: kk_view_retain/release), while a deep copy, a fill and
# kk_space_copy on a capturing instance are recorded into its graph (view,
# space -> capture).
case $room in
core)
  order="state safe_path status handles package dl paths conf probe serial tools capture space view bounds registry launch graph dispatch scatter loader info init"
  keep_out="init dispatch graph"
  max_up=${KK_DEPS_MAX_UP:-1}
  ;;
*) order="" keep_out="" max_up=${KK_DEPS_MAX_UP:-1000} ;;
esac

objdir=$build/$room/.libs
[ -d "$objdir" ] || objdir=$build/$room
set -- "$objdir"/*.o
[ -e "$1" ] || { echo "deps.sh: no objects in $build/$room (build first)" >&2; exit 2; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for o in "$@"; do
  f=$(basename "$o" .o)
  f=${f##*-}                       # libkkcore_la-view -> view
  nm -g --defined-only "$o" | awk -v f="$f" 'NF == 3 { print "D", f, $3 }'
  nm -u "$o" | awk -v f="$f" '{ print "U", f, $NF }'
done >"$tmp/syms"
for c in "$here/$room"/*.c; do
  f=$(basename "$c" .c)
  sed -n 's/^#include "\([^"]*\)\.h".*/\1/p' "$c" | while read -r h; do
    # config.h is configure's, not config.c's
    if [ "$h" != config ] && [ "$h" != "$f" ] && [ -f "$here/$room/$h.c" ]; then echo "I $f $h"; fi
  done
done >>"$tmp/syms"

awk -v order="$order" -v keep_out="$keep_out" -v check="$check" -v max_up="$max_up" '
$1 == "D" { owner[$3] = $2; files[$2] = 1; next }
$1 == "U" { use[$2, $3] = 1; users[n_use++] = $2 SUBSEP $3; files[$2] = 1; next }
$1 == "I" { inc[$2, $3] = 1; files[$2] = 1; files[$3] = 1; next }
function visit(v,   i, w) {              # Tarjan: the strongly connected sets
  idx[v] = low[v] = ++counter; stack[++sp] = v; on[v] = 1
  for (i = 1; i <= nadj[v]; i++) {
    w = adj[v, i]
    if (!(w in idx)) { visit(w); if (low[w] < low[v]) low[v] = low[w] }
    else if (on[w] && idx[w] < low[v]) low[v] = idx[w]
  }
  if (low[v] == idx[v]) {
    n = 0; members = ""
    do { w = stack[sp--]; on[w] = 0; n++; members = members " " w; comp[w] = ncomp } while (w != v)
    if (n > 1) circles[++ncircles] = members
    ncomp++
  }
}
END {
  split(order, ord, " "); top = length(ord)
  for (i = 1; i <= top; i++) rank[ord[i]] = i
  for (f in files) if (!(f in rank)) { rank[f] = ++top; unlisted = unlisted " " f }
  for (k in use) {
    split(k, p, SUBSEP); a = p[1]; s = p[2]
    if (!(s in owner) || owner[s] == a) continue
    b = owner[s]
    if (!((a, b) in why)) { why[a, b] = ""; arrows[++na] = a SUBSEP b }
    why[a, b] = why[a, b] (why[a, b] == "" ? "" : " ") s
  }
  for (k in inc) {
    split(k, p, SUBSEP)
    if (!((p[1], p[2]) in why)) { arrows[++na] = p[1] SUBSEP p[2]; why[p[1], p[2]] = "" }
    why[p[1], p[2]] = why[p[1], p[2]] (why[p[1], p[2]] == "" ? "" : " ") "#include " p[2] ".h"
  }
  for (i = 1; i <= na; i++) { split(arrows[i], p, SUBSEP); adj[p[1], ++nadj[p[1]]] = p[2] }
  for (f in files) if (!(f in idx)) visit(f)
  printf "%d files, %d arrows\n", length(files), na
  if (unlisted != "") printf "not in the layer order (put on top):%s\n", unlisted
  up = 0
  for (i = 1; i <= na; i++) {
    split(arrows[i], p, SUBSEP)
    mark = rank[p[2]] > rank[p[1]] ? "UP " : "   "
    if (mark == "UP ") up++
    line[i] = sprintf("%s%s -> %s  (%s)", mark, p[1], p[2], why[p[1], p[2]])
  }
  n = na; for (i = 2; i <= n; i++) { t = line[i]; for (j = i - 1; j >= 1 && line[j] > t; j--) line[j + 1] = line[j]; line[j + 1] = t }
  for (i = 1; i <= n; i++) print line[i]
  printf "%d arrows run up the layer order\n", up
  bad = 0
  for (i = 1; i <= ncircles; i++) {
    printf "circle:%s\n", circles[i]
    split(keep_out, ko, " ")
    for (j in ko) if (index(circles[i] " ", " " ko[j] " ")) { bad = 1; printf "  holds %s, which must stay out of circles\n", ko[j] }
  }
  if (ncircles == 0) print "no circles"
  if (check && up > max_up) { printf "more upward arrows (%d) than allowed (%d)\n", up, max_up; bad = 1 }
  exit check ? bad : 0
}' "$tmp/syms"
