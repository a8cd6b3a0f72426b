# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk-kernels' BLAS 1-3 (<kk/linalg.h>) from Python: every argument is a kk.View or any DLPack array
(NumPy, CuPy, PyTorch), bound without a copy.

Where a call runs: `instance=None` runs it on the backend that owns the views' memory, else on that
kk.Instance.  Routines that return a value to Python (dot, nrm2, nrm1, nrminf, iamax) are synchronous;
the others are asynchronous like their C forms: call kk.fence() (or the instance's fence()) before
reading their output on the host.  A bad call raises kk.Error (status ERROR_INVALID_ARGUMENT, ...)
with kk's message and changes nothing.
"""
import ctypes

from . import _check
from . import _linalg as _k

__all__ = ["axpby", "scal", "dot", "nrm2", "nrm1", "nrminf", "iamax", "gemv", "gemm"]


def _cols(x):
    return x.shape[1] if x.ndim == 2 else 1


def axpby(a, x, b, y, instance=None):
    """y = a x + b y (vectors, or multivectors column by column).  Returns y.  Asynchronous."""
    keep = []
    xv, yv = _k.view(x, "kk.blas.axpby x", keep), _k.view(y, "kk.blas.axpby y", keep)
    _check(_k.kk_blas_axpby(_k.instance(instance), _k.scalar(a, "kk.blas.axpby a"), xv._alive(),
                            _k.scalar(b, "kk.blas.axpby b"), yv._alive()))
    return y


def scal(a, x, r=None, instance=None):
    """r = a x (r None: x in place).  Returns r.  Asynchronous."""
    keep = []
    xv = _k.view(x, "kk.blas.scal x", keep)
    rv = xv if r is None else _k.view(r, "kk.blas.scal r", keep)
    _check(_k.kk_blas_scal(_k.instance(instance), rv._alive(), _k.scalar(a, "kk.blas.scal a"), xv._alive()))
    return x if r is None else r


def _real_or_complex(x, s):
    return complex(s.re, s.im) if x.dtype.kind == "c" else s.re


def dot(x, y, instance=None):
    """sum(conj(x) * y): a Python float (complex for complex views) for vectors, a NumPy array with
    one value per column for multivectors.  Synchronous."""
    keep = []
    xv, yv = _k.view(x, "kk.blas.dot x", keep), _k.view(y, "kk.blas.dot y", keep)
    n = _cols(xv)
    out = (_k.Scalar * max(n, 1))()
    _check(_k.kk_blas_dot(_k.instance(instance), xv._alive(), yv._alive(), out))
    vals = [_real_or_complex(xv, out[i]) for i in range(n)]
    if xv.ndim == 1:
        return vals[0]
    import numpy as np
    return np.array(vals)


def _norm(fn, name, x, instance):
    keep = []
    xv = _k.view(x, "kk.blas.%s x" % name, keep)
    n = _cols(xv)
    out = (ctypes.c_double * max(n, 1))()
    _check(fn(_k.instance(instance), xv._alive(), out))
    if xv.ndim == 1:
        return out[0]
    import numpy as np
    return np.array(out[:n])


def nrm2(x, instance=None):
    """Euclidean norm (one per column for multivectors).  Synchronous."""
    return _norm(_k.kk_blas_nrm2, "nrm2", x, instance)


def nrm1(x, instance=None):
    """BLAS asum: sum |x_i| (|re| + |im| on complex views).  Synchronous."""
    return _norm(_k.kk_blas_nrm1, "nrm1", x, instance)


def nrminf(x, instance=None):
    """max |x_i|.  Synchronous."""
    return _norm(_k.kk_blas_nrminf, "nrminf", x, instance)


def iamax(x, instance=None):
    """Index (from 0) of the first largest |x_i|; -1 for an empty vector.  Synchronous."""
    keep = []
    xv = _k.view(x, "kk.blas.iamax x", keep)
    n = _cols(xv)
    out = (ctypes.c_int64 * max(n, 1))()
    _check(_k.kk_blas_iamax(_k.instance(instance), xv._alive(), out))
    if xv.ndim == 1:
        return out[0]
    import numpy as np
    return np.array(out[:n])


def gemv(A, x, y, alpha=1.0, beta=0.0, trans="N", instance=None):
    """y = alpha op(A) x + beta y, op by `trans` ("N", "T", "C").  beta 0 does not read y.  Returns y.
    Asynchronous."""
    keep = []
    Av, xv, yv = (_k.view(A, "kk.blas.gemv A", keep), _k.view(x, "kk.blas.gemv x", keep),
                  _k.view(y, "kk.blas.gemv y", keep))
    _check(_k.kk_blas_gemv(_k.instance(instance), _k.op(trans, "kk.blas.gemv trans"),
                           _k.scalar(alpha, "kk.blas.gemv alpha"), Av._alive(), xv._alive(),
                           _k.scalar(beta, "kk.blas.gemv beta"), yv._alive()))
    return y


def gemm(A, B, C, alpha=1.0, beta=0.0, transa="N", transb="N", instance=None):
    """C = alpha op(A) op(B) + beta C.  Any layouts (NumPy C- or F-ordered arrays alike).  Returns C.
    Asynchronous."""
    keep = []
    Av, Bv, Cv = (_k.view(A, "kk.blas.gemm A", keep), _k.view(B, "kk.blas.gemm B", keep),
                  _k.view(C, "kk.blas.gemm C", keep))
    _check(_k.kk_blas_gemm(_k.instance(instance), _k.op(transa, "kk.blas.gemm transa"),
                           _k.op(transb, "kk.blas.gemm transb"), _k.scalar(alpha, "kk.blas.gemm alpha"),
                           Av._alive(), Bv._alive(), _k.scalar(beta, "kk.blas.gemm beta"), Cv._alive()))
    return C
