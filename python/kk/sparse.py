# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk-kernels' sparse matrices (compressed row storage), SpMV and conjugate gradients from Python.

    A = kk.sparse.from_scipy(scipy_csr)          # copied once into the default space
    kk.sparse.spmv(A, x, y)                      # y = A x
    x, info = kk.sparse.cg(A, b)                 # info.converged, info.iterations, info.residual

Vectors are kk.Views or any DLPack arrays (NumPy, CuPy, PyTorch) the matrix's backend can read.
"""
import collections
import ctypes

from . import Error, View, _b, _c, _check, _s, _space, _TYPES, _TYPE_IDS
from . import _linalg as _k

__all__ = ["CrsMatrix", "from_scipy", "from_csr", "spmv", "cg", "CGInfo"]

CGInfo = collections.namedtuple("CGInfo", "iterations residual converged")
_VALUE_TYPES = ("float32", "float64", "complex64", "complex128")


class CrsMatrix:
    """A kk CRS matrix (kk_crs_t) in one memory space: .shape, .nnz, .dtype, .space, and its own views
    .row_ptr (int64), .col_idx (int32), .values (values may be changed in place).  Made by from_scipy,
    from_csr or .copy_to(space); freed when dropped."""

    __slots__ = ("_h", "_init_id", "__weakref__")

    def __init__(self, handle):
        self._h = handle
        self._init_id = _c.kk_initialization_id()

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h and _k is not None and _k.kk_crs_destroy is not None:
            _k.kk_crs_destroy(h)

    def _alive(self):
        if not self._h or self._init_id != _c.kk_initialization_id():
            raise Error(-3, "kk.sparse.CrsMatrix: kk was finalized since this matrix was made")
        return self._h

    @property
    def shape(self):
        return (_k.kk_crs_rows(self._h), _k.kk_crs_cols(self._h))

    @property
    def nnz(self):
        return _k.kk_crs_nnz(self._h)

    @property
    def dtype(self):
        import numpy as np
        return np.dtype(_TYPES[_k.kk_crs_type(self._h)])

    @property
    def space(self):
        return _s(_c.kk_space_name(_k.kk_crs_space(self._alive())))

    def _view(self, fn):
        h = _c.kk_view_retain(fn(self._alive()))
        return View(None, _handle=h)

    @property
    def row_ptr(self):
        return self._view(_k.kk_crs_row_ptr)

    @property
    def col_idx(self):
        return self._view(_k.kk_crs_col_idx)

    @property
    def values(self):
        return self._view(_k.kk_crs_values)

    def copy_to(self, space):
        """A deep copy of this matrix in `space` (a memory-space name, e.g. "Cuda")."""
        out = ctypes.c_void_p()
        _check(_k.kk_crs_copy(_space(space), self._alive(), ctypes.byref(out)), "kk.sparse.CrsMatrix.copy_to")
        return CrsMatrix(out.value)

    def __matmul__(self, x):
        """A @ x: a new vector (a kk.View in the matrix's space) holding A x."""
        keep = []
        xv = _k.view(x, "kk.sparse.CrsMatrix @ x", keep)
        shape = (self.shape[0],) + tuple(xv.shape[1:])
        y = View(shape, xv.dtype, space=_k.kk_crs_space(self._alive()), layout=xv.layout
                 if xv.layout in ("right", "left") else "default", label="A@x")
        spmv(self, xv, y)
        return y

    def __repr__(self):
        if not self._h or self._init_id != _c.kk_initialization_id():
            return "<kk.sparse.CrsMatrix (finalized)>"
        return "<kk.sparse.CrsMatrix %dx%d nnz=%d dtype=%s space=%s>" % (self.shape + (self.nnz, self.dtype.name,
                                                                                   self.space))


def _index_type(a):
    return {"int32": 5, "int64": 7}.get(a.dtype.name)


def from_csr(indptr, indices, data, shape, space=None, label="A", dtype=None):
    """A CRS matrix in `space` (None: the default space) from host CSR arrays (array-likes: indptr and
    indices int32 or int64, data of the values).  dtype None: data's type when it is float32/64 or
    complex64/128, else float64.  The arrays are copied; malformed ones raise kk.Error naming the first
    bad entry."""
    import numpy as np
    _k.need_init()
    indptr, indices = np.ascontiguousarray(indptr), np.ascontiguousarray(indices)
    for a, what in ((indptr, "indptr"), (indices, "indices")):
        if _index_type(a) is None:
            a2 = a.astype(np.int64) if a.dtype.kind in "iu" else None
            if a2 is None:
                raise TypeError("kk.sparse.from_csr: %s must hold integers, not %s" % (what, a.dtype))
            if what == "indptr":
                indptr = a2
            else:
                indices = a2
    data = np.asarray(data)
    if dtype is None:
        dtype = data.dtype if data.dtype.name in _VALUE_TYPES else np.float64
    dtype = np.dtype(dtype)
    if dtype.name not in _VALUE_TYPES:
        raise TypeError("kk.sparse.from_csr: values of %s are not supported (%s)" % (dtype, ", ".join(_VALUE_TYPES)))
    data = np.ascontiguousarray(data, dtype=dtype)
    rows, cols = (int(e) for e in shape)
    if indptr.shape != (rows + 1,):
        raise ValueError("kk.sparse.from_csr: indptr has %d entries, a %d-row matrix needs %d" %
                         (indptr.size, rows, rows + 1))
    nnz = int(indptr[-1]) if rows >= 0 and indptr.size else 0
    if indices.size < nnz or data.size < nnz:
        raise ValueError("kk.sparse.from_csr: indptr ends at %d but indices has %d and data %d entries" %
                         (nnz, indices.size, data.size))
    out = ctypes.c_void_p()
    _check(_k.kk_crs_create_csr(_space(space), _b(label), _TYPE_IDS[dtype.name], rows, cols, _index_type(indptr),
                                indptr.ctypes.data, _index_type(indices), indices.ctypes.data, data.ctypes.data,
                                ctypes.byref(out)), "kk.sparse.from_csr")
    return CrsMatrix(out.value)


def from_scipy(M, space=None, label="A", dtype=None):
    """A CRS matrix in `space` (None: the default space) from a SciPy sparse matrix or array (CSR, or
    any format SciPy converts with .tocsr()).  The structure and values are copied once."""
    if not hasattr(M, "tocsr"):
        raise TypeError("kk.sparse.from_scipy: a SciPy sparse matrix is needed, not %s" % type(M).__name__)
    M = M.tocsr()
    return from_csr(M.indptr, M.indices, M.data, M.shape, space=space, label=label, dtype=dtype)


def spmv(A, x, y, alpha=1.0, beta=0.0, trans="N", instance=None):
    """y = alpha op(A) x + beta y (vectors or multivectors; trans "N", "T" or "C").  Returns y.
    Asynchronous, like the BLAS routines of kk.blas."""
    keep = []
    xv, yv = _k.view(x, "kk.sparse.spmv x", keep), _k.view(y, "kk.sparse.spmv y", keep)
    if not isinstance(A, CrsMatrix):
        raise TypeError("kk.sparse.spmv: A must be a kk.sparse.CrsMatrix (kk.sparse.from_scipy), not %s" %
                        type(A).__name__)
    _check(_k.kk_sparse_spmv(_k.instance(instance), _k.op(trans, "kk.sparse.spmv trans"),
                             _k.scalar(alpha, "kk.sparse.spmv alpha"), A._alive(), xv._alive(),
                             _k.scalar(beta, "kk.sparse.spmv beta"), yv._alive()))
    return y


def cg(A, b, x=None, tol=1e-10, maxiter=1000, preconditioner="jacobi", instance=None):
    """Solves A x = b (A symmetric / Hermitian positive definite) by conjugate gradients with a Jacobi
    preconditioner ("jacobi") or none (None or "none").  x: the initial guess, overwritten with the
    solution (None: a zero vector in A's space).  Returns (x, CGInfo(iterations, residual, converged));
    not converging is not an error: check info.converged.  Synchronous."""
    if not isinstance(A, CrsMatrix):
        raise TypeError("kk.sparse.cg: A must be a kk.sparse.CrsMatrix (kk.sparse.from_scipy), not %s" %
                        type(A).__name__)
    pre = {"jacobi": 1, "none": 0, None: 0}.get(preconditioner)
    if pre is None:
        raise ValueError("kk.sparse.cg: preconditioner %r is not 'jacobi' or None" % (preconditioner,))
    keep = []
    bv = _k.view(b, "kk.sparse.cg b", keep)
    if x is None:
        x = View(bv.shape, bv.dtype, space=_k.kk_crs_space(A._alive()), label="x")
    xv = _k.view(x, "kk.sparse.cg x", keep)
    opts = _k.CgOptions(ctypes.sizeof(_k.CgOptions), int(maxiter), float(tol), pre)
    res = _k.CgResult(ctypes.sizeof(_k.CgResult), 0, 0.0, 0)
    _check(_k.kk_sparse_cg(_k.instance(instance), A._alive(), bv._alive(), xv._alive(), ctypes.byref(opts),
                           ctypes.byref(res)), "kk.sparse.cg")
    return x, CGInfo(res.iterations, res.residual, bool(res.converged))
