/* core/status.c -- status names and messages, the thread-local last error, warnings and small string helpers. */
#include "config.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

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
 * lose the explanation.  So when a message does not fit, its string arguments
 * are cut instead, longest first, down to a common length: those the format
 * quotes ('%s' or "%s") first, the others only if that is not enough.  A cut
 * value ends in "...[N bytes]".  Formats this parser does not know are cut at
 * the end as before. */

#define MAX_CONV 48
#define CUT_MARK_MAX 32 /* "...[18446744073709551615 bytes]" */

typedef struct conv {
  const char *spec, *end;   /* the conversion in fmt, '%' to the conversion letter included */
  char letter;
  const char *str;          /* %s: the argument (after its precision) */
  size_t len, keep;         /* %s: its length and how much of it is kept */
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
      c->keep = c->len;
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

/* The length of a cut value's marker. */
static size_t mark_len(size_t full) {
  char m[CUT_MARK_MAX + 1];
  return (size_t)snprintf(m, sizeof m, "...[%zu bytes]", full);
}

#define KEEP_MIN 16 /* a cut value keeps at least this much of itself */

/* Bytes of value c shown when no value may show more than cap bytes
 * (marker included); sets c->keep. */
static size_t shown(conv_t *c, size_t cap) {
  if (c->len <= cap) {
    c->keep = c->len;
    return c->len;
  }
  size_t m = mark_len(c->len);
  c->keep = cap > m + KEEP_MIN ? cap - m : KEEP_MIN;
  if (c->keep > c->len)
    c->keep = c->len;
  while (c->keep > 0 && ((unsigned char)c->str[c->keep] & 0xC0) == 0x80)
    c->keep--; /* never split a UTF-8 sequence */
  return c->keep + m;
}

/* Cuts the string values of cv (the quoted ones, or all of them) to the
 * largest common cap that makes the message of `total` bytes fit in `room`;
 * false when even the shortest cut does not fit. */
static bool cut_strings(conv_t *cv, int n, size_t total, size_t room, bool quoted_only) {
  size_t fixed = total, longest = 0;
  for (int i = 0; i < n; i++)
    if (cv[i].str && (!quoted_only || cv[i].quoted)) {
      fixed -= cv[i].len;
      longest = cv[i].len > longest ? cv[i].len : longest;
    }
  size_t lo = 0, hi = longest; /* the answer is the largest cap in [lo, hi] that fits */
  for (;;) {
    size_t cap = lo + (hi - lo + 1) / 2, sum = fixed;
    for (int i = 0; i < n; i++)
      if (cv[i].str && (!quoted_only || cv[i].quoted))
        sum += shown(&cv[i], cap);
    if (lo == hi) {
      for (int i = 0; i < n; i++) /* values that are not cut stay whole */
        if (cv[i].str && quoted_only && !cv[i].quoted)
          cv[i].keep = cv[i].len;
      return sum <= room;
    }
    if (sum <= room)
      lo = cap;
    else
      hi = cap - 1;
  }
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
  if (!parsed ||
      !(cut_strings(cv, ncv, (size_t)n, size - 1, true) || cut_strings(cv, ncv, (size_t)n, size - 1, false))) {
    memcpy(buf + size - 4, "...", 4); /* buf holds the message cut at its end */
    return;
  }
  /* the message again: literal text and conversions, the values cut */
  size_t o = 0;
  const char *p = fmt;
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
    char mark[CUT_MARK_MAX + 1] = "";
    const char *text = c->str ? c->str : c->text;
    size_t k = c->str ? c->keep : strlen(c->text);
    if (c->str && c->keep < c->len)
      snprintf(mark, sizeof mark, "...[%zu bytes]", c->len);
    for (size_t j = 0; j < k && o < size - 1; j++)
      buf[o++] = text[j];
    for (size_t j = 0; mark[j] && o < size - 1; j++)
      buf[o++] = mark[j];
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
