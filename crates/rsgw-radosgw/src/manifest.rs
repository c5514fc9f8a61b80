//! Where an object's bytes are: the `user.rgw.manifest` xattr of its head
//! (`<marker>_<key>` in `<zone>.rgw.buckets.data`), an `RGWObjManifest`
//! (`rgw_obj_manifest.h` in ceph/ceph). The head holds the first
//! `head_size` bytes (radosgw 16.2: up to 4 MiB); the rest are in tail
//! objects named by rules: a plain object's stripes
//! `<marker>__shadow_<prefix><n>`, a multipart object's parts
//! `<marker>__multipart_<prefix>.<part>` and their further stripes
//! `<marker>__shadow_<prefix>.<part>_<n>`. Old manifests list every piece
//! instead (`explicit_objs`).
//!
//! [`Manifest::stripes`] walks the object as radosgw's manifest iterator
//! does (`obj_iterator::seek`), giving each piece's RADOS object and range.

use serde_json::{Value, json};

use crate::bucket::{Bucket, decode_bucket, encode_bucket};
use crate::encoding::{DecodeError, Decoder, Encoder, Header, Result};

/// An object's location (`rgw_obj`): bucket and key.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Obj {
    /// The bucket (its marker prefixes the RADOS name).
    pub bucket: Bucket,
    /// The namespace: empty for heads, `shadow` or `multipart` for tails.
    pub ns: String,
    /// The key's name.
    pub name: String,
    /// The version instance, empty for none.
    pub instance: String,
}

impl Obj {
    /// The key part of the RADOS name (`rgw_obj_key::get_oid`): the name,
    /// with a leading `_` doubled; `_<ns>[:<instance>]_<name>` with a
    /// namespace or an instance (the instance `null` is not written).
    pub fn key_oid(&self) -> String {
        let instance = !self.instance.is_empty() && self.instance != "null";
        if self.ns.is_empty() && !instance {
            if self.name.starts_with('_') {
                return format!("_{}", self.name);
            }
            return self.name.clone();
        }
        let mut oid = format!("_{}", self.ns);
        if instance {
            oid.push(':');
            oid.push_str(&self.instance);
        }
        oid.push('_');
        oid.push_str(&self.name);
        oid
    }

    /// The RADOS object's name: `<marker>_<key oid>`.
    pub fn oid(&self) -> String {
        format!("{}_{}", self.bucket.marker, self.key_oid())
    }

    /// The RADOS object's locator (`rgw_obj_key::get_loc`): for a head
    /// whose key begins with `_`, `<marker>_<key>`, the name without the
    /// doubled `_` (older radosgw set a locator on every object; the name
    /// was the locator, so only these differ); empty for every other
    /// object. librados places an object by its locator when it has one.
    pub fn locator(&self) -> String {
        if self.ns.is_empty() && self.name.starts_with('_') {
            format!("{}_{}", self.bucket.marker, self.name)
        } else {
            String::new()
        }
    }
}

/// Decodes an `rgw_obj` block (version 6: radosgw 16.2's; older ones,
/// from before radosgw 10, are refused).
pub fn decode_obj(d: &mut Decoder<'_>) -> Result<Obj> {
    let at = d.position();
    d.block("rgw_obj", Header::legacy(6, 3, 3), |d, v| {
        if v < 6 {
            return Err(DecodeError::Value {
                what: "rgw_obj version (older than 6 is not read)",
                value: u64::from(v),
                at,
            });
        }
        Ok(Obj {
            bucket: decode_bucket(d)?,
            ns: d.string("rgw_obj.ns")?,
            name: d.string("rgw_obj.name")?,
            instance: d.string("rgw_obj.instance")?,
        })
    })
}

