#!/usr/bin/env bash
# The demo: the whole pipeline on embedded real services (Kafka broker, Iceberg REST catalog, S3-compatible store),
# generated traffic with spikes, and Tally's job jar running locally with the Flink web UI and anomaly detection on;
# live progress, then the top spenders and the latest anomalies read back from Iceberg. Needs only JDK 17 and Maven.
# Options: --duration 120s, --rate 300 (events/s), --web-port 8081, --metrics-port 9249 (the job's Prometheus
# endpoint); --help lists them. The demo is the module it-tests/demo, run on its own class path.
set -euo pipefail
cd "$(dirname "$0")"
echo "Building Tally (the first run downloads dependencies)…"
mvn -B -ntp -q install -DskipTests
exec mvn -B -ntp -q -pl it-tests/demo exec:exec -Ddemo.args="$*"
