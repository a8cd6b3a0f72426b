#!/usr/bin/env python3
# doxygen-filter.py -- Doxygen's INPUT_FILTER for kk's headers: reads their plain C comments as doc comments.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk's headers document each declaration in the plain C comment right above
it (or after it, on the same line, for struct members and enumerators), as
hwloc.h and ze_api.h do.  Doxygen reads only /** and /**< comments, so this
filter rewrites, on the way into Doxygen and never in the headers:

  * a comment block that ends on the line right above code  ->  /** ... */
  * a comment that follows code on the same line            ->  /**< ... */
  * the file's opening line                                  ->  /** @file ... */

Section banners (/* ===) and comments followed by a blank line pass
unchanged, and the line count never changes, so Doxygen's warnings name the
header's own lines."""
import re
import sys


def is_code(line):
    s = line.strip()
    return bool(s) and not s.startswith("/*") and not s.startswith("//") and not s.startswith("*")


def declaration_run(lines, k):
    """The last line of the declarations that start at line k and run to the
    next blank line, comment block, banner or #endif; and how many
    declarations (top-level ';' ends and #defines) it holds."""
    depth, count, end, cont = 0, 0, k, False
    while k < len(lines):
        line = lines[k]
        s = line.strip()
        if not cont and (not s or s.startswith("/*") or s.startswith("#endif") or s.startswith("#if") or s.startswith("#else")):
            break
        code = re.sub(r"/\*.*?\*/", "", line)
        if not cont and s.startswith("#define") and depth == 0:
            count += 1
        if not s.startswith("#"):
            before = depth
            depth += code.count("{") - code.count("}")
            if depth == 0 and code.rstrip().endswith(";") and not cont:
                count += 1
            del before
        cont = line.rstrip().endswith("\\")
        end = k
        k += 1
    return end, count


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = list(lines)
    i = 0
    # the file's opening line says what it is for: the file's documentation
    # (without it Doxygen lists, and checks, none of the file's functions)
    if lines and lines[0].startswith("/*") and "*/" in lines[0]:
        out[0] = "/** @file " + lines[0][2:]
        i = 1
    n = len(lines)
    while i < n:
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("/*") and not stripped.startswith("/**"):
            # a comment block starting this line: find its end
            j = i
            while j < n and "*/" not in lines[j][(lines[j].find("/*") + 2) if j == i else 0:]:
                j += 1
            if j >= n:
                break
            # code must follow on the next line, and the block must not be a banner
            # a section's banner (/* ===) names a section, not the code below it;
            # a sub-section's (/* ---) describes the declarations right below
            # (a section's banner with a paragraph below its title, right
            # above code, describes that code too)
            banner = stripped.startswith("/* ===") and j - i < 4
            if not banner and j + 1 < n and is_code(lines[j + 1]) and not lines[j + 1].lstrip().startswith("#endif"):
                indent = line[: len(line) - len(stripped)]
                out[i] = indent + "/**" + stripped[2:]
                end, count = declaration_run(lines, j + 1)
                if count >= 2:
                    # one comment over several declarations: a member group,
                    # whose comment Doxygen gives to each (DISTRIBUTE_GROUP_DOC)
                    out[i] = indent + "/**@{*/ " + out[i][len(indent):]
                    out[end] = out[end] + " /**@}*/"
            i = j + 1
            continue
        # code, then a comment on the same line: a trailing doc comment
        m = re.match(r"^(\s*[^\s/#][^\"']*?[;,{]?\s*)/\*(?![*!])", line)
        if m and is_code(line) and not line.rstrip().endswith("\\"):
            out[i] = line[: m.end(1)] + "/**<" + line[m.end(1) + 2:]
        i += 1
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
