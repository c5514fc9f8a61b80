//! Server-side encryption as radosgw does it (`src/rgw/rgw_crypt.cc`,
//! `AES_256_CBC`), so that data either gateway encrypts the other reads:
//!
//! - the data is cut into 4 KiB chunks, counted from the start of the
//!   object (or of each part, for a multipart object); each chunk is
//!   encrypted on its own with AES-256-CBC, its IV the constant
//!   `aes256iv_ctr1337` plus the chunk's offset / 16 (big-endian);
//! - the last chunk's bytes after its last whole 16-byte block are XORed
//!   with the AES encryption of that last (encrypted) block, or, for a
//!   chunk with no whole block, of the IV of their offset;
//!
//! so a ciphertext is exactly as long as its plaintext, and a range read
//! decrypts only the chunks it touches ([`plan`]). The keys: SSE-C's is
//! the client's; SSE-S3's and SSE-KMS' are the AES-256-ECB encryption of
//! the object's random key selector with the master key (radosgw's
//! `testing` KMS backend). Which key reads an object is
//! [`object_key`]'s decision.

use aes::Aes256;
use aes::cipher::{Array, BlockCipherDecrypt, BlockCipherEncrypt, KeyInit};
use bytes::{Bytes, BytesMut};

use crate::model::crypt::{CryptOptions, CustomerKey, KEY_LEN, Key, KmsBackend, Sse, SseMode};
use crate::model::error::{GatewayError, GatewayResult};

/// Bytes encrypted on their own.
pub(crate) const CHUNK: u64 = 4096;
const BLOCK: usize = 16;
/// Chunks encrypted side by side: the blocks AES-NI takes at once.
const PAR: usize = 8;
/// radosgw's base IV.
const IV: [u8; BLOCK] = *b"aes256iv_ctr1337";

/// AES-256 with radosgw's chunking, keyed for one object (or part).
#[derive(Clone)]
pub(crate) struct ChunkCipher {
    aes: Aes256,
}

impl ChunkCipher {
    /// The cipher of `key`.
    pub(crate) fn new(key: &Key) -> Self {
        ChunkCipher {
            aes: Aes256::new(&Array::from(key.0)),
        }
    }

    fn encrypt_block(&self, b: &mut [u8; BLOCK]) {
        let mut a = Array::from(*b);
        self.aes.encrypt_block(&mut a);
        *b = a.into();
    }

    /// Encrypts `data` in place: it starts at `offset` of its stream, a
    /// multiple of [`CHUNK`]; every chunk but the last is whole.
    pub(crate) fn encrypt(&self, offset: u64, data: &mut [u8]) {
        self.transform(offset, data, true);
    }

    /// Decrypts `data` in place (as [`ChunkCipher::encrypt`] takes it).
    pub(crate) fn decrypt(&self, offset: u64, data: &mut [u8]) {
        self.transform(offset, data, false);
    }

    fn transform(&self, offset: u64, data: &mut [u8], encrypt: bool) {
        debug_assert_eq!(offset % CHUNK, 0, "a chunk's start");
        if !encrypt {
            for (i, chunk) in data.chunks_mut(CHUNK as usize).enumerate() {
                self.decrypt_chunk(offset + i as u64 * CHUNK, chunk);
            }
            return;
        }
        // CBC encryption is a chain within a chunk, but chunks are
        // independent: whole chunks go PAR at a time, their chains
        // advancing together, so that AES runs on PAR blocks per call
        let whole = data.len() / CHUNK as usize * CHUNK as usize;
        let (full, rest) = data.split_at_mut(whole);
        let mut at = offset;
        for group in full.chunks_mut(CHUNK as usize * PAR) {
            self.encrypt_group(at, group);
            at += group.len() as u64;
        }
        if !rest.is_empty() {
            self.encrypt_chunk(at, rest);
        }
    }

