//! CPU pinning (`cpu.cpuset`): every thread of the instance runs on the
//! configured CPUs. Pinning happens before the runtime starts, so every
//! thread spawned later (tokio workers, handler threads, librados' own)
//! inherits it; threads that already exist are pinned one by one.

use nix::sched::{CpuSet as NixCpuSet, sched_getaffinity, sched_setaffinity};
use nix::unistd::Pid;
use rsgw_config::CpuSet;

use crate::FrontendError;

/// The CPUs this process may run on now.
pub fn allowed() -> std::io::Result<CpuSet> {
    let set = sched_getaffinity(Pid::from_raw(0))?;
    let cpus = (0..NixCpuSet::count())
        .filter(|&c| set.is_set(c).unwrap_or(false))
        .collect();
    Ok(CpuSet::from_cpus(cpus))
}

/// Pins every thread of the process to `set`. Fails, naming the CPUs, if
/// the set holds a CPU this process may not use.
pub fn pin_process(set: &CpuSet) -> Result<(), FrontendError> {
    let allowed =
        allowed().map_err(|e| FrontendError::Cpu(format!("cannot read affinity: {e}")))?;
    if let Some(bad) = set.cpus().iter().find(|c| !allowed.cpus().contains(c)) {
        return Err(FrontendError::Cpu(format!(
            "CPU {bad} of cpuset '{set}' is not available: this process may use {allowed}"
        )));
    }
    let mut mask = NixCpuSet::new();
    for &c in set.cpus() {
        mask.set(c)
            .map_err(|e| FrontendError::Cpu(format!("CPU {c} of cpuset '{set}': {e}")))?;
    }
    let tasks = std::fs::read_dir("/proc/self/task")
        .map_err(|e| FrontendError::Cpu(format!("cannot list threads: {e}")))?;
    for task in tasks.flatten() {
        let Some(tid) = task
            .file_name()
            .to_str()
            .and_then(|t| t.parse::<i32>().ok())
        else {
            continue;
        };
        sched_setaffinity(Pid::from_raw(tid), &mask)
            .map_err(|e| FrontendError::Cpu(format!("cannot pin to cpuset '{set}': {e}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_unavailable_cpus() {
        let all = allowed().expect("allowed");
        assert!(!all.is_empty());
        let beyond = all.cpus().last().copied().unwrap_or(0) + 1;
        let e = pin_process(&CpuSet::from_cpus(vec![beyond])).expect_err("unavailable");
        assert!(e.to_string().contains("not available"), "{e}");
    }
}
