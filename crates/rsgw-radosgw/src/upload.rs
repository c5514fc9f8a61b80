//! A multipart upload's records as radosgw 16.2 keeps them: the upload's
//! meta object (`<marker>__multipart_<key>.<upload id>.meta` in the
//! placement's `data_extra_pool`), whose data is the upload's placement
//! (`multipart_upload_info`), whose xattrs are the future object's (ACL,
//! stored headers, user metadata) and whose omap holds one
//! `RGWUploadPartInfo` per part under `part.%08d`. No I/O.

use std::time::SystemTime;

use crate::encoding::{Decoder, Encoder, Header, Result};
use crate::manifest::{Manifest, decode_manifest};

/// The index namespace of an upload's records: its meta object's and its
/// parts' entries are `_multipart_<name>`.
pub const NS: &str = "multipart";

/// What ends the name of an upload's meta object (`MP_META_SUFFIX`).
pub const META_SUFFIX: &str = ".meta";

/// The omap key of part `num`'s record in the meta object (an upload id
/// of radosgw's second form, `2~...`, which rsgw makes: sorted keys).
pub fn part_key(num: u32) -> String {
    format!("part.{num:08}")
}

/// The name of an upload's meta object within namespace [`NS`].
pub fn meta_name(key: &str, upload_id: &str) -> String {
    format!("{key}.{upload_id}{META_SUFFIX}")
}

/// The key and upload id a meta object's name holds (the inverse of
/// [`meta_name`]): an upload id holds no `.`.
pub fn parse_meta_name(name: &str) -> Option<(&str, &str)> {
    name.strip_suffix(META_SUFFIX)?.rsplit_once('.')
}

/// One part's record (`RGWUploadPartInfo`, version 4).
#[derive(Debug, Clone, PartialEq)]
pub struct PartRecord {
    /// The part's number.
    pub num: u32,
    /// Its size.
    pub size: u64,
    /// Its ETag (the hex MD5 of its bytes).
    pub etag: String,
    /// When it was uploaded.
    pub modified: SystemTime,
    /// Where its bytes are: the part's RADOS objects.
    pub manifest: Manifest,
    /// How radosgw compressed it (`none` for rsgw's parts).
    pub compression: String,
    /// Its size as accounted (before compression).
    pub accounted_size: u64,
}

impl PartRecord {
    /// The record as radosgw 16.2 encodes it: version 4, an uncompressed
    /// part's compression info.
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.block(4, 2, |e| {
            e.u32(self.num).u64(self.size).string(&self.etag);
            e.time(self.modified);
            e.raw(&self.manifest.encode());
            // RGWCompressionInfo: type, original size, no compressor
            // message, no blocks
            e.block(2, 1, |e| {
                e.string(&self.compression).u64(0).bool(false).u32(0);
            });
            e.u64(self.accounted_size);
        });
        e.into_bytes()
    }
}

/// Decodes a part's record (an omap value of the meta object).
pub fn decode_part(bytes: &[u8]) -> Result<PartRecord> {
    Decoder::whole(bytes, |d| {
        d.block("RGWUploadPartInfo", Header::legacy_32(4, 2, 2), |d, v| {
            let num = d.u32("RGWUploadPartInfo.num")?;
            let size = d.u64("RGWUploadPartInfo.size")?;
            let etag = d.string("RGWUploadPartInfo.etag")?;
            let modified = d.time("RGWUploadPartInfo.modified")?;
            let manifest = if v >= 2 {
                decode_manifest(d.raw_block("RGWUploadPartInfo.manifest")?)?
            } else {
                return Err(crate::DecodeError::Value {
                    what: "RGWUploadPartInfo version (older than 2 is not read)",
                    value: u64::from(v),
                    at: d.position(),
                });
            };
            let mut compression = "none".to_string();
            if v >= 3 {
                compression =
                    d.block("RGWCompressionInfo", Header::Start { known: 2 }, |d, _| {
                        d.string("RGWCompressionInfo.compression_type")
                    })?;
            }
            let accounted_size = if v >= 4 {
                d.u64("RGWUploadPartInfo.accounted_size")?
            } else {
                size
            };
            Ok(PartRecord {
                num,
                size,
                etag,
                modified,
                manifest,
                compression,
                accounted_size,
            })
        })
    })
}

/// The meta object's data (`multipart_upload_info`): the placement the
/// object will have.
pub fn encode_upload_info(placement_rule: &str) -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.string(placement_rule);
    });
    e.into_bytes()
}

/// Decodes the meta object's data: the object's placement rule.
pub fn decode_upload_info(bytes: &[u8]) -> Result<String> {
    Decoder::whole(bytes, |d| {
        d.block(
            "multipart_upload_info",
            Header::Start { known: 1 },
            |d, _| d.string("multipart_upload_info.dest_placement"),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meta_names_part_into_key_and_upload() {
        let name = meta_name("a.b/c.txt", "2~abc");
        assert_eq!(name, "a.b/c.txt.2~abc.meta");
        assert_eq!(parse_meta_name(&name), Some(("a.b/c.txt", "2~abc")));
        assert_eq!(parse_meta_name("a.2~abc.1"), None);
        assert_eq!(part_key(12), "part.00000012");
    }

    #[test]
    fn upload_info_round_trips() {
        let bytes = encode_upload_info("default-placement");
        assert_eq!(decode_upload_info(&bytes).unwrap(), "default-placement");
        assert!(decode_upload_info(&bytes[..bytes.len() - 1]).is_err());
    }
}
