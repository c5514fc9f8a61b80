//! The ops log (`[ops_log]`): one JSON line per request, with radosgw's ops
//! log field names where it has them, written by a thread of its own.
//!
//! A request hands its [`Entry`] to a bounded queue and never waits: when
//! the writer falls behind (a slow disk, a pipe nobody reads), entries are
//! dropped and counted (`rsgw_ops_log_dropped_total`). The writer formats,
//! writes in batches, flushes whenever the queue is empty, and rotates the
//! file by size. The handler adds what only it knows (request id, bucket,
//! object, user) as a [`LogFields`] extension of its response.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::time::{Duration, SystemTime};

use http::HeaderValue;
use rsgw_config::OpsLogConfig;

use crate::FrontendError;
use crate::metrics::Metrics;

/// What the handler tells the ops log about a request, as an extension of
/// its response. The frontend knows no protocol: these are the handler's
/// words for the resource and the principal.
#[derive(Debug, Clone, Default)]
pub struct LogFields {
    /// The request's id (`x-amz-request-id`).
    pub request_id: String,
    /// The bucket named, if any.
    pub bucket: Option<String>,
    /// The object key named, if any.
    pub object: Option<String>,
    /// The user the request was signed for; `None`: anonymous.
    pub user: Option<String>,
    /// The access key that signed the request.
    pub access_key: Option<String>,
}

/// Present in the extensions of a request the ops log writes: the handler
/// adds its [`LogFields`] to the response only then, so that requests pay
/// nothing for the log while it is off.
#[derive(Debug, Clone, Copy)]
pub struct Logged;

/// One request, as gathered along its path.
#[derive(Debug)]
pub(crate) struct Entry {
    /// When its headers arrived.
    pub started: SystemTime,
    pub method: http::Method,
    /// The target; its path is logged, never the query (which may hold a
    /// presigned URL's signature).
    pub uri: http::Uri,
    pub client: Option<IpAddr>,
    pub user_agent: Option<HeaderValue>,
    pub referer: Option<HeaderValue>,
    pub fields: Option<LogFields>,
    pub operation: &'static str,
    pub status: u16,
    pub bytes_received: u64,
    pub bytes_sent: u64,
    pub total_time: Duration,
}

/// The writer's buffer: a batch's lines in a few writes.
const BUFFER: usize = 64 << 10;

/// A message to the writer.
enum Msg {
    Entry(Box<Entry>),
    /// Reply once everything before it is written and flushed.
    Sync(mpsc::Sender<()>),
}

/// The running ops log of an instance.
pub struct OpsLog {
    tx: SyncSender<Msg>,
    metrics: Arc<Metrics>,
}

impl OpsLog {
    /// Opens the file (or standard output) of `cfg` and starts the writer;
    /// `None` when `cfg.path` is empty.
    pub fn start(cfg: &OpsLogConfig, metrics: Arc<Metrics>) -> Result<Option<Self>, FrontendError> {
        if cfg.path.is_empty() {
            return Ok(None);
        }
        let sink = if cfg.path == "-" {
            Sink::Stdout(BufWriter::with_capacity(BUFFER, io::stdout()))
        } else {
            let path = PathBuf::from(&cfg.path);
            let file = open(&path)
                .map_err(|e| FrontendError::io(format!("ops_log.path {}", path.display()), e))?;
            let written = file.metadata().map_or(0, |m| m.len());
            Sink::File {
                out: BufWriter::with_capacity(BUFFER, file),
                path,
                written,
                max_bytes: cfg.max_bytes,
                files: cfg.files,
            }
        };
        let (tx, rx) = mpsc::sync_channel(cfg.queue.max(1));
        let m = metrics.clone();
        std::thread::Builder::new()
            .name("ops-log".into())
            .spawn(move || write_loop(&rx, sink, &m))
            .map_err(|e| FrontendError::io("starting the ops log writer", e))?;
        Ok(Some(OpsLog { tx, metrics }))
    }

