//! Importing a radosgw instance's settings from ceph.conf
//! (`rsgw serve --ceph-conf FILE --name client.rgw.X`), so that one file
//! drives both sides of an A/B test.

use std::path::Path;

use crate::{Backend, Config, ConfigError};

/// What [`import_radosgw`] took from the file, and what it could not use.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct CephConfImport {
    /// `(ceph option, value)` pairs applied to the configuration.
    pub taken: Vec<(String, String)>,
    /// radosgw settings rsgw has no equivalent for, one line each. Other
    /// (non-`rgw_`) options are read by librados itself from the same file.
    pub ignored: Vec<String>,
}

/// The radosgw options rsgw takes (from ceph.conf, [`import_radosgw`], or
/// from the monitors' central config, [`crate::monitor_layer`]), and what
/// each sets: `rgw_frontends` (beast `port`, `endpoint`, `tcp_nodelay`,
/// `max_connection_backlog`, `request_timeout_ms`, `max_header_size`,
/// `so_reuseport`, `ssl_port`, `ssl_endpoint`, `ssl_certificate`,
/// `ssl_private_key`), `rgw_thread_pool_size`, `rgw_max_concurrent_requests`,
/// `rgw_dns_name`, `rgw_max_chunk_size`, `rgw_obj_stripe_size`,
/// `rgw_max_put_size`, `rgw_multipart_min_part_size`,
/// `rgw_override_bucket_index_max_shards` (when not 0),
/// `rgw_dns_s3website_name` (with `rgw_enable_static_website = true`: the
/// website endpoint is off in radosgw otherwise), `rgw_ops_log_file_path`
/// (with `rgw_enable_ops_log = true`), `rgw_crypt_require_ssl`,
/// `rgw_crypt_s3_kms_encryption_keys`, `rgw_crypt_s3_kms_backend`,
/// `rgw_crypt_kmip_addr`, `rgw_crypt_kmip_ca_path`,
/// `rgw_crypt_kmip_client_cert`, `rgw_crypt_kmip_client_key`,
/// `rgw_crypt_kmip_kms_key_template`, `rgw_zonegroup`,
/// `rgw_multi_obj_del_max_aio`, `rgw_lc_debug_interval`,
/// `rgw_enable_usage_log`, `rgw_usage_log_tick_interval`, `rgw_gc_max_objs`,
/// `rgw_gc_obj_min_wait`.
pub const RADOSGW_OPTIONS: [&str; 28] = [
    "rgw_frontends",
    "rgw_gc_max_objs",
    "rgw_gc_obj_min_wait",
    "rgw_thread_pool_size",
    "rgw_max_concurrent_requests",
    "rgw_dns_name",
    "rgw_dns_s3website_name",
    "rgw_enable_static_website",
    "rgw_enable_ops_log",
    "rgw_ops_log_file_path",
    "rgw_zonegroup",
    "rgw_max_chunk_size",
    "rgw_obj_stripe_size",
    "rgw_max_put_size",
    "rgw_multipart_min_part_size",
    "rgw_override_bucket_index_max_shards",
    "rgw_multi_obj_del_max_aio",
    "rgw_lc_debug_interval",
    "rgw_enable_usage_log",
    "rgw_usage_log_tick_interval",
    "rgw_crypt_require_ssl",
    "rgw_crypt_s3_kms_encryption_keys",
    "rgw_crypt_s3_kms_backend",
    "rgw_crypt_kmip_addr",
    "rgw_crypt_kmip_ca_path",
    "rgw_crypt_kmip_client_cert",
    "rgw_crypt_kmip_client_key",
    "rgw_crypt_kmip_kms_key_template",
];

/// Reads the sections `[global]`, `[client]` and `[NAME]` of a ceph.conf
/// (later ones win, as in Ceph) and applies radosgw's settings to `cfg`
/// ([`RADOSGW_OPTIONS`]). The store becomes the rados backend on that file
/// as that client.
pub fn import_radosgw(
    cfg: &mut Config,
    path: &Path,
    name: &str,
) -> Result<CephConfImport, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let out = apply_radosgw(cfg, section_options(&text, name))?;
    cfg.store.backend = Backend::Rados;
    cfg.store.ceph_conf = path.to_path_buf();
    cfg.store.client_name = name.to_string();
    cfg.validate()?;
    Ok(out)
}

