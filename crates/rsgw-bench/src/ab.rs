//! `rsgw bench ab`: ApacheBench's flags and report, on many threads, up to
//! 20,000 connections, counting resets instead of aborting.

use std::cell::RefCell;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::http::{self, Connector, Failure, Stream, Target};
use crate::tls::TlsArgs;
use clap::Args;
use hdrhistogram::Histogram;
use serde::Serialize;

/// `-t` without `-n` runs at most this many requests, as ab does.
const TIME_LIMIT_REQUESTS: u64 = 50_000;
/// Most concurrent connections.
pub const MAX_CONCURRENCY: usize = 20_000;

/// `rsgw bench ab` flags.
#[derive(Args, Debug, Clone)]
#[command(after_help = "\
Latency: each of the -c clients sends its next request when the previous one \
is answered (a closed loop, like ab). Times are service times of the requests \
actually sent: when the server stalls, clients send fewer requests, so the \
percentiles do not count the requests that would have been sent meanwhile \
(coordinated omission is not corrected, exactly as in ab, so figures compare \
with ab's). Compare req/s and CPU per request across servers; for latency under \
a fixed arrival rate use an open-loop tool.

Failures are counted as ab counts them (Connect, Receive, Length, Exceptions); \
a connection reset is a Receive failure and is also counted under \
'Connection resets'. Unlike ab, a reset never ends the run.")]
pub struct AbArgs {
    /// Requests to perform (default 1, or 50000 with -t).
    #[arg(short = 'n', value_name = "REQUESTS")]
    pub requests: Option<u64>,
    /// Concurrent clients, each with its own connection (at most 20000).
    #[arg(short = 'c', value_name = "CONCURRENCY", default_value_t = 1)]
    pub concurrency: usize,
    /// Stop after this many seconds (implies -n 50000 unless -n is given).
    #[arg(short = 't', value_name = "SECONDS")]
    pub timelimit: Option<f64>,
    /// HTTP keep-alive: reuse each client's connection.
    #[arg(short = 'k')]
    pub keepalive: bool,
    /// Send HEAD instead of GET.
    #[arg(short = 'i')]
    pub head: bool,
    /// Extra header, e.g. -H 'Accept-Encoding: gzip' (repeatable).
    #[arg(short = 'H', value_name = "HEADER")]
    pub headers: Vec<String>,
    /// Do not count responses of another length than the first as failures.
    #[arg(short = 'l')]
    pub variable_length: bool,
    /// Seconds to wait for each response (ab's -s).
    #[arg(short = 's', value_name = "SECONDS", default_value_t = 30.0)]
    pub timeout: f64,
    /// Ignored (ab's "don't exit on socket receive errors"): never exiting is
    /// the default here.
    #[arg(short = 'r')]
    pub continue_on_errors: bool,
    /// Quiet: no progress lines.
    #[arg(short = 'q')]
    pub quiet: bool,
    /// Threads driving the clients, each its own event loop with an equal
    /// share of them (default: one per CPU).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
    /// Print the report as JSON instead of ab's text.
    #[arg(long)]
    pub json: bool,
    /// At most this many requests a second in all, each client sending one
    /// every c/RATE seconds (unless still waiting for the last): a load at
    /// a set rate, as a flood a server must refuse, instead of as fast as
    /// answers come back.
    #[arg(long, value_name = "RATE")]
    pub rate: Option<f64>,
    /// Another URL to spread the clients over (repeatable): client i uses
    /// URL i mod n, as several gateway instances without a load balancer.
    #[arg(long = "also", value_name = "URL")]
    pub also: Vec<String>,
    /// TLS, for https:// URLs.
    #[command(flatten)]
    pub tls: TlsArgs,
    /// The URL: http[s]://host[:port]/path
    pub url: String,
}

/// Latencies of one phase, in microseconds.
struct Phases {
    connect: Histogram<u64>,
    processing: Histogram<u64>,
    waiting: Histogram<u64>,
    total: Histogram<u64>,
}

impl Phases {
    fn new() -> Self {
        let h = || Histogram::new_with_bounds(1, 3_600_000_000, 3).expect("valid histogram bounds");
        Phases {
            connect: h(),
            processing: h(),
            waiting: h(),
            total: h(),
        }
    }
    fn add(&mut self, o: &Phases) {
        for (a, b) in [
            (&mut self.connect, &o.connect),
            (&mut self.processing, &o.processing),
            (&mut self.waiting, &o.waiting),
            (&mut self.total, &o.total),
        ] {
            let _ = a.add(b);
        }
    }
}

fn micros(d: Duration) -> u64 {
    (d.as_micros() as u64).max(1)
}

/// One client's counts.
#[derive(Default, Clone, Copy)]
struct Counts {
    complete: u64,
    failed_connect: u64,
    failed_receive: u64,
    failed_length: u64,
    failed_exceptions: u64,
    resets: u64,
    non2xx: u64,
    keepalive_requests: u64,
    bytes_total: u64,
    bytes_body: u64,
    tls_full: u64,
    tls_resumed: u64,
}

impl Counts {
    fn add(&mut self, o: &Counts) {
        self.complete += o.complete;
        self.failed_connect += o.failed_connect;
        self.failed_receive += o.failed_receive;
        self.failed_length += o.failed_length;
        self.failed_exceptions += o.failed_exceptions;
        self.resets += o.resets;
        self.non2xx += o.non2xx;
        self.keepalive_requests += o.keepalive_requests;
        self.bytes_total += o.bytes_total;
        self.bytes_body += o.bytes_body;
        self.tls_full += o.tls_full;
        self.tls_resumed += o.tls_resumed;
    }
    fn failed(&self) -> u64 {
        self.failed_connect + self.failed_receive + self.failed_length + self.failed_exceptions
    }
}

/// What every client shares.
struct Shared {
    /// How to reach each target and the request for it; client i uses
    /// i mod n.
    targets: Vec<(Connector, Vec<u8>)>,
    head: bool,
    keepalive: bool,
    variable_length: bool,
    timeout: Duration,
    remaining: AtomicI64,
    deadline: Option<Instant>,
    /// `--rate`: requests a second in all.
    rate: Option<f64>,
    clients: usize,
    /// Body length of the first response (`u64::MAX` until known).
    doc_len: AtomicU64,
    server: std::sync::OnceLock<String>,
    /// What the first TLS handshake negotiated.
    tls_protocol: std::sync::OnceLock<String>,
    /// The first failure's cause, for the report.
    first_failure: std::sync::OnceLock<String>,
    done: AtomicU64,
    progress_every: u64,
    quiet: bool,
}

impl Shared {
    fn claim(&self) -> bool {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return false;
        }
        self.remaining.fetch_sub(1, Ordering::Relaxed) > 0
    }

    fn note_failure(&self, f: &Failure) {
        if self.first_failure.get().is_none() {
            let _ = self.first_failure.set(f.to_string());
        }
    }

    fn finished_one(&self) {
        let n = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if !self.quiet && self.progress_every > 0 && n.is_multiple_of(self.progress_every) {
            eprintln!("Completed {n} requests");
        }
    }
}

