//! radosgw's records as rsgw decodes them (crates/rsgw-radosgw): any bytes
//! are a user record, a link, a user's bucket entry, a bucket entry point
//! or instance, an index entry or shard header, an object's manifest, an
//! ACL, a bucket's CORS rules, a zone's parameters, a cache
//! notification, a multipart upload's part record or placement, or an
//! error,
//! never a panic, an overflow or an allocation the input cannot back; a
//! record that decodes prints as radosgw-admin's JSON, and the same record
//! with a byte more is refused. A manifest's pieces, when it lays any out,
//! cover its object exactly, in order. A manifest or an ACL that decodes,
//! written back as rsgw writes radosgw's records, decodes to the same
//! record (an ACL: writing it again gives the same bytes); so does a part's
//! record, and a manifest of rules appended to itself lays out twice its
//! bytes.
//!
//! Input: the object's data (seeds: records radosgw 16.2 wrote, those of
//! crates/rsgw-radosgw/tests/data; tests/gateway/test_radosgw_records.py
//! checks their JSON).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rsgw_radosgw::DecodeError;
use rsgw_radosgw::acl::decode_policy;
use rsgw_radosgw::bucket::{decode_bucket_instance, decode_entry_point};
use rsgw_radosgw::cors::decode_cors;
use rsgw_radosgw::index::{decode_dir_entry, decode_dir_header, stats_json};
use rsgw_radosgw::manifest::decode_manifest;
use rsgw_radosgw::notify::decode_cache_notice;
use rsgw_radosgw::upload::{decode_part, decode_upload_info};
use rsgw_radosgw::user::{decode_link, decode_user_bucket, decode_user_record};
use rsgw_radosgw::zone_params::{decode_name_to_id, decode_zone_params};

/// Decodes `data` and the same bytes with one more, which must fail.
fn both<T>(data: &[u8], decode: fn(&[u8]) -> Result<T, DecodeError>) -> Option<T> {
    let value = decode(data).ok()?;
    let mut longer = data.to_vec();
    longer.push(0);
    assert!(
        decode(&longer).is_err(),
        "a byte past the record's end was taken"
    );
    Some(value)
}

fuzz_target!(|data: &[u8]| {
    if let Some(record) = both(data, decode_user_record) {
        let json = record.info.to_json();
        assert!(json["user_id"].is_string(), "{json}");
    }
    let _ = both(data, decode_link);
    let _ = both(data, decode_user_bucket);
    if let Some(ep) = both(data, decode_entry_point) {
        assert!(ep.to_json()["bucket"]["name"].is_string());
    }
    if let Some(info) = both(data, decode_bucket_instance) {
        assert!(info.to_json()["num_shards"].is_u64());
    }
    if let Some(entry) = both(data, decode_dir_entry) {
        assert!(entry.to_json()["meta"]["size"].is_u64());
    }
    if let Some(header) = both(data, decode_dir_header) {
        assert!(stats_json(&[header]).is_object());
    }
    if let Some(manifest) = both(data, decode_manifest) {
        // the first pieces (a forged size may lay out billions)
        let mut end = 0;
        for s in manifest.stripes().take(10_000) {
            let Ok(s) = s else { break };
            assert_eq!(s.ofs, end, "a hole or an overlap at {end}");
            assert!(s.size > 0 && s.ofs + s.size <= manifest.obj_size);
            end = s.ofs + s.size;
        }
        let again = decode_manifest(&manifest.encode()).expect("a written manifest decodes");
        assert_eq!(again, manifest);
        let mut twice = manifest.clone();
        if !manifest.rules.is_empty() && twice.append(manifest.clone()).is_ok() {
            assert_eq!(twice.obj_size, manifest.obj_size.saturating_mul(2));
        }
    }
    if let Some(part) = both(data, decode_part) {
        let again = decode_part(&part.encode()).expect("a written part record decodes");
        assert_eq!(again, part);
    }
    let _ = both(data, decode_upload_info);
    if let Some(policy) = both(data, decode_policy) {
        assert!(policy.to_json()["grants"].is_array());
        let written = policy.encode();
        let again = decode_policy(&written).expect("a written ACL decodes");
        assert_eq!(again.owner, policy.owner);
        assert_eq!(again.encode(), written);
    }
    let _ = both(data, decode_name_to_id);
    if let Some(notice) = both(data, decode_cache_notice) {
        assert!(notice.to_json()["oid"].is_string());
    }
    if let Some(zone) = both(data, decode_zone_params) {
        assert!(zone.to_json()["placement_pools"].is_array());
    }
    if let Some(rules) = both(data, decode_cors) {
        for rule in rules {
            assert!(rule.to_json()["AllowedOrigins"].is_array());
        }
    }
});
