# A throwaway single-node Ceph cluster (one mon, one mgr, one memstore OSD;
# scripts/ceph-micro) for trying rsgw without a cluster: the demo profile of
# docker/compose.yml. Not for data you want to keep: memstore lives in RAM.
# The cluster's directory, with ceph.conf and the gateway's keyring
# (client.rgw.rsgw, readable by rsgw's uid 7480), is /var/lib/rsgw-demo.
ARG BASE=docker.io/library/debian:bookworm-slim
FROM ${BASE}

# hadolint ignore=DL3008
RUN apt-get update \
    && apt-get install -y --no-install-recommends ceph-mon ceph-mgr ceph-osd ceph-common radosgw curl procps \
    && rm -rf /var/lib/apt/lists/*

COPY scripts/ceph-micro /usr/local/bin/ceph-micro
ENV RSGW_CEPH_DIR=/var/lib/rsgw-demo

HEALTHCHECK --interval=10s --timeout=10s --start-period=60s --retries=3 \
    CMD ["ceph", "-c", "/var/lib/rsgw-demo/ceph.conf", "health"]
STOPSIGNAL SIGTERM
# bash as PID 1 with a trap: SIGTERM stops the daemons and the container
CMD ["bash", "-c", "ceph-micro start --fresh && chmod 644 \"$RSGW_CEPH_DIR/rsgw.keyring\" && trap 'ceph-micro stop; exit 0' TERM INT && while :; do sleep 3600 & wait $!; done"]
