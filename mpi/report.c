/* mpi/report.c -- what libkk-mpi found and decided, as text and JSON: for programs, kk-info, and kk-info --mpi. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "nccl.h"

/* The facts one report holds. */
typedef struct facts {
  char library[MPI_MAX_LIBRARY_VERSION_STRING + 1]; /* first line of MPI_Get_library_version */
  int std_major, std_minor;
  int initialized, thread_level;
  int rank, size;                 /* -1 without a communicator */
  int override;                   /* KK_MPI_GPU_AWARE */
  int check;                      /* the collective check: 1 on, 0 off, -2 KK_MPI_CHECK malformed */
  mpi_backend_t be[2];
  int nbe;
  int nccl;                       /* device views of cuda travel by NCCL (with a communicator) */
} facts_t;

static void gather_facts(const kk_mpi_comm_t *c, facts_t *f) {
  memset(f, 0, sizeof *f);
  int len = 0;
  if (MPI_Get_library_version(f->library, &len) != MPI_SUCCESS)
    snprintf(f->library, sizeof f->library, "unknown");
  f->library[strcspn(f->library, "\n")] = '\0';
  MPI_Get_version(&f->std_major, &f->std_minor);
  int fin = 0;
  MPI_Initialized(&f->initialized);
  MPI_Finalized(&fin);
  if (f->initialized && fin)
    f->initialized = 0;
  f->thread_level = -1;
  if (f->initialized)
    MPI_Query_thread(&f->thread_level);
  f->override = kk_mpi__env_bool("KK_MPI_GPU_AWARE");
  f->check = kk_mpi__env_bool("KK_MPI_CHECK");
  f->check = f->check == -1 ? 1 : f->check;
  if (c) {
    f->nccl = c->nccl_on && c->nccl_comm;
    f->check = c->check;
    f->rank = c->rank;
    f->size = c->size;
    f->nbe = c->nbe;
    memcpy(f->be, c->be, sizeof f->be);
  } else {
    f->rank = f->size = -1;
    /* MPI answers the GPU queries only between MPI_Init and MPI_Finalize */
    kk_mpi__decide(&f->be[f->nbe++], kk_backend_default(), f->override < 0 ? -1 : f->override, f->initialized);
    if (strcmp(kk_backend_host(), kk_backend_default()) != 0)
      kk_mpi__decide(&f->be[f->nbe++], kk_backend_host(), f->override < 0 ? -1 : f->override, f->initialized);
  }
}

static const char *thread_name(int level) {
  switch (level) {
  case MPI_THREAD_SINGLE: return "MPI_THREAD_SINGLE";
  case MPI_THREAD_FUNNELED: return "MPI_THREAD_FUNNELED";
  case MPI_THREAD_SERIALIZED: return "MPI_THREAD_SERIALIZED";
  case MPI_THREAD_MULTIPLE: return "MPI_THREAD_MULTIPLE";
  default: return "unknown";
  }
}

/* How a view in space s travels, per the decisions in f. */
static void space_path(const facts_t *f, kk_space_t *s, char *buf, size_t size) {
  if (kk_space_host_accessible(s)) {
    snprintf(buf, size, "host (MPI reads and writes it)");
    return;
  }
  if (f->nccl && kk_mpi__nccl_serves(kk_space_backend(s))) {
    const char *name = kk_mpi__nccl_lib()->name;
    snprintf(buf, size, "nccl (%s on the instance's stream; MPI for what %s lacks: %s)", name, name,
             f->be[0].aware ? "gpu-aware" : "staged");
    return;
  }
  for (int i = 0; i < f->nbe; i++)
    if (strcmp(f->be[i].name, kk_space_backend(s)) == 0) {
      if (f->be[i].aware)
        snprintf(buf, size, "gpu-aware (device pointers to MPI)");
      else
        snprintf(buf, size, "staged (through %s)", kk_space_name(f->be[i].pinned));
      return;
    }
  snprintf(buf, size, "backend not active");
}

static const char *yes_no(int v) { return v ? "yes" : "no"; }

