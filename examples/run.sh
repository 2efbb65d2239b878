#!/usr/bin/env bash
# `make run`: the first five minutes of jobwire in one command.
#
#   1. builds the reference engine, the load driver and the order-worker of every
#      SDK that has an examples/<sdk>/order-worker.sh (Go, Node, Python and Java today; a new SDK
#      joins by adding that file and its order-worker folder),
#   2. starts `jobwire-engine dev` on a free 127.0.0.1 port,
#   3. starts the order-workers, splitting the job types of
#      examples/bpmn/order-fulfilment.bpmn between the SDKs,
#   4. deploys the process and drives instances (examples/go/load), with one live
#      status line per SDK, then prints a summary table,
#   5. stops everything (also on Ctrl-C): no process is left behind.
#
# Environment:
#   INSTANCES    instances to run (default 10000 on a terminal, 2000 with CI=true
#                or without a terminal; 0 = until Ctrl-C)
#   MAX_DURATION stop creating instances after this long (default 60s in CI mode)
#   CONCURRENCY  instances in flight (default 64)
#   SDKS         SDKs to run, e.g. "go" (default: every examples/<sdk>/order-worker.sh)
#   SUMMARY_JSON write the summary as JSON to this file
#   UI_PORT      port of the engine's live view page (default 0: a free port; its
#                address is printed as "run: live view ...")
# With CI=true or no terminal, progress is printed as plain lines and the exit
# status is 0 only if every instance completed with the expected result.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
EX="$ROOT/examples"
cd "$ROOT"

PLAIN=0
if [ "${CI:-}" = "true" ] || [ ! -t 1 ]; then PLAIN=1; fi
if [ "$PLAIN" = 1 ]; then
  INSTANCES="${INSTANCES:-2000}"; MAX_DURATION="${MAX_DURATION:-60s}"
else
  INSTANCES="${INSTANCES:-10000}"; MAX_DURATION="${MAX_DURATION:-0}"
fi
CONCURRENCY="${CONCURRENCY:-64}"
JOB_TYPES=(payment inventory shipping notify-customer)

if [ -z "${SDKS:-}" ]; then
  SDKS=""
  for f in "$EX"/*/order-worker.sh; do SDKS="$SDKS $(basename "$(dirname "$f")")"; done
fi
read -r -a SDK_LIST <<<"$SDKS"
[ "${#SDK_LIST[@]}" -gt 0 ] || { echo "run: no examples/<sdk>/order-worker.sh found" >&2; exit 1; }

RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/jobwire-run.XXXXXX")"
PIDS=()      # process-group leaders we started (each via setsid)
KEEP_DIR=0
t_start=$(date +%s.%N)
say() { echo "run: $*"; }
elapsed() { awk -v a="$t_start" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}'; }

stop_group() { # pid: SIGTERM the process group, SIGKILL after 10 s
  local pid=$1 i
  kill -TERM -- "-$pid" 2>/dev/null || return 0
  for i in $(seq 1 100); do
    kill -0 -- "-$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL -- "-$pid" 2>/dev/null || true
}

cleanup() {
  local rc=$?
  trap - EXIT INT TERM HUP
  local i
  # workers first (they print a final stats line), the engine last
  for ((i=${#PIDS[@]}-1; i>=0; i--)); do stop_group "${PIDS[$i]}"; done
  exec 9>&- 2>/dev/null || true
  wait 2>/dev/null || true
  if [ "$rc" -ne 0 ] || [ "$KEEP_DIR" = 1 ]; then
    say "logs kept in $RUN_DIR"
  else
    rm -rf "$RUN_DIR"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# --- 1. build -------------------------------------------------------------
say "building the engine, the load driver and the order-workers (${SDK_LIST[*]})"
make -s -C "$ROOT" --no-print-directory engine
(cd "$EX/go/load" && go build -o "$RUN_DIR/load" .)
for sdk in "${SDK_LIST[@]}"; do
  [ -x "$EX/$sdk/order-worker.sh" ] || { echo "run: examples/$sdk/order-worker.sh is missing" >&2; exit 1; }
  "$EX/$sdk/order-worker.sh" build
done
say "built in $(elapsed)s"

# --- 2. engine ------------------------------------------------------------
mkfifo "$RUN_DIR/engine.stdin"
setsid engine-reference/bin/jobwire-engine dev --port 0 --ui-port "${UI_PORT:-0}" --exit-on-stdin-close \
  <"$RUN_DIR/engine.stdin" >"$RUN_DIR/engine.log" 2>&1 &
PIDS+=($!)
exec 9>"$RUN_DIR/engine.stdin" # the engine exits when this script goes away
PORT=""
for _ in $(seq 1 200); do
  PORT=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$RUN_DIR/engine.log" 2>/dev/null | head -1 | cut -d: -f2 || true)
  [ -n "$PORT" ] && break
  kill -0 "${PIDS[0]}" 2>/dev/null || break
  sleep 0.05
done
if [ -z "$PORT" ]; then
  echo "run: the engine did not start:" >&2; cat "$RUN_DIR/engine.log" >&2; exit 1
fi
export ZEEBE_ADDRESS="127.0.0.1:$PORT"
say "jobwire-engine dev listening on $ZEEBE_ADDRESS"
UI_URL=""
for _ in $(seq 1 40); do
  UI_URL=$(grep -o 'live view http://127.0.0.1:[0-9]*/' "$RUN_DIR/engine.log" 2>/dev/null | head -1 | cut -d' ' -f3 || true)
  [ -n "$UI_URL" ] && break
  sleep 0.05
