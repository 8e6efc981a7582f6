//! Translation of LLVM's POSIX extended regular expressions into Rust `regex` syntax.
//!
//! LLVM's `Regex` is Henry Spencer's POSIX ERE engine with newline-sensitive matching.
//! This module validates a pattern with the same rules (and the same error messages) and
//! rewrites it so that the Rust `regex` crate (bytes API, Unicode off) matches the same text:
//! a backslash makes the next character literal, backslash is literal inside brackets,
//! `.` and negated brackets never match a newline, and `^`/`$` match at line boundaries.

/// How the translated regex will be compiled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    /// `regex::bytes` with `(?-u)`: non-ASCII bytes become `\xHH`.
    Bytes,
    /// `fancy_regex` on UTF-8 text: non-ASCII bytes are copied through.
    Fancy,
}

/// The result of translating one regex fragment.
#[derive(Debug, Default)]
pub struct Translated {
    /// The number of capture groups the fragment opens.
    pub groups: usize,
    /// Whether the fragment contains a back-reference.
    pub backref: bool,
    /// An upper bound on the size of the compiled regex: one per atom, times the largest count of
    /// each repetition around it (saturating).
    pub weight: u64,
    /// The deepest nesting of parentheses.
    pub depth: usize,
}

const DUP_MAX: u32 = 255;

/// LLVM's message for each regcomp error.
pub mod msg {
    /// REG_ECTYPE.
    pub const ECTYPE: &str = "invalid character class";
    /// REG_ECOLLATE.
    pub const ECOLLATE: &str = "invalid collating element";
    /// REG_EESCAPE.
    pub const EESCAPE: &str = "trailing backslash (\\)";
    /// REG_ESUBREG.
    pub const ESUBREG: &str = "invalid backreference number";
    /// REG_EBRACK.
    pub const EBRACK: &str = "brackets ([ ]) not balanced";
    /// REG_EPAREN.
    pub const EPAREN: &str = "parentheses not balanced";
    /// REG_EBRACE.
    pub const EBRACE: &str = "braces not balanced";
    /// REG_BADBR.
    pub const BADBR: &str = "invalid repetition count(s)";
    /// REG_ERANGE.
    pub const ERANGE: &str = "invalid character range";
    /// REG_BADRPT.
    pub const BADRPT: &str = "repetition-operator operand invalid";
    /// REG_EMPTY.
    pub const EMPTY: &str = "empty (sub)expression";
}

struct Parser<'a> {
    s: &'a [u8],
    p: usize,
    out: &'a mut Vec<u8>,
    dialect: Dialect,
    /// Group numbering starts after this many groups.
    base: usize,
    nsub: usize,
    closed: Vec<bool>,
    backref: bool,
    depth: usize,
    max_depth: usize,
}

type R<T> = Result<T, &'static str>;

/// Appends `c` to `out` as a literal for the given dialect.
pub fn push_literal(out: &mut Vec<u8>, c: u8, dialect: Dialect) {
    // Only the Rust regex meta characters are escaped: `\<` and `\>` would be word boundaries.
    if b"\\.+*?()|[]{}^$#&-~".contains(&c) {
        out.push(b'\\');
        out.push(c);
    } else if c.is_ascii_graphic() || c == b' ' || (c >= 0x80 && dialect == Dialect::Fancy) {
        out.push(c);
    } else {
        out.extend_from_slice(format!("\\x{:02X}", c).as_bytes());
    }
}

/// Appends `s` to `out` as literal text.
pub fn push_literal_str(out: &mut Vec<u8>, s: &[u8], dialect: Dialect) {
    for &c in s {
        push_literal(out, c, dialect);
    }
}

/// Translates `src` (LLVM ERE) into `out`; `base` is the number of groups already opened before it.
pub fn translate(src: &[u8], base: usize, out: &mut Vec<u8>, dialect: Dialect) -> R<Translated> {
    let mut p = Parser {
        s: src,
        p: 0,
        out,
        dialect,
        base,
        nsub: 0,
        closed: Vec::new(),
        backref: false,
        depth: 0,
        max_depth: 0,
    };
    let weight = p.ere(None)?;
    if p.p < p.s.len() {
        // Only a stray ')' can stop the top level early.
        return Err(msg::EPAREN);
    }
    Ok(Translated {
        groups: p.nsub,
        backref: p.backref,
        weight,
        depth: p.max_depth,
    })
}

