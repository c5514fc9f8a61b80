//! The PROXY protocol, version 2 (HAProxy's `send-proxy-v2`): a proxy that
//! balances TCP, and may pass TLS through untouched, cannot add
//! `X-Forwarded-For`; it sends a binary header before the connection's
//! first byte instead, naming the client's address. With
//! `frontend.proxy_protocol`, connections from `frontend.trusted_proxies`
//! must begin with one ([`read_header`]); its source address is then the
//! connection's client. Version 1 (a text line) is not read.

use std::net::{Ipv4Addr, Ipv6Addr, SocketAddr};

use tokio::io::{AsyncRead, AsyncReadExt};

/// The 12 bytes every version 2 header begins with.
const SIGNATURE: [u8; 12] = *b"\r\n\r\n\0\r\nQUIT\n";

/// The longest address block read: addresses take 36 bytes at most, and
/// HAProxy's TLVs (unique id, TLS details) a few hundred.
const MAX_BLOCK: usize = 4096;

/// Why a connection's PROXY header was refused.
#[derive(Debug, thiserror::Error)]
pub enum ProxyHeaderError {
    /// The connection does not begin with a version 2 header.
    #[error("no PROXY protocol v2 header")]
    Missing,
    /// The header is not one this version of the protocol allows.
    #[error("malformed PROXY protocol v2 header: {0}")]
    Malformed(&'static str),
    /// The connection failed or ended within the header.
    #[error("reading the PROXY protocol header: {0}")]
    Io(#[from] std::io::Error),
}

/// Reads the PROXY v2 header at the start of `stream`, exactly its bytes
/// (what follows, a TLS handshake or a request, stays unread). The
/// client's address for a proxied TCP connection; `None` for the proxy's
/// own connections (`LOCAL`: health checks) and for families without an
/// IP address.
pub async fn read_header<S: AsyncRead + Unpin>(
    stream: &mut S,
) -> Result<Option<SocketAddr>, ProxyHeaderError> {
    let mut fixed = [0u8; 16];
    stream.read_exact(&mut fixed).await?;
    let (local, family, len) = fixed_part(&fixed)?;
    let mut block = vec![0u8; len];
    stream.read_exact(&mut block).await?;
    if local {
        return Ok(None);
    }
    source(family, &block)
}

/// The 16-byte start of a header: (LOCAL command, address family and
/// transport, length of the address block).
fn fixed_part(fixed: &[u8; 16]) -> Result<(bool, u8, usize), ProxyHeaderError> {
    if fixed[..12] != SIGNATURE {
        return Err(ProxyHeaderError::Missing);
    }
    if fixed[12] >> 4 != 2 {
        return Err(ProxyHeaderError::Malformed("version is not 2"));
    }
    let local = match fixed[12] & 0x0f {
        0 => true,
        1 => false,
        _ => return Err(ProxyHeaderError::Malformed("unknown command")),
    };
    let len = usize::from(u16::from_be_bytes([fixed[14], fixed[15]]));
    if len > MAX_BLOCK {
        return Err(ProxyHeaderError::Malformed("address block too long"));
    }
    Ok((local, fixed[13], len))
}

/// The source address of a PROXY command's address block.
fn source(family: u8, block: &[u8]) -> Result<Option<SocketAddr>, ProxyHeaderError> {
    let port = |at: usize| u16::from_be_bytes([block[at], block[at + 1]]);
    match family >> 4 {
        // AF_INET: source, destination, source port, destination port
        1 => {
            if block.len() < 12 {
                return Err(ProxyHeaderError::Malformed("IPv4 block too short"));
            }
            let ip = Ipv4Addr::new(block[0], block[1], block[2], block[3]);
            Ok(Some(SocketAddr::new(ip.into(), port(8))))
        }
        2 => {
            if block.len() < 36 {
                return Err(ProxyHeaderError::Malformed("IPv6 block too short"));
            }
            let mut octets = [0u8; 16];
            octets.copy_from_slice(&block[..16]);
            Ok(Some(SocketAddr::new(
                Ipv6Addr::from(octets).into(),
                port(32),
            )))
        }
        // AF_UNSPEC, AF_UNIX: no address to believe
        0 | 3 => Ok(None),
        _ => Err(ProxyHeaderError::Malformed("unknown address family")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A header as HAProxy writes it: command, family, block.
    fn header(command: u8, family: u8, block: &[u8]) -> Vec<u8> {
        let mut h = SIGNATURE.to_vec();
        h.push(0x20 | command);
        h.push(family);
        h.extend_from_slice(&u16::try_from(block.len()).expect("short").to_be_bytes());
        h.extend_from_slice(block);
        h
    }

    async fn read(bytes: &[u8]) -> (Result<Option<SocketAddr>, ProxyHeaderError>, Vec<u8>) {
        let mut stream = bytes;
        let got = read_header(&mut stream).await;
        (got, stream.to_vec())
    }

    #[tokio::test]
    async fn addresses_are_read_and_what_follows_is_left() {
        let v4 = [198, 51, 100, 7, 127, 0, 0, 1, 0x12, 0x34, 0x1c, 0xe8];
        let mut bytes = header(1, 0x11, &v4);
        bytes.extend_from_slice(b"GET / HTTP/1.1\r\n");
        let (got, rest) = read(&bytes).await;
        assert_eq!(
            got.expect("read"),
            Some("198.51.100.7:4660".parse().expect("addr"))
        );
        assert_eq!(rest, b"GET / HTTP/1.1\r\n");
        let mut v6 = vec![0x20, 0x01, 0x0d, 0xb8];
        v6.extend_from_slice(&[0; 11]);
        v6.push(7);
        v6.extend_from_slice(&[0; 16]);
        v6.extend_from_slice(&[0x01, 0xbb, 0x1c, 0xe8]);
        // a TLV after the addresses (PP2_TYPE_UNIQUE_ID) is skipped
        v6.extend_from_slice(&[0x05, 0x00, 0x02, b'i', b'd']);
        let (got, rest) = read(&header(1, 0x21, &v6)).await;
        assert_eq!(
            got.expect("read"),
            Some("[2001:db8::7]:443".parse().expect("addr"))
        );
        assert!(rest.is_empty());
        // LOCAL (a health check) and AF_UNSPEC name no client
        assert_eq!(read(&header(0, 0x00, &[])).await.0.expect("read"), None);
        assert_eq!(read(&header(1, 0x00, &[])).await.0.expect("read"), None);
    }

    #[tokio::test]
    async fn anything_else_is_refused() {
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"GET / HTTP/1.1\r\nHost: x\r\n\r\n".to_vec(), "no PROXY"),
            (
                b"PROXY TCP4 198.51.100.7 127.0.0.1 1 2\r\n".to_vec(),
                "no PROXY",
            ),
            (header(2, 0x11, &[0; 12]), "unknown command"),
            (header(1, 0x11, &[0; 4]), "IPv4 block too short"),
            (header(1, 0x21, &[0; 12]), "IPv6 block too short"),
            (header(1, 0x51, &[0; 12]), "unknown address family"),
            (header(1, 0x11, &vec![0; MAX_BLOCK + 1]), "too long"),
            // cut within the block
            (header(1, 0x11, &[0; 12])[..20].to_vec(), "reading"),
        ];
        for (bytes, why) in cases {
            let e = read(&bytes).await.0.expect_err(why);
            assert!(e.to_string().contains(why), "{why}: {e}");
        }
        let mut v1 = header(1, 0x11, &[0; 12]);
        v1[12] = 0x11;
        let e = read(&v1).await.0.expect_err("version 1");
        assert!(e.to_string().contains("version is not 2"), "{e}");
    }
}
