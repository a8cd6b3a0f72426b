# examples/minibude/local.mk -- the miniBUDE mini-app (docs/apps.md): built with the tree, checked on every backend here by tests/minibude.sh.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
noinst_PROGRAMS += examples/minibude/minibude
examples_minibude_minibude_SOURCES = examples/minibude/bude.c examples/minibude/bude.h
examples_minibude_minibude_LDADD = examples/minibude/bude.kk.o libkk.la -lm
EXTRA_examples_minibude_minibude_DEPENDENCIES = examples/minibude/bude.kk.o
# Host compiler only (kkcc passes -f* and -m* to it alone; docs/apps.md says why each):
# -fno-math-errno -fno-trapping-math: sqrtf without errno and selects without trap semantics, so
#   that the host compiler vectorizes the pose loop;
# -mprefer-vector-width=512: 512-bit vectors where the target has AVX-512, which GCC's and Clang's
#   tuning for Intel's AVX-512 cores (what -march=native picks there) would otherwise halve;
# -fno-loop-unroll-and-jam: at -O3, GCC's unroll-and-jam of the atom loops makes the pose loop slower.
# The last two are added only where the compiler accepts them (GCC and Clang on x86-64 take the
# first; Clang has not the second).
MINIBUDE_HOST_TRY = -mprefer-vector-width=512 -fno-loop-unroll-and-jam
examples/minibude/bude.kk.o: examples/minibude/bude.kk.c examples/minibude/bude.h examples/minibude/bude_fasten.h examples/minibude/bude_family.h $(KKCC_DEPS)
	@$(MKDIR_P) $(@D)
	$(KKCC_V)flags=; for f in $(MINIBUDE_HOST_TRY); do \
	  if $(CC) -Werror $$f -x c -c /dev/null -o /dev/null >/dev/null 2>&1; then flags="$$flags $$f"; fi; \
	done; \
	$(KKCC) $(AM_CFLAGS) $(CFLAGS) -fno-math-errno -fno-trapping-math $$flags -c $(srcdir)/examples/minibude/bude.kk.c -o $@
CLEANFILES += examples/minibude/bude.kk.o
EXTRA_DIST += examples/minibude/bude.kk.c examples/minibude/bude_fasten.h examples/minibude/bude_family.h examples/minibude/Makefile \
	examples/minibude/data/bm1-1k/README.md examples/minibude/data/bm1-1k/make-subset.sh \
	examples/minibude/data/bm1-1k/protein.in examples/minibude/data/bm1-1k/ligand.in \
	examples/minibude/data/bm1-1k/forcefield.in examples/minibude/data/bm1-1k/poses.in \
	examples/minibude/data/bm1-1k/ref_energies.out
dist_check_SCRIPTS += tests/minibude.sh
TESTS += tests/minibude.sh
EXTRA_DIST += bench/minibude.sh maint/gpu-minibude.sh