/// Applies radosgw's `(option, value)` settings to `cfg`, in order (see
/// [`RADOSGW_OPTIONS`]); other `rgw_` options are listed as ignored.
pub(crate) fn apply_radosgw(
    cfg: &mut Config,
    options: Vec<(String, String)>,
) -> Result<CephConfImport, ConfigError> {
    let bad = |key: &'static str, message: String| ConfigError::Value { key, message };
    let mut out = CephConfImport::default();
    // radosgw serves websites only with both set, whatever their order
    let (mut website, mut website_names) = (false, Vec::new());
    // radosgw writes its ops log to a file with both set (else to RADOS,
    // which rsgw does not do)
    let (mut ops_log, mut ops_log_path) = (None, String::new());
    for (key, value) in options {
        let mut took = true;
        match key.as_str() {
            "rgw_frontends" => {
                frontends(cfg, &value, &mut out.ignored).map_err(|m| bad("rgw_frontends", m))?;
            }
            "rgw_gc_max_objs" => {
                cfg.store.radosgw_gc_max_objs =
                    u32::try_from(int(&value).map_err(|m| bad("rgw_gc_max_objs", m))?)
                        .map_err(|_| bad("rgw_gc_max_objs", "too large".into()))?;
            }
            "rgw_gc_obj_min_wait" => {
                cfg.store.radosgw_gc_obj_min_wait_s =
                    u32::try_from(int(&value).map_err(|m| bad("rgw_gc_obj_min_wait", m))?)
                        .map_err(|_| bad("rgw_gc_obj_min_wait", "too large".into()))?;
            }
            "rgw_thread_pool_size" => {
                cfg.pool.thread_pool_size =
                    int(&value).map_err(|m| bad("rgw_thread_pool_size", m))? as usize;
            }
            "rgw_max_concurrent_requests" => {
                cfg.pool.max_concurrent_requests =
                    int(&value).map_err(|m| bad("rgw_max_concurrent_requests", m))? as usize;
            }
            "rgw_dns_name" => cfg.s3.dns_names = names(&value),
            "rgw_dns_s3website_name" => website_names = names(&value),
            "rgw_enable_static_website" => {
                website = truthy(&value);
            }
            "rgw_enable_ops_log" => {
                ops_log = Some(truthy(&value));
                took = false;
            }
            "rgw_ops_log_file_path" => {
                ops_log_path.clone_from(&value);
                took = false;
            }
            "rgw_zonegroup" => cfg.s3.zonegroup.clone_from(&value),
            "rgw_max_chunk_size" => {
                cfg.s3.chunk_size = int(&value).map_err(|m| bad("rgw_max_chunk_size", m))?;
            }
            "rgw_obj_stripe_size" => {
                cfg.s3.stripe_size = int(&value).map_err(|m| bad("rgw_obj_stripe_size", m))?;
            }
            "rgw_max_put_size" => {
                cfg.s3.max_put_size = int(&value).map_err(|m| bad("rgw_max_put_size", m))?;
            }
            "rgw_multipart_min_part_size" => {
                cfg.s3.min_part_size =
                    int(&value).map_err(|m| bad("rgw_multipart_min_part_size", m))?;
            }
            "rgw_override_bucket_index_max_shards" => {
                let n = int(&value).map_err(|m| bad("rgw_override_bucket_index_max_shards", m))?;
                // 0 means the zonegroup's bucket_index_max_shards (11 unless
                // changed there): rsgw's default stays
                if n > 0 {
                    cfg.s3.bucket_index_shards = u32::try_from(n).unwrap_or(u32::MAX);
                }
            }
            "rgw_multi_obj_del_max_aio" => {
                let n = int(&value).map_err(|m| bad("rgw_multi_obj_del_max_aio", m))?;
                cfg.s3.multi_delete_concurrency = u32::try_from(n).unwrap_or(u32::MAX);
            }
            "rgw_lc_debug_interval" => {
                // 0 or less (radosgw's default is -1): real days
                if !value.trim().starts_with('-') {
                    let n = int(&value).map_err(|m| bad("rgw_lc_debug_interval", m))?;
                    if n > 0 {
                        cfg.s3.lc_day_s = n;
                    }
                }
            }
            "rgw_enable_usage_log" => cfg.s3.usage_log = truthy(&value),
            "rgw_usage_log_tick_interval" => {
                let n = int(&value).map_err(|m| bad("rgw_usage_log_tick_interval", m))?;
                cfg.s3.usage_log_flush_s = n.max(1);
            }
            "rgw_crypt_require_ssl" => {
                cfg.crypt.require_ssl = truthy(&value);
            }
            "rgw_crypt_s3_kms_encryption_keys" => cfg.crypt.kms_keys.clone_from(&value),
            "rgw_crypt_s3_kms_backend" => cfg.crypt.kms_backend.clone_from(&value),
            "rgw_crypt_kmip_addr" => cfg.crypt.kmip_addr.clone_from(&value),
            "rgw_crypt_kmip_ca_path" => cfg.crypt.kmip_ca_path.clone_from(&value),
            "rgw_crypt_kmip_client_cert" => cfg.crypt.kmip_client_cert.clone_from(&value),
            "rgw_crypt_kmip_client_key" => cfg.crypt.kmip_client_key.clone_from(&value),
            "rgw_crypt_kmip_kms_key_template" => {
                cfg.crypt.kmip_kms_key_template.clone_from(&value);
            }
            k if k.starts_with("rgw_") => {
                out.ignored.push(format!("{k} = {value}"));
                took = false;
            }
            _ => took = false,
        }
        if took {
            out.taken.push((key, value));
        }
    }
    if website {
        cfg.s3.website_dns_names = website_names;
    }
    match (ops_log, ops_log_path.is_empty()) {
        (Some(true), false) => {
            out.taken.push(("rgw_enable_ops_log".into(), "true".into()));
            out.taken
                .push(("rgw_ops_log_file_path".into(), ops_log_path.clone()));
            cfg.ops_log.path = ops_log_path;
        }
        (Some(true), true) => out.ignored.push(
            "rgw_enable_ops_log = true (to RADOS: rsgw writes ops logs to files only)".into(),
        ),
        // off, as rsgw's default
        (Some(false), _) => out
            .taken
            .push(("rgw_enable_ops_log".into(), "false".into())),
        (None, _) => {}
    }
    Ok(out)
}

