# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Kernel modules built by kkcc -shared: loading, argument packing against kk_module_args, launches."""
import ctypes
import os
import struct
import weakref

from . import _lib as _c
from . import Error, View, _check, _b, _s, _need_init

_modules = []

KIND_FOR, KIND_REDUCE, KIND_SCAN, KIND_MD_FOR, KIND_MD_REDUCE = 1, 2, 3, 4, 5
# kernel kind -> kk_call_kind_t (kk_parallel_call)
_CALL_KINDS = {KIND_FOR: 1, KIND_REDUCE: 2, KIND_SCAN: 3, KIND_MD_FOR: 4, KIND_MD_REDUCE: 5}
_KIND_NAMES = {1: "for", 2: "reduce", 3: "scan", 4: "MDRange for", 5: "MDRange reduce", 6: "team for",
               7: "team reduce"}
_ARG_KINDS = {0: "bytes", 1: "int", 2: "unsigned int", 3: "float", 4: "bool", 5: "kk_view", 6: "kk_view_right",
              7: "kk_view_left", 8: "kk_view_strided", 9: "kk_scatter", 10: "complex"}
_INTS = {(1, 1): ctypes.c_int8, (1, 2): ctypes.c_int16, (1, 4): ctypes.c_int32, (1, 8): ctypes.c_int64,
         (2, 1): ctypes.c_uint8, (2, 2): ctypes.c_uint16, (2, 4): ctypes.c_uint32, (2, 8): ctypes.c_uint64}
_MISSING = object()
_BINDS = {5: _c.kk_view_bind, 6: _c.kk_view_bind_right, 7: _c.kk_view_bind_left, 8: _c.kk_view_bind_strided}


class RangePolicy:
    """RangePolicy(begin, end) or RangePolicy(n): the index range [begin, end) of a range kernel;
    chunk (0: the backend's), instance (None: the default instance)."""

    def __init__(self, begin, end=None, chunk=0, instance=None):
        if end is None:
            begin, end = 0, begin
        if end < begin:
            raise ValueError("kk.RangePolicy: end %d < begin %d" % (end, begin))
        self.c = _c.RangePolicyC(ctypes.sizeof(_c.RangePolicyC), int(begin), int(end), int(chunk), 0,
                                 instance._h if instance is not None else None)
        self.ref = ctypes.byref(self.c)


class MDRangePolicy:
    """MDRangePolicy(begin, end, tile=None, instance=None): the box [begin, end) of rank 2..6."""

    def __init__(self, begin, end, tile=None, instance=None):
        rank = len(end)
        if len(begin) != rank or not 2 <= rank <= 6:
            raise ValueError("kk.MDRangePolicy: begin and end need the same rank, 2..6")
        self.c = _c.MDPolicyC()
        self.c.struct_size = ctypes.sizeof(_c.MDPolicyC)
        self.c.rank = rank
        for i in range(rank):
            self.c.begin[i], self.c.end[i] = int(begin[i]), int(end[i])
            self.c.tile[i] = int(tile[i]) if tile else 0
        self.c.instance = instance._h if instance is not None else None
        self.ref = ctypes.byref(self.c)


