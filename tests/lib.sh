# shellcheck shell=bash disable=SC2034
# The one way shell scripts start `rsgw serve` (tests and benches): source
# it, set RSGW (the binary) and RSGW_WORK (a scratch directory), then
#
#   rsgw_start NAME [options] [-- serve args...]
#     --backend local|rados|none  the [store] section (default local, data in
#                                 $RSGW_WORK/NAME-data; none: no store keys)
#     --path DIR                  local: the data directory
#     --ceph-conf FILE            rados: the cluster (default $CEPH_CONF)
#     --pool-prefix P --client-name N
#     --base FILE                 take another config's settings (endpoints replaced)
#     --port P                    the S3 port (default: a free one)
#     --no-endpoints              endpoints come from the serve args (--ceph-conf);
#                                 --port then says where it listens
#     --admin-port P | --no-admin the admin listener (default: a free port)
#     --toml 'FRAGMENT'           extra TOML, merged key by key (repeatable)
#     --set section.key=value     rsgw serve --set (repeatable)
#     --user UID:DISPLAY:AK:SK    created with rsgw admin unless it exists, e-mail
#                                 UID@example.com (repeatable)
#     --log FILE                  rsgw's stderr (default $RSGW_WORK/NAME.log)
#   writes $RSGW_WORK/NAME.toml, starts rsgw serve, waits until the admin
#   /health answers 200 and the S3 port answers HTTP (failing with the log
#   when it exits or is not ready in 60 s), and sets
#   RSGW_URL[NAME] RSGW_PORT[NAME] RSGW_ADMIN_PORT[NAME] (0: none)
#   RSGW_PID[NAME] RSGW_CONFIG[NAME] RSGW_LOG[NAME].
#   Call it in the script's own shell (not in $(...)): the gateway is its child.
#
#   rsgw_stop NAME [STATUS]   SIGTERM, wait, fail unless it exits STATUS (0)
#   rsgw_stop_all             SIGTERM to every gateway still running and wait
#                             (for EXIT traps; reports, never fails)
#
# Configs are written by tests/support/rsgw_gateway.py, the Python tests'
# helper, so both agree on what a gateway's config and readiness are.

RSGW_TESTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
declare -gA RSGW_URL RSGW_PORT RSGW_ADMIN_PORT RSGW_PID RSGW_CONFIG RSGW_LOG
RSGW_NAMES=()

rsgw_free_port() { python3 "$RSGW_TESTS/support/rsgw_gateway.py" free-port; }

rsgw_start() { # NAME [options] [-- serve args...]
  local name=$1
  shift
  : "${RSGW:?set RSGW to the rsgw binary}" "${RSGW_WORK:?set RSGW_WORK to a scratch directory}"
  local cfg=$RSGW_WORK/$name.toml log=$RSGW_WORK/$name.log
  local conf_args=(--out "$cfg" --name "$name") serve_args=() users=() u ports
  while (($#)); do
    case $1 in
      --backend | --path | --ceph-conf | --pool-prefix | --client-name | --base | --port | --admin-port | --toml)
        conf_args+=("$1" "$2")
        shift 2
        ;;
      --no-admin | --no-endpoints)
        conf_args+=("$1")
        shift
        ;;
      --set)
        serve_args+=(--set "$2")
        shift 2
        ;;
      --user)
        users+=("$2")
        shift 2
        ;;
      --log)
        log=$2
        shift 2
        ;;
      --)
        shift
        serve_args+=("$@")
        break
        ;;
      *)
        echo "rsgw_start: unknown option $1" >&2
        return 2
        ;;
    esac
  done
  ports=$(python3 "$RSGW_TESTS/support/rsgw_gateway.py" config "${conf_args[@]}") || return 1
  RSGW_PORT[$name]=${ports% *}
  RSGW_ADMIN_PORT[$name]=${ports#* }
  RSGW_URL[$name]=http://127.0.0.1:${RSGW_PORT[$name]}
  RSGW_CONFIG[$name]=$cfg
  RSGW_LOG[$name]=$log
  for u in "${users[@]}"; do
    local uid display ak sk
    IFS=: read -r uid display ak sk <<<"$u"
    "$RSGW" admin -c "$cfg" user info --uid "$uid" >/dev/null 2>&1 ||
      "$RSGW" admin -c "$cfg" user create --uid "$uid" --display-name "$display" \
        --email "$uid@example.com" --access-key "$ak" --secret-key "$sk" >/dev/null || return 1
  done
  # RSGW_<SECTION>_<KEY> variables would override the config: none reach it
  local -a unset_env=()
  local v
  for v in $(compgen -e); do
    [[ $v =~ ^RSGW_(FRONTEND|POOL|CPU|S3|STORE|CRYPT)_ ]] && unset_env+=(-u "$v")
  done
  env "${unset_env[@]}" "$RSGW" serve -c "$cfg" "${serve_args[@]}" </dev/null >/dev/null 2>"$log" &
  RSGW_PID[$name]=$!
  RSGW_NAMES+=("$name")
  python3 "$RSGW_TESTS/support/rsgw_gateway.py" wait --pid "${RSGW_PID[$name]}" --port "${RSGW_PORT[$name]}" \
    --admin-port "${RSGW_ADMIN_PORT[$name]}" --log "$log" || {
    echo "rsgw_start: $name is not ready" >&2
    return 1
  }
}

rsgw_stop() { # NAME [STATUS]
  local name=$1 want=${2:-0} pid=${RSGW_PID[$1]:-} code=0
  [[ -n $pid ]] || return 0
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" || code=$?
  RSGW_PID[$name]=
  if ((code != want)); then
    echo "rsgw_stop: $name exited $code, not $want; ${RSGW_LOG[$name]}:" >&2
    tail -20 "${RSGW_LOG[$name]}" >&2
    return 1
  fi
}

rsgw_stop_all() {
  local name pid code
  for name in "${RSGW_NAMES[@]}"; do
    pid=${RSGW_PID[$name]:-}
    [[ -n $pid ]] && kill -TERM "$pid" 2>/dev/null
  done
  for name in "${RSGW_NAMES[@]}"; do
    pid=${RSGW_PID[$name]:-}
    [[ -n $pid ]] || continue
    code=0
    wait "$pid" 2>/dev/null || code=$?
    RSGW_PID[$name]=
    ((code == 0)) || echo "rsgw_stop_all: $name exited $code (${RSGW_LOG[$name]})" >&2
  done
  return 0
}
