#!/usr/bin/env bash
# The small public GET path of rsgw on the embedded backend: a 260-byte
# public-read object fetched anonymously with ab, with and without keep-alive,
# and rsgw's CPU time per request from /proc/PID/stat. Source of the figures
# in docs/decisions/0003-s3-protocol-library.md.
#   benches/small-get.sh [REQUESTS]      # default 100000 (keep-alive run)
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-100000}
cargo build --release -q
RSGW=$PWD/target/release/rsgw
work=$(mktemp -d)
pid=""
cleanup() { [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
printf '[frontend]\nendpoints = ["127.0.0.1:%s"]\n[store]\npath = "%s/data"\n' "$port" "$work" >"$work/rsgw.toml"
"$RSGW" admin -c "$work/rsgw.toml" user create --uid bench --display-name Bench \
  --access-key BENCHACCESSKEY000001 --secret-key benchsecret >/dev/null
"$RSGW" serve -c "$work/rsgw.toml" 2>"$work/serve.log" &
pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$port/" && break; sleep 0.1; done
s3() { curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user BENCHACCESSKEY000001:benchsecret \
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@"; }
s3 -X PUT "http://127.0.0.1:$port/bench" >/dev/null
{ printf 'rsgw small public GET; 260 bytes exactly.\n'; printf '%217s\n' '' | tr ' ' '.'; } >"$work/obj"
s3 -X PUT -H "x-amz-acl: public-read" --upload-file "$work/obj" "http://127.0.0.1:$port/bench/hello-260.txt" >/dev/null
url="http://127.0.0.1:$port/bench/hello-260.txt"
[[ $(curl -s "$url" | wc -c) == 260 ]] || { echo "object not served"; exit 1; }
cpu() { awk '{print $14 + $15}' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
echo "| load | req/s | failed | rsgw CPU per request |"
echo "|---|---:|---:|---:|"
for args in "-k -c 32 -n $N" "-c 100 -n $((N * 3 / 10))"; do
  c0=$(cpu)
  out=$(ab $args "$url" 2>&1)
  c1=$(cpu)
  n=${args##* }
  rps=$(awk '/Requests per second/ {print $4}' <<<"$out")
  failed=$(awk '/Failed requests/ {print $3}' <<<"$out")
  us=$(awk -v a="$c0" -v b="$c1" -v hz="$hz" -v n="$n" 'BEGIN {printf "%.0f µs", (b - a) / hz / n * 1e6}')
  echo "| \`ab $args\` | ${rps%.*} | $failed | $us |"
done
