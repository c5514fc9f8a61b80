//! Server-side encryption on the wire: the `x-amz-server-side-encryption*`
//! headers a request sends (what a write asks for, the customer key that
//! reads an SSE-C object or its copy's source), checked as AWS checks
//! them, and the headers an answer echoes. What they do is the gateway's
//! (`rsgw_gateway`'s `rules::crypt`).

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use md5::{Digest, Md5};
use rsgw_gateway::{CustomerKey, KEY_LEN, Key, Sse, SseMode, SseRequest};
use s3s::dto::ServerSideEncryption;
use s3s::{S3Error, S3ErrorCode, S3Result, s3_error};

use crate::checksums::decode_content_md5;

/// `x-amz-server-side-encryption`.
pub(crate) const SSE: &str = "x-amz-server-side-encryption";
/// `x-amz-server-side-encryption-aws-kms-key-id`.
pub(crate) const KMS_KEY_ID: &str = "x-amz-server-side-encryption-aws-kms-key-id";
/// The prefix of the SSE-C headers of the object itself.
pub(crate) const CUSTOMER: &str = "x-amz-server-side-encryption-customer-";
/// The prefix of the SSE-C headers of a copy's source.
pub(crate) const COPY_SOURCE_CUSTOMER: &str = "x-amz-copy-source-server-side-encryption-customer-";

fn header<'a>(headers: &'a http::HeaderMap, name: &str) -> Option<&'a str> {
    headers.get(name).map(|v| v.to_str().unwrap_or_default())
}

fn invalid(msg: &str) -> S3Error {
    S3Error::with_message(S3ErrorCode::InvalidArgument, msg.to_string())
}

/// The SSE-C key sent in the headers under `prefix` ([`CUSTOMER`] or
/// [`COPY_SOURCE_CUSTOMER`]): all three headers or none, the algorithm
/// AES256, the key 32 bytes of base64 whose MD5 is the one sent.
pub(crate) fn customer_key(
    headers: &http::HeaderMap,
    prefix: &str,
) -> S3Result<Option<CustomerKey>> {
    let get = |suffix: &str| header(headers, &format!("{prefix}{suffix}"));
    let (alg, key, md5) = (get("algorithm"), get("key"), get("key-md5"));
    if alg.is_none() && key.is_none() && md5.is_none() {
        return Ok(None);
    }
    let (Some(alg), Some(key), Some(md5)) = (alg, key, md5) else {
        return Err(invalid(
            "Requests specifying Server Side Encryption with Customer provided keys must provide the algorithm, the key and the key's MD5",
        ));
    };
    if alg != "AES256" {
        let mut e = S3Error::with_message(
            S3ErrorCode::Custom("InvalidEncryptionAlgorithmError".into()),
            "The encryption request you specified is not valid. The valid value is AES256.",
        );
        e.set_status_code(http::StatusCode::BAD_REQUEST);
        return Err(e);
    }
    let key: [u8; KEY_LEN] = STANDARD
        .decode(key)
        .ok()
        .and_then(|k| k.try_into().ok())
        .ok_or_else(|| invalid("The secret key was invalid for the specified algorithm."))?;
    if decode_content_md5(md5.as_bytes()).as_deref() != Some(&Md5::digest(key)[..]) {
        return Err(invalid(
            "The calculated MD5 hash of the key did not match the hash that was provided.",
        ));
    }
    Ok(Some(CustomerKey {
        key: Key(key),
        key_md5: md5.to_string(),
    }))
}

/// The encryption a write (PutObject, CopyObject, CreateMultipartUpload,
/// a POST form's fields as headers) asks for: SSE-C, or
/// `x-amz-server-side-encryption` AES256 or aws:kms (with a key id or the
/// default key), never both; `None`: the bucket's default.
pub(crate) fn sse_request(headers: &http::HeaderMap) -> S3Result<Option<SseRequest>> {
    let customer = customer_key(headers, CUSTOMER)?;
    let sse = header(headers, SSE);
    let key_id = header(headers, KMS_KEY_ID);
    if header(headers, "x-amz-server-side-encryption-context").is_some() {
        return Err(s3_error!(
            NotImplemented,
            "x-amz-server-side-encryption-context is not implemented by rsgw: its key backend takes no encryption context"
        ));
    }
    match header(headers, "x-amz-server-side-encryption-bucket-key-enabled") {
        None => {}
        Some(v) if v.eq_ignore_ascii_case("false") => {}
        Some(_) => {
            return Err(s3_error!(
                NotImplemented,
                "S3 Bucket Keys are not implemented by rsgw: each object's key is derived from the master key (x-amz-server-side-encryption-bucket-key-enabled: true is refused)"
            ));
        }
    }
    match (customer, sse, key_id) {
        (Some(_), Some(_), _) | (Some(_), _, Some(_)) => Err(invalid(
            "Server Side Encryption with Customer provided key is incompatible with the encryption method specified",
        )),
        (Some(k), None, None) => Ok(Some(SseRequest::CustomerKey(k))),
        (None, None, None) => Ok(None),
        (None, None, Some(_)) => Err(invalid(
            "x-amz-server-side-encryption-aws-kms-key-id needs x-amz-server-side-encryption: aws:kms",
        )),
        (None, Some("AES256"), None) => Ok(Some(SseRequest::S3)),
        (None, Some("AES256"), Some(_)) => Err(invalid(
            "x-amz-server-side-encryption-aws-kms-key-id is only valid with x-amz-server-side-encryption: aws:kms",
        )),
        (None, Some("aws:kms"), id) => Ok(Some(SseRequest::Kms {
            key_id: id.unwrap_or_default().to_string(),
        })),
        (None, Some(other), _) => Err(invalid(&format!(
            "The encryption method specified is not supported: '{other}' (AES256 or aws:kms)"
        ))),
    }
}

