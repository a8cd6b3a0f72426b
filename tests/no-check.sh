#!/bin/sh
# tests/no-check.sh -- stands in for the Check suites when configure did not find Check.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
echo "the test suites need Check (Debian: apt-get install check), then re-run ./configure" >&2
exit 1
