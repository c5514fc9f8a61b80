//! `[crypt]`: server-side encryption's settings and keys, and how the
//! keys are written (radosgw's `testing` KMS backend form), or where a
//! KMIP server that holds them is (radosgw's `kmip` backend).

use serde::{Deserialize, Serialize};

use crate::ConfigError;

/// `[crypt]`: server-side encryption. SSE-C needs nothing here; SSE-S3
/// and SSE-KMS need master keys, which this section holds (radosgw's
/// `testing` key backend): keep the file readable by the gateway only.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(default, deny_unknown_fields)]
pub struct CryptConfig {
    /// Refuse requests that send a customer key (SSE-C) or ask for SSE-KMS
    /// over plain HTTP, as radosgw's `rgw_crypt_require_ssl`: a key sent in
    /// the clear is a key given away. SSE-S3 and bucket defaults send no
    /// key. Default true.
    pub require_ssl: bool,
    /// SSE-KMS master keys, in radosgw's `rgw_crypt_s3_kms_encryption_keys`
    /// form: `id=base64-of-32-bytes` pairs separated by spaces, commas or
    /// semicolons. A request names one in
    /// `x-amz-server-side-encryption-aws-kms-key-id`. Empty: SSE-KMS is
    /// refused (`501 NotImplemented`). Default empty.
    pub kms_keys: String,
    /// The SSE-KMS key used when a request (or a bucket's default) names
    /// none; one of `kms_keys`' ids (with the `testing` backend). Empty:
    /// such requests are refused. Default empty.
    pub kms_default_key: String,
    /// Where SSE-KMS master keys come from, radosgw's
    /// `rgw_crypt_s3_kms_backend`: `testing` (`kms_keys`, in this file; an
    /// object's key is derived from the master key and a random selector)
    /// or `kmip` (a KMIP server, `kmip_*`; the key the server holds
    /// encrypts the data, as radosgw's `kmip` backend does). Default
    /// `testing`.
    pub kms_backend: String,
    /// The KMIP server, `host:port` (radosgw's `rgw_crypt_kmip_addr`).
    /// Spoken to over TLS with a client certificate. Default empty.
    pub kmip_addr: String,
    /// PEM file of the CA that signed the KMIP server's certificate
    /// (`rgw_crypt_kmip_ca_path`). Default empty.
    pub kmip_ca_path: String,
    /// PEM file of the gateway's client certificate for the KMIP server
    /// (`rgw_crypt_kmip_client_cert`). Default empty.
    pub kmip_client_cert: String,
    /// PEM file of that certificate's private key
    /// (`rgw_crypt_kmip_client_key`). Default empty.
    pub kmip_client_key: String,
    /// The name the KMIP server knows a key id by: `$keyid` is replaced by
    /// the id a request (or `kms_default_key`) names
    /// (`rgw_crypt_kmip_kms_key_template`). The gateway asks the server to
    /// Locate the one key of that name, then Gets it. Default `$keyid`.
    pub kmip_kms_key_template: String,
    /// How long one exchange with the KMIP server (connection, TLS, Locate
    /// and Get) may take before the request fails with `503`
    /// (milliseconds). Default 5000.
    pub kmip_timeout_ms: u64,
    /// How long a key fetched from the KMIP server is kept in memory and
    /// used without asking again (seconds); 0 asks for every request, as
    /// radosgw does. A key revoked or destroyed on the server stops being
    /// served within this time. Default 60.
    pub kmip_key_cache_s: u64,
    /// The SSE-S3 master key (`x-amz-server-side-encryption: AES256`),
    /// base64 of 32 bytes. Empty: SSE-S3 is refused (`501
    /// NotImplemented`). Default empty.
    pub sse_s3_key: String,
}

impl Default for CryptConfig {
    fn default() -> Self {
        CryptConfig {
            require_ssl: true,
            kms_keys: String::new(),
            kms_default_key: String::new(),
            kms_backend: "testing".into(),
            kmip_addr: String::new(),
            kmip_ca_path: String::new(),
            kmip_client_cert: String::new(),
            kmip_client_key: String::new(),
            kmip_kms_key_template: "$keyid".into(),
            kmip_timeout_ms: 5000,
            kmip_key_cache_s: 60,
            sse_s3_key: String::new(),
        }
    }
}

/// Bytes of an AES-256 key.
const CRYPT_KEY_LEN: usize = 32;

impl CryptConfig {
    /// `kms_keys` parsed: each id's key.
    pub fn parsed_kms_keys(
        &self,
    ) -> Result<std::collections::BTreeMap<String, [u8; CRYPT_KEY_LEN]>, ConfigError> {
        self.kms_keys
            .split([' ', ',', ';', '\t'])
            .filter(|p| !p.is_empty())
            .map(|pair| {
                let (id, key) = pair.split_once('=').ok_or_else(|| ConfigError::Value {
                    key: "crypt.kms_keys",
                    message: format!("'{pair}' is not id=base64-key"),
                })?;
                let key = crypt_key(key.trim()).map_err(|message| ConfigError::Value {
                    key: "crypt.kms_keys",
                    message: format!("key '{id}': {message}"),
                })?;
                Ok((id.trim().to_string(), key))
            })
            .collect()
    }

