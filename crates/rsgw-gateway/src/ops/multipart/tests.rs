//! Multipart uploads' tests on the embedded store.

use super::*;
use crate::model::acl::CannedAcl;
use crate::model::upload::part_key;
use crate::testutil::{Fixture, body, collect, owner, pattern, small_opts};

const P1: &[u8] = b"abcdef";
const P2: &[u8] = b"ghijkl";
const P3: &[u8] = b"mn";
const MD5_P1: &str = "e80b5017098950fc58aad83c8c14978e";
const MD5_P2: &str = "26e162d0b5706141bdb954900aebe804";
const MD5_P3: &str = "412566367c67448b599d1b7666f8ccfc";

mod listing;

async fn start(f: &Fixture, key: &str) -> String {
    f.gw.create_multipart(&owner(), "mpu", key, PutParams::default())
        .await
        .expect("create upload")
        .upload_id
}

async fn part(f: &Fixture, key: &str, up: &str, n: u32, data: &[u8]) -> GatewayResult<PartInfo> {
    f.gw.upload_part(
        &owner(),
        "mpu",
        key,
        up,
        n,
        Some(data.len() as u64),
        None,
        None,
        None,
        body(data, 5),
    )
    .await
}

/// An upload of parts 1 (6 bytes), 2 (6 bytes) and 3 (2 bytes).
async fn three_parts(f: &Fixture, key: &str) -> String {
    let up = start(f, key).await;
    for (n, data) in [(1, P1), (2, P2), (3, P3)] {
        part(f, key, &up, n, data).await.expect("part");
    }
    up
}

fn wanted(parts: &[(u32, &str)]) -> Vec<(u32, String)> {
    parts.iter().map(|&(n, e)| (n, e.to_string())).collect()
}

#[test]
fn index_keys_sort_as_s3_lists() {
    // part keys sort numerically
    let mut keys: Vec<String> = [10_000, 1, 10, 9, 100, 2].map(part_key).to_vec();
    keys.sort();
    assert_eq!(keys, ["00001", "00002", "00009", "00010", "00100", "10000"]);
    // upload index keys sort by key first, then upload id; a key never
    // sorts among another key's uploads, even one it is a prefix of
    let mut keys = [
        upload_index_key("a/b", "2~1"),
        upload_index_key("a", "2~2"),
        upload_index_key("a", "2~1"),
        upload_index_key("a!", "2~0"),
        upload_index_key("a b", "2~0"),
    ];
    keys.sort();
    let split: Vec<(&str, &str)> = keys
        .iter()
        .map(|k| k.rsplit_once(SEP).expect("separator"))
        .collect();
    assert_eq!(
        split,
        [
            ("a", "2~1"),
            ("a", "2~2"),
            ("a b", "2~0"),
            ("a!", "2~0"),
            ("a/b", "2~1")
        ]
    );
}

/// Part numbers are 1 to 10000.
#[tokio::test]
async fn part_numbers() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let up = start(&f, "k").await;
    for (n, ok) in [
        (0, false),
        (1, true),
        (2, true),
        (9_999, true),
        (10_000, true),
        (10_001, false),
        (u32::MAX, false),
    ] {
        let r = part(&f, "k", &up, n, P1).await;
        if ok {
            assert_eq!(r.expect("part").number, n);
        } else {
            assert!(
                matches!(r, Err(GatewayError::InvalidArgument(..))),
                "part {n}"
            );
        }
    }
    let (_, parts, truncated) =
        f.gw.list_parts(&owner(), "mpu", "k", &up, 0, 1000)
            .await
            .expect("list parts");
    let numbers: Vec<u32> = parts.iter().map(|p| p.number).collect();
    assert_eq!(numbers, [1, 2, 9_999, 10_000]);
    assert!(!truncated);
}

