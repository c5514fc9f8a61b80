//! radosgw's ACLs: the `user.rgw.acl` xattr of a bucket instance and of
//! an object's head, an `RGWAccessControlPolicy` (`rgw_acl.h` in
//! ceph/ceph): the owner, and the grants keyed by grantee, with radosgw's
//! own indexes of them (permissions per user and per group) and Swift's
//! referer rules.

use serde_json::{Value, json};

use crate::encoding::{Decoder, Encoder, Header, Result};
use crate::user::UserId;

/// `RGW_PERM_READ`.
pub const PERM_READ: u32 = 0x01;
/// `RGW_PERM_WRITE`.
pub const PERM_WRITE: u32 = 0x02;
/// `RGW_PERM_READ_ACP`.
pub const PERM_READ_ACP: u32 = 0x04;
/// `RGW_PERM_WRITE_ACP`.
pub const PERM_WRITE_ACP: u32 = 0x08;
/// `RGW_PERM_FULL_CONTROL`: the four above.
pub const PERM_FULL_CONTROL: u32 = PERM_READ | PERM_WRITE | PERM_READ_ACP | PERM_WRITE_ACP;

/// Who a grant is for (`ACLGranteeType` and the fields it selects).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Grantee {
    /// A user by id (`ACL_TYPE_CANON_USER`, 0).
    User(UserId),
    /// A user by e-mail address (`ACL_TYPE_EMAIL_USER`, 1).
    Email(String),
    /// `ACL_TYPE_GROUP` (2): 1 all users, 2 authenticated users.
    Group(u32),
    /// Swift's referer rules (`ACL_TYPE_REFERER`, 4): the URL pattern.
    Referer(String),
    /// Any other type number radosgw may write (`ACL_TYPE_UNKNOWN`, 3).
    Unknown(u32),
}

/// One grant (`ACLGrant`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// Who.
    pub grantee: Grantee,
    /// `RGW_PERM_*` bits.
    pub permission: u32,
    /// The grantee's display name, as stored.
    pub name: String,
}

/// An ACL (`RGWAccessControlPolicy`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Policy {
    /// The owner.
    pub owner: UserId,
    /// The owner's display name.
    pub owner_display_name: String,
    /// The grants, in the grant map's order (by grantee key).
    pub grants: Vec<Grant>,
}

/// Decodes a `user.rgw.acl` xattr's value; every byte must belong to it.
pub fn decode_policy(bytes: &[u8]) -> Result<Policy> {
    Decoder::whole(bytes, |d| {
        d.block("RGWAccessControlPolicy", Header::legacy(2, 2, 2), |d, _| {
            let (owner, owner_display_name) =
                d.block("ACLOwner", Header::legacy(3, 2, 2), |d, _| {
                    Ok((
                        UserId::parse(&d.string("ACLOwner.id")?),
                        d.string("ACLOwner.display_name")?,
                    ))
                })?;
            let grants = d.block("RGWAccessControlList", Header::legacy(4, 3, 3), |d, v| {
                d.bool("RGWAccessControlList.maps_initialized")?;
                // radosgw's index of the grants by user: rebuilt from them
                d.seq("RGWAccessControlList.acl_user_map", 8, |d| {
                    d.string("RGWAccessControlList.acl_user_map")?;
                    d.i32("RGWAccessControlList.acl_user_map")
                })?;
                let mut grants = d.seq("RGWAccessControlList.grant_map", 10, |d| {
                    d.string("RGWAccessControlList.grant_map")?;
                    decode_grant(d)
                })?;
                if v >= 2 {
                    d.seq("RGWAccessControlList.acl_group_map", 8, |d| {
                        d.u32("RGWAccessControlList.acl_group_map")?;
                        d.i32("RGWAccessControlList.acl_group_map")
                    })?;
                }
                if v >= 4 {
                    let referers = d.seq("RGWAccessControlList.referer_list", 14, |d| {
                        d.block("ACLReferer", Header::Start { known: 1 }, |d, _| {
                            Ok(Grant {
                                grantee: Grantee::Referer(d.string("ACLReferer.url_spec")?),
                                permission: d.u32("ACLReferer.perm")?,
                                name: String::new(),
                            })
                        })
                    })?;
                    grants.extend(referers);
                }
                Ok(grants)
            })?;
            Ok(Policy {
                owner,
                owner_display_name,
                grants,
            })
        })
    })
}