impl Parser<'_> {
    fn more(&self) -> bool {
        self.p < self.s.len()
    }
    fn peek(&self) -> u8 {
        self.s[self.p]
    }
    fn peek2(&self) -> Option<u8> {
        self.s.get(self.p + 1).copied()
    }

    /// Returns the weight of the alternatives (see [`Translated::weight`]).
    fn ere(&mut self, stop: Option<u8>) -> R<u64> {
        let mut weight = 0u64;
        loop {
            let start = self.p;
            while self.more() && self.peek() != b'|' && Some(self.peek()) != stop {
                weight = weight.saturating_add(self.exp()?);
            }
            if self.p == start {
                return Err(msg::EMPTY);
            }
            if self.more() && self.peek() == b'|' {
                self.p += 1;
                self.out.push(b'|');
            } else {
                return Ok(weight);
            }
        }
    }

    fn is_rep_start(&self) -> bool {
        if !self.more() {
            return false;
        }
        match self.peek() {
            b'*' | b'+' | b'?' => true,
            b'{' => self.peek2().is_some_and(|c| c.is_ascii_digit()),
            _ => false,
        }
    }

    /// Translates one atom and its repetition; returns its weight.
    fn exp(&mut self) -> R<u64> {
        let c = self.peek();
        self.p += 1;
        let mut was_caret = false;
        let mut weight = 1u64;
        match c {
            b'(' => {
                if !self.more() {
                    return Err(msg::EPAREN);
                }
                self.nsub += 1;
                let idx = self.nsub;
                self.closed.push(false);
                self.out.push(b'(');
                self.depth += 1;
                self.max_depth = self.max_depth.max(self.depth);
                if self.peek() != b')' {
                    weight = weight.saturating_add(self.ere(Some(b')'))?);
                }
                self.depth -= 1;
                if !self.more() || self.peek() != b')' {
                    return Err(msg::EPAREN);
                }
                self.p += 1;
                self.out.push(b')');
                self.closed[idx - 1] = true;
            }
            b')' => return Err(msg::EPAREN),
            b'^' => {
                self.out.push(b'^');
                was_caret = true;
            }
            b'$' => self.out.push(b'$'),
            b'|' => return Err(msg::EMPTY),
            b'*' | b'+' | b'?' => return Err(msg::BADRPT),
            b'.' => self.out.extend_from_slice(b"[^\\n]"),
            b'[' => self.bracket()?,
            b'\\' => {
                if !self.more() {
                    return Err(msg::EESCAPE);
                }
                let c = self.peek();
                self.p += 1;
                if (b'1'..=b'9').contains(&c) {
                    let i = (c - b'0') as usize;
                    if i > self.nsub || !self.closed[i - 1] {
                        return Err(msg::ESUBREG);
                    }
                    self.backref = true;
                    self.out
                        .extend_from_slice(format!("\\{}", i + self.base).as_bytes());
                } else {
                    push_literal(self.out, c, self.dialect);
                }
            }
            b'{' => {
                if self.more() && self.peek().is_ascii_digit() {
                    return Err(msg::BADRPT);
                }
                push_literal(self.out, c, self.dialect);
            }
            _ => push_literal(self.out, c, self.dialect),
        }
        if !self.is_rep_start() {
            return Ok(weight);
        }
        let c = self.peek();
        self.p += 1;
        if was_caret {
            return Err(msg::BADRPT);
        }
        match c {
            b'*' | b'?' => self.out.push(c),
            b'+' => {
                // Compiled as `x x*`.
                self.out.push(c);
                weight = weight.saturating_mul(2);
            }
            _ => {
                let lo = self.count()?;
                let mut hi = Some(lo);
                if self.more() && self.peek() == b',' {
                    self.p += 1;
                    if self.more() && self.peek().is_ascii_digit() {
                        let h = self.count()?;
                        if lo > h {
                            return Err(msg::BADBR);
                        }
                        hi = Some(h);
                    } else {
                        hi = None;
                    }
                }
                if !self.more() || self.peek() != b'}' {
                    while self.more() && self.peek() != b'}' {
                        self.p += 1;
                    }
                    if !self.more() {
                        return Err(msg::EBRACE);
                    }
                    return Err(msg::BADBR);
                }
                self.p += 1;
                // `x{m,n}` is compiled as n copies of `x`, `x{m,}` as m copies and a star.
                let copies = match hi {
                    Some(h) => h.max(1),
                    None => lo + 1,
                };
                weight = weight.saturating_mul(u64::from(copies));
                let rep = match hi {
                    Some(h) if h == lo => format!("{{{}}}", lo),
                    Some(h) => format!("{{{},{}}}", lo, h),
                    None => format!("{{{},}}", lo),
                };
                self.out.extend_from_slice(rep.as_bytes());
            }
        }
        if self.is_rep_start() {
            return Err(msg::BADRPT);
        }
        Ok(weight)
    }

    fn count(&mut self) -> R<u32> {
        let mut n = 0u32;
        let mut digits = 0;
        while self.more() && self.peek().is_ascii_digit() && n <= DUP_MAX {
            n = n * 10 + (self.peek() - b'0') as u32;
            self.p += 1;
            digits += 1;
        }
        if digits == 0 || n > DUP_MAX {
            return Err(msg::BADBR);
        }
        Ok(n)
    }

    fn bracket(&mut self) -> R<()> {
        let rest = &self.s[self.p..];
        if rest.starts_with(b"[:<:]]") || rest.starts_with(b"[:>:]]") {
            self.p += 6;
            self.out.extend_from_slice(b"\\b");
            return Ok(());
        }
        let mut negate = false;
        let mut items: Vec<u8> = Vec::new();
        let add = |items: &mut Vec<u8>, lo: u8, hi: u8| {
            push_class_byte(items, lo);
            if hi != lo {
                items.push(b'-');
                push_class_byte(items, hi);
            }
        };
        if self.more() && self.peek() == b'^' {
            self.p += 1;
            negate = true;
        }
        if self.more() && self.peek() == b']' {
            self.p += 1;
            add(&mut items, b']', b']');
        } else if self.more() && self.peek() == b'-' {
            self.p += 1;
            add(&mut items, b'-', b'-');
        }
        while self.more()
            && self.peek() != b']'
            && !(self.peek() == b'-' && self.peek2() == Some(b']'))
        {
            // One bracket term.
            let c = self.peek();
            if c == b'-' {
                return Err(msg::ERANGE);
            }
            if c == b'[' && matches!(self.peek2(), Some(b':') | Some(b'=')) {
                let kind = self.peek2().unwrap_or(b':');
                self.p += 2;
                if !self.more() {
                    return Err(msg::EBRACK);
                }
                let c = self.peek();
                let bad = if kind == b':' {
                    msg::ECTYPE
                } else {
                    msg::ECOLLATE
                };
                if c == b'-' || c == b']' {
                    return Err(bad);
                }
                let start = self.p;
                if kind == b':' {
                    while self.more() && self.peek().is_ascii_alphabetic() {
                        self.p += 1;
                    }
                    let name = &self.s[start..self.p];
                    const CLASSES: [&[u8]; 12] = [
                        b"alnum", b"alpha", b"blank", b"cntrl", b"digit", b"graph", b"lower",
                        b"print", b"punct", b"space", b"upper", b"xdigit",
                    ];
                    if !CLASSES.contains(&name) {
                        return Err(msg::ECTYPE);
                    }
                    if !self.more() {
                        return Err(msg::EBRACK);
                    }
                    if !self.s[self.p..].starts_with(b":]") {
                        return Err(msg::ECTYPE);
                    }
                    self.p += 2;
                    items.extend_from_slice(b"[:");
                    items.extend_from_slice(name);
                    items.extend_from_slice(b":]");
                } else {
                    let v = self.coll_elem(b'=')?;
                    if !self.more() {
                        return Err(msg::EBRACK);
                    }
                    if !self.s[self.p..].starts_with(b"=]") {
                        return Err(msg::ECOLLATE);
                    }
                    self.p += 2;
                    add(&mut items, v, v);
                }
                continue;
            }
            let start = self.symbol()?;
            let finish =
                if self.more() && self.peek() == b'-' && self.peek2().is_some_and(|c| c != b']') {
                    self.p += 1;
                    if self.more() && self.peek() == b'-' {
                        self.p += 1;
                        b'-'
                    } else {
                        self.symbol()?
                    }
                } else {
                    start
                };
            if start > finish {
                return Err(msg::ERANGE);
            }
            add(&mut items, start, finish);
        }
        if self.more() && self.peek() == b'-' {
            self.p += 1;
            add(&mut items, b'-', b'-');
        }
        if !self.more() || self.peek() != b']' {
            return Err(msg::EBRACK);
        }
        self.p += 1;
        self.out.push(b'[');
        if negate {
            self.out.extend_from_slice(b"^\\n");
        }
        if items.is_empty() {
            // Cannot happen in valid POSIX, but keep the class well formed.
            self.out.extend_from_slice(b"\\x00");
        }
        self.out.extend_from_slice(&items);
        self.out.push(b']');
        Ok(())
    }

    fn symbol(&mut self) -> R<u8> {
        if !self.more() {
            return Err(msg::EBRACK);
        }
        if self.s[self.p..].starts_with(b"[.") {
            self.p += 2;
            let v = self.coll_elem(b'.')?;
            if !self.s[self.p..].starts_with(b".]") {
                return Err(msg::ECOLLATE);
            }
            self.p += 2;
            return Ok(v);
        }
        let c = self.peek();
        self.p += 1;
        Ok(c)
    }

    fn coll_elem(&mut self, end: u8) -> R<u8> {
        let start = self.p;
        while self.more() && !(self.peek() == end && self.peek2() == Some(b']')) {
            self.p += 1;
        }
        if !self.more() {
            return Err(msg::EBRACK);
        }
        let name = &self.s[start..self.p];
        if name.len() == 1 {
            return Ok(name[0]);
        }
        const NAMES: [(&[u8], u8); 12] = [
            (b"NUL", 0),
            (b"tab", b'\t'),
            (b"newline", b'\n'),
            (b"space", b' '),
            (b"hyphen", b'-'),
            (b"period", b'.'),
            (b"slash", b'/'),
            (b"backslash", b'\\'),
            (b"underscore", b'_'),
            (b"comma", b','),
            (b"colon", b':'),
            (b"semicolon", b';'),
        ];
        NAMES
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .ok_or(msg::ECOLLATE)
    }
}

