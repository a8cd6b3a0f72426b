# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""DLPack (https://dmlc.github.io/dlpack/latest/python_spec.html) for kk views, with ctypes."""
import ctypes

from . import _lib as _c
from . import Error, View, _check, _DL, _DL_IDS, _need_init

CPU, CUDA, CUDA_HOST, ROCM, ROCM_HOST, CUDA_MANAGED, ONEAPI = 1, 2, 3, 10, 11, 13, 14
_SPACE_DEV = {"Host": CPU, "Cuda": CUDA, "CudaUVM": CUDA_MANAGED, "CudaHostPinned": CUDA_HOST, "HIP": ROCM,
              "HIPHostPinned": ROCM_HOST, "HIPManaged": ROCM, "SYCLDeviceUSM": ONEAPI, "SYCLSharedUSM": ONEAPI,
              "SYCLHostUSM": ONEAPI}
_DEV_SPACE = {CPU: "Host", CUDA: "Cuda", CUDA_MANAGED: "CudaUVM", CUDA_HOST: "CudaHostPinned", ROCM: "HIP",
              ROCM_HOST: "HIPHostPinned", ONEAPI: "SYCLDeviceUSM"}


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


class DLManagedTensor(ctypes.Structure):
    pass


_Deleter = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
DLManagedTensor._fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", _Deleter)]


class DLManagedTensorVersioned(ctypes.Structure):
    _fields_ = [("major", ctypes.c_uint32), ("minor", ctypes.c_uint32), ("manager_ctx", ctypes.c_void_p),
                ("deleter", _Deleter), ("flags", ctypes.c_uint64), ("dl_tensor", DLTensor)]


_api = ctypes.pythonapi
_CapsuleDtor = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
_api.PyCapsule_New.restype = ctypes.py_object
_api.PyCapsule_New.argtypes = [ctypes.c_void_p, ctypes.c_char_p, _CapsuleDtor]
_api.PyCapsule_IsValid.restype = ctypes.c_int
_api.PyCapsule_IsValid.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_GetPointer.restype = ctypes.c_void_p
_api.PyCapsule_GetPointer.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
_api.PyCapsule_SetName.restype = ctypes.c_int
_api.PyCapsule_SetName.argtypes = [ctypes.py_object, ctypes.c_char_p]
_api.PyCapsule_GetName.restype = ctypes.c_char_p
_api.PyCapsule_GetName.argtypes = [ctypes.py_object]

_NAME, _NAME_V = ctypes.c_char_p(b"dltensor"), ctypes.c_char_p(b"dltensor_versioned")
_USED, _USED_V = ctypes.c_char_p(b"used_dltensor"), ctypes.c_char_p(b"used_dltensor_versioned")

_live = {}  # address of an exported DLManagedTensor[Versioned] -> what keeps it and its view alive


@_Deleter
def _deleter(addr):
    _live.pop(addr, None)


@_CapsuleDtor
def _capsule_dtor(cap):
    # an unconsumed capsule owns its tensor: call its deleter (DLPack)
    for name in (_NAME, _NAME_V):
        if _api.PyCapsule_IsValid(cap, name):
            _live.pop(_api.PyCapsule_GetPointer(cap, name), None)


def device_of(view):
    sp = view.space
    dev = _SPACE_DEV.get(sp)
    if dev is None:
        raise BufferError("kk.View %r: its space %s has no DLPack device type" % (view.label, sp))
    return (dev, 0 if dev == CPU else _c.kk_device_id())


def export(view, stream=None, max_version=None, dl_device=None, copy=None):
    h = view._alive()
    dev, dev_id = device_of(view)
    if copy:
        raise BufferError("kk.View.__dlpack__: copy=True is not supported (kk exports without copying)")
    if dl_device is not None and tuple(dl_device) != (dev, dev_id):
        raise BufferError("kk.View.__dlpack__: the view is on device %s, not %s" % ((dev, dev_id), tuple(dl_device)))
    if stream is not None and dev == CPU and stream != -1:
        raise BufferError("kk.View.__dlpack__: stream must be None for a host view")
    # DLPack: the data must be ready on the consumer's stream.  kk fences the producer side (all of kk's
    # work on the view's backend), which orders it before anything the consumer queues; -1: no sync.
    if dev != CPU and stream != -1:
        _check(_c.kk_fence_named(b"kk.View.__dlpack__"), "kk.View.__dlpack__")
    type_id = _c.kk_view_type(h)
    code, bits = _DL[type_id]
    nd = view.ndim
    shape = (ctypes.c_int64 * max(nd, 1))(*view.shape)
    strides = (ctypes.c_int64 * max(nd, 1))(*[_c.kk_view_stride(h, i) for i in range(nd)])
    t = DLTensor(_c.kk_view_data(h), DLDevice(dev, dev_id), nd, DLDataType(code, bits, 1),
                 ctypes.cast(shape, ctypes.POINTER(ctypes.c_int64)), ctypes.cast(strides, ctypes.POINTER(ctypes.c_int64)), 0)
    versioned = max_version is not None and tuple(max_version) >= (1, 0)
    if versioned:
        m = DLManagedTensorVersioned(1, 0, None, _deleter, 0, t)
    else:
        m = DLManagedTensor(t, None, _deleter)
    addr = ctypes.addressof(m)
    _live[addr] = (m, shape, strides, view)
    return _api.PyCapsule_New(addr, _NAME_V if versioned else _NAME, _capsule_dtor)


