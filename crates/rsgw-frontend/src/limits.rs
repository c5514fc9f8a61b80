//! Process limits: the open-files limit every connection counts against.

/// Raises the open-files soft limit to the hard limit and logs both; warns
/// when `max_connections` cannot fit. Returns the soft limit in force.
pub fn raise_nofile_limit(max_connections: usize) -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit/setrlimit only read and write the struct given.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        tracing::warn!(error = %std::io::Error::last_os_error(), "cannot read RLIMIT_NOFILE");
        return None;
    }
    let before = lim.rlim_cur;
    lim.rlim_cur = lim.rlim_max;
    let soft = if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } != 0 {
        tracing::warn!(error = %std::io::Error::last_os_error(), soft = before, hard = lim.rlim_max,
            "cannot raise RLIMIT_NOFILE");
        before
    } else {
        tracing::info!(
            soft_was = before,
            soft = lim.rlim_cur,
            hard = lim.rlim_max,
            "open files limit"
        );
        lim.rlim_cur
    };
    if max_connections as u64 > soft {
        tracing::warn!(
            max_connections,
            open_files_limit = soft,
            "frontend.max_connections exceeds the open-files limit: accept will fail \
             (and back off) before the cap is reached; raise `ulimit -n`"
        );
    }
    Some(soft)
}
