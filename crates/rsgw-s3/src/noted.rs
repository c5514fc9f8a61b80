//! What is noted of a request on its way, for its response, metrics and
//! the ops log: its operation (s3s keeps its own name for it to itself),
//! what it named and who signed it, and the rate limits' decision.

use std::sync::{Arc, OnceLock};

use rsgw_frontend::LogFields;

use crate::operation::S3Op;
use crate::ratelimit::Admitted;

/// Where a request's notes are kept: the dispatcher puts one into the
/// request's extensions, and the access check (or the stage that answers
/// before s3s) notes the operation once known, so a request s3s could not
/// route leaves it empty. Each note is kept once: the first counts.
#[derive(Clone, Default)]
pub(crate) struct OpSlot(Arc<(OnceLock<S3Op>, OnceLock<Named>, OnceLock<Admitted>)>);

/// What a routed request named, and who signed it.
#[derive(Debug, Default)]
pub(crate) struct Named {
    /// The bucket, if any.
    pub bucket: Option<String>,
    /// The object key, if any.
    pub object: Option<String>,
    /// The user of the signing key; `None`: anonymous.
    pub user: Option<String>,
    /// The signing key.
    pub access_key: Option<String>,
}

impl OpSlot {
    /// Notes the request's operation.
    pub(crate) fn set(&self, op: S3Op) {
        let _ = self.0.0.set(op);
    }

    /// Notes what the request named.
    pub(crate) fn name(&self, named: Named) {
        let _ = self.0.1.set(named);
    }

    /// Notes the rate limits' decision.
    pub(crate) fn admitted(&self, a: Admitted) {
        let _ = self.0.2.set(a);
    }

    /// The routed operation, `None` if s3s found none.
    pub(crate) fn routed(&self) -> Option<S3Op> {
        self.0.0.get().copied()
    }

    /// What the request named, once noted.
    pub(crate) fn named(&self) -> Option<&Named> {
        self.0.1.get()
    }

    /// The rate limits' decision, once made.
    pub(crate) fn admission(&self) -> Option<&Admitted> {
        self.0.2.get()
    }

    /// The ops log's fields of the request with id `id`.
    pub(crate) fn log_fields(&self, id: &str) -> LogFields {
        let named = self.named();
        LogFields {
            request_id: id.to_string(),
            bucket: named.and_then(|n| n.bucket.clone()),
            object: named.and_then(|n| n.object.clone()),
            user: named.and_then(|n| n.user.clone()),
            access_key: named.and_then(|n| n.access_key.clone()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_operation_noted_is_the_one_kept() {
        let slot = OpSlot::default();
        assert_eq!(slot.routed(), None);
        let seen_by_s3s = slot.clone();
        seen_by_s3s.set(S3Op::GetObject);
        seen_by_s3s.set(S3Op::PutObject);
        assert_eq!(slot.routed(), Some(S3Op::GetObject));
    }
}
