//! Static websites: a bucket's website configuration (Put/Get/Delete
//! BucketWebsite) and what the website endpoint answers for a path: the
//! object or its index document, a redirect, or an error with the
//! configured error document. Like CORS rules and the policy, the
//! configuration lives in the bucket's record, so the coherent record cache
//! carries every change to every instance. The S3 layer turns the answer
//! into HTTP (HTML errors, `Location` headers).

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::params::{GetParams, GetResult};
use crate::model::website::{WebsiteConfig, WebsiteRedirect};
use crate::ops::buckets::RecordChange;
use crate::ops::gateway::Gateway;
use crate::rules::authz::{Access, Requester, Target, authorize};

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
        authorize(rq, Access::PutBucketWebsite, &Target::bucket(&info))?;
        config.check()?;
        info.website = Some(config);
        self.save_bucket(&info, RecordChange::Grows).await
    }

    /// A bucket's website configuration; `NoSuchWebsiteConfiguration`
    /// without one.
    pub async fn get_bucket_website(
        &self,
        rq: &Requester,
        bucket: &str,
    ) -> GatewayResult<WebsiteConfig> {
        let info = self.bucket_info(bucket).await?;
        authorize(rq, Access::GetBucketWebsite, &Target::bucket(&info))?;
        info.website.ok_or(GatewayError::NoSuchWebsiteConfiguration)
    }

    /// Removes a bucket's website configuration (none set is fine).
    pub async fn delete_bucket_website(&self, rq: &Requester, bucket: &str) -> GatewayResult<()> {
        let mut info = self.bucket_info_fresh(bucket).await?;
        authorize(rq, Access::DeleteBucketWebsite, &Target::bucket(&info))?;
        if info.website.take().is_some() {
            self.save_bucket(&info, RecordChange::Shrinks).await?;
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
    use crate::model::acl::CannedAcl;
    use crate::model::params::PutParams;
    use crate::testutil::{Fixture, body, owner, small_opts, website as site};

    async fn put(f: &Fixture, key: &str, data: &'static [u8], acl: CannedAcl) {
        f.gw.put_object(
            &owner(),
            "site",
            key,
            PutParams {
                content_length: Some(data.len() as u64),
                acl: acl.into(),
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
