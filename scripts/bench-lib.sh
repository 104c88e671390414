# Shared by the benchmark scripts (source it): tool checks, the built-in target pinned to
# CPU 0, its served-request count, and generators pinned to CPU 1 under /usr/bin/time.
# The caller sets WORK, BIN (the tidemark binary) and ROOT first.

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

need() { command -v "$1" >/dev/null 2>&1 || { echo "$(basename "$0"): $1 is required ($2)" >&2; exit 1; }; }

# tidemark_bin leaves a tidemark binary in BIN: the given one if it exists, else one
# built from ROOT into WORK.
tidemark_bin() {
	if [[ ! -x $BIN ]]; then
		(cd "$ROOT" && go build -o "$WORK/bin/tidemark" ./cmd/tidemark)
		BIN=$WORK/bin/tidemark
	fi
}

start_target() { # port, extra args...
	local port=$1; shift
	taskset -c 0 "$BIN" target --web.listen-address="127.0.0.1:$port" "$@" >"$WORK/target-$port.log" 2>&1 &
	PIDS+=($!)
	for _ in $(seq 100); do curl -fs "http://127.0.0.1:$port/healthz" >/dev/null && return; sleep 0.05; done
	echo "$(basename "$0"): target on $port did not start" >&2; exit 1
}
served() { curl -fs "http://127.0.0.1:$1/stats" | sed -E 's/.*"requests":([0-9]+).*/\1/'; }

# gen runs a generator on CPU 1 and leaves its max RSS (KiB) in $WORK/rss, its user+sys
# CPU seconds in $WORK/cpu and its wall seconds in $WORK/wall.
gen() {
	taskset -c 1 /usr/bin/time -f "%M %U %S %e" -o "$WORK/time" "$@"
	local rc=$?
	tail -n1 "$WORK/time" | awk '{print $1}' >"$WORK/rss"
	tail -n1 "$WORK/time" | awk '{print $2 + $3}' >"$WORK/cpu"
	tail -n1 "$WORK/time" | awk '{print $4}' >"$WORK/wall"
	return $rc
}

# rss_growth runs a command in the background and prints its RSS when the target on port
# has served from and to more requests since it started (the growth between them).
rss_growth() { # port, from, to, command...
	local port=$1 from=$2 to=$3; shift 3
	local base rss1="" n rss t0
	base=$(served "$port")
	taskset -c 1 "$@" >"$WORK/growth.out" 2>&1 &
	local pid=$!
	PIDS+=("$pid")
	t0=$(date +%s)
	while kill -0 "$pid" 2>/dev/null; do
		n=$(($(served "$port") - base))
		rss=$(awk '/^VmRSS/ {print $2}' "/proc/$pid/status")
		if [[ -z $rss1 && $n -ge $from ]]; then rss1=$rss; fi
		if [[ -n $rss1 && $n -ge $to ]]; then
			echo "  RSS at $from requests ${rss1} KiB, at $to ${rss} KiB: growth $(((rss - rss1) / 1024)) MiB (goal < 5 MiB), $((n / ($(date +%s) - t0 + 1))) req/s"
			break
		fi
		sleep 0.5
	done
	kill -INT "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
}
