//! This instance's share of the rate limits (`model::ratelimit`): token
//! buckets per user, bucket and for anonymous requests, in this process
//! ([`Limiter`]). A cluster-wide figure is split across N instances by
//! setting figure / N, with a load balancer spreading clients evenly.
//!
//! Reads are GET and HEAD requests, writes every other method. An
//! operation takes one token of its kind; bytes are charged as they are
//! known (a write's declared length before it runs, a read's response
//! length after), and may overdraw: the balance is then paid back before
//! the next request of that kind passes, as radosgw does.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::model::ratelimit::{Limit, RateLimits};

/// The scope of a limit that refused a request, for metrics and logs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Scope {
    /// A user's own or the users' default.
    User = 0,
    /// A bucket's own or the buckets' default.
    Bucket = 1,
    /// The anonymous limit.
    Anonymous = 2,
}

/// What is counted against a limit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Read operations.
    ReadOps = 0,
    /// Write operations.
    WriteOps = 1,
    /// Bytes read.
    ReadBytes = 2,
    /// Bytes written.
    WriteBytes = 3,
}

impl Scope {
    /// Its name, as a metrics label.
    pub fn name(self) -> &'static str {
        ["user", "bucket", "anonymous"][self as usize]
    }
}

impl Kind {
    /// Its name, as a metrics label.
    pub fn name(self) -> &'static str {
        ["read_ops", "write_ops", "read_bytes", "write_bytes"][self as usize]
    }

    fn of(limit: &Limit, kind: Kind) -> u64 {
        match kind {
            Kind::ReadOps => limit.max_read_ops,
            Kind::WriteOps => limit.max_write_ops,
            Kind::ReadBytes => limit.max_read_bytes,
            Kind::WriteBytes => limit.max_write_bytes,
        }
    }
}

/// A request refused by a limit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Refusal {
    /// The limit's scope.
    pub scope: Scope,
    /// What ran out.
    pub kind: Kind,
    /// When the request would pass (`Retry-After`).
    pub retry_after: Duration,
}

/// A token bucket: up to one second of the rate, refilled continuously;
/// bytes may take it below zero.
#[derive(Debug, Clone, Copy)]
struct Tokens {
    level: f64,
    /// Per second, and the most it holds.
    rate: f64,
    at: Instant,
}

impl Tokens {
    fn full(rate: f64, now: Instant) -> Self {
        Tokens {
            level: rate,
            rate,
            at: now,
        }
    }

    /// Brings the level to `now` at `rate` (a changed limit applies from
    /// the next request on). Time only moves forward: a `now` older than
    /// the last refill adds nothing, and never counts an interval twice.
    fn refill(&mut self, rate: f64, now: Instant) {
        self.rate = rate;
        if now > self.at {
            let gained = (now - self.at).as_secs_f64() * rate;
            self.level = (self.level + gained).min(rate);
            self.at = now;
        }
    }
}

/// Users or buckets tracked beyond which idle ones are dropped.
const MAX_TRACKED: usize = 100_000;

/// One entity's token buckets, by [`Kind`] (created as a limit needs them).
#[derive(Debug, Default)]
struct Entity([Option<Tokens>; 4]);

impl Entity {
    /// The bucket of `kind` at `rate`, refilled to `now`.
    fn tokens(&mut self, kind: Kind, rate: f64, now: Instant) -> &mut Tokens {
        let t = self.0[kind as usize].get_or_insert_with(|| Tokens::full(rate, now));
        t.refill(rate, now);
        t
    }

    /// Whether every bucket is full: an idle entity, nothing lost by
    /// forgetting it.
    fn idle(&mut self, now: Instant) -> bool {
        self.0.iter_mut().flatten().all(|t| {
            t.refill(t.rate, now);
            t.level >= t.rate
        })
    }
}

/// Where an entity's buckets are.
#[derive(Debug, Clone, Copy)]
enum Slot {
    Anonymous,
    At(usize),
}

