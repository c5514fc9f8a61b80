//! radosgw's settings from the monitors' central config (`ceph config set
//! client.rgw.X rgw_thread_pool_size 256`): the lowest layer of the
//! configuration, under the file, the environment and `--set`, as radosgw
//! puts the monitors under its ceph.conf and command line.

use std::collections::BTreeMap;

use crate::ceph_conf::apply_radosgw;
use crate::{CephConfImport, Config, ConfigError, Override};

/// radosgw options that mean something only together: when the monitors
/// set one, the other's value (from wherever it comes) goes with it.
const PAIRS: [(&str, &str); 2] = [
    ("rgw_enable_static_website", "rgw_dns_s3website_name"),
    ("rgw_enable_ops_log", "rgw_ops_log_file_path"),
];

/// The options the monitors set for a client, from its values before it
/// connected (`local`: ceph.conf and the defaults) and after (`connected`:
/// librados puts the monitors' values under ceph.conf's): those whose value
/// the connection changed, each with its partner option if it has one.
/// `connected` gives the values, in its order.
pub fn monitor_options(
    local: &[(String, String)],
    connected: &[(String, String)],
) -> Vec<(String, String)> {
    let before: BTreeMap<&str, &str> = local
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let changed = |k: &str, v: &str| before.get(k).is_none_or(|b| *b != v);
    let set: Vec<&str> = connected
        .iter()
        .filter(|(k, v)| changed(k, v))
        .map(|(k, _)| k.as_str())
        .collect();
    let partner = |k: &str| {
        PAIRS.iter().find_map(|&(a, b)| {
            if a == k {
                Some(b)
            } else if b == k {
                Some(a)
            } else {
                None
            }
        })
    };
    connected
        .iter()
        .filter(|(k, _)| set.contains(&k.as_str()) || partner(k).is_some_and(|p| set.contains(&p)))
        .cloned()
        .collect()
}

/// The monitors' radosgw settings as a layer of rsgw's configuration: the
/// keys they change from rsgw's defaults, as overrides to apply under the
/// file ([`Config::load_layered`]), and what was taken and ignored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MonitorLayer {
    /// `section.key = value` for each key the settings change.
    pub keys: Vec<Override>,
    /// The options taken, and the `rgw_` options rsgw has no equivalent for.
    pub import: CephConfImport,
}

/// What the monitors' `options` (from [`monitor_options`]) make of rsgw's
/// defaults. A value radosgw would refuse is an error naming the option.
pub fn monitor_layer(options: &[(String, String)]) -> Result<MonitorLayer, ConfigError> {
    let mut cfg = Config::default();
    let import = apply_radosgw(&mut cfg, options.to_vec())?;
    let keys = Config::default()
        .differences(&cfg)
        .into_iter()
        .map(|d| Override {
            key: d.key,
            value: d.new,
            origin: "the monitors' central config".into(),
        })
        .collect();
    Ok(MonitorLayer { keys, import })
}

/// One key whose value differs between two configurations.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Difference {
    /// `section.key`.
    pub key: String,
    /// The first configuration's value, in TOML syntax.
    pub old: String,
    /// The second's.
    pub new: String,
}

impl Config {
    /// The keys whose values differ from `self` to `other`, in key order.
    pub fn differences(&self, other: &Config) -> Vec<Difference> {
        let (a, b) = (flatten(self), flatten(other));
        b.iter()
            .filter_map(|(key, new)| {
                let old = a.get(key);
                (old != Some(new)).then(|| Difference {
                    key: key.clone(),
                    old: old.map(ToString::to_string).unwrap_or_default(),
                    new: new.to_string(),
                })
            })
            .collect()
    }
}

/// `section.key -> value` for every key of `cfg`.
fn flatten(cfg: &Config) -> BTreeMap<String, toml::Value> {
    let mut out = BTreeMap::new();
    // a Config always serialises (plain fields, no maps with odd keys)
    if let Ok(table) = toml::Table::try_from(cfg) {
        for (section, value) in table {
            match value {
                toml::Value::Table(keys) => {
                    for (k, v) in keys {
                        out.insert(format!("{section}.{k}"), v);
                    }
                }
                other => {
                    out.insert(section, other);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(p: &[(&str, &str)]) -> Vec<(String, String)> {
        p.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_monitors_set_what_the_connection_changed() {
        let local = pairs(&[
            ("rgw_thread_pool_size", "512"),
            ("rgw_max_concurrent_requests", "1024"),
            ("rgw_enable_static_website", "false"),
            ("rgw_dns_s3website_name", "web.test"),
            ("rgw_enable_ops_log", "false"),
            ("rgw_ops_log_file_path", ""),
        ]);
        let connected = pairs(&[
            ("rgw_thread_pool_size", "64"),
            ("rgw_max_concurrent_requests", "1024"),
            ("rgw_enable_static_website", "true"),
            ("rgw_dns_s3website_name", "web.test"),
            ("rgw_enable_ops_log", "false"),
            ("rgw_ops_log_file_path", ""),
        ]);
        assert_eq!(
            monitor_options(&local, &connected),
            pairs(&[
                ("rgw_thread_pool_size", "64"),
                ("rgw_enable_static_website", "true"),
                // ceph.conf's, but meaningless without its partner
                ("rgw_dns_s3website_name", "web.test"),
            ])
        );
        assert!(monitor_options(&local, &local).is_empty());
    }

    #[test]
    fn the_layer_holds_only_the_keys_the_monitors_change() {
        let layer = monitor_layer(&pairs(&[
            ("rgw_thread_pool_size", "64"),
            // rsgw's default already
            ("rgw_max_concurrent_requests", "1024"),
            ("rgw_enable_static_website", "true"),
            ("rgw_dns_s3website_name", "web.test"),
            ("rgw_realm", "gold"),
        ]))
        .expect("layer");
        let keys: Vec<(&str, &str)> = layer
            .keys
            .iter()
            .map(|o| (o.key.as_str(), o.value.as_str()))
            .collect();
        assert_eq!(
            keys,
            [
                ("pool.thread_pool_size", "64"),
                ("s3.website_dns_names", r#"["web.test"]"#)
            ]
        );
        assert_eq!(layer.import.ignored, ["rgw_realm = gold"]);
        let err =
            monitor_layer(&pairs(&[("rgw_thread_pool_size", "many")])).expect_err("not a number");
        assert!(err.to_string().contains("rgw_thread_pool_size"), "{err}");
    }

    #[test]
    fn differences_name_each_changed_key() {
        let a = Config::default();
        let mut b = a.clone();
        b.pool.max_concurrent_requests = 3;
        b.s3.dns_names = vec!["s3.test".into()];
        let d = a.differences(&b);
        assert_eq!(
            d,
            [
                Difference {
                    key: "pool.max_concurrent_requests".into(),
                    old: "1024".into(),
                    new: "3".into()
                },
                Difference {
                    key: "s3.dns_names".into(),
                    old: "[]".into(),
                    new: r#"["s3.test"]"#.into()
                },
            ]
        );
        assert!(a.differences(&a).is_empty());
    }
}
