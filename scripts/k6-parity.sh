#!/usr/bin/env bash
# Runs every script of the JavaScript corpus (internal/js/testdata/corpus) with tidemark
# against one built-in target and compares each exit code, http_reqs and checks rate with
# what k6 v1.8.1 gave for the same script, recorded as data in
# internal/js/testdata/corpus/k6-v1.8.1.tsv. No k6 binary is built or run (k6 is AGPL:
# its behaviour reaches us through its documentation and recorded results only).
#
# Skipped: jslib-*.js and seed-ramping-vus.js (k6 downloads jslib from jslib.k6.io, which
# is not reachable here), remote-module.js (needs --modules.dir, which k6 does not have).
#
# Knobs (environment): TIDEMARK (binary; default bin/tidemark, else built here), PORT
# (18499), WORK (scratch directory). Exits 1 when a script differs from the record.
set -euo pipefail

PORT=${PORT:-18499}
WORK=${WORK:-$(mktemp -d /tmp/tidemark-k6-parity.XXXXXX)}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${TIDEMARK:-$ROOT/bin/tidemark}
RECORD=$ROOT/internal/js/testdata/corpus/k6-v1.8.1.tsv
mkdir -p "$WORK/summary"

# shellcheck source=scripts/bench-lib.sh
source "$ROOT/scripts/bench-lib.sh"
need curl "apt-get install curl"
need python3 "apt-get install python3"
tidemark_bin

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
print(int(m.get("http_reqs", {}).get("count", 0)), "-" if rate is None else "%g" % round(rate, 3))
PY
}
cd "$ROOT/internal/js/testdata/corpus"
printf '%-22s | %-20s | %-26s | %s\n' script "k6 v1.8.1: exit reqs checks" "tidemark: exit reqs checks served" ""
differ=0
while IFS=$'\t' read -r f k6exit k6reqs k6checks; do
	[[ -z $f || $f == \#* ]] && continue
	extra=()
	[[ $f == env.js ]] && extra=(-e CORPUS_GREETING=hello -e CORPUS_NUMBER=42)
	rm -f "$WORK/export.json"
	before=$(served "$PORT")
	set +e
	timeout 120 "$BIN" run -q --no-embedded-store -e "BASE_URL=$BASE" -e "SUMMARY_DIR=$WORK/summary" "${extra[@]}" \
		--summary-export "$WORK/export.json" "$f" >"$WORK/tidemark-$f.out" 2>&1
	rc=$?
	set -e
	read -r reqs checks < <(stats)
	verdict=same
	if [[ $rc != "$k6exit" ]] || { [[ $k6reqs != - ]] && [[ $reqs != "$k6reqs" ]]; } || { [[ $k6checks != - ]] && [[ $checks != "$k6checks" ]]; }; then
		verdict=DIFFERS
		differ=$((differ + 1))
	fi
	printf '%-22s | %3s %5s %6s         | %3d %5s %6s %5d        | %s\n' "$f" "$k6exit" "$k6reqs" "$k6checks" "$rc" "$reqs" "$checks" $(($(served "$PORT") - before)) "$verdict"
done <"$RECORD"
echo "== outputs in $WORK"
if ((differ > 0)); then
	echo "$differ script(s) differ from k6's recorded result"
	exit 1
fi
