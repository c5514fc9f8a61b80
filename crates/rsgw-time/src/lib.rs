//! rsgw's calendar, for every crate that turns times into dates or back,
//! without dependencies.
//!
//! A time is a number of seconds since the Unix epoch, 1970-01-01T00:00:00Z
//! (UTC, no leap seconds); a date is one of the proleptic Gregorian calendar.
//! - arithmetic: [`days_from_civil`] and [`civil_from_days`] (Howard
//!   Hinnant's algorithms, <https://howardhinnant.github.io/date_algorithms.html>),
//!   and [`Civil`], a time split into its fields;
//! - formats: [`iso_date`] (`2026-12-01`), [`write_rfc3339_millis`]
//!   (`2026-12-01T10:30:15.500Z`, the ops log's times), [`amz_date`]
//!   (`20261201T103015Z`, SigV4's basic format) with the shape checks
//!   [`is_amz_date`] and [`is_amz_day`];
//! - parsing: [`parse_iso8601`] (the dates of bucket policy conditions).
//!
//! HTTP dates (`Tue, 01 Dec 2026 10:30:15 GMT`) come from the `httpdate`
//! crate where rsgw needs them.

#![forbid(unsafe_code)]

use std::time::{SystemTime, UNIX_EPOCH};

/// Seconds in a day.
pub const SECS_PER_DAY: i64 = 86_400;

/// Days in a 400-year era of the Gregorian calendar.
const DAYS_PER_ERA: i64 = 146_097;

/// Days from 0000-03-01 to 1970-01-01: the algorithms count from a March
/// 1st, so that the leap day ends a year.
const EPOCH_FROM_MARCH_0000: i64 = 719_468;

/// Days from 1970-01-01 to `year`-`month`-`day` (negative before it).
/// `month` is 1 to 12; a `day` past the month's end runs on into the next.
pub fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * DAYS_PER_ERA + doe - EPOCH_FROM_MARCH_0000
}

/// The date `days` days after 1970-01-01 (before it when negative), as
/// (year, month 1 to 12, day 1 to 31).
pub fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + EPOCH_FROM_MARCH_0000;
    let era = z.div_euclid(DAYS_PER_ERA);
    let doe = z.rem_euclid(DAYS_PER_ERA);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

/// A time in UTC, split into the fields of its date and time of day.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Civil {
    /// The year (`2026`; 0 is 1 BC, negative before).
    pub year: i64,
    /// 1 to 12.
    pub month: i64,
    /// 1 to 31.
    pub day: i64,
    /// 0 to 23.
    pub hour: i64,
    /// 0 to 59.
    pub minute: i64,
    /// 0 to 59.
    pub second: i64,
}

impl Civil {
    /// The time `secs` seconds after the epoch (before it when negative).
    pub fn from_unix(secs: i64) -> Civil {
        let (days, rem) = (secs.div_euclid(SECS_PER_DAY), secs.rem_euclid(SECS_PER_DAY));
        let (year, month, day) = civil_from_days(days);
        Civil {
            year,
            month,
            day,
            hour: rem / 3600,
            minute: rem / 60 % 60,
            second: rem % 60,
        }
    }

    /// Seconds since the epoch. Fields past their range run on (a 25th
    /// hour is the next day's first).
    pub fn to_unix(&self) -> i64 {
        days_from_civil(self.year, self.month, self.day) * SECS_PER_DAY
            + self.hour * 3600
            + self.minute * 60
            + self.second
    }
}

/// Whole seconds from the epoch to `t`: 0 for a time before the epoch,
/// `i64::MAX` for one too far after it.
pub fn unix_secs(t: SystemTime) -> i64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// The date of time `secs` as `YYYY-MM-DD`.
pub fn iso_date(secs: i64) -> String {
    let c = Civil::from_unix(secs);
    format!("{:04}-{:02}-{:02}", c.year, c.month, c.day)
}

/// `t` in SigV4's basic format, `YYYYMMDDTHHMMSSZ` (`x-amz-date`); a time
/// before the epoch is the epoch.
pub fn amz_date(t: SystemTime) -> String {
    let c = Civil::from_unix(unix_secs(t));
    format!(
        "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
        c.year, c.month, c.day, c.hour, c.minute, c.second
    )
}

/// Whether `s` has the shape of a SigV4 credential scope's day, `YYYYMMDD`:
/// eight digits (the values are not checked).
pub fn is_amz_day(s: &[u8]) -> bool {
    s.len() == 8 && s.iter().all(u8::is_ascii_digit)
}

/// Whether `s` has the shape of [`amz_date`]'s `YYYYMMDDTHHMMSSZ`: digits
/// where digits belong, a `T` and a `Z` (the values are not checked).
pub fn is_amz_date(s: &[u8]) -> bool {
    s.len() == 16
        && is_amz_day(&s[..8])
        && s[8] == b'T'
        && s[9..15].iter().all(u8::is_ascii_digit)
        && s[15] == b'Z'
}

