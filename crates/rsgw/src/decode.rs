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
    /// A bucket's entry point: namespace `root`, object `[tenant/]bucket`.
    /// Prints the `data` of `radosgw-admin metadata get bucket:B`.
    Bucket,
    /// A bucket instance: namespace `root`, object
    /// `.bucket.meta.[tenant:]bucket:ID`. Prints the `bucket_info` of
    /// `radosgw-admin metadata get bucket.instance:B:ID`.
    BucketInstance,
    /// A bucket index entry: an omap value of a `.dir.` object in
    /// `<zone>.rgw.buckets.index` (`rados getomapval`). Prints the `entry`
    /// of `radosgw-admin bi list`.
    IndexEntry,
    /// A bucket index shard's header (`rados getomapheader`): its counters.
    IndexHeader,
    /// An object head's `user.rgw.manifest` xattr (`rados getxattr`).
    /// Prints the manifest and every piece of the object: offset, size,
    /// the RADOS object holding it and where in that object.
    Manifest,
    /// A `user.rgw.acl` xattr of an object head or a bucket instance.
    /// Prints the owner and grants as S3 names them.
    Acl,
    /// A bucket instance's `user.rgw.cors` xattr. Prints the rules as S3's
    /// GetBucketCors names them.
    Cors,
    /// Every shard header of one bucket, one file each in shard order.
    /// Prints what `radosgw-admin bucket stats` reports from them: `ver`,
    /// `master_ver`, `max_marker` and `usage`.
    BucketStats,
}

/// `rsgw decode` arguments.
#[derive(Args, Debug)]
pub struct DecodeArgs {
    /// The record's kind.
    #[arg(value_enum)]
    pub record: Record,
    /// The object's data (`rados -p default.rgw.meta -N users.uid get alice
    /// FILE`); `-` or nothing reads standard input. `bucket-stats` takes
    /// one file per shard.
    pub files: Vec<PathBuf>,
}

fn read(path: Option<&PathBuf>) -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    let mut bytes = Vec::new();
    match path {
        Some(path) if path.as_os_str() != "-" => {
            bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        _ => {
            std::io::stdin().read_to_end(&mut bytes)?;
        }
    }
    Ok(bytes)
}

/// Runs `rsgw decode`.
pub fn run(args: &DecodeArgs) -> Result<(), Box<dyn std::error::Error>> {
    let one = || -> Result<Vec<u8>, Box<dyn std::error::Error>> {
        if args.files.len() > 1 {
            return Err(format!("this record takes one file, not {}", args.files.len()).into());
        }
        read(args.files.first())
    };
    let json = match args.record {
        Record::User => rsgw_radosgw::user::decode_user_record(&one()?)?
            .info
            .to_json(),
        Record::Link => {
            serde_json::json!({ "user_id": rsgw_radosgw::user::decode_link(&one()?)? })
        }
        Record::Bucket => rsgw_radosgw::bucket::decode_entry_point(&one()?)?.to_json(),
        Record::BucketInstance => rsgw_radosgw::bucket::decode_bucket_instance(&one()?)?.to_json(),
        Record::IndexEntry => rsgw_radosgw::index::decode_dir_entry(&one()?)?.to_json(),
        Record::IndexHeader => rsgw_radosgw::index::decode_dir_header(&one()?)?.to_json(),
        Record::Manifest => rsgw_radosgw::manifest::decode_manifest(&one()?)?.to_json()?,
        Record::Acl => rsgw_radosgw::acl::decode_policy(&one()?)?.to_json(),
        Record::Cors => serde_json::Value::Array(
            rsgw_radosgw::cors::decode_cors(&one()?)?
                .iter()
                .map(rsgw_radosgw::cors::CorsRule::to_json)
                .collect(),
        ),
        Record::BucketStats => bucket_stats(&args.files)?,
    };
    println!("{}", serde_json::to_string_pretty(&json)?);
    Ok(())
}

/// `bucket-stats`: every shard header, in shard order.
fn bucket_stats(files: &[PathBuf]) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
    if files.is_empty() {
        return Err("bucket-stats takes the bucket's shard headers, one file each".into());
    }
    let headers = files
        .iter()
        .map(|f| {
            let bytes = read(Some(f))?;
            rsgw_radosgw::index::decode_dir_header(&bytes)
                .map_err(|e| format!("{}: {e}", f.display()).into())
        })
        .collect::<Result<Vec<_>, Box<dyn std::error::Error>>>()?;
    Ok(rsgw_radosgw::index::stats_json(&headers))
}
