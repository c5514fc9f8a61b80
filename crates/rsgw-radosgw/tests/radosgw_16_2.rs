//! Records radosgw 16.2 wrote, kept as `rados get` (and `getomapval`,
//! `getomapheader`) saved them, with radosgw-admin's JSON for each
//! (tests/data):
//! - a user (`radosgw-admin user create --uid dectest1 ... --max-buckets 7
//!   --caps "users=*;buckets=read"` and `subuser create --subuser
//!   dectest1:swift --access full --key-type swift`) and `user info`;
//! - buckets made through radosgw's S3 API, `metadata get bucket:B` and
//!   `metadata get bucket.instance:B:ID`: `plain` (11 shards, objects of
//!   0 B to 640 MiB, multipart), `site` (a website with two routing
//!   rules), `redir` (a website redirecting every request), `locked`
//!   (object lock with a default retention), `vers` (versioning enabled,
//!   then suspended);
//! - `plain`'s index entry of its multipart object (`bi list`'s entry) and
//!   that shard's header;
//! - the `user.rgw.manifest` of a 9 MiB + 5 B object and of a multipart
//!   object of parts of 5 MiB, 5 MiB + 7 B and 1234 B (bucket marker
//!   `6051d86e-5c49-4de9-9d49-7ee830f6404d.4162.1`), whose RADOS objects
//!   `rados ls` listed as below; the `user.rgw.acl` of an object with
//!   grants to a user, its owner and all users, and of `plain` (public-read);
//! - the `user.rgw.manifest` and `user.rgw.acl` of objects of 11 B and
//!   0 B put whole with a private ACL (bucket marker
//!   `63eba711-0979-4aac-a2c0-a617d184a821.4156.1`): what rsgw writes
//!   must be these bytes.
//!
//! tests/gateway/test_radosgw_records.py checks many more on a live
//! cluster; these keep the decoders honest without one.

use rsgw_radosgw::DecodeError;
use rsgw_radosgw::acl::{Grantee, PERM_FULL_CONTROL, PERM_READ, PERM_READ_ACP, decode_policy};
use rsgw_radosgw::bucket::{decode_bucket_instance, decode_entry_point};
use rsgw_radosgw::index::{Category, decode_dir_entry, decode_dir_header};
use rsgw_radosgw::manifest::{Manifest, decode_manifest};
use rsgw_radosgw::upload::{decode_part, decode_upload_info, encode_upload_info};
use rsgw_radosgw::user::{decode_link, decode_user_record};

const USER: &[u8] = include_bytes!("data/user-dectest1.bin");
const USER_JSON: &str = include_str!("data/user-dectest1.json");
const LINK: &[u8] = include_bytes!("data/link-dectest1.bin");

#[test]
fn a_user_record_prints_as_radosgw_admin_prints_it() {
    let record = decode_user_record(USER).expect("decodes");
    assert_eq!(record.uid, "dectest1");
    assert_eq!(
        record.info.version, 22,
        "radosgw 16.2 writes RGWUserInfo version 22"
    );
    let want: serde_json::Value = serde_json::from_str(USER_JSON).expect("radosgw-admin's JSON");
    assert_eq!(record.info.to_json(), want);
}

#[test]
fn an_access_key_links_to_its_user() {
    assert_eq!(decode_link(LINK).expect("decodes"), "dectest1");
}

#[test]
fn every_cut_of_a_real_record_is_refused() {
    for cut in 0..USER.len() {
        assert!(decode_user_record(&USER[..cut]).is_err(), "cut at {cut}");
    }
    let mut longer = USER.to_vec();
    longer.extend_from_slice(b"xy");
    assert_eq!(decode_user_record(&longer), Err(DecodeError::Trailing(2)));
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).expect("radosgw-admin's JSON")
}

#[test]
fn a_bucket_entry_point_prints_as_metadata_get_prints_it() {
    let ep = decode_entry_point(include_bytes!("data/bucket-plain.bin")).expect("decodes");
    assert_eq!(ep.to_json(), json(include_str!("data/bucket-plain.json")));
    assert!(ep.old_info.is_none());
}

