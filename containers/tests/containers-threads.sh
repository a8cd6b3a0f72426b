#!/bin/sh
# containers/tests/containers-threads.sh -- every container on the threads backend with 8 threads, more than this machine may have cores, so that inserts, sets and acquires contend (skipped, with the reason, when threads is not available).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/containers/tests/containers-env.sh"
exec "${top_builddir:-.}/containers/tests/check_containers" threads 8
