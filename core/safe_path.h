/* core/safe_path.h -- may kk take code or cached results from a path?  The ownership and permission rule of docs/security.md, one copy for libkk and the plugins that keep caches on disk. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#ifndef KK_PLUGINS_SAFE_PATH_H
#define KK_PLUGINS_SAFE_PATH_H

#include <stddef.h>
#include <sys/types.h>

typedef enum kks_verdict {
  KKS_TRUSTED, /* the path exists and passes */
  KKS_MISSING, /* a component does not exist or cannot be examined: nothing is loaded from it */
  KKS_REFUSED  /* someone other than root, the user or `owner` could change what is there */
} kks_verdict_t;

/* Checks `path` (a directory or a file; relative paths start at the working
 * directory) and every directory above it, following symbolic links as the
 * kernel does:
 *   - every directory, file and symbolic link on the way is owned by root,
 *     by `euid` or by `owner` ((uid_t)-1: nobody else);
 *   - no directory above the path is writable by others unless it has the
 *     sticky bit (as /tmp), and the path itself is not writable by others
 *     at all (a sticky directory still lets anyone add a file to it).
 * Group-writable directories pass: the group is the owner's choice.
 * `why` (may be NULL) gets the reason for KKS_MISSING and KKS_REFUSED, naming
 * the component: "/opt/x is writable by others (mode 0777)".  Thread-safe;
 * it allocates nothing. */
kks_verdict_t kks_check_as(const char *path, uid_t euid, uid_t owner, char *why, size_t why_size);

/* kks_check_as for the effective user of this process. */
kks_verdict_t kks_check(const char *path, uid_t owner, char *why, size_t why_size);

/* The owner of the file that holds the calling copy of this code (libkk, or
 * the plugin the code is linked into), (uid_t)-1 when the loader cannot say.
 * Trusting that user adds no exposure: it can already replace the code that
 * runs. */
uid_t kks_code_owner(void);

#endif
