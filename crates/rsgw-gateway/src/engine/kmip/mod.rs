//! SSE-KMS master keys from a KMIP server, as radosgw's `kmip` backend
//! fetches them: over TLS with the gateway's client certificate, a Locate
//! of the one key named after the key id (`crypt.kmip_kms_key_template`),
//! then a Get of it, in KMIP 1.2's TTLV ([`ttlv`]). Keys are kept in memory
//! for `crypt.kmip_key_cache_s`.

pub(crate) mod ttlv;

use std::collections::HashMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use crate::model::crypt::{KEY_LEN, Key, KmipOptions};
use crate::model::error::GatewayError;
use ttlv::{HEADER_LEN, Item, TtlvError, Value, tag};

/// KMIP's Locate and Get operations.
const LOCATE: u32 = 0x08;
const GET: u32 = 0x0A;
/// A Name attribute's type: uninterpreted text.
const NAME_UNINTERPRETED_TEXT: u32 = 1;
/// A Result Status of success.
const SUCCESS: u32 = 0;
/// The largest response taken (a key lookup's answer is a few hundred bytes).
const MAX_RESPONSE: usize = 64 << 10;

/// The TLS client a KMIP server is spoken to with: its CA (`ca`), the
/// gateway's certificate chain (`cert`) and private key (`key`), PEM files.
pub fn kmip_tls(ca: &Path, cert: &Path, key: &Path) -> Result<rustls::ClientConfig, String> {
    let named = |path: &Path, e: &dyn std::fmt::Display| format!("{}: {e}", path.display());
    let mut roots = rustls::RootCertStore::empty();
    for c in CertificateDer::pem_file_iter(ca).map_err(|e| named(ca, &e))? {
        roots
            .add(c.map_err(|e| named(ca, &e))?)
            .map_err(|e| named(ca, &e))?;
    }
    if roots.is_empty() {
        return Err(named(ca, &"no certificate in it"));
    }
    let chain = CertificateDer::pem_file_iter(cert)
        .map_err(|e| named(cert, &e))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| named(cert, &e))?;
    let private = PrivateKeyDer::from_pem_file(key).map_err(|e| named(key, &e))?;
    rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .map_err(|e| e.to_string())?
        .with_root_certificates(roots)
        .with_client_auth_cert(chain, private)
        .map_err(|e| named(cert, &e))
}

/// Why a key could not be had from the KMIP server.
#[derive(Debug, thiserror::Error)]
pub(crate) enum KmipError {
    /// No key has the name.
    #[error("the KMIP server has no key named '{0}'")]
    NotFound(String),
    /// More than one key has the name.
    #[error("the KMIP server has {1} keys named '{0}'")]
    Ambiguous(String, usize),
    /// The key is not an AES-256 key.
    #[error("the KMIP server's key '{0}' is {1} bytes, not an AES-256 key")]
    NotAes256(String, usize),
    /// Connecting, TLS, or the exchange failed or took too long.
    #[error("the KMIP server at {addr}: {why}")]
    Unreachable {
        /// `host:port`.
        addr: String,
        /// What went wrong.
        why: String,
    },
    /// The server refused an operation.
    #[error("the KMIP server refused {op}: status {status}, reason {reason}: {message}")]
    Refused {
        /// Locate or Get.
        op: &'static str,
        /// Its Result Status.
        status: u32,
        /// Its Result Reason.
        reason: u32,
        /// Its Result Message.
        message: String,
    },
    /// The answer is not what KMIP says it is.
    #[error("the KMIP server's answer to {0}: {1}")]
    Malformed(&'static str, String),
}

impl From<KmipError> for GatewayError {
    fn from(e: KmipError) -> Self {
        match e {
            KmipError::NotFound(_) | KmipError::Ambiguous(..) | KmipError::NotAes256(..) => {
                GatewayError::InvalidArgument(format!("Invalid arguments for KMS key: {e}"))
            }
            other => {
                tracing::warn!(error = %other, "SSE-KMS key lookup failed");
                GatewayError::KeyServiceUnavailable
            }
        }
    }
}

/// The KMIP server's keys, fetched when first asked for and kept for the
/// cache's time.
pub(crate) struct KmipKeys {
    opts: KmipOptions,
    cache: Mutex<HashMap<String, (Key, Instant)>>,
}

impl KmipKeys {
    /// Keys from the server `opts` names; none fetched yet.
    pub(crate) fn new(opts: KmipOptions) -> Self {
        KmipKeys {
            opts,
            cache: Mutex::new(HashMap::new()),
        }
    }