/// A rule laying out a run of the object (`RGWObjManifestRule`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rule {
    /// The run's first part number (0: not multipart).
    pub start_part_num: u32,
    /// Where the run starts in the object.
    pub start_ofs: u64,
    /// Each part's size (0: one part).
    pub part_size: u64,
    /// The largest RADOS object a stripe may be.
    pub stripe_max_size: u64,
    /// A prefix instead of the manifest's (a multipart upload's parts
    /// written under another upload id).
    pub override_prefix: String,
}

/// An explicitly listed piece (`RGWObjManifestPart`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Part {
    /// Where it is.
    pub loc: Obj,
    /// Where in that object its bytes begin.
    pub loc_ofs: u64,
    /// Its size.
    pub size: u64,
}

/// An object's manifest (`RGWObjManifest`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Manifest {
    /// The object's size.
    pub obj_size: u64,
    /// Pieces listed one by one, by offset (old manifests).
    pub explicit: Option<Vec<(u64, Part)>>,
    /// The head object.
    pub head: Obj,
    /// Bytes in the head.
    pub head_size: u64,
    /// The most the head may hold.
    pub max_head_size: u64,
    /// The tails' name prefix.
    pub prefix: String,
    /// The rules, by the offset they start at.
    pub rules: Vec<(u64, Rule)>,
    /// The bucket the tails are in, when not the head's (a copy across
    /// buckets).
    pub tail_bucket: Option<Bucket>,
    /// The tails' instance.
    pub tail_instance: String,
    /// The head's placement rule (version 7; empty before).
    pub head_placement_rule: String,
    /// The tails' placement rule (version 7; empty before).
    pub tail_placement_rule: String,
}

/// Decodes a `user.rgw.manifest` xattr's value; every byte must belong to
/// it.
pub fn decode_manifest(bytes: &[u8]) -> Result<Manifest> {
    Decoder::whole(bytes, |d| {
        d.block("RGWObjManifest", Header::legacy_32(7, 2, 2), |d, v| {
            let obj_size = d.u64("RGWObjManifest.obj_size")?;
            let objs = d.seq("RGWObjManifest.objs", 8, |d| {
                let ofs = d.u64("RGWObjManifest.objs")?;
                let part = d.block("RGWObjManifestPart", Header::legacy_32(2, 2, 2), |d, _| {
                    Ok(Part {
                        loc: decode_obj(d)?,
                        loc_ofs: d.u64("RGWObjManifestPart.loc_ofs")?,
                        size: d.u64("RGWObjManifestPart.size")?,
                    })
                })?;
                Ok((ofs, part))
            })?;
            let at = d.position();
            if v < 3 {
                return Err(DecodeError::Value {
                    what: "RGWObjManifest version (older than 3 is not read)",
                    value: u64::from(v),
                    at,
                });
            }
            let explicit_objs = d.bool("RGWObjManifest.explicit_objs")?;
            let head = decode_obj(d)?;
            let head_size = d.u64("RGWObjManifest.head_size")?;
            let max_head_size = d.u64("RGWObjManifest.max_head_size")?;
            let prefix = d.string("RGWObjManifest.prefix")?;
            let rules = d.seq("RGWObjManifest.rules", 14, |d| {
                let ofs = d.u64("RGWObjManifest.rules")?;
                let rule = d.block("RGWObjManifestRule", Header::Start { known: 2 }, |d, rv| {
                    Ok(Rule {
                        start_part_num: d.u32("RGWObjManifestRule.start_part_num")?,
                        start_ofs: d.u64("RGWObjManifestRule.start_ofs")?,
                        part_size: d.u64("RGWObjManifestRule.part_size")?,
                        stripe_max_size: d.u64("RGWObjManifestRule.stripe_max_size")?,
                        override_prefix: if rv >= 2 {
                            d.string("RGWObjManifestRule.override_prefix")?
                        } else {
                            String::new()
                        },
                    })
                })?;
                Ok((ofs, rule))
            })?;
            let mut tail_bucket = None;
            if v >= 4 && (v < 6 || d.bool("RGWObjManifest.tail_bucket")?) {
                tail_bucket = Some(decode_bucket(d)?);
            }
            let mut tail_instance = head.instance.clone();
            if v >= 5 && (v < 6 || d.bool("RGWObjManifest.tail_instance")?) {
                tail_instance = d.string("RGWObjManifest.tail_instance")?;
            }
            let (head_placement_rule, tail_placement_rule) = if v >= 7 {
                (
                    d.string("RGWObjManifest.head_placement_rule")?,
                    d.string("RGWObjManifest.tail_placement_rule")?,
                )
            } else {
                (String::new(), String::new())
            };
            let mut explicit = explicit_objs.then_some(objs);
            // radosgw's fix for issue 16435: a copied old object's first
            // listed piece is the head
            if let Some(list) = explicit.as_mut()
                && head_size > 0
                && let Some((0, first)) = list.first_mut()
                && first.loc.ns.is_empty()
            {
                first.loc = head.clone();
                first.size = head_size;
            }
            Ok(Manifest {
                obj_size,
                explicit,
                head,
                head_size,
                max_head_size,
                prefix,
                rules,
                tail_bucket,
                tail_instance,
                head_placement_rule,
                tail_placement_rule,
            })
        })
    })
}

