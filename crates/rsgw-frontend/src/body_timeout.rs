//! The request body as handlers read it: hyper's body with an idle timer,
//! Beast's per-read `request_timeout_ms` applied to the body. A client that
//! sends no body bytes for that long (a slow-body, "slow POST" attack, or a
//! client that stalled) gets an error instead of holding its connection,
//! its admission slot and a pool thread for ever; the store write it fed is
//! abandoned (no partial object) and the client gets S3's `RequestTimeout`.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU8, AtomicU64, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use tokio::time::Sleep;

use crate::handler::BoxError;

/// What a stalled body fails with: an `std::io::Error` of kind `TimedOut`,
/// so that layers above can tell it from other body errors without knowing
/// this crate.
fn timed_out(after: Duration) -> BoxError {
    Box::new(std::io::Error::new(
        std::io::ErrorKind::TimedOut,
        format!(
            "the client sent no request body bytes for {} ms (request_timeout_ms)",
            after.as_millis()
        ),
    ))
}

/// How a request body failed, for the frontend's answer when a handler gave
/// up on it with a server error (s3s reading an XML body, say): the fault
/// is the client's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BodyFailure {
    /// No bytes came for the idle timeout: `400 RequestTimeout`.
    TimedOut,
    /// The client closed or broke the body before its end: `400 IncompleteBody`.
    Broken,
}

/// Where a [`RequestBody`] records how it was read; readable after the
/// handler has consumed (and dropped) the body.
#[derive(Debug, Clone, Default)]
pub struct BodyState(Arc<(AtomicU8, AtomicU64)>);

/// [`BodyState`]'s values.
const UNREAD: u8 = 0;
const TIMED_OUT: u8 = 1;
const BROKEN: u8 = 2;
const ENDED: u8 = 3;

impl BodyState {
    /// Records the body's fate; the first one is the one that counts.
    fn set(&self, v: u8) {
        let _ = self
            .0
            .0
            .compare_exchange(UNREAD, v, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// The body's failure, if it failed.
    pub fn failure(&self) -> Option<BodyFailure> {
        match self.0.0.load(Ordering::Relaxed) {
            TIMED_OUT => Some(BodyFailure::TimedOut),
            BROKEN => Some(BodyFailure::Broken),
            _ => None,
        }
    }

    /// Whether the body was read to its end.
    pub fn ended(&self) -> bool {
        self.0.0.load(Ordering::Relaxed) == ENDED
    }

    /// Body bytes read so far.
    pub fn bytes(&self) -> u64 {
        self.0.1.load(Ordering::Relaxed)
    }
}

/// A request body whose every wait for the next bytes is bounded.
pub struct RequestBody<B = Incoming> {
    inner: B,
    idle: Option<Duration>,
    timer: Option<Pin<Box<Sleep>>>,
    state: BodyState,
}

impl<B> RequestBody<B> {
    /// Wraps `inner`; `idle` of `None` waits for ever.
    pub fn new(inner: B, idle: Option<Duration>) -> Self {
        RequestBody {
            inner,
            idle,
            timer: None,
            state: BodyState::default(),
        }
    }

    /// Where the body records how it failed.
    pub fn state(&self) -> BodyState {
        self.state.clone()
    }
}

impl<B> Body for RequestBody<B>
where
    B: Body<Data = Bytes> + Unpin,
    B::Error: Into<BoxError>,
{
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        let this = &mut *self;
        match Pin::new(&mut this.inner).poll_frame(cx) {
            Poll::Ready(frame) => {
                // the clock restarts with every read that brought something
                this.timer = None;
                if let Some(Ok(f)) = &frame
                    && let Some(data) = f.data_ref()
                {
                    this.state
                        .0
                        .1
                        .fetch_add(data.len() as u64, Ordering::Relaxed);
                }
                match frame {
                    Some(Err(_)) => this.state.set(BROKEN),
                    None => this.state.set(ENDED),
                    // the last bytes of a body of known length: a reader
                    // that stops at the length never asks for the end
                    Some(Ok(_)) if this.inner.is_end_stream() => this.state.set(ENDED),
                    Some(Ok(_)) => {}
                }
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => {
                let Some(idle) = this.idle else {
                    return Poll::Pending;
                };
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(idle)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => {
                        this.state.set(TIMED_OUT);
                        Poll::Ready(Some(Err(timed_out(idle))))
                    }
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.inner.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::{BodyExt, StreamBody};

    type Chunks = StreamBody<
        futures::stream::BoxStream<'static, Result<Frame<Bytes>, std::convert::Infallible>>,
    >;

    /// A body yielding `parts`, each after its delay.
    fn trickle(parts: Vec<(u64, &'static str)>) -> Chunks {
        use futures::StreamExt;
        StreamBody::new(
            futures::stream::iter(parts)
                .then(|(ms, s)| async move {
                    tokio::time::sleep(Duration::from_millis(ms)).await;
                    Ok(Frame::data(Bytes::from_static(s.as_bytes())))
                })
                .boxed(),
        )
    }

    #[tokio::test(start_paused = true)]
    async fn a_steady_body_is_read_whole() {
        let body = RequestBody::new(
            trickle(vec![(900, "a"), (900, "b"), (900, "c")]),
            Some(Duration::from_secs(1)),
        );
        let all = body.collect().await.expect("body").to_bytes();
        assert_eq!(&all[..], b"abc");
    }

    #[tokio::test(start_paused = true)]
    async fn a_stalled_body_times_out() {
        let body = RequestBody::new(
            trickle(vec![(100, "a"), (1500, "b")]),
            Some(Duration::from_secs(1)),
        );
        let state = body.state();
        let err = body.collect().await.expect_err("timed out");
        assert_eq!(state.failure(), Some(BodyFailure::TimedOut));
        let io = err.downcast_ref::<std::io::Error>().expect("an io::Error");
        assert_eq!(io.kind(), std::io::ErrorKind::TimedOut);
        assert!(err.to_string().contains("1000 ms"), "{err}");
    }

    #[tokio::test(start_paused = true)]
    async fn no_timeout_waits() {
        let body = RequestBody::new(trickle(vec![(3_600_000, "late")]), None);
        let all = body.collect().await.expect("body").to_bytes();
        assert_eq!(&all[..], b"late");
    }
}