    /// The key `key_id` names: from the cache while it is fresh, else from
    /// the server (a failure is not kept).
    pub(crate) async fn key(&self, key_id: &str) -> Result<Key, KmipError> {
        let ttl = self.opts.cache_ttl;
        if let Some((k, at)) = self.cached(key_id)
            && at.elapsed() < ttl
        {
            return Ok(k);
        }
        let name = self.opts.key_name(key_id);
        let key = match tokio::time::timeout(self.opts.timeout, self.fetch(&name)).await {
            Ok(r) => r?,
            Err(_) => {
                return Err(self.unreachable(format!("no answer within {:?}", self.opts.timeout)));
            }
        };
        if !ttl.is_zero()
            && let Ok(mut c) = self.cache.lock()
        {
            c.insert(key_id.to_string(), (key.clone(), Instant::now()));
        }
        Ok(key)
    }

    fn cached(&self, key_id: &str) -> Option<(Key, Instant)> {
        self.cache.lock().ok()?.get(key_id).cloned()
    }

    fn unreachable(&self, why: impl ToString) -> KmipError {
        KmipError::Unreachable {
            addr: self.opts.addr.clone(),
            why: why.to_string(),
        }
    }

    /// One connection: Locate `name`, then Get what it found.
    async fn fetch(&self, name: &str) -> Result<Key, KmipError> {
        let host = self
            .opts
            .addr
            .rsplit_once(':')
            .map_or(self.opts.addr.as_str(), |(h, _)| h);
        let server = ServerName::try_from(host.trim_matches(['[', ']']).to_string())
            .map_err(|e| self.unreachable(format!("not a server name: {e}")))?;
        let tcp = TcpStream::connect(&self.opts.addr)
            .await
            .map_err(|e| self.unreachable(e))?;
        let connector = tokio_rustls::TlsConnector::from(self.opts.tls.clone());
        let mut tls = connector
            .connect(server, tcp)
            .await
            .map_err(|e| self.unreachable(format!("TLS: {e}")))?;
        let located = self
            .exchange(&mut tls, "Locate", LOCATE, locate_payload(name))
            .await?;
        let ids: Vec<&str> = located
            .items()
            .iter()
            .filter(|i| i.tag == tag::UNIQUE_IDENTIFIER)
            .filter_map(Item::as_text)
            .collect();
        let id = match ids.as_slice() {
            [] => return Err(KmipError::NotFound(name.to_string())),
            [one] => (*one).to_string(),
            many => return Err(KmipError::Ambiguous(name.to_string(), many.len())),
        };
        let got = self
            .exchange(
                &mut tls,
                "Get",
                GET,
                Item::structure(
                    tag::REQUEST_PAYLOAD,
                    vec![Item::text(tag::UNIQUE_IDENTIFIER, &id)],
                ),
            )
            .await?;
        let _ = tls.shutdown().await;
        let material = got
            .at(&[tag::SYMMETRIC_KEY, tag::KEY_BLOCK, tag::KEY_VALUE])
            .and_then(|v| match &v.value {
                // a key value is its material, or holds it (unwrapped keys)
                Value::Structure(_) => v.find(tag::KEY_MATERIAL),
                _ => Some(v),
            })
            .and_then(|m| match &m.value {
                Value::Bytes(b) => Some(b.as_slice()),
                _ => None,
            })
            .ok_or_else(|| KmipError::Malformed("Get", "no symmetric key's bytes".into()))?;
        <[u8; KEY_LEN]>::try_from(material)
            .map(Key)
            .map_err(|_| KmipError::NotAes256(name.to_string(), material.len()))
    }

