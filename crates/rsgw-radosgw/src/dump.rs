//! How radosgw-admin prints what the records hold (its `encode_json` and
//! the records' `dump` functions), so that rsgw's JSON for a record can be
//! compared with radosgw-admin's byte for byte after parsing.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{Value, json};

/// `encode_json` of a `bool`: radosgw's JSON formatter quotes it, so
/// radosgw-admin prints `"true"` or `"false"`. (Fields a record dumps with
/// `dump_bool` print a JSON boolean instead: the quota's.)
pub fn bool_str(b: bool) -> Value {
    json!(if b { "true" } else { "false" })
}

/// `encode_json` of a `utime_t` (times stored as `real_time` are printed
/// through one): UTC with microseconds, `2026-12-07T05:34:24.677828Z`;
/// a time within ten years of the epoch is taken for a duration and
/// printed as seconds, `0.000000` (`utime_t::gmtime`: a versioned key's
/// placeholder entry has no time).
pub fn utime(t: SystemTime) -> Value {
    const RELATIVE_BELOW: u64 = 60 * 60 * 24 * 365 * 10;
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    if since.as_secs() < RELATIVE_BELOW {
        return json!(format!("{}.{:06}", since.as_secs(), since.subsec_micros()));
    }
    let c = rsgw_time::Civil::from_unix(i64::try_from(since.as_secs()).unwrap_or(i64::MAX));
    json!(format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:06}Z",
        c.year,
        c.month,
        c.day,
        c.hour,
        c.minute,
        c.second,
        since.subsec_micros()
    ))
}

/// `rgw_rounded_kb`: bytes in KiB, rounded up, as C++'s signed division
/// does it (toward zero: -1 prints 0).
pub fn rounded_kb(bytes: i64) -> i64 {
    bytes.saturating_add(1023) / 1024
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn times_print_with_microseconds_in_utc() {
        let t = UNIX_EPOCH + Duration::new(1_796_621_664, 677_828_999);
        assert_eq!(utime(t), json!("2026-12-07T05:34:24.677828Z"));
        assert_eq!(utime(UNIX_EPOCH), json!("0.000000"));
        let soon = UNIX_EPOCH + Duration::new(315_359_999, 5_000);
        assert_eq!(utime(soon), json!("315359999.000005"));
        let ten_years = UNIX_EPOCH + Duration::from_secs(315_360_000);
        assert_eq!(utime(ten_years), json!("1979-12-30T00:00:00.000000Z"));
    }

    #[test]
    fn sizes_round_up_to_kib_and_no_limit_is_zero() {
        assert_eq!(rounded_kb(0), 0);
        assert_eq!(rounded_kb(1), 1);
        assert_eq!(rounded_kb(1024), 1);
        assert_eq!(rounded_kb(1025), 2);
        assert_eq!(rounded_kb(-1), 0);
    }
}
