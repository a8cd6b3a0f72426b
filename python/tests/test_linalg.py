# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk-kernels from Python (kk.blas, kk.batched, kk.sparse): run by tests/python.sh on one backend."""
import numpy as np
import pytest

import kk
from kkhelp import DEVICE, on_host, to_dev, to_host


@pytest.fixture(scope="module", autouse=True)
def runtime():
    with kk.initialize(device=DEVICE, num_threads=2 if DEVICE != "serial" else None):
        yield


def rng():
    return np.random.default_rng(7)


def test_axpby_on_numpy_arrays_in_place():
    x, y = np.arange(10.0), np.ones(10)
    addr = y.ctypes.data
    assert kk.blas.axpby(2.0, x, 3.0, y) is y
    kk.fence()
    assert y.ctypes.data == addr
    np.testing.assert_allclose(y, 2 * np.arange(10.0) + 3)


def test_axpby_on_views_and_scal():
    # views of the default space: the default backend's memory (a GPU's on cuda)
    x, y = to_dev(np.arange(6.0), "x"), kk.View(6, label="y")
    kk.deep_copy(y, 1.0)
    kk.blas.axpby(-1.0, x, 2.0, y)
    kk.blas.scal(0.5, y)
    np.testing.assert_allclose(to_host(y), (2 - np.arange(6)) * 0.5)


