//! `rsgw bench s3`: signed S3 workloads from COSBench workload files, run
//! natively: stages in order, each work's workers on keep-alive connections,
//! per-operation ops/s, MB/s, latency percentiles and errors.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use clap::Args;
use hdrhistogram::Histogram;
use serde::Serialize;

use crate::cosbench::{
    OpKind, Operation, Selector, Sizes, Stage, Target, Work, WorkKind, Workload,
};
use crate::http::{self, Connector, Failure, Stream};
use crate::sign::{self, Credentials};
use crate::sse::{ObjectHeaders, Sse};
use crate::tls::TlsArgs;

/// `rsgw bench s3` flags.
#[derive(Args, Debug, Clone)]
#[command(after_help = "\
Runs a COSBench workload file natively: the stages init, prepare, normal works \
(operations read, write and delete with ratios, for runtime seconds or totalOps \
operations), cleanup and dispose; selectors c(N), u(A,B), r(A,B), and z(A,B) \
(Zipf, A the most popular: an rsgw extension); sizes in B, KB and MB (COSBench's decimal units); cprefix and oprefix. Endpoint and keys come \
from the storage element unless given here. Workers use one keep-alive \
connection each; requests are signed with SigV4 (path style, unsigned payload).")]
pub struct S3Args {
    /// A COSBench workload XML file. Without one, --mix describes the load.
    pub workload: Option<PathBuf>,
    /// Without a workload file: operations and their percentages, e.g.
    /// read=80,write=15,delete=5. The objects are written first (unless the
    /// mix only writes) and removed at the end, with their bucket.
    #[arg(
        long,
        value_name = "OP=PERCENT,...",
        required_unless_present = "workload",
        conflicts_with = "workload"
    )]
    pub mix: Option<String>,
    /// Without a workload file: object sizes, a COSBench selector with a unit
    /// (c(4)KB, u(4,64)KB, u(4,10)MB).
    #[arg(long, default_value = "c(4)KB", requires = "mix")]
    pub sizes: String,
    /// Without a workload file: how many objects the operations pick from.
    #[arg(long, default_value_t = 100, requires = "mix")]
    pub objects: u64,
    /// Without a workload file: concurrent workers.
    #[arg(long, default_value_t = 16, requires = "mix")]
    pub workers: usize,
    /// Without a workload file: stop after this many operations instead of
    /// after --runtime seconds.
    #[arg(long, requires = "mix")]
    pub ops: Option<u64>,
    /// Without a workload file: the bucket is named CPREFIX1.
    #[arg(long, default_value = "rsgwbench", requires = "mix")]
    pub cprefix: String,
    /// Without a workload file: how reads, writes and deletes pick their
    /// object: uniformly, or Zipf-distributed (exponent 0.99, object 1 the
    /// most popular: a few hot objects, a long cold tail).
    #[arg(long, value_enum, default_value = "uniform", requires = "mix")]
    pub pick: Pick,
    /// Without a workload file: check every read against the last
    /// acknowledged write of its object (each write stamps its body with a
    /// version; writes of one object are made one at a time): a read sent
    /// after a write returned must get that version or a newer one. Stale
    /// reads count as errors of `read`, and the command fails. Sizes must
    /// be at least 24 bytes.
    #[arg(long, requires = "mix")]
    pub verify: bool,
    /// S3 endpoint, e.g. http://127.0.0.1:7480 (overrides the workload's);
    /// several, comma-separated, spread the workers over them in turn, as
    /// several gateway instances without a load balancer.
    #[arg(long)]
    pub endpoint: Option<String>,
    /// Access key (overrides the workload's accesskey).
    #[arg(long)]
    pub access_key: Option<String>,
    /// Secret key (overrides the workload's secretkey).
    #[arg(long)]
    pub secret_key: Option<String>,
    /// Region signed into requests.
    #[arg(long, default_value = "us-east-1")]
    pub region: String,
    /// With a workload file: run each timed work for at most this many
    /// seconds. With --mix: how long the mix runs (default 30).
    #[arg(long, value_name = "SECONDS")]
    pub runtime: Option<u64>,
    /// Run each work with at most this many workers.
    #[arg(long, value_name = "N")]
    pub max_workers: Option<usize>,
    /// No progress lines.
    #[arg(short, long)]
    pub quiet: bool,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
    /// Server-side encryption of every object written and read: `c`
    /// (SSE-C with the bench's own key, sent on writes and reads), `s3`
    /// (SSE-S3), `kms` or `kms:KEY-ID` (SSE-KMS, the gateway's default key
    /// or that one): what encryption costs, with the load otherwise the same.
    #[arg(long, value_name = "c|s3|kms[:KEY-ID]")]
    pub sse: Option<Sse>,
    /// Enable versioning on each bucket the load creates (init), and
    /// delete every version and delete marker before the bucket goes
    /// (dispose): what versioning costs, with the load otherwise the same.
    /// Overwrites then keep the old data, and cleanup's deletes make delete
    /// markers, until dispose.
    #[arg(long)]
    pub versioning: bool,
    /// Without a workload file: leave the objects and their bucket in
    /// place at the end (no cleanup, no dispose), for a check of what the
    /// load left (`radosgw-admin bucket check`, a listing).
    #[arg(long)]
    pub keep: bool,
    /// TLS, for https:// endpoints.
    #[command(flatten)]
    pub tls: TlsArgs,
}

