//! rsgw's configuration: the TOML file that `rsgw serve --config` and
//! `rsgw admin --config` read. Every key has a default, so an empty (or no)
//! file runs the gateway on the embedded backend. Unknown keys are errors, so
//! a typo never silently falls back to a default. `docs/config.md` lists every
//! key; `config/rsgw.toml` is a commented example.

#![forbid(unsafe_code)]

mod ceph_conf;
mod cpuset;
mod crypt;
mod monitors;
mod overrides;

use std::path::{Path, PathBuf};

pub use ceph_conf::{CephConfImport, RADOSGW_OPTIONS, import_radosgw};
pub use cpuset::CpuSet;
pub use crypt::CryptConfig;
pub use monitors::{Difference, MonitorLayer, monitor_layer, monitor_options};
pub use overrides::Override;

use serde::{Deserialize, Serialize};

/// Why a configuration could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file could not be read.
    #[error("cannot read config file {path}: {source}")]
    Read {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The file is not valid TOML or has unknown keys or wrong types.
    #[error("invalid config file {path}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// What the parser said (with line and column).
        message: String,
    },
    /// A `--set` or `RSGW_*` override names no key or has the wrong type.
    #[error("invalid override {origin}: {message}")]
    Override {
        /// `--set section.key` or the environment variable's name.
        origin: String,
        /// What is wrong.
        message: String,
    },
    /// A value is out of its allowed range.
    #[error("invalid config value {key}: {message}")]
    Value {
        /// The key, as `section.key`.
        key: &'static str,
        /// Why it is rejected.
        message: String,
    },
}

/// The whole configuration file.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct Config {
    /// `[frontend]`: where the gateway listens.
    pub frontend: FrontendConfig,
    /// `[pool]`: who runs request handlers, and how many at once.
    pub pool: PoolConfig,
    /// `[cpu]`: which CPUs the instance runs on.
    pub cpu: CpuConfig,
    /// `[s3]`: the S3 layer's sizes and limits.
    pub s3: S3Config,
    /// `[store]`: where objects live.
    pub store: StoreConfig,
    /// `[ops_log]`: one line per request, for operators.
    pub ops_log: OpsLogConfig,
    /// `[crypt]`: server-side encryption's keys.
    pub crypt: CryptConfig,
}

/// `[ops_log]`: one JSON line per request (who, what, how it went), written
/// off the request path by a thread of its own.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct OpsLogConfig {
    /// Where the lines go: a file (appended to, rotated at `max_bytes`),
    /// `"-"` for standard output, or empty for no ops log (radosgw's
    /// `rgw_enable_ops_log` with `rgw_ops_log_file_path`). With `rsgw serve
    /// --instances N`, instance i writes to the file with `-i` before its
    /// extension. Default empty.
    pub path: String,
    /// Size in bytes at which the file is rotated (renamed to `path.1`,
    /// the older ones shifted up); 0 never rotates. Default 104857600
    /// (100 MiB).
    pub max_bytes: u64,
    /// Rotated files kept (`path.1` to `path.N`); 0 truncates the file
    /// instead. Default 5.
    pub files: u32,
    /// Lines waiting for the writer at most (radosgw's
    /// `rgw_ops_log_data_backlog`, counted in lines): when it falls behind,
    /// further lines are dropped and counted, and requests never wait.
    /// 1 to 16777216. Default 65536.
    pub queue: usize,
}

impl Default for OpsLogConfig {
    fn default() -> Self {
        OpsLogConfig {
            path: String::new(),
            max_bytes: 100 << 20,
            files: 5,
            queue: 65_536,
        }
    }
}

