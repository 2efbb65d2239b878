#!/usr/bin/env bash
# How examples/run.sh (`make run`) and examples/scripts/test.sh build and start
# this SDK's order-worker. Every examples/<sdk>/order-worker.sh takes part:
#   order-worker.sh build   build / install dependencies (idempotent)
#   order-worker.sh start   run the worker in the foreground (exec); env: ZEEBE_ADDRESS,
#                           JOB_TYPES, STATS_INTERVAL_MS
set -euo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
case "${1:-}" in
  build)
    "$HERE/../scripts/build-sdk-node.sh"
    cd "$HERE/order-worker"
    { [ -e node_modules/@jobwire/sdk ] && [ -e node_modules/zod ]; } || npm ci --no-audit --no-fund --loglevel=error
    node --check index.js && node --check stats.js ;;
  start) cd "$HERE/order-worker" && exec node index.js ;;
  *) echo "usage: $0 build|start" >&2; exit 2 ;;
esac
