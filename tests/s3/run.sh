#!/usr/bin/env bash
# Kept for the commands in docs: the suites' runner is tests/run.sh (both
# tests/s3 and tests/gateway; bare file names are looked up in both).
#   tests/s3/run.sh RSGW_BINARY CEPH_CONF|- [pytest args...]
exec "$(dirname "$0")/../run.sh" "$@"