#[test]
fn bucket_instances_print_as_metadata_get_prints_them() {
    let cases: [(&[u8], &str); 5] = [
        (
            include_bytes!("data/instance-plain.bin"),
            include_str!("data/instance-plain.json"),
        ),
        (
            include_bytes!("data/instance-site.bin"),
            include_str!("data/instance-site.json"),
        ),
        (
            include_bytes!("data/instance-redir.bin"),
            include_str!("data/instance-redir.json"),
        ),
        (
            include_bytes!("data/instance-locked.bin"),
            include_str!("data/instance-locked.json"),
        ),
        (
            include_bytes!("data/instance-vers.bin"),
            include_str!("data/instance-vers.json"),
        ),
    ];
    for (bytes, want) in cases {
        let info = decode_bucket_instance(bytes).expect("decodes");
        assert_eq!(info.version, 23, "radosgw 16.2 writes RGWBucketInfo 23");
        assert_eq!(info.to_json(), json(want), "{}", info.bucket.name);
    }
}

#[test]
fn what_the_json_leaves_out_is_decoded_too() {
    let locked =
        decode_bucket_instance(include_bytes!("data/instance-locked.bin")).expect("locked");
    let lock = locked.object_lock.as_ref().expect("object lock");
    assert!(lock.enabled);
    assert_eq!(lock.default_retention, Some(("GOVERNANCE".into(), 2, 0)));
    assert_eq!(locked.versioning(), Some("Enabled"));
    let vers = decode_bucket_instance(include_bytes!("data/instance-vers.bin")).expect("vers");
    assert_eq!(vers.versioning(), Some("Suspended"));
    let plain = decode_bucket_instance(include_bytes!("data/instance-plain.bin")).expect("plain");
    assert_eq!(plain.versioning(), None);
    assert_eq!((plain.index.generation, plain.index.num_shards), (0, 11));
    let site = decode_bucket_instance(include_bytes!("data/instance-site.bin")).expect("site");
    let website = site.website.expect("website");
    assert_eq!(website.routing_rules.len(), 2);
    assert_eq!(website.routing_rules[1].replace_key_with, "missing.html");
}

#[test]
fn an_index_entry_prints_as_bi_list_prints_it() {
    let entry = decode_dir_entry(include_bytes!("data/entry-multi.bin")).expect("decodes");
    assert_eq!(entry.to_json(), json(include_str!("data/entry-multi.json")));
    assert!(entry.is_visible());
}

#[test]
fn a_shard_header_holds_its_counters() {
    let h = decode_dir_header(include_bytes!("data/header-plain-7.bin")).expect("decodes");
    assert_eq!(h.ver, 7);
    let cats: Vec<Category> = h.stats.iter().map(|(c, _)| *c).collect();
    assert_eq!(cats, [Category::Main, Category::MultiMeta]);
    let main = h.stats[0].1;
    // the multipart object: 5 MiB + 640 MiB + 7 + 1234 bytes, one entry
    assert_eq!(
        (main.num_entries, main.total_size),
        (1, (5 << 20) + (5 << 27) + 1234)
    );
    assert_eq!(main.total_size_rounded % 4096, 0);
}

const MARKER: &str = "6051d86e-5c49-4de9-9d49-7ee830f6404d.4162.1";

fn pieces(manifest: &[u8]) -> Vec<(u64, u64, String)> {
    let m = decode_manifest(manifest).expect("decodes");
    m.stripes()
        .map(|s| {
            let s = s.expect("laid out");
            assert!(s.locator.is_empty() && s.loc_ofs == 0);
            (
                s.ofs,
                s.size,
                s.oid.strip_prefix(MARKER).expect("marker").to_owned(),
            )
        })
        .collect()
}

