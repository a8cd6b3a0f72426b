#!/bin/sh
# tests/tools-threads.sh -- the tools suite on the threads backend (skipped, with the reason, when it is not available).
exec "${top_builddir:-.}/tests/check_tools" threads
