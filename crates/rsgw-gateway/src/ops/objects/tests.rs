//! The object operations' tests: PUT, GET, DELETE, ACLs and copies on
//! the embedded store.

use std::collections::BTreeMap;

use super::*;
use crate::model::acl::CannedAcl;
use crate::model::lock::LockRequest;
use crate::model::object::Tail;
use crate::model::params::{BodyStream, CopyMetadata, GetParams, GetResult, PutParams, RangeSpec};
use crate::testutil::{Fixture, OWNER, body, collect, owner, pattern, small_opts};
use md5::{Digest, Md5};

fn md5_hex(data: &[u8]) -> String {
    hex::encode(Md5::digest(data))
}

/// A PUT keeps its first `chunk_size` bytes in the head and the rest in
/// `stripe_size` stripes of one tail named by the write's tag, however
/// the body arrives; the object reads back whole.
#[tokio::test]
async fn put_splits_into_head_and_stripes() {
    // chunk 8, stripe 4
    let (f, id) = Fixture::with_bucket(small_opts(), "split").await;
    // (size, head bytes, stripes)
    let cases: [(usize, u64, u64); 10] = [
        (0, 0, 0),
        (1, 1, 0),
        (7, 7, 0),
        (8, 8, 0),
        (9, 8, 1),
        (12, 8, 1),
        (13, 8, 2),
        (16, 8, 2),
        (17, 8, 3),
        (21, 8, 4),
    ];
    for (size, head_len, stripes) in cases {
        for piece in [1, 3, 5, 8, 64] {
            let what = format!("{size} bytes in pieces of {piece}");
            let key = format!("k{size}-{piece}");
            let data = pattern(size);
            let meta =
                f.gw.put_object(
                    &owner(),
                    "split",
                    &key,
                    PutParams::default(),
                    body(&data, piece),
                )
                .await
                .expect("put")
                .meta;
            assert_eq!(meta.size, size as u64, "{what}");
            assert_eq!(meta.etag, md5_hex(&data), "{what}");
            assert_eq!(meta.head_len, head_len, "{what}");
            let want_tails = if stripes == 0 {
                vec![]
            } else {
                vec![Tail {
                    tag: meta.tag.clone(),
                    size: size as u64 - head_len,
                    stripe_size: 4,
                }]
            };
            assert_eq!(meta.tails, want_tails, "{what}");
            let head = f.data(&layout::head(&id, &key)).await;
            assert_eq!(&head[..], &data[..head_len as usize], "{what}: head");
            for n in 0..stripes {
                let from = 8 + 4 * n as usize;
                let to = (from + 4).min(size);
                let got = f.data(&layout::stripe(&id, &meta.tag, n)).await;
                assert_eq!(&got[..], &data[from..to], "{what}: stripe {n}");
            }
            assert!(
                !f.exists(&layout::stripe(&id, &meta.tag, stripes)).await,
                "{what}: one stripe too many"
            );
            let got =
                f.gw.get_object(&owner(), "split", &key, GetParams::default())
                    .await
                    .expect("get");
            // the stored mtime went through JSON: equal to the microsecond
            assert!((got.meta.mtime - meta.mtime).abs() < 1e-6, "{what}");
            let stored = ObjectMeta {
                mtime: meta.mtime,
                ..got.meta
            };
            assert_eq!(stored, meta, "{what}");
            assert_eq!(got.range, None, "{what}");
            let read = collect(got.body.expect("body")).await.expect("read");
            assert_eq!(read, data, "{what}");
        }
    }
    // the writes' GC log entries are all gone
    assert_eq!(f.gc_tags().await, Vec::<String>::new());
}

