/* tests/hip_modules.c -- every kernel module embeds a HIP offload bundle with a code object per configured architecture.
 *
 * Linked with the kernel objects of the tree (and not with libkk): it receives their modules through its own
 * kk_module_register and checks, for each module built for the hip target, that its "hip-codeobject" image is a
 * clang offload bundle (the form hipModuleLoadData takes) holding, for every architecture named on the command
 * line, an AMDGPU ELF code object whose e_flags name that architecture, whose symbols include every kernel of
 * the module (kk_k_<name>) and whose metadata gives every kernel that architecture's wavefront size (64 on gfx9,
 * 32 on gfx10+).  Where configure found clang-offload-bundler ($KK_CLANG_OFFLOAD_BUNDLER), its
 * --list of each bundle must name the same targets.  Built with KK_TEST_HIP_REMAP_IMAGE, it checks the hip
 * plugin's own image of copy-between-layouts kernels (plugins/gpu/gpu_remap.cu) the same way.  No GPU is
 * needed. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kk/kernel_abi.h>

#include "module_collect.h"

#define BUNDLE_MAGIC "__CLANG_OFFLOAD_BUNDLE__"
#define EM_AMDGPU_ 224

/* EF_AMDGPU_MACH values (LLVM's ELF.h) of the architectures kk builds by default and their neighbours. */
static const struct {
  const char *name;
  unsigned mach;
} g_mach[] = {{"gfx900", 0x2c}, {"gfx906", 0x2f}, {"gfx908", 0x30}, {"gfx90a", 0x3f}, {"gfx940", 0x40},
              {"gfx1010", 0x33}, {"gfx1030", 0x36}, {"gfx1031", 0x37}, {"gfx1100", 0x41}};

static uint64_t rd64(const unsigned char *p) {
  uint64_t v;
  memcpy(&v, p, 8);
  return v;
}
static uint32_t rd32(const unsigned char *p) {
  uint32_t v;
  memcpy(&v, p, 4);
  return v;
}
static uint16_t rd16(const unsigned char *p) {
  uint16_t v;
  memcpy(&v, p, 2);
  return v;
}

/* Does the ELF code object define symbol `name`?  Looks through every symbol table. */
static int elf_has_symbol(const unsigned char *e, uint64_t size, const char *name) {
  const uint64_t shoff = rd64(e + 0x28);
  const unsigned shentsize = rd16(e + 0x3a), shnum = rd16(e + 0x3c);
  if (shoff == 0 || shentsize < 64 || shoff + (uint64_t)shnum * shentsize > size)
    return 0;
  for (unsigned i = 0; i < shnum; i++) {
    const unsigned char *sh = e + shoff + (uint64_t)i * shentsize;
    const uint32_t type = rd32(sh + 4);
    if (type != 2 && type != 11) /* SHT_SYMTAB, SHT_DYNSYM */
      continue;
    const uint64_t off = rd64(sh + 0x18), sz = rd64(sh + 0x20), ent = rd64(sh + 0x38);
    const uint32_t link = rd32(sh + 0x28);
    if (ent < 24 || off + sz > size || link >= shnum)
      continue;
    const unsigned char *str_sh = e + shoff + (uint64_t)link * shentsize;
    const uint64_t stroff = rd64(str_sh + 0x18), strsz = rd64(str_sh + 0x20);
    if (stroff + strsz > size)
      continue;
    for (uint64_t s = 0; s + ent <= sz; s += ent) {
      const uint32_t n = rd32(e + off + s);
      const uint16_t shndx = rd16(e + off + s + 6);
      if (n < strsz && shndx != 0 && strncmp((const char *)e + stroff + n, name, strsz - n) == 0)
        return 1;
    }
  }
  return 0;
}

