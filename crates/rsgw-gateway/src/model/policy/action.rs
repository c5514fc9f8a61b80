//! The IAM actions: the S3 operations rsgw serves, by the name a policy
//! gives them, and every S3 action a policy may name.

/// Declares [`Action`] with each action's IAM name and whether it is on
/// objects (`arn:aws:s3:::bucket/key`) or on the bucket.
macro_rules! actions {
    ($($name:ident = $iam:literal, $on_object:literal;)*) => {
        /// The IAM actions of the S3 operations rsgw serves.
        #[derive(Debug, Clone, Copy, PartialEq, Eq)]
        pub enum Action {
            $(#[doc = $iam] $name,)*
        }

        impl Action {
            /// Every action rsgw serves.
            pub(crate) const KNOWN_ACTIONS: &'static [Action] = &[$(Action::$name,)*];

            /// Its IAM name (`s3:GetObject`).
            pub fn name(self) -> &'static str {
                match self {
                    $(Action::$name => $iam,)*
                }
            }

            /// Whether its resource is an object rather than the bucket.
            pub fn on_object(self) -> bool {
                match self {
                    $(Action::$name => $on_object,)*
                }
            }
        }
    };
}

actions! {
    ListBucket = "s3:ListBucket", false;
    ListBucketVersions = "s3:ListBucketVersions", false;
    ListBucketMultipartUploads = "s3:ListBucketMultipartUploads", false;
    DeleteBucket = "s3:DeleteBucket", false;
    GetBucketLocation = "s3:GetBucketLocation", false;
    GetBucketAcl = "s3:GetBucketAcl", false;
    PutBucketAcl = "s3:PutBucketAcl", false;
    GetBucketPolicy = "s3:GetBucketPolicy", false;
    PutBucketPolicy = "s3:PutBucketPolicy", false;
    DeleteBucketPolicy = "s3:DeleteBucketPolicy", false;
    GetBucketPolicyStatus = "s3:GetBucketPolicyStatus", false;
    GetBucketCors = "s3:GetBucketCORS", false;
    PutBucketCors = "s3:PutBucketCORS", false;
    GetEncryptionConfiguration = "s3:GetEncryptionConfiguration", false;
    PutEncryptionConfiguration = "s3:PutEncryptionConfiguration", false;
    GetBucketWebsite = "s3:GetBucketWebsite", false;
    PutBucketWebsite = "s3:PutBucketWebsite", false;
    DeleteBucketWebsite = "s3:DeleteBucketWebsite", false;
    GetBucketTagging = "s3:GetBucketTagging", false;
    PutBucketTagging = "s3:PutBucketTagging", false;
    GetLifecycleConfiguration = "s3:GetLifecycleConfiguration", false;
    PutLifecycleConfiguration = "s3:PutLifecycleConfiguration", false;
    GetObject = "s3:GetObject", true;
    GetObjectVersion = "s3:GetObjectVersion", true;
    PutObject = "s3:PutObject", true;
    DeleteObject = "s3:DeleteObject", true;
    DeleteObjectVersion = "s3:DeleteObjectVersion", true;
    GetBucketVersioning = "s3:GetBucketVersioning", false;
    PutBucketVersioning = "s3:PutBucketVersioning", false;
    GetObjectAcl = "s3:GetObjectAcl", true;
    PutObjectAcl = "s3:PutObjectAcl", true;
    GetObjectTagging = "s3:GetObjectTagging", true;
    PutObjectTagging = "s3:PutObjectTagging", true;
    DeleteObjectTagging = "s3:DeleteObjectTagging", true;
    GetBucketObjectLockConfiguration = "s3:GetBucketObjectLockConfiguration", false;
    PutBucketObjectLockConfiguration = "s3:PutBucketObjectLockConfiguration", false;
    GetObjectRetention = "s3:GetObjectRetention", true;
    PutObjectRetention = "s3:PutObjectRetention", true;
    GetObjectLegalHold = "s3:GetObjectLegalHold", true;
    PutObjectLegalHold = "s3:PutObjectLegalHold", true;
    BypassGovernanceRetention = "s3:BypassGovernanceRetention", true;
    AbortMultipartUpload = "s3:AbortMultipartUpload", true;
    ListMultipartUploadParts = "s3:ListMultipartUploadParts", true;
}

