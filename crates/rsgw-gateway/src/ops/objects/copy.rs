//! CopyObject, and the read of a copy's source that UploadPartCopy shares.

use std::collections::BTreeMap;

use crate::model::acl::Acl;
use crate::model::crypt::SseRequest;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::lock::LockRequest;
use crate::model::params::{CopyMetadata, GetParams, GetResult, PutParams, PutResult, RangeSpec};
use crate::ops::gateway::Gateway;
use crate::rules::authz::Requester;

impl Gateway {
    /// Reads a copy's source (CopyObject, UploadPartCopy) as GetObject
    /// reads it, `range` (first and last byte) or all of it: its
    /// authorization, and `conditions`, the `x-amz-copy-source-if-*`
    /// checks, whose "not modified" is a failed precondition for a copy.
    pub(crate) async fn read_copy_source(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        range: Option<(u64, u64)>,
        conditions: GetParams,
    ) -> GatewayResult<GetResult> {
        self.get_object(
            &rq.for_copy_source(),
            bucket,
            key,
            GetParams {
                range: range.map(|(first, last)| RangeSpec::Int {
                    first,
                    last: Some(last),
                }),
                head_only: false,
                ..conditions
            },
        )
        .await
        .map_err(|e| match e {
            GatewayError::NotModified { .. } => GatewayError::PreconditionFailed,
            e => e,
        })
    }

    /// Copies an object (within or across buckets), streaming its data
    /// through the gateway. `conditions` are the `x-amz-copy-source-if-*`
    /// checks on the source; `tags` replace the source's tags
    /// (`x-amz-tagging-directive: REPLACE`), `None` copies them; `sse` is
    /// the copy's encryption (the source's customer key, if any, is in
    /// `conditions`); `lock` the copy's object lock (the source's is not
    /// copied, as S3 has it).
    #[allow(clippy::too_many_arguments)]
    pub async fn copy_object(
        &self,
        rq: &Requester,
        src_bucket: &str,
        src_key: &str,
        dst_bucket: &str,
        dst_key: &str,
        metadata: CopyMetadata,
        acl: Acl,
        tags: Option<BTreeMap<String, String>>,
        sse: Option<SseRequest>,
        lock: LockRequest,
        conditions: GetParams,
    ) -> GatewayResult<PutResult> {
        if src_bucket == dst_bucket
            && src_key == dst_key
            && matches!(metadata, CopyMetadata::Copy)
            && sse.is_none()
        {
            return Err(GatewayError::InvalidRequest(
                "This copy request is illegal because it is trying to copy an object to itself \
                 without changing the object's metadata, storage class, website redirect \
                 location or encryption attributes."
                    .into(),
            ));
        }
        let src = self
            .read_copy_source(rq, src_bucket, src_key, None, conditions)
            .await?;
        let (headers, user_meta) = match metadata {
            CopyMetadata::Copy => (src.meta.headers.clone(), src.meta.user_meta.clone()),
            CopyMetadata::Replace { headers, user_meta } => (headers, user_meta),
        };
        let params = PutParams {
            headers,
            user_meta,
            tags: tags.unwrap_or_else(|| src.meta.tags.clone()),
            acl,
            content_length: Some(src.meta.size),
            sse,
            lock,
            ..Default::default()
        };
        let body = src
            .body
            .unwrap_or_else(|| Box::pin(futures::stream::empty()));
        self.put_object(rq, dst_bucket, dst_key, params, body).await
    }
}