    /// Whether SSE-KMS keys come from a KMIP server (`kms_backend =
    /// "kmip"`).
    pub fn uses_kmip(&self) -> bool {
        self.kms_backend == "kmip"
    }

    /// Checks `kms_backend` and, for `kmip`, that the server and the three
    /// PEM files are named.
    pub fn validate_backend(&self) -> Result<(), ConfigError> {
        match self.kms_backend.as_str() {
            "testing" => Ok(()),
            "kmip" => {
                for (key, v) in [
                    ("crypt.kmip_addr", &self.kmip_addr),
                    ("crypt.kmip_ca_path", &self.kmip_ca_path),
                    ("crypt.kmip_client_cert", &self.kmip_client_cert),
                    ("crypt.kmip_client_key", &self.kmip_client_key),
                ] {
                    if v.is_empty() {
                        return Err(ConfigError::Value {
                            key,
                            message: "needed with crypt.kms_backend = \"kmip\"".into(),
                        });
                    }
                }
                if self.kmip_timeout_ms == 0 {
                    return Err(ConfigError::Value {
                        key: "crypt.kmip_timeout_ms",
                        message: "must be above 0".into(),
                    });
                }
                Ok(())
            }
            other => Err(ConfigError::Value {
                key: "crypt.kms_backend",
                message: format!(
                    "'{other}' is not a key backend rsgw has: \"testing\" (crypt.kms_keys) or \"kmip\""
                ),
            }),
        }
    }

    /// `sse_s3_key` parsed; `None` when empty.
    pub fn parsed_sse_s3_key(&self) -> Result<Option<[u8; CRYPT_KEY_LEN]>, ConfigError> {
        if self.sse_s3_key.is_empty() {
            return Ok(None);
        }
        crypt_key(&self.sse_s3_key)
            .map(Some)
            .map_err(|message| ConfigError::Value {
                key: "crypt.sse_s3_key",
                message,
            })
    }
}

/// A master key: base64 of 32 bytes.
fn crypt_key(b64: &str) -> Result<[u8; CRYPT_KEY_LEN], String> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(b64)
        .ok()
        .and_then(|k| k.try_into().ok())
        .ok_or_else(|| "must be base64 of 32 bytes (openssl rand -base64 32)".into())
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::Config;

    /// Encryption keys in radosgw's form; a malformed one, or a default
    /// that names no key, is an error naming the key.
    #[test]
    fn crypt_keys_parse_as_radosgw_writes_them() {
        let k1 = "MTExMTExMTExMTExMTExMTExMTExMTExMTExMTExMTE="; // 32 x '1'
        let k2 = "MjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjIyMjI="; // 32 x '2'
        let text = format!(
            "[crypt]\nkms_keys = \"testkey-1={k1} ,testkey-2={k2};\"\nkms_default_key = \"testkey-2\"\nsse_s3_key = \"{k1}\"\n"
        );
        let cfg = Config::parse(&text, Path::new("x.toml")).expect("parse");
        let keys = cfg.crypt.parsed_kms_keys().expect("keys");
        assert_eq!(keys.len(), 2);
        assert_eq!(keys["testkey-1"], [b'1'; 32]);
        assert_eq!(keys["testkey-2"], [b'2'; 32]);
        assert_eq!(cfg.crypt.parsed_sse_s3_key().expect("s3"), Some([b'1'; 32]));
        assert_eq!(
            CryptConfig::default().parsed_sse_s3_key().expect("none"),
            None
        );
        assert!(CryptConfig::default().require_ssl, "as radosgw's default");
        assert!(!CryptConfig::default().uses_kmip());
        let kmip = Config::parse(
            "[crypt]\nkms_backend = \"kmip\"\nkmip_addr = \"127.0.0.1:5696\"\nkmip_ca_path = \"ca.pem\"\nkmip_client_cert = \"c.pem\"\nkmip_client_key = \"k.pem\"\n",
            Path::new("x.toml"),
        )
        .expect("a KMIP backend");
        assert!(kmip.crypt.uses_kmip());
        assert_eq!(kmip.crypt.kmip_kms_key_template, "$keyid");
        for (bad, key) in [
            ("kms_keys = \"k1\"", "crypt.kms_keys"),
            ("kms_keys = \"k1=c2hvcnQ=\"", "crypt.kms_keys"),
            ("sse_s3_key = \"not base64!\"", "crypt.sse_s3_key"),
            ("kms_default_key = \"missing\"", "crypt.kms_default_key"),
            ("kms_backend = \"vault\"", "crypt.kms_backend"),
            ("kms_backend = \"kmip\"", "crypt.kmip_addr"),
            (
                "kms_backend = \"kmip\"\nkmip_addr = \"127.0.0.1:5696\"\nkmip_ca_path = \"ca.pem\"\nkmip_client_cert = \"c.pem\"",
                "crypt.kmip_client_key",
            ),
        ] {
            let e =
                Config::parse(&format!("[crypt]\n{bad}\n"), Path::new("x.toml")).expect_err(bad);
            assert!(e.to_string().contains(key), "{bad}: {e}");
        }
    }
}
