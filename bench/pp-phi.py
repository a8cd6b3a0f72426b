#!/usr/bin/env python3
# bench/pp-phi.py -- Pennycook's performance-portability metric: reads per-platform results of several versions of an application (CSV that bench/cloverleaf.sh and bench/minibude.sh write with PHI_CSV=FILE) and prints each version's application efficiency per platform and its PHI, the harmonic mean of those efficiencies (0 where a version does not run on a platform).
#
# usage: bench/pp-phi.py [--platforms=P1,P2,...] [--csv] FILE...
#
# Input: CSV files with the header  app,platform,version,metric,value,check
#   app       the application (cloverleaf, minibude, ...): every app gets its own table
#   platform  where it ran (h200, h200-host16, vm-2core, pocl, ...)
#   version   kk, omp, cuda, kokkos, ... (upstream versions as the bench scripts name them)
#   metric    time_s, ms or any name ending in _s / _ms (lower is better), or anything else
#             (GFLOP/s, a figure of merit: higher is better)
#   value     a positive number; empty, "-" or "NA" when the version did not run there
#   check     PASSED, none or empty: the run counts; FAILED (or any other word): it does not
# Several rows of one app/platform/version (rounds, sweeps) keep the best.  Rows of one
# app/platform must all use the same metric.
#
# Application efficiency e(a, p) is version a's performance on platform p divided by the best
# performance of any version on p (Pennycook, Sewall and Lee, "Implications of a metric for
# performance portability", FGCS 2019).  PHI(a) over the platforms H is
#     |H| / sum over p in H of 1 / e(a, p)   if a runs (and passes its check) on every p in H,
#     0                                      otherwise.
# H is --platforms when given, else every platform the app's rows name.  The table also shows
# the harmonic mean over the platforms a version does run on ("PHI on its own"), which the
# metric itself does not use: it tells a version that is slow from one that is missing.
#
# Exit status: 0; 2 on unreadable or malformed input (the message names the file and line).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
import csv
import sys

FIELDS = ["app", "platform", "version", "metric", "value", "check"]


def lower_is_better(metric):
    m = metric.strip().lower()
    return m in ("time", "seconds", "ms") or m.endswith("_s") or m.endswith("_ms")


def harmonic(values):
    return len(values) / sum(1.0 / v for v in values) if values else 0.0


class InputError(Exception):
    pass


def read(paths):
    """rows[app][platform][version] = best value; metric[app][platform] = metric name."""
    rows, metric = {}, {}
    for path in paths:
        try:
            f = sys.stdin if path == "-" else open(path, newline="")
        except OSError as e:
            raise InputError("%s: %s" % (path, e.strerror))
        with f:
            reader = csv.reader(f)
            header = next(reader, None)
            if header is None:
                continue
            if [h.strip() for h in header] != FIELDS:
                raise InputError("%s:1: the header must be %s" % (path, ",".join(FIELDS)))
            for n, rec in enumerate(reader, start=2):
                if not rec or (len(rec) == 1 and not rec[0].strip()):
                    continue
                if len(rec) != len(FIELDS):
                    raise InputError("%s:%d: %d fields, expected %d" % (path, n, len(rec), len(FIELDS)))
                app, plat, ver, met, val, chk = (x.strip() for x in rec)
                if not app or not plat or not ver or not met:
                    raise InputError("%s:%d: app, platform, version and metric must not be empty" % (path, n))
                known = metric.setdefault(app, {}).setdefault(plat, met)
                if known != met:
                    raise InputError("%s:%d: %s on %s is measured in %s here and in %s before" %
                                     (path, n, app, plat, met, known))
                table = rows.setdefault(app, {}).setdefault(plat, {})
                table.setdefault(ver, None)  # the version is known, even when it did not run
                if val in ("", "-", "NA", "na") or chk.upper() not in ("", "PASSED", "NONE"):
                    continue
                try:
                    v = float(val)
                except ValueError:
                    raise InputError("%s:%d: value %r is not a number" % (path, n, val))
                if not v > 0 or v == float("inf"):
                    raise InputError("%s:%d: value %r must be positive and finite" % (path, n, val))
                old = table[ver]
                if old is None or (v < old if lower_is_better(met) else v > old):
                    table[ver] = v
    return rows, metric


