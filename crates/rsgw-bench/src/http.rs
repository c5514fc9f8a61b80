//! The smallest HTTP/1.x client a load generator needs: one GET (or HEAD) at
//! a time on a connection, as `ab` sends them, and a response read to its
//! end, over TCP or TLS. Nothing here allocates per request beyond the
//! reused buffer.

use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::TcpStream;
use tokio_rustls::TlsConnector;
use tokio_rustls::client::TlsStream;

use crate::tls::{self, TlsArgs};

/// A parsed target URL (`http[s]://host[:port]/path?query`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// `https://`: TLS over the TCP connection.
    pub tls: bool,
    /// Host as written in the URL (for the Host header).
    pub host: String,
    /// TCP port (80, or 443 for https, by default).
    pub port: u16,
    /// Path and query.
    pub path: String,
}

impl Target {
    /// Parses `http[s]://host[:port][/path]`.
    pub fn parse(url: &str) -> Result<Self, String> {
        let (tls, rest) = match (url.strip_prefix("http://"), url.strip_prefix("https://")) {
            (Some(rest), _) => (false, rest),
            (_, Some(rest)) => (true, rest),
            _ => {
                return Err(format!(
                    "'{url}': only http:// and https:// URLs are supported"
                ));
            }
        };
        let (authority, path) = match rest.find('/') {
            Some(i) => (&rest[..i], &rest[i..]),
            None => (rest, "/"),
        };
        let (host, port) = match authority.rsplit_once(':') {
            Some((h, p)) if !h.ends_with(']') || authority.starts_with('[') => (
                h,
                p.parse::<u16>()
                    .map_err(|_| format!("'{url}': bad port '{p}'"))?,
            ),
            _ => (authority, default_port(tls)),
        };
        if host.is_empty() {
            return Err(format!("'{url}': no host"));
        }
        Ok(Target {
            tls,
            host: host.to_string(),
            port,
            path: path.to_string(),
        })
    }

    /// `host:port` for connecting.
    pub fn addr(&self) -> String {
        format!(
            "{}:{}",
            self.host.trim_start_matches('[').trim_end_matches(']'),
            self.port
        )
    }

    /// The Host header's value: the port is left out when it is the
    /// scheme's default.
    pub fn host_header(&self) -> String {
        if self.port == default_port(self.tls) {
            self.host.clone()
        } else {
            format!("{}:{}", self.host, self.port)
        }
    }
}

/// The scheme's port: 443 for https, 80 for http.
fn default_port(tls: bool) -> u16 {
    if tls { 443 } else { 80 }
}

/// A connection to a target: TCP, or TLS over it.
pub enum Stream {
    /// `http://`.
    Plain(TcpStream),
    /// `https://`.
    Tls(Box<TlsStream<TcpStream>>),
}

impl Stream {
    /// What the TLS handshake negotiated (`TLSv1.3,TLS_AES_128_GCM_SHA256,X25519`).
    pub fn tls_protocol(&self) -> Option<String> {
        match self {
            Stream::Plain(_) => None,
            Stream::Tls(s) => tls::describe(s.get_ref().1),
        }
    }

    /// For TLS: whether the handshake resumed a session.
    pub fn tls_resumed(&self) -> Option<bool> {
        match self {
            Stream::Plain(_) => None,
            Stream::Tls(s) => {
                Some(s.get_ref().1.handshake_kind() == Some(rustls::HandshakeKind::Resumed))
            }
        }
    }
}

impl AsyncRead for Stream {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Stream {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_write(cx, buf),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_flush(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Stream::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Stream::Tls(s) => Pin::new(s.as_mut()).poll_shutdown(cx),
        }
    }
}

