//! Any method, key, query, headers and body, signed for alice with SigV4 by
//! rsgw-bench's own signer: routing, the operations' header and query
//! parsing, and the gateway behind them. Also a differential test of SigV4
//! canonicalization: the service must accept every signature the
//! independent signer makes (never `SignatureDoesNotMatch`).
//!
//! Input: `<method byte><key>\n<query a=b&c>\n<header: value>...\n\n<body>`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rsgw_bench::sign;
use rsgw_fuzz::{fields, harness, signed_request};

const METHODS: [&str; 5] = ["GET", "PUT", "POST", "DELETE", "HEAD"];

fuzz_target!(|data: &[u8]| {
    let Some((&m, rest)) = data.split_first() else {
        return;
    };
    let Some((head, body)) = rest
        .windows(2)
        .position(|w| w == b"\n\n")
        .map(|i| (&rest[..i], &rest[i + 2..]))
        .or(Some((rest, &[][..])))
    else {
        return;
    };
    let Ok(head) = std::str::from_utf8(head) else {
        return;
    };
    let f = fields(head.as_bytes(), 3);
    let key = std::str::from_utf8(f[0]).unwrap_or_default();
    let query = f
        .get(1)
        .and_then(|q| std::str::from_utf8(q).ok())
        .unwrap_or("");
    let headers = f
        .get(2)
        .and_then(|q| std::str::from_utf8(q).ok())
        .unwrap_or("");
    let method = METHODS[m as usize % METHODS.len()];
    let path = sign::encode_path(&format!("/fuzz/{key}"));
    let pairs: Vec<(&str, &str)> = query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
        .collect();
    let query = sign::canonical_query(&pairs);
    let mut amz: Vec<(String, String)> = Vec::new();
    let mut extra: Vec<(String, String)> = Vec::new();
    for line in headers.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let k = k.trim().to_ascii_lowercase();
        // one space between words, as SigV4 canonicalizes values
        let v = v.split_whitespace().collect::<Vec<_>>().join(" ");
        if k.is_empty()
            || matches!(
                k.as_str(),
                "host"
                    | "authorization"
                    | "content-length"
                    | "transfer-encoding"
                    | "x-amz-date"
                    | "x-amz-content-sha256"
                    | "expect"
                    | "connection"
            )
        {
            continue;
        }
        if k.starts_with("x-amz-") {
            if amz.iter().all(|(n, _)| *n != k) {
                amz.push((k, v));
            }
        } else {
            extra.push((k, v));
        }
    }
    let amz: Vec<(&str, &str)> = amz.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let extra: Vec<(&str, &str)> = extra
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    let Some(req) = signed_request(
        method,
        &path,
        &query,
        &amz,
        &extra,
        "UNSIGNED-PAYLOAD",
        body.to_vec(),
    ) else {
        return;
    };
    let r = harness().call(req);
    assert_ne!(
        r.code(),
        Some("SignatureDoesNotMatch"),
        "{method} {path}?{query} amz {amz:?}: a signature rsgw-bench made was refused"
    );
});