fn decode_grant(d: &mut Decoder<'_>) -> Result<Grant> {
    d.block("ACLGrant", Header::legacy(5, 3, 3), |d, v| {
        let kind = d.block("ACLGranteeType", Header::legacy(2, 2, 2), |d, _| {
            d.u32("ACLGranteeType.type")
        })?;
        let id = d.string("ACLGrant.id")?;
        let uri = d.string("ACLGrant.uri")?;
        let email = d.string("ACLGrant.email")?;
        let permission = d.block("ACLPermission", Header::legacy(2, 2, 2), |d, _| {
            d.u32("ACLPermission.flags")
        })?;
        let name = d.string("ACLGrant.name")?;
        let group = if v > 1 {
            d.u32("ACLGrant.group")?
        } else {
            group_of_uri(&uri)
        };
        let url_spec = if v >= 5 {
            d.string("ACLGrant.url_spec")?
        } else {
            String::new()
        };
        let grantee = match kind {
            0 => Grantee::User(UserId::parse(&id)),
            1 => Grantee::Email(email),
            2 => Grantee::Group(group),
            4 => Grantee::Referer(url_spec),
            other => Grantee::Unknown(other),
        };
        Ok(Grant {
            grantee,
            permission,
            name,
        })
    })
}

/// `ACLGrant_S3::uri_to_group`: the group a (version 1) grant's URI names.
fn encode_grant(e: &mut Encoder, g: &Grant) {
    let (kind, id, email, group) = match &g.grantee {
        Grantee::User(u) => (0, u.to_str(), String::new(), 0),
        Grantee::Email(m) => (1, String::new(), m.clone(), 0),
        Grantee::Group(n) => (2, String::new(), String::new(), *n),
        Grantee::Referer(_) => (4, String::new(), String::new(), 0),
        Grantee::Unknown(k) => (*k, String::new(), String::new(), 0),
    };
    let url_spec = match &g.grantee {
        Grantee::Referer(u) => u.as_str(),
        _ => "",
    };
    e.block(5, 3, |e| {
        e.block(2, 2, |e| {
            e.u32(kind);
        });
        // radosgw writes no URI: a group is its number
        e.string(&id).string("").string(&email);
        e.block(2, 2, |e| {
            e.i32(g.permission as i32);
        });
        e.string(&g.name).u32(group).string(url_spec);
    });
}

fn group_of_uri(uri: &str) -> u32 {
    match uri {
        "http://acs.amazonaws.com/groups/global/AllUsers" => 1,
        "http://acs.amazonaws.com/groups/global/AuthenticatedUsers" => 2,
        _ => 0,
    }
}

