/* core/status.c -- status names and messages, the thread-local last error, warnings and small string helpers. */
/* SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "state.h"
#include "status.h"

#define KK__ERRBUF 2048

static _Thread_local char tl_message[KK__ERRBUF];
static _Thread_local kk_status_t tl_status = KK_OK;
static kk_error_handler_t g_handler;
static void *g_handler_user;

bool kk__warnings_disabled;
bool kk__debug_enabled;

const char *kk_status_str(kk_status_t status) {
  switch (status) {
#define KK__STATUS_MSG(name, value, msg) \
  case KK_##name:                        \
    return msg;
    KK_STATUS_MAP(KK__STATUS_MSG)
#undef KK__STATUS_MSG
  default:
    return "unknown status";
  }
}

const char *kk_status_name(kk_status_t status) {
  switch (status) {
#define KK__STATUS_NAME(name, value, msg) \
  case KK_##name:                         \
    return #name;
    KK_STATUS_MAP(KK__STATUS_NAME)
#undef KK__STATUS_NAME
  default:
    return "UNKNOWN";
  }
}

const char *kk_last_error(void) { return tl_message; }

kk_status_t kk_last_status(void) { return tl_status; }

void kk_clear_error(void) {
  tl_message[0] = '\0';
  tl_status = KK_OK;
}

kk_status_t kk_set_error(kk_status_t status, const char *fmt, ...) {
  if (status == KK_OK) {
    kk_clear_error();
    return KK_OK;
  }
  if (!fmt)
    return kk__error(status, "%s", kk_status_str(status));
  va_list ap;
  va_start(ap, fmt);
  kk__verror(status, fmt, ap);
  va_end(ap);
  return status;
}

kk_error_handler_t kk_set_error_handler(kk_error_handler_t handler, void *user) {
  kk_error_handler_t old = g_handler;
  g_handler = handler;
  g_handler_user = user;
  return old;
}

/* ---- formatting that cuts values, not explanations --------------------------------
 *
 * A message is a fixed explanation with values in it ("invalid value '%s' for
 * --kokkos-device: expected ...").  When a value is huge (a 10 MB variable, a
 * label of any length) the message would be cut at the end of the buffer and
 * lose the explanation.  So when a message does not fit, its string values
 * are cut instead, longest first, down to a common length: those the format
 * quotes ('%s' or "%s") and the quoted ones inside a message passed on as a
 * string argument first, whole string arguments only if that is not enough
 * (below).  Formats this parser does not know are cut at the end as before. */

#define MAX_CONV 48
#define CUT_MARK_MAX 40 /* "...[18446744073709551615 bytes]..." */

typedef struct conv {
  const char *spec, *end;   /* the conversion in fmt, '%' to the conversion letter included */
  char letter;
  const char *str;          /* %s: the argument (after its precision) */
  size_t len;               /* %s: its length */
  bool quoted;
  char text[128];           /* other conversions, formatted */
} conv_t;

/* Parses the conversions of fmt and fetches their arguments; false when the
 * format has something this does not handle (then nothing is cut). */