kk_status_t kk_mpi_print_configuration(const kk_mpi_comm_t *c, FILE *out) {
  if (!out)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_print_configuration: NULL stream");
  if (!kk_is_initialized())
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "kk_mpi_print_configuration: kk is not initialized");
  facts_t f;
  gather_facts(c, &f);
  fprintf(out, "MPI (libkk-mpi %s):\n", kk_mpi_version());
  fprintf(out, "  library:          %s\n", f.library);
  fprintf(out, "  standard:         MPI %d.%d\n", f.std_major, f.std_minor);
  if (f.initialized)
    fprintf(out, "  state:            initialized, %s\n", thread_name(f.thread_level));
  else
    fprintf(out, "  state:            not initialized here (`mpirun -np N kk-info --mpi` reports every rank)\n");
  if (f.rank >= 0)
    fprintf(out, "  communicator:     rank %d of %d\n", f.rank, f.size);
  fprintf(out, "  KK_MPI_GPU_AWARE: %s\n", f.override < 0 ? "unset (ask MPI)" : f.override ? "1" : "0");
  fprintf(out, "  KK_MPI_CHECK:     %s\n",
          f.check == 1   ? "on (collectives compare the ranks' counts and types first)"
          : f.check == 0 ? "off (KK_MPI_CHECK=0)"
                         : "malformed (neither 0 nor 1: kk_mpi_comm_create refuses it)");
  for (int i = 0; i < f.nbe; i++) {
    const mpi_backend_t *b = &f.be[i];
    if (b->is_host)
      fprintf(out, "  backend %-9s host memory: views go to MPI directly, strided ones packed by kk kernels on the host\n",
              b->name);
    else
      fprintf(out, "  backend %-9s GPU-aware: %s (%s)\n", b->name, yes_no(b->aware), b->aware_how);
  }
  for (int i = 0; i < kk_space_count(); i++) {
    char p[256];
    space_path(&f, kk_space_at(i), p, sizeof p);
    fprintf(out, "  space %-14s %s\n", kk_space_name(kk_space_at(i)), p);
  }
  const mpi_nccl_lib_t *L = kk_mpi__nccl_lib();
  char v[32];
  kk_mpi__nccl_version_text(L->version, v, sizeof v);
  if (L->found)
    fprintf(out, "  %s:             %s (%s%s)\n", L->name, v, L->path,
            strcmp(L->setting, "KK_NCCL_LIBRARY") == 0 ? ", from KK_NCCL_LIBRARY" : "");
  else
    fprintf(out, "  %s:             not found: %s\n", L->name, L->why);
  const int want = kk_mpi__env_bool("KK_MPI_NCCL");
  fprintf(out, "  KK_MPI_NCCL:      %s\n",
          want == -1  ? "unset (device collectives on NCCL where it is found and each rank has its own GPU)"
          : want == 1 ? "1 (NCCL required)"
          : want == 0 ? "0 (device collectives on MPI)"
                      : "malformed (neither 0 nor 1: kk_mpi_comm_create refuses it)");
  if (c)
    fprintf(out, "  device collectives: %s (%s)\n", c->nccl_on && c->nccl_comm ? "nccl" : "mpi", c->nccl_how);
  else
    fprintf(out, "  device collectives: decided at kk_mpi_comm_create (`mpirun -np N kk-info --mpi` shows it)\n");
  return ferror(out) ? kk_set_error(KK_ERROR_IO, "kk_mpi_print_configuration: write error") : KK_OK;
}

static void json_str(FILE *out, const char *s) {
  fputc('"', out);
  for (; *s; s++) {
    unsigned char ch = (unsigned char)*s;
    if (ch == '"' || ch == '\\')
      fprintf(out, "\\%c", ch);
    else if (ch < 0x20)
      fprintf(out, "\\u%04x", ch);
    else
      fputc(ch, out);
  }
  fputc('"', out);
}

