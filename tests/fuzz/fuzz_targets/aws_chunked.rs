//! aws-chunked request bodies (unsigned with trailers, and signed chunks
//! whose signatures the fuzzer cannot forge) on a PUT: a PUT that fails
//! leaves the object as it was (never partial), one that succeeds stores
//! exactly the decoded body.
//!
//! Input: `<mode byte><length byte><chunked body>`.
#![no_main]
use std::sync::Mutex;

use libfuzzer_sys::fuzz_target;
use rsgw_fuzz::harness;

const MODES: [(&str, Option<&str>); 4] = [
    (
        "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
        Some("x-amz-checksum-crc32"),
    ),
    ("STREAMING-UNSIGNED-PAYLOAD-TRAILER", None),
    ("STREAMING-AWS4-HMAC-SHA256-PAYLOAD", None),
    (
        "STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER",
        Some("x-amz-checksum-crc32"),
    ),
];

/// The last content a PUT stored (None: no object yet).
static STORED: Mutex<Option<Vec<u8>>> = Mutex::new(None);

/// A plain reading of aws-chunked: `hex[;ext]\r\n<data>\r\n`... `0[;ext]\r\n`
/// then trailers up to an empty line.
fn decode(mut b: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n")?;
        let line = std::str::from_utf8(&b[..eol]).ok()?;
        let size = usize::from_str_radix(line.split(';').next()?, 16).ok()?;
        b = &b[eol + 2..];
        if size == 0 {
            return Some(out);
        }
        if b.len() < size + 2 || &b[size..size + 2] != b"\r\n" {
            return None;
        }
        out.extend_from_slice(&b[..size]);
        b = &b[size + 2..];
    }
}

fuzz_target!(|data: &[u8]| {
    let [mode, len, body @ ..] = data else {
        return;
    };
    let (payload, trailer) = MODES[*mode as usize % MODES.len()];
    let reference = decode(body);
    // mostly the length the body decodes to, sometimes a wrong one
    let decoded_len = match (&reference, len % 4) {
        (Some(r), 0..=2) => r.len(),
        _ => *len as usize,
    };
    let decoded_len = decoded_len.to_string();
    let mut amz = vec![("x-amz-decoded-content-length", decoded_len.as_str())];
    if let Some(t) = trailer {
        amz.push(("x-amz-trailer", t));
    }
    let h = harness();
    let r = h.signed_for_payload(
        "PUT",
        "/fuzz/chunked",
        "",
        &amz,
        &[("content-encoding", "aws-chunked")],
        payload,
        body.to_vec(),
    );
    let mut stored = STORED.lock().expect("lock");
    if r.status == 200 {
        let got = h.signed("GET", "/fuzz/chunked", "", &[], &[], vec![]);
        assert_eq!(got.status, 200, "a stored object is gone: {got:?}");
        if let Some(want) = &reference {
            assert_eq!(
                &got.body[..],
                &want[..],
                "stored bytes differ from the decoded body"
            );
        }
        *stored = Some(got.body.to_vec());
    } else {
        let got = h.signed("GET", "/fuzz/chunked", "", &[], &[], vec![]);
        match &*stored {
            Some(old) => assert_eq!(
                &got.body[..],
                &old[..],
                "a failed PUT changed the object ({})",
                r.status
            ),
            None => assert_eq!(got.status, 404, "a failed PUT left an object: {got:?}"),
        }
    }
});