/// Writes an `rgw_obj` block as radosgw 16.2 does (version 6).
pub fn encode_obj(e: &mut Encoder, obj: &Obj) {
    e.block(6, 6, |e| {
        encode_bucket(e, &obj.bucket);
        e.string(&obj.ns).string(&obj.name).string(&obj.instance);
    });
}

impl Manifest {
    /// The manifest radosgw 16.2 writes for an object of `size` bytes put
    /// whole (not multipart) as `head`: the first `stripe` bytes in the
    /// head, the rest in stripes of `stripe` bytes named by `prefix`
    /// (`<marker>__shadow_<prefix><n>`, from 1), under `placement_rule`.
    pub fn plain(head: Obj, size: u64, stripe: u64, prefix: &str, placement_rule: &str) -> Self {
        Manifest {
            obj_size: size,
            explicit: None,
            head_size: size.min(stripe),
            max_head_size: stripe,
            prefix: prefix.to_string(),
            rules: vec![(
                0,
                Rule {
                    start_part_num: 0,
                    start_ofs: stripe,
                    part_size: 0,
                    stripe_max_size: stripe,
                    override_prefix: String::new(),
                },
            )],
            tail_bucket: None,
            tail_instance: head.instance.clone(),
            head,
            head_placement_rule: placement_rule.to_string(),
            tail_placement_rule: placement_rule.to_string(),
        }
    }

    /// The manifest radosgw 16.2 keeps in the record of part `num` of a
    /// multipart upload of `head` (`MultipartObjectProcessor`): the
    /// part's `size` bytes in stripes of `stripe` bytes, the first in
    /// `<marker>__multipart_<prefix>.<num>`, the rest in
    /// `<marker>__shadow_<prefix>.<num>_<n>`; no bytes in the head, and
    /// no head placement (radosgw names only the tail's).
    pub fn part(
        head: Obj,
        (size, stripe): (u64, u64),
        prefix: &str,
        num: u32,
        placement_rule: &str,
    ) -> Self {
        Manifest {
            obj_size: size,
            explicit: None,
            head_size: 0,
            max_head_size: 0,
            prefix: prefix.to_string(),
            rules: vec![(
                0,
                Rule {
                    start_part_num: num,
                    start_ofs: 0,
                    part_size: 0,
                    stripe_max_size: stripe,
                    override_prefix: String::new(),
                },
            )],
            tail_bucket: None,
            tail_instance: head.instance.clone(),
            head,
            head_placement_rule: String::new(),
            tail_placement_rule: placement_rule.to_string(),
        }
    }

