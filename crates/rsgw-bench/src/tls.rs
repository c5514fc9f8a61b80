//! The load generator's TLS client (rustls with ring, as the server side):
//! what `https://` targets connect with. By default it behaves like ab: a
//! new session for every connection (no resumption) and no check of the
//! certificate chain, while still verifying the handshake's signature, so
//! a client pays the cryptography a real one pays. `--cacert` checks the
//! chain and the name too; `--tls-resume` resumes sessions with tickets, as browsers do.

use std::path::PathBuf;
use std::sync::Arc;

use clap::Args;
use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::{ClientConfig, Resumption, WebPkiServerVerifier, verify_server_name};
use rustls::crypto::WebPkiSupportedAlgorithms;
use rustls::server::ParsedCertificate;
use rustls::{DigitallySignedStruct, RootCertStore, SignatureScheme};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};

/// TLS flags of the loads that speak to `https://` URLs.
#[derive(Args, Debug, Clone, Default)]
pub struct TlsArgs {
    /// Verify the server's certificate chain against the CA certificates in
    /// this PEM file (default: like ab, the chain is not checked; the
    /// handshake's signature always is).
    #[arg(long, value_name = "PEM")]
    pub cacert: Option<PathBuf>,
    /// Resume TLS sessions (tickets or session ids) on new connections, as
    /// browsers do (default: like ab, a full handshake for every
    /// connection).
    #[arg(long)]
    pub tls_resume: bool,
}

/// The client configuration for these flags.
pub fn client_config(args: &TlsArgs) -> Result<Arc<ClientConfig>, String> {
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let chain = match &args.cacert {
        Some(path) => {
            let certs = CertificateDer::pem_file_iter(path)
                .and_then(Iterator::collect::<Result<Vec<_>, _>>)
                .map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            if certs.is_empty() {
                return Err(format!("--cacert {}: no certificate in it", path.display()));
            }
            let mut roots = RootCertStore::empty();
            for cert in &certs {
                roots
                    .add(cert.clone())
                    .map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            }
            let webpki =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                    .build()
                    .map_err(|e| format!("--cacert {}: {e}", path.display()))?;
            Some((webpki, certs))
        }
        None => None,
    };
    let verifier = Verifier {
        chain,
        algorithms: provider.signature_verification_algorithms,
    };
    let mut config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS client: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(Arc::new(verifier))
        .with_no_client_auth();
    if !args.tls_resume {
        config.resumption = Resumption::disabled();
    }
    Ok(Arc::new(config))
}

/// The server name a handshake with `host` sends (an IP address is sent as
/// none, and checked against the certificate's IP SANs).
pub fn server_name(host: &str) -> Result<ServerName<'static>, String> {
    ServerName::try_from(
        host.trim_start_matches('[')
            .trim_end_matches(']')
            .to_string(),
    )
    .map_err(|e| format!("'{host}' is no TLS server name: {e}"))
}

/// What a connection negotiated, as ab prints it: `TLSv1.3,TLS_AES_128_GCM_SHA256`.
pub fn describe(conn: &rustls::ClientConnection) -> Option<String> {
    let version = match conn.protocol_version()? {
        rustls::ProtocolVersion::TLSv1_3 => "TLSv1.3".to_string(),
        rustls::ProtocolVersion::TLSv1_2 => "TLSv1.2".to_string(),
        v => format!("{v:?}"),
    };
    let suite = format!("{:?}", conn.negotiated_cipher_suite()?.suite());
    let suite = suite
        .strip_prefix("TLS13_")
        .map_or(suite.clone(), |s| format!("TLS_{s}"));
    let group = conn
        .negotiated_key_exchange_group()
        .map(|g| format!(",{:?}", g.name()))
        .unwrap_or_default();
    Some(format!("{version},{suite}{group}"))
}

/// Checks the server's certificate as the flags ask, and always the
/// handshake's signature with its key, so the client does a real client's
/// work.
#[derive(Debug)]
struct Verifier {
    /// With `--cacert`: the chain's check, and the file's certificates. A
    /// server certificate found in the file as is (a self-signed one, as
    /// `openssl req -x509` makes, which webpki refuses as a CA used as an
    /// end entity) is trusted, its name still checked, as curl does.
    chain: Option<(Arc<WebPkiServerVerifier>, Vec<CertificateDer<'static>>)>,
    algorithms: WebPkiSupportedAlgorithms,
}

impl ServerCertVerifier for Verifier {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match &self.chain {
            None => Ok(ServerCertVerified::assertion()),
            Some((_, listed)) if listed.iter().any(|c| c == end_entity) => {
                verify_server_name(&ParsedCertificate::try_from(end_entity)?, server_name)?;
                Ok(ServerCertVerified::assertion())
            }
            Some((webpki, _)) => webpki.verify_server_cert(
                end_entity,
                intermediates,
                server_name,
                ocsp_response,
                now,
            ),
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(message, cert, dss, &self.algorithms)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(message, cert, dss, &self.algorithms)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.algorithms.supported_schemes()
    }
}
