# tests/watchdog.sh -- sourced by test scripts: kk_watchdog SECONDS COMMAND... runs COMMAND and, when it has not ended after SECONDS, prints the stacks of its threads and of its child processes' threads, and ends them all.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Returns COMMAND's exit status, or 137 when the watchdog ended it.  What
# the watchdog prints goes to standard error, so that a caller may take
# COMMAND's standard output with $(...): a line starting "kk-watchdog:",
# then, for COMMAND and each process under it (an MPI launcher's ranks, a
# libtool wrapper's program), every thread's stack as gdb reads it (when
# gdb is installed and may attach; each gdb is bounded to 60 s), before
# all of them are killed with SIGKILL, the children first (killing only a
# launcher could leave its ranks running, holding the cores the next tests
# need).  .ci/run prints every test log that holds such a line after
# README command 2 and after the ASan+UBSan step, whether the test passed
# or not, so that a hang is seen with its stacks.

# The processes under process $1, one pid a line, parents before children.
# (Read from /proc: a minimal system may have no ps.  A stat line is
# "PID (COMM) STATE PPID ...", COMM possibly holding spaces and parentheses.)
kk_wd_descendants() {
  cat /proc/[0-9]*/stat 2>/dev/null | awk -v top="$1" '
    { pid = $1; sub(/.*\) /, ""); parent[pid] = $2; order[++n] = pid }
    END {
      keep[top] = 1
      do {
        more = 0
        for (i = 1; i <= n; i++) {
          p = order[i]
          if (!(p in keep) && (parent[p] in keep)) { keep[p] = 1; list[++m] = p; more = 1 }
        }
      } while (more)
      for (i = 1; i <= m; i++) print list[i]
    }'
}

kk_watchdog() {
  kk_wd_secs=$1
  shift
  "$@" &
  kk_wd_pid=$!
  (
    kk_wd_sleep=
    trap 'kill $kk_wd_sleep 2>/dev/null; exit 0' TERM
    sleep "$kk_wd_secs" &
    kk_wd_sleep=$!
    wait $kk_wd_sleep
    kill -0 $kk_wd_pid 2>/dev/null || exit 0
    kk_wd_kids=$(kk_wd_descendants $kk_wd_pid)
    echo "kk-watchdog: '$*' (pid $kk_wd_pid) did not end within $kk_wd_secs s; its threads and those of the processes under it:"
    for p in $kk_wd_pid $kk_wd_kids; do
      echo "kk-watchdog: process $p: $(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-200)"
      if command -v gdb >/dev/null 2>&1; then
        timeout -k 5 60 gdb -batch -nx -p "$p" -ex 'info threads' -ex 'thread apply all bt' </dev/null 2>&1 |
          grep -v -e '^\[New LWP' -e '^\[Thread debugging'
      else
        echo "kk-watchdog: gdb is not installed: no stacks"
      fi
    done
    # COMMAND stopped first (so that it neither ends on its own when its
    # children die, with a status of its choosing, nor starts new ones),
    # then the children (once COMMAND is gone they are no longer found
    # under it), then COMMAND
    kill -STOP $kk_wd_pid 2>/dev/null
    kill -KILL $(kk_wd_descendants $kk_wd_pid) 2>/dev/null
    kill -KILL $kk_wd_pid 2>/dev/null
  ) >&2 &
  kk_wd_watch=$!
  wait $kk_wd_pid
  kk_wd_rc=$?
  kill $kk_wd_watch 2>/dev/null
  wait $kk_wd_watch 2>/dev/null
  return $kk_wd_rc
}
