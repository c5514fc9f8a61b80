//! Versions of an object (docs/layout.md#versions, decision record 0012):
//! a bucket's versioning state, version ids, and the order of versions,
//! which the names of their index entries carry.
//!
//! Every version has a **rank**: 16 hex digits of `u64::MAX` minus its
//! creation time in microseconds, so that the newest sorts first. A
//! version id rsgw makes starts with its rank (then 16 random characters,
//! 32 in all as radosgw's); the `null` version's rank comes from its
//! mtime. A version's index entry is named `\x01<key>\x01\x01<rank><version
//! id>`, each U+0001 in the key written as U+0001 U+0002: names that sort
//! apart from the keys' own entries (no key may begin with U+0001), by key
//! (as the keys do: the escape keeps their order, and the terminator
//! sorts before anything a longer key goes on with) and newest first
//! within a key. Not NUL, which would say the same with no escape:
//! librados' C API takes an omap read's start and prefix as C strings.

use serde::{Deserialize, Serialize};

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::{ALNUM, random_string};
use crate::model::limits::MAX_KEY_BYTES;

/// The id S3 gives the version written while versioning was off or
/// suspended (at most one per key).
pub const NULL_VERSION: &str = "null";

/// Characters of a rank: 16 hex digits.
const RANK_LEN: usize = 16;

/// Characters of a version id rsgw makes: its rank and 16 random ones.
const VERSION_ID_LEN: usize = 32;

/// A bucket's versioning, once it was ever set (never unset again, as S3
/// has it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Versioning {
    /// Every write makes a new version.
    Enabled,
    /// Writes make the `null` version, replacing the key's `null` one;
    /// versions made before are kept.
    Suspended,
}

impl Versioning {
    /// The name S3 gives the state (`Status`).
    pub fn as_str(self) -> &'static str {
        match self {
            Versioning::Enabled => "Enabled",
            Versioning::Suspended => "Suspended",
        }
    }
}

/// The rank of a version made at `micros` microseconds since the epoch.
fn rank_at(micros: u64) -> String {
    format!("{:016x}", u64::MAX - micros)
}

/// Microseconds since the epoch of `mtime` (seconds), rounded: the same
/// for a time in whole microseconds (`ids::now_secs`) and for that time
/// read back from JSON a unit in the last place off.
fn micros(mtime: f64) -> u64 {
    (mtime.max(0.0) * 1e6).round() as u64
}

/// A new version id for a version made at `mtime`.
pub(crate) fn new_version_id(mtime: f64) -> GatewayResult<String> {
    Ok(format!(
        "{}{}",
        rank_at(micros(mtime)),
        random_string(ALNUM, VERSION_ID_LEN - RANK_LEN)?
    ))
}

/// Whether `id` has the shape of a version id rsgw makes.
fn is_made_id(id: &str) -> bool {
    id.len() == VERSION_ID_LEN
        && id.as_bytes()[..RANK_LEN]
            .iter()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
        && id.as_bytes()[RANK_LEN..]
            .iter()
            .all(u8::is_ascii_alphanumeric)
}

/// A version id as a request names one: `null`, or one rsgw could have
/// made; anything else is no version at all (`InvalidArgument`, as AWS
/// answers a malformed id).
pub(crate) fn check_version_id(id: &str) -> GatewayResult<()> {
    if id == NULL_VERSION || is_made_id(id) {
        Ok(())
    } else {
        Err(GatewayError::InvalidArgument(
            "Invalid version id specified".into(),
        ))
    }
}

/// The rank of version `id` (`None`: `null`) made at `mtime`.
pub(crate) fn rank(id: Option<&str>, mtime: f64) -> String {
    match id {
        Some(id) if is_made_id(id) => id[..RANK_LEN].to_string(),
        _ => rank_at(micros(mtime)),
    }
}

/// Begins every version entry's name; no key may begin with it.
pub(crate) const VERSIONS: char = '\u{1}';

/// Ends the key in a version entry's name: sorts before anything a longer
/// key's escaped name goes on with.
const END_OF_KEY: &str = "\u{1}\u{1}";

/// `key` as a version entry's name holds it: U+0001 written as U+0001
/// U+0002, so that [`END_OF_KEY`] never occurs in it.
fn escaped(key: &str) -> String {
    key.replace('\u{1}', "\u{1}\u{2}")
}

/// The name of the index entry of version `id` (`None`: `null`) of `key`,
/// ranked `rank`.
pub(crate) fn entry_name(key: &str, rank: &str, id: Option<&str>) -> String {
    format!("{}{rank}{}", entries_of(key), id.unwrap_or(NULL_VERSION))
}

/// Where the entries of `key`'s versions start: every one's name begins
/// with this.
pub(crate) fn entries_of(key: &str) -> String {
    format!("{VERSIONS}{}{END_OF_KEY}", escaped(key))
}

/// What the names of the version entries of every key starting with
/// `prefix` begin with.
pub(crate) fn entries_under(prefix: &str) -> String {
    format!("{VERSIONS}{}", escaped(prefix))
}

/// A name after every version entry's and before every key (as an omap
/// walk's `start_after`): U+0001, then more U+10FFFF than an escaped key
/// and its terminator take bytes (a key of 1024 bytes, every one U+0001,
/// escapes to 2048).
pub(crate) fn past_version_entries() -> String {
    let chars = (2 * MAX_KEY_BYTES + END_OF_KEY.len()) / 4 + 1;
    let mut s = String::with_capacity(1 + 4 * chars);
    s.push(VERSIONS);
    for _ in 0..chars {
        s.push('\u{10FFFF}');
    }
    s
}