/// UploadPartCopy: whole objects and ranges become parts, read as
/// GetObject reads them.
#[tokio::test]
async fn parts_copied_from_objects() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let src = b"abcdefghijklmnopqrst";
    f.gw.put_object(
        &owner(),
        "mpu",
        "src",
        PutParams {
            content_length: Some(src.len() as u64),
            ..Default::default()
        },
        body(src, 3),
    )
    .await
    .expect("source");
    let up = start(&f, "copy").await;
    let me = owner();
    let copy = |n, range| {
        f.gw.upload_part_copy(
            &me,
            "mpu",
            "copy",
            &up,
            n,
            "mpu",
            "src",
            range,
            GetParams::default(),
            None,
        )
    };
    let p1 = copy(1, Some((0, 9))).await.expect("range");
    let p2 = copy(2, None).await.expect("whole");
    let p3 = copy(3, Some((19, 19))).await.expect("last byte");
    assert_eq!((p1.size, p2.size, p3.size), (10, 20, 1));
    assert!(matches!(
        copy(4, Some((5, 20))).await,
        Err(GatewayError::InvalidRange)
    ));
    assert!(matches!(
        copy(4, Some((20, 20))).await,
        Err(GatewayError::InvalidRange)
    ));
    // the source is read as its reader may: bob may not
    assert!(matches!(
        f.gw.upload_part_copy(
            &Requester::user("bob"),
            "mpu",
            "copy",
            &up,
            4,
            "mpu",
            "src",
            None,
            GetParams::default(),
            None,
        )
        .await,
        Err(GatewayError::AccessDenied)
    ));
    let parts = [(1, p1.etag), (2, p2.etag), (3, p3.etag)];
    f.gw.complete_multipart(&owner(), "mpu", "copy", &up, &parts)
        .await
        .expect("complete");
    let got =
        f.gw.get_object(&owner(), "mpu", "copy", GetParams::default())
            .await
            .expect("get");
    let data = collect(got.body.expect("body")).await.expect("read");
    assert_eq!(data, b"abcdefghijabcdefghijklmnopqrstt");
}

/// What CompleteMultipartUpload refuses, before anything changes.
#[tokio::test]
async fn completion_is_validated() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    type Check = fn(&GatewayError) -> bool;
    type Case<'a> = (&'a str, &'a [(u32, &'a str)], Check);
    let cases: &[Case] = &[
        ("no parts", &[], |e| {
            matches!(e, GatewayError::MalformedXml(..))
        }),
        ("descending", &[(2, MD5_P2), (1, MD5_P1)], |e| {
            matches!(e, GatewayError::InvalidPartOrder)
        }),
        // a part named twice is its last entry (s3-tests'
        // test_multipart_resend_first_finishing_last)
        (
            "repeated, the last naming a stale ETag",
            &[(1, MD5_P1), (1, MD5_P2)],
            |e| matches!(e, GatewayError::InvalidPart(1)),
        ),
        (
            "repeated after a higher number",
            &[(1, MD5_P1), (2, MD5_P2), (1, MD5_P1)],
            |e| matches!(e, GatewayError::InvalidPartOrder),
        ),
        ("order checked before parts", &[(9, "x"), (4, "y")], |e| {
            matches!(e, GatewayError::InvalidPartOrder)
        }),
        ("never uploaded", &[(1, MD5_P1), (4, MD5_P1)], |e| {
            matches!(e, GatewayError::InvalidPart(4))
        }),
        ("another part's ETag", &[(1, MD5_P2), (2, MD5_P2)], |e| {
            matches!(e, GatewayError::InvalidPart(1))
        }),
        ("ETag of nothing", &[(1, "")], |e| {
            matches!(e, GatewayError::InvalidPart(1))
        }),
    ];
    let up = three_parts(&f, "k").await;
    for (what, parts, want) in cases {
        match f
            .gw
            .complete_multipart(&owner(), "mpu", "k", &up, &wanted(parts))
            .await
        {
            Ok(_) => panic!("{what}: completed"),
            Err(e) => assert!(want(&e), "{what}: {e}"),
        }
    }
    // every part but the last must reach the minimum (5 bytes here)
    part(&f, "k", &up, 4, P1).await.expect("part 4");
    assert!(matches!(
        f.gw.complete_multipart(
            &owner(),
            "mpu",
            "k",
            &up,
            &wanted(&[(3, MD5_P3), (4, MD5_P1)])
        )
        .await,
        Err(GatewayError::EntityTooSmall)
    ));
    // nothing happened: the upload still has its parts, no object exists
    let (_, parts, _) =
        f.gw.list_parts(&owner(), "mpu", "k", &up, 0, 1000)
            .await
            .expect("list parts");
    assert_eq!(parts.len(), 4);
    assert!(matches!(
        f.gw.get_object(&owner(), "mpu", "k", GetParams::default())
            .await,
        Err(GatewayError::NoSuchKey)
    ));
}