class Kernel:
    """One kernel of a module: call it with a policy and its arguments by name,
    mod.saxpy(kk.RangePolicy(0, n), a=2.0, x=x, y=y).  Reduce kernels return the reduced value (a
    Python scalar, or a tuple for MINLOC-style and multi-reducer kernels); scan kernels the total."""

    def __init__(self, module, k, meta):
        self._module, self._k, self._meta = module, k, meta
        self.name = _s(k.contents.name)
        self.kind = k.contents.kind
        self.args_size = k.contents.args_size
        self._dec = None   # the reducer's decoder, made at the first reduction
        self._plan = None  # how to pack the arguments (_make_plan), made at the first call
        self._r = None     # the reducer's table (ctypes), read at the first reduction
        self._kp = ctypes.cast(k, ctypes.c_void_p)

    @property
    def fields(self):
        """The argument struct's members as (name, kind, offset, size), as kkcc recorded them."""
        if self._meta is None:
            return None
        return [(n, _ARG_KINDS.get(kd, kd), off, sz) for n, kd, off, sz in self._meta[1]]

    def __repr__(self):
        return "<kk kernel %s (%s) of %s>" % (self.name, _KIND_NAMES.get(self.kind, self.kind), self._module.path)

    def _make_plan(self):
        """How to pack each member in the common case, made once per kernel: (name, how, packer, offset,
        a, b), how 0 an integer in [a, b], 1 a float, 2 a view (a: its size); None when a member has
        another kind (every call then takes _pack_checked)."""
        plan = []
        for name, kind, off, size in self._meta[1]:
            if kind in (1, 2) and (kind, size) in _INTS:
                bits = 8 * size
                lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if kind == 1 else (0, (1 << bits) - 1)
                fmt = {1: "b", 2: "h", 4: "i", 8: "q"}[size]
                plan.append((name, 0, struct.Struct("=" + (fmt if kind == 1 else fmt.upper())).pack_into, off, lo, hi))
            elif kind == 3 and size in (4, 8):
                plan.append((name, 1, struct.Struct("=f" if size == 4 else "=d").pack_into, off, None, None))
            elif kind in _BINDS:
                plan.append((name, 2, _BINDS[kind], off, size, kind))
            else:
                return None
        return plan

    def _pack(self, args):
        """The argument struct from keyword arguments, and the views it refers to.  Arguments of the
        expected Python types take the kernel's plan; anything else (and every error) takes _pack_checked,
        which converts, checks and explains."""
        plan = self._plan
        if plan is None and self._meta is not None:
            plan = self._plan = self._make_plan() or False
        if not plan or len(args) != len(plan):
            return self._pack_checked(args)
        buf = (ctypes.c_char * max(self.args_size, 1))()
        mv = memoryview(buf).cast("B")  # (ctypes.memmove and slices of buf cost 1-17 us each, this 0.1)
        keep = []
        for name, how, f, off, a, b in plan:
            v = args.get(name, _MISSING)
            c = v.__class__
            if how == 0:
                if c is not int or not a <= v <= b:
                    return self._pack_checked(args)
                f(mv, off, v)
            elif how == 1:
                if c is not float and c is not int:
                    return self._pack_checked(args)
                f(mv, off, v)
            else:
                if c is not View:
                    return self._pack_checked(args)
                h = v._alive()
                dd = v._descs
                d = dd.get(b) if dd is not None else None
                if d is None:
                    desc = f(h)
                    d = ctypes.string_at(ctypes.addressof(desc), a)
                    if desc.d.data:  # bound; an empty descriptor is a refusal, which the launch reports
                        if dd is None:
                            dd = v._descs = {}
                        dd[b] = d
                mv[off:off + a] = d
                keep.append(v)
        return buf, keep

    def _pack_checked(self, args):
        if self._meta is None:
            raise Error(-13, "kernel %s: its module records no argument struct (rebuild it with this kk's "
                             "kkcc -shared; docs/kkcc.md)" % self.name)
        tname, fields = self._meta
        buf = (ctypes.c_char * max(self.args_size, 1))()
        keep = []
        known = {f[0] for f in fields}
        extra = sorted(set(args) - known)
        if extra:
            raise TypeError("kernel %s: no argument %s in %s (its members: %s)" %
                            (self.name, ", ".join(extra), tname, ", ".join(f[0] for f in fields)))
        for name, kind, off, size in fields:
            if name not in args:
                raise TypeError("kernel %s: missing argument %r (%s %s)" % (self.name, name, _ARG_KINDS.get(kind), tname))
            v = args[name]
            where = "kernel %s, argument %r" % (self.name, name)
            if kind in (1, 2):
                if isinstance(v, float) or not hasattr(v, "__index__"):
                    raise TypeError("%s: an integer is needed, not %s" % (where, type(v).__name__))
                v = int(v)
                lo, hi = (-(1 << (8 * size - 1)), (1 << (8 * size - 1)) - 1) if kind == 1 else (0, (1 << (8 * size)) - 1)
                if not lo <= v <= hi:
                    raise OverflowError("%s: %d does not fit in %s%d" % (where, v, "int" if kind == 1 else "uint", 8 * size))
                ctypes.memmove(ctypes.byref(buf, off), ctypes.byref(_INTS[(kind, size)](v)), size)
            elif kind == 3:
                if not isinstance(v, (int, float)) and not hasattr(v, "__float__"):
                    raise TypeError("%s: a number is needed, not %s" % (where, type(v).__name__))
                t = ctypes.c_float if size == 4 else ctypes.c_double
                ctypes.memmove(ctypes.byref(buf, off), ctypes.byref(t(float(v))), size)
            elif kind == 4:
                ctypes.memmove(ctypes.byref(buf, off), ctypes.byref(ctypes.c_bool(bool(v))), size)
            elif kind == 10:
                t = ctypes.c_float if size == 8 else ctypes.c_double
                z = complex(v)
                pair = (t * 2)(z.real, z.imag)
                ctypes.memmove(ctypes.byref(buf, off), pair, size)
            elif kind in _BINDS:
                if not isinstance(v, View):
                    if hasattr(v, "__dlpack__"):
                        from . import from_dlpack
                        v = from_dlpack(v)
                    else:
                        raise TypeError("%s: a kk.View (or a DLPack array) is needed, not %s" % (where, type(v).__name__))
                keep.append(v)
                d = _BINDS[kind](v._alive())
                ctypes.memmove(ctypes.byref(buf, off), ctypes.byref(d), size)
            else:
                mv = memoryview(v).cast("B")
                if mv.nbytes != size:
                    raise TypeError("%s: %d bytes are needed (%s), got %d" % (where, size, _ARG_KINDS[kind], mv.nbytes))
                ctypes.memmove(ctypes.byref(buf, off), bytes(mv), size)
        return buf, keep

    def bind(self, label=None, **args):
        """Packs the arguments once and returns a kk.Launch: launch(policy) starts the kernel with them,
        at the cost of one ctypes call (for a kernel launched many times with the same views and scalars,
        as a Kokkos functor captures them).  The views stay alive with the Launch."""
        return Launch(self, label, args)

    def __call__(self, policy, label=None, **args):
        buf, keep = self._pack(args)
        lbl = _b(label if label is not None else self.name)
        k = self._kp
        if isinstance(policy, int):
            policy = RangePolicy(policy)
        pol = policy.ref
        if self.kind == KIND_FOR:
            _need_range(self, policy)
            _check(_c.kk_parallel_for(lbl, pol, k, buf, self.args_size), "kernel " + self.name)
            return None
        if self.kind == KIND_MD_FOR:
            _need_md(self, policy)
            _check(_c.kk_parallel_for_md(lbl, pol, k, buf, self.args_size), "kernel " + self.name)
            return None
        if self.kind in (KIND_REDUCE, KIND_SCAN, KIND_MD_REDUCE):
            r = self._r
            if r is None:
                r = self._r = self._k.contents.reducer.contents
            out = (ctypes.c_char * r.value_size)()
            if self.kind == KIND_REDUCE:
                _need_range(self, policy)
                _check(_c.kk_parallel_reduce(lbl, pol, k, buf, self.args_size, out, r.value_size), "kernel " + self.name)
            elif self.kind == KIND_SCAN:
                _need_range(self, policy)
                _check(_c.kk_parallel_scan(lbl, pol, k, buf, self.args_size, out, r.value_size), "kernel " + self.name)
            else:
                _need_md(self, policy)
                _check(_c.kk_parallel_reduce_md(lbl, pol, k, buf, self.args_size, out, r.value_size), "kernel " + self.name)
            del keep
            if self._dec is None:
                self._dec = _decoder(r)
            return self._dec(out)
        raise Error(-10, "kernel %s: %s kernels cannot be launched from Python yet" % (self.name, _KIND_NAMES.get(self.kind)))


