//! The encryption of a new object or upload: what a write asks for (or
//! its bucket's default), checked against the keys the gateway holds, with
//! a fresh random key selector for the keys the gateway derives. Which
//! key reads existing data is `rules::crypt::object_key`'s.

use crate::engine::Engine;
use crate::model::bucket::BucketInfo;
use crate::model::crypt::{KEY_LEN, Key, Sse, SseMode, SseRequest};
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::random_bytes;
use crate::rules::crypt::{check_transport, derive_key, kms_key, sse_s3_key};

impl Engine {
    /// The encryption of a write that asks for `req` into `info` (its
    /// default applies when `req` is `None`), over a `secure` connection
    /// or not: the record to store and the key that encrypts the data, or
    /// `None` for data stored in the clear.
    pub(crate) fn new_sse(
        &self,
        info: &BucketInfo,
        req: Option<&SseRequest>,
        secure: bool,
    ) -> GatewayResult<Option<(Sse, Key)>> {
        let opts = &self.opts.crypt;
        let sse = |mode, key_id: &str, key_selector: String, key_md5: &str| Sse {
            mode,
            key_md5: key_md5.into(),
            key_id: key_id.into(),
            key_selector,
            parts: Vec::new(),
        };
        let derived = |mode, key_id: &str, master: &Key| -> GatewayResult<(Sse, Key)> {
            let selector: [u8; KEY_LEN] = random_bytes(KEY_LEN)
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| GatewayError::InvalidArgument("no randomness for a key".into()))?;
            let key = derive_key(master, &selector);
            Ok((sse(mode, key_id, hex::encode(selector), ""), key))
        };
        let kms = |key_id: &str| -> GatewayResult<(Sse, Key)> {
            let (id, master) = kms_key(opts, key_id)?;
            derived(SseMode::Kms, id, master)
        };
        match req {
            Some(SseRequest::CustomerKey(k)) => {
                check_transport(opts, secure)?;
                Ok(Some((
                    sse(SseMode::CustomerKey, "", String::new(), &k.key_md5),
                    k.key.clone(),
                )))
            }
            Some(SseRequest::S3) => derived(SseMode::S3, "", sse_s3_key(opts)?).map(Some),
            Some(SseRequest::Kms { key_id }) => {
                check_transport(opts, secure)?;
                kms(key_id).map(Some)
            }
            // a bucket's default asks nothing of the client's connection
            None => match &info.encryption {
                None => Ok(None),
                Some(d) if d.mode == SseMode::Kms => kms(&d.key_id).map(Some),
                Some(_) => derived(SseMode::S3, "", sse_s3_key(opts)?).map(Some),
            },
        }
    }
}
