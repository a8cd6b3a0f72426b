/* tools/kkcc/kkcc.c -- the kernel compiler driver: one kernel file, every installed target, one object with a registration constructor. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

extern char **environ;

#ifndef KKCC_TARGETDIR
#define KKCC_TARGETDIR "/usr/local/share/kk/targets"
#endif
#ifndef KKCC_INCLUDEDIR
#define KKCC_INCLUDEDIR "/usr/local/include"
#endif
#ifndef KKCC_NM
#define KKCC_NM "nm"
#endif
#ifndef KKCC_LD
#define KKCC_LD "ld"
#endif
#ifndef KKCC_CC
#define KKCC_CC "cc"
#endif
/* the site's default targets (docs/kkcc.md) */
#ifndef KKCC_CONF
#define KKCC_CONF "/usr/local/etc/kk/kkcc.conf"
#endif
/* configure --enable-bounds-check makes --bounds-check kkcc's default */
#ifndef KKCC_BOUNDS_CHECK_DEFAULT
#define KKCC_BOUNDS_CHECK_DEFAULT 0
#endif

/* ---- small helpers ---------------------------------------------------------- */

typedef struct strv {
  char **v;
  int n, cap;
} strv_t;

static void die_oom(void) {
  fprintf(stderr, "kkcc: out of memory\n");
  exit(1);
}

static char *xstrdup(const char *s) {
  char *d = strdup(s ? s : "");
  if (!d)
    die_oom();
  return d;
}

static void sv_push(strv_t *sv, const char *s) {
  if (sv->n + 2 > sv->cap) {
    sv->cap = sv->cap ? 2 * sv->cap : 16;
    sv->v = realloc(sv->v, sizeof *sv->v * (size_t)sv->cap);
    if (!sv->v)
      die_oom();
  }
  sv->v[sv->n++] = xstrdup(s);
  sv->v[sv->n] = NULL;
}

static void sv_free(strv_t *sv) {
  for (int i = 0; i < sv->n; i++)
    free(sv->v[i]);
  free(sv->v);
  memset(sv, 0, sizeof *sv);
}

/* Pushes the whitespace-separated words of s. */
static void sv_push_words(strv_t *sv, const char *s) {
  const char *p = s;
  while (*p) {
    while (*p == ' ' || *p == '\t')
      p++;
    const char *e = p;
    while (*e && *e != ' ' && *e != '\t')
      e++;
    if (e > p) {
      char *w = strndup(p, (size_t)(e - p));
      if (!w)
        die_oom();
      sv_push(sv, w);
      free(w);
    }
    p = e;
  }
}

static char *fmt(const char *f, ...) {
  va_list ap;
  va_start(ap, f);
  char *s = NULL;
  if (vasprintf(&s, f, ap) < 0)
    die_oom();
  va_end(ap);
  return s;
}

static bool g_verbose;

static void print_cmd(char *const *argv) {
  for (int i = 0; argv[i]; i++) {
    const char *a = argv[i];
    bool plain = *a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_=+./,:@%") == strlen(a);
    if (plain)
      fprintf(stderr, "%s%s", i ? " " : "", a);
    else {
      fprintf(stderr, "%s'", i ? " " : "");
      for (const char *c = a; *c; c++)
        if (*c == '\'')
          fputs("'\\''", stderr);
        else
          fputc(*c, stderr);
      fputc('\'', stderr);
    }
  }
  fputc('\n', stderr);
}

/* Runs argv; stdout goes to `out` when not NULL.  Returns the exit status, or
 * -1 when the program could not be started. */