/// The completed object: the chosen parts in order, ETag = MD5 of the
/// parts' binary MD5s, "-", the number of parts; parts left out are
/// deleted; the upload is gone.
#[tokio::test]
async fn completed_objects() {
    let (f, id) = Fixture::with_bucket(small_opts(), "mpu").await;
    // (chosen parts, ETag, data)
    type Case<'a> = (&'a [(u32, &'a str)], &'a str, &'a [&'a [u8]]);
    let cases: &[Case] = &[
        (
            &[(1, MD5_P1), (3, MD5_P3)],
            "06fbd9b0326197c7814631406b3a49b8-2",
            &[P1, P3],
        ),
        (
            &[(1, MD5_P1), (2, MD5_P2), (3, MD5_P3)],
            "87bb35e40b2ca331fa7d8817fea3506d-3",
            &[P1, P2, P3],
        ),
        // one part, however small, is the last
        (&[(3, MD5_P3)], "faff146ee04f707fef36edc5333a6a54-1", &[P3]),
        // ETags as clients send them, quoted
        (
            &[
                (1, "\"e80b5017098950fc58aad83c8c14978e\""),
                (3, "\"412566367c67448b599d1b7666f8ccfc\""),
            ],
            "06fbd9b0326197c7814631406b3a49b8-2",
            &[P1, P3],
        ),
    ];
    for (i, &(chosen, etag, pieces)) in cases.iter().enumerate() {
        let key = format!("obj{i}");
        let up = three_parts(&f, &key).await;
        let (_, parts, _) =
            f.gw.list_parts(&owner(), "mpu", &key, &up, 0, 1000)
                .await
                .expect("list parts");
        let etags: Vec<&str> = parts.iter().map(|p| p.etag.as_str()).collect();
        assert_eq!(etags, [MD5_P1, MD5_P2, MD5_P3]);
        let meta =
            f.gw.complete_multipart(&owner(), "mpu", &key, &up, &wanted(chosen))
                .await
                .expect("complete")
                .meta;
        let data = pieces.concat();
        assert_eq!(meta.etag, etag, "{chosen:?}");
        assert_eq!(meta.size, data.len() as u64, "{chosen:?}");
        assert_eq!(meta.head_len, 0, "{chosen:?}");
        let want_tails: Vec<Tail> = chosen
            .iter()
            .map(|(n, _)| parts[*n as usize - 1].tail.clone())
            .collect();
        assert_eq!(meta.tails, want_tails, "{chosen:?}");
        let got =
            f.gw.get_object(&owner(), "mpu", &key, GetParams::default())
                .await
                .expect("get");
        assert_eq!(got.meta.etag, etag);
        assert_eq!(collect(got.body.expect("body")).await.expect("read"), data);
        // parts left out lose their stripes, chosen ones keep them
        for p in &parts {
            let kept = chosen.iter().any(|(n, _)| *n == p.number);
            let first = layout::stripe(&id, &p.tail.tag, 0);
            assert_eq!(
                f.exists(&first).await,
                kept,
                "{chosen:?}: part {}",
                p.number
            );
        }
        assert!(matches!(
            f.gw.list_parts(&owner(), "mpu", &key, &up, 0, 1000).await,
            Err(GatewayError::NoSuchUpload)
        ));
        assert!(matches!(
            part(&f, &key, &up, 1, P1).await,
            Err(GatewayError::NoSuchUpload)
        ));
    }
    assert!(
        f.gw.list_multipart_uploads(&owner(), "mpu", ("", ""), ("", ""), 1000)
            .await
            .expect("uploads")
            .uploads
            .is_empty()
    );
    assert!(f.gc_tags().await.is_empty());
}

/// Ranged reads of a multipart object cross part and stripe boundaries.
#[tokio::test]
async fn ranged_reads_of_multipart_objects() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let up = start(&f, "k").await;
    // parts of 6, 9 and 3 bytes, in stripes of 4: 0..4 4..6 | 6..10 10..14 14..15 | 15..18
    let data = pattern(18);
    let mut chosen = Vec::new();
    for (n, range) in [(1, 0..6), (2, 6..15), (3, 15..18)] {
        let p = part(&f, "k", &up, n, &data[range]).await.expect("part");
        chosen.push((n, p.etag));
    }
    f.gw.complete_multipart(&owner(), "mpu", "k", &up, &chosen)
        .await
        .expect("complete");
    for (first, last) in [
        (0, 17),
        (0, 0),
        (5, 6),
        (3, 16),
        (6, 14),
        (13, 15),
        (14, 14),
        (15, 17),
        (17, 17),
    ] {
        let got =
            f.gw.get_object(
                &owner(),
                "mpu",
                "k",
                GetParams {
                    range: Some(crate::RangeSpec::Int {
                        first,
                        last: Some(last),
                    }),
                    ..Default::default()
                },
            )
            .await
            .expect("get");
        assert_eq!(got.range, Some((first, last + 1)));
        let read = collect(got.body.expect("body")).await.expect("read");
        assert_eq!(
            read,
            &data[first as usize..=last as usize],
            "{first}-{last}"
        );
    }
}

