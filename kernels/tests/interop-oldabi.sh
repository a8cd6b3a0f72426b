#!/bin/sh
# kernels/tests/interop-oldabi.sh -- native queues on the threads plugin built against plugin ABI 1.2 (tests/oldabi/threads12.c): refused, naming the plugin's age.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
KOKKOS_PLUGIN_PATH="${top_builddir:-.}/tests/oldabi/.libs${KOKKOS_PLUGIN_PATH:+:$KOKKOS_PLUGIN_PATH}"
export KOKKOS_PLUGIN_PATH
exec "${top_builddir:-.}/tests/check_interop" threads12