static bool parse_convs(const char *fmt, va_list ap, conv_t *cv, int *ncv) {
  int n = 0;
  for (const char *p = fmt; *p; p++) {
    if (*p != '%')
      continue;
    if (p[1] == '%') {
      p++;
      continue;
    }
    if (n == MAX_CONV)
      return false;
    conv_t *c = &cv[n];
    memset(c, 0, sizeof *c);
    c->spec = p;
    const char *q = p + 1;
    while (*q && strchr("-+ #0", *q))
      q++;
    int prec = -1;
    bool star_w = false, star_p = false;
    if (*q == '*') {
      star_w = true;
      q++;
    } else
      while (*q >= '0' && *q <= '9')
        q++;
    if (*q == '.') {
      q++;
      prec = 0;
      if (*q == '*') {
        star_p = true;
        q++;
      } else
        for (; *q >= '0' && *q <= '9'; q++)
          prec = prec * 10 + (*q - '0');
    }
    int len = 0; /* 0 none, 1 h, 2 hh, 3 l, 4 ll, 5 z, 6 j, 7 t, 8 L */
    if (*q == 'h')
      len = q[1] == 'h' ? (q += 2, 2) : (q++, 1);
    else if (*q == 'l')
      len = q[1] == 'l' ? (q += 2, 4) : (q++, 3);
    else if (*q == 'z')
      len = 5, q++;
    else if (*q == 'j')
      len = 6, q++;
    else if (*q == 't')
      len = 7, q++;
    else if (*q == 'L')
      len = 8, q++;
    c->letter = *q;
    c->end = q;
    if (star_w)
      (void)va_arg(ap, int);
    if (star_p)
      prec = va_arg(ap, int);
    char spec[48];
    size_t sl = (size_t)(q - p + 1);
    if (sl >= sizeof spec)
      return false;
    memcpy(spec, p, sl);
    spec[sl] = '\0';
    switch (*q) {
    case 's': {
      if (len || star_w || (spec[1] >= '1' && spec[1] <= '9') || spec[1] == '-')
        return false; /* padded strings: not in kk's messages */
      const char *str = va_arg(ap, const char *);
      if (!str)
        str = "(null)";
      c->str = str;
      c->len = prec >= 0 ? strnlen(str, (size_t)prec) : strlen(str);
      c->quoted = p > fmt && (p[-1] == '\'' || p[-1] == '"') && q[1] == p[-1];
      break;
    }
    case 'd':
    case 'i':
    case 'c':
      if (star_w || star_p)
        return false;
      if (len == 4)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, long long));
      else if (len == 3)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, long));
      else if (len == 5 || len == 7)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, ptrdiff_t));
      else if (len == 6)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, intmax_t));
      else
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, int));
      break;
    case 'u':
    case 'x':
    case 'X':
    case 'o':
      if (star_w || star_p)
        return false;
      if (len == 4)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, unsigned long long));
      else if (len == 3)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, unsigned long));
      else if (len == 5)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, size_t));
      else if (len == 6)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, uintmax_t));
      else if (len == 7)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, ptrdiff_t));
      else
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, unsigned));
      break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
      if (star_w || star_p)
        return false;
      if (len == 8)
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, long double));
      else
        snprintf(c->text, sizeof c->text, spec, va_arg(ap, double));
      break;
    case 'p':
      if (star_w || star_p)
        return false;
      snprintf(c->text, sizeof c->text, spec, va_arg(ap, void *));
      break;
    default:
      return false; /* %n and anything unknown */
    }
    n++;
    p = q;
  }
  *ncv = n;
  return true;
}

/* ---- the values a message may cut ----
 *
 * A value is a string argument the format quotes ('%s'), a quoted part of
 * an unquoted string argument (a message passed on inside another, as in
 * "kk_view_create: %s" with kk_last_error(): its label is a value of the
 * outer message too), or, when cutting those is not enough, a whole string
 * argument.  A cut value keeps its first and last bytes around a marker,
 * "head...[N bytes]...tail", N its length before any cut: a value cut by an
 * inner message and cut again keeps the N of the first cut. */

#define MAX_VALUES 64

typedef struct value {
  int conv;                 /* the conversion whose argument holds it */
  size_t off, len;          /* where in that argument, and its length there */
  size_t full;              /* its length before any cut (an inner marker's N), else len */
  size_t mark_at, mark_end; /* an inner marker's place in it (mark_end 0: none) */
  size_t keep;              /* bytes of it shown (head and tail), == len when not cut */
  const char *str;          /* the argument */
} value_t;

