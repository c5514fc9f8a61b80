//! A policy statement's `Condition` block: operators over the request's
//! condition keys (`aws:SourceIp`, `s3:prefix`...), checked when the policy
//! is stored, evaluated per request.
//!
//! Within a block every operator must hold, within an operator every key,
//! and a key holds when the request's value matches any listed value (for
//! the negated operators: none of them). A key the request lacks makes a
//! positive operator false and a negated one true, as in AWS; `...IfExists`
//! makes a missing key true, `Null` tests for the key's absence.

use std::net::IpAddr;

use serde_json::Value;

use super::glob::glob;

/// The request's side of a condition: a condition key's value (keys come
/// as [`key_name`] writes them), `None` when the request has no such key.
pub(crate) trait Lookup {
    fn value(&self, key: &str) -> Option<String>;

    /// A key's value as an address (`aws:SourceIp`), without a round trip
    /// through text where the request has it as one.
    fn ip(&self, key: &str) -> Option<IpAddr> {
        self.value(key)?.parse().ok()
    }
}

/// A condition key as it is looked up: its name lowercased (AWS's names
/// are case-insensitive), what follows a `/` kept as written
/// (`s3:ExistingObjectTag/Project` names the tag `Project`, and tag keys
/// are case-sensitive).
fn key_name(key: &str) -> String {
    match key.split_once('/') {
        Some((name, rest)) => format!("{}/{rest}", name.to_ascii_lowercase()),
        None => key.to_ascii_lowercase(),
    }
}

/// What an operator compares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    StringEquals,
    StringEqualsIgnoreCase,
    StringLike,
    Numeric(Cmp),
    Date(Cmp),
    Bool,
    IpAddress,
    Null,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Cmp {
    fn holds(self, a: f64, b: f64) -> bool {
        match self {
            Cmp::Eq => a == b,
            Cmp::Lt => a < b,
            Cmp::Le => a <= b,
            Cmp::Gt => a > b,
            Cmp::Ge => a >= b,
        }
    }
}

/// One listed value, parsed for its operator.
#[derive(Debug, Clone)]
enum Operand {
    Text(String),
    Number(f64),
    Net(IpAddr, u8),
    Flag(bool),
}

/// One operator on one key, with its listed values.
#[derive(Debug, Clone)]
pub(crate) struct Condition {
    kind: Kind,
    negated: bool,
    if_exists: bool,
    /// `ForAllValues:`: a missing key holds (single-valued keys otherwise
    /// behave as without the qualifier).
    for_all: bool,
    key: String,
    values: Vec<Operand>,
}

/// The operator names: (name, kind, negated).
const OPERATORS: &[(&str, Kind, bool)] = &[
    ("StringEquals", Kind::StringEquals, false),
    ("StringNotEquals", Kind::StringEquals, true),
    (
        "StringEqualsIgnoreCase",
        Kind::StringEqualsIgnoreCase,
        false,
    ),
    (
        "StringNotEqualsIgnoreCase",
        Kind::StringEqualsIgnoreCase,
        true,
    ),
    ("StringLike", Kind::StringLike, false),
    ("StringNotLike", Kind::StringLike, true),
    ("ArnEquals", Kind::StringEquals, false),
    ("ArnNotEquals", Kind::StringEquals, true),
    ("ArnLike", Kind::StringLike, false),
    ("ArnNotLike", Kind::StringLike, true),
    ("NumericEquals", Kind::Numeric(Cmp::Eq), false),
    ("NumericNotEquals", Kind::Numeric(Cmp::Eq), true),
    ("NumericLessThan", Kind::Numeric(Cmp::Lt), false),
    ("NumericLessThanEquals", Kind::Numeric(Cmp::Le), false),
    ("NumericGreaterThan", Kind::Numeric(Cmp::Gt), false),
    ("NumericGreaterThanEquals", Kind::Numeric(Cmp::Ge), false),
    ("DateEquals", Kind::Date(Cmp::Eq), false),
    ("DateNotEquals", Kind::Date(Cmp::Eq), true),
    ("DateLessThan", Kind::Date(Cmp::Lt), false),
    ("DateLessThanEquals", Kind::Date(Cmp::Le), false),
    ("DateGreaterThan", Kind::Date(Cmp::Gt), false),
    ("DateGreaterThanEquals", Kind::Date(Cmp::Ge), false),
    ("Bool", Kind::Bool, false),
    ("IpAddress", Kind::IpAddress, false),
    ("NotIpAddress", Kind::IpAddress, true),
    ("Null", Kind::Null, false),
];

