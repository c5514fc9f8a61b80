//! Serving radosgw's layout (`[store] layout = "radosgw"`): the reads of
//! keys, users, buckets, listings and objects answered from what radosgw
//! wrote, through the zone reader (`rsgw_radosgw::zone`), converted to the
//! gateway's model so that the one authorization decision (`rules::authz`)
//! and S3's rules (conditions, ranges) stay the gateway's. Every write is
//! refused before it gets here (the S3 layer), and the store beneath is
//! read-only besides ([`Gateway::serving_radosgw`]).
//!
//! radosgw's metadata records come through the zone's record cache, which
//! radosgw's own announcements keep coherent (`cache::coherence`), so what
//! radosgw changes is seen by the next request; listings and objects are
//! read from RADOS on every request.

use std::collections::BTreeMap;
use std::time::{SystemTime, UNIX_EPOCH};

use futures::StreamExt;
use rsgw_radosgw::acl::{
    Grantee as ZoneGrantee, PERM_FULL_CONTROL, PERM_READ, PERM_READ_ACP, PERM_WRITE,
    PERM_WRITE_ACP, Policy,
};
use rsgw_radosgw::bucket::WebsiteConf as ZoneWebsite;
use rsgw_radosgw::index::Category;
use rsgw_radosgw::zone::{Head, Zone, ZoneBucket, ZoneError};

use crate::model::acl::{Acl, Grant, Grantee, Permission};
use crate::model::bucket::BucketInfo;
use crate::model::cors::CorsRule;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::index::Usage;
use crate::model::object::ObjectMeta;
use crate::model::params::{
    BodyStream, BucketsListed, BucketsPage, GetParams, GetResult, ListEntry, ListParams,
    ListResult, ObjectAcl,
};
use crate::model::policy::BucketPolicy;
use crate::model::user::User;
use crate::model::versioning::{NULL_VERSION, check_version_id};
use crate::model::website::{Redirect, RedirectAll, RoutingRule, WebsiteConfig};
use crate::ops::gateway::Gateway;
use crate::ops::list::past;
use crate::rules::authz::{Access, Requester, Target, authorize, missing_key};
use crate::rules::crypt::object_key;
use crate::rules::preconditions::{check_conditions, resolve_range};

/// Bytes of an object read from RADOS per piece of a GET's body.
const BODY_PIECE: u64 = 4 << 20;

pub(crate) fn secs(t: SystemTime) -> f64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0.0, |d| d.as_secs_f64())
}

/// radosgw's ACL as the gateway's grants. Referer grants (Swift's) and
/// unknown grantee types give nothing in S3.
pub(crate) fn acl_of(policy: &Policy) -> Acl {
    let mut grants = Vec::new();
    for g in &policy.grants {
        let grantee = match &g.grantee {
            ZoneGrantee::User(u) => Grantee::User(u.to_str()),
            ZoneGrantee::Email(e) => Grantee::Email(e.clone()),
            ZoneGrantee::Group(1) => Grantee::AllUsers,
            ZoneGrantee::Group(2) => Grantee::AuthenticatedUsers,
            ZoneGrantee::Group(_) | ZoneGrantee::Referer(_) | ZoneGrantee::Unknown(_) => continue,
        };
        if g.permission & PERM_FULL_CONTROL == PERM_FULL_CONTROL {
            grants.push(Grant {
                grantee,
                permission: Permission::FullControl,
            });
            continue;
        }
        for (bit, permission) in [
            (PERM_READ, Permission::Read),
            (PERM_WRITE, Permission::Write),
            (PERM_READ_ACP, Permission::ReadAcp),
            (PERM_WRITE_ACP, Permission::WriteAcp),
        ] {
            if g.permission & bit != 0 {
                grants.push(Grant {
                    grantee: grantee.clone(),
                    permission,
                });
            }
        }
    }
    Acl::Grants(grants)
}

