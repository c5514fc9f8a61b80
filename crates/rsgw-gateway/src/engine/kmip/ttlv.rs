//! KMIP's TTLV encoding (KMIP 1.x, section 9.1): every item is a 3-byte
//! tag, a 1-byte type, a 4-byte big-endian length and its value, padded
//! with zeros to a multiple of 8 bytes; a structure's value is its items.
//! Only what a key lookup needs is named here; every type decodes.

/// The tags rsgw sends or reads.
pub(crate) mod tag {
    pub(crate) const ATTRIBUTE: u32 = 0x42_0008;
    pub(crate) const ATTRIBUTE_NAME: u32 = 0x42_000A;
    pub(crate) const ATTRIBUTE_VALUE: u32 = 0x42_000B;
    pub(crate) const BATCH_COUNT: u32 = 0x42_000D;
    pub(crate) const BATCH_ITEM: u32 = 0x42_000F;
    pub(crate) const KEY_BLOCK: u32 = 0x42_0040;
    pub(crate) const KEY_MATERIAL: u32 = 0x42_0043;
    pub(crate) const KEY_VALUE: u32 = 0x42_0045;
    pub(crate) const NAME_TYPE: u32 = 0x42_0054;
    pub(crate) const NAME_VALUE: u32 = 0x42_0055;
    pub(crate) const OPERATION: u32 = 0x42_005C;
    pub(crate) const PROTOCOL_VERSION: u32 = 0x42_0069;
    pub(crate) const PROTOCOL_VERSION_MAJOR: u32 = 0x42_006A;
    pub(crate) const PROTOCOL_VERSION_MINOR: u32 = 0x42_006B;
    pub(crate) const REQUEST_HEADER: u32 = 0x42_0077;
    pub(crate) const REQUEST_MESSAGE: u32 = 0x42_0078;
    pub(crate) const REQUEST_PAYLOAD: u32 = 0x42_0079;
    pub(crate) const RESPONSE_MESSAGE: u32 = 0x42_007B;
    pub(crate) const RESPONSE_PAYLOAD: u32 = 0x42_007C;
    pub(crate) const RESULT_MESSAGE: u32 = 0x42_007D;
    pub(crate) const RESULT_REASON: u32 = 0x42_007E;
    pub(crate) const RESULT_STATUS: u32 = 0x42_007F;
    pub(crate) const SYMMETRIC_KEY: u32 = 0x42_008F;
    pub(crate) const UNIQUE_IDENTIFIER: u32 = 0x42_0094;
}

/// Bytes of an item's tag, type and length.
pub(crate) const HEADER_LEN: usize = 8;

/// Structures nested deeper than this are refused (a response to a key
/// lookup nests 6 deep).
const MAX_DEPTH: usize = 16;

/// An item's value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// Items, in order.
    Structure(Vec<Item>),
    /// A signed 32-bit integer.
    Integer(i32),
    /// A signed 64-bit integer.
    LongInteger(i64),
    /// Big-endian two's complement bytes.
    BigInteger(Vec<u8>),
    /// A 32-bit enumeration value.
    Enumeration(u32),
    /// A boolean.
    Boolean(bool),
    /// UTF-8 text.
    Text(String),
    /// Bytes.
    Bytes(Vec<u8>),
    /// Seconds since the Unix epoch.
    DateTime(i64),
    /// Seconds.
    Interval(u32),
}

/// One tagged item.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Item {
    /// Its tag.
    pub(crate) tag: u32,
    /// Its value.
    pub(crate) value: Value,
}

/// Why bytes are no TTLV item.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum TtlvError {
    /// The bytes end inside an item.
    #[error("the message ends inside an item")]
    Truncated,
    /// An item's type byte is none of KMIP's.
    #[error("item type {0:#04x} is not KMIP's")]
    UnknownType(u8),
    /// A fixed-size type with another length.
    #[error("an item of type {kind:#04x} is {len} bytes long")]
    BadLength {
        /// The type.
        kind: u8,
        /// The length it said.
        len: u32,
    },
    /// A text string that is no UTF-8.
    #[error("a text string is not UTF-8")]
    BadText,
    /// Structures nested deeper than [`MAX_DEPTH`].
    #[error("structures nested deeper than {MAX_DEPTH}")]
    TooDeep,
    /// Bytes after the one item.
    #[error("{0} bytes after the message")]
    Trailing(usize),
}

impl Item {
    /// A structure of `items`.
    pub(crate) fn structure(tag: u32, items: Vec<Item>) -> Item {
        Item {
            tag,
            value: Value::Structure(items),
        }
    }

    /// A text string.
    pub(crate) fn text(tag: u32, s: &str) -> Item {
        Item {
            tag,
            value: Value::Text(s.to_string()),
        }
    }

