//! Parsing of builtin types, dialect types kept as text, and type aliases.

use super::lexer::{lex, scan_balanced, Tok};
use super::{PResult, Parser};
use crate::types::{FloatKind, Signedness, TypeData, DYNAMIC};
use crate::{AttrData, Type};

/// Parses `iN`, `siN`, `uiN` into (width, signedness).
pub(crate) fn int_keyword(s: &str) -> Option<(u32, Signedness)> {
    let (rest, sign) = if let Some(r) = s.strip_prefix("si") {
        (r, Signedness::Signed)
    } else if let Some(r) = s.strip_prefix("ui") {
        (r, Signedness::Unsigned)
    } else if let Some(r) = s.strip_prefix('i') {
        (r, Signedness::Signless)
    } else {
        return None;
    };
    if rest.is_empty() || !rest.bytes().all(|c| c.is_ascii_digit()) || rest.len() > 8 {
        return None;
    }
    let w: u32 = rest.parse().ok()?;
    Some((w, sign))
}

impl<'c> Parser<'c> {
    /// Whether the current token can start a type.
    pub(crate) fn can_start_type(&self) -> bool {
        match self.tok.kind {
            Tok::ExclIdent | Tok::LParen => true,
            Tok::BareIdent => {
                let s = self.tok_text();
                matches!(
                    s,
                    "index" | "none" | "tensor" | "memref" | "vector" | "tuple" | "complex"
                ) || FloatKind::from_keyword(s).is_some()
                    || int_keyword(s).is_some()
            }
            _ => false,
        }
    }

    /// Parses a type.
    pub(crate) fn parse_type(&mut self) -> PResult<Type> {
        self.enter()?;
        let r = self.parse_type_inner();
        self.leave();
        r
    }

    fn parse_type_inner(&mut self) -> PResult<Type> {
        let t = self.tok;
        match t.kind {
            Tok::LParen => {
                let inputs = self.parse_paren_type_list()?;
                self.expect(Tok::Arrow, "'->' in function type")?;
                let results = self.parse_function_result_types()?;
                Ok(self.ctx.function_type(inputs, results))
            }
            Tok::ExclIdent => self.parse_excl_type(),
            Tok::BareIdent => {
                let s = self.text(t);
                if let Some((width, signedness)) = int_keyword(s) {
                    if width == 0 || width > (1 << 24) {
                        return Err(self.err("invalid integer width"));
                    }
                    self.advance();
                    return Ok(self.ctx.int_type_signed(width, signedness));
                }
                if let Some(k) = FloatKind::from_keyword(s) {
                    self.advance();
                    return Ok(self.ctx.float_type(k));
                }
                match s {
                    "index" => {
                        self.advance();
                        Ok(self.ctx.index_type())
                    }
                    "none" => {
                        self.advance();
                        Ok(self.ctx.none_type())
                    }
                    "tensor" => self.parse_tensor_type(),
                    "memref" => self.parse_memref_type(),
                    "vector" => self.parse_vector_type(),
                    "tuple" => {
                        self.advance();
                        self.expect(Tok::Less, "'<' in tuple type")?;
                        let mut items = Vec::new();
                        if !self.is(Tok::Greater) {
                            loop {
                                items.push(self.parse_type()?);
                                if !self.consume_if(Tok::Comma) {
                                    break;
                                }
                            }
                        }
                        self.expect(Tok::Greater, "'>' in tuple type")?;
                        Ok(self.ctx.intern_type(TypeData::Tuple(items)))
                    }
                    "complex" => {
                        self.advance();
                        self.expect(Tok::Less, "'<' in complex type")?;
                        let e = self.parse_type()?;
                        self.expect(Tok::Greater, "'>' in complex type")?;
                        Ok(self.ctx.intern_type(TypeData::Complex(e)))
                    }
                    _ => Err(self.err("expected non-function type")),
                }
            }
            _ => Err(self.err("expected non-function type")),
        }
    }

