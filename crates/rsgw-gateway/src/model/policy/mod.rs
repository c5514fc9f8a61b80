//! Bucket policies: the IAM policy language as S3 bucket policies use it,
//! parsed and checked once when a policy is stored, evaluated per request.
//!
//! Evaluation follows AWS's order for one account: a matching `Deny` wins,
//! else a matching `Allow` allows, else the policy has nothing to say and
//! the ACLs decide (`rules::authz`).

pub(crate) mod action;
pub(crate) mod conditions;
mod glob;

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::model::limits::MAX_POLICY_BYTES;
use action::Action;
use conditions::{Condition, Lookup};
use glob::glob;

/// A bucket policy as stored: the document as the owner sent it (what
/// GetBucketPolicy answers) and its parsed statements.
#[derive(Clone)]
pub struct BucketPolicy {
    text: Arc<str>,
    statements: Arc<[Statement]>,
}

impl BucketPolicy {
    /// Parses and checks a policy document for `bucket`; the error says
    /// what is wrong, as S3's `MalformedPolicy` does.
    pub fn parse(text: &str, bucket: &str) -> Result<Self, String> {
        if text.len() > MAX_POLICY_BYTES {
            return Err(format!(
                "Policies must be no more than {MAX_POLICY_BYTES} bytes"
            ));
        }
        let doc: Value = serde_json::from_str(text)
            .map_err(|e| format!("This policy contains invalid Json: {e}"))?;
        let Value::Object(doc) = doc else {
            return Err("Policies must be JSON objects".into());
        };
        let mut statements = None;
        for (field, v) in &doc {
            match field.as_str() {
                "Version" => match v.as_str() {
                    Some("2012-10-17" | "2008-10-17") => {}
                    _ => return Err("The policy must contain a valid version string".into()),
                },
                "Id" => {
                    v.as_str().ok_or("Id must be a string")?;
                }
                "Statement" => {
                    let list: Vec<&Value> = match v {
                        Value::Array(a) => a.iter().collect(),
                        one @ Value::Object(_) => vec![one],
                        _ => return Err("Statement must be an object or a list of them".into()),
                    };
                    statements = Some(
                        list.into_iter()
                            .map(|s| Statement::parse(s, bucket))
                            .collect::<Result<Vec<_>, _>>()?,
                    );
                }
                other => return Err(format!("Unknown field {other}")),
            }
        }
        let statements = statements.ok_or("Missing required field Statement")?;
        if statements.is_empty() {
            return Err("Could not parse the policy: Statement is empty!".into());
        }
        Ok(BucketPolicy {
            text: text.into(),
            statements: statements.into(),
        })
    }

    /// The document as stored.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// What the policy says about a request: the decision of its
    /// statements that match (a `Deny` over any `Allow`), or `None` when
    /// none matches. `resource` is the ARN the action is on, `cx` answers
    /// the condition keys.
    pub(crate) fn evaluate(
        &self,
        who: Option<&str>,
        action: Action,
        resource: &str,
        cx: &dyn Lookup,
    ) -> Option<Effect> {
        let mut verdict = None;
        for s in self.statements.iter() {
            if s.matches(who, action, resource, cx) {
                match s.effect {
                    Effect::Deny => return Some(Effect::Deny),
                    Effect::Allow => verdict = Some(Effect::Allow),
                }
            }
        }
        verdict
    }

    /// Whether the policy makes the bucket public, as GetBucketPolicyStatus
    /// reports: an `Allow` to everyone (`*`) that no condition narrows to
    /// known sources (source addresses, VPCs, accounts).
    pub fn is_public(&self) -> bool {
        self.statements.iter().any(|s| {
            s.effect == Effect::Allow
                && !s.principal.negated
                && s.principal.any
                && !s.conditions.iter().any(Condition::narrows_sources)
        })
    }
}

impl fmt::Debug for BucketPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BucketPolicy")
            .field("statements", &self.statements.len())
            .finish()
    }
}

impl PartialEq for BucketPolicy {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text
    }
}