static int run(char *const *argv, const char *out) {
  if (g_verbose)
    print_cmd(argv);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  if (out)
    posix_spawn_file_actions_addopen(&fa, 1, out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid;
  int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) {
    fprintf(stderr, "kkcc: cannot run %s: %s\n", argv[0], strerror(rc));
    return -1;
  }
  int status;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return -1;
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* ---- targets ------------------------------------------------------------------ */

typedef struct target {
  char *name;
  char *kind;         /* "host" or "device" */
  char *format;       /* image format of a device target */
  char *description;
  char *file;
  json_t *json;
  json_t *vars;       /* effective variables (JSON defaults, KKCC_<NAME>, command line) */
} target_t;

static target_t *g_targets;
static int g_ntargets;

static const char *var(const target_t *t, const char *name) {
  json_t *v = json_object_get(t->vars, name);
  return json_is_string(v) ? json_string_value(v) : NULL;
}

static int load_target(const char *path) {
  json_error_t err;
  json_t *j = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
  if (!j) {
    fprintf(stderr, "kkcc: %s:%d:%d: %s\n", path, err.line, err.column, err.text);
    return -1;
  }
  const char *name = json_string_value(json_object_get(j, "name"));
  const char *kind = json_string_value(json_object_get(j, "kind"));
  json_t *compile = json_object_get(j, "compile");
  if (!name || !kind || !json_is_array(compile) || (strcmp(kind, "host") && strcmp(kind, "device"))) {
    fprintf(stderr, "kkcc: %s: a target needs \"name\", \"kind\" (host or device) and a \"compile\" array\n", path);
    json_decref(j);
    return -1;
  }
  g_targets = realloc(g_targets, sizeof *g_targets * (size_t)(g_ntargets + 1));
  if (!g_targets)
    die_oom();
  target_t *t = &g_targets[g_ntargets++];
  t->name = xstrdup(name);
  t->kind = xstrdup(kind);
  t->format = xstrdup(json_string_value(json_object_get(j, "format")));
  t->description = xstrdup(json_string_value(json_object_get(j, "description")));
  t->file = xstrdup(path);
  t->json = j;
  t->vars = json_object();
  json_t *vars = json_object_get(j, "vars");
  const char *k;
  json_t *v;
  json_object_foreach(vars, k, v) {
    char env[128];
    snprintf(env, sizeof env, "KKCC_%s", k);
    const char *e = getenv(env);
    json_object_set_new(t->vars, k, json_string(e ? e : json_string_value(v) ? json_string_value(v) : ""));
  }
  return 0;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static int load_targets(const char *dir) {
  DIR *d = opendir(dir);
  if (!d) {
    fprintf(stderr, "kkcc: target directory %s: %s\n", dir, strerror(errno));
    return -1;
  }
  strv_t files = {0};
  struct dirent *e;
  while ((e = readdir(d))) {
    size_t n = strlen(e->d_name);
    if (n > 5 && strcmp(e->d_name + n - 5, ".json") == 0)
      sv_push(&files, e->d_name);
  }
  closedir(d);
  if (files.n)
    qsort(files.v, (size_t)files.n, sizeof *files.v, cmp_str);
  int rc = 0;
  for (int i = 0; i < files.n && rc == 0; i++) {
    char *p = fmt("%s/%s", dir, files.v[i]);
    rc = load_target(p);
    free(p);
  }
  sv_free(&files);
  if (rc == 0 && g_ntargets == 0) {
    fprintf(stderr, "kkcc: no targets in %s\n", dir);
    rc = -1;
  }
  return rc;
}

static target_t *find_target(const char *name) {
  for (int i = 0; i < g_ntargets; i++)
    if (strcmp(g_targets[i].name, name) == 0)
      return &g_targets[i];
  return NULL;
}

/* ---- the command of one target --------------------------------------------- */

typedef struct job {
  const char *input;
  const char *output;
  strv_t *flags;        /* user flags for this target */
  const char *extra;    /* one more define, or NULL */
} job_t;

/* Text of ${NAME} for a target and job; NULL when unknown. */
static const target_t *g_host;

/* --bounds-check: KK_BOUNDS_CHECK for the targets whose recipe checks bounds */
static bool g_bounds = KKCC_BOUNDS_CHECK_DEFAULT;

static bool checks_bounds(const target_t *t) { return json_is_true(json_object_get(t->json, "bounds_check")); }

static const char *value_of(const target_t *t, const job_t *j, const char *name, const char *includedir) {
  if (strcmp(name, "HOST_CC") == 0)
    return g_host ? var(g_host, "CC") : KKCC_CC;
  if (strcmp(name, "INPUT") == 0)
    return j->input;
  if (strcmp(name, "OUTPUT") == 0)
    return j->output;
  if (strcmp(name, "INCLUDEDIR") == 0)
    return includedir;
  return var(t, name);
}

/* Expands one "compile" element into argv words. */
static int expand_arg(const target_t *t, const job_t *j, const char *arg, const char *includedir, strv_t *out) {
  /* a whole-argument list variable */
  if (strcmp(arg, "${FLAGS}") == 0) {
    for (int i = 0; i < j->flags->n; i++)
      sv_push(out, j->flags->v[i]);
    if (j->extra)
      sv_push(out, j->extra);
    if (g_bounds && checks_bounds(t))
      sv_push(out, "-DKK_BOUNDS_CHECK");
    return 0;
  }
  if (strcmp(arg, "${ARCH_FLAGS}") == 0 || strcmp(arg, "${PTX_FLAGS}") == 0) {
    /* one template per architecture in ${ARCHS} ("{N}" its number, "{ARCH}" its
     * name); PTX_FLAGS only for the newest, whose PTX later GPUs can JIT */
    bool ptx = strcmp(arg, "${PTX_FLAGS}") == 0;
    json_t *each = json_object_get(t->json, ptx ? "ptx_flags" : "arch_flags");
    const char *archs = var(t, "ARCHS");
    if (!json_is_array(each) || !archs)
      return 0;
    char *list = xstrdup(archs);
    char newest[64] = "";
    long best = -1;
    for (char *save = NULL, *a = strtok_r(list, ", ", &save); a; a = strtok_r(NULL, ", ", &save)) {
      long num = strtol(a + strcspn(a, "0123456789"), NULL, 10);
      if (num > best)
        best = num, snprintf(newest, sizeof newest, "%s", a);
    }
    free(list);
    const char *ptx_arch = ptx ? var(t, "PTX_ARCH") : NULL; /* --<target>-ptx=ARCH|none */
    if (ptx_arch && strcmp(ptx_arch, "none") == 0)
      return 0;
    list = xstrdup(ptx ? (ptx_arch && *ptx_arch ? ptx_arch : newest) : archs);
    for (char *save = NULL, *a = strtok_r(list, ", ", &save); a; a = strtok_r(NULL, ", ", &save)) {
      const char *num = a + strcspn(a, "0123456789");
      size_t i;
      json_t *tmpl;
      json_array_foreach(each, i, tmpl) {
        const char *s = json_string_value(tmpl);
        char buf[256] = "";
        for (const char *c = s; c && *c;) {
          if (strncmp(c, "{N}", 3) == 0) {
            strncat(buf, num, sizeof buf - strlen(buf) - 1);
            c += 3;
          } else if (strncmp(c, "{ARCH}", 6) == 0) {
            strncat(buf, a, sizeof buf - strlen(buf) - 1);
            c += 6;
          } else {
            size_t l = strlen(buf);
            if (l + 1 < sizeof buf) {
              buf[l] = *c;
              buf[l + 1] = '\0';
            }
            c++;
          }
        }
        sv_push(out, buf);
      }
    }
    free(list);
    return 0;
  }
  bool whole = strncmp(arg, "${", 2) == 0 && arg[strlen(arg) - 1] == '}' && !strchr(arg + 2, '$');
  char buf[4096] = "";
  for (const char *c = arg; *c;) {
    if (c[0] == '$' && c[1] == '{') {
      const char *e = strchr(c, '}');
      if (!e) {
        fprintf(stderr, "kkcc: %s: unterminated ${ in \"%s\"\n", t->file, arg);
        return -1;
      }
      char name[64];
      snprintf(name, sizeof name, "%.*s", (int)(e - c - 2), c + 2);
      const char *v = value_of(t, j, name, includedir);
      if (!v) {
        fprintf(stderr, "kkcc: %s: unknown variable ${%s}\n", t->file, name);
        return -1;
      }
      strncat(buf, v, sizeof buf - strlen(buf) - 1);
      c = e + 1;
    } else {
      size_t l = strlen(buf);
      if (l + 1 < sizeof buf) {
        buf[l] = *c;
        buf[l + 1] = '\0';
      }
      c++;
    }
  }
  /* a variable standing alone may hold several words ("gcc -m64", "-O3 -g") */
  if (whole)
    sv_push_words(out, buf);
  else if (*buf)
    sv_push(out, buf);
  return 0;
}

/* Runs one command of a recipe: an array of arguments. */
static int run_command(const target_t *t, const char *key, json_t *cmd, const job_t *j, const char *includedir) {
  strv_t argv = {0};
  size_t i;
  json_t *a;
  json_array_foreach(cmd, i, a) {
    if (!json_is_string(a) || expand_arg(t, j, json_string_value(a), includedir, &argv) != 0) {
      sv_free(&argv);
      return -1;
    }
  }
  int rc = argv.n ? run(argv.v, NULL) : -1;
  if (rc != 0)
    fprintf(stderr, "kkcc: target %s: %s %s %s %s\n", t->name, argv.n ? argv.v[0] : "(no command)",
            rc < 0 ? "could not be run" : "failed", strcmp(key, "compile") ? "preprocessing" : "compiling", j->input);
  sv_free(&argv);
  return rc == 0 ? 0 : -1;
}

/* A recipe is one command (an array of strings) or several run in order (an
 * array of such arrays), e.g. compile, translate, validate. */
static int run_recipe(const target_t *t, const char *key, const job_t *j, const char *includedir) {
  json_t *r = json_object_get(t->json, key);
  if (!json_is_array(json_array_get(r, 0)))
    return run_command(t, key, r, j, includedir);
  size_t i;
  json_t *cmd;
  json_array_foreach(r, i, cmd) {
    if (!json_is_array(cmd)) {
      fprintf(stderr, "kkcc: %s: \"%s\" mixes commands and arguments\n", t->file, key);
      return -1;
    }
    if (run_command(t, key, cmd, j, includedir) != 0)
      return -1;
  }
  return 0;
}

static int compile_target(const target_t *t, const job_t *j, const char *includedir) {
  return run_recipe(t, "compile", j, includedir);
}

/* ---- which targets ------------------------------------------------------------ */

/* Can `prog` be run: a file with a '/', else a name found in $PATH? */
static bool program_found(const char *prog) {
  struct stat sb;
  if (strchr(prog, '/'))
    return stat(prog, &sb) == 0 && S_ISREG(sb.st_mode) && access(prog, X_OK) == 0;
  const char *path = getenv("PATH");
  if (!path || !*path)
    path = "/usr/bin:/bin";
  for (const char *p = path;; p++) {
    size_t n = strcspn(p, ":");
    char *cand = fmt("%.*s/%s", (int)n, n ? p : ".", prog);
    bool ok = stat(cand, &sb) == 0 && S_ISREG(sb.st_mode) && access(cand, X_OK) == 0;
    free(cand);
    if (ok)
      return true;
    p += n;
    if (!*p)
      return false;
  }
}

/* Is every program of the target's compile recipe installed?  When not,
 * `missing` gets the first one that is not (caller frees). */
static bool target_available(const target_t *t, const char *includedir, char **missing) {
  json_t *r = json_object_get(t->json, "compile");
  bool several = json_is_array(json_array_get(r, 0));
  strv_t none = {0};
  job_t dummy = {"", "", &none, NULL};
  size_t i;
  json_t *cmd;
  json_array_foreach(r, i, cmd) {
    json_t *first = json_array_get(several ? cmd : r, 0);
    strv_t words = {0};
    bool ok = json_is_string(first) && expand_arg(t, &dummy, json_string_value(first), includedir, &words) == 0 &&
              words.n > 0 && program_found(words.v[0]);
    if (!ok)
      *missing = xstrdup(words.n ? words.v[0] : json_is_string(first) ? json_string_value(first) : "(no command)");
    sv_free(&words);
    if (!ok)
      return false;
    if (!several)
      break;
  }
  return true;
}

/* The site's kkcc.conf: "targets = host,cuda" lines, '#' comments.  Returns
 * 0 (targets set to the value, or left NULL) or -1 after a message. */
static int read_conf(const char *file, char **targets) {
  FILE *f = fopen(file, "r");
  if (!f)
    return errno == ENOENT ? 0 : (fprintf(stderr, "kkcc: cannot read %s: %s\n", file, strerror(errno)), -1);
  char line[1024];
  int no = 0, rc = 0;
  while (rc == 0 && fgets(line, sizeof line, f)) {
    no++;
    line[strcspn(line, "\r\n")] = '\0';
    char *k = line + strspn(line, " \t");
    if (!*k || *k == '#')
      continue;
    char *eq = strchr(k, '=');
    if (!eq) {
      fprintf(stderr, "kkcc: %s:%d: expected 'key = value', got '%s'\n", file, no, k);
      rc = -1;
      break;
    }
    char *ke = eq;
    while (ke > k && (ke[-1] == ' ' || ke[-1] == '\t'))
      ke--;
    *ke = '\0';
    char *v = eq + 1 + strspn(eq + 1, " \t");
    for (char *ve = v + strlen(v); ve > v && (ve[-1] == ' ' || ve[-1] == '\t');)
      *--ve = '\0';
    if (strcmp(k, "targets") == 0) {
      free(*targets);
      *targets = xstrdup(v);
    } else {
      fprintf(stderr, "kkcc: %s:%d: unknown key '%s' ignored\n", file, no, k);
    }
  }
  fclose(f);
  return rc;
}

/* ---- kernel names, registration --------------------------------------------- */

/* The kk_kernel__<name> descriptors defined in an object. */
static int kernel_names(const char *obj, const char *tmp, strv_t *names) {
  char *out = fmt("%s/nm.txt", tmp);
  const char *nm = getenv("KKCC_NM") ? getenv("KKCC_NM") : KKCC_NM;
  char *argv[] = {(char *)nm, "-P", "--defined-only", (char *)obj, NULL};
  int rc = run(argv, out);
  if (rc != 0) {
    fprintf(stderr, "kkcc: %s could not list the kernels of %s\n", nm, obj);
    free(out);
    return -1;
  }
  FILE *f = fopen(out, "r");
  free(out);
  if (!f)
    return -1;
  char line[1024];
  while (fgets(line, sizeof line, f)) {
    char sym[512], type[8];
    if (sscanf(line, "%511s %7s", sym, type) == 2 && strncmp(sym, "kk_kernel__", 11) == 0 &&
        (type[0] == 'D' || type[0] == 'B'))
      sv_push(names, sym + 11);
  }
  fclose(f);
  return 0;
}

/* A C identifier-safe, unique-enough module id from the output path. */
static uint64_t fnv1a(const char *s, uint64_t h) {
  for (; *s; s++)
    h = (h ^ (unsigned char)*s) * 1099511628211ull;
  return h;
}

static void c_string(FILE *f, const char *s) {
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"' || *s == '\\')
      fputc('\\', f);
    if ((unsigned char)*s < 32)
      fprintf(f, "\\%03o", (unsigned char)*s);
    else
      fputc(*s, f);
  }
  fputc('"', f);
}

static strv_t host_flags, dev_flags, arch_over;

/* ---- argument metadata (modules: kk_module_args) ----------------------------
 * For a loadable module kkcc records each kernel's argument struct -- member
 * names, offsets, sizes and kinds -- so that a binding (Python's kk.load) can
 * check and pack a launch's arguments.  The names come from the struct's
 * definition in the preprocessed kernel file; offsets, sizes and kinds from
 * the host compiler itself: a probe that includes the kernel file declares one
 * array per number, sized 1 + that number, and nm -S reads the sizes back. */

typedef struct argfield {
  char *name;
  unsigned long offset, size, kind;
} argfield_t;

typedef struct kargs {
  char *type;          /* the argument struct's type as the kernel names it; NULL: no metadata */
  unsigned long size;
  int n;
  argfield_t f[128];
} kargs_t;

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, n = 0;
  char *s = malloc(cap);
  if (!s)
    die_oom();
  size_t r;
  while ((r = fread(s + n, 1, cap - n - 1, f)) > 0) {
    n += r;
    if (cap - n < 2) {
      cap *= 2;
      s = realloc(s, cap);
      if (!s)
        die_oom();
    }
  }
  s[n] = '\0';
  fclose(f);
  /* blank the preprocessor's line markers ("# 4 \"file\"") */
  for (char *l = s; *l; ) {
    char *t = l;
    while (*t == ' ' || *t == '\t')
      t++;
    char *nl = strchr(l, '\n');
    if (*t == '#')
      memset(l, ' ', nl ? (size_t)(nl - l) : strlen(l));
    if (!nl)
      break;
    l = nl + 1;
  }
  return s;
}

