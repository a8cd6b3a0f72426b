#!/bin/sh
# tests/tools-cuda.sh -- the tools suite on the cuda backend (skipped, with the reason, when it is not available).
exec "${top_builddir:-.}/tests/check_tools" cuda
