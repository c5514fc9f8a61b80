//! Server-side encryption's records: how an object's data is encrypted at
//! rest (`ObjectMeta::sse`, `UploadInfo::sse`), what a request asks for,
//! a bucket's default (PutBucketEncryption) and the keys the gateway holds
//! (docs/layout.md, decision record 0011).
//!
//! The data is encrypted as radosgw encrypts it (AES-256-CBC in 4 KiB
//! chunks, `rules::crypt`), with the customer's key (SSE-C) or with a key
//! derived from a master key and a random selector stored with the object
//! (SSE-S3, SSE-KMS with the `testing` backend), or with the key a KMIP
//! server holds (SSE-KMS with the `kmip` backend); the customer's key is
//! never stored, only its MD5.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// Bytes of an AES-256 key.
pub const KEY_LEN: usize = 32;

/// An AES-256 key. Its `Debug` shows no byte of it.
#[derive(Clone, PartialEq, Eq)]
pub struct Key(pub [u8; KEY_LEN]);

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Key(..)")
    }
}

/// Who holds the key of an encrypted object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SseMode {
    /// SSE-C: the client sends its key with every request.
    #[serde(rename = "sse-c")]
    CustomerKey,
    /// SSE-S3 (`x-amz-server-side-encryption: AES256`): the gateway's own
    /// master key (`crypt.sse_s3_key`).
    #[serde(rename = "sse-s3")]
    S3,
    /// SSE-KMS (`aws:kms`): a master key named by its id in the key
    /// backend (`crypt.kms_keys`).
    #[serde(rename = "sse-kms")]
    Kms,
}

/// Where an SSE-KMS object's master key is held, which also says how the
/// object's key follows from it (radosgw's `rgw_crypt_s3_kms_backend`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum KmsBackend {
    /// In the gateway's config (`crypt.kms_keys`); the object's key is
    /// its key selector encrypted with the master key.
    #[default]
    #[serde(rename = "testing")]
    Testing,
    /// On a KMIP server; its key encrypts the data itself, as radosgw's
    /// `kmip` backend does.
    #[serde(rename = "kmip")]
    Kmip,
}

impl KmsBackend {
    /// Whether this is the default, left out of records.
    pub fn is_testing(&self) -> bool {
        *self == KmsBackend::Testing
    }

    /// Its name in the config (`crypt.kms_backend`).
    pub fn name(self) -> &'static str {
        match self {
            KmsBackend::Testing => "testing",
            KmsBackend::Kmip => "kmip",
        }
    }
}

/// How an object's data (or an upload's parts) is encrypted at rest.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Sse {
    /// Who holds the key.
    pub mode: SseMode,
    /// SSE-C: base64 of the key's MD5, as the client sends it (the key
    /// itself is never stored).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_md5: String,
    /// SSE-KMS: the master key's id.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_id: String,
    /// SSE-KMS: where the master key is held. Records written before
    /// KMIP existed have none: `testing`.
    #[serde(default, skip_serializing_if = "KmsBackend::is_testing")]
    pub kms_backend: KmsBackend,
    /// SSE-S3 and SSE-KMS: hex of the 32 random bytes that, encrypted with
    /// the master key, make the object's key (radosgw's key selector).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_selector: String,
    /// A multipart object's part sizes, in order: each part is encrypted
    /// on its own, from offset 0 (radosgw's `crypt.parts`). Empty: the data
    /// is encrypted as one stream.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<u64>,
}

/// A customer's key as a request sends it (SSE-C), checked against its MD5.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomerKey {
    /// The key.
    pub key: Key,
    /// Base64 of its MD5, as sent.
    pub key_md5: String,
}

/// The encryption a write asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseRequest {
    /// SSE-C with this key.
    CustomerKey(CustomerKey),
    /// SSE-S3.
    S3,
    /// SSE-KMS with this master key id ("": the backend's default).
    Kms {
        /// The master key's id.
        key_id: String,
    },
}

/// A bucket's default encryption (PutBucketEncryption): applied to every
/// object written without encryption headers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BucketEncryption {
    /// SSE-S3 or SSE-KMS (a default cannot name a customer's key).
    pub mode: SseMode,
    /// SSE-KMS: the master key id ("": the backend's default).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub key_id: String,
}

