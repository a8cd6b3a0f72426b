# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk-kernels' batched dense linear algebra from Python: many small matrices in rank-3 views
(batch, rows, columns), each handled by one team.  Arguments and ordering as in kk.blas."""
from . import _check
from . import _linalg as _k

__all__ = ["gemm", "gemv"]


def gemm(A, B, C, alpha=1.0, beta=0.0, transa="N", transb="N", instance=None):
    """C[i] = alpha op(A[i]) op(B[i]) + beta C[i] for every i.  Returns C.  Asynchronous."""
    keep = []
    Av, Bv, Cv = (_k.view(A, "kk.batched.gemm A", keep), _k.view(B, "kk.batched.gemm B", keep),
                  _k.view(C, "kk.batched.gemm C", keep))
    _check(_k.kk_batched_gemm(_k.instance(instance), _k.op(transa, "kk.batched.gemm transa"),
                              _k.op(transb, "kk.batched.gemm transb"), _k.scalar(alpha, "kk.batched.gemm alpha"),
                              Av._alive(), Bv._alive(), _k.scalar(beta, "kk.batched.gemm beta"), Cv._alive()))
    return C


def gemv(A, x, y, alpha=1.0, beta=0.0, trans="N", instance=None):
    """y[i] = alpha op(A[i]) x[i] + beta y[i]: A rank 3, x and y rank 2.  Returns y.  Asynchronous."""
    keep = []
    Av, xv, yv = (_k.view(A, "kk.batched.gemv A", keep), _k.view(x, "kk.batched.gemv x", keep),
                  _k.view(y, "kk.batched.gemv y", keep))
    _check(_k.kk_batched_gemv(_k.instance(instance), _k.op(trans, "kk.batched.gemv trans"),
                              _k.scalar(alpha, "kk.batched.gemv alpha"), Av._alive(), xv._alive(),
                              _k.scalar(beta, "kk.batched.gemv beta"), yv._alive()))
    return y
