//! Writing radosgw's layout: PutObject, DeleteObject, PutObjectAcl,
//! PutBucketAcl, Put/DeleteBucketPolicy, Put/DeleteBucketCors and
//! Put/DeleteBucketTagging of buckets
//! radosgw keeps, written through the zone (`rsgw_radosgw::writes`) as
//! radosgw writes them, so that radosgw, radosgw-admin and rsgw read them
//! alike. Authorization is the gateway's one decision (`rules::authz`)
//! over the bucket as radosgw keeps it; the body is checked as every PUT's
//! (length, Content-MD5, checksums) before the head makes it visible.
//!
//! What radosgw's layout would keep otherwise than rsgw's is refused with
//! `501 NotImplemented` rather than dropped: encryption, object lock.
//! A conditional write (`If-Match`, `If-None-Match: *`) is checked against
//! the head it replaces under the write's own guard.

use std::collections::BTreeMap;

use bytes::{Bytes, BytesMut};
use futures::StreamExt;
use md5::{Digest, Md5};
use rsgw_radosgw::acl::{
    Grant as ZoneGrant, Grantee as ZoneGrantee, PERM_FULL_CONTROL, PERM_READ, PERM_READ_ACP,
    PERM_WRITE, PERM_WRITE_ACP, Policy,
};
use rsgw_radosgw::cors::CorsRule as ZoneCorsRule;
use rsgw_radosgw::user::UserId;
use rsgw_radosgw::writes::{NewObject, PutCondition, STRIPE};
use rsgw_radosgw::zone::{Zone, ZoneBucket, ZoneError};

use crate::engine::write::Declared;
use crate::model::acl::{Acl, CannedAcl, Grantee, Permission};
use crate::model::cors::CorsRule;
use crate::model::error::{GatewayError, GatewayResult};
use crate::model::ids::now_secs;
use crate::model::object::ObjectMeta;
use crate::model::params::{BodyStream, PutParams, PutResult};
use crate::model::policy::BucketPolicy;
use crate::ops::gateway::Gateway;
use crate::ops::radosgw::{bucket_info_of, zone_bucket_for, zone_head};
use crate::rules::authz::{Access, Requester, Target, authorize, writer};
use crate::rules::cors::check_cors;
use crate::rules::names::validate_key;
use crate::rules::preconditions::check_put_conditions;
use crate::rules::tagging::check_bucket_tags;

/// The permission bits radosgw keeps for one of the gateway's.
fn perm_bits(p: Permission) -> u32 {
    match p {
        Permission::Read => PERM_READ,
        Permission::Write => PERM_WRITE,
        Permission::ReadAcp => PERM_READ_ACP,
        Permission::WriteAcp => PERM_WRITE_ACP,
        Permission::FullControl => PERM_FULL_CONTROL,
    }
}

/// A user as a grantee, with the display name radosgw keeps beside it.
async fn user_grant(zone: &Zone, uid: &str, permission: u32) -> ZoneGrant {
    let name = match zone.user(uid).await {
        Ok(u) => u.info.display_name,
        Err(_) => String::new(),
    };
    ZoneGrant {
        grantee: ZoneGrantee::User(UserId::parse(uid)),
        permission,
        name,
    }
}