    /// `(t1, t2)`, possibly empty.
    pub(crate) fn parse_paren_type_list(&mut self) -> PResult<Vec<Type>> {
        self.expect(Tok::LParen, "'('")?;
        let mut out = Vec::new();
        if !self.is(Tok::RParen) {
            loop {
                out.push(self.parse_type()?);
                if !self.consume_if(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(out)
    }

    /// The results of a function type: `t` or `(t1, t2)`.
    pub(crate) fn parse_function_result_types(&mut self) -> PResult<Vec<Type>> {
        if self.is(Tok::LParen) {
            // `((i32) -> i32)` is a list holding one function type; `(i32) -> i32` directly
            // after an arrow is a single function-typed result.
            let save = self.tok;
            let list = self.parse_paren_type_list()?;
            if self.is(Tok::Arrow) {
                self.tok = save;
                return Ok(vec![self.parse_type()?]);
            }
            return Ok(list);
        }
        Ok(vec![self.parse_type()?])
    }

    /// `!alias`, `!dialect.body<...>`, `!dialect<...>`.
    fn parse_excl_type(&mut self) -> PResult<Type> {
        let t = self.tok;
        let ident = &self.text(t)[1..];
        if let Some(ty) = self.parse_registered_dialect_type(ident)? {
            return Ok(ty);
        }
        let (dialect, body, pretty, end) = self.dialect_symbol(t.start, t.end, ident)?;
        if dialect.is_empty() {
            let Some(&ty) = self.type_aliases.get(ident) else {
                let next = lex(self.b, t.end as usize).start;
                return Err(self.err_at(next, format!("undefined symbol alias id '{ident}'")));
            };
            self.advance();
            return Ok(ty);
        }
        self.reset_to(end);
        Ok(self.ctx.intern_type(TypeData::Unregistered {
            dialect: dialect.to_string(),
            body: body.to_string(),
            pretty,
        }))
    }

    /// The mnemonic of a registered dialect's type or attribute written `dialect.mnemonic`
    /// or `dialect<mnemonic ...>`, with the position of the mnemonic; the current token is the
    /// `!`/`#` identifier. `None` when `ident` names no registered dialect. Consumes the
    /// identifier (and, in the second form, the `<` and the mnemonic).
    pub(crate) fn registered_dialect_mnemonic(
        &mut self,
        ident: &'c str,
    ) -> PResult<Option<(crate::DialectDef, &'c str, u32, bool)>> {
        let t = self.tok;
        let (d, m) = match ident.split_once('.') {
            Some((d, m)) => (d, Some(m)),
            None => (ident, None),
        };
        let Some(def) = self.ctx.registry.dialect(d).cloned() else {
            return Ok(None);
        };
        self.advance();
        match m {
            Some(m) => Ok(Some((def, m, t.start + 2 + d.len() as u32, false))),
            None => {
                self.expect(Tok::Less, "'<'")?;
                let mt = self.tok;
                if mt.kind != Tok::BareIdent {
                    return Err(self.err("expected dialect type or attribute mnemonic"));
                }
                self.advance();
                Ok(Some((def, self.text(mt), mt.start, true)))
            }
        }
    }

    /// Parses `!dialect.mnemonic<...>` of a registered dialect through the dialect's hook.
    fn parse_registered_dialect_type(&mut self, ident: &'c str) -> PResult<Option<Type>> {
        let Some((dialect, m, pos, wrapped)) = self.registered_dialect_mnemonic(ident)? else {
            return Ok(None);
        };
        let Some(def) = dialect.type_def(m) else {
            return Err(self.err_at(
                pos,
                format!("unknown  type `{m}` in dialect `{}`", dialect.name),
            ));
        };
        let ty = (def.parse)(&mut super::AsmParser::new(self))?;
        if let crate::TypeData::Dialect(b) = self.ctx.type_data(ty) {
            if let Err(msg) = b.get().verify(self.ctx) {
                return Err(self.err_at(pos, msg));
            }
        }
        if wrapped {
            self.expect(Tok::Greater, "'>'")?;
        }
        Ok(Some(ty))
    }

    /// Splits a `!`/`#` identifier into (dialect, body, pretty, end offset). Returns an empty
    /// dialect for an alias name.
    pub(crate) fn dialect_symbol(
        &mut self,
        start: u32,
        end: u32,
        ident: &'c str,
    ) -> PResult<(&'c str, &'c str, bool, usize)> {
        let end = end as usize;
        let src: &'c str = self.src;
        if let Some((d, _)) = ident.split_once('.') {
            let mut stop = end;
            if self.b.get(end) == Some(&b'<') {
                stop = scan_balanced(self.b, end).ok_or_else(|| {
                    self.err_at(end as u32, "unbalanced '<' in dialect symbol body")
                })?;
            }
            let body = &src[start as usize + 2 + d.len()..stop];
            return Ok((d, body, true, stop));
        }
        if self.b.get(end) == Some(&b'<') {
            let stop = scan_balanced(self.b, end)
                .ok_or_else(|| self.err_at(end as u32, "unbalanced '<' in dialect symbol body"))?;
            return Ok((ident, &src[end + 1..stop - 1], false, stop));
        }
        Ok(("", "", false, end))
    }

    /// Parses `2x?x` style dimensions directly from the bytes; stops before the element type.
    fn parse_dims(&mut self, scalable_ok: bool) -> PResult<(Vec<i64>, Vec<bool>)> {
        let mut p = self.tok.start as usize;
        let b = self.b;
        let mut shape = Vec::new();
        let mut scalable = Vec::new();
        loop {
            let dim_start = p;
            let mut sc = false;
            let dim = match b.get(p) {
                Some(b'?') => {
                    p += 1;
                    DYNAMIC
                }
                Some(c) if c.is_ascii_digit() => {
                    let s = p;
                    while p < b.len() && b[p].is_ascii_digit() {
                        p += 1;
                    }
                    self.src[s..p]
                        .parse::<i64>()
                        .map_err(|_| self.err_at(s as u32, "dimension out of range"))?
                }
                Some(b'[') if scalable_ok => {
                    p += 1;
                    let s = p;
                    while p < b.len() && b[p].is_ascii_digit() {
                        p += 1;
                    }
                    let v = self.src[s..p]
                        .parse::<i64>()
                        .map_err(|_| self.err_at(s as u32, "expected scalable dimension size"))?;
                    if b.get(p) != Some(&b']') {
                        return Err(self.err_at(p as u32, "missing ']' closing scalable dimension"));
                    }
                    p += 1;
                    sc = true;
                    v
                }
                _ => break,
            };
            if b.get(p) != Some(&b'x') {
                return Err(self.err_at(dim_start as u32, "expected 'x' in dimension list"));
            }
            p += 1;
            shape.push(dim);
            scalable.push(sc);
        }
        self.tok = lex(b, p);
        Ok((shape, scalable))
    }

    fn parse_tensor_type(&mut self) -> PResult<Type> {
        self.advance();
        self.expect(Tok::Less, "'<' in tensor type")?;
        if self.is(Tok::Star) {
            let p = self.tok.end as usize;
            if self.b.get(p) != Some(&b'x') {
                return Err(self.err("expected 'x' in dimension list"));
            }
            self.reset_to(p + 1);
            let elem = self.parse_type()?;
            self.expect(Tok::Greater, "'>' in tensor type")?;
            return Ok(self.ctx.intern_type(TypeData::UnrankedTensor { elem }));
        }
        let (shape, _) = self.parse_dims(false)?;
        let elem = self.parse_type()?;
        let mut encoding = None;
        if self.consume_if(Tok::Comma) {
            encoding = Some(self.parse_attribute()?);
        }
        self.expect(Tok::Greater, "'>' in tensor type")?;
        Ok(self.ctx.intern_type(TypeData::RankedTensor {
            shape,
            elem,
            encoding,
        }))
    }

    fn parse_memref_type(&mut self) -> PResult<Type> {
        self.advance();
        self.expect(Tok::Less, "'<' in memref type")?;
        if self.is(Tok::Star) {
            let p = self.tok.end as usize;
            if self.b.get(p) != Some(&b'x') {
                return Err(self.err("expected 'x' in dimension list"));
            }
            self.reset_to(p + 1);
            let elem = self.parse_type()?;
            let mut memory_space = None;
            if self.consume_if(Tok::Comma) {
                memory_space = Some(self.parse_attribute()?);
            }
            self.expect(Tok::Greater, "'>' in memref type")?;
            return Ok(self
                .ctx
                .intern_type(TypeData::UnrankedMemRef { elem, memory_space }));
        }
        let (shape, _) = self.parse_dims(false)?;
        let elem = self.parse_type()?;
        let mut layout = None;
        let mut memory_space = None;
        while self.consume_if(Tok::Comma) {
            let pos = self.tok.start;
            let a = self.parse_attribute()?;
            let is_layout = matches!(
                self.ctx.attr_data(a),
                AttrData::AffineMap(_) | AttrData::StridedLayout { .. }
            );
            if is_layout && layout.is_none() && memory_space.is_none() {
                layout = Some(a);
            } else if memory_space.is_none() {
                memory_space = Some(a);
            } else {
                return Err(self.err_at(pos, "multiple memory spaces specified in memref type"));
            }
        }
        self.expect(Tok::Greater, "'>' in memref type")?;
        // MLIR drops an identity affine map layout: it is the default.
        if let Some(l) = layout {
            if let AttrData::AffineMap(m) = self.ctx.attr_data(l) {
                let identity = m.num_symbols == 0
                    && m.results.len() == shape.len()
                    && m.num_dims as usize == shape.len()
                    && m.results
                        .iter()
                        .enumerate()
                        .all(|(i, e)| *e == crate::AffineExpr::Dim(i as u32));
                if identity {
                    layout = None;
                }
            }
        }
        Ok(self.ctx.intern_type(TypeData::MemRef {
            shape,
            elem,
            layout,
            memory_space,
        }))
    }

    fn parse_vector_type(&mut self) -> PResult<Type> {
        self.advance();
        self.expect(Tok::Less, "'<' in vector type")?;
        let start = self.tok.start;
        let (shape, scalable) = self.parse_dims(true)?;
        if shape.contains(&DYNAMIC) {
            return Err(self.err_at(start, "vector types must have static shape"));
        }
        let elem = self.parse_type()?;
        self.expect(Tok::Greater, "'>' in vector type")?;
        Ok(self.ctx.intern_type(TypeData::Vector {
            shape,
            scalable,
            elem,
        }))
    }
}