    /// Encrypts up to [`PAR`] whole chunks starting at stream offset `at`.
    fn encrypt_group(&self, at: u64, group: &mut [u8]) {
        const CHUNK_LEN: usize = CHUNK as usize;
        let n = group.len() / CHUNK_LEN;
        let mut prev = [[0u8; BLOCK]; PAR];
        for (k, p) in prev.iter_mut().enumerate().take(n) {
            *p = iv(at + (k * CHUNK_LEN) as u64);
        }
        let mut blocks = [Array::from([0u8; BLOCK]); PAR];
        for j in (0..CHUNK_LEN).step_by(BLOCK) {
            for k in 0..n {
                let b = &group[k * CHUNK_LEN + j..][..BLOCK];
                for ((out, x), y) in blocks[k].iter_mut().zip(b).zip(&prev[k]) {
                    *out = x ^ y;
                }
            }
            self.aes.encrypt_blocks(&mut blocks[..n]);
            for k in 0..n {
                group[k * CHUNK_LEN + j..][..BLOCK].copy_from_slice(&blocks[k]);
                prev[k] = blocks[k].into();
            }
        }
    }

    /// Encrypts one chunk (the last, short one) block after block.
    fn encrypt_chunk(&self, at: u64, chunk: &mut [u8]) {
        let (blocks, rest) = chunk.split_at_mut(chunk.len() / BLOCK * BLOCK);
        let mut prev = iv(at);
        for b in blocks.chunks_exact_mut(BLOCK) {
            let b: &mut [u8; BLOCK] = b.try_into().expect("a whole block");
            xor(b, &prev);
            self.encrypt_block(b);
            prev = *b;
        }
        self.pad_rest(prev, rest);
    }

    /// Decrypts one chunk; its whole blocks all at once (CBC decryption
    /// needs no chain: each block is XORed with the ciphertext before it).
    fn decrypt_chunk(&self, at: u64, chunk: &mut [u8]) {
        let whole = chunk.len() / BLOCK * BLOCK;
        let (blocks, rest) = chunk.split_at_mut(whole);
        let last = if whole > 0 {
            blocks[whole - BLOCK..]
                .try_into()
                .expect("the last whole block")
        } else {
            iv(at)
        };
        self.pad_rest(last, rest);
        let mut cipher = [0u8; CHUNK as usize];
        cipher[..whole].copy_from_slice(blocks);
        let (arr, _) = Array::slice_as_chunks_mut(blocks);
        self.aes.decrypt_blocks(arr);
        if whole > 0 {
            let (first, others) = blocks.split_at_mut(BLOCK);
            for (d, c) in first.iter_mut().zip(iv(at)) {
                *d ^= c;
            }
            for (d, c) in others.iter_mut().zip(&cipher[..whole - BLOCK]) {
                *d ^= c;
            }
        }
    }

    /// The bytes after a chunk's last whole block: XORed with `last` (its
    /// last ciphertext block, or the IV of the chunk's offset where it has
    /// no whole block) encrypted with an IV of 0, as radosgw does.
    fn pad_rest(&self, last: [u8; BLOCK], rest: &mut [u8]) {
        if rest.is_empty() {
            return;
        }
        let mut pad = last;
        self.encrypt_block(&mut pad);
        for (d, p) in rest.iter_mut().zip(pad) {
            *d ^= p;
        }
    }
}

fn xor(b: &mut [u8; BLOCK], with: &[u8; BLOCK]) {
    for (x, y) in b.iter_mut().zip(with) {
        *x ^= y;
    }
}

/// radosgw's IV of stream offset `offset`: [`IV`] plus `offset / 16`.
fn iv(offset: u64) -> [u8; BLOCK] {
    let mut iv = IV;
    let mut index = offset / BLOCK as u64;
    let mut carry = 0u32;
    for b in iv.iter_mut().rev() {
        let v = u32::from(*b) + (index & 0xff) as u32 + carry;
        *b = v as u8;
        carry = v >> 8;
        index >>= 8;
    }
    iv
}

/// An object's key from its master key and key selector (SSE-S3,
/// SSE-KMS): the selector's two blocks encrypted with the master key
/// (AES-256-ECB).
pub(crate) fn derive_key(master: &Key, selector: &[u8; KEY_LEN]) -> Key {
    let c = ChunkCipher::new(master);
    let mut out = *selector;
    for b in out.chunks_exact_mut(BLOCK) {
        let b: &mut [u8; BLOCK] = b.try_into().expect("a whole block");
        c.encrypt_block(b);
    }
    Key(out)
}

