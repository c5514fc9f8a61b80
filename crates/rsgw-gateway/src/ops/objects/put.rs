//! PutObject (and what CopyObject and POST object store through it): the
//! body streamed (`engine::write`), then committed (`engine::commit`).

use crate::engine::commit::Swap;
use crate::engine::write::{Declared, WriteTarget};
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::now_secs;
use crate::model::layout;
use crate::model::object::{ObjectMeta, Tail};
use crate::model::params::{BodyStream, PutParams, PutResult};
use crate::model::versioning::NULL_VERSION;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize, writer};
use crate::rules::crypt::ChunkCipher;
use crate::rules::lock::{check_lock_request, lock_new_version};
use crate::rules::names::validate_key;
use crate::rules::preconditions::check_put_conditions;

impl Gateway {
    /// Stores an object from a body stream.
    pub async fn put_object(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        mut params: PutParams,
        body: BodyStream,
    ) -> GatewayResult<PutResult> {
        if let Some(zone) = self.zone() {
            return self
                .zone_put_object(zone, rq, bucket, key, params, body)
                .await;
        }
        validate_key(key)?;
        let info = self.bucket_info_fresh(bucket).await?;
        authorize(
            rq,
            Access::PutObject,
            &Target::key(&info, key).requesting(&params.tags),
        )?;
        check_lock_request(&info, &params.lock, now_secs())?;
        let acl = self.resolve_acl(std::mem::take(&mut params.acl)).await?;
        if params
            .content_length
            .is_some_and(|l| l > self.opts.max_put_size)
        {
            return Err(GatewayError::EntityTooLarge);
        }
        let sse = self.new_sse(&info, params.sse.as_ref(), rq.secure).await?;
        let head_id = layout::head(&info.id, key);
        if params.if_match.is_some() || params.if_none_match_any {
            let cur = self.head_meta(&head_id).await?;
            check_put_conditions(&params, cur.as_ref())?;
        }
        // the version's id, from when the write began: it orders versions
        let version_id = info.new_version(now_secs())?;
        let w = self
            .write_body(
                WriteTarget {
                    info: &info,
                    key,
                    head_len: self.opts.chunk_size as usize,
                    part_of: None,
                    version: info
                        .versioning
                        .map(|_| version_id.as_deref().unwrap_or(NULL_VERSION).to_string()),
                    cipher: sse.as_ref().map(|(_, k)| ChunkCipher::new(k)),
                },
                Declared {
                    content_length: params.content_length,
                    content_md5: params.content_md5.take(),
                    check: params.check.take(),
                },
                body,
            )
            .await?;
        let mut meta = ObjectMeta {
            size: w.size,
            etag: w.md5,
            mtime: now_secs(),
            owner: writer(rq, &info).to_string(),
            acl,
            headers: params.headers.clone(),
            user_meta: params.user_meta.clone(),
            tags: params.tags.clone(),
            tag: w.stripes.tag.clone(),
            head_len: w.head.len() as u64,
            tails: if w.stripes.count > 0 {
                vec![Tail {
                    tag: w.stripes.tag.clone(),
                    size: w.size - w.head.len() as u64,
                    stripe_size: self.opts.stripe_size,
                }]
            } else {
                Vec::new()
            },
            checksums: w.checksums,
            upload_id: String::new(),
            sse: sse.map(|(s, _)| s),
            version_id,
            ..ObjectMeta::default()
        };
        lock_new_version(&info, &params.lock, &mut meta);
        let swap = Swap::Head {
            data: w.head,
            meta: &meta,
            conditions: &params,
        };
        self.commit(&info, key, Some(&w.stripes), swap)
            .await?
            .finish(&[])
            .await?;
        Ok(PutResult { meta })
    }
}
