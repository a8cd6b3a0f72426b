#!/usr/bin/env python3
# bench/plot-bench.py -- docs/benchmarks.md's current tables and bar charts, from the kk-bench --json results committed in bench/results/.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Usage:
  bench/plot-bench.py [--srcdir DIR]          rewrite the tables in docs/benchmarks.md
                                             and draw docs/bench/<machine>.svg (matplotlib)
  bench/plot-bench.py --check [--srcdir DIR] fail when the tables or the charts' list
                                             are not those of bench/results/ (no matplotlib)

Each bench/results/<machine>.json is {"machine", "order", "date", "device",
"commit", "command", "note"?, "results": [...]}, where "results" is what
`kk-bench --json` prints (bench/site-bench.sh writes such a file).  The
tables go between the markers <!-- bench-current:begin --> and
<!-- bench-current:end --> of docs/benchmarks.md; a chart shows, per case and
backend, kk's speed relative to the hand-written native version (kk/native
for rates, native/kk for times: above 1, kk is faster)."""
import glob
import json
import os
import sys

CAP = 3.0  # the charts' axis ends here; larger ratios are written as numbers
BEGIN, END = "<!-- bench-current:begin -->", "<!-- bench-current:end -->"
COLORS = {"serial": "#8c8c8c", "threads": "#4c72b0", "openmp": "#55a868", "cuda": "#76b900", "hip": "#c44e52",
          "opencl": "#8172b2", "levelzero": "#0071c5"}


def load(srcdir):
    machines = []
    for path in sorted(glob.glob(os.path.join(srcdir, "bench", "results", "*.json"))):
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
        doc["stem"] = os.path.splitext(os.path.basename(path))[0]
        doc["rows"] = [r for r in doc["results"] if r.get("unit") != "x" and "/launch" not in r["case"]
                       and r.get("native", 0) > 0 and r.get("kk", 0) > 0]
        machines.append(doc)
    machines.sort(key=lambda d: (d.get("order", 99), d["stem"]))
    return machines


def speed(r):
    return r["native"] / r["kk"] if r["lower_is_better"] else r["kk"] / r["native"]


def fmt(x):
    return "%.3g" % x if x < 100 else "%.0f" % x


def tables(machines):
    out = [BEGIN, "<!-- written by bench/plot-bench.py from bench/results/*.json: edit those, not this -->", ""]
    for d in machines:
        out.append("### %s" % d["machine"])
        out.append("")
        out.append("%s; %s; commit %s; `%s`.%s" % (d["date"], d["device"], d["commit"], d["command"],
                                                  " " + d["note"] if d.get("note") else ""))
        out.append("")
        out.append("![kk relative to native on %s](bench/%s.svg)" % (d["machine"], d["stem"]))
        out.append("")
        out.append("| case | size | backend | kk | native | unit | kk speed / native |")
        out.append("|---|---|---|---|---|---|---|")
        for r in d["rows"]:
            out.append("| %s | %s | %s | %s | %s | %s%s | %.2f |" % (
                r["case"], r["size"], r["backend"], fmt(r["kk"]), fmt(r["native"]), r["unit"],
                " (lower is better)" if r["lower_is_better"] else "", speed(r)))
        out.append("")
    out.append(END)
    return "\n".join(out)


def draw(d, path):
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "kk"
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt
    rows = d["rows"]
    labels = ["%s %s (%s)" % (r["case"], r["size"], r["backend"]) for r in rows]
    values = [speed(r) for r in rows]
    fig, ax = plt.subplots(figsize=(8, 0.28 * len(rows) + 1.2))
    # the axis stops at CAP: a ratio far above it (a 1-element launch that kk runs on the calling
    # thread where the native side opens a parallel region) would squash every other bar; such a
    # bar is drawn to the edge with its value written beside it
    cap = CAP if max(values) > CAP else max(1.5, max(values) * 1.05)
    ax.barh(range(len(rows)), [min(v, cap) for v in values], color=[COLORS.get(r["backend"], "#999999") for r in rows])
    for i, v in enumerate(values):
        if v > cap:
            ax.text(cap * 0.98, i, "%.3g x" % v, va="center", ha="right", fontsize=7, color="white")
    ax.axvline(1.0, color="black", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels(labels, fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("kk speed / native speed (above 1: kk faster)")
    ax.set_title("%s, %s" % (d["machine"], d["date"]), fontsize=10)
    ax.set_xlim(0, cap)
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None, "Creator": "bench/plot-bench.py"})
    plt.close(fig)


def main(argv):
    check = "--check" in argv
    srcdir = argv[argv.index("--srcdir") + 1] if "--srcdir" in argv else "."
    machines = load(srcdir)
    page = os.path.join(srcdir, "docs", "benchmarks.md")
    with open(page, encoding="utf-8") as f:
        text = f.read()
    if BEGIN not in text or END not in text:
        print("plot-bench: %s has no %s ... %s markers" % (page, BEGIN, END))
        return 1
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    new = head + tables(machines) + tail
    if check:
        bad = 0
        if new != text:
            print("plot-bench: the tables in docs/benchmarks.md are not those of bench/results/: run bench/plot-bench.py")
            bad = 1
        for d in machines:
            svg = os.path.join(srcdir, "docs", "bench", d["stem"] + ".svg")
            if not os.path.exists(svg):
                print("plot-bench: %s missing: run bench/plot-bench.py" % svg)
                bad = 1
        print("plot-bench: %d machines, %s" % (len(machines), "out of date" if bad else "tables and charts current"))
        return bad
    try:
        import matplotlib  # noqa: F401  (Debian's python3-matplotlib)
    except ImportError:
        if os.path.realpath(sys.executable) != os.path.realpath("/usr/bin/python3") and os.path.exists("/usr/bin/python3"):
            os.execv("/usr/bin/python3", ["/usr/bin/python3", os.path.abspath(__file__)] + argv)
        print("plot-bench: needs matplotlib (Debian: python3-matplotlib)")
        return 1
    with open(page, "w", encoding="utf-8") as f:
        f.write(new)
    os.makedirs(os.path.join(srcdir, "docs", "bench"), exist_ok=True)
    for d in machines:
        draw(d, os.path.join(srcdir, "docs", "bench", d["stem"] + ".svg"))
    print("plot-bench: %d machines: docs/benchmarks.md and docs/bench/*.svg written" % len(machines))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
