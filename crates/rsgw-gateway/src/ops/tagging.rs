//! Tags: S3's limits on them, Put/Get/DeleteObjectTagging and
//! Put/Get/DeleteBucketTagging. An object's tags live in its metadata
//! (`ObjectMeta::tags`), set with `x-amz-tagging` on PUT, copy and
//! multipart uploads too; a bucket's in its record (`BucketInfo::tags`).

use std::collections::BTreeMap;

use crate::authz::{Access, Requester, Target};
use crate::{Gateway, GatewayError, GatewayResult};

/// S3's limit on an object's tags.
pub const MAX_OBJECT_TAGS: usize = 10;
/// S3's limit on a bucket's tags.
pub const MAX_BUCKET_TAGS: usize = 50;
/// Longest tag key, in Unicode characters.
pub const MAX_TAG_KEY: usize = 128;
/// Longest tag value, in Unicode characters.
pub const MAX_TAG_VALUE: usize = 256;

/// Checks an object's tags as sent (in order, duplicates included) against
/// S3's rules and returns them as stored; the error says which rule, as
/// S3's `InvalidTag` does.
pub fn check_tags(tags: Vec<(String, String)>) -> GatewayResult<BTreeMap<String, String>> {
    check_tag_set(tags, MAX_OBJECT_TAGS, "Object tags")
}

/// [`check_tags`] for a bucket's tags, which may be more.
fn check_bucket_tags(tags: Vec<(String, String)>) -> GatewayResult<BTreeMap<String, String>> {
    check_tag_set(tags, MAX_BUCKET_TAGS, "Bucket tag count")
}

fn check_tag_set(
    tags: Vec<(String, String)>,
    max: usize,
    what: &str,
) -> GatewayResult<BTreeMap<String, String>> {
    let invalid = |m: String| Err(GatewayError::InvalidTag(m));
    if tags.len() > max {
        return invalid(format!("{what} cannot be greater than {max}"));
    }
    let mut out = BTreeMap::new();
    for (k, v) in tags {
        let n = k.chars().count();
        if n == 0 || n > MAX_TAG_KEY {
            return invalid(format!(
                "The TagKey you have provided is invalid: it must be 1 to {MAX_TAG_KEY} characters"
            ));
        }
        if v.chars().count() > MAX_TAG_VALUE {
            return invalid(format!(
                "The TagValue you have provided is too long: at most {MAX_TAG_VALUE} characters"
            ));
        }
        if k.starts_with("aws:") {
            return invalid("Your TagKey cannot be prefixed with aws:".into());
        }
        if out.insert(k, v).is_some() {
            return invalid("Cannot provide multiple Tags with the same key".into());
        }
    }
    Ok(out)
}

impl Gateway {
    /// An object's tags (GetObjectTagging).
    pub async fn get_object_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<BTreeMap<String, String>> {
        let (_, meta) = self
            .object_meta_for(rq, Access::GetObjectTagging, bucket, key)
            .await?;
        Ok(meta.tags)
    }

