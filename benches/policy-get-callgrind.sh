#!/usr/bin/env bash
# The bucket policy's cost on the small public GET counted in instructions
# (callgrind), which other processes on the host cannot disturb: the same
# two buckets as benches/policy-get.sh ("bench": public by the object's
# ACL, no policy; "bench-policy": private object, public by the
# three-statement policy) served by one release rsgw under callgrind;
# instrumentation is switched on only while ab -k fetches REQUESTS from one
# side, in ABAB order, ROUNDS times each.
#   benches/policy-get-callgrind.sh [REQUESTS] [ROUNDS] [OUT]  # default 2000 2 docs/perf/policy
# Writes OUT/callgrind.csv (instructions per run and per request) and
# OUT/callgrind.md; prints the ratio.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-2000}
ROUNDS=${2:-2}
OUT=${3:-docs/perf/policy}
cargo build --release -q
RSGW=$PWD/target/release/rsgw
work=$(mktemp -d)
vpid=
cleanup() {
  [[ -n $vpid ]] && kill "$vpid" 2>/dev/null && wait "$vpid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=benches/lib.sh
source benches/lib.sh
ports=$(python3 tests/support/rsgw_gateway.py config --out "$work/cg.toml" --name cg --backend local \
  --path "$work/data" --no-admin)
ep=http://127.0.0.1:${ports% *}
"$RSGW" admin -c "$work/cg.toml" user create --uid bench --display-name Bench \
  --access-key "$BENCH_AK" --secret-key "$BENCH_SK" >/dev/null
# rsgw starts hundreds of threads (the pool); callgrind's default is 500
valgrind --max-threads=2048 --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/cg.out" \
  "$RSGW" serve -c "$work/cg.toml" >/dev/null 2>"$work/valgrind.log" &
vpid=$!
for _ in $(seq 240); do curl -s -o /dev/null "$ep/" && break; sleep 0.5; done
small_object "$work/obj"
put_public_object "$ep" "$BENCH_AK" "$BENCH_SK" "$work/obj"
s3=(curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user "$BENCH_AK:$BENCH_SK"
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
"${s3[@]}" -X PUT "$ep/bench-policy" >/dev/null
"${s3[@]}" -X PUT --upload-file "$work/obj" "$ep/bench-policy/small" >/dev/null
# the policy of benches/policy-get.sh
sed -n '/^{"Version"/,/^EOF$/p' benches/policy-get.sh | sed '$d' >"$work/policy.json"
"${s3[@]}" -X PUT --upload-file "$work/policy.json" "$ep/bench-policy?policy="
for side in bench bench-policy; do ab -k -c 4 -n 500 "$ep/$side/small" >/dev/null 2>&1; done # warm-up
echo "round,side,requests,instructions,instructions_per_request" >"$work/callgrind.csv"
dump=0
for r in $(seq "$ROUNDS"); do
  for side in bench bench-policy; do
    callgrind_control -z "$vpid" >/dev/null
    callgrind_control -i on "$vpid" >/dev/null
    out=$(ab -k -c 4 -n "$N" "$ep/$side/small" 2>&1)
    callgrind_control -i off "$vpid" >/dev/null
    callgrind_control -d "$vpid" >/dev/null
    dump=$((dump + 1))
    [[ $(awk '/Failed requests/ {print $3}' <<<"$out") == 0 ]] || { echo "$side: failed requests"; exit 1; }
    ir=$(awk '/^totals:/ {print $2}' "$work/cg.out.$dump")
    echo "$r,$side,$N,$ir,$((ir / N))" >>"$work/callgrind.csv"
    echo "round $r $side: $((ir / N)) instructions per request" >&2
  done
done
python3 - "$work/callgrind.csv" >"$work/callgrind.md" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
tot = {s: sum(int(r["instructions"]) for r in rows if r["side"] == s) for s in ("bench", "bench-policy")}
n = {s: sum(int(r["requests"]) for r in rows if r["side"] == s) for s in tot}
print("| object public by | instructions per request (callgrind, rsgw process) |")
print("|---|---:|")
print(f"| its public-read ACL (no policy) | {tot['bench'] / n['bench']:.0f} |")
print(f"| the bucket policy (3 statements) | {tot['bench-policy'] / n['bench-policy']:.0f} |")
print(f"\npolicy / ACL: {tot['bench-policy'] / n['bench-policy'] / (tot['bench'] / n['bench']):.3f}x "
      "instructions per request; target at most 1.05.")
PY
cat "$work/callgrind.md"
mkdir -p "$OUT"
cp "$work/callgrind.csv" "$work/callgrind.md" "$OUT/"
