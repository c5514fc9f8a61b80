# The ingress image: Debian bookworm's HAProxy with docker/haproxy.cfg, in
# front of a node's rsgw instances (docker/compose.yml's `ingress`,
# docs/deploy.md). Its settings come from the environment (see the config).
#
#   podman build -f docker/haproxy.Dockerfile -t localhost/rsgw-ingress .
#
# BASE picks another bookworm image (the test suite uses one made with
# debootstrap, as no registry is reachable there).
ARG BASE=docker.io/library/debian:bookworm-slim
FROM ${BASE}

# haproxy follows Debian's bookworm point releases: pinning its version
# would break the build at the next one
# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends haproxy \
    && rm -rf /var/lib/apt/lists/*

COPY docker/haproxy.cfg /etc/haproxy/haproxy.cfg

# the package's system user, whose uid Debian picks at install time
# hadolint ignore=DL3066
USER haproxy
# -db: in the foreground, logging to stdout; SIGTERM stops it at once,
# SIGUSR1 after the connections in flight (a graceful stop)
STOPSIGNAL SIGUSR1
ENTRYPOINT ["haproxy", "-db", "-f", "/etc/haproxy/haproxy.cfg"]
