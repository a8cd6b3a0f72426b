/* core/probe.c -- plugins that crash or hang while loaded or initialised: probed once in a helper process, the verdict cached by path, size and mtime. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "paths.h"
#include "probe.h"
#include "safe_path.h"
#include "state.h"
#include "status.h"

extern char **environ;

#ifndef KK_PROBE_HELPER
#define KK_PROBE_HELPER "/usr/local/libexec/kk/kk-plugin-probe"
#endif

/* The first line of a cache entry; a different one (an older format) is a miss. */
#define ENTRY_MAGIC "kk plugin probe 1"
#define DEFAULT_TIMEOUT_S 30
#define MAX_TIMEOUT_S 86400
/* After this long a probe says which plugin it waits for (once). */
#define PATIENCE_MS 2000

/* Warnings this file gives at most once per process. */
static atomic_bool g_said_helper, g_said_timeout, g_said_cache;

/* True the first time it is asked while warnings are on. */
static bool first_time(atomic_bool *said) { return !kk__warnings_disabled && !atomic_exchange(said, true); }

/* ---- where things are ---------------------------------------------------------------------- */

const char *kk__probe_helper(void) {
  const char *h = getenv("KK_PLUGIN_PROBE_HELPER");
  if (h && *h)
    return h;
  /* the uninstalled libkk goes with its tree's helper, as with its plugins */
  const char *tree = kk__build_tree_probe_helper();
  return tree ? tree : KK_PROBE_HELPER;
}

/* Seconds before a probed plugin counts as hung: KK_PLUGIN_PROBE_TIMEOUT, or
 * the default when it is unset or not a number of seconds (said once). */
static long probe_timeout(void) {
  const char *tv = getenv("KK_PLUGIN_PROBE_TIMEOUT");
  if (!tv || !*tv)
    return DEFAULT_TIMEOUT_S;
  char *end;
  errno = 0;
  long t = strtol(tv, &end, 10);
  if (errno == 0 && end != tv && *end == '\0' && t >= 1 && t <= MAX_TIMEOUT_S)
    return t;
  if (first_time(&g_said_timeout))
    kk__warn("KK_PLUGIN_PROBE_TIMEOUT='%s' ignored: not a whole number of seconds from 1 to %d; the default, %d s, "
             "is used",
             tv, MAX_TIMEOUT_S, DEFAULT_TIMEOUT_S);
  return DEFAULT_TIMEOUT_S;
}

/* Makes dir and its parents (mode 0700 for what it creates); 0 on success. */
static int make_dirs(const char *dir) {
  char p[1024];
  if (snprintf(p, sizeof p, "%s", dir) >= (int)sizeof p)
    return -1;
  for (char *s = p + 1; *s; s++)
    if (*s == '/') {
      *s = '\0';
      if (mkdir(p, 0700) != 0 && errno != EEXIST)
        return -1;
      *s = '/';
    }
  return mkdir(p, 0700) != 0 && errno != EEXIST ? -1 : 0;
}

/* A directory we own and may write, created if need be, that nobody else
 * can change (docs/security.md): a forged verdict would let a crashing
 * plugin in, or keep a good one out. */
static bool usable_dir(const char *dir) {
  struct stat sb;
  if (make_dirs(dir) != 0 || lstat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode) || sb.st_uid != geteuid())
    return false;
  char why[1200];
  if (kks_check(dir, kks_code_owner(), why, sizeof why) == KKS_REFUSED) {
    if (first_time(&g_said_cache))
      kk__warn("plugin probe cache %s refused: %s; another cache directory is used (docs/security.md)", dir, why);
    return false;
  }
  return access(dir, W_OK | X_OK) == 0;
}

/* The cache directory: $KK_PLUGIN_CACHE_DIR, $XDG_CACHE_HOME/kk/plugins,
 * ~/.cache/kk/plugins, then (a read-only home) $TMPDIR/kk-<uid>/plugins.
 * false when none can be written. */