    /// Queues a request's line; drops it when the queue is full.
    pub(crate) fn submit(&self, e: Box<Entry>) {
        match self.tx.try_send(Msg::Entry(e)) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.metrics.ops_log_dropped.inc();
            }
        }
    }

    /// Waits (up to `timeout`) until every line queued so far is written
    /// and flushed: at shutdown, so the last requests are in the file.
    pub fn sync(&self, timeout: Duration) -> bool {
        let (tx, rx) = mpsc::channel();
        let deadline = std::time::Instant::now() + timeout;
        let mut msg = Msg::Sync(tx);
        // the queue may be full: retry until the deadline rather than block
        loop {
            match self.tx.try_send(msg) {
                Ok(()) => break,
                Err(TrySendError::Full(m)) if std::time::Instant::now() < deadline => {
                    msg = m;
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(_) => return false,
            }
        }
        rx.recv_timeout(deadline.saturating_duration_since(std::time::Instant::now()))
            .is_ok()
    }
}

fn open(path: &Path) -> io::Result<File> {
    OpenOptions::new().create(true).append(true).open(path)
}

/// Where lines go.
enum Sink {
    Stdout(BufWriter<io::Stdout>),
    File {
        out: BufWriter<File>,
        path: PathBuf,
        /// Bytes in the current file.
        written: u64,
        max_bytes: u64,
        files: u32,
    },
}

impl Sink {
    fn write_line(&mut self, line: &[u8]) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.write_all(line),
            Sink::File {
                out,
                path,
                written,
                max_bytes,
                files,
            } => {
                if *max_bytes > 0 && *written > 0 && *written + line.len() as u64 > *max_bytes {
                    out.flush()?;
                    rotate(path, *files)?;
                    *out = BufWriter::with_capacity(BUFFER, open(path)?);
                    *written = 0;
                }
                out.write_all(line)?;
                *written += line.len() as u64;
                Ok(())
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Sink::Stdout(out) => out.flush(),
            Sink::File { out, .. } => out.flush(),
        }
    }
}

/// `path` becomes `path.1`, `path.1` `path.2`, ... up to `path.files`; with
/// no files kept, `path` is emptied.
fn rotate(path: &Path, files: u32) -> io::Result<()> {
    let numbered = |i: u32| {
        let mut p = path.as_os_str().to_owned();
        p.push(format!(".{i}"));
        PathBuf::from(p)
    };
    if files == 0 {
        return File::create(path).map(drop);
    }
    for i in (1..files).rev() {
        match std::fs::rename(numbered(i), numbered(i + 1)) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
    }
    std::fs::rename(path, numbered(1))
}

/// How long the writer collects lines before it writes them: requests
/// queue their lines meanwhile without waking it, and the file gets one
/// write per batch.
const BATCH: Duration = Duration::from_millis(50);

fn write_loop(rx: &Receiver<Msg>, mut sink: Sink, metrics: &Metrics) {
    let mut line = Vec::with_capacity(512);
    let mut failing = false;
    // idle, the writer blocks until a line comes; then it lets a batch
    // gather and takes everything queued
    while let Ok(first) = rx.recv() {
        std::thread::sleep(BATCH);
        let mut next = Some(first);
        let mut synced = Vec::new();
        while let Some(msg) = next {
            match msg {
                Msg::Entry(e) => {
                    line.clear();
                    render(&e, &mut line);
                    match sink.write_line(&line) {
                        Ok(()) => {
                            metrics.ops_log_lines.inc();
                            failing = false;
                        }
                        Err(error) => {
                            metrics.ops_log_dropped.inc();
                            if !failing {
                                tracing::error!(%error, "ops log: cannot write; lines are dropped until it can");
                            }
                            failing = true;
                        }
                    }
                }
                Msg::Sync(reply) => synced.push(reply),
            }
            next = rx.try_recv().ok();
        }
        if let Err(error) = sink.flush()
            && !failing
        {
            tracing::error!(%error, "ops log: cannot write; lines are dropped until it can");
            failing = true;
        }
        for reply in synced {
            let _ = reply.send(());
        }
    }
    let _ = sink.flush();
}