/// Appends `t` as RFC 3339 in UTC with milliseconds,
/// `2026-12-01T10:30:15.500Z`, formatting nothing on the way (the ops log
/// writes one per request); a time before the epoch is the epoch.
pub fn write_rfc3339_millis(t: SystemTime, out: &mut Vec<u8>) {
    let since = t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let c = Civil::from_unix(i64::try_from(since.as_secs()).unwrap_or(i64::MAX));
    let digits = |out: &mut Vec<u8>, n: i64, width: u32| {
        let n = n.unsigned_abs();
        for place in (0..width).rev() {
            out.push(b'0' + (n / 10u64.pow(place) % 10) as u8);
        }
    };
    digits(out, c.year, 4);
    out.push(b'-');
    digits(out, c.month, 2);
    out.push(b'-');
    digits(out, c.day, 2);
    out.push(b'T');
    digits(out, c.hour, 2);
    out.push(b':');
    digits(out, c.minute, 2);
    out.push(b':');
    digits(out, c.second, 2);
    out.push(b'.');
    digits(out, i64::from(since.subsec_millis()), 3);
    out.push(b'Z');
}

/// An ISO 8601 date or time in UTC as seconds since the epoch: `YYYY-MM-DD`
/// (midnight), `YYYY-MM-DDTHH:MMZ` or `YYYY-MM-DDTHH:MM:SSZ`, the seconds
/// with a fraction if any (`10:30:15.5Z`). A time must end in `Z`; no
/// blanks around. `None` for anything else.
pub fn parse_iso8601(s: &str) -> Option<f64> {
    let num = |t: &str| -> Option<i64> {
        (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())).then(|| t.parse().ok())?
    };
    let (date, time) = match s.split_once('T') {
        Some((d, t)) => (d, Some(t.strip_suffix('Z')?)),
        None => (s, None),
    };
    let mut d = date.split('-');
    let (y, m, day) = (num(d.next()?)?, num(d.next()?)?, num(d.next()?)?);
    if d.next().is_some() || !(1..=12).contains(&m) || !(1..=31).contains(&day) {
        return None;
    }
    let mut secs = 0.0;
    if let Some(t) = time {
        let mut p = t.split(':');
        let (h, mi) = (num(p.next()?)?, num(p.next()?)?);
        let sec: f64 = p.next().map_or(Some(0.0), |x| x.parse().ok())?;
        if p.next().is_some() || h > 23 || mi > 59 || !(0.0..61.0).contains(&sec) {
            return None;
        }
        secs = (h * 3600 + mi * 60) as f64 + sec;
    }
    Some((days_from_civil(y, m, day) * SECS_PER_DAY) as f64 + secs)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn is_leap(year: i64) -> bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    fn month_days(year: i64, month: i64) -> i64 {
        match month {
            2 if is_leap(year) => 29,
            2 => 28,
            4 | 6 | 9 | 11 => 30,
            _ => 31,
        }
    }

    #[test]
    fn days_follow_the_calendar_day_by_day() {
        // two whole eras, day by day, against a calendar counted by hand
        let (mut y, mut m, mut d) = (1600, 1, 1);
        let first = days_from_civil(y, m, d);
        for n in first..first + 2 * DAYS_PER_ERA {
            assert_eq!(days_from_civil(y, m, d), n, "{y}-{m}-{d}");
            assert_eq!(civil_from_days(n), (y, m, d), "day {n}");
            d += 1;
            if d > month_days(y, m) {
                (m, d) = (m + 1, 1);
            }
            if m > 12 {
                (y, m) = (y + 1, 1);
            }
        }
        assert_eq!((y, m, d), (2400, 1, 1));
    }

    #[test]
    fn days_count_from_1970() {
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(1969, 12, 31), -1);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
        assert_eq!(days_from_civil(2000, 2, 29), 11_016);
        assert_eq!(
            days_from_civil(1900, 3, 1) - days_from_civil(1900, 2, 28),
            1
        );
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(-719_528), (0, 1, 1));
        for n in (-3_000_000..3_000_000).step_by(997) {
            let (y, m, d) = civil_from_days(n);
            assert_eq!(days_from_civil(y, m, d), n);
        }
        // a day past the month's end runs on
        assert_eq!(days_from_civil(2026, 2, 31), days_from_civil(2026, 3, 3));
    }

    #[test]
    fn times_split_into_fields_and_back() {
        let c = Civil::from_unix(951_827_696);
        assert_eq!(
            c,
            Civil {
                year: 2000,
                month: 2,
                day: 29,
                hour: 12,
                minute: 34,
                second: 56
            }
        );
        assert_eq!(c.to_unix(), 951_827_696);
        let before = Civil::from_unix(-1);
        assert_eq!((before.year, before.month, before.day), (1969, 12, 31));
        assert_eq!((before.hour, before.minute, before.second), (23, 59, 59));
        assert_eq!(before.to_unix(), -1);
        for secs in (-10_000_000_000..10_000_000_000).step_by(9_999_991) {
            assert_eq!(Civil::from_unix(secs).to_unix(), secs);
        }
        let t = UNIX_EPOCH + Duration::from_secs(1_369_353_600);
        assert_eq!(unix_secs(t), 1_369_353_600);
        assert_eq!(unix_secs(UNIX_EPOCH - Duration::from_secs(5)), 0);
    }

    #[test]
    fn iso_dates() {
        assert_eq!(iso_date(0), "1970-01-01");
        assert_eq!(iso_date(1_577_923_200), "2020-01-02");
        assert_eq!(iso_date(2_559_009_906), "2051-02-03");
        assert_eq!(iso_date(-86_400), "1969-12-31");
        assert_eq!(iso_date(951_782_400), "2000-02-29");
    }

    #[test]
    fn amz_dates() {
        assert_eq!(amz_date(UNIX_EPOCH), "19700101T000000Z");
        let t = UNIX_EPOCH + Duration::from_secs(1_369_353_600);
        assert_eq!(amz_date(t), "20130524T000000Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_827_696);
        assert_eq!(amz_date(t), "20000229T123456Z");
        assert_eq!(
            amz_date(UNIX_EPOCH - Duration::from_secs(1)),
            "19700101T000000Z"
        );
        assert!(is_amz_date(amz_date(t).as_bytes()));
    }

    #[test]
    fn amz_shapes() {
        for good in ["20261130T120000Z", "00000000T000000Z", "99999999T999999Z"] {
            assert!(is_amz_date(good.as_bytes()), "{good}");
        }
        for bad in [
            "",
            "20261130T120000",
            "20261130t120000Z",
            "20261130T12:000Z",
            "2026113.T120000Z",
            "2026-11-30T12:00:00Z",
            "20261130T120000ZZ",
            "Mon, 30 Nov 2026 12:00:00 GMT",
        ] {
            assert!(!is_amz_date(bad.as_bytes()), "{bad}");
        }
        assert!(is_amz_day(b"20261130"));
        for bad in [
            "2026113",
            "202611300",
            "2026-11-30",
            "2026113O",
            "2026 130",
            "",
        ] {
            assert!(!is_amz_day(bad.as_bytes()), "{bad}");
        }
    }

    fn rfc3339(t: SystemTime) -> String {
        let mut out = b"time=".to_vec();
        write_rfc3339_millis(t, &mut out);
        String::from_utf8(out).expect("utf8")
    }

    #[test]
    fn rfc3339_times() {
        assert_eq!(rfc3339(UNIX_EPOCH), "time=1970-01-01T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_764_636_001_123);
        assert_eq!(rfc3339(t), "time=2025-12-02T00:40:01.123Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339(t), "time=2000-02-29T00:00:00.000Z");
        let t = UNIX_EPOCH + Duration::from_millis(1_796_121_015_007);
        assert_eq!(rfc3339(t), "time=2026-12-01T10:30:15.007Z");
        assert_eq!(
            rfc3339(UNIX_EPOCH - Duration::from_secs(1)),
            "time=1970-01-01T00:00:00.000Z"
        );
    }

    #[test]
    fn iso8601_is_parsed() {
        let table: &[(&str, Option<f64>)] = &[
            ("1970-01-01T00:00:00Z", Some(0.0)),
            ("1970-01-01", Some(0.0)),
            ("2000-03-01", Some(951_868_800.0)),
            ("2026-12-01T10:30:15.5Z", Some(1_796_121_015.5)),
            ("2026-12-01T10:30Z", Some(1_796_121_000.0)),
            ("1969-12-31T23:59:59Z", Some(-1.0)),
            ("2026-13-01", None),
            ("2026-00-01", None),
            ("2026-12-32", None),
            ("2026-12-01T25:00:00Z", None),
            ("2026-12-01T10:60:00Z", None),
            ("2026-12-01T10:00:61Z", None),
            ("2026-12-01T10:00:00", None),
            ("2026-12-01T10Z", None),
            ("2026-12-01T10:00:00:00Z", None),
            ("2026-12-01-01", None),
            ("2026-12", None),
            ("+2026-12-01", None),
            (" 2026-12-01", None),
            ("yesterday", None),
            ("", None),
        ];
        for (text, want) in table {
            assert_eq!(parse_iso8601(text), *want, "{text:?}");
        }
    }
}
