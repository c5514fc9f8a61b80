//! An Admin Ops request's query string, read as radosgw reads it: names
//! with or without values (`?quota&uid=u`), values percent-decoded, `+`
//! a space; booleans as `true`, `True`, `1` and their opposites.

use std::collections::BTreeMap;

use rsgw_gateway::{GatewayError, GatewayResult};

/// The parameters of one request.
#[derive(Debug, Default)]
pub(crate) struct Query(BTreeMap<String, String>);

impl Query {
    /// Parses a query string (the part after `?`).
    pub(crate) fn parse(q: Option<&str>) -> Query {
        let mut m = BTreeMap::new();
        for pair in q.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            m.insert(decode(k), decode(v));
        }
        Query(m)
    }

    /// Whether the parameter is there, with a value or without.
    pub(crate) fn has(&self, name: &str) -> bool {
        self.0.contains_key(name)
    }

    /// A parameter's value; an empty one is none.
    pub(crate) fn get(&self, name: &str) -> Option<&str> {
        self.0
            .get(name)
            .map(String::as_str)
            .filter(|v| !v.is_empty())
    }

    /// A parameter that must be there: `InvalidArgument` when missing.
    pub(crate) fn need(&self, name: &str) -> GatewayResult<&str> {
        self.get(name)
            .ok_or_else(|| GatewayError::InvalidArgument(format!("{name} is required")))
    }

    /// A boolean parameter: `None` when absent.
    pub(crate) fn flag(&self, name: &str) -> GatewayResult<Option<bool>> {
        match self.get(name) {
            None => Ok(None),
            Some(v) if v.eq_ignore_ascii_case("true") || v == "1" => Ok(Some(true)),
            Some(v) if v.eq_ignore_ascii_case("false") || v == "0" => Ok(Some(false)),
            Some(v) => Err(GatewayError::InvalidArgument(format!(
                "{name} must be true or false, not {v:?}"
            ))),
        }
    }

    /// An integer parameter: `None` when absent, `InvalidArgument` when it
    /// is no integer (radosgw reads a bad one as 0; rsgw refuses it).
    pub(crate) fn int(&self, name: &str) -> GatewayResult<Option<i64>> {
        self.get(name)
            .map(|v| {
                v.trim().parse::<i64>().map_err(|_| {
                    GatewayError::InvalidArgument(format!("{name} must be an integer, not {v:?}"))
                })
            })
            .transpose()
    }
}

/// Percent-decodes a query component (`+` is a space); an invalid escape
/// stays as it is.
fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < b.len() => {
                match std::str::from_utf8(&b[i + 1..i + 3])
                    .ok()
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queries_read_as_radosgw_reads_them() {
        let q = Query::parse(Some(
            "quota&uid=a%20b&display-name=T+One&stats=True&n=12&bad=x&empty=&pct=%zz&end=%4",
        ));
        assert!(q.has("quota") && q.get("quota").is_none());
        assert_eq!(q.get("uid"), Some("a b"));
        assert_eq!(q.get("display-name"), Some("T One"));
        assert_eq!(q.flag("stats").expect("bool"), Some(true));
        assert_eq!(q.flag("missing").expect("bool"), None);
        assert!(q.flag("bad").is_err());
        assert_eq!(q.int("n").expect("int"), Some(12));
        assert!(q.int("bad").is_err());
        assert_eq!(q.get("empty"), None);
        assert!(q.need("empty").is_err());
        assert_eq!(q.get("pct"), Some("%zz"));
        assert_eq!(q.get("end"), Some("%4"));
        assert!(!Query::parse(None).has("x"));
    }
}