/// The ACL radosgw would store for `acl` given by `owner` in a bucket of
/// `bucket_owner`: a canned ACL as radosgw expands it
/// (`RGWAccessControlPolicy_S3::create_canned`: the owner's full control,
/// then the canned grants), explicit grants as given (resolved to users).
pub(crate) async fn policy_of(zone: &Zone, acl: &Acl, owner: &str, bucket_owner: &str) -> Policy {
    let owner_grant = user_grant(zone, owner, PERM_FULL_CONTROL).await;
    let mut grants = Vec::new();
    match acl {
        Acl::Canned(canned) => {
            grants.push(owner_grant.clone());
            let group = |group, permission| ZoneGrant {
                grantee: ZoneGrantee::Group(group),
                permission,
                name: String::new(),
            };
            match canned {
                CannedAcl::Private => {}
                CannedAcl::PublicRead => grants.push(group(1, PERM_READ)),
                CannedAcl::PublicReadWrite => {
                    grants.push(group(1, PERM_READ));
                    grants.push(group(1, PERM_WRITE));
                }
                CannedAcl::AuthenticatedRead => grants.push(group(2, PERM_READ)),
                CannedAcl::BucketOwnerRead if bucket_owner != owner => {
                    grants.push(user_grant(zone, bucket_owner, PERM_READ).await);
                }
                CannedAcl::BucketOwnerFullControl if bucket_owner != owner => {
                    grants.push(user_grant(zone, bucket_owner, PERM_FULL_CONTROL).await);
                }
                CannedAcl::BucketOwnerRead | CannedAcl::BucketOwnerFullControl => {}
            }
        }
        Acl::Grants(given) => {
            for g in given {
                let bits = perm_bits(g.permission);
                grants.push(match &g.grantee {
                    Grantee::User(uid) => user_grant(zone, uid, bits).await,
                    Grantee::Email(email) => ZoneGrant {
                        grantee: ZoneGrantee::Email(email.clone()),
                        permission: bits,
                        name: String::new(),
                    },
                    Grantee::AllUsers | Grantee::AuthenticatedUsers => ZoneGrant {
                        grantee: ZoneGrantee::Group(if g.grantee == Grantee::AllUsers {
                            1
                        } else {
                            2
                        }),
                        permission: bits,
                        name: String::new(),
                    },
                });
            }
        }
    }
    Policy {
        owner: UserId::parse(owner),
        owner_display_name: owner_grant.name,
        grants,
    }
}

/// Refuses what radosgw's layout would keep otherwise than rsgw's.
pub(crate) fn refuse_unkept(params: &PutParams) -> GatewayResult<()> {
    let refused = |what: &str| {
        Err(GatewayError::NotConfigured(format!(
            "{what} on radosgw's layout: not written by this gateway (send it to radosgw)"
        )))
    };
    if params.sse.is_some() {
        return refused("server-side encryption");
    }
    if params.lock != Default::default() {
        return refused("object lock");
    }
    Ok(())
}

impl Gateway {
    /// [`Gateway::put_object`] on radosgw's layout: the body streamed
    /// into the object's tail stripes as it comes, its first 4 MiB kept
    /// for the head, which is written once the body is whole and as
    /// declared.
    pub(crate) async fn zone_put_object(
        &self,
        zone: &Zone,
        rq: &Requester,
        bucket: &str,
        key: &str,
        mut params: PutParams,
        body: BodyStream,
    ) -> GatewayResult<PutResult> {
        validate_key(key)?;
        let zb: ZoneBucket = zone.bucket(bucket).await.map_err(GatewayError::from)?;
        let info = bucket_info_of(bucket, &zb)?;
        authorize(
            rq,
            Access::PutObject,
            &Target::key(&info, key).requesting(&params.tags),
        )?;
        refuse_unkept(&params)?;
        if params
            .content_length
            .is_some_and(|l| l > self.opts.max_put_size)
        {
            return Err(GatewayError::EntityTooLarge);
        }
        let conditional = params.if_match.is_some() || params.if_none_match_any;
        // S3's rules (`check_put_conditions`) over the head's ETag
        let (if_match, if_none_match_any) = (params.if_match.clone(), params.if_none_match_any);
        let holds = move |etag: Option<&str>| {
            let conditions = PutParams {
                if_match: if_match.clone(),
                if_none_match_any,
                ..PutParams::default()
            };
            let cur = etag.map(|e| ObjectMeta {
                etag: e.to_string(),
                ..ObjectMeta::default()
            });
            check_put_conditions(&conditions, cur.as_ref()).is_ok()
        };
        if conditional {
            // refused before the body is read when it fails already; the
            // write checks again under its guard
            let cur = match zone.head_meta(&zb, key).await {
                Ok(h) => Some(h.etag),
                Err(ZoneError::NoSuchObject(_)) => None,
                Err(e) => return Err(e.into()),
            };
            if !holds(cur.as_deref()) {
                return Err(GatewayError::PreconditionFailed);
            }
        }
        let acl = self.resolve_acl(std::mem::take(&mut params.acl)).await?;
        let owner = writer(rq, &info).to_string();
        let policy = policy_of(zone, &acl, &owner, &info.owner).await;
        let mut w = zone.begin_put(&zb, key);
        let (head, size, md5) = match self.stream_stripes(zone, &mut w, body).await {
            Ok(done) => done,
            Err(e) => {
                zone.abort_put(w).await;
                return Err(e);
            }
        };
        let declared = Declared {
            content_length: params.content_length,
            content_md5: params.content_md5.take(),
            check: params.check.take(),
        };
        if let Err(e) = declared.check(size, &md5) {
            zone.abort_put(w).await;
            return Err(e);
        }
        let etag = hex::encode(md5);
        let obj = NewObject {
            etag: etag.clone(),
            headers: params.headers.clone(),
            meta: params.user_meta.clone(),
            tags: params.tags.clone(),
            acl: policy,
        };
        let condition: Option<PutCondition<'_>> = conditional.then_some(&holds);
        zone.finish_put(w, (head, size), &obj, condition)
            .await
            .map_err(GatewayError::from)?;
        Ok(PutResult {
            meta: ObjectMeta {
                size,
                etag,
                mtime: now_secs(),
                owner,
                acl,
                headers: params.headers,
                user_meta: params.user_meta,
                tags: params.tags,
                ..ObjectMeta::default()
            },
        })
    }

