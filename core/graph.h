/* core/graph.h -- graphs: what kk_finalize needs (core/graph.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_GRAPH_H
#define KK_CORE_GRAPH_H

#include "internal.h"

/* kk_finalize: ends captures and destroys the graphs the program left. */
void kk__graphs_release_all(void);

#endif /* KK_CORE_GRAPH_H */
