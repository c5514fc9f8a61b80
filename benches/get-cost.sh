#!/usr/bin/env bash
# What a feature costs the small public GET, counted in instructions
# (callgrind), which other processes on the host cannot disturb: one
# release rsgw on the embedded backend serves the 260-byte public object
# under callgrind, first without the feature (A), then with it (B), each in
# a process of its own; instrumentation is on only while `ab -k -c 4`
# fetches REQUESTS, ROUNDS times per side, after a warm-up.
#   benches/get-cost.sh ops-log   [REQUESTS] [ROUNDS] [OUT]  # [ops_log] path set (a file)
#   benches/get-cost.sh ratelimit [REQUESTS] [ROUNDS] [OUT]  # anonymous and bucket limits
#       enabled, far above the load (every request checked and charged, none refused)
#   benches/get-cost.sh object-cache [REQUESTS] [ROUNDS] [OUT]  # A: s3.object_cache_bytes = 0,
#       B: the default (the object served from memory)
#   benches/get-cost.sh versioning [REQUESTS] [ROUNDS] [OUT]  # A: the bucket unversioned,
#       B: versioning enabled and the object written again (its current version
#       has an id, the first one is kept as the null version)
# Defaults: 2000 requests, 2 rounds, OUT docs/perf/FEATURE. Writes
# OUT/callgrind.csv (instructions per run and per request) and
# OUT/callgrind.md and OUT/callgrind-run.json (command, date, commit,
# host), and prints the ratio B / A.
set -euo pipefail
cd "$(dirname "$0")/.."
FEATURE=${1:?ops-log, ratelimit, object-cache or versioning}
N=${2:-2000}
ROUNDS=${3:-2}
OUT=${4:-docs/perf/$FEATURE}
case $FEATURE in ops-log | ratelimit | object-cache | versioning) ;; *) echo "unknown feature $FEATURE" >&2; exit 2 ;; esac
if [[ -z ${RSGW:-} ]]; then
  cargo build --release -q --features rados -p rsgw
  RSGW=$PWD/target/release/rsgw
fi
work=$(mktemp -d)
vpid=
cleanup() {
  [[ -n $vpid ]] && kill "$vpid" 2>/dev/null && wait "$vpid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=benches/lib.sh
source benches/lib.sh
run_info "$work/callgrind-run.json" "$0" "$@"
ports=$(python3 tests/support/rsgw_gateway.py config --out "$work/a.toml" --name cg --backend local \
  --path "$work/data" --no-admin)
ep=http://127.0.0.1:${ports% *}
cp "$work/a.toml" "$work/b.toml"
[[ $FEATURE == ops-log ]] && printf '\n[ops_log]\npath = "%s"\n' "$work/ops.jsonl" >>"$work/b.toml"
[[ $FEATURE == object-cache ]] && printf '\n[s3]\nobject_cache_bytes = 0\n' >>"$work/a.toml"
"$RSGW" admin -c "$work/a.toml" user create --uid bench --display-name Bench \
  --access-key "$BENCH_AK" --secret-key "$BENCH_SK" >/dev/null
small_object "$work/obj"
limits() { # enable|disable
  local t
  for t in "--global anonymous" "--bucket bench"; do
    # shellcheck disable=SC2086
    "$RSGW" admin -c "$work/a.toml" ratelimit set $t --max-read-ops 1000000000 \
      --max-read-bytes 1000000000000 >/dev/null
    # shellcheck disable=SC2086
    "$RSGW" admin -c "$work/a.toml" ratelimit "$1" $t >/dev/null
  done
}
echo "side,round,requests,instructions,instructions_per_request" >"$work/callgrind.csv"
for side in A B; do
  if [[ $FEATURE == ratelimit ]]; then
    if [[ $side == B ]]; then limits enable; else limits disable; fi
  fi
  cfg=$work/a.toml
  [[ $side == B ]] && cfg=$work/b.toml
  # rsgw starts hundreds of threads (the pool); callgrind's default is 500
  valgrind --max-threads=2048 --tool=callgrind --instr-atstart=no --callgrind-out-file="$work/cg-$side.out" \
    "$RSGW" serve -c "$cfg" >/dev/null 2>"$work/valgrind-$side.log" &
  vpid=$!
  for _ in $(seq 240); do curl -s -o /dev/null "$ep/" && break; sleep 0.5; done
  [[ $side == A ]] && put_public_object "$ep" "$BENCH_AK" "$BENCH_SK" "$work/obj"
  if [[ $FEATURE == versioning && $side == B ]]; then
    curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user "$BENCH_AK:$BENCH_SK" \
      -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X PUT "$ep/bench?versioning=" \
      -d '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>' >/dev/null
    put_public_object "$ep" "$BENCH_AK" "$BENCH_SK" "$work/obj"
    curl -sSf -o /dev/null -D - "$ep/bench/small" | grep -qi '^x-amz-version-id: [^n]' ||
      { echo "B: the object read has no version id"; exit 1; }
  fi
  ab -k -c 4 -n 500 "$ep/bench/small" >/dev/null 2>&1 # warm-up
  for r in $(seq "$ROUNDS"); do
    callgrind_control -z "$vpid" >/dev/null
    callgrind_control -i on "$vpid" >/dev/null
    out=$(ab -k -c 4 -n "$N" "$ep/bench/small" 2>&1)
    callgrind_control -i off "$vpid" >/dev/null
    callgrind_control -d "$vpid" >/dev/null
    [[ $(awk '/Failed requests/ {print $3}' <<<"$out") == 0 ]] || { echo "$side: failed requests"; exit 1; }
    grep -q "^Non-2xx" <<<"$out" && { echo "$side: non-2xx responses"; exit 1; }
    ir=$(awk '/^totals:/ {print $2}' "$work/cg-$side.out.$r")
    echo "$side,$r,$N,$ir,$((ir / N))" >>"$work/callgrind.csv"
    echo "$side round $r: $((ir / N)) instructions per request" >&2
  done
  kill "$vpid"
  wait "$vpid" 2>/dev/null || true
  vpid=
done
[[ $FEATURE == ratelimit ]] && limits disable
[[ $FEATURE == ops-log ]] && { lines=$(wc -l <"$work/ops.jsonl"); echo "ops log lines written by B: $lines" >&2; }
python3 - "$work/callgrind.csv" "$FEATURE" >"$work/callgrind.md" <<'PY'
import csv, sys
rows, feature = list(csv.DictReader(open(sys.argv[1]))), sys.argv[2]
per = {s: sum(int(r["instructions"]) for r in rows if r["side"] == s)
          / sum(int(r["requests"]) for r in rows if r["side"] == s) for s in ("A", "B")}
what = {"ops-log": ("ops log off", "ops log on (a file)"),
        "object-cache": ("object cache off", "object cache on (the default)"),
        "ratelimit": ("no rate limit", "anonymous and bucket limits enforced (never reached)"),
        "versioning": ("bucket unversioned", "bucket versioned (the current version read)")}[feature]
print("| side | instructions per request (callgrind, rsgw process) |")
print("|---|---:|")
print(f"| A: {what[0]} | {per['A']:.0f} |")
print(f"| B: {what[1]} | {per['B']:.0f} |")
print(f"\nB / A: {per['B'] / per['A']:.3f}x instructions per small public GET ({feature}).")
PY
cat "$work/callgrind.md"
publish "$OUT" "$work/callgrind.csv" "$work/callgrind.md" "$work/callgrind-run.json"