    /// An integer.
    pub(crate) fn integer(tag: u32, v: i32) -> Item {
        Item {
            tag,
            value: Value::Integer(v),
        }
    }

    /// An enumeration value.
    pub(crate) fn enumeration(tag: u32, v: u32) -> Item {
        Item {
            tag,
            value: Value::Enumeration(v),
        }
    }

    /// Its encoding.
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.encode_into(&mut out);
        out
    }

    fn encode_into(&self, out: &mut Vec<u8>) {
        let tag = self.tag.to_be_bytes();
        out.extend_from_slice(&tag[1..]);
        let at = out.len();
        out.extend_from_slice(&[0; 5]);
        let (kind, start) = (type_of(&self.value), out.len());
        match &self.value {
            Value::Structure(items) => items.iter().for_each(|i| i.encode_into(out)),
            Value::Integer(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::Enumeration(v) | Value::Interval(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::LongInteger(v) | Value::DateTime(v) => out.extend_from_slice(&v.to_be_bytes()),
            Value::Boolean(b) => out.extend_from_slice(&u64::from(*b).to_be_bytes()),
            Value::Text(s) => out.extend_from_slice(s.as_bytes()),
            Value::Bytes(b) | Value::BigInteger(b) => out.extend_from_slice(b),
        }
        let len = (out.len() - start) as u32;
        out[at] = kind;
        out[at + 1..at + 5].copy_from_slice(&len.to_be_bytes());
        out.resize(start + padded(len as usize), 0);
    }

    /// The one item `buf` holds, all of it.
    pub(crate) fn decode(buf: &[u8]) -> Result<Item, TtlvError> {
        let (item, used) = decode_at(buf, 0)?;
        match buf.len() - used {
            0 => Ok(item),
            n => Err(TtlvError::Trailing(n)),
        }
    }

    /// Its items, if it is a structure.
    pub(crate) fn items(&self) -> &[Item] {
        match &self.value {
            Value::Structure(items) => items,
            _ => &[],
        }
    }

    /// Its first item tagged `tag`.
    pub(crate) fn find(&self, tag: u32) -> Option<&Item> {
        self.items().iter().find(|i| i.tag == tag)
    }

    /// The item at `path`, each tag a level down.
    pub(crate) fn at(&self, path: &[u32]) -> Option<&Item> {
        path.iter().try_fold(self, |item, &tag| item.find(tag))
    }

    /// Its text, if it is a text string.
    pub(crate) fn as_text(&self) -> Option<&str> {
        match &self.value {
            Value::Text(s) => Some(s),
            _ => None,
        }
    }

    /// Its value, if it is an enumeration.
    pub(crate) fn as_enumeration(&self) -> Option<u32> {
        match self.value {
            Value::Enumeration(v) => Some(v),
            _ => None,
        }
    }
}

/// The length of a whole encoded item whose first 8 bytes are `header`.
pub(crate) fn encoded_len(header: &[u8; HEADER_LEN]) -> usize {
    let len = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    HEADER_LEN + padded(len as usize)
}

fn padded(len: usize) -> usize {
    len.div_ceil(8) * 8
}

fn type_of(v: &Value) -> u8 {
    match v {
        Value::Structure(_) => 0x01,
        Value::Integer(_) => 0x02,
        Value::LongInteger(_) => 0x03,
        Value::BigInteger(_) => 0x04,
        Value::Enumeration(_) => 0x05,
        Value::Boolean(_) => 0x06,
        Value::Text(_) => 0x07,
        Value::Bytes(_) => 0x08,
        Value::DateTime(_) => 0x09,
        Value::Interval(_) => 0x0A,
    }
}

/// The item at the start of `buf` and the bytes it takes, padding included.
fn decode_at(buf: &[u8], depth: usize) -> Result<(Item, usize), TtlvError> {
    if depth > MAX_DEPTH {
        return Err(TtlvError::TooDeep);
    }
    let header: &[u8; HEADER_LEN] = buf
        .get(..HEADER_LEN)
        .and_then(|h| h.try_into().ok())
        .ok_or(TtlvError::Truncated)?;
    let tag = u32::from_be_bytes([0, header[0], header[1], header[2]]);
    let kind = header[3];
    let len = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
    let total = HEADER_LEN
        .checked_add(padded(len as usize))
        .ok_or(TtlvError::Truncated)?;
    let body = buf
        .get(HEADER_LEN..HEADER_LEN + len as usize)
        .ok_or(TtlvError::Truncated)?;
    if buf.len() < total {
        return Err(TtlvError::Truncated);
    }
    let fixed = |n: u32| {
        if len == n {
            Ok(())
        } else {
            Err(TtlvError::BadLength { kind, len })
        }
    };
    let be4 = |b: &[u8]| [b[0], b[1], b[2], b[3]];
    let be8 = |b: &[u8]| [b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]];
    let value = match kind {
        0x01 => {
            let mut items = Vec::new();
            let mut at = 0;
            while at < body.len() {
                let (item, used) = decode_at(&body[at..], depth + 1)?;
                items.push(item);
                at += used;
            }
            Value::Structure(items)
        }
        0x02 => fixed(4).map(|()| Value::Integer(i32::from_be_bytes(be4(body))))?,
        0x03 => fixed(8).map(|()| Value::LongInteger(i64::from_be_bytes(be8(body))))?,
        0x04 => Value::BigInteger(body.to_vec()),
        0x05 => fixed(4).map(|()| Value::Enumeration(u32::from_be_bytes(be4(body))))?,
        0x06 => fixed(8).map(|()| Value::Boolean(u64::from_be_bytes(be8(body)) != 0))?,
        0x07 => Value::Text(String::from_utf8(body.to_vec()).map_err(|_| TtlvError::BadText)?),
        0x08 => Value::Bytes(body.to_vec()),
        0x09 => fixed(8).map(|()| Value::DateTime(i64::from_be_bytes(be8(body))))?,
        0x0A => fixed(4).map(|()| Value::Interval(u32::from_be_bytes(be4(body))))?,
        other => return Err(TtlvError::UnknownType(other)),
    };
    Ok((Item { tag, value }, total))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_type_round_trips() {
        let all = Item::structure(
            tag::RESPONSE_MESSAGE,
            vec![
                Item::integer(tag::BATCH_COUNT, -7),
                Item {
                    tag: tag::OPERATION,
                    value: Value::LongInteger(1 << 40),
                },
                Item {
                    tag: tag::KEY_MATERIAL,
                    value: Value::BigInteger(vec![1, 2, 3]),
                },
                Item::enumeration(tag::RESULT_STATUS, 0),
                Item {
                    tag: tag::ATTRIBUTE,
                    value: Value::Boolean(true),
                },
                Item::text(tag::RESULT_MESSAGE, "dé"),
                Item {
                    tag: tag::KEY_MATERIAL,
                    value: Value::Bytes(vec![9; 33]),
                },
                Item {
                    tag: tag::ATTRIBUTE,
                    value: Value::DateTime(1_700_000_000),
                },
                Item {
                    tag: tag::ATTRIBUTE,
                    value: Value::Interval(30),
                },
                Item::structure(tag::KEY_BLOCK, vec![]),
            ],
        );
        let bytes = all.encode();
        assert_eq!(bytes.len() % 8, 0);
        let header: [u8; HEADER_LEN] = bytes[..8].try_into().expect("header");
        assert_eq!(encoded_len(&header), bytes.len());
        assert_eq!(Item::decode(&bytes).expect("decode"), all);
        assert_eq!(
            Item::decode(&bytes)
                .expect("decode")
                .find(tag::RESULT_STATUS)
                .and_then(Item::as_enumeration),
            Some(0)
        );
    }

    /// Bad bytes are errors, never a panic or a huge allocation.
    #[test]
    fn bad_bytes_are_refused() {
        let good = Item::structure(
            tag::RESPONSE_MESSAGE,
            vec![
                Item::text(tag::RESULT_MESSAGE, "ok"),
                Item::integer(tag::BATCH_COUNT, 1),
            ],
        )
        .encode();
        for cut in 0..good.len() {
            assert!(Item::decode(&good[..cut]).is_err(), "cut at {cut}");
        }
        let mut trailing = good.clone();
        trailing.extend_from_slice(&[0; 8]);
        assert_eq!(Item::decode(&trailing), Err(TtlvError::Trailing(8)));
        let mut kind = good.clone();
        kind[3] = 0x0B;
        assert_eq!(Item::decode(&kind), Err(TtlvError::UnknownType(0x0B)));
        let short_int = [0x42, 0, 0x0D, 0x02, 0, 0, 0, 3, 0, 0, 0, 1, 0, 0, 0, 0];
        assert_eq!(
            Item::decode(&short_int),
            Err(TtlvError::BadLength { kind: 2, len: 3 })
        );
        let huge = [0x42, 0, 0x7B, 0x01, 0xFF, 0xFF, 0xFF, 0xFF];
        assert_eq!(Item::decode(&huge), Err(TtlvError::Truncated));
        let not_utf8 = [0x42, 0, 0x7D, 0x07, 0, 0, 0, 1, 0xFF, 0, 0, 0, 0, 0, 0, 0];
        assert_eq!(Item::decode(&not_utf8), Err(TtlvError::BadText));
        let mut deep = Item::integer(tag::BATCH_COUNT, 1);
        for _ in 0..=MAX_DEPTH {
            deep = Item::structure(tag::BATCH_ITEM, vec![deep]);
        }
        assert_eq!(Item::decode(&deep.encode()), Err(TtlvError::TooDeep));
    }
}
