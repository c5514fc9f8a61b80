//! Control characters in XML responses, written as radosgw writes them.
//!
//! A key, prefix or delimiter may hold any byte but NUL; s3s' serializer
//! escapes only `&<>"'`, so a key `c\x01d` would go out raw, which no XML
//! parser reads. radosgw (and AWS) write such characters as character
//! references (`c&#x01;d`): what a client asking no `encoding-type=url`
//! gets back. Tab and line feed stay raw, as radosgw leaves them; a carriage
//! return is escaped too, so that a parser's line-end normalisation cannot
//! turn it into a line feed.

use bytes::Bytes;

/// Text escaped for XML or HTML content and attribute values: `&`, `<`,
/// `>`, `"` and `'` as entities.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// The text of escaped XML content: [`escape`]'s five entities read back
/// (`&amp;` last, so that `&amp;lt;` stays `&lt;`).
pub(crate) fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&amp;", "&")
}

/// Whether radosgw writes the byte as a character reference in XML text:
/// the C0 controls but tab and line feed, and DEL.
fn escaped(b: u8) -> bool {
    (b < 0x20 && b != b'\t' && b != b'\n') || b == 0x7f
}

/// The XML document with each control byte (see [`escaped`]) written as
/// `&#xNN;` (two lowercase hex digits, radosgw's spelling); `None` when it
/// has none. Byte-wise is safe: in UTF-8 no byte below 0x80 is part of a
/// longer character.
pub(crate) fn escape_controls(xml: &[u8]) -> Option<Bytes> {
    let count = xml.iter().filter(|b| escaped(**b)).count();
    if count == 0 {
        return None;
    }
    let mut out = Vec::with_capacity(xml.len() + count * 5);
    for &b in xml {
        if escaped(b) {
            out.extend_from_slice(format!("&#x{b:02x};").as_bytes());
        } else {
            out.push(b);
        }
    }
    Some(Bytes::from(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unescape_reads_back_what_escape_wrote() {
        for text in ["a&b", "<x y=\"1\">'q'</x>", "&amp;lt;", "plain", ""] {
            assert_eq!(unescape(&escape(text)), text, "{text:?}");
        }
        assert_eq!(unescape("&amp;lt;"), "&lt;");
    }

    #[test]
    fn markup_is_escaped() {
        assert_eq!(escape("a<b>&\"c'd"), "a&lt;b&gt;&amp;&quot;c&apos;d");
        assert_eq!(escape("é/plain"), "é/plain");
    }

    #[test]
    fn control_characters_become_references_as_in_radosgw() {
        let table: &[(&[u8], Option<&[u8]>)] = &[
            (b"<Key>plain</Key>", None),
            (b"", None),
            // what radosgw answered for keys c\x01d, e\x7ff and cr\rkey
            (b"<Key>c\x01d</Key>", Some(b"<Key>c&#x01;d</Key>")),
            (b"<Key>e\x7ff</Key>", Some(b"<Key>e&#x7f;f</Key>")),
            (b"<Key>cr\rkey</Key>", Some(b"<Key>cr&#x0d;key</Key>")),
            // tab and line feed stay as they are
            (b"<Key>tab\tkey\nnl</Key>", None),
            (
                b"\x00\x08\x0b\x0c\x0e\x1f",
                Some(b"&#x00;&#x08;&#x0b;&#x0c;&#x0e;&#x1f;"),
            ),
            // UTF-8 beyond ASCII is left alone
            (
                "<Key>\u{e9}\u{1f600}\u{1}</Key>".as_bytes(),
                Some("<Key>\u{e9}\u{1f600}&#x01;</Key>".as_bytes()),
            ),
        ];
        for (xml, want) in table {
            let got = escape_controls(xml);
            assert_eq!(got.as_deref(), *want, "{:?}", String::from_utf8_lossy(xml));
        }
    }
}
