# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk-mpi from Python through mpi4py: run on 2 ranks by tests/python-mpi.sh (KK_TEST_MPI=1); skipped
otherwise, and without mpi4py."""
import os

import numpy as np
import pytest

if os.environ.get("KK_TEST_MPI") != "1":
    pytest.skip("runs under mpiexec from tests/python-mpi.sh", allow_module_level=True)
MPI = pytest.importorskip("mpi4py.MPI")

import kk  # noqa: E402
from kkhelp import to_dev, to_host  # noqa: E402

DEVICE = os.environ.get("KK_TEST_DEVICE", "serial")


@pytest.fixture(scope="module")
def comm():
    with kk.initialize(device=DEVICE, num_threads=1 if DEVICE != "serial" else None):
        with kk.mpi.Comm(MPI.COMM_WORLD) as c:
            yield c


def test_rank_and_size_match_mpi4py(comm):
    assert comm.rank == MPI.COMM_WORLD.Get_rank() and comm.size == MPI.COMM_WORLD.Get_size()
    assert comm.size >= 2


def test_allreduce_of_numpy_in_place(comm):
    a = np.full(5, comm.rank + 1.0)
    addr = a.ctypes.data
    comm.allreduce(a, op="sum")
    n = comm.size
    assert a.ctypes.data == addr and (a == n * (n + 1) / 2).all()
    b = np.zeros(5)
    comm.allreduce(np.full(5, float(comm.rank)), b, op=MPI.MAX)
    assert (b == n - 1).all()


def test_allreduce_value(comm):
    assert comm.allreduce_value(comm.rank + 1) == comm.size * (comm.size + 1) // 2
    assert comm.allreduce_value(float(comm.rank), "min") == 0.0


def test_sendrecv_ring_of_kk_views(comm):
    # views of the default space (device memory on a GPU backend), filled and read through host copies
    v = to_dev(np.full(4, comm.rank, dtype=np.int32), label="halo")
    r = kk.View(4, "int32", label="recv")
    comm.sendrecv(v, (comm.rank + 1) % comm.size, r, (comm.rank - 1) % comm.size)
    assert (to_host(r) == (comm.rank - 1) % comm.size).all()


def test_bcast_and_allgather(comm):
    a = np.arange(3.0) if comm.rank == 0 else np.zeros(3)
    comm.bcast(a, root=0)
    assert list(a) == [0.0, 1.0, 2.0]
    g = np.zeros((comm.size, 2))
    comm.allgather(np.full(2, float(comm.rank)), g)
    assert (g[:, 0] == np.arange(comm.size)).all()


def test_errors_are_kk_errors(comm):
    with pytest.raises(ValueError):
        comm.allreduce(np.zeros(2), op="median")
    # a receive of fewer elements than the message holds: kk's error on that rank; both ranks take part
    if comm.rank == 0:
        comm.send(np.zeros(4), 1, tag=7)
    elif comm.rank == 1:
        with pytest.raises(kk.Error) as e:
            comm.recv(np.zeros(2), 0, 7)
        assert e.value.name == "ERROR_COMM"
