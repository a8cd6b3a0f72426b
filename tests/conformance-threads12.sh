#!/bin/sh
# tests/conformance-threads12.sh -- the graph tests of the conformance suite on the threads backend built against plugin ABI 1.2 (tests/oldabi/threads12.c): without the graph members, every graph must run through the core's replay.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
KOKKOS_PLUGIN_PATH="${top_builddir:-.}/tests/oldabi/.libs${KOKKOS_PLUGIN_PATH:+:$KOKKOS_PLUGIN_PATH}"
export KOKKOS_PLUGIN_PATH
CK_RUN_CASE=graphs
export CK_RUN_CASE
# Under AddressSanitizer: LeakSanitizer's tracer misreads glibc's dynamic
# TLS here as on PoCL (tests/lsan-opencl.supp says why); in a build
# without the levelzero plugin it ended the forked graph cases every time
# (2026-12-01).  use_tls=0, with the glibc blocks that it shows.
LSAN_OPTIONS="suppressions=${top_srcdir:-.}/tests/lsan-opencl.supp:use_tls=0${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export LSAN_OPTIONS
exec "${top_builddir:-.}/tests/conformance/conformance" threads12
