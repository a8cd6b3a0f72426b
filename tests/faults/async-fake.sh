#!/bin/sh
# tests/faults/async-fake.sh -- copies and fills queued on the default instance of cuda go on its stream without waiting for it, and kk_instance_wait orders two streams by an event without waiting, checked with the fake libcuda (tests/faults/fake_cuda.c), which counts the plugin's waits for a stream or the context and the streams it makes wait for an event.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
. "${top_srcdir:-.}/tests/faults/fake-cuda-env.sh"
exec "$top/tests/faults/faults" cuda async-fake
