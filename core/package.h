/* core/package.h -- the package that provides each backend, when kk was installed from packages (core/package.c). */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_CORE_PACKAGE_H
#define KK_CORE_PACKAGE_H

#include <stdbool.h>
#include <stddef.h>

/* The packaging-time setting (configure --with-backend-package=PATTERN):
 * PATTERN names a backend's package with %s for the backend
 * ("kk-backend-%s"), and the list holds the backends the build made packages
 * of, comma-separated ("threads,openmp,opencl").  Both are "" when kk was not
 * configured for packages.  Variables, not constants, so that the tests can
 * set them in a build configured without packages. */
extern const char *kk__backend_package_pattern;
extern const char *kk__packaged_backends;

/* Writes into buf the name of the package that provides `backend` and
 * returns true, or returns false (buf untouched) when kk was not configured
 * for packages, no package of this build holds that backend, or the name
 * does not fit. */
bool kk__backend_package(const char *backend, char *buf, size_t size);

/* The name of the i-th backend (0-based) that this build made a package of,
 * into buf; false past the last one or when the name does not fit. */
bool kk__packaged_backend(int i, char *buf, size_t size);

#endif
