//! Range and conditional headers (If-Match, If-None-Match,
//! If-Modified-Since, If-Unmodified-Since) on GET and HEAD of an object of
//! known bytes: a 206 carries exactly the bytes its Content-Range names, a
//! 200 the whole object, a 304/412 nothing, and a single satisfiable
//! `bytes=a-b` alone on a GET always gives those bytes.
//!
//! Input: `<flags byte><range>\n<if-match>\n<if-none-match>\n<if-modified-since>\n<if-unmodified-since>`;
//! the word ETAG in a value stands for the object's ETag.
#![no_main]
use libfuzzer_sys::fuzz_target;
use md5::{Digest, Md5};
use rsgw_fuzz::{fields, harness, known};

const NAMES: [&str; 5] = [
    "range",
    "if-match",
    "if-none-match",
    "if-modified-since",
    "if-unmodified-since",
];

fn content_range(v: &str) -> Option<(usize, usize, usize)> {
    let (range, total) = v.strip_prefix("bytes ")?.split_once('/')?;
    let (a, b) = range.split_once('-')?;
    Some((a.parse().ok()?, b.parse().ok()?, total.parse().ok()?))
}

/// `bytes=a-b` with a <= b inside the object: the only shape checked
/// against an expected answer.
fn simple_range(v: &str, len: usize) -> Option<(usize, usize)> {
    let (a, b) = v.strip_prefix("bytes=")?.split_once('-')?;
    if !a.bytes().chain(b.bytes()).all(|c| c.is_ascii_digit())
        || a.is_empty()
        || b.is_empty()
        || a.len() > 9
        || b.len() > 9
    {
        return None;
    }
    let (a, b): (usize, usize) = (a.parse().ok()?, b.parse().ok()?);
    (a <= b && a < len).then_some((a, b.min(len - 1)))
}

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let obj = known();
    let etag = format!(
        "\"{}\"",
        Md5::digest(obj)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    );
    let f = fields(text.as_bytes(), 5);
    let mut headers: Vec<(&str, String)> = Vec::new();
    for (i, v) in f.iter().enumerate() {
        if flags & (1 << i) != 0 {
            headers.push((NAMES[i], String::from_utf8_lossy(v).replace("ETAG", &etag)));
        }
    }
    let head = flags & 0x80 != 0;
    let method = if head { "HEAD" } else { "GET" };
    let extra: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let Some(req) = rsgw_fuzz::signed_request(
        method,
        "/fuzz/known",
        "",
        &[],
        &extra,
        "UNSIGNED-PAYLOAD",
        vec![],
    ) else {
        return;
    };
    let r = harness().call(req);
    match r.status {
        200 if !head => assert_eq!(&r.body[..], obj, "a 200 without the whole object"),
        206 => {
            let cr = r
                .header("content-range")
                .expect("206 without Content-Range");
            let (a, b, total) =
                content_range(cr).unwrap_or_else(|| panic!("bad Content-Range {cr}"));
            assert!(
                a <= b && b < obj.len() && total == obj.len(),
                "Content-Range {cr}"
            );
            if !head {
                assert_eq!(&r.body[..], &obj[a..=b], "206 bytes differ from {cr}");
            }
        }
        304 | 412 => assert!(
            r.body.is_empty() || r.status == 412,
            "{} with a body",
            r.status
        ),
        _ => {}
    }
    // (on GET: a HEAD with a Range may answer 200, as radosgw's does)
    if let [("range", v)] = &headers[..]
        && !head
        && let Some((a, b)) = simple_range(v, obj.len())
    {
        assert_eq!(r.status, 206, "Range {v} answered {}", r.status);
        assert_eq!(
            r.header("content-range"),
            Some(format!("bytes {a}-{b}/{}", obj.len()).as_str())
        );
    }
});
