//! The S3 operations rsgw serves, in one table: each one's name (as S3 and
//! s3s spell it), its family (the module of `ops` that implements it, or
//! the stage of the dispatcher that answers it before s3s), the request
//! that asks for it, and how it is authorized: the IAM action a bucket
//! policy names, whose decision the gateway makes (`rsgw_gateway::authz`).
//! Metrics label requests with [`S3Op`], and the access check notes it on
//! each request. The table is checked against the service itself, by
//! sending requests (`crate::probes`): the operations s3s routes that
//! `RsgwS3` implements are exactly its s3s rows, each row's request
//! reaches its operation, and a policy that denies a row's action (and
//! only that one) denies its requests.

use rsgw_gateway::{Action, Perm};

/// The Admin Ops API's perms, as the table names them.
const R: Perm = Perm::READ;
const W: Perm = Perm::WRITE;

/// The families of operations: one module of `ops` each (`Family::Acl`
/// is `ops::acl`), where what the family's operations share is kept
/// (PostObject, a put from a browser's form, has `ops::post` of its own).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Family {
    /// The buckets themselves.
    Buckets,
    /// Canned ACLs of buckets and objects.
    Acl,
    /// Bucket policies.
    Policy,
    /// CORS rules.
    Cors,
    /// Default encryption.
    Encryption,
    /// Static websites.
    Website,
    /// Tags of buckets and objects.
    Tagging,
    /// Lifecycle rules.
    Lifecycle,
    /// Versioning of buckets.
    Versioning,
    /// Object lock: buckets' default retention, versions' retention and
    /// legal hold.
    Lock,
    /// Listings of the bucket index.
    List,
    /// Writes of whole objects.
    Put,
    /// Reads of objects.
    Get,
    /// Deletes of objects.
    Delete,
    /// Copies of objects.
    Copy,
    /// Multipart uploads.
    Multipart,
    /// radosgw's Admin Ops API (`/admin/...`), `crate::admin_api`.
    Admin,
}

/// Who answers an operation's requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Served {
    /// s3s routes and parses the request, and `RsgwS3` (`ops`) serves it.
    S3s,
    /// The dispatcher answers it before s3s (which routes no such request).
    Dispatcher,
    /// s3s checks the signature and hands the request to the Admin Ops
    /// API, its custom route (`crate::admin_api`).
    Route,
}

/// How an operation's requests are authorized.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Authz {
    /// Signed requests only, each user acting on their own (their
    /// buckets, a new one): no bucket, so no policy or ACL, decides.
    Signed,
    /// The gateway's decision for this IAM action, on the bucket or the
    /// key the request names (on each key, for DeleteObjects).
    Iam(Action),
    /// A copy: `s3:GetObject` on the source, then this action on the
    /// target.
    CopyTo(Action),
    /// None: the bucket's CORS rules answer.
    CorsRules,
    /// The signer's admin caps: this perm on this part of the Admin Ops
    /// API (`users`, `buckets`...); no policy or ACL takes part.
    Caps(&'static str, Perm),
}

/// What the table says of one operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Row {
    /// Its family.
    pub family: Family,
    /// Who answers it.
    pub served: Served,
    /// How its requests are authorized.
    pub authz: Authz,
    /// radosgw's name of it (`put_obj`, `get_user_info`...): its category
    /// in the usage log.
    pub usage: &'static str,
    /// The request that asks for it: method, path (`/bucket`,
    /// `/bucket/key`) and query, then what else tells it apart.
    pub request: &'static str,
}

/// Declares [`S3Op`] from the table's rows: `name = family, served by,
/// authorization, "usage category", "request"`.
macro_rules! operations {
    ($($name:ident = $family:ident, $served:ident, $authz:expr, $usage:literal, $request:literal;)*) => {
        /// An S3 operation rsgw serves (its request in its documentation),
        /// or [`S3Op::Other`].
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum S3Op {
            $(#[doc = concat!("`", $request, "`")] $name,)*
            /// Anything else: operations rsgw does not implement, and
            /// requests refused before their operation was known (a bad
            /// signature, admission's `503 SlowDown`, an unroutable method).
            Other,
        }

        impl S3Op {
            /// Every operation, [`S3Op::Other`] last.
            pub const ALL: &'static [S3Op] = &[$(S3Op::$name,)* S3Op::Other];

            /// The operation's name, as S3 and s3s spell it.
            pub fn name(self) -> &'static str {
                match self {
                    $(S3Op::$name => stringify!($name),)*
                    S3Op::Other => "Other",
                }
            }

            /// The operation s3s routed a request to, by s3s' name for it;
            /// one rsgw does not implement is [`S3Op::Other`].
            pub fn from_s3s(name: &str) -> S3Op {
                match name {
                    $(stringify!($name) => S3Op::$name,)*
                    _ => S3Op::Other,
                }
            }

            /// Its row of the table (`None` for [`S3Op::Other`]).
            pub fn row(self) -> Option<Row> {
                use {Action::*, Authz::*};
                match self {
                    $(S3Op::$name => Some(Row {
                        family: Family::$family,
                        served: Served::$served,
                        authz: $authz,
                        usage: $usage,
                        request: $request,
                    }),)*
                    S3Op::Other => None,
                }
            }
        }
    };
}