/// Writes one line: a JSON object with radosgw's ops log field names where
/// it has the field, written by hand: this runs once per request, and
/// serde_json cost more than everything else the ops log does (callgrind,
/// docs/perf/ops-log.md).
fn render(e: &Entry, out: &mut Vec<u8>) {
    let f = e.fields.as_ref();
    out.extend_from_slice(b"{\"time\":\"");
    rsgw_time::write_rfc3339_millis(e.started, out);
    out.extend_from_slice(b"\",\"trans_id\":");
    string(out, f.map_or("", |f| f.request_id.as_str()));
    out.extend_from_slice(b",\"remote_addr\":");
    match e.client {
        Some(IpAddr::V4(a)) => {
            out.push(b'"');
            for (i, o) in a.octets().iter().enumerate() {
                if i > 0 {
                    out.push(b'.');
                }
                number(out, u64::from(*o));
            }
            out.push(b'"');
        }
        Some(a @ IpAddr::V6(_)) => string(out, &a.to_string()),
        None => out.extend_from_slice(b"null"),
    }
    out.extend_from_slice(b",\"user\":");
    string(
        out,
        f.and_then(|f| f.user.as_deref()).unwrap_or("anonymous"),
    );
    out.extend_from_slice(b",\"access_key_id\":");
    optional(out, f.and_then(|f| f.access_key.as_deref()));
    out.extend_from_slice(b",\"operation\":");
    string(out, e.operation);
    out.extend_from_slice(b",\"method\":");
    string(out, e.method.as_str());
    out.extend_from_slice(b",\"uri\":");
    string(out, e.uri.path());
    out.extend_from_slice(b",\"bucket\":");
    optional(out, f.and_then(|f| f.bucket.as_deref()));
    out.extend_from_slice(b",\"object\":");
    optional(out, f.and_then(|f| f.object.as_deref()));
    out.extend_from_slice(b",\"http_status\":");
    number(out, u64::from(e.status));
    out.extend_from_slice(b",\"bytes_received\":");
    number(out, e.bytes_received);
    out.extend_from_slice(b",\"bytes_sent\":");
    number(out, e.bytes_sent);
    // milliseconds, with microseconds
    out.extend_from_slice(b",\"total_time\":");
    let us = u64::try_from(e.total_time.as_micros()).unwrap_or(u64::MAX);
    number(out, us / 1000);
    out.push(b'.');
    padded(out, us % 1000, 3);
    out.extend_from_slice(b",\"user_agent\":");
    optional(out, e.user_agent.as_ref().and_then(|v| v.to_str().ok()));
    out.extend_from_slice(b",\"referrer\":");
    optional(out, e.referer.as_ref().and_then(|v| v.to_str().ok()));
    out.extend_from_slice(b"}\n");
}

/// A JSON string: quotes, backslashes and control characters escaped.
fn string(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let mut rest = s.as_bytes();
    while let Some(i) = rest.iter().position(|&b| ESCAPED[usize::from(b)]) {
        out.extend_from_slice(&rest[..i]);
        match rest[i] {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            c => {
                out.extend_from_slice(b"\\u00");
                out.push(HEX[usize::from(c >> 4)]);
                out.push(HEX[usize::from(c & 15)]);
            }
        }
        rest = &rest[i + 1..];
    }
    out.extend_from_slice(rest);
    out.push(b'"');
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// The bytes a JSON string escapes: one table lookup per byte.
const ESCAPED: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[b'"' as usize] = true;
    t[b'\\' as usize] = true;
    t
};

fn optional(out: &mut Vec<u8>, s: Option<&str>) {
    match s {
        Some(s) => string(out, s),
        None => out.extend_from_slice(b"null"),
    }
}

/// A decimal number.
fn number(out: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut i = digits.len();
    loop {
        i -= 1;
        digits[i] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[i..]);
}