/// `[s3]`: how objects are laid out and what the S3 layer accepts.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct S3Config {
    /// Host names for virtual-hosted-style requests (`bucket.<name>`), like
    /// `rgw_dns_name`. Empty: path-style only. Default empty.
    pub dns_names: Vec<String>,
    /// Host names of the static-website endpoint, like radosgw's
    /// `rgw_dns_s3website_name`: a GET or HEAD to `bucket.<name>` is served
    /// as a website (index and error documents, redirects, HTML errors,
    /// anonymous access as the bucket's policy and ACLs allow) from the
    /// bucket's website configuration. Empty: no website endpoint. Default
    /// empty.
    pub website_dns_names: Vec<String>,
    /// The zonegroup GetBucketLocation names for every bucket, as radosgw
    /// names its own (`rgw_zonegroup`; radosgw's default zonegroup is
    /// `default`). Empty: no LocationConstraint, as AWS answers for
    /// us-east-1. Default `"default"`.
    pub zonegroup: String,
    /// The first path segment of radosgw's Admin Ops API (`/admin/user`,
    /// `/admin/bucket`...), like radosgw's `rgw_admin_entry`: requests
    /// there are the API's, signed by users with caps (`rsgw admin caps
    /// add`), and a bucket of that name cannot be reached path-style.
    /// Letters, digits, `-`, `_` and `.`; empty: no Admin Ops API. Default
    /// `"admin"`.
    pub admin_entry: String,
    /// Bytes of an object kept in its head RADOS object, read with its
    /// attributes in one round trip (`rgw_max_chunk_size`). Default 4194304.
    pub chunk_size: u64,
    /// Size of each further RADOS object of a large object
    /// (`rgw_obj_stripe_size`). Default 4194304.
    pub stripe_size: u64,
    /// Largest single PUT in bytes (`rgw_max_put_size`). Default 5368709120.
    pub max_put_size: u64,
    /// Smallest part of a multipart upload, but the last
    /// (`rgw_multipart_min_part_size`). Default 5242880.
    pub min_part_size: u64,
    /// How long bucket and access-key lookups stay cached while the
    /// instance cannot watch for changes (its watch of the store's control
    /// object broken, or `rsgw admin`), in milliseconds; watched entries
    /// live until a change invalidates them. Default 1000.
    pub metadata_cache_ttl_ms: u64,
    /// How long a change of cached metadata (key or user removed, bucket
    /// deleted, bucket ACL) waits for every instance to acknowledge it, in
    /// milliseconds; also how long the cluster keeps the watch of an
    /// instance that died. Default 5000.
    pub metadata_notify_timeout_ms: u64,
    /// Seconds between garbage-collection passes of a running gateway. Default 600.
    pub gc_interval_s: u64,
    /// Age in seconds after which an unfinished upload's stripes are
    /// collected. Default 3600.
    pub gc_min_age_s: u64,
    /// Index shards of a bucket created from now on (each bucket keeps the
    /// count it was created with), like radosgw's zone default
    /// `bucket_index_max_shards` / `rgw_override_bucket_index_max_shards`.
    /// 1 to [`MAX_BUCKET_INDEX_SHARDS`]. Default 11.
    pub bucket_index_shards: u32,
    /// Keys of one DeleteObjects request deleted at once (radosgw's
    /// `rgw_multi_obj_del_max_aio`, from Reef on; Pacific deletes one after
    /// the other). 1 to 1000. Default 16.
    pub multi_delete_concurrency: u32,
    /// Most bytes of a POST form (browser upload) before its file part,
    /// part headers included; more is `400
    /// MaxPostPreDataLengthExceededError`. 1024 to 1048576. Default 20480.
    pub post_form_fields_max: u32,
    /// Most bytes a bucket's record (its policy, lifecycle, CORS, website,
    /// tags, ACL and quota, JSON-encoded together) may take after a request
    /// that sets one of them; more is `400 MaxMessageLengthExceeded`, the
    /// record kept as it was. Removals always go through, and records are
    /// read whole whatever their length. 65536 to 67108864. Default 4194304
    /// (4 MiB: room for each at the largest S3 allows, docs/s3.md).
    pub max_bucket_record_bytes: u64,
    /// Bytes of small objects (data and metadata) each instance keeps in
    /// memory, coherent across instances, for objects asked for more than
    /// once and more often than what they would push out; 0 turns the
    /// object cache off. Default 67108864 (64 MiB).
    pub object_cache_bytes: u64,
    /// Largest object the object cache holds, in bytes: 1 to `chunk_size`
    /// and to `object_cache_bytes` (the cache holds objects whose data lies
    /// in their head). Default 262144.
    pub object_cache_max_object: u64,
    /// Seconds between lifecycle passes of a running gateway (one instance
    /// of the cluster runs each pass: it holds a lease). Default 3600.
    pub lc_interval_s: u64,
    /// Seconds in a lifecycle "day" (radosgw's `rgw_lc_debug_interval`):
    /// 86400, or fewer to watch rules act in a test. Default 86400.
    pub lc_day_s: u64,
    /// Deletions and aborts a lifecycle pass makes per second at most; 0
    /// for no limit. Default 100.
    pub lc_max_ops_per_s: u32,
    /// Seconds a lifecycle pass's lease lasts unless renewed (a pass that
    /// died holds the worker up this long). At least 3. Default 60.
    pub lc_lease_s: u64,
    /// Keep radosgw's usage log (`rgw_enable_usage_log`): requests, bytes
    /// received and sent per user, bucket, hour and operation, read and
    /// trimmed through the Admin Ops API's `/admin/usage`. Default false
    /// (radosgw's).
    pub usage_log: bool,
    /// Seconds between writes of each instance's usage counts to the store
    /// (`rgw_usage_log_tick_interval`); the last ones are written at exit.
    /// Above 0. Default 30.
    pub usage_log_flush_s: u64,
}