class Launch:
    """A kernel with its arguments packed (Kernel.bind): launch(policy) runs it; reduce and scan kernels
    return their value as Kernel calls do."""

    __slots__ = ("_kern", "_buf", "_keep", "_lbl", "_call", "_ref", "_fn", "_pol", "_out", "_dec", "_reducer",
                 "_want", "__weakref__")

    # A launch is one kk_call_t (kk_parallel_call), filled here once: a launch passes ctypes one pointer
    # that is already a ctypes argument, so ctypes converts nothing, and only a new policy object is
    # written into it.  Checks are libkk's: a module unloaded since sets the kernel to NULL (Module.unload),
    # which libkk refuses, and the failure path names the unloaded module.
    def __init__(self, kern, label, args):
        self._kern = kern
        self._buf, self._keep = kern._pack(args)
        kind = kern.kind
        ck = _CALL_KINDS.get(kind)
        if ck is None:
            raise Error(-10, "kernel %s: %s kernels cannot be launched from Python yet" % (kern.name, _KIND_NAMES.get(kind)))
        self._want = MDRangePolicy if kind in (KIND_MD_FOR, KIND_MD_REDUCE) else RangePolicy
        self._reducer = kern._k.contents.reducer.contents if kind in (KIND_REDUCE, KIND_SCAN, KIND_MD_REDUCE) else None
        self._out = (ctypes.c_char * self._reducer.value_size)() if self._reducer is not None else None
        self._dec = _decoder(self._reducer) if self._reducer is not None else None
        self._lbl = _b(label if label is not None else kern.name)   # kept alive: the call points at it
        c = self._call = _c.CallC()
        c.struct_size = ctypes.sizeof(_c.CallC)
        c.kind = ck
        c.label = self._lbl
        c.kernel = ctypes.cast(kern._k, ctypes.c_void_p).value
        c.args = ctypes.addressof(self._buf)
        c.args_size = kern.args_size
        if self._out is not None:
            c.result = ctypes.addressof(self._out)
            c.result_size = self._reducer.value_size
        self._ref = ctypes.byref(c)
        self._fn = _c.raw.kk_parallel_call
        self._pol = None
        kern._module._launches.add(self)

    def _policy(self, policy):
        if policy.__class__ is not self._want:
            if isinstance(policy, int) and self._want is RangePolicy:
                policy = RangePolicy(policy)
            else:
                raise TypeError("kernel %s needs a kk.%s" % (self._kern.name, self._want.__name__))
        self._call.policy = ctypes.addressof(policy.c)
        self._pol = policy   # keeps the policy's struct alive while the call points at it

    def _failed(self, st):
        if not self._kern._module._h:
            raise Error(-3, "kernel %s: its module was unloaded (kk.finalize unloads every module)" % self._kern.name)
        _check(st, "kernel " + self._kern.name)

    def _unloaded(self):
        self._call.kernel = None

    def __call__(self, policy):
        if policy is not self._pol:
            self._policy(policy)
        st = self._fn(self._ref)
        if st:
            self._failed(st)
        if self._out is None:
            return None
        return self._dec(self._out)


