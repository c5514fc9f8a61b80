//! Tags: the checks S3 makes of an object's or a bucket's tag set.

use std::collections::BTreeMap;

use crate::model::error::{GatewayError, GatewayResult};
use crate::model::limits::{MAX_BUCKET_TAGS, MAX_OBJECT_TAGS, MAX_TAG_KEY, MAX_TAG_VALUE};

/// Checks an object's tags as sent (in order, duplicates included) against
/// S3's rules and returns them as stored; the error says which rule, as
/// S3's `InvalidTag` does.
pub fn check_tags(tags: Vec<(String, String)>) -> GatewayResult<BTreeMap<String, String>> {
    check_tag_set(tags, MAX_OBJECT_TAGS, "Object tags")
}

/// [`check_tags`] for a bucket's tags, which may be more.
pub(crate) fn check_bucket_tags(
    tags: Vec<(String, String)>,
) -> GatewayResult<BTreeMap<String, String>> {
    check_tag_set(tags, MAX_BUCKET_TAGS, "Bucket tag count")
}

fn check_tag_set(
    tags: Vec<(String, String)>,
    max: usize,
    what: &str,
) -> GatewayResult<BTreeMap<String, String>> {
    let invalid = |m: String| Err(GatewayError::InvalidTag(m));
    if tags.len() > max {
        return invalid(format!("{what} cannot be greater than {max}"));
    }
    let mut out = BTreeMap::new();
    for (k, v) in tags {
        let n = k.chars().count();
        if n == 0 || n > MAX_TAG_KEY {
            return invalid(format!(
                "The TagKey you have provided is invalid: it must be 1 to {MAX_TAG_KEY} characters"
            ));
        }
        if v.chars().count() > MAX_TAG_VALUE {
            return invalid(format!(
                "The TagValue you have provided is too long: at most {MAX_TAG_VALUE} characters"
            ));
        }
        if k.starts_with("aws:") {
            return invalid("Your TagKey cannot be prefixed with aws:".into());
        }
        if out.insert(k, v).is_some() {
            return invalid("Cannot provide multiple Tags with the same key".into());
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testutil::pairs;

    #[test]
    fn s3s_limits() {
        let ten: Vec<(String, String)> = (0..10).map(|i| (format!("k{i}"), "v".into())).collect();
        assert_eq!(check_tags(ten.clone()).expect("ten").len(), 10);
        let mut eleven = ten;
        eleven.push(("k10".into(), "v".into()));
        let long_key = "é".repeat(129);
        let long_value = "v".repeat(257);
        for (tags, why) in [
            (eleven, "greater than 10"),
            (pairs(&[("", "v")]), "TagKey"),
            (pairs(&[(&long_key, "v")]), "TagKey"),
            (pairs(&[("k", &long_value)]), "TagValue"),
            (pairs(&[("aws:x", "v")]), "aws:"),
            (pairs(&[("k", "1"), ("k", "2")]), "same key"),
        ] {
            let e = check_tags(tags).expect_err(why);
            assert!(e.to_string().contains(why), "{e}");
        }
        let ok = check_tags(pairs(&[(&"é".repeat(128), ""), ("k", &"v".repeat(256))]));
        assert_eq!(ok.expect("at the limits").len(), 2);
        let fifty: Vec<(String, String)> = (0..50).map(|i| (format!("k{i}"), "v".into())).collect();
        assert_eq!(check_bucket_tags(fifty.clone()).expect("fifty").len(), 50);
        let mut many = fifty;
        many.push(("k50".into(), "v".into()));
        let e = check_bucket_tags(many).expect_err("51");
        assert!(e.to_string().contains("greater than 50"), "{e}");
        let e = check_bucket_tags(pairs(&[("aws:x", "v")])).expect_err("aws:");
        assert!(e.to_string().contains("aws:"), "{e}");
    }
}