impl Serialize for BucketPolicy {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// Stored policies were checked when they were put; the bucket name only
/// matters for that check, so none is needed to read one back.
impl<'de> Deserialize<'de> for BucketPolicy {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        BucketPolicy::parse(&text, "*").map_err(serde::de::Error::custom)
    }
}

/// A statement's effect.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Effect {
    Allow,
    Deny,
}

/// Whom a statement names: everyone, or users by id.
#[derive(Debug, Clone)]
struct Principals {
    /// `NotPrincipal`: everyone but those named.
    negated: bool,
    any: bool,
    users: Vec<String>,
}

impl Principals {
    fn parse(v: &Value, negated: bool) -> Result<Self, String> {
        let invalid = || "Invalid principal in policy".to_string();
        let mut p = Principals {
            negated,
            any: false,
            users: Vec::new(),
        };
        match v {
            Value::String(s) if s == "*" => p.any = true,
            Value::Object(m) if !m.is_empty() => {
                for (kind, ids) in m {
                    for id in strings(ids).ok_or_else(invalid)? {
                        match kind.as_str() {
                            "AWS" if id == "*" => p.any = true,
                            "AWS" => p.users.push(user_of_arn(&id).ok_or_else(invalid)?),
                            "CanonicalUser" if !id.is_empty() => p.users.push(id),
                            _ => return Err(invalid()),
                        }
                    }
                }
            }
            _ => return Err(invalid()),
        }
        Ok(p)
    }

    fn matches(&self, who: Option<&str>) -> bool {
        let named = self.any || who.is_some_and(|u| self.users.iter().any(|n| n == u));
        named != self.negated
    }
}

/// The user id of `arn:aws:iam:::user/<uid>` (radosgw's form; rsgw has no
/// tenants, so the account field is empty).
fn user_of_arn(arn: &str) -> Option<String> {
    let uid = arn.strip_prefix("arn:aws:iam:::user/")?;
    (!uid.is_empty()).then(|| uid.to_string())
}

/// A string or a list of strings.
fn strings(v: &Value) -> Option<Vec<String>> {
    match v {
        Value::String(s) => Some(vec![s.clone()]),
        Value::Array(a) if !a.is_empty() => {
            a.iter().map(|x| x.as_str().map(str::to_string)).collect()
        }
        _ => None,
    }
}

#[derive(Debug, Clone)]
struct Statement {
    effect: Effect,
    principal: Principals,
    /// Lowercased action patterns (`s3:get*`).
    actions: Vec<String>,
    /// The served actions the patterns match, one bit per
    /// `Action::KNOWN_ACTIONS` entry: what evaluation tests.
    action_bits: u64,
    not_action: bool,
    resources: Vec<String>,
    not_resource: bool,
    conditions: Vec<Condition>,
}

