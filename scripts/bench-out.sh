#!/usr/bin/env bash
# File outputs beside the engine (issue 15): tidemark run at a constant arrival rate of
# 20,000 requests/s against the built-in target, without an output, with --out json and
# with --out csv, alternated REPS times, target pinned to CPU 0 and the generator to
# CPU 1. Prints each run's achieved rate (the target's count over the run), dropped
# iterations and dropped output samples, and the ratio of the rates with and without
# each output (goal: >= 0.9).
#
# Knobs (environment): D (seconds per run, 20), RATE (20000), REPS (1), PORT (18299),
# TIDEMARK (binary; default bin/tidemark from make build, else built here), WORK
# (scratch directory; the output files go there and are removed after each run).
set -euo pipefail

D=${D:-20}
RATE=${RATE:-20000}
REPS=${REPS:-1}
PORT=${PORT:-18299}
WORK=${WORK:-$(mktemp -d /tmp/tidemark-bench-out.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${TIDEMARK:-$ROOT/bin/tidemark}
mkdir -p "$WORK/bin"

# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
need taskset "util-linux"
need curl "apt-get install curl"
need python3 "apt-get install python3"
need /usr/bin/time "apt-get install time"

tidemark_bin
start_target "$PORT"

cat >"$WORK/open.yaml" <<YAML
scenarios:
  open: { executor: constant-arrival-rate, rate: $RATE, duration: ${D}s, preAllocatedVUs: 200, maxVUs: 300 }
flow:
  - url: http://127.0.0.1:$PORT/
YAML

declare -A SUM
one() { # name, extra args...
	local name=$1; shift
	local before after
	before=$(served "$PORT")
	gen "$BIN" run -q --no-embedded-store --summary-export "$WORK/$name.json" "$@" "$WORK/open.yaml" >"$WORK/$name.out" 2>&1 || true
	after=$(served "$PORT")
	local rps=$(((after - before) / D))
	SUM[$name]=$((${SUM[$name]:-0} + rps))
	local size=0
	for f in "$WORK"/out.*; do [[ -e $f ]] && size=$(stat -c %s "$f"); done
	python3 - "$WORK/$name.json" "$WORK/$name.out" "$name" "$rps" "$RATE" "$(cat "$WORK/cpu")" "$((after - before))" "$size" <<'PY'
import json, re, sys
path, out, name, rps, rate, cpu, n, size = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), float(sys.argv[6]), int(sys.argv[7]), int(sys.argv[8])
m = json.load(open(path))["metrics"]
dropped = m.get("dropped_iterations", {}).get("count", 0)
text = open(out).read()
lost = sum(int(x) for x in re.findall(r"(\d+) samples dropped", text))
print(f"  {name:<5} {rps:>7d} req/s ({100*rps/rate:5.1f}% of {rate:.0f}/s)  dropped iterations {dropped:>6.0f}  "
      f"output samples dropped {lost:>7d}  CPU {cpu*1e6/max(n,1):5.1f} us/req  file {size/1e6:7.1f} MB")
PY
	rm -f "$WORK"/out.*
}

echo "== constant-arrival-rate $RATE/s for ${D}s, $REPS rep(s); target pinned to CPU 0, tidemark run to CPU 1"
for rep in $(seq "$REPS"); do
	echo " rep $rep (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	one off
	one json --out "json=$WORK/out.json"
	one csv --out "csv=$WORK/out.csv"
done
ratio() { awk -v a="${SUM[$1]}" -v b="${SUM[$2]}" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "n/a" }'; }
echo "== achieved rate with the output / without (sums over reps)"
echo "  --out json  $(ratio json off)   (goal >= 0.9)"
echo "  --out csv   $(ratio csv off)   (goal >= 0.9)"
echo "== scratch files in $WORK"
