//! Ceph's encoding (`include/encoding.h` in ceph/ceph), read ([`Decoder`])
//! and written ([`Encoder`]):
//! integers little-endian; a string is a `u32` length and its bytes; a map,
//! list or set a `u32` count and its entries; a time (`real_time`) two
//! `u32`s, seconds and nanoseconds. A record's struct is a versioned block:
//! `struct_v`, the oldest reader version that understands it
//! (`struct_compat`) and a `u32` length, so that a reader skips the fields of
//! versions newer than its own. Older records may lack the compat byte or
//! the length: [`Header::Legacy`] reads them as radosgw's
//! `DECODE_START_LEGACY_COMPAT_LEN*` macros do.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use thiserror::Error;

/// Why bytes are not the record they should be. `at` is the offset in the
/// decoded buffer.
#[derive(Debug, Error, PartialEq, Eq)]
pub enum DecodeError {
    /// The bytes end inside a field.
    #[error("{what}: the record ends inside it (byte {at}, {need} more bytes needed)")]
    Truncated {
        what: &'static str,
        at: usize,
        need: usize,
    },
    /// A block encoded for readers newer than rsgw's decoder.
    #[error(
        "{what}: encoded as version {struct_v} for readers of version {compat} and up; rsgw reads up to version {known}"
    )]
    TooNew {
        what: &'static str,
        struct_v: u8,
        compat: u8,
        known: u8,
    },
    /// A block's fields ran past the length it declared.
    #[error("{what}: its fields run to byte {at}, past its declared end at byte {end}")]
    Overrun {
        what: &'static str,
        at: usize,
        end: usize,
    },
    /// A container's count that the bytes left cannot hold.
    #[error("{what}: {count} entries cannot fit in the {left} bytes left (byte {at})")]
    Count {
        what: &'static str,
        count: u32,
        left: usize,
        at: usize,
    },
    /// A string that is not UTF-8.
    #[error("{what}: not UTF-8 (byte {at})")]
    NotUtf8 { what: &'static str, at: usize },
    /// A packed integer (`encode_packed_val`) of no width radosgw writes.
    #[error("{what}: 0x{byte:02x} begins no packed integer (byte {at})")]
    Packed {
        what: &'static str,
        at: usize,
        byte: u8,
    },
    /// A field whose value radosgw never writes.
    #[error("{what}: {value} is not a value radosgw writes here (byte {at})")]
    Value {
        what: &'static str,
        value: u64,
        at: usize,
    },
    /// Bytes after the record's end.
    #[error("{0} bytes after the record's end")]
    Trailing(usize),
}

/// Shorthand for decoding results.
pub type Result<T> = std::result::Result<T, DecodeError>;

/// How a versioned block begins.
#[derive(Debug, Clone, Copy)]
pub enum Header {
    /// `DECODE_START(known)`: `struct_v`, `struct_compat`, `u32` length.
    Start {
        /// The newest version the decoder knows.
        known: u8,
    },
    /// `DECODE_START_LEGACY_COMPAT_LEN*(known, compat_v, len_v)`: the
    /// compat byte only from `struct_v >= compat_v` (before it, `skip`
    /// bytes of an old wider version field follow `struct_v`: 3 for the
    /// `_32` form, 0 for the plain one), the length only from
    /// `struct_v >= len_v`.
    Legacy {
        /// The newest version the decoder knows.
        known: u8,
        /// The first version with a compat byte.
        compat_v: u8,
        /// The first version with a length.
        len_v: u8,
        /// Bytes to skip when there is no compat byte.
        skip: usize,
    },
}

impl Header {
    /// `DECODE_START_LEGACY_COMPAT_LEN_32(known, compat_v, len_v)`: the
    /// version was once a `u32`, so without a compat byte 3 bytes of it
    /// follow `struct_v`.
    pub const fn legacy_32(known: u8, compat_v: u8, len_v: u8) -> Header {
        Header::Legacy {
            known,
            compat_v,
            len_v,
            skip: 3,
        }
    }

    /// `DECODE_START_LEGACY_COMPAT_LEN(known, compat_v, len_v)`: the version
    /// was always one byte.
    pub const fn legacy(known: u8, compat_v: u8, len_v: u8) -> Header {
        Header::Legacy {
            known,
            compat_v,
            len_v,
            skip: 0,
        }
    }
}

/// A cursor over an encoded record.
#[derive(Debug)]
pub struct Decoder<'a> {
    buf: &'a [u8],
    pos: usize,
}

impl<'a> Decoder<'a> {
    /// A decoder at the start of `buf`.
    pub fn new(buf: &'a [u8]) -> Self {
        Decoder { buf, pos: 0 }
    }

