//! The gateway's own figures in `/metrics`, in Prometheus text: whether
//! the metadata caches are kept coherent by a watch, the rate limits'
//! refusals (`crate::ratelimit`), the object cache's figures (the
//! cache itself is the gateway's: `rsgw_gateway::Gateway::object_cache_stats`),
//! and on radosgw's layout its metadata records' cache.

use std::fmt::Write as _;

use rsgw_gateway::Gateway;

use crate::ratelimit;

/// Writes every figure.
pub(crate) fn write(gw: &Gateway, out: &mut String) {
    out.push_str(
        "# HELP rsgw_metadata_watch_up 1 while the instance watches the store's control object, so its metadata caches are coherent; 0 while it falls back to short TTLs (s3.metadata_cache_ttl_ms).\n\
         # TYPE rsgw_metadata_watch_up gauge\n",
    );
    out.push_str(if gw.metadata_watched() {
        "rsgw_metadata_watch_up 1\n"
    } else {
        "rsgw_metadata_watch_up 0\n"
    });
    ratelimit::write_metrics(gw, out);
    write_object_cache(gw, out);
    write_radosgw_cache(gw, out);
}

/// `rsgw_radosgw_records_*`, on radosgw's layout only.
fn write_radosgw_cache(gw: &Gateway, out: &mut String) {
    let Some(s) = gw.radosgw_cache_stats() else {
        return;
    };
    let rows = [
        (
            "hits_total",
            "radosgw's metadata records (users, keys, buckets) answered from memory.",
            s.hits,
        ),
        (
            "misses_total",
            "radosgw's metadata records read from the cluster.",
            s.misses,
        ),
        (
            "notices_total",
            "Announcements of changed records received from radosgw on the zone's control objects.",
            s.notices,
        ),
    ];
    for (name, help, value) in rows {
        let _ = write!(
            out,
            "# HELP rsgw_radosgw_records_{name} {help}\n# TYPE rsgw_radosgw_records_{name} counter\nrsgw_radosgw_records_{name} {value}\n"
        );
    }
}

/// `rsgw_object_cache_*`.
fn write_object_cache(gw: &Gateway, out: &mut String) {
    let s = gw.object_cache_stats();
    let rows: [(&str, &str, &str, u64); 10] = [
        (
            "serving",
            "gauge",
            "1 while the object cache serves (s3.object_cache_bytes above 0 and the control object watched); 0 while every GET reads the store.",
            u64::from(s.serving),
        ),
        (
            "capacity_bytes",
            "gauge",
            "The object cache's budget (s3.object_cache_bytes).",
            s.capacity_bytes,
        ),
        (
            "bytes",
            "gauge",
            "Bytes charged to cached objects (data, name, metadata and bookkeeping).",
            s.bytes,
        ),
        ("entries", "gauge", "Objects cached.", s.entries),
        (
            "hits_total",
            "counter",
            "GETs and HEADs answered from the object cache.",
            s.hits,
        ),
        (
            "misses_total",
            "counter",
            "GETs and HEADs that read the store while the object cache served.",
            s.misses,
        ),
        (
            "admissions_total",
            "counter",
            "Objects put into the object cache.",
            s.admissions,
        ),
        (
            "rejections_total",
            "counter",
            "Objects kept out: not more popular than the entries they would push out, or larger than a shard.",
            s.rejections,
        ),
        (
            "evictions_total",
            "counter",
            "Cached objects pushed out by more popular ones.",
            s.evictions,
        ),
        (
            "invalidations_total",
            "counter",
            "Cached objects dropped because they changed (on any instance), and fills refused because a change raced them.",
            s.invalidations,
        ),
    ];
    for (name, kind, help, value) in rows {
        let _ = write!(
            out,
            "# HELP rsgw_object_cache_{name} {help}\n# TYPE rsgw_object_cache_{name} {kind}\nrsgw_object_cache_{name} {value}\n"
        );
    }
}
