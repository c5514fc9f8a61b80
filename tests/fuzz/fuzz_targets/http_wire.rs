//! Raw bytes on a connection: hyper's HTTP/1.1 parser (configured as rsgw's
//! listener configures it) in front of the frontend's layers and the S3
//! service. Whatever arrives, the connection ends within 10 s and answers,
//! if at all, with a well-formed status line that is no server fault.
#![no_main]
use libfuzzer_sys::fuzz_target;
use rsgw_fuzz::harness;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

fuzz_target!(|data: &[u8]| {
    let h = harness();
    h.block_on(async {
        let (client, server) = tokio::io::duplex(256 << 10);
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder.max_buf_size(rsgw_frontend::listener::read_buffer_limit(16 << 10));
        let conn =
            builder.serve_connection(hyper_util::rt::TokioIo::new(server), h.frontend().clone());
        let served = tokio::spawn(conn);
        let (mut rd, mut wr) = tokio::io::split(client);
        let mut out = Vec::new();
        let io = async {
            let _ = wr.write_all(data).await;
            let _ = wr.shutdown().await;
            let _ = rd.read_to_end(&mut out).await;
        };
        tokio::time::timeout(std::time::Duration::from_secs(10), io)
            .await
            .expect("the connection hung for 10 s");
        let _ = served.await;
        if out.is_empty() {
            return;
        }
        // hyper answers an HTTP/1.0 request in kind
        assert!(
            out.starts_with(b"HTTP/1.1 ") || out.starts_with(b"HTTP/1.0 "),
            "not a status line: {:?}",
            &out[..out.len().min(64)]
        );
        let code = &out[9..12];
        assert!(
            code[0] != b'5' || code == b"501" || code == b"503",
            "server error: {}",
            String::from_utf8_lossy(&out[..out.len().min(600)])
        );
    });
});
