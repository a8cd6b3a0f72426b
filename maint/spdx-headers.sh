#!/bin/sh
# maint/spdx-headers.sh -- gives every tracked source file of kk its SPDX licence line; --check only lists the files without one (make check runs that).
#
# Usage: maint/spdx-headers.sh [--check] [SRCDIR]
#
# The files are those git tracks in SRCDIR (default: the tree this script is
# in).  The line goes right after the file's opening comment -- the "what
# this file is for" line and any comment lines that continue it without a
# break (up to the closing */ of a C comment), after a #! line -- in the
# syntax of that comment; a file that opens with no comment gets it as its
# first line (after any #! line).  A file that already has such a line
# anywhere is left alone, so running the script again changes nothing.
# Files with no comment syntax (JSON, Markdown, the fuzzers' seed inputs) and
# debian/'s data files (their licence is in debian/copyright) are skipped.
#
# Exit status: 0; with --check, 1 when a file lacks the line (the list goes to
# stdout), 77 when SRCDIR is not a git checkout (a release tarball holds
# exactly the files of a checkout where this was checked).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
set -eu

id='SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception'

check=no
if [ "${1:-}" = --check ]; then
  check=yes
  shift
fi
srcdir=${1:-$(cd "$(dirname "$0")/.." && pwd)}

if ! git -C "$srcdir" rev-parse --is-inside-work-tree >/dev/null 2>&1 ||
   [ "$(cd "$srcdir" && git rev-parse --show-prefix)" != "" ]; then
  echo "spdx-headers: $srcdir is not the top of a git checkout: nothing to check" >&2
  exit 77
fi

# The comment syntax of a file, from its name (and its first line): c, hash,
# roff, fortran, or nothing when the file takes no licence line.
style() {
  f=$1
  case $f in
    debian/rules | debian/*.mk) echo hash; return ;;
    debian/* | tests/fuzz/corpus/* | LICENSE | .gitignore | */.gitignore) return ;;
  esac
  base=${f##*/}
  case $base in
    *.in) base=${base%.in} ;;
  esac
  case $base in
    *.c | *.h | *.cu | *.cuh | *.cl | *.cpp | *.hpp) echo c ;;
    *.sh | *.am | *.ac | *.mk | *.m4 | *.py | *.cmake | *.supp | *.pc | CMakeLists.txt | Makefile) echo hash ;;
    *.f90 | *.F90 | *.f | *.F) echo fortran ;;
    *.[1-9]) echo roff ;;
    *.*) ;;
    *) # no extension: a script if it says so on its first line
      if head -n 1 "$f" | grep -q '^#!'; then echo hash; fi ;;
  esac
}

# A line that is a comment holding the identifier, in any of the syntaxes.
has_id() { grep -Eq '^(#|//|/\*|!|\.\\"| \*) ?SPDX-License-Identifier: ' "$1"; }

# Rewrites FILE (keeping its mode) with the licence line where the top of
# this script says.
add_id() {
  ID=$id awk -v kind="$2" '
    function put(l) { if (!done) print l; done = 1 }
    NR == 1 && /^#!/ { print; next }
    # the opening comment, and the syntax it is in
    !started {
      started = 1
      if (kind == "c" && /^\/\//) { mode = "slash" }
      else if (kind == "c" && /^\/\*/) { mode = "block" }
      else if ((kind == "hash" && /^#/) || (kind == "roff" && /^\.\\"/) || (kind == "fortran" && /^!/)) { mode = kind }
      else { put(line()); print; next }
      opened = mode
    }
    mode == "block" { print; if (index($0, "*/")) { mode = ""; put(line()) } next }
    mode == "slash" && /^\/\// { print; next }
    mode == "hash" && /^#/ { print; next }
    mode == "roff" && /^\.\\"/ { print; next }
    mode == "fortran" && /^!/ { print; next }
    mode != "" { put(line()); mode = "" }
    { print }
    END { if (!done) print line() }
    function line() {
      if (kind == "c") return (opened == "slash" ? "// " : "/* ") ENVIRON["ID"] (opened == "slash" ? "" : " */")
      if (kind == "hash") return "# " ENVIRON["ID"]
      if (kind == "roff") return ".\\\" " ENVIRON["ID"]
      return "! " ENVIRON["ID"]
    }
  ' "$1" >"$1.spdx-tmp"
  cat "$1.spdx-tmp" >"$1"
  rm -f "$1.spdx-tmp"
}

# one file name a line (tracked names hold no newline)
lacking=$(cd "$srcdir" && git ls-files | while IFS= read -r f; do
  [ -f "$f" ] || continue
  kind=$(style "$f")
  [ -n "$kind" ] || continue
  has_id "$f" && continue
  if [ $check = no ]; then
    add_id "$f" "$kind"
  fi
  echo "$f"
done)

if [ -z "$lacking" ]; then
  exit 0
fi
if [ $check = yes ]; then
  echo "$lacking"
  n=$(echo "$lacking" | wc -l)
  echo "spdx-headers: $n tracked source files have no '$id' line (run maint/spdx-headers.sh)" >&2
  exit 1
fi
echo "$lacking" | sed 's/^/spdx-headers: added to /'
