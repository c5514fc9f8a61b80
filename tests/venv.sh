# shellcheck shell=bash
# Sourced by scripts/test, tests/run.sh and the test scripts that need
# Python packages: puts the tests' virtual environment first on PATH (so
# python3, pytest, aws, podman-compose and hadolint come from it and
# nothing from the host's own Python installs), creating or updating it
# from tests/requirements.txt first when it is missing or out of date.
# Debian's /usr/bin/python3 makes it (apt-get install python3-venv): its pip
# installs into the environment, where PEP 668 does not apply.
# Env: RSGW_TEST_VENV, the environment's directory (default .venv at the
# repository's root, which git ignores).
rsgw_venv() {
  local root req venv
  root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  req=$root/tests/requirements.txt
  venv=${RSGW_TEST_VENV:-$root/.venv}
  if ! cmp -s "$req" "$venv/.rsgw-requirements.txt" ||
    ! "$venv/bin/python3" -c 'import boto3, pytest, awscli' >/dev/null 2>&1; then
    echo "tests/venv.sh: creating $venv from tests/requirements.txt"
    /usr/bin/python3 -m venv --clear "$venv" ||
      { echo "tests/venv.sh: cannot create a virtual environment (apt-get install python3-venv)" >&2; return 1; }
    PYTHONPATH='' "$venv/bin/python3" -m pip install --no-input --quiet --disable-pip-version-check \
      -r "$req" || { echo "tests/venv.sh: pip install -r tests/requirements.txt failed" >&2; return 1; }
    "$venv/bin/python3" -m pip check || return 1
    cp "$req" "$venv/.rsgw-requirements.txt"
  fi
  export VIRTUAL_ENV=$venv
  case ":$PATH:" in
    "$venv/bin:"*) ;;
    *) export PATH=$venv/bin:$PATH ;;
  esac
}
rsgw_venv || return 1 2>/dev/null || exit 1
unset PYTHONPATH PYTHONHOME
hash -r