static bool cache_dir(char *out, size_t size) {
  const char *env = getenv("KK_PLUGIN_CACHE_DIR"), *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
  const char *tmp = getenv("TMPDIR");
  char cand[4][1024];
  int n = 0;
  if (env && *env)
    kk__snprintf(cand[n++], sizeof cand[0], "%s", env);
  if (xdg && *xdg == '/')
    kk__snprintf(cand[n++], sizeof cand[0], "%s/kk/plugins", xdg);
  if (home && *home == '/')
    kk__snprintf(cand[n++], sizeof cand[0], "%s/.cache/kk/plugins", home);
  kk__snprintf(cand[n++], sizeof cand[0], "%s/kk-%u/plugins", tmp && *tmp == '/' ? tmp : "/tmp", (unsigned)geteuid());
  for (int i = 0; i < n; i++)
    if (strlen(cand[i]) < 900 && strlen(cand[i]) < size && usable_dir(cand[i])) { /* (a cut path is no path) */
      memcpy(out, cand[i], strlen(cand[i]) + 1);
      return true;
    }
  return false;
}

static uint64_t fnv1a(const char *s) {
  uint64_t h = 1469598103934665603ull;
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

/* What a verdict is valid for: the file (device, inode, size, mtime) and
 * this kk (its version and plugin ABI). */
static void entry_key(const struct stat *sb, char *key, size_t size) {
  snprintf(key, size, "%llu %llu %lld %lld.%09ld kk %s abi %u", (unsigned long long)sb->st_dev,
           (unsigned long long)sb->st_ino, (long long)sb->st_size, (long long)sb->st_mtim.tv_sec,
           sb->st_mtim.tv_nsec, KK_VERSION_STRING, (unsigned)KK_PLUGIN_ABI_VERSION);
}

/* ---- the cache entry of one plugin ----------------------------------------------------------------- */

typedef enum verdict { V_NONE, V_OK, V_FAILED } verdict_t;

/* Reads an entry: V_NONE unless its path and key are this file's. */
static verdict_t read_entry(const char *file, const char *path, const char *key, char *reason, size_t rsize) {
  FILE *f = fopen(file, "re");
  if (!f)
    return V_NONE;
  char line[4096], want_path[4096 + 8], want_key[512];
  snprintf(want_path, sizeof want_path, "path %s\n", path);
  snprintf(want_key, sizeof want_key, "key %s\n", key);
  verdict_t v = V_NONE;
  if (fgets(line, sizeof line, f) && strcmp(line, ENTRY_MAGIC "\n") == 0 && fgets(line, sizeof line, f) &&
      strcmp(line, want_path) == 0 && fgets(line, sizeof line, f) && strcmp(line, want_key) == 0 &&
      fgets(line, sizeof line, f)) {
    if (strcmp(line, "verdict ok\n") == 0)
      v = V_OK;
    else if (strcmp(line, "verdict failed\n") == 0 && fgets(line, sizeof line, f) && strncmp(line, "reason ", 7) == 0) {
      line[strcspn(line, "\n")] = '\0';
      kk__snprintf(reason, rsize, "%s", line + 7);
      v = V_FAILED;
    }
  }
  fclose(f);
  return v;
}

/* Writes an entry atomically: a temporary file renamed over the old one, so
 * that a process reading it at the same time sees the old or the new one. */
static void write_entry(const char *file, const char *path, const char *key, verdict_t v, const char *reason) {
  char tmp[1200];
  kk__snprintf(tmp, sizeof tmp, "%s.%ld.tmp", file, (long)getpid());
  FILE *f = fopen(tmp, "we");
  if (!f) {
    kk__debug("plugin probe cache: cannot write %s: %s", tmp, strerror(errno));
    return;
  }
  fprintf(f, ENTRY_MAGIC "\npath %s\nkey %s\nverdict %s\n", path, key, v == V_OK ? "ok" : "failed");
  if (v == V_FAILED)
    fprintf(f, "reason %s\n", reason);
  bool ok = fflush(f) == 0 && fsync(fileno(f)) == 0;
  ok = fclose(f) == 0 && ok;
  if (!ok || rename(tmp, file) != 0) {
    kk__debug("plugin probe cache: cannot write %s: %s", file, strerror(errno));
    unlink(tmp);
  }
}

/* ---- the probe ---------------------------------------------------------------------------------- */

static const char *signal_name(int sig) {
  const char *d = strsignal(sig);
  return d ? d : "unknown signal";
}

/* Runs the helper on one plugin; V_OK when it reported every stage done,
 * else V_FAILED with the reason (signal, exit status or timeout, and the
 * stage it was in, and the last line it printed on stderr). */
/* A close-on-exec pipe whose descriptors are above 2 and 3, where the
 * child's dup2 puts them: dup2 onto the same number would keep the
 * close-on-exec flag. */
static int high_pipe(int fds[2]) {
  int p[2];
  if (pipe2(p, O_CLOEXEC) != 0)
    return -1;
  for (int i = 0; i < 2; i++) {
    fds[i] = fcntl(p[i], F_DUPFD_CLOEXEC, 10);
    close(p[i]);
  }
  if (fds[0] < 0 || fds[1] < 0) {
    if (fds[0] >= 0)
      close(fds[0]);
    if (fds[1] >= 0)
      close(fds[1]);
    return -1;
  }
  return 0;
}

static verdict_t run_probe(const char *helper, const char *path, const char *name, char *reason, size_t rsize) {
  int st_pipe[2], err_pipe[2];
  if (high_pipe(st_pipe) != 0)
    return V_NONE;
  if (high_pipe(err_pipe) != 0) {
    close(st_pipe[0]), close(st_pipe[1]);
    return V_NONE;
  }
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, st_pipe[1], 3); /* stages on fd 3 */
  posix_spawn_file_actions_adddup2(&fa, err_pipe[1], 2);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
  char *argv[] = {(char *)helper, (char *)path, (char *)name, NULL};
  pid_t pid;
  int rc = posix_spawn(&pid, helper, &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  close(st_pipe[1]);
  close(err_pipe[1]);
  if (rc != 0) {
    close(st_pipe[0]), close(err_pipe[0]);
    kk__debug("plugin probe: cannot run %s: %s", helper, strerror(rc));
    return V_NONE;
  }
  long timeout_s = probe_timeout();
  struct timespec t0;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  char stage[64] = "loading", stages[256] = "", err[512] = "";
  size_t slen = 0, elen = 0;
  bool open_st = true, open_err = true, timed_out = false, said_waiting = false;
  while (open_st || open_err) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    long spent_ms = (now.tv_sec - t0.tv_sec) * 1000 + (now.tv_nsec - t0.tv_nsec) / 1000000;
    long left_ms = timeout_s * 1000 - spent_ms;
    /* a first start that stalls says why (before the verdict, however late
     * this process was woken) */
    if (!said_waiting && spent_ms >= PATIENCE_MS && timeout_s * 1000 > PATIENCE_MS) {
      said_waiting = true;
      kk__warn("waiting for the plugin %s: its probe in a helper process has not finished after %d s; it counts "
               "as hung after %ld s (KK_PLUGIN_PROBE_TIMEOUT)",
               path, PATIENCE_MS / 1000, timeout_s);
    }
    if (left_ms <= 0) {
      timed_out = true;
      break;
    }
    long wait_ms = left_ms > 1000 ? 1000 : left_ms;
    if (spent_ms < PATIENCE_MS && PATIENCE_MS - spent_ms < wait_ms)
      wait_ms = PATIENCE_MS - spent_ms;
    struct pollfd pf[2] = {{open_st ? st_pipe[0] : -1, POLLIN, 0}, {open_err ? err_pipe[0] : -1, POLLIN, 0}};
    int n = poll(pf, 2, (int)wait_ms);
    if (n < 0 && errno != EINTR)
      break;
    if (pf[0].revents) {
      ssize_t got = read(st_pipe[0], stages + slen, sizeof stages - 1 - slen);
      if (got <= 0)
        open_st = false;
      else
        slen += (size_t)got;
      stages[slen] = '\0';
      if (slen == sizeof stages - 1)
        open_st = false; /* a helper never says this much */
    }
    if (pf[1].revents) {
      char buf[512];
      ssize_t got = read(err_pipe[0], buf, sizeof buf);
      if (got <= 0)
        open_err = false;
      else /* keep the last bytes */
        for (ssize_t i = 0; i < got; i++) {
          if (elen == sizeof err - 1) {
            memmove(err, err + 256, elen - 256);
            elen -= 256;
          }
          err[elen++] = buf[i];
        }
      err[elen] = '\0';
    }
  }
  close(st_pipe[0]);
  close(err_pipe[0]);
  if (timed_out)
    kill(pid, SIGKILL);
  int ws = 0;
  while (waitpid(pid, &ws, 0) < 0 && errno == EINTR)
    ;
  /* the last stage the helper began: lines "stage NAME" */
  for (char *p = stages; (p = strstr(p, "stage ")); p += 6) {
    size_t k = strcspn(p + 6, "\n");
    snprintf(stage, sizeof stage, "%.*s", (int)(k < sizeof stage - 1 ? k : sizeof stage - 1), p + 6);
  }
  if (!timed_out && strstr(stages, "done\n"))
    return V_OK;
  /* the last line of its stderr, if it said something */
  while (elen && (err[elen - 1] == '\n' || err[elen - 1] == ' '))
    err[--elen] = '\0';
  const char *last = strrchr(err, '\n');
  last = last ? last + 1 : err;
  char how[160];
  if (timed_out)
    snprintf(how, sizeof how, "hung: no answer after %ld s", timeout_s);
  else if (WIFSIGNALED(ws))
    snprintf(how, sizeof how, "crashed: signal %d (%s)", WTERMSIG(ws), signal_name(WTERMSIG(ws)));
  else
    snprintf(how, sizeof how, "failed: exit status %d", WIFEXITED(ws) ? WEXITSTATUS(ws) : -1);
  kk__snprintf(reason, rsize, "%s in %s when probed in a helper process%s%s%s", how, stage, *last ? " (it said: " : "",
               last, *last ? ")" : "");
  return V_FAILED;
}

