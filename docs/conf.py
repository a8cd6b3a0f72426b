# conf.py -- Sphinx configuration of kk's docs site: the Markdown pages through MyST, the C API through Breathe over Doxygen's XML.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
# `make html` runs Doxygen (docs/site/Doxyfile) and then sphinx-build on this
# directory; about.md says why these tools.  The navigation comes from
# contents.txt: index.md holds a marker that the source-read hook below
# replaces by one toctree per section.
import os
import re

project = "kk"
author = "the kk authors"
copyright = "the kk authors; Apache-2.0 WITH LLVM-exception"
release = os.environ.get("KK_VERSION", "")
version = release

extensions = ["myst_parser", "breathe"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "site", "README*"]
myst_heading_anchors = 4
myst_enable_extensions = ["colon_fence", "deflist"]
suppress_warnings = ["myst.header"]

breathe_projects = {"kk": os.environ.get("KK_DOXY_XML", "_build/doxygen/xml")}
breathe_default_project = "kk"
breathe_domain_by_extension = {"h": "c"}
breathe_show_define_initializer = False
breathe_show_enumvalue_initializer = True

html_theme = "alabaster"
html_title = "kk documentation"
html_theme_options = {
    "description": "a C11 runtime for performance-portable parallel programs, backends as plugins",
    "fixed_sidebar": True,
    "page_width": "1200px",
    "sidebar_width": "260px",
}
html_sidebars = {"**": ["about.html", "navigation.html", "searchbox.html"]}
html_static_path = []
html_show_sourcelink = False

HERE = os.path.dirname(os.path.abspath(__file__))
MARKER = "<!-- contents.txt -->"


def read_contents():
    """[(section title, [page, ...]), ...] from contents.txt, pages that exist only."""
    sections, missing = [], []
    with open(os.path.join(HERE, "contents.txt"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("# "):
                continue
            if line.startswith("## "):
                sections.append((line[3:].strip(), []))
            elif os.path.exists(os.path.join(HERE, line + ".md")):
                sections[-1][1].append(line)
            else:
                missing.append(line)
    return sections, missing


def all_pages():
    pages = []
    for dirpath, dirnames, filenames in os.walk(HERE):
        dirnames[:] = [d for d in dirnames if not d.startswith(("_", ".")) and d != "site"]
        for name in filenames:
            if name.endswith(".md") and not name.startswith("README"):
                rel = os.path.relpath(os.path.join(dirpath, name), HERE)[:-3]
                pages.append(rel.replace(os.sep, "/"))
    return sorted(pages)


def toctrees():
    sections, missing = read_contents()
    listed = {p for _, pages in sections for p in pages}
    extra = [p for p in all_pages() if p not in listed and p != "index"]
    if extra:
        sections.append(("More pages", extra))
    out = []
    for title, pages in sections:
        if not pages:
            continue
        out.append("```{toctree}\n:caption: %s\n:maxdepth: 1\n\n%s\n```\n" % (title, "\n".join(pages)))
    return "\n".join(out), missing, extra


def on_source_read(app, docname, source):
    if docname != "index" or MARKER not in source[0]:
        return
    text, missing, extra = toctrees()
    from sphinx.util import logging
    log = logging.getLogger(__name__)
    for p in missing:
        log.info("kk docs: contents.txt lists %s.md, not written yet: left out", p)
    for p in extra:
        log.info("kk docs: %s.md is not in contents.txt: listed under 'More pages'", p)
    source[0] = source[0].replace(MARKER, text)


def setup(app):
    app.connect("source-read", on_source_read)
    return {"parallel_read_safe": True}
