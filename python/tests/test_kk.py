# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk from Python: run by tests/python.sh on one backend (KK_TEST_DEVICE)."""
import os

import numpy as np
import pytest

import kk
from kkhelp import DEVICE, on_host, to_dev, to_host

HOST = "Host"  # NumPy works on views of host memory: the tests of that interplay use the host space
MODULE = os.environ.get("KK_TEST_MODULE")


@pytest.fixture(scope="module", autouse=True)
def runtime():
    with kk.initialize(device=DEVICE, num_threads=2 if DEVICE != "serial" else None):
        yield
    assert not kk.is_initialized()


def test_info():
    i = kk.info()
    assert i["backend"] == DEVICE
    assert any(p["name"] == DEVICE for p in i["plugins"])
    assert "Host" in [s["name"] for s in i["spaces"]]


def test_view_is_numpy_without_copy():
    v = kk.View((3, 4), "float32", label="a", space=HOST)
    assert v.shape == (3, 4) and v.dtype == np.float32 and v.label == "a" and v.layout == "right"
    a = np.asarray(v)
    assert a.ctypes.data == v.data_ptr and a.shape == (3, 4) and not a.any()
    a[1, 2] = 7
    assert np.asarray(v)[1, 2] == 7


def test_layout_left_strides():
    v = kk.View((3, 4), "int64", layout="left", space=HOST)
    assert v.layout == "left" and v.strides == (8, 24)
    assert np.asarray(v).flags.f_contiguous


def test_mirror_and_deep_copy():
    v = kk.View(5, "float64", label="d", space=HOST)
    np.asarray(v)[:] = np.arange(5)
    m = kk.create_mirror(v)
    assert m.label == "d_mirror" and m.data_ptr != v.data_ptr
    kk.deep_copy(m, v)
    assert list(np.asarray(m)) == [0, 1, 2, 3, 4]
    assert kk.create_mirror_view(v) is v
    kk.deep_copy(v, 2.5)
    assert (np.asarray(v) == 2.5).all()


def test_deep_copy_mismatch_raises_kk_error():
    with pytest.raises(kk.Error) as e:
        kk.deep_copy(kk.View(5, space=HOST), kk.View(6, space=HOST))
    assert e.value.status == -1 and e.value.name == "ERROR_INVALID_ARGUMENT"
    assert "kk_deep_copy" in str(e.value)


def test_unknown_space_raises():
    with pytest.raises(kk.Error) as e:
        kk.View(3, space="NoSuchSpace")
    assert e.value.name == "ERROR_NOT_FOUND"


def test_dlpack_roundtrip_no_copy():
    v = kk.View((2, 3), "float64", space=HOST)
    assert v.__dlpack_device__() == (1, 0)
    a = np.from_dlpack(v)
    assert a.ctypes.data == v.data_ptr
    assert not a.flags.owndata
    n = np.arange(6, dtype=np.int32).reshape(2, 3)
    w = kk.from_dlpack(n)
    assert w.data_ptr == n.ctypes.data and w.shape == (2, 3) and w.dtype == np.int32
    assert np.asarray(w)[1, 2] == 5
    t = n.T  # a strided (F-ordered) producer
    wt = kk.from_dlpack(t)
    assert wt.layout == "left" and np.asarray(wt)[2, 1] == 5
    del n, t
    assert np.asarray(w)[1, 2] == 5  # the view keeps the producer's memory alive


def test_instances_fences_regions():
    with kk.Instance() as inst:
        inst.fence()
        assert inst.backend == DEVICE
        inst.wait()  # ordered after the default instance,
        kk.Instance.default().wait(inst)  # the default one after it,
        inst.wait(inst)  # and after itself: nothing to do
    kk.fence()
    with kk.profile_region("python"):
        pass