/// What an answer says of an object's (or upload's) encryption:
/// `x-amz-server-side-encryption`, `-aws-kms-key-id`, `-customer-algorithm`
/// and `-customer-key-MD5`, as s3s' output fields.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Echo {
    pub server_side_encryption: Option<ServerSideEncryption>,
    pub ssekms_key_id: Option<String>,
    pub sse_customer_algorithm: Option<String>,
    pub sse_customer_key_md5: Option<String>,
}

/// The headers that answer a request on data encrypted as `sse` says.
pub(crate) fn echo(sse: Option<&Sse>) -> Echo {
    let Some(sse) = sse else {
        return Echo::default();
    };
    match sse.mode {
        SseMode::CustomerKey => Echo {
            sse_customer_algorithm: Some("AES256".into()),
            sse_customer_key_md5: Some(sse.key_md5.clone()),
            ..Echo::default()
        },
        SseMode::S3 | SseMode::Kms => Echo {
            server_side_encryption: sse
                .header()
                .map(|h| ServerSideEncryption::from(h.to_string())),
            ssekms_key_id: (sse.mode == SseMode::Kms).then(|| sse.key_id.clone()),
            ..Echo::default()
        },
    }
}

/// The headers that answer a request that sent (and had checked) the
/// customer key `key`: UploadPart's and UploadPartCopy's.
pub(crate) fn echo_customer(key: Option<&CustomerKey>) -> Echo {
    match key {
        None => Echo::default(),
        Some(k) => Echo {
            sse_customer_algorithm: Some("AES256".into()),
            sse_customer_key_md5: Some(k.key_md5.clone()),
            ..Echo::default()
        },
    }
}

/// Sets an output's encryption fields (outputs share their names) from
/// an [`Echo`].
macro_rules! with_echo {
    ($out:expr, $echo:expr) => {{
        let e = $echo;
        let mut out = $out;
        out.server_side_encryption = e.server_side_encryption;
        out.ssekms_key_id = e.ssekms_key_id;
        out.sse_customer_algorithm = e.sse_customer_algorithm;
        out.sse_customer_key_md5 = e.sse_customer_key_md5;
        out
    }};
}
pub(crate) use with_echo;

#[cfg(test)]
mod tests {
    use super::*;
    use rsgw_gateway::KmsBackend;

    fn headers(pairs: &[(&str, &str)]) -> http::HeaderMap {
        pairs
            .iter()
            .map(|&(k, v)| {
                (
                    http::HeaderName::from_bytes(k.as_bytes()).expect("name"),
                    http::HeaderValue::from_str(v).expect("value"),
                )
            })
            .collect()
    }

    const KEY: [u8; KEY_LEN] = [0x42; KEY_LEN];

    fn ssec(prefix: &str, alg: &str, key: &[u8], md5_of: &[u8]) -> http::HeaderMap {
        headers(&[
            (&format!("{prefix}algorithm"), alg),
            (&format!("{prefix}key"), &STANDARD.encode(key)),
            (
                &format!("{prefix}key-md5"),
                &STANDARD.encode(Md5::digest(md5_of)),
            ),
        ])
    }

    fn code<T: std::fmt::Debug>(r: S3Result<T>) -> String {
        let e = r.expect_err("an error");
        format!(
            "{} {}",
            e.code().as_str(),
            e.status_code().map_or(0, |s| s.as_u16())
        )
    }

