//! Native TLS, as Beast's `ssl_endpoint`: rustls with the ring provider
//! (docs/decisions/0005-tls-provider.md), TLS 1.2 and 1.3, ALPN `http/1.1`,
//! session resumption by tickets and by session ids, and a certificate that
//! can be replaced without a restart: [`Tls::reload`] (on SIGHUP) builds a new
//! configuration for the connections that come next, while established ones
//! keep theirs. A reload that fails keeps the current certificate.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};
use std::time::SystemTime;

use rsgw_time::Civil;
use rustls::ServerConfig;
use rustls::server::{ProducesTickets, ServerSessionMemoryCache, StoresServerSessions};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, PrivateKeyDer};
use tokio_rustls::TlsAcceptor;

/// Sessions remembered for resumption by session id (TLS 1.2 clients
/// without tickets), per instance.
const SESSION_CACHE: usize = 4096;

/// Why a certificate could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    /// A PEM file could not be read or parsed.
    #[error("{path}: {message}")]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// rustls refused the certificate and key (a key that does not match,
    /// say) or the configuration.
    #[error("TLS configuration: {0}")]
    Rustls(#[from] rustls::Error),
}

/// The TLS side of the HTTPS listeners: the current configuration and what
/// survives reloads (ticket keys, the session cache).
pub struct Tls {
    certificate: PathBuf,
    private_key: PathBuf,
    ticketer: Arc<dyn ProducesTickets>,
    sessions: Arc<dyn StoresServerSessions>,
    current: RwLock<Arc<ServerConfig>>,
}

impl Tls {
    /// Loads the certificate chain and key; `private_key` empty means the
    /// key is in the certificate file.
    pub fn load(certificate: &Path, private_key: &Path) -> Result<Tls, TlsError> {
        let private_key = if private_key.as_os_str().is_empty() {
            certificate
        } else {
            private_key
        };
        let ticketer = rustls::crypto::ring::Ticketer::new()?;
        let sessions: Arc<dyn StoresServerSessions> = ServerSessionMemoryCache::new(SESSION_CACHE);
        let config = build(certificate, private_key, &ticketer, &sessions)?;
        Ok(Tls {
            certificate: certificate.to_path_buf(),
            private_key: private_key.to_path_buf(),
            ticketer,
            sessions,
            current: RwLock::new(Arc::new(config)),
        })
    }

    /// Reads the files again; on success, connections accepted from now on
    /// use the new certificate. On failure nothing changes.
    pub fn reload(&self) -> Result<(), TlsError> {
        let config = build(
            &self.certificate,
            &self.private_key,
            &self.ticketer,
            &self.sessions,
        )?;
        *self.current.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(config);
        Ok(())
    }

    /// An acceptor with the current configuration.
    pub fn acceptor(&self) -> TlsAcceptor {
        TlsAcceptor::from(
            self.current
                .read()
                .unwrap_or_else(PoisonError::into_inner)
                .clone(),
        )
    }
}

/// One DER element at the start of `b`: (tag, contents, what follows).
fn der(b: &[u8]) -> Option<(u8, &[u8], &[u8])> {
    let (&tag, b) = b.split_first()?;
    let (&first, b) = b.split_first()?;
    let (len, b) = if first < 0x80 {
        (usize::from(first), b)
    } else {
        let n = usize::from(first & 0x7f);
        if n == 0 || n > 4 || b.len() < n {
            return None;
        }
        let (len, rest) = b.split_at(n);
        (
            len.iter().fold(0usize, |a, &x| a << 8 | usize::from(x)),
            rest,
        )
    };
    (b.len() >= len).then(|| (tag, &b[..len], &b[len..]))
}

/// The end of a certificate's validity (X.509 `notAfter`), in seconds
/// since the Unix epoch.
fn not_after(cert: &[u8]) -> Option<i64> {
    let (_, cert, _) = der(cert)?;
    let (_, tbs, _) = der(cert)?;
    // [0] version, when present; serial number, signature algorithm, issuer
    let (tag, _, rest) = der(tbs)?;
    let tbs = if tag == 0xa0 { rest } else { tbs };
    let (_, _, tbs) = der(tbs)?;
    let (_, _, tbs) = der(tbs)?;
    let (_, _, tbs) = der(tbs)?;
    let (_, validity, _) = der(tbs)?;
    let (_, _, validity) = der(validity)?;
    let (tag, time, _) = der(validity)?;
    let time = std::str::from_utf8(time).ok()?.strip_suffix('Z')?;
    let digits = |s: &str| -> Option<i64> {
        s.bytes()
            .all(|c| c.is_ascii_digit())
            .then(|| s.parse().ok())?
    };
    // UTCTime YYMMDDHHMMSS (years 1950 to 2049), GeneralizedTime YYYYMMDDHHMMSS
    let (year, rest) = match (tag, time.len()) {
        (0x17, 12) => {
            let yy = digits(&time[..2])?;
            (if yy < 50 { 2000 + yy } else { 1900 + yy }, &time[2..])
        }
        (0x18, 14) => (digits(&time[..4])?, &time[4..]),
        _ => return None,
    };
    let field = |i: usize| digits(rest.get(i..i + 2)?);
    let (month, day) = (field(0)?, field(2)?);
    let (hour, minute, second) = (field(4)?, field(6)?, field(8)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) {
        return None;
    }
    let end = Civil {
        year,
        month,
        day,
        hour,
        minute,
        second,
    };
    Some(end.to_unix())
}