/// The SSE-KMS key id a request means: its own, else the default one
/// (`crypt.kms_default_key`).
pub(crate) fn kms_key_id<'a>(opts: &'a CryptOptions, key_id: &'a str) -> GatewayResult<&'a str> {
    if opts.kmip.is_none() && opts.kms_keys.is_empty() {
        return Err(GatewayError::NotConfigured(
            "SSE-KMS needs a key backend: this gateway has no crypt.kms_keys and no KMIP server"
                .into(),
        ));
    }
    let id = if key_id.is_empty() {
        opts.kms_default_key.as_str()
    } else {
        key_id
    };
    if id.is_empty() {
        return Err(GatewayError::InvalidArgument(
            "SSE-KMS needs x-amz-server-side-encryption-aws-kms-key-id: this gateway has no default key (crypt.kms_default_key)".into(),
        ));
    }
    Ok(id)
}

/// The master key of an SSE-KMS key id in the gateway's config (the
/// `testing` backend).
pub(crate) fn config_kms_key<'a>(opts: &'a CryptOptions, id: &str) -> GatewayResult<&'a Key> {
    opts.kms_keys.get(id).ok_or_else(|| {
        GatewayError::InvalidArgument(format!(
            "Invalid arguments for KMS key: no key with id '{id}'"
        ))
    })
}

/// The key an SSE-KMS object's data is encrypted with: derived from the
/// master key and the object's selector (`testing`), or the KMIP server's
/// key itself (`kmip`), as radosgw's backends do.
pub(crate) fn kms_object_key(backend: KmsBackend, master: &Key, selector: &[u8; KEY_LEN]) -> Key {
    match backend {
        KmsBackend::Testing => derive_key(master, selector),
        KmsBackend::Kmip => master.clone(),
    }
}

/// The SSE-S3 master key.
pub(crate) fn sse_s3_key(opts: &CryptOptions) -> GatewayResult<&Key> {
    opts.sse_s3_key.as_ref().ok_or_else(|| {
        GatewayError::NotConfigured(
            "SSE-S3 (x-amz-server-side-encryption: AES256) needs a master key: this gateway has no crypt.sse_s3_key".into(),
        )
    })
}

/// Whether a request that sends or asks for keys may do so: not over
/// plain HTTP where `require_ssl` is set (`rgw_crypt_require_ssl`).
pub(crate) fn check_transport(opts: &CryptOptions, secure: bool) -> GatewayResult<()> {
    if opts.require_ssl && !secure {
        return Err(GatewayError::InvalidRequest(
            "Requests specifying Server Side Encryption with Customer provided keys or KMS keys must be made over a secure connection (crypt.require_ssl)".into(),
        ));
    }
    Ok(())
}

/// The key that reads (or completes, or adds a part to) what `sse` says
/// is encrypted, given the customer key the request sent and, for SSE-KMS,
/// the master key of its key id (`kms_master`, fetched by the engine):
/// `None` for data stored in the clear. A customer key is required for
/// SSE-C and refused for anything else, as S3 refuses it.
pub(crate) fn object_key(
    sse: Option<&Sse>,
    given: Option<&CustomerKey>,
    opts: &CryptOptions,
    secure: bool,
    kms_master: Option<&Key>,
) -> GatewayResult<Option<Key>> {
    let Some(sse) = sse else {
        return match given {
            None => Ok(None),
            Some(_) => Err(GatewayError::InvalidRequest(
                "The encryption parameters are not applicable to this object.".into(),
            )),
        };
    };
    let selector = || {
        let raw = hex::decode(&sse.key_selector).ok();
        raw.and_then(|r| <[u8; KEY_LEN]>::try_from(r).ok())
            .ok_or_else(|| GatewayError::Corrupt("an encrypted object's key selector".into()))
    };
    match (sse.mode, given) {
        (SseMode::CustomerKey, None) => Err(GatewayError::InvalidRequest(
            "The object was stored using a form of Server Side Encryption. The correct parameters must be provided to retrieve the object.".into(),
        )),
        (SseMode::CustomerKey, Some(k)) => {
            check_transport(opts, secure)?;
            if k.key_md5 != sse.key_md5 {
                return Err(GatewayError::SseKeyMismatch);
            }
            Ok(Some(k.key.clone()))
        }
        (_, Some(_)) => Err(GatewayError::InvalidRequest(
            "The encryption parameters are not applicable to this object.".into(),
        )),
        (SseMode::S3, None) => Ok(Some(derive_key(sse_s3_key(opts)?, &selector()?))),
        (SseMode::Kms, None) => {
            let master = kms_master.ok_or_else(|| {
                GatewayError::Corrupt("an SSE-KMS object read without its master key".into())
            })?;
            Ok(Some(kms_object_key(sse.kms_backend, master, &selector()?)))
        }
    }
}

