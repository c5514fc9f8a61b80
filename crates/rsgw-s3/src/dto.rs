//! s3s's types as the gateway's, and back: timestamps, ETags, and what a
//! GET asks (its range and conditions).

use std::time::SystemTime;

use rsgw_gateway::{GetParams, RangeSpec};
use s3s::dto::{ETag, ETagCondition, Range, Timestamp};

/// A time in seconds since the epoch (as the gateway keeps it) as S3's.
pub(crate) fn ts(secs: f64) -> Timestamp {
    Timestamp::from(SystemTime::UNIX_EPOCH + std::time::Duration::from_secs_f64(secs.max(0.0)))
}

/// An S3 time as the gateway's.
pub(crate) fn to_system_time(t: Timestamp) -> SystemTime {
    time::OffsetDateTime::from(t).into()
}

/// An ETag (its hex digits, as the gateway keeps it) as S3's.
pub(crate) fn etag(hex: &str) -> ETag {
    ETag::Strong(hex.to_string())
}

/// What GetObject and HeadObject ask for: the range and the conditions
/// (If-Match, If-None-Match; If-Modified-Since, If-Unmodified-Since).
pub(crate) fn get_params(
    range: Option<Range>,
    [if_match, if_none_match]: [Option<ETagCondition>; 2],
    [modified_since, unmodified_since]: [Option<Timestamp>; 2],
    head_only: bool,
) -> GetParams {
    GetParams {
        range: range.map(|r| match r {
            Range::Int { first, last } => RangeSpec::Int { first, last },
            Range::Suffix { length } => RangeSpec::Suffix { length },
        }),
        if_match: etag_list(if_match),
        if_none_match: etag_list(if_none_match),
        if_modified_since: modified_since.map(to_system_time),
        if_unmodified_since: unmodified_since.map(to_system_time),
        head_only,
        sse_key: None,
        version_id: None,
    }
}

/// An If-Match or If-None-Match condition as the gateway's list of ETags
/// (`*` for any).
pub(crate) fn etag_list(c: Option<ETagCondition>) -> Option<Vec<String>> {
    c.map(|c| match c {
        ETagCondition::Any => vec!["*".to_string()],
        ETagCondition::ETag(ETag::Strong(s) | ETag::Weak(s)) => vec![s],
    })
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn etag_conditions_become_lists() {
        let table = [
            (None, None),
            (Some(ETagCondition::Any), Some(vec!["*"])),
            (
                Some(ETagCondition::ETag(ETag::Strong("abc".into()))),
                Some(vec!["abc"]),
            ),
            // a weak ETag compares by its value, as S3's If-Match does
            (
                Some(ETagCondition::ETag(ETag::Weak("abc".into()))),
                Some(vec!["abc"]),
            ),
        ];
        for (cond, want) in table {
            let why = format!("{cond:?}");
            let want = want.map(|v| v.into_iter().map(String::from).collect::<Vec<_>>());
            assert_eq!(etag_list(cond), want, "{why}");
        }
    }

    #[test]
    fn get_params_carry_range_and_conditions() {
        let t = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let p = get_params(
            Some(Range::Int {
                first: 10,
                last: Some(19),
            }),
            [
                Some(ETagCondition::ETag(ETag::Strong("a".into()))),
                Some(ETagCondition::Any),
            ],
            [Some(Timestamp::from(t)), None],
            true,
        );
        assert_eq!(
            p.range,
            Some(RangeSpec::Int {
                first: 10,
                last: Some(19)
            })
        );
        assert_eq!(p.if_match, Some(vec!["a".to_string()]));
        assert_eq!(p.if_none_match, Some(vec!["*".to_string()]));
        assert_eq!(p.if_modified_since, Some(t));
        assert_eq!(p.if_unmodified_since, None);
        assert!(p.head_only);
        let p = get_params(
            Some(Range::Suffix { length: 5 }),
            [None, None],
            [None, Some(Timestamp::from(t))],
            false,
        );
        assert_eq!(p.range, Some(RangeSpec::Suffix { length: 5 }));
        assert_eq!((p.if_match, p.if_none_match), (None, None));
        assert_eq!(p.if_unmodified_since, Some(t));
        assert!(!p.head_only);
        let p = get_params(
            Some(Range::Int {
                first: 7,
                last: None,
            }),
            [None, None],
            [None, None],
            false,
        );
        assert_eq!(
            p.range,
            Some(RangeSpec::Int {
                first: 7,
                last: None
            })
        );
    }

    #[test]
    fn timestamps_come_from_seconds_and_never_precede_the_epoch() {
        let table = [
            (0.0, Duration::ZERO),
            (1.5, Duration::from_millis(1500)),
            (1_700_000_000.0, Duration::from_secs(1_700_000_000)),
            (-5.0, Duration::ZERO),
        ];
        for (secs, want) in table {
            assert_eq!(
                to_system_time(ts(secs)),
                SystemTime::UNIX_EPOCH + want,
                "{secs}"
            );
        }
    }
}