/// Keys that, with a positive operator, narrow a grant to known sources:
/// such a grant is not "public" (GetBucketPolicyStatus).
const SOURCE_KEYS: &[&str] = &[
    "aws:sourceip",
    "aws:sourcevpc",
    "aws:sourcevpce",
    "aws:sourceaccount",
    "aws:sourcearn",
    "aws:sourceowner",
    "aws:principalorgid",
    "aws:principalaccount",
    "aws:principalarn",
    "aws:userid",
    "aws:username",
];

impl Condition {
    /// Parses a statement's `Condition` object.
    pub(crate) fn parse_block(v: &Value) -> Result<Vec<Condition>, String> {
        let Value::Object(ops) = v else {
            return Err("Condition must be a JSON object".into());
        };
        let mut out = Vec::new();
        for (name, keys) in ops {
            let (for_all, rest) = match name.split_once(':') {
                Some(("ForAllValues", r)) => (true, r),
                Some(("ForAnyValue", r)) => (false, r),
                Some(_) => return Err(format!("Invalid Condition type: {name}")),
                None => (false, name.as_str()),
            };
            let (base, if_exists) = match rest.strip_suffix("IfExists") {
                Some(b) if b != "Null" => (b, true),
                _ => (rest, false),
            };
            let &(_, kind, negated) = OPERATORS
                .iter()
                .find(|(n, _, _)| *n == base)
                .ok_or_else(|| format!("Invalid Condition type: {name}"))?;
            let Value::Object(keys) = keys else {
                return Err(format!("Condition {name} must map keys to values"));
            };
            for (key, vals) in keys {
                let list: Vec<&Value> = match vals {
                    Value::Array(a) if !a.is_empty() => a.iter().collect(),
                    Value::Array(_) => {
                        return Err(format!("Condition {name} on {key} lists no value"));
                    }
                    one => vec![one],
                };
                let values = list
                    .into_iter()
                    .map(|v| operand(kind, v, key))
                    .collect::<Result<Vec<_>, _>>()?;
                out.push(Condition {
                    kind,
                    negated,
                    if_exists,
                    for_all,
                    key: key_name(key),
                    values,
                });
            }
        }
        Ok(out)
    }

    /// Whether the condition holds for a request.
    pub(crate) fn holds(&self, cx: &dyn Lookup) -> bool {
        if self.kind == Kind::IpAddress {
            let Some(ip) = cx.ip(&self.key) else {
                return self.negated || self.if_exists || self.for_all;
            };
            let ip = canonical(ip);
            let any = self.values.iter().any(|v| match v {
                Operand::Net(net, prefix) => in_net(ip, *net, *prefix),
                _ => false,
            });
            return any != self.negated;
        }
        let got = cx.value(&self.key);
        if self.kind == Kind::Null {
            let absent = got.is_none();
            return self
                .values
                .iter()
                .any(|v| matches!(v, Operand::Flag(f) if *f == absent));
        }
        let Some(got) = got else {
            return self.negated || self.if_exists || self.for_all;
        };
        let any = self.values.iter().any(|v| self.matches(&got, v));
        any != self.negated
    }

    fn matches(&self, got: &str, want: &Operand) -> bool {
        match (self.kind, want) {
            (Kind::StringEquals, Operand::Text(w)) => got == w,
            (Kind::StringEqualsIgnoreCase, Operand::Text(w)) => got.eq_ignore_ascii_case(w),
            (Kind::StringLike, Operand::Text(w)) => glob(w, got),
            (Kind::Numeric(c), Operand::Number(w)) => {
                got.trim().parse::<f64>().is_ok_and(|g| c.holds(g, *w))
            }
            (Kind::Date(c), Operand::Number(w)) => parse_date(got).is_some_and(|g| c.holds(g, *w)),
            (Kind::Bool, Operand::Flag(w)) => {
                got.eq_ignore_ascii_case(if *w { "true" } else { "false" })
            }
            // IpAddress is matched in `holds`, on the address itself
            _ => false,
        }
    }

    /// Whether the condition restricts a grant to known sources.
    pub(crate) fn narrows_sources(&self) -> bool {
        !self.negated && self.kind != Kind::Null && SOURCE_KEYS.contains(&self.key.as_str())
    }
}

