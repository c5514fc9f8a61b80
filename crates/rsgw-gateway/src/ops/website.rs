//! Static websites: a bucket's website configuration (Put/Get/Delete
//! BucketWebsite) and what the website endpoint answers for a path: the
//! object or its index document, a redirect, or an error with the
//! configured error document. Like CORS rules and the policy, the
//! configuration lives in the bucket's record, so the coherent record cache
//! carries every change to every instance. The S3 layer turns the answer
//! into HTTP (HTML errors, `Location` headers).

use serde::{Deserialize, Serialize};

use crate::authz::{Access, Requester, Target};
use crate::objects::{GetParams, GetResult};
use crate::{Gateway, GatewayError, GatewayResult};

/// AWS's limit on routing rules in one configuration.
pub const MAX_ROUTING_RULES: usize = 50;

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

fn invalid<T>(m: &str) -> GatewayResult<T> {
    Err(GatewayError::InvalidArgument(m.to_string()))
}

fn check_protocol(p: Option<&String>) -> GatewayResult<()> {
    match p.map(String::as_str) {
        None | Some("http" | "https") => Ok(()),
        Some(_) => invalid("Invalid protocol, protocol can be http or https"),
    }
}

impl WebsiteConfig {
    /// Checks a configuration as S3 does when it is put.
    pub fn check(&self) -> GatewayResult<()> {
        if let Some(all) = &self.redirect_all {
            if self.index_suffix.is_some()
                || self.error_key.is_some()
                || !self.routing_rules.is_empty()
            {
                return invalid(
                    "RedirectAllRequestsTo cannot be provided in conjunction with other Routing/Redirection elements",
                );
            }
            if all.host.is_empty() {
                return invalid("RedirectAllRequestsTo needs a HostName");
            }
            return check_protocol(all.protocol.as_ref());
        }
        match self.index_suffix.as_deref() {
            None => {
                return invalid(
                    "A value for IndexDocument Suffix must be provided if RedirectAllRequestsTo is empty",
                );
            }
            Some(s) if s.is_empty() || s.contains('/') => {
                return invalid("The IndexDocument Suffix is not well formed");
            }
            Some(_) => {}
        }
        if self.error_key.as_deref() == Some("") {
            return invalid("The ErrorDocument Key is not well formed");
        }
        if self.routing_rules.len() > MAX_ROUTING_RULES {
            return Err(GatewayError::InvalidRequest(format!(
                "{} routing rules provided, the number of routing rules in a website \
                 configuration is limited to {MAX_ROUTING_RULES}.",
                self.routing_rules.len()
            )));
        }
        for r in &self.routing_rules {
            let d = &r.redirect;
            if d.replace_key.is_some() && d.replace_key_prefix.is_some() {
                return invalid("You can only define ReplaceKeyPrefix or ReplaceKey but not both.");
            }
            if d.host.is_none()
                && d.protocol.is_none()
                && d.replace_key.is_none()
                && d.replace_key_prefix.is_none()
                && d.code.is_none()
            {
                return invalid("A Redirect must name at least one of its elements");
            }
            check_protocol(d.protocol.as_ref())?;
            if let Some(c) = d.code.filter(|c| !(301..400).contains(c)) {
                return invalid(&format!(
                    "The provided HTTP redirect code ({c}) is not valid. Valid codes are 3XX \
                     except 300"
                ));
            }
            if r.error_code.is_some_and(|c| !(400..600).contains(&c)) {
                return invalid(
                    "The provided HTTP error code is not valid. Valid codes are 4XX or 5XX",
                );
            }
        }
        Ok(())
    }