/// `n` in `width` digits, zeros first.
fn padded(out: &mut Vec<u8>, n: u64, width: u32) {
    let mut p = 10u64.pow(width - 1);
    while p > 0 {
        out.push(b'0' + (n / p % 10) as u8);
        p /= 10;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::UNIX_EPOCH;

    fn entry(n: u64) -> Entry {
        Entry {
            started: UNIX_EPOCH + Duration::from_millis(1_764_636_001_123),
            method: http::Method::GET,
            uri: format!("/b/k{n}?X-Amz-Signature=secret")
                .parse()
                .expect("uri"),
            client: Some("10.1.2.3".parse().expect("ip")),
            user_agent: Some(HeaderValue::from_static("curl/8")),
            referer: None,
            fields: Some(LogFields {
                request_id: format!("tx{n}"),
                bucket: Some("b".into()),
                object: Some(format!("k{n}")),
                user: None,
                access_key: None,
            }),
            operation: "GetObject",
            status: 200,
            bytes_received: 0,
            bytes_sent: 260,
            total_time: Duration::from_micros(1234),
        }
    }

    #[test]
    fn strings_numbers_and_addresses_are_valid_json() {
        let mut e = entry(1);
        if let Some(f) = e.fields.as_mut() {
            f.object = Some("dir/\"quoted\"\\back\tslash\u{1}é".into());
        }
        e.client = Some("::1".parse().expect("ip"));
        e.total_time = Duration::from_micros(5);
        e.referer = Some(HeaderValue::from_static("https://x.test/?a=\"b\""));
        let mut out = Vec::new();
        render(&e, &mut out);
        let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
        assert_eq!(v["object"], "dir/\"quoted\"\\back\tslash\u{1}é");
        assert_eq!(v["uri"], "/b/k1", "never the query");
        assert_eq!(v["remote_addr"], "::1");
        assert_eq!(v["total_time"], 0.005);
        assert_eq!(v["referrer"], "https://x.test/?a=\"b\"");
        assert_eq!(v["bytes_received"], 0);
    }

    #[test]
    fn a_line_is_one_json_object() {
        let mut out = Vec::new();
        render(&entry(7), &mut out);
        assert_eq!(out.last(), Some(&b'\n'));
        let v: serde_json::Value = serde_json::from_slice(&out).expect("json");
        assert_eq!(v["time"], "2025-12-02T00:40:01.123Z");
        assert_eq!(v["trans_id"], "tx7");
        assert_eq!(v["user"], "anonymous");
        assert_eq!(v["remote_addr"], "10.1.2.3");
        assert_eq!(v["object"], "k7");
        assert_eq!(v["http_status"], 200);
        assert_eq!(v["bytes_sent"], 260);
        assert_eq!(v["total_time"], 1.234);
        assert_eq!(v["referrer"], serde_json::Value::Null);
    }

    #[test]
    fn rotates_by_size_keeping_the_newest_files() {
        let dir = std::env::temp_dir().join(format!("rsgw-opslog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let path = dir.join("ops.log");
        let cfg = OpsLogConfig {
            path: path.to_string_lossy().into_owned(),
            max_bytes: 1000,
            files: 2,
            queue: 16,
        };
        let metrics = Arc::new(Metrics::for_test());
        let log = OpsLog::start(&cfg, metrics.clone())
            .expect("start")
            .expect("on");
        for n in 0..40 {
            // a full queue drops: wait for the writer instead
            assert!(log.sync(Duration::from_secs(5)));
            log.submit(Box::new(entry(n)));
        }
        assert!(log.sync(Duration::from_secs(5)));
        assert_eq!(metrics.ops_log_lines.get(), 40);
        assert_eq!(metrics.ops_log_dropped.get(), 0);
        let read = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
        let numbered = |i| dir.join(format!("ops.log.{i}"));
        for p in [path.clone(), numbered(1), numbered(2)] {
            let text = read(&p);
            assert!(
                !text.is_empty() && text.len() <= 1000,
                "{}: {}",
                p.display(),
                text.len()
            );
            assert!(
                text.lines()
                    .all(|l| serde_json::from_str::<serde_json::Value>(l).is_ok())
            );
        }
        assert!(!numbered(3).exists(), "two rotated files kept");
        // the newest lines are in the file itself, in order
        let last = read(&path);
        assert!(
            last.trim_end()
                .ends_with(r#""user_agent":"curl/8","referrer":null}"#)
        );
        assert!(last.contains(r#""trans_id":"tx39""#));
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_full_queue_drops_and_counts() {
        let metrics = Arc::new(Metrics::for_test());
        let (tx, _rx) = mpsc::sync_channel(2);
        let log = OpsLog {
            tx,
            metrics: metrics.clone(),
        };
        for n in 0..5 {
            log.submit(Box::new(entry(n)));
        }
        assert_eq!(metrics.ops_log_dropped.get(), 3);
    }
}
