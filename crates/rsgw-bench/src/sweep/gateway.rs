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
use serde::{Deserialize, Serialize};

/// A gateway the sweep can start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ValueEnum)]
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

/// What a group of instances runs: which gateway, from which config, with
/// which settings over it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Which gateway.
    pub gateway: Gateway,
    /// rsgw: its config file (none: the defaults, the embedded backend in
    /// `./rsgw-data`); radosgw: the ceph.conf it reads (required).
    pub config: Option<PathBuf>,
    /// radosgw's instance name (`client.rgw.X`): its ceph.conf section and
    /// key. Unused for rsgw.
    pub radosgw_name: String,
    /// Settings over the config, `key=value`: rsgw's `--set
    /// section.key=value`, radosgw's `--key=value` options (such as
    /// `rgw_thread_pool_size=512`).
    pub sets: Vec<String>,
}

impl Spec {
    /// The settings as `--set` or `--key=value` arguments; an entry that is
    /// not `key=value` is an error.
    pub fn set_args(&self) -> Result<Vec<String>, String> {
        self.sets
            .iter()
            .map(|s| {
                let (k, v) = s
                    .split_once('=')
                    .ok_or_else(|| format!("setting '{s}' is not key=value"))?;
                let k = k.trim().trim_start_matches('-');
                if k.is_empty() {
                    return Err(format!("setting '{s}' has no key"));
                }
                Ok(match self.gateway {
                    Gateway::Rsgw => format!("{k}={}", v.trim()),
                    Gateway::Radosgw => format!("--{k}={}", v.trim()),
                })
            })
            .collect()
    }
}

/// What starting gateways needs besides what they run.
pub struct Launcher {
    /// The rsgw binary.
    pub rsgw: PathBuf,
    /// The radosgw binary.
    pub radosgw: String,
    /// Beast options added to the endpoint (`tcp_nodelay=1`).
    pub beast_options: String,
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
    /// Starts `cpusets.len()` instances of `spec`, instance i listening on
    /// `port + 2i` (rsgw's admin listener on `port + 2i + 1`) and pinned to
    /// `cpusets[i]` (a CPU list such as `0-1`), and waits until each answers.
    pub fn start(
        &self,
        spec: &Spec,
        port: u16,
        cpusets: &[String],
        tag: &str,
    ) -> Result<Running, String> {
        std::fs::create_dir_all(&self.dir).map_err(|e| format!("{}: {e}", self.dir.display()))?;
        let sets = spec.set_args()?;
        let mut running = Running {
            children: Vec::new(),
            endpoints: Vec::new(),
            logs: Vec::new(),
        };
        for (i, cpus) in cpusets.iter().enumerate() {
            let port = port + 2 * i as u16;
            let log = self.dir.join(format!("{tag}-{i}.log"));
            // ready: rsgw's /health answers 200 and its S3 port answers at
            // all (the admin listener can come up first); radosgw's / 200
            let (cmd, probes) = match spec.gateway {
                Gateway::Rsgw => (
                    self.rsgw_command(spec, &sets, cpus, port),
                    vec![(port + 1, "/health", true), (port, "/", false)],
                ),
                Gateway::Radosgw => (
                    self.radosgw_command(spec, &sets, cpus, port, &log, tag, i)?,
                    vec![(port, "/", true)],
                ),
            };
            let child = spawn(cmd, &log)?;
            running.children.push(child);
            running.logs.push(log);
            running.endpoints.push(format!("http://127.0.0.1:{port}"));
            if let Err(e) = running.wait_ready(i, &probes, self.ready_timeout) {
                running.stop();
                return Err(e);
            }
        }
        Ok(running)
    }

    fn rsgw_command(&self, spec: &Spec, sets: &[String], cpus: &str, port: u16) -> Command {
        let mut c = Command::new(&self.rsgw);
        c.arg("serve");
        if let Some(cfg) = &spec.config {
            c.arg("--config").arg(cfg);
        }
        // the spec's settings first: the listeners and the pinning are the
        // launcher's, and a later --set wins
        for set in sets.iter().cloned().chain([
            format!("frontend.endpoints=[\"127.0.0.1:{port}\"]"),
            format!("frontend.admin_endpoint=\"127.0.0.1:{}\"", port + 1),
            format!("cpu.cpuset=\"{cpus}\""),
        ]) {
            c.arg("--set").arg(set);
        }
        c
    }

