#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk from Python, end to end: a 3-D Poisson matrix built with SciPy, solved with kk-kernels' conjugate
gradients on the best backend kk finds (a GPU when there is one; KOKKOS_DEVICE or --device picks another).

    python3 examples/python/cg.py            # n = 32: a 32^3 grid, 32768 unknowns
    python3 examples/python/cg.py --n 64 --device cuda
"""
import argparse
import sys
import time

import numpy as np
import scipy.sparse as sp

import kk


def poisson3d(n):
    """The 7-point Laplacian on an n x n x n grid (Dirichlet boundaries) as a SciPy CSR matrix."""
    T = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    I = sp.identity(n)
    return (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsr()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=32, help="grid points per dimension (default 32)")
    ap.add_argument("--device", default=None, help="kk backend (default: the best one kk finds)")
    ap.add_argument("--tol", type=float, default=1e-8)
    args = ap.parse_args()

    M = poisson3d(args.n)
    x_true = np.random.default_rng(1).standard_normal(M.shape[0])
    b_host = M @ x_true

    with kk.initialize(device=args.device):
        info = kk.info()
        A = kk.sparse.from_scipy(M, label="poisson")          # in the default backend's memory
        b = kk.View(b_host.shape, "float64", label="b")       # the same space
        b_mirror = kk.create_mirror_view(b)                   # b itself on host backends
        np.asarray(b_mirror)[:] = b_host
        kk.deep_copy(b, b_mirror)                             # host -> device where they differ
        x = kk.View(b_host.shape, "float64", label="x")       # initial guess 0
        kk.fence()
        t0 = time.perf_counter()
        x, res = kk.sparse.cg(A, b, x=x, tol=args.tol, maxiter=10 * args.n)
        t = time.perf_counter() - t0
        x_host = kk.create_mirror_view(x)
        kk.deep_copy(x_host, x)
        err = np.abs(np.asarray(x_host) - x_true).max()
        print("backend %s (%s), %d^3 grid, %d unknowns, %d nonzeros" % (
            info["backend"], A.space, args.n, M.shape[0], M.nnz))
        print("CG: %d iterations, residual %.2e, %s, %.3f s, max error %.2e" % (
            res.iterations, res.residual, "converged" if res.converged else "NOT converged", t, err))
        del A, b, b_mirror, x, x_host
    return 0 if res.converged and err < 1e-4 else 1


if __name__ == "__main__":
    sys.exit(main())
