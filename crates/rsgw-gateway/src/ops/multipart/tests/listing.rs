//! ListMultipartUploads' tests: order, markers, pages, the delimiter,
//! keys holding the index's separator.

use std::collections::BTreeMap;

use super::*;

/// ListMultipartUploads: (key, upload id) order, a key's uploads in
/// the order they began, prefix, key marker (strictly after that key),
/// upload id marker (after that upload of the key marker), max.
#[tokio::test]
async fn list_uploads_pages() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let mut ids = BTreeMap::new();
    for key in ["b", "a/2", "a", "c", "a/1", "a"] {
        ids.entry(key)
            .or_insert_with(Vec::new)
            .push(start(&f, key).await);
    }
    let mut sorted = ids["a"].clone();
    sorted.sort();
    assert_eq!(sorted, ids["a"], "upload ids sort as the uploads began");
    // (prefix, key marker, max, keys, truncated)
    let cases: &[(&str, &str, usize, &[&str], bool)] = &[
        ("", "", 1000, &["a", "a", "a/1", "a/2", "b", "c"], false),
        ("a", "", 1000, &["a", "a", "a/1", "a/2"], false),
        ("a/", "", 1000, &["a/1", "a/2"], false),
        ("z", "", 1000, &[], false),
        ("", "a", 1000, &["a/1", "a/2", "b", "c"], false),
        ("", "a/1", 1000, &["a/2", "b", "c"], false),
        ("", "a0", 1000, &["b", "c"], false),
        ("", "c", 1000, &[], false),
        ("a", "a/1", 1000, &["a/2"], false),
        ("", "", 2, &["a", "a"], true),
        ("", "", 6, &["a", "a", "a/1", "a/2", "b", "c"], false),
        ("", "a/2", 1, &["b"], true),
        ("", "b", 1, &["c"], false),
    ];
    for &(prefix, marker, max, keys, truncated) in cases {
        let got =
            f.gw.list_multipart_uploads(&owner(), "mpu", (prefix, ""), (marker, ""), max)
                .await
                .expect("uploads");
        let got_keys: Vec<&str> = got.uploads.iter().map(|u| u.key.as_str()).collect();
        assert_eq!(
            got_keys, keys,
            "prefix {prefix:?}, marker {marker:?}, max {max}"
        );
        assert_eq!(
            got.is_truncated, truncated,
            "prefix {prefix:?}, marker {marker:?}, max {max}"
        );
        for u in &got.uploads {
            assert_eq!(u.bucket, "mpu");
            assert_eq!(u.owner, "alice");
        }
    }
    // a key's uploads come in upload id order
    let all =
        f.gw.list_multipart_uploads(&owner(), "mpu", ("a", ""), ("", ""), 2)
            .await
            .expect("uploads");
    let got: Vec<&String> = all.uploads.iter().map(|u| &u.upload_id).collect();
    let want: Vec<&String> = ids["a"].iter().collect();
    assert_eq!(got, want);
    // resuming after a's first upload: its second, then the next keys
    let rest =
        f.gw.list_multipart_uploads(&owner(), "mpu", ("", ""), ("a", &ids["a"][0]), 2)
            .await
            .expect("uploads");
    let got: Vec<(&str, &str)> = rest
        .uploads
        .iter()
        .map(|u| (u.key.as_str(), u.upload_id.as_str()))
        .collect();
    assert_eq!(
        got,
        [("a", ids["a"][1].as_str()), ("a/1", ids["a/1"][0].as_str())]
    );
    assert!(rest.is_truncated);
}

/// ListMultipartUploads with a delimiter: keys holding it after the
/// prefix roll up into common prefixes, which count towards max and page
/// as keys do (a prefix as key marker resumes after all of it).
#[tokio::test]
async fn list_uploads_roll_up_at_the_delimiter() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    for key in ["a/1", "a/2", "a/b/3", "b", "c/1", "d"] {
        start(&f, key).await;
    }
    // (prefix, key marker, max, keys, prefixes, truncated, next key marker)
    type Case<'a> = (
        &'a str,
        &'a str,
        usize,
        &'a [&'a str],
        &'a [&'a str],
        bool,
        &'a str,
    );
    let cases: &[Case] = &[
        ("", "", 1000, &["b", "d"], &["a/", "c/"], false, "d"),
        ("", "", 1, &[], &["a/"], true, "a/"),
        ("", "a/", 2, &["b"], &["c/"], true, "c/"),
        ("", "c/", 5, &["d"], &[], false, "d"),
        ("a/", "", 1000, &["a/1", "a/2"], &["a/b/"], false, "a/b/"),
        ("a/", "a/1", 1, &["a/2"], &[], true, "a/2"),
        ("z", "", 1000, &[], &[], false, ""),
    ];
    for &(prefix, marker, max, keys, prefixes, truncated, next) in cases {
        let got =
            f.gw.list_multipart_uploads(&owner(), "mpu", (prefix, "/"), (marker, ""), max)
                .await
                .expect("uploads");
        let why = format!("prefix {prefix:?}, marker {marker:?}, max {max}");
        let got_keys: Vec<&str> = got.uploads.iter().map(|u| u.key.as_str()).collect();
        assert_eq!(got_keys, keys, "{why}");
        assert_eq!(got.common_prefixes, prefixes, "{why}");
        assert_eq!(got.is_truncated, truncated, "{why}");
        let next_key = got.next_marker.as_ref().map(|(k, _)| k.as_str());
        assert_eq!(next_key.unwrap_or(""), next, "{why}");
    }
}

/// A key may hold the upload index's separator (U+0001): its uploads
/// are listed as any other's.
#[tokio::test]
async fn uploads_of_keys_holding_the_separator() {
    let (f, _) = Fixture::with_bucket(small_opts(), "mpu").await;
    let mut want = Vec::new();
    for key in ["a\u{1}b", "a", "a\u{1}"] {
        want.push((key.to_string(), start(&f, key).await));
    }
    want.sort();
    let got =
        f.gw.list_multipart_uploads(&owner(), "mpu", ("", ""), ("", ""), 1000)
            .await
            .expect("uploads");
    let mut got: Vec<(String, String)> = got
        .uploads
        .into_iter()
        .map(|u| (u.key, u.upload_id))
        .collect();
    got.sort();
    assert_eq!(got, want);
}