    /// Lays out `next`'s bytes after this manifest's, as radosgw's
    /// `RGWObjManifest::append` does when it completes a multipart upload
    /// (a manifest of no rules, the first part's, becomes `next`): a rule
    /// continued when `next`'s part follows it with the same part size,
    /// stripe size and prefix, else `next`'s rules added at this size's
    /// offset (under their own prefix when it differs). Manifests listing
    /// their pieces explicitly (radosgw's oldest) are refused.
    pub fn append(&mut self, mut next: Manifest) -> Result<()> {
        if self.explicit.is_some() || next.explicit.is_some() || next.rules.is_empty() {
            return Err(DecodeError::Value {
                what: "a part's manifest appended (explicit or without rules)",
                value: 0,
                at: 0,
            });
        }
        if self.rules.is_empty() {
            *self = next;
            return Ok(());
        }
        if self.prefix.is_empty() {
            self.prefix.clone_from(&next.prefix);
        }
        let next_size = next.obj_size;
        let next_prefix = next.prefix.clone();
        let mut at = 0;
        while at < next.rules.len() {
            let Some((_, last)) = self.rules.last_mut() else {
                break;
            };
            if last.part_size == 0 {
                last.part_size = self.obj_size.saturating_sub(last.start_ofs);
            }
            let nr = &mut next.rules[at].1;
            if nr.part_size == 0 {
                nr.part_size = next_size.saturating_sub(nr.start_ofs);
            }
            let rule_prefix = match last.override_prefix.as_str() {
                "" => self.prefix.as_str(),
                p => p,
            };
            let next_rule_prefix = match nr.override_prefix.as_str() {
                "" => next_prefix.clone(),
                p => p.to_string(),
            };
            if last.part_size != nr.part_size
                || last.stripe_max_size != nr.stripe_max_size
                || rule_prefix != next_rule_prefix
            {
                let over = (next_rule_prefix != self.prefix).then_some(next_rule_prefix);
                self.append_rules(&next, at, over.as_deref());
                break;
            }
            let expected = u64::from(last.start_part_num)
                + (self.obj_size.saturating_add(nr.start_ofs))
                    .saturating_sub(last.start_ofs)
                    .checked_div(last.part_size)
                    .unwrap_or(1);
            if expected != u64::from(nr.start_part_num) {
                self.append_rules(&next, at, None);
                break;
            }
            at += 1;
        }
        self.obj_size = self.obj_size.saturating_add(next_size);
        Ok(())
    }

    /// `next`'s rules from the `from`th on, moved past this manifest's
    /// bytes (`RGWObjManifest::append_rules`).
    fn append_rules(&mut self, next: &Manifest, from: usize, override_prefix: Option<&str>) {
        for (_, rule) in &next.rules[from..] {
            let mut rule = rule.clone();
            rule.start_ofs = rule.start_ofs.saturating_add(self.obj_size);
            if let Some(p) = override_prefix {
                rule.override_prefix = p.to_string();
            }
            self.rules.push((rule.start_ofs, rule));
        }
    }

    /// The `user.rgw.manifest` xattr's value, as radosgw 16.2 encodes it
    /// (version 7).
    pub fn encode(&self) -> Vec<u8> {
        let mut e = Encoder::new();
        e.block(7, 6, |e| {
            e.u64(self.obj_size);
            let none = Vec::new();
            let objs = self.explicit.as_ref().unwrap_or(&none);
            e.seq(objs.iter(), |e, (ofs, part)| {
                e.u64(*ofs).block(2, 2, |e| {
                    encode_obj(e, &part.loc);
                    e.u64(part.loc_ofs).u64(part.size);
                });
            });
            e.bool(self.explicit.is_some());
            encode_obj(e, &self.head);
            e.u64(self.head_size).u64(self.max_head_size);
            e.string(&self.prefix);
            e.seq(self.rules.iter(), |e, (ofs, r)| {
                e.u64(*ofs).block(2, 1, |e| {
                    e.u32(r.start_part_num)
                        .u64(r.start_ofs)
                        .u64(r.part_size)
                        .u64(r.stripe_max_size)
                        .string(&r.override_prefix);
                });
            });
            e.bool(self.tail_bucket.is_some());
            if let Some(b) = &self.tail_bucket {
                encode_bucket(e, b);
            }
            let own_instance = self.tail_instance != self.head.instance;
            e.bool(own_instance);
            if own_instance {
                e.string(&self.tail_instance);
            }
            e.string(&self.head_placement_rule)
                .string(&self.tail_placement_rule);
        });
        e.into_bytes()
    }
}