    /// The first routing rule for `key` that applies: before the object
    /// is read (`failed` is `None`) only rules without an error code, after
    /// a failure with that status only rules naming it.
    fn rule_for(&self, key: &str, failed: Option<u16>) -> Option<&RoutingRule> {
        self.routing_rules.iter().find(|r| {
            r.error_code == failed && r.key_prefix.as_deref().is_none_or(|p| key.starts_with(p))
        })
    }
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

impl RoutingRule {
    fn redirect(&self, key: &str) -> WebsiteRedirect {
        let d = &self.redirect;
        let key = if let Some(k) = &d.replace_key {
            k.clone()
        } else if let Some(with) = &d.replace_key_prefix {
            let prefix = self.key_prefix.as_deref().unwrap_or("");
            format!("{with}{}", key.strip_prefix(prefix).unwrap_or(key))
        } else {
            key.to_string()
        };
        WebsiteRedirect {
            status: d.code.unwrap_or(301),
            protocol: d.protocol.clone(),
            host: d.host.clone(),
            key,
        }
    }
}

/// What the website endpoint answers a GET or HEAD with.
pub enum WebsiteReply {
    /// The object asked for, or the index document of the "directory".
    Object(GetResult),
    /// A redirect.
    Redirect(WebsiteRedirect),
    /// The object could not be served (404, 403): the error, and the
    /// configured error document to serve with the error's status, when
    /// one is configured and readable.
    Error {
        /// What went wrong.
        error: GatewayError,
        /// Its HTTP status.
        status: u16,
        /// The error document.
        document: Option<GetResult>,
    },
}

/// The status of a failure the website endpoint answers with its error
/// document (or its routing rules), `None` for the others (a failed
/// condition, a bad range, a store failure), which it answers as they are.
fn document_status(e: &GatewayError) -> Option<u16> {
    match e {
        GatewayError::NoSuchKey => Some(404),
        GatewayError::AccessDenied => Some(403),
        _ => None,
    }
}

impl Gateway {
    /// Sets a bucket's website configuration.
    pub async fn put_bucket_website(
        &self,
        rq: &Requester,
        bucket: &str,
        config: WebsiteConfig,
    ) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::PutBucketWebsite, &Target::bucket(&info))?;
        config.check()?;
        info.website = Some(config);
        self.save_bucket(&info).await
    }

    /// A bucket's website configuration; `NoSuchWebsiteConfiguration`
    /// without one.
    pub async fn get_bucket_website(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<WebsiteConfig> {
        let info = self.bucket_info(bucket).await?;
        self.authorize(rq, Access::GetBucketWebsite, &Target::bucket(&info))?;
        info.website.ok_or(GatewayError::NoSuchWebsiteConfiguration)
    }

    /// Removes a bucket's website configuration (none set is fine).
    pub async fn delete_bucket_website(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        self.authorize(rq, Access::DeleteBucketWebsite, &Target::bucket(&info))?;
        if info.website.take().is_some() {
            self.save_bucket(&info).await?;
        }
        Ok(())
    }

    /// The website endpoint's answer to a GET (or, with
    /// `params.head_only`, a HEAD) of `path` (the decoded path without its
    /// leading `/`) in `bucket`. Every read is `rq`'s own, so the bucket's
    /// policy and ACLs decide what an anonymous visitor sees. An `Err` is
    /// answered as it is (no bucket, no website configuration, a failed
    /// condition, a store failure).
    pub async fn website_get(
        &self,
        rq: &Requester,
        bucket: &str,
        path: &str,
        params: GetParams,
    ) -> GatewayResult<WebsiteReply> {
        let info = self.bucket_info(bucket).await?;
        let Some(cfg) = info.website else {
            return Err(GatewayError::NoSuchWebsiteConfiguration);
        };
        if let Some(all) = &cfg.redirect_all {
            return Ok(WebsiteReply::Redirect(WebsiteRedirect {
                status: 301,
                protocol: all.protocol.clone(),
                host: Some(all.host.clone()),
                key: path.to_string(),
            }));
        }
        if let Some(rule) = cfg.rule_for(path, None) {
            return Ok(WebsiteReply::Redirect(rule.redirect(path)));
        }
        let suffix = cfg.index_suffix.as_deref().unwrap_or("index.html");
        let key = if path.is_empty() || path.ends_with('/') {
            format!("{path}{suffix}")
        } else {
            path.to_string()
        };
        let head_only = params.head_only;
        let error = match self.get_object(rq, bucket, &key, params).await {
            Ok(obj) => return Ok(WebsiteReply::Object(obj)),
            Err(e) => e,
        };
        let Some(status) = document_status(&error) else {
            return Err(error);
        };
        // "photos" without its slash, where "photos/index.html" exists
        if key == path && !path.is_empty() {
            let index = format!("{path}/{suffix}");
            let probe = GetParams {
                head_only: true,
                ..Default::default()
            };
            if self.get_object(rq, bucket, &index, probe).await.is_ok() {
                return Ok(WebsiteReply::Redirect(WebsiteRedirect {
                    status: 302,
                    protocol: None,
                    host: None,
                    key: format!("{path}/"),
                }));
            }
        }
        if let Some(rule) = cfg.rule_for(path, Some(status)) {
            return Ok(WebsiteReply::Redirect(rule.redirect(path)));
        }
        let document = match &cfg.error_key {
            Some(k) => {
                let p = GetParams {
                    head_only,
                    ..Default::default()
                };
                self.get_object(rq, bucket, k, p).await.ok()
            }
            None => None,
        };
        Ok(WebsiteReply::Error {
            error,
            status,
            document,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::PutParams;
    use crate::acl::CannedAcl;
    use crate::testutil::{Fixture, body, owner, small_opts};

    fn site() -> WebsiteConfig {
        WebsiteConfig {
            index_suffix: Some("index.html".into()),
            error_key: Some("404.html".into()),
            ..Default::default()
        }
    }

    fn rule(prefix: Option<&str>, error: Option<u16>, redirect: Redirect) -> RoutingRule {
        RoutingRule {
            key_prefix: prefix.map(str::to_string),
            error_code: error,
            redirect,
        }
    }

    #[test]
    fn configurations_are_checked_as_s3_does() {
        assert!(site().check().is_ok());
        let all = WebsiteConfig {
            redirect_all: Some(RedirectAll {
                host: "example.com".into(),
                protocol: Some("https".into()),
            }),
            ..Default::default()
        };
        assert!(all.check().is_ok());
        let to = |host: &str| Redirect {
            host: Some(host.into()),
            ..Default::default()
        };
        let bad = [
            (
                WebsiteConfig::default(),
                "IndexDocument Suffix must be provided",
            ),
            (
                WebsiteConfig {
                    index_suffix: Some(String::new()),
                    ..Default::default()
                },
                "not well formed",
            ),
            (
                WebsiteConfig {
                    index_suffix: Some("a/index.html".into()),
                    ..Default::default()
                },
                "not well formed",
            ),
            (
                WebsiteConfig {
                    index_suffix: Some("index.html".into()),
                    ..all.clone()
                },
                "in conjunction",
            ),
            (
                WebsiteConfig {
                    redirect_all: Some(RedirectAll {
                        host: "example.com".into(),
                        protocol: Some("ftp".into()),
                    }),
                    ..Default::default()
                },
                "protocol",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(
                        None,
                        None,
                        Redirect {
                            replace_key: Some("a".into()),
                            replace_key_prefix: Some("b".into()),
                            ..Default::default()
                        },
                    )],
                    ..site()
                },
                "not both",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(Some("a"), None, Redirect::default())],
                    ..site()
                },
                "at least one",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(
                        None,
                        None,
                        Redirect {
                            code: Some(200),
                            ..Default::default()
                        },
                    )],
                    ..site()
                },
                "(200) is not valid",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(
                        None,
                        None,
                        Redirect {
                            code: Some(300),
                            ..Default::default()
                        },
                    )],
                    ..site()
                },
                "3XX except 300",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(None, Some(302), to("x"))],
                    ..site()
                },
                "4XX or 5XX",
            ),
            (
                WebsiteConfig {
                    routing_rules: vec![rule(None, None, to("x")); 51],
                    ..site()
                },
                "51 routing rules provided",
            ),
        ];
        for (cfg, why) in bad {
            let e = cfg.check().expect_err(why);
            assert!(
                matches!(&e, GatewayError::InvalidArgument(m) | GatewayError::InvalidRequest(m)
                    if m.contains(why)),
                "{why}: {e}"
            );
        }
    }

    #[test]
    fn routing_rules_match_in_order_and_rewrite_the_key() {
        let cfg = WebsiteConfig {
            routing_rules: vec![
                rule(
                    Some("docs/"),
                    None,
                    Redirect {
                        replace_key_prefix: Some("documents/".into()),
                        ..Default::default()
                    },
                ),
                rule(
                    Some("docs/"),
                    None,
                    Redirect {
                        replace_key: Some("never.html".into()),
                        ..Default::default()
                    },
                ),
                rule(
                    None,
                    Some(404),
                    Redirect {
                        host: Some("example.com".into()),
                        protocol: Some("https".into()),
                        code: Some(302),
                        ..Default::default()
                    },
                ),
                rule(
                    Some("old"),
                    Some(403),
                    Redirect {
                        replace_key: Some("gone.html".into()),
                        ..Default::default()
                    },
                ),
            ],
            ..site()
        };
        let r = cfg.rule_for("docs/a/b.html", None).expect("prefix rule");
        assert_eq!(
            r.redirect("docs/a/b.html"),
            WebsiteRedirect {
                status: 301,
                protocol: None,
                host: None,
                key: "documents/a/b.html".into()
            }
        );
        assert!(cfg.rule_for("img/a.png", None).is_none());
        let r = cfg.rule_for("img/a.png", Some(404)).expect("error rule");
        assert_eq!(
            r.redirect("img/a.png"),
            WebsiteRedirect {
                status: 302,
                protocol: Some("https".into()),
                host: Some("example.com".into()),
                key: "img/a.png".into()
            }
        );
        assert!(cfg.rule_for("img/a.png", Some(403)).is_none());
        let r = cfg
            .rule_for("older.html", Some(403))
            .expect("prefix and code");
        assert_eq!(r.redirect("older.html").key, "gone.html");
    }

    async fn put(f: &Fixture, key: &str, data: &'static [u8], acl: CannedAcl) {
        f.gw.put_object(
            &owner(),
            "site",
            key,
            PutParams {
                content_length: Some(data.len() as u64),
                acl,
                ..Default::default()
            },
            body(data, 7),
        )
        .await
        .expect("put");
    }

    async fn text(reply: WebsiteReply) -> Result<Vec<u8>, (u16, Option<WebsiteRedirect>)> {
        use futures::TryStreamExt;
        match reply {
            WebsiteReply::Object(o) => {
                let chunks: Vec<bytes::Bytes> =
                    o.body.expect("body").try_collect().await.expect("read");
                Ok(chunks.concat())
            }
            WebsiteReply::Redirect(r) => Err((r.status, Some(r))),
            WebsiteReply::Error { status, .. } => Err((status, None)),
        }
    }

    #[tokio::test]
    async fn serves_index_and_error_documents_as_the_acls_allow() {
        let (f, _) = Fixture::with_bucket(small_opts(), "site").await;
        let anon = Requester::anonymous();
        let get = || GetParams::default();
        assert!(matches!(
            f.gw.website_get(&anon, "site", "", get()).await,
            Err(GatewayError::NoSuchWebsiteConfiguration)
        ));
        assert!(matches!(
            f.gw.website_get(&anon, "nosuch", "", get()).await,
            Err(GatewayError::NoSuchBucket)
        ));
        f.gw.put_bucket_website(&owner(), "site", site())
            .await
            .expect("configured");
        assert!(matches!(
            f.gw.put_bucket_website(&Requester::user("bob"), "site", site())
                .await,
            Err(GatewayError::AccessDenied)
        ));
        assert_eq!(
            f.gw.get_bucket_website(&owner(), "site")
                .await
                .expect("get"),
            site()
        );
        put(&f, "index.html", b"home", CannedAcl::PublicRead).await;
        put(&f, "docs/index.html", b"docs", CannedAcl::PublicRead).await;
        put(&f, "404.html", b"not here", CannedAcl::PublicRead).await;
        put(&f, "private.html", b"secret", CannedAcl::Private).await;
        let at = |path: &'static str| {
            let gw = f.gw.clone();
            let anon = anon.clone();
            async move {
                text(
                    gw.website_get(&anon, "site", path, get())
                        .await
                        .expect("answer"),
                )
                .await
            }
        };
        assert_eq!(at("").await, Ok(b"home".to_vec()));
        assert_eq!(at("docs/").await, Ok(b"docs".to_vec()));
        let Err((302, Some(r))) = at("docs").await else {
            panic!("docs without its slash redirects");
        };
        assert_eq!(r.key, "docs/");
        // the bucket is not listable by anyone: a missing key is 403, as S3
        assert_eq!(at("missing.html").await, Err((403, None)));
        assert_eq!(at("private.html").await, Err((403, None)));
        let reply =
            f.gw.website_get(&anon, "site", "missing.html", get())
                .await
                .expect("answer");
        let WebsiteReply::Error { document, .. } = reply else {
            panic!("an error");
        };
        assert_eq!(
            text(WebsiteReply::Object(document.expect("error document")))
                .await
                .expect("read"),
            b"not here"
        );
        // the owner may list: a missing key is 404 to them
        let reply =
            f.gw.website_get(&owner(), "site", "missing.html", get())
                .await
                .expect("answer");
        assert!(matches!(reply, WebsiteReply::Error { status: 404, .. }));
        f.gw.delete_bucket_website(&owner(), "site")
            .await
            .expect("deleted");
        assert!(matches!(
            f.gw.get_bucket_website(&owner(), "site").await,
            Err(GatewayError::NoSuchWebsiteConfiguration)
        ));
    }
}
