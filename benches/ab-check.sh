#!/usr/bin/env bash
# Checks `rsgw bench ab` against ab itself, in one run, on the same servers:
#   - nginx serving a 260-byte file and rsgw (embedded backend) serving a
#     260-byte public object, each loaded by ab and by rsgw bench ab in
#     alternating rounds, without and with keep-alive: the median req/s of
#     the two tools must agree within 10%. The server runs on the last CPU,
#     the load generator (one thread, as ab) on CPU 0: on a shared CPU the
#     tools would measure their own speed, not the server's;
#   - a server that resets every third connection (tests/tools/reset_server.py):
#     ab aborts, rsgw bench ab finishes and counts the resets.
# Exits non-zero when a check fails. Figures in docs/bench.md.
#   benches/ab-check.sh [REQUESTS]     # default 30000 per run
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-30000}
ROUNDS=3
cargo build --release -q -p rsgw
RSGW=$PWD/target/release/rsgw
work=$(mktemp -d)
chmod 755 "$work"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT
ulimit -n "$(ulimit -Hn)"
server_cpu=$(($(nproc) - 1))
((server_cpu > 0)) || { echo "needs 2 CPUs: one for the server, one for the load generator"; exit 1; }
client=(taskset -c 0)
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_http() { for _ in $(seq 100); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done; echo "nothing on $1"; exit 1; }
{ printf 'rsgw small public GET; 260 bytes exactly.\n'; printf '%217s\n' '' | tr ' ' '.'; } >"$work/obj"
chmod 644 "$work/obj"

# nginx
ngx_port=$(port)
mkdir -p "$work/www/bench" "$work/nginx"
chmod 755 "$work/www" "$work/www/bench"
cp "$work/obj" "$work/www/bench/small"
cat >"$work/nginx/nginx.conf" <<EOF
worker_processes 1;
worker_cpu_affinity 1$(printf '%0*d' "$server_cpu" 0);
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $work/nginx;
  proxy_temp_path $work/nginx;
  fastcgi_temp_path $work/nginx;
  uwsgi_temp_path $work/nginx;
  scgi_temp_path $work/nginx;
  server { listen 127.0.0.1:$ngx_port backlog=4096; root $work/www; }
}
EOF
nginx -c "$work/nginx/nginx.conf"
pids+=("$(cat "$work/nginx/nginx.pid")")
wait_http "http://127.0.0.1:$ngx_port/bench/small"

# rsgw, embedded backend
gw_port=$(port)
printf '[frontend]\nendpoints = ["127.0.0.1:%s"]\nadmin_endpoint = ""\n[cpu]\ncpuset = "%s"\n[store]\npath = "%s/data"\n' \
  "$gw_port" "$server_cpu" "$work" >"$work/rsgw.toml"
"$RSGW" admin -c "$work/rsgw.toml" user create --uid bench --display-name Bench \
  --access-key BENCHACCESSKEY000001 --secret-key benchsecret >/dev/null
"$RSGW" serve -c "$work/rsgw.toml" 2>"$work/serve.log" &
pids+=($!)
wait_http "http://127.0.0.1:$gw_port/"
s3=(curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user BENCHACCESSKEY000001:benchsecret
  -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
"${s3[@]}" -X PUT "http://127.0.0.1:$gw_port/bench" >/dev/null
"${s3[@]}" -X PUT -H "x-amz-acl: public-read" --upload-file "$work/obj" "http://127.0.0.1:$gw_port/bench/small" >/dev/null

rps() { awk '/^Requests per second/ {print $4}'; }
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
fail=0
echo "| server | load | ab req/s (median of $ROUNDS) | rsgw bench ab req/s | ratio |"
echo "|---|---|---:|---:|---:|"
for target in "nginx http://127.0.0.1:$ngx_port/bench/small" "rsgw http://127.0.0.1:$gw_port/bench/small"; do
  name=${target%% *} url=${target#* }
  for load in "-c 100" "-k -c 100"; do
    : >"$work/ab" && : >"$work/rb"
    for _ in $(seq $ROUNDS); do
      # shellcheck disable=SC2086
      "${client[@]}" ab -q -r $load -n "$N" "$url" 2>/dev/null | rps >>"$work/ab"
      # shellcheck disable=SC2086
      "${client[@]}" "$RSGW" bench ab --threads 1 -q $load -n "$N" "$url" | rps >>"$work/rb"
    done
    a=$(median <"$work/ab") b=$(median <"$work/rb")
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", b / a}')
    echo "| $name | \`$load -n $N\` | ${a%.*} | ${b%.*} | $ratio |"
    awk -v r="$ratio" 'BEGIN {exit !(r >= 0.9 && r <= 1.1)}' || { echo "  ^ outside 10%"; fail=1; }
  done
done

echo
rs_port=$(port)
python3 tests/tools/reset_server.py "$rs_port" 3 &
pids+=($!)
wait_http "http://127.0.0.1:$rs_port/" || true
ab_out=$(ab -c 4 -n 300 "http://127.0.0.1:$rs_port/" 2>&1 || true)
ab_done=$(grep -o 'Total of [0-9]* requests completed' <<<"$ab_out" || echo "all 300 requests completed")
rb=$("$RSGW" bench ab -q -c 4 -n 300 "http://127.0.0.1:$rs_port/")
complete=$(awk '/^Complete requests/ {print $3}' <<<"$rb")
resets=$(awk '/^Connection resets/ {print $3}' <<<"$rb")
echo "server resetting every 3rd connection, 300 requests: ab: $(grep -o 'apr_socket_recv.*' <<<"$ab_out" | head -1); $ab_done. rsgw bench ab: $complete complete, $resets resets."
[[ $complete == 300 && $resets -gt 0 ]] || fail=1
exit $fail