/// One piece of an object: bytes `ofs..ofs + size` of the object are
/// bytes `loc_ofs..loc_ofs + size` of RADOS object `oid`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stripe {
    /// Where in the object the piece begins.
    pub ofs: u64,
    /// Its size.
    pub size: u64,
    /// The RADOS object (in the bucket's data pool).
    pub oid: String,
    /// Its locator, usually empty ([`Obj::locator`]).
    pub locator: String,
    /// Where in that RADOS object the piece begins.
    pub loc_ofs: u64,
}

/// A manifest that lays out no bytes at `ofs`.
fn no_layout(ofs: u64) -> DecodeError {
    DecodeError::Value {
        what: "RGWObjManifest: its rules lay out no bytes at this offset",
        value: ofs,
        at: 0,
    }
}

/// The pieces of an object in order ([`Manifest::stripes`]).
#[derive(Debug)]
pub struct Stripes<'a> {
    manifest: &'a Manifest,
    ofs: u64,
    failed: bool,
}

impl Iterator for Stripes<'_> {
    type Item = Result<Stripe>;

    fn next(&mut self) -> Option<Result<Stripe>> {
        if self.failed || self.ofs >= self.manifest.obj_size {
            return None;
        }
        let ofs = self.ofs;
        let r = self.manifest.seek(ofs).and_then(|s| {
            if s.size > 0 && s.ofs == ofs {
                Ok(s)
            } else {
                Err(no_layout(ofs))
            }
        });
        match &r {
            Ok(s) => self.ofs = s.ofs.saturating_add(s.size),
            Err(_) => self.failed = true,
        }
        Some(r)
    }
}