    #[allow(clippy::too_many_arguments)]
    fn radosgw_command(
        &self,
        spec: &Spec,
        sets: &[String],
        cpus: &str,
        port: u16,
        log: &Path,
        tag: &str,
        i: usize,
    ) -> Result<Command, String> {
        let conf = spec
            .config
            .as_ref()
            .ok_or("radosgw needs a ceph.conf (--ceph-conf) and an instance name")?;
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
            .arg(&spec.radosgw_name)
            .args(sets)
            .arg(format!("--rgw_frontends={frontends}"))
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
    /// Waits until every probe `(port, path, ok_only)` answers: 200 when
    /// `ok_only`, any HTTP status otherwise.
    fn wait_ready(
        &mut self,
        i: usize,
        probes: &[(u16, &str, bool)],
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
            let answered = |&(port, path, ok_only): &(u16, &str, bool)| match probe(port, path) {
                Some(200) => true,
                Some(_) => !ok_only,
                None => false,
            };
            if probes.iter().all(answered) {
                return Ok(());
            }
            if Instant::now() >= deadline {
                let what: Vec<String> = probes
                    .iter()
                    .map(|(port, path, ok_only)| {
                        format!(
                            "127.0.0.1:{port}{path}{}",
                            if *ok_only { " (200)" } else { "" }
                        )
                    })
                    .collect();
                return Err(format!(
                    "instance {i} did not answer on {} within {} s; see {}",
                    what.join(" and "),
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

/// The whole host's CPU time so far, from the first line of /proc/stat, in
/// clock ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HostCpu {
    /// Time the CPUs ran anything (user, nice, system, irq, softirq), steal
    /// not included.
    pub busy: u64,
    /// Time a hypervisor gave this machine's virtual CPUs to others.
    pub steal: u64,
    /// All time, idle and iowait included.
    pub total: u64,
}

/// Reads [`HostCpu`]; `None` where /proc/stat is unreadable.
pub fn host_cpu() -> Option<HostCpu> {
    let stat = std::fs::read_to_string("/proc/stat").ok()?;
    parse_host_cpu(stat.lines().next()?)
}

/// Parses the `cpu  user nice system idle iowait irq softirq steal ...` line.
fn parse_host_cpu(line: &str) -> Option<HostCpu> {
    let f: Vec<u64> = line
        .strip_prefix("cpu ")?
        .split_whitespace()
        .filter_map(|v| v.parse().ok())
        .collect();
    let total: u64 = f.iter().take(8).sum();
    let idle = f.get(3)? + f.get(4)?;
    let steal = f.get(7).copied().unwrap_or(0);
    Some(HostCpu {
        busy: total.saturating_sub(idle + steal),
        steal,
        total,
    })
}

/// The one-minute load average, from /proc/loadavg.
pub fn loadavg() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

/// CPU seconds this process (the load generator) has used.
pub fn own_cpu_seconds() -> f64 {
    process_cpu_ticks(std::process::id()).unwrap_or(0) as f64 / clock_ticks()
}

/// The Ceph daemons whose CPU time a benchmark on this host reports apart
/// from the host's noise: on a colocated cluster they are the store the
/// gateways under test use.
pub const CEPH_DAEMONS: [&str; 3] = ["ceph-osd", "ceph-mon", "ceph-mgr"];

/// The pids of this host's running [`CEPH_DAEMONS`], found by command name
/// (none where /proc is unreadable).
pub fn ceph_daemon_pids() -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|c| CEPH_DAEMONS.contains(&c.trim_end()))
        })
        .collect()
}

/// CPU seconds used so far by the running [`CEPH_DAEMONS`] of this host. A
/// daemon that exits (a parent that forked to daemonize, an OSD stopped)
/// takes its time with it: differences between two readings can shrink.
pub fn ceph_daemons_cpu_seconds() -> f64 {
    ceph_daemon_pids()
        .into_iter()
        .filter_map(process_cpu_ticks)
        .sum::<u64>() as f64
        / clock_ticks()
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
    fn specs_become_arguments() {
        let l = Launcher {
            rsgw: PathBuf::from("rsgw"),
            radosgw: "radosgw".into(),
            beast_options: "tcp_nodelay=1".into(),
            dir: PathBuf::from("/tmp/logs"),
            ready_timeout: Duration::from_secs(1),
        };
        let args = |c: &Command| -> Vec<String> {
            c.get_args()
                .map(|a| a.to_string_lossy().into_owned())
                .collect()
        };
        let rsgw = Spec {
            gateway: Gateway::Rsgw,
            config: Some(PathBuf::from("r.toml")),
            radosgw_name: String::new(),
            sets: vec![
                "pool.mode=blocking".into(),
                "store.inject_latency_ms = 5".into(),
            ],
        };
        let sets = rsgw.set_args().expect("sets");
        assert_eq!(
            args(&l.rsgw_command(&rsgw, &sets, "0-1", 18480)),
            [
                "serve",
                "--config",
                "r.toml",
                "--set",
                "pool.mode=blocking",
                "--set",
                "store.inject_latency_ms=5",
                "--set",
                "frontend.endpoints=[\"127.0.0.1:18480\"]",
                "--set",
                "frontend.admin_endpoint=\"127.0.0.1:18481\"",
                "--set",
                "cpu.cpuset=\"0-1\""
            ]
        );
        let rgw = Spec {
            gateway: Gateway::Radosgw,
            config: Some(PathBuf::from("ceph.conf")),
            radosgw_name: "client.rgw.a".into(),
            sets: vec![
                "rgw_thread_pool_size=128".into(),
                "--rgw_max_concurrent_requests=64".into(),
            ],
        };
        let sets = rgw.set_args().expect("sets");
        let a = args(
            &l.radosgw_command(
                &rgw,
                &sets,
                "1",
                18482,
                Path::new("/tmp/logs/x.log"),
                "x",
                0,
            )
            .expect("command"),
        );
        assert_eq!(
            a[..8],
            [
                "-c",
                "1",
                "radosgw",
                "-f",
                "--conf",
                "ceph.conf",
                "--name",
                "client.rgw.a"
            ]
        );
        assert_eq!(
            a[8..11],
            [
                "--rgw_thread_pool_size=128",
                "--rgw_max_concurrent_requests=64",
                "--rgw_frontends=beast endpoint=127.0.0.1:18482 tcp_nodelay=1"
            ]
        );
        let bad = Spec {
            sets: vec!["pool.mode".into()],
            ..rsgw
        };
        assert!(bad.set_args().is_err());
        let no_conf = Spec {
            config: None,
            ..rgw
        };
        assert!(
            l.radosgw_command(&no_conf, &[], "0", 1, Path::new("l"), "t", 0)
                .is_err()
        );
    }

    #[test]
    fn cpu_times_are_readable() {
        let ticks = process_cpu_ticks(std::process::id()).expect("own /proc/PID/stat");
        assert!(ticks as f64 / clock_ticks() <= own_cpu_seconds() + 1.0);
        let (busy, total) = host_jiffies().expect("/proc/stat");
        assert!(busy <= total && total > 0);
        let h = host_cpu().expect("/proc/stat");
        assert!(h.busy + h.steal <= h.total && h.total > 0);
        assert!(loadavg().is_some_and(|l| l >= 0.0));
        assert_eq!(
            parse_host_cpu("cpu  100 5 50 800 20 3 2 10 0 0"),
            Some(HostCpu {
                busy: 160,
                steal: 10,
                total: 990
            })
        );
        assert_eq!(parse_host_cpu("cpu0 1 2 3 4 5 6 7 8"), None);
        assert!(!allowed_cpus().is_empty());
    }

    #[test]
    fn ceph_daemons_are_found_by_name() {
        // a shell named ceph-osd (its command name is the link's), busy
        let dir = std::env::temp_dir().join(format!("rsgw-ceph-daemons-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let fake = dir.join("ceph-osd");
        let _ = std::fs::remove_file(&fake);
        std::os::unix::fs::symlink("/bin/sh", &fake).expect("symlink");
        let mut child = std::process::Command::new(&fake)
            .args(["-c", "while :; do :; done"])
            .spawn()
            .expect("spawn");
        let tenth = (clock_ticks() / 10.0) as u64;
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while process_cpu_ticks(child.id()).unwrap_or(0) < tenth
            && std::time::Instant::now() < deadline
        {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let used = process_cpu_ticks(child.id()).unwrap_or(0) as f64 / clock_ticks();
        let (pids, total) = (ceph_daemon_pids(), ceph_daemons_cpu_seconds());
        let _ = child.kill();
        let _ = child.wait();
        let _ = std::fs::remove_dir_all(&dir);
        assert!(used >= 0.1, "the busy shell used {used} s");
        assert!(pids.contains(&child.id()), "{pids:?}");
        assert!(!pids.contains(&std::process::id()), "{pids:?}");
        // the real daemons of this host, if any, only add to it
        assert!(total >= used, "{total} s in all, the fake used {used}");
    }
}
