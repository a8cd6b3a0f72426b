# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""kk from Python: views that are NumPy arrays and DLPack tensors, kernel modules built by kkcc,
fences, instances and profiling regions, over libkk's C ABI (ctypes; nothing is compiled).

    import kk, numpy as np
    with kk.initialize(device="openmp"):
        x = kk.View((1000,), "float64", label="x")
        np.asarray(x)[:] = 1.0           # a host view is a NumPy array, no copy
        mod = kk.load("./saxpy.so")      # kkcc -shared saxpy.kk.c -o saxpy.so
        mod.saxpy(kk.RangePolicy(0, 1000), a=2.0, x=x, y=y)

docs/python.md is the guide.
"""
import ctypes
import os

from . import _lib as _c
from ._lib import lib as _libkk  # noqa: F401  (kept alive for the process)

__all__ = ["Error", "initialize", "finalize", "is_initialized", "info", "View", "deep_copy", "create_mirror",
           "create_mirror_view", "from_dlpack", "load", "Launch", "RangePolicy", "MDRangePolicy", "Instance", "fence",
           "profile_region", "push_region", "pop_region", "library_path"]

library_path = _c.path


class Error(RuntimeError):
    """A kk call failed: str(e) is kk's message, e.status the kk_status_t value, e.name its name."""

    def __init__(self, status, message):
        self.status = int(status)
        self.name = (_c.kk_status_name(status) or b"").decode()
        super().__init__(message)


def _check(status, what=None):
    if status < 0:
        msg = _c.kk_last_error()
        msg = msg.decode("utf-8", "replace") if msg else _c.kk_status_str(status).decode()
        raise Error(status, msg if what is None else "%s: %s" % (what, msg))
    return status


def _b(s):
    return None if s is None else str(s).encode()


def _s(b):
    return None if b is None else b.decode("utf-8", "replace")


# ---- initialization ---------------------------------------------------------------