    /// Reads `body` into the head's first [`STRIPE`] bytes and tail
    /// stripes of [`STRIPE`] bytes written as they fill, refusing more than
    /// `max_put_size` bytes: the head's bytes, the size and the MD5.
    pub(crate) async fn stream_stripes(
        &self,
        zone: &Zone,
        w: &mut rsgw_radosgw::writes::ObjectWrite,
        mut body: BodyStream,
    ) -> GatewayResult<(Bytes, u64, [u8; 16])> {
        let stripe = STRIPE as usize;
        let mut md5 = Md5::new();
        let mut head = BytesMut::new();
        let mut pending = BytesMut::new();
        let mut size = 0u64;
        while let Some(piece) = body.next().await {
            let mut piece = piece?;
            size += piece.len() as u64;
            if size > self.opts.max_put_size {
                return Err(GatewayError::EntityTooLarge);
            }
            md5.update(&piece);
            if head.len() < stripe {
                let take = (stripe - head.len()).min(piece.len());
                head.extend_from_slice(&piece.split_to(take));
            }
            pending.extend_from_slice(&piece);
            while pending.len() >= stripe {
                let full = pending.split_to(stripe).freeze();
                zone.put_stripe(w, full).await.map_err(GatewayError::from)?;
            }
        }
        if !pending.is_empty() {
            zone.put_stripe(w, pending.freeze())
                .await
                .map_err(GatewayError::from)?;
        }
        Ok((head.freeze(), size, md5.finalize().into()))
    }

    /// [`Gateway::set_object_acl`] on radosgw's layout: the ACL as radosgw
    /// would store it, set on the head as radosgw sets it.
    pub(crate) async fn zone_set_object_acl(
        &self,
        zone: &Zone,
        rq: &Requester,
        (bucket, key, version): (&str, &str, Option<&str>),
        acl: Acl,
        named_owner: Option<&str>,
    ) -> GatewayResult<()> {
        let (zb, info, head, meta) = zone_head(
            zone,
            rq,
            (bucket, key, version),
            (Access::PutObjectAcl, None),
            false,
        )
        .await?;
        if named_owner.is_some_and(|o| o != meta.owner_in(&info)) {
            return Err(GatewayError::AccessDenied);
        }
        let acl = self.resolve_acl(acl).await?;
        let policy = policy_of(zone, &acl, &head.acl.owner.to_str(), &info.owner).await;
        zone.set_object_acl(&zb, key, &policy)
            .await
            .map_err(GatewayError::from)
    }

    /// [`Gateway::set_bucket_acl`] on radosgw's layout: the ACL as radosgw
    /// would store it, set on the bucket instance and announced to every
    /// gateway, radosgw's and rsgw's, as radosgw announces its changes.
    pub(crate) async fn zone_set_bucket_acl(
        &self,
        zone: &Zone,
        rq: &Requester,
        name: &str,
        acl: Acl,
        named_owner: Option<&str>,
    ) -> GatewayResult<()> {
        let (zb, info) = zone_bucket_for(zone, rq, name, Access::PutBucketAcl).await?;
        if named_owner.is_some_and(|o| o != info.owner) {
            return Err(GatewayError::AccessDenied);
        }
        let acl = self.resolve_acl(acl).await?.for_bucket();
        let policy = policy_of(zone, &acl, &info.owner, &info.owner).await;
        zone.set_bucket_acl(&zb, &policy)
            .await
            .map_err(GatewayError::from)
    }