fn push_class_byte(items: &mut Vec<u8>, c: u8) {
    if c.is_ascii_alphanumeric() {
        items.push(c);
    } else {
        items.extend_from_slice(format!("\\x{:02X}", c).as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tr(s: &str) -> Result<String, &'static str> {
        let mut out = Vec::new();
        translate(s.as_bytes(), 0, &mut out, Dialect::Bytes)?;
        Ok(String::from_utf8(out).unwrap())
    }

    #[test]
    fn translates_and_rejects_like_llvm() {
        assert_eq!(tr("a.b").unwrap(), "a[^\\n]b");
        assert_eq!(tr("\\d").unwrap(), "d");
        assert_eq!(tr("[^a]").unwrap(), "[^\\na]");
        assert_eq!(tr("[\\]").unwrap(), "[\\x5C]");
        assert_eq!(tr(".*?"), Err(msg::BADRPT));
        assert_eq!(tr("a||b"), Err(msg::EMPTY));
        assert_eq!(tr(""), Err(msg::EMPTY));
        assert_eq!(tr("*a"), Err(msg::BADRPT));
        assert_eq!(tr("a{2"), Err(msg::EBRACE));
        assert_eq!(tr("(a"), Err(msg::EPAREN));
        assert_eq!(tr("a)"), Err(msg::EPAREN));
        assert_eq!(tr("[a"), Err(msg::EBRACK));
        assert_eq!(tr("[z-a]"), Err(msg::ERANGE));
        assert_eq!(tr("[[:foo:]]"), Err(msg::ECTYPE));
        assert_eq!(tr("\\1"), Err(msg::ESUBREG));
        assert_eq!(tr("a\\"), Err(msg::EESCAPE));
        assert!(tr("()").is_ok());
        assert!(tr("(a)\\1").is_ok());
    }

    fn weight_depth(s: &str) -> (u64, usize) {
        let mut out = Vec::new();
        let t = translate(s.as_bytes(), 0, &mut out, Dialect::Bytes).unwrap();
        (t.weight, t.depth)
    }

    #[test]
    fn bounds_the_compiled_size() {
        assert_eq!(weight_depth("abc"), (3, 0));
        assert_eq!(weight_depth("a|bc"), (3, 0));
        assert_eq!(weight_depth("[a-z]+x*"), (3, 0));
        assert_eq!(weight_depth("(ab){3}"), (9, 1));
        assert_eq!(weight_depth("(a{2,}){0,4}"), (16, 1));
        assert_eq!(weight_depth("((a))"), (3, 2));
        assert_eq!(weight_depth("((a{255}){255}){255}"), (16_646_655, 2));
    }
}