/// A boolean option's value as Ceph reads it: true, 1, yes or on.
fn truthy(value: &str) -> bool {
    matches!(value, "true" | "1" | "yes" | "on")
}

/// A comma-separated list of host names.
fn names(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
        .map(String::from)
        .collect()
}

/// The options of `[global]`, `[client]` and `[name]`, later sections
/// overriding earlier ones, with names normalised as Ceph does (`rgw thread
/// pool size` is `rgw_thread_pool_size`), in file order.
fn section_options(text: &str, name: &str) -> Vec<(String, String)> {
    let rank = |section: &str| match section {
        "global" => Some(0),
        "client" => Some(1),
        s if s == name => Some(2),
        _ => None,
    };
    let mut current = None;
    let mut found: Vec<(String, String, u8)> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with(['#', ';']) {
            continue;
        }
        if let Some(section) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            current = rank(section.trim());
            continue;
        }
        let (Some(rank), Some((k, v))) = (current, line.split_once('=')) else {
            continue;
        };
        let key = k.trim().to_ascii_lowercase().replace([' ', '-'], "_");
        let value = strip_comment(v.trim());
        match found.iter_mut().find(|(fk, _, _)| *fk == key) {
            Some(slot) if slot.2 <= rank => {
                slot.1 = value;
                slot.2 = rank;
            }
            Some(_) => {}
            None => found.push((key, value, rank)),
        }
    }
    found.into_iter().map(|(k, v, _)| (k, v)).collect()
}

/// Drops a trailing `# comment` and surrounding quotes.
fn strip_comment(v: &str) -> String {
    let v = if let Some(q) = v.strip_prefix('"') {
        q.split_once('"').map_or(q, |(inside, _)| inside)
    } else {
        v.split(['#', ';']).next().unwrap_or("").trim()
    };
    v.to_string()
}

/// An integer with an optional binary suffix (`4M`, `4Mi`, `4MB`, `4096`).
fn int(v: &str) -> Result<u64, String> {
    let t = v.trim();
    let digits = t.trim_end_matches(|c: char| c.is_ascii_alphabetic() || c == '_');
    let suffix = t[digits.len()..]
        .trim_start_matches('_')
        .to_ascii_uppercase();
    let mult: u64 = match suffix.trim_end_matches('B').trim_end_matches('I') {
        "" => 1,
        "K" => 1 << 10,
        "M" => 1 << 20,
        "G" => 1 << 30,
        "T" => 1 << 40,
        _ => return Err(format!("'{v}' is not a number")),
    };
    digits
        .trim()
        .parse::<u64>()
        .ok()
        .and_then(|n| n.checked_mul(mult))
        .ok_or_else(|| format!("'{v}' is not a number"))
}