/// CompleteMultipartUpload's If-None-Match, If-Match and object size:
/// a completion they refuse leaves the key's object and the upload as
/// they were, and the same upload completes once they hold.
#[tokio::test]
async fn completion_checks_refuse_and_keep_the_upload() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let old =
        f.gw.put_object(&owner(), "mpu", "k", PutParams::default(), body(b"old", 2))
            .await
            .expect("put")
            .meta;
    let up = three_parts(&f, "k").await;
    let all = wanted(&[(1, MD5_P1), (2, MD5_P2), (3, MD5_P3)]);
    let complete = |checks: CompleteChecks| {
        let (gw, up, all) = (f.gw.clone(), up.clone(), all.clone());
        async move {
            gw.complete_multipart_checked(&owner(), "mpu", "k", &up, &all, &checks)
                .await
        }
    };
    let refusals = [
        (
            CompleteChecks {
                if_none_match_any: true,
                ..Default::default()
            },
            "PreconditionFailed",
        ),
        (
            CompleteChecks {
                if_match: Some("0123".into()),
                ..Default::default()
            },
            "PreconditionFailed",
        ),
        (
            CompleteChecks {
                object_size: Some(13),
                ..Default::default()
            },
            "InvalidRequest",
        ),
    ];
    for (checks, want) in refusals {
        let e = complete(checks.clone()).await.expect_err("refused");
        assert!(format!("{e:?}").starts_with(want), "{checks:?}: {e:?}");
    }
    let head = GetParams {
        head_only: true,
        ..Default::default()
    };
    let got =
        f.gw.get_object(&owner(), "mpu", "k", head)
            .await
            .expect("the old object");
    assert_eq!(got.meta.etag, old.etag);
    let done = complete(CompleteChecks {
        if_match: Some(format!("\"{}\"", old.etag)),
        object_size: Some(14),
        ..Default::default()
    })
    .await
    .expect("completes once the checks hold");
    assert_eq!(done.meta.size, 14);
}

/// Uploading a part number again replaces the part: the old data goes,
/// the old ETag no longer completes.
#[tokio::test]
async fn part_uploaded_again_replaces_the_first() {
    let (f, id) = Fixture::with_bucket(small_opts(), "mpu").await;
    let up = start(&f, "k").await;
    let first = part(&f, "k", &up, 1, P1).await.expect("part");
    let second = part(&f, "k", &up, 1, P2).await.expect("part again");
    assert_eq!(second.etag, MD5_P2);
    assert!(!f.exists(&layout::stripe(&id, &first.tail.tag, 0)).await);
    assert!(f.exists(&layout::stripe(&id, &second.tail.tag, 0)).await);
    let (_, parts, _) =
        f.gw.list_parts(&owner(), "mpu", "k", &up, 0, 1000)
            .await
            .expect("list parts");
    // (mtime went through JSON, equal only to the microsecond)
    let seen: Vec<_> = parts
        .iter()
        .map(|p| (p.number, &p.etag, p.size, &p.tail))
        .collect();
    assert_eq!(seen, [(1, &second.etag, 6, &second.tail)]);
    assert!(matches!(
        f.gw.complete_multipart(&owner(), "mpu", "k", &up, &wanted(&[(1, MD5_P1)]))
            .await,
        Err(GatewayError::InvalidPart(1))
    ));
    // the client names both uploads of part 1, the current one last
    let done =
        f.gw.complete_multipart(
            &owner(),
            "mpu",
            "k",
            &up,
            &wanted(&[(1, MD5_P1), (1, MD5_P2)]),
        )
        .await
        .expect("complete");
    assert_eq!(done.meta.tails, [second.tail]);
}