/// Ranged GETs read the head's part and only the stripes they overlap.
#[tokio::test]
async fn ranged_reads_cross_head_and_stripe_boundaries() {
    use RangeSpec::{Int, Suffix};
    let (f, _) = Fixture::with_bucket(small_opts(), "ranges").await;
    // head 0..8, stripes 8..12, 12..16, 16..20, 20..21
    let data = pattern(21);
    f.gw.put_object(
        &owner(),
        "ranges",
        "k",
        PutParams::default(),
        body(&data, 7),
    )
    .await
    .expect("put");
    let int = |first, last| Int { first, last };
    let cases: &[(RangeSpec, Option<(u64, u64)>)] = &[
        (int(0, Some(0)), Some((0, 1))),
        (int(0, Some(7)), Some((0, 8))),
        (int(7, Some(8)), Some((7, 9))),
        (int(8, Some(11)), Some((8, 12))),
        (int(9, Some(9)), Some((9, 10))),
        (int(11, Some(12)), Some((11, 13))),
        (int(10, Some(17)), Some((10, 18))),
        (int(3, Some(19)), Some((3, 20))),
        (int(20, None), Some((20, 21))),
        (int(5, Some(1000)), Some((5, 21))),
        (Suffix { length: 1 }, Some((20, 21))),
        (Suffix { length: 13 }, Some((8, 21))),
        (Suffix { length: 100 }, Some((0, 21))),
        (int(21, None), None),
        (Suffix { length: 0 }, None),
    ];
    for &(spec, want) in cases {
        for head_only in [false, true] {
            let got =
                f.gw.get_object(
                    &owner(),
                    "ranges",
                    "k",
                    GetParams {
                        range: Some(spec),
                        head_only,
                        ..Default::default()
                    },
                )
                .await;
            match (got, want) {
                (Ok(got), Some((start, end))) => {
                    assert_eq!(got.range, Some((start, end)), "{spec:?}");
                    if head_only {
                        assert!(got.body.is_none(), "HEAD {spec:?}");
                    } else {
                        let read = collect(got.body.expect("body")).await.expect("read");
                        assert_eq!(read, &data[start as usize..end as usize], "{spec:?}");
                    }
                }
                (Err(e), None) => {
                    assert!(matches!(e, GatewayError::InvalidRange), "{spec:?}: {e}");
                }
                (Ok(got), None) => panic!("{spec:?}: served {:?}", got.range),
                (Err(e), Some(_)) => panic!("{spec:?}: {e}"),
            }
        }
    }
}

/// DeleteObjects' keys, several at a time: results in the keys' order,
/// a key named twice reported twice, a missing key deleted, everything
/// gone with its stripes; a requester who may not delete is refused
/// key by key.
#[tokio::test]
async fn delete_objects_answers_each_key_in_order() {
    let (f, id) = Fixture::with_bucket(small_opts(), "many").await;
    let keys: Vec<String> = (0..20).map(|i| format!("k{i:02}")).collect();
    for k in &keys {
        f.gw.put_object(
            &owner(),
            "many",
            k,
            PutParams::default(),
            body(&pattern(13), 4),
        )
        .await
        .expect("put");
    }
    let got =
        f.gw.delete_objects(
            &Requester::anonymous(),
            "many",
            vec![("k00".into(), None), ("k01".into(), None)],
            false,
        )
        .await;
    assert!(
        got.iter()
            .all(|(_, _, r)| matches!(r, Err(GatewayError::AccessDenied))),
        "anonymous: {got:?}"
    );
    let mut asked = keys.clone();
    asked.insert(5, "k03".into());
    asked.push("missing".into());
    asked.push("k19".into());
    let got =
        f.gw.delete_objects(
            &owner(),
            "many",
            asked.iter().map(|k| (k.clone(), None)).collect(),
            false,
        )
        .await;
    assert_eq!(
        got.iter().map(|(k, _, _)| k.clone()).collect::<Vec<_>>(),
        asked
    );
    assert!(got.iter().all(|(_, _, r)| r.is_ok()), "{got:?}");
    assert_eq!(
        f.data_objects().await,
        Vec::<String>::new(),
        "bucket {id} emptied"
    );
}

/// What an overwrite or a delete replaces is removed at once: no stripe
/// and no GC log entry stays behind.
#[tokio::test]
async fn overwrite_and_delete_leave_nothing_behind() {
    let (f, id) = Fixture::with_bucket(small_opts(), "over").await;
    let put = |data: Vec<u8>| {
        let gw = f.gw.clone();
        async move {
            gw.put_object(&owner(), "over", "k", PutParams::default(), body(&data, 4))
                .await
                .expect("put")
                .meta
        }
    };
    let head = format!("{id}/k");
    let first = put(pattern(21)).await;
    let stripes =
        |tag: &str, n: u64| -> Vec<String> { (0..n).map(|i| format!("{id}.{tag}.{i}")).collect() };
    let mut want = vec![head.clone()];
    want.extend(stripes(&first.tag, 4));
    want.sort();
    assert_eq!(f.data_objects().await, want);

    // larger, smaller, same size: only the new version's objects remain
    for size in [30, 3, 3, 13] {
        let data = pattern(size);
        let meta = put(data.clone()).await;
        let mut want = vec![head.clone()];
        want.extend(stripes(
            &meta.tag,
            meta.tails.first().map_or(0, Tail::stripes),
        ));
        want.sort();
        assert_eq!(
            f.data_objects().await,
            want,
            "after a {size}-byte overwrite"
        );
        assert_eq!(f.gc_tags().await, Vec::<String>::new(), "{size}");
        let got =
            f.gw.get_object(&owner(), "over", "k", GetParams::default())
                .await
                .expect("get");
        assert_eq!(collect(got.body.expect("body")).await.expect("read"), data);
    }

    f.gw.delete_object(&owner(), "over", "k")
        .await
        .expect("delete");
    assert_eq!(f.data_objects().await, Vec::<String>::new());
    assert_eq!(f.gc_tags().await, Vec::<String>::new());
    assert!(matches!(
        f.gw.get_object(&owner(), "over", "k", GetParams::default())
            .await,
        Err(GatewayError::NoSuchKey)
    ));
    assert!(crate::testutil::listed(&f.gw, "over").await.is_empty());
    // deleting what is gone succeeds (S3 answers 204 either way)
    f.gw.delete_object(&owner(), "over", "k")
        .await
        .expect("delete again");
}