/* ---- the loader's question ---------------------------------------------------------------------- */

/* Is the helper there, and may it be run?  When not, the plugin is loaded
 * unprobed, and the user hears of it once. */
static bool helper_ok(const char *helper, const char *path) {
  if (access(helper, X_OK) != 0) {
    int e = errno;
    kk__debug("plugin %s: not probed: the helper %s is missing (%s)", path, helper, strerror(e));
    if (first_time(&g_said_helper))
      kk__warn("the plugin probe's helper %s is missing (%s): plugins load unprobed, and one that crashes or hangs "
               "while loading takes the program with it (docs/backends.md)",
               helper, strerror(e));
    return false;
  }
  char why[1200];
  if (kks_check(helper, kks_code_owner(), why, sizeof why) == KKS_REFUSED) {
    kk__debug("plugin %s: not probed: the helper %s is refused (%s)", path, helper, why);
    if (first_time(&g_said_helper))
      kk__warn("the plugin probe's helper %s refused: %s; plugins load unprobed (docs/security.md)", helper, why);
    return false;
  }
  return true;
}

bool kk__probe_plugin(const char *path, const char *name, char *why, size_t why_size) {
  if (!kk__g.config.plugin_probe)
    return true;
  probe_timeout(); /* a bad value is said even when every verdict is cached */
  const char *helper = kk__probe_helper();
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return true; /* the loader says what is wrong with it */
  char dir[1024], file[1200], lockf[1200], key[512], reason[768] = "";
  entry_key(&sb, key, sizeof key);
  bool cached = cache_dir(dir, sizeof dir);
  if (!cached) {
    if (!helper_ok(helper, path))
      return true;
    kk__debug("plugin %s: no writable cache directory: probed every time", path);
    verdict_t v = run_probe(helper, path, name, reason, sizeof reason);
    if (v == V_FAILED)
      kk__snprintf(why, why_size, "%s", reason);
    return v != V_FAILED;
  }
  kk__snprintf(file, sizeof file, "%s/%016llx.probe", dir, (unsigned long long)fnv1a(path));
  verdict_t v = read_entry(file, path, key, reason, sizeof reason);
  if (v == V_NONE) {
    /* One process probes, the others (MPI ranks starting together) wait for
     * its verdict: the entry is read again under the lock. */
    kk__snprintf(lockf, sizeof lockf, "%s.lock", file);
    int lfd = open(lockf, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (lfd >= 0)
      while (flock(lfd, LOCK_EX) != 0 && errno == EINTR)
        ;
    v = read_entry(file, path, key, reason, sizeof reason);
    if (v == V_NONE && helper_ok(helper, path)) {
      kk__debug("plugin %s: probing it in %s", path, helper);
      v = run_probe(helper, path, name, reason, sizeof reason);
      if (v != V_NONE)
        write_entry(file, path, key, v, reason);
    }
    if (lfd >= 0)
      close(lfd); /* releases the lock */
  }
  if (v == V_FAILED) {
    kk__snprintf(why, why_size, "%s; kk skips it until the file changes (cache %s)", reason, file);
    return false;
  }
  return true;
}
