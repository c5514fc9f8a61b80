//! The one streaming write path of PutObject, UploadPart and
//! UploadPartCopy (and POST object, which is a PutObject): a body streamed
//! into stripe objects of `stripe_size` under a fresh write tag (announced
//! in the GC log before the first stripe, so an interrupted write's stripes
//! are found), the first bytes kept for the caller's head object, its MD5
//! taken on the way (of the plaintext: the data is encrypted after it, when
//! the target asks for it); then checked against what the client declared (length,
//! Content-MD5, checksums). Whatever fails, the stripes written are removed
//! before the error returns: the caller commits only a body that arrived
//! whole and as declared.

use std::collections::BTreeMap;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use md5::{Digest, Md5};
use rsgw_store::WriteOp;

use crate::engine::Engine;
use crate::model::bucket::BucketInfo;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::gc::{GcEntry, GcKind};
use crate::model::ids::{now_secs, unique_id};
use crate::model::layout;
use crate::model::params::{BodyCheck, BodyStream};
use crate::rules::crypt::{ChunkCipher, Encryptor};

/// Where a body goes.
pub(crate) struct WriteTarget<'a> {
    /// The bucket.
    pub info: &'a BucketInfo,
    /// The key (for the GC log).
    pub key: &'a str,
    /// Bytes kept for the head object instead of a stripe (a part keeps
    /// none).
    pub head_len: usize,
    /// The upload and part number, when the body is a part.
    pub part_of: Option<(String, u32)>,
    /// The version the body makes, in a versioned bucket (its id, `null`
    /// too), for the GC log.
    pub version: Option<String>,
    /// The cipher that encrypts the body (from its offset 0), if it is
    /// stored encrypted.
    pub cipher: Option<ChunkCipher>,
}

/// Where a body's (stored) bytes went so far.
#[derive(Default)]
struct Placed {
    /// Kept for the head object.
    head: BytesMut,
    /// Waiting for a whole stripe.
    pending: BytesMut,
    /// Stripes written.
    stripes: u64,
}

/// What the client declared of the body.
#[derive(Default)]
pub(crate) struct Declared {
    /// `Content-Length`.
    pub content_length: Option<u64>,
    /// `Content-MD5`, decoded.
    pub content_md5: Option<Vec<u8>>,
    /// The checksums to verify at the end (`x-amz-checksum-*`).
    pub check: Option<BodyCheck>,
}

impl Declared {
    /// Checks a whole body of `size` bytes and MD5 `digest` against what
    /// was declared: `IncompleteBody` for another length, `BadDigest` for
    /// another MD5, the check's error for a bad checksum; the checksums
    /// verified, by name.
    pub(crate) fn check(self, size: u64, digest: &[u8]) -> GatewayResult<BTreeMap<String, String>> {
        if self.content_length.is_some_and(|l| l != size) {
            Err(GatewayError::IncompleteBody)
        } else if self.content_md5.is_some_and(|m| m[..] != digest[..]) {
            Err(GatewayError::BadDigest)
        } else {
            self.check.map_or(Ok(BTreeMap::new()), |check| check())
        }
    }
}

/// The stripes a write streamed: `count` stripes named by the write's
/// `tag` (`<bucket id>.<tag>.<n>`).
pub(crate) struct Stripes {
    /// The write tag.
    pub tag: String,
    /// Stripes written.
    pub count: u64,
}

/// A body written whole and as declared, not yet committed.
pub(crate) struct Written {
    /// Its stripes.
    pub stripes: Stripes,
    /// The bytes kept for the head object.
    pub head: Bytes,
    /// The body's size.
    pub size: u64,
    /// Its MD5, hex (the ETag of a PUT, of a part).
    pub md5: String,
    /// The checksums verified, by name.
    pub checksums: BTreeMap<String, String>,
}

