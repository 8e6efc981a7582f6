//! MLIR's declarative assembly format (`assemblyFormat` in ODS), compiled against an op's
//! signature.
//!
//! This crate has no dependencies so that both sides can use the same compiler: `nart-macros`
//! compiles every format when the crate declaring the op is built (a bad format is a compile
//! error), and `nart-ir` compiles it again at run time (once per op kind) to drive the printer
//! and the parser.
//! The two can therefore never disagree about what a format means.
//!
//! Supported: `$operand`, `$attr`, `$region`, `$successor`, `attr-dict`,
//! `attr-dict-with-keyword`, `type($x)` (operands and results, variadic too), `type(operands)`,
//! `type(results)`, `functional-type(a, b)`, `operands`, `regions`, `successors`,
//! `qualified(...)`, literals in backticks, and optional groups `( ... )?` anchored with `^`
//! (or on their first variable). Not supported: `custom<...>` directives and else-groups; an op
//! that needs them keeps hand-written hooks.

#![deny(missing_docs)]

/// How many values an operand or result definition takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Arity {
    /// Exactly one.
    Single,
    /// Zero or one.
    Optional,
    /// Any number.
    Variadic,
}

/// What a format can refer to: the names of an op's operands, results, attributes, regions,
/// and whether it has successors.
#[derive(Clone, Debug, Default)]
pub struct Signature<'a> {
    /// Operands, with their arities.
    pub operands: Vec<(&'a str, Arity)>,
    /// Results, with their arities.
    pub results: Vec<(&'a str, Arity)>,
    /// Inherent attributes (properties).
    pub attrs: Vec<&'a str>,
    /// Regions.
    pub regions: Vec<&'a str>,
    /// Whether the op may have successors (their names are free).
    pub has_successors: bool,
    /// Whether the op sizes its operand groups with `operandSegmentSizes`.
    pub attr_sized_operand_segments: bool,
}

/// One element of a compiled format. Indices refer to the signature's lists.
#[derive(Clone, Debug, PartialEq)]
pub enum Elem {
    /// A literal (punctuation or keyword); the empty literal suppresses the next space.
    Lit(String),
    /// Operand group `i`.
    Operand(usize),
    /// Result group `i` (only inside `type(...)`).
    Result(usize),
    /// Attribute `i`.
    Attr(usize),
    /// Region `i`.
    Region(usize),
    /// Successor `i` (in order of first mention).
    Successor(usize),
    /// `attr-dict` (false) or `attr-dict-with-keyword` (true).
    AttrDict(bool),
    /// All operands.
    Operands,
    /// All results (only inside `type(...)`).
    Results,
    /// All regions.
    Regions,
    /// All successors.
    Successors,
    /// `type(x)`.
    Type(Box<Elem>),
    /// `functional-type(a, b)`.
    FunctionalType(Box<Elem>, Box<Elem>),
    /// `custom<Name>(args)`: syntax a hand-written directive implements (the op's hooks).
    Custom {
        /// The directive's name.
        name: String,
        /// Its arguments.
        args: Vec<Elem>,
    },
    /// `( ... )?`: printed when the anchor is present.
    Optional {
        /// The group's elements.
        elems: Vec<Elem>,
        /// The element whose presence decides the group.
        anchor: Box<Elem>,
    },
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Lit(String),
    Var(String),
    Word(String),
    Punct(char),
}

fn tokenize(fmt: &str) -> Result<Vec<Tok>, String> {
    let b = fmt.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => i += 1,
            b'`' => {
                let s = i + 1;
                let e = fmt[s..].find('`').ok_or("unterminated literal")? + s;
                out.push(Tok::Lit(fmt[s..e].to_string()));
                i = e + 1;
            }
            b'$' => {
                let s = i + 1;
                let mut e = s;
                while e < b.len() && (b[e].is_ascii_alphanumeric() || b[e] == b'_') {
                    e += 1;
                }
                if e == s {
                    return Err("expected a variable name after '$'".into());
                }
                out.push(Tok::Var(fmt[s..e].to_string()));
                i = e;
            }
            b'(' | b')' | b'?' | b'^' | b',' | b':' | b'<' | b'>' => {
                out.push(Tok::Punct(c as char));
                i += 1;
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                let s = i;
                while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_' || b[i] == b'-')
                {
                    i += 1;
                }
                out.push(Tok::Word(fmt[s..i].to_string()));
            }
            _ => {
                let ch = fmt[i..].chars().next().unwrap_or('?');
                return Err(format!("unexpected character '{ch}' in assembly format"));
            }
        }
    }
    Ok(out)
}

