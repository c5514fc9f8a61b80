//! Rust source as the layering check needs it: identifiers and punctuation
//! with their lines, comments and literals gone, and the items marked
//! `#[cfg(test)]` left out.

/// One token of Rust source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// An identifier or keyword (a raw identifier without its `r#`).
    Ident(String),
    /// `::`.
    PathSep,
    /// Any other punctuation character.
    Punct(char),
    /// A literal (string, character, number): its value never matters here.
    Literal,
}

/// A token and the line it starts on (1-based).
#[derive(Debug, Clone)]
pub struct Token {
    /// The token.
    pub tok: Tok,
    /// Its line.
    pub line: usize,
}

impl Token {
    /// Whether this is the identifier `name`.
    pub fn is_ident(&self, name: &str) -> bool {
        matches!(&self.tok, Tok::Ident(s) if s == name)
    }

    /// Whether this is the punctuation character `c`.
    pub fn is_punct(&self, c: char) -> bool {
        self.tok == Tok::Punct(c)
    }

    /// The identifier, if this is one.
    pub fn ident(&self) -> Option<&str> {
        match &self.tok {
            Tok::Ident(s) => Some(s),
            _ => None,
        }
    }
}

fn is_ident_start(c: char) -> bool {
    c == '_' || c.is_alphabetic()
}

fn is_ident_char(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

/// Splits Rust source into tokens, dropping comments (nested block comments
/// included) and the contents of string, byte-string, raw-string and
/// character literals.
pub fn tokenize(src: &str) -> Vec<Token> {
    let s: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    let at = |i: usize| s.get(i).copied().unwrap_or('\0');
    while i < s.len() {
        let c = s[i];
        let start_line = line;
        if c == '\n' {
            line += 1;
            i += 1;
        } else if c.is_whitespace() {
            i += 1;
        } else if c == '/' && at(i + 1) == '/' {
            while i < s.len() && s[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < s.len() {
                if s[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if s[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(s[i] == '\n');
                    i += 1;
                }
            }
        } else if let Some(end) = raw_string_end(&s, i) {
            line += s[i..end].iter().filter(|c| **c == '\n').count();
            i = end;
            out.push(Token {
                tok: Tok::Literal,
                line: start_line,
            });
        } else if c == '"' || (matches!(c, 'b' | 'c') && at(i + 1) == '"') {
            i += if c == '"' { 1 } else { 2 };
            while i < s.len() && s[i] != '"' {
                if s[i] == '\\' {
                    i += 1;
                }
                line += usize::from(at(i) == '\n');
                i += 1;
            }
            i += 1;
            out.push(Token {
                tok: Tok::Literal,
                line: start_line,
            });
        } else if c == '\'' || (c == 'b' && at(i + 1) == '\'') {
            let q = if c == '\'' { i } else { i + 1 };
            if at(q + 1) == '\\' {
                // an escaped character: up to the closing quote
                i = q + 2;
                while i < s.len() && s[i] != '\'' {
                    i += 1;
                }
                i += 1;
                out.push(Token {
                    tok: Tok::Literal,
                    line: start_line,
                });
            } else if at(q + 2) == '\'' {
                i = q + 3;
                out.push(Token {
                    tok: Tok::Literal,
                    line: start_line,
                });
            } else {
                // a lifetime or a label: the quote is punctuation, the name an identifier
                out.push(Token {
                    tok: Tok::Punct('\''),
                    line: start_line,
                });
                i = q + 1;
            }
        } else if c == 'r' && at(i + 1) == '#' && is_ident_start(at(i + 2)) {
            let begin = i + 2;
            i = begin;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(s[begin..i].iter().collect()),
                line: start_line,
            });
        } else if is_ident_start(c) {
            let begin = i;
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Ident(s[begin..i].iter().collect()),
                line: start_line,
            });
        } else if c.is_ascii_digit() {
            while i < s.len() && is_ident_char(s[i]) {
                i += 1;
            }
            out.push(Token {
                tok: Tok::Literal,
                line: start_line,
            });
        } else if c == ':' && at(i + 1) == ':' {
            i += 2;
            out.push(Token {
                tok: Tok::PathSep,
                line: start_line,
            });
        } else {
            i += 1;
            out.push(Token {
                tok: Tok::Punct(c),
                line: start_line,
            });
        }
    }
    out
}

/// Where a raw string literal starting at `i` (`r"…"`, `r#"…"#`, `br#…`,
/// `cr#…`) ends, if one starts there.
fn raw_string_end(s: &[char], i: usize) -> Option<usize> {
    let mut j = i;
    if matches!(s.get(j), Some('b' | 'c')) {
        j += 1;
    }
    if s.get(j) != Some(&'r') {
        return None;
    }
    j += 1;
    let hashes = s[j..].iter().take_while(|c| **c == '#').count();
    j += hashes;
    if s.get(j) != Some(&'"') {
        return None;
    }
    j += 1;
    while j < s.len() {
        if s[j] == '"'
            && s[j + 1..]
                .iter()
                .take(hashes)
                .filter(|c| **c == '#')
                .count()
                == hashes
        {
            return Some(j + 1 + hashes);
        }
        j += 1;
    }
    Some(s.len())
}

