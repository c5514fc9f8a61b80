//! `rsgw serve --instances N`: colocated instances as supervised processes,
//! each pinned to its own CPUs, as operators run two radosgw per node.

use std::net::SocketAddr;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use nix::sys::signal::{Signal, kill};
use nix::unistd::Pid;
use rsgw_config::{Config, CpuSet};
use tokio::process::{Child, Command};
use tokio::sync::watch;

use crate::serve::ServeArgs;

/// First restart delay after an instance dies; doubles up to the maximum.
const RESTART_BACKOFF_START: Duration = Duration::from_secs(1);
const RESTART_BACKOFF_MAX: Duration = Duration::from_secs(30);
/// An instance that ran this long before dying restarts at the first delay again.
const HEALTHY_RUN: Duration = Duration::from_secs(60);
/// An instance that exits with an error this soon after its first start
/// has a problem no restart fixes (a port in use, a bad cpuset): the
/// supervisor gives up. Deaths by a signal always restart.
const FIRST_START_GRACE: Duration = Duration::from_secs(3);

/// Rewrites `cfg` for instance `i` of `n`: its cpuset, and (without
/// `reuse_port`) port + i × `instance_port_step` on every endpoint; the
/// admin endpoint always moves so, so each instance answers its own health
/// checks; an ops log file gets `-i` before its extension, so each
/// instance writes and rotates its own.
pub fn apply(cfg: &mut Config, i: usize, n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let sets = instance_cpusets(cfg, n)?;
    cfg.cpu.cpuset = sets[i].to_string();
    let by = i * usize::from(cfg.frontend.instance_port_step);
    if !cfg.frontend.reuse_port {
        for ep in cfg
            .frontend
            .endpoints
            .iter_mut()
            .chain(cfg.frontend.ssl_endpoints.iter_mut())
        {
            *ep = shift_port(ep, by)?;
        }
    }
    if !cfg.frontend.admin_endpoint.is_empty() {
        cfg.frontend.admin_endpoint = shift_port(&cfg.frontend.admin_endpoint, by)?;
    }
    if n > 1 && !cfg.ops_log.path.is_empty() && cfg.ops_log.path != "-" {
        cfg.ops_log.path = instance_file(&cfg.ops_log.path, i);
    }
    Ok(())
}

/// `ops.log` -> `ops-1.log`, `ops` -> `ops-1` (the directory untouched).
fn instance_file(path: &str, i: usize) -> String {
    let name_at = path.rfind('/').map_or(0, |p| p + 1);
    match path[name_at..].rfind('.') {
        Some(dot) if dot > 0 => {
            let at = name_at + dot;
            format!("{}-{i}{}", &path[..at], &path[at..])
        }
        _ => format!("{path}-{i}"),
    }
}

/// The cpuset of each of `n` instances: `cpu.instance_cpusets`, or
/// `cpu.cpuset` (every CPU the process may use when empty) split in `n`.
fn instance_cpusets(cfg: &Config, n: usize) -> Result<Vec<CpuSet>, Box<dyn std::error::Error>> {
    if !cfg.cpu.instance_cpusets.is_empty() {
        if cfg.cpu.instance_cpusets.len() != n {
            return Err(format!(
                "cpu.instance_cpusets lists {} cpusets for {n} instances",
                cfg.cpu.instance_cpusets.len()
            )
            .into());
        }
        return cfg
            .cpu
            .instance_cpusets
            .iter()
            .map(|s| CpuSet::parse(s).map_err(Into::into))
            .collect();
    }
    let base = CpuSet::parse(&cfg.cpu.cpuset)?;
    let base = if base.is_empty() {
        rsgw_frontend::cpu::allowed()?
    } else {
        base
    };
    base.split(n).ok_or_else(|| {
        format!(
            "{n} instances need at least {n} CPUs for disjoint cpusets; there are {} ({base})",
            base.len()
        )
        .into()
    })
}

fn shift_port(ep: &str, by: usize) -> Result<String, Box<dyn std::error::Error>> {
    let mut addr: SocketAddr = ep.parse()?;
    let port = usize::from(addr.port()) + by;
    addr.set_port(u16::try_from(port).map_err(|_| format!("port {port} is out of range"))?);
    Ok(addr.to_string())
}

/// Starts `args.instances` instances and keeps them running until SIGTERM
/// or SIGINT, then stops them all (each drains) and returns.
pub fn supervise(args: &ServeArgs, cfg: &Config) -> Result<(), Box<dyn std::error::Error>> {
    let n = args.instances;
    for i in 0..n {
        let mut c = cfg.clone();
        apply(&mut c, i, n)?;
        tracing::info!(
            instance = i,
            cpuset = %c.cpu.cpuset,
            endpoints = ?c.frontend.endpoints,
            admin = %c.frontend.admin_endpoint,
            "instance planned"
        );
    }
    let stop_after = Duration::from_millis(cfg.frontend.drain_timeout_ms) + Duration::from_secs(5);
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async move {
        let (stop_tx, stop_rx) = watch::channel(false);
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..n {
            tasks.spawn(keep_running(i, args.clone(), stop_rx.clone(), stop_after));
        }
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())?;
        let failed = tokio::select! {
            _ = tokio::signal::ctrl_c() => None,
            _ = term.recv() => None,
            Some(r) = tasks.join_next() => Some(r),
        };
        tracing::info!("stopping all instances");
        let _ = stop_tx.send(true);
        while tasks.join_next().await.is_some() {}
        match failed {
            Some(Ok(Err(e))) => Err(e.into()),
            _ => Ok(()),
        }
    })
}

