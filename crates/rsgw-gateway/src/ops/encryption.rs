//! Put/Get/DeleteBucketEncryption: a bucket's default encryption, in its
//! record (so the coherent record cache carries it to every instance),
//! applied to each object written without encryption headers
//! (`engine::crypt`).

use crate::model::crypt::{BucketEncryption, SseMode};
use crate::model::error::{GatewayError, GatewayResult};
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};
use crate::rules::crypt::sse_s3_key;

impl Gateway {
    /// Sets a bucket's default encryption. The key it names must be one
    /// the gateway holds, so that no later write fails for want of it.
    pub async fn put_bucket_encryption(
        &self,
        rq: &Requester,
        bucket: &str,
        default: BucketEncryption,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutBucketEncryption, &Target::bucket(&info))?;
        match default.mode {
            SseMode::S3 => {
                sse_s3_key(&self.opts.crypt)?;
            }
            SseMode::Kms => {
                // the key must exist now (on a KMIP server: fetched)
                self.kms_master(&default.key_id).await?;
            }
            SseMode::CustomerKey => {
                return Err(GatewayError::MalformedXml(
                    "a default encryption is AES256 or aws:kms".into(),
                ));
            }
        }
        info.encryption = Some(default);
        self.save_bucket(&info, RecordChange::Grows).await
    }

    /// A bucket's default encryption;
    /// `ServerSideEncryptionConfigurationNotFoundError` without one.
    pub async fn get_bucket_encryption(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<BucketEncryption> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetBucketEncryption, &Target::bucket(&info))?;
        info.encryption
            .ok_or(GatewayError::NoSuchEncryptionConfiguration)
    }

    /// Removes a bucket's default encryption (none set is fine); objects
    /// keep the encryption they were written with.
    pub async fn delete_bucket_encryption(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutBucketEncryption, &Target::bucket(&info))?;
        if info.encryption.take().is_some() {
            self.save_bucket(&info, RecordChange::Shrinks).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use md5::{Digest, Md5};

    use super::*;
    use crate::model::crypt::{CustomerKey, KEY_LEN, Key, SseRequest};
    use crate::model::lock::LockRequest;
    use crate::model::params::{CopyMetadata, GetParams, PutParams, RangeSpec};
    use crate::testutil::{Fixture, body, collect, owner, pattern, small_opts};
    use crate::{Acl, GatewayOptions};

    /// Heads of 700 bytes and stripes of 1000: neither a multiple of the
    /// cipher's 4 KiB chunks, so chunks straddle heads and stripes.
    fn opts() -> GatewayOptions {
        GatewayOptions {
            chunk_size: 700,
            stripe_size: 1000,
            object_cache_max_object: 700,
            ..small_opts()
        }
    }

    fn customer(b: u8) -> CustomerKey {
        let key = Key([b; KEY_LEN]);
        CustomerKey {
            key_md5: hex::encode(Md5::digest(key.0)),
            key,
        }
    }

    async fn put(f: &Fixture, key: &str, data: &[u8], sse: Option<SseRequest>) -> crate::PutResult {
        let params = PutParams {
            sse,
            content_length: Some(data.len() as u64),
            ..Default::default()
        };
        f.gw.put_object(&owner(), "enc", key, params, body(data, 333))
            .await
            .expect("put")
    }

    async fn get(
        f: &Fixture,
        key: &str,
        range: Option<(u64, u64)>,
        sse_key: Option<CustomerKey>,
    ) -> GatewayResult<Vec<u8>> {
        let params = GetParams {
            range: range.map(|(first, last)| RangeSpec::Int {
                first,
                last: Some(last),
            }),
            sse_key,
            ..Default::default()
        };
        let res = f.gw.get_object(&owner(), "enc", key, params).await?;
        collect(res.body.expect("a body")).await
    }

    /// Every byte the store holds for the bucket's objects, data objects
    /// in name order.
    async fn stored(f: &Fixture) -> Vec<u8> {
        let mut all = Vec::new();
        for name in f.data_objects().await {
            let id = rsgw_store::ObjectId::new(crate::model::layout::DATA, name.as_str());
            all.extend_from_slice(&f.data(&id).await);
        }
        all
    }

    fn holds(haystack: &[u8], needle: &[u8]) -> bool {
        haystack.windows(needle.len()).any(|w| w == needle)
    }

    #[tokio::test]
    async fn sse_c_objects_are_stored_encrypted_and_read_with_their_key_only() {
        let (f, _) = Fixture::with_bucket(opts(), "enc").await;
        let data = pattern(10_000);
        let res = put(&f, "c", &data, Some(SseRequest::CustomerKey(customer(1)))).await;
        assert_eq!(
            res.meta.etag,
            hex::encode(Md5::digest(&data)),
            "ETag of the plaintext"
        );
        let sse = res.meta.sse.as_ref().expect("encrypted");
        assert_eq!(sse.mode, SseMode::CustomerKey);
        assert_eq!(sse.key_md5, customer(1).key_md5);
        let at_rest = stored(&f).await;
        assert_eq!(at_rest.len(), data.len(), "as long as the plaintext");
        assert!(!holds(&at_rest, &data[..26]), "no plaintext at rest");

        assert_eq!(
            get(&f, "c", None, Some(customer(1))).await.expect("get"),
            data
        );
        for (first, last) in [
            (0, 0),
            (699, 700),
            (4095, 4096),
            (5000, 9999),
            (9999, 9999),
            (1, 8193),
        ] {
            assert_eq!(
                get(&f, "c", Some((first, last)), Some(customer(1)))
                    .await
                    .expect("range"),
                data[first as usize..=last as usize],
                "{first}-{last}"
            );
        }
        assert!(matches!(
            get(&f, "c", None, None).await,
            Err(GatewayError::InvalidRequest(_))
        ));
        assert!(matches!(
            get(&f, "c", None, Some(customer(2))).await,
            Err(GatewayError::SseKeyMismatch)
        ));
        let head = GetParams {
            head_only: true,
            ..Default::default()
        };
        assert!(matches!(
            f.gw.get_object(&owner(), "enc", "c", head).await,
            Err(GatewayError::InvalidRequest(_))
        ));
        // a key for an object stored in the clear is refused, not ignored
        put(&f, "clear", b"hello", None).await;
        assert!(matches!(
            get(&f, "clear", None, Some(customer(1))).await,
            Err(GatewayError::InvalidRequest(_))
        ));
        assert_eq!(get(&f, "clear", None, None).await.expect("clear"), b"hello");
    }

    #[tokio::test]
    async fn kms_and_s3_keys_are_derived_per_object() {
        let (f, _) = Fixture::with_bucket(opts(), "enc").await;
        let data = pattern(5000);
        let a = put(
            &f,
            "a",
            &data,
            Some(SseRequest::Kms {
                key_id: "k2".into(),
            }),
        )
        .await;
        let b = put(
            &f,
            "b",
            &data,
            Some(SseRequest::Kms {
                key_id: String::new(),
            }),
        )
        .await;
        let s = put(&f, "s", &data, Some(SseRequest::S3)).await;
        let (a, b, s) = (
            a.meta.sse.expect("a"),
            b.meta.sse.expect("b"),
            s.meta.sse.expect("s"),
        );
        assert_eq!((a.mode, a.key_id.as_str()), (SseMode::Kms, "k2"));
        assert_eq!(
            (b.mode, b.key_id.as_str()),
            (SseMode::Kms, "k1"),
            "the default key"
        );
        assert_eq!(s.mode, SseMode::S3);
        assert_ne!(a.key_selector, b.key_selector, "a selector per object");
        for k in ["a", "b", "s"] {
            assert_eq!(get(&f, k, None, None).await.expect("get"), data, "{k}");
        }
        assert!(!holds(&stored(&f).await, &data[..26]));
        let unknown = PutParams {
            sse: Some(SseRequest::Kms {
                key_id: "nope".into(),
            }),
            ..Default::default()
        };
        assert!(matches!(
            f.gw.put_object(&owner(), "enc", "x", unknown, body(b"x", 1))
                .await,
            Err(GatewayError::InvalidArgument(_))
        ));
    }

    #[tokio::test]
    async fn without_keys_or_over_http_encryption_is_refused() {
        let mut o = opts();
        o.crypt = Default::default();
        o.crypt.require_ssl = true;
        let (f, _) = Fixture::with_bucket(o, "enc").await;
        let me = owner();
        let try_put = |sse| {
            let params = PutParams {
                sse: Some(sse),
                ..Default::default()
            };
            f.gw.put_object(&me, "enc", "x", params, body(b"x", 1))
        };
        assert!(matches!(
            try_put(SseRequest::S3).await,
            Err(GatewayError::NotConfigured(_))
        ));
        assert!(matches!(
            try_put(SseRequest::CustomerKey(customer(1))).await,
            Err(GatewayError::InvalidRequest(_))
        ));
        let mut secure = owner();
        secure.secure = true;
        let params = PutParams {
            sse: Some(SseRequest::CustomerKey(customer(1))),
            ..Default::default()
        };
        f.gw.put_object(&secure, "enc", "x", params, body(b"x", 1))
            .await
            .expect("SSE-C over TLS");
        let default = BucketEncryption {
            mode: SseMode::Kms,
            key_id: String::new(),
        };
        assert!(matches!(
            f.gw.put_bucket_encryption(&owner(), "enc", default).await,
            Err(GatewayError::NotConfigured(_))
        ));
    }

    /// A multipart object of uneven parts: each part encrypted from its own
    /// offset 0, ranges across part boundaries decrypt.
    #[tokio::test]
    async fn multipart_parts_are_encrypted_each_and_read_across_boundaries() {
        let (f, _) = Fixture::with_bucket(opts(), "enc").await;
        let ck = customer(7);
        let params = PutParams {
            sse: Some(SseRequest::CustomerKey(ck.clone())),
            ..Default::default()
        };
        let up =
            f.gw.create_multipart(&owner(), "enc", "mp", params)
                .await
                .expect("create")
                .upload_id;
        let data = pattern(13_001);
        let sizes = [5003usize, 4097, 3901];
        let mut wanted = Vec::new();
        let mut at = 0;
        for (i, len) in sizes.iter().enumerate() {
            let n = i as u32 + 1;
            let piece = &data[at..at + len];
            at += len;
            let (gw, me, up) = (&f.gw, &owner(), &up);
            let send = move |k: Option<CustomerKey>| async move {
                gw.upload_part(
                    me,
                    "enc",
                    "mp",
                    up,
                    n,
                    None,
                    None,
                    None,
                    k.as_ref(),
                    body(piece, 1000),
                )
                .await
            };
            assert!(matches!(
                send(None).await,
                Err(GatewayError::InvalidRequest(_))
            ));
            assert!(matches!(
                send(Some(customer(8))).await,
                Err(GatewayError::SseKeyMismatch)
            ));
            let p = send(Some(ck.clone())).await.expect("part");
            wanted.push((n, p.etag));
        }
        let res =
            f.gw.complete_multipart(&owner(), "enc", "mp", &up, &wanted)
                .await
                .expect("complete");
        let sse = res.meta.sse.expect("encrypted");
        assert_eq!(sse.parts, sizes.map(|s| s as u64));
        assert!(!holds(&stored(&f).await, &data[..26]));
        assert_eq!(
            get(&f, "mp", None, Some(ck.clone())).await.expect("get"),
            data
        );
        for (first, last) in [
            (5000, 5005),
            (5002, 5003),
            (9099, 9100),
            (4096, 9200),
            (0, 13_000),
            (13_000, 13_000),
        ] {
            assert_eq!(
                get(&f, "mp", Some((first, last)), Some(ck.clone()))
                    .await
                    .expect("range"),
                data[first as usize..=last as usize],
                "{first}-{last}"
            );
        }
        let part2 = GetParams {
            range: Some(RangeSpec::Part(2)),
            sse_key: Some(ck),
            ..Default::default()
        };
        let res =
            f.gw.get_object(&owner(), "enc", "mp", part2)
                .await
                .expect("part 2");
        assert_eq!(
            collect(res.body.expect("body")).await.expect("read"),
            data[5003..9100]
        );
    }

    #[tokio::test]
    async fn a_bucket_default_encrypts_what_asks_for_nothing() {
        let (f, _) = Fixture::with_bucket(opts(), "enc").await;
        assert!(matches!(
            f.gw.get_bucket_encryption(&owner(), "enc").await,
            Err(GatewayError::NoSuchEncryptionConfiguration)
        ));
        let default = BucketEncryption {
            mode: SseMode::Kms,
            key_id: "k2".into(),
        };
        assert!(matches!(
            f.gw.put_bucket_encryption(&crate::Requester::user("bob"), "enc", default.clone())
                .await,
            Err(GatewayError::AccessDenied)
        ));
        f.gw.put_bucket_encryption(&owner(), "enc", default.clone())
            .await
            .expect("put");
        assert_eq!(
            f.gw.get_bucket_encryption(&owner(), "enc")
                .await
                .expect("get"),
            default
        );
        let data = pattern(3000);
        let sse = put(&f, "d", &data, None)
            .await
            .meta
            .sse
            .expect("by default");
        assert_eq!((sse.mode, sse.key_id.as_str()), (SseMode::Kms, "k2"));
        // a request's own choice wins over the default
        let own = put(&f, "own", &data, Some(SseRequest::S3))
            .await
            .meta
            .sse
            .expect("own");
        assert_eq!(own.mode, SseMode::S3);
        // a copy decrypts its source (with the source's key) and encrypts
        // as asked
        let src = put(&f, "src", &data, Some(SseRequest::CustomerKey(customer(3)))).await;
        assert!(src.meta.sse.is_some());
        let copied =
            f.gw.copy_object(
                &owner(),
                "enc",
                "src",
                "enc",
                "dst",
                CopyMetadata::Copy,
                Acl::default(),
                None,
                Some(SseRequest::Kms {
                    key_id: "k1".into(),
                }),
                LockRequest::default(),
                GetParams {
                    sse_key: Some(customer(3)),
                    ..Default::default()
                },
            )
            .await
            .expect("copy");
        assert_eq!(copied.meta.sse.expect("dst").key_id, "k1");
        assert_eq!(get(&f, "dst", None, None).await.expect("dst"), data);
        f.gw.delete_bucket_encryption(&owner(), "enc")
            .await
            .expect("delete");
        assert!(put(&f, "after", &data, None).await.meta.sse.is_none());
        assert_eq!(get(&f, "d", None, None).await.expect("keeps its key"), data);
    }
}
