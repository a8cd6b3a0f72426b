#!/bin/sh
# tests/conformance-threads12.sh -- the graph tests of the conformance suite on the threads backend built against plugin ABI 1.2 (tests/oldabi/threads12.c): without the graph members, every graph must run through the core's replay.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
KOKKOS_PLUGIN_PATH="${top_builddir:-.}/tests/oldabi/.libs${KOKKOS_PLUGIN_PATH:+:$KOKKOS_PLUGIN_PATH}"
export KOKKOS_PLUGIN_PATH
CK_RUN_CASE=graphs
export CK_RUN_CASE
exec "${top_builddir:-.}/tests/conformance/conformance" threads12