impl Manifest {
    /// Every piece of the object, in order, as radosgw's iterator seeks
    /// through it (one at a time: a 5 TiB object has over a million); a
    /// manifest whose rules leave a hole or would not advance ends with an
    /// error (radosgw would loop or fail the read).
    pub fn stripes(&self) -> Stripes<'_> {
        Stripes {
            manifest: self,
            ofs: 0,
            failed: false,
        }
    }

    /// The piece holding offset `ofs` (`obj_iterator::seek`), cut to the
    /// object's end: where a ranged read starts.
    pub fn seek(&self, ofs: u64) -> Result<Stripe> {
        let fail = || no_layout(ofs);
        if let Some(list) = &self.explicit {
            let i = list
                .partition_point(|(o, _)| *o <= ofs)
                .checked_sub(1)
                .ok_or_else(fail)?;
            let (start, part) = &list[i];
            let end = list.get(i + 1).map_or(self.obj_size, |(next, _)| *next);
            return Ok(Stripe {
                ofs: *start,
                size: end.min(self.obj_size).saturating_sub(*start),
                oid: part.loc.oid(),
                locator: part.loc.locator(),
                loc_ofs: part.loc_ofs,
            });
        }
        if ofs < self.head_size {
            return Ok(Stripe {
                ofs: 0,
                size: self.head_size.min(self.obj_size),
                oid: self.head.oid(),
                locator: self.head.locator(),
                loc_ofs: 0,
            });
        }
        // the last rule starting at or before ofs; before the first, the
        // first (radosgw's upper_bound, stepped back unless at the start)
        let i = self
            .rules
            .partition_point(|(o, _)| *o <= ofs)
            .saturating_sub(1);
        let rule = &self.rules.get(i).ok_or_else(fail)?.1;
        let over = |r: Option<u64>| r.ok_or_else(fail);
        // radosgw's unsigned arithmetic would wrap here on a bad manifest:
        // an error instead
        let start = u64::from(rule.start_part_num);
        let cur_part = match over(ofs.checked_sub(rule.start_ofs))?.checked_div(rule.part_size) {
            Some(n) => over(start.checked_add(n))?,
            None => start,
        };
        let part_ofs = over(
            (cur_part - start)
                .checked_mul(rule.part_size)
                .and_then(|o| o.checked_add(rule.start_ofs)),
        )?;
        let (mut cur_stripe, stripe_ofs) =
            match over(ofs.checked_sub(part_ofs))?.checked_div(rule.stripe_max_size) {
                Some(n) => (
                    n,
                    over(
                        n.checked_mul(rule.stripe_max_size)
                            .and_then(|o| o.checked_add(part_ofs)),
                    )?,
                ),
                None => (0, part_ofs),
            };
        if rule.stripe_max_size > 0 && cur_part == 0 && self.head_size > 0 {
            cur_stripe += 1;
        }
        let stripe_end = if rule.part_size == 0 {
            stripe_ofs.saturating_add(rule.stripe_max_size)
        } else {
            stripe_ofs
                .saturating_add(rule.stripe_max_size)
                .min(part_ofs.saturating_add(rule.part_size))
        };
        let size = stripe_end.min(self.obj_size).saturating_sub(stripe_ofs);
        let loc = self.location(cur_part, cur_stripe, ofs, &rule.override_prefix);
        Ok(Stripe {
            ofs: stripe_ofs,
            size,
            oid: loc.oid(),
            locator: loc.locator(),
            loc_ofs: 0,
        })
    }

    /// `get_implicit_location`: the RADOS object of part `part`'s stripe
    /// `stripe`.
    fn location(&self, part: u64, stripe: u64, ofs: u64, override_prefix: &str) -> Obj {
        let mut name = if override_prefix.is_empty() {
            self.prefix.clone()
        } else {
            override_prefix.to_owned()
        };
        let ns = if part == 0 {
            if ofs < self.max_head_size {
                return self.head.clone();
            }
            name.push_str(&stripe.to_string());
            "shadow"
        } else if stripe == 0 {
            name.push_str(&format!(".{part}"));
            "multipart"
        } else {
            name.push_str(&format!(".{part}_{stripe}"));
            "shadow"
        };
        Obj {
            bucket: self
                .tail_bucket
                .clone()
                .unwrap_or_else(|| self.head.bucket.clone()),
            ns: ns.to_owned(),
            name,
            instance: self.tail_instance.clone(),
        }
    }
}

