//! `rsgw admin radosgw`: reads the users, buckets and objects a radosgw
//! zone holds, through rsgw's own store and radosgw's records
//! (`rsgw_radosgw::zone`), as rsgw's radosgw layout will serve them.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::{Args, Subcommand};
use rsgw_config::{Backend, Config};
use rsgw_radosgw::dump::utime;
use rsgw_radosgw::notify::decode_cache_notice;
use rsgw_radosgw::zone::{Zone, ZoneBucket};
use rsgw_store::{StoreError, Watcher};
use serde_json::{Value, json};

/// `rsgw admin radosgw` arguments.
#[derive(Args)]
pub struct RadosgwArgs {
    /// The zone to read: its pools and placement targets come from its
    /// parameters in `.rgw.root`, as radosgw finds them.
    #[arg(long, default_value = "default")]
    zone: String,
    #[command(subcommand)]
    command: RadosgwCommand,
}

/// What to read.
#[derive(Subcommand)]
enum RadosgwCommand {
    /// The zone's parameters, as `radosgw-admin zone get` prints them.
    Zone,
    /// Print radosgw's cache notifications as they come, one JSON line
    /// each: every control object of the zone watched (`notify.<n>`),
    /// each notification decoded to the metadata record it names (pool,
    /// object, update or invalidate, version).
    Watch {
        /// Stop after this many seconds.
        #[arg(long, default_value_t = 60)]
        seconds: u64,
    },
    /// The user owning an S3 access key, as `radosgw-admin user info
    /// --access-key` prints it.
    Key {
        /// The access key id.
        access_key: String,
    },
    /// The buckets a user owns (`[tenant$]uid`), as ListBuckets lists
    /// them: name, creation time, and the objects and bytes last synced.
    Buckets {
        /// The user's id.
        uid: String,
    },
    /// A bucket's instance (as `radosgw-admin metadata get
    /// bucket.instance:...` prints its `bucket_info`), ACL, policy and
    /// CORS rules.
    Bucket {
        /// The bucket (`tenant/bucket` for a tenant's).
        bucket: String,
    },
    /// A bucket's objects in key order (`[tenant/]bucket`), as JSON: key,
    /// size, ETag, modification time, owner and content type from the
    /// bucket index.
    Ls {
        /// The bucket (`tenant/bucket` for a tenant's).
        bucket: String,
        /// Only keys beginning with this.
        #[arg(long, default_value = "")]
        prefix: String,
        /// Only keys after this one.
        #[arg(long, default_value = "")]
        after: String,
        /// At most this many.
        #[arg(long, default_value_t = 1000)]
        max: usize,
    },
    /// An object's head: size, ETag, content type, `x-amz-meta-*`, ACL
    /// and the pieces of RADOS objects holding its bytes.
    Stat {
        /// The bucket.
        bucket: String,
        /// The object's key.
        key: String,
    },
    /// An object's bytes, read through its manifest.
    Get {
        /// The bucket.
        bucket: String,
        /// The object's key.
        key: String,
        /// Bytes FIRST-LAST (inclusive, as an HTTP Range) instead of all.
        #[arg(long, value_name = "FIRST-LAST")]
        range: Option<String>,
        /// Write to this file instead of standard output.
        #[arg(long, short)]
        output: Option<PathBuf>,
    },
}

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

