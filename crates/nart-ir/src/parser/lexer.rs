//! Byte-level lexer for MLIR text.
//!
//! Tokens are `(kind, start, end)` byte ranges into the source; the lexer never allocates.
//! Malformed input produces an [`Tok::Error`] token whose range covers the offending bytes.

/// Token kinds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Tok {
    Eof,
    Error,
    /// `foo`, `i32`, `func.func`.
    BareIdent,
    /// `@name` or `@"name"`.
    AtIdent,
    /// `%name`.
    PercentIdent,
    /// `^bb0`.
    CaretIdent,
    /// `#name`.
    HashIdent,
    /// `!name`.
    ExclIdent,
    Integer,
    Float,
    String,
    LParen,
    RParen,
    LSquare,
    RSquare,
    LBrace,
    RBrace,
    Less,
    Greater,
    Comma,
    Colon,
    ColonColon,
    Equal,
    Arrow,
    Question,
    Star,
    Plus,
    Minus,
    Ellipsis,
    Vertical,
    /// `{-#`.
    MetaBegin,
    /// `#-}`.
    MetaEnd,
}

/// A token: kind and byte range.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct Token {
    pub kind: Tok,
    pub start: u32,
    pub end: u32,
}

/// Whether `c` may continue a suffix identifier (`%x`, `^bb`, `#a`, `!t`).
pub(crate) fn is_suffix_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'$' | b'.' | b'_' | b'-')
}

/// Whether `c` may continue a bare identifier.
pub(crate) fn is_bare_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'$' | b'.' | b'_')
}

/// Lexes one token starting at `pos` (skipping whitespace and comments).
pub(crate) fn lex(src: &[u8], mut pos: usize) -> Token {
    // Skip whitespace and comments.
    loop {
        match src.get(pos) {
            Some(b' ' | b'\t' | b'\n' | b'\r') => pos += 1,
            Some(b'/') if src.get(pos + 1) == Some(&b'/') => {
                while pos < src.len() && src[pos] != b'\n' {
                    pos += 1;
                }
            }
            _ => break,
        }
    }
    let start = pos;
    let tok = |kind, end: usize| Token {
        kind,
        start: start as u32,
        end: end as u32,
    };
    let Some(&c) = src.get(pos) else {
        return tok(Tok::Eof, pos);
    };
    match c {
        b'(' => tok(Tok::LParen, pos + 1),
        b')' => tok(Tok::RParen, pos + 1),
        b'[' => tok(Tok::LSquare, pos + 1),
        b']' => tok(Tok::RSquare, pos + 1),
        b'{' => {
            if src.get(pos + 1) == Some(&b'-') && src.get(pos + 2) == Some(&b'#') {
                tok(Tok::MetaBegin, pos + 3)
            } else {
                tok(Tok::LBrace, pos + 1)
            }
        }
        b'}' => tok(Tok::RBrace, pos + 1),
        b'<' => tok(Tok::Less, pos + 1),
        b'>' => tok(Tok::Greater, pos + 1),
        b',' => tok(Tok::Comma, pos + 1),
        b':' => {
            if src.get(pos + 1) == Some(&b':') {
                tok(Tok::ColonColon, pos + 2)
            } else {
                tok(Tok::Colon, pos + 1)
            }
        }
        b'=' => tok(Tok::Equal, pos + 1),
        b'?' => tok(Tok::Question, pos + 1),
        b'*' => tok(Tok::Star, pos + 1),
        b'+' => tok(Tok::Plus, pos + 1),
        b'|' => tok(Tok::Vertical, pos + 1),
        b'-' => {
            if src.get(pos + 1) == Some(&b'>') {
                tok(Tok::Arrow, pos + 2)
            } else {
                tok(Tok::Minus, pos + 1)
            }
        }
        b'.' => {
            if src.get(pos + 1) == Some(&b'.') && src.get(pos + 2) == Some(&b'.') {
                tok(Tok::Ellipsis, pos + 3)
            } else {
                tok(Tok::Error, pos + 1)
            }
        }
        b'"' => lex_string(src, pos),
        b'@' => {
            if src.get(pos + 1) == Some(&b'"') {
                let s = lex_string(src, pos + 1);
                if s.kind == Tok::Error {
                    return tok(Tok::Error, s.end as usize);
                }
                return tok(Tok::AtIdent, s.end as usize);
            }
            match src.get(pos + 1) {
                Some(&c) if c.is_ascii_alphabetic() || c == b'_' => {
                    let mut p = pos + 2;
                    while p < src.len() && is_bare_char(src[p]) {
                        p += 1;
                    }
                    tok(Tok::AtIdent, p)
                }
                _ => tok(Tok::Error, pos + 1),
            }
        }
        b'%' | b'^' | b'#' | b'!' => {
            if c == b'#' && src.get(pos + 1) == Some(&b'-') && src.get(pos + 2) == Some(&b'}') {
                return tok(Tok::MetaEnd, pos + 3);
            }
            let kind = match c {
                b'%' => Tok::PercentIdent,
                b'^' => Tok::CaretIdent,
                b'#' => Tok::HashIdent,
                _ => Tok::ExclIdent,
            };
            let mut p = pos + 1;
            match src.get(p) {
                Some(d) if d.is_ascii_digit() => {
                    while p < src.len() && src[p].is_ascii_digit() {
                        p += 1;
                    }
                    tok(kind, p)
                }
                Some(&d) if is_suffix_char(d) => {
                    while p < src.len() && is_suffix_char(src[p]) {
                        p += 1;
                    }
                    tok(kind, p)
                }
                _ => tok(Tok::Error, pos + 1),
            }
        }
        b'0'..=b'9' => lex_number(src, pos),
        c if c.is_ascii_alphabetic() || c == b'_' => {
            let mut p = pos + 1;
            while p < src.len() && is_bare_char(src[p]) {
                p += 1;
            }
            tok(Tok::BareIdent, p)
        }
        _ => {
            // Skip one whole UTF-8 character so that the error range is valid text.
            let mut p = pos + 1;
            while p < src.len() && (src[p] & 0xC0) == 0x80 {
                p += 1;
            }
            tok(Tok::Error, p)
        }
    }
}