    /// Replaces an object's tags (PutObjectTagging).
    pub async fn put_object_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
        tags: BTreeMap<String, String>,
    ) -> GatewayResult<()> {
        self.update_meta(rq, Access::PutObjectTagging, bucket, key, |meta| {
            meta.tags = tags.clone();
        })
        .await
    }

    /// Removes an object's tags (DeleteObjectTagging).
    pub async fn delete_object_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<()> {
        self.update_meta(rq, Access::DeleteObjectTagging, bucket, key, |meta| {
            meta.tags.clear();
        })
        .await
    }

    /// A bucket's tags; `NoSuchTagSet` without any (GetBucketTagging).
    pub async fn get_bucket_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<BTreeMap<String, String>> {
        let info = self.bucket_info(bucket).await?;
        self.authorize(rq, Access::GetBucketTagging, &Target::bucket(&info))?;
        if info.tags.is_empty() {
            return Err(GatewayError::NoSuchTagSet);
        }
        Ok(info.tags)
    }

    /// Replaces a bucket's tags, checked against S3's rules
    /// (PutBucketTagging).
    pub async fn put_bucket_tagging(
        &self,
        rq: &Requester,
        bucket: &str,
        tags: Vec<(String, String)>,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutBucketTagging, &Target::bucket(&info))?;
        info.tags = check_bucket_tags(tags)?;
        self.save_bucket(&info).await
    }

    /// Removes a bucket's tags (DeleteBucketTagging; none is fine).
    pub async fn delete_bucket_tagging(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutBucketTagging, &Target::bucket(&info))?;
        if !info.tags.is_empty() {
            info.tags.clear();
            self.save_bucket(&info).await?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::{Fixture, body, owner, small_opts};
    use crate::{GetParams, PutParams};

    fn pairs(v: &[(&str, &str)]) -> Vec<(String, String)> {
        v.iter()
            .map(|(k, v)| ((*k).to_string(), (*v).to_string()))
            .collect()
    }

    #[test]
    fn s3s_limits() {
        let ten: Vec<(String, String)> = (0..10).map(|i| (format!("k{i}"), "v".into())).collect();
        assert_eq!(check_tags(ten.clone()).expect("ten").len(), 10);
        let mut eleven = ten;
        eleven.push(("k10".into(), "v".into()));
        let long_key = "é".repeat(129);
        let long_value = "v".repeat(257);
        for (tags, why) in [
            (eleven, "greater than 10"),
            (pairs(&[("", "v")]), "TagKey"),
            (pairs(&[(&long_key, "v")]), "TagKey"),
            (pairs(&[("k", &long_value)]), "TagValue"),
            (pairs(&[("aws:x", "v")]), "aws:"),
            (pairs(&[("k", "1"), ("k", "2")]), "same key"),
        ] {
            let e = check_tags(tags).expect_err(why);
            assert!(e.to_string().contains(why), "{e}");
        }
        let ok = check_tags(pairs(&[(&"é".repeat(128), ""), ("k", &"v".repeat(256))]));
        assert_eq!(ok.expect("at the limits").len(), 2);
        let fifty: Vec<(String, String)> = (0..50).map(|i| (format!("k{i}"), "v".into())).collect();
        assert_eq!(check_bucket_tags(fifty.clone()).expect("fifty").len(), 50);
        let mut many = fifty;
        many.push(("k50".into(), "v".into()));
        let e = check_bucket_tags(many).expect_err("51");
        assert!(e.to_string().contains("greater than 50"), "{e}");
        let e = check_bucket_tags(pairs(&[("aws:x", "v")])).expect_err("aws:");
        assert!(e.to_string().contains("aws:"), "{e}");
    }

    #[tokio::test]
    async fn bucket_tags_put_get_delete() {
        let (f, _) = Fixture::with_bucket(small_opts(), "btags").await;
        assert!(matches!(
            f.gw.get_bucket_tagging(&owner(), "btags").await,
            Err(GatewayError::NoSuchTagSet)
        ));
        f.gw.put_bucket_tagging(&owner(), "btags", pairs(&[("team", "web")]))
            .await
            .expect("put");
        let got =
            f.gw.get_bucket_tagging(&owner(), "btags")
                .await
                .expect("get");
        assert_eq!(got.get("team").map(String::as_str), Some("web"));
        assert!(matches!(
            f.gw.put_bucket_tagging(&Requester::user("bob"), "btags", pairs(&[("a", "b")]))
                .await,
            Err(GatewayError::AccessDenied)
        ));
        assert!(matches!(
            f.gw.get_bucket_tagging(&Requester::anonymous(), "btags")
                .await,
            Err(GatewayError::AccessDenied)
        ));
        f.gw.delete_bucket_tagging(&owner(), "btags")
            .await
            .expect("delete");
        assert!(matches!(
            f.gw.get_bucket_tagging(&owner(), "btags").await,
            Err(GatewayError::NoSuchTagSet)
        ));
    }

    #[tokio::test]
    async fn put_get_delete_and_copy() {
        let (f, _) = Fixture::with_bucket(small_opts(), "tags").await;
        let tags = check_tags(pairs(&[("team", "web"), ("tier", "hot")])).expect("valid");
        f.gw.put_object(
            &owner(),
            "tags",
            "k",
            PutParams {
                content_length: Some(3),
                tags: tags.clone(),
                ..Default::default()
            },
            body(b"abc", 2),
        )
        .await
        .expect("put");
        assert_eq!(
            f.gw.get_object_tagging(&owner(), "tags", "k")
                .await
                .expect("get"),
            tags
        );
        assert!(matches!(
            f.gw.get_object_tagging(&Requester::user("bob"), "tags", "k")
                .await,
            Err(GatewayError::AccessDenied)
        ));
        let one = check_tags(pairs(&[("only", "1")])).expect("valid");
        f.gw.put_object_tagging(&owner(), "tags", "k", one.clone())
            .await
            .expect("replace");
        let got =
            f.gw.get_object(&owner(), "tags", "k", GetParams::default())
                .await
                .expect("get");
        assert_eq!(got.meta.tags, one);
        f.gw.delete_object_tagging(&owner(), "tags", "k")
            .await
            .expect("delete");
        assert!(
            f.gw.get_object_tagging(&owner(), "tags", "k")
                .await
                .expect("get")
                .is_empty()
        );
        assert!(matches!(
            f.gw.put_object_tagging(&owner(), "tags", "none", one).await,
            Err(GatewayError::NoSuchKey)
        ));
    }
}
