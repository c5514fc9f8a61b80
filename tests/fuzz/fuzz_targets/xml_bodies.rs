//! The XML request bodies rsgw accepts: DeleteObjects,
//! CompleteMultipartUpload, object and bucket ACLs (AccessControlPolicy),
//! CreateBucketConfiguration and lifecycle configurations. None panics or
//! faults the server; a CompleteMultipartUpload that succeeds makes an
//! object of exactly the one uploaded part.
//!
//! Input: `<operation byte><body>`.
#![no_main]
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use base64::Engine;
use libfuzzer_sys::fuzz_target;
use md5::{Digest, Md5};
use rsgw_bench::sign;
use rsgw_fuzz::harness;

static UPLOAD: Mutex<String> = Mutex::new(String::new());
static BUCKETS: AtomicU64 = AtomicU64::new(0);

fn md5_header(body: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(Md5::digest(body))
}

fuzz_target!(|data: &[u8]| {
    let Some((&op, body)) = data.split_first() else {
        return;
    };
    let h = harness();
    let md5 = md5_header(body);
    let with_md5 = [("content-md5", md5.as_str())];
    match op % 6 {
        0 => {
            h.signed("POST", "/fuzz", "delete=", &[], &with_md5, body.to_vec());
        }
        1 => {
            let mut upload = UPLOAD.lock().expect("lock");
            if upload.is_empty() {
                upload.clone_from(&h.upload_id);
            }
            let q = format!("uploadId={}", sign::encode_path(&upload));
            let r = h.signed("POST", "/fuzz/mp", &q, &[], &[], body.to_vec());
            if r.status == 200 && r.code().is_none() {
                let got = h.signed("GET", "/fuzz/mp", "", &[], &[], vec![]);
                assert_eq!(
                    &got.body[..],
                    b"part one",
                    "completed object differs from its part"
                );
                // a fresh upload for the next inputs
                let r = h.signed("POST", "/fuzz/mp", "uploads=", &[], &[], vec![]);
                let text = String::from_utf8_lossy(&r.body).into_owned();
                *upload = text
                    .split("<UploadId>")
                    .nth(1)
                    .and_then(|s| s.split("</UploadId>").next())
                    .expect("upload id")
                    .to_string();
                let q = format!("partNumber=1&uploadId={}", sign::encode_path(&upload));
                let r = h.signed("PUT", "/fuzz/mp", &q, &[], &[], b"part one".to_vec());
                assert_eq!(r.status, 200);
            }
        }
        2 => {
            h.signed("PUT", "/fuzz/known", "acl=", &[], &[], body.to_vec());
        }
        3 => {
            h.signed("PUT", "/fuzz", "acl=", &[], &[], body.to_vec());
        }
        4 => {
            let name = format!("/fz-{}", BUCKETS.fetch_add(1, Ordering::Relaxed));
            let r = h.signed("PUT", &name, "", &[], &[], body.to_vec());
            if r.status == 200 {
                let d = h.signed("DELETE", &name, "", &[], &[], vec![]);
                assert_eq!(d.status, 204, "a bucket just made won't go: {d:?}");
            }
        }
        _ => {
            h.signed("PUT", "/fuzz", "lifecycle=", &[], &with_md5, body.to_vec());
        }
    }
});