    /// Decodes a whole record with `decode`: every byte of `buf` must
    /// belong to it.
    pub fn whole<T>(buf: &'a [u8], decode: impl FnOnce(&mut Self) -> Result<T>) -> Result<T> {
        let mut d = Decoder::new(buf);
        let value = decode(&mut d)?;
        d.finish()?;
        Ok(value)
    }

    /// The offset of the next byte to read.
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    /// Fails unless every byte was read.
    pub fn finish(self) -> Result<()> {
        match self.remaining() {
            0 => Ok(()),
            n => Err(DecodeError::Trailing(n)),
        }
    }

    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8]> {
        if self.remaining() < n {
            return Err(DecodeError::Truncated {
                what,
                at: self.pos,
                need: n - self.remaining(),
            });
        }
        let bytes = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(bytes)
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    /// A `__u8`.
    pub fn u8(&mut self, what: &'static str) -> Result<u8> {
        Ok(self.array::<1>(what)?[0])
    }

    /// A `bool` (one byte, any non-zero value true).
    pub fn bool(&mut self, what: &'static str) -> Result<bool> {
        Ok(self.u8(what)? != 0)
    }

    /// A `uint16_t`.
    pub fn u16(&mut self, what: &'static str) -> Result<u16> {
        Ok(u16::from_le_bytes(self.array(what)?))
    }

    /// A `uint32_t`.
    pub fn u32(&mut self, what: &'static str) -> Result<u32> {
        Ok(u32::from_le_bytes(self.array(what)?))
    }

    /// An `int32_t`.
    pub fn i32(&mut self, what: &'static str) -> Result<i32> {
        Ok(i32::from_le_bytes(self.array(what)?))
    }

    /// A `uint64_t`.
    pub fn u64(&mut self, what: &'static str) -> Result<u64> {
        Ok(u64::from_le_bytes(self.array(what)?))
    }

    /// An `int64_t`.
    pub fn i64(&mut self, what: &'static str) -> Result<i64> {
        Ok(i64::from_le_bytes(self.array(what)?))
    }

    /// A `std::string`: a `u32` length, then its bytes, which must be UTF-8.
    pub fn string(&mut self, what: &'static str) -> Result<String> {
        let len = self.u32(what)?;
        let at = self.pos;
        let bytes = self.take(len as usize, what)?;
        String::from_utf8(bytes.to_vec()).map_err(|_| DecodeError::NotUtf8 { what, at })
    }

    /// A `bufferlist`: a `u32` length, then that many bytes.
    pub fn buffer(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let len = self.u32(what)?;
        self.take(len as usize, what)
    }

    /// A `std::optional<T>`: a `bool`, then the value when it is set.
    pub fn optional<T>(
        &mut self,
        what: &'static str,
        value: impl FnOnce(&mut Self) -> Result<T>,
    ) -> Result<Option<T>> {
        if self.bool(what)? {
            value(self).map(Some)
        } else {
            Ok(None)
        }
    }

    /// A value of radosgw's `encode_packed_val`: one byte below 0x80, else
    /// 0x80 plus the width (1, 2, 4 or 8) and the value in that many bytes.
    pub fn packed(&mut self, what: &'static str) -> Result<u64> {
        let at = self.pos;
        let c = self.u8(what)?;
        Ok(match c {
            0..=0x7f => u64::from(c),
            0x81 => u64::from(self.u8(what)?),
            0x82 => u64::from(self.u16(what)?),
            0x84 => u64::from(self.u32(what)?),
            0x88 => self.u64(what)?,
            _ => return Err(DecodeError::Packed { what, at, byte: c }),
        })
    }

    /// A versioned block (`DECODE_START`) read only for its length: its
    /// bytes, header included, for a later decoder.
    pub fn raw_block(&mut self, what: &'static str) -> Result<&'a [u8]> {
        let start = self.pos;
        self.block(what, Header::Start { known: u8::MAX }, |_, _| Ok(()))?;
        Ok(&self.buf[start..self.pos])
    }

    /// A `ceph::real_time`: `u32` seconds and `u32` nanoseconds since the
    /// Unix epoch.
    pub fn time(&mut self, what: &'static str) -> Result<SystemTime> {
        let secs = self.u32(what)?;
        let nanos = self.u32(what)?;
        Ok(UNIX_EPOCH
            + Duration::from_secs(u64::from(secs))
            + Duration::from_nanos(u64::from(nanos)))
    }

    /// A container's `u32` count, refused when the bytes left cannot hold
    /// that many entries of at least `min_entry` bytes each (so that a bad
    /// count allocates nothing).
    pub fn count(&mut self, what: &'static str, min_entry: usize) -> Result<usize> {
        let at = self.pos;
        let count = self.u32(what)?;
        let left = self.remaining();
        if (count as usize).saturating_mul(min_entry.max(1)) > left {
            return Err(DecodeError::Count {
                what,
                count,
                left,
                at,
            });
        }
        Ok(count as usize)
    }

    /// A `std::list`, `std::vector` or `std::set` of entries read by `entry`
    /// (each at least `min_entry` bytes).
    pub fn seq<T>(
        &mut self,
        what: &'static str,
        min_entry: usize,
        mut entry: impl FnMut(&mut Self) -> Result<T>,
    ) -> Result<Vec<T>> {
        let n = self.count(what, min_entry)?;
        let mut out = Vec::with_capacity(n);
        for _ in 0..n {
            out.push(entry(self)?);
        }
        Ok(out)
    }

    /// A versioned block: its header, then `body` with the block's
    /// `struct_v`, then a skip to the block's declared end (the fields of
    /// newer versions than `body` reads).
    pub fn block<T>(
        &mut self,
        what: &'static str,
        header: Header,
        body: impl FnOnce(&mut Self, u8) -> Result<T>,
    ) -> Result<T> {
        let struct_v = self.u8(what)?;
        let (known, has_compat, has_len, skip) = match header {
            Header::Start { known } => (known, true, true, 0),
            Header::Legacy {
                known,
                compat_v,
                len_v,
                skip,
            } => (known, struct_v >= compat_v, struct_v >= len_v, skip),
        };
        if has_compat {
            let compat = self.u8(what)?;
            if compat > known {
                return Err(DecodeError::TooNew {
                    what,
                    struct_v,
                    compat,
                    known,
                });
            }
        } else {
            self.take(skip, what)?;
        }
        let end = if has_len {
            let len = self.u32(what)? as usize;
            if len > self.remaining() {
                return Err(DecodeError::Truncated {
                    what,
                    at: self.pos,
                    need: len - self.remaining(),
                });
            }
            Some(self.pos + len)
        } else {
            None
        };
        let value = body(self, struct_v)?;
        if let Some(end) = end {
            if self.pos > end {
                return Err(DecodeError::Overrun {
                    what,
                    at: self.pos,
                    end,
                });
            }
            self.pos = end;
        }
        Ok(value)
    }
}

/// Writes a record as Ceph encodes it: the writing half of [`Decoder`],
/// for the records rsgw writes into radosgw's layout. Blocks are always
/// written in their current form (`ENCODE_START`: version, compat and
/// length), as radosgw 16.2 writes them.
#[derive(Debug, Default)]
pub struct Encoder {
    buf: Vec<u8>,
}

impl Encoder {
    /// An empty record.
    pub fn new() -> Self {
        Self::default()
    }

    /// The bytes written.
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// A byte.
    pub fn u8(&mut self, v: u8) -> &mut Self {
        self.buf.push(v);
        self
    }

    /// A `bool`: one byte, 0 or 1.
    pub fn bool(&mut self, v: bool) -> &mut Self {
        self.u8(u8::from(v))
    }

    /// A little-endian `u16`.
    pub fn u16(&mut self, v: u16) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A little-endian `u32`.
    pub fn u32(&mut self, v: u32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A little-endian `i32`.
    pub fn i32(&mut self, v: i32) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A little-endian `i64`.
    pub fn i64(&mut self, v: i64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A little-endian `u64`.
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.buf.extend_from_slice(&v.to_le_bytes());
        self
    }

    /// A value as radosgw's `encode_packed_val` writes it: one byte below
    /// 0x80, else 0x80 plus the width (1, 2, 4 or 8) and the value in the
    /// fewest of those bytes that hold it. (radosgw writes 0x10000 in two
    /// bytes, as 0: a slip this writer does not copy.)
    pub fn packed(&mut self, v: u64) -> &mut Self {
        if v < 0x80 {
            self.u8(v as u8)
        } else if let Ok(b) = u8::try_from(v) {
            self.u8(0x81).u8(b)
        } else if let Ok(w) = u16::try_from(v) {
            self.u8(0x82).u16(w)
        } else if let Ok(w) = u32::try_from(v) {
            self.u8(0x84).u32(w)
        } else {
            self.u8(0x88).u64(v)
        }
    }

    /// A container's count. Ceph counts in `u32`; a container rsgw writes
    /// holds a handful of entries.
    pub fn count(&mut self, n: usize) -> &mut Self {
        self.u32(u32::try_from(n).unwrap_or(u32::MAX))
    }

    /// A string: its `u32` length, then its bytes.
    pub fn string(&mut self, s: &str) -> &mut Self {
        self.buffer(s.as_bytes())
    }

    /// A buffer: its `u32` length, then its bytes.
    pub fn buffer(&mut self, b: &[u8]) -> &mut Self {
        self.count(b.len());
        self.buf.extend_from_slice(b);
        self
    }

    /// Bytes another encoder wrote (a nested record's whole block).
    pub fn raw(&mut self, b: &[u8]) -> &mut Self {
        self.buf.extend_from_slice(b);
        self
    }

    /// A `ceph::real_time`: `u32` seconds and `u32` nanoseconds since the
    /// Unix epoch (a time before it is written as the epoch).
    pub fn time(&mut self, t: SystemTime) -> &mut Self {
        let d = t.duration_since(UNIX_EPOCH).unwrap_or_default();
        self.u32(u32::try_from(d.as_secs()).unwrap_or(u32::MAX));
        self.u32(d.subsec_nanos())
    }

    /// A list, vector or set: its count, then each entry by `entry`.
    pub fn seq<T>(
        &mut self,
        items: impl ExactSizeIterator<Item = T>,
        mut entry: impl FnMut(&mut Self, T),
    ) -> &mut Self {
        self.count(items.len());
        for item in items {
            entry(self, item);
        }
        self
    }

    /// A versioned block (`ENCODE_START(struct_v, compat)` ...
    /// `ENCODE_FINISH`): the two version bytes, a `u32` length written
    /// once `body` has written the fields.
    pub fn block(&mut self, struct_v: u8, compat: u8, body: impl FnOnce(&mut Self)) -> &mut Self {
        self.buf.push(struct_v);
        self.buf.push(compat);
        let at = self.buf.len();
        self.buf.extend_from_slice(&[0; 4]);
        body(self);
        let len = self.buf.len() - at - 4;
        let len = u32::try_from(len).unwrap_or(u32::MAX).to_le_bytes();
        self.buf[at..at + 4].copy_from_slice(&len);
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(struct_v: u8, compat: u8, body: &[u8]) -> Vec<u8> {
        let mut out = vec![struct_v, compat];
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(body);
        out
    }

    #[test]
    fn integers_and_strings_are_little_endian_and_length_prefixed() {
        let bytes = [
            1, 0xff, 0x01, 0x02, 0x03, 0x04, 0xfe, 0xff, 0xff, 0xff, 2, 0, 0, 0, b'h', b'i',
        ];
        let mut d = Decoder::new(&bytes);
        assert!(d.bool("b").unwrap());
        assert_eq!(d.u8("u8").unwrap(), 0xff);
        assert_eq!(d.u32("u32").unwrap(), 0x0403_0201);
        assert_eq!(d.i32("i32").unwrap(), -2);
        assert_eq!(d.string("s").unwrap(), "hi");
        d.finish().unwrap();
    }

    #[test]
    fn a_block_skips_the_fields_of_newer_versions() {
        // version 3 of a block whose reader knows 2 fields: the third is skipped
        let mut bytes = block(3, 1, &[7, 0, 0, 0, 8, 0, 0, 0, 9, 0, 0, 0]);
        bytes.push(42);
        let mut d = Decoder::new(&bytes);
        let (a, b) = d
            .block("t", Header::Start { known: 2 }, |d, v| {
                assert_eq!(v, 3);
                Ok((d.u32("a")?, d.u32("b")?))
            })
            .unwrap();
        assert_eq!((a, b), (7, 8));
        assert_eq!(d.u8("after").unwrap(), 42);
        d.finish().unwrap();
    }

    #[test]
    fn a_block_for_newer_readers_is_refused() {
        let bytes = block(5, 4, &[]);
        let err = Decoder::new(&bytes)
            .block("t", Header::Start { known: 3 }, |_, _| Ok(()))
            .unwrap_err();
        assert_eq!(
            err,
            DecodeError::TooNew {
                what: "t",
                struct_v: 5,
                compat: 4,
                known: 3
            }
        );
    }

    #[test]
    fn a_block_whose_fields_run_past_its_length_is_refused() {
        let mut bytes = block(1, 1, &[1, 0]);
        bytes.extend_from_slice(&[0, 0]);
        let err = Decoder::new(&bytes)
            .block("t", Header::Start { known: 1 }, |d, _| d.u32("a"))
            .unwrap_err();
        assert_eq!(
            err,
            DecodeError::Overrun {
                what: "t",
                at: 10,
                end: 8
            }
        );
    }

    #[test]
    fn legacy_blocks_lack_the_compat_byte_and_length_before_their_versions() {
        // a _32 block of version 1: a u32 version, no compat, no length
        let bytes = [1, 0, 0, 0, 5, 0, 0, 0];
        let header = Header::legacy_32(4, 2, 2);
        let mut d = Decoder::new(&bytes);
        assert_eq!(
            d.block("t", header, |d, v| Ok((v, d.u32("a")?))).unwrap(),
            (1, 5)
        );
        d.finish().unwrap();
    }

    #[test]
    fn packed_values_optionals_and_raw_blocks() {
        let bytes = [
            0x7f, 0x81, 0xff, 0x82, 0x34, 0x12, 0x84, 1, 0, 0, 0, 0x88, 0, 0, 0, 0, 0, 0, 0, 1,
            0x80,
        ];
        let mut d = Decoder::new(&bytes);
        for want in [0x7f, 0xff, 0x1234, 1, 1 << 56] {
            assert_eq!(d.packed("p").unwrap(), want);
        }
        assert_eq!(
            d.packed("p"),
            Err(DecodeError::Packed {
                what: "p",
                at: 20,
                byte: 0x80
            })
        );
        let mut bytes = vec![1];
        bytes.extend(block(9, 9, &[1, 2, 3]));
        bytes.push(0);
        let mut d = Decoder::new(&bytes);
        let raw = d.optional("o", |d| d.raw_block("b")).unwrap();
        assert_eq!(raw, Some(&bytes[1..10]));
        assert_eq!(d.optional("o", |d| d.u8("never")).unwrap(), None);
        d.finish().unwrap();
    }

    #[test]
    fn bad_counts_truncations_and_trailing_bytes_are_errors() {
        let huge = [0xff, 0xff, 0xff, 0xff, 1];
        assert!(matches!(
            Decoder::new(&huge).seq("list", 4, |d| d.string("s")),
            Err(DecodeError::Count {
                count: u32::MAX,
                ..
            })
        ));
        assert!(matches!(
            Decoder::new(&[9, 0, 0, 0, b'x']).string("s"),
            Err(DecodeError::Truncated { need: 8, .. })
        ));
        assert_eq!(
            Decoder::new(&[1, 0, 0, 0, 0xc3]).string("s"),
            Err(DecodeError::NotUtf8 { what: "s", at: 4 })
        );
        let mut d = Decoder::new(&[1, 2]);
        d.u8("a").unwrap();
        assert_eq!(d.finish(), Err(DecodeError::Trailing(1)));
    }

    #[test]
    fn the_encoder_writes_what_the_decoder_reads() {
        let mut e = Encoder::new();
        e.block(3, 2, |e| {
            e.u8(7).bool(true).u16(0x0102).u32(5).i32(-2).u64(1 << 40);
            e.string("key").time(UNIX_EPOCH + Duration::new(17, 5));
            for v in [
                0,
                0x7f,
                0x80,
                0xff,
                0x100,
                0xffff,
                0x10000,
                1 << 40,
                u64::MAX,
            ] {
                e.packed(v);
            }
            e.seq(["a", "bc"].into_iter(), |e, s| {
                e.string(s);
            });
        });
        let bytes = e.into_bytes();
        assert_eq!(&bytes[..2], &[3, 2]);
        assert_eq!(
            u32::from_le_bytes(bytes[2..6].try_into().unwrap()) as usize,
            bytes.len() - 6
        );
        let got = Decoder::whole(&bytes, |d| {
            d.block("t", Header::Start { known: 3 }, |d, v| {
                assert_eq!(v, 3);
                assert_eq!(d.u8("a")?, 7);
                assert!(d.bool("b")?);
                assert_eq!(d.u16("c")?, 0x0102);
                assert_eq!(d.u32("d")?, 5);
                assert_eq!(d.i32("e")?, -2);
                assert_eq!(d.u64("f")?, 1 << 40);
                assert_eq!(d.string("h")?, "key");
                assert_eq!(d.time("i")?, UNIX_EPOCH + Duration::new(17, 5));
                for v in [
                    0,
                    0x7f,
                    0x80,
                    0xff,
                    0x100,
                    0xffff,
                    0x10000,
                    1 << 40,
                    u64::MAX,
                ] {
                    assert_eq!(d.packed("p")?, v);
                }
                d.seq("j", 4, |d| d.string("j"))
            })
        })
        .unwrap();
        assert_eq!(got, vec!["a".to_string(), "bc".to_string()]);
    }
}
