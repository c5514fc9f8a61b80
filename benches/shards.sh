#!/usr/bin/env bash
# The sharded bucket index (docs/layout.md, docs/decisions/0004): what it
# costs and what it buys, on the rados backend of the throwaway cluster.
#   benches/shards.sh [SECONDS] [ROUNDS] [OUT]   # default 20 s, 3 rounds
# 0. Balance of radosgw's hash and of FNV-1a over common key shapes and
#    shard counts (Python models of both; the radosgw one is checked in 1).
# 1. radosgw's shard of 200 keys (ASCII, UTF-8, slashes, long): a real
#    radosgw (scripts/ceph-micro rgw) stores them in an 11-shard bucket, the
#    omap keys of each .dir.<marker>.<n> say where each went; the unit test
#    layout::tests::shard_hash_is_radosgws then checks rsgw's hash against
#    OUT/radosgw-shards.csv (the committed copy when OUT is elsewhere).
# 2. Listing cost in index reads, 1 shard against 11 (the unit test
#    list::tests::listing_cost, embedded backend: reads are counted there).
# 3. Many concurrent PUTs of 4 KiB objects into ONE bucket, through rsgw on
#    the rados backend: `rsgw bench s3 --mix write=100 --workers 64` for
#    SECONDS, the bucket made with s3.bucket_index_shards=1 and then =11
#    (the default), alternating, ROUNDS times each; then a full listing of
#    a 5000-key bucket of each kind (rsgw bench list-after-delete, fresh
#    bucket). The ratio is the median of 11 shards over the median of 1.
# Uses the cluster of scripts/ceph-micro (started if needed; RSGW_CEPH_DIR
# picks another); RSGW=path/to/rsgw uses that binary instead of building a
# release one. Writes OUT/hash-balance.csv, OUT/radosgw-shards.csv, OUT/list-cost.csv,
# OUT/puts.csv (one row per run), OUT/listing.csv, OUT/report.md (what it
# printed) and OUT/run.json (command, date, commit, host, cluster);
# OUT defaults to docs/perf/shards.
set -euo pipefail
cd "$(dirname "$0")/.."
SECS=${1:-20}
ROUNDS=${2:-3}
OUT=${3:-docs/perf/shards}
if [[ -z ${RSGW:-} ]]; then
  cargo build --release -q --features rados -p rsgw
  RSGW=$PWD/target/release/rsgw
