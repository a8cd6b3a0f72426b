#!/bin/sh
# tests/conformance-opencl.sh -- the conformance suite on the opencl backend (PoCL here; skipped, with the reason, when no OpenCL device is usable).
exec "${top_builddir:-.}/tests/conformance/conformance" opencl
