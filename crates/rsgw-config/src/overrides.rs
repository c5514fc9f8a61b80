//! Keys set over the file: `rsgw serve --set section.key=value` and
//! `RSGW_SECTION_KEY=value` in the environment (a container's way to
//! configure). Precedence: file, then environment, then `--set`.

use std::path::Path;

use crate::{Config, ConfigError};

/// The sections a key can live in; an environment variable whose first
/// word is not one of them (`RSGW_LOG`, say) is not a config key.
const SECTIONS: [&str; 7] = ["frontend", "pool", "cpu", "s3", "store", "ops_log", "crypt"];

/// One `section.key = value` applied over the configuration file.
#[derive(Debug, Clone, PartialEq)]
pub struct Override {
    /// `section.key`, as in the file.
    pub key: String,
    /// The value in TOML syntax (`512`, `true`, `["127.0.0.1:7480"]`); a
    /// bare word that is not TOML (`blocking`, `0-3`) is taken as a string.
    pub value: String,
    /// Where it came from (`--set` or the variable's name), for errors.
    pub origin: String,
}

impl Override {
    /// Parses a `--set` argument, `section.key=value`.
    pub fn parse_arg(arg: &str) -> Result<Self, String> {
        let (key, value) = arg
            .split_once('=')
            .ok_or_else(|| format!("'{arg}' is not section.key=value"))?;
        let key = key.trim();
        if key
            .split_once('.')
            .is_none_or(|(s, k)| s.is_empty() || k.is_empty())
        {
            return Err(format!(
                "'{key}' is not section.key (e.g. pool.thread_pool_size)"
            ));
        }
        Ok(Override {
            key: key.to_string(),
            value: value.trim().to_string(),
            origin: format!("--set {key}"),
        })
    }

    /// The overrides among environment variables: `RSGW_POOL_MODE=blocking`
    /// sets `pool.mode`. Variables of other shapes are not config keys.
    pub fn from_env(vars: impl IntoIterator<Item = (String, String)>) -> Vec<Self> {
        let mut found: Vec<Self> = vars
            .into_iter()
            .filter_map(|(name, value)| {
                let rest = name.strip_prefix("RSGW_")?.to_ascii_lowercase();
                // a section's name may hold an underscore (ops_log)
                let (section, key) = SECTIONS.iter().find_map(|s| {
                    let key = rest.strip_prefix(s)?.strip_prefix('_')?;
                    Some((s, key))
                })?;
                (!key.is_empty()).then(|| Override {
                    key: format!("{section}.{key}"),
                    value,
                    origin: name,
                })
            })
            .collect();
        found.sort_by(|a, b| a.origin.cmp(&b.origin));
        found
    }
}

impl Config {
    /// Reads `path` (or starts from the defaults) and applies `overrides` in
    /// order; unknown keys and wrong types are errors naming their origin.
    pub fn load_with(path: Option<&Path>, overrides: &[Override]) -> Result<Self, ConfigError> {
        Self::load_layered(&[], path, overrides)
    }

    /// [`Config::load_with`] over a layer of keys under the file (`base`:
    /// the monitors' central config, [`crate::monitor_layer`]): a key the
    /// file or an override sets keeps their value.
    pub fn load_layered(
        base: &[Override],
        path: Option<&Path>,
        overrides: &[Override],
    ) -> Result<Self, ConfigError> {
        let (text, origin) = match path {
            Some(p) => (
                std::fs::read_to_string(p).map_err(|source| ConfigError::Read {
                    path: p.to_path_buf(),
                    source,
                })?,
                p.to_path_buf(),
            ),
            None => (String::new(), Path::new("(defaults)").to_path_buf()),
        };
        let file: toml::Table = toml::from_str(&text).map_err(|e| ConfigError::Parse {
            path: origin.clone(),
            message: e.to_string(),
        })?;
        let decode = |table: &toml::Table| -> Result<Config, String> {
            toml::Value::Table(table.clone())
                .try_into()
                .map_err(|e: toml::de::Error| e.to_string())
        };
        let mut table = toml::Table::new();
        for o in base {
            apply(&mut table, o)?;
            decode(&table).map_err(|message| ConfigError::Override {
                origin: o.origin.clone(),
                message,
            })?;
        }
        for (section, value) in file {
            match (table.get_mut(&section), value) {
                (Some(toml::Value::Table(under)), toml::Value::Table(over)) => under.extend(over),
                (_, value) => {
                    table.insert(section, value);
                }
            }
        }
        // decoded after each step, so that an error names the file or the
        // override that brought it
        let mut cfg = decode(&table).map_err(|message| ConfigError::Parse {
            path: origin.clone(),
            message,
        })?;
        for o in overrides {
            apply(&mut table, o)?;
            cfg = decode(&table).map_err(|message| ConfigError::Override {
                origin: o.origin.clone(),
                message,
            })?;
        }
        cfg.validate()?;
        Ok(cfg)
    }
}

