/* tests/mpi/fake_nccl.c -- a stand-in for libnccl.so.2 that kk-mpi's loader opens in the tests: it has NCCL's functions (all, or without ncclSend for FAKE_NCCL_OLD) and reports 2.18.5. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include <stddef.h>
#include <string.h>

/* The NCCL ABI the loader declares (mpi/nccl.c); every call but the version fails. */
typedef struct {
  char internal[128];
} fake_id_t;
enum { FAKE_OK = 0, FAKE_SYSTEM_ERROR = 2 };

int ncclGetVersion(int *v);
int ncclGetUniqueId(fake_id_t *id);
int ncclCommInitRank(void **comm, int n, fake_id_t id, int rank);
int ncclCommDestroy(void *comm);
int ncclCommAbort(void *comm);
int ncclCommGetAsyncError(void *comm, int *e);
const char *ncclGetErrorString(int r);
int ncclGroupStart(void);
int ncclGroupEnd(void);
int ncclRecv(void *b, size_t n, int t, int peer, void *comm, void *stream);
int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *comm, void *stream);
int ncclBroadcast(const void *s, void *r, size_t n, int t, int root, void *comm, void *stream);
int ncclAllGather(const void *s, void *r, size_t n, int t, void *comm, void *stream);

int ncclGetVersion(int *v) {
  *v = 21805;
  return FAKE_OK;
}
int ncclGetUniqueId(fake_id_t *id) {
  memset(id, 0, sizeof *id);
  return FAKE_SYSTEM_ERROR;
}
int ncclCommInitRank(void **comm, int n, fake_id_t id, int rank) {
  (void)n, (void)id, (void)rank;
  *comm = NULL;
  return FAKE_SYSTEM_ERROR;
}
int ncclCommDestroy(void *comm) { return comm ? FAKE_OK : FAKE_SYSTEM_ERROR; }
int ncclCommAbort(void *comm) { return comm ? FAKE_OK : FAKE_SYSTEM_ERROR; }
int ncclCommGetAsyncError(void *comm, int *e) {
  (void)comm;
  *e = FAKE_OK;
  return FAKE_OK;
}
const char *ncclGetErrorString(int r) { return r == FAKE_OK ? "no error" : "unhandled system error (fake NCCL)"; }
int ncclGroupStart(void) { return FAKE_OK; }
int ncclGroupEnd(void) { return FAKE_OK; }
#ifndef FAKE_NCCL_OLD
int ncclSend(const void *b, size_t n, int t, int peer, void *comm, void *stream);
int ncclSend(const void *b, size_t n, int t, int peer, void *comm, void *stream) {
  (void)b, (void)n, (void)t, (void)peer, (void)comm, (void)stream;
  return FAKE_SYSTEM_ERROR;
}
#endif
int ncclRecv(void *b, size_t n, int t, int peer, void *comm, void *stream) {
  (void)b, (void)n, (void)t, (void)peer, (void)comm, (void)stream;
  return FAKE_SYSTEM_ERROR;
}
int ncclAllReduce(const void *s, void *r, size_t n, int t, int op, void *comm, void *stream) {
  (void)s, (void)r, (void)n, (void)t, (void)op, (void)comm, (void)stream;
  return FAKE_SYSTEM_ERROR;
}
int ncclBroadcast(const void *s, void *r, size_t n, int t, int root, void *comm, void *stream) {
  (void)s, (void)r, (void)n, (void)t, (void)root, (void)comm, (void)stream;
  return FAKE_SYSTEM_ERROR;
}
int ncclAllGather(const void *s, void *r, size_t n, int t, void *comm, void *stream) {
  (void)s, (void)r, (void)n, (void)t, (void)comm, (void)stream;
  return FAKE_SYSTEM_ERROR;
}