class _Owner:
    """Keeps an imported DLPack tensor (and its producer) alive; calls its deleter at the end."""

    def __init__(self, obj, addr, deleter):
        self.obj, self.addr, self.deleter = obj, addr, deleter

    def __del__(self):
        if self.deleter:
            self.deleter(self.addr)


def import_(obj, stream=None):
    if isinstance(obj, View):
        return obj
    _need_init()
    if not hasattr(obj, "__dlpack__"):
        raise TypeError("kk.from_dlpack: %s has no __dlpack__" % type(obj).__name__)
    dev = tuple(obj.__dlpack_device__()) if hasattr(obj, "__dlpack_device__") else (CPU, 0)
    if dev[0] == CPU:
        cap = obj.__dlpack__()
    else:
        if stream is None:
            q = _c.NativeQueue()
            inst = _c.kk_instance_default()
            stream = q.queue or 1 if _c.kk_instance_native_queue(inst, ctypes.byref(q)) == 0 else 1
            _c.kk_clear_error()
        try:
            cap = obj.__dlpack__(stream=stream, max_version=(1, 0))
        except TypeError:
            cap = obj.__dlpack__(stream=stream)
    name = _api.PyCapsule_GetName(cap)
    capp = ctypes.c_void_p(id(cap))
    if name == b"dltensor_versioned":
        addr = _api.PyCapsule_GetPointer(capp, _NAME_V)
        m = DLManagedTensorVersioned.from_address(addr)
        if m.major != 1:
            raise BufferError("kk.from_dlpack: DLPack version %d.%d is not supported" % (m.major, m.minor))
        t, deleter, used = m.dl_tensor, m.deleter, _USED_V
    elif name == b"dltensor":
        addr = _api.PyCapsule_GetPointer(capp, _NAME)
        m = DLManagedTensor.from_address(addr)
        t, deleter, used = m.dl_tensor, m.deleter, _USED
    else:
        raise BufferError("kk.from_dlpack: %r is not a DLPack capsule" % name)
    owner = _Owner(obj, addr, deleter if ctypes.cast(deleter, ctypes.c_void_p).value else None)
    _api.PyCapsule_SetName(cap, used)  # consumed: the capsule no longer owns it
    dt = (t.dtype.code, t.dtype.bits)
    if dt not in _DL_IDS or t.dtype.lanes != 1:
        raise BufferError("kk.from_dlpack: DLPack type (code %d, %d bits, %d lanes) has no kk element type" %
                          (t.dtype.code, t.dtype.bits, t.dtype.lanes))
    space_name = _DEV_SPACE.get(t.device.device_type)
    sp = _c.kk_space_find(space_name.encode()) if space_name else None
    if not sp:
        raise BufferError("kk.from_dlpack: device type %d has no memory space among kk's active backends" %
                          t.device.device_type)
    nd = t.ndim
    shape = [t.shape[i] for i in range(nd)]
    if t.strides:
        strides = [t.strides[i] for i in range(nd)]
    else:
        strides, acc = [0] * nd, 1
        for i in reversed(range(nd)):
            strides[i], acc = acc, acc * shape[i]
    spec = _c.ViewSpec()
    spec.struct_size = ctypes.sizeof(spec)
    spec.label = b"dlpack"
    spec.type = _DL_IDS[dt]
    spec.rank = nd
    for i in range(nd):
        spec.extents[i] = shape[i]
    c_str, acc = [0] * nd, 1
    for i in reversed(range(nd)):
        c_str[i], acc = acc, acc * shape[i]
    f_str, acc = [0] * nd, 1
    for i in range(nd):
        f_str[i], acc = acc, acc * shape[i]
    same = lambda a: all(shape[i] <= 1 or strides[i] == a[i] for i in range(nd))  # noqa: E731
    if same(c_str):
        spec.layout = 1
    elif same(f_str):
        spec.layout = 2
    else:
        spec.layout = 3
        for i in range(nd):
            spec.strides[i] = strides[i]
    spec.space = sp
    h = ctypes.c_void_p()
    _check(_c.kk_view_wrap(ctypes.byref(spec), (t.data or 0) + t.byte_offset, ctypes.byref(h)), "kk.from_dlpack")
    return View(None, _handle=h.value, _owner=owner)