/// A failed part upload stores nothing and keeps the part it would
/// have replaced.
#[tokio::test]
async fn failed_parts_store_nothing() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let up = start(&f, "k").await;
    part(&f, "k", &up, 1, P1).await.expect("part");
    let before = f.data_objects().await;
    let short =
        f.gw.upload_part(
            &owner(),
            "mpu",
            "k",
            &up,
            1,
            Some(7),
            None,
            None,
            None,
            body(P2, 2),
        )
        .await;
    assert!(matches!(short, Err(GatewayError::IncompleteBody)));
    let bad_md5 =
        f.gw.upload_part(
            &owner(),
            "mpu",
            "k",
            &up,
            1,
            None,
            Some(vec![0; 16]),
            None,
            None,
            body(P2, 2),
        )
        .await;
    assert!(matches!(bad_md5, Err(GatewayError::BadDigest)));
    assert_eq!(f.data_objects().await, before);
    assert!(f.gc_tags().await.is_empty());
    let (_, parts, _) =
        f.gw.list_parts(&owner(), "mpu", "k", &up, 0, 1000)
            .await
            .expect("list parts");
    assert_eq!(parts.len(), 1);
    assert_eq!(parts[0].etag, MD5_P1);
}

/// ListParts: ascending part numbers whatever the upload order, after
/// the marker, at most max, truncated only if more follow.
#[tokio::test]
async fn list_parts_pages() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let up = start(&f, "k").await;
    for n in [5, 1, 3, 2, 12] {
        part(&f, "k", &up, n, P1).await.expect("part");
    }
    // (marker, max, numbers, truncated)
    let cases: &[(u32, usize, &[u32], bool)] = &[
        (0, 1000, &[1, 2, 3, 5, 12], false),
        (0, 5, &[1, 2, 3, 5, 12], false),
        (0, 2, &[1, 2], true),
        (2, 2, &[3, 5], true),
        (5, 2, &[12], false),
        (4, 1000, &[5, 12], false),
        (12, 1000, &[], false),
    ];
    for &(marker, max, numbers, truncated) in cases {
        let (info, parts, more) =
            f.gw.list_parts(&owner(), "mpu", "k", &up, marker, max)
                .await
                .expect("list parts");
        assert_eq!(info.upload_id, up);
        let got: Vec<u32> = parts.iter().map(|p| p.number).collect();
        assert_eq!(got, numbers, "marker {marker}, max {max}");
        assert_eq!(more, truncated, "marker {marker}, max {max}");
    }
}

/// Abort deletes every part; the upload is gone for all operations.
#[tokio::test]
async fn abort_removes_everything() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let up = three_parts(&f, "k").await;
    assert!(!f.data_objects().await.is_empty());
    f.gw.abort_multipart(&owner(), "mpu", "k", &up)
        .await
        .expect("abort");
    assert_eq!(f.data_objects().await, Vec::<String>::new());
    assert!(f.gc_tags().await.is_empty());
    assert!(
        f.gw.list_multipart_uploads(&owner(), "mpu", ("", ""), ("", ""), 1000)
            .await
            .expect("uploads")
            .uploads
            .is_empty()
    );
    assert!(matches!(
        part(&f, "k", &up, 1, P1).await,
        Err(GatewayError::NoSuchUpload)
    ));
    assert!(matches!(
        f.gw.complete_multipart(&owner(), "mpu", "k", &up, &wanted(&[(1, MD5_P1)]))
            .await,
        Err(GatewayError::NoSuchUpload)
    ));
    assert!(matches!(
        f.gw.abort_multipart(&owner(), "mpu", "k", &up).await,
        Err(GatewayError::NoSuchUpload)
    ));
}

