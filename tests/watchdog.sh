# tests/watchdog.sh -- sourced by test scripts: kk_watchdog SECONDS COMMAND... runs COMMAND and, when it has not ended after SECONDS, prints its threads' stacks and ends it.
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#
# Returns COMMAND's exit status, or 137 when the watchdog ended it.  What
# the watchdog prints goes to standard error, so that a caller may take
# COMMAND's standard output with $(...): a line starting "kk-watchdog:",
# then every thread's stack as gdb reads it (when gdb is installed and may
# attach), before COMMAND is killed with SIGKILL.  .ci/run prints every
# test log that holds such a line after README command 2 and after the
# ASan+UBSan step, whether the test passed or not, so that a hang is seen
# with its stacks.
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
    echo "kk-watchdog: '$*' (pid $kk_wd_pid) did not end within $kk_wd_secs s; its threads:"
    if command -v gdb >/dev/null 2>&1; then
      gdb -batch -nx -p $kk_wd_pid -ex 'info threads' -ex 'thread apply all bt' </dev/null 2>&1 |
        grep -v -e '^\[New LWP' -e '^\[Thread debugging'
    else
      echo "kk-watchdog: gdb is not installed: no stacks"
    fi
    kill -KILL $kk_wd_pid 2>/dev/null
  ) >&2 &
  kk_wd_watch=$!
  wait $kk_wd_pid
  kk_wd_rc=$?
  kill $kk_wd_watch 2>/dev/null
  wait $kk_wd_watch 2>/dev/null
  return $kk_wd_rc
}
