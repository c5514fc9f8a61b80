//! The encryption of a new object or upload: what a write asks for (or
//! its bucket's default), checked against the keys the gateway holds, with
//! a fresh random key selector for the keys the gateway derives; and the
//! SSE-KMS master keys, from the config or the KMIP server. Which key
//! reads existing data is `rules::crypt::object_key`'s.

use crate::engine::Engine;
use crate::model::bucket::BucketInfo;
use crate::model::crypt::{KEY_LEN, Key, Sse, SseMode, SseRequest};
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::random_bytes;
use crate::rules::crypt::{
    check_transport, config_kms_key, derive_key, kms_key_id, kms_object_key, sse_s3_key,
};

impl Engine {
    /// The SSE-KMS key id `key_id` ("": the default one) resolves to, and
    /// its master key: from the config, or from the KMIP server (cached).
    pub(crate) async fn kms_master(&self, key_id: &str) -> GatewayResult<(String, Key)> {
        let opts = &self.opts.crypt;
        let id = kms_key_id(opts, key_id)?;
        let key = match &self.kmip {
            None => config_kms_key(opts, id)?.clone(),
            Some(kmip) => kmip.key(id).await?,
        };
        Ok((id.to_string(), key))
    }

    /// The master key that reads `sse`, when it is SSE-KMS; refused when
    /// another key backend than this gateway's encrypted it.
    pub(crate) async fn sse_master(&self, sse: Option<&Sse>) -> GatewayResult<Option<Key>> {
        let Some(sse) = sse.filter(|s| s.mode == SseMode::Kms) else {
            return Ok(None);
        };
        let ours = self.opts.crypt.kms_backend();
        if sse.kms_backend != ours {
            return Err(GatewayError::NotConfigured(format!(
                "this object's SSE-KMS key is held by the {} key backend; this gateway uses {} (crypt.kms_backend)",
                sse.kms_backend.name(),
                ours.name()
            )));
        }
        self.kms_master(&sse.key_id).await.map(|(_, k)| Some(k))
    }

    /// The encryption of a write that asks for `req` into `info` (its
    /// default applies when `req` is `None`), over a `secure` connection
    /// or not: the record to store and the key that encrypts the data, or
    /// `None` for data stored in the clear.
    pub(crate) async fn new_sse(
        &self,
        info: &BucketInfo,
        req: Option<&SseRequest>,
        secure: bool,
    ) -> GatewayResult<Option<(Sse, Key)>> {
        let opts = &self.opts.crypt;
        let kms_backend = opts.kms_backend();
        let sse = |mode, key_id: &str, key_selector: String, key_md5: &str| Sse {
            mode,
            key_md5: key_md5.into(),
            key_id: key_id.into(),
            kms_backend: if mode == SseMode::Kms {
                kms_backend
            } else {
                Default::default()
            },
            key_selector,
            parts: Vec::new(),
        };
        let selector = || -> GatewayResult<[u8; KEY_LEN]> {
            random_bytes(KEY_LEN)
                .ok()
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| GatewayError::InvalidArgument("no randomness for a key".into()))
        };
        let sse_s3 = || -> GatewayResult<(Sse, Key)> {
            let sel = selector()?;
            let key = derive_key(sse_s3_key(opts)?, &sel);
            Ok((sse(SseMode::S3, "", hex::encode(sel), ""), key))
        };
        // radosgw writes a selector with every SSE-KMS object, whatever
        // its backend does with it
        let kms = async |key_id: &str| -> GatewayResult<(Sse, Key)> {
            let (id, master) = self.kms_master(key_id).await?;
            let sel = selector()?;
            let key = kms_object_key(kms_backend, &master, &sel);
            Ok((sse(SseMode::Kms, &id, hex::encode(sel), ""), key))
        };
        match req {
            Some(SseRequest::CustomerKey(k)) => {
                check_transport(opts, secure)?;
                Ok(Some((
                    sse(SseMode::CustomerKey, "", String::new(), &k.key_md5),
                    k.key.clone(),
                )))
            }
            Some(SseRequest::S3) => sse_s3().map(Some),
            Some(SseRequest::Kms { key_id }) => {
                check_transport(opts, secure)?;
                kms(key_id).await.map(Some)
            }
            // a bucket's default asks nothing of the client's connection
            None => match &info.encryption {
                None => Ok(None),
                Some(d) if d.mode == SseMode::Kms => kms(&d.key_id).await.map(Some),
                Some(_) => sse_s3().map(Some),
            },
        }
    }
}
