#!/usr/bin/env python3
# tests/cubin-loops.py -- the loops of CUDA kernels in an sm_90 cubin, as the order of their global loads and double FMAs, read from the machine code without a disassembler.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Usage:
  tests/cubin-loops.py CUBIN KERNEL...            one line per loop of each kernel
  tests/cubin-loops.py --counts CUBIN KERNEL...   per kernel: instructions, LDG, STG,
                                                  DFMA, BRA (to compare with cuobjdump -sass)

A loop line is
  KERNEL START END LENGTH INNERMOST OPS...
START and END the byte offsets of the loop's first instruction and of its
backward branch, LENGTH its instructions, INNERMOST 1 when no other loop lies
inside it, OPS its global loads, shared loads, global stores and double FMAs
in program order (LDG, LDS, STG, DFMA), with a trailing ? where the
instruction carries a predicate (a guarded step).

An sm_70 and later instruction is 16 bytes, little-endian; the first 64-bit
word holds the opcode in bits 0-11 and the guard predicate in bits 12-15
(7: always).  A branch (BRA) holds its offset from the next instruction in
bytes, bits 2-9 of it in bits 16-23 and bits 10 and up sign-extended from
bit 34 of the 128-bit instruction.  Only the few opcodes below are named;
bench/slices-gpu.sh compares --counts with cuobjdump -sass on a machine
that has it.  No GPU needed."""
import struct
import sys

OPS = {0x981: 'LDG', 0x984: 'LDS', 0x986: 'STG', 0x22b: 'DFMA', 0x947: 'BRA'}


def sections(path):
    with open(path, 'rb') as f:
        b = f.read()
    if b[:4] != b'\x7fELF' or b[4] != 2:
        sys.exit('%s: not a 64-bit ELF file (a cubin)' % path)
    shoff, = struct.unpack_from('<Q', b, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', b, 0x3a)
    heads = [struct.unpack_from('<IIQQQQ', b, shoff + i * shentsize) for i in range(shnum)]
    strtab = heads[shstrndx][4]
    out = {}
    for name, _typ, _flags, _addr, off, size in heads:
        end = b.index(b'\0', strtab + name)
        out[b[strtab + name:end].decode()] = b[off:off + size]
    return out


def decode(text):
    """(opcode name or None, predicated, branch target index or None) per instruction"""
    ins = []
    for i in range(0, len(text) - 15, 16):
        lo, hi = struct.unpack_from('<QQ', text, i)
        name = OPS.get(lo & 0xfff)
        target = None
        if name == 'BRA':
            high = ((hi & 0x3ffff) << 64 | lo) >> 34  # 48 bits, signed
            if high >> 47:
                high -= 1 << 48
            target = (i + 16 + (high << 10 | ((lo >> 16) & 0xff) << 2)) // 16
        ins.append((name, (lo >> 12) & 0xf != 7, target))
    return ins


def loops(ins):
    back = [(t, i) for i, (n, _p, t) in enumerate(ins) if n == 'BRA' and t is not None and t <= i]
    for t, i in back:
        inner = not any(t <= t2 and i2 <= i and (t2, i2) != (t, i) for t2, i2 in back)
        ops = [n + ('?' if p else '') for n, p, _t in ins[t:i + 1] if n in ('LDG', 'LDS', 'STG', 'DFMA')]
        yield t, i, inner, ops


def main(argv):
    counts = argv[1:2] == ['--counts']
    args = argv[2:] if counts else argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    secs = sections(args[0])
    for k in args[1:]:
        text = secs.get('.text.' + k)
        if text is None:
            sys.exit('%s: no kernel %s' % (args[0], k))
        ins = decode(text)
        if counts:
            names = [n for n, _p, _t in ins]
            print(k, len(ins), *('%s=%d' % (n, names.count(n)) for n in ('LDG', 'STG', 'DFMA', 'BRA')))
            continue
        for t, i, inner, ops in loops(ins):
            print(k, '%04x' % (16 * t), '%04x' % (16 * i), i - t + 1, int(inner), *ops)


if __name__ == '__main__':
    main(sys.argv)