/// Most index shards a bucket may have (radosgw's
/// `rgw_max_dynamic_shards` default): a listing reads every shard.
pub const MAX_BUCKET_INDEX_SHARDS: u32 = 1999;

impl Default for S3Config {
    fn default() -> Self {
        S3Config {
            dns_names: Vec::new(),
            website_dns_names: Vec::new(),
            zonegroup: "default".into(),
            admin_entry: "admin".into(),
            chunk_size: 4 << 20,
            stripe_size: 4 << 20,
            max_put_size: 5 << 30,
            min_part_size: 5 << 20,
            metadata_cache_ttl_ms: 1000,
            metadata_notify_timeout_ms: 5000,
            gc_interval_s: 600,
            gc_min_age_s: 3600,
            bucket_index_shards: 11,
            multi_delete_concurrency: 16,
            post_form_fields_max: 20 << 10,
            max_bucket_record_bytes: 4 << 20,
            object_cache_bytes: 64 << 20,
            object_cache_max_object: 256 << 10,
            lc_interval_s: 3600,
            lc_day_s: 86_400,
            lc_max_ops_per_s: 100,
            usage_log: false,
            usage_log_flush_s: 30,
            lc_lease_s: 60,
        }
    }
}

/// `[frontend]`: the S3 listener.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct FrontendConfig {
    /// Addresses to listen on with plain HTTP, `host:port` each (several
    /// allowed; may be empty when `ssl_endpoints` is not).
    /// Default `["127.0.0.1:7480"]`, radosgw's port.
    pub endpoints: Vec<String>,
    /// Addresses to listen on with HTTPS (Beast's `ssl_endpoint`), served by
    /// the same pool and admission as `endpoints`. Default empty.
    pub ssl_endpoints: Vec<String>,
    /// PEM file with the server certificate, followed by its chain (Beast's
    /// `ssl_certificate`); required with `ssl_endpoints`. Reloaded, with
    /// `ssl_private_key`, on SIGHUP. Default empty.
    pub ssl_certificate: std::path::PathBuf,
    /// PEM file with the certificate's private key (PKCS#8, PKCS#1 or SEC1);
    /// empty: taken from `ssl_certificate` as Beast does. Default empty.
    pub ssl_private_key: std::path::PathBuf,
    /// Addresses or networks (`10.0.0.5`, `10.0.0.0/8`, `::1`) of proxies in
    /// front of rsgw (an ingress such as HAProxy) whose `Forwarded` or
    /// `X-Forwarded-For`/`X-Forwarded-Proto` headers name the client's
    /// address and scheme; from any other peer these headers are ignored.
    /// Default empty.
    pub trusted_proxies: Vec<String>,
    /// Connections from `trusted_proxies` begin with a PROXY protocol v2
    /// header (HAProxy's `send-proxy-v2`, for an ingress that balances TCP
    /// and passes TLS through): the address it names is the client's. A
    /// connection from a trusted proxy without one is closed; other peers
    /// connect as they are. Default false.
    pub proxy_protocol: bool,
    /// Largest request header section in bytes (names and values), like
    /// Beast's `max_header_size`; larger ones get `400
    /// RequestHeaderSectionTooLarge`. Default 16384, at most 1048576.
    pub max_header_size: usize,
    /// Listen backlog of each endpoint (Beast's `max_connection_backlog`);
    /// the kernel caps it at `net.core.somaxconn`. Default 4096.
    pub backlog: u32,
    /// How long a connection may take to send a request's headers, and stay
    /// idle between keep-alive requests, in milliseconds (Beast's
    /// `request_timeout_ms`); 0 disables. Default 65000.
    pub request_timeout_ms: u64,
    /// Most connections open at once; at the cap the listener stops
    /// accepting and newcomers wait in the backlog (never accepted and
    /// reset). 0 (default): unlimited, as in Beast.
    pub max_connections: usize,
    /// Set `TCP_NODELAY` on accepted connections, so small responses are not
    /// held by Nagle's algorithm (Beast's `tcp_nodelay`, off there by
    /// default). Default true.
    pub tcp_nodelay: bool,
    /// Bind the endpoints with `SO_REUSEPORT`, so several instances can
    /// share one port and the kernel spreads connections among them.
    /// Default false.
    pub reuse_port: bool,
    /// Address of the admin listener (Prometheus `/metrics`, `/health`); it
    /// serves no S3. Empty disables it. Default `127.0.0.1:7481`.
    pub admin_endpoint: String,
    /// After SIGTERM, how long the instance goes on accepting and serving
    /// while `/health` answers 503, before it closes its listeners: time for
    /// a load balancer's health checks to take it out of rotation, so that
    /// no client is sent to a closed port (HAProxy: more than `inter` ×
    /// `fall`). A second SIGTERM or SIGINT ends it early. In milliseconds.
    /// Default 0.
    pub drain_notice_ms: u64,
    /// After SIGTERM (and the notice), how long requests in flight may
    /// finish before the instance exits anyway, in milliseconds. Default
    /// 30000.
    pub drain_timeout_ms: u64,
    /// `rsgw serve --instances N`: instance i adds i × this to the port of
    /// the admin endpoint, and of every S3 endpoint unless `reuse_port`.
    /// Default 10 (7480/7481, 7490/7491, ...).
    pub instance_port_step: u16,
}

