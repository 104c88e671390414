#!/usr/bin/env bash
# Embedded-store benchmark (issue 4): remote-write ingest of `tidemark serve` side by side
# with Debian's Prometheus (2.42) in one run, with the same generator
# (internal/store/storebench: N concurrent writers, 2,000 k6-shaped samples per request,
# as a remote-write shard sends them). Runs are interleaved; prints samples/s per run,
# the medians and the ratio tidemark / prometheus. Both servers start with empty data
# directories under $WORK.
#
# The generator encodes its requests before each run's clock starts (-preencode-rate), so
# the servers are measured, not the client's protobuf marshalling and compression.
#
# Knobs (environment): D (seconds per run, 10), REPS (interleaved repetitions, 3),
# WRITERS (4), SERIES (samples per request, 2000), PIN (1: servers on CPU 0, generator on
# CPU 1; 0: share both cores, default), PORT (19291; Prometheus gets PORT+1),
# TIDEMARK (binary; built when unset), PROMETHEUS (/usr/bin/prometheus), WORK (scratch dir).
set -euo pipefail

D=${D:-10}
REPS=${REPS:-3}
WRITERS=${WRITERS:-4}
SERIES=${SERIES:-2000}
PIN=${PIN:-0}
PORT=${PORT:-19291}
PROM_PORT=$((PORT + 1))
PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
WORK=${WORK:-$(mktemp -d /tmp/tidemark-bench-store.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$WORK/bin"

BIN=${TIDEMARK:-}
# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
need curl "apt-get install curl"
[[ -x $PROMETHEUS ]] || { echo "bench-store: $PROMETHEUS is required (apt-get install --no-install-recommends prometheus)" >&2; exit 1; }
[[ $PIN == 1 ]] && need taskset "util-linux"

tidemark_bin
(cd "$ROOT" && go build -o "$WORK/bin/storebench" ./internal/store/storebench)

server_cpu=() gen_cpu=()
if [[ $PIN == 1 ]]; then server_cpu=(taskset -c 0); gen_cpu=(taskset -c 1); fi

wait_ready() { # url name
	for _ in $(seq 1 300); do
		curl -fsS -o /dev/null "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "bench-store: $2 not ready at $1; log:" >&2
	cat "$WORK/$2.log" >&2
	exit 1
}

"${server_cpu[@]}" "$BIN" serve --storage.tsdb.path="$WORK/tidemark-data" \
	--web.listen-address="127.0.0.1:$PORT" --log.level=warn >"$WORK/tidemark.log" 2>&1 &
PIDS+=($!)
printf 'global:\n  scrape_interval: 15s\n' >"$WORK/prometheus.yml"
"${server_cpu[@]}" "$PROMETHEUS" --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/prom-data" \
	--web.listen-address="127.0.0.1:$PROM_PORT" --web.enable-remote-write-receiver \
	--enable-feature=native-histograms --log.level=warn >"$WORK/prometheus.log" 2>&1 &
PIDS+=($!)
wait_ready "http://127.0.0.1:$PORT/-/ready" tidemark
wait_ready "http://127.0.0.1:$PROM_PORT/-/ready" prometheus
PROM_VERSION=$(curl -fsS "http://127.0.0.1:$PROM_PORT/api/v1/status/buildinfo" | sed -n 's/.*"version":"\([^"]*\)".*/\1/p')

run_one() { # label url proto round
	"${gen_cpu[@]}" "$WORK/bin/storebench" -label "$1" -url "$2" -proto "$3" -testid "$1-$4" \
		-writers "$WRITERS" -series "$SERIES" -duration "${D}s" | tee -a "$WORK/results.txt"
}

: >"$WORK/results.txt"
echo "# bench-store: D=${D}s REPS=$REPS WRITERS=$WRITERS SERIES=$SERIES PIN=$PIN prometheus=$PROM_VERSION $(nproc) CPUs"
for r in $(seq 1 "$REPS"); do
	run_one tidemark "http://127.0.0.1:$PORT/api/v1/write" v1 "$r"
	run_one prometheus "http://127.0.0.1:$PROM_PORT/api/v1/write" v1 "$r"
	run_one tidemark-rw2 "http://127.0.0.1:$PORT/api/v1/write" v2 "$r"
done

median() { # label
	grep "^target=$1 " "$WORK/results.txt" | sed -n 's/.*samples_per_second=\([0-9]*\).*/\1/p' | sort -n |
		awk '{a[NR]=$1} END {if (NR==0) print 0; else if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'
}
T=$(median tidemark)
P=$(median prometheus)
T2=$(median tidemark-rw2)
echo
printf '%-28s %14s\n' "target (median of $REPS)" "samples/s"
printf '%-28s %14.0f\n' "tidemark serve (RW 1.0)" "$T" "tidemark serve (RW 2.0)" "$T2" "prometheus $PROM_VERSION (RW 1.0)" "$P"
awk -v t="$T" -v p="$P" 'BEGIN { if (p > 0) printf "ratio tidemark/prometheus (RW 1.0): %.2f\n", t / p }'
awk -v t="$T" 'BEGIN { printf "goal >= 500000 samples/s: %s\n", (t >= 500000 ? "met" : "NOT met") }'