/// Opens connections to one target: TCP, then for `https://` a TLS
/// handshake, both counted as connecting.
#[derive(Clone)]
pub struct Connector {
    addr: String,
    nodelay: bool,
    tls: Option<(TlsConnector, rustls_pki_types::ServerName<'static>)>,
}

impl Connector {
    /// A connector for `target`; `config` is the TLS client's, shared by
    /// every connector of a run (built by [`tls_config_for`]). `nodelay`
    /// sets TCP_NODELAY.
    pub fn new(
        target: &Target,
        config: Option<&Arc<rustls::ClientConfig>>,
        nodelay: bool,
    ) -> Result<Self, String> {
        let tls = match (target.tls, config) {
            (false, _) => None,
            (true, Some(c)) => Some((
                TlsConnector::from(c.clone()),
                tls::server_name(&target.host)?,
            )),
            (true, None) => {
                return Err(format!(
                    "{}: https without a TLS configuration",
                    target.host
                ));
            }
        };
        Ok(Connector {
            addr: target.addr(),
            nodelay,
            tls,
        })
    }

    /// Connects; a failed handshake is a connect failure.
    pub async fn connect(&self) -> io::Result<Stream> {
        let tcp = TcpStream::connect(&self.addr).await?;
        if self.nodelay {
            tcp.set_nodelay(true)?;
        }
        match &self.tls {
            None => Ok(Stream::Plain(tcp)),
            Some((connector, name)) => Ok(Stream::Tls(Box::new(
                connector.connect(name.clone(), tcp).await?,
            ))),
        }
    }
}

/// The TLS client configuration when any of `targets` is https.
pub fn tls_config_for<'a>(
    targets: impl IntoIterator<Item = &'a Target>,
    args: &TlsArgs,
) -> Result<Option<Arc<rustls::ClientConfig>>, String> {
    if targets.into_iter().any(|t| t.tls) {
        tls::client_config(args).map(Some)
    } else {
        Ok(None)
    }
}

/// Builds the request bytes once: `ab`'s HTTP/1.0 GET, with `Connection:
/// Keep-Alive` when asked, and the extra headers.
pub fn request(t: &Target, method: &str, keepalive: bool, headers: &[String]) -> Vec<u8> {
    let mut r = format!("{method} {} HTTP/1.0\r\n", t.path);
    let has = |name: &str| {
        headers.iter().any(|h| {
            h.split(':')
                .next()
                .is_some_and(|n| n.trim().eq_ignore_ascii_case(name))
        })
    };
    if !has("host") {
        r.push_str(&format!("Host: {}\r\n", t.host_header()));
    }
    if keepalive {
        r.push_str("Connection: Keep-Alive\r\n");
    }
    if !has("user-agent") {
        r.push_str("User-Agent: rsgw-bench (ApacheBench compatible)\r\n");
    }
    if !has("accept") {
        r.push_str("Accept: */*\r\n");
    }
    for h in headers {
        r.push_str(h.trim());
        r.push_str("\r\n");
    }
    r.push_str("\r\n");
    r.into_bytes()
}

/// What one response was.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Response {
    /// HTTP status.
    pub status: u16,
    /// Body bytes received.
    pub body_len: u64,
    /// Header and body bytes received.
    pub total_len: u64,
    /// The server keeps the connection open.
    pub keepalive: bool,
    /// The `Server` header, if any.
    pub server: Option<String>,
}

/// Why a request failed, in `ab`'s categories.
#[derive(Debug)]
pub enum Failure {
    /// Connecting failed.
    Connect(io::Error),
    /// Sending failed or the connection broke while reading (a reset).
    Receive(io::Error),
    /// The response could not be parsed.
    Exception(String),
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failure::Connect(e) => write!(f, "connect: {e}"),
            Failure::Receive(e) => write!(f, "receive: {e}"),
            Failure::Exception(e) => write!(f, "{e}"),
        }
    }
}

impl Failure {
    /// Whether the peer reset the connection.
    pub fn is_reset(&self) -> bool {
        match self {
            Failure::Connect(e) | Failure::Receive(e) => matches!(
                e.kind(),
                io::ErrorKind::ConnectionReset
                    | io::ErrorKind::ConnectionAborted
                    | io::ErrorKind::BrokenPipe
            ),
            Failure::Exception(_) => false,
        }
    }
}