impl Default for FrontendConfig {
    fn default() -> Self {
        FrontendConfig {
            endpoints: vec!["127.0.0.1:7480".into()],
            ssl_endpoints: Vec::new(),
            ssl_certificate: std::path::PathBuf::new(),
            ssl_private_key: std::path::PathBuf::new(),
            trusted_proxies: Vec::new(),
            proxy_protocol: false,
            max_header_size: 16384,
            backlog: 4096,
            request_timeout_ms: 65_000,
            max_connections: 0,
            tcp_nodelay: true,
            reuse_port: false,
            admin_endpoint: "127.0.0.1:7481".into(),
            drain_notice_ms: 0,
            drain_timeout_ms: 30_000,
            instance_port_step: 10,
        }
    }
}

/// How request handlers run (`pool.mode`).
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum PoolMode {
    /// `thread_pool_size` async worker threads run many requests each; store
    /// calls are asynchronous (Beast with `rgw_beast_enable_async`).
    #[default]
    Async,
    /// `thread_pool_size` handler threads run one request each, calling the
    /// store's blocking API; further requests wait in a FIFO (civetweb,
    /// early Beast).
    Blocking,
}

/// What happens to a request beyond `max_concurrent_requests`.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Admission {
    /// Answered at once with `503 SlowDown`, as radosgw does.
    #[default]
    Reject,
    /// Waits up to `queue_timeout_ms` in a queue of at most `queue_size`
    /// requests, then `503 SlowDown`.
    Queue,
}

/// `[pool]`: the request-handler pool and admission, radosgw's
/// `rgw_thread_pool_size` and `rgw_max_concurrent_requests`.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct PoolConfig {
    /// `async` (default) or `blocking`.
    pub mode: PoolMode,
    /// Handler threads (`rgw_thread_pool_size`). Default 512.
    pub thread_pool_size: usize,
    /// blocking mode: threads that accept connections, parse HTTP and write
    /// responses. 0 (default): one per CPU the instance may use.
    pub io_threads: usize,
    /// Most helper threads for store calls that have no async form (the
    /// embedded backend's file and database work, RADOS listings), started
    /// on demand. Default 8.
    pub store_threads: usize,
    /// Requests handled at once; more get `503 SlowDown` (or wait, with
    /// `admission = "queue"`). 0: unlimited. Default 1024.
    pub max_concurrent_requests: usize,
    /// `reject` (default) or `queue`.
    pub admission: Admission,
    /// queue admission: most requests waiting; more are rejected at once.
    /// Default 1024.
    pub queue_size: usize,
    /// queue admission: longest wait in milliseconds before `503 SlowDown`.
    /// Default 10000.
    pub queue_timeout_ms: u64,
}

impl Default for PoolConfig {
    fn default() -> Self {
        PoolConfig {
            mode: PoolMode::Async,
            thread_pool_size: 512,
            io_threads: 0,
            store_threads: 8,
            max_concurrent_requests: 1024,
            admission: Admission::Reject,
            queue_size: 1024,
            queue_timeout_ms: 10_000,
        }
    }
}

/// `[cpu]`: CPU pinning of the instance.
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CpuConfig {
    /// CPUs every thread of the instance runs on, as a list like `"0-3,8"`.
    /// Empty (default): no pinning.
    pub cpuset: String,
    /// `rsgw serve --instances N`: one cpuset per instance. Empty (default):
    /// `cpuset` (or every CPU the process may use) split into N equal slices.
    pub instance_cpusets: Vec<String>,
}

