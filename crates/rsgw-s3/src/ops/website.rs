//! Get/Put/DeleteBucketWebsite: the `WebsiteConfiguration` document to
//! and from the gateway's configuration (the website endpoint, which
//! serves it, is `crate::website`, before s3s).

use rsgw_gateway::{Redirect as GwRedirect, RedirectAll, RoutingRule as GwRule, WebsiteConfig};
use s3s::dto::*;
use s3s::{S3Request, S3Response, S3Result, s3_error};

use super::RsgwS3;
use crate::error::to_s3;

pub(super) async fn get_bucket_website(
    s3: &RsgwS3,
    req: S3Request<GetBucketWebsiteInput>,
) -> S3Result<S3Response<GetBucketWebsiteOutput>> {
    let rq = s3.requester(&req).await?;
    let cfg = s3
        .gw
        .get_bucket_website(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(to_s3_output(cfg)))
}

pub(super) async fn put_bucket_website(
    s3: &RsgwS3,
    req: S3Request<PutBucketWebsiteInput>,
) -> S3Result<S3Response<PutBucketWebsiteOutput>> {
    let rq = s3.requester(&req).await?;
    let i = req.input;
    let cfg = from_s3(i.website_configuration)?;
    s3.gw
        .put_bucket_website(&rq, &i.bucket, cfg)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(PutBucketWebsiteOutput::default()))
}

pub(super) async fn delete_bucket_website(
    s3: &RsgwS3,
    req: S3Request<DeleteBucketWebsiteInput>,
) -> S3Result<S3Response<DeleteBucketWebsiteOutput>> {
    let rq = s3.requester(&req).await?;
    s3.gw
        .delete_bucket_website(&rq, &req.input.bucket)
        .await
        .map_err(to_s3)?;
    Ok(S3Response::new(DeleteBucketWebsiteOutput::default()))
}

/// A status code element (`HttpRedirectCode`, `HttpErrorCodeReturnedEquals`)
/// as a number.
fn code(field: &str, v: Option<String>) -> S3Result<Option<u16>> {
    v.map(|v| {
        v.trim()
            .parse::<u16>()
            .map_err(|_| s3_error!(InvalidArgument, "{field} is not an HTTP status code: {v}"))
    })
    .transpose()
}

/// The gateway's configuration from S3's document.
fn from_s3(c: WebsiteConfiguration) -> S3Result<WebsiteConfig> {
    let mut rules = Vec::new();
    for r in c.routing_rules.unwrap_or_default() {
        let cond = r.condition.unwrap_or_default();
        let d = r.redirect;
        rules.push(GwRule {
            key_prefix: cond.key_prefix_equals,
            error_code: code(
                "HttpErrorCodeReturnedEquals",
                cond.http_error_code_returned_equals,
            )?,
            redirect: GwRedirect {
                host: d.host_name,
                protocol: d.protocol.map(|p| p.as_str().to_string()),
                replace_key_prefix: d.replace_key_prefix_with,
                replace_key: d.replace_key_with,
                code: code("HttpRedirectCode", d.http_redirect_code)?,
            },
        });
    }
    Ok(WebsiteConfig {
        index_suffix: c.index_document.map(|i| i.suffix),
        error_key: c.error_document.map(|e| e.key),
        redirect_all: c.redirect_all_requests_to.map(|r| RedirectAll {
            host: r.host_name,
            protocol: r.protocol.map(|p| p.as_str().to_string()),
        }),
        routing_rules: rules,
    })
}

/// S3's document of the gateway's configuration.
fn to_s3_output(c: WebsiteConfig) -> GetBucketWebsiteOutput {
    let rules = c
        .routing_rules
        .into_iter()
        .map(|r| RoutingRule {
            condition: (r.key_prefix.is_some() || r.error_code.is_some()).then(|| Condition {
                key_prefix_equals: r.key_prefix,
                http_error_code_returned_equals: r.error_code.map(|c| c.to_string()),
            }),
            redirect: Redirect {
                host_name: r.redirect.host,
                protocol: r.redirect.protocol.map(Protocol::from),
                replace_key_prefix_with: r.redirect.replace_key_prefix,
                replace_key_with: r.redirect.replace_key,
                http_redirect_code: r.redirect.code.map(|c| c.to_string()),
            },
        })
        .collect::<Vec<_>>();
    GetBucketWebsiteOutput {
        index_document: c.index_suffix.map(|suffix| IndexDocument { suffix }),
        error_document: c.error_key.map(|key| ErrorDocument { key }),
        redirect_all_requests_to: c.redirect_all.map(|r| RedirectAllRequestsTo {
            host_name: r.host,
            protocol: r.protocol.map(Protocol::from),
        }),
        routing_rules: (!rules.is_empty()).then_some(rules),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn configurations_round_trip_through_s3s_documents() {
        let doc = WebsiteConfiguration {
            index_document: Some(IndexDocument {
                suffix: "index.html".into(),
            }),
            error_document: Some(ErrorDocument {
                key: "err.html".into(),
            }),
            redirect_all_requests_to: None,
            routing_rules: Some(vec![RoutingRule {
                condition: Some(Condition {
                    key_prefix_equals: Some("docs/".into()),
                    http_error_code_returned_equals: Some("404".into()),
                }),
                redirect: Redirect {
                    host_name: Some("example.com".into()),
                    http_redirect_code: Some("302".into()),
                    protocol: Some(Protocol::from("https".to_string())),
                    replace_key_prefix_with: Some("d/".into()),
                    replace_key_with: None,
                },
            }]),
        };
        let cfg = from_s3(doc.clone()).expect("valid");
        assert_eq!(cfg.routing_rules[0].error_code, Some(404));
        assert_eq!(cfg.routing_rules[0].redirect.code, Some(302));
        let out = to_s3_output(cfg);
        assert_eq!(out.index_document, doc.index_document);
        assert_eq!(out.error_document, doc.error_document);
        assert_eq!(out.routing_rules, doc.routing_rules);
        let bad = WebsiteConfiguration {
            routing_rules: Some(vec![RoutingRule {
                condition: None,
                redirect: Redirect {
                    http_redirect_code: Some("soon".into()),
                    ..Default::default()
                },
            }]),
            ..doc
        };
        assert!(from_s3(bad).is_err());
    }
}