static bool is_word(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* Finds a marker "...[N bytes]..." in s[0, len); sets v's mark fields. */
static void find_marker(value_t *v) {
  const char *s = v->str + v->off;
  for (size_t i = 0; i + 4 < v->len; i++) {
    if (memcmp(s + i, "...[", 4) != 0)
      continue;
    size_t j = i + 4, n = 0;
    bool digits = false;
    for (; j < v->len && s[j] >= '0' && s[j] <= '9'; j++, digits = true)
      n = n * 10 + (size_t)(s[j] - '0');
    if (digits && j + 10 <= v->len && memcmp(s + j, " bytes]...", 10) == 0) {
      v->mark_at = i;
      v->mark_end = j + 10;
      v->full = n;
      return;
    }
  }
}

static bool add_value(value_t *vals, int *n, int conv, const char *str, size_t off, size_t len) {
  if (*n == MAX_VALUES)
    return false;
  value_t *v = &vals[(*n)++];
  memset(v, 0, sizeof *v);
  v->conv = conv;
  v->str = str;
  v->off = off;
  v->len = v->keep = v->full = len;
  find_marker(v);
  return true;
}

/* The quoted parts ('...' or "...") of an argument that is a message: a
 * quote that no word character precedes, up to the same quote that no word
 * character follows. */
static bool add_inner_values(value_t *vals, int *n, int conv, const char *str, size_t len) {
  for (size_t i = 0; i < len; i++) {
    char q = str[i];
    if ((q != '\'' && q != '"') || (i > 0 && is_word(str[i - 1])))
      continue;
    size_t j = i + 1;
    while (j < len && !(str[j] == q && (j + 1 == len || !is_word(str[j + 1]))))
      j++;
    if (j == len)
      break;
    if (j > i + 1 && !add_value(vals, n, conv, str, i + 1, j - i - 1))
      return false;
    i = j;
  }
  return true;
}

/* The length of a cut value's marker. */
static size_t mark_len(size_t full) {
  char m[CUT_MARK_MAX + 1];
  return (size_t)snprintf(m, sizeof m, "...[%zu bytes]...", full);
}

#define KEEP_MIN 16 /* a cut value keeps at least this much of itself */

/* Bytes of value v shown when no value may show more than cap bytes
 * (marker included); sets v->keep. */
static size_t shown(value_t *v, size_t cap) {
  if (v->len <= cap) {
    v->keep = v->len;
    return v->len;
  }
  size_t m = mark_len(v->full);
  v->keep = cap > m + KEEP_MIN ? cap - m : KEEP_MIN;
  size_t own = v->len - (v->mark_end - v->mark_at); /* what it shows of itself, its own marker left out */
  if (v->keep > own)
    v->keep = own;
  return v->keep + m;
}

/* Cuts vals to the largest common cap that makes the message of `total`
 * bytes fit in `room`; false when even the shortest cut does not fit. */
static bool cut_values(value_t *vals, int n, size_t total, size_t room) {
  size_t fixed = total, longest = 0;
  for (int i = 0; i < n; i++) {
    fixed -= vals[i].len;
    longest = vals[i].len > longest ? vals[i].len : longest;
  }
  size_t lo = 0, hi = longest; /* the answer is the largest cap in [lo, hi] that fits */
  for (;;) {
    size_t cap = lo + (hi - lo + 1) / 2, sum = fixed;
    for (int i = 0; i < n; i++)
      sum += shown(&vals[i], cap);
    if (lo == hi)
      return sum <= room;
    if (sum <= room)
      lo = cap;
    else
      hi = cap - 1;
  }
}

static bool utf8_cont(char c) { return ((unsigned char)c & 0xC0) == 0x80; }

/* Appends s[0, n) to buf at *o (never past size - 1). */
static void put(char *buf, size_t size, size_t *o, const char *s, size_t n) {
  for (size_t j = 0; j < n && *o < size - 1; j++)
    buf[(*o)++] = s[j];
}

/* Appends value v, cut to v->keep bytes: a head and a tail around the
 * marker, taken from either side of an inner marker, never splitting a
 * UTF-8 sequence. */
static void put_value(char *buf, size_t size, size_t *o, const value_t *v) {
  const char *s = v->str + v->off;
  if (v->keep >= v->len) {
    put(buf, size, o, s, v->len);
    return;
  }
  size_t before = v->mark_end ? v->mark_at : v->len, after_at = v->mark_end ? v->mark_end : 0;
  size_t after = v->len - after_at;
  size_t head = (v->keep + 1) / 2, tail = v->keep - head;
  if (head > before)
    tail += head - before, head = before;
  if (tail > after)
    head += tail - after, tail = after;
  if (head > before)
    head = before;
  while (head > 0 && utf8_cont(s[head]))
    head--;
  size_t t0 = v->len - tail;
  while (t0 < v->len && utf8_cont(s[t0]))
    t0++;
  char mark[CUT_MARK_MAX + 1];
  int m = snprintf(mark, sizeof mark, "...[%zu bytes]...", v->full);
  put(buf, size, o, s, head);
  put(buf, size, o, mark, (size_t)m);
  put(buf, size, o, s + t0, v->len - t0);
}

static void vformat(char *buf, size_t size, const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(buf, size, fmt, ap);
  if (n < 0 || (size_t)n < size || size < 128) {
    va_end(ap2);
    if (n >= 0 && (size_t)n >= size && size > 4)
      memcpy(buf + size - 4, "...", 4);
    return;
  }
  conv_t cv[MAX_CONV];
  int ncv = 0;
  bool parsed = parse_convs(fmt, ap2, cv, &ncv);
  va_end(ap2);
  /* first the quoted values (the format's and those of messages passed on), then every string argument */
  value_t vals[MAX_VALUES];
  int nv = 0;
  bool ok = false;
  if (parsed) {
    bool listed = true;
    for (int i = 0; i < ncv && listed; i++)
      if (cv[i].str)
        listed = cv[i].quoted ? add_value(vals, &nv, i, cv[i].str, 0, cv[i].len)
                              : add_inner_values(vals, &nv, i, cv[i].str, cv[i].len);
    ok = listed && nv > 0 && cut_values(vals, nv, (size_t)n, size - 1);
    if (!ok) {
      nv = 0;
      for (int i = 0; i < ncv; i++)
        if (cv[i].str)
          add_value(vals, &nv, i, cv[i].str, 0, cv[i].len); /* MAX_VALUES > MAX_CONV: always room */
      ok = nv > 0 && cut_values(vals, nv, (size_t)n, size - 1);
    }
  }
  if (!ok) {
    memcpy(buf + size - 4, "...", 4); /* buf holds the message cut at its end */
    return;
  }
  /* the message again: literal text and conversions, the values cut */
  size_t o = 0;
  const char *p = fmt;
  int vi = 0;
  for (int i = 0; i <= ncv; i++) {
    const char *lit_end = i < ncv ? cv[i].spec : p + strlen(p);
    for (; p < lit_end && o < size - 1; p++) {
      if (p[0] == '%' && p[1] == '%')
        p++;
      buf[o++] = *p;
    }
    if (i == ncv)
      break;
    const conv_t *c = &cv[i];
    if (!c->str) {
      put(buf, size, &o, c->text, strlen(c->text));
    } else {
      size_t at = 0;
      for (; vi < nv && vals[vi].conv == i; vi++) {
        put(buf, size, &o, c->str + at, vals[vi].off - at);
        put_value(buf, size, &o, &vals[vi]);
        at = vals[vi].off + vals[vi].len;
      }
      put(buf, size, &o, c->str + at, c->len - at);
    }
    p = c->end + 1;
  }
  buf[o] = '\0';
}

void kk__vsnprintf(char *buf, size_t size, const char *fmt, va_list ap) { vformat(buf, size, fmt, ap); }

void kk__snprintf(char *buf, size_t size, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vformat(buf, size, fmt, ap);
  va_end(ap);
}

kk_status_t kk__verror(kk_status_t status, const char *fmt, va_list ap) {
  /* Messages may be built from kk_last_error() itself: format into a copy. */
  char tmp[KK__ERRBUF];
  vformat(tmp, sizeof tmp, fmt, ap);
  memcpy(tl_message, tmp, sizeof tmp);
  tl_status = status;
  if (g_handler)
    g_handler(status, tl_message, g_handler_user);
  return status;
}

kk_status_t kk__error(kk_status_t status, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  kk__verror(status, fmt, ap);
  va_end(ap);
  return status;
}

void kk__warn(const char *fmt, ...) {
  if (kk__warnings_disabled)
    return;
  char buf[KK__ERRBUF];
  va_list ap;
  va_start(ap, fmt);
  vformat(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "kk: warning: %s\n", buf);
}

void kk__debug(const char *fmt, ...) {
  if (!kk__debug_enabled)
    return;
  char buf[KK__ERRBUF];
  va_list ap;
  va_start(ap, fmt);
  vformat(buf, sizeof buf, fmt, ap);
  va_end(ap);
  fprintf(stderr, "kk: %s\n", buf);
}

void kk__str_addf(kk__str_t *str, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if (str->len + (size_t)n + 1 > str->cap) {
    size_t cap = str->cap ? str->cap : 256;
    while (cap < str->len + (size_t)n + 1)
      cap *= 2;
    char *s = realloc(str->s, cap);
    if (!s)
      return; /* a report loses its tail rather than the program its memory */
    str->s = s;
    str->cap = cap;
  }
  va_start(ap, fmt);
  vsnprintf(str->s + str->len, str->cap - str->len, fmt, ap);
  va_end(ap);
  str->len += (size_t)n;
}

void kk__str_free(kk__str_t *str) {
  free(str->s);
  str->s = NULL;
  str->len = str->cap = 0;
}

char *kk__strdup(const char *s) {
  if (!s)
    return NULL;
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  if (d)
    memcpy(d, s, n);
  return d;
}

bool kk__parse_bool(const char *s, bool *out) {
  static const char *yes[] = {"yes", "true", "1", "on"};
  static const char *no[] = {"no", "false", "0", "off"};
  for (size_t i = 0; i < sizeof yes / sizeof *yes; i++) {
    if (strcasecmp(s, yes[i]) == 0) {
      *out = true;
      return true;
    }
    if (strcasecmp(s, no[i]) == 0) {
      *out = false;
      return true;
    }
  }
  return false;
}
