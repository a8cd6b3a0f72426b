#!/usr/bin/env python3
# check-links.py -- every local link in docs/ and the README leads to a file that exists and, with '#', to a heading in it.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Usage: check-links.py SRCDIR.  Reads SRCDIR/README.md and every
SRCDIR/docs/**/*.md, follows each Markdown link that is not a URL, and fails
(status 1) naming each link whose file is missing or whose '#anchor' is no
heading of the target page.  Anchors are the headings' slugs as GitHub and
the docs site (MyST's myst_heading_anchors) make them.  A link to a page that
docs/contents.txt lists but that is not written yet only gets a note: pages
may be listed, and linked, before they land.  No network."""
import os
import re
import sys

LINK = re.compile(r"(?<!\!)\[(?:[^\[\]]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
IMG = re.compile(r"\!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(title):
    title = re.sub(r"`([^`]*)`", r"\1", title)
    title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", title)
    title = title.replace("*", "").replace("_", "_")
    return re.sub(r"[^\w\u4e00-\u9fff\- ]", "", title.strip().lower().replace(" ", "-"))


def strip_code(text):
    out, fenced = [], False
    for line in text.split("\n"):
        if FENCE.match(line):
            fenced = not fenced
            out.append("")
            continue
        out.append("" if fenced else re.sub(r"`[^`]*`", "``", line))
    return out


def anchors(path, cache={}):
    if path not in cache:
        found = set()
        with open(path, encoding="utf-8") as f:
            fenced = False
            for line in f:
                if FENCE.match(line):
                    fenced = not fenced
                if fenced:
                    continue
                m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
                if m:
                    s = slug(m.group(1))
                    n, cand = 0, s
                    while cand in found:
                        n += 1
                        cand = "%s-%d" % (s, n)
                    found.add(cand)
                for m in re.finditer(r"<a\s+(?:name|id)=\"([^\"]+)\"", line):
                    found.add(m.group(1))
                m = re.match(r"^\(([\w\-]+)\)=\s*$", line)
                if m:
                    found.add(m.group(1))
        cache[path] = found
    return cache[path]


def main(top):
    docs = os.path.join(top, "docs")
    pending = set()
    with open(os.path.join(docs, "contents.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                pending.add(os.path.normpath(os.path.join(docs, line + ".md")))
    pages = [os.path.join(top, "README.md")]
    for dirpath, dirnames, filenames in os.walk(docs):
        dirnames[:] = [d for d in dirnames if not d.startswith(("_", "."))]
        pages += [os.path.join(dirpath, n) for n in filenames if n.endswith(".md")]
    bad = notes = 0
    for page in sorted(pages):
        with open(page, encoding="utf-8") as f:
            lines = strip_code(f.read())
        for lineno, line in enumerate(lines, 1):
            for m in list(LINK.finditer(line)) + list(IMG.finditer(line)):
                target = m.group(1)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
                    continue  # a URL: not checked (no network)
                file_part, _, anchor = target.partition("#")
                dest = page if not file_part else os.path.normpath(os.path.join(os.path.dirname(page), file_part))
                where = "%s:%d: %s" % (os.path.relpath(page, top), lineno, target)
                if not os.path.exists(dest):
                    if dest in pending:
                        print("note: %s: the page is listed in docs/contents.txt, not written yet" % where)
                        notes += 1
                    else:
                        print("%s: no such file" % where)
                        bad += 1
                    continue
                if anchor and dest.endswith(".md") and anchor not in anchors(dest):
                    print("%s: no heading with anchor #%s in %s" % (where, anchor, os.path.relpath(dest, top)))
                    bad += 1
    # each page opens with a paragraph saying whom it is for ("For ...")
    for page in sorted(pages):
        rel = os.path.relpath(page, docs)
        if rel.startswith("..") or rel.startswith("api" + os.sep) or rel == "index.md":
            continue
        with open(page, encoding="utf-8") as f:
            body = [l for l in f.read().split("\n")[1:] if l.strip()]
        if not body or not body[0].startswith("For "):
            print("note: docs/%s: the first paragraph should say whom the page is for (\"For ...\")" % rel)
    print("check-links: %d pages, %d broken links%s" % (len(pages), bad, ", %d to pages not written yet" % notes if notes else ""))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "."))