impl Policy {
    /// The `user.rgw.acl` xattr's value, as radosgw 16.2 encodes it, with
    /// radosgw's indexes of the grants (permissions by user and by group)
    /// built from them. Grants are kept in radosgw's `grant_map` order:
    /// by grantee id (empty for groups), then as given.
    pub fn encode(&self) -> Vec<u8> {
        let mut by_user: std::collections::BTreeMap<String, u32> = Default::default();
        let mut by_group: std::collections::BTreeMap<u32, u32> = Default::default();
        let mut keyed: Vec<(String, &Grant)> = Vec::new();
        let mut referers = Vec::new();
        for g in &self.grants {
            match &g.grantee {
                Grantee::Referer(url) => {
                    referers.push((url, g.permission));
                    if url == "*" {
                        *by_group.entry(1).or_default() |= g.permission;
                    }
                    continue;
                }
                Grantee::Group(n) => *by_group.entry(*n).or_default() |= g.permission,
                Grantee::User(u) => *by_user.entry(u.to_str()).or_default() |= g.permission,
                Grantee::Email(_) | Grantee::Unknown(_) => {
                    *by_user.entry(String::new()).or_default() |= g.permission;
                }
            }
            let key = match &g.grantee {
                Grantee::User(u) => u.to_str(),
                _ => String::new(),
            };
            keyed.push((key, g));
        }
        keyed.sort_by(|a, b| a.0.cmp(&b.0));
        let mut e = Encoder::new();
        e.block(2, 2, |e| {
            e.block(3, 2, |e| {
                e.string(&self.owner.to_str())
                    .string(&self.owner_display_name);
            });
            e.block(4, 3, |e| {
                e.bool(true);
                e.seq(by_user.iter(), |e, (id, perm)| {
                    e.string(id).i32(*perm as i32);
                });
                e.seq(keyed.iter(), |e, (key, g)| {
                    e.string(key);
                    encode_grant(e, g);
                });
                e.seq(by_group.iter(), |e, (group, perm)| {
                    e.u32(*group).i32(*perm as i32);
                });
                e.seq(referers.iter(), |e, (url, perm)| {
                    e.block(1, 1, |e| {
                        e.string(url).u32(*perm);
                    });
                });
            });
        });
        e.into_bytes()
    }

    /// The permission bits `uid` gets from grants to it by id (e-mail
    /// grants were resolved to ids when radosgw stored them).
    pub fn user_permission(&self, uid: &UserId) -> u32 {
        self.grants
            .iter()
            .filter(|g| matches!(&g.grantee, Grantee::User(u) if u == uid))
            .fold(0, |acc, g| acc | g.permission)
    }

    /// The permission bits granted to group `group` (1 all users, 2
    /// authenticated users).
    pub fn group_permission(&self, group: u32) -> u32 {
        self.grants
            .iter()
            .filter(|g| g.grantee == Grantee::Group(group))
            .fold(0, |acc, g| acc | g.permission)
    }

    /// The policy as S3 names it: owner and grants, each grantee by id,
    /// e-mail, group URI or (Swift) referer, each permission by name.
    pub fn to_json(&self) -> Value {
        let grants: Vec<Value> = self
            .grants
            .iter()
            .map(|g| {
                let grantee = match &g.grantee {
                    Grantee::User(u) => {
                        json!({"type": "CanonicalUser", "id": u.to_str(), "display_name": g.name})
                    }
                    Grantee::Email(e) => json!({"type": "AmazonCustomerByEmail", "email": e}),
                    Grantee::Group(1) => json!({"type": "Group", "uri": "http://acs.amazonaws.com/groups/global/AllUsers"}),
                    Grantee::Group(2) => json!({"type": "Group", "uri": "http://acs.amazonaws.com/groups/global/AuthenticatedUsers"}),
                    Grantee::Group(n) => json!({"type": "Group", "group": n}),
                    Grantee::Referer(r) => json!({"type": "Referer", "url_spec": r}),
                    Grantee::Unknown(n) => json!({"type": n}),
                };
                json!({"grantee": grantee, "permission": permission_name(g.permission)})
            })
            .collect();
        json!({
            "owner": {"id": self.owner.to_str(), "display_name": self.owner_display_name},
            "grants": grants,
        })
    }
}

/// S3's name for a grant's permission bits (radosgw's `ACLGrant_S3`
/// names): FULL_CONTROL, READ, WRITE, READ_ACP, WRITE_ACP, or the bits
/// as a number when they are none of these.
pub fn permission_name(perm: u32) -> Value {
    match perm {
        PERM_FULL_CONTROL => json!("FULL_CONTROL"),
        PERM_READ => json!("READ"),
        PERM_WRITE => json!("WRITE"),
        PERM_READ_ACP => json!("READ_ACP"),
        PERM_WRITE_ACP => json!("WRITE_ACP"),
        other => json!(other),
    }
}