class _Session:
    """What kk.initialize returns: a context manager that finalizes kk on exit."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if is_initialized():
            finalize()
        return False


def initialize(device=None, num_threads=None, device_id=None, config_file=None, plugin_path=None,
               tools_libs=None, tools_args=None, disable_warnings=None, print_configuration=None):
    """Initializes kk (kk_initialize_with_settings): `device` as --kokkos-device ("openmp", "cuda:1"),
    `num_threads`, `device_id`, ... rank above the environment (KOKKOS_DEVICE, ...) and the JSON file.
    Returns a context manager: `with kk.initialize(device="threads"): ...` finalizes on exit.
    Raises kk.Error (e.g. status ERROR_NOT_FOUND for an unknown backend)."""
    s = _c.Settings(ctypes.sizeof(_c.Settings), _b(device), _b(config_file), _b(plugin_path),
                    int(num_threads or 0), -1 if device_id is None else int(device_id), None, None,
                    _b(tools_libs), _b(tools_args), -1 if print_configuration is None else int(bool(print_configuration)),
                    -1 if disable_warnings is None else int(bool(disable_warnings)), -1)
    _check(_c.kk_initialize_with_settings(ctypes.byref(s)), "kk.initialize")
    return _Session()


def finalize():
    """Fences and finalizes kk.  Views, instances and modules kept past it are refused afterwards."""
    for m in list(_modules):
        m.unload()
    _check(_c.kk_finalize(), "kk.finalize")


def is_initialized():
    return bool(_c.kk_is_initialized())


def _need_init():
    if not _c.kk_is_initialized():
        raise Error(-3, "kk is not initialized (call kk.initialize() first)")


_LAYOUTS = {0: "default", 1: "right", 2: "left", 3: "stride"}
_LAYOUT_IDS = {"default": 0, "right": 1, "left": 2, "stride": 3, "C": 1, "F": 2}


def info():
    """kk's configuration as a dict: version, default and host backend (and why), threads, plugins,
    devices and memory spaces."""
    _need_init()
    d = {"version": _s(_c.kk_version()), "library": library_path,
         "backend": _s(_c.kk_backend_default()), "host_backend": _s(_c.kk_backend_host()),
         "reason": _s(_c.kk_backend_default_reason()), "num_threads": _c.kk_num_threads(),
         "device_id": _c.kk_device_id(), "plugins": [], "devices": [], "spaces": []}
    states = {0: "builtin", 1: "loaded", 2: "skipped", 3: "no devices", 4: "shadowed"}
    for i in range(_c.kk_plugin_count()):
        p = _c.PluginInfo()
        p.struct_size = ctypes.sizeof(p)
        _check(_c.kk_plugin_get_info(i, ctypes.byref(p)))
        d["plugins"].append({"name": _s(p.name), "path": _s(p.path), "state": states.get(p.state, p.state),
                             "reason": _s(p.reason), "devices": p.device_count, "default": bool(p.is_default)})
        for j in range(p.device_count if p.state in (0, 1) else 0):
            di = _c.DeviceInfo()
            di.struct_size = ctypes.sizeof(di)
            if _c.kk_device_get_info(p.name, j, ctypes.byref(di)) == 0:
                d["devices"].append({"backend": _s(di.backend), "index": di.index, "name": _s(di.name),
                                     "arch": _s(di.arch), "layout": _LAYOUTS.get(di.preferred_layout),
                                     "concurrency": di.concurrency, "memory_bytes": di.memory_bytes,
                                     "selected": bool(di.selected)})
    for i in range(_c.kk_space_count()):
        sp = _c.kk_space_at(i)
        d["spaces"].append({"name": _s(_c.kk_space_name(sp)), "backend": _s(_c.kk_space_backend(sp)),
                            "host_accessible": bool(_c.kk_space_host_accessible(sp))})
    return d


# ---- element types ----------------------------------------------------------------

_TYPES = {1: "int8", 2: "uint8", 3: "int16", 4: "uint16", 5: "int32", 6: "uint32", 7: "int64", 8: "uint64",
          9: "float32", 10: "float64", 11: "complex64", 12: "complex128"}
_TYPE_IDS = {v: k for k, v in _TYPES.items()}
# DLPack (type code, bits) of each
_DL = {1: (0, 8), 2: (1, 8), 3: (0, 16), 4: (1, 16), 5: (0, 32), 6: (1, 32), 7: (0, 64), 8: (1, 64),
       9: (2, 32), 10: (2, 64), 11: (5, 64), 12: (5, 128)}
_DL_IDS = {v: k for k, v in _DL.items()}


def _type_id(dtype):
    try:
        import numpy as np
        name = np.dtype(dtype).name
    except ImportError:
        name = {"float": "float64", "int": "int64", "complex": "complex128", float: "float64", int: "int64"}.get(dtype, dtype)
    if name not in _TYPE_IDS:
        raise TypeError("kk.View: element type %r is not one kk knows (%s)" % (dtype, ", ".join(_TYPE_IDS)))
    return _TYPE_IDS[name]


def _space(space):
    if space is None:
        return _c.kk_space_default()
    if isinstance(space, int):
        return space
    sp = _c.kk_space_find(_b(space))
    if not sp:
        names = [_s(_c.kk_space_name(_c.kk_space_at(i))) for i in range(_c.kk_space_count())]
        raise Error(-6, "no memory space %r among the active backends (%s)" % (space, ", ".join(names)))
    return sp


# ---- views ----------------------------------------------------------------------------

class View:
    """A kk view: View(shape, dtype="float64", space=None, layout="default", label="").

    space: a Kokkos memory-space name ("Host", "Cuda", "CudaUVM", "HIP", ...); None: the default backend's.
    layout: "default" (the space's backend decides: right on host backends, left on GPUs), "right"/"C",
    "left"/"F".  The memory is zeroed.  A view of a host-accessible space is a NumPy array without a copy
    (np.asarray(v)); every view speaks DLPack (cupy/torch/numpy .from_dlpack(v), kk.from_dlpack(x))."""

    __slots__ = ("_h", "_owner", "_init_id", "_descs", "__weakref__")

    def __init__(self, shape, dtype="float64", space=None, layout="default", label="", _handle=None, _owner=None):
        self._owner = _owner
        self._h = None
        self._descs = None  # kernel-argument descriptors bound so far, by kind (kk._kernels: a view never changes)
        if _handle is not None:
            self._h = _handle
            self._init_id = _c.kk_initialization_id()
            return
        _need_init()
        shape = (shape,) if isinstance(shape, int) else tuple(int(e) for e in shape)
        if len(shape) > _c.KK_MAX_RANK:
            raise ValueError("kk.View: rank %d exceeds %d" % (len(shape), _c.KK_MAX_RANK))
        spec = _c.ViewSpec()
        spec.struct_size = ctypes.sizeof(spec)
        spec.label = _b(label)
        spec.type = _type_id(dtype)
        spec.rank = len(shape)
        for i, e in enumerate(shape):
            spec.extents[i] = e
        if layout not in _LAYOUT_IDS or layout == "stride":
            raise ValueError("kk.View: layout %r is not one of default, right (C), left (F)" % (layout,))
        spec.layout = _LAYOUT_IDS[layout]
        spec.space = _space(space)
        h = ctypes.c_void_p()
        _check(_c.kk_view_create(ctypes.byref(spec), ctypes.byref(h)), "kk.View")
        self._h = h.value
        self._init_id = _c.kk_initialization_id()

    def __del__(self):
        h, self._h = getattr(self, "_h", None), None
        if h and _c is not None and _c.kk_view_release is not None:
            _c.kk_view_release(h)

    def _alive(self):
        if not self._h or self._init_id != _c.kk_initialization_id():
            raise Error(-3, "kk.View %r: kk was finalized since this view was made" % (self.label,))
        return self._h

    # -- properties
    @property
    def handle(self):
        """The kk_view_t * as an integer (for C code called through ctypes)."""
        return self._h

    @property
    def label(self):
        return _s(_c.kk_view_label(self._h)) if self._h else None

    @property
    def shape(self):
        return tuple(_c.kk_view_extent(self._h, i) for i in range(_c.kk_view_rank(self._h)))

    @property
    def ndim(self):
        return _c.kk_view_rank(self._h)

    @property
    def size(self):
        n = 1
        for e in self.shape:
            n *= e
        return n

    @property
    def dtype(self):
        import numpy as np
        return np.dtype(_TYPES[_c.kk_view_type(self._h)])

    @property
    def itemsize(self):
        return _c.kk_view_elem_size(self._h)

    @property
    def strides(self):
        """Strides in bytes, as NumPy counts them."""
        es = self.itemsize
        return tuple(_c.kk_view_stride(self._h, i) * es for i in range(self.ndim))

    @property
    def layout(self):
        return _LAYOUTS[_c.kk_view_layout(self._h)]

    @property
    def space(self):
        return _s(_c.kk_space_name(_c.kk_view_space(self._alive())))

    @property
    def backend(self):
        return _s(_c.kk_space_backend(_c.kk_view_space(self._alive())))

    @property
    def host_accessible(self):
        return bool(_c.kk_space_host_accessible(_c.kk_view_space(self._alive())))

    @property
    def data_ptr(self):
        return _c.kk_view_data(self._alive()) or 0

    def __repr__(self):
        if not self._h or self._init_id != _c.kk_initialization_id():
            return "<kk.View (finalized)>"
        return "<kk.View %r shape=%s dtype=%s space=%s layout=%s>" % (self.label, self.shape, self.dtype.name,
                                                                     self.space, self.layout)

    # -- NumPy, without a copy
    @property
    def __array_interface__(self):
        h = self._alive()
        if not self.host_accessible:
            raise TypeError("kk.View %r lives in %s, which the host cannot read: make a host mirror "
                            "(kk.create_mirror_view) and kk.deep_copy into it, or use DLPack" % (self.label, self.space))
        return {"version": 3, "shape": self.shape, "typestr": self.dtype.str,
                "data": (_c.kk_view_data(h) or 0, False), "strides": self.strides}

    def numpy(self):
        """This view as a NumPy array sharing its memory (host-accessible spaces only)."""
        import numpy as np
        return np.asarray(self)

    def __len__(self):
        return self.shape[0] if self.ndim else 0

    def fill(self, value):
        """Sets every element to `value` (kk_deep_copy_fill)."""
        import numpy as np
        v = np.array(value, dtype=self.dtype)
        _check(_c.kk_deep_copy_fill(self._alive(), v.ctypes.data), "kk.View.fill")

    # -- DLPack
    def __dlpack_device__(self):
        from . import _dlpack
        return _dlpack.device_of(self)

    def __dlpack__(self, stream=None, max_version=None, dl_device=None, copy=None):
        from . import _dlpack
        return _dlpack.export(self, stream, max_version, dl_device, copy)


def deep_copy(dst, src):
    """Copies src into dst (kk_deep_copy: same type, extents and layout; any two spaces), or fills dst
    with the scalar src.  Complete on return."""
    if isinstance(src, View):
        _check(_c.kk_deep_copy(dst._alive(), src._alive()), "kk.deep_copy")
    else:
        dst.fill(src)
    return dst


def create_mirror(view, space=None):
    """A new view with view's type, extents and layout in the host space (or `space`); contents not copied."""
    h = ctypes.c_void_p()
    if space is None:
        _check(_c.kk_view_create_mirror(view._alive(), ctypes.byref(h)), "kk.create_mirror")
    else:
        _check(_c.kk_view_create_mirror_in(_space(space), view._alive(), ctypes.byref(h)), "kk.create_mirror")
    return View(None, _handle=h.value)


def create_mirror_view(view):
    """view itself when the host can read it, else a host mirror (kk_view_create_mirror_view)."""
    h = ctypes.c_void_p()
    _check(_c.kk_view_create_mirror_view(view._alive(), ctypes.byref(h)), "kk.create_mirror_view")
    if h.value == view._h:
        _c.kk_view_release(h.value)
        return view
    return View(None, _handle=h.value)


def from_dlpack(obj, stream=None):
    """A kk view over obj's memory without a copy: any DLPack producer (NumPy array, CuPy array, PyTorch
    tensor, kk view).  The view keeps obj's memory alive.  On a GPU the producer is asked to make the
    data ready on the default instance's native stream (DLPack's stream argument)."""
    from . import _dlpack
    return _dlpack.import_(obj, stream)


def _as_view(v, what, keep):
    """v as a kk.View: a View itself, or any DLPack producer (a NumPy array, CuPy array, torch tensor)
    bound without a copy; a list or other array-like through NumPy.  `keep` holds what must live
    for the call."""
    if isinstance(v, View):
        keep.append(v)
        return v
    if v is None:
        raise TypeError("%s: a view is needed, not None" % what)
    if not hasattr(v, "__dlpack__"):
        import numpy as np
        v = np.asarray(v)
    w = from_dlpack(v)
    keep.append(w)
    return w


# ---- instances, fences, profiling -------------------------------------------------------

class Instance:
    """An execution instance (a CUDA stream, a host worker): Instance(backend=None).  fence() waits for
    its work; wait(other) orders it after another instance; close() (or the with statement) destroys it."""

    def __init__(self, backend=None, _handle=None):
        _need_init()
        if _handle is not None:
            self._h, self._owned = _handle, False
            return
        h = ctypes.c_void_p()
        _check(_c.kk_instance_create(_b(backend), ctypes.byref(h)), "kk.Instance")
        self._h, self._owned = h.value, True

    @classmethod
    def default(cls):
        _need_init()
        return cls(_handle=_c.kk_instance_default())

    @property
    def backend(self):
        return _s(_c.kk_instance_backend(self._h))

    def fence(self):
        _check(_c.kk_instance_fence(self._h), "kk.Instance.fence")

    def wait(self, other=None):
        """Orders this instance after `other` (an Instance of the same backend; None: the default one):
        work queued here from now on starts once everything queued on `other` so far has completed,
        without the host waiting where the backend can keep the order on the device (kk_instance_wait)."""
        _check(_c.kk_instance_wait(self._h, other._h if other is not None else None), "kk.Instance.wait")

    def close(self):
        if self._owned and self._h:
            h, self._h = self._h, None
            _check(_c.kk_instance_destroy(h), "kk.Instance.close")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def fence(name=None):
    """Waits for all work on every instance (kk_fence_named)."""
    _check(_c.kk_fence_named(_b(name)), "kk.fence")


def push_region(name):
    _check(_c.kk_profiling_push_region(_b(name)), "kk.push_region")


def pop_region():
    _check(_c.kk_profiling_pop_region(), "kk.pop_region")


class profile_region:
    """with kk.profile_region("step"): ...  -- a Kokkos Tools region around the block."""

    def __init__(self, name):
        self.name = name

    def __enter__(self):
        push_region(self.name)
        return self

    def __exit__(self, *exc):
        pop_region()
        return False


from ._kernels import RangePolicy, MDRangePolicy, Module, Launch, load, _modules  # noqa: E402

_SUBMODULES = ("blas", "batched", "sparse", "mpi")


def __getattr__(name):
    # kk-kernels (kk.blas, kk.batched, kk.sparse) and kk-mpi (kk.mpi) load their libraries at first use,
    # so that `import kk` needs only libkk
    if name in _SUBMODULES:
        import importlib
        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'kk' has no attribute %r" % (name,))
