#!/usr/bin/env bash
# Load-engine benchmarks (issue 2): tidemark run side by side with wrk, hey, vegeta and a
# plain net/http loop (the Go ceiling), all against the same built-in target, target
# pinned to CPU 0 and generators to CPU 1. Prints requests/s per tool and the ratios, the
# open model at 20,000 iterations/s, KiB per VU at 10,000 VUs and RSS growth between 1M
# and 5M requests.
#
# Knobs (environment): D (seconds per closed-model run, 10), REPS (interleaved
# repetitions, 1), OPEN_RATE (20000), MEM_D (seconds per memory run, 15),
# GROWTH (1 to measure RSS growth between 1M and 5M requests, 0 to skip), PORT (18199),
# TIDEMARK (binary; default bin/tidemark from make build, else built here), WORK (scratch directory).
set -euo pipefail

D=${D:-10}
REPS=${REPS:-1}
OPEN_RATE=${OPEN_RATE:-20000}
MEM_D=${MEM_D:-15}
GROWTH=${GROWTH:-1}
PORT=${PORT:-18199}
SLOW_PORT=$((PORT + 1))
WORK=${WORK:-$(mktemp -d /tmp/tidemark-bench.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${TIDEMARK:-$ROOT/bin/tidemark}
mkdir -p "$WORK/bin"

# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
need taskset "util-linux"
need wrk "apt-get install wrk"
need hey "apt-get install hey"
need curl "apt-get install curl"
need /usr/bin/time "apt-get install time"

tidemark_bin
(cd "$ROOT" && go build -o "$WORK/bin/gohttp" ./internal/target/gohttp)
VEGETA=$(command -v vegeta || true)
if [[ -z $VEGETA ]]; then
	VEGETA=$WORK/bin/vegeta
	[[ -x $VEGETA ]] || GOBIN=$WORK/bin go install github.com/tsenart/vegeta/v12@v12.13.0
fi

start_target "$PORT"
URL="http://127.0.0.1:$PORT/"

cat >"$WORK/closed.yaml" <<YAML
scenarios:
  closed: { executor: constant-vus, vus: 50, duration: ${D}s }
flow:
  - url: $URL
YAML
cat >"$WORK/open.yaml" <<YAML
scenarios:
  open: { executor: constant-arrival-rate, rate: $OPEN_RATE, duration: ${D}s, preAllocatedVUs: 200, maxVUs: 300 }
flow:
  - url: $URL
YAML

declare -A SUM CPUSUM REQSUM
run_tool() { # name, command...
	local name=$1; shift
	local before after
	before=$(served "$PORT")
	"$@" >"$WORK/$name.out" 2>&1 || true
	after=$(served "$PORT")
	local rps=$(((after - before) / D))
	SUM[$name]=$((${SUM[$name]:-0} + rps))
	REQSUM[$name]=$((${REQSUM[$name]:-0} + after - before))
	CPUSUM[$name]=$(awk -v a="${CPUSUM[$name]:-0}" -v b="$(cat "$WORK/cpu")" 'BEGIN { print a + b }')
	printf '  %-10s %8d req/s  gen max RSS %6d KiB  gen CPU %5.1f us/req\n' "$name" "$rps" "$(cat "$WORK/rss")" \
		"$(awk -v c="$(cat "$WORK/cpu")" -v n=$((after - before)) 'BEGIN { if (n > 0) print c * 1e6 / n; else print 0 }')"
}

echo "== closed model, 50 connections/VUs, ${D}s, $REPS rep(s); target pinned to CPU 0, generators to CPU 1"
for rep in $(seq "$REPS"); do
	echo " rep $rep (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	run_tool gohttp gen "$WORK/bin/gohttp" -url "$URL" -c 50 -d "${D}s"
	run_tool tidemark gen "$BIN" run -q --no-embedded-store "$WORK/closed.yaml"
	run_tool wrk gen wrk -t1 -c50 -d"${D}s" "$URL"
	run_tool hey gen hey -z "${D}s" -c 50 "$URL"
	run_tool vegeta gen sh -c "echo 'GET $URL' | '$VEGETA' attack -rate=0 -workers=50 -max-workers=50 -duration=${D}s > /dev/null"
done
ratio() { awk -v a="${SUM[$1]}" -v b="${SUM[$2]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }
echo "== ratios (sums over reps)"
echo "  tidemark/gohttp  $(ratio tidemark gohttp)   (goal >= 0.9)"
echo "  tidemark/vegeta  $(ratio tidemark vegeta)   (goal >= 1.2)"
echo "  tidemark/hey     $(ratio tidemark hey)   (goal >= 1.0)"
echo "  tidemark/wrk     $(ratio tidemark wrk)"
# When the target's core saturates, requests/s converge; the generator's own CPU per
# request still tells the tools apart.
echo "== generator CPU per request (user+sys over the target's count, sums over reps)"
for t in gohttp tidemark wrk hey vegeta; do
	awk -v t="$t" -v c="${CPUSUM[$t]}" -v n="${REQSUM[$t]}" 'BEGIN { if (n > 0) printf "  %-10s %6.1f us/req\n", t, c * 1e6 / n }'
done

echo "== open model: constant-arrival-rate $OPEN_RATE/s for ${D}s (preAllocatedVUs 200, maxVUs 300)"
gen "$BIN" run -q --no-embedded-store --summary-export "$WORK/open.json" "$WORK/open.yaml" >"$WORK/open.out" 2>&1 || true
python3 - "$WORK/open.json" "$OPEN_RATE" "$D" "$(cat "$WORK/rss")" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))["metrics"]
rate, d, rss = float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
it = m.get("iterations", {}).get("count", 0)
dr = m.get("dropped_iterations", {}).get("count", 0)
p99 = m.get("http_req_duration", {}).get("p(95)", 0)
print(f"  achieved {it:.0f} of {rate*d:.0f} ({100*it/(rate*d):.1f}%, goal >= 95%), dropped {dr:.0f}, "
      f"http_req_duration p(95) {p99:.2f} ms, max RSS {rss/1024:.1f} MiB (goal < 64 MiB)")
PY

echo "== memory per VU: constant-vus against a 1 s-latency target, ${MEM_D}s"
start_target "$SLOW_PORT" --latency=1s
declare -A RSS
for n in 1000 10000; do
	cat >"$WORK/mem-$n.yaml" <<YAML
scenarios:
  mem: { executor: constant-vus, vus: $n, duration: ${MEM_D}s, gracefulStop: 5s }
flow:
  - url: http://127.0.0.1:$SLOW_PORT/
YAML
	before=$(served "$SLOW_PORT")
	gen "$BIN" run -q --no-embedded-store "$WORK/mem-$n.yaml" >"$WORK/mem-$n.out" 2>&1 || true
	RSS[$n]=$(cat "$WORK/rss")
	echo "  VUs=$n max RSS ${RSS[$n]} KiB, $((($(served "$SLOW_PORT") - before) / MEM_D)) req/s"
done
awk -v a="${RSS[1000]}" -v b="${RSS[10000]}" 'BEGIN { printf "  KiB per VU (slope 1,000 -> 10,000 VUs): %.1f (goal <= 50)\n", (b - a) / 9000 }'

if [[ $GROWTH == 1 ]]; then
	echo "== RSS growth between 1M and 5M requests (closed model, 50 VUs)"
	sed "s/duration: ${D}s/duration: 30m/" "$WORK/closed.yaml" >"$WORK/long.yaml"
	rss_growth "$PORT" 1000000 5000000 "$BIN" run -q --no-embedded-store "$WORK/long.yaml"
fi
echo "== scratch files in $WORK"