/// Connects, and for https completes the handshake.
async fn connect(s: &Shared, connector: &Connector) -> Result<Stream, Failure> {
    let stream = tokio::time::timeout(s.timeout, connector.connect())
        .await
        .map_err(|_| {
            Failure::Connect(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "connect timed out",
            ))
        })?
        .map_err(Failure::Connect)?;
    if s.tls_protocol.get().is_none()
        && let Some(p) = stream.tls_protocol()
    {
        let _ = s.tls_protocol.set(p);
    }
    Ok(stream)
}

/// Runs the clients numbered `ids` on this thread's event loop; they record
/// their latencies into one set of histograms (each is 190 KiB: a set per
/// client made `-c 1000` allocate and zero 580 MiB while its first
/// connections waited, up to 2 s).
async fn run_clients(shared: Arc<Shared>, ids: Vec<usize>) -> (Counts, Phases) {
    let phases = Rc::new(RefCell::new(Phases::new()));
    let counts = tokio::task::LocalSet::new()
        .run_until(async {
            let mut tasks = tokio::task::JoinSet::new();
            for i in ids {
                tasks.spawn_local(client(shared.clone(), i, phases.clone()));
            }
            let mut counts = Counts::default();
            while let Some(r) = tasks.join_next().await {
                if let Ok(c) = r {
                    counts.add(&c);
                }
            }
            counts
        })
        .await;
    let phases = Rc::into_inner(phases).map_or_else(Phases::new, RefCell::into_inner);
    (counts, phases)
}

