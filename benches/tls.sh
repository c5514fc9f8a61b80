#!/usr/bin/env bash
# HTTPS: a 260-byte public-read object fetched anonymously with ab over TLS,
# in one run on the same cores, from radosgw (Beast's ssl_endpoint, with
# the operators' 512 threads and with 8, its best count over plain HTTP
# on a 2-core host in docs/perf/frontend.md) and
# from rsgw on the rados backend (frontend.ssl_endpoints), both on the
# throwaway cluster, with the same ECDSA P-256 certificate:
#   - `ab -c 1000 -n N`: no keep-alive, so a full TLS handshake (a new
#     session, ab resumes none) for every request
#   - `ab -k -c 100 -n N`: keep-alive, the handshake amortised
#   - `rsgw bench ab -c 1000 -n N`: no keep-alive, a full handshake for
#     every request as with ab, from a client on every CPU (ab's one
#     process saturates one CPU at 1,700-1,900 handshakes/s here, before
#     either server does)
# then rsgw over plain HTTP under the same loads, for the cost of TLS itself.
# Prints req/s, p50/p99, failed requests and each server's CPU-seconds per
# 10,000 requests (utime+stime from /proc/PID/stat), the ratios the HTTPS
# issue targets (rsgw >= 3x radosgw's req/s, <= 0.3x its CPU per request),
# and the CPU a handshake costs each server (per-request CPU without
# keep-alive minus with it: the handshake and the TCP connection).
#   benches/tls.sh [--client-cpu C] [REQUESTS] [OUT]   # default 20000 per ab run
# By default the load generators, the servers and the cluster share every
# CPU. --client-cpu C gives the load generators CPU C alone and the servers
# and every Ceph daemon the other CPUs, as a client on a machine of its own
# would (radosgw pinned with taskset, rsgw with its own cpu.cpuset); the
# daemons' affinity is given back at the end.
# Writes OUT/results.csv (one row per server and load), OUT/report.md (the
# tables printed) and OUT/run.json (command, date, commit, host); OUT
# defaults to docs/perf/tls. Uses the cluster of scripts/ceph-micro (started
# if needed; RSGW_CEPH_DIR picks another) and ports 7480 and 7443;
# RSGW=path/to/rsgw uses that binary instead of building a release one.
set -euo pipefail
cd "$(dirname "$0")/.."
command=("$0" "$@")
client_cpu=""
if [[ ${1:-} == --client-cpu ]]; then
  client_cpu=${2:?--client-cpu needs a CPU number}
  shift 2
fi
N=${1:-20000}
OUT=${2:-docs/perf/tls}
if [[ -z ${RSGW:-} ]]; then
  cargo build --release -q --features rados -p rsgw
  RSGW=$PWD/target/release/rsgw
fi
scripts/ceph-micro start >/dev/null
eval "$(scripts/ceph-micro env)"
D=$(dirname "$CEPH_CONF")
PORT=7480
TLS_PORT=7443
work=$(mktemp -d)
all_cpus=0-$(($(nproc --all) - 1))
pin_client=() server_cpus=""
if [[ -n $client_cpu ]]; then
  server_cpus=$(seq 0 $(($(nproc --all) - 1)) | grep -vx "$client_cpu" | paste -sd,)
  [[ -n $server_cpus && $client_cpu =~ ^[0-9]+$ && $client_cpu -lt $(nproc --all) ]] ||
    { echo "--client-cpu $client_cpu: needs a CPU of this host and at least one other for the servers"; exit 2; }
  pin_client=(taskset -c "$client_cpu")
fi
# pin_daemons CPUS: every thread of the cluster's daemons (and radosgw) on CPUS
pin_daemons() {
  local pid
  for pid in $(awk '{print $2}' "$D/pids"); do
    taskset -apc "$1" "$pid" >/dev/null 2>&1 || true
  done
}
cleanup() {
  rsgw_stop_all
  [[ -z $client_cpu ]] || pin_daemons "$all_cpus"
  scripts/ceph-micro stop rgw >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
# shellcheck source=benches/lib.sh
source benches/lib.sh
# shellcheck source=tests/lib.sh
source tests/lib.sh
RSGW_WORK=$work
run_info "$work/run.json" "${command[@]}"
small_object "$work/obj"
results=$work/results
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$work/key.pem" \
  -out "$work/cert.pem" -days 2 -subj /CN=bench -addext subjectAltName=IP:127.0.0.1 2>/dev/null

# measure NAME URL PID...: both ab loads, one result line each
measure() {
  local name=$1 url=$2
  shift 2
  [[ $(curl -sk "$url" | wc -c) == 260 ]] || { echo "$name: the object is not served at $url"; exit 1; }
  "${pin_client[@]}" ab -q -c 100 -n 2000 "$url" >/dev/null 2>&1 || true # warm-up
  local load client args
  for load in "c1000" "k100" "rc1000"; do
    client=(ab)
    case $load in
      c1000) args=(-r -s 60 -c 1000 -n "$N") ;;
      k100) args=(-r -s 60 -k -c 100 -n "$N") ;;
      rc1000) client=("$RSGW" bench ab) args=(-q -s 60 -c 1000 -n "$N") ;;
    esac
    measure_load "$name" "$load" "$N" "$@" -- "${pin_client[@]}" "${client[@]}" "${args[@]}" "$url" | tee -a "$results"
  done
}