fn file_error(path: &Path, message: impl Into<String>) -> TlsError {
    TlsError::File {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

fn build(
    certificate: &Path,
    private_key: &Path,
    ticketer: &Arc<dyn ProducesTickets>,
    sessions: &Arc<dyn StoresServerSessions>,
) -> Result<ServerConfig, TlsError> {
    let chain = CertificateDer::pem_file_iter(certificate)
        .map_err(|e| file_error(certificate, e.to_string()))?
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| file_error(certificate, e.to_string()))?;
    let Some(leaf) = chain.first() else {
        return Err(file_error(certificate, "holds no PEM certificate"));
    };
    // rustls serves an expired certificate, which every client refuses:
    // better keep the one in use (reload) or not start
    match not_after(leaf) {
        Some(end) if end < rsgw_time::unix_secs(SystemTime::now()) => {
            return Err(file_error(
                certificate,
                format!(
                    "the certificate expired at {} (Unix time {end})",
                    rsgw_time::iso_date(end)
                ),
            ));
        }
        Some(_) => {}
        None => return Err(file_error(certificate, "no readable X.509 validity")),
    }
    let key = PrivateKeyDer::from_pem_file(private_key).map_err(|e| {
        file_error(
            private_key,
            format!("no usable PEM private key (PKCS#8, PKCS#1 or SEC1): {e}"),
        )
    })?;
    let mut provider = rustls::crypto::ring::default_provider();
    // the suites with SHA-256 first, whatever the client's order (OpenSSL
    // clients put AES-256 with SHA-384 first): as safe for S3's traffic,
    // and a handshake's key schedule costs less with SHA-256, which CPUs
    // have instructions for (docs/decisions/0005-tls-provider.md)
    provider
        .cipher_suites
        .sort_by_key(|s| s.suite().as_str().is_some_and(|n| n.ends_with("SHA384")));
    let mut config = ServerConfig::builder_with_provider(Arc::new(provider))
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config.ignore_client_order = true;
    // one TLS 1.3 ticket per handshake (rustls sends two): a client resumes
    // with it and gets a fresh one each time
    config.send_tls13_tickets = 1;
    config.ticketer = ticketer.clone();
    config.session_storage = sessions.clone();
    Ok(config)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Self-signed by `openssl ca -startdate 20200101000000Z -enddate
    /// 20200102000000Z` (UTCTime).
    const EXPIRED: &str = "-----BEGIN CERTIFICATE-----\n\
MIIBPTCB46ADAgECAgEBMAoGCCqGSM49BAMCMA4xDDAKBgNVBAMMA29sZDAeFw0y\n\
MDAxMDEwMDAwMDBaFw0yMDAxMDIwMDAwMDBaMA4xDDAKBgNVBAMMA29sZDBZMBMG\n\
ByqGSM49AgEGCCqGSM49AwEHA0IABEtzwQqqht/juwPN2RDDPtz/RBKi7puN+FGa\n\
+G47XdLpbgncuLWzf2Vdl7/hFb6v51cMq3cvz3BHgn3Yf46LCLCjMjAwMA8GA1Ud\n\
EQQIMAaHBH8AAAEwHQYDVR0OBBYEFNc7LUKfVwSD+fLRTW0wrU3gNZlxMAoGCCqG\n\
SM49BAMCA0kAMEYCIQCuejCGgyY8zP/oJmJo2zPbArJwbIpXsVOOUfleXm38JgIh\n\
AIMrRWyCSjoJIjBil+62aa2XLVxiCsh+kIRSikhNYEZz\n\
-----END CERTIFICATE-----\n";

    /// The same, to 2051-02-03 04:05:06 (GeneralizedTime from 2050 on).
    const LATE: &str = "-----BEGIN CERTIFICATE-----\n\
MIIBBzCBrgIBAjAKBggqhkjOPQQDAjAPMQ0wCwYDVQQDDARsYXRlMCAXDTIwMDEw\n\
MTAwMDAwMFoYDzIwNTEwMjAzMDQwNTA2WjAPMQ0wCwYDVQQDDARsYXRlMFkwEwYH\n\
KoZIzj0CAQYIKoZIzj0DAQcDQgAEcoOn1KpVnA0qHjzPqT9sYZsBLsIGsI62kp2O\n\
nkN0/HrV0x/cWeI6Jr2cCX2LHbV5s40zB8s6Sf/YTFlhMuCvUzAKBggqhkjOPQQD\n\
AgNIADBFAiAQfkh3XeTIXu0uySLmYT3UOn0s0y09/S16TflLZYwDaAIhAOQzoBZL\n\
jden+pRYSzuWYgqPWv8ajzjgKz1J5woYGiJT\n\
-----END CERTIFICATE-----\n";

    fn der_of(pem: &str) -> CertificateDer<'static> {
        CertificateDer::from_pem_slice(pem.as_bytes()).expect("PEM")
    }

    #[test]
    fn validity_ends_are_read_from_the_certificate() {
        assert_eq!(not_after(&der_of(EXPIRED)), Some(1_577_923_200));
        let late = not_after(&der_of(LATE)).expect("GeneralizedTime");
        assert_eq!(late, 2_559_009_906, "2051-02-03T04:05:06Z");
        for bad in [
            &b""[..],
            b"\x30",
            b"\x30\x03\x30\x01\x00",
            b"\x30\x84\xff\xff\xff\xff",
        ] {
            assert_eq!(not_after(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn an_expired_certificate_is_refused() {
        let dir = std::env::temp_dir().join(format!("rsgw-tls-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let cert = dir.join("expired.pem");
        std::fs::write(&cert, EXPIRED).expect("write");
        let e = Tls::load(&cert, &cert).err().expect("refused");
        assert!(e.to_string().contains("expired at 2020-01-02"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
