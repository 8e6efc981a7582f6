//! Parsing of builtin attributes (numbers, strings, arrays, dictionaries, symbol references,
//! dense elements, dense arrays, affine maps, strided layouts), locations and attribute aliases.

use super::lexer::{scan_balanced, Tok};
use super::num::{bits_to_float, float_storage_bytes, float_to_bits};
use super::{decode_hex, PResult, Parser};
use crate::apint::ApInt;
use crate::types::{Signedness, TypeData};
use crate::FloatKind;
use crate::{
    AffineExpr, AffineMap, Attr, AttrData, DenseArrayData, DenseData, LocData, Location, NamedAttr,
    Type, DYNAMIC,
};

/// An element literal of `dense<...>` before its type is known.
enum Lit {
    /// An integer: sign, magnitude words, whether written in hex, and where its digits start
    /// (where upstream reports a value out of range).
    Int {
        neg: bool,
        mag: Vec<u64>,
        hex: bool,
        pos: u32,
    },
    Float(f64, u32),
    Bool(bool, u32),
    Str(Vec<u8>),
    Complex(Box<Lit>, Box<Lit>),
    List(Vec<Lit>),
}

/// The shape of a tensor literal: each list's length, following first elements (the parser
/// checks that the elements of every list have the same shape).
fn lit_shape(lit: &Lit) -> Vec<usize> {
    let mut shape = Vec::new();
    let mut cur = lit;
    while let Lit::List(items) = cur {
        shape.push(items.len());
        match items.first() {
            Some(f) => cur = f,
            None => break,
        }
    }
    shape
}

/// The number of significant bits of a magnitude.
fn bit_length(mag: &[u64]) -> u32 {
    mag.iter()
        .rposition(|&w| w != 0)
        .map_or(0, |i| i as u32 * 64 + 64 - mag[i].leading_zeros())
}

/// The integer a literal denotes in the integer or `index` type `ty` (upstream's
/// `buildAttributeAPInt`): its magnitude must fit the width, a negative value must be
/// representable as a signed one, and a positive one of a signed type or `index` as well; a
/// signless type takes both readings (`255 : i8` is `-1`). `None` when out of range.
pub(crate) fn build_int(ctx: &crate::Context, ty: Type, neg: bool, mag: &[u64]) -> Option<ApInt> {
    let (width, signed) = match ctx.type_data(ty) {
        TypeData::Integer { width, signedness } => (*width, *signedness == Signedness::Signed),
        _ => (64, true),
    };
    if bit_length(mag) > width {
        return None;
    }
    let v = ApInt::from_words(width, mag.to_vec());
    if neg {
        let n = v.neg();
        return n.is_negative().then_some(n);
    }
    if signed && v.is_negative() {
        return None;
    }
    Some(v)
}

/// Whether `name` can be printed without quotes as an attribute name.
pub(crate) fn is_bare_name(name: &str) -> bool {
    let b = name.as_bytes();
    !b.is_empty()
        && (b[0].is_ascii_alphabetic() || b[0] == b'_')
        && b.iter().all(|&c| super::lexer::is_bare_char(c))
}

impl<'c> Parser<'c> {
    /// A fused location simplified as MLIR's `FusedLoc::get` does: nested fused locations with
    /// the same metadata are flattened, unknown and repeated members dropped, and a single
    /// member without metadata stands for itself.
    pub(crate) fn fused_loc(&mut self, locs: Vec<Location>, metadata: Option<Attr>) -> Location {
        let mut kept: Vec<Location> = Vec::with_capacity(locs.len());
        for l in locs {
            match self.ctx.loc_data(l) {
                LocData::Fused {
                    metadata: m,
                    locs: inner,
                } if *m == metadata => {
                    for &x in inner {
                        if !kept.contains(&x) {
                            kept.push(x);
                        }
                    }
                }
                LocData::Unknown => {}
                _ => {
                    if !kept.contains(&l) {
                        kept.push(l);
                    }
                }
            }
        }
        if kept.is_empty() {
            let unknown = self.ctx.unknown_loc();
            return match metadata {
                None => unknown,
                Some(_) => self.ctx.loc(LocData::Fused {
                    metadata,
                    locs: vec![unknown],
                }),
            };
        }
        if kept.len() == 1 && metadata.is_none() {
            return kept[0];
        }
        self.ctx.loc(LocData::Fused {
            metadata,
            locs: kept,
        })
    }

