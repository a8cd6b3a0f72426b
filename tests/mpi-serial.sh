#!/bin/sh
# tests/mpi-serial.sh -- the MPI suite on the serial backend with 1, 2 and 4 ranks (tests/mpi-suite.sh).
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
exec /bin/sh "${top_srcdir:-.}/tests/mpi-suite.sh" serial
