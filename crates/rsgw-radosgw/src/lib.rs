//! radosgw's records in RADOS, read as radosgw writes them: the first part
//! of the radosgw layout (issue 31, docs/layout.md "radosgw's records").
//!
//! - [`encoding`]: Ceph's encoding (`include/encoding.h`) as far as
//!   radosgw's records use it: little-endian integers, length-prefixed
//!   strings and containers, and versioned blocks whose length lets a reader
//!   skip the fields of newer versions;
//! - [`dump`]: how radosgw-admin prints values (quoted booleans, times
//!   with microseconds);
//! - [`user`]: a user's record in `<zone>.rgw.meta`, namespace `users.uid`
//!   (`RGWUID` then `RGWUserInfo`), and the links to it from
//!   `users.keys`, `users.email` and `users.swift`, each with
//!   `radosgw-admin user info`'s JSON;
//! - [`bucket`]: a bucket's entry point and instance in the `root`
//!   namespace, with `radosgw-admin metadata get`'s JSON;
//! - [`index`]: the bucket index's entries and shard headers, with
//!   `radosgw-admin bi list`'s and `bucket stats`' JSON;
//! - [`manifest`]: where an object's bytes are (the head's
//!   `user.rgw.manifest`), walked into the RADOS objects holding them;
//! - [`acl`]: bucket and object ACLs (`user.rgw.acl`);
//! - [`cls`]: the `rgw` object class's calls rsgw makes to write as
//!   radosgw writes (an index entry's prepare and complete steps);
//! - [`upload`]: a multipart upload's records (its meta object's
//!   placement and the parts' records in its omap);
//! - [`cors`]: a bucket's CORS rules (`user.rgw.cors`);
//! - [`gc`]: radosgw's garbage collector's queue entries (the tails it
//!   releases later) and the queue object a chain goes to;
//! - [`tags`]: an object's tags (`user.rgw.x-amz-tagging`);
//! - [`zone_params`]: a zone's pools and placement targets (`.rgw.root`);
//! - [`notify`]: radosgw's cache notifications on the zone's control
//!   objects, naming each metadata record it changed;
//! - [`cache`]: the metadata records cached by RADOS object, as radosgw's
//!   own cache keeps them, dropped when those notifications name them;
//! - [`zone`]: the layer above the records, the only one doing I/O: a
//!   zone's users, buckets, listings and objects read through rsgw's
//!   [`Store`](rsgw_store::Store) and decoded by the modules above;
//! - [`writes`]: beside it, what rsgw writes into a zone as radosgw
//!   writes it: objects put whole and removed, with radosgw's index
//!   protocol ([`cls`]);
//! - [`uploads`]: beside them, multipart uploads taken as radosgw takes
//!   them (its meta object, parts and their records, completion);
//! - [`metadata`]: metadata records changed as radosgw changes them (a
//!   bucket's ACL), each change announced on the zone's control objects.
//!
//! Bad bytes are a [`DecodeError`] naming the record and the byte, never a
//! panic: counts are checked against the bytes left before anything is
//! allocated (tests/fuzz's `radosgw_records` target holds them to it).

#![forbid(unsafe_code)]

pub mod acl;
pub mod bucket;
pub mod cache;
pub mod cls;
pub mod cors;
pub mod dump;
pub mod encoding;
pub mod gc;
pub mod index;
pub mod manifest;
pub mod metadata;
pub mod notify;
pub mod tags;
pub mod upload;
pub mod uploads;
pub mod user;
pub mod writes;
pub mod zone;
pub mod zone_params;

pub use encoding::DecodeError;