/// How `--mix` operations pick their object.
#[derive(clap::ValueEnum, Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pick {
    /// Every object as likely (COSBench's u(1,N)).
    Uniform,
    /// Zipf-distributed, z(1,N).
    Zipf,
}

/// One operation kind's figures in one work.
#[derive(Serialize, Debug, Clone)]
pub struct OpReport {
    /// `read`, `write`, `delete`, `init`, ...
    pub op: String,
    /// Operations that succeeded.
    pub ops: u64,
    /// Operations that failed (transport errors and unexpected statuses).
    pub errors: u64,
    /// Successful operations per second.
    pub ops_per_s: f64,
    /// Payload megabytes (10^6) per second, read or written.
    pub mb_per_s: f64,
    /// Mean latency, ms.
    pub mean_ms: f64,
    /// Median latency, ms.
    pub p50_ms: f64,
    /// 99th percentile, ms.
    pub p99_ms: f64,
    /// Slowest, ms.
    pub max_ms: f64,
}

/// One work's figures.
#[derive(Serialize, Debug, Clone)]
pub struct WorkReport {
    /// Stage name.
    pub stage: String,
    /// Work name.
    pub work: String,
    /// Workers.
    pub workers: usize,
    /// Seconds it ran.
    pub seconds: f64,
    /// Per operation kind.
    pub ops: Vec<OpReport>,
    /// Under `--verify`: reads checked against the last acknowledged
    /// write, and how many of them were stale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verified: Option<Verified>,
    /// Latencies of every successful operation of the work, all kinds
    /// together, in µs: for callers that combine works (`rsgw bench
    /// ab-test`); not part of the JSON report.
    #[serde(skip)]
    pub latency: Option<Histogram<u64>>,
}

/// What `--verify` found in one work.
#[derive(Serialize, Debug, Clone, Copy, PartialEq, Eq)]
pub struct Verified {
    /// Reads checked.
    pub reads: u64,
    /// Reads older than their object's last acknowledged write.
    pub stale: u64,
}

#[derive(Default)]
struct OpStats {
    ok: u64,
    errors: u64,
    bytes: u64,
    latency: Option<Histogram<u64>>,
    first_error: Option<String>,
}

impl OpStats {
    fn record(&mut self, r: &Result<u64, String>, took: Duration) {
        match r {
            Ok(bytes) => {
                self.ok += 1;
                self.bytes += bytes;
                self.latency
                    .get_or_insert_with(|| {
                        Histogram::new_with_bounds(1, 3_600_000_000, 3)
                            .expect("valid histogram bounds")
                    })
                    .saturating_record((took.as_micros() as u64).max(1));
            }
            Err(e) => {
                self.errors += 1;
                if self.first_error.is_none() {
                    self.first_error = Some(e.clone());
                }
            }
        }
    }

    fn merge(&mut self, o: OpStats) {
        self.ok += o.ok;
        self.errors += o.errors;
        self.bytes += o.bytes;
        if self.first_error.is_none() {
            self.first_error = o.first_error;
        }
        match (&mut self.latency, o.latency) {
            (Some(a), Some(b)) => {
                let _ = a.add(&b);
            }
            (None, b) => self.latency = b,
            _ => {}
        }
    }
}

/// A worker's connection to the endpoint.
pub(crate) struct Client {
    connector: Connector,
    host_header: String,
    creds: Arc<Credentials>,
    /// What object writes and reads send besides the signature.
    object: Arc<ObjectHeaders>,
    stream: Option<Stream>,
    buf: Vec<u8>,
}

impl Client {
    /// A client of `endpoint` (`http[s]://host:port`), not yet connected;
    /// https with the default TLS flags.
    pub(crate) fn new(endpoint: &str, creds: Arc<Credentials>) -> Result<Self, String> {
        Self::with_tls(endpoint, creds, &TlsArgs::default())
    }

    /// [`Client::new`] with these TLS flags.
    pub(crate) fn with_tls(
        endpoint: &str,
        creds: Arc<Credentials>,
        tls: &TlsArgs,
    ) -> Result<Self, String> {
        let target = http::Target::parse(endpoint)?;
        let config = http::tls_config_for([&target], tls)?;
        Ok(Client {
            connector: Connector::new(&target, config.as_ref(), true)?,
            host_header: target.host_header(),
            creds,
            object: Arc::default(),
            stream: None,
            buf: Vec::with_capacity(64 * 1024),
        })
    }

    /// Another, unconnected client of the same endpoint.
    pub(crate) fn sibling(&self) -> Self {
        Client {
            connector: self.connector.clone(),
            host_header: self.host_header.clone(),
            creds: self.creds.clone(),
            object: self.object.clone(),
            stream: None,
            buf: Vec::with_capacity(64 * 1024),
        }
    }

    /// The same client, sending `object` with object writes and reads.
    pub(crate) fn with_object_headers(mut self, object: Arc<ObjectHeaders>) -> Self {
        self.object = object;
        self
    }

