//! Bucket policies: the IAM policy language as S3 bucket policies use it,
//! parsed and checked once when a policy is stored (a bucket's record
//! holds it parsed). What a policy decides for a request is
//! `rules::policy`'s; its conditions' operators are `conditions`'.

pub(crate) mod action;
pub(crate) mod conditions;
pub(crate) mod glob;

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;

use crate::model::limits::MAX_POLICY_BYTES;
use action::Action;
use conditions::Condition;
use glob::glob;

/// A bucket policy as stored: the document as the owner sent it (what
/// GetBucketPolicy answers) and its parsed statements.
#[derive(Clone)]
pub struct BucketPolicy {
    text: Arc<str>,
    pub(crate) statements: Arc<[Statement]>,
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
pub(crate) struct Principals {
    /// `NotPrincipal`: everyone but those named.
    pub(crate) negated: bool,
    /// `*`: everyone.
    pub(crate) any: bool,
    /// Users named, by id.
    pub(crate) users: Vec<String>,
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

/// One statement of a policy, parsed and checked.
#[derive(Debug, Clone)]
pub(crate) struct Statement {
    pub(crate) effect: Effect,
    pub(crate) principal: Principals,
    /// Lowercased action patterns (`s3:get*`).
    actions: Vec<String>,
    /// The served actions the patterns match, one bit per
    /// `Action::KNOWN_ACTIONS` entry: what evaluation tests.
    pub(crate) action_bits: u64,
    /// `NotAction`: the actions are those not named.
    pub(crate) not_action: bool,
    /// Resource patterns (ARNs with wildcards).
    pub(crate) resources: Vec<String>,
    /// `NotResource`: the resources are those not named.
    pub(crate) not_resource: bool,
    pub(crate) conditions: Vec<Condition>,
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

    fn parse(doc: &str) -> Result<BucketPolicy, String> {
        BucketPolicy::parse(doc, "pub")
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
    fn stored_form_is_the_text() {
        let doc = r#"{"Statement":{"Effect":"Allow","Principal":"*","Action":"s3:GetObject","Resource":"arn:aws:s3:::pub/*"}}"#;
        let p = parse(doc).expect("valid");
        let json = serde_json::to_string(&p).expect("serialises");
        let back: BucketPolicy = serde_json::from_str(&json).expect("parses");
        assert_eq!(back.text(), doc);
        assert_eq!(back, p);
    }
}
