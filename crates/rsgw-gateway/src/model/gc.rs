//! The garbage-collection log's entries (`meta/gc/log`: omap key = a write
//! tag, value = the entry): stripes that may become garbage, and when they
//! are (docs/layout.md#garbage-collection).

use serde::{Deserialize, Serialize, Serializer};

/// The GC log entry of a write tag: the stripes `<bucket id>.<tag>.<n>`
/// and what they are.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(try_from = "Stored")]
pub(crate) struct GcEntry {
    /// What the stripes are, and so when they are garbage.
    pub(crate) kind: GcKind,
    pub(crate) bucket_id: String,
    /// The object key they were written for.
    pub(crate) key: String,
    /// Known number of stripes (None: count until one is missing).
    pub(crate) stripes: Option<u64>,
    /// When the entry was logged, seconds since the epoch.
    pub(crate) time: f64,
}

/// What a GC log entry's stripes are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GcKind {
    /// Stripes of a write in progress: garbage once older than the
    /// collector's minimum age unless the write committed (the head, or
    /// for a part its upload's record, carries the tag).
    Upload {
        /// For a multipart part: its upload and part number.
        part_of: Option<(String, u32)>,
        /// For a version of a versioned bucket: its id (`null` too); it
        /// committed if the key's head or that version's object carries
        /// the tag.
        version: Option<String>,
    },
    /// Stripes of a version a write is about to replace, logged before the
    /// head changes (so a crash between the commit and the retirement
    /// leaks nothing): garbage once the head no longer carries
    /// `while_head`, the tag of the version they belong to.
    Replacing {
        /// The head tag of the version the stripes belong to.
        while_head: String,
    },
    /// Stripes of a version that no head references any more: garbage
    /// at once.
    Replaced,
}

impl GcKind {
    /// The name stored in the entry's `kind` field.
    fn name(&self) -> &'static str {
        match self {
            GcKind::Upload { .. } => "upload",
            GcKind::Replacing { .. } => "replacing",
            GcKind::Replaced => "replaced",
        }
    }
}

/// An entry as stored (JSON): the fields every release wrote, in their
/// order, the kind as its name.
#[derive(Deserialize)]
struct Stored {
    kind: String,
    bucket_id: String,
    key: String,
    stripes: Option<u64>,
    time: f64,
    #[serde(default)]
    part_of: Option<(String, u32)>,
    #[serde(default)]
    while_head: Option<String>,
    #[serde(default)]
    version: Option<String>,
}

/// [`Stored`], borrowed from an entry to write it.
#[derive(Serialize)]
struct StoredRef<'a> {
    kind: &'a str,
    bucket_id: &'a str,
    key: &'a str,
    stripes: Option<u64>,
    time: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    part_of: Option<&'a (String, u32)>,
    #[serde(skip_serializing_if = "Option::is_none")]
    while_head: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
}

impl Serialize for GcEntry {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let (part_of, while_head, version) = match &self.kind {
            GcKind::Upload { part_of, version } => (part_of.as_ref(), None, version.as_deref()),
            GcKind::Replacing { while_head } => (None, Some(while_head.as_str()), None),
            GcKind::Replaced => (None, None, None),
        };
        StoredRef {
            kind: self.kind.name(),
            bucket_id: &self.bucket_id,
            key: &self.key,
            stripes: self.stripes,
            time: self.time,
            part_of,
            while_head,
            version,
        }
        .serialize(s)
    }
}

impl TryFrom<Stored> for GcEntry {
    type Error = String;

    fn try_from(e: Stored) -> Result<Self, String> {
        let kind = match (e.kind.as_str(), e.while_head) {
            ("upload", _) => GcKind::Upload {
                part_of: e.part_of,
                version: e.version,
            },
            ("replacing", Some(while_head)) => GcKind::Replacing { while_head },
            ("replacing", None) => return Err("a replacing GC log entry without while_head".into()),
            ("replaced", _) => GcKind::Replaced,
            (other, _) => return Err(format!("unknown GC log entry kind {other:?}")),
        };
        Ok(GcEntry {
            kind,
            bucket_id: e.bucket_id,
            key: e.key,
            stripes: e.stripes,
            time: e.time,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(kind: GcKind, stripes: Option<u64>) -> GcEntry {
        GcEntry {
            kind,
            bucket_id: "0123456789abcdef".into(),
            key: "dir/key \"quoted\"".into(),
            stripes,
            time: 1_700_000_000.25,
        }
    }

    /// Entries as the release before the enum wrote them (its `kind` a
    /// string, `part_of` and `while_head` only where set) decode to the
    /// kinds they name, and encode to the same bytes again.
    #[test]
    fn entries_of_the_previous_release_decode_and_encode_alike() {
        let cases = [
            (
                r#"{"kind":"upload","bucket_id":"0123456789abcdef","key":"dir/key \"quoted\"","stripes":null,"time":1700000000.25}"#,
                entry(
                    GcKind::Upload {
                        part_of: None,
                        version: None,
                    },
                    None,
                ),
            ),
            (
                r#"{"kind":"upload","bucket_id":"0123456789abcdef","key":"dir/key \"quoted\"","stripes":null,"time":1700000000.25,"part_of":["2~0000018bcfe56800a1b2c3d4e5f60718",7]}"#,
                entry(
                    GcKind::Upload {
                        part_of: Some(("2~0000018bcfe56800a1b2c3d4e5f60718".into(), 7)),
                        version: None,
                    },
                    None,
                ),
            ),
            (
                r#"{"kind":"replacing","bucket_id":"0123456789abcdef","key":"dir/key \"quoted\"","stripes":3,"time":1700000000.25,"while_head":"fedcba9876543210"}"#,
                entry(
                    GcKind::Replacing {
                        while_head: "fedcba9876543210".into(),
                    },
                    Some(3),
                ),
            ),
            (
                r#"{"kind":"replaced","bucket_id":"0123456789abcdef","key":"dir/key \"quoted\"","stripes":2,"time":1700000000.25}"#,
                entry(GcKind::Replaced, Some(2)),
            ),
        ];
        for (stored, want) in cases {
            let got: GcEntry = serde_json::from_str(stored).expect(stored);
            assert_eq!(got, want, "{stored}");
            assert_eq!(serde_json::to_string(&want).expect("encode"), stored);
        }
    }

    #[test]
    fn unknown_kinds_and_replacing_without_its_head_are_refused() {
        for bad in [
            r#"{"kind":"uploaded","bucket_id":"b","key":"k","stripes":null,"time":1.0}"#,
            r#"{"kind":"replacing","bucket_id":"b","key":"k","stripes":1,"time":1.0}"#,
        ] {
            assert!(serde_json::from_str::<GcEntry>(bad).is_err(), "{bad}");
        }
    }
}
