/* fortran/kk-fortran-args.c -- kk-fortran-args: writes the argument structs of a kkcc kernel module as a Fortran module of bind(C) types. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
/*
 * kk-fortran-args MODULE.so [-m NAME] [-o FILE.f90]
 *
 * Reads the table `kkcc -shared` records in a kernel module (kk_module_args:
 * each kernel's argument struct, its members' names, offsets, sizes and
 * kinds) and prints a Fortran module NAME (default: the file's base name
 * with _kernels) with one bind(C) derived type per struct, laid out as C lays
 * it out (padding members where C has padding), and a parameter
 * <type>_size with the struct's size, so that Fortran fills the struct and
 * launches the kernel with kk_parallel_for(..., args, c_sizeof(args)).
 * The module is loaded with the dynamic loader; kk need not be initialized.
 */
#include <ctype.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <kk.h>
#include <kk/kernel_abi.h>

static void usage(FILE *f) {
  fprintf(f, "usage: kk-fortran-args MODULE.so [-m NAME] [-o FILE.f90]\n"
             "writes the argument structs of a kernel module built with kkcc -shared as a Fortran module of\n"
             "bind(C) derived types (docs/fortran.md)\n");
}

/* A Fortran name from a C type or file name: "struct dot_args" -> dot_args. */
static void fname(char *out, size_t size, const char *in) {
  if (strncmp(in, "struct ", 7) == 0)
    in += 7;
  size_t n = 0;
  for (; *in && n + 1 < size; in++)
    out[n++] = isalnum((unsigned char)*in) || *in == '_' ? *in : '_';
  out[n] = '\0';
  if (n == 0 || !isalpha((unsigned char)out[0])) {
    memmove(out + 2, out, n + 1 < size - 2 ? n + 1 : size - 2);
    out[0] = 'k', out[1] = '_';
  }
}

/* The Fortran declaration of a member, its alignment; NULL for raw bytes. */
static const char *ftype(const kk_arg_field_t *f, unsigned *align) {
  *align = f->size >= 8 ? 8 : f->size ? f->size : 1;
  switch (f->kind) {
  case KK_ARG_INT:
  case KK_ARG_UINT:
    return f->size == 1 ? "integer(c_int8_t)" : f->size == 2 ? "integer(c_int16_t)"
         : f->size == 4 ? "integer(c_int32_t)" : f->size == 8 ? "integer(c_int64_t)" : NULL;
  case KK_ARG_FLOAT: return f->size == 4 ? "real(c_float)" : f->size == 8 ? "real(c_double)" : NULL;
  case KK_ARG_BOOL: return f->size == 1 ? "logical(c_bool)" : NULL;
  case KK_ARG_COMPLEX:
    *align = f->size / 2;
    return f->size == 8 ? "complex(c_float_complex)" : f->size == 16 ? "complex(c_double_complex)" : NULL;
  case KK_ARG_VIEW: *align = 8; return "type(kk_view_arg)";
  case KK_ARG_VIEW_RIGHT: *align = 8; return "type(kk_view_right_arg)";
  case KK_ARG_VIEW_LEFT: *align = 8; return "type(kk_view_left_arg)";
  case KK_ARG_VIEW_STRIDED: *align = 8; return "type(kk_view_strided_arg)";
  default: return NULL;
  }
}