struct Compiler<'s, 'a> {
    sig: &'s Signature<'a>,
    toks: Vec<Tok>,
    pos: usize,
    successors: Vec<String>,
}

impl Compiler<'_, '_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos)
    }

    fn expect(&mut self, c: char) -> Result<(), String> {
        if self.peek() == Some(&Tok::Punct(c)) {
            self.pos += 1;
            Ok(())
        } else {
            Err(format!("expected '{c}' in assembly format"))
        }
    }

    fn var(&mut self, name: &str, in_type: bool) -> Result<Elem, String> {
        let s = self.sig;
        if let Some(i) = s.operands.iter().position(|o| o.0 == name) {
            return Ok(Elem::Operand(i));
        }
        if let Some(i) = s.results.iter().position(|o| o.0 == name) {
            if !in_type {
                return Err(format!(
                    "result '${name}' can only be used in a type directive"
                ));
            }
            return Ok(Elem::Result(i));
        }
        if let Some(i) = s.attrs.iter().position(|&o| o == name) {
            return Ok(Elem::Attr(i));
        }
        if let Some(i) = s.regions.iter().position(|&o| o == name) {
            return Ok(Elem::Region(i));
        }
        if s.has_successors {
            let i = match self.successors.iter().position(|x| x == name) {
                Some(i) => i,
                None => {
                    self.successors.push(name.to_string());
                    self.successors.len() - 1
                }
            };
            return Ok(Elem::Successor(i));
        }
        Err(format!("unknown variable '${name}' in assembly format"))
    }

    fn type_arg(&mut self) -> Result<Elem, String> {
        match self.toks.get(self.pos).cloned() {
            Some(Tok::Var(v)) => {
                self.pos += 1;
                let e = self.var(&v, true)?;
                match e {
                    Elem::Operand(_) | Elem::Result(_) => Ok(e),
                    _ => Err(format!("'${v}' is not an operand or result")),
                }
            }
            Some(Tok::Word(w)) if w == "operands" => {
                self.pos += 1;
                Ok(Elem::Operands)
            }
            Some(Tok::Word(w)) if w == "results" => {
                self.pos += 1;
                Ok(Elem::Results)
            }
            _ => Err("expected an operand or result in a type directive".into()),
        }
    }

    /// One argument of a custom directive: `$x`, `type($x)`, or `ref(...)` of either.
    fn custom_arg(&mut self) -> Result<Elem, String> {
        match self.toks.get(self.pos).cloned() {
            Some(Tok::Var(v)) => {
                self.pos += 1;
                self.var(&v, true)
            }
            Some(Tok::Word(w)) if w == "type" => {
                self.pos += 1;
                self.expect('(')?;
                let a = self.type_arg()?;
                self.expect(')')?;
                Ok(Elem::Type(Box::new(a)))
            }
            Some(Tok::Word(w)) if w == "ref" => {
                self.pos += 1;
                self.expect('(')?;
                let a = self.custom_arg()?;
                self.expect(')')?;
                Ok(a)
            }
            _ => Err("expected a variable, type(...) or ref(...) in a custom directive".into()),
        }
    }

    /// Elements until `)` or the end; records an anchor marked `^`.
    fn elems(&mut self, anchor: &mut Option<Elem>) -> Result<Vec<Elem>, String> {
        let mut out = Vec::new();
        while let Some(t) = self.peek().cloned() {
            match t {
                Tok::Punct(')') => break,
                Tok::Lit(s) => {
                    self.pos += 1;
                    out.push(Elem::Lit(s));
                }
                Tok::Var(v) => {
                    self.pos += 1;
                    let e = self.var(&v, false)?;
                    if self.peek() == Some(&Tok::Punct('^')) {
                        self.pos += 1;
                        *anchor = Some(e.clone());
                    }
                    out.push(e);
                }
                Tok::Punct('(') => {
                    self.pos += 1;
                    let mut inner_anchor = None;
                    let inner = self.elems(&mut inner_anchor)?;
                    self.expect(')')?;
                    if self.peek() == Some(&Tok::Punct(':')) {
                        return Err("else-groups are not supported".into());
                    }
                    self.expect('?')?;
                    if inner.is_empty() {
                        return Err("empty optional group".into());
                    }
                    let anchor = match inner_anchor {
                        Some(a) => a,
                        None => inner
                            .iter()
                            .find(|e| !matches!(e, Elem::Lit(_)))
                            .cloned()
                            .ok_or("optional group without a variable")?,
                    };
                    out.push(Elem::Optional {
                        elems: inner,
                        anchor: Box::new(anchor),
                    });
                }
                Tok::Word(w) => {
                    self.pos += 1;
                    let e = match w.as_str() {
                        "attr-dict" => Elem::AttrDict(false),
                        "attr-dict-with-keyword" => Elem::AttrDict(true),
                        "operands" => Elem::Operands,
                        "results" => {
                            return Err("'results' can only be used in a type directive".into())
                        }
                        "regions" => Elem::Regions,
                        "successors" => Elem::Successors,
                        "type" => {
                            self.expect('(')?;
                            let a = self.type_arg()?;
                            self.expect(')')?;
                            Elem::Type(Box::new(a))
                        }
                        "functional-type" => {
                            self.expect('(')?;
                            let a = self.type_arg()?;
                            self.expect(',')?;
                            let b = self.type_arg()?;
                            self.expect(')')?;
                            Elem::FunctionalType(Box::new(a), Box::new(b))
                        }
                        "custom" => {
                            self.expect('<')?;
                            let name = match self.toks.get(self.pos).cloned() {
                                Some(Tok::Word(n)) => n,
                                _ => return Err("expected a directive name after 'custom<'".into()),
                            };
                            self.pos += 1;
                            self.expect('>')?;
                            self.expect('(')?;
                            let mut args = Vec::new();
                            while self.peek() != Some(&Tok::Punct(')')) {
                                args.push(self.custom_arg()?);
                                if self.peek() == Some(&Tok::Punct(',')) {
                                    self.pos += 1;
                                }
                            }
                            self.expect(')')?;
                            Elem::Custom { name, args }
                        }
                        "qualified" => {
                            self.expect('(')?;
                            let mut a = None;
                            let inner = self.elems(&mut a)?;
                            self.expect(')')?;
                            if let Some(a) = a {
                                *anchor = Some(a);
                            }
                            out.extend(inner);
                            continue;
                        }
                        other => {
                            return Err(format!(
                                "unsupported directive '{other}' in assembly format"
                            ))
                        }
                    };
                    if self.peek() == Some(&Tok::Punct('^')) {
                        self.pos += 1;
                        *anchor = Some(e.clone());
                    }
                    out.push(e);
                }
                Tok::Punct(c) => return Err(format!("unexpected '{c}' in assembly format")),
            }
        }
        Ok(out)
    }
}

