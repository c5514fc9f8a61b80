//! Who sent a request: the connection's peer and whether it came over TLS,
//! or, when the peer is a trusted proxy (`frontend.trusted_proxies`: an
//! ingress such as HAProxy), what that proxy says in `Forwarded` (RFC 7239)
//! or `X-Forwarded-For` / `X-Forwarded-Proto`. Headers from any other peer
//! are ignored, so a client cannot claim another address or HTTPS.
//!
//! The result travels with the request as a [`Client`] extension, for the
//! request's log span and for what decides on the client's address or
//! transport (a bucket policy's `aws:SourceIp`, `aws:SecureTransport`).

use std::net::{IpAddr, SocketAddr};

use http::HeaderMap;

/// The client of a request, as far as the frontend can tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Client {
    /// The client's address: the peer's, or the one a trusted proxy names.
    pub addr: IpAddr,
    /// Whether the client's request travelled over TLS (to this instance,
    /// or to a trusted proxy that says `proto=https`).
    pub secure: bool,
}

/// One trusted network: an address and a prefix length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Net {
    addr: IpAddr,
    prefix: u8,
}

impl Net {
    fn contains(&self, ip: IpAddr) -> bool {
        let ip = canonical(ip);
        match (self.addr, ip) {
            (IpAddr::V4(n), IpAddr::V4(a)) => {
                let mask = u32::MAX
                    .checked_shl(32 - u32::from(self.prefix))
                    .unwrap_or(0);
                u32::from(n) & mask == u32::from(a) & mask
            }
            (IpAddr::V6(n), IpAddr::V6(a)) => {
                let mask = u128::MAX
                    .checked_shl(128 - u32::from(self.prefix))
                    .unwrap_or(0);
                u128::from(n) & mask == u128::from(a) & mask
            }
            _ => false,
        }
    }
}

/// IPv4-mapped IPv6 addresses (a dual-stack listener's peers) as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 @ IpAddr::V4(_) => v4,
    }
}

/// The proxies whose forwarding headers are believed.
#[derive(Debug, Clone, Default)]
pub struct TrustedProxies(Vec<Net>);

impl TrustedProxies {
    /// Parses addresses and networks (`10.0.0.5`, `10.0.0.0/8`, `::1`,
    /// `fd00::/8`); the error names the entry that does not parse.
    pub fn parse<S: AsRef<str>>(entries: &[S]) -> Result<Self, String> {
        entries
            .iter()
            .map(|e| {
                let e = e.as_ref().trim();
                let (addr, prefix) = e.split_once('/').unwrap_or((e, ""));
                let addr: IpAddr = addr
                    .parse()
                    .map_err(|_| format!("'{e}' is not an address or network"))?;
                let addr = canonical(addr);
                let max = if addr.is_ipv4() { 32 } else { 128 };
                let prefix = if prefix.is_empty() {
                    max
                } else {
                    prefix
                        .parse::<u8>()
                        .ok()
                        .filter(|p| *p <= max)
                        .ok_or_else(|| format!("'{e}': the prefix length must be 0 to {max}"))?
                };
                Ok(Net { addr, prefix })
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }

    /// Whether `ip` is one of the trusted proxies.
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.0.iter().any(|n| n.contains(ip))
    }

    /// The client of a request that arrived from `peer` (over TLS if
    /// `tls`) with `headers`.
    pub fn client(&self, peer: SocketAddr, tls: bool, headers: &HeaderMap) -> Client {
        let direct = Client {
            addr: canonical(peer.ip()),
            secure: tls,
        };
        if !self.contains(peer.ip()) {
            return direct;
        }
        let forwarded = forwarded(headers);
        let (hops, proto) = if forwarded.is_empty() {
            (x_forwarded_for(headers), x_forwarded_proto(headers))
        } else {
            let proto = forwarded.last().and_then(|h| h.proto.clone());
            (forwarded.into_iter().map(|h| h.for_addr).collect(), proto)
        };
        // the nearest hop is last: walk back past our own proxies to the
        // first address they did not add themselves
        let addr = hops
            .iter()
            .rev()
            .find_map(|h| h.filter(|ip| !self.contains(*ip)))
            .or_else(|| hops.first().copied().flatten())
            .unwrap_or(direct.addr);
        let secure = match proto {
            Some(p) => p.eq_ignore_ascii_case("https"),
            None => tls,
        };
        Client {
            addr: canonical(addr),
            secure,
        }
    }
}

/// One element of a `Forwarded` header.
struct Hop {
    for_addr: Option<IpAddr>,
    proto: Option<String>,
}

/// The elements of every `Forwarded` header, in order.
fn forwarded(headers: &HeaderMap) -> Vec<Hop> {
    let mut hops = Vec::new();
    for value in headers.get_all(http::header::FORWARDED) {
        let Ok(value) = value.to_str() else { continue };
        for element in value.split(',') {
            let mut hop = Hop {
                for_addr: None,
                proto: None,
            };
            for pair in element.split(';') {
                let Some((k, v)) = pair.split_once('=') else {
                    continue;
                };
                let v = v.trim().trim_matches('"');
                match k.trim().to_ascii_lowercase().as_str() {
                    "for" => hop.for_addr = node_addr(v),
                    "proto" => hop.proto = Some(v.to_string()),
                    _ => {}
                }
            }
            hops.push(hop);
        }
    }
    hops
}

/// The address of a `Forwarded` node (`192.0.2.43`, `192.0.2.43:4711`,
/// `[2001:db8::17]:4711`); `None` for `unknown` and obfuscated names.
fn node_addr(v: &str) -> Option<IpAddr> {
    if let Ok(ip) = v.parse() {
        return Some(ip);
    }
    if let Ok(sa) = v.parse::<SocketAddr>() {
        return Some(sa.ip());
    }
    v.strip_prefix('[')
        .and_then(|r| r.split(']').next())
        .and_then(|ip| ip.parse().ok())
}

fn x_forwarded_for(headers: &HeaderMap) -> Vec<Option<IpAddr>> {
    headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|a| node_addr(a.trim()))
        .collect()
}