done
if [ -n "$UI_URL" ]; then
  say "live view (jobs, streams, polls, incidents as they happen): $UI_URL"
fi

# --- 3. workers: job types round-robin over the SDKs -----------------------
declare -A TYPES_OF=()
for i in "${!JOB_TYPES[@]}"; do
  sdk="${SDK_LIST[$((i % ${#SDK_LIST[@]}))]}"
  TYPES_OF[$sdk]="${TYPES_OF[$sdk]:+${TYPES_OF[$sdk]},}${JOB_TYPES[$i]}"
done
WORKER_FLAGS=()
declare -A PID_OF=()
for sdk in "${SDK_LIST[@]}"; do
  types="${TYPES_OF[$sdk]:-}"
  if [ -z "$types" ]; then types="${JOB_TYPES[*]}"; types="${types// /,}"; fi # more SDKs than types: compete
  JOB_TYPES="$types" STATS_INTERVAL_MS=500 setsid "$EX/$sdk/order-worker.sh" start \
    </dev/null >"$RUN_DIR/$sdk.out" 2>"$RUN_DIR/$sdk.err" &
  PIDS+=($!); PID_OF[$sdk]=$!
  WORKER_FLAGS+=(-worker "$sdk=$types=$RUN_DIR/$sdk.out")
  say "started the $sdk order-worker for $types"
done
for sdk in "${SDK_LIST[@]}"; do
  for _ in $(seq 1 600); do
    grep -q 'ready' "$RUN_DIR/$sdk.err" 2>/dev/null && break
    if ! kill -0 "${PID_OF[$sdk]}" 2>/dev/null; then
      echo "run: the $sdk order-worker exited:" >&2; cat "$RUN_DIR/$sdk.err" >&2; exit 1
    fi
    sleep 0.05
  done
  grep -q 'ready' "$RUN_DIR/$sdk.err" || { echo "run: the $sdk order-worker is not ready after 30 s:" >&2; cat "$RUN_DIR/$sdk.err" >&2; exit 1; }
done
say "workers ready after $(elapsed)s; driving $([ "$INSTANCES" = 0 ] && echo "instances until Ctrl-C" || echo "$INSTANCES instances") ($CONCURRENCY in flight)"
echo

# --- 4. drive -------------------------------------------------------------
DRIVER_ARGS=(-bpmn "$EX/bpmn/order-fulfilment.bpmn" -instances "$INSTANCES" -concurrency "$CONCURRENCY"
  -max-duration "$MAX_DURATION" "${WORKER_FLAGS[@]}")
[ "$PLAIN" = 1 ] && DRIVER_ARGS+=(-plain)
[ -n "${SUMMARY_JSON:-}" ] && DRIVER_ARGS+=(-summary-json "$SUMMARY_JSON")
set +e
"$RUN_DIR/load" "${DRIVER_ARGS[@]}"
rc=$?
set -e
for sdk in "${SDK_LIST[@]}"; do
  if grep -qiE 'panic|fatal|unhandled' "$RUN_DIR/$sdk.err"; then
    echo "run: the $sdk order-worker reported a problem:" >&2; tail -20 "$RUN_DIR/$sdk.err" >&2; rc=1
  fi
done
say "total $(elapsed)s"
exit "$rc"