fn lex_string(src: &[u8], pos: usize) -> Token {
    let mut p = pos + 1;
    while p < src.len() {
        match src[p] {
            b'"' => {
                return Token {
                    kind: Tok::String,
                    start: pos as u32,
                    end: p as u32 + 1,
                }
            }
            b'\\' => p += 2,
            b'\n' => break,
            _ => p += 1,
        }
    }
    Token {
        kind: Tok::Error,
        start: pos as u32,
        end: p.min(src.len()) as u32,
    }
}

fn lex_number(src: &[u8], pos: usize) -> Token {
    let mut p = pos;
    let t = |kind, end: usize| Token {
        kind,
        start: pos as u32,
        end: end as u32,
    };
    if src[p] == b'0'
        && src.get(p + 1) == Some(&b'x')
        && src.get(p + 2).is_some_and(|c| c.is_ascii_hexdigit())
    {
        p += 2;
        while p < src.len() && src[p].is_ascii_hexdigit() {
            p += 1;
        }
        return t(Tok::Integer, p);
    }
    while p < src.len() && src[p].is_ascii_digit() {
        p += 1;
    }
    if src.get(p) != Some(&b'.') {
        return t(Tok::Integer, p);
    }
    p += 1;
    while p < src.len() && src[p].is_ascii_digit() {
        p += 1;
    }
    if matches!(src.get(p), Some(b'e' | b'E')) {
        let mut q = p + 1;
        if matches!(src.get(q), Some(b'+' | b'-')) {
            q += 1;
        }
        if src.get(q).is_some_and(|c| c.is_ascii_digit()) {
            while q < src.len() && src[q].is_ascii_digit() {
                q += 1;
            }
            p = q;
        }
    }
    t(Tok::Float, p)
}

