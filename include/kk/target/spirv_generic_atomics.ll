; kk/target/spirv_generic_atomics.ll -- OpenCL 2.0 atomics on generic pointers for OpenCL platforms whose builtin library lacks them (PoCL 3.1).
;
; kkcc's spirv recipe turns each SPIR-V module back into SPIR 1.2 LLVM bitcode
; (llvm-spirv -r) for platforms that do not ingest SPIR-V, such as PoCL 3.1
; as Debian builds it.  The reverse translation spells the module's atomics
; as OpenCL 2.0 builtins on generic pointers, which PoCL's library defines
; only for global and local pointers (and may implement with the generic
; ones).  These definitions are linked into that bitcode only, never into the
; SPIR-V image (llvm-link adds them).  They are LLVM atomic instructions,
; written as IR because clang's spir64 target turns every C-level atomic into
; a library call; the
; memory order and scope arguments are ignored: every one is seq_cst, which
; is at least as strong as any order asked for.  One block per operation and
; (types i j l m: int, uint, long, ulong). LLVM 14 syntax (typed pointers).
target datalayout = "e-p:64:64:64-i1:8:8-i8:8:8-i16:16:16-i32:32:32-i64:64:64-f32:32:32-f64:64:64-v16:16:16-v24:32:32-v32:32:32-v48:64:64-v64:64:64-v96:128:128-v128:128:128-v192:256:256-v256:256:256-v512:512:512-v1024:1024:1024"
target triple = "spir64-unknown-unknown"

define spir_func i32 @_Z25atomic_fetch_add_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw add i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_sub_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw sub i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_and_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw and i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z24atomic_fetch_or_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw or i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_xor_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw xor i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_min_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw min i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_max_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw max i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z24atomic_exchange_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw xchg i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z20atomic_load_explicitPU3AS4VU7_Atomici12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %o, i32 %s) {
  %r = load atomic i32, i32 addrspace(4)* %p seq_cst, align 4
  ret i32 %r
}
define spir_func void @_Z21atomic_store_explicitPU3AS4VU7_Atomicii12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  store atomic i32 %v, i32 addrspace(4)* %p seq_cst, align 4
  ret void
}
define spir_func i1 @_Z39atomic_compare_exchange_strong_explicitPU3AS4VU7_AtomiciPU3AS4ii12memory_orderS4_12memory_scope(i32 addrspace(4)* %p, i32 addrspace(4)* %e, i32 %d, i32 %o1, i32 %o2, i32 %s) {
  %x = load i32, i32 addrspace(4)* %e, align 4
  %pair = cmpxchg i32 addrspace(4)* %p, i32 %x, i32 %d seq_cst seq_cst, align 4
  %old = extractvalue { i32, i1 } %pair, 0
  %ok = extractvalue { i32, i1 } %pair, 1
  store i32 %old, i32 addrspace(4)* %e, align 4
  ret i1 %ok
}
define spir_func i32 @_Z25atomic_fetch_add_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw add i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_sub_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw sub i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_and_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw and i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z24atomic_fetch_or_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw or i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_xor_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw xor i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_min_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw umin i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z25atomic_fetch_max_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw umax i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z24atomic_exchange_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  %r = atomicrmw xchg i32 addrspace(4)* %p, i32 %v seq_cst, align 4
  ret i32 %r
}
define spir_func i32 @_Z20atomic_load_explicitPU3AS4VU7_Atomicj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %o, i32 %s) {
  %r = load atomic i32, i32 addrspace(4)* %p seq_cst, align 4
  ret i32 %r
}
define spir_func void @_Z21atomic_store_explicitPU3AS4VU7_Atomicjj12memory_order12memory_scope(i32 addrspace(4)* %p, i32 %v, i32 %o, i32 %s) {
  store atomic i32 %v, i32 addrspace(4)* %p seq_cst, align 4
  ret void
}
define spir_func i1 @_Z39atomic_compare_exchange_strong_explicitPU3AS4VU7_AtomicjPU3AS4jj12memory_orderS4_12memory_scope(i32 addrspace(4)* %p, i32 addrspace(4)* %e, i32 %d, i32 %o1, i32 %o2, i32 %s) {
  %x = load i32, i32 addrspace(4)* %e, align 4
  %pair = cmpxchg i32 addrspace(4)* %p, i32 %x, i32 %d seq_cst seq_cst, align 4
  %old = extractvalue { i32, i1 } %pair, 0
  %ok = extractvalue { i32, i1 } %pair, 1
  store i32 %old, i32 addrspace(4)* %e, align 4
  ret i1 %ok
}
define spir_func i64 @_Z25atomic_fetch_add_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw add i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_sub_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw sub i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_and_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw and i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z24atomic_fetch_or_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw or i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_xor_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw xor i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_min_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw min i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_max_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw max i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z24atomic_exchange_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw xchg i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z20atomic_load_explicitPU3AS4VU7_Atomicl12memory_order12memory_scope(i64 addrspace(4)* %p, i32 %o, i32 %s) {
  %r = load atomic i64, i64 addrspace(4)* %p seq_cst, align 8
  ret i64 %r
}
define spir_func void @_Z21atomic_store_explicitPU3AS4VU7_Atomicll12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  store atomic i64 %v, i64 addrspace(4)* %p seq_cst, align 8
  ret void
}
define spir_func i1 @_Z39atomic_compare_exchange_strong_explicitPU3AS4VU7_AtomiclPU3AS4ll12memory_orderS4_12memory_scope(i64 addrspace(4)* %p, i64 addrspace(4)* %e, i64 %d, i32 %o1, i32 %o2, i32 %s) {
  %x = load i64, i64 addrspace(4)* %e, align 8
  %pair = cmpxchg i64 addrspace(4)* %p, i64 %x, i64 %d seq_cst seq_cst, align 8
  %old = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  store i64 %old, i64 addrspace(4)* %e, align 8
  ret i1 %ok
}
define spir_func i64 @_Z25atomic_fetch_add_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw add i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_sub_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw sub i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_and_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw and i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z24atomic_fetch_or_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw or i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_xor_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw xor i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_min_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw umin i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z25atomic_fetch_max_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw umax i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z24atomic_exchange_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  %r = atomicrmw xchg i64 addrspace(4)* %p, i64 %v seq_cst, align 8
  ret i64 %r
}
define spir_func i64 @_Z20atomic_load_explicitPU3AS4VU7_Atomicm12memory_order12memory_scope(i64 addrspace(4)* %p, i32 %o, i32 %s) {
  %r = load atomic i64, i64 addrspace(4)* %p seq_cst, align 8
  ret i64 %r
}
define spir_func void @_Z21atomic_store_explicitPU3AS4VU7_Atomicmm12memory_order12memory_scope(i64 addrspace(4)* %p, i64 %v, i32 %o, i32 %s) {
  store atomic i64 %v, i64 addrspace(4)* %p seq_cst, align 8
  ret void
}
define spir_func i1 @_Z39atomic_compare_exchange_strong_explicitPU3AS4VU7_AtomicmPU3AS4mm12memory_orderS4_12memory_scope(i64 addrspace(4)* %p, i64 addrspace(4)* %e, i64 %d, i32 %o1, i32 %o2, i32 %s) {
  %x = load i64, i64 addrspace(4)* %e, align 8
  %pair = cmpxchg i64 addrspace(4)* %p, i64 %x, i64 %d seq_cst seq_cst, align 8
  %old = extractvalue { i64, i1 } %pair, 0
  %ok = extractvalue { i64, i1 } %pair, 1
  store i64 %old, i64 addrspace(4)* %e, align 8
  ret i1 %ok
}
