//! Forged credentials on alice's private object: Authorization headers
//! (SigV4 and SigV2), presigned query strings, and well-formed SigV4 with
//! her real access key but a made-up signature. Whatever the input, the
//! object is neither read nor overwritten.
//!
//! Input: `<shape byte><field>\n<field>\n<field>`.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rsgw_bench::sign;
use rsgw_fuzz::{ACCESS_KEY, HOST, fields, harness};

fuzz_target!(|data: &[u8]| {
    let Some((&shape, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let f = fields(text.as_bytes(), 3);
    let s = |i: usize| {
        f.get(i)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default()
    };
    let now = std::time::SystemTime::now();
    let date = rsgw_time::amz_date(now);
    let scope = format!("{ACCESS_KEY}/{}/us-east-1/s3/aws4_request", &date[..8]);
    let write = shape & 0x80 != 0;
    let path = "/fuzz/private";
    let mut query = String::new();
    let mut headers: Vec<(String, String)> = vec![
        ("host".into(), HOST.into()),
        ("x-amz-date".into(), date.clone()),
        ("x-amz-content-sha256".into(), "UNSIGNED-PAYLOAD".into()),
    ];
    match shape & 0x7f {
        0 => headers.push(("authorization".into(), text.into_owned())),
        1 => query = text.into_owned(),
        2 => headers.push((
            "authorization".into(),
            format!(
                "AWS4-HMAC-SHA256 Credential={scope}, SignedHeaders={}, Signature={}",
                s(0),
                s(1)
            ),
        )),
        3 => {
            headers.push(("authorization".into(), format!("AWS {ACCESS_KEY}:{}", s(0))));
            headers.push(("date".into(), s(1)));
        }
        4 => {
            query = format!(
                "X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential={}&X-Amz-Date={}&X-Amz-Expires={}&X-Amz-SignedHeaders={}&X-Amz-Signature={}",
                sign::encode_path(&scope).replace('/', "%2F"),
                date,
                s(0),
                s(1),
                s(2)
            );
        }
        _ => {
            query = format!(
                "AWSAccessKeyId={ACCESS_KEY}&Expires={}&Signature={}",
                s(0),
                s(1)
            );
        }
    }
    let uri = if query.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{query}")
    };
    let mut b = http::Request::builder()
        .method(if write { "PUT" } else { "GET" })
        .uri(uri);
    for (k, v) in &headers {
        b = b.header(k.as_str(), v.as_str());
    }
    let body: &[u8] = if write { b"forged" } else { b"" };
    if write {
        b = b.header("content-length", body.len());
    }
    let Ok(req) = b.body(s3s::Body::from(body.to_vec())) else {
        return;
    };
    let r = harness().call(req);
    assert!(
        !(200..400).contains(&r.status),
        "a forged request was let in: {} {:?}",
        r.status,
        String::from_utf8_lossy(&r.body)
    );
});
