//! `rsgw health`: asks a running instance's admin listener for `/health`;
//! exit status 0 when it answers 200. What a container's HEALTHCHECK or a
//! load balancer's exec probe runs, with no curl in the image.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use rsgw_config::{Config, Override};

/// `rsgw health` flags.
#[derive(Args, Debug)]
pub struct HealthArgs {
    /// The instance's configuration file; its `frontend.admin_endpoint`
    /// (after RSGW_* overrides) is asked.
    #[arg(long, short, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Ask this address instead (`host:port`).
    #[arg(long, value_name = "ADDR")]
    pub admin: Option<String>,
    /// Seconds to wait for the answer.
    #[arg(long, default_value_t = 3.0)]
    pub timeout: f64,
}

/// Runs `rsgw health`.
pub fn run(args: &HealthArgs) -> Result<(), Box<dyn std::error::Error>> {
    let endpoint = match &args.admin {
        Some(a) => a.clone(),
        None => {
            let cfg = Config::load_with(
                args.config.as_deref(),
                &Override::from_env(std::env::vars()),
            )?;
            cfg.frontend.admin_endpoint
        }
    };
    if endpoint.is_empty() {
        return Err("the admin listener is disabled (frontend.admin_endpoint = \"\")".into());
    }
    let mut addr: SocketAddr = endpoint
        .parse()
        .map_err(|_| format!("admin endpoint '{endpoint}' is not host:port"))?;
    // a wildcard listener is asked on loopback
    if addr.ip().is_unspecified() {
        addr.set_ip(if addr.is_ipv4() {
            std::net::Ipv4Addr::LOCALHOST.into()
        } else {
            std::net::Ipv6Addr::LOCALHOST.into()
        });
    }
    let timeout = Duration::from_secs_f64(args.timeout.max(0.001));
    let mut s = TcpStream::connect_timeout(&addr, timeout).map_err(|e| format!("{addr}: {e}"))?;
    s.set_read_timeout(Some(timeout))?;
    s.set_write_timeout(Some(timeout))?;
    write!(
        s,
        "GET /health HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )?;
    let mut resp = Vec::new();
    s.read_to_end(&mut resp)
        .map_err(|e| format!("{addr}: {e}"))?;
    let text = String::from_utf8_lossy(&resp);
    let status = text.split(' ').nth(1).unwrap_or("");
    let body = text.split_once("\r\n\r\n").map_or("", |(_, b)| b).trim();
    if status == "200" {
        println!("{body}");
        Ok(())
    } else {
        Err(format!("{addr}/health answered {status}: {body}").into())
    }
}
