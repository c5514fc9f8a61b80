//! radosgw's records as rsgw decodes them (crates/rsgw-radosgw): any bytes
//! are a user record, a link, or an error, never a panic, an overflow or an
//! allocation the input cannot back; a record that decodes prints as
//! radosgw-admin's JSON, and the same record with a byte more is refused
//! for that byte.
//!
//! Input: the object's data (seeds: users.uid and users.keys objects that
//! radosgw 16.2 wrote, tests/gateway/test_radosgw_records.py).
#![no_main]
use libfuzzer_sys::fuzz_target;
use rsgw_radosgw::DecodeError;
use rsgw_radosgw::user::{decode_link, decode_user_record};

fuzz_target!(|data: &[u8]| {
    if let Ok(record) = decode_user_record(data) {
        let json = record.info.to_json();
        assert!(json["user_id"].is_string(), "{json}");
        let mut longer = data.to_vec();
        longer.push(0);
        assert_eq!(decode_user_record(&longer), Err(DecodeError::Trailing(1)));
    }
    let _ = decode_link(data);
});
