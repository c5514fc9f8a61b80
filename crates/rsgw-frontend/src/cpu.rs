//! CPU pinning (`cpu.cpuset`): every thread of the instance runs on the
//! configured CPUs. Pinning happens before the runtime starts, so every
//! thread spawned later (tokio workers, handler threads, librados' own)
//! inherits it; threads that already exist are pinned one by one.

use rsgw_config::CpuSet;

use crate::FrontendError;

/// The CPUs this process may run on now.
pub fn allowed() -> std::io::Result<CpuSet> {
    // SAFETY: cpu_set_t is plain data; sched_getaffinity writes at most its size.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    if unsafe { libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) } != 0
    {
        return Err(std::io::Error::last_os_error());
    }
    let cpus = (0..libc::CPU_SETSIZE as usize)
        // SAFETY: the index is below CPU_SETSIZE.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
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
    // SAFETY: as above; CPU_SET is given indices below CPU_SETSIZE (checked
    // by the config's parser).
    let mut mask: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in set.cpus() {
        unsafe { libc::CPU_SET(c, &mut mask) };
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
        if unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mask) }
            != 0
        {
            return Err(FrontendError::Cpu(format!(
                "cannot pin to cpuset '{set}': {}",
                std::io::Error::last_os_error()
            )));
        }
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
