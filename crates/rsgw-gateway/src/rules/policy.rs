//! What a bucket policy says about a request, in AWS's order for one
//! account: a matching `Deny` wins, else a matching `Allow` allows, else
//! the policy has nothing to say and the ACLs decide (`rules::authz`).
//! The language itself is `model::policy`'s.

use crate::model::policy::action::Action;
use crate::model::policy::conditions::{Condition, Lookup};
use crate::model::policy::glob::glob;
use crate::model::policy::{BucketPolicy, Effect, Principals, Statement};

impl BucketPolicy {
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

impl Statement {
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

impl Principals {
    fn matches(&self, who: Option<&str>) -> bool {
        let named = self.any || who.is_some_and(|u| self.users.iter().any(|n| n == u));
        named != self.negated
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

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
}
