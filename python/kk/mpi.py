# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk-mpi (<kk/mpi.h>) from Python over mpi4py communicators: views of any space (NumPy arrays, CuPy
arrays, kk.Views) sent, received and reduced, staged through host memory or passed to a GPU-aware MPI
as kk-mpi decides (docs/mpi.md).

    from mpi4py import MPI
    import kk
    with kk.initialize(), kk.mpi.Comm(MPI.COMM_WORLD) as comm:
        total = comm.allreduce_value(local, "sum")
        comm.allreduce(v)                        # in place, elementwise over the ranks

mpi4py must use the MPI library kk-mpi was built with (Debian: both Open MPI).  MPI is initialized
and finalized by mpi4py; a Comm is closed (collectively) before kk.finalize and MPI's finalization.
"""
import ctypes
import os

from . import Error, _as_view, _c, _check, _need_init, _TYPE_IDS

try:
    from mpi4py import MPI
except ImportError as e:  # pragma: no cover - depends on the machine
    raise ImportError("kk.mpi needs mpi4py (Debian: apt-get install python3-mpi4py): %s" % e) from None

__all__ = ["Comm", "MPI"]


def _load():
    cands = []
    env = os.environ.get("KK_MPI_LIBRARY")
    if env:
        cands.append(env)
    else:
        here = os.path.dirname(os.path.abspath(_c.path)) if os.sep in _c.path else None
        if here:
            # a build tree keeps libkk-mpi in mpi/.libs, an installed kk next to libkk
            cands += [os.path.join(here, "libkk-mpi.so.0"), os.path.join(here, "..", "mpi", ".libs", "libkk-mpi.so")]
        cands.append("libkk-mpi.so.0")
    errors = []
    for p in cands:
        try:
            return ctypes.CDLL(p), p
        except OSError as e:
            errors.append("%s: %s" % (p, e))
    raise ImportError("kk: libkk-mpi could not be loaded (set KK_MPI_LIBRARY to its path): " + "; ".join(errors))


lib, path = _load()
P = ctypes.c_void_p
# MPI_Comm is a pointer in Open MPI, an int in MPICH: mpi4py knows its size
_COMM_T = ctypes.c_void_p if MPI._sizeof(MPI.Comm) == ctypes.sizeof(ctypes.c_void_p) else ctypes.c_int


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


_i = ctypes.c_int
kk_mpi_comm_create = _fn("kk_mpi_comm_create", _i, _COMM_T, ctypes.POINTER(P))
kk_mpi_comm_destroy = _fn("kk_mpi_comm_destroy", _i, P)
kk_mpi_comm_rank = _fn("kk_mpi_comm_rank", _i, P)
kk_mpi_comm_size = _fn("kk_mpi_comm_size", _i, P)
kk_mpi_send = _fn("kk_mpi_send", _i, P, P, _i, _i)
kk_mpi_recv = _fn("kk_mpi_recv", _i, P, P, _i, _i, P)
kk_mpi_sendrecv = _fn("kk_mpi_sendrecv", _i, P, P, _i, _i, P, _i, _i, P)
kk_mpi_allreduce = _fn("kk_mpi_allreduce", _i, P, P, P, P, _i)
kk_mpi_allreduce_value = _fn("kk_mpi_allreduce_value", _i, P, _i, _i, P, P)
kk_mpi_broadcast = _fn("kk_mpi_broadcast", _i, P, P, P, _i)
kk_mpi_allgather = _fn("kk_mpi_allgather", _i, P, P, P, P)
kk_mpi_gpu_aware = _fn("kk_mpi_gpu_aware", _i, P, ctypes.c_char_p, ctypes.POINTER(ctypes.c_char_p))

_OPS = {"sum": 1, "prod": 2, "min": 3, "max": 4, "land": 9, "lor": 10, "band": 11, "bor": 12}
# mpi4py's predefined operations (MPI.Op is not hashable: compared one by one)
_MPI_OPS = [(getattr(MPI, n.upper()), o) for n, o in _OPS.items()]


def _op(op):
    if isinstance(op, str) and op.lower() in _OPS:
        return _OPS[op.lower()]
    for k, v in _MPI_OPS:
        if op == k:
            return v
    raise ValueError("kk.mpi: reduction %r is not one of %s (or MPI.SUM, ...)" % (op, ", ".join(_OPS)))


def _handle(comm):
    h = comm.handle if hasattr(comm, "handle") else MPI._handleof(comm)
    return _COMM_T(h)


class Comm:
    """A kk-mpi communicator over an mpi4py communicator (None: MPI.COMM_WORLD): a duplicate of it, so
    kk's messages never match the program's own.  Creating and closing are collective.  Views are
    kk.Views or DLPack arrays (NumPy, CuPy, PyTorch); blocking calls return with the data in place."""

    def __init__(self, comm=None):
        _need_init()
        if comm is None:
            comm = MPI.COMM_WORLD
        if not MPI.Is_initialized() or MPI.Is_finalized():
            raise Error(-3, "kk.mpi.Comm: MPI is not initialized (import mpi4py.MPI first)")
        self.mpi = comm
        h = ctypes.c_void_p()
        _check(kk_mpi_comm_create(_handle(comm), ctypes.byref(h)), "kk.mpi.Comm")
        self._h = h.value

    def _alive(self):
        if not self._h:
            raise Error(-3, "kk.mpi.Comm was closed")
        return self._h

    @property
    def rank(self):
        return kk_mpi_comm_rank(self._alive())

    @property
    def size(self):
        return kk_mpi_comm_size(self._alive())

    def gpu_aware(self, backend=None):
        """(bool, how): whether device views of `backend` (None: the default) go to MPI directly."""
        how = ctypes.c_char_p()
        r = kk_mpi_gpu_aware(self._alive(), None if backend is None else backend.encode(), ctypes.byref(how))
        return bool(r > 0), (how.value or b"").decode()

    def send(self, view, dest, tag=0):
        keep = []
        _check(kk_mpi_send(self._alive(), _as_view(view, "kk.mpi.send", keep)._alive(), dest, tag), "kk.mpi.send")

    def recv(self, view, source=-1, tag=-1):
        """Receives into `view` (source -1: any source, tag -1: any tag).  Returns view."""
        keep = []
        source = MPI.ANY_SOURCE if source == -1 else source
        tag = MPI.ANY_TAG if tag == -1 else tag
        _check(kk_mpi_recv(self._alive(), _as_view(view, "kk.mpi.recv", keep)._alive(), source, tag, None),
               "kk.mpi.recv")
        return view

    def sendrecv(self, send, dest, recv, source, sendtag=0, recvtag=0):
        """MPI_Sendrecv of two views (the halo-exchange step).  Returns recv."""
        keep = []
        s, r = _as_view(send, "kk.mpi.sendrecv send", keep), _as_view(recv, "kk.mpi.sendrecv recv", keep)
        _check(kk_mpi_sendrecv(self._alive(), s._alive(), dest, sendtag, r._alive(), source, recvtag, None),
               "kk.mpi.sendrecv")
        return recv

    def allreduce(self, send, recv=None, op="sum", instance=None):
        """Elementwise reduction over the ranks into recv (None: in place in send).  Returns the result."""
        keep = []
        s = _as_view(send, "kk.mpi.allreduce send", keep)
        r = s if recv is None else _as_view(recv, "kk.mpi.allreduce recv", keep)
        _check(kk_mpi_allreduce(self._alive(), None if instance is None else instance._h, s._alive(), r._alive(),
                                _op(op)), "kk.mpi.allreduce")
        return send if recv is None else recv

    def allreduce_value(self, value, op="sum", dtype=None):
        """op over the ranks of one scalar (dtype None: float64 for floats, int64 for ints, complex128);
        returns a Python scalar."""
        import numpy as np
        if dtype is None:
            dtype = np.complex128 if isinstance(value, complex) else np.float64 if isinstance(value, float) else np.int64
        a = np.array([value], dtype=dtype)
        if a.dtype.name not in _TYPE_IDS:
            raise TypeError("kk.mpi.allreduce_value: type %s is not one kk knows" % a.dtype)
        out = np.zeros_like(a)
        _check(kk_mpi_allreduce_value(self._alive(), _TYPE_IDS[a.dtype.name], _op(op), a.ctypes.data, out.ctypes.data),
               "kk.mpi.allreduce_value")
        return out[0].item()

    def bcast(self, view, root=0, instance=None):
        """Every rank's view becomes root's.  Returns view."""
        keep = []
        _check(kk_mpi_broadcast(self._alive(), None if instance is None else instance._h,
                                _as_view(view, "kk.mpi.bcast", keep)._alive(), root), "kk.mpi.bcast")
        return view

    def allgather(self, send, recv, instance=None):
        """Rank r's send into elements [r n, (r + 1) n) of every rank's recv.  Returns recv."""
        keep = []
        s, r = _as_view(send, "kk.mpi.allgather send", keep), _as_view(recv, "kk.mpi.allgather recv", keep)
        _check(kk_mpi_allgather(self._alive(), None if instance is None else instance._h, s._alive(), r._alive()),
               "kk.mpi.allgather")
        return recv

    def close(self):
        """Frees kk's duplicate communicator and buffers (collective)."""
        if getattr(self, "_h", None):
            h, self._h = self._h, None
            _check(kk_mpi_comm_destroy(h), "kk.mpi.Comm.close")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False