/// Decodes the body of a string literal token (without the quotes), handling MLIR's escapes
/// `\n \t \" \\ \HH`. Returns `None` for a malformed escape.
pub(crate) fn unescape(body: &[u8]) -> Option<Vec<u8>> {
    unescape_or_offset(body).ok()
}

/// Like [`unescape`], or the offset of the backslash of the first unknown escape.
pub(crate) fn unescape_or_offset(body: &[u8]) -> Result<Vec<u8>, usize> {
    let mut out = Vec::with_capacity(body.len());
    let mut i = 0;
    while i < body.len() {
        let c = body[i];
        if c != b'\\' {
            out.push(c);
            i += 1;
            continue;
        }
        let n = *body.get(i + 1).ok_or(i)?;
        match n {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'"' => out.push(b'"'),
            b'\\' => out.push(b'\\'),
            _ => {
                let h = *body.get(i + 2).ok_or(i)?;
                let v = hex_val(n)
                    .zip(hex_val(h))
                    .map(|(a, b)| (a << 4) | b)
                    .ok_or(i)?;
                out.push(v);
                i += 3;
                continue;
            }
        }
        i += 2;
    }
    Ok(out)
}

/// The value of a hex digit.
pub(crate) fn hex_val(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

/// Finds the end (exclusive) of a balanced `<...>` body starting at `pos` (which holds `<`),
/// skipping nested `<>`, `()`, `[]`, `{}`, string literals and `->`.
pub(crate) fn scan_balanced(src: &[u8], pos: usize) -> Option<usize> {
    let mut stack: Vec<u8> = Vec::new();
    let mut p = pos;
    while p < src.len() {
        let c = src[p];
        match c {
            b'<' | b'(' | b'[' | b'{' => stack.push(c),
            b'-' | b'>' if src.get(p + 1) == Some(if c == b'-' { &b'>' } else { &b'=' }) => {
                p += 2;
                continue;
            }
            b'>' | b')' | b']' | b'}' => {
                let open = stack.pop()?;
                let want = match c {
                    b'>' => b'<',
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                if open != want {
                    return None;
                }
                if stack.is_empty() {
                    return Some(p + 1);
                }
            }
            b'"' => {
                let t = lex_string(src, p);
                if t.kind == Tok::Error {
                    return None;
                }
                p = t.end as usize;
                continue;
            }
            _ => {}
        }
        p += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(s: &str) -> Vec<Tok> {
        let mut out = Vec::new();
        let mut pos = 0;
        loop {
            let t = lex(s.as_bytes(), pos);
            out.push(t.kind);
            if t.kind == Tok::Eof {
                return out;
            }
            pos = t.end as usize;
        }
    }

    #[test]
    fn lexes_basic_tokens() {
        use Tok::*;
        assert_eq!(
            kinds("%0:2 = \"a.b\"(%x#1) : (i32) -> f32 // c\n{-# #-}"),
            vec![
                PercentIdent,
                Colon,
                Integer,
                Equal,
                String,
                LParen,
                PercentIdent,
                HashIdent,
                RParen,
                Colon,
                LParen,
                BareIdent,
                RParen,
                Arrow,
                BareIdent,
                MetaBegin,
                MetaEnd,
                Eof
            ]
        );
        assert_eq!(
            kinds("1.5e-3 0x1F 2x"),
            vec![Float, Integer, Integer, BareIdent, Eof]
        );
        assert_eq!(
            kinds("@a::@\"b c\""),
            vec![AtIdent, ColonColon, AtIdent, Eof]
        );
    }

    #[test]
    fn unescapes_strings() {
        assert_eq!(unescape(br#"a\n\"\\\41"#).unwrap(), b"a\n\"\\A".to_vec());
        assert!(unescape(br"\q").is_none());
    }

    #[test]
    fn scans_balanced_bodies() {
        let s = b"<a<b>(c -> d)\">\">x";
        assert_eq!(scan_balanced(s, 0), Some(s.len() - 1));
        assert_eq!(scan_balanced(b"<(>", 0), None);
    }
}
