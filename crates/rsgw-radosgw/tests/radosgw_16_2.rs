//! Records radosgw 16.2 wrote, kept as `rados get` saved them, with
//! `radosgw-admin user info`'s JSON for the same user (tests/data, made by
//! `radosgw-admin user create --uid dectest1 ... --max-buckets 7 --caps
//! "users=*;buckets=read"` and `subuser create --subuser dectest1:swift
//! --access full --key-type swift`). tests/gateway/test_radosgw_records.py
//! checks many more users on a live cluster; this keeps one without it.

use rsgw_radosgw::DecodeError;
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
