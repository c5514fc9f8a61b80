# Prometheus for a node's gateways: Debian bookworm's package with the rules
# and configuration of docker/prometheus/ (docker/compose.yml's `prometheus`
# service, profile "monitoring"; docs/deploy.md#alerts). Which instances it
# scrapes comes from the environment (see docker/prometheus/entrypoint.sh).
#
#   podman build -f docker/prometheus.Dockerfile -t localhost/rsgw-prometheus .
#
# BASE picks another bookworm image (the test suite uses one made with
# debootstrap, as no registry is reachable there).
ARG BASE=docker.io/library/debian:bookworm-slim
FROM ${BASE}

# prometheus follows Debian's bookworm point releases: pinning its version
# would break the build at the next one
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends prometheus \
    && rm -rf /var/lib/apt/lists/*

COPY docker/prometheus/prometheus.yml docker/prometheus/rules.yml /etc/prometheus/
COPY docker/prometheus/entrypoint.sh /usr/local/bin/rsgw-prometheus

# the package's system user, whose uid Debian picks at install time
# hadolint ignore=DL3066
USER prometheus
ENTRYPOINT ["/usr/local/bin/rsgw-prometheus"]