/// Encrypts a stream that arrives in pieces of any length: whole chunks
/// go out as soon as they are in, the last (short) one at [`finish`].
///
/// [`finish`]: Encryptor::finish
pub(crate) struct Encryptor {
    cipher: ChunkCipher,
    offset: u64,
    pending: BytesMut,
}

impl Encryptor {
    /// A stream encrypted from offset 0.
    pub(crate) fn new(cipher: ChunkCipher) -> Self {
        Encryptor {
            cipher,
            offset: 0,
            pending: BytesMut::new(),
        }
    }

    /// Takes `data`; returns what is encrypted of it (whole chunks).
    pub(crate) fn push(&mut self, data: &[u8]) -> Bytes {
        self.pending.extend_from_slice(data);
        let whole = self.pending.len() as u64 / CHUNK * CHUNK;
        let mut out = self.pending.split_to(whole as usize);
        self.cipher.encrypt(self.offset, &mut out);
        self.offset += whole;
        out.freeze()
    }

    /// The encrypted rest (shorter than a chunk).
    pub(crate) fn finish(mut self) -> Bytes {
        let mut out = self.pending.split();
        self.cipher.encrypt(self.offset, &mut out);
        out.freeze()
    }
}

/// What a read of the plaintext bytes `start..end` reads and keeps of one
/// segment (an object encrypted as one stream, or a part).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Piece {
    /// Where the segment starts in the object.
    pub seg_start: u64,
    /// The ciphertext to read, from the segment's start: chunk-aligned.
    pub from: u64,
    /// Its end: chunk-aligned or the segment's end.
    pub to: u64,
    /// Decrypted bytes to drop before the range.
    pub skip: u64,
    /// Decrypted bytes to keep after those.
    pub take: u64,
}

/// The pieces of `segments` ((start, length) in the object) a read of
/// `start..end` needs, in order.
pub(crate) fn plan(segments: &[(u64, u64)], start: u64, end: u64) -> Vec<Piece> {
    segments
        .iter()
        .filter_map(|&(s, len)| {
            let (a, b) = (start.max(s), end.min(s + len));
            (a < b).then(|| {
                let (a, b) = (a - s, b - s);
                let from = a / CHUNK * CHUNK;
                Piece {
                    seg_start: s,
                    from,
                    to: b.div_ceil(CHUNK).saturating_mul(CHUNK).min(len),
                    skip: a - from,
                    take: b - a,
                }
            })
        })
        .collect()
}

/// Decrypts one [`Piece`]'s ciphertext as it arrives, in pieces of any
/// length, keeping only the bytes asked for.
pub(crate) struct Decryptor {
    cipher: ChunkCipher,
    /// Segment offset of `pending`'s first byte.
    offset: u64,
    end: u64,
    skip: u64,
    take: u64,
    pending: BytesMut,
}

impl Decryptor {
    /// A decryptor of `piece` with `cipher`.
    pub(crate) fn new(cipher: ChunkCipher, piece: &Piece) -> Self {
        Decryptor {
            cipher,
            offset: piece.from,
            end: piece.to,
            skip: piece.skip,
            take: piece.take,
            pending: BytesMut::new(),
        }
    }