/// A PUT that fails leaves the previous version whole and nothing of
/// its own: no stripe, no GC log entry.
#[tokio::test]
async fn failed_puts_leave_the_old_version_and_nothing_else() {
    let opts = crate::GatewayOptions {
        max_put_size: 24,
        ..small_opts()
    };
    let (f, _) = Fixture::with_bucket(opts, "fail").await;
    let old = pattern(13);
    f.gw.put_object(&owner(), "fail", "k", PutParams::default(), body(&old, 5))
        .await
        .expect("put");
    let before = f.data_objects().await;
    assert_eq!(before.len(), 3, "head and two stripes: {before:?}");

    let data = pattern(21);
    let broken = || -> BodyStream {
        let pieces: Vec<GatewayResult<Bytes>> = vec![
            Ok(Bytes::copy_from_slice(&data[..13])),
            Ok(Bytes::copy_from_slice(&data[13..17])),
            Err(GatewayError::Body("connection reset".into())),
        ];
        Box::pin(futures::stream::iter(pieces))
    };
    type Case = (
        &'static str,
        PutParams,
        BodyStream,
        fn(&GatewayError) -> bool,
    );
    let cases: Vec<Case> = vec![
        ("body fails midway", PutParams::default(), broken(), |e| {
            matches!(e, GatewayError::Body(_))
        }),
        (
            "wrong Content-MD5",
            PutParams {
                content_md5: Some(Md5::digest(b"something else").to_vec()),
                ..Default::default()
            },
            body(&data, 4),
            |e| matches!(e, GatewayError::BadDigest),
        ),
        (
            "body shorter than Content-Length",
            PutParams {
                content_length: Some(22),
                ..Default::default()
            },
            body(&data, 4),
            |e| matches!(e, GatewayError::IncompleteBody),
        ),
        (
            "body longer than Content-Length",
            PutParams {
                content_length: Some(20),
                ..Default::default()
            },
            body(&data, 4),
            |e| matches!(e, GatewayError::IncompleteBody),
        ),
        (
            "Content-Length over max_put_size",
            PutParams {
                content_length: Some(25),
                ..Default::default()
            },
            body(&pattern(25), 4),
            |e| matches!(e, GatewayError::EntityTooLarge),
        ),
        (
            "body over max_put_size without a length",
            PutParams::default(),
            body(&pattern(25), 4),
            |e| matches!(e, GatewayError::EntityTooLarge),
        ),
        (
            "checksum check fails",
            PutParams {
                check: Some(Box::new(|| {
                    Err(GatewayError::BadChecksum("crc32 differs".into()))
                })),
                ..Default::default()
            },
            body(&data, 4),
            |e| matches!(e, GatewayError::BadChecksum(_)),
        ),
        (
            "If-None-Match: * over an object",
            PutParams {
                if_none_match_any: true,
                ..Default::default()
            },
            body(&data, 4),
            |e| matches!(e, GatewayError::PreconditionFailed),
        ),
        (
            "If-Match another ETag",
            PutParams {
                if_match: Some(md5_hex(&data)),
                ..Default::default()
            },
            body(&data, 4),
            |e| matches!(e, GatewayError::PreconditionFailed),
        ),
    ];
    for (what, params, b, want) in cases {
        match f.gw.put_object(&owner(), "fail", "k", params, b).await {
            Ok(_) => panic!("{what}: stored"),
            Err(e) => assert!(want(&e), "{what}: {e}"),
        }
        assert_eq!(f.data_objects().await, before, "{what}");
        assert_eq!(f.gc_tags().await, Vec::<String>::new(), "{what}");
        let got =
            f.gw.get_object(&owner(), "fail", "k", GetParams::default())
                .await
                .expect("get");
        assert_eq!(
            collect(got.body.expect("body")).await.expect("read"),
            old,
            "{what}"
        );
    }
    // the conditions that hold do store
    let ok = PutParams {
        if_match: Some(format!("\"{}\"", md5_hex(&old))),
        ..Default::default()
    };
    f.gw.put_object(&owner(), "fail", "k", ok, body(&data, 4))
        .await
        .expect("If-Match the current ETag");
    let ok = PutParams {
        if_none_match_any: true,
        ..Default::default()
    };
    f.gw.put_object(&owner(), "fail", "new", ok, body(&data, 4))
        .await
        .expect("If-None-Match: * on a new key");
}

