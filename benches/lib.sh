# Helpers the benchmark scripts source: the rsgw binary and the throwaway
# cluster, the 260-byte object, waiting for a server, a free port, an rsgw
# user, CPU time of processes, one ab load measured, and nginx serving the
# same bytes. They expect $work (a scratch directory) to be set.

# The S3 user every benchmark creates on rsgw.
BENCH_AK=BENCHACCESSKEY000001
BENCH_SK=benchsecret

# The 260-byte object every small-GET benchmark serves.
small_object() { # FILE
  { printf 'rsgw small public GET; 260 bytes exactly.\n'; printf '%217s\n' '' | tr ' ' '.'; } >"$1"
  chmod 644 "$1"
}

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

wait_http() { # URL
  for _ in $(seq 300); do curl -s -o /dev/null "$1" && return 0; sleep 0.1; done
  echo "nothing answers on $1"
  exit 1
}

# The rsgw to measure ($RSGW, else a release build with the rados backend)
# and the throwaway cluster of scripts/ceph-micro, started if needed and in
# the environment (CEPH_CONF); one radosgw start and stop creates its key,
# pools and user (MICROACCESSKEY000001), and the client.rgw.gw key rsgw
# uses. Run from the repository's root.
rsgw_and_cluster() {
  if [[ -z ${RSGW:-} ]]; then
    cargo build --release -q --features rados -p rsgw
    RSGW=$PWD/target/release/rsgw
  fi
  scripts/ceph-micro start >/dev/null
  eval "$(scripts/ceph-micro env)"
  scripts/ceph-micro rgw >/dev/null
  scripts/ceph-micro stop rgw >/dev/null
}

# Creates the bench user in the store CONFIG names (unless it exists).
bench_user() { # RSGW CONFIG
  "$1" admin -c "$2" user info --uid bench >/dev/null 2>&1 ||
    "$1" admin -c "$2" user create --uid bench --display-name Bench \
      --access-key "$BENCH_AK" --secret-key "$BENCH_SK" >/dev/null
}

