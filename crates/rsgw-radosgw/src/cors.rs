//! radosgw's CORS configuration: the `user.rgw.cors` xattr of a bucket
//! instance, an `RGWCORSConfiguration` (`rgw_cors.h` in ceph/ceph): rules
//! of allowed origins, methods and headers, exposed headers and a max age.

use serde_json::{Map, Value, json};

use crate::encoding::{Decoder, Encoder, Header, Result};

/// The method bits of a rule (`RGW_CORS_*`), in the order S3 lists them.
const METHODS: [(u8, &str); 6] = [
    (0x01, "GET"),
    (0x02, "PUT"),
    (0x04, "HEAD"),
    (0x08, "POST"),
    (0x10, "DELETE"),
    (0x20, "COPY"),
];

/// `CORS_MAX_AGE_INVALID`: no max age given.
const NO_MAX_AGE: u32 = u32::MAX;

/// One rule (`RGWCORSRule`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CorsRule {
    /// Seconds a browser may cache the preflight's answer; `None` unset.
    pub max_age: Option<u32>,
    /// `RGW_CORS_*` bits.
    pub allowed_methods: u8,
    /// The rule's id (empty for none).
    pub id: String,
    /// Allowed request headers (a set: sorted).
    pub allowed_headers: Vec<String>,
    /// Allowed origins (a set: sorted).
    pub allowed_origins: Vec<String>,
    /// Headers exposed to the page, in the order given.
    pub expose_headers: Vec<String>,
}

impl CorsRule {
    /// A rule of S3's fields: methods by name (unknown ones ignored, as
    /// radosgw's parser refuses them before), origins and allowed headers
    /// as the sets radosgw keeps (sorted, once each), exposed headers in
    /// order.
    pub fn new(
        id: Option<&str>,
        methods: &[String],
        (origins, headers, expose): (&[String], &[String], &[String]),
        max_age: Option<u32>,
    ) -> Self {
        let set = |v: &[String]| {
            let mut v = v.to_vec();
            v.sort();
            v.dedup();
            v
        };
        CorsRule {
            max_age,
            allowed_methods: METHODS
                .iter()
                .filter(|(_, name)| methods.iter().any(|m| m == name))
                .fold(0, |bits, (bit, _)| bits | bit),
            id: id.unwrap_or_default().to_string(),
            allowed_headers: set(headers),
            allowed_origins: set(origins),
            expose_headers: expose.to_vec(),
        }
    }

    /// The methods the rule allows, by name.
    pub fn methods(&self) -> Vec<&'static str> {
        METHODS
            .iter()
            .filter(|(bit, _)| self.allowed_methods & bit != 0)
            .map(|(_, name)| *name)
            .collect()
    }

    /// The rule as S3's GetBucketCors names it (empty fields left out).
    pub fn to_json(&self) -> Value {
        let mut o = Map::new();
        if !self.id.is_empty() {
            o.insert("ID".into(), json!(self.id));
        }
        if !self.allowed_headers.is_empty() {
            o.insert("AllowedHeaders".into(), json!(self.allowed_headers));
        }
        o.insert("AllowedMethods".into(), json!(self.methods()));
        o.insert("AllowedOrigins".into(), json!(self.allowed_origins));
        if !self.expose_headers.is_empty() {
            o.insert("ExposeHeaders".into(), json!(self.expose_headers));
        }
        if let Some(age) = self.max_age {
            o.insert("MaxAgeSeconds".into(), json!(age));
        }
        Value::Object(o)
    }
}

/// Decodes a `user.rgw.cors` xattr's value: the rules in order; every
/// byte must belong to it.
pub fn decode_cors(bytes: &[u8]) -> Result<Vec<CorsRule>> {
    Decoder::whole(bytes, |d| {
        d.block(
            "RGWCORSConfiguration",
            Header::Start { known: 1 },
            |d, _| d.seq("RGWCORSConfiguration.rules", 6, decode_rule),
        )
    })
}

/// The `user.rgw.cors` xattr's value for `rules`, as radosgw 16.2 encodes
/// it.
pub fn encode_cors(rules: &[CorsRule]) -> Vec<u8> {
    let mut e = Encoder::new();
    e.block(1, 1, |e| {
        e.seq(rules.iter(), |e, r| {
            e.block(1, 1, |e| {
                e.u32(r.max_age.unwrap_or(NO_MAX_AGE))
                    .u8(r.allowed_methods)
                    .string(&r.id);
                for list in [&r.allowed_headers, &r.allowed_origins, &r.expose_headers] {
                    e.seq(list.iter(), |e, s| {
                        e.string(s);
                    });
                }
            });
        });
    });
    e.into_bytes()
}

fn decode_rule(d: &mut Decoder<'_>) -> Result<CorsRule> {
    d.block("RGWCORSRule", Header::Start { known: 1 }, |d, _| {
        let max_age = d.u32("RGWCORSRule.max_age")?;
        let allowed_methods = d.u8("RGWCORSRule.allowed_methods")?;
        let id = d.string("RGWCORSRule.id")?;
        let strings = |d: &mut Decoder<'_>, what| d.seq(what, 4, |d| d.string(what));
        Ok(CorsRule {
            max_age: (max_age != NO_MAX_AGE).then_some(max_age),
            allowed_methods,
            id,
            allowed_headers: strings(d, "RGWCORSRule.allowed_hdrs")?,
            allowed_origins: strings(d, "RGWCORSRule.allowed_origins")?,
            expose_headers: strings(d, "RGWCORSRule.exposable_hdrs")?,
        })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What radosgw 16.2 stored for two rules put through S3 (the first
    /// with every field, the second with an origin and a method only).
    const STORED: &[u8] = include_bytes!("../tests/data/cors-two-rules.bin");

    #[test]
    fn radosgws_rules_decode_as_s3_gave_them() {
        let rules = decode_cors(STORED).expect("decode");
        let got: Vec<Value> = rules.iter().map(CorsRule::to_json).collect();
        assert_eq!(
            got,
            vec![
                json!({"ID": "one", "AllowedHeaders": ["Content-Type", "x-amz-*"],
                       "AllowedMethods": ["GET", "PUT", "HEAD"],
                       "AllowedOrigins": ["http://*.b.example", "https://a.example"],
                       "ExposeHeaders": ["ETag", "x-amz-request-id"], "MaxAgeSeconds": 600}),
                json!({"AllowedMethods": ["GET"], "AllowedOrigins": ["*"]}),
            ]
        );
    }

    #[test]
    fn rules_made_from_s3s_fields_are_the_bytes_radosgw_wrote() {
        let s = |v: &[&str]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
        let rules = [
            CorsRule::new(
                Some("one"),
                &s(&["PUT", "GET", "HEAD"]),
                (
                    &s(&["https://a.example", "http://*.b.example"]),
                    &s(&["x-amz-*", "Content-Type"]),
                    &s(&["ETag", "x-amz-request-id"]),
                ),
                Some(600),
            ),
            CorsRule::new(None, &s(&["GET"]), (&s(&["*"]), &[], &[]), None),
        ];
        assert_eq!(encode_cors(&rules), STORED);
        assert_eq!(decode_cors(STORED).expect("decode"), rules);
    }

    #[test]
    fn cut_or_longer_records_are_errors() {
        assert!(decode_cors(&STORED[..STORED.len() - 1]).is_err());
        let mut longer = STORED.to_vec();
        longer.push(0);
        assert!(decode_cors(&longer).is_err());
    }
}