/* p points at an opening bracket; returns the matching closing one, or NULL. */
static const char *match_close(const char *p) {
  char open = *p, close = open == '(' ? ')' : open == '{' ? '}' : ']';
  int depth = 0;
  for (; *p; p++) {
    if (*p == open)
      depth++;
    else if (*p == close && --depth == 0)
      return p;
  }
  return NULL;
}

static bool is_ident(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Finds identifier `word` as a whole word at or after p. */
static const char *find_word(const char *p, const char *word) {
  size_t n = strlen(word);
  for (const char *q = strstr(p, word); q; q = strstr(q + 1, word))
    if ((q == p || !is_ident(q[-1])) && !is_ident(q[n]))
      return q;
  return NULL;
}

static const char *skip_ws(const char *p) {
  while (isspace((unsigned char)*p))
    p++;
  return p;
}

/* The body (between the braces, exclusive) of the definition of `type`
 * ("struct tag" or a typedef name) in the preprocessed text. */
static bool struct_body(const char *text, const char *type, const char **b, const char **e) {
  if (strncmp(type, "struct ", 7) == 0) {
    const char *tag = skip_ws(type + 7);
    for (const char *q = find_word(text, "struct"); q; q = find_word(q + 6, "struct")) {
      const char *t = skip_ws(q + 6);
      size_t n = strlen(tag);
      if (strncmp(t, tag, n) == 0 && !is_ident(t[n])) {
        const char *o = skip_ws(t + n);
        if (*o == '{') {
          const char *c = match_close(o);
          if (!c)
            return false;
          *b = o + 1, *e = c;
          return true;
        }
      }
    }
    return false;
  }
  /* typedef ... { ... } NAME;  or  typedef struct tag NAME; */
  for (const char *q = find_word(text, type); q; q = find_word(q + 1, type)) {
    const char *after = skip_ws(q + strlen(type));
    if (*after != ';')
      continue;
    const char *back = q;
    while (back > text && isspace((unsigned char)back[-1]))
      back--;
    if (back > text && back[-1] == '}') {
      int depth = 0;
      for (const char *c = back - 1; c >= text; c--) {
        if (*c == '}')
          depth++;
        else if (*c == '{' && --depth == 0) {
          *b = c + 1, *e = back - 1;
          return true;
        }
      }
      return false;
    }
    /* typedef struct tag NAME; */
    const char *s = back;
    while (s > text && s[-1] != ';' && s[-1] != '}' && s[-1] != '{')
      s--;
    char decl[256];
    snprintf(decl, sizeof decl, "%.*s", (int)(back - s), s);
    char tag[200];
    if (sscanf(decl, " typedef struct %199[A-Za-z0-9_]", tag) == 1) {
      char *st = fmt("struct %s", tag);
      bool ok = struct_body(text, st, b, e);
      free(st);
      return ok;
    }
  }
  return false;
}

/* The member names of a struct body; false for what the table cannot
 * describe (bit-fields, anonymous members). */
static bool struct_members(const char *b, const char *e, kargs_t *ka) {
  while (b < e) {
    /* one declaration, up to ';' at depth 0 */
    const char *d = b;
    int depth = 0;
    while (d < e && !(*d == ';' && depth == 0)) {
      if (*d == '(' || *d == '{' || *d == '[')
        depth++;
      else if (*d == ')' || *d == '}' || *d == ']')
        depth--;
      d++;
    }
    /* declarators: after the last '}' (a nested struct type), split at depth-0 ',' */
    const char *s = b;
    depth = 0;
    for (const char *c = b; c < d; c++) {
      if (*c == '{')
        depth++;
      else if (*c == '}' && --depth == 0)
        s = c + 1;
    }
    const char *p = s;
    bool any = false;
    while (p < d && skip_ws(p) < d) {
      const char *q = p;
      depth = 0;
      while (q < d && !(*q == ',' && depth == 0)) {
        if (*q == '(' || *q == '[')
          depth++;
        else if (*q == ')' || *q == ']')
          depth--;
        else if (*q == ':' && depth == 0)
          return false; /* a bit-field */
        q++;
      }
      /* the name: the last identifier before any '[' at depth 0, skipping __attribute__((...)) */
      const char *end = p;
      const char *name = NULL;
      size_t nlen = 0;
      depth = 0;
      for (const char *c = p; c < q; c++) {
        if (strncmp(c, "__attribute__", 13) == 0 && (c == p || !is_ident(c[-1]))) {
          const char *o = skip_ws(c + 13);
          const char *m = *o == '(' ? match_close(o) : NULL;
          if (m && m < q) {
            c = m;
            continue;
          }
        }
        if (*c == '[')
          depth++;
        else if (*c == ']')
          depth--;
        else if (depth == 0 && is_ident(*c) && (c == p || !is_ident(c[-1])) && !isdigit((unsigned char)*c)) {
          const char *w = c;
          while (w < q && is_ident(*w))
            w++;
          name = c, nlen = (size_t)(w - c);
          c = w - 1;
        }
        end = c;
      }
      (void)end;
      if (name) {
        static const char *const quals[] = {"const", "volatile", "restrict", "struct", "union", "enum", NULL};
        for (int i = 0; quals[i]; i++)
          if (strlen(quals[i]) == nlen && strncmp(quals[i], name, nlen) == 0)
            name = NULL;
      }
      if (!name)
        return false; /* an anonymous member */
      if (ka->n >= (int)(sizeof ka->f / sizeof ka->f[0]))
        return false;
      ka->f[ka->n++].name = fmt("%.*s", (int)nlen, name);
      any = true;
      p = q < d ? q + 1 : q;
    }
    (void)any;
    b = d < e ? d + 1 : d;
  }
  return true;
}

/* Fills ka[i] for every kernel whose argument struct the preprocessed text
 * defines in a way the table can describe; the others keep type NULL. */
static void args_parse(const char *text, const strv_t *names, kargs_t *ka) {
  for (int i = 0; i < names->n; i++) {
    char *key = fmt("kk_kernel__%s", names->v[i]);
    const char *q = find_word(text, key);
    free(key);
    const char *as = q ? strstr(q, ".args_size") : NULL;
    const char *sz = as ? strstr(as, "sizeof") : NULL;
    const char *o = sz ? skip_ws(sz + 6) : NULL;
    const char *c = o && *o == '(' ? match_close(o) : NULL;
    if (!c)
      continue;
    char *type = fmt("%.*s", (int)(c - o - 1), o + 1);
    /* normalize blanks */
    char *w = type;
    for (char *r = type; *r; r++)
      if (!isspace((unsigned char)*r) || (w > type && !isspace((unsigned char)w[-1])))
        *w++ = isspace((unsigned char)*r) ? ' ' : *r;
    while (w > type && w[-1] == ' ')
      w--;
    *w = '\0';
    const char *b, *e;
    if (struct_body(text, type, &b, &e) && struct_members(b, e, &ka[i]) && ka[i].n > 0)
      ka[i].type = type;
    else {
      for (int j = 0; j < ka[i].n; j++)
        free(ka[i].f[j].name);
      ka[i].n = 0;
      free(type);
      fprintf(stderr, "kkcc: note: kernel %s: its argument struct is not recorded (a bit-field, an anonymous member "
                      "or a definition kkcc did not find); a binding cannot check its arguments (docs/kkcc.md)\n",
              names->v[i]);
    }
  }
}

/* Writes the probe and reads offsets, sizes and kinds back with nm -S. */
static int args_probe(const target_t *host, const char *input, const char *tmp, const char *includedir,
                      const strv_t *names, kargs_t *ka) {
  char *probe_c = fmt("%s/args-probe.c", tmp), *probe_o = fmt("%s/args-probe.o", tmp);
  char *abs_in = realpath(input, NULL);
  int rc = -1;
  FILE *f = fopen(probe_c, "w");
  if (!f || !abs_in) {
    if (f)
      fclose(f);
    goto out;
  }
  fprintf(f, "#include <stddef.h>\n#include ");
  c_string(f, abs_in);
  fprintf(f, "\n#define KK__ARGKIND(x) _Generic((x), signed char: 1, short: 1, int: 1, long: 1, long long: 1, "
             "unsigned char: 2, unsigned short: 2, unsigned int: 2, unsigned long: 2, unsigned long long: 2, "
             "float: 3, double: 3, _Bool: 4, kk_view: 5, kk_view_right: 6, kk_view_left: 7, kk_view_strided: 8, "
             "kk_scatter: 9, kk_complex_float: 10, kk_complex_double: 10, default: 0)\n");
  for (int i = 0; i < names->n; i++) {
    if (!ka[i].type)
      continue;
    fprintf(f, "char kk__probe_%d_size[1 + sizeof(%s)];\n", i, ka[i].type);
    for (int j = 0; j < ka[i].n; j++)
      fprintf(f,
              "char kk__probe_%d_%d_o[1 + offsetof(%s, %s)];\n"
              "char kk__probe_%d_%d_s[1 + sizeof(((%s *)0)->%s)];\n"
              "char kk__probe_%d_%d_k[1 + KK__ARGKIND(((%s *)0)->%s)];\n",
              i, j, ka[i].type, ka[i].f[j].name, i, j, ka[i].type, ka[i].f[j].name, i, j, ka[i].type,
              ka[i].f[j].name);
  }
  fclose(f);
  job_t pj = {probe_c, probe_o, &host_flags, "-fno-common"};
  if (compile_target(host, &pj, includedir) != 0) {
    fprintf(stderr, "kkcc: note: the argument-struct probe of %s did not compile; the module records no "
                    "argument structs\n", input);
    goto out;
  }
  char *out = fmt("%s/args-nm.txt", tmp);
  const char *nm = getenv("KKCC_NM") ? getenv("KKCC_NM") : KKCC_NM;
  char *argv[] = {(char *)nm, "-P", "-S", "--defined-only", probe_o, NULL};
  int nrc = run(argv, out);
  FILE *nf = nrc == 0 ? fopen(out, "r") : NULL;
  free(out);
  if (!nf)
    goto out;
  char line[1024];
  while (fgets(line, sizeof line, nf)) {
    char sym[512], type[8];
    unsigned long val, size;
    int i, j;
    char what;
    if (sscanf(line, "%511s %7s %lx %lx", sym, type, &val, &size) != 4 || size == 0)
      continue;
    if (sscanf(sym, "kk__probe_%d_%d_%c", &i, &j, &what) == 3 && i >= 0 && i < names->n && j >= 0 && j < ka[i].n) {
      unsigned long v = size - 1;
      if (what == 'o')
        ka[i].f[j].offset = v;
      else if (what == 's')
        ka[i].f[j].size = v;
      else if (what == 'k')
        ka[i].f[j].kind = v;
    } else if (sscanf(sym, "kk__probe_%d_siz%c", &i, &what) == 2 && i >= 0 && i < names->n)
      ka[i].size = size - 1;
  }
  fclose(nf);
  rc = 0;
out:
  free(abs_in);
  free(probe_c);
  free(probe_o);
  return rc;
}

/* The kk_module_args table of a module (docs/kkcc.md, kk/kernel_abi.h). */
static void args_write(FILE *f, const strv_t *names, const kargs_t *ka) {
  int count = 0;
  for (int i = 0; i < names->n; i++) {
    if (!ka[i].type || ka[i].size == 0)
      continue;
    fprintf(f, "static const kk_arg_field_t kk__argf_%d[] = {\n", i);
    for (int j = 0; j < ka[i].n; j++) {
      fprintf(f, "  {");
      c_string(f, ka[i].f[j].name);
      fprintf(f, ", %luu, %luu, %luu, 0},\n", ka[i].f[j].offset, ka[i].f[j].size, ka[i].f[j].kind);
    }
    fprintf(f, "};\n");
    count++;
  }
  fprintf(f, "static const kk_kernel_args_t kk__kargs[] = {\n");
  for (int i = 0; i < names->n; i++) {
    if (!ka[i].type || ka[i].size == 0)
      continue;
    fprintf(f, "  {");
    c_string(f, names->v[i]);
    fprintf(f, ", ");
    c_string(f, ka[i].type);
    fprintf(f, ", %luu, %du, kk__argf_%d},\n", ka[i].size, ka[i].n, i);
  }
  if (count == 0)
    fprintf(f, "  {0, 0, 0, 0, 0}\n");
  fprintf(f, "};\n");
  fprintf(f, "__attribute__((visibility(\"default\"))) const kk_module_args_t kk_module_args = "
             "{sizeof(kk_module_args_t), KK_KERNEL_ABI_VERSION, %du, 0, kk__kargs};\n\n", count);
}

typedef struct image {
  const target_t *t;
  char *format;       /* NULL: the target's */
  char *path;
  long size;
  char *archs;
} image_t;

/* The preprocessed kernel source a device plugin can compile at run time. */
static char *g_source_path;

static int write_registration(const char *path, const char *source, const char *id, const strv_t *names,
                              const image_t *imgs, int nimg, const char *targets, bool shared, const kargs_t *ka) {
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "kkcc: cannot write %s: %s\n", path, strerror(errno));
    return -1;
  }
  fprintf(f, "/* generated by kkcc from %s: registers its kernels and device images with libkk */\n", source);
  fprintf(f, "#include <kk/kernel_abi.h>\n\n");
  for (int i = 0; i < names->n; i++)
    fprintf(f, "extern kk_kernel_t kk_kernel__%s;\n", names->v[i]);
  fprintf(f, "static kk_kernel_t *const kk__kernels[] = {\n");
  for (int i = 0; i < names->n; i++)
    fprintf(f, "  &kk_kernel__%s,\n", names->v[i]);
  if (names->n == 0)
    fprintf(f, "  0\n");
  fprintf(f, "};\n\n");
  for (int i = 0; i < nimg; i++) {
    fprintf(f, "__asm__(\".section .rodata\\n.balign 64\\nkk__image_%d:\\n.incbin ", i);
    /* the path inside an asm string inside a C string */
    fputs("\\\"", f);
    for (const char *c = imgs[i].path; *c; c++) {
      if (*c == '"' || *c == '\\')
        fputs("\\\\\\", f);
      fputc(*c, f);
    }
    fputs("\\\"\\n.byte 0\\n.previous\");\n", f);
    fprintf(f, "extern const unsigned char kk__image_%d[];\n", i);
  }
  fprintf(f, "static const kk_image_t kk__images[] = {\n");
  for (int i = 0; i < nimg; i++) {
    fprintf(f, "  {");
    c_string(f, imgs[i].t->name);
    fprintf(f, ", ");
    c_string(f, imgs[i].format ? imgs[i].format : imgs[i].t->format);
    fprintf(f, ", ");
    c_string(f, imgs[i].archs ? imgs[i].archs : "");
    fprintf(f, ", kk__image_%d, %ldu},\n", i, imgs[i].size);
  }
  if (nimg == 0)
    fprintf(f, "  {0, 0, 0, 0, 0}\n");
  fprintf(f, "};\n\n");
  long source_size = -1;
  if (g_source_path) {
    struct stat sb;
    if (stat(g_source_path, &sb) == 0)
      source_size = (long)sb.st_size;
    fputs("__asm__(\".section .rodata\\nkk__source:\\n.incbin \\\"", f);
    for (const char *c = g_source_path; *c; c++) {
      if (*c == '"' || *c == '\\')
        fputs("\\\\\\", f);
      fputc(*c, f);
    }
    fputs("\\\"\\n.byte 0\\n.previous\");\n", f);
    fprintf(f, "extern const char kk__source[];\n");
  }
  if (ka)
    args_write(f, names, ka);
  fprintf(f, "%skk_module_t %s = {\n", shared ? "__attribute__((visibility(\"default\"))) " : "static ",
          shared ? "kk_module_info" : "kk__module");
  fprintf(f, "  sizeof(kk_module_t), KK_KERNEL_ABI_VERSION, ");
  c_string(f, id);
  fprintf(f, ", ");
  c_string(f, source);
  if (source_size >= 0)
    fprintf(f, ",\n  %d, kk__kernels, %d, kk__images, kk__source, %ldu, ", names->n, nimg, source_size);
  else
    fprintf(f, ",\n  %d, kk__kernels, %d, kk__images, 0, 0, ", names->n, nimg);
  c_string(f, targets);
  fprintf(f, ", {0, 0, 0, 0}\n};\n\n");
  const char *m = shared ? "kk_module_info" : "kk__module";
  fprintf(f, "__attribute__((constructor)) static void kk__register(void) { kk_module_register(&%s); }\n", m);
  fprintf(f, "__attribute__((destructor)) static void kk__unregister(void) { kk_module_unregister(&%s); }\n", m);
  fclose(f);
  return 0;
}

