//! `/admin/usage`: the usage log read (radosgw's `entries` and `summary`)
//! and trimmed.

use std::collections::BTreeMap;

use rsgw_gateway::{Gateway, GatewayError, GatewayResult, UsageCounters, UsageRange, UsageRecord};
use serde_json::{Value, json};

use super::query::Query;
use super::{Answer, S3Op, json};

/// A time as radosgw's `start` and `end` take it: seconds since the
/// epoch, or `YYYY-MM-DD` with an optional ` HH:MM:SS` (UTC).
fn parse_time(s: &str) -> Option<u64> {
    if s.bytes().all(|b| b.is_ascii_digit()) {
        return s.parse().ok();
    }
    let (date, time) = s.split_once([' ', 'T']).unwrap_or((s, "00:00:00"));
    let d: Vec<i64> = date
        .split('-')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let t: Vec<i64> = time
        .trim_end_matches('Z')
        .split(':')
        .map(|p| p.parse().ok())
        .collect::<Option<_>>()?;
    let ([y, m, day], [hh, mm, ss]) = (d.as_slice(), t.as_slice()) else {
        return None;
    };
    if !(1..=12).contains(m) || !(1..=31).contains(day) || *hh > 23 || *mm > 59 || *ss > 60 {
        return None;
    }
    let days = rsgw_time::days_from_civil(*y, *m, *day);
    u64::try_from(days * 86_400 + hh * 3600 + mm * 60 + ss).ok()
}

/// The part of the log a request names: `uid`, `start`, `end`.
fn range(q: &Query) -> GatewayResult<UsageRange> {
    let time = |name: &str| {
        q.get(name)
            .map(|v| {
                parse_time(v).ok_or_else(|| {
                    GatewayError::InvalidArgument(format!(
                        "{name} is seconds since the epoch or YYYY-MM-DD[ HH:MM:SS], not {v:?}"
                    ))
                })
            })
            .transpose()
    };
    Ok(UsageRange {
        user: q.get("uid").map(str::to_string),
        start: time("start")?,
        end: time("end")?,
    })
}

/// One user's counts: (hour, bucket) → category → counts.
type UserSlots<'a> = BTreeMap<(u64, &'a str), BTreeMap<&'a str, UsageCounters>>;

fn counters(c: &UsageCounters) -> Value {
    json!({
        "bytes_sent": c.bytes_sent,
        "bytes_received": c.bytes_received,
        "ops": c.ops,
        "successful_ops": c.successful_ops,
    })
}

fn categories(by_category: &BTreeMap<&str, UsageCounters>) -> Value {
    Value::Array(
        by_category
            .iter()
            .map(|(name, c)| {
                let mut v = counters(c);
                if let Some(m) = v.as_object_mut() {
                    m.insert("category".into(), json!(name));
                }
                v
            })
            .collect(),
    )
}

/// radosgw's document: `entries` (per user, per bucket and hour, the
/// categories) and `summary` (per user, the categories and their total),
/// each when asked for.
pub(super) fn document(records: &[UsageRecord], entries: bool, summary: bool) -> Value {
    // user -> (hour, bucket) -> category -> counts, in order
    let mut users: BTreeMap<&str, UserSlots<'_>> = BTreeMap::new();
    for r in records {
        *users
            .entry(&r.user)
            .or_default()
            .entry((r.slot.hour, &r.slot.bucket))
            .or_default()
            .entry(&r.slot.category)
            .or_default() += r.counters;
    }
    let mut doc = serde_json::Map::new();
    if entries {
        let list: Vec<Value> = users
            .iter()
            .map(|(user, slots)| {
                let buckets: Vec<Value> = slots
                    .iter()
                    .map(|((hour, bucket), cats)| {
                        json!({
                            "bucket": bucket,
                            "time": json::time(*hour as f64),
                            "epoch": hour,
                            "owner": user,
                            "categories": categories(cats),
                        })
                    })
                    .collect();
                json!({"user": user, "buckets": buckets})
            })
            .collect();
        doc.insert("entries".into(), Value::Array(list));
    }
    if summary {
        let list: Vec<Value> = users
            .iter()
            .map(|(user, slots)| {
                let mut by_category: BTreeMap<&str, UsageCounters> = BTreeMap::new();
                let mut total = UsageCounters::default();
                for (name, c) in slots.values().flatten() {
                    *by_category.entry(name).or_default() += *c;
                    total += *c;
                }
                json!({"user": user, "categories": categories(&by_category), "total": counters(&total)})
            })
            .collect();
        doc.insert("summary".into(), Value::Array(list));
    }
    Value::Object(doc)
}

/// Runs `GET` or `DELETE /admin/usage`.
pub(super) async fn run(gw: &Gateway, op: S3Op, q: &Query) -> Answer {
    let range = range(q)?;
    if op == S3Op::AdminTrimUsage {
        // as radosgw: every user's log only when asked for in so many words
        if range.user.is_none() && !q.flag("remove-all")?.unwrap_or(false) {
            return Err(GatewayError::InvalidArgument(
                "a trim of every user's usage needs remove-all=true".into(),
            ));
        }
        gw.trim_usage(&range).await?;
        return Ok(None);
    }
    let records = gw.usage_records(&range).await?;
    Ok(Some(document(
        &records,
        q.flag("show-entries")?.unwrap_or(true),
        q.flag("show-summary")?.unwrap_or(true),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsgw_gateway::UsageSlot;

    #[test]
    fn times_read_as_radosgw_reads_them() {
        assert_eq!(parse_time("1796000000"), Some(1_796_000_000));
        assert_eq!(parse_time("1970-01-02"), Some(86_400));
        assert_eq!(parse_time("1970-01-02 01:00:01"), Some(90_001));
        assert_eq!(parse_time("1970-01-02T01:00:01Z"), Some(90_001));
        for bad in [
            "",
            "yesterday",
            "1970-13-01",
            "1970-01-02 25:00:00",
            "1970-01",
        ] {
            assert_eq!(parse_time(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_document_groups_by_user_bucket_and_hour() {
        let rec = |user: &str, hour, bucket: &str, category: &str, ops| UsageRecord {
            user: user.into(),
            slot: UsageSlot {
                hour,
                bucket: bucket.into(),
                category: category.into(),
            },
            counters: UsageCounters {
                bytes_sent: 0,
                bytes_received: 10 * ops,
                ops,
                successful_ops: ops,
            },
        };
        let records = [
            rec("ann", 3600, "pics", "get_obj", 1),
            rec("ann", 3600, "pics", "put_obj", 2),
            rec("ann", 7200, "pics", "put_obj", 3),
            rec("bob", 3600, "", "list_buckets", 1),
        ];
        let d = document(&records, true, true);
        let ann = &d["entries"][0];
        assert_eq!(ann["user"], "ann");
        assert_eq!(ann["buckets"].as_array().map(Vec::len), Some(2));
        assert_eq!(ann["buckets"][0]["epoch"], 3600);
        assert_eq!(ann["buckets"][0]["categories"][1]["category"], "put_obj");
        assert_eq!(ann["buckets"][0]["categories"][1]["ops"], 2);
        let sum = &d["summary"][0];
        assert_eq!(sum["categories"][1]["ops"], 5);
        assert_eq!(sum["total"]["ops"], 6);
        assert_eq!(sum["total"]["bytes_received"], 60);
        assert_eq!(d["summary"][1]["user"], "bob");
        let only = document(&records, false, true);
        assert!(only.get("entries").is_none() && only.get("summary").is_some());
    }
}
