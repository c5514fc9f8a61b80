//! Numbers with a meaning, named once: S3's limits on what a client may
//! send (the rules module checks them), the pages the gateway reads the
//! store in, and how often a guarded write is tried again.

/// Longest object key, in bytes (S3's limit).
pub(crate) const MAX_KEY_BYTES: usize = 1024;

/// S3's limit on part numbers.
pub const MAX_PART_NUMBER: u32 = 10_000;

/// The most keys and common prefixes of one listing page (S3's cap on
/// `max-keys`); also the page of the lifecycle worker's walks.
pub(crate) const MAX_KEYS: usize = 1000;

/// AWS's limit on a bucket policy document, in bytes.
pub const MAX_POLICY_BYTES: usize = 20 * 1024;

/// S3's limit on rules in one CORS configuration.
pub const MAX_CORS_RULES: usize = 100;

/// Rules a lifecycle configuration may hold (S3's limit).
pub const MAX_LIFECYCLE_RULES: usize = 1000;
/// Longest lifecycle rule id (S3's limit).
pub const MAX_RULE_ID: usize = 255;
/// The most noncurrent versions a lifecycle rule may keep
/// (`NewerNoncurrentVersions`, as AWS takes it).
pub const MAX_NEWER_NONCURRENT: u32 = 100;

/// AWS's limit on routing rules in one website configuration.
pub const MAX_ROUTING_RULES: usize = 50;

/// S3's limit on an object's tags.
pub const MAX_OBJECT_TAGS: usize = 10;
/// S3's limit on a bucket's tags.
pub const MAX_BUCKET_TAGS: usize = 50;
/// Longest tag key, in Unicode characters.
pub const MAX_TAG_KEY: usize = 128;
/// Longest tag value, in Unicode characters.
pub const MAX_TAG_VALUE: usize = 256;

/// Grants one ACL may hold (radosgw's `rgw_acl_grants_max_num`).
pub const MAX_ACL_GRANTS: usize = 100;

/// Longest e-mail address of a user, in bytes.
pub(crate) const MAX_EMAIL_BYTES: usize = 254;

/// Longest user id, in bytes.
pub(crate) const MAX_UID_BYTES: usize = 255;
/// Longest access or secret key an admin may give, in characters.
pub(crate) const MAX_KEY_PAIR_CHARS: usize = 128;
/// Characters of a generated access key (as radosgw's).
pub(crate) const ACCESS_KEY_CHARS: usize = 20;
/// Characters of a generated secret key (as radosgw's).
pub(crate) const SECRET_KEY_CHARS: usize = 40;

/// Entries asked of each read of a walk over a whole omap (a user's
/// buckets, an upload's parts, the GC log, a shard counted): one S3 page,
/// under the 1024 entries RADOS returns at most
/// ([`rsgw_store::OMAP_MAX_PAGE`]).
pub(crate) const OMAP_PAGE: u64 = 1000;

/// Objects asked of each page of a listing of a pool's namespace (every
/// bucket's record).
pub(crate) const POOL_LIST_PAGE: usize = 1000;

/// How much of a record the first read asks for: records are read whole
/// (`Engine::read_whole`), in a second read when longer, so this is only
/// the size most records fit in (a backend's first step, as
/// `rsgw-store-rados`'s split reads').
pub(crate) const RECORD_FIRST_READ: u64 = 64 * 1024;

/// Index shard objects created, removed or read at once.
pub(crate) const SHARD_CONCURRENCY: usize = 32;

/// Rounds of read and guarded write before a write gives up (a head
/// swap, a head's metadata change, a delete, an index update or a fix of
/// the counters): only concurrent writers make a round fail.
pub(crate) const MAX_ROUNDS: usize = 64;