/// Which backend stores the objects.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    /// The embedded store in a local directory (no external service).
    #[default]
    Local,
    /// A Ceph cluster through librados.
    Rados,
}

/// Whose records and objects the gateway serves from the store.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum Layout {
    /// rsgw's own (docs/layout.md), in pools `<pool_prefix>.*`.
    #[default]
    Native,
    /// radosgw's, in the pools its zone (`zone`) names: what a radosgw
    /// wrote, served read-only (rados backend only).
    Radosgw,
}

/// `[store]`: the storage backend and its settings.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct StoreConfig {
    /// `local` (default) or `rados`.
    pub backend: Backend,
    /// `native` (default): rsgw's own layout; `radosgw`: serve, read-only,
    /// what radosgw wrote in zone `zone` (rados backend only).
    pub layout: Layout,
    /// radosgw layout: the zone whose pools to read, found in `.rgw.root`
    /// as radosgw finds it. Default `default`.
    pub zone: String,
    /// radosgw layout: the count of radosgw's garbage collector queues
    /// (`gc.<n>` in the zone's GC pool) to which the tails of objects rsgw
    /// replaces or removes are handed, as radosgw hands them; must be the
    /// zone's radosgw's `rgw_gc_max_objs` (imported from it). 0 releases
    /// them at once instead. Default 32.
    pub radosgw_gc_max_objs: u32,
    /// radosgw layout: seconds those tails wait in radosgw's queue before
    /// its collector releases them, so that reads begun before the change
    /// finish (radosgw's `rgw_gc_obj_min_wait`, imported from it). Default
    /// 7200.
    pub radosgw_gc_obj_min_wait_s: u32,
    /// Prefix of every pool rsgw creates (`<prefix>.meta`, ...). Default `rsgw`.
    pub pool_prefix: String,
    /// local: the data directory. Default `rsgw-data`.
    pub path: PathBuf,
    /// local: objects up to this many bytes keep their data in the metadata
    /// database. Default 65536.
    pub inline_max: usize,
    /// Largest RADOS object accepted (RADOS' own `osd_max_object_size` is 128 MiB).
    /// Default 134217728.
    pub max_object_size: u64,
    /// local: flush data and metadata before acknowledging writes. Default false.
    pub fsync: bool,
    /// local: writes that add data are refused (`507 InsufficientStorage`)
    /// once the filesystem of `path` has fewer free bytes than this, keeping
    /// room for deletes and metadata; 0 turns the reserve off. Default
    /// 67108864 (64 MiB).
    pub min_free_bytes: u64,
    /// rados: the cluster's ceph.conf. Default `/etc/ceph/ceph.conf`.
    pub ceph_conf: PathBuf,
    /// rados: the cephx client name. Default `client.rgw.rsgw`.
    pub client_name: String,
    /// rados: keyring file; empty uses the one ceph.conf names. Default empty.
    pub keyring: PathBuf,
    /// rados: `rsgw serve` registers in the cluster's service map as an
    /// `rgw` daemon, as radosgw does, so that `ceph -s`, `ceph service dump`
    /// and the dashboard list it. Default true.
    pub service_map: bool,
    /// rados: take radosgw's settings for `client_name` from the monitors'
    /// central config (`ceph config set client.rgw.rsgw
    /// rgw_thread_pool_size 64`) under the file, the environment and
    /// `--set`, as radosgw puts them under its ceph.conf and command line;
    /// `max_concurrent_requests` follows changes live, other keys at the
    /// next start. Default true.
    pub central_config: bool,
    /// rados: how often `rsgw serve` looks for changes the monitors pushed
    /// to its client (a memory read, no round trip), in milliseconds; 0
    /// reads the central config at start only. Default 1000.
    pub central_config_poll_ms: u64,
    /// Time limit of one store operation in milliseconds (rados: `rados_osd_op_timeout`
    /// and `rados_mon_op_timeout`; local: how long a write waits for the database
    /// lock). Default 30000.
    pub op_timeout_ms: u64,
    /// Milliseconds added before every store read, write and listing call,
    /// to emulate a remote or loaded cluster (lab and tests). Default 0.
    pub inject_latency_ms: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            backend: Backend::Local,
            layout: Layout::Native,
            zone: "default".into(),
            radosgw_gc_max_objs: 32,
            radosgw_gc_obj_min_wait_s: 7200,
            pool_prefix: "rsgw".into(),
            path: PathBuf::from("rsgw-data"),
            inline_max: 64 * 1024,
            max_object_size: 128 << 20,
            fsync: false,
            min_free_bytes: 64 << 20,
            ceph_conf: PathBuf::from("/etc/ceph/ceph.conf"),
            client_name: "client.rgw.rsgw".into(),
            keyring: PathBuf::new(),
            service_map: true,
            central_config: true,
            central_config_poll_ms: 1000,
            op_timeout_ms: 30_000,
            inject_latency_ms: 0,
        }
    }
}