    /// A PutObject of `body`; returns the status.
    async fn put_object(&mut self, path: &str, body: &[u8]) -> Result<u16, String> {
        let object = self.object.clone();
        let amz: Vec<(&str, &str)> = object
            .write
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let (status, _) = self
            .request_with("PUT", path, &[], &amz, body, None)
            .await?;
        Ok(status)
    }

    /// A GetObject; returns the status and body bytes received, the body
    /// appended to `keep` if given.
    async fn get_object(
        &mut self,
        path: &str,
        keep: Option<&mut Vec<u8>>,
    ) -> Result<(u16, u64), String> {
        let object = self.object.clone();
        let amz: Vec<(&str, &str)> = object
            .read
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        self.request_with("GET", path, &[], &amz, &[], keep).await
    }

    /// Sends a signed request; returns the status and body bytes received.
    async fn send(&mut self, method: &str, path: &str, body: &[u8]) -> Result<(u16, u64), String> {
        self.request(method, path, &[], body, None).await
    }

    /// Sends a signed request with a query; the response body is appended
    /// to `keep` if given.
    pub(crate) async fn request(
        &mut self,
        method: &str,
        path: &str,
        query: &[(&str, &str)],
        body: &[u8],
        keep: Option<&mut Vec<u8>>,
    ) -> Result<(u16, u64), String> {
        self.request_with(method, path, query, &[], body, keep)
            .await
    }

    /// [`Client::request`] with further signed `x-amz-*` headers, such as
    /// `x-amz-acl`.
    pub(crate) async fn request_with(
        &mut self,
        method: &str,
        path: &str,
        query: &[(&str, &str)],
        amz: &[(&str, &str)],
        body: &[u8],
        mut keep: Option<&mut Vec<u8>>,
    ) -> Result<(u16, u64), String> {
        let path = sign::encode_path(path);
        let query = sign::canonical_query(query);
        let line = if query.is_empty() {
            path.clone()
        } else {
            format!("{path}?{query}")
        };
        let mut req = format!("{method} {line} HTTP/1.1\r\nHost: {}\r\n", self.host_header);
        let now = SystemTime::now();
        for (k, v) in sign::headers(
            &self.creds,
            method,
            &self.host_header,
            &path,
            &query,
            amz,
            now,
        ) {
            req.push_str(&format!("{k}: {v}\r\n"));
        }
        if method == "PUT" {
            req.push_str(&format!("Content-Length: {}\r\n", body.len()));
        }
        req.push_str("\r\n");
        for attempt in 0..2 {
            let reused = self.stream.is_some();
            let mut stream = match self.stream.take() {
                Some(s) => s,
                None => self
                    .connector
                    .connect()
                    .await
                    .map_err(|e| format!("connect: {e}"))?,
            };
            if let Some(k) = keep.as_deref_mut() {
                k.clear();
            }
            match http::exchange_with_body(
                &mut stream,
                req.as_bytes(),
                body,
                &mut self.buf,
                method == "HEAD",
                keep.as_deref_mut(),
            )
            .await
            {
                Ok((resp, _)) => {
                    if resp.keepalive {
                        self.stream = Some(stream);
                    }
                    return Ok((resp.status, resp.body_len));
                }
                // a kept-alive connection closed while idle: once more, fresh
                Err(Failure::Receive(_)) if reused && attempt == 0 => continue,
                Err(Failure::Connect(e) | Failure::Receive(e)) => return Err(e.to_string()),
                Err(Failure::Exception(e)) => return Err(e),
            }
        }
        Err("connection closed".into())
    }
}

/// A small, fast PRNG (xorshift64*): selectors and ratios need no more.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn between(&mut self, a: u64, b: u64) -> u64 {
        a + self.next() % (b - a + 1)
    }
}

/// Picks values of a selector for one worker: `r()` walks the worker's
/// share of the range in turn.
struct Picker {
    sel: Selector,
    next: u64,
    step: u64,
    /// For `z(A,B)`: the cumulative probability of ranks 1..=k at k-1.
    zipf: Vec<f64>,
}

/// The exponent of `z(A,B)`.
const ZIPF_EXPONENT: f64 = 0.99;

impl Picker {
    fn new(sel: Selector, worker: usize, workers: usize) -> Self {
        let zipf = match sel {
            Selector::Zipf(a, b) => {
                let weights: Vec<f64> = (1..=b - a + 1)
                    .map(|k| 1.0 / (k as f64).powf(ZIPF_EXPONENT))
                    .collect();
                let total: f64 = weights.iter().sum();
                let mut acc = 0.0;
                weights
                    .iter()
                    .map(|w| {
                        acc += w / total;
                        acc
                    })
                    .collect()
            }
            _ => Vec::new(),
        };
        Picker {
            sel,
            next: worker as u64,
            step: workers as u64,
            zipf,
        }
    }
    fn pick(&mut self, rng: &mut Rng) -> u64 {
        match self.sel {
            Selector::Constant(n) => n,
            Selector::Uniform(a, b) => rng.between(a, b),
            Selector::Range(a, b) => {
                let v = a + self.next % (b - a + 1);
                self.next += self.step;
                v
            }
            Selector::Zipf(a, b) => {
                let u = (rng.next() >> 11) as f64 / (1u64 << 53) as f64;
                let rank = self.zipf.partition_point(|&c| c < u) as u64;
                (a + rank).min(b)
            }
        }
    }
}

