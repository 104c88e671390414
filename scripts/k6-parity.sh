#!/usr/bin/env bash
# Runs every script of the JavaScript corpus (internal/js/testdata/corpus) with k6 itself
# and with tidemark, one after the other against one built-in target, and prints per
# script each tool's exit code, http_reqs, checks rate and the requests the target
# served. k6 is built from the Go module proxy (go install go.k6.io/k6@$K6_VERSION) into
# $WORK: we run its binary as a reference, never read or copy its code.
#
# Skipped: jslib-*.js and seed-ramping-vus.js (k6 downloads jslib from jslib.k6.io, which
# is not reachable here), remote-module.js (needs --modules.dir, which k6 does not have).
#
# Knobs (environment): K6_VERSION (v1.8.1), K6 (a k6 binary; built when unset), TIDEMARK
# (binary; default bin/tidemark, else built here), PORT (18499), WORK (scratch directory).
set -euo pipefail

K6_VERSION=${K6_VERSION:-v1.8.1}
PORT=${PORT:-18499}
WORK=${WORK:-$(mktemp -d /tmp/tidemark-k6-parity.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${TIDEMARK:-$ROOT/bin/tidemark}
mkdir -p "$WORK/bin" "$WORK/summary"

# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
need curl "apt-get install curl"
need python3 "apt-get install python3"
tidemark_bin
K6=${K6:-}
if [[ -z $K6 ]]; then
	GOBIN=$WORK/bin go install "go.k6.io/k6@$K6_VERSION"
	K6=$WORK/bin/k6
fi
"$K6" version

start_target "$PORT"
BASE="http://127.0.0.1:$PORT"
stats() { # exit code, then http_reqs and the checks rate from the summary export
	python3 - "$WORK/export.json" <<'PY'
import json, sys
try:
    m = json.load(open(sys.argv[1]))["metrics"]
except (OSError, ValueError):
    print("-", "-"); sys.exit()
c = m.get("checks", {})
rate = c.get("value", c.get("rate"))
print(int(m.get("http_reqs", {}).get("count", 0)), "-" if rate is None else round(rate, 3))
PY
}
cd "$ROOT/internal/js/testdata/corpus"
printf '%-22s | %-32s | %-32s\n' script "k6 $K6_VERSION: exit reqs checks served" "tidemark: exit reqs checks served"
for f in *.js *.ts; do
	case $f in common.js | jslib-*.js | seed-ramping-vus.js | remote-module.js) continue ;; esac
	extra=()
	[[ $f == env.js ]] && extra=(-e CORPUS_GREETING=hello -e CORPUS_NUMBER=42)
	row=()
	for tool in k6 tidemark; do
		rm -f "$WORK/export.json"
		before=$(served "$PORT")
		if [[ $tool == k6 ]]; then
			cmd=("$K6" run --no-usage-report -q)
		else
			cmd=("$BIN" run -q --no-embedded-store)
		fi
		set +e
		timeout 120 "${cmd[@]}" -e "BASE_URL=$BASE" -e "SUMMARY_DIR=$WORK/summary" "${extra[@]}" \
			--summary-export "$WORK/export.json" "$f" >"$WORK/$tool-$f.out" 2>&1
		rc=$?
		set -e
		row+=("$(printf '%3d %5s %6s %5d' "$rc" $(stats) $(($(served "$PORT") - before)))")
	done
	printf '%-22s | %-32s | %-32s\n' "$f" "${row[0]}" "${row[1]}"
done
echo "== outputs in $WORK"
