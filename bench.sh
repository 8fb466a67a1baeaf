#!/usr/bin/env bash
# The benchmark (docs/benchmarks.md) on embedded real services. Needs only JDK 17 and Maven.
#   ./bench.sh [throughput] [--events 5000000] [--parallelism 2] [--legs ceiling,tally,sql] ...
#   ./bench.sh freshness [--rate 20000] [--duration 180s] [--window 10s] [--checkpoint-interval 10s]
#   ./bench.sh backpressure [--fault writer|store] [--rate 20000] [--throttle 1500] [--store-latency 200ms] [--store-bandwidth 0] [--duration 180s]
#   ./bench.sh anomalies [--users 100000] [--days 10] [--time-limit 15m]
#   ./bench.sh anomaly-latency [--rate 20000] [--warmup 60s] [--duration 180s] [--checkpoint-interval 10s] [--deliveries exactly-once,at-least-once]
#   ./bench.sh recovery [--kills 10] [--rate 5000] [--users 2000] [--cluster-set KEY=VALUE] [--tally-set KEY=VALUE] [--[no-]class-archive]
#   ./bench.sh compare [--events 1000000] [--rate 20000] [--duration 120s] [--kills 3]  # every leg, three figures
#   ./bench.sh scale [--cells 1Mx10k,5Mx100k,5Mx1M,20Mx1M] [--no-ceiling] [--time-limit 15m]  # Tally's cost curve
#   ./bench.sh jmh          # the JMH benchmarks: decode, validate, state update and a cold dedupe read on RocksDB
# --help (also after a mode) lists every option. Results: target/bench/ (JSON, Markdown, PNG).
# Thread dumps of the TaskManagers after each recovery kill: it-tests/bench/recovery-dumps.sh beside the run.
set -euo pipefail
cd "$(dirname "$0")"
# The Spark leg (it-tests/bench-spark) is built only when asked for: `compare`, or a spark leg.
profiles=()
case " $* " in
  *" compare "* | *spark*) profiles=(-Pspark) ;;
esac
echo "Building Tally (the first run downloads dependencies)…"
mvn -B -ntp -q install -DskipTests "${profiles[@]}"
if [ "${1:-}" = "jmh" ]; then
  shift
  exec mvn -B -ntp -q -pl adapters-kafka,runtime-flink -Pjmh test-compile exec:exec
fi
exec mvn -B -ntp -q -pl it-tests/bench exec:exec -Dbench.args="$*"