/// Applies `rgw_frontends = "beast port=8000 tcp_nodelay=1 ..."`.
fn frontends(cfg: &mut Config, value: &str, ignored: &mut Vec<String>) -> Result<(), String> {
    let mut words = value.split_whitespace();
    match words.next() {
        Some("beast") => {}
        Some(other) => return Err(format!("frontend '{other}' is not supported, only beast")),
        None => return Err("is empty".into()),
    }
    let mut endpoints = Vec::new();
    let mut ssl_endpoints = Vec::new();
    for word in words {
        let (k, v) = word.split_once('=').unwrap_or((word, ""));
        let flag = || v == "1" || v.eq_ignore_ascii_case("true");
        match k {
            "port" => {
                let port: u16 = v.parse().map_err(|_| format!("port '{v}' is not a port"))?;
                endpoints.push(format!("0.0.0.0:{port}"));
            }
            "endpoint" => endpoints.push(endpoint(v, 80)?),
            "ssl_port" => {
                let port: u16 = v
                    .parse()
                    .map_err(|_| format!("ssl_port '{v}' is not a port"))?;
                ssl_endpoints.push(format!("0.0.0.0:{port}"));
            }
            "ssl_endpoint" => ssl_endpoints.push(endpoint(v, 443)?),
            "ssl_certificate" => cfg.frontend.ssl_certificate = v.into(),
            "ssl_private_key" => cfg.frontend.ssl_private_key = v.into(),
            "tcp_nodelay" => cfg.frontend.tcp_nodelay = flag(),
            "so_reuseport" => cfg.frontend.reuse_port = flag(),
            "max_connection_backlog" => cfg.frontend.backlog = int(v)? as u32,
            "request_timeout_ms" => cfg.frontend.request_timeout_ms = int(v)?,
            "max_header_size" => cfg.frontend.max_header_size = int(v)? as usize,
            _ => ignored.push(format!("rgw_frontends option {word}")),
        }
    }
    // Beast listens on port 80 when no endpoint at all is given
    cfg.frontend.endpoints = if endpoints.is_empty() && ssl_endpoints.is_empty() {
        vec!["0.0.0.0:80".into()]
    } else {
        endpoints
    };
    cfg.frontend.ssl_endpoints = ssl_endpoints;
    Ok(())
}