static int write_type(FILE *out, const kk_kernel_args_t *ka, const char *tname) {
  fprintf(out, "  ! %s: the argument struct of kernel %s (%u bytes)\n", ka->type, ka->kernel_name, ka->size);
  fprintf(out, "  type, bind(C) :: %s\n", tname);
  unsigned at = 0, pad = 0, max_align = 1;
  for (uint32_t i = 0; i < ka->field_count; i++) {
    const kk_arg_field_t *f = &ka->fields[i];
    unsigned align;
    const char *t = ftype(f, &align);
    if (!t)
      align = 1;
    unsigned natural = (at + align - 1) / align * align;
    if (natural < f->offset) { /* C padded here more than Fortran would: say so */
      fprintf(out, "    character(kind=c_char) :: kk_pad%u(%u)\n", pad++, f->offset - at);
      natural = f->offset;
      if (t && f->offset % align) /* an unaligned typed member cannot be expressed */
        t = NULL;
    } else if (natural > f->offset) {
      t = NULL;
      natural = f->offset;
    }
    if (t)
      fprintf(out, "    %s :: %s\n", t, f->name);
    else
      fprintf(out, "    character(kind=c_char) :: %s(%u)  ! raw bytes (kind %u)\n", f->name, f->size, f->kind);
    if (t && align > max_align)
      max_align = align;
    at = natural + f->size;
  }
  unsigned total = (at + max_align - 1) / max_align * max_align;
  if (total < ka->size)
    fprintf(out, "    character(kind=c_char) :: kk_pad%u(%u)\n", pad++, ka->size - at);
  fprintf(out, "  end type\n  integer(c_int64_t), parameter :: %s_size = %u\n\n", tname, ka->size);
  return 0;
}

int main(int argc, char **argv) {
  const char *path = NULL, *name = NULL, *outpath = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-m") && i + 1 < argc)
      name = argv[++i];
    else if (!strcmp(argv[i], "-o") && i + 1 < argc)
      outpath = argv[++i];
    else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
      usage(stdout);
      return 0;
    } else if (argv[i][0] != '-' && !path)
      path = argv[i];
    else {
      usage(stderr);
      return 2;
    }
  }
  if (!path) {
    usage(stderr);
    return 2;
  }
  void *dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!dl) {
    fprintf(stderr, "kk-fortran-args: %s\n", dlerror());
    return 1;
  }
  const kk_module_args_t *ma = dlsym(dl, "kk_module_args");
  if (!ma || (ma->abi_version >> 16) != (KK_KERNEL_ABI_VERSION >> 16)) {
    fprintf(stderr, "kk-fortran-args: %s records no argument structs of kernel ABI %u.x (build it with this kk's "
                    "kkcc -shared)\n", path, KK_KERNEL_ABI_VERSION >> 16);
    return 1;
  }
  char mname[64];
  if (!name) {
    const char *b = strrchr(path, '/');
    char base[64];
    snprintf(base, sizeof base, "%s", b ? b + 1 : path);
    char *dot = strchr(base, '.');
    if (dot)
      *dot = '\0';
    fname(mname, sizeof mname - 8, base);
    strcat(mname, "_kernels");
  } else
    fname(mname, sizeof mname, name);
  FILE *out = outpath ? fopen(outpath, "w") : stdout;
  if (!out) {
    perror(outpath);
    return 1;
  }
  /* (kk_version: the module resolves kk_module_register against libkk, linked for it) */
  const char *file = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
  fprintf(out, "! written by kk-fortran-args (kk %s) from\n! %.120s:\n! the argument structs of its kernels as bind(C) types.\n"
               "module %s\n  use, intrinsic :: iso_c_binding\n"
               "  use kk, only: kk_view_arg, kk_view_right_arg, kk_view_left_arg, kk_view_strided_arg\n"
               "  implicit none\n\n", kk_version(), file, mname);
  char done[64][64];
  int ndone = 0;
  for (uint32_t k = 0; k < ma->count; k++) {
    char tname[64];
    fname(tname, sizeof tname, ma->kernels[k].type);
    int seen = 0;
    for (int j = 0; j < ndone; j++)
      seen |= !strcmp(done[j], tname);
    if (seen)
      continue;
    if (ndone < 64)
      strcpy(done[ndone++], tname);
    write_type(out, &ma->kernels[k], tname);
  }
  fprintf(out, "end module %s\n", mname);
  if (outpath && fclose(out) != 0) {
    perror(outpath);
    return 1;
  }
  return 0;
}