/// Sends `req` on `stream` and reads the response; returns it with the time
/// the first response byte arrived. `head` means no body follows.
pub async fn exchange<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    req: &[u8],
    buf: &mut Vec<u8>,
    head: bool,
) -> Result<(Response, std::time::Instant), Failure> {
    exchange_with_body(stream, req, &[], buf, head, None).await
}

/// [`exchange`] for a request with a body (sent after `req`, which must
/// declare its length); the response body is appended to `keep` if given.
pub async fn exchange_with_body<S: AsyncRead + AsyncWrite + Unpin>(
    stream: &mut S,
    req: &[u8],
    body: &[u8],
    buf: &mut Vec<u8>,
    head: bool,
    mut keep: Option<&mut Vec<u8>>,
) -> Result<(Response, std::time::Instant), Failure> {
    stream.write_all(req).await.map_err(Failure::Receive)?;
    if !body.is_empty() {
        stream.write_all(body).await.map_err(Failure::Receive)?;
    }
    buf.clear();
    let mut first_byte = None;
    let mut chunked = false;
    // headers
    let (header_len, mut resp, content_length) = loop {
        if buf.capacity() - buf.len() < 4096 {
            buf.reserve(8192);
        }
        let n = stream.read_buf(buf).await.map_err(Failure::Receive)?;
        if first_byte.is_none() {
            first_byte = Some(std::time::Instant::now());
        }
        if n == 0 {
            return Err(Failure::Receive(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed before the response headers",
            )));
        }
        let mut headers = [httparse::EMPTY_HEADER; 64];
        let mut parsed = httparse::Response::new(&mut headers);
        match parsed.parse(buf) {
            Ok(httparse::Status::Complete(len)) => {
                let version = parsed.version.unwrap_or(0);
                let mut r = Response {
                    status: parsed.code.unwrap_or(0),
                    keepalive: version == 1,
                    ..Response::default()
                };
                let mut content_length = None;
                for h in parsed.headers.iter() {
                    if h.name.eq_ignore_ascii_case("content-length") {
                        content_length = std::str::from_utf8(h.value)
                            .ok()
                            .and_then(|v| v.trim().parse::<u64>().ok());
                    } else if h.name.eq_ignore_ascii_case("connection") {
                        let v = String::from_utf8_lossy(h.value).to_ascii_lowercase();
                        if v.contains("close") {
                            r.keepalive = false;
                        } else if v.contains("keep-alive") {
                            r.keepalive = true;
                        }
                    } else if h.name.eq_ignore_ascii_case("server") {
                        r.server = Some(String::from_utf8_lossy(h.value).into_owned());
                    } else if h.name.eq_ignore_ascii_case("transfer-encoding") {
                        chunked = String::from_utf8_lossy(h.value)
                            .to_ascii_lowercase()
                            .contains("chunked");
                    }
                }
                break (len, r, content_length);
            }
            Ok(httparse::Status::Partial) => {
                if buf.len() > 1 << 20 {
                    return Err(Failure::Exception("response headers over 1 MiB".into()));
                }
            }
            Err(e) => return Err(Failure::Exception(format!("bad response: {e}"))),
        }
    };
    if chunked && !head && resp.status != 204 && resp.status != 304 {
        let rest = buf[header_len..].to_vec();
        let body = read_chunked(stream, rest, buf, keep).await?;
        resp.body_len = body;
        resp.total_len = header_len as u64 + body;
        return Ok((resp, first_byte.unwrap_or_else(std::time::Instant::now)));
    }
    // body: by length, or to the end of the connection
    let mut body = (buf.len() - header_len) as u64;
    if let Some(k) = keep.as_deref_mut() {
        k.extend_from_slice(&buf[header_len..]);
    }
    let expect = if head || resp.status == 204 || resp.status == 304 {
        Some(0)
    } else {
        content_length
    };
    if expect.is_none() {
        resp.keepalive = false;
    }
    loop {
        if expect.is_some_and(|e| body >= e) {
            break;
        }
        buf.clear();
        if buf.capacity() < 65536 {
            buf.reserve(65536);
        }
        let n = stream.read_buf(buf).await.map_err(Failure::Receive)?;
        if n == 0 {
            if expect.is_some() {
                return Err(Failure::Receive(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "connection closed inside the body",
                )));
            }
            break;
        }
        body += n as u64;
        if let Some(k) = keep.as_deref_mut() {
            k.extend_from_slice(buf);
        }
    }
    resp.body_len = body;
    resp.total_len = header_len as u64 + body;
    Ok((resp, first_byte.unwrap_or_else(std::time::Instant::now)))
}