operations! {
    // operation                      family     served by   authorized as                      usage category              request
    ListBuckets                     = Buckets,   S3s,        Signed,                            "list_buckets",             "GET /";
    CreateBucket                    = Buckets,   S3s,        Signed,                            "create_bucket",            "PUT /bucket";
    HeadBucket                      = Buckets,   S3s,        Iam(ListBucket),                   "stat_bucket",              "HEAD /bucket";
    DeleteBucket                    = Buckets,   S3s,        Iam(DeleteBucket),                 "delete_bucket",            "DELETE /bucket";
    GetBucketLocation               = Buckets,   S3s,        Iam(GetBucketLocation),            "get_bucket_location",      "GET /bucket?location";
    GetBucketAcl                    = Acl,       S3s,        Iam(GetBucketAcl),                 "get_acls",                 "GET /bucket?acl";
    PutBucketAcl                    = Acl,       S3s,        Iam(PutBucketAcl),                 "put_acls",                 "PUT /bucket?acl";
    GetBucketPolicy                 = Policy,    S3s,        Iam(GetBucketPolicy),              "get_bucket_policy",        "GET /bucket?policy";
    PutBucketPolicy                 = Policy,    S3s,        Iam(PutBucketPolicy),              "put_bucket_policy",        "PUT /bucket?policy";
    DeleteBucketPolicy              = Policy,    S3s,        Iam(DeleteBucketPolicy),           "delete_bucket_policy",     "DELETE /bucket?policy";
    GetBucketPolicyStatus           = Policy,    S3s,        Iam(GetBucketPolicyStatus),        "get_bucket_policy_status", "GET /bucket?policyStatus";
    GetBucketCors                   = Cors,      S3s,        Iam(GetBucketCors),                "get_cors",                 "GET /bucket?cors";
    PutBucketCors                   = Cors,      S3s,        Iam(PutBucketCors),                "put_cors",                 "PUT /bucket?cors";
    DeleteBucketCors                = Cors,      S3s,        Iam(PutBucketCors),                "delete_cors",              "DELETE /bucket?cors";
    PreflightCors                   = Cors,      Dispatcher, CorsRules,                         "options_cors",             "OPTIONS /bucket/key";
    GetBucketEncryption             = Encryption, S3s,        Iam(GetEncryptionConfiguration),   "get_bucket_encryption",    "GET /bucket?encryption";
    PutBucketEncryption             = Encryption, S3s,        Iam(PutEncryptionConfiguration),   "put_bucket_encryption",    "PUT /bucket?encryption";
    DeleteBucketEncryption          = Encryption, S3s,        Iam(PutEncryptionConfiguration),   "delete_bucket_encryption", "DELETE /bucket?encryption";
    GetBucketWebsite                = Website,   S3s,        Iam(GetBucketWebsite),             "get_bucket_website",       "GET /bucket?website";
    PutBucketWebsite                = Website,   S3s,        Iam(PutBucketWebsite),             "set_bucket_website",       "PUT /bucket?website";
    DeleteBucketWebsite             = Website,   S3s,        Iam(DeleteBucketWebsite),          "delete_bucket_website",    "DELETE /bucket?website";
    WebsiteGet                      = Website,   Dispatcher, Iam(GetObject),                    "get_obj",                  "GET /key on bucket.<website name>";
    GetBucketTagging                = Tagging,   S3s,        Iam(GetBucketTagging),             "get_bucket_tags",          "GET /bucket?tagging";
    PutBucketTagging                = Tagging,   S3s,        Iam(PutBucketTagging),             "put_bucket_tags",          "PUT /bucket?tagging";
    DeleteBucketTagging             = Tagging,   S3s,        Iam(PutBucketTagging),             "delete_bucket_tags",       "DELETE /bucket?tagging";
    GetBucketLifecycleConfiguration = Lifecycle, S3s,        Iam(GetLifecycleConfiguration),    "get_lifecycle",            "GET /bucket?lifecycle";
    PutBucketLifecycleConfiguration = Lifecycle, S3s,        Iam(PutLifecycleConfiguration),    "put_lifecycle",            "PUT /bucket?lifecycle";
    DeleteBucketLifecycle           = Lifecycle, S3s,        Iam(PutLifecycleConfiguration),    "delete_lifecycle",         "DELETE /bucket?lifecycle";
    GetBucketVersioning             = Versioning, S3s,        Iam(GetBucketVersioning),          "get_bucket_versioning",    "GET /bucket?versioning";
    PutBucketVersioning             = Versioning, S3s,        Iam(PutBucketVersioning),          "set_bucket_versioning",    "PUT /bucket?versioning";
    GetObjectLockConfiguration      = Lock,      S3s,        Iam(GetBucketObjectLockConfiguration), "get_bucket_object_lock",   "GET /bucket?object-lock";
    PutObjectLockConfiguration      = Lock,      S3s,        Iam(PutBucketObjectLockConfiguration), "put_bucket_object_lock",   "PUT /bucket?object-lock";
    GetObjectRetention              = Lock,      S3s,        Iam(GetObjectRetention),           "get_obj_retention",        "GET /bucket/key?retention";
    PutObjectRetention              = Lock,      S3s,        Iam(PutObjectRetention),           "put_obj_retention",        "PUT /bucket/key?retention";
    GetObjectLegalHold              = Lock,      S3s,        Iam(GetObjectLegalHold),           "get_obj_legal_hold",       "GET /bucket/key?legal-hold";
    PutObjectLegalHold              = Lock,      S3s,        Iam(PutObjectLegalHold),           "put_obj_legal_hold",       "PUT /bucket/key?legal-hold";
    ListObjects                     = List,      S3s,        Iam(ListBucket),                   "list_bucket",              "GET /bucket";
    ListObjectsV2                   = List,      S3s,        Iam(ListBucket),                   "list_bucket",              "GET /bucket?list-type=2";
    ListObjectVersions              = List,      S3s,        Iam(ListBucketVersions),           "list_bucket",              "GET /bucket?versions";
    PutObject                       = Put,       S3s,        Iam(PutObject),                    "put_obj",                  "PUT /bucket/key";
    PostObject                      = Put,       S3s,        Iam(PutObject),                    "post_obj",                 "POST /bucket with a form";
    GetObject                       = Get,       S3s,        Iam(GetObject),                    "get_obj",                  "GET /bucket/key";
    HeadObject                      = Get,       S3s,        Iam(GetObject),                    "get_obj",                  "HEAD /bucket/key";
    DeleteObject                    = Delete,    S3s,        Iam(DeleteObject),                 "delete_obj",               "DELETE /bucket/key";
    DeleteObjects                   = Delete,    S3s,        Iam(DeleteObject),                 "multi_object_delete",      "POST /bucket?delete";
    CopyObject                      = Copy,      S3s,        CopyTo(PutObject),                 "copy_obj",                 "PUT /bucket/key with x-amz-copy-source";
    GetObjectAcl                    = Acl,       S3s,        Iam(GetObjectAcl),                 "get_acls",                 "GET /bucket/key?acl";
    PutObjectAcl                    = Acl,       S3s,        Iam(PutObjectAcl),                 "put_acls",                 "PUT /bucket/key?acl";
    GetObjectTagging                = Tagging,   S3s,        Iam(GetObjectTagging),             "get_obj_tags",             "GET /bucket/key?tagging";
    PutObjectTagging                = Tagging,   S3s,        Iam(PutObjectTagging),             "put_obj_tags",             "PUT /bucket/key?tagging";
    DeleteObjectTagging             = Tagging,   S3s,        Iam(DeleteObjectTagging),          "delete_obj_tags",          "DELETE /bucket/key?tagging";
    CreateMultipartUpload           = Multipart, S3s,        Iam(PutObject),                    "init_multipart",           "POST /bucket/key?uploads";
    UploadPart                      = Multipart, S3s,        Iam(PutObject),                    "put_obj",                  "PUT /bucket/key?partNumber&uploadId";
    UploadPartCopy                  = Multipart, S3s,        CopyTo(PutObject),                 "put_obj",                  "PUT /bucket/key?partNumber&uploadId with x-amz-copy-source";
    CompleteMultipartUpload         = Multipart, S3s,        Iam(PutObject),                    "complete_multipart",       "POST /bucket/key?uploadId";
    AbortMultipartUpload            = Multipart, S3s,        Iam(AbortMultipartUpload),         "abort_multipart",          "DELETE /bucket/key?uploadId";
    ListParts                       = Multipart, S3s,        Iam(ListMultipartUploadParts),     "list_multipart",           "GET /bucket/key?uploadId";
    ListMultipartUploads            = Multipart, S3s,        Iam(ListBucketMultipartUploads),   "list_bucket_multiparts",   "GET /bucket?uploads";
    AdminGetUser                    = Admin,     Route,      Caps("users", R),                  "get_user_info",            "GET /admin/user";
    AdminCreateUser                 = Admin,     Route,      Caps("users", W),                  "create_user",              "PUT /admin/user";
    AdminModifyUser                 = Admin,     Route,      Caps("users", W),                  "modify_user",              "POST /admin/user";
    AdminRemoveUser                 = Admin,     Route,      Caps("users", W),                  "remove_user",              "DELETE /admin/user";
    AdminCreateKey                  = Admin,     Route,      Caps("users", W),                  "create_access_key",        "PUT /admin/user?key";
    AdminRemoveKey                  = Admin,     Route,      Caps("users", W),                  "remove_access_key",        "DELETE /admin/user?key";
    AdminAddCaps                    = Admin,     Route,      Caps("users", W),                  "add_user_caps",            "PUT /admin/user?caps";
    AdminRemoveCaps                 = Admin,     Route,      Caps("users", W),                  "remove_user_caps",         "DELETE /admin/user?caps";
    AdminGetUserQuota               = Admin,     Route,      Caps("users", R),                  "get_quota_info",           "GET /admin/user?quota";
    AdminSetUserQuota               = Admin,     Route,      Caps("users", W),                  "set_quota_info",           "PUT /admin/user?quota";
    AdminGetBucket                  = Admin,     Route,      Caps("buckets", R),                "get_bucket_info",          "GET /admin/bucket";
    AdminLinkBucket                 = Admin,     Route,      Caps("buckets", W),                "link_bucket",              "PUT /admin/bucket";
    AdminUnlinkBucket               = Admin,     Route,      Caps("buckets", W),                "unlink_bucket",            "POST /admin/bucket";
    AdminRemoveBucket               = Admin,     Route,      Caps("buckets", W),                "remove_bucket",            "DELETE /admin/bucket";
    AdminRemoveObject               = Admin,     Route,      Caps("buckets", W),                "remove_object",            "DELETE /admin/bucket?object";
    AdminSetBucketQuota             = Admin,     Route,      Caps("buckets", W),                "set_bucket_quota",         "PUT /admin/bucket?quota";
    AdminGetUsage                   = Admin,     Route,      Caps("usage", R),                  "get_usage",                "GET /admin/usage";
    AdminTrimUsage                  = Admin,     Route,      Caps("usage", W),                  "trim_usage",               "DELETE /admin/usage";
    AdminListMetadata               = Admin,     Route,      Caps("metadata", R),               "list_metadata",            "GET /admin/metadata/user";
    AdminGetRatelimit               = Admin,     Route,      Caps("ratelimit", R),              "get_ratelimit_info",       "GET /admin/ratelimit";
    AdminSetRatelimit               = Admin,     Route,      Caps("ratelimit", W),              "put_ratelimit_info",       "POST /admin/ratelimit";
}

impl rsgw_frontend::Operation for S3Op {
    fn all() -> &'static [Self] {
        S3Op::ALL
    }

    fn index(self) -> usize {
        self as usize
    }

    fn name(self) -> &'static str {
        S3Op::name(self)
    }

    fn unrouted() -> Self {
        S3Op::Other
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsgw_frontend::Operation as _;

    #[test]
    fn names_round_trip_and_index_the_table() {
        for (i, op) in S3Op::ALL.iter().enumerate() {
            assert_eq!(op.index(), i, "{op:?}");
            if *op != S3Op::Other {
                assert_eq!(S3Op::from_s3s(op.name()), *op);
            }
        }
        assert_eq!(S3Op::from_s3s("PutBucketReplication"), S3Op::Other);
        assert_eq!(S3Op::from_s3s("Other"), S3Op::Other);
    }
}
