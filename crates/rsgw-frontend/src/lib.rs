//! rsgw's frontend: radosgw's Beast knobs as small, named layers.
//!
//! A request travels: [`listener`] (backlog, `SO_REUSEPORT`, connection
//! cap, `TCP_NODELAY`, header timeout, accept backoff) → [`service`] (the
//! body's idle timeout, [`body_timeout`]) →
//! [`admission`] (`max_concurrent_requests`, `503 SlowDown` or a bounded
//! queue) → [`pool`] (`pool.mode`: async workers or blocking handler
//! threads) → the [`Handler`] (the S3 service, which implements it in
//! `rsgw-s3`: this crate knows no S3). [`metrics`] counts along
//! the way and [`admin`] serves them, with `/health`, on a port of its own;
//! [`ops_log`] writes a line per request when asked.
//! HTTPS listeners add a [`tls`] handshake before the connection's first
//! request.
//! [`server::run`] starts an instance: [`cpu`] pinning first, then
//! [`limits`], the runtime, listeners, and the drain on SIGTERM.

#![forbid(unsafe_code)]

pub mod admin;
pub mod admission;
pub mod body_timeout;
pub mod client;
pub mod cpu;
pub mod handler;
pub mod limits;
pub mod listener;
pub mod metrics;
pub mod ops_log;
pub mod pool;
pub mod proxy_protocol;
pub mod server;
pub mod service;
pub mod tls;

pub use body_timeout::{BodyFailure, BodyState, RequestBody};
pub use client::Client;
pub use handler::{BoxError, Handler, Operation, Rejection};
pub use ops_log::{LogFields, Logged};
pub use server::{Controls, ThreadPlan, run};

/// Why an instance could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum FrontendError {
    /// CPU pinning failed or the cpuset is invalid or unavailable.
    #[error("cpu.cpuset: {0}")]
    Cpu(String),
    /// A setting that cannot be used (the key names it).
    #[error("{0}")]
    Config(String),
    /// An address that does not parse.
    #[error("'{0}' is not an address like 127.0.0.1:7480")]
    Address(String),
    /// A system call failed.
    #[error("{what}: {source}")]
    Io {
        /// What was being done.
        what: String,
        /// The error.
        source: std::io::Error,
    },
    /// The handler could not be built (the store is unreachable, say).
    #[error("{0}")]
    Handler(BoxError),
    /// The certificate or key of the HTTPS listeners cannot be used.
    #[error("frontend.ssl_certificate: {0}")]
    Tls(#[from] tls::TlsError),
    /// A listener task outlived the shutdown.
    #[error("listeners still running at shutdown")]
    Listeners,
}

impl FrontendError {
    fn io(what: impl Into<String>, source: std::io::Error) -> Self {
        FrontendError::Io {
            what: what.into(),
            source,
        }
    }
}
