//! Starting, probing and stopping the gateways a sweep measures: rsgw
//! instances with `rsgw serve --set ...`, radosgw instances with
//! `taskset radosgw --rgw_frontends ...`, each pinned to its own CPUs.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use clap::ValueEnum;
use nix::sys::signal::{Signal, kill};
use nix::unistd::{Pid, SysconfVar, sysconf};
use serde::Serialize;

/// A gateway the sweep can start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, ValueEnum)]
#[serde(rename_all = "lowercase")]
pub enum Gateway {
    /// rsgw, started from the `--rsgw` binary with `--rsgw-config`.
    Rsgw,
    /// radosgw (Beast), started from `--ceph-conf` as `--radosgw-name`.
    Radosgw,
}

/// A gateway with its execution model: rsgw's `pool.mode`, or radosgw's
/// Beast (one model only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Variant {
    /// Which gateway.
    pub gateway: Gateway,
    /// `async`, `blocking` (rsgw) or `beast` (radosgw).
    pub mode: &'static str,
}

impl Variant {
    /// How reports and charts name it: `rsgw async`, `radosgw`.
    pub fn label(&self) -> String {
        match self.gateway {
            Gateway::Rsgw => format!("rsgw {}", self.mode),
            Gateway::Radosgw => "radosgw".into(),
        }
    }
}

/// What starting a gateway needs besides the cell.
pub struct Launcher {
    /// The rsgw binary.
    pub rsgw: PathBuf,
    /// rsgw's config file (its store section picks the backend).
    pub rsgw_config: Option<PathBuf>,
    /// The radosgw binary.
    pub radosgw: String,
    /// ceph.conf for radosgw.
    pub ceph_conf: Option<PathBuf>,
    /// radosgw's instance name (`client.rgw.X`).
    pub radosgw_name: String,
    /// Beast options added to the endpoint (`tcp_nodelay=1`).
    pub beast_options: String,
    /// First port; instance i listens on `port + 2i` (and rsgw's admin
    /// listener on `port + 2i + 1`).
    pub port: u16,
    /// Where logs and sockets go.
    pub dir: PathBuf,
    /// Seconds to wait for an instance to answer.
    pub ready_timeout: Duration,
}

/// Running instances of one gateway.
pub struct Running {
    children: Vec<Child>,
    /// `http://127.0.0.1:PORT` of each instance.
    pub endpoints: Vec<String>,
    logs: Vec<PathBuf>,
}

impl Launcher {
    /// Starts `cpusets.len()` instances of `variant` with `threads` handler
    /// threads, instance i pinned to `cpusets[i]` (a CPU list such as
    /// `0-1`), and waits until each answers.
    pub fn start(
        &self,
        variant: Variant,
        threads: usize,
        cpusets: &[String],
        tag: &str,
    ) -> Result<Running, String> {
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let mut running = Running {
            children: Vec::new(),
            endpoints: Vec::new(),
            logs: Vec::new(),
        };
        for (i, cpus) in cpusets.iter().enumerate() {
            let port = self.port + 2 * i as u16;
            let log = self.dir.join(format!("{tag}-{i}.log"));
            let (cmd, probe) = match variant.gateway {
                Gateway::Rsgw => (
                    self.rsgw_command(variant.mode, threads, cpus, port),
                    (port + 1, "/health"),
                ),
                Gateway::Radosgw => (
                    self.radosgw_command(threads, cpus, port, &log, tag, i)?,
                    (port, "/"),
                ),
            };
            let child = spawn(cmd, &log)?;
            running.children.push(child);
            running.logs.push(log);
            running.endpoints.push(format!("http://127.0.0.1:{port}"));
            if let Err(e) = running.wait_ready(i, probe.0, probe.1, self.ready_timeout) {
                running.stop();
                return Err(e);
            }
        }
        Ok(running)
    }

    fn rsgw_command(&self, mode: &str, threads: usize, cpus: &str, port: u16) -> Command {
        let mut c = Command::new(&self.rsgw);
        c.arg("serve");
        if let Some(cfg) = &self.rsgw_config {
            c.arg("--config").arg(cfg);
        }
        for set in [
            format!("frontend.endpoints=[\"127.0.0.1:{port}\"]"),
            format!("frontend.admin_endpoint=\"127.0.0.1:{}\"", port + 1),
            format!("pool.mode=\"{mode}\""),
            format!("pool.thread_pool_size={threads}"),
            format!("cpu.cpuset=\"{cpus}\""),
        ] {
            c.arg("--set").arg(set);
        }
        c
    }

    fn radosgw_command(
        &self,
        threads: usize,
        cpus: &str,
        port: u16,
        log: &Path,
        tag: &str,
        i: usize,
    ) -> Result<Command, String> {
        let conf = self
            .ceph_conf
            .as_ref()
            .ok_or("radosgw needs --ceph-conf (and --radosgw-name)")?;
        let mut frontends = format!("beast endpoint=127.0.0.1:{port}");
        if !self.beast_options.is_empty() {
            frontends.push(' ');
            frontends.push_str(&self.beast_options);
        }
        let mut c = Command::new("taskset");
        c.arg("-c")
            .arg(cpus)
            .arg(&self.radosgw)
            .arg("-f")
            .arg("--conf")
            .arg(conf)
            .arg("--name")
            .arg(&self.radosgw_name)
            .arg(format!("--rgw_frontends={frontends}"))
            .arg(format!("--rgw_thread_pool_size={threads}"))
            .arg(format!(
                "--admin_socket={}",
                self.dir.join(format!("{tag}-{i}.asok")).display()
            ))
            .arg(format!(
                "--log_file={}",
                log.with_extension("rgw.log").display()
            ));
        Ok(c)
    }
}