/* ---- main ---------------------------------------------------------------------- */

static void usage(FILE *out) {
  fprintf(out,
          "usage: kkcc [options] -c FILE.kk.c [-o FILE.o]\n"
          "       kkcc [options] -shared FILE.kk.c -o KERNELS.so\n"
          "       kkcc --list-targets\n"
          "Compiles a kernel file for every installed target and writes one object holding\n"
          "the host code, the device images and a constructor that registers them with libkk.\n"
          "  --targets=T,...     only these targets; a missing compiler is an error (default: $KK_KERNEL_TARGETS,\n"
          "                      else the targets of %s, else every installed target whose\n"
          "                      compiler is found, the others skipped with a note; 'auto' is that default)\n"
          "  --<target>-arch=A,...  architectures of a device target (e.g. --cuda-arch=sm_80,sm_90,\n"
          "                      --hip-arch=gfx90a,gfx940)\n"
          "  --<target>-ptx=A|none  the architecture of the portable code embedded beside them (default: the\n"
          "                      newest of --<target>-arch); none embeds only the kernel source, for the JIT\n"
          "  --bounds-check      every view access in the kernels checks its indices; a failed one\n"
          "                      stops the launch with an error naming it (targets whose recipe\n"
          "                      says \"bounds_check\": true; default %s)\n"
          "  --no-bounds-check   no checks\n"
          "  --targets-dir=DIR   where the target recipes are (default %s, or $KKCC_TARGETS_DIR)\n"
          "  --cc=CC             host C compiler (default $KKCC_CC or the recipe's)\n"
          "  -I, -D, -U          passed to every target; -O, -g, -f, -m, -W, -std= to the host compiler\n"
          "  -v                  print every command\n"
          "  --keep              keep the temporary directory\n"
          "  --list-targets      list the installed targets\n",
          KKCC_CONF, KKCC_BOUNDS_CHECK_DEFAULT ? "on, from configure --enable-bounds-check" : "off", KKCC_TARGETDIR);
}

