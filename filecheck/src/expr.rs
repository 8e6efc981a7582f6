//! Numeric variables, formats and expressions (`[[#%x,VAR:]]`, `[[#VAR+1]]`, `[[#add(A,B)]]`).

use crate::source::Loc;

/// A numeric matching format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Format {
    /// The kind of format.
    pub kind: FormatKind,
    /// Minimum number of digits.
    pub precision: u32,
    /// Whether hex values carry a `0x` prefix.
    pub alt: bool,
}

/// The kinds of numeric format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FormatKind {
    /// No format chosen yet.
    None,
    /// `%u`.
    Unsigned,
    /// `%d`.
    Signed,
    /// `%X`.
    HexUpper,
    /// `%x`.
    HexLower,
}

impl Format {
    /// The empty format.
    pub const NONE: Format = Format {
        kind: FormatKind::None,
        precision: 0,
        alt: false,
    };
    /// The default unsigned format.
    pub const UNSIGNED: Format = Format {
        kind: FormatKind::Unsigned,
        precision: 0,
        alt: false,
    };

    /// LLVM's spelling of the kind, used in conflict messages.
    pub fn spelling(&self) -> &'static str {
        match self.kind {
            FormatKind::None => "<none>",
            FormatKind::Unsigned => "%u",
            FormatKind::Signed => "%d",
            FormatKind::HexUpper => "%X",
            FormatKind::HexLower => "%x",
        }
    }

    /// The regex (LLVM ERE syntax, also valid Rust syntax) matching any value of this format.
    pub fn wildcard(&self) -> String {
        let pre = if self.alt { "0x" } else { "" };
        let p = self.precision;
        match (self.kind, p) {
            (FormatKind::Unsigned | FormatKind::None, 0) => "[0-9]+".into(),
            (FormatKind::Unsigned | FormatKind::None, _) => format!("([1-9][0-9]*)?[0-9]{{{p}}}"),
            (FormatKind::Signed, 0) => "-?[0-9]+".into(),
            (FormatKind::Signed, _) => format!("-?([1-9][0-9]*)?[0-9]{{{p}}}"),
            (FormatKind::HexUpper, 0) => format!("{pre}[0-9A-F]+"),
            (FormatKind::HexUpper, _) => format!("{pre}([1-9A-F][0-9A-F]*)?[0-9A-F]{{{p}}}"),
            (FormatKind::HexLower, 0) => format!("{pre}[0-9a-f]+"),
            (FormatKind::HexLower, _) => format!("{pre}([1-9a-f][0-9a-f]*)?[0-9a-f]{{{p}}}"),
        }
    }

    /// Formats `v`; `None` means an overflow (a negative value in an unsigned format).
    pub fn render(&self, v: i128) -> Option<String> {
        if self.kind != FormatKind::Signed && v < 0 {
            return None;
        }
        let abs = v.unsigned_abs();
        let digits = match self.kind {
            FormatKind::HexUpper => format!("{abs:X}"),
            FormatKind::HexLower => format!("{abs:x}"),
            _ => abs.to_string(),
        };
        let pre = if self.alt { "0x" } else { "" };
        let sign = if v < 0 { "-" } else { "" };
        let zeros = (self.precision as usize).saturating_sub(digits.len());
        Some(format!("{sign}{pre}{}{digits}", "0".repeat(zeros)))
    }

    /// Parses a matched value (guaranteed well formed by [`Format::wildcard`]).
    pub fn parse_value(&self, s: &[u8]) -> Option<i128> {
        let mut s = std::str::from_utf8(s).ok()?;
        let neg = s.starts_with('-');
        if neg {
            s = &s[1..];
        }
        let hex = matches!(self.kind, FormatKind::HexLower | FormatKind::HexUpper);
        if hex && self.alt {
            s = s.strip_prefix("0x").unwrap_or(s);
        }
        let v = i128::from_str_radix(s, if hex { 16 } else { 10 }).ok()?;
        Some(if neg { -v } else { v })
    }
}

/// A numeric variable.
#[derive(Clone, Debug)]
pub struct NumVar {
    /// Its name (`@LINE` for the pseudo variable).
    pub name: String,
    /// Its implicit format.
    pub format: Format,
    /// The check-file line that defines it, if any.
    pub def_line: Option<usize>,
    /// Its current value.
    pub value: Option<i128>,
    /// Where its value was matched in the input, if it came from the input.
    pub matched: Option<(usize, usize)>,
}

