#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""What Python adds to a kk launch, and whether DLPack round trips copy (a benchmark, not a test).

    python3 bench/python-launch.py [--builddir .] [--backends serial,threads,openmp,cuda] [--launches 20000]

Per backend: the time per launch of the `saxpy` kernel of python/tests/kk_test_module.so on a 1-element
range, from C (bench/kk-bench-launch) and from Python, through a prepared kk.Launch (mod.saxpy.bind(...)
then launch(policy)) and through the plain call mod.saxpy(policy, ...), best of five rounds, and the
difference Python - C.  Then DLPack round trips (kk view -> NumPy / CuPy / PyTorch -> kk view), checked
by pointer equality: any copy makes the exit status 1.  Run from a built tree (make, and
make python/tests/kk_test_module.so); the backend must be usable (skipped otherwise).
"""
import argparse
import os
import subprocess
import sys
import time


def python_side(backend, launches):
    import kk
    import numpy as np
    out = {}
    with kk.initialize(device=backend):
        mod = kk.load(os.environ["KK_TEST_MODULE"])
        x, y = kk.View(1, label="x"), kk.View(1, label="y")
        p = kk.RangePolicy(0, 1)
        launch = mod.saxpy.bind(a=2.0, x=x, y=y, n=1)
        call = mod.saxpy
        for name, fn in (("bound", lambda: launch(p)), ("call", lambda: call(p, a=2.0, x=x, y=y, n=1))):
            best = 1e30
            n = launches if name == "bound" else max(launches // 10, 100)
            for r in range(6):
                t0 = time.perf_counter()
                for _ in range(n):
                    fn()
                kk.fence()
                t = (time.perf_counter() - t0) / n
                if r and t < best:
                    best = t
            out[name] = best * 1e6
        # DLPack round trips, pointer equality
        trips = []
        c = t = None
        v = kk.View(16, "float32", label="v")
        a = np.from_dlpack(v) if v.host_accessible else None
        w = None
        if a is not None:
            try:
                w = kk.from_dlpack(a)
            except BufferError:  # NumPy 1.x marks DLPack imports read-only and will not export them again
                w = kk.from_dlpack(np.asarray(v))
            trips.append(("numpy", a.ctypes.data == v.data_ptr and w.data_ptr == v.data_ptr))
        try:
            import cupy
            if not v.host_accessible or v.backend == "cuda":
                c = cupy.from_dlpack(v)
                w = kk.from_dlpack(c)
                trips.append(("cupy", c.data.ptr == v.data_ptr and w.data_ptr == v.data_ptr))
        except ImportError:
            pass
        try:
            import torch
            if v.backend == "cuda" or v.host_accessible:
                t = torch.from_dlpack(v)
                w = kk.from_dlpack(t)
                trips.append(("torch", t.data_ptr() == v.data_ptr and w.data_ptr == v.data_ptr))
        except ImportError:
            pass
        out["dlpack"] = trips
        del launch, call, x, y, v, a, w
        c = t = None  # noqa: F841  (the CuPy array and the tensor, before kk finalizes their memory)
        mod.unload()
    print(repr(out))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--builddir", default=".")
    ap.add_argument("--backends", default="serial,threads,openmp,cuda")
    ap.add_argument("--launches", type=int, default=20000)
    ap.add_argument("--python-side", help=argparse.SUPPRESS)
    args = ap.parse_args()
    b = os.path.abspath(args.builddir)
    env = dict(os.environ)
    env.setdefault("KK_LIBRARY", os.path.join(b, ".libs", "libkk.so"))
    env.setdefault("KK_TEST_MODULE", os.path.join(b, "python", "tests", "kk_test_module.so"))
    src = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = os.path.join(src, "python") + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    if args.python_side:
        python_side(args.python_side, args.launches)
        return 0
    if not os.path.exists(env["KK_TEST_MODULE"]):
        print("no %s: run make python/tests/kk_test_module.so first" % env["KK_TEST_MODULE"])
        return 2
    print("%-8s %10s %14s %14s %12s" % ("backend", "C us", "Python us", "(plain call)", "Python - C"))
    bad = 0
    trips = []
    for be in args.backends.split(","):
        c = subprocess.run([os.path.join(b, "bench", "kk-bench-launch"), env["KK_TEST_MODULE"], str(args.launches),
                            "--kokkos-device=" + be], env=env, capture_output=True, text=True, timeout=300)
        if c.returncode != 0:
            print("%-8s skipped: %s" % (be, (c.stderr.strip().splitlines() or ["?"])[-1]))
            continue
        c_us = float(c.stdout.split()[-1])
        py = subprocess.run([sys.executable, os.path.abspath(__file__), "--builddir", b, "--launches",
                             str(args.launches), "--python-side", be], env=env, capture_output=True, text=True,
                            timeout=600)
        if py.returncode != 0:
            print("%-8s Python side failed:\n%s" % (be, py.stderr))
            bad = 1
            continue
        r = eval(py.stdout.strip().splitlines()[-1])  # our own child's repr of a dict
        print("%-8s %10.3f %14.3f %14.3f %+12.3f" % (be, c_us, r["bound"], r["call"], r["bound"] - c_us))
        for consumer, same in r["dlpack"]:
            trips.append("dlpack %-6s on %-8s %s" % (consumer, be, "zero-copy (pointers equal)" if same else "COPIED"))
            bad |= not same
    print("(a 1-element range; best of 5 rounds; Python: a kk.Launch from mod.saxpy.bind(...), "
          "the plain call packs the arguments each time)")
    for t in trips:
        print(t)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