# radosgw with the operators' 512 threads, then with 8 (its best count on a
# 2-core host in docs/perf/frontend.md): the ratios are given against both
for threads in 512 8; do
  name=radosgw-https
  ((threads == 512)) || name+=-$threads
  echo "== $name: Beast with ssl_endpoint (client.rgw.gw, rgw_thread_pool_size = $threads, tcp_nodelay=1)"
  RGW_PORT=$PORT RGW_BEAST_OPTS="tcp_nodelay=1 ssl_endpoint=127.0.0.1:$TLS_PORT ssl_certificate=$work/cert.pem ssl_private_key=$work/key.pem" \
    scripts/ceph-micro rgw "$threads" >/dev/null
  rgw_pid=$(awk '$1=="rgw.gw"{p=$2} END{print p}' "$D/pids")
  [[ -z $client_cpu ]] || pin_daemons "$server_cpus"
  put_public_object "http://127.0.0.1:$PORT" MICROACCESSKEY000001 microsecretkey00000000000000000000000001 "$work/obj"
  measure "$name" "https://127.0.0.1:$TLS_PORT/bench/small" "$rgw_pid"
  scripts/ceph-micro stop rgw >/dev/null
done

echo "== rsgw, rados backend (client.rgw.gw, defaults: async, 512 threads), ssl_endpoints"
printf '[store]\nbackend = "rados"\nceph_conf = "%s"\nclient_name = "client.rgw.gw"\npool_prefix = "rsgwbench"\n' \
  "$CEPH_CONF" >"$work/admin.toml"
bench_user "$RSGW" "$work/admin.toml"
rsgw_start rsgw-rados --backend rados --ceph-conf "$CEPH_CONF" --client-name client.rgw.gw \
  --pool-prefix rsgwbench --port "$PORT" --no-admin --toml "[frontend]
ssl_endpoints = [\"127.0.0.1:$TLS_PORT\"]
ssl_certificate = \"$work/cert.pem\"
ssl_private_key = \"$work/key.pem\"
${client_cpu:+[cpu]
cpuset = \"$server_cpus\"}"
put_public_object "${RSGW_URL[rsgw-rados]}" "$BENCH_AK" "$BENCH_SK" "$work/obj"
measure rsgw-https "https://127.0.0.1:$TLS_PORT/bench/small" "${RSGW_PID[rsgw-rados]}"
echo "== the same rsgw over plain HTTP"
measure rsgw-http "${RSGW_URL[rsgw-rados]}/bench/small" "${RSGW_PID[rsgw-rados]}"
rsgw_stop rsgw-rados

echo
{
  if [[ -n $client_cpu ]]; then
    echo "CPUs: the load generators on CPU $client_cpu; the servers and the Ceph daemons on CPU $server_cpus"
  else
    echo "CPUs: the load generators, the servers and the Ceph daemons share every CPU"
  fi
  echo
  echo "| server | load | TLS | req/s | p50 ms | p99 ms | failed | non-2xx | CPU s / 10k req |"
  echo "|---|---|---|---:|---:|---:|---:|---:|---:|"
  while read -r name load rps p50 p99 failed non2xx cpu proto; do
    case $load in
      c1000) l="ab -c 1000 -n $N" ;; k100) l="ab -k -c 100 -n $N" ;; rc1000) l="rsgw bench ab -c 1000 -n $N" ;;
    esac
    echo "| $name | \`$l\` | $proto | $rps | $p50 | $p99 | $failed | $non2xx | $cpu |"
  done <"$results"
  echo
  awk '
    {rps[$1 " " $2] = $3; cpu[$1 " " $2] = $8}
    END {
      split("c1000 k100 rc1000", loads, " ")
      for (i = 1; i <= 3; i++) {
        l = loads[i]
        printf "%s: rsgw / radosgw over HTTPS req/s %.2fx (target >= 3x), CPU per request %.2fx (target <= 0.3x); against radosgw with 8 threads %.2fx and %.2fx; rsgw HTTPS / HTTP CPU per request %.2fx\n",
          l, rps["rsgw-https " l] / rps["radosgw-https " l], cpu["rsgw-https " l] / cpu["radosgw-https " l],
          rps["rsgw-https " l] / rps["radosgw-https-8 " l], cpu["rsgw-https " l] / cpu["radosgw-https-8 " l],
          cpu["rsgw-https " l] / cpu["rsgw-http " l]
      }
      # CPU ms per connection beyond a kept-alive request: the handshake
      # (and, for plain HTTP, the TCP connection alone)
      printf "handshake and connection, CPU ms each: radosgw %.3f (8 threads: %.3f), rsgw %.3f (rsgw plain HTTP connection alone: %.3f)\n",
        (cpu["radosgw-https c1000"] - cpu["radosgw-https k100"]) / 10,
        (cpu["radosgw-https-8 c1000"] - cpu["radosgw-https-8 k100"]) / 10,
        (cpu["rsgw-https c1000"] - cpu["rsgw-https k100"]) / 10,
        (cpu["rsgw-http c1000"] - cpu["rsgw-http k100"]) / 10
    }' "$results"
} | tee "$work/report.md"
{
  echo "server,load,requests,tls,req_per_s,p50_ms,p99_ms,failed,non_2xx,cpu_s_per_10k_req"
  while read -r name load rps p50 p99 failed non2xx cpu proto; do
    case $load in c1000) l="ab -c 1000" ;; k100) l="ab -k -c 100" ;; rc1000) l="rsgw bench ab -c 1000" ;; esac
    echo "$name,$l,$N,$proto,$rps,$p50,$p99,$failed,$non2xx,$cpu"
  done <"$results"
} >"$work/results.csv"
publish "$OUT" "$work/results.csv" "$work/report.md" "$work/run.json"
