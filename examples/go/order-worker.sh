#!/usr/bin/env bash
# How examples/run.sh (`make run`) and examples/scripts/test.sh build and start
# this SDK's order-worker. Every examples/<sdk>/order-worker.sh takes part:
#   order-worker.sh build   build / install dependencies (idempotent)
#   order-worker.sh start   run the worker in the foreground (exec); env: ZEEBE_ADDRESS,
#                           JOB_TYPES, STATS_INTERVAL_MS
set -euo pipefail
cd "$(dirname "$0")/order-worker"
case "${1:-}" in
  build) go build -o bin/order-worker . ;;
  start) exec ./bin/order-worker ;;
  *) echo "usage: $0 build|start" >&2; exit 2 ;;
esac
