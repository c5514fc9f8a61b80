//! The garbage collector: finishes what interrupted writes and deletes left
//! in the GC log (`meta/gc/log` omap, one entry per write tag).

use rsgw_store::{ObjectId, ReadOp, StoreError};

use crate::engine::omap::OmapWalk;
use crate::model::error::GatewayResult;
use crate::model::gc::{GcEntry, GcKind};
use crate::model::ids::now_secs;
use crate::model::layout;
use crate::model::upload::{PartInfo, part_key};
use crate::model::versioning::NULL_VERSION;
use crate::ops::gateway::Gateway;

/// What one collection pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GcReport {
    /// Log entries looked at.
    pub entries: u64,
    /// Entries finished and removed.
    pub collected: u64,
    /// Stripe objects deleted.
    pub stripes_deleted: u64,
    /// Uploads young enough to be still running, left alone.
    pub in_progress: u64,
}

impl Gateway {
    /// One pass over the GC log. Stripes of replaced or deleted versions are
    /// removed at once; stripes of an upload only once it is older than
    /// `min_age` (younger ones may still be streaming) and no head
    /// references its tag.
    pub async fn collect_garbage(&self, min_age: std::time::Duration) -> GatewayResult<GcReport> {
        let mut report = GcReport::default();
        let log = layout::gc_log();
        let mut entries = OmapWalk::new(&*self.store, &log, "", "");
        loop {
            let (tag, value) = match entries.next().await {
                Ok(Some(entry)) => entry,
                Ok(None) | Err(StoreError::NotFound) => return Ok(report),
                Err(e) => return Err(e.into()),
            };
            report.entries += 1;
            let entry: GcEntry = serde_json::from_slice(&value)?;
            let live = match &entry.kind {
                // the replacing write never committed: still live
                GcKind::Replacing { while_head } => {
                    self.head_tag(&entry).await?.as_deref() == Some(while_head.as_bytes())
                }
                GcKind::Upload { .. } if now_secs() - entry.time < min_age.as_secs_f64() => {
                    report.in_progress += 1;
                    continue;
                }
                // the write committed; only its log entry was left
                GcKind::Upload {
                    part_of: Some((upload_id, number)),
                    ..
                } => self.part_committed(upload_id, *number, &tag).await?,
                GcKind::Upload {
                    part_of: None,
                    version,
                } => {
                    self.head_tag(&entry).await?.as_deref() == Some(tag.as_bytes())
                        || match version {
                            Some(v) => {
                                let id = (v != NULL_VERSION).then_some(v.as_str());
                                let obj = layout::version(&entry.bucket_id, id, &entry.key);
                                self.tag_of(&obj).await?.as_deref() == Some(tag.as_bytes())
                            }
                            None => false,
                        }
                }
                GcKind::Replaced => false,
            };
            if !live {
                report.stripes_deleted += self
                    .delete_stripes(&entry.bucket_id, &tag, entry.stripes)
                    .await?;
            }
            self.gc_forget(&tag).await?;
            report.collected += 1;
        }
    }

    /// The write tag the head of `entry`'s key carries now (`None`: no
    /// head).
    async fn head_tag(&self, entry: &GcEntry) -> GatewayResult<Option<bytes::Bytes>> {
        self.tag_of(&layout::head(&entry.bucket_id, &entry.key))
            .await
    }

    /// The write tag a head (or a version's object) carries now (`None`:
    /// no such object).
    async fn tag_of(&self, head: &ObjectId) -> GatewayResult<Option<bytes::Bytes>> {
        match self.store.read(head, ReadOp::new().xattrs()).await {
            Ok(r) => Ok(r.xattrs.unwrap_or_default().remove(layout::TAG_XATTR)),
            Err(StoreError::NotFound) => Ok(None),
            Err(e) => Err(e.into()),
        }
    }