/// Beast's `endpoint=` and `ssl_endpoint=`: an address with an optional
/// port (`default_port`: 80, or 443 for HTTPS), IPv6 in brackets.
fn endpoint(v: &str, default_port: u16) -> Result<String, String> {
    if v.parse::<std::net::SocketAddr>().is_ok() {
        return Ok(v.to_string());
    }
    let host = v.trim_start_matches('[').trim_end_matches(']');
    match host.parse::<std::net::IpAddr>() {
        Ok(std::net::IpAddr::V4(a)) => Ok(format!("{a}:{default_port}")),
        Ok(std::net::IpAddr::V6(a)) => Ok(format!("[{a}]:{default_port}")),
        Err(_) => Err(format!("endpoint '{v}' is not an address")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CONF: &str = r#"
[global]
mon host = 127.0.0.1:6789
rgw thread pool size = 64
rgw ops log file path = /var/log/ops.log

[client.rgw.other]
rgw_thread_pool_size = 8

[client.rgw.third]
rgw_enable_ops_log = true
rgw_dns_s3website_name = other.test

[client.rgw.gw]
keyring = /tmp/k
rgw_frontends = "beast endpoint=127.0.0.1:8000 tcp_nodelay=1 max_connection_backlog=1024 request_timeout_ms=3000 ssl_certificate=/x.pem"
rgw_thread_pool_size = 128   # fewer threads
rgw max concurrent requests = 256
rgw_dns_name = s3.test
rgw_dns_s3website_name = web.test, web.example
rgw enable static website = true
rgw_zonegroup = eu
rgw_max_chunk_size = 1M
rgw_override_bucket_index_max_shards = 7
rgw_multi_obj_del_max_aio = 32
rgw_lc_debug_interval = 10
rgw_enable_usage_log = true
rgw usage log tick interval = 5
rgw_enable_ops_log = true
rgw_ops_log_file_path =
rgw_crypt_require_ssl = false
rgw crypt s3 kms encryption keys = testkey-1=YmluCmJvb3N0CmJvb3N0LWJ1aWxkCmNlcGguY29uZgo= testkey-2=aWIKTWFrZWZpbGUKbWFuCm91dApzcmMKVGVzdGluZwo=
"#;

    #[test]
    fn takes_the_named_section_over_global() {
        let dir = std::env::temp_dir().join(format!("rsgw-cephconf-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("ceph.conf");
        std::fs::write(&path, CONF).expect("write");
        let mut cfg = Config::default();
        let r = import_radosgw(&mut cfg, &path, "client.rgw.gw").expect("import");
        assert_eq!(cfg.frontend.endpoints, vec!["127.0.0.1:8000"]);
        assert_eq!(cfg.frontend.ssl_certificate, std::path::Path::new("/x.pem"));
        assert!(cfg.frontend.tcp_nodelay);
        assert_eq!(cfg.frontend.backlog, 1024);
        assert_eq!(cfg.frontend.request_timeout_ms, 3000);
        assert_eq!(cfg.pool.thread_pool_size, 128);
        assert_eq!(cfg.pool.max_concurrent_requests, 256);
        assert_eq!(cfg.s3.dns_names, vec!["s3.test"]);
        assert_eq!(cfg.s3.website_dns_names, vec!["web.test", "web.example"]);
        assert_eq!(cfg.s3.zonegroup, "eu");
        assert_eq!(cfg.s3.chunk_size, 1 << 20);
        assert_eq!(cfg.s3.bucket_index_shards, 7);
        assert_eq!(cfg.s3.multi_delete_concurrency, 32);
        assert_eq!(cfg.s3.lc_day_s, 10);
        assert!(cfg.s3.usage_log);
        assert_eq!(cfg.s3.usage_log_flush_s, 5);
        assert_eq!(cfg.store.backend, Backend::Rados);
        assert_eq!(cfg.store.client_name, "client.rgw.gw");
        assert!(!cfg.crypt.require_ssl);
        let keys = cfg.crypt.parsed_kms_keys().expect("radosgw's key list");
        assert_eq!(keys.keys().collect::<Vec<_>>(), ["testkey-1", "testkey-2"]);
        assert_eq!(
            r.ignored,
            vec!["rgw_enable_ops_log = true (to RADOS: rsgw writes ops logs to files only)"]
        );
        assert_eq!(
            cfg.ops_log.path, "",
            "radosgw logs to RADOS without a file path"
        );
        let mut cfg = Config::default();
        import_radosgw(&mut cfg, &path, "client.rgw.third").expect("import");
        assert_eq!(cfg.pool.thread_pool_size, 64, "[global] applies");
        assert_eq!(cfg.ops_log.path, "/var/log/ops.log");
        let mut cfg = Config::default();
        import_radosgw(&mut cfg, &path, "client.rgw.other").expect("import");
        assert!(
            cfg.s3.website_dns_names.is_empty(),
            "no website endpoint without rgw_enable_static_website"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn frontend_forms() {
        let mut cfg = Config::default();
        let mut ignored = Vec::new();
        frontends(
            &mut cfg,
            "beast port=8080 endpoint=[::1] so_reuseport=1",
            &mut ignored,
        )
        .expect("parse");
        assert_eq!(cfg.frontend.endpoints, vec!["0.0.0.0:8080", "[::1]:80"]);
        assert!(cfg.frontend.reuse_port);
        frontends(
            &mut cfg,
            "beast ssl_port=8443 ssl_endpoint=127.0.0.1 ssl_certificate=/c.pem ssl_private_key=/k.pem",
            &mut ignored,
        )
        .expect("parse");
        assert!(cfg.frontend.endpoints.is_empty(), "HTTPS only, as Beast");
        assert_eq!(
            cfg.frontend.ssl_endpoints,
            vec!["0.0.0.0:8443", "127.0.0.1:443"]
        );
        assert_eq!(cfg.frontend.ssl_private_key, std::path::Path::new("/k.pem"));
        assert!(ignored.is_empty(), "{ignored:?}");
        assert!(frontends(&mut cfg, "civetweb port=80", &mut ignored).is_err());
        assert!(frontends(&mut cfg, "beast port=http", &mut ignored).is_err());
        assert_eq!(int("4M").expect("int"), 4 << 20);
        assert_eq!(int("512").expect("int"), 512);
        assert!(int("4X").is_err());
    }
}