    /// Parses an attribute dictionary `{a = 1, b}` (current token `{`), in written order.
    pub(crate) fn parse_attr_dict(&mut self) -> PResult<Vec<NamedAttr>> {
        self.expect(Tok::LBrace, "'{'")?;
        let mut out: Vec<NamedAttr> = Vec::new();
        if !self.is(Tok::RBrace) {
            loop {
                let t = self.tok;
                let name = match t.kind {
                    Tok::BareIdent => {
                        self.advance();
                        let text = self.text(t);
                        self.ctx.ident(text)
                    }
                    Tok::String => {
                        let s = self.parse_string_lit()?;
                        if s.is_empty() {
                            return Err(self.err_at(t.start, "expected valid attribute name"));
                        }
                        self.ctx.ident(&s)
                    }
                    _ => return Err(self.err("expected attribute name")),
                };
                if out.iter().any(|a| a.name == name) {
                    let n = self.ctx.str(name).to_string();
                    return Err(self.err_at(
                        t.start,
                        format!("duplicate key '{n}' in dictionary attribute"),
                    ));
                }
                let value = if self.consume_if(Tok::Equal) {
                    self.parse_attribute()?
                } else {
                    self.ctx.unit_attr()
                };
                out.push(NamedAttr { name, value });
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "'}' in attribute dictionary")?;
        Ok(out)
    }

    /// Whether the current token can start an attribute.
    pub(crate) fn can_start_attr(&self) -> bool {
        matches!(
            self.tok.kind,
            Tok::Integer
                | Tok::Float
                | Tok::Minus
                | Tok::String
                | Tok::LSquare
                | Tok::LBrace
                | Tok::AtIdent
                | Tok::HashIdent
        ) || self.can_start_type()
            || (self.is(Tok::BareIdent)
                && matches!(
                    self.tok_text(),
                    "unit"
                        | "true"
                        | "false"
                        | "dense"
                        | "dense_resource"
                        | "array"
                        | "affine_map"
                        | "affine_set"
                        | "strided"
                        | "loc"
                        | "distinct"
                        | "sparse"
                ))
    }

    /// Parses an attribute.
    pub(crate) fn parse_attribute(&mut self) -> PResult<Attr> {
        self.enter()?;
        let r = self.parse_attribute_inner();
        self.leave();
        r
    }

    fn parse_attribute_inner(&mut self) -> PResult<Attr> {
        let t = self.tok;
        match t.kind {
            Tok::Integer | Tok::Float | Tok::Minus => self.parse_number_attr(),
            Tok::String => {
                let v = self.string_value(t)?;
                self.advance();
                let ty = if self.consume_if(Tok::Colon) {
                    Some(self.parse_type()?)
                } else {
                    None
                };
                Ok(self.ctx.intern_attr(AttrData::String { value: v, ty }))
            }
            Tok::LSquare => {
                self.advance();
                let mut items = Vec::new();
                if !self.is(Tok::RSquare) {
                    loop {
                        items.push(self.parse_attribute()?);
                        if !self.consume_if(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RSquare, "',' or ']'")?;
                Ok(self.ctx.array_attr(items))
            }
            Tok::LBrace => {
                let entries = self.parse_attr_dict()?;
                Ok(self.ctx.dict_attr(entries))
            }
            Tok::AtIdent => {
                let root = self.parse_symbol_name_tok()?;
                let mut nested = Vec::new();
                while self.consume_if(Tok::ColonColon) {
                    if !self.is(Tok::AtIdent) {
                        return Err(self.err("expected nested symbol reference identifier"));
                    }
                    nested.push(self.parse_symbol_name_tok()?);
                }
                let root = self.ctx.ident(&root);
                let nested = nested.iter().map(|n| self.ctx.ident(n)).collect();
                Ok(self.ctx.intern_attr(AttrData::SymbolRef { root, nested }))
            }
            Tok::HashIdent => {
                let ident = &self.text(t)[1..];
                if let Some(a) = self.parse_registered_dialect_attr(ident)? {
                    return Ok(a);
                }
                let (dialect, body, pretty, end) = self.dialect_symbol(t.start, t.end, ident)?;
                if dialect.is_empty() {
                    let Some(&a) = self.attr_aliases.get(ident) else {
                        let next = super::lexer::lex(self.b, t.end as usize).start;
                        return Err(
                            self.err_at(next, format!("undefined symbol alias id '{ident}'"))
                        );
                    };
                    self.charge_attr_alias(a, t.start)?;
                    self.advance();
                    return Ok(a);
                }
                self.reset_to(end);
                Ok(self.ctx.intern_attr(AttrData::Unregistered {
                    dialect: dialect.to_string(),
                    body: body.to_string(),
                    pretty,
                }))
            }
            Tok::BareIdent => match self.text(t) {
                "unit" => {
                    self.advance();
                    Ok(self.ctx.unit_attr())
                }
                "true" | "false" => {
                    let v = self.text(t) == "true";
                    self.advance();
                    Ok(self.ctx.bool_attr(v))
                }
                "dense" => self.parse_dense(),
                "dense_resource" => {
                    self.advance();
                    self.expect(Tok::Less, "'<' after 'dense_resource'")?;
                    let k = self.tok;
                    let key = match k.kind {
                        Tok::BareIdent => {
                            self.advance();
                            self.text(k).to_string()
                        }
                        Tok::String => self.parse_string_lit()?,
                        _ => return Err(self.err("expected resource handle")),
                    };
                    self.expect(Tok::Greater, "'>'")?;
                    let ty_pos = self.tok.start;
                    self.expect(Tok::Colon, "':'")?;
                    let ty = self.parse_type()?;
                    if !matches!(
                        self.ctx.type_data(ty),
                        TypeData::RankedTensor { .. }
                            | TypeData::UnrankedTensor { .. }
                            | TypeData::Vector { .. }
                            | TypeData::MemRef { .. }
                            | TypeData::UnrankedMemRef { .. }
                    ) {
                        return Err(self.err_at(ty_pos, "`dense_resource` expected a shaped type"));
                    }
                    Ok(self.ctx.intern_attr(AttrData::DenseResource { key, ty }))
                }
                "array" => self.parse_dense_array(),
                "affine_map" => {
                    self.advance();
                    self.expect(Tok::Less, "'<' after 'affine_map'")?;
                    let m = self.parse_affine_map()?;
                    self.expect(Tok::Greater, "'>' after affine map")?;
                    Ok(self.ctx.intern_attr(AttrData::AffineMap(m)))
                }
                "strided" => self.parse_strided(),
                "loc" => {
                    let l = self.parse_location()?;
                    Ok(l.attr())
                }
                "affine_set" | "distinct" | "sparse" => self.parse_opaque_keyword_attr(),
                _ if self.can_start_type() => {
                    let ty = self.parse_type()?;
                    Ok(self.ctx.type_attr(ty))
                }
                _ => Err(self.err("expected attribute value")),
            },
            Tok::ExclIdent | Tok::LParen => {
                let ty = self.parse_type()?;
                Ok(self.ctx.type_attr(ty))
            }
            _ => Err(self.err("expected attribute value")),
        }
    }

    /// `affine_set<...>`, `distinct[0]<...>`, `sparse<...> : type` kept verbatim.
    fn parse_opaque_keyword_attr(&mut self) -> PResult<Attr> {
        let t = self.tok;
        let kw = self.text(t);
        let mut p = t.end as usize;
        if kw == "distinct" {
            if self.b.get(p) != Some(&b'[') {
                return Err(self.err_at(p as u32, "expected '[' after 'distinct'"));
            }
            while p < self.b.len() && self.b[p] != b']' {
                p += 1;
            }
            p += 1;
        }
        if self.b.get(p) != Some(&b'<') {
            return Err(self.err_at(p as u32, format!("expected '<' after '{kw}'")));
        }
        let end =
            scan_balanced(self.b, p).ok_or_else(|| self.err_at(p as u32, "unbalanced '<'"))?;
        let mut text = self.src[t.start as usize..end].to_string();
        self.reset_to(end);
        if kw == "sparse" && self.consume_if(Tok::Colon) {
            let ty = self.parse_type()?;
            text.push_str(" : ");
            text.push_str(&self.type_str(ty));
        }
        Ok(self.ctx.intern_attr(AttrData::Opaque(text)))
    }

    /// `@name` or `@"name"`: the symbol text.
    /// Parses `#dialect.mnemonic<...>` of a registered dialect through the dialect's hook.
    fn parse_registered_dialect_attr(&mut self, ident: &'c str) -> PResult<Option<Attr>> {
        let Some((dialect, m, pos, wrapped)) = self.registered_dialect_mnemonic(ident)? else {
            return Ok(None);
        };
        let Some(def) = dialect.attr_def(m) else {
            return Err(self.err_at(
                pos,
                format!("unknown attribute `{m}` in dialect `{}`", dialect.name),
            ));
        };
        let a = self.parse_dialect_attr_params(def, None)?;
        if wrapped {
            self.expect(Tok::Greater, "'>'")?;
        }
        Ok(Some(a))
    }

    /// Parses the parameters of a dialect attribute of kind `def` (what follows
    /// `#dialect.mnemonic`), and verifies it. Inside the custom form of the op `op`, the
    /// hook's errors name the op, as upstream's do.
    pub(crate) fn parse_dialect_attr_params(
        &mut self,
        def: &'static crate::extensible::DialectAttrDef,
        op: Option<&'static str>,
    ) -> PResult<Attr> {
        let pos = self.tok.start;
        let a = (def.parse)(&mut super::AsmParser::with_op(self, op), def)?;
        if let AttrData::Dialect(b) = self.ctx.attr_data(a) {
            if let Err(msg) = b.get().verify(self.ctx) {
                return Err(self.err_at(pos, msg));
            }
        }
        Ok(a)
    }

    pub(crate) fn parse_symbol_name_tok(&mut self) -> PResult<String> {
        let t = self.expect(Tok::AtIdent, "symbol name")?;
        let s = self.text(t);
        if s.as_bytes().get(1) == Some(&b'"') {
            let body = &self.b[t.start as usize + 2..t.end as usize - 1];
            let v = super::lexer::unescape(body)
                .ok_or_else(|| self.err_at(t.start, "invalid escape sequence"))?;
            return String::from_utf8(v)
                .map_err(|_| self.err_at(t.start, "expected UTF-8 symbol name"));
        }
        Ok(s[1..].to_string())
    }

    fn parse_number_attr(&mut self) -> PResult<Attr> {
        let neg = self.consume_if(Tok::Minus);
        let t = self.tok;
        match t.kind {
            Tok::Integer => {
                let hex = self.text(t).starts_with("0x");
                let mag = self.int_magnitude(t)?;
                self.advance();
                let ty = if self.consume_if(Tok::Colon) {
                    self.parse_type()?
                } else {
                    self.ctx.i64_type()
                };
                self.int_attr_of(neg, &mag, hex, ty, t.start)
            }
            Tok::Float => {
                let v = self.float_value(t, neg)?;
                self.advance();
                let ty = if self.consume_if(Tok::Colon) {
                    self.parse_type()?
                } else {
                    self.ctx.float_type(crate::FloatKind::F64)
                };
                if !matches!(self.ctx.type_data(ty), TypeData::Float(_)) {
                    return Err(self.err("floating point value not valid for specified type"));
                }
                Ok(self.ctx.float_attr(ty, v))
            }
            _ => Err(self.err("expected integer or floating point literal")),
        }
    }

    fn float_value(&mut self, t: super::lexer::Token, neg: bool) -> PResult<f64> {
        let v: f64 = self
            .text(t)
            .parse()
            .map_err(|_| self.err_at(t.start, "invalid floating point literal"))?;
        Ok(if neg { -v } else { v })
    }

    /// The magnitude of an integer token, as words (any size).
    pub(crate) fn int_magnitude(&mut self, t: super::lexer::Token) -> PResult<Vec<u64>> {
        ApInt::parse_magnitude(self.text(t))
            .ok_or_else(|| self.err_at(t.start, "invalid integer literal"))
    }

    /// Upstream's error for a decimal integer where a float is expected.
    fn decimal_for_float(&mut self, pos: u32) -> crate::Diagnostic {
        let loc = self.loc_at(pos);
        self.err_at(
            pos,
            "unexpected decimal integer literal for a floating point value",
        )
        .with_note(loc, "add a trailing dot to make the literal a float")
    }

    /// The value of a hex literal read as the bits of a float of format `kind` (upstream's
    /// `buildAttributeAPFloat` from hex), with upstream's errors at `pos`.
    fn hex_float_bits(
        &mut self,
        kind: FloatKind,
        neg: bool,
        mag: &[u64],
        pos: u32,
    ) -> PResult<u128> {
        if neg {
            return Err(self.err_at(
                pos,
                "hexadecimal float literal should not have a leading minus",
            ));
        }
        if bit_length(mag) > kind.width() {
            return Err(self.err_at(pos, "hexadecimal float constant out of range for type"));
        }
        Ok(ApInt::from_words(128, mag.to_vec()).to_u128().unwrap_or(0))
    }

    fn int_attr_of(
        &mut self,
        neg: bool,
        mag: &[u64],
        hex: bool,
        ty: Type,
        pos: u32,
    ) -> PResult<Attr> {
        match self.ctx.type_data(ty).clone() {
            t @ (TypeData::Integer { .. } | TypeData::Index) => {
                let unsigned = matches!(
                    t,
                    TypeData::Integer {
                        signedness: Signedness::Unsigned,
                        ..
                    }
                );
                if neg && unsigned {
                    return Err(self.err_at(
                        pos,
                        "negative integer literal not valid for unsigned integer type",
                    ));
                }
                let Some(v) = build_int(self.ctx, ty, neg, mag) else {
                    return Err(self.err_at(pos, "integer constant out of range for attribute"));
                };
                Ok(self.ctx.apint_attr(ty, v))
            }
            TypeData::Float(kind) => {
                if !hex {
                    return Err(self.decimal_for_float(pos));
                }
                let bits = self.hex_float_bits(kind, neg, mag, pos)?;
                let v = bits_to_float(kind, bits);
                Ok(self.ctx.intern_attr(AttrData::Float {
                    bits: v.to_bits(),
                    ty,
                }))
            }
            _ => Err(self.err_at(pos, "integer literal not valid for specified type")),
        }
    }

    // ----- dense elements -----

    fn parse_lit(&mut self, top: bool) -> PResult<Lit> {
        self.enter()?;
        let r = self.parse_lit_inner(top);
        self.leave();
        r
    }

    fn parse_lit_inner(&mut self, _top: bool) -> PResult<Lit> {
        let t = self.tok;
        match t.kind {
            Tok::LSquare => {
                self.advance();
                let mut items: Vec<Lit> = Vec::new();
                if !self.is(Tok::RSquare) {
                    loop {
                        let item = self.parse_lit(false)?;
                        if items
                            .first()
                            .is_some_and(|f| lit_shape(f) != lit_shape(&item))
                        {
                            return Err(self.err(
                                "tensor literal is invalid; ranks are not consistent between elements",
                            ));
                        }
                        items.push(item);
                        if !self.consume_if(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RSquare, "']'")?;
                Ok(Lit::List(items))
            }
            Tok::LParen => {
                self.advance();
                let re = self.parse_lit(false)?;
                self.expect(Tok::Comma, "',' between complex elements")?;
                let im = self.parse_lit(false)?;
                self.expect(Tok::RParen, "')' after complex elements")?;
                Ok(Lit::Complex(Box::new(re), Box::new(im)))
            }
            Tok::String => {
                let v = self.string_value(t)?;
                self.advance();
                Ok(Lit::Str(v))
            }
            Tok::BareIdent if matches!(self.text(t), "true" | "false") => {
                self.advance();
                Ok(Lit::Bool(self.text(t) == "true", t.start))
            }
            Tok::Minus | Tok::Integer | Tok::Float => {
                let neg = self.consume_if(Tok::Minus);
                let n = self.tok;
                match n.kind {
                    Tok::Integer => {
                        let hex = self.text(n).starts_with("0x");
                        let mag = self.int_magnitude(n)?;
                        self.advance();
                        Ok(Lit::Int {
                            neg,
                            mag,
                            hex,
                            pos: n.start,
                        })
                    }
                    Tok::Float => {
                        let v = self.float_value(n, neg)?;
                        self.advance();
                        Ok(Lit::Float(v, n.start))
                    }
                    _ => Err(self.err("expected integer or floating point literal")),
                }
            }
            _ => Err(self.err("expected element literal of primitive type")),
        }
    }

    fn parse_dense(&mut self) -> PResult<Attr> {
        let dense_pos = self.tok.start;
        self.advance();
        self.expect(Tok::Less, "'<' after 'dense'")?;
        let lit_pos = self.tok.start;
        let lit = if self.is(Tok::Greater) {
            None
        } else {
            Some(self.parse_lit(true)?)
        };
        self.expect(Tok::Greater, "'>'")?;
        let ty_pos = self.tok.start;
        let ty = match self.implied_type.take() {
            Some(t) if !self.is(Tok::Colon) => t,
            _ => {
                self.expect(Tok::Colon, "':'")?;
                self.parse_type()?
            }
        };
        let (shape, elem) = match self.ctx.type_data(ty) {
            TypeData::RankedTensor { shape, elem, .. }
            | TypeData::Vector { shape, elem, .. }
            | TypeData::MemRef { shape, elem, .. } => (shape.clone(), *elem),
            TypeData::UnrankedTensor { .. } | TypeData::UnrankedMemRef { .. } => {
                return Err(self.err_at(dense_pos, "elements literal type must have static shape"))
            }
            _ => return Err(self.err_at(dense_pos, "elements literal must be a shaped type")),
        };
        if shape.contains(&DYNAMIC) {
            return Err(self.err_at(dense_pos, "elements literal type must have static shape"));
        }
        // A count past i64 cannot describe memory; refuse it rather than overflow.
        let Some(n) = shape
            .iter()
            .try_fold(1i64, |n, &d| n.checked_mul(d))
            .map(|n| n as usize)
        else {
            return Err(self.err_at(
                dense_pos,
                "elements literal type has more elements than fit in a 64-bit count",
            ));
        };
        if let Some(lit @ Lit::List(_)) = &lit {
            let got = lit_shape(lit);
            if got.len() != shape.len() || got.iter().zip(&shape).any(|(&g, &w)| g as i64 != w) {
                let join = |v: &mut dyn Iterator<Item = String>| v.collect::<Vec<_>>().join(", ");
                return Err(self.err_at(
                    dense_pos,
                    format!(
                        "inferred shape of elements literal ([{}]) does not match type ([{}])",
                        join(&mut got.iter().map(|d| d.to_string())),
                        join(&mut shape.iter().map(|d| d.to_string())),
                    ),
                ));
            }
        }
        let data = match lit {
            None => {
                if n != 0 {
                    let t = self.type_str(ty);
                    return Err(self.err_at(
                        dense_pos,
                        format!("parsed zero elements, but type ('{t}') expected at least 1"),
                    ));
                }
                DenseData::Elements(Vec::new())
            }
            Some(Lit::Str(s)) if !self.is_string_elem(elem) => {
                let hex = s
                    .strip_prefix(b"0x")
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(decode_hex);
                let Some(bytes) = hex else {
                    return Err(self.err_at(
                        lit_pos,
                        "expected string containing hex digits starting with `0x`",
                    ));
                };
                let esize = self.elem_bytes(elem).ok_or_else(|| {
                    self.err_at(ty_pos, "unsupported element type for dense elements")
                })?;
                if bytes.len() == esize && n != 1 {
                    DenseData::Splat(bytes)
                } else if bytes.len() == esize * n {
                    DenseData::Elements(bytes)
                } else {
                    let t = self.type_str(ty);
                    return Err(self.err_at(
                        dense_pos,
                        format!("elements hex data size is invalid for provided type: '{t}'"),
                    ));
                }
            }
            Some(lit) => {
                if self.is_string_elem(elem) {
                    let mut strs = Vec::new();
                    let splat = !matches!(lit, Lit::List(_));
                    self.flatten_strings(lit, &shape, 0, &mut strs, dense_pos)?;
                    if !splat && strs.len() != n {
                        return Err(self
                            .err_at(lit_pos, "number of string elements does not match the type"));
                    }
                    DenseData::Strings {
                        splat,
                        values: strs,
                    }
                } else if let Lit::List(_) = lit {
                    let mut bytes = Vec::new();
                    let mut count = 0usize;
                    self.flatten_lit(&lit, &shape, 0, elem, &mut bytes, &mut count, dense_pos)?;
                    DenseData::Elements(bytes)
                } else {
                    let mut bytes = Vec::new();
                    self.encode_elem(&lit, elem, &mut bytes, lit_pos)?;
                    DenseData::Splat(bytes)
                }
            }
        };
        Ok(self.ctx.intern_attr(AttrData::DenseElements { ty, data }))
    }

    fn is_string_elem(&self, elem: Type) -> bool {
        matches!(
            self.ctx.type_data(elem),
            TypeData::Dialect(_) | TypeData::Unregistered { .. }
        )
    }

    pub(crate) fn elem_bytes(&self, elem: Type) -> Option<usize> {
        elem_storage_bytes(self.ctx, elem)
    }

    fn flatten_strings(
        &mut self,
        lit: Lit,
        shape: &[i64],
        depth: usize,
        out: &mut Vec<Vec<u8>>,
        pos: u32,
    ) -> PResult<()> {
        match lit {
            Lit::List(items) => {
                if depth >= shape.len() || items.len() as i64 != shape[depth] {
                    return Err(self.err_at(
                        pos,
                        "inferred shape of elements literal does not match the type",
                    ));
                }
                for i in items {
                    self.flatten_strings(i, shape, depth + 1, out, pos)?;
                }
                Ok(())
            }
            Lit::Str(s) => {
                out.push(s);
                Ok(())
            }
            _ => Err(self.err_at(pos, "expected string elements")),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn flatten_lit(
        &mut self,
        lit: &Lit,
        shape: &[i64],
        depth: usize,
        elem: Type,
        out: &mut Vec<u8>,
        count: &mut usize,
        pos: u32,
    ) -> PResult<()> {
        match lit {
            Lit::List(items) => {
                if depth >= shape.len() || items.len() as i64 != shape[depth] {
                    let got = items.len();
                    let want = shape.get(depth).copied().unwrap_or(0);
                    return Err(self.err_at(
                        pos,
                        format!("inferred shape of elements literal ([{got}]) does not match type ([{want}])"),
                    ));
                }
                for i in items {
                    self.flatten_lit(i, shape, depth + 1, elem, out, count, pos)?;
                }
                Ok(())
            }
            _ => {
                if depth != shape.len() {
                    return Err(self.err_at(
                        pos,
                        "inferred shape of elements literal does not match the type's rank",
                    ));
                }
                *count += 1;
                self.encode_elem(lit, elem, out, pos)
            }
        }
    }

    fn encode_elem(&mut self, lit: &Lit, elem: Type, out: &mut Vec<u8>, pos: u32) -> PResult<()> {
        match self.ctx.type_data(elem).clone() {
            t @ (TypeData::Integer { .. } | TypeData::Index) => {
                let (width, unsigned) = match t {
                    TypeData::Integer { width, signedness } => {
                        (width, signedness == Signedness::Unsigned)
                    }
                    _ => (64, false),
                };
                let v = match lit {
                    Lit::Int { neg, mag, pos, .. } => {
                        if *neg && unsigned {
                            return Err(self.err_at(
                                *pos,
                                "expected unsigned integer elements, but parsed negative value",
                            ));
                        }
                        // `-1 : i1` is `true`, as upstream reads it.
                        match build_int(self.ctx, elem, *neg, mag) {
                            Some(v) => v,
                            None => {
                                return Err(
                                    self.err_at(*pos, "integer constant out of range for type")
                                )
                            }
                        }
                    }
                    Lit::Bool(b, p) => {
                        if width != 1 || unsigned {
                            return Err(
                                self.err_at(*p, "expected i1 type for 'true' or 'false' values")
                            );
                        }
                        ApInt::from_u128(1, u128::from(*b))
                    }
                    Lit::Float(_, p) => {
                        return Err(
                            self.err_at(*p, "expected integer elements, but parsed floating-point")
                        )
                    }
                    _ => return Err(self.err_at(pos, "expected integer elements")),
                };
                let nb = (width as usize).div_ceil(8).max(1);
                out.extend_from_slice(&v.to_le_bytes(nb));
                Ok(())
            }
            TypeData::Float(kind) => {
                let bits = match lit {
                    Lit::Float(v, _) => float_to_bits(kind, *v),
                    Lit::Int {
                        neg,
                        mag,
                        hex: true,
                        pos,
                    } => self.hex_float_bits(kind, *neg, mag, *pos)?,
                    Lit::Int { pos, .. } => return Err(self.decimal_for_float(*pos)),
                    Lit::Bool(_, p) => {
                        return Err(self.err_at(*p, "expected floating point literal"))
                    }
                    _ => return Err(self.err_at(pos, "expected floating-point elements")),
                };
                let nb = float_storage_bytes(kind);
                out.extend_from_slice(&bits.to_le_bytes()[..nb]);
                Ok(())
            }
            TypeData::Complex(inner) => match lit {
                Lit::Complex(re, im) => {
                    self.encode_elem(re, inner, out, pos)?;
                    self.encode_elem(im, inner, out, pos)
                }
                _ => Err(self.err_at(pos, "expected complex element literal '(re, im)'")),
            },
            _ => Err(self.err_at(pos, "unsupported element type for dense elements")),
        }
    }

    fn parse_dense_array(&mut self) -> PResult<Attr> {
        self.advance();
        self.expect(Tok::Less, "'<' after 'array'")?;
        let ty_pos = self.tok.start;
        let elem = self.parse_type()?;
        let is_float = match self.ctx.type_data(elem) {
            TypeData::Float(_) => true,
            TypeData::Integer { .. } => false,
            _ => {
                let t = self.type_str(elem);
                return Err(self.err_at(
                    ty_pos,
                    format!("expected integer or float type, got: '{t}'"),
                ));
            }
        };
        let bits = match self.ctx.type_data(elem) {
            TypeData::Integer { width, .. } => *width,
            TypeData::Float(k) => k.width(),
            _ => 0,
        };
        if bits != 1 && bits % 8 != 0 {
            return Err(self.err_at(ty_pos, "element type bitwidth must be a multiple of 8"));
        }
        if !self.is(Tok::Greater) && !self.is(Tok::Colon) {
            return Err(self.err("expected ':' after dense array type"));
        }
        let mut ints = Vec::new();
        let mut floats = Vec::new();
        if self.consume_if(Tok::Colon) {
            loop {
                let pos = self.tok.start;
                let lit = self.parse_lit(false)?;
                if is_float {
                    let v = match lit {
                        Lit::Float(v, _) => v,
                        Lit::Int {
                            neg,
                            mag,
                            hex: true,
                            pos,
                        } => {
                            let TypeData::Float(kind) = *self.ctx.type_data(elem) else {
                                return Err(self.err_at(pos, "expected float literal"));
                            };
                            let bits = self.hex_float_bits(kind, neg, &mag, pos)?;
                            bits_to_float(kind, bits)
                        }
                        Lit::Int { pos, .. } => return Err(self.decimal_for_float(pos)),
                        _ => return Err(self.err_at(pos, "expected float literal")),
                    };
                    let v = match self.ctx.type_data(elem) {
                        TypeData::Float(k) => crate::util::round_to_float_kind(v, *k),
                        _ => v,
                    };
                    floats.push(v.to_bits());
                } else {
                    let v = match lit {
                        Lit::Int { neg, mag, .. } => {
                            // Upstream's rule for array elements: the magnitude fits the
                            // width, and a negative value is representable as a signed one.
                            let width = match self.ctx.type_data(elem) {
                                TypeData::Integer { width, .. } => (*width).min(64),
                                _ => 64,
                            };
                            let fits = bit_length(&mag) <= width;
                            let v = ApInt::from_words(width, mag);
                            let v = if neg { v.neg() } else { v };
                            if !fits || (neg && !v.is_negative() && !v.is_zero()) {
                                return Err(self.err("integer constant out of range"));
                            }
                            v.to_i128() as i64
                        }
                        Lit::Bool(b, _) => b as i64,
                        _ => return Err(self.err_at(pos, "expected integer literal")),
                    };
                    ints.push(v);
                }
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::Greater, "'>' to close an array attribute")?;
        let data = if is_float {
            DenseArrayData::Float(floats)
        } else {
            DenseArrayData::Int(ints)
        };
        Ok(self.ctx.intern_attr(AttrData::DenseArray { elem, data }))
    }

    fn parse_strided(&mut self) -> PResult<Attr> {
        self.advance();
        self.expect(Tok::Less, "'<' after 'strided'")?;
        self.expect(Tok::LSquare, "'['")?;
        let mut strides = Vec::new();
        if !self.is(Tok::RSquare) {
            loop {
                strides.push(self.parse_dyn_int()?);
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RSquare, "']'")?;
        let mut offset = 0;
        if self.consume_if(Tok::Comma) {
            self.expect_keyword("offset")?;
            self.expect(Tok::Colon, "':' after 'offset'")?;
            offset = self.parse_dyn_int()?;
        }
        self.expect(Tok::Greater, "'>'")?;
        Ok(self
            .ctx
            .intern_attr(AttrData::StridedLayout { strides, offset }))
    }

    fn parse_dyn_int(&mut self) -> PResult<i64> {
        if self.consume_if(Tok::Question) {
            return Ok(DYNAMIC);
        }
        let pos = self.tok.start;
        let neg = self.consume_if(Tok::Minus);
        let t = self.tok;
        let v = match t.kind {
            Tok::Integer => self.int_value(t).ok().filter(|&v| v <= i64::MAX as u128),
            _ => None,
        };
        let Some(v) = v else {
            return Err(self.err_at(pos, "expected a 64-bit signed integer or '?'"));
        };
        self.advance();
        Ok(if neg { -(v as i64) } else { v as i64 })
    }

    // ----- affine maps -----

    /// Rejects a dimension or symbol name declared before in the same map.
    fn check_affine_name(
        &mut self,
        names: &[(&'c str, AffineExpr)],
        t: super::lexer::Token,
    ) -> PResult<()> {
        let name = self.text(t);
        if names.iter().any(|(n, _)| *n == name) {
            return Err(self.err_at(t.start, format!("redefinition of identifier '{name}'")));
        }
        Ok(())
    }

    pub(crate) fn parse_affine_map(&mut self) -> PResult<AffineMap> {
        let mut names: Vec<(&'c str, AffineExpr)> = Vec::new();
        let mut num_dims = 0u32;
        let mut num_symbols = 0u32;
        self.expect(Tok::LParen, "'(' at start of dimensional identifiers list")?;
        if !self.is(Tok::RParen) {
            loop {
                let t = self.expect(Tok::BareIdent, "dimensional identifier name")?;
                self.check_affine_name(&names, t)?;
                names.push((self.text(t), AffineExpr::Dim(num_dims)));
                num_dims += 1;
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')'")?;
        if self.consume_if(Tok::LSquare) {
            if !self.is(Tok::RSquare) {
                loop {
                    let t = self.expect(Tok::BareIdent, "symbolic identifier name")?;
                    self.check_affine_name(&names, t)?;
                    names.push((self.text(t), AffineExpr::Symbol(num_symbols)));
                    num_symbols += 1;
                    if !self.consume_if(Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RSquare, "']'")?;
        }
        self.expect(Tok::Arrow, "'->' or '['")?;
        self.expect(Tok::LParen, "'(' at start of affine map range")?;
        let mut results = Vec::new();
        if !self.is(Tok::RParen) {
            loop {
                results.push(self.parse_affine_expr(&names)?);
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(AffineMap {
            num_dims,
            num_symbols,
            results,
        })
    }

    /// Parses an affine expression. Its tree may be at most [`MAX_AFFINE_DEPTH`] deep, so that a
    /// long sum (`d0 + d0 + ...`, a left-nested tree) is an error rather than a stack overflow
    /// when the tree is hashed, printed or dropped.
    fn parse_affine_expr(&mut self, names: &[(&'c str, AffineExpr)]) -> PResult<AffineExpr> {
        Ok(self.affine_sum(names)?.0)
    }

    /// A node over `lhs` and `rhs` of depths `dl` and `dr`, with its depth.
    fn affine_node(
        &mut self,
        make: fn(Box<AffineExpr>, Box<AffineExpr>) -> AffineExpr,
        (lhs, dl): (AffineExpr, u32),
        (rhs, dr): (AffineExpr, u32),
    ) -> PResult<(AffineExpr, u32)> {
        let d = dl.max(dr) + 1;
        if d > MAX_AFFINE_DEPTH {
            return Err(self.err(format!(
                "affine expression nested more than {MAX_AFFINE_DEPTH} levels deep"
            )));
        }
        Ok((make(Box::new(lhs), Box::new(rhs)), d))
    }

    fn affine_negate(&mut self, (e, d): (AffineExpr, u32)) -> PResult<(AffineExpr, u32)> {
        match e {
            AffineExpr::Const(c) => Ok((AffineExpr::Const(c.wrapping_neg()), d)),
            e => self.affine_node(AffineExpr::Mul, (e, d), (AffineExpr::Const(-1), 1)),
        }
    }

    fn affine_sum(&mut self, names: &[(&'c str, AffineExpr)]) -> PResult<(AffineExpr, u32)> {
        self.enter()?;
        let mut lhs = self.affine_term(names)?;
        loop {
            if self.consume_if(Tok::Plus) {
                let rhs = self.affine_term(names)?;
                lhs = self.affine_node(AffineExpr::Add, lhs, rhs)?;
            } else if self.consume_if(Tok::Minus) {
                let rhs = self.affine_term(names)?;
                let rhs = self.affine_negate(rhs)?;
                lhs = self.affine_node(AffineExpr::Add, lhs, rhs)?;
            } else {
                break;
            }
        }
        self.leave();
        Ok(lhs)
    }

    fn affine_term(&mut self, names: &[(&'c str, AffineExpr)]) -> PResult<(AffineExpr, u32)> {
        let mut lhs = self.affine_unary(names)?;
        loop {
            let (make, op): (AffineCtor, &str) = if self.is(Tok::Star) {
                (AffineExpr::Mul, "*")
            } else if self.is_keyword("floordiv") {
                (AffineExpr::FloorDiv, "floordiv")
            } else if self.is_keyword("ceildiv") {
                (AffineExpr::CeilDiv, "ceildiv")
            } else if self.is_keyword("mod") {
                (AffineExpr::Mod, "mod")
            } else {
                break;
            };
            let op_pos = self.tok.start;
            self.advance();
            let rhs = self.affine_unary(names)?;
            // Upstream's affine rule: a product needs a symbolic factor, a division or modulo
            // a symbolic right operand.
            if !is_symbolic(&rhs.0) {
                if op != "*" {
                    return Err(self.err_at(
                        op_pos,
                        format!(
                            "non-affine expression: right operand of {op} has to be either a \
                             constant or symbolic"
                        ),
                    ));
                }
                if !is_symbolic(&lhs.0) {
                    return Err(self.err_at(
                        op_pos,
                        "non-affine expression: at least one of the multiply operands has to be \
                         either a constant or symbolic",
                    ));
                }
            }
            lhs = self.affine_node(make, lhs, rhs)?;
        }
        Ok(lhs)
    }

    fn affine_unary(&mut self, names: &[(&'c str, AffineExpr)]) -> PResult<(AffineExpr, u32)> {
        self.enter()?;
        let r = match self.tok.kind {
            Tok::Minus => {
                self.advance();
                let e = self.affine_unary(names)?;
                self.affine_negate(e)
            }
            Tok::LParen => {
                self.advance();
                let e = self.affine_sum(names)?;
                self.expect(Tok::RParen, "')'")?;
                Ok(e)
            }
            Tok::Integer => {
                let t = self.tok;
                let v = self.int_value(t)?;
                if v > i64::MAX as u128 {
                    return Err(self.err_at(t.start, "constant too large for index"));
                }
                self.advance();
                Ok((AffineExpr::Const(v as i64), 1))
            }
            Tok::BareIdent => {
                let s = self.tok_text();
                match names.iter().rev().find(|(n, _)| *n == s) {
                    Some((_, e)) => {
                        let e = e.clone();
                        self.advance();
                        Ok((e, 1))
                    }
                    None => Err(self.err("use of undeclared identifier")),
                }
            }
            _ => Err(self.err("expected affine expression")),
        };
        self.leave();
        r
    }

    // ----- locations -----

    /// Parses `loc(...)` (current token `loc`).
    pub(crate) fn parse_location(&mut self) -> PResult<Location> {
        self.expect_keyword("loc")?;
        self.expect(Tok::LParen, "'(' in inline location")?;
        let l = self.parse_loc_inner()?;
        self.expect(Tok::RParen, "')' in inline location")?;
        Ok(l)
    }

    fn parse_loc_inner(&mut self) -> PResult<Location> {
        self.enter()?;
        let r = self.parse_loc_inner2();
        self.leave();
        r
    }

    fn parse_loc_inner2(&mut self) -> PResult<Location> {
        let t = self.tok;
        match t.kind {
            Tok::BareIdent => match self.text(t) {
                "unknown" => {
                    self.advance();
                    Ok(self.ctx.unknown_loc())
                }
                "loc" => self.parse_location(),
                "callsite" => {
                    self.advance();
                    self.expect(Tok::LParen, "'(' in callsite location")?;
                    let callee = self.parse_loc_inner()?;
                    self.expect_keyword("at")?;
                    let caller = self.parse_loc_inner()?;
                    self.expect(Tok::RParen, "')' in callsite location")?;
                    Ok(self.ctx.loc(LocData::CallSite { callee, caller }))
                }
                "fused" => {
                    self.advance();
                    let mut metadata = None;
                    if self.consume_if(Tok::Less) {
                        metadata = Some(self.parse_attribute()?);
                        self.expect(Tok::Greater, "'>' after fused location metadata")?;
                    }
                    self.expect(Tok::LSquare, "'[' in fused location")?;
                    let mut locs = Vec::new();
                    if !self.is(Tok::RSquare) {
                        loop {
                            locs.push(self.parse_loc_inner()?);
                            if !self.consume_if(Tok::Comma) {
                                break;
                            }
                        }
                    }
                    self.expect(Tok::RSquare, "']' in fused location")?;
                    Ok(self.fused_loc(locs, metadata))
                }
                _ => Err(self.err("expected location instance")),
            },
            Tok::String => {
                let s = self.parse_string_lit()?;
                if self.consume_if(Tok::Colon) {
                    let line = self.parse_u32("line number")?;
                    self.expect(Tok::Colon, "':' in FileLineColLoc")?;
                    let col = self.parse_u32("column number")?;
                    let mut end = None;
                    if self.is_keyword("to") {
                        self.advance();
                        let end_line = if self.is(Tok::Integer) {
                            self.parse_u32("line number")?
                        } else {
                            line
                        };
                        self.expect(Tok::Colon, "':' in location range")?;
                        let end_col = self.parse_u32("column number")?;
                        end = Some((end_line, end_col));
                    }
                    let file = self.ctx.ident(&s);
                    return Ok(self.ctx.loc(LocData::FileLineCol {
                        file,
                        line,
                        col,
                        end,
                    }));
                }
                let name = self.ctx.ident(&s);
                let mut child = None;
                if self.consume_if(Tok::LParen) {
                    let c = self.parse_loc_inner()?;
                    self.expect(Tok::RParen, "')' after child location of NameLoc")?;
                    child = Some(c);
                }
                Ok(self.ctx.loc(LocData::Name { name, child }))
            }
            Tok::HashIdent => {
                let a = self.parse_attribute()?;
                match self.ctx.as_location(a) {
                    Some(l) => Ok(l),
                    None => Err(self.err_at(t.start, "expected location attribute")),
                }
            }
            _ => Err(self.err("expected location instance")),
        }
    }

    fn parse_u32(&mut self, what: &str) -> PResult<u32> {
        let t = self.expect(Tok::Integer, what)?;
        let v = self.int_value(t)?;
        u32::try_from(v).map_err(|_| self.err_at(t.start, format!("{what} out of range")))
    }
}

/// Whether an affine expression uses no dimension (a constant or symbolic expression).
fn is_symbolic(e: &AffineExpr) -> bool {
    match e {
        AffineExpr::Dim(_) => false,
        AffineExpr::Symbol(_) | AffineExpr::Const(_) => true,
        AffineExpr::Add(a, b)
        | AffineExpr::Mul(a, b)
        | AffineExpr::Mod(a, b)
        | AffineExpr::FloorDiv(a, b)
        | AffineExpr::CeilDiv(a, b) => is_symbolic(a) && is_symbolic(b),
    }
}

/// The deepest affine expression tree the parser builds.
const MAX_AFFINE_DEPTH: u32 = 1000;

/// Storage bytes of one dense element of type `elem`.
pub(crate) fn elem_storage_bytes(ctx: &crate::Context, elem: Type) -> Option<usize> {
    match ctx.type_data(elem) {
        TypeData::Integer { width, .. } => Some((*width as usize).div_ceil(8)),
        TypeData::Index => Some(8),
        TypeData::Float(k) => Some(float_storage_bytes(*k)),
        TypeData::Complex(inner) => elem_storage_bytes(ctx, *inner).map(|n| 2 * n),
        _ => None,
    }
}

/// The constructor of a binary affine expression (`AffineExpr::Mul` and its kind).
type AffineCtor = fn(Box<AffineExpr>, Box<AffineExpr>) -> AffineExpr;