/// Who sees what of a private bucket: S3 hides whether a key exists from
/// those who may not list the bucket.
#[tokio::test]
async fn reads_of_private_objects() {
    let (f, _) = Fixture::with_bucket(small_opts(), "priv").await;
    f.gw.put_object(&owner(), "priv", "k", PutParams::default(), body(b"x", 1))
        .await
        .expect("put");
    let bob = Requester::user("bob");
    type Case<'a> = (
        &'a str,
        &'a Requester,
        &'a str,
        fn(&GatewayResult<GetResult>) -> bool,
    );
    let cases: &[Case] = &[
        ("owner reads", &owner(), "k", |r| r.is_ok()),
        ("owner, missing key", &owner(), "nokey", |r| {
            matches!(r, Err(GatewayError::NoSuchKey))
        }),
        ("other user", &bob, "k", |r| {
            matches!(r, Err(GatewayError::AccessDenied))
        }),
        ("other user, missing key", &bob, "nokey", |r| {
            matches!(r, Err(GatewayError::AccessDenied))
        }),
        ("anonymous", &Requester::anonymous(), "k", |r| {
            matches!(r, Err(GatewayError::AccessDenied))
        }),
        (
            "anonymous, missing key",
            &Requester::anonymous(),
            "nokey",
            |r| matches!(r, Err(GatewayError::AccessDenied)),
        ),
    ];
    for (what, who, key, want) in cases {
        let r =
            f.gw.get_object(who, "priv", key, GetParams::default())
                .await;
        assert!(want(&r), "{what}: {:?}", r.as_ref().err());
    }
    // a public-read object is readable by anyone, but only its owner
    // may change its ACL
    f.gw.set_object_acl(&owner(), "priv", "k", None, CannedAcl::PublicRead, None)
        .await
        .expect("set acl");
    for who in [&bob, &Requester::anonymous()] {
        assert!(
            f.gw.get_object(who, "priv", "k", GetParams::default())
                .await
                .is_ok()
        );
        assert!(matches!(
            f.gw.set_object_acl(who, "priv", "k", None, CannedAcl::Private, None)
                .await,
            Err(GatewayError::AccessDenied)
        ));
    }
}

