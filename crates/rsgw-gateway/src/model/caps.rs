//! A user's admin capabilities (radosgw's user caps): which part of the
//! Admin Ops API (`/admin/...`) the user may read or change, as
//! `users=*;buckets=read` names them. Stored in the user's record as
//! radosgw prints them: `[{"type": "users", "perm": "*"}]`.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::model::error::{GatewayError, GatewayResult};

/// The cap types radosgw 16.2 knows (`RGWUserCaps::is_valid_cap_type`);
/// rsgw's Admin Ops API asks for `users`, `buckets`, `usage`, `metadata`
/// and `ratelimit`; the rest are kept and shown, as radosgw keeps them.
pub const CAP_TYPES: &[&str] = &[
    "users",
    "buckets",
    "metadata",
    "usage",
    "zone",
    "mdlog",
    "datalog",
    "bilog",
    "opstate",
    "roles",
    "info",
    "user-policy",
    "amz-cache",
    "oidc-provider",
    "ratelimit",
];

/// What a cap allows: reading, writing, or both (`*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Perm {
    /// GET requests of the cap's part.
    pub read: bool,
    /// PUT, POST and DELETE requests of the cap's part.
    pub write: bool,
}

impl Perm {
    /// Reading only.
    pub const READ: Perm = Perm {
        read: true,
        write: false,
    };
    /// Writing only.
    pub const WRITE: Perm = Perm {
        read: false,
        write: true,
    };

    /// radosgw's spelling: `read`, `write` or `*`.
    pub fn name(self) -> &'static str {
        match (self.read, self.write) {
            (true, true) => "*",
            (false, true) => "write",
            (true, false) => "read",
            (false, false) => "",
        }
    }

    /// Parses `*`, `read`, `write` or `read, write` (radosgw's forms).
    fn parse(s: &str) -> Option<Perm> {
        let mut p = Perm::default();
        for part in s.split(',').map(str::trim) {
            match part {
                "*" => {
                    p = Perm {
                        read: true,
                        write: true,
                    }
                }
                "read" => p.read = true,
                "write" => p.write = true,
                _ => return None,
            }
        }
        Some(p)
    }

    /// Whether this perm holds everything `need` asks.
    pub fn covers(self, need: Perm) -> bool {
        (self.read || !need.read) && (self.write || !need.write)
    }
}

/// A user's caps: cap type → perm.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Caps(BTreeMap<String, Perm>);

/// One cap as radosgw prints it.
#[derive(Serialize, Deserialize)]
struct CapEntry {
    #[serde(rename = "type")]
    kind: String,
    perm: String,
}

impl Caps {
    /// Parses radosgw's `--caps` form, `users=*;buckets=read`: an unknown
    /// type or perm is [`GatewayError::InvalidCap`] (radosgw ignores an
    /// unknown perm; rsgw refuses it rather than change nothing silently).
    pub fn parse_list(s: &str) -> GatewayResult<Vec<(String, Perm)>> {
        let bad = |why: &str| GatewayError::InvalidCap(format!("{s:?}: {why}"));
        let mut out = Vec::new();
        for item in s.split(';').map(str::trim).filter(|i| !i.is_empty()) {
            let (kind, perm) = item
                .split_once('=')
                .ok_or_else(|| bad("each cap is type=perm"))?;
            let kind = kind.trim();
            if !CAP_TYPES.contains(&kind) {
                return Err(bad(&format!("unknown cap type {kind:?}")));
            }
            let perm = Perm::parse(perm.trim()).ok_or_else(|| bad("a perm is read, write or *"))?;
            out.push((kind.to_string(), perm));
        }
        if out.is_empty() {
            return Err(bad("no cap named"));
        }
        Ok(out)
    }

    /// Adds perms (radosgw's `caps add`).
    pub fn add(&mut self, caps: &[(String, Perm)]) {
        for (kind, p) in caps {
            let have = self.0.entry(kind.clone()).or_default();
            have.read |= p.read;
            have.write |= p.write;
        }
    }

    /// Takes perms away (radosgw's `caps rm`); a type left with none goes.
    pub fn remove(&mut self, caps: &[(String, Perm)]) {
        for (kind, p) in caps {
            if let Some(have) = self.0.get_mut(kind) {
                have.read &= !p.read;
                have.write &= !p.write;
                if !have.read && !have.write {
                    self.0.remove(kind);
                }
            }
        }
    }

    /// Whether the caps allow `need` on `kind`.
    pub fn allows(&self, kind: &str, need: Perm) -> bool {
        self.0.get(kind).is_some_and(|p| p.covers(need))
    }

    /// Whether the user has no caps at all.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Each cap as `(type, perm)`, in type order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Perm)> {
        self.0.iter().map(|(k, p)| (k.as_str(), *p))
    }
}

impl Serialize for Caps {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let list: Vec<CapEntry> = self
            .iter()
            .map(|(kind, p)| CapEntry {
                kind: kind.into(),
                perm: p.name().into(),
            })
            .collect();
        list.serialize(s)
    }
}

impl<'de> Deserialize<'de> for Caps {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let list = Vec::<CapEntry>::deserialize(d)?;
        let mut caps = Caps::default();
        for e in list {
            let p = Perm::parse(&e.perm)
                .ok_or_else(|| serde::de::Error::custom(format!("cap perm {:?}", e.perm)))?;
            caps.add(&[(e.kind, p)]);
        }
        Ok(caps)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_are_added_and_removed_as_radosgw_does() {
        let mut c = Caps::default();
        c.add(&Caps::parse_list("users=read;buckets=*").expect("parse"));
        assert_eq!(
            serde_json::to_string(&c).expect("json"),
            r#"[{"type":"buckets","perm":"*"},{"type":"users","perm":"read"}]"#
        );
        c.remove(&Caps::parse_list("buckets=write").expect("parse"));
        assert!(c.allows("buckets", Perm::READ));
        assert!(!c.allows("buckets", Perm::WRITE));
        c.add(&Caps::parse_list("users = write").expect("parse"));
        assert!(c.allows(
            "users",
            Perm {
                read: true,
                write: true
            }
        ));
        c.remove(&Caps::parse_list("users=*;buckets=read").expect("parse"));
        assert!(c.is_empty());
        assert!(!c.allows("usage", Perm::READ));
        let back: Caps =
            serde_json::from_str(r#"[{"type":"usage","perm":"read, write"}]"#).expect("back");
        assert!(back.allows("usage", Perm::WRITE));
    }

    #[test]
    fn bad_caps_are_refused() {
        for bad in [
            "",
            "users",
            "bogus=read",
            "users=bad",
            "users=read;x=*",
            ";",
        ] {
            assert!(
                matches!(Caps::parse_list(bad), Err(GatewayError::InvalidCap(_))),
                "{bad:?}"
            );
        }
    }
}