# utime + stime of the processes, in clock ticks.
cpu_ticks() { # PID...
  local t=0 p
  for p in "$@"; do t=$((t + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done
  echo $t
}

# Runs one load, COMMAND (ab, or rsgw bench ab: the same report), and prints
# its result line: NAME LOAD req/s p50-ms p99-ms failed non-2xx, the
# CPU-seconds of the PIDs per 10,000 requests (utime + stime around the
# run; REQUESTS is the run's -n) and the TLS protocol/suite ("-" over plain
# HTTP).
measure_load() { # NAME LOAD REQUESTS PID... -- COMMAND...
  local name=$1 load=$2 n=$3 pids=() c0 c1 out
  shift 3
  while [[ $1 != -- ]]; do pids+=("$1") && shift; done
  shift
  c0=$(cpu_ticks "${pids[@]}")
  out=$("$@" 2>&1)
  c1=$(cpu_ticks "${pids[@]}")
  awk -v name="$name" -v load="$load" -v ticks=$((c1 - c0)) -v hz="$(getconf CLK_TCK)" -v n="$n" '
    /Requests per second/ {rps = $4}
    /^Failed requests/ {failed = $3}
    /^Non-2xx responses/ {non2xx = $3}
    /^  50%/ {p50 = $2}
    /^  99%/ {p99 = $2}
    # "TLSv1.3,TLS_AES_128_GCM_SHA256,256,128": the version and the suite
    /^SSL\/TLS Protocol/ {split($3, p, ","); proto = p[1] "/" p[2]}
    END {printf "%s %s %.0f %s %s %d %d %.3f %s\n", name, load, rps, p50, p99, failed, non2xx, ticks / hz / n * 10000, proto ? proto : "-"}
  ' <<<"$out"
}

# Creates bucket "bench" and a public-read "bench/small" holding FILE, with
# SigV4-signed curl requests.
# rsgw NAME on the rados backend (pool prefix PREFIX, further rsgw_start
# arguments after) beside radosgw (RGW_ARGS passed on to it), both serving
# the bench user, both pinned to CPU 0, both stopped on exit and $work
# removed; sets url[rsgw|radosgw] and pid[rsgw|radosgw]. Needs $work,
# $CEPH_CONF and tests/lib.sh (RSGW_WORK=$work).
start_gateway_pair() { # NAME PREFIX [RSGW_START ARGS...]
  local name=$1 prefix=$2 rgw_port rgw_pid
  shift 2
  trap 'rsgw_stop_all; scripts/ceph-micro stop rgw >/dev/null 2>&1 || true; rm -rf "$work"' EXIT
  rgw_port=$(free_port)
  RGW_PORT=$rgw_port RGW_THREADS=64 scripts/ceph-micro rgw >/dev/null
  rgw_pid=$(awk '$1=="rgw.gw"{p=$2} END{print p}' "${RSGW_CEPH_DIR:-/tmp/rsgw-ceph}/pids")
  radosgw-admin user info --uid=bench >/dev/null 2>&1 ||
    radosgw-admin user create --uid=bench --display-name=Bench --access-key="$BENCH_AK" \
      --secret-key="$BENCH_SK" >/dev/null
  rsgw_start "$name" --backend rados --ceph-conf "$CEPH_CONF" --pool-prefix "$prefix" \
    --user "bench:Bench:$BENCH_AK:$BENCH_SK" "$@"
  taskset -apc 0 "${RSGW_PID[$name]}" >/dev/null
  taskset -apc 0 "$rgw_pid" >/dev/null
  declare -gA url=([rsgw]=${RSGW_URL[$name]} [radosgw]=http://127.0.0.1:$rgw_port)
  declare -gA pid=([rsgw]=${RSGW_PID[$name]} [radosgw]=$rgw_pid)
}

put_public_object() { # ENDPOINT ACCESS SECRET FILE
  local s3=(curl -sS --fail-with-body --aws-sigv4 "aws:amz:us-east-1:s3" --user "$2:$3"
    -H "x-amz-content-sha256: UNSIGNED-PAYLOAD")
  "${s3[@]}" -X PUT "$1/bench" >/dev/null 2>&1 || true
  "${s3[@]}" -X PUT -H "x-amz-acl: public-read" --upload-file "$4" "$1/bench/small" >/dev/null
}

# Starts nginx serving FILE as /bench/small on PORT; prints the master's pid.
# WORKER_LINES: its worker_processes (and worker_cpu_affinity) lines.
start_nginx() { # PORT FILE WORKER_LINES
  mkdir -p "$work/www/bench" "$work/nginx"
  chmod 755 "$work" "$work/www" "$work/www/bench"
  cp "$2" "$work/www/bench/small"
  cat >"$work/nginx/nginx.conf" <<NGINX
$3
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
  server { listen 127.0.0.1:$1 backlog=4096; root $work/www; }
}
NGINX
  nginx -c "$work/nginx/nginx.conf"
  wait_http "http://127.0.0.1:$1/bench/small"
  cat "$work/nginx/nginx.pid"
}

# Where a benchmark's data goes: OUT/run.json (this function: the command,
# when, the commit, the host and its load average at the start), then the
# script's results.csv and report.md (the Markdown it printed), copied there
# by publish when the run has finished, so a failed run leaves OUT as it was.
run_info() { # FILE COMMAND...
  python3 - "$@" <<'PY'
import datetime, json, os, platform, shlex, subprocess, sys
path, cmd = sys.argv[1], sys.argv[2:]
def out(*a):
    try:
        return subprocess.run(a, capture_output=True, text=True, timeout=30, check=True).stdout.strip()
    except Exception:
        return ""
model = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "")
info = {
    "command": shlex.join(cmd),
    "started": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
    "commit": out("git", "rev-parse", "--short", "HEAD"),
    "uncommitted_changes": bool(out("git", "status", "--porcelain", "--untracked-files=no")),
    "host": {"cpus": os.cpu_count(), "cpu_model": model, "machine": platform.machine(),
             "kernel": platform.release(), "loadavg_1m_at_start": os.getloadavg()[0]},
    "ceph": out("ceph", "--version"),
}
with open(path, "w") as f:
    json.dump(info, f, indent=1)
    f.write("\n")
PY
}

publish() { # OUT FILE...
  mkdir -p "$1"
  cp "${@:2}" "$1/"
  echo "data written to $1/" >&2
}