async fn client(s: Arc<Shared>, i: usize, phases: Rc<RefCell<Phases>>) -> Counts {
    let (connector, request) = &s.targets[i % s.targets.len()];
    let mut counts = Counts::default();
    let mut conn: Option<Stream> = None;
    let mut buf = Vec::with_capacity(16 * 1024);
    // with a rate, each client sends one request every clients/rate
    // seconds, the clients spread over that interval
    let pace = s
        .rate
        .map(|r| (Duration::from_secs_f64(s.clients as f64 / r), r));
    let mut next = pace.map(|(_, r)| Instant::now() + Duration::from_secs_f64(i as f64 / r));
    while s.claim() {
        if let (Some(at), Some((every, _))) = (next.as_mut(), pace) {
            tokio::time::sleep_until((*at).into()).await;
            // a request late (the last still unanswered) is not made up for
            *at = (*at + every).max(Instant::now());
        }
        // a kept-alive connection the server closed while idle is replaced
        // once without counting a failure, as ab does
        let mut retried = false;
        loop {
            let start = Instant::now();
            let reused = conn.is_some();
            let mut stream = match conn.take() {
                Some(c) => c,
                None => match connect(&s, connector).await {
                    Ok(c) => {
                        match c.tls_resumed() {
                            Some(true) => counts.tls_resumed += 1,
                            Some(false) => counts.tls_full += 1,
                            None => {}
                        }
                        c
                    }
                    Err(f) => {
                        s.note_failure(&f);
                        counts.complete += 1;
                        counts.failed_connect += 1;
                        counts.resets += u64::from(f.is_reset());
                        s.finished_one();
                        break;
                    }
                },
            };
            let connected = Instant::now();
            let r = tokio::time::timeout(
                s.timeout,
                http::exchange(&mut stream, request, &mut buf, s.head),
            )
            .await
            .unwrap_or_else(|_| {
                Err(Failure::Receive(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    "no response within the timeout",
                )))
            });
            match r {
                Ok((resp, first_byte)) => {
                    let done = Instant::now();
                    counts.complete += 1;
                    counts.bytes_total += resp.total_len;
                    counts.bytes_body += resp.body_len;
                    if !(200..300).contains(&resp.status) {
                        counts.non2xx += 1;
                    }
                    let doc = s.doc_len.compare_exchange(
                        u64::MAX,
                        resp.body_len,
                        Ordering::Relaxed,
                        Ordering::Relaxed,
                    );
                    if let Err(first) = doc
                        && first != resp.body_len
                        && !s.variable_length
                    {
                        counts.failed_length += 1;
                    }
                    if let Some(server) = &resp.server {
                        let _ = s.server.set(server.clone());
                    }
                    let mut phases = phases.borrow_mut();
                    phases.connect.saturating_record(micros(connected - start));
                    phases
                        .processing
                        .saturating_record(micros(done - connected));
                    phases
                        .waiting
                        .saturating_record(micros(first_byte - connected));
                    phases.total.saturating_record(micros(done - start));
                    drop(phases);
                    if s.keepalive && resp.keepalive {
                        counts.keepalive_requests += 1;
                        conn = Some(stream);
                    }
                    s.finished_one();
                    break;
                }
                Err(Failure::Receive(e))
                    if reused && !retried && e.kind() == std::io::ErrorKind::UnexpectedEof =>
                {
                    retried = true;
                    continue;
                }
                Err(f) => {
                    s.note_failure(&f);
                    counts.complete += 1;
                    counts.resets += u64::from(f.is_reset());
                    match f {
                        Failure::Connect(_) => counts.failed_connect += 1,
                        Failure::Receive(_) => counts.failed_receive += 1,
                        Failure::Exception(_) => counts.failed_exceptions += 1,
                    }
                    s.finished_one();
                    break;
                }
            }
        }
    }
    counts
}

/// One phase's row of the Connection Times table, in ms.
#[derive(Serialize, Debug, Clone, Copy)]
pub struct PhaseRow {
    /// Minimum.
    pub min: f64,
    /// Mean.
    pub mean: f64,
    /// Standard deviation.
    pub sd: f64,
    /// Median.
    pub median: f64,
    /// Maximum.
    pub max: f64,
}