/// The key, rank and version id (`None`: `null`) a version entry's name
/// holds; `None` for any other name.
pub(crate) fn parse_entry_name(name: &str) -> Option<(String, &str, Option<&str>)> {
    let rest = name.strip_prefix(VERSIONS)?;
    let (key, tail) = rest.split_once(END_OF_KEY)?;
    if tail.len() <= RANK_LEN || !tail.is_char_boundary(RANK_LEN) {
        return None;
    }
    let (rank, id) = tail.split_at(RANK_LEN);
    Some((
        key.replace("\u{1}\u{2}", "\u{1}"),
        rank,
        (id != NULL_VERSION).then_some(id),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn made_ids_are_valid_and_newer_sorts_first() {
        let old = new_version_id(1_700_000_000.0).expect("id");
        let new = new_version_id(1_700_000_000.000_001).expect("id");
        for id in [&old, &new] {
            assert_eq!(id.len(), 32);
            check_version_id(id).expect("valid");
        }
        assert!(new < old, "{new} sorts before {old}");
        assert!(rank(Some(&new), 0.0) < rank(Some(&old), 0.0));
        // the null version is ranked by its mtime
        assert!(rank(None, 1_700_000_001.0) < rank(Some(&old), 0.0));
        assert!(rank(None, 1_699_999_999.0) > rank(Some(&old), 0.0));
    }

    /// A time in whole microseconds ranks the same once written to JSON
    /// and read back, whatever the float parser's last bit.
    #[test]
    fn ranks_survive_a_json_round_trip() {
        for i in 0..20_000u64 {
            let t = (1_790_000_000_000_000 + i * 7_919) as f64 / 1e6;
            let back: f64 =
                serde_json::from_str(&serde_json::to_string(&t).expect("json")).expect("parse");
            for nudged in [
                back,
                f64::from_bits(back.to_bits() + 1),
                f64::from_bits(back.to_bits() - 1),
            ] {
                assert_eq!(rank(None, nudged), rank(None, t), "{t}");
            }
        }
    }

    #[test]
    fn malformed_ids_are_refused() {
        check_version_id(NULL_VERSION).expect("null");
        for bad in [
            "",
            "Null",
            "garbage",
            "ffffffffffffffffAAAAAAAAAAAAAAA",
            "gfffffffffffffffAAAAAAAAAAAAAAAA",
            "ffffffffffffffffAAAAAAAAAAAAAAA/",
        ] {
            assert!(check_version_id(bad).is_err(), "{bad:?}");
        }
    }

    /// Entry names sort by key as keys do (a key's versions before a
    /// longer key's, U+0001 in keys too), newest first within a key, hold
    /// no NUL, and parse back.
    #[test]
    fn entry_names_sort_by_key_then_newest_first() {
        let v1 = new_version_id(10.0).expect("id");
        let v2 = new_version_id(20.0).expect("id");
        let names = [
            entry_name("a", &rank(Some(&v2), 0.0), Some(&v2)),
            entry_name("a", &rank(Some(&v1), 0.0), Some(&v1)),
            entry_name("a", &rank(None, 5.0), None),
            entry_name("a\u{1}", &rank(None, 5.0), None),
            entry_name("a\u{1}\u{1}b", &rank(None, 5.0), None),
            entry_name("a\u{1}\u{2}", &rank(None, 5.0), None),
            entry_name("a\u{2}", &rank(None, 5.0), None),
            entry_name("a/b", &rank(Some(&v1), 0.0), Some(&v1)),
            entry_name("a0", &rank(None, 5.0), None),
            entry_name("é", &rank(None, 5.0), None),
        ];
        let mut keys: Vec<String> = names
            .iter()
            .map(|n| parse_entry_name(n).expect("parses").0)
            .collect();
        let mut sorted_names = names.clone();
        sorted_names.sort();
        assert_eq!(sorted_names, names);
        let listed = keys.clone();
        keys.sort();
        assert_eq!(keys, listed, "names in key order");
        assert_eq!(
            parse_entry_name(&names[0]),
            Some((
                "a".to_string(),
                &rank(Some(&v2), 0.0)[..],
                Some(v2.as_str())
            ))
        );
        assert_eq!(
            parse_entry_name(&names[4]),
            Some(("a\u{1}\u{1}b".to_string(), &rank(None, 5.0)[..], None))
        );
        for n in &names {
            assert!(!n.contains('\0'), "{n:?}");
            let (key, ..) = parse_entry_name(n).expect("parses");
            assert!(n.starts_with(&entries_of(&key)));
            let first: String = key.chars().take(1).collect();
            assert!(n.starts_with(&entries_under(&first)));
        }
        let past = past_version_entries();
        for key in [
            "a",
            "\u{10FFFF}",
            &"\u{10FFFF}".repeat(256),
            &"é".repeat(512),
            &"\u{1}".repeat(1024),
        ] {
            let name = entry_name(key, &rank(None, 5.0), None);
            assert!(name < past, "{key:?}");
        }
        for key in ["\u{2}", " ", "a"] {
            assert!(past.as_str() < key, "{key:?}");
        }
        for other in ["a", "", "\u{1}a", "\u{1}a\u{1}\u{1}short"] {
            assert_eq!(parse_entry_name(other), None, "{other:?}");
        }
    }
}
