#!/usr/bin/env bash
# What a bucket policy costs the small public GET (issue 16: at most 5% of
# rsgw's CPU per request). One rsgw on the embedded backend serves the
# 260-byte object from two buckets: "bench", where the object is public by
# its public-read ACL and the bucket has no policy, and "bench-policy",
# where the object is private and the bucket's policy makes it public (a
# realistic three-statement policy: the public Allow, a Deny on a private
# prefix limited by a source-address condition, a user's listing grant, so
# that a GET evaluates every statement). ab -k fetches each in turn,
# ROUNDS rounds in ABBA order; rsgw's CPU time per request comes from
# /proc/PID/stat, the medians and their ratio are reported.
#   benches/policy-get.sh [REQUESTS] [ROUNDS] [OUT]  # default 50000 6 docs/perf/policy
# Writes OUT/results.csv (one row per round and side), OUT/report.md and
# OUT/run.json (command, date, commit, host).
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-50000}
ROUNDS=${2:-6}
OUT=${3:-docs/perf/policy}
cargo build --release -q
RSGW=$PWD/target/release/rsgw
work=$(mktemp -d)
cleanup() { rsgw_stop_all; rm -rf "$work"; }
trap cleanup EXIT
# shellcheck source=benches/lib.sh
source benches/lib.sh
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "$0" "$@"
rsgw_start rsgw --backend local --path "$work/data" --no-admin --user "bench:Bench:$BENCH_AK:$BENCH_SK"
port=${RSGW_PORT[rsgw]} pid=${RSGW_PID[rsgw]}
ep="http://127.0.0.1:$port"
small_object "$work/obj"
put_public_object "$ep" "$BENCH_AK" "$BENCH_SK" "$work/obj"
s3=(curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user "$BENCH_AK:$BENCH_SK"
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
"${s3[@]}" -X PUT "$ep/bench-policy" >/dev/null
"${s3[@]}" -X PUT --upload-file "$work/obj" "$ep/bench-policy/small" >/dev/null
cat >"$work/policy.json" <<'EOF'
{"Version": "2012-10-17", "Statement": [
  {"Sid": "PublicRead", "Effect": "Allow", "Principal": "*", "Action": ["s3:GetObject"],
   "Resource": ["arn:aws:s3:::bench-policy/*"]},
  {"Sid": "PrivatePrefix", "Effect": "Deny", "Principal": "*", "Action": "s3:GetObject",
   "Resource": "arn:aws:s3:::bench-policy/private/*",
   "Condition": {"NotIpAddress": {"aws:SourceIp": ["10.0.0.0/8", "192.168.0.0/16"]}}},
  {"Sid": "UserListing", "Effect": "Allow", "Principal": {"AWS": "arn:aws:iam:::user/bench"},
   "Action": "s3:ListBucket", "Resource": "arn:aws:s3:::bench-policy",
   "Condition": {"StringLike": {"s3:prefix": ["home/bench/*"]}}}]}
EOF
"${s3[@]}" -X PUT --upload-file "$work/policy.json" "$ep/bench-policy?policy="
declare -A url=([acl]="$ep/bench/small" [policy]="$ep/bench-policy/small")
for side in acl policy; do
  [[ $(curl -s "${url[$side]}" | wc -c) == 260 ]] || { echo "$side: object not served anonymously"; exit 1; }
done
[[ $(curl -s -o /dev/null -w '%{http_code}' "$ep/bench-policy") == 403 ]] || { echo "policy bucket listable"; exit 1; }
hz=$(getconf CLK_TCK)
echo "round,side,requests,req_per_s,failed,cpu_us_per_req" >"$work/results.csv"
ab -k -c 32 -n "$N" "${url[acl]}" >/dev/null 2>&1 # warm-up
for r in $(seq "$ROUNDS"); do
  if ((r % 2)); then order=(acl policy); else order=(policy acl); fi
  for side in "${order[@]}"; do
    c0=$(cpu_ticks "$pid")
    out=$(ab -k -c 32 -n "$N" "${url[$side]}" 2>&1)
    c1=$(cpu_ticks "$pid")
    rps=$(awk '/Requests per second/ {print $4}' <<<"$out")
    failed=$(awk '/Failed requests/ {print $3}' <<<"$out")
    non2xx=$(awk '/Non-2xx responses/ {print $3}' <<<"$out")
    [[ $failed == 0 && -z $non2xx ]] || { echo "$side round $r: $failed failed, ${non2xx:-0} non-2xx"; exit 1; }
    us=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v n="$N" 'BEGIN {printf "%.2f", (b - a) / hz / n * 1e6}')
    echo "$r,$side,$N,$rps,$failed,$us" >>"$work/results.csv"
    echo "round $r $side: ${rps%.*} req/s, $us µs CPU per request" >&2
  done
done
python3 - "$work/results.csv" "$N" "$ROUNDS" >"$work/report.md" <<'PY'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
def side(s, k):
    return [float(r[k]) for r in rows if r["side"] == s]
acl, pol = side("acl", "cpu_us_per_req"), side("policy", "cpu_us_per_req")
ratios = [p / a for a, p in zip(acl, pol)]
print(f"Small public GET (260 bytes, ab -k -c 32, {sys.argv[2]} requests per run, {sys.argv[3]} rounds ABBA), "
      "rsgw on the embedded backend, one process serving both buckets.\n")
print("| object public by | median req/s | median rsgw CPU per request | runs (µs) |")
print("|---|---:|---:|---|")
for name, s in (("its public-read ACL (no policy)", "acl"), ("the bucket policy (3 statements)", "policy")):
    cpu = side(s, "cpu_us_per_req")
    print(f"| {name} | {statistics.median(side(s, 'req_per_s')):.0f} | {statistics.median(cpu):.1f} µs | "
          + ", ".join(f"{c:.1f}" for c in cpu) + " |")
print(f"\npolicy / ACL CPU per request: median of the rounds' ratios {statistics.median(ratios):.3f} "
      f"(rounds: {', '.join(f'{x:.3f}' for x in ratios)}); target at most 1.05.")
PY
cat "$work/report.md"
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