fn apply(table: &mut toml::Table, o: &Override) -> Result<(), ConfigError> {
    let err = |message: String| ConfigError::Override {
        origin: o.origin.clone(),
        message,
    };
    let (section, key) = o
        .key
        .split_once('.')
        .ok_or_else(|| err(format!("'{}' is not section.key", o.key)))?;
    if !SECTIONS.contains(&section) {
        return Err(err(format!(
            "no section [{section}]; sections are {}",
            SECTIONS.join(", ")
        )));
    }
    let value = toml::from_str::<toml::Table>(&format!("v = {}", o.value))
        .ok()
        .and_then(|mut t| t.remove("v"))
        .unwrap_or_else(|| toml::Value::String(o.value.clone()));
    let entry = table
        .entry(section.to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    let toml::Value::Table(t) = entry else {
        return Err(err(format!("[{section}] is not a table in the file")));
    };
    t.insert(key.to_string(), value);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PoolMode;

    fn set(arg: &str) -> Override {
        Override::parse_arg(arg).expect("valid --set")
    }

    #[test]
    fn set_values_take_toml_or_bare_strings() {
        let cfg = Config::load_with(
            None,
            &[
                set("pool.thread_pool_size=64"),
                set("pool.mode=blocking"),
                set("cpu.cpuset=0-1"),
                set("frontend.endpoints=[\"127.0.0.1:9000\"]"),
                set("frontend.tcp_nodelay = false"),
            ],
        )
        .expect("overrides apply");
        assert_eq!(cfg.pool.thread_pool_size, 64);
        assert_eq!(cfg.pool.mode, PoolMode::Blocking);
        assert_eq!(cfg.cpu.cpuset, "0-1");
        assert_eq!(cfg.frontend.endpoints, ["127.0.0.1:9000"]);
        assert!(!cfg.frontend.tcp_nodelay);
    }

    #[test]
    fn overrides_win_over_the_file_in_order() {
        let dir = std::env::temp_dir().join(format!("rsgw-ovr-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("rsgw.toml");
        std::fs::write(&file, "[pool]\nthread_pool_size = 8\nqueue_size = 5\n").expect("write");
        let mut o = Override::from_env([("RSGW_POOL_THREAD_POOL_SIZE".into(), "16".into())]);
        o.push(set("pool.thread_pool_size=32"));
        let cfg = Config::load_with(Some(&file), &o).expect("loads");
        assert_eq!(cfg.pool.thread_pool_size, 32);
        assert_eq!(cfg.pool.queue_size, 5);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn the_base_layer_lies_under_the_file_and_the_overrides() {
        let dir = std::env::temp_dir().join(format!("rsgw-base-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let file = dir.join("rsgw.toml");
        std::fs::write(&file, "[pool]\nqueue_size = 5\n").expect("write");
        let base = |arg: &str| Override {
            origin: "the monitors".into(),
            ..set(arg)
        };
        let cfg = Config::load_layered(
            &[
                base("pool.thread_pool_size=7"),
                base("pool.queue_size=9"),
                base("pool.max_concurrent_requests=3"),
                base("ops_log.files=2"),
            ],
            Some(&file),
            &[set("pool.max_concurrent_requests=4")],
        )
        .expect("loads");
        assert_eq!(cfg.pool.thread_pool_size, 7, "the base's, set nowhere else");
        assert_eq!(cfg.pool.queue_size, 5, "the file's over the base's");
        assert_eq!(cfg.pool.max_concurrent_requests, 4, "--set over the base's");
        assert_eq!(cfg.ops_log.files, 2);
        let e = Config::load_layered(&[base("pool.thread_pool_size=many")], Some(&file), &[])
            .expect_err("a bad base value")
            .to_string();
        assert!(e.contains("the monitors"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn environment_names_map_to_keys() {
        let o = Override::from_env([
            ("RSGW_LOG".into(), "debug".into()),
            ("RSGW_STORE_BACKEND".into(), "rados".into()),
            ("RSGW_FRONTEND_MAX_CONNECTIONS".into(), "100".into()),
            ("RSGW_OPS_LOG_PATH".into(), "/var/log/ops.log".into()),
            ("RSGW_CRYPT_REQUIRE_SSL".into(), "false".into()),
            ("RSGW_OPS".into(), "x".into()),
            ("HOME".into(), "/root".into()),
        ]);
        let keys: Vec<&str> = o.iter().map(|o| o.key.as_str()).collect();
        assert_eq!(
            keys,
            [
                "crypt.require_ssl",
                "frontend.max_connections",
                "ops_log.path",
                "store.backend"
            ]
        );
        let cfg = Config::load_with(None, &o).expect("every section takes overrides");
        assert_eq!(cfg.ops_log.path, "/var/log/ops.log");
        assert!(!cfg.crypt.require_ssl);
    }

    #[test]
    fn bad_overrides_name_their_origin() {
        for (arg, want) in [
            ("pool.no_such_key=1", "--set pool.no_such_key"),
            ("pools.mode=async", "no section [pools]"),
            ("pool.thread_pool_size=many", "--set pool.thread_pool_size"),
        ] {
            let e = Config::load_with(None, &[set(arg)])
                .expect_err(arg)
                .to_string();
            assert!(e.contains(want), "{arg}: {e}");
        }
        assert!(Override::parse_arg("pool").is_err());
        assert!(Override::parse_arg("pool=1").is_err());
        let e = Config::load_with(None, &[set("pool.thread_pool_size=0")])
            .expect_err("validated")
            .to_string();
        assert!(e.contains("thread_pool_size"), "{e}");
    }
}