/// How the gateway reaches a KMIP server (`crypt.kmip_*`).
#[derive(Clone)]
pub struct KmipOptions {
    /// `host:port`.
    pub addr: String,
    /// The TLS client: the server's CA, the gateway's certificate and key.
    pub tls: Arc<rustls::ClientConfig>,
    /// The name a key id is known by: `$keyid` replaced by the id.
    pub key_template: String,
    /// The most one exchange with the server may take.
    pub timeout: Duration,
    /// How long a fetched key is used without asking again.
    pub cache_ttl: Duration,
}

impl fmt::Debug for KmipOptions {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KmipOptions")
            .field("addr", &self.addr)
            .field("key_template", &self.key_template)
            .field("timeout", &self.timeout)
            .field("cache_ttl", &self.cache_ttl)
            .finish_non_exhaustive()
    }
}

impl KmipOptions {
    /// The name the KMIP server knows `key_id` by.
    pub fn key_name(&self, key_id: &str) -> String {
        if self.key_template.is_empty() {
            key_id.to_string()
        } else {
            self.key_template.replace("$keyid", key_id)
        }
    }
}

/// The keys the gateway holds and how it serves encryption
/// (`[crypt]` in the config).
#[derive(Debug, Clone, Default)]
pub struct CryptOptions {
    /// Refuse encryption requests made over plain HTTP
    /// (`rgw_crypt_require_ssl`).
    pub require_ssl: bool,
    /// SSE-KMS master keys by id (radosgw's `testing` backend,
    /// `rgw_crypt_s3_kms_encryption_keys`).
    pub kms_keys: BTreeMap<String, Key>,
    /// The key id SSE-KMS uses when a request names none.
    pub kms_default_key: String,
    /// SSE-KMS keys come from this KMIP server (`kms_keys` unused).
    pub kmip: Option<KmipOptions>,
    /// The SSE-S3 master key; `None`: SSE-S3 is refused.
    pub sse_s3_key: Option<Key>,
}

impl CryptOptions {
    /// Where new SSE-KMS objects' master keys are held.
    pub fn kms_backend(&self) -> KmsBackend {
        if self.kmip.is_some() {
            KmsBackend::Kmip
        } else {
            KmsBackend::Testing
        }
    }
}

impl Sse {
    /// The segments encrypted on their own, as (start, length) in the
    /// object's data: its parts, or all of it.
    pub fn segments(&self, size: u64) -> Vec<(u64, u64)> {
        if self.parts.is_empty() {
            return vec![(0, size)];
        }
        let mut start = 0;
        self.parts
            .iter()
            .map(|&len| {
                let s = (start, len);
                start += len;
                s
            })
            .collect()
    }

    /// What S3 calls the mode in `x-amz-server-side-encryption` (SSE-C
    /// objects have none: their answers name the customer algorithm).
    pub fn header(&self) -> Option<&'static str> {
        match self.mode {
            SseMode::CustomerKey => None,
            SseMode::S3 => Some("AES256"),
            SseMode::Kms => Some("aws:kms"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_decode_and_omit_what_they_lack() {
        let sse = Sse {
            mode: SseMode::CustomerKey,
            key_md5: "md5".into(),
            key_id: String::new(),
            kms_backend: KmsBackend::Testing,
            key_selector: String::new(),
            parts: Vec::new(),
        };
        let json = serde_json::to_string(&sse).expect("encode");
        assert_eq!(json, r#"{"mode":"sse-c","key_md5":"md5"}"#);
        assert_eq!(serde_json::from_str::<Sse>(&json).expect("decode"), sse);
        let kms: Sse = serde_json::from_str(
            r#"{"mode":"sse-kms","key_id":"k","key_selector":"00","parts":[5,1]}"#,
        )
        .expect("decode");
        assert_eq!(kms.segments(6), vec![(0, 5), (5, 1)]);
        assert_eq!(kms.kms_backend, KmsBackend::Testing, "records before KMIP");
        let kmip = Sse {
            kms_backend: KmsBackend::Kmip,
            ..kms.clone()
        };
        let json = serde_json::to_string(&kmip).expect("encode");
        assert!(json.contains(r#""kms_backend":"kmip""#), "{json}");
        assert_eq!(serde_json::from_str::<Sse>(&json).expect("decode"), kmip);
        assert_eq!(kms.header(), Some("aws:kms"));
        assert_eq!(sse.segments(7), vec![(0, 7)]);
        assert_eq!(sse.header(), None);
    }

    #[test]
    fn keys_do_not_print() {
        assert_eq!(format!("{:?}", Key([7; KEY_LEN])), "Key(..)");
    }
}