impl Action {
    /// Every S3 action a policy may name, served by rsgw or not (AWS's
    /// and radosgw's list): a policy written for AWS or radosgw is
    /// accepted; a misspelt action is `MalformedPolicy`.
    pub(crate) const KNOWN: &'static [&'static str] = &[
        "s3:AbortMultipartUpload",
        "s3:BypassGovernanceRetention",
        "s3:CreateBucket",
        "s3:DeleteBucket",
        "s3:DeleteBucketOwnershipControls",
        "s3:DeleteBucketPolicy",
        "s3:DeleteBucketWebsite",
        "s3:DeleteObject",
        "s3:DeleteObjectTagging",
        "s3:DeleteObjectVersion",
        "s3:DeleteObjectVersionTagging",
        "s3:DeleteReplicationConfiguration",
        "s3:GetAccelerateConfiguration",
        "s3:GetAnalyticsConfiguration",
        "s3:GetBucketAcl",
        "s3:GetBucketCORS",
        "s3:GetBucketEncryption",
        "s3:GetBucketLocation",
        "s3:GetBucketLogging",
        "s3:GetBucketNotification",
        "s3:GetBucketObjectLockConfiguration",
        "s3:GetBucketOwnershipControls",
        "s3:GetBucketPolicy",
        "s3:GetBucketPolicyStatus",
        "s3:GetBucketPublicAccessBlock",
        "s3:GetBucketRequestPayment",
        "s3:GetBucketTagging",
        "s3:GetBucketVersioning",
        "s3:GetBucketWebsite",
        "s3:GetEncryptionConfiguration",
        "s3:GetInventoryConfiguration",
        "s3:GetLifecycleConfiguration",
        "s3:GetMetricsConfiguration",
        "s3:GetObject",
        "s3:GetObjectAcl",
        "s3:GetObjectAttributes",
        "s3:GetObjectLegalHold",
        "s3:GetObjectRetention",
        "s3:GetObjectTagging",
        "s3:GetObjectTorrent",
        "s3:GetObjectVersion",
        "s3:GetObjectVersionAcl",
        "s3:GetObjectVersionAttributes",
        "s3:GetObjectVersionTagging",
        "s3:GetObjectVersionTorrent",
        "s3:GetReplicationConfiguration",
        "s3:ListAllMyBuckets",
        "s3:ListBucket",
        "s3:ListBucketMultipartUploads",
        "s3:ListBucketVersions",
        "s3:ListMultipartUploadParts",
        "s3:PutAccelerateConfiguration",
        "s3:PutAnalyticsConfiguration",
        "s3:PutBucketAcl",
        "s3:PutBucketCORS",
        "s3:PutBucketLogging",
        "s3:PutBucketNotification",
        "s3:PutBucketObjectLockConfiguration",
        "s3:PutBucketOwnershipControls",
        "s3:PutBucketPolicy",
        "s3:PutBucketPublicAccessBlock",
        "s3:PutBucketRequestPayment",
        "s3:PutBucketTagging",
        "s3:PutBucketVersioning",
        "s3:PutBucketWebsite",
        "s3:PutEncryptionConfiguration",
        "s3:PutInventoryConfiguration",
        "s3:PutLifecycleConfiguration",
        "s3:PutMetricsConfiguration",
        "s3:PutObject",
        "s3:PutObjectAcl",
        "s3:PutObjectLegalHold",
        "s3:PutObjectRetention",
        "s3:PutObjectTagging",
        "s3:PutObjectVersionAcl",
        "s3:PutObjectVersionTagging",
        "s3:PutReplicationConfiguration",
        "s3:ReplicateDelete",
        "s3:ReplicateObject",
        "s3:ReplicateTags",
        "s3:RestoreObject",
    ];

    /// Its bit in a statement's set of matched actions.
    pub(crate) fn bit(self) -> u64 {
        1 << (self as u32)
    }

    /// Its IAM name in lowercase, as policies' patterns are kept.
    pub(crate) fn lower_name(self) -> &'static str {
        // built once: action names are matched on every policy evaluation
        static LOWER: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        let all = LOWER.get_or_init(|| {
            Action::KNOWN_ACTIONS
                .iter()
                .map(|a| a.name().to_ascii_lowercase())
                .collect()
        });
        &all[self as usize]
    }
}
