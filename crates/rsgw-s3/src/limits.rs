//! S3's limits on one request, named: how long a listing's page may be,
//! how many keys one DeleteObjects may name, which part numbers exist.

/// Entries in one page of a listing at most (keys, versions, parts,
/// uploads), and the page's length when the request asks none
/// (`max-keys`, `max-parts`, `max-uploads`): S3's 1000.
pub(crate) const MAX_PAGE: i32 = 1000;

/// Keys one DeleteObjects request may name.
pub(crate) const MAX_DELETE_KEYS: usize = 1000;

/// The page a listing request asks for: its `max-*` parameter within
/// `0..=MAX_PAGE`, or `MAX_PAGE`.
pub(crate) fn page_size(requested: Option<i32>) -> i32 {
    requested.unwrap_or(MAX_PAGE).clamp(0, MAX_PAGE)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_default_to_and_are_capped_at_1000() {
        let table = [
            (None, 1000),
            (Some(-1), 0),
            (Some(0), 0),
            (Some(1), 1),
            (Some(999), 999),
            (Some(1000), 1000),
            (Some(1001), 1000),
            (Some(i32::MAX), 1000),
        ];
        for (asked, want) in table {
            assert_eq!(page_size(asked), want, "{asked:?}");
        }
    }
}