#[test]
fn a_striped_objects_manifest_names_its_rados_objects() {
    const MIB: u64 = 1 << 20;
    assert_eq!(
        pieces(include_bytes!("data/manifest-striped.bin")),
        [
            (0, 4 * MIB, "_striped".into()),
            (
                4 * MIB,
                4 * MIB,
                "__shadow_.JfZiff0T_Dcr-7a1FBIKSS2pbjVoued_1".into()
            ),
            (
                8 * MIB,
                MIB + 5,
                "__shadow_.JfZiff0T_Dcr-7a1FBIKSS2pbjVoued_2".into()
            ),
        ]
    );
}

#[test]
fn a_multipart_objects_manifest_names_its_parts_and_their_stripes() {
    const MIB: u64 = 1 << 20;
    let p = "multipart.2~1--VXDUPVdIjOlwGZr6xDb2AZnS23j3";
    assert_eq!(
        pieces(include_bytes!("data/manifest-multipart.bin")),
        [
            (0, 4 * MIB, format!("__multipart_{p}.1")),
            (4 * MIB, MIB, format!("__shadow_{p}.1_1")),
            (5 * MIB, 4 * MIB, format!("__multipart_{p}.2")),
            (9 * MIB, MIB + 7, format!("__shadow_{p}.2_1")),
            (10 * MIB + 7, 1234, format!("__multipart_{p}.3")),
        ]
    );
}

#[test]
fn acls_hold_their_owner_and_grants() {
    let shared = decode_policy(include_bytes!("data/acl-shared.bin")).expect("decodes");
    assert_eq!(shared.owner.to_str(), "micro");
    let user = |id: &str| rsgw_radosgw::user::UserId::parse(id);
    assert_eq!(shared.user_permission(&user("micro")), PERM_FULL_CONTROL);
    assert_eq!(shared.user_permission(&user("reader")), PERM_READ);
    assert_eq!(shared.user_permission(&user("nobody")), 0);
    assert_eq!(shared.group_permission(1), PERM_READ_ACP);
    let bucket = decode_policy(include_bytes!("data/acl-bucket-plain.bin")).expect("decodes");
    assert_eq!(bucket.group_permission(1), PERM_READ);
    assert_eq!(bucket.group_permission(2), 0);
    assert!(
        bucket
            .grants
            .iter()
            .any(|g| g.grantee == Grantee::User(user("micro")) && g.permission == PERM_FULL_CONTROL)
    );
}

#[test]
fn every_cut_of_a_real_bucket_record_is_refused() {
    type Decodes = fn(&[u8]) -> bool;
    let records: [(&[u8], Decodes); 6] = [
        (include_bytes!("data/bucket-plain.bin"), |b| {
            decode_entry_point(b).is_ok()
        }),
        (include_bytes!("data/instance-site.bin"), |b| {
            decode_bucket_instance(b).is_ok()
        }),
        (include_bytes!("data/entry-multi.bin"), |b| {
            decode_dir_entry(b).is_ok()
        }),
        (include_bytes!("data/header-plain-7.bin"), |b| {
            decode_dir_header(b).is_ok()
        }),
        (include_bytes!("data/manifest-multipart.bin"), |b| {
            decode_manifest(b).is_ok()
        }),
        (include_bytes!("data/acl-shared.bin"), |b| {
            decode_policy(b).is_ok()
        }),
    ];
    for (whole, decodes) in records {
        assert!(decodes(whole));
        // an empty header is a shard never written to; every other cut fails
        for cut in 1..whole.len() {
            assert!(!decodes(&whole[..cut]), "cut at {cut}");
        }
        let mut longer = whole.to_vec();
        longer.push(0);
        assert!(!decodes(&longer));
    }
}