impl Statement {
    fn parse(v: &Value, bucket: &str) -> Result<Self, String> {
        let Value::Object(m) = v else {
            return Err("Each statement must be a JSON object".into());
        };
        let mut effect = None;
        let mut principal = None;
        let mut actions = None;
        let mut resources = None;
        let mut conditions = Vec::new();
        for (field, v) in m {
            match field.as_str() {
                "Sid" => {
                    v.as_str().ok_or("Sid must be a string")?;
                }
                "Effect" => {
                    effect = Some(match v.as_str() {
                        Some("Allow") => Effect::Allow,
                        Some("Deny") => Effect::Deny,
                        _ => return Err("Invalid effect: must be Allow or Deny".into()),
                    });
                }
                "Principal" | "NotPrincipal" => {
                    if principal.is_some() {
                        return Err(
                            "A statement may have Principal or NotPrincipal, not both".into()
                        );
                    }
                    principal = Some(Principals::parse(v, field == "NotPrincipal")?);
                }
                "Action" | "NotAction" => {
                    if actions.is_some() {
                        return Err("A statement may have Action or NotAction, not both".into());
                    }
                    let list = strings(v).ok_or("Policy has invalid action")?;
                    for a in &list {
                        if !Action::KNOWN
                            .iter()
                            .any(|k| glob(&a.to_ascii_lowercase(), &k.to_ascii_lowercase()))
                        {
                            return Err(format!("Policy has invalid action: {a}"));
                        }
                    }
                    let list: Vec<String> = list.iter().map(|a| a.to_ascii_lowercase()).collect();
                    actions = Some((list, field == "NotAction"));
                }
                "Resource" | "NotResource" => {
                    if resources.is_some() {
                        return Err("A statement may have Resource or NotResource, not both".into());
                    }
                    let list = strings(v).ok_or("Policy has invalid resource")?;
                    for r in &list {
                        check_resource(r, bucket)?;
                    }
                    resources = Some((list, field == "NotResource"));
                }
                "Condition" => conditions = Condition::parse_block(v)?,
                other => return Err(format!("Unknown field {other}")),
            }
        }
        let effect = effect.ok_or("Missing required field Effect")?;
        let principal = principal.ok_or("Missing required field Principal")?;
        let (actions, not_action) = actions.ok_or("Missing required field Action")?;
        let (resources, not_resource) = resources.ok_or("Missing required field Resource")?;
        let action_bits = Action::KNOWN_ACTIONS
            .iter()
            .enumerate()
            .filter(|(_, a)| actions.iter().any(|p| glob(p, a.lower_name())))
            .fold(0u64, |bits, (i, _)| bits | 1 << i);
        let s = Statement {
            effect,
            principal,
            actions,
            action_bits,
            not_action,
            resources,
            not_resource,
            conditions,
        };
        if !s.not_action && !s.not_resource && !s.applies_somewhere() {
            return Err("Action does not apply to any resource(s) in statement".into());
        }
        Ok(s)
    }

    /// Whether some action of the statement is on a kind of resource
    /// (bucket or object) that one of its resources names.
    fn applies_somewhere(&self) -> bool {
        let (mut buckets, mut objects) = (false, false);
        for r in &self.resources {
            let (b, o) = resource_kinds(r);
            buckets |= b;
            objects |= o;
        }
        Action::KNOWN_ACTIONS.iter().any(|a| {
            self.actions
                .iter()
                .any(|p| glob(p, &a.name().to_ascii_lowercase()))
                && if a.on_object() { objects } else { buckets }
        }) || self.actions.iter().any(|p| {
            // actions rsgw does not serve: trust their shape
            !Action::KNOWN_ACTIONS
                .iter()
                .any(|a| glob(p, &a.name().to_ascii_lowercase()))
        })
    }

    fn matches(&self, who: Option<&str>, action: Action, resource: &str, cx: &dyn Lookup) -> bool {
        if !self.principal.matches(who) {
            return false;
        }
        if (self.action_bits & action.bit() != 0) == self.not_action {
            return false;
        }
        if self.resources.iter().any(|p| glob(p, resource)) == self.not_resource {
            return false;
        }
        self.conditions.iter().all(|c| c.holds(cx))
    }
}

/// Checks a `Resource`: `*`, or an S3 ARN in the bucket the policy is for.
fn check_resource(r: &str, bucket: &str) -> Result<(), String> {
    let invalid = || format!("Policy has invalid resource: {r}");
    if r == "*" {
        return Ok(());
    }
    let rest = r.strip_prefix("arn:aws:s3:::").ok_or_else(invalid)?;
    let name = rest.split('/').next().unwrap_or_default();
    if name.is_empty() || (bucket != "*" && !glob(name, bucket)) {
        return Err(invalid());
    }
    Ok(())
}