/* Checks one code object of a bundle; returns the number of problems found (printed). */
/* `what` names it in messages; it must define the nk kernels `kernels` (symbol names). */
static int check_code_object(const char *what, unsigned nk, const char *const *kernels, const char *arch,
                             const unsigned char *e, uint64_t size) {
  if (size < 64 || memcmp(e, "\177ELF", 4) != 0 || e[4] != 2) {
    printf("FAIL: %s: the %s entry is not a 64-bit ELF code object\n", what, arch);
    return 1;
  }
  const unsigned machine = rd16(e + 18), flags = rd32(e + 48);
  if (machine != EM_AMDGPU_) {
    printf("FAIL: %s: the %s code object has e_machine %u, not EM_AMDGPU (224)\n", what, arch, machine);
    return 1;
  }
  for (size_t i = 0; i < sizeof g_mach / sizeof *g_mach; i++)
    if (strcmp(g_mach[i].name, arch) == 0 && (flags & 0xffu) != g_mach[i].mach) {
      printf("FAIL: %s: the %s code object's e_flags name machine 0x%x, not 0x%x\n", what, arch,
             flags & 0xffu, g_mach[i].mach);
      return 1;
    }
  /* Each kernel's metadata (msgpack in the AMDGPU note) gives its wavefront
   * size: 64 on gfx9 (CDNA), 32 on gfx10 and later, HIP's default there.
   * hip.h compiles its wave loops for that width; a wrong one here means the
   * code object was not built the way the plugin expects. */
  const unsigned want_wave = strncmp(arch, "gfx1", 4) == 0 && strlen(arch) >= 6 ? 32 : 64;
  static const char key[] = "\xaf.wavefront_size" /* msgpack: a 15-byte string */;
  unsigned waves = 0;
  for (uint64_t i = 0; i + sizeof key <= size; i++)
    if (memcmp(e + i, key, sizeof key - 1) == 0) {
      const unsigned w = e[i + sizeof key - 1];
      if (w != want_wave) {
        printf("FAIL: %s: a kernel of the %s code object has wavefront size %u, not %u\n", what, arch, w,
               want_wave);
        return 1;
      }
      waves++;
    }
  if (waves < nk) {
    printf("FAIL: %s: the %s code object's metadata gives a wavefront size for %u of %u kernels\n", what,
           arch, waves, nk);
    return 1;
  }
  int bad = 0;
  for (unsigned k = 0; k < nk; k++)
    if (!elf_has_symbol(e, size, kernels[k])) {
      printf("FAIL: %s: the %s code object has no kernel %s\n", what, arch, kernels[k]);
      bad++;
    }
  return bad;
}

/* clang-offload-bundler --list of the bundle must name hipv4-...--<arch> for every arch. */
static int check_with_bundler(const char *what, const unsigned char *data, uint64_t size, int narch, char **archs) {
  const char *bundler = getenv("KK_CLANG_OFFLOAD_BUNDLER");
  if (!bundler || !*bundler)
    return 0;
  char path[] = "/tmp/kk-hip-bundle-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) {
    perror("mkstemp");
    return 1;
  }
  FILE *f = fdopen(fd, "wb");
  if (!f || fwrite(data, 1, (size_t)size, f) != size) {
    printf("FAIL: cannot write %s\n", path);
    if (f)
      fclose(f);
    unlink(path);
    return 1;
  }
  fclose(f);
  char cmd[1024];
  snprintf(cmd, sizeof cmd, "'%s' --list --type=o --input=%s", bundler, path);
  FILE *p = popen(cmd, "r");
  char listed[4096] = "", line[512];
  while (p && fgets(line, sizeof line, p))
    strncat(listed, line, sizeof listed - strlen(listed) - 1);
  int rc = p ? pclose(p) : -1;
  unlink(path);
  if (rc != 0) {
    printf("FAIL: %s: %s --list failed (%d)\n", what, bundler, rc);
    return 1;
  }
  int bad = 0;
  for (int a = 0; a < narch; a++) {
    char want[128];
    snprintf(want, sizeof want, "--%s\n", archs[a]);
    if (!strstr(listed, want)) {
      printf("FAIL: %s: clang-offload-bundler lists no code object for %s:\n%s", what, archs[a], listed);
      bad++;
    }
  }
  return bad;
}

/* Checks a clang offload bundle: a code object for each of the narch archs, each defining the nk kernels;
 * returns the number of problems found (printed), or prints what was found. */