fn size_of(sizes: Option<Sizes>, rng: &mut Rng) -> u64 {
    sizes.map_or(0, |s| {
        let (a, b) = s.selector.bounds();
        let n = match s.selector {
            Selector::Constant(n) => n,
            _ => rng.between(a, b),
        };
        n * s.unit
    })
}

/// What a work's workers share.
struct Shared {
    stats: Mutex<BTreeMap<&'static str, OpStats>>,
    done_ops: AtomicU64,
    /// Operations claimed by workers (for totalOps).
    claimed: AtomicU64,
    payload: Arc<Vec<u8>>,
    verify: Option<Arc<Verify>>,
    /// `--versioning`.
    versioning: bool,
}

/// `--verify`: versions stamped into written bodies, and each object's
/// last acknowledged one.
#[derive(Default)]
pub struct Verify {
    next: AtomicU64,
    objects: Mutex<std::collections::HashMap<String, Arc<Slot>>>,
    /// Reads checked.
    pub checked: AtomicU64,
    /// Reads older than their object's last acknowledged write.
    pub stale: AtomicU64,
}

/// One object's writes, one at a time, and the version last acknowledged.
#[derive(Default)]
struct Slot {
    writing: tokio::sync::Mutex<()>,
    acked: AtomicU64,
}

/// Bytes of the version stamp at the start of a verified body.
const STAMP: usize = 24;

impl Verify {
    fn slot(&self, path: &str) -> Arc<Slot> {
        self.objects
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .entry(path.to_string())
            .or_default()
            .clone()
    }

    fn stamp(version: u64) -> [u8; STAMP] {
        let mut s = [0u8; STAMP];
        s.copy_from_slice(format!("rsgw-verify-v{version:011}").as_bytes());
        s
    }

    fn version_in(body: &[u8]) -> Option<u64> {
        std::str::from_utf8(body.get(..STAMP)?)
            .ok()?
            .strip_prefix("rsgw-verify-v")?
            .parse()
            .ok()
    }
}

/// PutBucketVersioning `Enabled` on bucket `path` (`/name`).
async fn enable_versioning(client: &mut Client, path: &str) -> Result<u64, String> {
    let doc = b"<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>";
    let (status, _) = client
        .request("PUT", path, &[("versioning", "")], doc, None)
        .await?;
    ok_status(status, &[]).map(|()| 0)
}

/// Deletes every version and delete marker of bucket `path` (`/name`),
/// page by page of ListObjectVersions; answers how many.
async fn delete_versions(client: &mut Client, path: &str) -> Result<u64, String> {
    let mut deleted = 0;
    let mut body = Vec::new();
    loop {
        body.clear();
        let (status, _) = client
            .request(
                "GET",
                path,
                &[("versions", ""), ("max-keys", "1000")],
                &[],
                Some(&mut body),
            )
            .await?;
        let text = String::from_utf8_lossy(&body).into_owned();
        if status == 404 {
            return Ok(deleted);
        }
        ok_status(status, &[]).map_err(|e| format!("listing versions of {path}: {e}: {text}"))?;
        let mut rest = text.as_str();
        let mut page = 0;
        while let Some(entry) = next_entry(&mut rest) {
            let key = between(entry, "<Key>", "</Key>").ok_or("a version without a Key")?;
            let id = between(entry, "<VersionId>", "</VersionId>").unwrap_or("null");
            let (status, _) = client
                .request(
                    "DELETE",
                    &format!("{path}/{key}"),
                    &[("versionId", id)],
                    &[],
                    None,
                )
                .await?;
            ok_status(status, &[404])?;
            page += 1;
        }
        deleted += page;
        // what is left is listed from the start again, until nothing is
        if page == 0 {
            return Ok(deleted);
        }
    }
}

/// The next `<Version>` or `<DeleteMarker>` element of a listing, `rest`
/// moved past it.
fn next_entry<'a>(rest: &mut &'a str) -> Option<&'a str> {
    let v = rest.find("<Version>");
    let m = rest.find("<DeleteMarker>");
    let (start, close) = match (v, m) {
        (Some(v), Some(m)) if m < v => (m, "</DeleteMarker>"),
        (Some(v), _) => (v, "</Version>"),
        (None, Some(m)) => (m, "</DeleteMarker>"),
        (None, None) => return None,
    };
    let end = rest[start..].find(close)? + start + close.len();
    let entry = &rest[start..end];
    *rest = &rest[end..];
    Some(entry)
}

/// The text between the first `open` and the `close` after it.
pub(crate) fn between<'a>(text: &'a str, open: &str, close: &str) -> Option<&'a str> {
    let start = text.find(open)? + open.len();
    let end = text[start..].find(close)? + start;
    Some(&text[start..end])
}

fn ok_status(status: u16, also: &[u16]) -> Result<(), String> {
    if (200..300).contains(&status) || also.contains(&status) {
        Ok(())
    } else {
        Err(format!("HTTP {status}"))
    }
}