/// Runs `rsgw admin radosgw`.
pub fn run(cfg: &Config, args: RadosgwArgs) -> Result<()> {
    if cfg.store.backend != Backend::Rados {
        return Err(
            "radosgw's zone is in RADOS: configure [store] backend = \"rados\" (and ceph_conf)"
                .into(),
        );
    }
    let mut cfg = cfg.clone();
    // the zone names its pools whole
    cfg.store.pool_prefix = String::new();
    let store = crate::store::open(&cfg)?;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    rt.block_on(async {
        let zone = Zone::open(store, &args.zone).await?;
        match args.command {
            RadosgwCommand::Zone => print_json(&zone.params().to_json()),
            RadosgwCommand::Watch { seconds } => watch(&zone, seconds),
            RadosgwCommand::Key { access_key } => {
                let (user, _) = zone.user_by_key(&access_key).await?;
                print_json(&user.info.to_json())
            }
            RadosgwCommand::Buckets { uid } => {
                let buckets: Vec<Value> = zone
                    .user_buckets(&uid)
                    .await?
                    .iter()
                    .map(|b| {
                        json!({
                            "name": b.name,
                            "creation_time": utime(b.creation_time),
                            "count": b.count,
                            "size": b.size,
                        })
                    })
                    .collect();
                print_json(&json!(buckets))
            }
            RadosgwCommand::Bucket { bucket } => {
                let b = zone.bucket(&bucket).await?;
                let policy = match &b.policy {
                    Some(text) => serde_json::from_str(text)
                        .map_err(|e| format!("bucket {bucket}'s policy is not JSON: {e}"))?,
                    None => Value::Null,
                };
                print_json(&json!({
                    "bucket_info": b.info.to_json(),
                    "acl": b.acl.to_json(),
                    "policy": policy,
                    "cors": b.cors.iter().map(rsgw_radosgw::cors::CorsRule::to_json).collect::<Vec<_>>(),
                }))
            }
            RadosgwCommand::Ls {
                bucket,
                prefix,
                after,
                max,
            } => {
                let bucket = zone.bucket(&bucket).await?;
                let listing = zone.list(&bucket, &prefix, &after, max).await?;
                let entries: Vec<Value> = listing
                    .entries
                    .iter()
                    .map(|o| {
                        let m = &o.entry.meta;
                        json!({
                            "key": o.key,
                            "size": m.accounted_size,
                            "etag": m.etag,
                            "mtime": utime(m.mtime),
                            "owner": m.owner,
                            "content_type": m.content_type,
                        })
                    })
                    .collect();
                print_json(&json!({ "objects": entries, "truncated": listing.truncated }))
            }
            RadosgwCommand::Stat { bucket, key } => {
                let bucket = zone.bucket(&bucket).await?;
                let head = zone.head(&bucket, &key).await?;
                let pieces = head
                    .manifest
                    .stripes()
                    .map(|s| s.map(|s| json!([s.ofs, s.size, s.oid, s.locator, s.loc_ofs])))
                    .collect::<std::result::Result<Vec<_>, _>>()?;
                print_json(&json!({
                    "size": head.size(),
                    "etag": head.etag,
                    "content_type": head.content_type,
                    "meta": head.meta,
                    "acl": head.acl.to_json(),
                    "mtime": utime(head.mtime),
                    "version": head.version,
                    "pieces": pieces,
                }))
            }
            RadosgwCommand::Get {
                bucket,
                key,
                range,
                output,
            } => get(&zone, &zone.bucket(&bucket).await?, &key, range, output).await,
        }
    })
}

/// Hands each notification's payload to the printing thread.
struct Forward(std::sync::Mutex<std::sync::mpsc::Sender<Vec<u8>>>);

impl Watcher for Forward {
    fn notified(&self, payload: &[u8]) {
        let tx = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        // the receiver is gone only once the command is over
        let _ = tx.send(payload.to_vec());
    }

    fn failed(&self, error: &StoreError) {
        eprintln!("rsgw: a watch of the control objects broke: {error}");
    }
}

fn watch(zone: &Zone, seconds: u64) -> Result<()> {
    let (tx, rx) = std::sync::mpsc::channel();
    let _handles = zone.watch_control(Arc::new(Forward(std::sync::Mutex::new(tx))))?;
    eprintln!(
        "watching zone {}'s control objects for {seconds} s",
        zone.params().name
    );
    let end = Instant::now() + Duration::from_secs(seconds);
    let mut out = std::io::stdout().lock();
    while let Some(left) = end.checked_duration_since(Instant::now()) {
        let Ok(payload) = rx.recv_timeout(left) else {
            continue;
        };
        let line = match decode_cache_notice(&payload) {
            Ok(notice) => notice.to_json(),
            Err(e) => json!({ "error": e.to_string(), "bytes": payload.len() }),
        };
        serde_json::to_writer(&mut out, &line)?;
        writeln!(out)?;
        out.flush()?;
    }
    Ok(())
}

async fn get(
    zone: &Zone,
    bucket: &ZoneBucket,
    key: &str,
    range: Option<String>,
    output: Option<PathBuf>,
) -> Result<()> {
    let head = zone.head(bucket, key).await?;
    let (first, len) = match range {
        None => (0, head.size()),
        Some(r) => {
            let (a, b) = r
                .split_once('-')
                .ok_or("--range takes FIRST-LAST, e.g. 0-99")?;
            let (a, b): (u64, u64) = (a.parse()?, b.parse()?);
            if b < a {
                return Err("--range: LAST is before FIRST".into());
            }
            (a, b - a + 1)
        }
    };
    let bytes = zone.read(bucket, &head, first, len).await?;
    match output {
        Some(path) => {
            std::fs::write(&path, &bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        }
        None => std::io::stdout().lock().write_all(&bytes)?,
    }
    Ok(())
}

/// Prints `value`; a closed standard output (`| head`) is an error, not a
/// panic as `println!` makes it.
fn print_json(value: &Value) -> Result<()> {
    let mut out = std::io::stdout().lock();
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    Ok(())
}