def _need_range(kern, policy):
    if not isinstance(policy, RangePolicy):
        raise TypeError("kernel %s is a %s kernel: it needs a kk.RangePolicy" % (kern.name, _KIND_NAMES[kern.kind]))


def _need_md(kern, policy):
    if not isinstance(policy, MDRangePolicy):
        raise TypeError("kernel %s is an MDRange kernel: it needs a kk.MDRangePolicy" % kern.name)


# struct format of a reducer part's element (kk_type_t)
_FMT = {1: "b", 2: "B", 3: "h", 4: "H", 5: "i", 6: "I", 7: "q", 8: "Q", 9: "f", 10: "d"}


def _decoder(r):
    """A function from a reducer's value bytes (any buffer) to what Python gets: a scalar, or a tuple for
    MINLOC-style reducers and several reducers.  Made once per kernel: a launch only unpacks."""
    parts = []
    for i in range(r.count):
        p = r.part[i]
        off, size, op, f = p.offset, p.size, p.op, _FMT.get(p.type)
        if f is None:       # a custom reducer's value: its bytes
            parts.append(lambda raw, off=off, size=size: bytes(raw[off:off + size]))
        elif op in (6, 7):  # MINLOC / MAXLOC: {val, loc}
            sv, sl = struct.Struct("=" + f), struct.Struct("=q")
            parts.append(lambda raw, off=off, loc=off + size - 8, sv=sv, sl=sl:
                         (sv.unpack_from(raw, off)[0], sl.unpack_from(raw, loc)[0]))
        elif op == 5:       # MINMAX
            s2 = struct.Struct("=2" + f)
            parts.append(lambda raw, off=off, s2=s2: s2.unpack_from(raw, off))
        elif op == 8:       # MINMAXLOC
            s2, sl = struct.Struct("=2" + f), struct.Struct("=2q")
            parts.append(lambda raw, off=off, loc=off + size - 16, s2=s2, sl=sl:
                         s2.unpack_from(raw, off) + sl.unpack_from(raw, loc))
        elif op in (9, 10): # LAND / LOR
            sv = struct.Struct("=" + f)
            parts.append(lambda raw, off=off, sv=sv: bool(sv.unpack_from(raw, off)[0]))
        else:
            sv = struct.Struct("=" + f)
            parts.append(lambda raw, off=off, sv=sv: sv.unpack_from(raw, off)[0])
    if len(parts) == 1:
        return parts[0]
    return lambda raw: tuple(d(raw) for d in parts)


