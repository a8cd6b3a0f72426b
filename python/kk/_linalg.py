# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""libkk-kernels through ctypes: loading it next to libkk and declaring its C functions (<kk/linalg.h>)."""
import ctypes
import os

from . import _lib as _c
from . import Error, View, _as_view, _check, _need_init

P = ctypes.c_void_p
st = ctypes.c_int


class Scalar(ctypes.Structure):
    _fields_ = [("re", ctypes.c_double), ("im", ctypes.c_double)]


class CgOptions(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("max_iterations", ctypes.c_int), ("tolerance", ctypes.c_double),
                ("preconditioner", ctypes.c_int)]


class CgResult(ctypes.Structure):
    _fields_ = [("struct_size", ctypes.c_size_t), ("iterations", ctypes.c_int), ("residual", ctypes.c_double),
                ("converged", ctypes.c_int)]


def _candidates():
    env = os.environ.get("KK_KERNELS_LIBRARY")
    if env:
        yield env
        return
    # next to the libkk this package loaded (a build tree's .libs, the prefix's libdir)
    here = os.path.dirname(os.path.abspath(_c.path)) if os.sep in _c.path else None
    if here:
        yield os.path.join(here, "libkk-kernels.so.0")
        yield os.path.join(here, "libkk-kernels.so")
    yield "libkk-kernels.so.0"


def _load():
    errors = []
    for path in _candidates():
        try:
            return ctypes.CDLL(path), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("kk: libkk-kernels could not be loaded (set KK_KERNELS_LIBRARY to its path): " +
                      "; ".join(errors))


lib, path = _load()


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


S = Scalar
PD = ctypes.POINTER(ctypes.c_double)
kk_blas_axpby = _fn("kk_blas_axpby", st, P, S, P, S, P)
kk_blas_scal = _fn("kk_blas_scal", st, P, P, S, P)
kk_blas_dot = _fn("kk_blas_dot", st, P, P, P, ctypes.POINTER(Scalar))
kk_blas_nrm2 = _fn("kk_blas_nrm2", st, P, P, PD)
kk_blas_nrm1 = _fn("kk_blas_nrm1", st, P, P, PD)
kk_blas_nrminf = _fn("kk_blas_nrminf", st, P, P, PD)
kk_blas_iamax = _fn("kk_blas_iamax", st, P, P, ctypes.POINTER(ctypes.c_int64))
kk_blas_gemv = _fn("kk_blas_gemv", st, P, ctypes.c_int, S, P, P, S, P)
kk_blas_gemm = _fn("kk_blas_gemm", st, P, ctypes.c_int, ctypes.c_int, S, P, P, S, P)
kk_batched_gemm = _fn("kk_batched_gemm", st, P, ctypes.c_int, ctypes.c_int, S, P, P, S, P)
kk_batched_gemv = _fn("kk_batched_gemv", st, P, ctypes.c_int, S, P, P, S, P)
kk_crs_create_csr = _fn("kk_crs_create_csr", st, P, ctypes.c_char_p, ctypes.c_int, ctypes.c_int64, ctypes.c_int64,
                        ctypes.c_int, P, ctypes.c_int, P, P, ctypes.POINTER(P))
kk_crs_copy = _fn("kk_crs_copy", st, P, P, ctypes.POINTER(P))
kk_crs_destroy = _fn("kk_crs_destroy", None, P)
kk_crs_rows = _fn("kk_crs_rows", ctypes.c_int64, P)
kk_crs_cols = _fn("kk_crs_cols", ctypes.c_int64, P)
kk_crs_nnz = _fn("kk_crs_nnz", ctypes.c_int64, P)
kk_crs_type = _fn("kk_crs_type", ctypes.c_int, P)
kk_crs_space = _fn("kk_crs_space", P, P)
kk_crs_row_ptr = _fn("kk_crs_row_ptr", P, P)
kk_crs_col_idx = _fn("kk_crs_col_idx", P, P)
kk_crs_values = _fn("kk_crs_values", P, P)
kk_sparse_spmv = _fn("kk_sparse_spmv", st, P, ctypes.c_int, S, P, P, S, P)
kk_sparse_cg = _fn("kk_sparse_cg", st, P, P, P, P, ctypes.POINTER(CgOptions), ctypes.POINTER(CgResult))

_OPS = {"N": 0, "n": 0, "T": 1, "t": 1, "C": 2, "c": 2, "H": 2, "h": 2}


def op(name, what):
    if name not in _OPS:
        raise ValueError("%s: %r is not an operation (N, T or C)" % (what, name))
    return _OPS[name]


def scalar(v, what):
    try:
        z = complex(v)
    except (TypeError, ValueError):
        raise TypeError("%s: a number is needed, not %s" % (what, type(v).__name__)) from None
    return Scalar(z.real, z.imag)


def instance(inst):
    return None if inst is None else inst._h


view = _as_view


def need_init():
    _need_init()


__all__ = ["Error", "_check"]