@pytest.mark.parametrize("order", ["C", "F"])
def test_gemm_and_dot_on_default_space_views(order):
    r = rng()
    A = np.asarray(r.standard_normal((7, 5)), order=order)
    B = np.asarray(r.standard_normal((5, 3)), order=order)
    C = to_dev(np.zeros((3, 7), order=order), "C")
    kk.blas.gemm(to_dev(B), to_dev(A), C, transa="T", transb="T", alpha=2.0)
    np.testing.assert_allclose(to_host(C), 2 * (A @ B).T, rtol=1e-12)
    x = r.standard_normal(50)
    np.testing.assert_allclose(kk.blas.dot(to_dev(x), to_dev(x)), x @ x, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex128"])
def test_dot_and_norms(dtype):
    r = rng()
    x = r.standard_normal(100).astype(dtype)
    y = r.standard_normal(100).astype(dtype)
    if dtype == "complex128":
        x = x + 1j * r.standard_normal(100)
    tol = 1e-4 if dtype == "float32" else 1e-12
    d = kk.blas.dot(x, y)
    assert isinstance(d, complex if dtype == "complex128" else float)
    np.testing.assert_allclose(d, np.vdot(x, y), rtol=tol)
    np.testing.assert_allclose(kk.blas.nrm2(x), np.linalg.norm(x), rtol=tol)
    np.testing.assert_allclose(kk.blas.nrminf(x), np.abs(x).max(), rtol=tol)
    assert kk.blas.iamax(np.array([1.0, -5.0, 5.0, 2.0])) == 1


def test_multivector_dot_per_column():
    X = rng().standard_normal((20, 3))
    np.testing.assert_allclose(kk.blas.dot(X, X), (X * X).sum(axis=0), rtol=1e-12)
    np.testing.assert_allclose(kk.blas.nrm2(X), np.linalg.norm(X, axis=0), rtol=1e-12)


@pytest.mark.parametrize("trans", ["N", "T"])
def test_gemv(trans):
    r = rng()
    A = r.standard_normal((5, 7))
    x = r.standard_normal(7 if trans == "N" else 5)
    y = r.standard_normal(5 if trans == "N" else 7)
    want = 2.0 * (A if trans == "N" else A.T) @ x + 0.5 * y
    kk.blas.gemv(A, x, y, alpha=2.0, beta=0.5, trans=trans)
    kk.fence()
    np.testing.assert_allclose(y, want, rtol=1e-12)


@pytest.mark.parametrize("order", ["C", "F"])
def test_gemm_any_layout(order):
    r = rng()
    A = np.asarray(r.standard_normal((4, 6)), order=order)
    B = np.asarray(r.standard_normal((5, 6)), order=order)
    C = np.zeros((4, 5), order=order)
    kk.blas.gemm(A, B, C, transb="T")
    kk.fence()
    np.testing.assert_allclose(C, A @ B.T, rtol=1e-12)


def test_batched_gemm():
    r = rng()
    A, B = r.standard_normal((8, 3, 4)), r.standard_normal((8, 4, 2))
    C = np.ones((8, 3, 2))
    kk.batched.gemm(A, B, C, alpha=1.0, beta=1.0)
    kk.fence()
    np.testing.assert_allclose(C, A @ B + 1, rtol=1e-12)


def test_bad_extents_raise_and_change_nothing():
    x, y = np.ones(4), np.full(5, 3.0)
    with pytest.raises(kk.Error) as e:
        kk.blas.axpby(1.0, x, 1.0, y)
    assert e.value.name == "ERROR_INVALID_ARGUMENT" and "axpby" in str(e.value)
    assert (y == 3.0).all()
    with pytest.raises(ValueError):
        kk.blas.gemm(np.ones((2, 2)), np.ones((2, 2)), np.ones((2, 2)), transa="X")
    with pytest.raises(TypeError):
        kk.blas.axpby("two", x, 1.0, x)


def poisson3d(n):
    sp = pytest.importorskip("scipy.sparse")
    T = sp.diags([-np.ones(n - 1), 2 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1])
    I = sp.identity(n)
    return (sp.kron(sp.kron(T, I), I) + sp.kron(sp.kron(I, T), I) + sp.kron(sp.kron(I, I), T)).tocsr()


def test_from_scipy_and_spmv():
    M = poisson3d(4)
    A = kk.sparse.from_scipy(M, label="P")  # in the default space
    assert A.shape == M.shape and A.nnz == M.nnz and A.dtype == np.float64
    np.testing.assert_array_equal(to_host(A.row_ptr), M.indptr)
    x = rng().standard_normal(M.shape[0])
    y = to_dev(np.zeros(M.shape[0]), "y")
    kk.sparse.spmv(A, to_dev(x), y)
    np.testing.assert_allclose(to_host(y), M @ x, rtol=1e-12)
    z = A @ to_dev(x)
    np.testing.assert_allclose(to_host(z), M @ x, rtol=1e-12)
    if on_host():  # NumPy arrays are views of host backends' memory
        y = np.zeros(M.shape[0])
        kk.sparse.spmv(A, x, y)
        kk.fence()
        np.testing.assert_allclose(y, M @ x, rtol=1e-12)


def test_from_scipy_float32_and_coo_input():
    M = poisson3d(3).astype(np.float32).tocoo()
    A = kk.sparse.from_scipy(M)
    assert A.dtype == np.float32 and A.nnz == M.tocsr().nnz


def test_from_csr_malformed_raises():
    with pytest.raises(kk.Error) as e:
        kk.sparse.from_csr([0, 1, 2], [0, 5], [1.0, 1.0], (2, 2))
    assert e.value.name == "ERROR_INVALID_ARGUMENT"


def test_cg_solves_poisson():
    M = poisson3d(6)
    A = kk.sparse.from_scipy(M)
    xs = rng().standard_normal(M.shape[0])
    b = M @ xs
    x, info = kk.sparse.cg(A, to_dev(b), tol=1e-12, maxiter=500)
    assert info.converged and 0 < info.iterations <= 500 and info.residual <= 1e-12
    np.testing.assert_allclose(to_host(x), xs, rtol=1e-8, atol=1e-8)
    if not on_host():
        return
    # a NumPy initial guess is solved in place
    x0 = np.zeros_like(b)
    x1, info = kk.sparse.cg(A, b, x=x0, preconditioner=None)
    assert x1 is x0 and info.converged
    np.testing.assert_allclose(x0, xs, rtol=1e-7, atol=1e-7)
