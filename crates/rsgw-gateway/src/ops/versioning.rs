//! Put/GetBucketVersioning: the bucket's versioning state, in its record
//! (`BucketInfo::versioning`). What a versioned bucket does with writes
//! and deletes is the objects' and the engine's (`engine::versions`).

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::versioning::Versioning;
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};

impl Gateway {
    /// A bucket's versioning; `None`: never set (GetBucketVersioning).
    pub async fn get_bucket_versioning(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<Option<Versioning>> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetBucketVersioning, &Target::bucket(&info))?;
        Ok(info.versioning)
    }

    /// Enables or suspends a bucket's versioning (PutBucketVersioning;
    /// `None`: the document named neither, `MalformedXML` once the
    /// requester is known to be allowed). Once set it is never unset, as
    /// in S3: a bucket that holds versions keeps them.
    pub async fn put_bucket_versioning(
        &self,
        rq: &Requester,
        bucket: &str,
        state: Option<Versioning>,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::PutBucketVersioning, &Target::bucket(&info))?;
        let state = state.ok_or_else(|| {
            GatewayError::MalformedXml("the versioning Status must be Enabled or Suspended".into())
        })?;
        if info.versioning == Some(state) {
            return Ok(());
        }
        if info.object_lock.is_some() {
            return Err(GatewayError::InvalidBucketState(
                "An Object Lock configuration is present on this bucket, so the versioning state cannot be changed".into(),
            ));
        }
        info.versioning = Some(state);
        self.save_bucket(&info, RecordChange::Grows).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::index::Usage;
    use crate::model::params::{Deleted, GetParams, PutParams, VersionEntry, VersionListParams};
    use crate::testutil::{Fixture, body, collect, listed, owner, pattern, small_opts};

    async fn put(f: &Fixture, key: &str, data: &[u8]) -> Option<String> {
        f.gw.put_object(
            &owner(),
            "ver",
            key,
            PutParams {
                content_length: Some(data.len() as u64),
                ..Default::default()
            },
            body(data, 3),
        )
        .await
        .expect("put")
        .meta
        .version_id
    }

    async fn get(f: &Fixture, key: &str, version: Option<&str>) -> Result<Vec<u8>, GatewayError> {
        let r =
            f.gw.get_object(
                &owner(),
                "ver",
                key,
                GetParams {
                    version_id: version.map(str::to_string),
                    ..Default::default()
                },
            )
            .await?;
        collect(r.body.expect("a body")).await
    }

    async fn versions(f: &Fixture, max_keys: usize) -> Vec<VersionEntry> {
        let p = VersionListParams {
            max_keys,
            ..Default::default()
        };
        f.gw.list_object_versions(&owner(), "ver", &p)
            .await
            .expect("list versions")
            .versions
    }

    /// (key, version id, latest, marker) of each version listed.
    fn shape(v: &[VersionEntry]) -> Vec<(String, String, bool, bool)> {
        v.iter()
            .map(|e| {
                (
                    e.key.clone(),
                    e.version_id.clone().unwrap_or_else(|| "null".into()),
                    e.latest,
                    e.delete_marker,
                )
            })
            .collect()
    }

    /// A bucket's life with versions, on the embedded store: versions
    /// kept and read by id (heads of one chunk and objects with tails),
    /// delete markers made and removed, the current version deleted (the
    /// next one promoted), every version listed newest first, usage
    /// counting each version once, and nothing left on the store once
    /// every version is deleted.
    #[tokio::test]
    async fn versions_are_kept_listed_read_and_deleted() {
        let (f, _) = Fixture::with_bucket(small_opts(), "ver").await;
        // an object from before versioning: the null version
        assert_eq!(put(&f, "k", b"legacy").await, None);
        f.gw.put_bucket_versioning(&owner(), "ver", Some(Versioning::Enabled))
            .await
            .expect("enable");
        assert_eq!(
            f.gw.get_bucket_versioning(&owner(), "ver")
                .await
                .expect("get"),
            Some(Versioning::Enabled)
        );
        let big = pattern(21);
        let v1 = put(&f, "k", &big).await.expect("an id");
        let v2 = put(&f, "k", b"two").await.expect("an id");
        assert_ne!(v1, v2);
        assert_eq!(get(&f, "k", None).await.expect("current"), b"two");
        assert_eq!(get(&f, "k", Some(&v1)).await.expect("v1"), big);
        assert_eq!(get(&f, "k", Some("null")).await.expect("null"), b"legacy");
        assert_eq!(
            shape(&versions(&f, 1000).await),
            vec![
                ("k".into(), v2.clone(), true, false),
                ("k".into(), v1.clone(), false, false),
                ("k".into(), "null".into(), false, false),
            ]
        );
        assert_eq!(listed(&f.gw, "ver").await.len(), 1);
        assert_eq!(
            f.gw.bucket_usage("ver").await.expect("usage"),
            Usage {
                objects: 3,
                bytes: 21 + 3 + 6
            }
        );

        // a delete makes a marker: the key reads as deleted, its versions stay
        let marker =
            f.gw.delete_object(&owner(), "ver", "k")
                .await
                .expect("delete");
        assert!(marker.delete_marker);
        let m = marker.version_id.clone().expect("marker id");
        assert!(matches!(
            get(&f, "k", None).await,
            Err(GatewayError::DeleteMarker {
                by_version: false,
                ..
            })
        ));
        assert!(matches!(
            get(&f, "k", Some(&m)).await,
            Err(GatewayError::DeleteMarker {
                by_version: true,
                ..
            })
        ));
        assert!(listed(&f.gw, "ver").await.is_empty());
        assert_eq!(versions(&f, 1000).await.len(), 4);
        assert!(matches!(
            f.gw.delete_bucket(&owner(), "ver").await,
            Err(GatewayError::BucketNotEmpty)
        ));

        // deleting the marker brings v2 back
        let d =
            f.gw.delete_object_version(&owner(), ("ver", "k", &m), false)
                .await
                .expect("delete marker");
        assert_eq!(
            d,
            Deleted {
                version_id: Some(m.clone()),
                delete_marker: true
            }
        );
        assert_eq!(get(&f, "k", None).await.expect("current"), b"two");
        // deleting the current version promotes the next
        f.gw.delete_object_version(&owner(), ("ver", "k", &v2), false)
            .await
            .expect("delete v2");
        assert_eq!(get(&f, "k", None).await.expect("current"), big);
        assert!(matches!(
            get(&f, "k", Some(&v2)).await,
            Err(GatewayError::NoSuchVersion)
        ));
        assert_eq!(listed(&f.gw, "ver").await[0].size, 21);
        // a noncurrent version goes alone
        f.gw.delete_object_version(&owner(), ("ver", "k", "null"), false)
            .await
            .expect("delete null");
        assert_eq!(
            shape(&versions(&f, 1000).await),
            vec![("k".into(), v1.clone(), true, false)]
        );
        f.gw.delete_object_version(&owner(), ("ver", "k", &v1), false)
            .await
            .expect("delete v1");
        assert!(versions(&f, 1000).await.is_empty());
        assert_eq!(
            f.gw.bucket_usage("ver").await.expect("usage"),
            Usage::default()
        );
        assert_eq!(f.data_objects().await, Vec::<String>::new());
        assert_eq!(f.gc_tags().await, Vec::<String>::new());
        f.gw.delete_bucket(&owner(), "ver")
            .await
            .expect("empty now");
    }

    /// Suspended: writes make the null version, which replaces the key's
    /// null version wherever it is, and the versions made before stay.
    #[tokio::test]
    async fn suspended_writes_replace_the_null_version() {
        let (f, _) = Fixture::with_bucket(small_opts(), "ver").await;
        f.gw.put_bucket_versioning(&owner(), "ver", Some(Versioning::Enabled))
            .await
            .expect("enable");
        let v1 = put(&f, "k", &pattern(13)).await.expect("an id");
        f.gw.put_bucket_versioning(&owner(), "ver", Some(Versioning::Suspended))
            .await
            .expect("suspend");
        assert_eq!(put(&f, "k", &pattern(17)).await, None);
        assert_eq!(put(&f, "k", b"null2").await, None);
        assert_eq!(
            shape(&versions(&f, 1000).await),
            vec![
                ("k".into(), "null".into(), true, false),
                ("k".into(), v1.clone(), false, false),
            ]
        );
        assert_eq!(get(&f, "k", Some("null")).await.expect("null"), b"null2");
        // a delete makes the null version a marker
        let d =
            f.gw.delete_object(&owner(), "ver", "k")
                .await
                .expect("delete");
        assert_eq!(d.version_id.as_deref(), Some("null"));
        assert_eq!(
            shape(&versions(&f, 1000).await),
            vec![
                ("k".into(), "null".into(), true, true),
                ("k".into(), v1.clone(), false, false),
            ]
        );
        // the replaced null versions' stripes are gone: only v1's remain
        f.gw.delete_object_version(&owner(), ("ver", "k", &v1), false)
            .await
            .expect("delete v1");
        f.gw.delete_object_version(&owner(), ("ver", "k", "null"), false)
            .await
            .expect("delete marker");
        assert_eq!(f.data_objects().await, Vec::<String>::new());
        assert_eq!(f.gc_tags().await, Vec::<String>::new());
    }

    /// Every version of a key deleted at once, by concurrent requests (of
    /// two processes): each delete of a current version promotes the next
    /// while that one's delete runs too. Whatever the interleaving, nothing
    /// stays listed, stored or logged.
    #[tokio::test]
    async fn concurrent_deletes_of_every_version_leave_nothing() {
        let (f, _) = Fixture::with_bucket(small_opts(), "ver").await;
        let other = f.other_process();
        f.gw.put_bucket_versioning(&owner(), "ver", Some(Versioning::Enabled))
            .await
            .expect("enable");
        for round in 0..20 {
            let mut ids = Vec::new();
            for i in 0..5 {
                // with tails every other time: stripes to retire exactly once
                let data = pattern(if i % 2 == 0 { 19 } else { 3 });
                ids.push(put(&f, "k", &data).await.expect("an id"));
            }
            let alice = owner();
            let deletes = ids.iter().enumerate().map(|(i, id)| {
                let gw = if i % 2 == 0 { &f.gw } else { &other };
                gw.delete_object_version(&alice, ("ver", "k", id), false)
            });
            for r in futures::future::join_all(deletes).await {
                r.expect("delete");
            }
            let left = versions(&f, 1000).await;
            assert!(
                left.is_empty(),
                "round {round}: {left:?} {:?}",
                f.data_objects().await
            );
            assert!(listed(&f.gw, "ver").await.is_empty(), "round {round}");
            assert_eq!(
                f.data_objects().await,
                Vec::<String>::new(),
                "round {round}"
            );
            assert_eq!(f.gc_tags().await, Vec::<String>::new(), "round {round}");
        }
        // one DeleteObjects of every version, newest first as clients send
        let mut ids = Vec::new();
        for i in 0..6 {
            ids.push(put(&f, "k", &pattern(7 + 3 * i)).await.expect("an id"));
        }
        ids.reverse();
        let asked = ids
            .iter()
            .map(|id| ("k".to_string(), Some(id.clone())))
            .collect();
        for (_, _, r) in f.gw.delete_objects(&owner(), "ver", asked, false).await {
            r.expect("delete");
        }
        assert!(versions(&f, 1000).await.is_empty());
        assert_eq!(f.data_objects().await, Vec::<String>::new());
    }

    /// Paging ListObjectVersions with every max-keys from 1 to 7 and the
    /// markers each page gives lists what one page lists, with delimiters
    /// rolling keys up as they do.
    #[tokio::test]
    async fn version_listing_pages_add_up_to_the_whole() {
        let (f, _) = Fixture::with_bucket(small_opts(), "ver").await;
        put(&f, "a/legacy", b"x").await;
        f.gw.put_bucket_versioning(&owner(), "ver", Some(Versioning::Enabled))
            .await
            .expect("enable");
        for (i, key) in ["a/1", "b", "a/1", "c", "b", "a/1", "a/legacy"]
            .iter()
            .enumerate()
        {
            put(&f, key, &pattern(i)).await;
        }
        f.gw.delete_object(&owner(), "ver", "b")
            .await
            .expect("marker");
        let all = versions(&f, 1000).await;
        assert_eq!(all.len(), 9);
        for max_keys in 1..=7 {
            let mut p = VersionListParams {
                max_keys,
                ..Default::default()
            };
            let mut got = Vec::new();
            loop {
                let page =
                    f.gw.list_object_versions(&owner(), "ver", &p)
                        .await
                        .expect("page");
                assert!(page.versions.len() <= max_keys);
                got.extend(page.versions);
                let Some((key, version)) = page.next else {
                    assert!(!page.is_truncated);
                    break;
                };
                p.key_marker = key;
                p.version_marker = version;
            }
            assert_eq!(got, all, "max-keys {max_keys}");
        }
        let p = VersionListParams {
            delimiter: Some("/".into()),
            max_keys: 1000,
            ..Default::default()
        };
        let page =
            f.gw.list_object_versions(&owner(), "ver", &p)
                .await
                .expect("delimited");
        assert_eq!(page.common_prefixes, vec!["a/".to_string()]);
        assert_eq!(
            page.versions
                .iter()
                .map(|v| v.key.as_str())
                .collect::<Vec<_>>(),
            ["b", "b", "b", "c"]
        );
    }
}
