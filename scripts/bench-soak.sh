#!/usr/bin/env bash
# Soak check of the embedded store (issue 24): `tidemark serve` under 4 concurrent
# remote-write writers and concurrent PromQL queries for SOAK (10 minutes), with memory
# flat and nothing lost. The generator (internal/benchtest/soak) samples the server's
# VmRSS and RssAnon (/proc/PID/status) and go_memstats_heap_inuse_bytes (its /metrics)
# every 5 s, compares the median of the minute after a 5-minute warm-up (the longest
# query range: until then the queries' windows fill with data) with the last minute's
# (limit: first x 1.2 + 8 MiB; no warm-up in runs shorter than 7 minutes), and at the end counts with PromQL every sample the writers got a
# 2xx for: the count must equal it exactly. Exits 1 when either check fails.
#
# Knobs (environment): SOAK (duration, 10m; e.g. SOAK=30s for a quick check; the windows
# shrink to a quarter of it), WRITERS (4), SERIES (series per writer, 1000), INTERVAL
# (between two requests of one writer, 500ms), QUERIERS (2), TOLERANCE (0.20), PORT
# (19391), TIDEMARK (binary; built when unset), WORK (scratch dir).
set -euo pipefail

SOAK=${SOAK:-10m}
WRITERS=${WRITERS:-4}
SERIES=${SERIES:-1000}
INTERVAL=${INTERVAL:-500ms}
QUERIERS=${QUERIERS:-2}
TOLERANCE=${TOLERANCE:-0.20}
PORT=${PORT:-19391}
WORK=${WORK:-$(mktemp -d /tmp/tidemark-bench-soak.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$WORK/bin"

BIN=${TIDEMARK:-}
# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
need curl "apt-get install curl"

tidemark_bin
(cd "$ROOT" && go build -o "$WORK/bin/soak" ./internal/benchtest/soak)

"$BIN" serve --storage.tsdb.path="$WORK/tidemark-data" --web.listen-address="127.0.0.1:$PORT" \
	--log.level=warn >"$WORK/tidemark.log" 2>&1 &
SERVE=$!
PIDS+=("$SERVE")
for _ in $(seq 1 300); do
	curl -fsS -o /dev/null "http://127.0.0.1:$PORT/-/ready" 2>/dev/null && break
	sleep 0.1
done
curl -fsS -o /dev/null "http://127.0.0.1:$PORT/-/ready" || { echo "bench-soak: tidemark serve did not start; log:" >&2; cat "$WORK/tidemark.log" >&2; exit 1; }

echo "# bench-soak: SOAK=$SOAK WRITERS=$WRITERS SERIES=$SERIES INTERVAL=$INTERVAL QUERIERS=$QUERIERS $(nproc) CPUs, tidemark $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)"
rc=0
"$WORK/bin/soak" -url "http://127.0.0.1:$PORT" -pid "$SERVE" -duration "$SOAK" -writers "$WRITERS" \
	-series "$SERIES" -interval "$INTERVAL" -queriers "$QUERIERS" -tolerance "$TOLERANCE" || rc=$?
if grep -q -E 'level=(ERROR|error)|panic' "$WORK/tidemark.log"; then
	echo "bench-soak: tidemark serve logged errors:" >&2
	grep -E 'level=(ERROR|error)|panic' "$WORK/tidemark.log" | head -n 20 >&2
	rc=1
fi
exit "$rc"