fn x_forwarded_proto(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all("x-forwarded-proto")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .next_back()
        .map(|p| p.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(
                http::HeaderName::from_bytes(k.as_bytes()).expect("name"),
                v.parse().expect("value"),
            );
        }
        h
    }

    fn proxies() -> TrustedProxies {
        TrustedProxies::parse(&["10.0.0.0/8", "::1", "192.168.1.7"]).expect("parse")
    }

    fn peer(ip: &str) -> SocketAddr {
        SocketAddr::new(ip.parse().expect("ip"), 40000)
    }

    fn ip(s: &str) -> IpAddr {
        s.parse().expect("ip")
    }

    #[test]
    fn an_untrusted_peer_cannot_claim_anything() {
        let h = headers(&[
            ("forwarded", "for=1.2.3.4;proto=https"),
            ("x-forwarded-for", "1.2.3.4"),
        ]);
        let c = proxies().client(peer("203.0.113.9"), false, &h);
        assert_eq!(
            c,
            Client {
                addr: ip("203.0.113.9"),
                secure: false
            }
        );
    }

    #[test]
    fn a_trusted_proxy_names_the_client_and_scheme() {
        let h = headers(&[("forwarded", "for=198.51.100.17;proto=https;by=10.0.0.1")]);
        let c = proxies().client(peer("10.1.2.3"), false, &h);
        assert_eq!(
            c,
            Client {
                addr: ip("198.51.100.17"),
                secure: true
            }
        );
        // X-Forwarded-* when there is no Forwarded
        let h = headers(&[
            ("x-forwarded-for", "198.51.100.17, 10.0.0.9"),
            ("x-forwarded-proto", "http"),
        ]);
        let c = proxies().client(peer("10.1.2.3"), true, &h);
        assert_eq!(
            c,
            Client {
                addr: ip("198.51.100.17"),
                secure: false
            }
        );
        // no header at all: the proxy itself, its transport
        let c = proxies().client(peer("::1"), true, &HeaderMap::new());
        assert_eq!(
            c,
            Client {
                addr: ip("::1"),
                secure: true
            }
        );
    }

    #[test]
    fn a_client_cannot_prepend_its_way_past_the_proxy() {
        // the client sent "for=6.6.6.6" itself; our proxy appended the real one
        let h = headers(&[(
            "forwarded",
            "for=6.6.6.6, for=\"[2001:db8::17]:4711\";proto=https",
        )]);
        let c = proxies().client(peer("10.0.0.2"), false, &h);
        assert_eq!(
            c,
            Client {
                addr: ip("2001:db8::17"),
                secure: true
            }
        );
        let h = headers(&[("x-forwarded-for", "6.6.6.6, 198.51.100.1, 10.9.9.9")]);
        assert_eq!(
            proxies().client(peer("10.0.0.2"), false, &h).addr,
            ip("198.51.100.1")
        );
    }

    #[test]
    fn networks_parse_and_match() {
        let p = proxies();
        assert!(p.contains(ip("10.255.0.1")) && !p.contains(ip("11.0.0.1")));
        assert!(p.contains(ip("::ffff:10.0.0.1")), "IPv4-mapped");
        assert!(p.contains(ip("192.168.1.7")) && !p.contains(ip("192.168.1.8")));
        let all = TrustedProxies::parse(&["0.0.0.0/0"]).expect("parse");
        assert!(all.contains(ip("8.8.8.8")) && !all.contains(ip("::2")));
        for bad in ["10.0.0.0/33", "host", "::/129", "1.2.3.4/x"] {
            assert!(TrustedProxies::parse(&[bad]).is_err(), "{bad}");
        }
    }
}