#[allow(clippy::too_many_arguments)]
async fn one(
    client: &mut Client,
    kind: OpKind,
    t: &Target,
    c: u64,
    o: u64,
    size: u64,
    payload: &[u8],
    verify: Option<&Verify>,
) -> Result<u64, String> {
    let path = format!("/{}/{}", t.container(c), t.object(o));
    if let Some(v) = verify {
        return one_verified(client, kind, &path, size, payload, v).await;
    }
    match kind {
        OpKind::Read => {
            let (status, len) = client.get_object(&path, None).await?;
            ok_status(status, &[]).map(|()| len)
        }
        OpKind::Write => {
            let body = &payload[..(size as usize).min(payload.len())];
            let status = client.put_object(&path, body).await?;
            ok_status(status, &[]).map(|()| body.len() as u64)
        }
        OpKind::Delete => {
            let (status, _) = client.send("DELETE", &path, &[]).await?;
            ok_status(status, &[404]).map(|()| 0)
        }
    }
}

/// [`one`] under `--verify`.
async fn one_verified(
    client: &mut Client,
    kind: OpKind,
    path: &str,
    size: u64,
    payload: &[u8],
    v: &Verify,
) -> Result<u64, String> {
    let slot = v.slot(path);
    match kind {
        OpKind::Read => {
            let floor = slot.acked.load(Ordering::Acquire);
            let mut body = Vec::new();
            let (status, len) = client.get_object(path, Some(&mut body)).await?;
            ok_status(status, &[])?;
            v.checked.fetch_add(1, Ordering::Relaxed);
            let got = Verify::version_in(&body);
            if got.unwrap_or(0) < floor {
                v.stale.fetch_add(1, Ordering::Relaxed);
                return Err(format!(
                    "stale read of {path}: version {got:?}, {floor} acknowledged before the read"
                ));
            }
            Ok(len)
        }
        OpKind::Write => {
            let _one_at_a_time = slot.writing.lock().await;
            let version = v.next.fetch_add(1, Ordering::Relaxed) + 1;
            let mut body = payload[..(size as usize).min(payload.len())].to_vec();
            let stamp = Verify::stamp(version);
            let n = STAMP.min(body.len());
            body[..n].copy_from_slice(&stamp[..n]);
            let status = client.put_object(path, &body).await?;
            ok_status(status, &[])?;
            slot.acked.fetch_max(version, Ordering::AcqRel);
            Ok(body.len() as u64)
        }
        OpKind::Delete => {
            let _one_at_a_time = slot.writing.lock().await;
            let (status, _) = client.send("DELETE", path, &[]).await?;
            ok_status(status, &[404])?;
            slot.acked.store(0, Ordering::Release);
            Ok(0)
        }
    }
}

async fn worker(
    i: usize,
    workers: usize,
    work: Arc<Work>,
    shared: Arc<Shared>,
    mut client: Client,
    deadline: Option<Instant>,
    limit: Option<u64>,
) {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15
        ^ ((i as u64 + 1) * 0x1000_0001)
        ^ SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(1, |d| d.as_nanos() as u64));
    let mut local: BTreeMap<&'static str, OpStats> = BTreeMap::new();
    let payload = shared.payload.clone();
    let record = |local: &mut BTreeMap<&'static str, OpStats>,
                  name: &'static str,
                  r: Result<u64, String>,
                  took: Duration| {
        local.entry(name).or_default().record(&r, took);
        shared.done_ops.fetch_add(1, Ordering::Relaxed);
    };
    match &work.kind {
        WorkKind::Init(t) | WorkKind::Dispose(t) => {
            let init = matches!(work.kind, WorkKind::Init(_));
            let containers: Vec<u64> = t.containers.map(|s| s.all().collect()).unwrap_or_default();
            for (n, &c) in containers.iter().enumerate() {
                if n % workers != i {
                    continue;
                }
                let started = Instant::now();
                let path = format!("/{}", t.container(c));
                let r = if init {
                    let made = client
                        .send("PUT", &path, &[])
                        .await
                        .and_then(|(s, _)| ok_status(s, &[409]).map(|()| 0));
                    match made {
                        Ok(_) if shared.versioning => enable_versioning(&mut client, &path).await,
                        r => r,
                    }
                } else {
                    let emptied = if shared.versioning {
                        delete_versions(&mut client, &path).await
                    } else {
                        Ok(0)
                    };
                    match emptied {
                        Ok(_) => client
                            .send("DELETE", &path, &[])
                            .await
                            .and_then(|(s, _)| ok_status(s, &[404]).map(|()| 0)),
                        e => e,
                    }
                };
                record(
                    &mut local,
                    if init { "init" } else { "dispose" },
                    r,
                    started.elapsed(),
                );
            }
        }
        WorkKind::Prepare(t) | WorkKind::Cleanup(t) => {
            let kind = if matches!(work.kind, WorkKind::Prepare(_)) {
                OpKind::Write
            } else {
                OpKind::Delete
            };
            let containers: Vec<u64> = t.containers.map(|s| s.all().collect()).unwrap_or_default();
            let objects: Vec<u64> = t.objects.map(|s| s.all().collect()).unwrap_or_default();
            let mut n = 0usize;
            for &c in &containers {
                for &o in &objects {
                    n += 1;
                    if (n - 1) % workers != i {
                        continue;
                    }
                    let size = size_of(t.sizes, &mut rng);
                    let started = Instant::now();
                    let r = one(
                        &mut client,
                        kind,
                        t,
                        c,
                        o,
                        size,
                        &payload,
                        shared.verify.as_deref(),
                    )
                    .await;
                    record(
                        &mut local,
                        if kind == OpKind::Write {
                            "prepare"
                        } else {
                            "cleanup"
                        },
                        r,
                        started.elapsed(),
                    );
                }
            }
        }
        WorkKind::Normal(ops) => {
            let mut pickers: Vec<(Picker, Picker)> = ops
                .iter()
                .map(|op: &Operation| {
                    (
                        Picker::new(
                            op.target.containers.unwrap_or(Selector::Constant(1)),
                            i,
                            workers,
                        ),
                        Picker::new(
                            op.target.objects.unwrap_or(Selector::Constant(1)),
                            i,
                            workers,
                        ),
                    )
                })
                .collect();
            loop {
                if deadline.is_some_and(|d| Instant::now() >= d) {
                    break;
                }
                if let Some(limit) = limit
                    && shared.claimed.fetch_add(1, Ordering::Relaxed) >= limit
                {
                    break;
                }
                let roll = rng.between(1, 100) as u32;
                let mut acc = 0;
                let idx = ops
                    .iter()
                    .position(|op| {
                        acc += op.ratio;
                        roll <= acc
                    })
                    .unwrap_or(ops.len() - 1);
                let op = &ops[idx];
                let (cp, op_picker) = &mut pickers[idx];
                let c = cp.pick(&mut rng);
                let o = op_picker.pick(&mut rng);
                let size = size_of(op.target.sizes, &mut rng);
                let started = Instant::now();
                let r = one(
                    &mut client,
                    op.kind,
                    &op.target,
                    c,
                    o,
                    size,
                    &payload,
                    shared.verify.as_deref(),
                )
                .await;
                record(&mut local, op.kind.name(), r, started.elapsed());
            }
        }
    }
    let mut all = shared
        .stats
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    for (k, v) in local {
        all.entry(k).or_default().merge(v);
    }
}

