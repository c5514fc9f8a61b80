//! radosgw's settings from the monitors' central config, for `rsgw serve`
//! on the rados backend (`store.central_config`): read at start, before the
//! instance sizes its threads, then watched while it serves. The monitors
//! are the lowest layer, under the file, the environment and `--set`
//! ([`rsgw_config::Config::load_layered`]), as radosgw puts them under its
//! ceph.conf and command line; `max_concurrent_requests` follows a change
//! live, every other key at the next start.

use std::sync::Arc;
use std::time::Duration;

use rsgw_config::{Backend, Config, MonitorLayer, Override, RADOSGW_OPTIONS};
use rsgw_frontend::Controls;
use rsgw_store::Store;

/// Loads the configuration over a layer of keys from the monitors.
pub type Reload = Box<dyn Fn(&[Override]) -> Result<Config, String> + Send + Sync>;

/// `(option, value)` pairs of radosgw's settings.
type Settings = Vec<(String, String)>;

/// The key a change of applies live.
const LIVE: &str = "pool.max_concurrent_requests";

/// What the monitors set, and what the instance runs with.
pub struct Central {
    /// The options' values before the client connected (ceph.conf and
    /// Ceph's defaults): a value that differs once connected is the
    /// monitors'.
    local: Settings,
    /// The options the monitors set, as last read.
    options: Settings,
    /// The configuration over them, as last loaded.
    seen: Config,
    /// What the instance runs with: the start's, with live changes.
    running: Config,
    reload: Reload,
}

impl Central {
    /// Reads the monitors' settings for the client `cfg` names and loads
    /// the configuration over them with `reload`; `None` where there is
    /// nothing to read (another backend, or `store.central_config` off).
    pub fn start(cfg: &Config, reload: Reload) -> Result<Option<Self>, String> {
        if cfg.store.backend != Backend::Rados || !cfg.store.central_config {
            return Ok(None);
        }
        let (local, connected) = client_settings(cfg)?;
        let options = rsgw_config::monitor_options(&local, &connected);
        let layer = layer(&options)?;
        for (option, value) in &layer.import.taken {
            tracing::info!(%option, %value, "taken from the monitors' central config");
        }
        if !layer.import.ignored.is_empty() {
            tracing::warn!(
                ignored = ?layer.import.ignored,
                "radosgw settings in the monitors' central config that rsgw has no equivalent for"
            );
        }
        let seen = reload(&layer.keys)?;
        Ok(Some(Central {
            local,
            options,
            running: seen.clone(),
            seen,
            reload,
        }))
    }

    /// The configuration over the monitors' settings at start.
    pub fn config(&self) -> &Config {
        &self.running
    }

    /// Looks every `every` at the settings the monitors pushed to the
    /// store's client; applies a change of `max_concurrent_requests`
    /// through `controls` and logs any other as taking a restart.
    pub async fn watch(mut self, store: Arc<dyn Store>, controls: Controls, every: Duration) {
        let mut tick = tokio::time::interval(every);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut unreadable = false;
        loop {
            tick.tick().await;
            let values = match store.settings(&RADOSGW_OPTIONS) {
                Ok(Some(v)) => v,
                Ok(None) => return,
                Err(error) => {
                    if !std::mem::replace(&mut unreadable, true) {
                        tracing::warn!(%error, "the client's settings are unreadable");
                    }
                    continue;
                }
            };
            unreadable = false;
            self.update(
                rsgw_config::monitor_options(&self.local, &values),
                &controls,
            );
        }
    }

    /// Takes the monitors' `options` if they changed.
    fn update(&mut self, options: Settings, controls: &Controls) {
        if options == self.options {
            return;
        }
        self.options = options;
        let next = match layer(&self.options).and_then(|l| (self.reload)(&l.keys)) {
            Ok(next) => next,
            Err(error) => {
                tracing::warn!(%error, "keeping the running settings");
                return;
            }
        };
        let changed: Vec<String> = self
            .seen
            .differences(&next)
            .into_iter()
            .map(|d| d.key)
            .collect();
        for d in self.running.differences(&next) {
            if d.key == LIVE {
                let applied = d
                    .new
                    .parse::<usize>()
                    .map_err(|e| e.to_string())
                    .and_then(|n| {
                        controls
                            .set_max_concurrent_requests(n)
                            .map_err(|e| e.to_string())?;
                        self.running.pool.max_concurrent_requests = n;
                        Ok(())
                    });
                match applied {
                    Ok(()) => tracing::info!(
                        key = %d.key, old = %d.old, new = %d.new,
                        "applied from the monitors' central config"
                    ),
                    Err(error) => tracing::warn!(
                        key = %d.key, running = %d.old, new = %d.new, %error,
                        "changed in the monitors' central config: restart needed"
                    ),
                }
            } else if changed.contains(&d.key) {
                tracing::warn!(
                    key = %d.key, running = %d.old, new = %d.new,
                    "changed in the monitors' central config: restart needed"
                );
            }
        }
        self.seen = next;
    }
}

fn layer(options: &[(String, String)]) -> Result<MonitorLayer, String> {
    rsgw_config::monitor_layer(options).map_err(|e| format!("the monitors' central config: {e}"))
}

/// The options' values before and after the client connects
/// ([`rsgw_store_rados::ClientSettings`]).
#[cfg(feature = "rados")]
fn client_settings(cfg: &Config) -> Result<(Settings, Settings), String> {
    let opts = crate::store::rados_options(
        &cfg.store,
        Duration::from_millis(cfg.s3.metadata_notify_timeout_ms),
    );
    let read = rsgw_store_rados::client_settings(&opts, &RADOSGW_OPTIONS)
        .map_err(|e| format!("cannot read the monitors' central config: {e}"))?;
    Ok((read.local, read.connected))
}

#[cfg(not(feature = "rados"))]
fn client_settings(_: &Config) -> Result<(Settings, Settings), String> {
    Err(
        "this rsgw was built without the rados backend: install librados-dev and \
         rebuild with `cargo build --release --features rados`"
            .into(),
    )
}