/// Whether `toks[i..]` starts with `#[cfg(test)]` (or `#![cfg(test)]` when
/// `inner`); the index after it if so.
pub fn cfg_test_at(toks: &[Token], i: usize, inner: bool) -> Option<usize> {
    let mut j = i;
    let mut next = |want: &dyn Fn(&Token) -> bool| {
        let ok = toks.get(j).is_some_and(want);
        j += 1;
        ok
    };
    let ok = next(&|t| t.is_punct('#'))
        && (!inner || next(&|t| t.is_punct('!')))
        && next(&|t| t.is_punct('['))
        && next(&|t| t.is_ident("cfg"))
        && next(&|t| t.is_punct('('))
        && next(&|t| t.is_ident("test"))
        && next(&|t| t.is_punct(')'))
        && next(&|t| t.is_punct(']'));
    ok.then_some(j)
}

/// The index just past the item (or field, variant, match arm, statement)
/// that starts at `i`, after its attribute: it ends at a `;` or `,` outside
/// brackets, or with its closing brace (a `use`, `const`, `static`, `type`
/// or `let` continues to its `;`), or before a closing bracket it did not
/// open.
pub fn skip_item(toks: &[Token], mut i: usize) -> usize {
    // the item's other attributes
    while toks.get(i).is_some_and(|t| t.is_punct('#')) {
        i = skip_group(toks, i + 1);
    }
    let first_word = toks[i..]
        .iter()
        .filter_map(Token::ident)
        .find(|w| !matches!(*w, "pub" | "crate" | "in" | "super" | "self"));
    let to_semicolon = matches!(
        first_word,
        Some("use" | "const" | "static" | "type" | "let")
    );
    let mut depth = 0usize;
    while i < toks.len() {
        match toks[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(c @ (')' | ']' | '}')) => {
                if depth == 0 {
                    return i;
                }
                depth -= 1;
                if depth == 0 && c == '}' && !to_semicolon {
                    return i + 1;
                }
            }
            Tok::Punct(';' | ',') if depth == 0 => return i + 1,
            _ => {}
        }
        i += 1;
    }
    i
}

/// The index past the bracketed group that opens at `i` (`(`, `[` or `{`).
pub fn skip_group(toks: &[Token], mut i: usize) -> usize {
    let mut depth = 0usize;
    while i < toks.len() {
        match toks[i].tok {
            Tok::Punct('(' | '[' | '{') => depth += 1,
            Tok::Punct(')' | ']' | '}') => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
        i += 1;
    }
    i
}

/// The tokens of non-test code: `toks` without the items marked
/// `#[cfg(test)]`; nothing at all for a file marked `#![cfg(test)]`.
pub fn without_tests(toks: Vec<Token>) -> Vec<Token> {
    let mut out = Vec::with_capacity(toks.len());
    let mut i = 0;
    while i < toks.len() {
        if cfg_test_at(&toks, i, true).is_some() {
            return Vec::new();
        }
        if let Some(after) = cfg_test_at(&toks, i, false) {
            i = skip_item(&toks, after);
            continue;
        }
        out.push(toks[i].clone());
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn idents(src: &str) -> Vec<String> {
        tokenize(src)
            .iter()
            .filter_map(|t| t.ident().map(str::to_owned))
            .collect()
    }

    #[test]
    fn comments_and_literals_are_dropped() {
        let src = r####"a // crate::x
/* b /* nested crate::y */ still comment */ c "crate::z \" d" 'e' '\'' b"f" br#"g"# r##"h "# i"## 'life j
r#type k::l"####;
        assert_eq!(
            idents(src),
            ["a", "c", "life", "j", "type", "k", "l"],
            "{:?}",
            tokenize(src)
        );
        let lines: Vec<usize> = tokenize(src).iter().map(|t| t.line).collect();
        assert_eq!(lines.last(), Some(&3));
    }

    #[test]
    fn test_items_are_left_out() {
        let src = "use a;\n#[cfg(test)]\nuse b::{c, d};\nfn e() {}\n#[cfg(test)]\n#[allow(x)]\nmod f { g }\nstruct H {\n  #[cfg(test)] i: u8,\n  j: u8,\n}\n";
        let kept: Vec<String> = without_tests(tokenize(src))
            .iter()
            .filter_map(|t| t.ident().map(str::to_owned))
            .collect();
        assert_eq!(kept, ["use", "a", "fn", "e", "struct", "H", "j", "u8"]);
        assert!(without_tests(tokenize("#![cfg(test)]\nuse a;")).is_empty());
    }
}