/* the flags main collects from its command line; freed on every way out of main */

static int kkcc_main(int argc, char **argv) {
  const char *targets_dir = getenv("KKCC_TARGETS_DIR") ? getenv("KKCC_TARGETS_DIR") : KKCC_TARGETDIR;
  const char *includedir = getenv("KKCC_INCLUDEDIR") ? getenv("KKCC_INCLUDEDIR") : KKCC_INCLUDEDIR;
  const char *only = NULL, *output = NULL, *input = NULL, *cc = NULL;
  bool compile = false, shared = false, list = false, keep = false, bounds_asked = false;

  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (strcmp(a, "-c") == 0)
      compile = true;
    else if (strcmp(a, "-shared") == 0)
      shared = true;
    else if (strcmp(a, "-o") == 0 && i + 1 < argc)
      output = argv[++i];
    else if (strncmp(a, "--targets=", 10) == 0)
      only = a + 10;
    else if (strncmp(a, "--targets-dir=", 14) == 0)
      targets_dir = a + 14;
    else if (strncmp(a, "--cc=", 5) == 0)
      cc = a + 5;
    else if (strcmp(a, "-v") == 0)
      g_verbose = true;
    else if (strcmp(a, "--keep") == 0)
      keep = true;
    else if (strcmp(a, "--bounds-check") == 0)
      g_bounds = bounds_asked = true;
    else if (strcmp(a, "--no-bounds-check") == 0)
      g_bounds = false;
    else if (strcmp(a, "--list-targets") == 0)
      list = true;
    else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
      usage(stdout);
      return 0;
    } else if (strcmp(a, "--version") == 0) {
      printf("kkcc (kk) %s\n", PACKAGE_VERSION);
      return 0;
    } else if (strncmp(a, "--", 2) == 0 && (strstr(a, "-arch=") || strstr(a, "-ptx="))) {
      sv_push(&arch_over, a + 2);
    } else if ((a[0] == '-' && (a[1] == 'I' || a[1] == 'D' || a[1] == 'U')) && a[2] == '\0' && i + 1 < argc) {
      char *w = fmt("%s%s", a, argv[++i]);
      sv_push(&host_flags, w);
      sv_push(&dev_flags, w);
      free(w);
    } else if (a[0] == '-' && (a[1] == 'I' || a[1] == 'D' || a[1] == 'U')) {
      sv_push(&host_flags, a);
      sv_push(&dev_flags, a);
    } else if (a[0] == '-' && (a[1] == 'O' || a[1] == 'g' || a[1] == 'f' || a[1] == 'm' || a[1] == 'W' ||
                               strncmp(a, "-std=", 5) == 0 || strcmp(a, "-pthread") == 0)) {
      sv_push(&host_flags, a);
    } else if (a[0] == '-') {
      fprintf(stderr, "kkcc: unknown option %s\n", a);
      usage(stderr);
      return 2;
    } else if (!input) {
      input = a;
    } else {
      fprintf(stderr, "kkcc: one kernel file at a time (got %s and %s)\n", input, a);
      return 2;
    }
  }

  if (load_targets(targets_dir) != 0)
    return 1;
  for (int i = 0; i < arch_over.n; i++) {
    char *eq = strchr(arch_over.v[i], '=');
    bool is_ptx = strstr(arch_over.v[i], "-ptx=") != NULL;
    *strstr(arch_over.v[i], is_ptx ? "-ptx=" : "-arch=") = '\0';
    target_t *t = find_target(arch_over.v[i]);
    if (!t) {
      fprintf(stderr, "kkcc: --%s-%s: no such target\n", arch_over.v[i], is_ptx ? "ptx" : "arch");
      return 2;
    }
    json_object_set_new(t->vars, is_ptx ? "PTX_ARCH" : "ARCHS", json_string(eq + 1));
  }
  if (cc)
    for (int i = 0; i < g_ntargets; i++)
      if (strcmp(g_targets[i].kind, "host") == 0)
        json_object_set_new(g_targets[i].vars, "CC", json_string(cc));

  if (list) {
    printf("targets in %s:\n", targets_dir);
    for (int i = 0; i < g_ntargets; i++) {
      target_t *t = &g_targets[i];
      char *missing = NULL;
      bool found = target_available(t, includedir, &missing);
      printf("  %-8s %-6s %s%s%s%s%s%s\n", t->name, t->kind, t->description, *t->format ? "; image format " : "",
             t->format, checks_bounds(t) ? "; checks bounds with --bounds-check" : "",
             found ? "" : "; not built by default here: compiler not found: ", found ? "" : missing);
      free(missing);
      const char *k;
      json_t *v;
      json_object_foreach(t->vars, k, v) printf("           %s = %s\n", k, json_string_value(v));
    }
    return 0;
  }
  if ((!compile && !shared) || !input) {
    usage(stderr);
    return 2;
  }
  if (shared && !output) {
    fprintf(stderr, "kkcc: -shared needs -o KERNELS.so\n");
    return 2;
  }

  /* which targets: named (--targets, KK_KERNEL_TARGETS, the site's kkcc.conf), each of which must
   * build, or every one whose compiler is installed */
  bool want[64] = {false};
  if (g_ntargets > 64) {
    fprintf(stderr, "kkcc: too many targets\n");
    return 1;
  }
  target_t *host = NULL;
  for (int i = 0; i < g_ntargets; i++)
    if (strcmp(g_targets[i].kind, "host") == 0)
      host = &g_targets[i];
  if (!host) {
    fprintf(stderr, "kkcc: no host target in %s: the kernel descriptors need one\n", targets_dir);
    return 1;
  }
  g_host = host;
  const char *env_targets = getenv("KK_KERNEL_TARGETS");
  const char *conf = getenv("KKCC_CONF") && *getenv("KKCC_CONF") ? getenv("KKCC_CONF") : KKCC_CONF;
  char *conf_targets = NULL, *sel_from = NULL;
  const char *sel = NULL;
  if (only)
    sel = only, sel_from = xstrdup("--targets");
  else if (env_targets && *env_targets)
    sel = env_targets, sel_from = xstrdup("KK_KERNEL_TARGETS");
  else if (strcmp(conf, "none") != 0) {
    if (read_conf(conf, &conf_targets) != 0)
      return 1;
    if (conf_targets && *conf_targets)
      sel = conf_targets, sel_from = fmt("%s", conf);
  }
  if (sel && strcmp(sel, "auto") == 0)
    sel = NULL;
  if (sel) {
    char *list_s = xstrdup(sel);
    for (char *save = NULL, *n = strtok_r(list_s, ",; ", &save); n; n = strtok_r(NULL, ",; ", &save)) {
      target_t *t = find_target(n);
      if (!t) {
        fprintf(stderr, "kkcc: %s: unknown target '%s' (kkcc --list-targets shows the installed ones)\n", sel_from,
                n);
        return 2;
      }
      char *missing = NULL;
      if (!target_available(t, includedir, &missing)) {
        fprintf(stderr, "kkcc: target %s (named by %s) cannot be built: its compiler %s is not installed (%s)\n",
                t->name, sel_from, missing, t->file);
        free(missing);
        return 1;
      }
      want[t - g_targets] = true;
    }
    free(list_s);
  } else {
    /* the host target always (its object is the one linked in: a missing compiler fails below) */
    char *skipped = NULL;
    for (int i = 0; i < g_ntargets; i++) {
      char *missing = NULL;
      want[i] = &g_targets[i] == host || target_available(&g_targets[i], includedir, &missing);
      if (!want[i]) {
        char *more = fmt("%s%s%s (%s)", skipped ? skipped : "", skipped ? ", " : "", g_targets[i].name, missing);
        free(skipped);
        skipped = more;
      }
      free(missing);
    }
    if (skipped)
      fprintf(stderr, "kkcc: note: skipping the targets whose compiler is not installed: %s; --targets or "
                      "KK_KERNEL_TARGETS naming one makes this an error (docs/kkcc.md)\n", skipped);
    free(skipped);
  }
  free(conf_targets);
  free(sel_from);
  /* said once, when asked for on the command line: the configure default stays quiet */
  for (int i = 0; bounds_asked && i < g_ntargets; i++)
    if (want[i] && !checks_bounds(&g_targets[i]))
      fprintf(stderr, "kkcc: note: --bounds-check: target %s does not check bounds yet; its image is built without "
                      "checks (docs/bounds-check.md)\n", g_targets[i].name);

  char default_out[PATH_MAX];
  if (!output) {
    const char *base = strrchr(input, '/');
    base = base ? base + 1 : input;
    snprintf(default_out, sizeof default_out, "%s", base);
    char *dot = strstr(default_out, ".kk.c");
    if (!dot)
      dot = strrchr(default_out, '.');
    if (dot)
      strcpy(dot, ".o");
    else
      strncat(default_out, ".o", sizeof default_out - strlen(default_out) - 1);
    output = default_out;
  }

  char tmpl[PATH_MAX];
  snprintf(tmpl, sizeof tmpl, "%s/kkcc-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  char *tmp = mkdtemp(tmpl);
  if (!tmp) {
    fprintf(stderr, "kkcc: cannot create a temporary directory: %s\n", strerror(errno));
    return 1;
  }

  int status = 1;
  strv_t names = {0};
  image_t imgs[64];
  int nimg = 0;
  char *host_obj = fmt("%s/host.o", tmp), *reg_c = fmt("%s/register.c", tmp), *reg_o = fmt("%s/register.o", tmp);
  char targets_built[512] = "";
  kargs_t *kargs = NULL;

  /* 1. the host code and the descriptors (KK_TARGET_NONE without the host target) */
  job_t hj = {input, host_obj, &host_flags, want[host - g_targets] ? NULL : "-DKK_TARGET_NONE"};
  if (compile_target(host, &hj, includedir) != 0)
    goto done;
  if (want[host - g_targets])
    strcat(targets_built, "host");
  if (kernel_names(host_obj, tmp, &names) != 0)
    goto done;
  /* a module records its kernels' argument structs (for bindings) */
  if (shared && want[host - g_targets] && names.n > 0) {
    char *pre = fmt("%s/host.i", tmp);
    job_t pj = {input, pre, &host_flags, "-E"};
    char *text = NULL;
    kargs = calloc((size_t)names.n, sizeof *kargs);
    if (!kargs)
      die_oom();
    if (compile_target(host, &pj, includedir) == 0 && (text = slurp(pre)) != NULL) {
      args_parse(text, &names, kargs);
      args_probe(host, input, tmp, includedir, &names, kargs);
    }
    free(text);
    free(pre);
  }

  /* 2. every device target */
  for (int i = 0; i < g_ntargets; i++) {
    target_t *t = &g_targets[i];
    if (!want[i] || t == host)
      continue;
    image_t *im = &imgs[nimg];
    im->t = t;
    im->format = NULL;
    im->path = fmt("%s/image-%s.bin", tmp, t->name);
    im->archs = xstrdup(var(t, "ARCHS"));
    job_t dj = {input, im->path, &dev_flags, NULL};
    if (compile_target(t, &dj, includedir) != 0)
      goto done;
    struct stat sb;
    if (stat(im->path, &sb) != 0) {
      fprintf(stderr, "kkcc: target %s produced no image %s\n", t->name, im->path);
      goto done;
    }
    im->size = (long)sb.st_size;
    nimg++;
    /* further images the recipe's commands wrote: {"format": F, "file": "${OUTPUT}.x"} */
    size_t xi;
    json_t *x;
    json_array_foreach(json_object_get(t->json, "extra_images"), xi, x) {
      const char *xf = json_string_value(json_object_get(x, "format"));
      const char *xp = json_string_value(json_object_get(x, "file"));
      strv_t w = {0};
      if (!xf || !xp || nimg >= 64 || expand_arg(t, &dj, xp, includedir, &w) != 0 || w.n != 1) {
        fprintf(stderr, "kkcc: %s: an extra image needs a \"format\" and one \"file\"\n", t->file);
        sv_free(&w);
        goto done;
      }
      image_t *xm = &imgs[nimg];
      xm->t = t;
      xm->format = xstrdup(xf);
      xm->path = xstrdup(w.v[0]);
      xm->archs = xstrdup(var(t, "ARCHS"));
      sv_free(&w);
      if (stat(xm->path, &sb) != 0) {
        fprintf(stderr, "kkcc: target %s produced no image %s\n", t->name, xm->path);
        free(xm->path);
        free(xm->archs);
        free(xm->format);
        goto done;
      }
      xm->size = (long)sb.st_size;
      nimg++;
    }
    if (!g_source_path && json_is_array(json_object_get(t->json, "source"))) {
      char *sp = fmt("%s/source-%s.txt", tmp, t->name);
      job_t sj = {input, sp, &dev_flags, NULL};
      if (run_recipe(t, "source", &sj, includedir) != 0) {
        free(sp);
        goto done;
      }
      g_source_path = sp;
    }
    if (*targets_built)
      strncat(targets_built, ",", sizeof targets_built - strlen(targets_built) - 1);
    strncat(targets_built, t->name, sizeof targets_built - strlen(targets_built) - 1);
  }

  /* 3. the registration constructor */
  char abs_out[PATH_MAX];
  if (!realpath(".", abs_out))
    abs_out[0] = '\0';
  char id[64];
  snprintf(id, sizeof id, "kkm_%016llx",
           (unsigned long long)fnv1a(output, fnv1a(input, fnv1a(abs_out, 1469598103934665603ull))));
  if (write_registration(reg_c, input, id, &names, imgs, nimg, targets_built, shared, kargs) != 0)
    goto done;
  {
    char *inc = fmt("-I%s", includedir);
    strv_t argv2 = {0};
    const char *hcc = var(host, "CC") ? var(host, "CC") : KKCC_CC;
    sv_push_words(&argv2, hcc);
    sv_push(&argv2, "-fPIC");
    for (int i = 0; i < host_flags.n; i++)
      if (strncmp(host_flags.v[i], "-I", 2) == 0 || strncmp(host_flags.v[i], "-f", 2) == 0 ||
          strncmp(host_flags.v[i], "-m", 2) == 0)
        sv_push(&argv2, host_flags.v[i]);
    sv_push(&argv2, inc);
    sv_push(&argv2, "-c");
    sv_push(&argv2, reg_c);
    sv_push(&argv2, "-o");
    sv_push(&argv2, reg_o);
    int rc = run(argv2.v, NULL);
    sv_free(&argv2);
    free(inc);
    if (rc != 0) {
      fprintf(stderr, "kkcc: compiling the registration code for %s failed\n", input);
      goto done;
    }
  }

  /* 4. one object, or a loadable module */
  {
    strv_t argv3 = {0};
    if (shared) {
      sv_push_words(&argv3, var(host, "CC") ? var(host, "CC") : KKCC_CC);
      sv_push(&argv3, "-shared");
      for (int i = 0; i < host_flags.n; i++)
        if (strncmp(host_flags.v[i], "-f", 2) == 0 || strncmp(host_flags.v[i], "-m", 2) == 0)
          sv_push(&argv3, host_flags.v[i]);
    } else {
      sv_push(&argv3, getenv("KKCC_LD") ? getenv("KKCC_LD") : KKCC_LD);
      sv_push(&argv3, "-r");
    }
    sv_push(&argv3, "-o");
    sv_push(&argv3, output);
    sv_push(&argv3, host_obj);
    sv_push(&argv3, reg_o);
    int rc = run(argv3.v, NULL);
    sv_free(&argv3);
    if (rc != 0) {
      fprintf(stderr, "kkcc: linking %s failed\n", output);
      goto done;
    }
  }
  status = 0;

done:
  if (keep)
    fprintf(stderr, "kkcc: temporary files kept in %s\n", tmp);
  else {
    char *argv4[] = {"rm", "-rf", tmp, NULL};
    g_verbose = false;
    run(argv4, NULL);
  }
  for (int i = 0; i < nimg; i++) {
    free(imgs[i].path);
    free(imgs[i].archs);
    free(imgs[i].format);
  }
  free(host_obj);
  free(reg_c);
  free(reg_o);
  free(g_source_path);
  if (kargs)
    for (int i = 0; i < names.n; i++) {
      free(kargs[i].type);
      for (int j = 0; j < kargs[i].n; j++)
        free(kargs[i].f[j].name);
    }
  free(kargs);
  sv_free(&names);
  return status;
}

int main(int argc, char **argv) {
  int status = kkcc_main(argc, argv);
  sv_free(&host_flags);
  sv_free(&dev_flags);
  sv_free(&arch_over);
  return status;
}