fn row(h: &Histogram<u64>) -> PhaseRow {
    let ms = |us: f64| us / 1000.0;
    if h.is_empty() {
        return PhaseRow {
            min: 0.0,
            mean: 0.0,
            sd: 0.0,
            median: 0.0,
            max: 0.0,
        };
    }
    PhaseRow {
        min: ms(h.min() as f64),
        mean: ms(h.mean()),
        sd: ms(h.stdev()),
        median: ms(h.value_at_quantile(0.5) as f64),
        max: ms(h.max() as f64),
    }
}

/// The whole report (`--json` prints it as is).
#[derive(Serialize, Debug, Clone)]
pub struct Report {
    /// `Server` header of the responses.
    pub server_software: String,
    /// Host.
    pub server_hostname: String,
    /// Port.
    pub server_port: u16,
    /// For https: the TLS version, cipher suite and key exchange of the
    /// first handshake (`TLSv1.3,TLS_AES_128_GCM_SHA256,X25519`).
    pub tls_protocol: Option<String>,
    /// TLS connections that paid a full handshake.
    pub tls_handshakes_full: u64,
    /// TLS connections that resumed a session (`--tls-resume`).
    pub tls_handshakes_resumed: u64,
    /// Path.
    pub document_path: String,
    /// Body length of the first response.
    pub document_length: u64,
    /// Clients.
    pub concurrency: usize,
    /// Seconds from the first request to the last response.
    pub time_taken_s: f64,
    /// Requests finished (failed ones included).
    pub complete_requests: u64,
    /// Failed requests, all kinds.
    pub failed_requests: u64,
    /// What the first failed request ran into.
    pub first_failure: Option<String>,
    /// Could not connect.
    pub failed_connect: u64,
    /// Send or receive errors (resets, timeouts, early close).
    pub failed_receive: u64,
    /// Body length differed from the first response's.
    pub failed_length: u64,
    /// Unparsable responses.
    pub failed_exceptions: u64,
    /// Connection resets (part of the failures above).
    pub connection_resets: u64,
    /// Responses outside 2xx.
    pub non_2xx_responses: u64,
    /// Requests answered on a kept-alive connection.
    pub keepalive_requests: u64,
    /// Bytes received, headers included.
    pub total_transferred: u64,
    /// Body bytes received.
    pub html_transferred: u64,
    /// Requests per second.
    pub requests_per_second: f64,
    /// Mean time per request, ms (concurrency x time / requests).
    pub time_per_request_ms: f64,
    /// Mean time per request across all clients, ms.
    pub time_per_request_all_ms: f64,
    /// KiB/s received.
    pub transfer_rate_kib_s: f64,
    /// Connection Times table.
    pub connect: PhaseRow,
    /// Connection Times table.
    pub processing: PhaseRow,
    /// Connection Times table.
    pub waiting: PhaseRow,
    /// Connection Times table.
    pub total: PhaseRow,
    /// `(percent, ms)`: requests served within a certain time.
    pub percentiles: Vec<(u32, f64)>,
}

/// Raises the open-files soft limit to the hard limit; fails when
/// `needed` descriptors cannot fit.
fn raise_nofile(needed: u64) -> Result<(), String> {
    use nix::sys::resource::{Resource, getrlimit, setrlimit};
    if let Ok((_, hard)) = getrlimit(Resource::RLIMIT_NOFILE) {
        // a failure leaves the soft limit lower: connect() then fails and counts
        let _ = setrlimit(Resource::RLIMIT_NOFILE, hard, hard);
        if hard < needed {
            return Err(format!(
                "{needed} descriptors needed but the open-files limit is {hard}: lower -c or raise the hard limit"
            ));
        }
    }
    Ok(())
}

/// Runs the benchmark and prints the report.
pub fn run(args: &AbArgs) -> Result<(), Box<dyn std::error::Error>> {
    let report = measure(args)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", render(&report, args.keepalive));
    }
    Ok(())
}

