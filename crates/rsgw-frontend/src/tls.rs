//! Native TLS, as Beast's `ssl_endpoint`: rustls with the ring provider
//! (docs/decisions/0005-tls-provider.md), TLS 1.2 and 1.3, ALPN `http/1.1`,
//! session resumption by tickets and by session ids, and a certificate that
//! can be replaced without a restart: [`Tls::reload`] (on SIGHUP) builds a new
//! configuration for the connections that come next, while established ones
//! keep theirs. A reload that fails keeps the current certificate.

use std::path::{Path, PathBuf};
use std::sync::{Arc, PoisonError, RwLock};

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
    if chain.is_empty() {
        return Err(file_error(certificate, "holds no PEM certificate"));
    }
    let key = PrivateKeyDer::from_pem_file(private_key).map_err(|e| {
        file_error(
            private_key,
            format!("no usable PEM private key (PKCS#8, PKCS#1 or SEC1): {e}"),
        )
    })?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_protocol_versions(&[&rustls::version::TLS13, &rustls::version::TLS12])?
        .with_no_client_auth()
        .with_single_cert(chain, key)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    config.ticketer = ticketer.clone();
    config.session_storage = sessions.clone();
    Ok(config)
}