#[derive(Default)]
struct State {
    /// Users' and buckets' entities, by name: positions in `entities`.
    users: HashMap<String, usize>,
    buckets: HashMap<String, usize>,
    entities: Vec<Entity>,
    anonymous: Entity,
}

impl State {
    /// Where the entity of `scope` named `name` is (one hash, no
    /// allocation unless it is new). Slots stay valid until the next
    /// [`State::prune`].
    fn slot(&mut self, scope: Scope, name: &str) -> Slot {
        let map = match scope {
            Scope::Anonymous => return Slot::Anonymous,
            Scope::User => &self.users,
            Scope::Bucket => &self.buckets,
        };
        if let Some(&i) = map.get(name) {
            return Slot::At(i);
        }
        let i = self.entities.len();
        self.entities.push(Entity::default());
        let map = match scope {
            Scope::User => &mut self.users,
            _ => &mut self.buckets,
        };
        map.insert(name.to_string(), i);
        Slot::At(i)
    }

    fn get(&mut self, slot: Slot) -> &mut Entity {
        match slot {
            Slot::Anonymous => &mut self.anonymous,
            Slot::At(i) => &mut self.entities[i],
        }
    }

    /// Past [`MAX_TRACKED`] entities, drops those whose buckets are all
    /// full (idle ones: nothing is lost by forgetting them), renumbering
    /// the rest.
    fn prune(&mut self, now: Instant) {
        if self.entities.len() < MAX_TRACKED {
            return;
        }
        let mut kept = Vec::new();
        let mut renumbered = vec![None; self.entities.len()];
        for (i, mut e) in std::mem::take(&mut self.entities).into_iter().enumerate() {
            if !e.idle(now) {
                renumbered[i] = Some(kept.len());
                kept.push(e);
            }
        }
        for map in [&mut self.users, &mut self.buckets] {
            map.retain(|_, i| match renumbered[*i] {
                Some(n) => {
                    *i = n;
                    true
                }
                None => false,
            });
        }
        self.entities = kept;
    }
}

/// This instance's token buckets, by scope, entity and kind.
#[derive(Default)]
pub struct Limiter {
    state: Mutex<State>,
    /// Refusals, by scope and kind.
    refused: [[AtomicU64; 4]; 3],
}

/// The enforced limits a request is counted against: its signer's (or
/// the anonymous) and its bucket's.
type Applicable<'a> = [Option<(Scope, &'a str, &'a Limit)>; 2];

fn applicable<'a>(
    limits: &'a RateLimits,
    user: Option<&'a str>,
    bucket: Option<&'a str>,
) -> Applicable<'a> {
    let (scope, name) = match user {
        Some(u) => (Scope::User, u),
        None => (Scope::Anonymous, ""),
    };
    let l = limits.of_user(user);
    let first = l.active().then_some((scope, name, l));
    let second = bucket.and_then(|b| {
        let l = limits.of_bucket(b);
        l.active().then_some((Scope::Bucket, b, l))
    });
    [first, second]
}

