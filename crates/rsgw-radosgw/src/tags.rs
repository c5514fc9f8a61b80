//! An object's tags as radosgw keeps them: the `user.rgw.x-amz-tagging`
//! xattr of its head, an `RGWObjTags` (a map of key to value, in key
//! order). radosgw 16.2 keeps a multipart upload's `x-amz-tagging` header
//! as it came instead (a URL-encoded query, NUL-terminated, with the
//! request's other `x-amz-*` headers), on the upload and then on the
//! object it completes; [`read_tags`] reads both forms. No I/O.

use std::collections::BTreeMap;

use crate::encoding::{Decoder, Encoder, Header, Result};

/// The head's xattr holding the tags.
pub const ATTR_TAGS: &str = "user.rgw.x-amz-tagging";

/// The xattr's value for `tags`, as radosgw 16.2 encodes it.
pub fn encode_tags(tags: &BTreeMap<String, String>) -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.seq(tags.iter(), |e, (k, v)| {
            e.string(k).string(v);
        });
    });
    e.into_bytes()
}

/// Decodes the xattr's value; every byte must belong to it.
pub fn decode_tags(bytes: &[u8]) -> Result<BTreeMap<String, String>> {
    Decoder::whole(bytes, |d| {
        d.block("RGWObjTags", Header::Start { known: 1 }, |d, _| {
            let pairs = d.seq("RGWObjTags.tag_map", 8, |d| {
                Ok((
                    d.string("RGWObjTags.tag_map")?,
                    d.string("RGWObjTags.tag_map")?,
                ))
            })?;
            Ok(pairs.into_iter().collect())
        })
    })
}

/// The tags of a `user.rgw.x-amz-tagging` value in either form radosgw
/// writes: an `RGWObjTags`, or the `x-amz-tagging` header as sent
/// (`k=v&k2=v2`, URL-encoded, NUL-terminated). `None` for neither.
pub fn read_tags(bytes: &[u8]) -> Option<BTreeMap<String, String>> {
    if let Ok(tags) = decode_tags(bytes) {
        return Some(tags);
    }
    let text = std::str::from_utf8(bytes.strip_suffix(b"\0")?).ok()?;
    text.split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            Some((percent_decoded(k)?, percent_decoded(v)?))
        })
        .collect()
}

/// `s` with `%XX` escapes and `+` (a space) decoded; `None` for a broken
/// escape or bytes that are not UTF-8.
fn percent_decoded(s: &str) -> Option<String> {
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        match b {
            b'%' => {
                let hex = [bytes.next()?, bytes.next()?];
                out.push(u8::from_str_radix(std::str::from_utf8(&hex).ok()?, 16).ok()?);
            }
            b'+' => out.push(b' '),
            b => out.push(b),
        }
    }
    String::from_utf8(out).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What radosgw 16.2 stored for `x-amz-tagging:
    /// zeta=last&alpha=first%20one&empty=`.
    const STORED: &[u8] = include_bytes!("../tests/data/tags-three.bin");

    #[test]
    fn radosgws_tags_decode_and_encode_to_its_bytes() {
        let tags = decode_tags(STORED).expect("decode");
        let want: BTreeMap<String, String> =
            [("alpha", "first one"), ("empty", ""), ("zeta", "last")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect();
        assert_eq!(tags, want);
        assert_eq!(encode_tags(&tags), STORED);
        for cut in 0..STORED.len() {
            assert!(decode_tags(&STORED[..cut]).is_err(), "{cut}");
        }
        assert_eq!(read_tags(STORED), Some(tags));
    }

    #[test]
    fn the_header_radosgw_keeps_for_an_upload_reads_as_its_tags() {
        let want: BTreeMap<String, String> = [("made", "in parts"), ("empty", ""), ("a+b", "c")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        assert_eq!(read_tags(b"made=in%20parts&empty=&a%2Bb=c\0"), Some(want));
        assert_eq!(read_tags(b"bad=%G1\0"), None);
        assert_eq!(read_tags(b"no-nul"), None);
    }
}