/// An upload id only works with its own bucket and key, and for its
/// initiator or the bucket's owner.
#[tokio::test]
async fn uploads_belong_to_their_key() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    f.gw.create_bucket("alice", "other", CannedAcl::PublicReadWrite)
        .await
        .expect("bucket");
    let up = start(&f, "k").await;
    let cases: &[(&str, &str, &str, &str)] = &[
        ("another key", "mpu", "k2", &up),
        ("another bucket", "other", "k", &up),
        ("an id never issued", "mpu", "k", "2~0000"),
        ("an id no object may be named after", "mpu", "k", ""),
    ];
    for (what, bucket, key, id) in cases {
        let r =
            f.gw.upload_part(
                &owner(),
                bucket,
                key,
                id,
                1,
                None,
                None,
                None,
                None,
                body(P1, 6),
            )
            .await;
        assert!(
            matches!(r, Err(GatewayError::NoSuchUpload)),
            "{what}: {:?}",
            r.err()
        );
    }
    let bob = Requester::user("bob");
    assert!(matches!(
        f.gw.upload_part(
            &bob,
            "mpu",
            "k",
            &up,
            1,
            None,
            None,
            None,
            None,
            body(P1, 6)
        )
        .await,
        Err(GatewayError::AccessDenied)
    ));
    assert!(matches!(
        f.gw.create_multipart(&bob, "mpu", "k", PutParams::default())
            .await,
        Err(GatewayError::AccessDenied)
    ));
    // in a public-read-write bucket anyone may start one; its
    // initiator and the bucket owner may use it, nobody else
    let theirs =
        f.gw.create_multipart(&bob, "other", "k", PutParams::default())
            .await
            .expect("create")
            .upload_id;
    for (who, ok) in [
        (&bob, true),
        (&owner(), true),
        (&Requester::user("carol"), false),
    ] {
        let r = f.gw.list_parts(who, "other", "k", &theirs, 0, 1000).await;
        assert_eq!(r.is_ok(), ok, "{who:?}");
    }
}

/// Completing over an existing object replaces it and deletes its
/// stripes.
#[tokio::test]
async fn completion_replaces_an_object() {
    let (f, id) = Fixture::with_bucket(small_opts(), "mpu").await;
    let old =
        f.gw.put_object(
            &owner(),
            "mpu",
            "k",
            PutParams::default(),
            body(&pattern(21), 4),
        )
        .await
        .expect("put")
        .meta;
    let up = three_parts(&f, "k").await;
    f.gw.complete_multipart(
        &owner(),
        "mpu",
        "k",
        &up,
        &wanted(&[(1, MD5_P1), (2, MD5_P2)]),
    )
    .await
    .expect("complete");
    assert!(!f.exists(&layout::stripe(&id, &old.tag, 0)).await);
    let got =
        f.gw.get_object(&owner(), "mpu", "k", GetParams::default())
            .await
            .expect("get");
    assert_eq!(
        collect(got.body.expect("body")).await.expect("read"),
        [P1, P2].concat()
    );
    assert!(f.gc_tags().await.is_empty());
    // only the new object's head and stripes remain
    let objects = f.data_objects().await;
    assert_eq!(objects.len(), 1 + 2 + 2, "{objects:?}");
}

/// A completion retried with the same part list answers the first
/// one's result while the object it made is the key's current version;
/// another part list, another key, or a later version: NoSuchUpload.
#[tokio::test]
async fn retried_completion_answers_the_first_result() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let up = three_parts(&f, "k").await;
    let list = wanted(&[(1, MD5_P1), (2, MD5_P2)]);
    let first =
        f.gw.complete_multipart(&owner(), "mpu", "k", &up, &list)
            .await
            .expect("complete")
            .meta;
    assert_eq!(first.upload_id, up);
    let quoted = wanted(&[(1, "\"e80b5017098950fc58aad83c8c14978e\""), (2, MD5_P2)]);
    for retry in [&list, &quoted] {
        let again =
            f.gw.complete_multipart(&owner(), "mpu", "k", &up, retry)
                .await
                .expect("retried completion");
        // (mtime went through JSON, equal only to the microsecond)
        assert_eq!(
            (
                &again.meta.etag,
                again.meta.size,
                &again.meta.tails,
                &again.meta.tag
            ),
            (&first.etag, first.size, &first.tails, &first.tag)
        );
    }
    let no_such = |r: GatewayResult<PutResult>, what: &str| {
        assert!(
            matches!(r, Err(GatewayError::NoSuchUpload)),
            "{what}: {r:?}"
        );
    };
    for (what, key, parts) in [
        ("fewer parts", "k", wanted(&[(1, MD5_P1)])),
        ("another ETag", "k", wanted(&[(1, MD5_P1), (2, MD5_P3)])),
        ("another key", "other", list.clone()),
    ] {
        no_such(
            f.gw.complete_multipart(&owner(), "mpu", key, &up, &parts)
                .await,
            what,
        );
    }
    f.gw.put_object(&owner(), "mpu", "k", PutParams::default(), body(P3, 4))
        .await
        .expect("overwrite");
    no_such(
        f.gw.complete_multipart(&owner(), "mpu", "k", &up, &list)
            .await,
        "after an overwrite",
    );
}