impl Limiter {
    /// Takes one operation (and `write_bytes`, a write's declared length)
    /// from the limits of `user` (`None`: anonymous) and `bucket`; refuses
    /// without taking anything when one of them has run out.
    pub fn admit(
        &self,
        limits: &RateLimits,
        user: Option<&str>,
        bucket: Option<&str>,
        write: bool,
        write_bytes: u64,
    ) -> Result<(), Refusal> {
        if !limits.any() {
            return Ok(());
        }
        let checks = applicable(limits, user, bucket);
        if checks.iter().all(Option::is_none) {
            return Ok(());
        }
        let (ops, bytes) = if write {
            (Kind::WriteOps, Kind::WriteBytes)
        } else {
            (Kind::ReadOps, Kind::ReadBytes)
        };
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        // read under the lock, so that refills follow one another in time
        let now = Instant::now();
        state.prune(now);
        let slots =
            checks.map(|c| c.map(|(scope, name, limit)| (scope, state.slot(scope, name), limit)));
        // first every check, then every charge: a refused request takes nothing
        for &(scope, slot, limit) in slots.iter().flatten() {
            let entity = state.get(slot);
            for (kind, is_ops) in [(ops, true), (bytes, false)] {
                let rate = Kind::of(limit, kind) as f64;
                if rate == 0.0 {
                    continue;
                }
                let t = entity.tokens(kind, rate, now);
                // an operation needs a whole token; bytes a balance above zero
                let (refuse, missing) = if is_ops {
                    (t.level < 1.0, 1.0 - t.level)
                } else {
                    (t.level <= 0.0, -t.level)
                };
                if refuse {
                    self.refused[scope as usize][kind as usize].fetch_add(1, Ordering::Relaxed);
                    return Err(Refusal {
                        scope,
                        kind,
                        retry_after: Duration::from_secs_f64((missing / rate).max(0.001)),
                    });
                }
            }
        }
        for &(_, slot, limit) in slots.iter().flatten() {
            let entity = state.get(slot);
            for (kind, cost) in [(ops, 1.0), (bytes, write_bytes as f64)] {
                let rate = Kind::of(limit, kind) as f64;
                if rate > 0.0 && cost > 0.0 {
                    entity.tokens(kind, rate, now).level -= cost;
                }
            }
        }
        Ok(())
    }

    /// Charges the bytes a read returned to the limits of `user` and
    /// `bucket`; a balance in debt holds back their next reads.
    pub fn charge_read(
        &self,
        limits: &RateLimits,
        user: Option<&str>,
        bucket: Option<&str>,
        bytes: u64,
    ) {
        if bytes == 0 || !limits.any() {
            return;
        }
        let checks = applicable(limits, user, bucket);
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        state.prune(now);
        for &(scope, name, limit) in checks.iter().flatten() {
            let rate = limit.max_read_bytes as f64;
            if rate > 0.0 {
                let slot = state.slot(scope, name);
                state.get(slot).tokens(Kind::ReadBytes, rate, now).level -= bytes as f64;
            }
        }
    }