fn spawn(mut cmd: Command, log: &Path) -> Result<Child, String> {
    let out = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
    let err = out
        .try_clone()
        .map_err(|e| format!("{}: {e}", log.display()))?;
    cmd.stdin(Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", cmd.get_program().display()))
}

impl Running {
    fn wait_ready(
        &mut self,
        i: usize,
        port: u16,
        path: &str,
        timeout: Duration,
    ) -> Result<(), String> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Ok(Some(status)) = self.children[i].try_wait() {
                return Err(format!(
                    "instance {i} exited ({status}) before answering; last lines of {}:\n{}",
                    self.logs[i].display(),
                    tail(&self.logs[i], 15)
                ));
            }
            if probe(port, path) == Some(200) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                return Err(format!(
                    "instance {i} did not answer 200 on 127.0.0.1:{port}{path} within {} s; see {}",
                    timeout.as_secs(),
                    self.logs[i].display()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// utime + stime of every instance so far, in seconds.
    pub fn cpu_seconds(&self) -> f64 {
        self.children
            .iter()
            .filter_map(|c| process_cpu_ticks(c.id()))
            .sum::<u64>() as f64
            / clock_ticks()
    }

    /// Whether every instance still runs.
    pub fn alive(&mut self) -> bool {
        self.children
            .iter_mut()
            .all(|c| matches!(c.try_wait(), Ok(None)))
    }

    /// SIGTERM to every instance, SIGKILL to those still running 15 s later.
    pub fn stop(&mut self) {
        for c in &self.children {
            // a child we started and have not reaped: its pid is still its own
            let _ = kill(Pid::from_raw(c.id() as i32), Signal::SIGTERM);
        }
        let deadline = Instant::now() + Duration::from_secs(15);
        for c in &mut self.children {
            while matches!(c.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(50));
            }
            if matches!(c.try_wait(), Ok(None)) {
                let _ = c.kill();
                let _ = c.wait();
            }
        }
        self.children.clear();
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        self.stop();
    }
}

/// The status of `GET path` on 127.0.0.1:port, if anything answers.
fn probe(port: u16, path: &str) -> Option<u16> {
    let addr = std::net::SocketAddr::from(([127, 0, 0, 1], port));
    let mut s = TcpStream::connect_timeout(&addr, Duration::from_millis(500)).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(2))).ok()?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = [0u8; 32];
    let n = s.read(&mut head).ok()?;
    std::str::from_utf8(&head[..n])
        .ok()?
        .split(' ')
        .nth(1)?
        .parse()
        .ok()
}

fn tail(path: &Path, lines: usize) -> String {
    let text = std::fs::read_to_string(path).unwrap_or_default();
    let all: Vec<&str> = text.lines().collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Clock ticks per second (`utime`/`stime` unit in /proc).
pub fn clock_ticks() -> f64 {
    match sysconf(SysconfVar::CLK_TCK) {
        Ok(Some(t)) if t > 0 => t as f64,
        _ => 100.0,
    }
}

/// utime + stime of a process, in clock ticks.
pub fn process_cpu_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // the command name (field 2) may hold spaces: count after its ')'
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split(' ').collect();
    Some(f.get(11)?.parse::<u64>().ok()? + f.get(12)?.parse::<u64>().ok()?)
}

/// Busy and total jiffies of the whole host, from /proc/stat.
pub fn host_jiffies() -> Option<(u64, u64)> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    let cpu: Vec<u64> = stat
        .lines()
        .next()?
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    let total: u64 = cpu.iter().take(8).sum();
    let idle = cpu.get(3)? + cpu.get(4)?;
    Some((total - idle, total))
}

/// CPU seconds this process (the load generator) has used.
pub fn own_cpu_seconds() -> f64 {
    process_cpu_ticks(std::process::id()).unwrap_or(0) as f64 / clock_ticks()
}

/// The CPUs this process may run on, from /proc/self/status.
pub fn allowed_cpus() -> Vec<usize> {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let list = status
        .lines()
        .find_map(|l| l.strip_prefix("Cpus_allowed_list:"))
        .unwrap_or("")
        .trim()
        .to_string();
    parse_cpu_list(&list).unwrap_or_else(|| {
        (0..std::thread::available_parallelism().map_or(1, std::num::NonZero::get)).collect()
    })
}

/// Parses a CPU list such as `0-3,8`.
pub fn parse_cpu_list(list: &str) -> Option<Vec<usize>> {
    let mut cpus = Vec::new();
    for part in list.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => cpus.extend(a.parse::<usize>().ok()?..=b.parse::<usize>().ok()?),
            None => cpus.push(part.parse().ok()?),
        }
    }
    (!cpus.is_empty()).then_some(cpus)
}

/// Writes a CPU list compactly: `[0, 1, 2, 5]` as `0-2,5`.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut parts = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(if i == j {
            cpus[i].to_string()
        } else {
            format!("{}-{}", cpus[i], cpus[j])
        });
        i = j + 1;
    }
    parts.join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_round_trip() {
        assert_eq!(parse_cpu_list("0-3,8"), Some(vec![0, 1, 2, 3, 8]));
        assert_eq!(parse_cpu_list("x"), None);
        assert_eq!(cpu_list(&[0, 1, 2, 5, 7, 8]), "0-2,5,7-8");
        assert_eq!(cpu_list(&[1]), "1");
    }

    #[test]
    fn cpu_times_are_readable() {
        let ticks = process_cpu_ticks(std::process::id()).expect("own /proc/PID/stat");
        assert!(ticks as f64 / clock_ticks() <= own_cpu_seconds() + 1.0);
        let (busy, total) = host_jiffies().expect("/proc/stat");
        assert!(busy <= total && total > 0);
        assert!(!allowed_cpus().is_empty());
    }
}