def efficiencies(rows, metric, app, platforms):
    """eff[version][platform] = efficiency in (0, 1], or None where the version does not run."""
    versions = sorted({v for p in rows[app].values() for v in p})
    eff = {v: {} for v in versions}
    for plat in platforms:
        table = rows[app].get(plat, {})
        ran = {v: x for v, x in table.items() if x is not None}
        if not ran:
            for v in versions:
                eff[v][plat] = None
            continue
        low = lower_is_better(metric[app][plat])
        best = min(ran.values()) if low else max(ran.values())
        for v in versions:
            x = ran.get(v)
            eff[v][plat] = None if x is None else (best / x if low else x / best)
    return eff


def phi(effs):
    """Pennycook's PHI over every platform of effs: 0 when one is missing."""
    vals = list(effs.values())
    if not vals or any(e is None for e in vals):
        return 0.0
    return harmonic(vals)


def main(argv):
    platforms, as_csv, paths = None, False, []
    for a in argv:
        if a.startswith("--platforms="):
            platforms = [p for p in a.split("=", 1)[1].split(",") if p]
        elif a == "--csv":
            as_csv = True
        elif a in ("-h", "--help"):
            print("usage: bench/pp-phi.py [--platforms=P1,P2,...] [--csv] FILE...")
            return 0
        elif a.startswith("--"):
            print("pp-phi: unknown option %s" % a, file=sys.stderr)
            return 2
        else:
            paths.append(a)
    if not paths:
        print("usage: bench/pp-phi.py [--platforms=P1,P2,...] [--csv] FILE...", file=sys.stderr)
        return 2
    try:
        rows, metric = read(paths)
    except InputError as e:
        print("pp-phi: %s" % e, file=sys.stderr)
        return 2
    out = csv.writer(sys.stdout, lineterminator="\n") if as_csv else None
    if out:
        out.writerow(["app", "version", "platform", "efficiency", "phi", "phi_own"])
    for app in sorted(rows):
        plats = platforms if platforms else sorted(rows[app])
        eff = efficiencies(rows, metric, app, plats)
        if out:
            for v in sorted(eff):
                own = [e for e in eff[v].values() if e is not None]
                for p in plats:
                    e = eff[v][p]
                    out.writerow([app, v, p, "" if e is None else "%.4f" % e,
                                  "%.4f" % phi(eff[v]), "%.4f" % harmonic(own)])
            continue
        width = max([10] + [len(p) for p in plats])
        print("%s: application efficiency per platform (%% of the best version there) and PHI over %d platform%s"
              % (app, len(plats), "" if len(plats) == 1 else "s"))
        print("%-10s " % "version" + " ".join("%*s" % (width, p) for p in plats) + " %8s %14s" % ("PHI", "PHI on its own"))
        for v in sorted(eff, key=lambda v: (-phi(eff[v]), v)):
            cells = ["%*s" % (width, "-" if eff[v][p] is None else "%.1f" % (100 * eff[v][p])) for p in plats]
            own = [e for e in eff[v].values() if e is not None]
            print("%-10s " % v + " ".join(cells) + " %7.1f%% %13.1f%%" % (100 * phi(eff[v]), 100 * harmonic(own)))
        best = " ".join("%s=%s" % (p, next((v for v in sorted(eff) if eff[v][p] == 1.0), "-")) for p in plats)
        print("(best per platform: %s; metric per platform: %s)\n" %
              (best, ", ".join("%s %s" % (p, metric[app].get(p, "-")) for p in plats)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