    /// Requests refused so far, by scope and kind.
    pub fn refused(&self) -> Vec<(Scope, Kind, u64)> {
        let mut out = Vec::with_capacity(12);
        for scope in [Scope::User, Scope::Bucket, Scope::Anonymous] {
            for kind in [
                Kind::ReadOps,
                Kind::WriteOps,
                Kind::ReadBytes,
                Kind::WriteBytes,
            ] {
                let n = self.refused[scope as usize][kind as usize].load(Ordering::Relaxed);
                out.push((scope, kind, n));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reads(n: u64) -> Limit {
        Limit {
            enabled: true,
            max_read_ops: n,
            ..Limit::default()
        }
    }

    #[test]
    fn a_late_clock_reading_adds_nothing() {
        let start = Instant::now();
        let mut t = Tokens::full(10.0, start);
        t.level = 0.0;
        let later = start + Duration::from_millis(500);
        t.refill(10.0, later);
        assert!((t.level - 5.0).abs() < 1e-9);
        // a thread that read the clock before this refill comes second
        t.refill(10.0, start + Duration::from_millis(200));
        t.refill(10.0, later);
        assert!(
            (t.level - 5.0).abs() < 1e-9,
            "the interval counted twice: {}",
            t.level
        );
    }

    #[test]
    fn idle_entities_are_forgotten_and_the_rest_renumbered() {
        let now = Instant::now();
        let mut state = State::default();
        for i in 0..MAX_TRACKED {
            let slot = state.slot(Scope::Bucket, &format!("b{i}"));
            state.get(slot).tokens(Kind::ReadOps, 10.0, now);
        }
        // one busy bucket among idle ones
        let busy = state.slot(Scope::Bucket, "b77");
        state.get(busy).tokens(Kind::ReadOps, 10.0, now).level = 0.0;
        state.prune(now);
        assert_eq!((state.entities.len(), state.buckets.len()), (1, 1));
        let again = state.slot(Scope::Bucket, "b77");
        assert_eq!(
            state.get(again).0[Kind::ReadOps as usize].map(|t| t.level),
            Some(0.0)
        );
    }

    #[test]
    fn no_limits_no_work() {
        let l = Limiter::default();
        for _ in 0..10_000 {
            assert!(
                l.admit(&RateLimits::default(), None, Some("b"), false, 0)
                    .is_ok()
            );
        }
        let state = l.state.lock().expect("lock");
        assert!(state.users.is_empty() && state.buckets.is_empty() && state.entities.is_empty());
    }

    #[test]
    fn a_second_of_burst_then_the_rate() {
        let limits = RateLimits {
            anonymous: reads(10),
            ..RateLimits::default()
        };
        let l = Limiter::default();
        let passed = (0..25)
            .filter(|_| l.admit(&limits, None, Some("b"), false, 0).is_ok())
            .count();
        assert_eq!(passed, 10, "the burst is one second's worth");
        let refused = l
            .admit(&limits, None, Some("b"), false, 0)
            .expect_err("empty");
        assert_eq!(
            (refused.scope, refused.kind),
            (Scope::Anonymous, Kind::ReadOps)
        );
        assert!(
            refused.retry_after <= Duration::from_millis(100),
            "{refused:?}"
        );
        // signed requests and writes are not anonymous reads
        assert!(l.admit(&limits, Some("alice"), Some("b"), false, 0).is_ok());
        assert!(l.admit(&limits, None, Some("b"), true, 0).is_ok());
        std::thread::sleep(Duration::from_millis(220));
        assert!(
            l.admit(&limits, None, Some("b"), false, 0).is_ok(),
            "refilled"
        );
        assert_eq!(l.refused()[8], (Scope::Anonymous, Kind::ReadOps, 16));
    }

    #[test]
    fn users_own_limits_override_the_default_and_buckets_add_theirs() {
        let mut limits = RateLimits {
            global_user: reads(1000),
            ..RateLimits::default()
        };
        limits.users.insert("slow".into(), reads(2));
        limits.buckets.insert("hot".into(), reads(3));
        let l = Limiter::default();
        assert_eq!(
            (0..5)
                .filter(|_| l.admit(&limits, Some("slow"), None, false, 0).is_ok())
                .count(),
            2
        );
        let n = (0..5)
            .filter(|_| {
                l.admit(&limits, Some("fast"), Some("hot"), false, 0)
                    .is_ok()
            })
            .count();
        assert_eq!(n, 3, "the bucket's limit holds for any user");
        let r = l
            .admit(&limits, Some("fast"), Some("hot"), false, 0)
            .expect_err("bucket");
        assert_eq!(r.scope, Scope::Bucket);
        // a refused request took nothing from the user's own bucket
        assert!(
            l.admit(&limits, Some("fast"), Some("cold"), false, 0)
                .is_ok()
        );
        // disabled: not enforced
        limits.users.get_mut("slow").expect("slow").enabled = false;
        assert!(l.admit(&limits, Some("slow"), None, false, 0).is_ok());
    }

    #[test]
    fn bytes_may_overdraw_then_hold_back() {
        let limits = RateLimits {
            global_bucket: Limit {
                enabled: true,
                max_write_bytes: 1000,
                max_read_bytes: 1000,
                ..Limit::default()
            },
            ..RateLimits::default()
        };
        let l = Limiter::default();
        assert!(
            l.admit(&limits, Some("u"), Some("b"), true, 5000).is_ok(),
            "one large write passes"
        );
        let r = l
            .admit(&limits, Some("u"), Some("b"), true, 10)
            .expect_err("in debt");
        assert_eq!(r.kind, Kind::WriteBytes);
        assert!(
            r.retry_after >= Duration::from_secs(3),
            "4000 bytes of debt at 1000/s: {r:?}"
        );
        assert!(
            l.admit(&limits, Some("u"), Some("b"), false, 0).is_ok(),
            "reads are apart"
        );
        l.charge_read(&limits, Some("u"), Some("b"), 3000);
        assert_eq!(
            l.admit(&limits, Some("u"), Some("b"), false, 0)
                .expect_err("read debt")
                .kind,
            Kind::ReadBytes
        );
    }
}