/// Reads a chunked body whose first bytes are `pending`; returns its
/// decoded length and appends it to `keep` if given.
async fn read_chunked<S: AsyncRead + Unpin>(
    stream: &mut S,
    mut pending: Vec<u8>,
    buf: &mut Vec<u8>,
    mut keep: Option<&mut Vec<u8>>,
) -> Result<u64, Failure> {
    let mut total = 0u64;
    let mut at = 0usize;
    // more bytes into `pending`; an early close is a receive failure
    async fn more<S: AsyncRead + Unpin>(
        stream: &mut S,
        pending: &mut Vec<u8>,
        buf: &mut Vec<u8>,
    ) -> Result<(), Failure> {
        buf.clear();
        buf.reserve(65536);
        let n = stream.read_buf(buf).await.map_err(Failure::Receive)?;
        if n == 0 {
            return Err(Failure::Receive(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "connection closed inside a chunked body",
            )));
        }
        pending.extend_from_slice(buf);
        Ok(())
    }
    loop {
        // the size line
        let line_end = loop {
            if let Some(i) = pending[at..].windows(2).position(|w| w == b"\r\n") {
                break at + i;
            }
            more(stream, &mut pending, buf).await?;
        };
        let line = std::str::from_utf8(&pending[at..line_end]).unwrap_or("");
        let size = u64::from_str_radix(line.split(';').next().unwrap_or("").trim(), 16)
            .map_err(|_| Failure::Exception(format!("bad chunk size line '{line}'")))?;
        at = line_end + 2;
        if size == 0 {
            // trailers up to an empty line
            loop {
                if let Some(i) = pending[at..].windows(2).position(|w| w == b"\r\n") {
                    if i == 0 {
                        return Ok(total);
                    }
                    at += i + 2;
                    continue;
                }
                more(stream, &mut pending, buf).await?;
            }
        }
        while pending.len() < at + size as usize + 2 {
            more(stream, &mut pending, buf).await?;
        }
        if let Some(k) = keep.as_deref_mut() {
            k.extend_from_slice(&pending[at..at + size as usize]);
        }
        total += size;
        at += size as usize + 2;
        // keep `pending` small
        if at > 1 << 20 {
            pending.drain(..at);
            at = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_urls() {
        let t = Target::parse("http://127.0.0.1:7480/b/k?x=1").expect("url");
        assert_eq!(
            (t.host.as_str(), t.port, t.path.as_str()),
            ("127.0.0.1", 7480, "/b/k?x=1")
        );
        assert_eq!(Target::parse("http://h").expect("url").path, "/");
        assert_eq!(Target::parse("http://h/").expect("url").port, 80);
        let t = Target::parse("https://h/").expect("url");
        assert!(t.tls && t.port == 443 && t.host_header() == "h");
        assert!(Target::parse("ftp://h/").is_err());
        assert!(Target::parse("http://h:x/").is_err());
    }

    #[test]
    fn builds_ab_requests() {
        let t = Target::parse("http://h:81/p").expect("url");
        let r = String::from_utf8(request(&t, "GET", true, &["X-A: 1".into()])).expect("utf8");
        assert!(r.starts_with("GET /p HTTP/1.0\r\nHost: h:81\r\nConnection: Keep-Alive\r\n"));
        assert!(r.ends_with("X-A: 1\r\n\r\n"));
        let r =
            String::from_utf8(request(&t, "GET", false, &["Host: other".into()])).expect("utf8");
        assert!(!r.contains("Host: h:81") && r.contains("Host: other"));
    }
}
