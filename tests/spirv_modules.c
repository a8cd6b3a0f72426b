/* tests/spirv_modules.c -- writes the SPIR-V image of every kernel module linked into it to a directory, for spirv-val and ocloc (tests/spirv-modules.sh, tests/ocloc.sh).
 *
 * Linked with the conformance, benchmark and example kernels (and not with
 * libkk): it receives their modules through its own kk_module_register, as
 * tests/nvrtc_modules.c does, and writes module-<n>.spv (and a line per
 * module to stdout: file, source, size, arch).  What the plugins load is
 * exactly these bytes. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <kk/kernel_abi.h>

#include "module_collect.h"

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s DIR\n", argv[0]);
    return 2;
  }
  int written = 0;
  for (int m = 0; m < g_nmods; m++) {
    const kk_module_t *mod = g_mods[m];
    for (uint32_t i = 0; i < mod->image_count; i++) {
      const kk_image_t *img = &mod->images[i];
      if (!img->format || strcmp(img->format, "spirv") != 0)
        continue;
      char path[4096];
      snprintf(path, sizeof path, "%s/module-%d.spv", argv[1], written);
      FILE *f = fopen(path, "wb");
      if (!f || fwrite(img->data, 1, (size_t)img->size, f) != (size_t)img->size) {
        fprintf(stderr, "cannot write %s\n", path);
        if (f)
          fclose(f);
        return 1;
      }
      fclose(f);
      printf("%s %s %llu %s\n", path, mod->source_name, (unsigned long long)img->size, img->arch ? img->arch : "-");
      written++;
    }
  }
  if (written == 0) {
    fprintf(stderr, "no module linked here carries a SPIR-V image\n");
    return 1;
  }
  return 0;
}
