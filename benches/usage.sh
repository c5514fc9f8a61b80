#!/usr/bin/env bash
# What the bucket index's usage counters cost and buy (docs/perf/quota.md),
# on the throwaway cluster, rados backend:
#   benches/usage.sh OUT BASE_RSGW [TRIALS]
# 1. Index updates: `rsgw bench ab-test` of 4 KiB PUTs (overwrites of 1,000
#    keys, 32 workers), A = BASE_RSGW (a build from before the counters), B =
#    this tree's, TRIALS per side (default 10), in buckets of 11 index shards
#    and of 1 (every write on one shard): OUT/put-11-shards/ and
#    OUT/put-1-shard/ (the test's report.md, trials.csv, ...).
# 2. `rsgw admin bucket stats` on buckets of 1,000, 10,000 and 50,000
#    objects (1 byte each, written through this tree's gateway): BASE_RSGW
#    reads every index entry, this tree's one counter per shard; the median
#    of 5 runs each: OUT/stats.csv.
# OUT/run.json has the command, date, commit and host. RSGW=path/to/rsgw
# uses that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
[[ $# -ge 2 ]] || { sed -n '2,18p' "$0"; exit 2; }
cmd=("$0" "$@")
OUT=$1
BASE=$2
TRIALS=${3:-10}
# shellcheck source=benches/lib.sh
source benches/lib.sh
rsgw_and_cluster
RSGW=${RSGW:-$PWD/target/release/rsgw}
mkdir -p "$OUT"
run_info "$OUT/run.json" "${cmd[@]}"
for shards in 11 1; do
  name=put-$shards-shards
  [[ $shards == 1 ]] && name=put-1-shard
  echo "== index updates, $shards shard(s)"
  RSGW=$RSGW benches/ab-test.sh "$OUT/$name" --a-rsgw "$BASE" --b-rsgw "$RSGW" \
    --a-label "before counters" --b-label "counters" --set "s3.bucket_index_shards=$shards" \
    --workload write --size 4KiB --trials "$TRIALS" --duration 15 --warmup 3 | tail -1
done

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
printf '[store]\nbackend = "rados"\nceph_conf = "%s"\nclient_name = "client.rgw.gw"\npool_prefix = "rsgwusage"\n' \
  "$CEPH_CONF" >"$work/admin.toml"
bench_user "$RSGW" "$work/admin.toml"
rsgw_start gw --backend rados --ceph-conf "$CEPH_CONF" --client-name client.rgw.gw --pool-prefix rsgwusage
url=${RSGW_URL[gw]}
echo "objects,binary,median_ms,runs_ms" >"$OUT/stats.csv"
for n in 1000 10000 50000; do
  echo "== bucket stats, $n objects"
  cat >"$work/fill.xml" <<XML
<workload name="fill" description="$n objects of 1 byte">
  <storage type="s3" config="accesskey=$BENCH_AK;secretkey=$BENCH_SK;endpoint=$url;path_style_access=true"/>
  <workflow>
    <workstage name="init"><work type="init" workers="1" config="cprefix=usage$n;containers=r(1,1)"/></workstage>
    <workstage name="prepare"><work type="prepare" workers="32" config="cprefix=usage$n;containers=r(1,1);objects=r(1,$n);sizes=c(1)B"/></workstage>
  </workflow>
</workload>
XML
  "$RSGW" bench s3 -q "$work/fill.xml" >/dev/null
  for side in base counters; do
    bin=$RSGW
    [[ $side == base ]] && bin=$BASE
    times=()
    for _ in 1 2 3 4 5; do
      t0=$(date +%s%N)
      got=$("$bin" admin -c "$work/admin.toml" bucket stats --bucket "usage${n}1" |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["num_objects"])')
      times+=($((($(date +%s%N) - t0) / 1000000)))
      [[ $got == "$n" ]] || { echo "bucket stats said $got objects, not $n" >&2; exit 1; }
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 3p)
    echo "$n,$side,$median,$(
      IFS=' '
      echo "${times[*]}"
    )" | tee -a "$OUT/stats.csv"
  done
done