impl Config {
    /// Parses a configuration from TOML text; `origin` names it in errors.
    pub fn parse(text: &str, origin: &Path) -> Result<Self, ConfigError> {
        let cfg: Config = toml::from_str(text).map_err(|e| ConfigError::Parse {
            path: origin.to_path_buf(),
            message: e.to_string(),
        })?;
        cfg.validate()?;
        Ok(cfg)
    }

    /// Checks ranges that the types alone do not express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !(1..=1 << 24).contains(&self.ops_log.queue) {
            return Err(ConfigError::Value {
                key: "ops_log.queue",
                message: "must be between 1 and 16777216 lines".into(),
            });
        }
        if self.frontend.endpoints.is_empty() && self.frontend.ssl_endpoints.is_empty() {
            return Err(ConfigError::Value {
                key: "frontend.endpoints",
                message: "needs at least one address (or frontend.ssl_endpoints)".into(),
            });
        }
        for (key, eps) in [
            ("frontend.endpoints", &self.frontend.endpoints),
            ("frontend.ssl_endpoints", &self.frontend.ssl_endpoints),
        ] {
            for ep in eps {
                if ep.parse::<std::net::SocketAddr>().is_err() {
                    return Err(ConfigError::Value {
                        key,
                        message: format!(
                            "'{ep}' is not an address like 127.0.0.1:7480 or [::1]:7480"
                        ),
                    });
                }
            }
        }
        if !self.frontend.ssl_endpoints.is_empty()
            && self.frontend.ssl_certificate.as_os_str().is_empty()
        {
            return Err(ConfigError::Value {
                key: "frontend.ssl_certificate",
                message: "frontend.ssl_endpoints need a certificate (PEM file)".into(),
            });
        }
        if self.frontend.proxy_protocol && self.frontend.trusted_proxies.is_empty() {
            return Err(ConfigError::Value {
                key: "frontend.proxy_protocol",
                message: "needs frontend.trusted_proxies: the proxies whose PROXY headers are read"
                    .into(),
            });
        }
        if self.frontend.backlog == 0 {
            return Err(ConfigError::Value {
                key: "frontend.backlog",
                message: "must be above 0".into(),
            });
        }
        if !(1024..=1 << 20).contains(&self.frontend.max_header_size) {
            return Err(ConfigError::Value {
                key: "frontend.max_header_size",
                message: "must be between 1024 and 1048576".into(),
            });
        }
        if !self.frontend.admin_endpoint.is_empty()
            && self
                .frontend
                .admin_endpoint
                .parse::<std::net::SocketAddr>()
                .is_err()
        {
            return Err(ConfigError::Value {
                key: "frontend.admin_endpoint",
                message: format!(
                    "'{}' is not an address like 127.0.0.1:7481 (empty disables it)",
                    self.frontend.admin_endpoint
                ),
            });
        }
        if self.pool.thread_pool_size == 0 {
            return Err(ConfigError::Value {
                key: "pool.thread_pool_size",
                message: "must be above 0".into(),
            });
        }
        if self.pool.store_threads == 0 {
            return Err(ConfigError::Value {
                key: "pool.store_threads",
                message: "must be above 0".into(),
            });
        }
        if self.pool.admission == Admission::Queue && self.pool.queue_timeout_ms == 0 {
            return Err(ConfigError::Value {
                key: "pool.queue_timeout_ms",
                message: "must be above 0 with admission = \"queue\"".into(),
            });
        }
        cpuset::CpuSet::parse(&self.cpu.cpuset).map_err(|message| ConfigError::Value {
            key: "cpu.cpuset",
            message,
        })?;
        for set in &self.cpu.instance_cpusets {
            let parsed = cpuset::CpuSet::parse(set).map_err(|message| ConfigError::Value {
                key: "cpu.instance_cpusets",
                message,
            })?;
            if parsed.is_empty() {
                return Err(ConfigError::Value {
                    key: "cpu.instance_cpusets",
                    message: "every entry needs at least one CPU".into(),
                });
            }
        }
        self.crypt.validate_backend()?;
        let kms_keys = self.crypt.parsed_kms_keys()?;
        // a KMIP server's keys are known only when asked for
        if !self.crypt.uses_kmip()
            && !self.crypt.kms_default_key.is_empty()
            && !kms_keys.contains_key(&self.crypt.kms_default_key)
        {
            return Err(ConfigError::Value {
                key: "crypt.kms_default_key",
                message: format!(
                    "'{}' is not one of crypt.kms_keys' ids",
                    self.crypt.kms_default_key
                ),
            });
        }
        self.crypt.parsed_sse_s3_key()?;
        let s3 = &self.s3;
        for (key, v) in [
            ("s3.chunk_size", s3.chunk_size),
            ("s3.stripe_size", s3.stripe_size),
        ] {
            if v == 0 || v > self.store.max_object_size {
                return Err(ConfigError::Value {
                    key,
                    message: format!(
                        "must be above 0 and at most store.max_object_size ({})",
                        self.store.max_object_size
                    ),
                });
            }
        }
        for (key, v) in [
            ("s3.lc_interval_s", s3.lc_interval_s),
            ("s3.lc_day_s", s3.lc_day_s),
        ] {
            if v == 0 {
                return Err(ConfigError::Value {
                    key,
                    message: "must be above 0".into(),
                });
            }
        }
        if s3.lc_lease_s < 3 {
            return Err(ConfigError::Value {
                key: "s3.lc_lease_s",
                message: "must be at least 3".into(),
            });
        }
        if s3.gc_interval_s == 0 {
            return Err(ConfigError::Value {
                key: "s3.gc_interval_s",
                message: "must be above 0".into(),
            });
        }
        if !(1..=MAX_BUCKET_INDEX_SHARDS).contains(&s3.bucket_index_shards) {
            return Err(ConfigError::Value {
                key: "s3.bucket_index_shards",
                message: format!("must be between 1 and {MAX_BUCKET_INDEX_SHARDS}"),
            });
        }
        if !(1..=1000).contains(&s3.multi_delete_concurrency) {
            return Err(ConfigError::Value {
                key: "s3.multi_delete_concurrency",
                message: "must be between 1 and 1000".into(),
            });
        }
        if s3.usage_log_flush_s == 0 {
            return Err(ConfigError::Value {
                key: "s3.usage_log_flush_s",
                message: "must be above 0".into(),
            });
        }
        if !s3
            .admin_entry
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || b"-_.".contains(&c))
        {
            return Err(ConfigError::Value {
                key: "s3.admin_entry",
                message: "letters, digits, '-', '_' and '.' only (\"\" turns the API off)".into(),
            });
        }
        if !(1 << 10..=1 << 20).contains(&s3.post_form_fields_max) {
            return Err(ConfigError::Value {
                key: "s3.post_form_fields_max",
                message: "must be between 1024 and 1048576".into(),
            });
        }
        if !(64 << 10..=64 << 20).contains(&s3.max_bucket_record_bytes) {
            return Err(ConfigError::Value {
                key: "s3.max_bucket_record_bytes",
                message: "must be between 65536 and 67108864".into(),
            });
        }
        if s3.object_cache_bytes > 0
            && !(1..=s3.chunk_size.min(s3.object_cache_bytes)).contains(&s3.object_cache_max_object)
        {
            return Err(ConfigError::Value {
                key: "s3.object_cache_max_object",
                message: format!(
                    "must be between 1 and s3.chunk_size ({}) and s3.object_cache_bytes ({})",
                    s3.chunk_size, s3.object_cache_bytes
                ),
            });
        }
        let s = &self.store;
        if s.pool_prefix.is_empty() || s.pool_prefix.contains(['\0', '/']) {
            return Err(ConfigError::Value {
                key: "store.pool_prefix",
                message: "must be non-empty, without '/' or NUL".into(),
            });
        }
        if s.layout == Layout::Radosgw && s.backend != Backend::Rados {
            return Err(ConfigError::Value {
                key: "store.layout",
                message: "radosgw's layout is in a Ceph cluster: set store.backend = \"rados\""
                    .into(),
            });
        }
        if s.zone.is_empty() || s.zone.contains(['\0', '/']) {
            return Err(ConfigError::Value {
                key: "store.zone",
                message: "must be non-empty, without '/' or NUL".into(),
            });
        }
        if s.max_object_size == 0 {
            return Err(ConfigError::Value {
                key: "store.max_object_size",
                message: "must be above 0".into(),
            });
        }
        if s.op_timeout_ms == 0 {
            return Err(ConfigError::Value {
                key: "store.op_timeout_ms",
                message: "must be above 0".into(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_gives_defaults() {
        let cfg = Config::parse("", Path::new("x.toml")).expect("parse");
        assert_eq!(cfg, Config::default());
        assert_eq!(cfg.store.backend, Backend::Local);
        assert_eq!(cfg.store.op_timeout_ms, 30_000);
    }

    #[test]
    fn example_file_shows_the_defaults() {
        let text = include_str!("../../../config/rsgw.toml");
        let cfg = Config::parse(text, Path::new("config/rsgw.toml")).expect("parse");
        assert_eq!(cfg, Config::default());
    }

    #[test]
    fn keys_override_defaults() {
        let cfg = Config::parse(
            "[store]\nbackend = \"rados\"\nceph_conf = \"/tmp/c.conf\"\npool_prefix = \"gw\"\n",
            Path::new("x.toml"),
        )
        .expect("parse");
        assert_eq!(cfg.store.backend, Backend::Rados);
        assert_eq!(cfg.store.ceph_conf, PathBuf::from("/tmp/c.conf"));
        assert_eq!(cfg.store.pool_prefix, "gw");
        assert_eq!(cfg.store.client_name, "client.rgw.rsgw");
    }

    #[test]
    fn unknown_keys_and_bad_values_are_errors() {
        let e =
            Config::parse("[store]\nbackedn = \"local\"\n", Path::new("x.toml")).expect_err("typo");
        assert!(e.to_string().contains("backedn"), "{e}");
        let e = Config::parse("[store]\nbackend = \"s3\"\n", Path::new("x.toml"))
            .expect_err("bad enum");
        assert!(e.to_string().contains("x.toml"), "{e}");
        let e = Config::parse(
            "[frontend]\nendpoints = [\"localhost\"]\n",
            Path::new("x.toml"),
        )
        .expect_err("no port");
        assert!(e.to_string().contains("frontend.endpoints"), "{e}");
        let e =
            Config::parse("[store]\nop_timeout_ms = 0\n", Path::new("x.toml")).expect_err("zero");
        assert!(e.to_string().contains("store.op_timeout_ms"), "{e}");
        for shards in [0, MAX_BUCKET_INDEX_SHARDS + 1] {
            let e = Config::parse(
                &format!("[s3]\nbucket_index_shards = {shards}\n"),
                Path::new("x.toml"),
            )
            .expect_err("shards out of range");
            assert!(e.to_string().contains("s3.bucket_index_shards"), "{e}");
        }
        for entry in ["a/b", "ad min", "admin?"] {
            let e = Config::parse(
                &format!("[s3]\nadmin_entry = {entry:?}\n"),
                Path::new("x.toml"),
            )
            .expect_err("a path segment of letters and digits");
            assert!(e.to_string().contains("s3.admin_entry"), "{e}");
        }
        for entry in ["", "admin", "ops-api_v1.0"] {
            let cfg = Config::parse(
                &format!("[s3]\nadmin_entry = {entry:?}\n"),
                Path::new("x.toml"),
            )
            .expect("a valid entry");
            assert_eq!(cfg.s3.admin_entry, entry);
        }
        for shards in [1, MAX_BUCKET_INDEX_SHARDS] {
            let cfg = Config::parse(
                &format!("[s3]\nbucket_index_shards = {shards}\n"),
                Path::new("x.toml"),
            )
            .expect("shards in range");
            assert_eq!(cfg.s3.bucket_index_shards, shards);
        }
        for n in [(64 << 10) - 1, (64 << 20) + 1] {
            let e = Config::parse(
                &format!("[s3]\nmax_bucket_record_bytes = {n}\n"),
                Path::new("x.toml"),
            )
            .expect_err("record limit out of range");
            assert!(e.to_string().contains("s3.max_bucket_record_bytes"), "{e}");
        }
        for n in [0, 1001] {
            let e = Config::parse(
                &format!("[s3]\nmulti_delete_concurrency = {n}\n"),
                Path::new("x.toml"),
            )
            .expect_err("concurrency out of range");
            assert!(e.to_string().contains("s3.multi_delete_concurrency"), "{e}");
        }
        for bad in [
            "object_cache_max_object = 0",
            "object_cache_max_object = 4194305",
            "object_cache_bytes = 1000\nobject_cache_max_object = 1001",
        ] {
            let e = Config::parse(&format!("[s3]\n{bad}\n"), Path::new("x.toml"))
                .expect_err("object size out of range");
            assert!(
                e.to_string().contains("s3.object_cache_max_object"),
                "{bad}: {e}"
            );
        }
        let cfg = Config::parse(
            "[s3]\nobject_cache_bytes = 0\nobject_cache_max_object = 0\n",
            Path::new("x.toml"),
        )
        .expect("a cache turned off needs no object size");
        assert_eq!(cfg.s3.object_cache_bytes, 0);
    }
}
