/* plugins/opencl/opencl_remap.c -- kk_deep_copy between layouts on the device: the GPU layer's OpenCL C kernels (plugins/gpu/gpu_remap.cl), built from source once per context at the first such copy, and their launch. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "opencl_internal.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Builds the program and its ten kernels; false (and a KK_DEBUG note) when
 * the device cannot: its copies are then staged through the host by the
 * core, correct and slower, never an error for the program. */
static bool build(kkg_ctx_t *g) {
  opencl_ctx_t *c = cl_of(g);
  const opencl_driver_t *cl = &c->cl;
  const opencl_dev_t *d = cl_dev(g);
  const double t0 = now_ms();
  cl_int r = CL_SUCCESS;
  const char *src = opencl_remap_source;
  cl_program prog = cl->clCreateProgramWithSource(c->context, 1, &src, NULL, &r);
  if (!prog) {
    g->hs->log(g->hs->core, KK_LOG_DEBUG,
               "clCreateProgramWithSource of the copy-between-layouts kernels failed (%s): staged through the host",
               kkg_code_name(g, r));
    return false;
  }
  if ((r = cl->clBuildProgram(prog, 1, &d->id, "-cl-std=CL1.2", NULL, NULL)) != CL_SUCCESS) {
    char log[1024] = "";
    cl->clGetProgramBuildInfo(prog, d->id, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
    g->hs->log(g->hs->core, KK_LOG_DEBUG,
               "building the copy-between-layouts kernels for %s failed (%s): staged through the host; %s", d->d.name,
               kkg_code_name(g, r), log);
    cl->clReleaseProgram(prog);
    return false;
  }
  c->remap_prog = prog;
  for (int kind = 0; kind < 2; kind++)
    for (int wl = 0; wl < 5; wl++) {
      char name[32];
      snprintf(name, sizeof name, "kk_remap_%s_%d", kind == KKG_REMAP_KIND_TILE ? "tile" : "any", 1 << wl);
      if (!(c->remap_k[kind][wl] = cl->clCreateKernel(prog, name, &r))) {
        g->hs->log(g->hs->core, KK_LOG_DEBUG, "clCreateKernel(%s) failed (%s): staged through the host", name,
                   kkg_code_name(g, r));
        return false;
      }
    }
  /* a tile needs TILE x ROWS work-items in a group and TILE x (TILE + 1)
   * words of local memory: a word whose tile the device cannot hold is
   * copied one word per work-item */
  size_t any = KKG_REMAP_ANY;
  for (int wl = 0; wl < 5; wl++) {
    size_t wg = 0, ag = 0;
    cl_ulong lmem = 0;
    cl->clGetKernelWorkGroupInfo(c->remap_k[KKG_REMAP_KIND_TILE][wl], d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                 NULL);
    cl->clGetKernelWorkGroupInfo(c->remap_k[KKG_REMAP_KIND_TILE][wl], d->id, CL_KERNEL_LOCAL_MEM_SIZE, sizeof lmem,
                                 &lmem, NULL);
    c->remap.tile_ok[wl] = wg >= KKG_REMAP_TILE * KKG_REMAP_ROWS && lmem <= d->d.smem;
    if (cl->clGetKernelWorkGroupInfo(c->remap_k[KKG_REMAP_KIND_ANY][wl], d->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof ag,
                                     &ag, NULL) == CL_SUCCESS &&
        ag > 0 && ag < any)
      any = ag;
  }
  c->remap_any_local = any;
  g->hs->log(g->hs->core, KK_LOG_DEBUG,
             "copies between layouts run on the device: kernels built for %s in %.0f ms (tiles for words of 1-16 "
             "bytes: %d%d%d%d%d, %zu work-items per group word by word)",
             d->d.name, now_ms() - t0, c->remap.tile_ok[0], c->remap.tile_ok[1], c->remap.tile_ok[2],
             c->remap.tile_ok[3], c->remap.tile_ok[4], any);
  return true;
}

void opencl_remap_release(kkg_ctx_t *g) {
  opencl_ctx_t *c = cl_of(g);
  for (int kind = 0; kind < 2; kind++)
    for (int wl = 0; wl < 5; wl++)
      if (c->remap_k[kind][wl])
        c->cl.clReleaseKernel(c->remap_k[kind][wl]);
  if (c->remap_prog)
    c->cl.clReleaseProgram(c->remap_prog);
  memset(c->remap_k, 0, sizeof c->remap_k);
  c->remap_prog = NULL;
  c->remap.state = 0;
}

kk_status_t opencl_remap(kkg_ctx_t *g, kkg_inst_t *in, const kk_plugin_remap_t *r) {
  opencl_ctx_t *c = cl_of(g);
  kkg_remap_plan_t p;
  kk_status_t pst = kkg_remap_prepare(g, &c->remap, build, opencl_remap_release, r, &p);
  if (pst != KK_OK || p.words == 0)
    return pst;
  /* at most 16 groups per compute unit, each striding over its share of the
   * tiles or words: enough to fill a GPU, and a CPU platform (PoCL), which
   * pays per group, is not handed 2^20 of them */
  const int64_t units = cl_dev(g)->d.units > 0 ? cl_dev(g)->d.units : 1;
  if (p.groups > units * 16)
    p.groups = units * 16;
  cl_kernel k = c->remap_k[p.kind][p.wl];
  const bool tile = p.kind == KKG_REMAP_KIND_TILE;
  const size_t local[2] = {tile ? KKG_REMAP_TILE : c->remap_any_local, KKG_REMAP_ROWS};
  const size_t global[2] = {(size_t)p.groups * local[0], KKG_REMAP_ROWS};
  /* the arguments belong to the cl_kernel: set and enqueued under the lock every launch takes */
  pthread_mutex_lock(&c->launch_lock);
  cl_int e = c->cl.clSetKernelArgSVMPointer(k, 0, r->dst);
  if (e == CL_SUCCESS)
    e = c->cl.clSetKernelArgSVMPointer(k, 1, r->src);
  if (e == CL_SUCCESS)
    e = c->cl.clSetKernelArg(k, 2, sizeof p.a, &p.a);
  if (e == CL_SUCCESS)
    e = c->cl.clEnqueueNDRangeKernel(cl_queue(in), k, tile ? 2 : 1, NULL, global, local, 0, NULL, NULL);
  pthread_mutex_unlock(&c->launch_lock);
  KKG_TRY(g, e, "clEnqueueNDRangeKernel of a copy between layouts (%lld words of %d bytes, %s kernel)",
          (long long)p.words, 1 << p.wl, tile ? "tiled" : "per-word");
  c->cl.clFlush(cl_queue(in));
  return KK_OK;
}