fn spawn(i: usize, args: &ServeArgs) -> std::io::Result<Child> {
    let mut cmd = Command::new(std::env::current_exe()?);
    cmd.arg("serve");
    if let Some(c) = &args.config {
        cmd.arg("--config").arg(c);
    }
    if let (Some(conf), Some(name)) = (&args.ceph_conf, &args.name) {
        cmd.arg("--ceph-conf").arg(conf).arg("--name").arg(name);
    }
    for o in &args.set {
        cmd.arg("--set").arg(format!("{}={}", o.key, o.value));
    }
    cmd.arg("--instances")
        .arg(args.instances.to_string())
        .arg("--instance")
        .arg(i.to_string());
    cmd.kill_on_drop(true);
    cmd.spawn()
}

/// Runs instance `i`, restarting it with backoff when it dies, until `stop`.
/// Returns an error only when the very first start fails at once.
async fn keep_running(
    i: usize,
    args: ServeArgs,
    mut stop: watch::Receiver<bool>,
    stop_after: Duration,
) -> Result<(), String> {
    let mut backoff = RESTART_BACKOFF_START;
    let mut first = true;
    loop {
        let mut child = spawn(i, &args).map_err(|e| format!("cannot start instance {i}: {e}"))?;
        let started = Instant::now();
        tracing::info!(instance = i, pid = child.id(), "instance started");
        tokio::select! {
            status = child.wait() => {
                let status = status.map_err(|e| e.to_string())?;
                let failed_itself = status.code().is_some_and(|c| c != 0);
                if first && failed_itself && started.elapsed() < FIRST_START_GRACE {
                    return Err(format!("instance {i} exited at start ({status}); see its log above"));
                }
                first = false;
                if started.elapsed() > HEALTHY_RUN {
                    backoff = RESTART_BACKOFF_START;
                }
                tracing::warn!(instance = i, %status, restart_in = ?backoff, "instance died; restarting");
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    _ = stop.changed() => return Ok(()),
                }
                backoff = (backoff * 2).min(RESTART_BACKOFF_MAX);
            }
            _ = stop.changed() => {
                let status = terminate(&mut child, stop_after).await;
                tracing::info!(instance = i, ?status, "instance stopped");
                return Ok(());
            }
        }
    }
}

/// SIGTERM, then SIGKILL if the instance has not drained in time.
async fn terminate(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    if let Some(pid) = child.id() {
        // our own child, not yet reaped: its pid is still its own
        let _ = kill(Pid::from_raw(pid as i32), Signal::SIGTERM);
    }
    match tokio::time::timeout(grace, child.wait()).await {
        Ok(s) => s.ok(),
        Err(_) => {
            let _ = child.kill().await;
            child.wait().await.ok()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instances_get_disjoint_cpus_and_ports() {
        let mut cfg = Config::default();
        cfg.cpu.cpuset = "0-3".into();
        let mut a = cfg.clone();
        apply(&mut a, 0, 2).expect("apply");
        let mut b = cfg.clone();
        apply(&mut b, 1, 2).expect("apply");
        assert_eq!(a.cpu.cpuset, "0-1");
        assert_eq!(b.cpu.cpuset, "2-3");
        assert_eq!(b.frontend.endpoints, vec!["127.0.0.1:7490"]);
        assert_eq!(b.frontend.admin_endpoint, "127.0.0.1:7491");
        cfg.frontend.reuse_port = true;
        cfg.cpu.instance_cpusets = vec!["0".into(), "2".into()];
        let mut c = cfg.clone();
        apply(&mut c, 1, 2).expect("apply");
        assert_eq!(c.cpu.cpuset, "2");
        assert_eq!(c.frontend.endpoints, vec!["127.0.0.1:7480"]);
        assert!(
            apply(&mut cfg.clone(), 0, 3).is_err(),
            "two cpusets for three"
        );
        cfg.cpu.instance_cpusets.clear();
        cfg.cpu.cpuset = "0".into();
        assert!(apply(&mut cfg, 0, 2).is_err(), "one CPU for two");
    }

    #[test]
    fn each_instance_writes_its_own_ops_log() {
        assert_eq!(
            instance_file("/var/log/rsgw/ops.log", 1),
            "/var/log/rsgw/ops-1.log"
        );
        assert_eq!(
            instance_file("/var/log/rsgw.d/ops", 0),
            "/var/log/rsgw.d/ops-0"
        );
        assert_eq!(instance_file(".ops", 2), ".ops-2");
        let mut cfg = Config::default();
        cfg.cpu.cpuset = "0-1".into();
        cfg.ops_log.path = "-".into();
        apply(&mut cfg, 1, 2).expect("apply");
        assert_eq!(cfg.ops_log.path, "-", "standard output is shared");
    }
}
