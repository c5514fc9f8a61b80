//! `rsgw decode`: reads a record radosgw wrote in RADOS, saved with `rados
//! get` (or piped), and prints `radosgw-admin`'s JSON for it. What
//! `ceph-dencoder` does for Ceph's own types, for the records rsgw's
//! radosgw layout reads (crates/rsgw-radosgw); the tests compare its output
//! with radosgw-admin's for the same records.

use std::io::Read;
use std::path::PathBuf;

use clap::{Args, ValueEnum};

/// What a saved object holds.
#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Record {
    /// A user: `<zone>.rgw.meta`, namespace `users.uid`, object
    /// `[tenant$]uid`. Prints `radosgw-admin user info`'s JSON.
    User,
    /// A link to a user: namespaces `users.keys` (an access key),
    /// `users.email` and `users.swift`. Prints `{"user_id": ...}`.
    Link,
}

/// `rsgw decode` arguments.
#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// The record's kind.
    #[arg(value_enum)]
    pub record: Record,
    /// The object's data (`rados -p default.rgw.meta -N users.uid get alice
    /// FILE`); `-` or nothing reads standard input.
    pub file: Option<PathBuf>,
}

/// Runs `rsgw decode`.
pub fn run(args: &DecodeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let mut bytes = Vec::new();
    match &args.file {
        Some(path) if path.as_os_str() != "-" => {
            bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        _ => {
            std::io::stdin().read_to_end(&mut bytes)?;
        }
    }
    let json = match args.record {
        Record::User => rsgw_radosgw::user::decode_user_record(&bytes)?
            .info
            .to_json(),
        Record::Link => {
            serde_json::json!({ "user_id": rsgw_radosgw::user::decode_link(&bytes)? })
        }
    };
    println!("{}", serde_json::to_string_pretty(&json)?);
    Ok(())
}