impl Manifest {
    /// The manifest and the pieces it lays out, as JSON (`rsgw decode
    /// manifest`); a manifest that lays out no whole object is an error.
    pub fn to_json(&self) -> Result<Value> {
        let stripes = self
            .stripes()
            .map(|s| {
                s.map(|s| {
                    json!({"ofs": s.ofs, "size": s.size, "oid": s.oid, "locator": s.locator, "loc_ofs": s.loc_ofs})
                })
            })
            .collect::<Result<Vec<Value>>>()?;
        Ok(json!({
            "obj_size": self.obj_size,
            "explicit_objs": self.explicit.is_some(),
            "head": self.head.oid(),
            "head_locator": self.head.locator(),
            "head_size": self.head_size,
            "max_head_size": self.max_head_size,
            "prefix": self.prefix,
            "rules": self.rules.iter().map(|(o, r)| json!({
                "key": o,
                "start_part_num": r.start_part_num,
                "start_ofs": r.start_ofs,
                "part_size": r.part_size,
                "stripe_max_size": r.stripe_max_size,
                "override_prefix": r.override_prefix,
            })).collect::<Vec<_>>(),
            "tail_instance": self.tail_instance,
            "stripes": stripes,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    fn manifest(obj_size: u64, head_size: u64, rules: Vec<(u64, Rule)>) -> Manifest {
        let bucket = Bucket {
            name: "b".into(),
            marker: "mk.1".into(),
            bucket_id: "mk.1".into(),
            ..Bucket::default()
        };
        Manifest {
            obj_size,
            explicit: None,
            head: Obj {
                bucket,
                name: "key".into(),
                ..Obj::default()
            },
            head_size,
            max_head_size: head_size,
            prefix: ".pfx_".into(),
            rules,
            tail_bucket: None,
            tail_instance: String::new(),
            head_placement_rule: String::new(),
            tail_placement_rule: String::new(),
        }
    }

    fn pieces(m: &Manifest) -> Vec<(u64, u64, String)> {
        m.stripes()
            .map(|s| s.map(|s| (s.ofs, s.size, s.oid)))
            .collect::<Result<_>>()
            .expect("laid out")
    }

    #[test]
    fn a_plain_object_is_its_head_then_shadow_stripes() {
        let rule = Rule {
            start_ofs: 4 * MIB,
            stripe_max_size: 4 * MIB,
            ..Rule::default()
        };
        let m = manifest(10 * MIB, 4 * MIB, vec![(0, rule)]);
        assert_eq!(
            pieces(&m),
            [
                (0, 4 * MIB, "mk.1_key".to_string()),
                (4 * MIB, 4 * MIB, "mk.1__shadow_.pfx_1".to_string()),
                (8 * MIB, 2 * MIB, "mk.1__shadow_.pfx_2".to_string()),
            ]
        );
        assert_eq!(m.seek(9 * MIB).expect("seek").ofs, 8 * MIB);
        let small = manifest(5, 5, vec![(0, Rule::default())]);
        assert_eq!(pieces(&small), [(0, 5, "mk.1_key".to_string())]);
        assert!(pieces(&manifest(0, 0, Vec::new())).is_empty());
    }

    #[test]
    fn a_multipart_object_is_its_parts_each_striped() {
        let rule = |part, ofs| Rule {
            start_part_num: part,
            start_ofs: ofs,
            part_size: 5 * MIB,
            stripe_max_size: 4 * MIB,
            override_prefix: String::new(),
        };
        let last = Rule {
            part_size: 0,
            ..rule(3, 10 * MIB)
        };
        let m = manifest(10 * MIB + 1234, 0, vec![(0, rule(1, 0)), (10 * MIB, last)]);
        assert_eq!(
            pieces(&m),
            [
                (0, 4 * MIB, "mk.1__multipart_.pfx_.1".to_string()),
                (4 * MIB, MIB, "mk.1__shadow_.pfx_.1_1".to_string()),
                (5 * MIB, 4 * MIB, "mk.1__multipart_.pfx_.2".to_string()),
                (9 * MIB, MIB, "mk.1__shadow_.pfx_.2_1".to_string()),
                (10 * MIB, 1234, "mk.1__multipart_.pfx_.3".to_string()),
            ]
        );
    }

    #[test]
    fn names_double_a_leading_underscore_and_carry_instances() {
        let mut o = Obj {
            bucket: Bucket {
                marker: "m".into(),
                ..Bucket::default()
            },
            name: "_k".into(),
            ..Obj::default()
        };
        assert_eq!(o.oid(), "m___k");
        assert_eq!(o.locator(), "m__k");
        o.instance = "v1".into();
        assert_eq!(o.oid(), "m__:v1__k");
        o.instance = "null".into();
        assert_eq!(o.oid(), "m___k");
    }

    #[test]
    fn rules_that_lay_out_nothing_end_with_an_error() {
        // no stripe size: a stripe of 0 bytes would never advance
        let m = manifest(10, 0, vec![(0, Rule::default())]);
        let got: Vec<_> = m.stripes().collect();
        assert_eq!(got.len(), 1);
        assert!(got[0].is_err());
        assert!(manifest(10, 0, Vec::new()).stripes().all(|s| s.is_err()));
    }
}