/// The largest object any work writes.
fn largest_write(w: &Workload) -> u64 {
    let mut max = 0;
    let mut see = |s: Option<Sizes>| {
        if let Some(s) = s {
            max = max.max(s.selector.bounds().1 * s.unit);
        }
    };
    for work in w.stages.iter().flat_map(|s| &s.works) {
        match &work.kind {
            WorkKind::Prepare(t) => see(t.sizes),
            WorkKind::Normal(ops) => ops.iter().for_each(|o| see(o.target.sizes)),
            _ => {}
        }
    }
    max
}

/// The workload `--mix` and its companion flags describe: one bucket,
/// objects 1..=N written first, the mix, then everything removed.
pub fn mix_workload(args: &S3Args, mix: &str) -> Result<Workload, String> {
    let sizes = Sizes::parse(&args.sizes)?;
    if args.objects == 0 || args.workers == 0 {
        return Err("--objects and --workers must be above 0".into());
    }
    let target = |objects: Selector| Target {
        cprefix: args.cprefix.clone(),
        oprefix: "obj".into(),
        containers: Some(Selector::Constant(1)),
        objects: Some(objects),
        sizes: Some(sizes),
    };
    let mut ops = Vec::new();
    for part in mix.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (op, pct) = part
            .split_once('=')
            .ok_or_else(|| format!("'{part}' in --mix is not OP=PERCENT"))?;
        let kind = match op.trim() {
            "read" => OpKind::Read,
            "write" => OpKind::Write,
            "delete" => OpKind::Delete,
            o => {
                return Err(format!(
                    "operation '{o}' in --mix is not read, write or delete"
                ));
            }
        };
        let ratio: u32 = pct
            .trim()
            .parse()
            .map_err(|_| format!("'{pct}' in --mix is not a percentage"))?;
        ops.push(Operation {
            kind,
            ratio,
            target: target(match args.pick {
                Pick::Uniform => Selector::Uniform(1, args.objects),
                Pick::Zipf => Selector::Zipf(1, args.objects),
            }),
        });
    }
    let all = target(Selector::Range(1, args.objects));
    let only_writes = ops.iter().all(|o| o.kind == OpKind::Write);
    let work = |name: &str, workers: usize, kind: WorkKind| Work {
        name: name.into(),
        workers,
        runtime: None,
        total_ops: None,
        kind,
    };
    let mut works = vec![work("init", 1, WorkKind::Init(all.clone()))];
    if !only_writes {
        works.push(work(
            "prepare",
            args.workers,
            WorkKind::Prepare(all.clone()),
        ));
    }
    let mut main = work("main", args.workers, WorkKind::Normal(ops));
    main.total_ops = args.ops;
    main.runtime = match args.ops {
        Some(_) => None,
        None => Some(args.runtime.unwrap_or(30)),
    };
    works.push(main);
    if !args.keep {
        works.push(work(
            "cleanup",
            args.workers,
            WorkKind::Cleanup(all.clone()),
        ));
        works.push(work("dispose", 1, WorkKind::Dispose(all)));
    }
    let workload = Workload {
        name: format!("mix {mix}"),
        storage: Vec::new(),
        stages: works
            .into_iter()
            .map(|w| Stage {
                name: w.name.clone(),
                works: vec![w],
            })
            .collect(),
    };
    workload.validate()?;
    Ok(workload)
}

