# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""libkk through ctypes: finding the library and declaring the C functions kk uses."""
import ctypes
import ctypes.util
import os

c_int, c_int32, c_uint32, c_int64, c_uint64 = ctypes.c_int, ctypes.c_int32, ctypes.c_uint32, ctypes.c_int64, ctypes.c_uint64
c_size_t, c_char_p, c_void_p = ctypes.c_size_t, ctypes.c_char_p, ctypes.c_void_p
KK_MAX_RANK = 8


def _candidates():
    env = os.environ.get("KK_LIBRARY")
    if env:
        yield env
        return
    try:
        from . import _paths  # written by make install / pip install
        yield os.path.join(_paths.LIBDIR, "libkk.so.0")
    except ImportError:
        pass
    found = ctypes.util.find_library("kk")
    if found:
        yield found
    yield "libkk.so.0"


def _load():
    errors = []
    for path in _candidates():
        # an absolute path: libkk finds a build tree's plugins only from where it was really loaded
        if os.sep in path:
            path = os.path.abspath(path)
        try:
            # RTLD_GLOBAL: kernel modules (kkcc -shared) resolve kk_module_register against it
            return ctypes.CDLL(path, mode=ctypes.RTLD_GLOBAL), path
        except OSError as e:
            errors.append("%s: %s" % (path, e))
    raise ImportError("kk: libkk could not be loaded (set KK_LIBRARY to its path): " + "; ".join(errors))


lib, path = _load()
# the same library again, its functions without argtypes: for the prepared launch path (kk.Launch),
# whose arguments are ctypes objects already, so ctypes converts nothing
raw = ctypes.CDLL(path, handle=lib._handle)
for _n in ("kk_parallel_for", "kk_parallel_reduce", "kk_parallel_scan", "kk_parallel_for_md", "kk_parallel_reduce_md",
           "kk_parallel_call"):
    getattr(raw, _n).restype = ctypes.c_int


class Settings(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("device", c_char_p), ("config_file", c_char_p),
                ("plugin_path", c_char_p), ("num_threads", c_int), ("device_id", c_int),
                ("map_device_id_by", c_char_p), ("visible_devices", c_char_p), ("tools_libs", c_char_p),
                ("tools_args", c_char_p), ("print_configuration", c_int), ("disable_warnings", c_int),
                ("tune_internals", c_int)]


class PluginInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("name", c_char_p), ("path", c_char_p), ("state", c_int),
                ("reason", c_char_p), ("priority", c_int), ("abi_version", c_uint32), ("device_count", c_int),
                ("is_default", c_int), ("is_host", c_int), ("is_host_backend", c_int)]


class DeviceInfo(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("backend", c_char_p), ("index", c_int), ("name", c_char_p),
                ("vendor", c_char_p), ("arch", c_char_p), ("preferred_layout", c_int), ("concurrency", c_int),
                ("warp_size", c_int), ("max_team_size", c_int), ("max_vector_length", c_int),
                ("scratch_max", c_size_t * 2), ("memory_bytes", c_uint64), ("selected", c_int),
                ("space_count", c_int), ("space_names", c_char_p * 8), ("space_host_accessible", c_int * 8)]


class ViewSpec(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("label", c_char_p), ("type", c_int), ("elem_size", c_size_t),
                ("rank", c_int), ("extents", c_int64 * KK_MAX_RANK), ("layout", c_int),
                ("strides", c_int64 * KK_MAX_RANK), ("space", c_void_p), ("flags", ctypes.c_uint)]


class ViewDesc(ctypes.Structure):
    _fields_ = [("data", c_void_p), ("extent", c_int64 * KK_MAX_RANK), ("stride", c_int64 * KK_MAX_RANK),
                ("rank", c_int32), ("layout", c_int32), ("elem_size", c_uint32), ("type", c_uint32)]


def _desc(tag):
    return type("ViewDesc%d" % tag, (ctypes.Structure,), {"_fields_": [("d", ViewDesc), ("tag", ctypes.c_char * tag)]})


KView, KViewRight, KViewLeft, KViewStrided = _desc(1), _desc(2), _desc(3), _desc(4)


class RangePolicyC(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("begin", c_int64), ("end", c_int64), ("chunk", c_int64),
                ("schedule", c_int), ("instance", c_void_p)]


