//! A bucket's CORS rules as its record keeps them (Put/GetBucketCors).

use serde::{Deserialize, Serialize};

/// One CORS rule, as S3's `CORSRule`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CorsRule {
    /// Its `ID`, if given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// `AllowedOrigin`: origins, each with at most one `*`.
    pub allowed_origins: Vec<String>,
    /// `AllowedMethod`: GET, PUT, POST, DELETE, HEAD.
    pub allowed_methods: Vec<String>,
    /// `AllowedHeader`: request headers a preflight may ask for, each with
    /// at most one `*`.
    #[serde(default)]
    pub allowed_headers: Vec<String>,
    /// `ExposeHeader`: response headers the browser may show the page.
    #[serde(default)]
    pub expose_headers: Vec<String>,
    /// `MaxAgeSeconds`: how long a browser may keep a preflight's answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_age_seconds: Option<i32>,
}