/// Compiles `fmt` against `sig`, or says what is wrong with it.
pub fn compile(sig: &Signature<'_>, fmt: &str) -> Result<Vec<Elem>, String> {
    let toks = tokenize(fmt)?;
    let mut c = Compiler {
        sig,
        toks,
        pos: 0,
        successors: Vec::new(),
    };
    let mut anchor = None;
    let elems = c.elems(&mut anchor)?;
    if c.pos != c.toks.len() {
        return Err("unbalanced ')' in assembly format".into());
    }
    let variadic = sig.operands.iter().filter(|o| o.1 != Arity::Single).count();
    if variadic > 1 && !sig.attr_sized_operand_segments {
        return Err("several variadic operands need AttrSizedOperandSegments".into());
    }
    check_complete(sig, &elems)?;
    Ok(elems)
}

fn visit<'e>(elems: &'e [Elem], f: &mut impl FnMut(&'e Elem)) {
    for e in elems {
        f(e);
        match e {
            Elem::Type(a) => f(a),
            Elem::FunctionalType(a, b) => {
                f(a);
                f(b);
            }
            Elem::Optional { elems, .. } | Elem::Custom { args: elems, .. } => visit(elems, f),
            _ => {}
        }
    }
}

/// Whether `elems` use a `custom<...>` directive, which only hand-written hooks implement.
pub fn has_custom(elems: &[Elem]) -> bool {
    let mut found = false;
    visit(elems, &mut |e| found |= matches!(e, Elem::Custom { .. }));
    found
}