fn operand(kind: Kind, v: &Value, key: &str) -> Result<Operand, String> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Bool(b) => b.to_string(),
        _ => {
            return Err(format!(
                "Condition values on {key} must be strings, numbers or booleans"
            ));
        }
    };
    Ok(match kind {
        Kind::StringEquals | Kind::StringEqualsIgnoreCase | Kind::StringLike => Operand::Text(text),
        Kind::Numeric(_) => Operand::Number(
            text.trim()
                .parse()
                .map_err(|_| format!("Invalid number in condition on {key}: {text}"))?,
        ),
        Kind::Date(_) => Operand::Number(
            parse_date(&text)
                .ok_or_else(|| format!("Invalid date in condition on {key}: {text}"))?,
        ),
        Kind::Bool | Kind::Null => match text.to_ascii_lowercase().as_str() {
            "true" => Operand::Flag(true),
            "false" => Operand::Flag(false),
            _ => return Err(format!("Invalid boolean in condition on {key}: {text}")),
        },
        Kind::IpAddress => {
            let (addr, prefix) = parse_net(&text).ok_or_else(|| {
                format!("Invalid IP address or CIDR in condition on {key}: {text}")
            })?;
            Operand::Net(addr, prefix)
        }
    })
}

/// `a.b.c.d[/n]` or an IPv6 address `[/n]`; no prefix is the one address.
fn parse_net(s: &str) -> Option<(IpAddr, u8)> {
    let (addr, prefix) = match s.split_once('/') {
        Some((a, p)) => (a, Some(p)),
        None => (s, None),
    };
    let addr: IpAddr = addr.trim().parse().ok()?;
    let max = if addr.is_ipv4() { 32 } else { 128 };
    let prefix = match prefix {
        Some(p) => p.trim().parse::<u8>().ok().filter(|p| *p <= max)?,
        None => max,
    };
    Some((addr, prefix))
}

/// IPv4-mapped IPv6 addresses (a dual-stack listener's view of IPv4
/// clients) as IPv4.
fn canonical(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(ip, IpAddr::V4),
        v4 => v4,
    }
}

fn in_net(ip: IpAddr, net: IpAddr, prefix: u8) -> bool {
    match (net, ip) {
        (IpAddr::V4(n), IpAddr::V4(a)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            u32::from(n) & mask == u32::from(a) & mask
        }
        (IpAddr::V6(n), IpAddr::V6(a)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            u128::from(n) & mask == u128::from(a) & mask
        }
        _ => false,
    }
}