class MDPolicyC(ctypes.Structure):
    _fields_ = [("struct_size", c_size_t), ("rank", c_int32), ("outer", c_int), ("inner", c_int),
                ("begin", c_int64 * 6), ("end", c_int64 * 6), ("tile", c_int64 * 6), ("instance", c_void_p)]


class CallC(ctypes.Structure):
    """kk_call_t: one launch as one struct (kk_parallel_call)."""
    _fields_ = [("struct_size", c_size_t), ("kind", c_int), ("label", c_char_p), ("policy", c_void_p),
                ("kernel", c_void_p), ("args", c_void_p), ("args_size", c_size_t), ("result", c_void_p),
                ("result_size", c_size_t)]


class NativeQueue(ctypes.Structure):
    _fields_ = [("kind", c_int), ("device", c_int32), ("queue", c_void_p), ("context", c_void_p)]


class ReducerPart(ctypes.Structure):
    _fields_ = [("op", c_uint32), ("type", c_uint32), ("offset", c_uint32), ("size", c_uint32)]


class ReducerInfo(ctypes.Structure):
    _fields_ = [("count", c_uint32), ("value_size", c_uint32), ("value_align", c_uint32), ("reserved", c_uint32),
                ("part", ReducerPart * 8), ("init", c_void_p), ("join", c_void_p)]


class KernelC(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("abi_version", c_uint32), ("name", c_char_p), ("kind", c_uint32),
                ("args_size", c_uint32), ("args_align", c_uint32), ("flags", c_uint32),
                ("reducer", ctypes.POINTER(ReducerInfo)), ("host_for", c_void_p), ("host_reduce", c_void_p),
                ("host_scan", c_void_p), ("host_md", c_void_p), ("host_team", c_void_p), ("rank", c_int32),
                ("reserved", c_int32), ("module", c_void_p), ("runtime", c_void_p * 4)]


class ArgField(ctypes.Structure):
    _fields_ = [("name", c_char_p), ("offset", c_uint32), ("size", c_uint32), ("kind", c_uint32),
                ("reserved", c_uint32)]


class KernelArgs(ctypes.Structure):
    _fields_ = [("kernel_name", c_char_p), ("type", c_char_p), ("size", c_uint32), ("field_count", c_uint32),
                ("fields", ctypes.POINTER(ArgField))]


class ModuleArgs(ctypes.Structure):
    _fields_ = [("struct_size", c_uint32), ("abi_version", c_uint32), ("count", c_uint32), ("reserved", c_uint32),
                ("kernels", ctypes.POINTER(KernelArgs))]


def _fn(name, restype, *argtypes):
    f = getattr(lib, name)
    f.restype = restype
    f.argtypes = list(argtypes)
    return f


