//! Virtual-hosted-style addressing: which bucket a `Host` header names.

use s3s::S3Result;
use s3s::host::{S3Host, VirtualHost};

/// Virtual-hosted-style addressing for the configured DNS names, like
/// radosgw's `rgw_dns_name`: `bucket.<name>[:port]` names a bucket,
/// `<name>[:port]` and any other host (an IP address, say) are path-style.
/// Where names nest (`s3.test` and `eu.s3.test`), the longest one that fits
/// wins: `eu.s3.test` is the service itself, not bucket `eu`.
pub(crate) struct DnsNames(pub(crate) Vec<String>);

impl S3Host for DnsNames {
    fn parse_host_header<'a>(&'a self, host: &'a str) -> S3Result<VirtualHost<'a>> {
        let name = match host.rsplit_once(':') {
            Some((h, port)) if !h.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) => h,
            _ => host,
        };
        let n = name.as_bytes();
        let fits = |base: &&String| {
            let b = base.as_bytes();
            n.eq_ignore_ascii_case(b)
                || (n.len() > b.len() + 1
                    && n[n.len() - b.len()..].eq_ignore_ascii_case(b)
                    && n[n.len() - b.len() - 1] == b'.')
        };
        match self.0.iter().filter(fits).map(String::len).max() {
            // the byte before the name is an ASCII '.': a char boundary
            Some(len) if len < name.len() => {
                let bucket = &name[..name.len() - len - 1];
                Ok(VirtualHost::new(name).with_bucket(bucket))
            }
            _ => Ok(VirtualHost::new(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bucket a Host header names (`None`: path-style).
    fn bucket(names: &[&str], host: &str) -> Option<String> {
        let h = DnsNames(names.iter().map(|n| (*n).to_string()).collect());
        let v = h.parse_host_header(host).expect("never refused");
        v.bucket().map(str::to_string)
    }

    #[test]
    fn dns_names_pick_bucket_or_path_style() {
        let one = &["s3.test"][..];
        let nested = &["s3.test", "eu.s3.test"][..];
        let table: &[(&[&str], &str, Option<&str>)] = &[
            (one, "photos.s3.test:7480", Some("photos")),
            (one, "photos.s3.test", Some("photos")),
            (one, "a.b.s3.test", Some("a.b")),
            (one, "s3.test:7480", None),
            (one, "s3.test", None),
            (one, "127.0.0.1:7480", None),
            (one, "127.0.0.1", None),
            (one, "xs3.test", None),
            (one, ".s3.test", None),
            (one, "s3.test.evil", None),
            (one, "photos.s3.test.evil:7480", None),
            // host names are case-insensitive; the bucket keeps its spelling
            (one, "photos.S3.TEST:7480", Some("photos")),
            (one, "S3.Test", None),
            // ports: digits only; an empty one is no port
            (one, "photos.s3.test:", Some("photos")),
            (one, "photos.s3.test:http", None),
            (one, "photos.s3.test:80:80", None),
            // IPv6 literals are path-style, with or without a port
            (one, "[::1]:7480", None),
            (one, "[::1]", None),
            (one, "[2001:db8::1]:443", None),
            // every configured name counts
            (
                &["s3.test", "s3.example.com"],
                "logs.s3.example.com",
                Some("logs"),
            ),
            (&["s3.test", "s3.example.com"], "s3.example.com:443", None),
            // nested names: the longest that fits, in either order
            (nested, "eu.s3.test", None),
            (nested, "b.eu.s3.test", Some("b")),
            (nested, "b.s3.test", Some("b")),
            (&["eu.s3.test", "s3.test"], "eu.s3.test:7480", None),
            (&["eu.s3.test", "s3.test"], "b.eu.s3.test", Some("b")),
        ];
        for (names, host, want) in table {
            assert_eq!(
                bucket(names, host).as_deref(),
                *want,
                "{host} under {names:?}"
            );
        }
    }

    #[test]
    fn dns_names_keep_the_host_as_the_domain() {
        let h = DnsNames(vec!["s3.test".into()]);
        let v = h.parse_host_header("photos.s3.test:7480").expect("parsed");
        assert_eq!(v.domain(), "photos.s3.test");
        // no panic on hosts that are not ASCII (s3s passes only ASCII)
        let v = h.parse_host_header("\u{e9}.s3.test").expect("parsed");
        assert_eq!(v.bucket(), Some("\u{e9}"));
        assert!(
            h.parse_host_header("\u{e9}")
                .expect("parsed")
                .bucket()
                .is_none()
        );
        let v = h.parse_host_header("ab\u{e9}3.test").expect("parsed");
        assert!(v.bucket().is_none(), "the suffix starts inside a character");
    }
}
