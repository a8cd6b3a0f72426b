#!/bin/sh
# cmake/gen-config.sh -- writes kkConfig.cmake or kkConfigVersion.cmake from its .in, with the installation's directories relative to the package file where they share its prefix.
# Usage: gen-config.sh IN OUT NAME=VALUE...   (prefix, cmakedir, includedir, libdir, bindir, targetdir, and plain values)
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu
in=$1 out=$2
shift 2
prefix= cmakedir=
for a; do
  case $a in
    prefix=*) prefix=${a#prefix=} ;;
    cmakedir=*) cmakedir=${a#cmakedir=} ;;
  esac
done

# a directory under the prefix, as seen from the package file
rel() {
  case $1 in
    "$prefix") printf '%s' '${_kk_prefix}' ;;
    "$prefix"/*) printf '%s/%s' '${_kk_prefix}' "${1#"$prefix"/}" ;;
    *) printf '%s' "$1" ;;
  esac
}
# the prefix, as seen from the package file's directory (absolute when that is not under it)
case $cmakedir in
  "$prefix"/*)
    up=$(printf '%s\n' "${cmakedir#"$prefix"/}" | awk -F/ '{ s = "${CMAKE_CURRENT_LIST_DIR}"; for (i = 1; i <= NF; i++) if ($i != "") s = s "/.."; print s }') ;;
  *) up=$prefix ;;
esac

# sed replacement text: escape \, & and the delimiter
esc() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; }
script="s|@KK_CMAKE_PREFIX@|$(esc "$up")|g"
for a; do
  name=${a%%=*} value=${a#*=}
  case $name in
    includedir | libdir | bindir | targetdir)
      var=KK_CMAKE_$(printf '%s' "$name" | tr '[:lower:]' '[:upper:]')
      script="$script
s|@$var@|$(esc "$(rel "$value")")|g" ;;
    prefix | cmakedir) ;;
    *) script="$script
s|@$name@|$(esc "$value")|g" ;;
  esac
done
sed -e "$script" "$in" >"$out.tmp"
if grep -n '@[A-Za-z_]*@' "$out.tmp" >&2; then
  echo "gen-config.sh: $out: substitutions left" >&2
  rm -f "$out.tmp"
  exit 1
fi
mv "$out.tmp" "$out"