static int check_bundle(const char *what, const unsigned char *b, uint64_t bsize, int narch, char **archs,
                        unsigned nk, const char *const *kernels) {
  if (bsize < 32 || memcmp(b, BUNDLE_MAGIC, 24) != 0) {
    printf("FAIL: %s: the HIP image is not a clang offload bundle\n", what);
    return 1;
  }
  const uint64_t n = rd64(b + 24);
  int bad = 0;
  for (int a = 0; a < narch; a++) {
    int found = 0;
    uint64_t at = 32;
    for (uint64_t e = 0; e < n && at + 24 <= bsize; e++) {
      const uint64_t off = rd64(b + at), size = rd64(b + at + 8), tlen = rd64(b + at + 16);
      if (at + 24 + tlen > bsize || off + size > bsize) {
        printf("FAIL: %s: bundle entry %llu runs past the image\n", what, (unsigned long long)e);
        bad++;
        break;
      }
      char triple[256];
      snprintf(triple, sizeof triple, "%.*s", (int)(tlen < 255 ? tlen : 255), (const char *)b + at + 24);
      at += 24 + tlen;
      const char *dash = strstr(triple, "--");
      if (strncmp(triple, "hip", 3) != 0 || !dash)
        continue;
      char arch[64];
      snprintf(arch, sizeof arch, "%.*s", (int)strcspn(dash + 2, ":"), dash + 2); /* gfx90a:xnack- -> gfx90a */
      if (strcmp(arch, archs[a]) != 0)
        continue;
      found = 1;
      bad += check_code_object(what, nk, kernels, archs[a], b + off, size);
    }
    if (!found) {
      printf("FAIL: %s: the HIP bundle has no code object for %s\n", what, archs[a]);
      bad++;
    }
  }
  bad += check_with_bundler(what, b, bsize, narch, archs);
  if (!bad) {
    printf("ok: %s: %u kernels in code objects for", what, nk);
    for (int a = 0; a < narch; a++)
      printf(" %s", archs[a]);
    printf(" (%llu bytes)%s\n", (unsigned long long)bsize,
           getenv("KK_CLANG_OFFLOAD_BUNDLER") && *getenv("KK_CLANG_OFFLOAD_BUNDLER") ? ", as clang-offload-bundler lists"
                                                                                     : "");
  }
  return bad;
}

#ifdef KK_TEST_HIP_REMAP_IMAGE
/* the hip plugin's copy-between-layouts kernels (plugins/hip/hip_remap_image.c, generated) */
extern const unsigned char hip_remap_image[];
extern const unsigned long hip_remap_image_size;
static const char *const g_remap_kernels[] = {"kk_remap_tile_1", "kk_remap_tile_2", "kk_remap_tile_4",
                                              "kk_remap_tile_8", "kk_remap_tile_16", "kk_remap_any_1",
                                              "kk_remap_any_2", "kk_remap_any_4", "kk_remap_any_8",
                                              "kk_remap_any_16"};
#endif

int main(int argc, char **argv) {
  if (argc < 2) {
    printf("FAIL: usage: %s ARCH...\n", argv[0]);
    return 1;
  }
  int failed = 0, checked = 0;
  for (int m = 0; m < g_nmods; m++) {
    const kk_module_t *mod = g_mods[m];
    if (!mod->targets || !strstr(mod->targets, "hip")) {
      printf("FAIL: %s was not built for the hip target (targets: %s)\n", mod->source_name,
             mod->targets ? mod->targets : "none");
      failed++;
      continue;
    }
    const kk_image_t *im = NULL;
    for (uint32_t i = 0; i < mod->image_count; i++)
      if (mod->images[i].format && strcmp(mod->images[i].format, "hip-codeobject") == 0)
        im = &mod->images[i];
    if (!im) {
      printf("FAIL: %s has no hip-codeobject image\n", mod->source_name);
      failed++;
      continue;
    }
    const char **names = malloc(sizeof *names * (mod->kernel_count ? mod->kernel_count : 1));
    char *syms = malloc((size_t)300 * (mod->kernel_count ? mod->kernel_count : 1));
    if (!names || !syms) {
      printf("FAIL: out of memory\n");
      return 1;
    }
    for (uint32_t k = 0; k < mod->kernel_count; k++) {
      snprintf(syms + (size_t)300 * k, 300, "kk_k_%s", mod->kernels[k]->name);
      names[k] = syms + (size_t)300 * k;
    }
    int bad = check_bundle(mod->source_name, im->data, im->size, argc - 1, argv + 1, mod->kernel_count, names);
    free(names), free(syms);
    failed += bad;
    checked++;
  }
#ifdef KK_TEST_HIP_REMAP_IMAGE
  failed += check_bundle("plugins/gpu/gpu_remap.cu (the hip plugin's image)", hip_remap_image, hip_remap_image_size,
                         argc - 1, argv + 1, sizeof g_remap_kernels / sizeof *g_remap_kernels, g_remap_kernels);
#endif
  if (!checked && !failed) {
    printf("FAIL: no kernel module was registered\n");
    return 1;
  }
  return failed ? 1 : 0;
}