#[test]
fn records_rsgw_writes_are_the_bytes_radosgw_wrote() {
    for bytes in [
        &include_bytes!("data/manifest-small.bin")[..],
        include_bytes!("data/manifest-empty.bin"),
        include_bytes!("data/manifest-striped.bin"),
        include_bytes!("data/manifest-multipart.bin"),
    ] {
        assert_eq!(decode_manifest(bytes).expect("decodes").encode(), bytes);
    }
    for bytes in [
        &include_bytes!("data/entry-plain.bin")[..],
        include_bytes!("data/entry-multi.bin"),
    ] {
        let mut e = rsgw_radosgw::encoding::Encoder::new();
        decode_dir_entry(bytes)
            .expect("decodes")
            .meta
            .encode(&mut e);
        let meta = e.into_bytes();
        assert!(
            bytes.windows(meta.len()).any(|w| w == meta),
            "meta of {bytes:?}"
        );
    }
    for bytes in [
        &include_bytes!("data/acl-object-private.bin")[..],
        include_bytes!("data/acl-shared.bin"),
        include_bytes!("data/acl-bucket-plain.bin"),
    ] {
        assert_eq!(decode_policy(bytes).expect("decodes").encode(), bytes);
    }
}

#[test]
fn a_new_objects_manifest_is_the_one_radosgw_makes() {
    let real = decode_manifest(include_bytes!("data/manifest-small.bin")).expect("decodes");
    let made = Manifest::plain(
        real.head.clone(),
        11,
        4 << 20,
        &real.prefix,
        "default-placement",
    );
    assert_eq!(made, real);
    let striped = decode_manifest(include_bytes!("data/manifest-striped.bin")).expect("decodes");
    let made = Manifest::plain(
        striped.head.clone(),
        striped.obj_size,
        4 << 20,
        &striped.prefix,
        "default-placement",
    );
    assert_eq!(made, striped);
}

/// A multipart upload radosgw 16.2 took (bucket marker
/// `6e7b2de6-30d7-40d2-a6f7-9e53cacf6ac1.4164.3`, key `obj`, upload
/// `2~Cr1xF4bQpFF6v9Il5atkhWLpxo6jdrd`, parts of 6 MiB, 6 MiB and 1 MiB):
/// the records of its parts in its meta object's omap
/// (`part.00000001`...), the meta object's data, and, once completed,
/// the object's `user.rgw.manifest`.
const UPLOAD_PARTS: [&[u8]; 3] = [
    include_bytes!("data/upload-part-info-1.bin"),
    include_bytes!("data/upload-part-info-2.bin"),
    include_bytes!("data/upload-part-info-3.bin"),
];

#[test]
fn an_uploads_part_records_are_the_bytes_radosgw_wrote() {
    for (n, bytes) in UPLOAD_PARTS.iter().enumerate() {
        let part = decode_part(bytes).expect("decodes");
        assert_eq!(part.num as usize, n + 1);
        assert_eq!(part.compression, "none");
        assert_eq!(part.accounted_size, part.size);
        assert_eq!(part.encode(), *bytes, "part {}", n + 1);
        let made = Manifest::part(
            part.manifest.head.clone(),
            (part.size, 4 << 20),
            "obj.2~Cr1xF4bQpFF6v9Il5atkhWLpxo6jdrd",
            part.num,
            "default-placement",
        );
        assert_eq!(made, part.manifest, "part {}", n + 1);
    }
    for cut in 0..UPLOAD_PARTS[0].len() {
        assert!(
            decode_part(&UPLOAD_PARTS[0][..cut]).is_err(),
            "cut at {cut}"
        );
    }
    let info = include_bytes!("data/upload-info.bin");
    assert_eq!(
        decode_upload_info(info).expect("decodes"),
        "default-placement"
    );
    assert_eq!(encode_upload_info("default-placement"), info);
}

#[test]
fn a_completed_uploads_manifest_is_its_parts_appended_as_radosgw_appends_them() {
    let mut whole = Manifest::default();
    for bytes in UPLOAD_PARTS {
        whole
            .append(decode_part(bytes).expect("decodes").manifest)
            .expect("appends");
    }
    let real =
        decode_manifest(include_bytes!("data/manifest-multipart-6m-6m-1m.bin")).expect("decodes");
    assert_eq!(whole, real);
    assert_eq!(
        whole.encode(),
        include_bytes!("data/manifest-multipart-6m-6m-1m.bin")
    );
    assert_eq!(real.rules.len(), 2, "parts 1 and 2 share a rule");
}
