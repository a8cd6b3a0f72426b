#!/usr/bin/env python3
# doxygen-filter.py -- Doxygen's INPUT_FILTER for kk's headers: reads their plain C comments as doc comments.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk's headers document each declaration in the plain C comment right above
it (or after it, on the same line, for struct members and enumerators), as
hwloc.h and ze_api.h do.  Doxygen reads only /** and /**< comments, so this
filter rewrites, on the way into Doxygen and never in the headers:

  * the file's opening line                                  ->  /** @file ... */
  * a comment block that ends on the line right above code  ->  /** ... */
  * a comment that follows code on the same line            ->  /**< ... */
  * a comment above several declarations (no blank line between them): each
    declaration after the first gets the comment's text, joined on one line,
    as a trailing /**< ... */ (merged with its own trailing comment)
  * an internal enumerator (KK__LAYOUT_PIN = 0x7fffffff, the value that pins
    an enum's size) -> removed (an empty line when it is alone on its line,
    the enum's last one when the enum is on one line): Doxygen 1.9 keeps
    an enumerator that EXCLUDE_SYMBOLS hides in its XML with its enum's own
    id, and Sphinx then finds that id twice on the page

Section banners (/* === with only a title) and comments followed by a blank
line pass unchanged; banner rules (==== / ----) are dropped from the text,
since Markdown would read the line above one as a heading.  The line count
never changes, so Doxygen's warnings name the header's own lines."""
import re
import sys

TRAILING = re.compile(r"^(\s*[^\s/#*][^\"']*?)/\*(?![*!])(.*?)\*/\s*$")
# an internal enumerator (KK__ prefix) with its value: alone on its line, or
# the last one of an enum written on one line
INTERNAL_ENUMERATOR = re.compile(r"^\s*KK__[A-Z0-9_]+\s*(=\s*[^(){};,/]+)?,?\s*$")
INTERNAL_LAST_ENUMERATOR = re.compile(r",\s*KK__[A-Z0-9_]+\s*(=\s*[^(){};,/]+?)?\s*(?=\})")


def is_code(line):
    s = line.strip()
    return bool(s) and not s.startswith("/*") and not s.startswith("//") and not s.startswith("*")


def declaration_ends(lines, k):
    """The last line of each declaration in the run that starts at line k and
    goes on to the next blank line, comment or preprocessor conditional: a
    top-level ';' ends one, and so does a #define's last line."""
    ends, depth, in_macro = [], 0, False
    while k < len(lines):
        line = lines[k]
        s = line.strip()
        if not in_macro and (not s or s.startswith("/*") or re.match(r"#\s*(if|else|elif|endif)", s)):
            break
        if in_macro or s.startswith("#"):
            starts = not in_macro
            in_macro = line.rstrip().endswith("\\")
            if not in_macro and depth == 0 and (not starts or s.startswith("#define")):
                ends.append(k)
        else:
            code = re.sub(r"/\*.*?\*/", "", line)
            depth += code.count("{") - code.count("}")
            if depth == 0 and code.rstrip().endswith(";"):
                ends.append(k)
        k += 1
    return ends


def comment_text(lines, i, j):
    """The text of the comment on lines i..j, on one line."""
    text = " ".join(lines[i:j + 1])
    text = text.strip()
    text = re.sub(r"^/\*+", "", text)
    text = re.sub(r"\*/$", "", text)
    text = re.sub(r"\s\*\s", " ", text)
    text = re.sub(r"[=-]{4,}", "", text)
    return re.sub(r"\s+", " ", text).strip().replace("*/", "* /")


def main(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = list(lines)
    n = len(lines)
    shared = {}  # line -> text of a comment over several declarations
    i = 0
    if lines and lines[0].startswith("/*") and "*/" in lines[0]:
        out[0] = "/** @file " + lines[0][2:]
        i = 1
    while i < n:
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("/*") and not stripped.startswith("/**"):
            j = i
            while j < n and "*/" not in (lines[j][lines[j].find("/*") + 2:] if j == i else lines[j]):
                j += 1
            if j >= n:
                break
            # a banner with only a title names a section, not the code below
            banner = stripped.startswith("/* ===") and j - i < 4
            if not banner and j + 1 < n and is_code(lines[j + 1]) and not lines[j + 1].lstrip().startswith("#endif"):
                indent = line[: len(line) - len(stripped)]
                out[i] = indent + "/**" + stripped[2:]
                for k in range(i, j + 1):
                    out[k] = re.sub(r"[=-]{4,}", "", out[k])
                ends = declaration_ends(lines, j + 1)
                if len(ends) > 1:
                    text = comment_text(lines, i, j)
                    for prev, e in zip(ends, ends[1:]):
                        shared[e] = (text, prev + 1 == e)
            i = j + 1
            continue
        i += 1
    for k in range(n):
        line = lines[k]
        if k in shared:
            text, one_line = shared[k]
            m = TRAILING.match(line)
            if one_line and not line.lstrip().startswith("#"):
                # a declaration on one line: the comment goes before it, where
                # Doxygen gives it to the declaration and not to its last member
                out[k] = "/** " + text + " */ " + (m.group(1) + "/**<" + m.group(2) + "*/" if m else line)
            elif m:
                out[k] = m.group(1) + "/**< " + text + " " + m.group(2).strip() + " */"
            else:
                out[k] = line + " /**< " + text + " */"
            continue
        m = TRAILING.match(out[k])
        if m and is_code(out[k]) and not out[k].rstrip().endswith("\\") and out[k] == line:
            out[k] = m.group(1) + "/**<" + m.group(2) + "*/"
    for k in range(n):
        if INTERNAL_ENUMERATOR.match(lines[k]):
            out[k] = ""
        else:
            out[k] = INTERNAL_LAST_ENUMERATOR.sub(" ", out[k])
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main(sys.argv[1])