    /// Takes ciphertext; returns the plaintext it completes. A piece that
    /// needs no buffering (whole chunks, or the piece's end) and that
    /// nothing else holds is decrypted where it lies, uncopied.
    pub(crate) fn push(&mut self, data: Bytes) -> Bytes {
        let len = data.len() as u64;
        let whole = len.is_multiple_of(CHUNK) || self.offset + len >= self.end;
        let data = if self.pending.is_empty() && whole {
            match data.try_into_mut() {
                Ok(buf) => return self.emit(buf),
                Err(shared) => shared,
            }
        } else {
            data
        };
        self.pending.extend_from_slice(&data);
        let mut n = self.pending.len() as u64 / CHUNK * CHUNK;
        if self.offset + self.pending.len() as u64 >= self.end {
            // the piece's last chunk may be short: everything is in
            n = self.pending.len() as u64;
        }
        let ready = self.pending.split_to(n as usize);
        self.emit(ready)
    }

    /// Decrypts `out` (chunks from `offset` on) and keeps what was asked.
    fn emit(&mut self, mut out: BytesMut) -> Bytes {
        let n = out.len() as u64;
        self.cipher.decrypt(self.offset, &mut out);
        self.offset += n;
        let skip = self.skip.min(n);
        self.skip -= skip;
        let _ = out.split_to(skip as usize);
        out.truncate(self.take.min(out.len() as u64) as usize);
        self.take -= out.len() as u64;
        out.freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::crypt::KEY_LEN;

    fn key(b: u8) -> Key {
        Key([b; KEY_LEN])
    }

    /// radosgw's IV arithmetic: the offset's block index added to the
    /// constant, big-endian, with carries.
    #[test]
    fn iv_adds_the_block_index() {
        assert_eq!(&iv(0), b"aes256iv_ctr1337");
        assert_eq!(&iv(15), b"aes256iv_ctr1337");
        assert_eq!(&iv(16), b"aes256iv_ctr1338");
        let mut want = *b"aes256iv_ctr1337";
        // 4096 / 16 = 256: the second-to-last byte goes up by one
        want[14] += 1;
        assert_eq!(iv(4096), want);
        // '7' (0x37) + 0xc9 = 0x100: a carry into the byte before
        let mut want = *b"aes256iv_ctr1337";
        want[15] = 0;
        want[14] += 1;
        assert_eq!(iv(0xc9 * 16), want);
    }

    /// A known answer, from the AES-256 test vector of FIPS-197 (C.3):
    /// one block with an IV of zero is plain AES.
    #[test]
    fn aes_256_is_fips_197() {
        let k: [u8; KEY_LEN] = core::array::from_fn(|i| i as u8);
        let c = ChunkCipher::new(&Key(k));
        let mut b: [u8; BLOCK] = core::array::from_fn(|i| (i as u8) * 0x11);
        c.encrypt_block(&mut b);
        assert_eq!(hex::encode(b), "8ea2b7ca516745bfeafc49904b496089");
    }

    #[test]
    fn every_length_round_trips_and_keeps_its_length() {
        let c = ChunkCipher::new(&key(1));
        for len in [0, 1, 15, 16, 17, 4095, 4096, 4097, 4111, 4112, 8192, 10_000] {
            let plain: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let mut data = plain.clone();
            c.encrypt(0, &mut data);
            assert_eq!(data.len(), len);
            if len > 0 {
                assert_ne!(data, plain, "{len} bytes are encrypted");
            }
            c.decrypt(0, &mut data);
            assert_eq!(data, plain, "{len} bytes");
        }
    }

    /// Chunks are independent: the same plaintext at another offset (or
    /// with another key) encrypts differently, and any chunk decrypts
    /// alone given its offset.
    #[test]
    fn chunks_decrypt_alone() {
        let c = ChunkCipher::new(&key(2));
        let plain = vec![7u8; 3 * CHUNK as usize + 100];
        let mut data = plain.clone();
        c.encrypt(0, &mut data);
        let (a, b) = (
            &data[..CHUNK as usize],
            &data[CHUNK as usize..2 * CHUNK as usize],
        );
        assert_ne!(a, b, "the IV differs per chunk");
        let mut third = data[2 * CHUNK as usize..].to_vec();
        c.decrypt(2 * CHUNK, &mut third);
        assert_eq!(third, plain[2 * CHUNK as usize..]);
        let mut other = plain.clone();
        ChunkCipher::new(&key(3)).encrypt(0, &mut other);
        assert_ne!(other, data);
    }

    /// Chunks encrypted side by side are what each chunk's own chain
    /// makes, and decrypt to the plaintext; so is a short last chunk.
    #[test]
    fn side_by_side_chains_are_each_chunks_own() {
        let c = ChunkCipher::new(&key(6));
        let plain: Vec<u8> = (0..(19 * CHUNK as usize + 1000))
            .map(|i| (i * 31 % 256) as u8)
            .collect();
        let mut together = plain.clone();
        c.encrypt(0, &mut together);
        let mut alone = plain.clone();
        for (i, chunk) in alone.chunks_mut(CHUNK as usize).enumerate() {
            c.encrypt_chunk(i as u64 * CHUNK, chunk);
        }
        assert_eq!(together, alone);
        c.decrypt(0, &mut together);
        assert_eq!(together, plain);
    }

    #[test]
    fn the_encryptor_matches_one_call_whatever_the_pieces() {
        let c = ChunkCipher::new(&key(4));
        let plain: Vec<u8> = (0..20_000u32).map(|i| (i * 7 % 256) as u8).collect();
        let mut want = plain.clone();
        c.encrypt(0, &mut want);
        for piece in [1, 100, 4096, 5000, 20_000] {
            let mut e = Encryptor::new(c.clone());
            let mut got = Vec::new();
            for p in plain.chunks(piece) {
                got.extend_from_slice(&e.push(p));
            }
            got.extend_from_slice(&e.finish());
            assert_eq!(got, want, "pieces of {piece}");
        }
    }

    #[test]
    fn plans_read_whole_chunks_of_each_segment() {
        let one = [(0, 10_000)];
        assert_eq!(
            plan(&one, 0, 10_000),
            vec![Piece {
                seg_start: 0,
                from: 0,
                to: 10_000,
                skip: 0,
                take: 10_000
            }]
        );
        assert_eq!(
            plan(&one, 5000, 5001),
            vec![Piece {
                seg_start: 0,
                from: 4096,
                to: 8192,
                skip: 904,
                take: 1
            }]
        );
        assert_eq!(
            plan(&one, 9000, 10_000),
            vec![Piece {
                seg_start: 0,
                from: 8192,
                to: 10_000,
                skip: 808,
                take: 1000
            }]
        );
        // parts of 5000 and 7000: a range across the boundary reads the
        // end of one and the start of the next, each from its own 0
        let parts = [(0, 5000), (5000, 7000)];
        assert_eq!(
            plan(&parts, 4500, 5500),
            vec![
                Piece {
                    seg_start: 0,
                    from: 4096,
                    to: 5000,
                    skip: 404,
                    take: 500
                },
                Piece {
                    seg_start: 5000,
                    from: 0,
                    to: 4096,
                    skip: 0,
                    take: 500
                },
            ]
        );
        assert!(plan(&parts, 12_000, 12_000).is_empty());
    }

    /// Every range of an object of two uneven parts decrypts to the
    /// plaintext's bytes, whatever pieces the ciphertext arrives in.
    #[test]
    fn ranges_decrypt_to_the_plaintext() {
        let c = ChunkCipher::new(&key(5));
        let sizes = [5000u64, 9000];
        let plain: Vec<u8> = (0..14_000u32).map(|i| (i % 253) as u8).collect();
        let mut stored = plain.clone();
        c.encrypt(0, &mut stored[..5000]);
        c.encrypt(0, &mut stored[5000..]);
        let segments = [(0, sizes[0]), (5000, sizes[1])];
        for (start, end) in [
            (0, 14_000),
            (1, 2),
            (4095, 4097),
            (4999, 5001),
            (5000, 9096),
            (13_999, 14_000),
            (100, 13_000),
        ] {
            let mut got = Vec::new();
            for p in plan(&segments, start, end) {
                let mut d = Decryptor::new(c.clone(), &p);
                let cipher =
                    &stored[(p.seg_start + p.from) as usize..(p.seg_start + p.to) as usize];
                for piece in cipher.chunks(777) {
                    got.extend_from_slice(&d.push(Bytes::copy_from_slice(piece)));
                }
                // and in one piece, decrypted where it lies
                let mut d = Decryptor::new(c.clone(), &p);
                let whole = d.push(Bytes::copy_from_slice(cipher));
                assert_eq!(
                    whole[..],
                    got[got.len() - whole.len()..],
                    "{start}..{end} in one piece"
                );
            }
            assert_eq!(got, plain[start as usize..end as usize], "{start}..{end}");
        }
    }

    fn opts() -> CryptOptions {
        CryptOptions {
            require_ssl: true,
            kms_keys: [("k1".to_string(), key(9))].into_iter().collect(),
            kms_default_key: String::new(),
            kmip: None,
            sse_s3_key: Some(key(8)),
        }
    }

    #[test]
    fn which_key_reads_an_object() {
        let o = opts();
        let ck = CustomerKey {
            key: key(1),
            key_md5: "m".into(),
        };
        let sse_c = Sse {
            mode: SseMode::CustomerKey,
            key_md5: "m".into(),
            key_id: String::new(),
            kms_backend: KmsBackend::Testing,
            key_selector: String::new(),
            parts: Vec::new(),
        };
        assert_eq!(
            object_key(None, None, &o, false, None).expect("clear"),
            None
        );
        assert!(matches!(
            object_key(None, Some(&ck), &o, true, None),
            Err(GatewayError::InvalidRequest(_))
        ));
        assert!(matches!(
            object_key(Some(&sse_c), None, &o, true, None),
            Err(GatewayError::InvalidRequest(_))
        ));
        assert!(matches!(
            object_key(Some(&sse_c), Some(&ck), &o, false, None),
            Err(GatewayError::InvalidRequest(_))
        ));
        assert_eq!(
            object_key(Some(&sse_c), Some(&ck), &o, true, None).expect("key"),
            Some(key(1))
        );
        let other = CustomerKey {
            key: key(2),
            key_md5: "n".into(),
        };
        assert!(matches!(
            object_key(Some(&sse_c), Some(&other), &o, true, None),
            Err(GatewayError::SseKeyMismatch)
        ));
        let kms = Sse {
            mode: SseMode::Kms,
            key_md5: String::new(),
            key_id: "k1".into(),
            kms_backend: KmsBackend::Testing,
            key_selector: hex::encode([3u8; KEY_LEN]),
            parts: Vec::new(),
        };
        let master = config_kms_key(&o, kms_key_id(&o, "k1").expect("id")).expect("k1");
        let k = object_key(Some(&kms), None, &o, false, Some(master))
            .expect("kms")
            .expect("a key");
        assert_eq!(k, derive_key(&key(9), &[3; KEY_LEN]));
        assert_ne!(k, key(9), "the master key never encrypts data");
        assert!(matches!(
            object_key(Some(&kms), None, &o, false, None),
            Err(GatewayError::Corrupt(_))
        ));
        // a KMIP server's key encrypts the data itself, as radosgw's does
        let kmip = Sse {
            kms_backend: KmsBackend::Kmip,
            ..kms.clone()
        };
        assert_eq!(
            object_key(Some(&kmip), None, &o, false, Some(&key(5))).expect("kmip"),
            Some(key(5))
        );
        let s3 = Sse {
            mode: SseMode::S3,
            key_id: String::new(),
            ..kms.clone()
        };
        assert_eq!(
            object_key(Some(&s3), None, &o, false, None).expect("s3"),
            Some(derive_key(&key(8), &[3; KEY_LEN]))
        );
        assert!(matches!(
            config_kms_key(&o, "k2"),
            Err(GatewayError::InvalidArgument(_))
        ));
        assert!(matches!(
            kms_key_id(&o, ""),
            Err(GatewayError::InvalidArgument(_))
        ));
        let bare = CryptOptions::default();
        assert!(matches!(
            object_key(Some(&s3), None, &bare, true, None),
            Err(GatewayError::NotConfigured(_))
        ));
        assert!(matches!(
            kms_key_id(&bare, "k1"),
            Err(GatewayError::NotConfigured(_))
        ));
    }
}