    /// [`Gateway::put_object_tagging`] (`tags`) and
    /// [`Gateway::delete_object_tagging`] (none) on radosgw's layout: the
    /// tags set on the head as radosgw sets them (`access` decides,
    /// with the tags requested).
    pub(crate) async fn zone_set_object_tags(
        &self,
        zone: &Zone,
        rq: &Requester,
        (bucket, key, version): (&str, &str, Option<&str>),
        access: Access,
        tags: &BTreeMap<String, String>,
    ) -> GatewayResult<()> {
        let requested = (access == Access::PutObjectTagging).then_some(tags);
        let (zb, _, _, _) =
            zone_head(zone, rq, (bucket, key, version), (access, requested), false).await?;
        zone.set_object_tags(&zb, key, tags)
            .await
            .map_err(GatewayError::from)
    }

    /// [`Gateway::put_bucket_tagging`] (`Some` tags, checked as on rsgw's
    /// layout) and [`Gateway::delete_bucket_tagging`] (`None`) on radosgw's
    /// layout: the tags set on the bucket instance as radosgw encodes them,
    /// or removed, and the change announced.
    pub(crate) async fn zone_set_bucket_tags(
        &self,
        zone: &Zone,
        rq: &Requester,
        name: &str,
        tags: Option<Vec<(String, String)>>,
    ) -> GatewayResult<()> {
        let (zb, _) = zone_bucket_for(zone, rq, name, Access::PutBucketTagging).await?;
        let tags = match tags {
            Some(tags) => check_bucket_tags(tags)?,
            None => BTreeMap::new(),
        };
        zone.set_bucket_tags(&zb, &tags)
            .await
            .map_err(GatewayError::from)
    }

    /// [`Gateway::put_bucket_policy`] (`Some` document, checked as on
    /// rsgw's layout) and [`Gateway::delete_bucket_policy`] (`None`) on
    /// radosgw's layout: the document set on the bucket instance as sent,
    /// or removed, and the change announced.
    pub(crate) async fn zone_set_bucket_policy(
        &self,
        zone: &Zone,
        rq: &Requester,
        name: &str,
        document: Option<&str>,
    ) -> GatewayResult<()> {
        let access = match document {
            Some(_) => Access::PutBucketPolicy,
            None => Access::DeleteBucketPolicy,
        };
        let (zb, info) = zone_bucket_for(zone, rq, name, access).await?;
        if let Some(text) = document {
            BucketPolicy::parse(text, &info.name).map_err(GatewayError::MalformedPolicy)?;
        }
        zone.set_bucket_policy(&zb, document)
            .await
            .map_err(GatewayError::from)
    }

    /// [`Gateway::put_bucket_cors`] (`Some` rules, checked as on rsgw's
    /// layout) and [`Gateway::delete_bucket_cors`] (`None`) on radosgw's layout: the rules
    /// set on the bucket instance as radosgw encodes them, or removed, and
    /// the change announced.
    pub(crate) async fn zone_set_bucket_cors(
        &self,
        zone: &Zone,
        rq: &Requester,
        name: &str,
        rules: Option<Vec<CorsRule>>,
    ) -> GatewayResult<()> {
        let (zb, _) = zone_bucket_for(zone, rq, name, Access::PutBucketCors).await?;
        if let Some(rules) = &rules {
            check_cors(rules)?;
        }
        let rules: Vec<ZoneCorsRule> = rules
            .unwrap_or_default()
            .iter()
            .map(|r| {
                ZoneCorsRule::new(
                    r.id.as_deref(),
                    &r.allowed_methods,
                    (&r.allowed_origins, &r.allowed_headers, &r.expose_headers),
                    r.max_age_seconds.and_then(|a| u32::try_from(a).ok()),
                )
            })
            .collect();
        zone.set_bucket_cors(&zb, &rules)
            .await
            .map_err(GatewayError::from)
    }

    /// [`Gateway::delete_object`] on radosgw's layout: the head removed
    /// between the index's prepare and complete steps, then its tails.
    /// Removing a key that does not exist succeeds, as in S3.
    pub(crate) async fn zone_delete_object(
        &self,
        zone: &Zone,
        rq: &Requester,
        bucket: &str,
        key: &str,
    ) -> GatewayResult<()> {
        let zb = zone.bucket(bucket).await.map_err(GatewayError::from)?;
        let info = bucket_info_of(bucket, &zb)?;
        authorize(rq, Access::DeleteObject, &Target::key(&info, key))?;
        zone.delete_object(&zb, key)
            .await
            .map_err(GatewayError::from)?;
        Ok(())
    }
}
