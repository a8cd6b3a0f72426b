/* kk/target/spirv_generic_atomics.ll.h -- OpenCL 2.0 atomics on generic pointers for OpenCL platforms whose builtin library lacks them (PoCL 3.1): LLVM IR written through the C preprocessor.
 *
 * kkcc's spirv recipe turns each SPIR-V module back into SPIR 1.2 LLVM bitcode
 * (llvm-spirv -r) for platforms that do not ingest SPIR-V, such as PoCL 3.1
 * as Debian builds it.  The reverse translation spells the module's atomics
 * as OpenCL 2.0 builtins on generic pointers, which PoCL's library defines
 * only for global and local pointers (and may implement with the generic
 * ones).  These definitions are linked into that bitcode only, never into the
 * SPIR-V image: the recipe runs this file through the preprocessor
 * (clang -E -P -x c) and llvm-link adds the result.  They are LLVM atomic
 * instructions, written as IR because clang's spir64 target turns every
 * C-level atomic into a library call; the memory order and scope arguments
 * are ignored: every one is seq_cst, which is at least as strong as any order
 * asked for.  One line of IR per function (LLVM reads instructions without
 * line breaks), for each type (i j l m: int, uint, long, ulong, the letters
 * of their mangled names).  LLVM 14 syntax (typed pointers).
 */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v24:32:32-v32:32:32-v48:64:64-v64:64:64-v96:128:128-v128:128:128-v192:256:256-v256:256:256-v512:512:512-v1024:1024:1024"
target triple = "spir64-unknown-unknown"

/* the builtin's mangled name: its length-prefixed name, the generic _Atomic pointer, then the other parameters */
#define KK__AT(LEN, OP, S, REST) @_Z##LEN##atomic_##OP##_explicitPU3AS4VU7_Atomic##S##REST
#define KK__P(T) T addrspace(4)* %p
/* fetch-and-op and exchange: atomicrmw */
#define KK__RMW(LEN, OP, S, T, A, INSN) \
  define spir_func T KK__AT(LEN, OP, S, S##12memory_order12memory_scope)(KK__P(T), T %v, i32 %o, i32 %s) { \
    %r = atomicrmw INSN KK__P(T), T %v seq_cst, align A ret T %r }
#define KK__ATOMICS(S, T, A, MIN, MAX) \
  KK__RMW(25, fetch_add, S, T, A, add) \
  KK__RMW(25, fetch_sub, S, T, A, sub) \
  KK__RMW(25, fetch_and, S, T, A, and) \
  KK__RMW(24, fetch_or, S, T, A, or) \
  KK__RMW(25, fetch_xor, S, T, A, xor) \
  KK__RMW(25, fetch_min, S, T, A, MIN) \
  KK__RMW(25, fetch_max, S, T, A, MAX) \
  KK__RMW(24, exchange, S, T, A, xchg) \
  define spir_func T KK__AT(20, load, S, 12memory_order12memory_scope)(KK__P(T), i32 %o, i32 %s) { \
    %r = load atomic T, KK__P(T) seq_cst, align A ret T %r } \
  define spir_func void KK__AT(21, store, S, S##12memory_order12memory_scope)(KK__P(T), T %v, i32 %o, i32 %s) { \
    store atomic T %v, KK__P(T) seq_cst, align A ret void } \
  define spir_func i1 KK__AT(39, compare_exchange_strong, S, PU3AS4##S##S##12memory_orderS4_12memory_scope)( \
      KK__P(T), T addrspace(4)* %e, T %d, i32 %o1, i32 %o2, i32 %s) { \
    %x = load T, T addrspace(4)* %e, align A \
    %pair = cmpxchg KK__P(T), T %x, T %d seq_cst seq_cst, align A \
    %old = extractvalue { T, i1 } %pair, 0 \
    %ok = extractvalue { T, i1 } %pair, 1 \
    store T %old, T addrspace(4)* %e, align A ret i1 %ok }

KK__ATOMICS(i, i32, 4, min, max)
KK__ATOMICS(j, i32, 4, umin, umax)
KK__ATOMICS(l, i64, 8, min, max)
KK__ATOMICS(m, i64, 8, umin, umax)