kk_status_t kk_mpi_print_configuration_json(const kk_mpi_comm_t *c, FILE *out) {
  if (!out)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_print_configuration_json: NULL stream");
  if (!kk_is_initialized())
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "kk_mpi_print_configuration_json: kk is not initialized");
  facts_t f;
  gather_facts(c, &f);
  fprintf(out, "{\"version\": ");
  json_str(out, kk_mpi_version());
  fprintf(out, ", \"library\": ");
  json_str(out, f.library);
  fprintf(out, ", \"standard\": \"%d.%d\", \"initialized\": %s", f.std_major, f.std_minor,
          f.initialized ? "true" : "false");
  if (f.initialized)
    fprintf(out, ", \"thread_level\": \"%s\"", thread_name(f.thread_level));
  if (f.rank >= 0)
    fprintf(out, ", \"rank\": %d, \"size\": %d", f.rank, f.size);
  fprintf(out, ", \"gpu_aware_override\": %s", f.override < 0 ? "null" : f.override ? "1" : "0");
  fprintf(out, ", \"collective_check\": %s", f.check == 1 ? "true" : f.check == 0 ? "false" : "null");
  fprintf(out, ", \"backends\": [");
  for (int i = 0; i < f.nbe; i++) {
    fprintf(out, "%s{\"name\": ", i ? ", " : "");
    json_str(out, f.be[i].name);
    fprintf(out, ", \"host\": %s, \"gpu_aware\": %s, \"why\": ", f.be[i].is_host ? "true" : "false",
            f.be[i].aware ? "true" : "false");
    json_str(out, f.be[i].aware_how);
    fprintf(out, ", \"staging_space\": ");
    json_str(out, kk_space_name(f.be[i].pinned));
    fprintf(out, "}");
  }
  fprintf(out, "], \"spaces\": [");
  for (int i = 0; i < kk_space_count(); i++) {
    kk_space_t *s = kk_space_at(i);
    const char *path = "host";
    if (!kk_space_host_accessible(s)) {
      path = "staged";
      for (int k = 0; k < f.nbe; k++)
        if (strcmp(f.be[k].name, kk_space_backend(s)) == 0 && f.be[k].aware)
          path = "gpu-aware";
      if (f.nccl && kk_mpi__nccl_serves(kk_space_backend(s)))
        path = "nccl";
    }
    fprintf(out, "%s{\"name\": ", i ? ", " : "");
    json_str(out, kk_space_name(s));
    fprintf(out, ", \"path\": \"%s\"}", path);
  }
  const mpi_nccl_lib_t *L = kk_mpi__nccl_lib();
  char v[32];
  kk_mpi__nccl_version_text(L->version, v, sizeof v);
  fprintf(out, "], \"nccl\": {\"found\": %s, \"version\": ", L->found ? "true" : "false");
  if (L->found)
    json_str(out, v);
  else
    fprintf(out, "null");
  fprintf(out, ", \"library\": ");
  json_str(out, L->found ? L->path : "");
  fprintf(out, ", \"why\": ");
  json_str(out, L->found ? "" : L->why);
  const int want = kk_mpi__env_bool("KK_MPI_NCCL");
  fprintf(out, ", \"setting\": %s, \"used\": ", want == -1 ? "\"auto\"" : want == 1 ? "\"1\"" : want == 0 ? "\"0\"" : "null");
  if (c) {
    fprintf(out, "%s, \"how\": ", c->nccl_on && c->nccl_comm ? "true" : "false");
    json_str(out, c->nccl_how);
  } else
    fprintf(out, "null");
  fprintf(out, "}}");
  return ferror(out) ? kk_set_error(KK_ERROR_IO, "kk_mpi_print_configuration_json: write error") : KK_OK;
}

/* ---- every rank, for kk-info --mpi ---------------------------------------- */

