//! Process limits: the open-files limit every connection counts against.

use nix::sys::resource::{Resource, getrlimit, setrlimit};

/// Raises the open-files soft limit to the hard limit and logs both; warns
/// when `max_connections` cannot fit. Returns the soft limit in force.
pub fn raise_nofile_limit(max_connections: usize) -> Option<u64> {
    let (before, hard) = match getrlimit(Resource::RLIMIT_NOFILE) {
        Ok(l) => l,
        Err(e) => {
            tracing::warn!(error = %e, "cannot read RLIMIT_NOFILE");
            return None;
        }
    };
    let soft = match setrlimit(Resource::RLIMIT_NOFILE, hard, hard) {
        Err(e) => {
            tracing::warn!(error = %e, soft = before, hard, "cannot raise RLIMIT_NOFILE");
            before
        }
        Ok(()) => {
            tracing::info!(soft_was = before, soft = hard, hard, "open files limit");
            hard
        }
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