/// Whether a resource pattern can name the bucket, and objects in it.
fn resource_kinds(r: &str) -> (bool, bool) {
    if r == "*" {
        return (true, true);
    }
    let rest = r.strip_prefix("arn:aws:s3:::").unwrap_or(r);
    match rest.split_once('/') {
        Some(_) => (false, true),
        None => (true, rest.contains('*')),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    struct Cx(HashMap<&'static str, &'static str>);

    impl Lookup for Cx {
        fn value(&self, key: &str) -> Option<String> {
            self.0.get(key).map(|v| (*v).to_string())
        }
    }

    fn cx(pairs: &[(&'static str, &'static str)]) -> Cx {
        Cx(pairs.iter().copied().collect())
    }

    fn parse(doc: &str) -> Result<BucketPolicy, String> {
        BucketPolicy::parse(doc, "pub")
    }

    const OBJ: &str = "arn:aws:s3:::pub/a/b.txt";
    const BKT: &str = "arn:aws:s3:::pub";

    /// Documents x requests x expected decisions.
    #[test]
    fn decisions() {
        use Action::*;
        let public_read = r#"{"Version":"2012-10-17","Statement":[{"Sid":"r","Effect":"Allow",
            "Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}]}"#;
        let deny_over_allow = r#"{"Statement":[
            {"Effect":"Allow","Principal":{"AWS":"*"},"Action":"s3:*","Resource":["arn:aws:s3:::pub","arn:aws:s3:::pub/*"]},
            {"Effect":"Deny","Principal":{"AWS":["arn:aws:iam:::user/eve"]},"Action":"s3:Get*","Resource":"arn:aws:s3:::pub/*"}]}"#;
        let by_ip = r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject",
            "Resource":"arn:aws:s3:::pub/*","Condition":{"IpAddress":{"aws:SourceIp":["10.0.0.0/8","2001:db8::/32"]}}}]}"#;
        let not_ip_deny = r#"{"Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:*",
            "Resource":"arn:aws:s3:::pub/*","Condition":{"NotIpAddress":{"aws:SourceIp":"192.168.0.0/16"}}}]}"#;
        let tls_only = r#"{"Statement":[{"Effect":"Deny","Principal":"*","Action":"*",
            "Resource":"arn:aws:s3:::pub/*","Condition":{"Bool":{"aws:SecureTransport":"false"}}}]}"#;
        let referer = r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject",
            "Resource":"arn:aws:s3:::pub/*","Condition":{"StringLike":{"aws:Referer":["https://www.example.com/*"]}}}]}"#;
        let prefix = r#"{"Statement":[{"Effect":"Allow","Principal":{"CanonicalUser":"bob"},"Action":"s3:ListBucket",
            "Resource":"arn:aws:s3:::pub","Condition":{"StringEquals":{"s3:prefix":["home/bob/",""]},
            "NumericLessThanEquals":{"s3:max-keys":"100"}}}]}"#;
        let not_action = r#"{"Statement":[{"Effect":"Deny","NotPrincipal":{"AWS":"arn:aws:iam:::user/alice"},
            "NotAction":["s3:GetObject","s3:ListBucket"],"Resource":["arn:aws:s3:::pub","arn:aws:s3:::pub/*"]}]}"#;
        let ua_if_exists = r#"{"Statement":[{"Effect":"Deny","Principal":"*","Action":"s3:GetObject",
            "Resource":"arn:aws:s3:::pub/*","Condition":{"StringNotEqualsIfExists":{"aws:UserAgent":"good-agent"}}}]}"#;
        let not_resource = r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject",
            "NotResource":"arn:aws:s3:::pub/private/*"}]}"#;
        let none = cx(&[]);
        let ip10 = cx(&[("aws:sourceip", "10.1.2.3")]);
        let ip6 = cx(&[("aws:sourceip", "2001:db8::7")]);
        let ip11 = cx(&[("aws:sourceip", "11.0.0.1")]);
        let ip192 = cx(&[("aws:sourceip", "192.168.4.4")]);
        let https = cx(&[("aws:securetransport", "true")]);
        let http = cx(&[("aws:securetransport", "false")]);
        let good_ref = cx(&[("aws:referer", "https://www.example.com/page.html")]);
        let bad_ref = cx(&[("aws:referer", "https://evil.example.net/")]);
        let bob_home = cx(&[("s3:prefix", "home/bob/"), ("s3:max-keys", "50")]);
        let bob_root = cx(&[("s3:prefix", ""), ("s3:max-keys", "100")]);
        let bob_many = cx(&[("s3:prefix", "home/bob/"), ("s3:max-keys", "1000")]);
        let other_home = cx(&[("s3:prefix", "home/eve/"), ("s3:max-keys", "50")]);
        let good_ua = cx(&[("aws:useragent", "good-agent")]);
        let bad_ua = cx(&[("aws:useragent", "curl/8")]);
        type Row<'a> = (
            &'a str,
            Option<&'a str>,
            Action,
            &'a str,
            &'a Cx,
            Option<Effect>,
        );
        let allow = Some(Effect::Allow);
        let deny = Some(Effect::Deny);
        let rows: &[Row] = &[
            (public_read, None, GetObject, OBJ, &none, allow),
            (public_read, Some("bob"), GetObject, OBJ, &none, allow),
            (public_read, None, PutObject, OBJ, &none, None),
            (public_read, None, ListBucket, BKT, &none, None),
            (public_read, None, GetObjectAcl, OBJ, &none, None),
            (deny_over_allow, None, GetObject, OBJ, &none, allow),
            (deny_over_allow, Some("bob"), PutObject, OBJ, &none, allow),
            (deny_over_allow, Some("eve"), GetObject, OBJ, &none, deny),
            (deny_over_allow, Some("eve"), GetObjectAcl, OBJ, &none, deny),
            (deny_over_allow, Some("eve"), PutObject, OBJ, &none, allow),
            (deny_over_allow, Some("eve"), ListBucket, BKT, &none, allow),
            (by_ip, None, GetObject, OBJ, &ip10, allow),
            (by_ip, None, GetObject, OBJ, &ip6, allow),
            (by_ip, None, GetObject, OBJ, &ip11, None),
            (by_ip, None, GetObject, OBJ, &none, None),
            (not_ip_deny, None, GetObject, OBJ, &ip10, deny),
            (not_ip_deny, None, GetObject, OBJ, &ip192, None),
            (tls_only, None, GetObject, OBJ, &http, deny),
            (tls_only, None, GetObject, OBJ, &https, None),
            (referer, None, GetObject, OBJ, &good_ref, allow),
            (referer, None, GetObject, OBJ, &bad_ref, None),
            (referer, None, GetObject, OBJ, &none, None),
            (prefix, Some("bob"), ListBucket, BKT, &bob_home, allow),
            (prefix, Some("bob"), ListBucket, BKT, &bob_root, allow),
            (prefix, Some("bob"), ListBucket, BKT, &bob_many, None),
            (prefix, Some("bob"), ListBucket, BKT, &other_home, None),
            (prefix, Some("eve"), ListBucket, BKT, &bob_home, None),
            (prefix, None, ListBucket, BKT, &bob_home, None),
            (not_action, Some("bob"), PutObject, OBJ, &none, deny),
            (not_action, None, DeleteObject, OBJ, &none, deny),
            (not_action, Some("bob"), GetObject, OBJ, &none, None),
            (not_action, Some("alice"), PutObject, OBJ, &none, None),
            (ua_if_exists, None, GetObject, OBJ, &good_ua, None),
            (ua_if_exists, None, GetObject, OBJ, &bad_ua, deny),
            (ua_if_exists, None, GetObject, OBJ, &none, deny),
            (not_resource, None, GetObject, OBJ, &none, allow),
            (
                not_resource,
                None,
                GetObject,
                "arn:aws:s3:::pub/private/x",
                &none,
                None,
            ),
        ];
        for (i, (doc, who, action, res, cx, want)) in rows.iter().enumerate() {
            let p = parse(doc).unwrap_or_else(|e| panic!("row {i}: {e}"));
            assert_eq!(
                p.evaluate(*who, *action, res, *cx),
                *want,
                "row {i}: {who:?} {action:?} {res}"
            );
        }
    }

    #[test]
    fn malformed_policies_say_why() {
        let ok_stmt = r#""Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*""#;
        let cases: &[(String, &str)] = &[
            ("not json".into(), "invalid Json"),
            ("[]".into(), "JSON objects"),
            (r#"{"Version":"2012-10-17"}"#.into(), "Missing required field Statement"),
            (r#"{"Statement":[]}"#.into(), "Statement is empty"),
            (r#"{"Version":"2020-01-01","Statement":[]}"#.into(), "valid version"),
            (format!(r#"{{"Statement":[{{{ok_stmt}}}],"Extra":1}}"#), "Unknown field Extra"),
            (format!(r#"{{"Statement":[{{{ok_stmt},"Foo":1}}]}}"#), "Unknown field Foo"),
            (
                r#"{"Statement":[{"Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}]}"#.into(),
                "Missing required field Effect",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}]}"#.into(),
                "Missing required field Principal",
            ),
            (
                r#"{"Statement":[{"Effect":"Maybe","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}]}"#.into(),
                "Invalid effect",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Principal":"bob","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}]}"#.into(),
                "Invalid principal",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Principal":{"AWS":"bob"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}]}"#.into(),
                "Invalid principal",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObjekt","Resource":"arn:aws:s3:::pub/*"}]}"#.into(),
                "invalid action",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"ec2:*","Resource":"arn:aws:s3:::pub/*"}]}"#.into(),
                "invalid action",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::other/*"}]}"#.into(),
                "invalid resource",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"pub/*"}]}"#.into(),
                "invalid resource",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub"}]}"#.into(),
                "does not apply",
            ),
            (
                r#"{"Statement":[{"Effect":"Allow","Principal":"*","Action":"s3:ListBucket","Resource":"arn:aws:s3:::pub/*"}]}"#.into(),
                "does not apply",
            ),
            (
                format!(r#"{{"Statement":[{{{ok_stmt},"Condition":{{"StringSorta":{{"aws:Referer":"x"}}}}}}]}}"#),
                "Invalid Condition type",
            ),
            (
                format!(r#"{{"Statement":[{{{ok_stmt},"Condition":{{"IpAddress":{{"aws:SourceIp":"10.0.0.0/33"}}}}}}]}}"#),
                "Invalid IP",
            ),
            (
                format!(r#"{{"Statement":[{{{ok_stmt},"Condition":{{"NumericLessThan":{{"s3:max-keys":"ten"}}}}}}]}}"#),
                "Invalid number",
            ),
            (
                format!(r#"{{"Statement":[{{{ok_stmt},"Condition":{{"Bool":{{"aws:SecureTransport":"yes"}}}}}}]}}"#),
                "Invalid boolean",
            ),
            (format!(r#"{{"Statement":[{{{ok_stmt}}}],"Id":"{}"}}"#, "x".repeat(21000)), "no more than"),
        ];
        for (doc, want) in cases {
            match parse(doc) {
                Ok(_) => panic!("accepted: {doc:.200}"),
                Err(e) => assert!(e.contains(want), "{doc:.200}: {e} (wanted '{want}')"),
            }
        }
        // wildcards and unserved actions of S3 are fine
        for ok in [
            r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:Get*","Resource":"arn:aws:s3:::pub/*"}}"#,
            r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":["s3:GetObjectVersion","s3:PutObjectTagging"],"Resource":"arn:aws:s3:::pub/*"}}"#,
            r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"*","Resource":"*"}}"#,
            r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:*","Resource":"arn:aws:s3:::p*"}}"#,
        ] {
            parse(ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
        }
    }

    #[test]
    fn public_means_everyone_from_anywhere() {
        let p = |c: &str| {
            parse(&format!(
                r#"{{"Statement":[{{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"{c}}}]}}"#
            ))
            .expect("valid")
        };
        assert!(p("").is_public());
        assert!(p(r#","Condition":{"StringLike":{"aws:Referer":"https://x/*"}}"#).is_public());
        assert!(!p(r#","Condition":{"IpAddress":{"aws:SourceIp":"10.0.0.0/8"}}"#).is_public());
        let user = parse(
            r#"{"Statement":[{"Effect":"Allow","Principal":{"AWS":"arn:aws:iam:::user/bob"},"Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}]}"#,
        )
        .expect("valid");
        assert!(!user.is_public());
    }

    #[test]
    fn stored_form_is_the_text() {
        let doc = r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}}"#;
        let p = parse(doc).expect("valid");
        let json = serde_json::to_string(&p).expect("serialises");
        let back: BucketPolicy = serde_json::from_str(&json).expect("parses");
        assert_eq!(back.text(), doc);
        assert_eq!(back, p);
    }
}