/// A non-empty string of radosgw's; radosgw keeps "unset" as empty.
fn set(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// radosgw's website configuration as the gateway's. radosgw applies a
/// rule's fields only when they are not empty (`RGWBWRoutingRule`), and so
/// does this reading: an empty `ReplaceKeyPrefixWith` is no replacement.
fn website_of(w: &ZoneWebsite) -> WebsiteConfig {
    let code = |c: u16| (c != 0).then_some(c);
    WebsiteConfig {
        index_suffix: set(&w.index_doc_suffix),
        error_key: set(&w.error_doc),
        redirect_all: set(&w.redirect_all.hostname).map(|host| RedirectAll {
            host,
            protocol: set(&w.redirect_all.protocol),
        }),
        routing_rules: w
            .routing_rules
            .iter()
            .map(|r| RoutingRule {
                key_prefix: set(&r.key_prefix_equals),
                error_code: code(r.http_error_code_returned_equals),
                redirect: Redirect {
                    host: set(&r.redirect.hostname),
                    protocol: set(&r.redirect.protocol),
                    replace_key_prefix: set(&r.replace_key_prefix_with),
                    replace_key: set(&r.replace_key_with),
                    code: code(r.redirect.http_redirect_code),
                },
            })
            .collect(),
    }
}

/// A bucket radosgw keeps, as the gateway's record of it.
pub(crate) fn bucket_info_of(name: &str, b: &ZoneBucket) -> GatewayResult<BucketInfo> {
    let policy = match &b.policy {
        Some(text) => Some(BucketPolicy::parse(text, name).map_err(|e| {
            GatewayError::Corrupt(format!("bucket {name}'s policy (radosgw's): {e}"))
        })?),
        None => None,
    };
    let cors = (!b.cors.is_empty()).then(|| {
        b.cors
            .iter()
            .map(|r| CorsRule {
                id: (!r.id.is_empty()).then(|| r.id.clone()),
                allowed_origins: r.allowed_origins.clone(),
                allowed_methods: r.methods().into_iter().map(str::to_string).collect(),
                allowed_headers: r.allowed_headers.clone(),
                expose_headers: r.expose_headers.clone(),
                max_age_seconds: r.max_age.and_then(|a| i32::try_from(a).ok()),
            })
            .collect()
    });
    Ok(BucketInfo {
        policy,
        cors,
        tags: b.tags.clone(),
        website: b.info.website.as_ref().map(website_of),
        ..BucketInfo::plain(
            name,
            b.info.bucket.marker.clone(),
            b.info.owner.to_str(),
            secs(b.info.creation_time),
            acl_of(&b.acl),
            b.info.index.num_shards.max(1),
        )
    })
}

/// A bucket radosgw keeps, its record and the gateway's, once `rq` may do
/// `access` to it.
pub(crate) async fn zone_bucket_for(
    zone: &Zone,
    rq: &Requester,
    name: &str,
    access: Access,
) -> GatewayResult<(ZoneBucket, BucketInfo)> {
    let zb = zone.bucket(name).await.map_err(GatewayError::from)?;
    let info = bucket_info_of(name, &zb)?;
    authorize(rq, access, &Target::bucket(&info))?;
    Ok((zb, info))
}

/// An object's head as the gateway's metadata of it.
pub(crate) fn meta_of(head: &Head) -> ObjectMeta {
    ObjectMeta {
        size: head.size(),
        etag: head.etag.clone(),
        mtime: secs(head.mtime),
        owner: head.acl.owner.to_str(),
        acl: acl_of(&head.acl),
        headers: head.headers.clone(),
        user_meta: head.meta.clone(),
        tags: head.tags.clone(),
        ..ObjectMeta::default()
    }
}

/// A key of radosgw's bucket as a GET, HEAD or GetObjectAcl finds it:
/// the bucket (radosgw's record and the gateway's), the head (with its
/// first bytes when `bytes`) and its metadata, authorized for `access`.
/// Only the null version exists on this layout.
pub(crate) async fn zone_head(
    zone: &Zone,
    rq: &Requester,
    (bucket, key, version): (&str, &str, Option<&str>),
    (access, requested): (Access, Option<&BTreeMap<String, String>>),
    bytes: bool,
) -> GatewayResult<(ZoneBucket, BucketInfo, Head, ObjectMeta)> {
    let zb = zone.bucket(bucket).await.map_err(GatewayError::from)?;
    let info = bucket_info_of(bucket, &zb)?;
    if let Some(v) = version {
        check_version_id(v)?;
        if v != NULL_VERSION {
            return Err(GatewayError::NoSuchVersion);
        }
    }
    let read = if bytes {
        zone.head(&zb, key).await
    } else {
        zone.head_meta(&zb, key).await
    };
    let head = match read {
        Ok(h) => h,
        Err(ZoneError::NoSuchObject(_)) => return Err(missing_key(rq, &info)),
        Err(e) => return Err(GatewayError::from(e)),
    };
    let meta = meta_of(&head);
    let target = Target::stored(&info, key, &meta);
    let target = match requested {
        Some(tags) => target.requesting(tags),
        None => target,
    };
    authorize(rq, access, &target)?;
    Ok((zb, info, head, meta))
}

impl Gateway {
    /// The zone this gateway serves, if it serves radosgw's layout.
    pub(crate) fn zone(&self) -> Option<&Zone> {
        self.engine.zone.as_ref()
    }

    /// [`Gateway::lookup_key`] on radosgw's users.
    pub(crate) async fn zone_lookup_key(
        zone: &Zone,
        access_key: &str,
    ) -> GatewayResult<(String, String)> {
        let (user, secret) = zone
            .user_by_key(access_key)
            .await
            .map_err(GatewayError::from)?;
        if user.info.suspended {
            return Err(GatewayError::UserSuspended);
        }
        Ok((user.uid, secret))
    }

    /// [`Gateway::user_info`] on radosgw's users: who they are, their S3
    /// keys, whether suspended (quotas and caps stay radosgw's to apply).
    pub(crate) async fn zone_user_info(zone: &Zone, uid: &str) -> GatewayResult<User> {
        let user = zone.user(uid).await.map_err(GatewayError::from)?;
        let info = user.info;
        Ok(User {
            user_id: user.uid.clone(),
            display_name: info.display_name,
            email: (!info.email.is_empty()).then_some(info.email),
            keys: info
                .access_keys
                .into_iter()
                .map(|k| crate::model::user::AccessKey {
                    user: user.uid.clone(),
                    access_key: k.id,
                    secret_key: k.key,
                })
                .collect(),
            created: 0.0,
            user_quota: Default::default(),
            bucket_quota: Default::default(),
            caps: Default::default(),
            suspended: info.suspended,
            max_buckets: i64::from(info.max_buckets),
        })
    }

    /// [`Gateway::bucket_info`] on radosgw's buckets.
    pub(crate) async fn zone_bucket_info(zone: &Zone, name: &str) -> GatewayResult<BucketInfo> {
        let bucket = zone.bucket(name).await.map_err(GatewayError::from)?;
        bucket_info_of(name, &bucket)
    }

    /// [`Gateway::user_buckets`] on radosgw's buckets.
    pub(crate) async fn zone_user_buckets(zone: &Zone, uid: &str) -> GatewayResult<Vec<String>> {
        let mut names: Vec<String> = zone
            .user_buckets(uid)
            .await
            .map_err(GatewayError::from)?
            .into_iter()
            .map(|b| b.name)
            .collect();
        names.sort();
        Ok(names)
    }

    /// [`Gateway::list_buckets`] on radosgw's buckets: from the user's
    /// bucket list alone (its names and creation times), as radosgw
    /// answers ListBuckets, so that a bucket this gateway does not serve
    /// (a versioned one) is still listed.
    pub(crate) async fn zone_list_buckets(
        zone: &Zone,
        uid: &str,
        page: &BucketsPage,
    ) -> GatewayResult<BucketsListed> {
        let mut buckets = zone.user_buckets(uid).await.map_err(GatewayError::from)?;
        buckets.sort_by(|a, b| a.name.cmp(&b.name));
        let mut out = BucketsListed::default();
        for b in buckets
            .iter()
            .filter(|b| b.name.starts_with(&page.prefix) && b.name.as_str() > page.after.as_str())
        {
            if page.max.is_some_and(|max| out.buckets.len() >= max) {
                out.next_after = out.buckets.last().map(|b| b.name.clone());
                break;
            }
            out.buckets.push(BucketInfo::plain(
                &b.name,
                b.marker.clone(),
                uid.to_string(),
                secs(b.creation_time),
                Acl::default(),
                1,
            ));
        }
        Ok(out)
    }

    /// [`Gateway::get_object`] on radosgw's objects: the head read with
    /// its first bytes, the rest piece by piece through its manifest as
    /// the body is sent.
    pub(crate) async fn zone_get_object(
        &self,
        zone: &Zone,
        rq: &Requester,
        bucket: &str,
        key: &str,
        params: GetParams,
    ) -> GatewayResult<GetResult> {
        // a HEAD reads no bytes
        let (zb, _, head, meta) = zone_head(
            zone,
            rq,
            (bucket, key, params.version_id.as_deref()),
            (Access::GetObject, None),
            !params.head_only,
        )
        .await?;
        // radosgw's encrypted objects are refused by the reader: a
        // customer key given for a plain object is refused as rsgw's own
        object_key(
            None,
            params.sse_key.as_ref(),
            &self.opts.crypt,
            rq.secure,
            None,
        )?;
        check_conditions(&params, &meta)?;
        let range = match params.range {
            Some(spec) => resolve_range(spec, &meta)?,
            None => None,
        };
        if params.head_only {
            return Ok(GetResult {
                meta,
                range,
                parts_count: None,
                body: None,
                version_id: None,
            });
        }
        let (start, end) = range.unwrap_or((0, meta.size));
        let zone = zone.clone();
        let body: BodyStream = futures::stream::unfold(start, move |at| {
            let (zone, zb, head) = (zone.clone(), zb.clone(), head.clone());
            async move {
                if at >= end {
                    return None;
                }
                let len = BODY_PIECE.min(end - at);
                match zone.read(&zb, &head, at, len).await {
                    Ok(bytes) => Some((Ok(bytes), at + len)),
                    // the stream ends after the error
                    Err(e) => Some((Err(GatewayError::from(e)), end)),
                }
            }
        })
        .boxed();
        Ok(GetResult {
            meta,
            range,
            parts_count: None,
            body: Some(body),
            version_id: None,
        })
    }

    /// What a bucket radosgw keeps holds, as radosgw's HeadBucket counts it:
    /// the objects and bytes of its shards' `rgw.main` category (an
    /// upload's parts included, its meta object not).
    pub(crate) async fn zone_bucket_usage(zone: &Zone, name: &str) -> GatewayResult<Usage> {
        let zb = zone.bucket(name).await.map_err(GatewayError::from)?;
        let mut usage = Usage::default();
        for header in zone.shard_headers(&zb).await.map_err(GatewayError::from)? {
            for (category, stats) in header.stats {
                if category == Category::Main {
                    usage += Usage {
                        objects: stats.num_entries,
                        bytes: stats.total_size,
                    };
                }
            }
        }
        Ok(usage)
    }

    /// [`Gateway::get_object_acl`] on radosgw's objects: the head's
    /// `user.rgw.acl`, read without the object's bytes.
    pub(crate) async fn zone_get_object_acl(
        zone: &Zone,
        rq: &Requester,
        bucket: &str,
        key: &str,
        version: Option<&str>,
    ) -> GatewayResult<ObjectAcl> {
        let (_, info, _, meta) = zone_head(
            zone,
            rq,
            (bucket, key, version),
            (Access::GetObjectAcl, None),
            false,
        )
        .await?;
        Ok(ObjectAcl {
            owner: meta.owner_in(&info).to_string(),
            acl: meta.acl,
            bucket_owner: info.owner,
        })
    }

    /// [`Gateway::list_objects`] on radosgw's bucket index: the zone's
    /// listing in key order, grouped by the delimiter as S3 groups keys.
    pub(crate) async fn zone_list_objects(
        &self,
        zone: &Zone,
        rq: &Requester,
        bucket: &str,
        p: &ListParams,
    ) -> GatewayResult<ListResult> {
        let zb = zone.bucket(bucket).await.map_err(GatewayError::from)?;
        let info = bucket_info_of(bucket, &zb)?;
        authorize(rq, Access::ListBucket, &Target::listing(&info, p))?;
        let mut out = ListResult::default();
        if p.max_keys == 0 {
            return Ok(out);
        }
        let delim = p.delimiter.as_deref().filter(|d| !d.is_empty());
        let mut after = if p.start_after.as_str() < p.prefix.as_str() {
            String::new()
        } else {
            p.start_after.clone()
        };
        'pages: loop {
            let taken = out.entries.len() + out.common_prefixes.len();
            // room for the rest of the page and one more, which tells
            // whether the page is truncated
            let want = p.max_keys - taken + 1;
            let page = zone
                .list(&zb, &p.prefix, &after, want)
                .await
                .map_err(GatewayError::from)?;
            if page.entries.is_empty() {
                break;
            }
            let mut seek = None;
            for o in page.entries {
                if out.entries.len() + out.common_prefixes.len() >= p.max_keys {
                    out.is_truncated = true;
                    break 'pages;
                }
                if let Some(d) = delim
                    && let Some(pos) = o.key[p.prefix.len()..].find(d)
                {
                    let cp = o.key[..p.prefix.len() + pos + d.len()].to_string();
                    if cp.as_str() > p.start_after.as_str()
                        && out.common_prefixes.last() != Some(&cp)
                    {
                        out.next_marker = Some(cp.clone());
                        out.common_prefixes.push(cp.clone());
                    }
                    // go on past every key under the prefix
                    seek = Some(past(&cp));
                    break;
                }
                let m = &o.entry.meta;
                out.next_marker = Some(o.key.clone());
                out.entries.push(ListEntry {
                    key: o.key.clone(),
                    size: m.accounted_size,
                    etag: m.etag.clone(),
                    mtime: secs(m.mtime),
                    owner: m.owner.clone(),
                });
                after = o.key;
            }
            match seek {
                Some(s) => after = s,
                None if page.truncated => {}
                None => break,
            }
        }
        if !out.is_truncated {
            out.next_marker = None;
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use rsgw_radosgw::acl::Grant as ZoneGrant;
    use rsgw_radosgw::user::UserId;

    use super::*;

    fn grant(grantee: ZoneGrantee, permission: u32) -> ZoneGrant {
        ZoneGrant {
            grantee,
            permission,
            name: String::new(),
        }
    }

    #[test]
    fn radosgws_grants_become_the_gateways() {
        let policy = Policy {
            owner: UserId::parse("alice"),
            owner_display_name: "Alice".into(),
            grants: vec![
                grant(ZoneGrantee::User(UserId::parse("alice")), PERM_FULL_CONTROL),
                grant(
                    ZoneGrantee::User(UserId::parse("tn$bob")),
                    PERM_READ | PERM_READ_ACP,
                ),
                grant(ZoneGrantee::Group(1), PERM_READ),
                grant(ZoneGrantee::Group(2), PERM_WRITE),
                grant(ZoneGrantee::Referer("*.example".into()), PERM_READ),
            ],
        };
        let user = |u: &str, p| Grant {
            grantee: Grantee::User(u.into()),
            permission: p,
        };
        assert_eq!(
            acl_of(&policy),
            Acl::Grants(vec![
                user("alice", Permission::FullControl),
                user("tn$bob", Permission::Read),
                user("tn$bob", Permission::ReadAcp),
                Grant {
                    grantee: Grantee::AllUsers,
                    permission: Permission::Read,
                },
                Grant {
                    grantee: Grantee::AuthenticatedUsers,
                    permission: Permission::Write,
                },
            ])
        );
    }

    #[test]
    fn radosgws_website_keeps_what_radosgw_applies() {
        use rsgw_radosgw::bucket::{Redirect as ZoneRedirect, RoutingRule as ZoneRule};
        let w = ZoneWebsite {
            index_doc_suffix: "index.html".into(),
            routing_rules: vec![
                ZoneRule {
                    key_prefix_equals: "docs/".into(),
                    replace_key_prefix_with: "documents/".into(),
                    ..ZoneRule::default()
                },
                ZoneRule {
                    http_error_code_returned_equals: 404,
                    redirect: ZoneRedirect {
                        protocol: "https".into(),
                        hostname: "elsewhere.example".into(),
                        http_redirect_code: 302,
                    },
                    ..ZoneRule::default()
                },
            ],
            ..ZoneWebsite::default()
        };
        let cfg = website_of(&w);
        assert_eq!(cfg.index_suffix.as_deref(), Some("index.html"));
        // radosgw's empty fields are unset, not empty values
        assert_eq!((cfg.error_key, cfg.redirect_all), (None, None));
        assert_eq!(
            cfg.routing_rules,
            vec![
                RoutingRule {
                    key_prefix: Some("docs/".into()),
                    error_code: None,
                    redirect: Redirect {
                        replace_key_prefix: Some("documents/".into()),
                        ..Redirect::default()
                    },
                },
                RoutingRule {
                    key_prefix: None,
                    error_code: Some(404),
                    redirect: Redirect {
                        host: Some("elsewhere.example".into()),
                        protocol: Some("https".into()),
                        code: Some(302),
                        ..Redirect::default()
                    },
                },
            ]
        );
    }
}