st = c_int  # kk_status_t
P = c_void_p
kk_status_name = _fn("kk_status_name", c_char_p, st)
kk_status_str = _fn("kk_status_str", c_char_p, st)
kk_last_error = _fn("kk_last_error", c_char_p)
kk_clear_error = _fn("kk_clear_error", None)
kk_version = _fn("kk_version", c_char_p)
kk_initialize_with_settings = _fn("kk_initialize_with_settings", st, ctypes.POINTER(Settings))
kk_finalize = _fn("kk_finalize", st)
kk_is_initialized = _fn("kk_is_initialized", c_int)
kk_initialization_id = _fn("kk_initialization_id", c_uint64)
kk_plugin_count = _fn("kk_plugin_count", c_int)
kk_plugin_get_info = _fn("kk_plugin_get_info", st, c_int, ctypes.POINTER(PluginInfo))
kk_backend_default = _fn("kk_backend_default", c_char_p)
kk_backend_host = _fn("kk_backend_host", c_char_p)
kk_backend_default_reason = _fn("kk_backend_default_reason", c_char_p)
kk_device_count = _fn("kk_device_count", c_int, c_char_p)
kk_device_get_info = _fn("kk_device_get_info", st, c_char_p, c_int, ctypes.POINTER(DeviceInfo))
kk_num_threads = _fn("kk_num_threads", c_int)
kk_device_id = _fn("kk_device_id", c_int)
kk_space_default = _fn("kk_space_default", P)
kk_space_host = _fn("kk_space_host", P)
kk_space_find = _fn("kk_space_find", P, c_char_p)
kk_space_count = _fn("kk_space_count", c_int)
kk_space_at = _fn("kk_space_at", P, c_int)
kk_space_name = _fn("kk_space_name", c_char_p, P)
kk_space_backend = _fn("kk_space_backend", c_char_p, P)
kk_space_host_accessible = _fn("kk_space_host_accessible", c_int, P)
kk_space_default_layout = _fn("kk_space_default_layout", c_int, P)
kk_instance_default = _fn("kk_instance_default", P)
kk_instance_host = _fn("kk_instance_host", P)
kk_instance_create = _fn("kk_instance_create", st, c_char_p, ctypes.POINTER(c_void_p))
kk_instance_destroy = _fn("kk_instance_destroy", st, P)
kk_instance_fence = _fn("kk_instance_fence", st, P)
kk_instance_wait = _fn("kk_instance_wait", st, P, P)
kk_instance_backend = _fn("kk_instance_backend", c_char_p, P)
kk_instance_native_queue = _fn("kk_instance_native_queue", st, P, ctypes.POINTER(NativeQueue))
kk_fence = _fn("kk_fence", st)
kk_fence_named = _fn("kk_fence_named", st, c_char_p)
kk_module_load = _fn("kk_module_load", st, c_char_p, ctypes.POINTER(c_void_p))
kk_module_kernel = _fn("kk_module_kernel", ctypes.POINTER(KernelC), P, c_char_p)
kk_module_unload = _fn("kk_module_unload", st, P)
kk_view_create = _fn("kk_view_create", st, ctypes.POINTER(ViewSpec), ctypes.POINTER(c_void_p))
kk_view_wrap = _fn("kk_view_wrap", st, ctypes.POINTER(ViewSpec), P, ctypes.POINTER(c_void_p))
kk_view_retain = _fn("kk_view_retain", P, P)
kk_view_release = _fn("kk_view_release", None, P)
kk_view_label = _fn("kk_view_label", c_char_p, P)
kk_view_type = _fn("kk_view_type", c_int, P)
kk_view_elem_size = _fn("kk_view_elem_size", c_size_t, P)
kk_view_rank = _fn("kk_view_rank", c_int, P)
kk_view_extent = _fn("kk_view_extent", c_int64, P, c_int)
kk_view_stride = _fn("kk_view_stride", c_int64, P, c_int)
kk_view_span = _fn("kk_view_span", c_size_t, P)
kk_view_layout = _fn("kk_view_layout", c_int, P)
kk_view_space = _fn("kk_view_space", P, P)
kk_view_data = _fn("kk_view_data", P, P)
kk_deep_copy = _fn("kk_deep_copy", st, P, P)
kk_deep_copy_fill = _fn("kk_deep_copy_fill", st, P, P)
kk_view_create_mirror = _fn("kk_view_create_mirror", st, P, ctypes.POINTER(c_void_p))
kk_view_create_mirror_in = _fn("kk_view_create_mirror_in", st, P, P, ctypes.POINTER(c_void_p))
kk_view_create_mirror_view = _fn("kk_view_create_mirror_view", st, P, ctypes.POINTER(c_void_p))
kk_view_bind = _fn("kk_view_bind", KView, P)
kk_view_bind_right = _fn("kk_view_bind_right", KViewRight, P)
kk_view_bind_left = _fn("kk_view_bind_left", KViewLeft, P)
kk_view_bind_strided = _fn("kk_view_bind_strided", KViewStrided, P)
kk_parallel_for = _fn("kk_parallel_for", st, c_char_p, ctypes.POINTER(RangePolicyC), P, P, c_size_t)
kk_parallel_reduce = _fn("kk_parallel_reduce", st, c_char_p, ctypes.POINTER(RangePolicyC), P, P, c_size_t, P, c_size_t)
kk_parallel_scan = _fn("kk_parallel_scan", st, c_char_p, ctypes.POINTER(RangePolicyC), P, P, c_size_t, P, c_size_t)
kk_parallel_for_md = _fn("kk_parallel_for_md", st, c_char_p, ctypes.POINTER(MDPolicyC), P, P, c_size_t)
kk_parallel_reduce_md = _fn("kk_parallel_reduce_md", st, c_char_p, ctypes.POINTER(MDPolicyC), P, P, c_size_t, P, c_size_t)
kk_profiling_push_region = _fn("kk_profiling_push_region", st, c_char_p)
kk_profiling_pop_region = _fn("kk_profiling_pop_region", st)
kk_profiling_mark_event = _fn("kk_profiling_mark_event", st, c_char_p)