@pytest.mark.skipif(not MODULE, reason="KK_TEST_MODULE (a kernel module built by kkcc -shared) not given")
class TestModule:
    def test_fields_recorded(self):
        mod = kk.load(MODULE)
        assert sorted(mod.kernels) == ["anyneg", "dot", "imin", "mm", "mmloc", "saxpy"]
        assert [f[:2] for f in mod.saxpy.fields] == [("a", "float"), ("x", "kk_view"), ("y", "kk_view"), ("n", "int")]

    def test_saxpy_and_reductions(self):
        mod = kk.load(MODULE)
        n = 1000
        x, y = to_dev(np.arange(n, dtype=np.float64), "x"), to_dev(np.ones(n), "y")
        mod.saxpy(kk.RangePolicy(0, n), a=2.0, x=x, y=y, n=n)
        assert np.array_equal(to_host(y), 1 + 2.0 * np.arange(n))
        # on a host backend a NumPy array binds without a copy
        ones = np.ones(n) if on_host() else to_dev(np.ones(n))
        d = mod.dot(kk.RangePolicy(n), x=x, y=ones)
        assert isinstance(d, float) and d == sum(range(n))
        xs = np.arange(n, dtype=np.float64)
        xs[17] = -5
        assert mod.imin(kk.RangePolicy(n), x=to_dev(xs)) == (-5.0, 17)

    def test_prepared_launch(self):
        mod = kk.load(MODULE)
        n = 64
        x, y = to_dev(np.arange(n, dtype=np.float64), "x"), to_dev(np.zeros(n), "y")
        launch = mod.saxpy.bind(a=1.0, x=x, y=y, n=n)
        for _ in range(3):
            launch(kk.RangePolicy(n))
        assert np.array_equal(to_host(y), 3.0 * np.arange(n))
        dot = mod.dot.bind(x=x, y=x)
        assert dot(kk.RangePolicy(n)) == float((np.arange(n) ** 2).sum())
        with pytest.raises(TypeError, match="RangePolicy"):
            launch(kk.MDRangePolicy((0, 0), (2, 2)))

    def test_prepared_launch_policies(self):
        # a kk.Launch keeps its call and writes only a new policy into it: each launch runs its own range
        mod = kk.load(MODULE)
        n = 8
        x, y = to_dev(np.ones(n), "x"), to_dev(np.zeros(n), "y")
        launch = mod.saxpy.bind(a=1.0, x=x, y=y, n=n)
        p = kk.RangePolicy(0, 2)
        launch(p)
        launch(p)
        launch(kk.RangePolicy(2, 5))
        launch(7)
        assert np.array_equal(to_host(y), [3, 3, 2, 2, 2, 1, 1, 0])
        dot = mod.dot.bind(x=x, y=y)
        assert dot(kk.RangePolicy(0, 2)) == 6.0 and dot(kk.RangePolicy(2, 8)) == 8.0 and dot(p) == 6.0

    def test_reducer_values(self):
        # every reducer's value comes back as the Python value the kernel call documents
        mod = kk.load(MODULE)
        v = to_dev(np.array([3, -7, 9, 9, -7, 2], dtype=np.int32), "v")
        w = to_dev(np.array([1, 2], dtype=np.int32), "w")
        for f in (lambda k, **a: getattr(mod, k)(kk.RangePolicy(6), **a),
                  lambda k, **a: getattr(mod, k).bind(**a)(kk.RangePolicy(6))):
            assert f("mm", v=v) == (-7, 9)
            assert f("mmloc", v=v) == (-7.0, 9.0, 1, 2)
            assert f("anyneg", v=v) is True
        assert mod.anyneg(kk.RangePolicy(2), v=w) is False

    def test_launch_after_unload(self):
        mod = kk.load(MODULE)
        x = to_dev(np.ones(4), "x")
        launch = mod.saxpy.bind(a=1.0, x=x, y=x, n=4)
        mod.unload()
        with pytest.raises(kk.Error, match="unloaded"):
            launch(kk.RangePolicy(4))

    def test_arguments_checked(self):
        mod = kk.load(MODULE)
        x = kk.View(4)
        wrong = "left" if x.layout == "right" else "right"
        with pytest.raises(TypeError, match="missing argument 'n'"):
            mod.saxpy(kk.RangePolicy(4), a=1.0, x=x, y=x)
        with pytest.raises(TypeError, match="no argument z"):
            mod.saxpy(kk.RangePolicy(4), a=1.0, x=x, y=x, n=4, z=1)
        with pytest.raises(OverflowError):
            mod.saxpy(kk.RangePolicy(4), a=1.0, x=x, y=x, n=1 << 40)
        with pytest.raises(TypeError, match="kk.View"):
            mod.saxpy(kk.RangePolicy(4), a=1.0, x=3, y=x, n=4)
        with pytest.raises(kk.Error) as e:  # a view of the other layout for a default-layout parameter
            mod.saxpy(kk.RangePolicy(4), a=1.0, x=kk.View((2, 2), layout=wrong), y=x, n=4)
        assert e.value.name == "ERROR_LAYOUT_MISMATCH"
        with pytest.raises(AttributeError, match="no kernel"):
            mod.nosuch


def test_cupy_roundtrip():
    cupy = pytest.importorskip("cupy")
    if "Cuda" not in [s["name"] for s in kk.info()["spaces"]]:
        pytest.skip("no CUDA backend")
    v = kk.View(16, space="Cuda")
    c = cupy.from_dlpack(v)
    assert c.data.ptr == v.data_ptr
    c[:] = 3
    back = kk.from_dlpack(c)
    assert back.data_ptr == v.data_ptr
    m = kk.create_mirror(back)
    kk.deep_copy(m, back)
    assert (np.asarray(m) == 3).all()


def test_torch_roundtrip():
    torch = pytest.importorskip("torch")
    if "Cuda" not in [s["name"] for s in kk.info()["spaces"]] or not torch.cuda.is_available():
        pytest.skip("no CUDA backend")
    v = kk.View((4, 4), "float32", space="Cuda")
    t = torch.from_dlpack(v)
    assert t.data_ptr() == v.data_ptr
    t.fill_(2)
    w = kk.from_dlpack(t)
    assert w.data_ptr == v.data_ptr
    m = kk.create_mirror(w)
    kk.deep_copy(m, w)
    assert (np.asarray(m) == 2).all()
