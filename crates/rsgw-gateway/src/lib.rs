//! rsgw's S3 semantics on the [`Store`](rsgw_store::Store): users and their
//! keys, buckets, objects striped over RADOS objects, listings, canned
//! ACLs, bucket policies, CORS rules, website configurations, lifecycle
//! rules, quotas and rate limits, the one authorization decision of each
//! request, and the workers that collect garbage and apply lifecycle rules.
//!
//! Nothing here knows HTTP or S3's wire format; `rsgw-s3` maps S3 requests
//! onto [`Gateway`]. The layout on the store is described in
//! `docs/layout.md`.
//!
//! The modules are layers, each using only those before it
//! (`layers.toml`): `model` (records and their encoding), `rules` (S3's
//! semantics as pure functions), `cache` (this instance's caches and their
//! coherence), `engine` (writes, commits, the index, the GC log), `ops`
//! (the operations, on [`Gateway`]) and `workers` (garbage collection,
//! lifecycle). This file only declares them and re-exports the public API.

#![forbid(unsafe_code)]

mod cache;
mod engine;
mod model;
mod ops;
mod rules;
#[cfg(test)]
mod testutil;
mod workers;

pub use cache::coherence::MetadataWatch;
pub use cache::limiter::{Kind, Limiter, Refusal, Scope};
pub use cache::objects::{CachedObject, ObjectCacheStats};
pub use engine::kmip::kmip_tls;
pub use model::acl::{Acl, CannedAcl, Grant, Grantee, Permission};
pub use model::bucket::BucketInfo;
pub use model::caps::{CAP_TYPES, Caps, Perm};
pub use model::cors::CorsRule;
pub use model::crypt::{
    BucketEncryption, CryptOptions, CustomerKey, KEY_LEN, Key, KmipOptions, KmsBackend, Sse,
    SseMode, SseRequest,
};
pub use model::error::{GatewayError, GatewayResult};
pub use model::format::LAYOUT_FORMAT;
pub use model::index::{ShardCheck, Usage};
pub use model::lifecycle::{FilterForm, LcPass, LcReport, LcStatus, LifecycleRule};
pub use model::limits::{
    MAX_BUCKET_TAGS, MAX_CORS_RULES, MAX_LIFECYCLE_RULES, MAX_OBJECT_TAGS, MAX_PART_NUMBER,
    MAX_POLICY_BYTES, MAX_ROUTING_RULES, MAX_RULE_ID, MAX_TAG_KEY, MAX_TAG_VALUE,
};
pub use model::lock::{DefaultRetention, LockMode, LockRequest, ObjectLock, Period, Retention};
pub use model::object::{ObjectMeta, Tail};
pub use model::options::GatewayOptions;
pub use model::params::{
    BodyCheck, BodyStream, BucketHead, BucketsListed, BucketsPage, CompleteChecks, CopyMetadata,
    Deleted, GetParams, GetResult, ListEntry, ListParams, ListResult, ObjectAcl, PutParams,
    PutResult, RangeSpec, UploadList, VersionCounts, VersionEntry, VersionList, VersionListParams,
};
pub use model::policy::BucketPolicy;
pub use model::policy::action::Action;
pub use model::quota::{Quota, QuotaTarget};
pub use model::ratelimit::{Limit, LimitTarget, RateLimits};
pub use model::upload::{PartInfo, UploadInfo};
pub use model::usage_log::{USAGE_HOUR_S, UsageCounters, UsageRange, UsageRecord, UsageSlot};
pub use model::user::{AccessKey, DEFAULT_MAX_BUCKETS, NewKey, NewUser, User, UserChange};
pub use model::versioning::{NULL_VERSION, Versioning};
pub use model::website::{Redirect, RedirectAll, RoutingRule, WebsiteConfig, WebsiteRedirect};
pub use ops::gateway::Gateway;
pub use ops::website::WebsiteReply;
pub use rules::acl::Principal;
pub use rules::authz::Requester;
pub use rules::cors::matching_rule;
pub use rules::lifecycle::check_lifecycle;
pub use rules::tagging::check_tags;
pub use workers::gc::GcReport;