/* This rank's block: where it runs, then its configuration. */
static char *rank_block(const kk_mpi_comm_t *c, int json, size_t *len) {
  char *text = NULL;
  FILE *m = open_memstream(&text, len);
  if (!m)
    return NULL;
  char host[256] = "?";
  gethostname(host, sizeof host - 1);
  const char *lr = getenv("OMPI_COMM_WORLD_LOCAL_RANK");
  if (!lr)
    lr = getenv("MPI_LOCALRANKID");
  if (!lr)
    lr = getenv("SLURM_LOCALID");
  kk_device_info_t d = {.struct_size = sizeof d};
  int have_dev = kk_device_get_info(kk_backend_default(), kk_device_id(), &d) == KK_OK;
  if (json) {
    fprintf(m, "{\"rank\": %d, \"host\": ", c->rank);
    json_str(m, host);
    fprintf(m, ", \"local_rank\": %s, \"backend\": ", lr ? lr : "null");
    json_str(m, kk_backend_default());
    fprintf(m, ", \"device\": %d, \"device_name\": ", kk_device_id());
    json_str(m, have_dev ? d.name : "");
    fprintf(m, ", \"mpi\": ");
    kk_mpi_print_configuration_json(c, m);
    fprintf(m, "}");
  } else {
    fprintf(m, "rank %d of %d on %s (local rank %s): backend %s, device %d%s%s%s\n", c->rank, c->size, host,
            lr ? lr : "unknown", kk_backend_default(), kk_device_id(), have_dev ? " (" : "", have_dev ? d.name : "",
            have_dev ? ")" : "");
    kk_mpi_print_configuration(c, m);
  }
  fclose(m);
  return text;
}

kk_status_t kk_mpi_print_ranks(FILE *out, int json) {
  if (!out)
    return kk_set_error(KK_ERROR_INVALID_ARGUMENT, "kk_mpi_print_ranks: NULL stream");
  if (!kk_is_initialized())
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "kk_mpi_print_ranks: kk is not initialized");
  int inited = 0, fin = 0, provided = 0;
  MPI_Initialized(&inited);
  MPI_Finalized(&fin);
  if (fin)
    return kk_set_error(KK_ERROR_NOT_INITIALIZED, "kk_mpi_print_ranks: MPI is already finalized");
  if (!inited) {
    int err = MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided);
    if (err != MPI_SUCCESS)
      return kk_mpi__fail(err, "MPI_Init_thread", "kk_mpi_print_ranks");
  }
  kk_mpi_comm_t *c = NULL;
  kk_status_t st = kk_mpi_comm_create(MPI_COMM_WORLD, &c);
  if (st == KK_OK) {
    size_t len = 0;
    char *mine = rank_block(c, json, &len);
    int n = mine ? (int)len : 0, err;
    int *lens = NULL, *offs = NULL;
    char *all = NULL;
    if (c->rank == 0) {
      lens = calloc((size_t)c->size, sizeof *lens);
      offs = calloc((size_t)c->size, sizeof *offs);
    }
    if ((err = MPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, c->comm)) != MPI_SUCCESS)
      st = kk_mpi__fail(err, "MPI_Gather", "kk_mpi_print_ranks");
    int total = 0;
    if (st == KK_OK && c->rank == 0 && lens && offs) {
      for (int r = 0; r < c->size; r++)
        offs[r] = total, total += lens[r];
      all = malloc((size_t)total + 1);
    }
    if (st == KK_OK &&
        (err = MPI_Gatherv(mine ? mine : "", n, MPI_CHAR, all, lens, offs, MPI_CHAR, 0, c->comm)) != MPI_SUCCESS)
      st = kk_mpi__fail(err, "MPI_Gatherv", "kk_mpi_print_ranks");
    if (st == KK_OK && c->rank == 0) {
      if (!all || !lens)
        st = kk_set_error(KK_ERROR_OUT_OF_MEMORY, "kk_mpi_print_ranks: out of memory");
      else if (json) {
        fputc('[', out);
        for (int r = 0; r < c->size; r++)
          fprintf(out, "%s%.*s", r ? ",\n " : "", lens[r], all + offs[r]);
        fputs("]\n", out);
      } else {
        fwrite(all, 1, (size_t)total, out);
      }
    }
    free(all), free(lens), free(offs), free(mine);
    kk_status_t ds = kk_mpi_comm_destroy(c);
    if (st == KK_OK)
      st = ds;
  }
  if (!inited)
    MPI_Finalize();
  return st;
}
