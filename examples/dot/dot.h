/* examples/dot/dot.h -- the argument struct shared by dot.c and dot.kk.c. */
#include <kk.h>

struct dot_args {
  kk_view x, y;
};

KK_DECLARE_KERNEL(dot);
KK_DECLARE_KERNEL(init_xy);
