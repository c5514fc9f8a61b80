//! Watch and notify between the processes that share one store directory.
//!
//! Each watch is a Unix socket in `<dir>/watch/`, named after a hash of the
//! watched object, the process id and a counter. A notify connects to every
//! socket of its object, sends the payload and waits for the one-byte
//! acknowledgement the watcher writes after its callback returned. A socket
//! nobody listens on any more (its process died) refuses the connection and
//! is removed by the notifier.
//!
//! Socket addresses are limited to 107 bytes, store directories are not:
//! sockets are bound and reached as `/proc/self/fd/<dir fd>/<name>`, through
//! a descriptor of the watch directory, so the directory's own path length
//! never matters.

use std::fs::File;
use std::io::{ErrorKind, Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use rsgw_store::{NotifyOutcome, ObjectId, StoreError, StoreResult, WatchHandle, Watcher};

/// Largest payload a notify carries (RADOS' default limit is far larger;
/// rsgw's payloads are a name).
const MAX_PAYLOAD: usize = 1 << 20;

/// The watch directory of a store directory.
fn watch_dir(root: &Path) -> PathBuf {
    root.join("watch")
}

/// FNV-1a of the object's pool, namespace, name and locator: stable across builds
/// and processes, which is all a socket name needs.
fn object_tag(obj: &ObjectId) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in [&obj.pool, &obj.namespace, &obj.name, &obj.locator] {
        for b in part.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

/// An open watch directory, and socket paths reached through it.
struct Dir(File);

impl Dir {
    fn open(root: &Path) -> StoreResult<Dir> {
        let dir = watch_dir(root);
        std::fs::create_dir_all(&dir)?;
        Ok(Dir(File::open(&dir)?))
    }

    fn path(&self, name: &str) -> PathBuf {
        PathBuf::from(format!("/proc/self/fd/{}/{name}", self.0.as_raw_fd()))
    }
}

/// A watch: the socket and the thread that answers on it.
struct LocalWatch {
    dir: Dir,
    name: String,
    stop: Arc<AtomicBool>,
    alive: Arc<AtomicBool>,
}

/// Starts a watch of `obj` for the store in `root`.
pub(crate) fn watch(
    root: &Path,
    obj: &ObjectId,
    watcher: Arc<dyn Watcher>,
) -> StoreResult<Box<dyn WatchHandle>> {
    static SEQ: AtomicU64 = AtomicU64::new(0);
    let dir = Dir::open(root)?;
    let name = format!(
        "{}.{}.{}",
        object_tag(obj),
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    );
    let path = dir.path(&name);
    // a socket left by a crashed process of the same pid and counter
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {}
        Err(e) => return Err(e.into()),
    }
    let listener = UnixListener::bind(&path)?;
    let stop = Arc::new(AtomicBool::new(false));
    let alive = Arc::new(AtomicBool::new(true));
    let (thread_stop, thread_alive) = (stop.clone(), alive.clone());
    std::thread::Builder::new()
        .name("rsgw-local-watch".into())
        .spawn(move || {
            serve(&listener, &*watcher, &thread_stop);
            thread_alive.store(false, Ordering::Release);
        })?;
    Ok(Box::new(LocalWatch {
        dir,
        name,
        stop,
        alive,
    }))
}

/// Answers notifications until told to stop.
fn serve(listener: &UnixListener, watcher: &dyn Watcher, stop: &AtomicBool) {
    for conn in listener.incoming() {
        if stop.load(Ordering::Acquire) {
            return;
        }
        let mut conn = match conn {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => {
                watcher.failed(&e.into());
                return;
            }
        };
        // a notifier that stalls mid-message must not stall the watch
        if conn.set_read_timeout(Some(Duration::from_secs(5))).is_err() {
            continue;
        }
        if let Ok(payload) = read_message(&mut conn) {
            watcher.notified(&payload);
            // the notifier may have given up; nothing to do about it
            let _ = conn.write_all(&[1]);
        }
    }
}

fn read_message(conn: &mut UnixStream) -> std::io::Result<Vec<u8>> {
    let mut len = [0u8; 4];
    conn.read_exact(&mut len)?;
    let len = u32::from_be_bytes(len) as usize;
    if len > MAX_PAYLOAD {
        return Err(std::io::Error::new(
            ErrorKind::InvalidData,
            "payload too large",
        ));
    }
    let mut payload = vec![0u8; len];
    conn.read_exact(&mut payload)?;
    Ok(payload)
}

impl WatchHandle for LocalWatch {
    fn check(&self) -> Result<Duration, StoreError> {
        if self.alive.load(Ordering::Acquire) {
            Ok(Duration::ZERO)
        } else {
            Err(StoreError::Io("the watch's listener stopped".into()))
        }
    }
}

impl Drop for LocalWatch {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Release);
        let path = self.dir.path(&self.name);
        // wakes the listener's accept, which then sees the flag
        drop(UnixStream::connect(&path));
        if let Err(e) = std::fs::remove_file(&path) {
            tracing::debug!(error = %e, "removing a watch socket");
        }
    }
}

