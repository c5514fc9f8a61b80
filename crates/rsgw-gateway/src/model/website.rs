//! A bucket's website configuration as its record keeps it
//! (Put/GetBucketWebsite), and where a routing rule sends a request.

use serde::{Deserialize, Serialize};

/// A bucket's website configuration, as S3's `WebsiteConfiguration`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct WebsiteConfig {
    /// `IndexDocument/Suffix`: what a "directory" (a path ending in `/`,
    /// or the root) serves, `index.html` say.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub index_suffix: Option<String>,
    /// `ErrorDocument/Key`: the object served, with the error's status,
    /// when a 4xx error occurs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_key: Option<String>,
    /// `RedirectAllRequestsTo`: every request goes to another host.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub redirect_all: Option<RedirectAll>,
    /// `RoutingRules`, in order: the first that matches redirects.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub routing_rules: Vec<RoutingRule>,
}

/// `RedirectAllRequestsTo`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RedirectAll {
    /// `HostName`.
    pub host: String,
    /// `Protocol` (`http`, `https`); the request's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
}

/// One `RoutingRule`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RoutingRule {
    /// `Condition/KeyPrefixEquals`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key_prefix: Option<String>,
    /// `Condition/HttpErrorCodeReturnedEquals`: the rule applies only when
    /// serving the key failed with this status.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error_code: Option<u16>,
    /// Where the rule sends the request.
    pub redirect: Redirect,
}

/// A `RoutingRule`'s `Redirect`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Redirect {
    /// `HostName`; the request's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    /// `Protocol`; the request's own when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub protocol: Option<String>,
    /// `ReplaceKeyPrefixWith`: the condition's prefix replaced by this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_key_prefix: Option<String>,
    /// `ReplaceKeyWith`: the whole key replaced by this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replace_key: Option<String>,
    /// `HttpRedirectCode`; 301 when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
}

/// Where the website endpoint sends a request. The S3 layer writes the
/// `Location`: `<protocol>://<host>/<key>`, each part the request's own
/// where this leaves it out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebsiteRedirect {
    /// The HTTP status (301, 302, ...).
    pub status: u16,
    /// The protocol; `None`: the request's.
    pub protocol: Option<String>,
    /// The host; `None`: the request's.
    pub host: Option<String>,
    /// The key (the path after the `/`), not percent-encoded.
    pub key: String,
}
