//! The frontend's counters, gauges and latency histograms, rendered in
//! Prometheus' text format by the admin listener. Every update is one or
//! two relaxed atomic adds: nothing on the request path locks or allocates.

use std::fmt::Write as _;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::time::Duration;

use crate::handler::Operation;

/// Upper bounds (seconds) of the latency histogram buckets.
const BUCKETS: [f64; 16] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
    5.0, 10.0,
];

/// HTTP status codes counted one by one: 100 to 599.
const STATUS_MIN: u16 = 100;
const STATUS_SPAN: usize = 500;

/// A gauge that goes up and down.
#[derive(Default)]
pub struct Gauge(AtomicI64);

impl Gauge {
    /// Adds one.
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    /// Subtracts one.
    pub fn dec(&self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
    /// The current value.
    pub fn get(&self) -> i64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// A counter that only goes up.
#[derive(Default)]
pub struct Counter(AtomicU64);

impl Counter {
    /// Adds one.
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    /// Adds `n`.
    pub fn add(&self, n: u64) {
        self.0.fetch_add(n, Ordering::Relaxed);
    }
    /// The current value.
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// One operation's latency distribution.
struct Histogram {
    buckets: [AtomicU64; BUCKETS.len() + 1],
    sum_nanos: AtomicU64,
}

impl Histogram {
    fn new() -> Self {
        Histogram {
            buckets: std::array::from_fn(|_| AtomicU64::new(0)),
            sum_nanos: AtomicU64::new(0),
        }
    }

    fn observe(&self, d: Duration) {
        let secs = d.as_secs_f64();
        let i = BUCKETS
            .iter()
            .position(|&b| secs <= b)
            .unwrap_or(BUCKETS.len());
        self.buckets[i].fetch_add(1, Ordering::Relaxed);
        self.sum_nanos.fetch_add(
            d.as_nanos().min(u128::from(u64::MAX)) as u64,
            Ordering::Relaxed,
        );
    }
}

/// Values `/metrics` shows that other layers own: metrics read them when
/// rendering, never keep them.
#[derive(Debug, Clone, Copy)]
pub struct Observed<'a> {
    /// `pool.mode`, as a label.
    pub mode: &'a str,
    /// Handler threads.
    pub threads: usize,
    /// The pool's total busy time.
    pub pool_busy_seconds: f64,
    /// Requests waiting in the admission queue now.
    pub admission_waiting: usize,
    /// `max_concurrent_requests` now (0: unlimited).
    pub admission_limit: usize,
}

/// Everything the admin listener's `/metrics` shows.
pub struct Metrics {
    operations: Box<[&'static str]>,
    requests: Box<[AtomicU64]>,
    latency: Box<[Histogram]>,
    /// Requests admitted and not yet answered in full.
    pub outstanding: Gauge,
    /// Requests answered `503 SlowDown` by admission.
    pub admission_rejected: Counter,
    /// blocking mode: admitted requests waiting for a free handler thread.
    pub pool_queued: Gauge,
    /// blocking mode: handler threads running a request.
    pub pool_busy_threads: Gauge,
    /// blocking mode: nanoseconds handler threads spent on requests.
    pub pool_busy_nanos: Counter,
    /// Connections open now.
    pub connections_open: Gauge,
    /// Connections accepted since start.
    pub connections_accepted: Counter,
    /// Failed `accept()` calls (out of descriptors, say).
    pub accept_errors: Counter,
    /// Times the listener paused at `max_connections`.
    pub connection_cap_waits: Counter,
    /// TLS handshakes that failed or timed out.
    pub tls_handshake_failures: Counter,
    /// Connections from a trusted proxy closed for a missing, malformed
    /// or late PROXY protocol header.
    pub proxy_header_failures: Counter,
    /// Certificate reloads, by outcome: succeeded, failed.
    pub tls_reloads: [Counter; 2],
    /// Ops log lines written.
    pub ops_log_lines: Counter,
    /// Ops log lines dropped (queue full, or writing failed).
    pub ops_log_dropped: Counter,
}

impl Metrics {
    /// Metrics for a handler whose operations are `O`.
    pub fn new<O: Operation>() -> Self {
        let operations: Box<[&'static str]> = O::all().iter().map(|o| o.name()).collect();
        Metrics {
            requests: (0..operations.len() * STATUS_SPAN)
                .map(|_| AtomicU64::new(0))
                .collect(),
            latency: (0..operations.len()).map(|_| Histogram::new()).collect(),
            operations,
            outstanding: Gauge::default(),
            admission_rejected: Counter::default(),
            pool_queued: Gauge::default(),
            pool_busy_threads: Gauge::default(),
            pool_busy_nanos: Counter::default(),
            connections_open: Gauge::default(),
            connections_accepted: Counter::default(),
            accept_errors: Counter::default(),
            connection_cap_waits: Counter::default(),
            tls_handshake_failures: Counter::default(),
            proxy_header_failures: Counter::default(),
            tls_reloads: Default::default(),
            ops_log_lines: Counter::default(),
            ops_log_dropped: Counter::default(),
        }
    }

    /// Metrics of a handler with two operations, for other modules' tests.
    #[cfg(test)]
    pub(crate) fn for_test() -> Self {
        Self::new::<tests::Op>()
    }

    /// Counts a finished request of operation `op` with its status.
    pub fn record<O: Operation>(&self, op: O, status: u16, elapsed: Duration) {
        let op = op.index();
        let s =
            usize::from(status.clamp(STATUS_MIN, STATUS_MIN + STATUS_SPAN as u16 - 1) - STATUS_MIN);
        self.requests[op * STATUS_SPAN + s].fetch_add(1, Ordering::Relaxed);
        self.latency[op].observe(elapsed);
    }

    /// Requests counted with this operation and status so far.
    pub fn requests<O: Operation>(&self, op: O, status: u16) -> u64 {
        let s = usize::from(status - STATUS_MIN);
        self.requests[op.index() * STATUS_SPAN + s].load(Ordering::Relaxed)
    }

    /// Renders every metric in Prometheus' text exposition format, with
    /// what the other layers own and report in `seen`.
    pub fn render(&self, seen: &Observed<'_>) -> String {
        let Observed {
            mode,
            threads,
            pool_busy_seconds,
            admission_waiting,
            admission_limit,
        } = *seen;
        let mut out = String::with_capacity(4096);
        let _ = writeln!(
            out,
            "# HELP rsgw_requests_total Requests answered, by S3 operation and HTTP status.\n\
             # TYPE rsgw_requests_total counter"
        );
        for (op, name) in self.operations.iter().enumerate() {
            for s in 0..STATUS_SPAN {
                let n = self.requests[op * STATUS_SPAN + s].load(Ordering::Relaxed);
                if n > 0 {
                    let status = s + usize::from(STATUS_MIN);
                    let _ = writeln!(
                        out,
                        "rsgw_requests_total{{op=\"{name}\",status=\"{status}\"}} {n}"
                    );
                }
            }
        }
        let _ = writeln!(
            out,
            "# HELP rsgw_request_duration_seconds Time from request headers to the end of the response, by S3 operation.\n\
             # TYPE rsgw_request_duration_seconds histogram"
        );
        for (op, name) in self.operations.iter().enumerate() {
            let h = &self.latency[op];
            let mut cumulative = 0;
            let counts: Vec<u64> = h
                .buckets
                .iter()
                .map(|b| b.load(Ordering::Relaxed))
                .collect();
            if counts.iter().all(|&c| c == 0) {
                continue;
            }
            for (i, bound) in BUCKETS.iter().enumerate() {
                cumulative += counts[i];
                let _ = writeln!(
                    out,
                    "rsgw_request_duration_seconds_bucket{{op=\"{name}\",le=\"{bound}\"}} {cumulative}"
                );
            }
            cumulative += counts[BUCKETS.len()];
            let sum = h.sum_nanos.load(Ordering::Relaxed) as f64 / 1e9;
            let _ = writeln!(
                out,
                "rsgw_request_duration_seconds_bucket{{op=\"{name}\",le=\"+Inf\"}} {cumulative}\n\
                 rsgw_request_duration_seconds_sum{{op=\"{name}\"}} {sum}\n\
                 rsgw_request_duration_seconds_count{{op=\"{name}\"}} {cumulative}"
            );
        }
        let mut one = |name: &str, kind: &str, help: &str, value: String| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} {kind}\n{name} {value}"
            );
        };
        one(
            "rsgw_outstanding_requests",
            "gauge",
            "Requests admitted and not yet answered in full (radosgw's outstanding_requests).",
            self.outstanding.get().to_string(),
        );
        one(
            "rsgw_admission_queued_requests",
            "gauge",
            "Requests waiting for admission (admission = \"queue\").",
            admission_waiting.to_string(),
        );
        one(
            "rsgw_admission_limit",
            "gauge",
            "max_concurrent_requests now, changed live from the monitors' rgw_max_concurrent_requests (0: unlimited).",
            admission_limit.to_string(),
        );
        one(
            "rsgw_admission_rejected_total",
            "counter",
            "Requests answered 503 SlowDown because max_concurrent_requests was reached.",
            self.admission_rejected.get().to_string(),
        );
        one(
            "rsgw_pool_threads",
            "gauge",
            &format!("Handler threads (pool.mode = \"{mode}\")."),
            threads.to_string(),
        );
        one(
            "rsgw_pool_busy_threads",
            "gauge",
            "blocking mode: handler threads running a request now.",
            self.pool_busy_threads.get().to_string(),
        );
        one(
            "rsgw_pool_busy_seconds_total",
            "counter",
            "Time handler threads spent running requests (async mode: tokio workers' busy time).",
            pool_busy_seconds.to_string(),
        );
        one(
            "rsgw_pool_queued_requests",
            "gauge",
            "blocking mode: admitted requests waiting for a free handler thread.",
            self.pool_queued.get().to_string(),
        );
        one(
            "rsgw_connections_open",
            "gauge",
            "Client connections open now.",
            self.connections_open.get().to_string(),
        );
        one(
            "rsgw_connections_accepted_total",
            "counter",
            "Client connections accepted.",
            self.connections_accepted.get().to_string(),
        );
        one(
            "rsgw_connection_cap_waits_total",
            "counter",
            "Times the listener stopped accepting at max_connections.",
            self.connection_cap_waits.get().to_string(),
        );
        one(
            "rsgw_accept_errors_total",
            "counter",
            "Failed accept() calls (EMFILE and the like); the listener backs off and retries.",
            self.accept_errors.get().to_string(),
        );
        one(
            "rsgw_tls_handshake_failures_total",
            "counter",
            "TLS handshakes that failed or took longer than frontend.request_timeout_ms.",
            self.tls_handshake_failures.get().to_string(),
        );
        one(
            "rsgw_ops_log_lines_total",
            "counter",
            "Ops log lines written ([ops_log]).",
            self.ops_log_lines.get().to_string(),
        );
        one(
            "rsgw_ops_log_dropped_total",
            "counter",
            "Ops log lines dropped: the writer's queue (ops_log.queue) was full, or the file could not be written. Requests never wait for the log.",
            self.ops_log_dropped.get().to_string(),
        );
        one(
            "rsgw_proxy_header_failures_total",
            "counter",
            "Connections from a trusted proxy closed for a missing, malformed or late PROXY protocol v2 header (frontend.proxy_protocol).",
            self.proxy_header_failures.get().to_string(),
        );
        let _ = writeln!(
            out,
            "# HELP rsgw_tls_reloads_total Certificate reloads (SIGHUP) by outcome.\n\
             # TYPE rsgw_tls_reloads_total counter"
        );
        for (outcome, c) in ["ok", "failed"].iter().zip(&self.tls_reloads) {
            let _ = writeln!(
                out,
                "rsgw_tls_reloads_total{{outcome=\"{outcome}\"}} {}",
                c.get()
            );
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub(crate) enum Op {
        Get,
        Other,
    }

    impl Operation for Op {
        fn all() -> &'static [Self] {
            &[Op::Get, Op::Other]
        }
        fn index(self) -> usize {
            self as usize
        }
        fn name(self) -> &'static str {
            match self {
                Op::Get => "GetObject",
                Op::Other => "Other",
            }
        }
        fn unrouted() -> Self {
            Op::Other
        }
    }

    #[test]
    fn renders_counts_and_cumulative_buckets() {
        let m = Metrics::new::<Op>();
        m.record(Op::Get, 200, Duration::from_micros(300));
        m.record(Op::Get, 200, Duration::from_millis(3));
        m.record(Op::Other, 503, Duration::from_secs(20));
        m.admission_rejected.inc();
        let text = m.render(&Observed {
            mode: "async",
            threads: 4,
            pool_busy_seconds: 1.5,
            admission_waiting: 3,
            admission_limit: 7,
        });
        assert!(
            text.contains("rsgw_requests_total{op=\"GetObject\",status=\"200\"} 2"),
            "{text}"
        );
        assert!(text.contains("rsgw_requests_total{op=\"Other\",status=\"503\"} 1"));
        assert!(
            text.contains("rsgw_request_duration_seconds_bucket{op=\"GetObject\",le=\"0.0005\"} 1")
        );
        assert!(
            text.contains("rsgw_request_duration_seconds_bucket{op=\"GetObject\",le=\"0.005\"} 2")
        );
        assert!(text.contains("rsgw_request_duration_seconds_bucket{op=\"Other\",le=\"10\"} 0"));
        assert!(text.contains("rsgw_request_duration_seconds_count{op=\"Other\"} 1"));
        assert!(text.contains("rsgw_admission_rejected_total 1"));
        assert!(text.contains("rsgw_pool_threads 4"));
        assert!(text.contains("rsgw_admission_queued_requests 3"));
        assert!(text.contains("rsgw_admission_limit 7"));
        assert_eq!(m.requests(Op::Get, 200), 2);
    }
}
