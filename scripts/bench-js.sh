#!/usr/bin/env bash
# JavaScript runtime benchmarks (issue 14), side by side in one run against the same
# built-in target (pinned to CPU 0, generators to CPU 1):
#   - closed model, 50 VUs: a k6 script doing http.get, the same request as a YAML flow,
#     and a plain net/http loop; the ratios JS/YAML (goal >= 0.5) and JS/net/http (>= 1.0);
#   - memory: max RSS per VU at 1,000 and 5,000 VUs of a seed-style script (get, check,
#     sleep(1)) against a 1 s-latency target (goal <= 1 MiB per VU);
#   - init: 1,000 VUs initialised and one empty iteration each, the whole run's wall time
#     (goal: VUs ready in < 2 s);
#   - RSS growth of the JS closed model between 1M and 5M iterations (goal < 5 MiB).
#
# Knobs (environment): D (seconds per closed-model run, 10), REPS (1), MEM_D (seconds per
# memory run, 15), GROWTH (1, or 0 to skip the growth run), PORT (18299), TIDEMARK
# (binary; default bin/tidemark, else built here), WORK (scratch directory).
set -euo pipefail

D=${D:-10}
REPS=${REPS:-1}
MEM_D=${MEM_D:-15}
GROWTH=${GROWTH:-1}
PORT=${PORT:-18299}
SLOW_PORT=$((PORT + 1))
WORK=${WORK:-$(mktemp -d /tmp/tidemark-bench-js.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${TIDEMARK:-$ROOT/bin/tidemark}
mkdir -p "$WORK/bin"

# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
need taskset "util-linux"
need curl "apt-get install curl"
need /usr/bin/time "apt-get install time"
tidemark_bin
(cd "$ROOT" && go build -o "$WORK/bin/gohttp" ./internal/target/gohttp)

start_target "$PORT"
URL="http://127.0.0.1:$PORT/"
start_target "$SLOW_PORT" --latency=1s
SLOW="http://127.0.0.1:$SLOW_PORT/"

cat >"$WORK/closed.yaml" <<YAML
scenarios:
  closed: { executor: constant-vus, vus: 50, duration: ${D}s }
flow:
  - url: $URL
YAML
closed_js() { # duration
	cat <<JS
import http from 'k6/http';
export const options = { scenarios: { closed: { executor: 'constant-vus', vus: 50, duration: '$1' } } };
export default function () { http.get('$URL'); }
JS
}
closed_js "${D}s" >"$WORK/closed.js"

declare -A SUM
run_tool() { # name, command...
	local name=$1; shift
	local before after
	before=$(served "$PORT")
	"$@" >"$WORK/$name.out" 2>&1 || true
	after=$(served "$PORT")
	local rps=$(((after - before) / D))
	SUM[$name]=$((${SUM[$name]:-0} + rps))
	printf '  %-10s %8d req/s  gen max RSS %7d KiB  gen CPU %5.1f us/req\n' "$name" "$rps" "$(cat "$WORK/rss")" \
		"$(awk -v c="$(cat "$WORK/cpu")" -v n=$((after - before)) 'BEGIN { if (n > 0) print c * 1e6 / n; else print 0 }')"
}
ratio() { awk -v a="${SUM[$1]}" -v b="${SUM[$2]}" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "n/a" }'; }

echo "== closed model, 50 VUs, ${D}s, $REPS rep(s)"
for rep in $(seq "$REPS"); do
	echo " rep $rep (load average $(cut -d' ' -f1-3 /proc/loadavg))"
	run_tool gohttp gen "$WORK/bin/gohttp" -url "$URL" -c 50 -d "${D}s"
	run_tool yaml gen "$BIN" run -q --no-embedded-store "$WORK/closed.yaml"
	run_tool js gen "$BIN" run -q --no-embedded-store "$WORK/closed.js"
done
echo "== ratios (sums over reps)"
echo "  js/yaml    $(ratio js yaml)   (goal >= 0.5)"
echo "  js/gohttp  $(ratio js gohttp)   (goal >= 1.0)"

echo "== memory per VU: constant-vus, get + check + sleep(1) against a 1 s-latency target, ${MEM_D}s"
declare -A RSS
for n in 1000 5000; do
	cat >"$WORK/mem-$n.js" <<JS
import http from 'k6/http';
import { check, sleep } from 'k6';
export const options = { scenarios: { mem: { executor: 'constant-vus', vus: $n, duration: '${MEM_D}s', gracefulStop: '5s' } } };
export default function () {
  const res = http.get('$SLOW', { tags: { name: 'slow' } });
  check(res, { 'status is 200': (r) => r.status === 200 });
  sleep(1);
}
JS
	before=$(served "$SLOW_PORT")
	gen "$BIN" run -q --no-embedded-store "$WORK/mem-$n.js" >"$WORK/mem-$n.out" 2>&1 || true
	RSS[$n]=$(cat "$WORK/rss")
	awk -v n="$n" -v r="${RSS[$n]}" -v q=$((($(served "$SLOW_PORT") - before) / MEM_D)) \
		'BEGIN { printf "  VUs=%d max RSS %d KiB (%.0f KiB per VU, all in), %d req/s\n", n, r, r / n, q }'
done
awk -v a="${RSS[1000]}" -v b="${RSS[5000]}" 'BEGIN { printf "  KiB per VU (slope 1,000 -> 5,000 VUs): %.1f (goal <= 1024)\n", (b - a) / 4000 }'

echo "== init: 1,000 VUs, one empty iteration each"
cat >"$WORK/init.js" <<JS
import http from 'k6/http';
import { check, sleep } from 'k6';
export const options = { scenarios: { init: { executor: 'per-vu-iterations', vus: 1000, iterations: 1 } } };
export default function () {}
JS
gen "$BIN" run -q --no-embedded-store "$WORK/init.js" >"$WORK/init.out" 2>&1 || true
echo "  whole run (start, init of 1,000 VUs, 1,000 iterations, summary): $(cat "$WORK/wall") s, max RSS $(cat "$WORK/rss") KiB (goal: VUs ready in < 2 s)"

if [[ $GROWTH == 1 ]]; then
	echo "== RSS growth between 1M and 5M iterations (JS closed model, 50 VUs)"
	closed_js 30m >"$WORK/long.js"
	rss_growth "$PORT" 1000000 5000000 "$BIN" run -q --no-embedded-store "$WORK/long.js"
fi
echo "== scratch files in $WORK"