/// MLIR's completeness rules that need nothing but the format: every operand, region and
/// successor is written, and `attr-dict` appears once.
fn check_complete(sig: &Signature<'_>, elems: &[Elem]) -> Result<(), String> {
    let (mut operands, mut all_operands) = (vec![false; sig.operands.len()], false);
    let (mut regions, mut all_regions) = (vec![false; sig.regions.len()], false);
    let (mut attr_dicts, mut successors) = (0, false);
    let mut in_type = std::collections::HashSet::new();
    visit(elems, &mut |e| match e {
        Elem::Type(t) => {
            in_type.insert(t.as_ref() as *const Elem);
        }
        Elem::FunctionalType(a, b) => {
            in_type.insert(a.as_ref() as *const Elem);
            in_type.insert(b.as_ref() as *const Elem);
        }
        _ => {}
    });
    visit(elems, &mut |e| {
        if in_type.contains(&(e as *const Elem)) {
            return;
        }
        match e {
            Elem::Operand(i) => operands[*i] = true,
            Elem::Operands => all_operands = true,
            Elem::Region(i) => regions[*i] = true,
            Elem::Regions => all_regions = true,
            Elem::AttrDict(_) => attr_dicts += 1,
            Elem::Successor(_) | Elem::Successors => successors = true,
            _ => {}
        }
    });
    if attr_dicts != 1 {
        return Err("'attr-dict' directive must appear exactly once in assembly format".into());
    }
    if !all_operands {
        if let Some(i) = operands.iter().position(|&x| !x) {
            return Err(format!(
                "operand '${}' not found in assembly format",
                sig.operands[i].0
            ));
        }
    }
    if !all_regions {
        if let Some(i) = regions.iter().position(|&x| !x) {
            return Err(format!(
                "region '${}' not found in assembly format",
                sig.regions[i]
            ));
        }
    }
    if sig.has_successors && !successors {
        return Err("successors not found in assembly format".into());
    }
    Ok(())
}

/// The types a format spells: for each operand and result group, whether `type(...)` or
/// `functional-type(...)` writes it (`all` covers `type(operands)`/`type(results)`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SpelledTypes {
    /// Per operand group.
    pub operands: Vec<bool>,
    /// Per result group.
    pub results: Vec<bool>,
}

/// Which operand and result types `elems` spells.
pub fn spelled_types(sig: &Signature<'_>, elems: &[Elem]) -> SpelledTypes {
    let mut s = SpelledTypes {
        operands: vec![false; sig.operands.len()],
        results: vec![false; sig.results.len()],
    };
    let mark = |e: &Elem, s: &mut SpelledTypes| match e {
        Elem::Operand(i) => s.operands[*i] = true,
        Elem::Result(i) => s.results[*i] = true,
        Elem::Operands => s.operands.iter_mut().for_each(|x| *x = true),
        Elem::Results => s.results.iter_mut().for_each(|x| *x = true),
        _ => {}
    };
    visit(elems, &mut |e| match e {
        Elem::Type(t) => mark(t, &mut s),
        Elem::FunctionalType(a, b) => {
            mark(a, &mut s);
            mark(b, &mut s);
        }
        _ => {}
    });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn add() -> Signature<'static> {
        Signature {
            operands: vec![("lhs", Arity::Single), ("rhs", Arity::Single)],
            results: vec![("result", Arity::Single)],
            attrs: vec!["overflowFlags"],
            ..Signature::default()
        }
    }

    #[test]
    fn compiles_formats() {
        let f = compile(&add(), "$lhs `,` $rhs attr-dict `:` type($result)").unwrap();
        assert_eq!(
            f,
            vec![
                Elem::Operand(0),
                Elem::Lit(",".into()),
                Elem::Operand(1),
                Elem::AttrDict(false),
                Elem::Lit(":".into()),
                Elem::Type(Box::new(Elem::Result(0))),
            ]
        );
        let g = compile(
            &add(),
            "$lhs `,` $rhs (`overflow` `` $overflowFlags^)? attr-dict `:` type($result)",
        )
        .unwrap();
        assert!(matches!(&g[3], Elem::Optional { anchor, .. } if **anchor == Elem::Attr(0)));
        assert_eq!(
            spelled_types(&add(), &g),
            SpelledTypes {
                operands: vec![false, false],
                results: vec![true]
            }
        );
    }

    #[test]
    fn rejects_bad_formats() {
        for (fmt, msg) in [
            ("tuple($lhs)", "unsupported directive 'tuple'"),
            ("$nope", "unknown variable '$nope'"),
            ("$lhs attr-dict", "operand '$rhs' not found"),
            (
                "$lhs `,` $rhs",
                "'attr-dict' directive must appear exactly once",
            ),
            (
                "$lhs `,` $rhs attr-dict $result",
                "result '$result' can only be used",
            ),
            (
                "$lhs `,` $rhs attr-dict (`x`)?",
                "optional group without a variable",
            ),
            ("$lhs `,` $rhs attr-dict `x", "unterminated literal"),
            ("$lhs `,` $rhs attr-dict ($lhs)? :", "unexpected ':'"),
        ] {
            let err = compile(&add(), fmt).expect_err(fmt);
            assert!(err.contains(msg), "{fmt}: {err}");
        }
    }
}