    #[test]
    fn customer_keys_are_checked_as_aws_checks_them() {
        let ok = customer_key(&ssec(CUSTOMER, "AES256", &KEY, &KEY), CUSTOMER)
            .expect("valid")
            .expect("a key");
        assert_eq!(ok.key, Key(KEY));
        assert_eq!(ok.key_md5, STANDARD.encode(Md5::digest(KEY)));
        assert_eq!(customer_key(&headers(&[]), CUSTOMER).expect("none"), None);
        // the copy source's headers are apart from the object's
        assert_eq!(
            customer_key(&ssec(CUSTOMER, "AES256", &KEY, &KEY), COPY_SOURCE_CUSTOMER)
                .expect("none"),
            None
        );
        assert!(
            customer_key(
                &ssec(COPY_SOURCE_CUSTOMER, "AES256", &KEY, &KEY),
                COPY_SOURCE_CUSTOMER
            )
            .expect("valid")
            .is_some()
        );
        let bad = [
            (
                ssec(CUSTOMER, "AES128", &KEY, &KEY),
                "InvalidEncryptionAlgorithmError 400",
            ),
            (
                ssec(CUSTOMER, "AES256", &KEY[..16], &KEY[..16]),
                "InvalidArgument 400",
            ),
            (
                ssec(CUSTOMER, "AES256", &KEY, b"another key"),
                "InvalidArgument 400",
            ),
            (
                headers(&[("x-amz-server-side-encryption-customer-algorithm", "AES256")]),
                "InvalidArgument 400",
            ),
        ];
        for (h, want) in bad {
            assert_eq!(code(customer_key(&h, CUSTOMER)), want, "{h:?}");
        }
    }

    #[test]
    fn a_write_asks_for_one_encryption() {
        let req = |pairs: &[(&str, &str)]| sse_request(&headers(pairs));
        assert_eq!(req(&[]).expect("none"), None);
        assert_eq!(req(&[(SSE, "AES256")]).expect("s3"), Some(SseRequest::S3));
        assert_eq!(
            req(&[(SSE, "aws:kms"), (KMS_KEY_ID, "k1")]).expect("kms"),
            Some(SseRequest::Kms {
                key_id: "k1".into()
            })
        );
        assert_eq!(
            req(&[(SSE, "aws:kms")]).expect("kms"),
            Some(SseRequest::Kms {
                key_id: String::new()
            })
        );
        assert!(matches!(
            sse_request(&ssec(CUSTOMER, "AES256", &KEY, &KEY)).expect("sse-c"),
            Some(SseRequest::CustomerKey(_))
        ));
        for bad in [
            vec![(SSE, "aws:kms:dsse")],
            vec![(SSE, "AES256"), (KMS_KEY_ID, "k1")],
            vec![(KMS_KEY_ID, "k1")],
        ] {
            assert_eq!(code(req(&bad)), "InvalidArgument 400", "{bad:?}");
        }
        let mut both = ssec(CUSTOMER, "AES256", &KEY, &KEY);
        both.insert(SSE, http::HeaderValue::from_static("AES256"));
        assert_eq!(code(sse_request(&both)), "InvalidArgument 400");
        assert_eq!(
            code(req(&[
                (SSE, "aws:kms"),
                ("x-amz-server-side-encryption-context", "e30=")
            ])),
            "NotImplemented 501"
        );
        assert_eq!(
            code(req(&[
                (SSE, "aws:kms"),
                ("x-amz-server-side-encryption-bucket-key-enabled", "true")
            ])),
            "NotImplemented 501"
        );
        assert_eq!(
            req(&[
                (SSE, "aws:kms"),
                ("x-amz-server-side-encryption-bucket-key-enabled", "false")
            ])
            .expect("no bucket key"),
            Some(SseRequest::Kms {
                key_id: String::new()
            })
        );
    }

    #[test]
    fn answers_name_the_encryption() {
        assert_eq!(echo(None), Echo::default());
        let mut sse = Sse {
            mode: SseMode::CustomerKey,
            key_md5: "bWQ1".into(),
            key_id: String::new(),
            kms_backend: KmsBackend::Testing,
            key_selector: String::new(),
            parts: Vec::new(),
        };
        let e = echo(Some(&sse));
        assert_eq!(e.sse_customer_algorithm.as_deref(), Some("AES256"));
        assert_eq!(e.sse_customer_key_md5.as_deref(), Some("bWQ1"));
        assert_eq!(e.server_side_encryption, None);
        sse.mode = SseMode::Kms;
        sse.key_id = "k1".into();
        let e = echo(Some(&sse));
        assert_eq!(
            e.server_side_encryption
                .as_ref()
                .map(ServerSideEncryption::as_str),
            Some("aws:kms")
        );
        assert_eq!(e.ssekms_key_id.as_deref(), Some("k1"));
        assert_eq!(e.sse_customer_key_md5, None);
        sse.mode = SseMode::S3;
        let e = echo(Some(&sse));
        assert_eq!(
            e.server_side_encryption
                .as_ref()
                .map(ServerSideEncryption::as_str),
            Some("AES256")
        );
        assert_eq!(e.ssekms_key_id, None);
    }
}