fi
work=$(mktemp -d)
prefix=shardbench$$
cleanup() {
  rsgw_stop_all
  scripts/ceph-micro stop rgw >/dev/null 2>&1 || true
  local p
  for p in $(ceph osd pool ls 2>/dev/null | grep "^$prefix\."); do
    ceph osd pool rm "$p" "$p" --yes-i-really-really-mean-it >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
# shellcheck source=benches/lib.sh
source benches/lib.sh
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
scripts/ceph-micro start >&2
eval "$(scripts/ceph-micro env)"
run_info "$work/run.json" "$0" "$@"
# the cluster's OSDs and pools (called again at the end, for rsgw's pools)
cluster_info() {
  python3 - "$work/run.json" <<'PY'
import json, subprocess, sys
info = json.load(open(sys.argv[1]))
def out(*a):
    return subprocess.run(a, capture_output=True, text=True, timeout=60).stdout
osds = json.loads(out("ceph", "osd", "metadata", "-f", "json") or "[]")
pools = json.loads(out("ceph", "osd", "pool", "ls", "detail", "-f", "json") or "[]")
info["cluster"] = {
    "osds": [{k: o.get(k) for k in ("id", "osd_objectstore", "osd_data")} for o in osds],
    "pools": [{k: p.get(k) for k in ("pool_name", "size", "min_size", "pg_num")} for p in pools],
}
json.dump(info, open(sys.argv[1], "w"), indent=1)
PY
}
cluster_info

echo "== 0. balance of radosgw's hash and FNV-1a over key shapes (Python models)" >&2
python3 - >"$work/hash-balance.csv" <<'PY'
import random
def rgw(k, n):  # radosgw's bucket_shard_index, as rsgw's layout::shard_of
    h = 0
    for c in k:
        h = ((h + (c << 4) + (c >> 4)) * 11) & 0xFFFFFFFF
    h ^= (h & 0xFF) << 24
    return h % (7877 if n <= 7877 else 65521) % n
def fnv1a(k, n):
    h = 0xCBF29CE484222325
    for c in k:
        h = ((h ^ c) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h % n
rng = random.Random(14)
sets = {
    "obj-%08d x100000": [b"obj-%08d" % i for i in range(100000)],
    "myobjects_%d x100000": [b"myobjects_%d" % i for i in range(1, 100001)],
    "d%05d/x|y x50000": [b"d%05d/%s" % (i, c) for i in range(25000) for c in (b"x", b"y")],
    "photos/2024/%04d.jpg x10000": [b"photos/2024/%04d.jpg" % i for i in range(10000)],
    "random 16 hex x100000": [b"%016x" % rng.getrandbits(64) for _ in range(100000)],
}
print("keys,hash,shards,max_over_share,min_over_share")
for name, keys in sets.items():
    for n in (2, 3, 11, 16, 64):
        for hname, f in (("radosgw", rgw), ("fnv1a64", fnv1a)):
            c = [0] * n
            for k in keys:
                c[f(k, n)] += 1
            share = len(keys) / n
            print(f"{name},{hname},{n},{max(c) / share:.3f},{min(c) / share:.3f}")
PY

echo "== 1. radosgw's shard of each key" >&2
AK=MICROACCESSKEY000001 SK=microsecretkey00000000000000000000000001
scripts/ceph-micro rgw >&2
rgw=http://127.0.0.1:${RGW_PORT:-7480}
s3=(curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user "$AK:$SK"
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
hb=shardhash$$
"${s3[@]}" -X PUT "$rgw/$hb" >/dev/null
python3 - >"$work/keys.txt" <<'PY'
keys = ["photo.jpg", "a", "b", "z", "obj-00000001", "myobjects_1", "é/ü", "日本語/ファイル", "a/b/c/d", "x" * 200]
keys += [f"obj-{i:08d}" for i in range(2, 60)]
keys += [f"d{i:05d}/x" for i in range(40)]
keys += [f"photos/2024/{i:04d}.jpg" for i in range(40)]
keys += [f"k{i}" for i in range(52)]
assert len(keys) == 200 and len(set(keys)) == 200
print("\n".join(keys))
PY
while IFS= read -r k; do
  enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$k")
  "${s3[@]}" -X PUT --data-binary x "$rgw/$hb/$enc" >/dev/null
done <"$work/keys.txt"
stats=$(radosgw-admin bucket stats --bucket "$hb")
marker=$(jq -r .marker <<<"$stats")
nshards=$(jq -r .num_shards <<<"$stats")
[[ $nshards == 11 ]] || { echo "radosgw made $nshards shards, not 11"; exit 1; }
index_pool=$(ceph osd pool ls | grep 'rgw.buckets.index$')
for ((n = 0; n < nshards; n++)); do
  rados -p "$index_pool" listomapkeys ".dir.$marker.$n" | sed "s/^/$n\t/"
done >"$work/placed.tsv"
python3 - "$work/keys.txt" "$work/placed.tsv" "$nshards" >"$work/radosgw-shards.csv" <<'PY'
import sys
keys = open(sys.argv[1], encoding="utf-8").read().splitlines()
placed = {}
for line in open(sys.argv[2], encoding="utf-8"):
    n, k = line.rstrip("\n").split("\t", 1)
    placed[k] = int(n)
missing = [k for k in keys if k not in placed]
if missing:
    sys.exit(f"radosgw's index does not hold {missing[:5]}")
print("key,shards,shard")
for k in keys:
    print(f"{k},{sys.argv[3]},{placed[k]}")
PY
while IFS= read -r k; do
  enc=$(python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1]))' "$k")
  "${s3[@]}" -X DELETE "$rgw/$hb/$enc" >/dev/null
done <"$work/keys.txt"
"${s3[@]}" -X DELETE "$rgw/$hb" >/dev/null
scripts/ceph-micro stop rgw >&2

echo "== 2. listing cost in index reads" >&2
cargo test -q -p rsgw-gateway --lib list::tests::listing_cost -- --nocapture --exact 2>/dev/null |
  grep -E '^(case,|".*",(1|11),[0-9]+,[0-9]+,[0-9]+,[0-9]+$)' >"$work/list-cost.csv"
[[ $(wc -l <"$work/list-cost.csv") -gt 2 ]] || { echo "listing_cost printed no rows"; exit 1; }

echo "== 3. concurrent PUTs into one bucket, 1 shard and 11" >&2
echo "round,shards,write_ops_per_s,p50_ms,p99_ms,errors" >"$work/puts.csv"
run_puts() { # ROUND SHARDS
  rsgw_start "s$2" --backend rados --ceph-conf "$CEPH_CONF" --pool-prefix "$prefix" \
    --set "s3.bucket_index_shards=$2" --user "bench:Bench:$BENCH_AK:$BENCH_SK"
  local url=${RSGW_URL[s$2]} b=put$2r$1
  # made here so its shard count can be checked; the workload's init accepts it
  curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user "$BENCH_AK:$BENCH_SK" \
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" -X PUT "$url/${b}1" >/dev/null
  local got
  got=$("$RSGW" admin -c "${RSGW_CONFIG[s$2]}" bucket stats --bucket "${b}1" | jq .num_shards)
  [[ $got == "$2" ]] || { echo "bucket has $got shards, not $2"; exit 1; }
  "$RSGW" bench s3 --mix write=100 --sizes 'c(4)KB' --objects 20000 --workers 64 \
    --runtime "$SECS" --cprefix "$b" --endpoint "$url" --access-key "$BENCH_AK" \
    --secret-key "$BENCH_SK" --quiet --json >"$work/put-$1-$2.json"
  python3 - "$work/put-$1-$2.json" "$1" "$2" >>"$work/puts.csv" <<'PY'
import json, sys
works = json.load(open(sys.argv[1]))
main = next(w for w in works if w["work"] == "main")
w = next(o for o in main["ops"] if o["op"] == "write")
errors = sum(o["errors"] for wk in works for o in wk["ops"])
print(f"{sys.argv[2]},{sys.argv[3]},{w['ops_per_s']:.1f},{w['p50_ms']:.2f},{w['p99_ms']:.2f},{errors}")
PY
  rsgw_stop "s$2"
}
for ((r = 1; r <= ROUNDS; r++)); do
  for shards in 1 11; do
    run_puts "$r" "$shards"
    tail -1 "$work/puts.csv" >&2
  done
done

echo "== 4. full listing of 5000 keys, 1 shard and 11" >&2
echo "shards,objects,list_fresh_ms,raw_fresh_ms" >"$work/listing.csv"
for shards in 1 11; do
  rsgw_start "l$shards" --backend rados --ceph-conf "$CEPH_CONF" --pool-prefix "$prefix" \
    --set "s3.bucket_index_shards=$shards" --user "bench:Bench:$BENCH_AK:$BENCH_SK"
  "$RSGW" bench list-after-delete --endpoint "${RSGW_URL[l$shards]}" --access-key "$BENCH_AK" \
    --secret-key "$BENCH_SK" -n 5000 --repeat 5 --prefix "lad$shards" \
    --raw-list "$RSGW admin -c ${RSGW_CONFIG[l$shards]} bucket stats --bucket {bucket}" \
    --json >"$work/lad-$shards.json"
  jq -r --arg s "$shards" '"\($s),\(.objects),\(.list_fresh_ms),\(.raw_fresh_ms)"' \
    "$work/lad-$shards.json" >>"$work/listing.csv"
  rsgw_stop "l$shards"
done

cluster_info
python3 - "$work" <<'PY' | tee "$work/report.md"
import csv, json, os, statistics, sys
work = sys.argv[1]
rows = lambda name: list(csv.DictReader(open(os.path.join(work, name), encoding="utf-8")))
run = json.load(open(os.path.join(work, "run.json")))
osds = run["cluster"]["osds"]
store = ", ".join(sorted({o["osd_objectstore"] or "?" for o in osds}))
print(f"Run {run['started']} at commit {run['commit']}, {run['host']['cpus']} CPUs, "
      f"{len(osds)} OSD(s) ({store}).\n")
bal = rows("hash-balance.csv")
for h in ("radosgw", "fnv1a64"):
    r11 = [r for r in bal if r["hash"] == h and r["shards"] == "11"]
    print(f"{h} hash, 11 shards, over {len(r11)} key sets: fullest shard "
          f"{max(float(r['max_over_share']) for r in r11):.3f}x its share, emptiest "
          f"{min(float(r['min_over_share']) for r in r11):.3f}x.")
placed = rows("radosgw-shards.csv")
per = [sum(r["shard"] == str(n) for r in placed) for n in range(11)]
print(f"radosgw placed {len(placed)} keys over 11 shards ({', '.join(map(str, per))} keys per shard).")
print("\n| PUT 4 KiB, 64 workers, one bucket | runs | median ops/s | runs' ops/s | median p99 (ms) | errors |")
print("|---|---:|---:|---|---:|---:|")
puts = rows("puts.csv")
med = {}
for s in ("1", "11"):
    rs = [r for r in puts if r["shards"] == s]
    ops = [float(r["write_ops_per_s"]) for r in rs]
    med[s] = statistics.median(ops)
    p99 = statistics.median(float(r["p99_ms"]) for r in rs)
    errs = sum(int(r["errors"]) for r in rs)
    print(f"| {s} index shard{'s' if s != '1' else ''} | {len(rs)} | {med[s]:.0f} | "
          f"{', '.join(f'{o:.0f}' for o in ops)} | {p99:.1f} | {errs} |")
print(f"\n11 shards / 1 shard: {med['11'] / med['1']:.2f}x PUT ops/s")
print("\n| full listing of 5000 keys (ListObjectsV2, 5 pages) | median ms | `admin bucket stats` ms |")
print("|---|---:|---:|")
for r in rows("listing.csv"):
    print(f"| {r['shards']} shard(s) | {float(r['list_fresh_ms']):.1f} | {float(r['raw_fresh_ms']):.1f} |")
print("\n| listing (embedded backend, reads counted) | shards | pages | shard reads | entries read | listed |")
print("|---|---:|---:|---:|---:|---:|")
for r in rows("list-cost.csv"):
    print(f"| {r['case']} | {r['shards']} | {r['pages']} | {r['reads']} | {r['entries_read']} | {r['listed']} |")
PY
publish "$OUT" "$work/hash-balance.csv" "$work/radosgw-shards.csv" "$work/list-cost.csv" "$work/puts.csv" \
  "$work/listing.csv" "$work/report.md" "$work/run.json"
echo "== rsgw's hash against radosgw's placement ($OUT/radosgw-shards.csv when OUT is docs/perf/shards)" >&2
cargo test -q -p rsgw-gateway --lib layout::tests::shard_hash_is_radosgws >&2
