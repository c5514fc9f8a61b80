#!/bin/sh
# Starts Prometheus on /etc/prometheus/prometheus.yml with the instances to
# scrape and the intervals taken from the environment (Prometheus reads no
# environment in its configuration):
#   RSGW_HOST                              the gateways' host (127.0.0.1)
#   RSGW_A_ADMIN_PORT, RSGW_B_ADMIN_PORT   their admin ports (7481, 7491)
#   PROMETHEUS_INTERVAL                    scrape and rule interval (15s)
#   PROMETHEUS_BIND, PROMETHEUS_PORT       its own address (127.0.0.1:9090)
set -eu
host=${RSGW_HOST:-127.0.0.1}
interval=${PROMETHEUS_INTERVAL:-15s}
sed -e "s|\"127.0.0.1:7481\", \"127.0.0.1:7491\"|\"$host:${RSGW_A_ADMIN_PORT:-7481}\", \"$host:${RSGW_B_ADMIN_PORT:-7491}\"|" \
  -e "s|: 15s|: $interval|" \
  -e "s|- rules.yml|- /etc/prometheus/rules.yml|" \
  /etc/prometheus/prometheus.yml >/tmp/prometheus.yml
exec prometheus --config.file=/tmp/prometheus.yml --storage.tsdb.path=/tmp/prometheus-data \
  --web.listen-address="${PROMETHEUS_BIND:-127.0.0.1}:${PROMETHEUS_PORT:-9090}"
