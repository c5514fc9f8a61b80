#!/usr/bin/env bash
# The object cache under a skewed read mix (docs/perf/object-cache.md): two
# rsgw instances on the rados backend of the throwaway cluster, and
# `rsgw bench s3 --mix read=95,write=5 --pick zipf --verify` over OBJECTS
# objects of 1 KB, its workers spread over both instances, for SECONDS; once
# with the object cache off (s3.object_cache_bytes = 0) and once with the
# default, REPEAT times in turn. Every read is checked against the last
# acknowledged write of its object (--verify: zero stale reads or the run
# fails). Prints per run: read and write ops/s, p50 and p99, errors, the
# reads verified and stale, and the instances' object cache hit rate.
#   benches/object-cache-mix.sh [SECONDS] [OBJECTS] [REPEAT] [OUT]
#   # defaults: 30 s, 100000 objects, 1 repeat
# Writes OUT/results.csv, OUT/report.md and OUT/run.json (command, date,
# commit, host); OUT defaults to docs/perf/object-cache-mix. Uses the cluster
# of scripts/ceph-micro (started if needed; RSGW_CEPH_DIR picks another);
# RSGW=path/to/rsgw uses that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
S=${1:-30}
OBJECTS=${2:-100000}
REPEAT=${3:-1}
OUT=${4:-docs/perf/object-cache-mix}
# shellcheck source=benches/lib.sh
source benches/lib.sh
rsgw_and_cluster
work=$(mktemp -d)
cleanup() {
  rsgw_stop_all
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "$0" "$@"
printf '[store]\nbackend = "rados"\nceph_conf = "%s"\nclient_name = "client.rgw.gw"\npool_prefix = "rsgwbench"\n' \
  "$CEPH_CONF" >"$work/admin.toml"
bench_user "$RSGW" "$work/admin.toml"
results=$work/results

# hits and misses of both instances' object caches
cache_counts() {
  local name h=0 m=0 text
  for name in a b; do
    text=$(curl -s "http://127.0.0.1:${RSGW_ADMIN_PORT[$name]}/metrics")
    h=$((h + $(awk '$1=="rsgw_object_cache_hits_total"{print $2}' <<<"$text")))
    m=$((m + $(awk '$1=="rsgw_object_cache_misses_total"{print $2}' <<<"$text")))
  done
  echo "$h $m"
}

# run NAME CACHE_BYTES
run() {
  local name=$1 bytes=$2 g
  echo "== $name (s3.object_cache_bytes = $bytes)"
  for g in a b; do
    rsgw_start "$g" --backend rados --ceph-conf "$CEPH_CONF" --client-name client.rgw.gw --pool-prefix rsgwbench \
      --toml "[s3]
object_cache_bytes = $bytes"
  done
  local status=0
  "$RSGW" bench s3 --mix read=95,write=5 --pick zipf --verify --sizes 'c(1)KB' --objects "$OBJECTS" \
    --workers 16 --runtime "$S" --cprefix "ocmix$name" --endpoint "${RSGW_URL[a]},${RSGW_URL[b]}" \
    --access-key "$BENCH_AK" --secret-key "$BENCH_SK" --json -q >"$work/mix.json" || status=$?
  read -r hits misses < <(cache_counts)
  rsgw_stop a
  rsgw_stop b
  python3 - "$work/mix.json" "$name" "$hits" "$misses" "$status" <<'PY' | tee -a "$results"
import json, sys
works, name, hits, misses, status = json.load(open(sys.argv[1])), sys.argv[2], *map(int, sys.argv[3:])
main = next(w for w in works if w["work"] == "main")
ops = {o["op"]: o for o in main["ops"]}
v = main.get("verified", {"reads": 0, "stale": 0})
rate = hits / (hits + misses) if hits + misses else 0
r, w = ops.get("read", {}), ops.get("write", {})
print(name, f'{r.get("ops_per_s", 0):.0f}', f'{r.get("p50_ms", 0):.2f}', f'{r.get("p99_ms", 0):.2f}',
      f'{w.get("ops_per_s", 0):.0f}', f'{w.get("p50_ms", 0):.2f}', f'{w.get("p99_ms", 0):.2f}',
      r.get("errors", 0) + w.get("errors", 0), v["reads"], v["stale"], f"{rate:.3f}", status)
PY
}
for i in $(seq "$REPEAT"); do
  run "off$i" 0
  run "on$i" 67108864
done

echo
{
  echo "| run | cache | read ops/s | read p50 ms | read p99 ms | write ops/s | write p50 ms | write p99 ms | errors | reads verified | stale | hit rate |"
  echo "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  while read -r name rops rp50 rp99 wops wp50 wp99 errors reads stale rate _; do
    echo "| ${name//[a-z]/} | ${name//[0-9]/} | $rops | $rp50 | $rp99 | $wops | $wp50 | $wp99 | $errors | $reads | $stale | $rate |"
  done <"$results"
  echo
  echo "rsgw bench s3 --mix read=95,write=5 --pick zipf --verify, $OBJECTS objects of 1 KB, 16 workers over two instances, $S s"
} | tee "$work/report.md"
{
  echo "run,cache,read_ops_per_s,read_p50_ms,read_p99_ms,write_ops_per_s,write_p50_ms,write_p99_ms,errors,reads_verified,stale,hit_rate,bench_status"
  while read -r name rest; do
    echo "${name//[a-z]/},${name//[0-9]/},${rest// /,}"
  done <"$results"
} >"$work/results.csv"
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
# stale reads (column 10) or a failed bench run (column 12) fail the benchmark
if ! awk '$10 != 0 || $12 != 0 {bad = 1} END {exit bad}' "$results"; then
  echo "stale reads or a failed bench run: see the table" >&2
  exit 1
fi
