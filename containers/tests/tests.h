/* containers/tests/tests.h -- the argument structs of the containers suite's kernels, shared by check_containers.c and the kernel files. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KKC_TESTS_H
#define KKC_TESTS_H

#include <kk/containers.h>

/* a 12-byte key */
struct key12 {
  int32_t a, b, c;
};

/* insert: op i inserts key keys[i % nkeys] with value 3 * key (maps with
 * values), then adds 1 to counts' value for the key (insert, then atomic
 * add); tally gets the statuses: [0] failed, [1] success, [2] existing,
 * and [3] the inserts told "existing" that read another value than 3 * key
 * (the value must be in place before the key is visible) */
struct t_insert_args {
  kk_unordered_map m;      /* the map under test */
  kk_unordered_map counts; /* int64 values: how many ops inserted each key */
  kk_view keys;            /* the distinct keys (of the map's key type) */
  kk_view tally;           /* int64[3] */
  int64_t nkeys;
  int32_t with_value;
  int32_t pad;
};

/* find: out[i] = the value of keys[i] (int64 maps: 3 * key) or -1, found[i] = EXISTS */
struct t_find_args {
  kk_unordered_map m;
  kk_view keys, out, found;
};

/* bits: op i sets (or resets) bit i % nbits; tally[0] counts the calls that changed a bit */
struct t_bits_args {
  kk_bitset b;
  kk_view tally, out, hints;
  int64_t nbits;
  int32_t reset;
  int32_t pad;
};

/* token: op i acquires an id, marks it in use (a second holder is counted in
 * tally[1], an id out of range in tally[0]), works on row id of `rows`,
 * releases it; tally[2] gets the largest id seen */
struct t_token_args {
  kk_unique_token tok;
  kk_view inuse; /* int32[size] */
  kk_view rows;  /* int64[size][8] */
  kk_view tally; /* int64[3] */
};

struct t_dyn_args {
  kk_dynamic_view dv;
  double scale;
};

struct t_off_args {
  kk_offset_view ov;
  kk_offset_view_strided os;
};

/* x[i] = 2 * x[i] + 1 on a DualView's device side (int64) */
struct t_dv_args {
  kk_view x;
};

/* bounds-checked accesses at an index the test chooses */
struct b_args {
  kk_unordered_map m;
  kk_dynamic_view dv;
  kk_offset_view ov;
  int64_t i, j;
};

#if !defined(__CUDACC_RTC__) && !defined(__HIPCC_RTC__) && !defined(__OPENCL_VERSION__) && \
    !defined(__OPENCL_CPP_VERSION__)
KK_DECLARE_KERNEL(t_insert_i32);
KK_DECLARE_KERNEL(t_insert_u32);
KK_DECLARE_KERNEL(t_insert_i64);
KK_DECLARE_KERNEL(t_insert_u64);
KK_DECLARE_KERNEL(t_insert_key12);
KK_DECLARE_KERNEL(t_find_i64);
KK_DECLARE_KERNEL(t_find_key12);
KK_DECLARE_KERNEL(t_count_valid);
KK_DECLARE_KERNEL(t_bits);
KK_DECLARE_KERNEL(t_bits_test);
KK_DECLARE_KERNEL(t_bits_find);
KK_DECLARE_KERNEL(t_token);
KK_DECLARE_KERNEL(t_token_team);
KK_DECLARE_KERNEL(t_dyn_fill);
KK_DECLARE_KERNEL(t_dyn_sum);
KK_DECLARE_KERNEL(t_off_fill);
KK_DECLARE_KERNEL(t_off_sum);
KK_DECLARE_KERNEL(t_dv_scale);
KK_DECLARE_KERNEL(b_umap_value);
KK_DECLARE_KERNEL(b_dyn);
KK_DECLARE_KERNEL(b_off);
#endif

#endif /* KKC_TESTS_H */