/// Runs the benchmark and returns its report.
pub fn measure(args: &AbArgs) -> Result<Report, Box<dyn std::error::Error>> {
    let target = Target::parse(&args.url)?;
    let method = if args.head { "HEAD" } else { "GET" };
    let mut parsed = vec![target.clone()];
    for url in &args.also {
        parsed.push(Target::parse(url)?);
    }
    let tls = http::tls_config_for(&parsed, &args.tls)?;
    // each request is one write: Nagle cannot delay it, and ab does not set
    // TCP_NODELAY either
    let targets = parsed
        .iter()
        .map(|t| {
            Ok((
                Connector::new(t, tls.as_ref(), false)?,
                http::request(t, method, args.keepalive, &args.headers),
            ))
        })
        .collect::<Result<Vec<_>, String>>()?;
    let requests = args.requests.unwrap_or(if args.timelimit.is_some() {
        TIME_LIMIT_REQUESTS
    } else {
        1
    });
    if args.rate.is_some_and(|r| !(r.is_finite() && r > 0.0)) {
        return Err("--rate must be a number of requests per second above 0".into());
    }
    if args.concurrency == 0 || args.concurrency > MAX_CONCURRENCY {
        return Err(format!("-c must be between 1 and {MAX_CONCURRENCY}").into());
    }
    if args.concurrency as u64 > requests {
        return Err("cannot use a concurrency level greater than the number of requests".into());
    }
    raise_nofile(args.concurrency as u64 + 64)?;
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, std::num::NonZero::get))
        .clamp(1, args.concurrency);
    // one event loop per thread, each with its share of the clients, as
    // wrk's threads: a thread's clients record into one set of histograms
    // without a lock
    let runtimes = (0..threads)
        .map(|_| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
        })
        .collect::<Result<Vec<_>, _>>()?;
    let quiet = args.quiet || args.json;
    if !quiet {
        eprintln!("Benchmarking {} (be patient)", target.host);
    }
    let started = Instant::now();
    let shared = Arc::new(Shared {
        targets,
        head: args.head,
        keepalive: args.keepalive,
        variable_length: args.variable_length,
        timeout: Duration::from_secs_f64(args.timeout.max(0.001)),
        remaining: AtomicI64::new(requests.min(i64::MAX as u64) as i64),
        deadline: args
            .timelimit
            .map(|t| started + Duration::from_secs_f64(t.max(0.0))),
        rate: args.rate,
        clients: args.concurrency,
        doc_len: AtomicU64::new(u64::MAX),
        server: std::sync::OnceLock::new(),
        tls_protocol: std::sync::OnceLock::new(),
        first_failure: std::sync::OnceLock::new(),
        done: AtomicU64::new(0),
        progress_every: if requests >= 150 { requests / 10 } else { 0 },
        quiet,
    });
    let loops = runtimes
        .into_iter()
        .enumerate()
        .map(|(t, rt)| {
            let shared = shared.clone();
            let clients: Vec<usize> = (t..args.concurrency).step_by(threads).collect();
            std::thread::Builder::new()
                .name(format!("rsgw-ab-{t}"))
                .spawn(move || rt.block_on(run_clients(shared, clients)))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut counts = Counts::default();
    let mut phases = Phases::new();
    for l in loops {
        let (c, p) = l.join().map_err(|_| "a load thread panicked")?;
        counts.add(&c);
        phases.add(&p);
    }
    let elapsed = started.elapsed().as_secs_f64().max(1e-9);
    if !quiet {
        eprintln!("Finished {} requests", counts.complete);
    }
    let n = counts.complete.max(1) as f64;
    let pcts = [50, 66, 75, 80, 90, 95, 98, 99, 100];
    Ok(Report {
        server_software: shared.server.get().cloned().unwrap_or_default(),
        server_hostname: target.host.clone(),
        server_port: target.port,
        tls_protocol: shared.tls_protocol.get().cloned(),
        tls_handshakes_full: counts.tls_full,
        tls_handshakes_resumed: counts.tls_resumed,
        document_path: target.path.clone(),
        document_length: match shared.doc_len.load(Ordering::Relaxed) {
            u64::MAX => 0,
            l => l,
        },
        concurrency: args.concurrency,
        time_taken_s: elapsed,
        complete_requests: counts.complete,
        failed_requests: counts.failed(),
        first_failure: shared.first_failure.get().cloned(),
        failed_connect: counts.failed_connect,
        failed_receive: counts.failed_receive,
        failed_length: counts.failed_length,
        failed_exceptions: counts.failed_exceptions,
        connection_resets: counts.resets,
        non_2xx_responses: counts.non2xx,
        keepalive_requests: counts.keepalive_requests,
        total_transferred: counts.bytes_total,
        html_transferred: counts.bytes_body,
        requests_per_second: counts.complete as f64 / elapsed,
        time_per_request_ms: args.concurrency as f64 * elapsed * 1000.0 / n,
        time_per_request_all_ms: elapsed * 1000.0 / n,
        transfer_rate_kib_s: counts.bytes_total as f64 / 1024.0 / elapsed,
        connect: row(&phases.connect),
        processing: row(&phases.processing),
        waiting: row(&phases.waiting),
        total: row(&phases.total),
        percentiles: pcts
            .iter()
            .map(|&p| {
                let v = if phases.total.is_empty() {
                    0
                } else if p == 100 {
                    phases.total.max()
                } else {
                    phases.total.value_at_quantile(f64::from(p) / 100.0)
                };
                (p, v as f64 / 1000.0)
            })
            .collect(),
    })
}

/// ab's text report.
pub fn render(r: &Report, keepalive: bool) -> String {
    use std::fmt::Write as _;
    let mut o = String::new();
    let _ = writeln!(o, "\n\nServer Software:        {}", r.server_software);
    let _ = writeln!(o, "Server Hostname:        {}", r.server_hostname);
    let _ = writeln!(o, "Server Port:            {}", r.server_port);
    if let Some(p) = &r.tls_protocol {
        let _ = writeln!(o, "SSL/TLS Protocol:       {p}");
        let _ = writeln!(
            o,
            "TLS handshakes:         {} full, {} resumed",
            r.tls_handshakes_full, r.tls_handshakes_resumed
        );
    }
    o.push('\n');
    let _ = writeln!(o, "Document Path:          {}", r.document_path);
    let _ = writeln!(o, "Document Length:        {} bytes\n", r.document_length);
    let _ = writeln!(o, "Concurrency Level:      {}", r.concurrency);
    let _ = writeln!(o, "Time taken for tests:   {:.3} seconds", r.time_taken_s);
    let _ = writeln!(o, "Complete requests:      {}", r.complete_requests);
    let _ = writeln!(o, "Failed requests:        {}", r.failed_requests);
    if r.failed_requests > 0 {
        let _ = writeln!(
            o,
            "   (Connect: {}, Receive: {}, Length: {}, Exceptions: {})",
            r.failed_connect, r.failed_receive, r.failed_length, r.failed_exceptions
        );
    }
    if let Some(f) = &r.first_failure {
        let _ = writeln!(o, "First failure:          {f}");
    }
    let _ = writeln!(o, "Connection resets:      {}", r.connection_resets);
    if keepalive {
        let _ = writeln!(o, "Keep-Alive requests:    {}", r.keepalive_requests);
    }
    if r.non_2xx_responses > 0 {
        let _ = writeln!(o, "Non-2xx responses:      {}", r.non_2xx_responses);
    }
    let _ = writeln!(o, "Total transferred:      {} bytes", r.total_transferred);
    let _ = writeln!(o, "HTML transferred:       {} bytes", r.html_transferred);
    let _ = writeln!(
        o,
        "Requests per second:    {:.2} [#/sec] (mean)",
        r.requests_per_second
    );
    let _ = writeln!(
        o,
        "Time per request:       {:.3} [ms] (mean)",
        r.time_per_request_ms
    );
    let _ = writeln!(
        o,
        "Time per request:       {:.3} [ms] (mean, across all concurrent requests)",
        r.time_per_request_all_ms
    );
    let _ = writeln!(
        o,
        "Transfer rate:          {:.2} [Kbytes/sec] received\n",
        r.transfer_rate_kib_s
    );
    let _ = writeln!(o, "Connection Times (ms)");
    let _ = writeln!(o, "              min  mean[+/-sd] median   max");
    for (name, p) in [
        ("Connect:    ", &r.connect),
        ("Processing: ", &r.processing),
        ("Waiting:    ", &r.waiting),
        ("Total:      ", &r.total),
    ] {
        let _ = writeln!(
            o,
            "{name}{:5.0} {:5.0} {:5.1} {:6.0} {:7.0}",
            p.min, p.mean, p.sd, p.median, p.max
        );
    }
    let _ = writeln!(
        o,
        "\nPercentage of the requests served within a certain time (ms)"
    );
    for (p, ms) in &r.percentiles {
        let tail = if *p == 100 { " (longest request)" } else { "" };
        let _ = writeln!(o, " {p:3}% {:6.0}{tail}", ms.round());
    }
    o
}