impl Engine {
    /// Streams `body` to `to`, refusing more than `max_put_size` bytes,
    /// and checks it against `declared`: `IncompleteBody` for another
    /// length, `BadDigest` for another MD5, the check's error for a bad
    /// checksum. On any error nothing of the body is left in the store.
    pub(crate) async fn write_body(
        &self,
        to: WriteTarget<'_>,
        declared: Declared,
        mut body: BodyStream,
    ) -> GatewayResult<Written> {
        let tag = unique_id();
        let mut md5 = Md5::new();
        let mut out = Placed::default();
        let mut size = 0u64;
        let mut encryptor = to.cipher.clone().map(Encryptor::new);
        let streamed = async {
            while let Some(piece) = body.next().await {
                let piece = piece?;
                size += piece.len() as u64;
                if size > self.opts.max_put_size {
                    return Err(GatewayError::EntityTooLarge);
                }
                md5.update(&piece);
                let piece = match &mut encryptor {
                    Some(e) => e.push(&piece),
                    None => piece,
                };
                self.place(&to, &tag, &mut out, piece).await?;
            }
            if let Some(e) = encryptor.take() {
                self.place(&to, &tag, &mut out, e.finish()).await?;
            }
            if !out.pending.is_empty() {
                let data = out.pending.split().freeze();
                self.write_stripe(&to, &tag, out.stripes, data).await?;
                out.stripes += 1;
            }
            Ok(())
        }
        .await;
        let (head, stripes) = (out.head, out.stripes);
        let digest = md5.finalize();
        let checked = streamed.and_then(|()| declared.check(size, &digest));
        match checked {
            Ok(checksums) => Ok(Written {
                stripes: Stripes {
                    tag,
                    count: stripes,
                },
                head: head.freeze(),
                size,
                md5: hex::encode(digest),
                checksums,
            }),
            Err(e) => {
                self.abort_write(&to.info.id, &tag, stripes).await?;
                Err(e)
            }
        }
    }

    /// Removes the stripes of a write that will not commit (the abort).
    pub(crate) async fn abort_write(
        &self,
        bucket_id: &str,
        tag: &str,
        stripes: u64,
    ) -> GatewayResult<()> {
        if stripes > 0 {
            self.delete_stripes(bucket_id, tag, Some(stripes)).await?;
            self.gc_forget(tag).await?;
        }
        Ok(())
    }

    /// Keeps the first bytes of `piece` for the head, and writes every
    /// whole stripe the rest completes.
    async fn place(
        &self,
        to: &WriteTarget<'_>,
        tag: &str,
        out: &mut Placed,
        mut piece: Bytes,
    ) -> GatewayResult<()> {
        if out.head.len() < to.head_len {
            let take = piece.len().min(to.head_len - out.head.len());
            out.head.extend_from_slice(&piece.split_to(take));
        }
        out.pending.extend_from_slice(&piece);
        let stripe_size = self.opts.stripe_size as usize;
        while out.pending.len() >= stripe_size {
            let data = out.pending.split_to(stripe_size).freeze();
            self.write_stripe(to, tag, out.stripes, data).await?;
            out.stripes += 1;
        }
        Ok(())
    }

    /// Writes stripe `n`; the first is announced in the GC log.
    async fn write_stripe(
        &self,
        to: &WriteTarget<'_>,
        tag: &str,
        n: u64,
        data: Bytes,
    ) -> GatewayResult<()> {
        if n == 0 {
            self.gc_note(
                tag,
                &GcEntry {
                    kind: GcKind::Upload {
                        part_of: to.part_of.clone(),
                        version: to.version.clone(),
                    },
                    bucket_id: to.info.id.clone(),
                    key: to.key.into(),
                    stripes: None,
                    time: now_secs(),
                },
            )
            .await?;
        }
        self.store
            .write(
                &layout::stripe(&to.info.id, tag, n),
                WriteOp::new().write_full(data),
            )
            .await?;
        Ok(())
    }
}