/// The binary operations FileCheck knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    /// `+` or `add`.
    Add,
    /// `-` or `sub`.
    Sub,
    /// `mul`.
    Mul,
    /// `div`.
    Div,
    /// `max`.
    Max,
    /// `min`.
    Min,
}

/// A numeric expression tree.
#[derive(Clone, Debug)]
pub enum Ast {
    /// A literal.
    Lit(i128),
    /// A use of a numeric variable (index into the context's table), with the location of its name.
    Var(usize, Loc, usize),
    /// A binary operation, with the location and length of its text.
    Bin(BinOp, Box<Ast>, Box<Ast>, Loc, usize),
}

/// Why evaluating an expression failed.
#[derive(Clone, Debug)]
pub enum EvalError {
    /// These variables (location, name length, variable index) have no value.
    Undef(Vec<(Loc, usize, usize)>),
    /// Arithmetic overflow or division by zero.
    Overflow,
}

impl Ast {
    /// Evaluates the expression against the variable table.
    pub fn eval(&self, vars: &[NumVar]) -> Result<i128, EvalError> {
        match self {
            Ast::Lit(v) => Ok(*v),
            Ast::Var(i, loc, len) => vars[*i]
                .value
                .ok_or(EvalError::Undef(vec![(*loc, *len, *i)])),
            Ast::Bin(op, l, r, _, _) => {
                let (l, r) = match (l.eval(vars), r.eval(vars)) {
                    (Ok(l), Ok(r)) => (l, r),
                    (Err(EvalError::Undef(mut a)), Err(EvalError::Undef(b))) => {
                        a.extend(b);
                        return Err(EvalError::Undef(a));
                    }
                    (Err(e), _) | (_, Err(e)) => return Err(e),
                };
                let v = match op {
                    BinOp::Add => l.checked_add(r),
                    BinOp::Sub => l.checked_sub(r),
                    BinOp::Mul => l.checked_mul(r),
                    BinOp::Div => {
                        if r == 0 {
                            None
                        } else {
                            l.checked_div(r)
                        }
                    }
                    BinOp::Max => Some(l.max(r)),
                    BinOp::Min => Some(l.min(r)),
                };
                v.ok_or(EvalError::Overflow)
            }
        }
    }

    /// The implicit format of the expression; `Err` holds a conflict message.
    pub fn implicit_format(
        &self,
        vars: &[NumVar],
        text: &dyn Fn(Loc, usize) -> String,
    ) -> Result<Format, (Loc, usize, String)> {
        match self {
            Ast::Lit(_) => Ok(Format::NONE),
            Ast::Var(i, _, _) => Ok(vars[*i].format),
            Ast::Bin(_, l, r, loc, len) => {
                let lf = l.implicit_format(vars, text)?;
                let rf = r.implicit_format(vars, text)?;
                if lf.kind != FormatKind::None && rf.kind != FormatKind::None && lf != rf {
                    let (ll, llen) = l.span();
                    let (rl, rlen) = r.span();
                    return Err((
                        *loc,
                        *len,
                        format!(
                            "implicit format conflict between '{}' ({}) and '{}' ({}), need an explicit format specifier",
                            text(ll, llen),
                            lf.spelling(),
                            text(rl, rlen),
                            rf.spelling()
                        ),
                    ));
                }
                Ok(if lf.kind != FormatKind::None { lf } else { rf })
            }
        }
    }

    fn span(&self) -> (Loc, usize) {
        match self {
            Ast::Lit(_) => (Loc::new(crate::source::BufId::Check, 0), 0),
            Ast::Var(_, l, n) => (*l, *n),
            Ast::Bin(_, _, _, l, n) => (*l, *n),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_render_and_parse() {
        let x = Format {
            kind: FormatKind::HexLower,
            precision: 4,
            alt: true,
        };
        assert_eq!(x.render(255).unwrap(), "0x00ff");
        assert_eq!(x.parse_value(b"0x00ff"), Some(255));
        assert_eq!(Format::UNSIGNED.render(-1), None);
        let d = Format {
            kind: FormatKind::Signed,
            precision: 3,
            alt: false,
        };
        assert_eq!(d.render(-5).unwrap(), "-005");
    }
}