/// Objects other users write into a bucket (public-read-write): the
/// bucket's owner reads them, and reads and sets their ACL, only as
/// their ACL grants it, as in radosgw; an anonymous writer's objects
/// are the bucket owner's.
#[tokio::test]
async fn other_writers_objects() {
    let (f, _) = Fixture::with_bucket(small_opts(), "shared").await;
    f.gw.set_bucket_acl(&owner(), "shared", CannedAcl::PublicReadWrite, None)
        .await
        .expect("bucket acl");
    let bob = Requester::user("bob");
    let anon = Requester::anonymous();
    // (writer, its ACL, whether alice (the bucket's owner) may read
    // it, and read and set its ACL)
    let cases = [
        (&bob, CannedAcl::Private, false, false),
        (&bob, CannedAcl::PublicRead, true, false),
        (&bob, CannedAcl::BucketOwnerRead, true, false),
        (&bob, CannedAcl::BucketOwnerFullControl, true, true),
        (&anon, CannedAcl::Private, true, true),
    ];
    for (i, (writer, acl, reads, acp)) in cases.into_iter().enumerate() {
        let key = format!("k{i}");
        let params = PutParams {
            acl: acl.into(),
            ..Default::default()
        };
        let why = format!("{writer:?} {acl:?}");
        f.gw.put_object(writer, "shared", &key, params, body(b"data", 2))
            .await
            .expect("put");
        let got =
            f.gw.get_object(&owner(), "shared", &key, GetParams::default())
                .await;
        assert_eq!(got.is_ok(), reads, "{why}: read");
        let shown = f.gw.get_object_acl(&owner(), "shared", &key, None).await;
        match (shown, acp) {
            (Ok(a), true) => {
                let want_owner = if *writer == anon { OWNER } else { "bob" };
                assert_eq!((a.owner.as_str(), a.acl), (want_owner, acl.into()), "{why}");
                assert_eq!(a.bucket_owner, OWNER, "{why}");
            }
            (Err(GatewayError::AccessDenied), false) => {}
            (r, _) => panic!("{why}: get acl {r:?}"),
        }
        let set =
            f.gw.set_object_acl(&owner(), "shared", &key, None, CannedAcl::Private, None)
                .await;
        assert_eq!(set.is_ok(), acp, "{why}: set acl {set:?}");
        // the writer keeps every right to its own object
        if writer.uid().is_some() {
            let a =
                f.gw.get_object_acl(writer, "shared", &key, None)
                    .await
                    .expect("own acl");
            assert_eq!(a.owner, "bob", "{why}");
        }
        // the bucket's owner may always delete (it may write the bucket)
        f.gw.delete_object(&owner(), "shared", &key)
            .await
            .expect("delete");
    }
    // a missing key: NoSuchKey to whoever may list the bucket
    assert!(matches!(
        f.gw.get_object_acl(&bob, "shared", "none", None).await,
        Err(GatewayError::NoSuchKey)
    ));
    f.gw.set_bucket_acl(&owner(), "shared", CannedAcl::Private, None)
        .await
        .expect("bucket acl");
    assert!(matches!(
        f.gw.get_object_acl(&bob, "shared", "none", None).await,
        Err(GatewayError::AccessDenied)
    ));
}

/// CopyObject: the copy is independent of its source; copying an
/// object onto itself needs new metadata; failed source conditions
/// are 412, never 304.
#[tokio::test]
async fn copies() {
    let (f, _) = Fixture::with_bucket(small_opts(), "copy").await;
    let data = pattern(21);
    let mut params = PutParams::default();
    params
        .headers
        .insert("content-type".into(), "text/plain".into());
    params.user_meta.insert("color".into(), "red".into());
    let src =
        f.gw.put_object(&owner(), "copy", "src", params, body(&data, 6))
            .await
            .expect("put")
            .meta;
    let copy = |dst: &'static str, md: CopyMetadata, cond: GetParams| {
        let gw = f.gw.clone();
        async move {
            gw.copy_object(
                &owner(),
                "copy",
                "src",
                "copy",
                dst,
                md,
                CannedAcl::Private.into(),
                None,
                None,
                LockRequest::default(),
                cond,
            )
            .await
        }
    };
    assert!(matches!(
        copy("src", CopyMetadata::Copy, GetParams::default()).await,
        Err(GatewayError::InvalidRequest(..))
    ));
    let inm = GetParams {
        if_none_match: Some(vec![src.etag.clone()]),
        ..Default::default()
    };
    assert!(matches!(
        copy("dst", CopyMetadata::Copy, inm).await,
        Err(GatewayError::PreconditionFailed)
    ));
    let im = GetParams {
        if_match: Some(vec!["other".into()]),
        ..Default::default()
    };
    assert!(matches!(
        copy("dst", CopyMetadata::Copy, im).await,
        Err(GatewayError::PreconditionFailed)
    ));

    let dst = copy("dst", CopyMetadata::Copy, GetParams::default())
        .await
        .expect("copy")
        .meta;
    assert_eq!(dst.etag, src.etag);
    assert_eq!(dst.size, 21);
    assert_eq!(dst.headers, src.headers);
    assert_eq!(dst.user_meta, src.user_meta);
    assert_ne!(dst.tag, src.tag, "the copy has stripes of its own");

    let mut user_meta = BTreeMap::new();
    user_meta.insert("color".into(), "blue".into());
    let replaced = copy(
        "src",
        CopyMetadata::Replace {
            headers: BTreeMap::new(),
            user_meta: user_meta.clone(),
        },
        GetParams::default(),
    )
    .await
    .expect("copy onto itself with new metadata")
    .meta;
    assert_eq!(replaced.user_meta, user_meta);
    assert!(replaced.headers.is_empty());
    assert_eq!(replaced.etag, src.etag);

    f.gw.delete_object(&owner(), "copy", "src")
        .await
        .expect("delete source");
    let got =
        f.gw.get_object(&owner(), "copy", "dst", GetParams::default())
            .await
            .expect("get copy");
    assert_eq!(collect(got.body.expect("body")).await.expect("read"), data);
}