    /// Sends one operation and returns its response payload.
    async fn exchange<S>(
        &self,
        conn: &mut S,
        op_name: &'static str,
        op: u32,
        payload: Item,
    ) -> Result<Item, KmipError>
    where
        S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    {
        conn.write_all(&request(op, payload).encode())
            .await
            .map_err(|e| self.unreachable(e))?;
        let mut header = [0u8; HEADER_LEN];
        conn.read_exact(&mut header)
            .await
            .map_err(|e| self.unreachable(e))?;
        let len = ttlv::encoded_len(&header);
        if len > MAX_RESPONSE {
            return Err(KmipError::Malformed(op_name, format!("{len} bytes")));
        }
        let mut msg = header.to_vec();
        msg.resize(len, 0);
        conn.read_exact(&mut msg[HEADER_LEN..])
            .await
            .map_err(|e| self.unreachable(e))?;
        response_payload(op_name, &msg)
    }
}

/// A request message of one batch item (KMIP 1.2).
fn request(op: u32, payload: Item) -> Item {
    Item::structure(
        tag::REQUEST_MESSAGE,
        vec![
            Item::structure(
                tag::REQUEST_HEADER,
                vec![
                    Item::structure(
                        tag::PROTOCOL_VERSION,
                        vec![
                            Item::integer(tag::PROTOCOL_VERSION_MAJOR, 1),
                            Item::integer(tag::PROTOCOL_VERSION_MINOR, 2),
                        ],
                    ),
                    Item::integer(tag::BATCH_COUNT, 1),
                ],
            ),
            Item::structure(
                tag::BATCH_ITEM,
                vec![Item::enumeration(tag::OPERATION, op), payload],
            ),
        ],
    )
}

/// A Locate of the objects named `name`.
fn locate_payload(name: &str) -> Item {
    Item::structure(
        tag::REQUEST_PAYLOAD,
        vec![Item::structure(
            tag::ATTRIBUTE,
            vec![
                Item::text(tag::ATTRIBUTE_NAME, "Name"),
                Item::structure(
                    tag::ATTRIBUTE_VALUE,
                    vec![
                        Item::text(tag::NAME_VALUE, name),
                        Item::enumeration(tag::NAME_TYPE, NAME_UNINTERPRETED_TEXT),
                    ],
                ),
            ],
        )],
    )
}

/// The payload of a response message's one batch item, or the server's
/// refusal.
fn response_payload(op: &'static str, msg: &[u8]) -> Result<Item, KmipError> {
    let bad = |why: String| KmipError::Malformed(op, why);
    let msg = Item::decode(msg).map_err(|e: TtlvError| bad(e.to_string()))?;
    if msg.tag != tag::RESPONSE_MESSAGE {
        return Err(bad(format!("tag {:#08x} is no response message", msg.tag)));
    }
    let item = msg
        .find(tag::BATCH_ITEM)
        .ok_or_else(|| bad("no batch item".into()))?;
    let status = item
        .find(tag::RESULT_STATUS)
        .and_then(Item::as_enumeration)
        .ok_or_else(|| bad("no result status".into()))?;
    if status != SUCCESS {
        return Err(KmipError::Refused {
            op,
            status,
            reason: item
                .find(tag::RESULT_REASON)
                .and_then(Item::as_enumeration)
                .unwrap_or(0),
            message: item
                .find(tag::RESULT_MESSAGE)
                .and_then(Item::as_text)
                .unwrap_or_default()
                .to_string(),
        });
    }
    // a Locate that found nothing may answer without a payload
    Ok(item
        .find(tag::RESPONSE_PAYLOAD)
        .cloned()
        .unwrap_or_else(|| Item::structure(tag::RESPONSE_PAYLOAD, Vec::new())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn response(items: Vec<Item>) -> Vec<u8> {
        Item::structure(
            tag::RESPONSE_MESSAGE,
            vec![Item::structure(tag::BATCH_ITEM, items)],
        )
        .encode()
    }

    #[test]
    fn answers_are_read_or_refused() {
        let ok = response(vec![
            Item::enumeration(tag::OPERATION, LOCATE),
            Item::enumeration(tag::RESULT_STATUS, SUCCESS),
            Item::structure(
                tag::RESPONSE_PAYLOAD,
                vec![Item::text(tag::UNIQUE_IDENTIFIER, "7")],
            ),
        ]);
        let p = response_payload("Locate", &ok).expect("a payload");
        assert_eq!(
            p.find(tag::UNIQUE_IDENTIFIER).and_then(Item::as_text),
            Some("7")
        );
        let empty = response(vec![Item::enumeration(tag::RESULT_STATUS, SUCCESS)]);
        assert!(
            response_payload("Locate", &empty)
                .expect("none")
                .items()
                .is_empty()
        );
        let refused = response(vec![
            Item::enumeration(tag::RESULT_STATUS, 1),
            Item::enumeration(tag::RESULT_REASON, 0x0E),
            Item::text(tag::RESULT_MESSAGE, "Permission denied"),
        ]);
        match response_payload("Get", &refused) {
            Err(KmipError::Refused {
                status: 1,
                reason: 0x0E,
                message,
                ..
            }) => {
                assert_eq!(message, "Permission denied");
            }
            other => panic!("{other:?}"),
        }
        let no_status = response(vec![]);
        assert!(matches!(
            response_payload("Get", &no_status),
            Err(KmipError::Malformed(..))
        ));
        let not_a_response = Item::structure(tag::REQUEST_MESSAGE, vec![]).encode();
        assert!(matches!(
            response_payload("Get", &not_a_response),
            Err(KmipError::Malformed(..))
        ));
    }

    /// The Locate payload for the name `Key1` is byte for byte what
    /// PyKMIP 0.11's encoder writes (`LocateRequestPayload` with a Name
    /// attribute), and decodes back.
    #[test]
    fn a_locate_payload_encodes_as_pykmip_writes_it() {
        let payload = locate_payload("Key1");
        assert_eq!(
            hex::encode(payload.encode()),
            "4200790100000040420008010000003842000a07000000044e616d6500000000\
             42000b010000002042005507000000044b657931000000004200540500000004\
             0000000100000000"
        );
        assert_eq!(Item::decode(&payload.encode()).expect("decode"), payload);
    }

    #[test]
    fn requests_carry_one_batch_item() {
        let r = request(GET, Item::structure(tag::REQUEST_PAYLOAD, vec![]));
        assert_eq!(
            r.at(&[tag::REQUEST_HEADER, tag::BATCH_COUNT])
                .map(|i| &i.value),
            Some(&Value::Integer(1))
        );
        assert_eq!(
            r.at(&[tag::BATCH_ITEM, tag::OPERATION])
                .and_then(Item::as_enumeration),
            Some(GET)
        );
        let l = locate_payload("pykmip-k1");
        assert_eq!(
            l.at(&[tag::ATTRIBUTE, tag::ATTRIBUTE_VALUE, tag::NAME_VALUE])
                .and_then(Item::as_text),
            Some("pykmip-k1")
        );
    }

    #[test]
    fn missing_pem_files_are_named() {
        let e = kmip_tls(
            Path::new("/nonexistent/ca.pem"),
            Path::new("/nonexistent/c.pem"),
            Path::new("/nonexistent/k.pem"),
        )
        .expect_err("no files");
        assert!(e.contains("/nonexistent/ca.pem"), "{e}");
    }
}