class Module:
    """A kernel module loaded with kk.load(path); its kernels are attributes (mod.saxpy) and
    mod.kernels lists their names.  unload() (or kk.finalize) releases it."""

    def __init__(self, path):
        _need_init()
        self.path = os.path.abspath(path)
        h = ctypes.c_void_p()
        _check(_c.kk_module_load(_b(self.path), ctypes.byref(h)), "kk.load(%r)" % path)
        self._h = h.value
        self._dl = ctypes.CDLL(self.path)   # the same object; for its kk_module_args table
        self._meta = {}
        self._launches = weakref.WeakSet()   # its kernels' kk.Launch objects, cut off at unload
        try:
            ma = _c.ModuleArgs.in_dll(self._dl, "kk_module_args")
            if ma.abi_version >> 16 == 1:
                for i in range(ma.count):
                    ka = ma.kernels[i]
                    fields = [(_s(ka.fields[j].name), ka.fields[j].kind, ka.fields[j].offset, ka.fields[j].size)
                              for j in range(ka.field_count)]
                    self._meta[_s(ka.kernel_name)] = (_s(ka.type), fields)
        except ValueError:
            pass  # built by an older kkcc: kernels launch only with raw argument bytes
        mod = ctypes.cast(self._h, ctypes.POINTER(ctypes.c_uint32 * 4))
        self._kernels = {}
        self.kernels = []
        # kk_module_t: struct_size, abi, id, source_name, kernel_count, kernels, ...
        class _M(ctypes.Structure):
            _fields_ = [("struct_size", ctypes.c_uint32), ("abi_version", ctypes.c_uint32), ("id", ctypes.c_char_p),
                        ("source_name", ctypes.c_char_p), ("kernel_count", ctypes.c_uint32),
                        ("kernels", ctypes.POINTER(ctypes.POINTER(_c.KernelC)))]
        m = ctypes.cast(self._h, ctypes.POINTER(_M)).contents
        del mod
        for i in range(m.kernel_count):
            self.kernels.append(_s(m.kernels[i].contents.name))
        _modules.append(self)

    def __getattr__(self, name):
        if name.startswith("_"):
            raise AttributeError(name)
        if name not in self._kernels:
            if not self._h:
                raise Error(-3, "module %s was unloaded" % self.path)
            k = _c.kk_module_kernel(self._h, _b(name))
            if not k:
                raise AttributeError("module %s has no kernel %r (it has: %s)" % (self.path, name, ", ".join(self.kernels)))
            self._kernels[name] = Kernel(self, k, self._meta.get(name))
        return self._kernels[name]

    def unload(self):
        if self._h:
            h, self._h = self._h, None
            for launch in list(self._launches):
                launch._unloaded()
            self._launches.clear()
            self._kernels.clear()
            if self in _modules:
                _modules.remove(self)
            if _c.kk_is_initialized():
                _check(_c.kk_module_unload(h), "kk.Module.unload")


def load(path):
    """Loads a kernel module built with `kkcc -shared FILE.kk.c -o FILE.so` and returns it (the same
    Module again for a path already loaded)."""
    for m in _modules:
        if m.path == os.path.abspath(path):
            return m
    return Module(path)