/// A date as seconds since the epoch: ISO 8601 in UTC
/// (`2026-12-01T10:00:00Z`, fractions allowed; a bare date is midnight) or
/// epoch seconds.
pub(crate) fn parse_date(s: &str) -> Option<f64> {
    let s = s.trim();
    if let Ok(n) = s.parse::<f64>() {
        return Some(n);
    }
    rsgw_time::parse_iso8601(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct One(&'static str, Option<&'static str>);

    impl Lookup for One {
        fn value(&self, key: &str) -> Option<String> {
            (key == self.0)
                .then_some(self.1)
                .flatten()
                .map(str::to_string)
        }
    }

    fn holds(block: &str, key: &'static str, got: Option<&'static str>) -> bool {
        let v: Value = serde_json::from_str(block).expect("json");
        let conds = Condition::parse_block(&v).expect("valid");
        conds.iter().all(|c| c.holds(&One(key, got)))
    }

    #[test]
    fn operators() {
        let k = "k";
        let cases: &[(&str, Option<&str>, bool)] = &[
            (r#"{"StringEquals":{"k":["a","b"]}}"#, Some("b"), true),
            (r#"{"StringEquals":{"k":"a"}}"#, Some("A"), false),
            (r#"{"StringEquals":{"K":"a"}}"#, Some("a"), true),
            (r#"{"StringEquals":{"k":"a"}}"#, None, false),
            (r#"{"StringNotEquals":{"k":["a","b"]}}"#, Some("c"), true),
            (r#"{"StringNotEquals":{"k":["a","b"]}}"#, Some("a"), false),
            (r#"{"StringNotEquals":{"k":"a"}}"#, None, true),
            (r#"{"StringEqualsIgnoreCase":{"k":"a"}}"#, Some("A"), true),
            (
                r#"{"StringLike":{"k":"img/*.png"}}"#,
                Some("img/x/y.png"),
                true,
            ),
            (r#"{"StringNotLike":{"k":"img/*"}}"#, Some("doc/x"), true),
            (r#"{"StringEqualsIfExists":{"k":"a"}}"#, None, true),
            (r#"{"StringEqualsIfExists":{"k":"a"}}"#, Some("b"), false),
            (r#"{"NumericLessThan":{"k":"10"}}"#, Some("9"), true),
            (r#"{"NumericLessThan":{"k":10}}"#, Some("10"), false),
            (r#"{"NumericLessThanEquals":{"k":"10"}}"#, Some("10"), true),
            (r#"{"NumericGreaterThan":{"k":"10"}}"#, Some("11"), true),
            (
                r#"{"NumericGreaterThanEquals":{"k":"10"}}"#,
                Some("9"),
                false,
            ),
            (r#"{"NumericEquals":{"k":"10"}}"#, Some("ten"), false),
            (r#"{"NumericNotEquals":{"k":"10"}}"#, Some("11"), true),
            (r#"{"Bool":{"k":"true"}}"#, Some("true"), true),
            (r#"{"Bool":{"k":true}}"#, Some("false"), false),
            (r#"{"Bool":{"k":"false"}}"#, None, false),
            (
                r#"{"IpAddress":{"k":"10.0.0.0/8"}}"#,
                Some("10.255.0.1"),
                true,
            ),
            (
                r#"{"IpAddress":{"k":"10.0.0.0/8"}}"#,
                Some("::ffff:10.0.0.1"),
                true,
            ),
            (r#"{"IpAddress":{"k":"10.0.0.1"}}"#, Some("10.0.0.2"), false),
            (
                r#"{"IpAddress":{"k":"2001:db8::/32"}}"#,
                Some("2001:db8:1::1"),
                true,
            ),
            (
                r#"{"IpAddress":{"k":"2001:db8::/32"}}"#,
                Some("10.0.0.1"),
                false,
            ),
            (r#"{"IpAddress":{"k":"0.0.0.0/0"}}"#, Some("1.2.3.4"), true),
            (
                r#"{"NotIpAddress":{"k":"10.0.0.0/8"}}"#,
                Some("11.0.0.1"),
                true,
            ),
            (r#"{"NotIpAddress":{"k":"10.0.0.0/8"}}"#, None, true),
            (r#"{"Null":{"k":"true"}}"#, None, true),
            (r#"{"Null":{"k":"true"}}"#, Some("x"), false),
            (r#"{"Null":{"k":"false"}}"#, Some("x"), true),
            (
                r#"{"DateLessThan":{"k":"2030-01-01T00:00:00Z"}}"#,
                Some("2026-12-01T10:00:00Z"),
                true,
            ),
            (
                r#"{"DateGreaterThan":{"k":"2030-01-01"}}"#,
                Some("2026-12-01T10:00:00Z"),
                false,
            ),
            (
                r#"{"DateLessThan":{"k":"2030-01-01T00:00:00Z"}}"#,
                Some("1800000000"),
                true,
            ),
            (r#"{"ForAnyValue:StringEquals":{"k":"a"}}"#, None, false),
            (r#"{"ForAllValues:StringEquals":{"k":"a"}}"#, None, true),
            (
                r#"{"ForAllValues:StringEquals":{"k":"a"}}"#,
                Some("b"),
                false,
            ),
            // every key and every operator must hold
            (
                r#"{"StringEquals":{"k":"a"},"StringLike":{"k":"b*"}}"#,
                Some("a"),
                false,
            ),
        ];
        for (block, got, want) in cases {
            assert_eq!(holds(block, k, *got), *want, "{block} with {got:?}");
        }
    }

    #[test]
    fn dates() {
        assert_eq!(parse_date("1970-01-01T00:00:00Z"), Some(0.0));
        assert_eq!(parse_date("2000-03-01"), Some(951_868_800.0));
        assert_eq!(parse_date("2026-12-01T10:30:15.5Z"), Some(1_796_121_015.5));
        for bad in [
            "2026-13-01",
            "2026-12-01T25:00:00Z",
            "yesterday",
            "2026-12-01T10:00:00",
        ] {
            assert_eq!(parse_date(bad), None, "{bad}");
        }
    }

    #[test]
    fn refused() {
        for bad in [
            r#"{"StringSorta":{"k":"a"}}"#,
            r#"{"Foo:StringEquals":{"k":"a"}}"#,
            r#"{"NullIfExists":{"k":"true"}}"#,
            r#"{"StringEquals":"a"}"#,
            r#"{"StringEquals":{"k":[]}}"#,
            r#"{"StringEquals":{"k":{"x":1}}}"#,
            r#"{"IpAddress":{"k":"10.0.0.0/33"}}"#,
            r#"{"IpAddress":{"k":"::1/129"}}"#,
            r#"{"IpAddress":{"k":"host.example"}}"#,
            r#"{"NumericEquals":{"k":"x"}}"#,
            r#"{"DateEquals":{"k":"tomorrow"}}"#,
            r#"{"Bool":{"k":"1"}}"#,
            r#"[]"#,
        ] {
            let v: Value = serde_json::from_str(bad).expect("json");
            assert!(Condition::parse_block(&v).is_err(), "{bad}");
        }
    }
}