/// Runs the workload and prints the report.
pub fn run(args: &S3Args) -> Result<(), Box<dyn std::error::Error>> {
    let workload = match (&args.workload, &args.mix) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            Workload::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?
        }
        (None, Some(mix)) => mix_workload(args, mix)?,
        (None, None) => return Err("give a workload file or --mix".into()),
    };
    let reports = run_workload(&workload, args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        println!("{}", render(&workload.name, &reports));
    }
    let errors: u64 = reports.iter().flat_map(|w| &w.ops).map(|o| o.errors).sum();
    if errors > 0 {
        eprintln!("{errors} operations failed");
    }
    let stale: u64 = reports
        .iter()
        .filter_map(|w| w.verified)
        .map(|v| v.stale)
        .sum();
    if stale > 0 {
        return Err(format!("{stale} reads were older than the last acknowledged write").into());
    }
    Ok(())
}

/// Runs every stage of `workload`.
pub fn run_workload(
    workload: &Workload,
    args: &S3Args,
) -> Result<Vec<WorkReport>, Box<dyn std::error::Error>> {
    let endpoint = args
        .endpoint
        .clone()
        .or_else(|| workload.storage("endpoint").map(String::from))
        .ok_or("no endpoint: give --endpoint or set it in the storage config")?;
    let creds = Arc::new(Credentials {
        access_key: args
            .access_key
            .clone()
            .or_else(|| workload.storage("accesskey").map(String::from))
            .ok_or("no access key: give --access-key")?,
        secret_key: args
            .secret_key
            .clone()
            .or_else(|| workload.storage("secretkey").map(String::from))
            .ok_or("no secret key: give --secret-key")?,
        region: args.region.clone(),
    });
    let object = Arc::new(ObjectHeaders::for_sse(args.sse.as_ref()));
    let clients = endpoint
        .split(',')
        .map(str::trim)
        .filter(|e| !e.is_empty())
        .map(|e| {
            Client::with_tls(e, creds.clone(), &args.tls)
                .map(|c| c.with_object_headers(object.clone()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if clients.is_empty() {
        return Err("the endpoint is empty".into());
    }
    let payload = Arc::new({
        let len = largest_write(workload) as usize;
        let mut rng = Rng(0x5DEE_CE66);
        (0..len).map(|_| rng.next() as u8).collect::<Vec<u8>>()
    });
    let verify = args.verify.then(|| Arc::new(Verify::default()));
    if verify.is_some() && largest_write(workload) < STAMP as u64 {
        return Err(format!("--verify needs objects of at least {STAMP} bytes").into());
    }
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(threads)
        .enable_all()
        .build()?;
    let mut reports = Vec::new();
    for stage in &workload.stages {
        for work in &stage.works {
            let mut work = work.clone();
            if let Some(cap) = args.max_workers {
                work.workers = work.workers.min(cap.max(1));
            }
            if let (Some(cap), Some(rt)) = (args.runtime, work.runtime) {
                work.runtime = Some(rt.min(cap));
            }
            let shared = Arc::new(Shared {
                stats: Mutex::new(BTreeMap::new()),
                done_ops: AtomicU64::new(0),
                claimed: AtomicU64::new(0),
                payload: payload.clone(),
                verify: verify.clone(),
                versioning: args.versioning,
            });
            let counts = |v: &Verify| {
                (
                    v.checked.load(Ordering::Relaxed),
                    v.stale.load(Ordering::Relaxed),
                )
            };
            let verify_before = verify.as_deref().map(counts);
            let started = Instant::now();
            let deadline = work.runtime.map(|s| started + Duration::from_secs(s));
            let work = Arc::new(work);
            let progress = !args.quiet && !args.json;
            if progress {
                eprintln!(
                    "[{}] {} workers{}",
                    work.name,
                    work.workers,
                    match (work.runtime, work.total_ops) {
                        (Some(r), _) => format!(", {r} s"),
                        (None, Some(n)) => format!(", {n} operations"),
                        _ => String::new(),
                    }
                );
            }
            rt.block_on(async {
                let mut tasks = tokio::task::JoinSet::new();
                for i in 0..work.workers {
                    tasks.spawn(worker(i, work.workers, work.clone(), shared.clone(), clients[i % clients.len()].sibling(), deadline, work.total_ops));
                }
                let mut tick = tokio::time::interval(Duration::from_secs(1));
                tick.tick().await;
                loop {
                    tokio::select! {
                        r = tasks.join_next() => if r.is_none() { break },
                        _ = tick.tick() => if progress {
                            let n = shared.done_ops.load(Ordering::Relaxed);
                            let s = started.elapsed().as_secs_f64();
                            eprintln!("[{}] {s:5.0} s  {n} operations  {:.0}/s", work.name, n as f64 / s);
                        },
                    }
                }
            });
            let seconds = started.elapsed().as_secs_f64().max(1e-9);
            let stats = std::mem::take(
                &mut *shared
                    .stats
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner),
            );
            let mut latency: Option<Histogram<u64>> = None;
            for h in stats.values().filter_map(|s| s.latency.as_ref()) {
                match &mut latency {
                    Some(all) => {
                        let _ = all.add(h);
                    }
                    None => latency = Some(h.clone()),
                }
            }
            let ops = stats
                .into_iter()
                .map(|(name, s)| {
                    if let Some(e) = &s.first_error {
                        eprintln!("[{}] {name}: {} errors, first: {e}", work.name, s.errors);
                    }
                    let ms = |v: u64| v as f64 / 1000.0;
                    let (mean, p50, p99, max) =
                        s.latency.as_ref().map_or((0.0, 0.0, 0.0, 0.0), |h| {
                            (
                                h.mean() / 1000.0,
                                ms(h.value_at_quantile(0.5)),
                                ms(h.value_at_quantile(0.99)),
                                ms(h.max()),
                            )
                        });
                    OpReport {
                        op: name.to_string(),
                        ops: s.ok,
                        errors: s.errors,
                        ops_per_s: s.ok as f64 / seconds,
                        mb_per_s: s.bytes as f64 / 1e6 / seconds,
                        mean_ms: mean,
                        p50_ms: p50,
                        p99_ms: p99,
                        max_ms: max,
                    }
                })
                .collect();
            reports.push(WorkReport {
                stage: stage.name.clone(),
                work: work.name.clone(),
                workers: work.workers,
                seconds,
                ops,
                verified: verify.as_deref().map(counts).zip(verify_before).and_then(
                    |((reads, stale), (r0, s0))| {
                        (reads > r0).then_some(Verified {
                            reads: reads - r0,
                            stale: stale - s0,
                        })
                    },
                ),
                latency,
            });
        }
    }
    Ok(reports)
}

/// The text report: one table row per work and operation.
pub fn render(name: &str, reports: &[WorkReport]) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(o, "workload {name}\n");
    let _ = writeln!(
        o,
        "{:<10} {:<9} {:>7} {:>7} {:>9} {:>9} {:>8} {:>8} {:>8} {:>8} {:>6}",
        "work",
        "op",
        "workers",
        "seconds",
        "ops",
        "ops/s",
        "MB/s",
        "mean ms",
        "p50 ms",
        "p99 ms",
        "errors"
    );
    for w in reports {
        for op in &w.ops {
            let _ = writeln!(
                o,
                "{:<10} {:<9} {:>7} {:>7.1} {:>9} {:>9.1} {:>8.2} {:>8.2} {:>8.2} {:>8.2} {:>6}",
                w.work,
                op.op,
                w.workers,
                w.seconds,
                op.ops,
                op.ops_per_s,
                op.mb_per_s,
                op.mean_ms,
                op.p50_ms,
                op.p99_ms,
                op.errors
            );
        }
        if let Some(v) = w.verified {
            let _ = writeln!(
                o,
                "{:<10} verified {} reads against the last acknowledged write: {} stale",
                w.work, v.reads, v.stale
            );
        }
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ListObjectVersions page's versions and markers, in order, however
    /// they interleave (s3s writes the markers first).
    #[test]
    fn version_listings_are_read_entry_by_entry() {
        let page = "<ListVersionsResult><Name>b</Name>\
            <DeleteMarker><Key>m</Key><VersionId>3</VersionId></DeleteMarker>\
            <Version><Key>a</Key><VersionId>1</VersionId></Version>\
            <Version><Key>a</Key><VersionId>null</VersionId></Version>\
            <DeleteMarker><Key>z</Key><VersionId>4</VersionId></DeleteMarker>\
            </ListVersionsResult>";
        let mut rest = page;
        let mut got = Vec::new();
        while let Some(e) = next_entry(&mut rest) {
            got.push((
                between(e, "<Key>", "</Key>").unwrap_or_default(),
                between(e, "<VersionId>", "</VersionId>").unwrap_or_default(),
            ));
        }
        assert_eq!(got, [("m", "3"), ("a", "1"), ("a", "null"), ("z", "4")]);
    }

    #[test]
    fn zipf_picks_stay_in_range_and_favour_the_first() {
        let mut p = Picker::new(Selector::Zipf(1, 1000), 0, 1);
        let mut rng = Rng(42);
        let mut counts = vec![0u32; 1001];
        let n = 200_000;
        for _ in 0..n {
            let o = p.pick(&mut rng);
            assert!((1..=1000).contains(&o), "{o}");
            counts[o as usize] += 1;
        }
        // P(1) = 1 / H(1000, 0.99), about 0.134; P(2) about half of it
        let p1 = f64::from(counts[1]) / f64::from(n);
        assert!((0.12..0.15).contains(&p1), "{p1}");
        assert!(counts[1] > counts[2] && counts[2] > counts[10] && counts[10] > counts[500]);
        assert!(counts[1000] > 0, "the tail is reached");
    }

    #[test]
    fn stamps_round_trip() {
        for v in [1, 42, 99_999_999_999] {
            let s = Verify::stamp(v);
            let mut body = s.to_vec();
            body.extend_from_slice(b"rest of the object");
            assert_eq!(Verify::version_in(&body), Some(v));
        }
        assert_eq!(Verify::version_in(b"random bytes of an object"), None);
        assert_eq!(Verify::version_in(b"short"), None);
    }
}