    /// Whether a part recorded in an upload carries `tag` (the collector's
    /// test for a part whose GC log entry outlived its commit).
    async fn part_committed(&self, upload_id: &str, number: u32, tag: &str) -> GatewayResult<bool> {
        match self
            .store
            .read(
                &layout::upload(upload_id),
                ReadOp::new().omap_keys([part_key(number)]),
            )
            .await
        {
            Ok(r) => Ok(r
                .omap_keys
                .unwrap_or_default()
                .get(&part_key(number))
                .and_then(|v| serde_json::from_slice::<PartInfo>(v).ok())
                .is_some_and(|p| p.tail.tag == tag)),
            Err(StoreError::NotFound) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use bytes::Bytes;
    use rsgw_store::WriteOp;

    use super::*;
    use crate::model::object::Tail;
    use crate::testutil::{Fixture, small_opts};

    const BUCKET_ID: &str = "0123456789abcdef";
    const TAG: &str = "feedfacefeedface";
    const UPLOAD: &str = "2~upload";
    const VERSION: &str = "fff99e2cd9d90ffa17NdHGFodBWEH7Ih";
    const MIN_AGE: Duration = Duration::from_secs(3600);

    /// The head of the entry's key, and which tag it carries.
    #[derive(Clone, Copy)]
    enum Head {
        Missing,
        Carries(&'static str),
    }

    /// For an upload entry: is it a part, and what does its upload record?
    #[derive(Clone, Copy)]
    enum Part {
        /// A whole object's write.
        Whole,
        /// Part 1 of the upload is recorded with this tag.
        Recorded(&'static str),
        /// The upload is gone (completed or aborted).
        UploadGone,
    }

    struct Case {
        what: &'static str,
        kind: &'static str,
        age_s: f64,
        logged_stripes: Option<u64>,
        while_head: Option<&'static str>,
        head: Head,
        part: Part,
        /// A versioned write's: its version id, and the tag that version's
        /// own object carries (none: no such object).
        version: Option<(&'static str, Option<&'static str>)>,
        /// Expected: the stripes are still there.
        kept: bool,
        /// Expected: the entry is still in the log (left for a later pass).
        in_progress: bool,
    }

    const fn case(what: &'static str, kind: &'static str, age_s: f64, head: Head) -> Case {
        Case {
            what,
            kind,
            age_s,
            logged_stripes: Some(3),
            while_head: None,
            head,
            part: Part::Whole,
            version: None,
            kept: false,
            in_progress: false,
        }
    }

    /// What one pass decides for each kind of GC log entry (docs/layout.md,
    /// "Garbage collection"): the stripes of a tag are deleted exactly when
    /// nothing live references them and no write may still be making them.
    #[tokio::test]
    async fn what_a_pass_collects() {
        use Head::*;
        let old = 2.0 * MIN_AGE.as_secs_f64();
        let young = 10.0;
        let cases = [
            // stripes of a version no head references: at once, at any age
            case("replaced", "replaced", 0.0, Carries("other")),
            Case {
                logged_stripes: None,
                ..case("replaced, count unknown", "replaced", 0.0, Missing)
            },
            // the head still carries the version the stripes belong to: the
            // replacing write never committed, the stripes are live
            Case {
                while_head: Some("old"),
                kept: true,
                ..case("replacing, not committed", "replacing", 0.0, Carries("old"))
            },
            Case {
                while_head: Some("old"),
                ..case("replacing, committed", "replacing", 0.0, Carries("newer"))
            },
            Case {
                while_head: Some("old"),
                ..case("replacing, object deleted since", "replacing", 0.0, Missing)
            },
            // uploads younger than the minimum age may still be streaming
            Case {
                logged_stripes: None,
                kept: true,
                in_progress: true,
                ..case("upload, young", "upload", young, Missing)
            },
            Case {
                logged_stripes: None,
                part: Part::UploadGone,
                kept: true,
                in_progress: true,
                ..case("part upload, young", "upload", young, Missing)
            },
            // an old upload whose write committed: only the entry goes
            Case {
                logged_stripes: None,
                kept: true,
                ..case("upload, committed", "upload", old, Carries(TAG))
            },
            // an old upload whose write died
            Case {
                logged_stripes: None,
                ..case("upload, died", "upload", old, Missing)
            },
            Case {
                logged_stripes: None,
                ..case(
                    "upload, died, key written since",
                    "upload",
                    old,
                    Carries("other"),
                )
            },
            Case {
                logged_stripes: None,
                part: Part::Recorded(TAG),
                kept: true,
                ..case("part, recorded", "upload", old, Missing)
            },
            Case {
                logged_stripes: None,
                part: Part::Recorded("other"),
                ..case(
                    "part, replaced by a later upload of it",
                    "upload",
                    old,
                    Missing,
                )
            },
            Case {
                logged_stripes: None,
                part: Part::UploadGone,
                ..case("part, upload gone", "upload", old, Missing)
            },
            Case {
                logged_stripes: None,
                part: Part::UploadGone,
                ..case(
                    "part, upload gone, head carries the tag",
                    "upload",
                    old,
                    Carries(TAG),
                )
            },
            // a versioned write that committed beside a newer current
            // version (or was made noncurrent since): its object carries it
            Case {
                logged_stripes: None,
                version: Some((VERSION, Some(TAG))),
                kept: true,
                ..case("version, committed beside", "upload", old, Carries("other"))
            },
            Case {
                logged_stripes: None,
                version: Some(("null", Some(TAG))),
                kept: true,
                ..case("null version, committed beside", "upload", old, Missing)
            },
            Case {
                logged_stripes: None,
                version: Some((VERSION, Some(TAG))),
                kept: true,
                ..case("version, current", "upload", old, Carries(TAG))
            },
            // died before the version's object or the head was written
            Case {
                logged_stripes: None,
                version: Some((VERSION, None)),
                ..case("version, died", "upload", old, Carries("other"))
            },
            Case {
                logged_stripes: None,
                version: Some((VERSION, Some("other"))),
                ..case(
                    "version, died, another write's copy",
                    "upload",
                    old,
                    Missing,
                )
            },
        ];
        for c in &cases {
            let f = Fixture::new(small_opts()).await;
            let store = f.gw.store().clone();
            for n in 0..3 {
                store
                    .write(
                        &layout::stripe(BUCKET_ID, TAG, n),
                        WriteOp::new().write_full(Bytes::from_static(b"data")),
                    )
                    .await
                    .expect("stripe");
            }
            let head = layout::head(BUCKET_ID, "k");
            if let Head::Carries(t) = c.head {
                store
                    .write(
                        &head,
                        WriteOp::new()
                            .write_full(Bytes::from_static(b"head"))
                            .set_xattr(layout::TAG_XATTR, t),
                    )
                    .await
                    .expect("head");
            }
            if let Some((v, Some(t))) = c.version {
                let id = (v != NULL_VERSION).then_some(v);
                store
                    .write(
                        &layout::version(BUCKET_ID, id, "k"),
                        WriteOp::new()
                            .write_full(Bytes::from_static(b"head"))
                            .set_xattr(layout::TAG_XATTR, t),
                    )
                    .await
                    .expect("version object");
            }
            if let Part::Recorded(t) = c.part {
                let part = PartInfo {
                    number: 1,
                    etag: "e".into(),
                    size: 12,
                    mtime: 0.0,
                    tail: Tail {
                        tag: t.into(),
                        size: 12,
                        stripe_size: 4,
                    },
                    checksums: BTreeMap::new(),
                };
                let v = Bytes::from(serde_json::to_vec(&part).expect("json"));
                store
                    .write(
                        &layout::upload(UPLOAD),
                        WriteOp::new()
                            .write_full(Bytes::from_static(b"{}"))
                            .omap_set([(part_key(1), v)]),
                    )
                    .await
                    .expect("upload record");
            }
            let part_of = match c.part {
                Part::Whole => None,
                Part::Recorded(_) | Part::UploadGone => Some((UPLOAD.into(), 1)),
            };
            let entry = GcEntry {
                kind: match c.kind {
                    "upload" => GcKind::Upload {
                        part_of,
                        version: c.version.map(|(v, _)| v.to_string()),
                    },
                    "replacing" => GcKind::Replacing {
                        while_head: c.while_head.expect("its head").into(),
                    },
                    _ => GcKind::Replaced,
                },
                bucket_id: BUCKET_ID.into(),
                key: "k".into(),
                stripes: c.logged_stripes,
                time: now_secs() - c.age_s,
            };
            f.gw.gc_note(TAG, &entry).await.expect("log");

            let report = f.gw.collect_garbage(MIN_AGE).await.expect("collect");
            let want = GcReport {
                entries: 1,
                collected: u64::from(!c.in_progress),
                stripes_deleted: if c.kept { 0 } else { 3 },
                in_progress: u64::from(c.in_progress),
            };
            assert_eq!(report, want, "{}", c.what);
            for n in 0..3 {
                assert_eq!(
                    f.exists(&layout::stripe(BUCKET_ID, TAG, n)).await,
                    c.kept,
                    "{}: stripe {n}",
                    c.what
                );
            }
            let left = if c.in_progress {
                vec![TAG.to_string()]
            } else {
                vec![]
            };
            assert_eq!(f.gc_tags().await, left, "{}: log", c.what);
            // the collector never touches heads
            assert_eq!(
                f.exists(&head).await,
                matches!(c.head, Head::Carries(_)),
                "{}: head",
                c.what
            );
            // a second pass finds only what the first left
            let again = f.gw.collect_garbage(MIN_AGE).await.expect("collect again");
            assert_eq!(again.entries, u64::from(c.in_progress), "{}", c.what);
            assert_eq!(again.stripes_deleted, 0, "{}", c.what);
        }
    }

    /// A known stripe count deletes past gaps (a crash may have removed
    /// some already); an unknown count stops at the first missing stripe.
    #[tokio::test]
    async fn stripe_gaps() {
        // (stripes present, count logged, present afterwards)
        let cases: &[(&[u64], Option<u64>, &[u64])] = &[
            (&[0, 2, 3], Some(4), &[]),
            (&[1, 2], Some(3), &[]),
            (&[0, 1, 3], None, &[3]),
            (&[0, 1, 2], Some(2), &[2]),
        ];
        for &(present, count, left) in cases {
            let f = Fixture::new(small_opts()).await;
            for &n in present {
                f.gw.store()
                    .write(
                        &layout::stripe(BUCKET_ID, TAG, n),
                        WriteOp::new().write_full(Bytes::from_static(b"data")),
                    )
                    .await
                    .expect("stripe");
            }
            let entry = GcEntry {
                kind: GcKind::Replaced,
                bucket_id: BUCKET_ID.into(),
                key: "k".into(),
                stripes: count,
                time: now_secs(),
            };
            f.gw.gc_note(TAG, &entry).await.expect("log");
            let report = f.gw.collect_garbage(MIN_AGE).await.expect("collect");
            assert_eq!(report.collected, 1, "{present:?} {count:?}");
            let mut still = Vec::new();
            for n in 0..5 {
                if f.exists(&layout::stripe(BUCKET_ID, TAG, n)).await {
                    still.push(n);
                }
            }
            assert_eq!(still, left, "{present:?} with {count:?} logged");
            assert!(f.gc_tags().await.is_empty());
        }
    }

    /// No log at all is an empty pass; a log longer than one omap page is
    /// walked to its end.
    #[tokio::test]
    async fn pass_over_empty_and_long_logs() {
        let f = Fixture::new(small_opts()).await;
        assert_eq!(
            f.gw.collect_garbage(MIN_AGE).await.expect("collect"),
            GcReport::default()
        );
        let entries: Vec<(String, Bytes)> = (0..2500)
            .map(|i| {
                let e = GcEntry {
                    kind: if i % 2 == 0 {
                        GcKind::Replaced
                    } else {
                        GcKind::Upload {
                            part_of: None,
                            version: None,
                        }
                    },
                    bucket_id: BUCKET_ID.into(),
                    key: format!("k{i}"),
                    stripes: Some(0),
                    time: now_secs(),
                };
                let v = Bytes::from(serde_json::to_vec(&e).expect("json"));
                (format!("tag{i:05}"), v)
            })
            .collect();
        f.gw.store()
            .write(&layout::gc_log(), WriteOp::new().omap_set(entries))
            .await
            .expect("log");
        let report = f.gw.collect_garbage(MIN_AGE).await.expect("collect");
        assert_eq!(
            report,
            GcReport {
                entries: 2500,
                collected: 1250,
                stripes_deleted: 0,
                in_progress: 1250,
            }
        );
        let left = f.gc_tags().await;
        assert_eq!(left.len(), 1000, "gc_tags reads one page");
        assert!(left.iter().all(|t| {
            let n: u32 = t[3..].parse().expect("number");
            n % 2 == 1
        }));
    }
}
