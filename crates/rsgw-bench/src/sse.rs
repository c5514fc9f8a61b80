//! Server-side encryption a load asks for (`rsgw bench s3 --sse`): the
//! headers each object write and read sends, so that what encryption
//! costs a gateway is measured with the same load as without it.

use std::str::FromStr;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use md5::{Digest, Md5};

/// The customer key of `--sse c`: the bench's own, the same on every run
/// (objects written with it are read back by a later `--sse c` run).
const CUSTOMER_KEY: &[u8; 32] = b"rsgw bench SSE-C key, 32 bytes!!";

/// What `--sse` asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Sse {
    /// SSE-C (`c`): the bench's customer key on every write and read.
    Customer,
    /// SSE-KMS (`kms:ID`, or `kms` for the gateway's default key): on
    /// writes; reads need nothing.
    Kms(String),
    /// SSE-S3 (`s3`): on writes; reads need nothing.
    S3,
}

impl FromStr for Sse {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "c" => Ok(Sse::Customer),
            "s3" => Ok(Sse::S3),
            "kms" => Ok(Sse::Kms(String::new())),
            _ => match s.strip_prefix("kms:") {
                Some(id) if !id.is_empty() => Ok(Sse::Kms(id.to_string())),
                _ => Err(format!("'{s}' is not c, s3, kms or kms:KEY-ID")),
            },
        }
    }
}

/// The `x-amz-*` headers of object writes and reads.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct ObjectHeaders {
    /// On every PutObject.
    pub write: Vec<(String, String)>,
    /// On every GetObject.
    pub read: Vec<(String, String)>,
}

impl ObjectHeaders {
    /// The headers `sse` needs (none without it).
    pub fn for_sse(sse: Option<&Sse>) -> Self {
        let pair = |k: &str, v: &str| (k.to_string(), v.to_string());
        match sse {
            None => ObjectHeaders::default(),
            Some(Sse::Customer) => {
                let customer = vec![
                    pair("x-amz-server-side-encryption-customer-algorithm", "AES256"),
                    pair(
                        "x-amz-server-side-encryption-customer-key",
                        &STANDARD.encode(CUSTOMER_KEY),
                    ),
                    pair(
                        "x-amz-server-side-encryption-customer-key-md5",
                        &STANDARD.encode(Md5::digest(CUSTOMER_KEY)),
                    ),
                ];
                ObjectHeaders {
                    write: customer.clone(),
                    read: customer,
                }
            }
            Some(Sse::S3) => ObjectHeaders {
                write: vec![pair("x-amz-server-side-encryption", "AES256")],
                read: Vec::new(),
            },
            Some(Sse::Kms(id)) => {
                let mut write = vec![pair("x-amz-server-side-encryption", "aws:kms")];
                if !id.is_empty() {
                    write.push(pair("x-amz-server-side-encryption-aws-kms-key-id", id));
                }
                ObjectHeaders {
                    write,
                    read: Vec::new(),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sse_arguments_and_their_headers() {
        assert_eq!("c".parse::<Sse>(), Ok(Sse::Customer));
        assert_eq!("s3".parse::<Sse>(), Ok(Sse::S3));
        assert_eq!("kms".parse::<Sse>(), Ok(Sse::Kms(String::new())));
        assert_eq!("kms:k1".parse::<Sse>(), Ok(Sse::Kms("k1".into())));
        for bad in ["", "kms:", "aes", "C"] {
            assert!(bad.parse::<Sse>().is_err(), "{bad}");
        }
        assert_eq!(ObjectHeaders::for_sse(None), ObjectHeaders::default());
        let c = ObjectHeaders::for_sse(Some(&Sse::Customer));
        assert_eq!(c.write, c.read);
        let md5 = &c.write[2].1;
        assert_eq!(STANDARD.decode(md5).expect("base64").len(), 16);
        let k = ObjectHeaders::for_sse(Some(&Sse::Kms("k1".into())));
        assert_eq!(k.write.len(), 2);
        assert!(k.read.is_empty(), "a KMS object is read without headers");
        assert_eq!(ObjectHeaders::for_sse(Some(&Sse::S3)).write[0].1, "AES256");
    }
}