/// What one watch answered.
enum Answer {
    Acked,
    TimedOut,
    /// Nobody listens on the socket (process gone): not a watch any more.
    Gone,
}

/// Notifies every watch of `obj` in the store in `root`.
pub(crate) fn notify(
    root: &Path,
    obj: &ObjectId,
    payload: &[u8],
    timeout: Duration,
) -> StoreResult<NotifyOutcome> {
    if payload.len() > MAX_PAYLOAD {
        return Err(StoreError::InvalidArgument(format!(
            "a notification carries at most {MAX_PAYLOAD} bytes"
        )));
    }
    let dir = Dir::open(root)?;
    let prefix = format!("{}.", object_tag(obj));
    let mut names = Vec::new();
    for entry in std::fs::read_dir(watch_dir(root))? {
        let name = entry?.file_name();
        if let Some(name) = name.to_str().filter(|n| n.starts_with(&prefix)) {
            names.push(name.to_string());
        }
    }
    let deadline = Instant::now() + timeout;
    let answers: Vec<Answer> = std::thread::scope(|s| {
        let asks: Vec<_> = names
            .iter()
            .map(|name| {
                let path = dir.path(name);
                s.spawn(move || ask(&path, payload, deadline))
            })
            .collect();
        asks.into_iter()
            .map(|a| a.join().unwrap_or(Answer::TimedOut))
            .collect()
    });
    let mut out = NotifyOutcome::default();
    for a in answers {
        match a {
            Answer::Acked => out.acked += 1,
            Answer::TimedOut => out.timed_out += 1,
            Answer::Gone => {}
        }
    }
    Ok(out)
}

/// Sends the payload to one watch socket and waits for its acknowledgement.
fn ask(path: &Path, payload: &[u8], deadline: Instant) -> Answer {
    let mut conn = match UnixStream::connect(path) {
        Ok(c) => c,
        Err(e) if e.kind() == ErrorKind::ConnectionRefused => {
            // its process died without removing it
            let _ = std::fs::remove_file(path);
            return Answer::Gone;
        }
        Err(e) if e.kind() == ErrorKind::NotFound => return Answer::Gone,
        Err(_) => return Answer::TimedOut,
    };
    let left = deadline.saturating_duration_since(Instant::now());
    if left.is_zero()
        || conn.set_read_timeout(Some(left)).is_err()
        || conn.set_write_timeout(Some(left)).is_err()
    {
        return Answer::TimedOut;
    }
    let Ok(len) = u32::try_from(payload.len()) else {
        return Answer::TimedOut;
    };
    let mut message = len.to_be_bytes().to_vec();
    message.extend_from_slice(payload);
    let mut ack = [0u8; 1];
    match conn
        .write_all(&message)
        .and_then(|()| conn.read_exact(&mut ack))
    {
        Ok(()) => Answer::Acked,
        Err(_) => Answer::TimedOut,
    }
}
