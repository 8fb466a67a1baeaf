#!/usr/bin/env bash
# Thread dumps of the recovery bench's TaskManagers in the seconds after each loss
# (docs/benchmarks.md "Recovery": where "restore done -> RUNNING" goes).
#   it-tests/bench/recovery-dumps.sh [OUT]   # beside `./bench.sh recovery ...`, from the same worktree
# Watches the TaskManager JVMs (TaskManagerRunner) whose command line names this worktree. When one
# disappears (the bench's kill -9, or the stop after a class-archive training), it sends SIGQUIT to
# every live one every 200 ms for 6 s. SIGQUIT makes the JVM print a thread dump to its stdout, which
# FlinkCluster appends to the TaskManager's log (target/bench/run-*/flink/taskmanager-N.log): no
# extra JVM per sample (jcmd or jstack would start one each time on the same loaded cores). A dump
# carries no timestamp finer than a second, so OUT (default target/bench/recovery-dumps.log) logs
# each signal's epoch milliseconds and pid: the k-th dump in a TaskManager's log is the k-th signal to
# its pid, and the pids are logged in start order, the order of the taskmanager-N names. Stop it by
# its pid after the bench.
set -u
cd "$(dirname "$0")/../.."
root=$(pwd)
out=${1:-$root/target/bench/recovery-dumps.log}
mkdir -p "$(dirname "$out")"
declare -A known
scan() {
  local p
  for p in $(pgrep -f "TaskManagerRunner.*$root/"); do
    if [ -z "${known[$p]:-}" ]; then
      known[$p]=1
      echo "$(date +%s%3N) new $p" >>"$out"
    fi
  done
}
last_scan=0
while true; do
  now=$(date +%s%3N)
  if ((now - last_scan > 1000)); then
    scan
    last_scan=$now
  fi
  gone=""
  for p in "${!known[@]}"; do
    if ! kill -0 "$p" 2>/dev/null; then
      gone="$gone $p"
      unset "known[$p]"
    fi
  done
  if [ -n "$gone" ]; then
    echo "$(date +%s%3N) gone$gone" >>"$out"
    scan
    for i in $(seq 1 30); do
      t=$(date +%s%3N)
      for p in "${!known[@]}"; do
        kill -QUIT "$p" 2>/dev/null && echo "$t quit $i $p" >>"$out"
      done
      # The replacement standby starts during the burst; dump it too once it is up.
      if ((i % 5 == 0)); then scan; fi
      sleep 0.2
    done
    echo "$(date +%s%3N) burst done" >>"$out"
  fi
  sleep 0.05
done
