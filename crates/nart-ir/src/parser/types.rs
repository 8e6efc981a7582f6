//! Parsing of builtin types, dialect types kept as text, and type aliases.

use super::lexer::{lex, scan_balanced, Tok};
use super::{PResult, Parser};
use crate::types::{FloatKind, Signedness, TypeData, DYNAMIC};
use crate::{AttrData, Type};

/// Parses `iN`, `siN`, `uiN` into (width, signedness); a width too large for a `u32` is
/// `u32::MAX` (the parser then reports it).
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
    if rest.is_empty() || !rest.bytes().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((rest.parse().unwrap_or(u32::MAX), sign))
}

/// The widest integer type, as upstream limits it.
pub(crate) const MAX_INT_WIDTH: u32 = 16_777_215;

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
                    if width == u32::MAX {
                        return Err(self.err("invalid integer width"));
                    }
                    if width > MAX_INT_WIDTH {
                        return Err(self.err(format!(
                            "integer bitwidth is limited to {MAX_INT_WIDTH} bits"
                        )));
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
                        let pos = self.tok.start;
                        let e = self.parse_type()?;
                        self.expect(Tok::Greater, "'>' in complex type")?;
                        if !matches!(
                            self.ctx.type_data(e),
                            TypeData::Integer { .. } | TypeData::Float(_)
                        ) {
                            return Err(self.err_at(pos, "invalid element type for complex"));
                        }
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
            self.charge_type_alias(ty, t.start)?;
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
                    self.err_at(
                        end as u32,
                        "unbalanced '<' character in pretty dialect name",
                    )
                })?;
            }
            let body = &src[start as usize + 2 + d.len()..stop];
            return Ok((d, body, true, stop));
        }
        if self.b.get(end) == Some(&b'<') {
            let stop = scan_balanced(self.b, end).ok_or_else(|| {
                self.err_at(
                    end as u32,
                    "unbalanced '<' character in pretty dialect name",
                )
            })?;
            return Ok((ident, &src[end + 1..stop - 1], false, stop));
        }
        Ok(("", "", false, end))
    }

    /// Parses one dimension size (upstream's `parseIntegerInDimensionList`). A hex literal
    /// `0x...` is `0` followed by `x...`, so that `tensor<0xf32>` reads as upstream reads it.
    fn parse_dim_size(&mut self) -> PResult<i64> {
        let t = self.tok;
        let text = self.text(t);
        if t.kind == Tok::Integer && text.as_bytes().get(1) == Some(&b'x') {
            self.reset_to(t.start as usize + 1);
            return Ok(0);
        }
        let v = match t.kind {
            Tok::Integer => text.parse::<i64>().ok(),
            _ => None,
        };
        let Some(v) = v else {
            return Err(self.err_at(t.start, "invalid dimension"));
        };
        self.advance();
        Ok(v)
    }

    /// Consumes the `x` after a dimension, which may start the next token (`xf32`, `x4`).
    fn parse_dim_x(&mut self) -> PResult<()> {
        let t = self.tok;
        if t.kind != Tok::BareIdent || !self.text(t).starts_with('x') {
            return Err(self.err("expected 'x' in dimension list"));
        }
        self.reset_to(t.start as usize + 1);
        Ok(())
    }

    /// Parses the dimensions of a ranked tensor or memref, each followed by `x`: `2x?x`.
    /// Whitespace may separate every part (`4 x ? x f32`).
    fn parse_dims(&mut self) -> PResult<Vec<i64>> {
        let mut shape = Vec::new();
        while matches!(self.tok.kind, Tok::Integer | Tok::Question) {
            if self.consume_if(Tok::Question) {
                shape.push(DYNAMIC);
            } else {
                shape.push(self.parse_dim_size()?);
            }
            self.parse_dim_x()?;
        }
        Ok(shape)
    }

    /// Parses the dimensions of a vector, each fixed (`4`) or scalable (`[4]`) and followed by
    /// `x`.
    fn parse_vector_dims(&mut self) -> PResult<(Vec<i64>, Vec<bool>)> {
        let mut shape = Vec::new();
        let mut scalable = Vec::new();
        while matches!(self.tok.kind, Tok::Integer | Tok::LSquare) {
            let sc = self.consume_if(Tok::LSquare);
            shape.push(self.parse_dim_size()?);
            if sc && !self.consume_if(Tok::RSquare) {
                let pos = self.wrong_token_pos();
                return Err(self.err_at(pos, "missing ']' closing scalable dimension"));
            }
            scalable.push(sc);
            self.parse_dim_x()?;
        }
        Ok((shape, scalable))
    }

    /// Parses `*x` of an unranked tensor or memref, if present.
    fn parse_unranked_star(&mut self) -> PResult<bool> {
        if !self.consume_if(Tok::Star) {
            return Ok(false);
        }
        self.parse_dim_x()?;
        Ok(true)
    }

    /// Parses an element type and checks it with `valid`, reporting `msg` at its start.
    fn parse_elem_type(&mut self, valid: fn(&TypeData) -> bool, msg: &str) -> PResult<Type> {
        let pos = self.tok.start;
        let elem = self.parse_type()?;
        if !valid(self.ctx.type_data(elem)) {
            return Err(self.err_at(pos, msg));
        }
        Ok(elem)
    }

    fn parse_tensor_type(&mut self) -> PResult<Type> {
        self.advance();
        self.expect(Tok::Less, "'<' in tensor type")?;
        let unranked = self.parse_unranked_star()?;
        let shape = if unranked {
            Vec::new()
        } else {
            self.parse_dims()?
        };
        let elem_pos = self.tok.start;
        let elem = self.parse_type()?;
        let mut encoding = None;
        if self.consume_if(Tok::Comma) && self.can_start_attr() {
            encoding = Some(self.parse_attribute()?);
        }
        self.expect(Tok::Greater, "'>' in tensor type")?;
        if !valid_tensor_elem(self.ctx.type_data(elem)) {
            return Err(self.err_at(elem_pos, "invalid tensor element type"));
        }
        if unranked {
            if encoding.is_some() {
                return Err(self.err("cannot apply encoding to unranked tensor"));
            }
            return Ok(self.ctx.intern_type(TypeData::UnrankedTensor { elem }));
        }
        Ok(self.ctx.intern_type(TypeData::RankedTensor {
            shape,
            elem,
            encoding,
        }))
    }

    fn parse_memref_type(&mut self) -> PResult<Type> {
        let start = self.tok.start;
        self.advance();
        self.expect(Tok::Less, "'<' in memref type")?;
        if self.parse_unranked_star()? {
            let elem = self.parse_elem_type(valid_memref_elem, "invalid memref element type")?;
            let mut memory_space = None;
            if self.consume_if(Tok::Comma) {
                memory_space = Some(self.parse_attribute()?);
            }
            self.expect(Tok::Greater, "'>' in memref type")?;
            let memory_space = self.memory_space(memory_space, start)?;
            return Ok(self
                .ctx
                .intern_type(TypeData::UnrankedMemRef { elem, memory_space }));
        }
        let shape = self.parse_dims()?;
        let elem = self.parse_elem_type(valid_memref_elem, "invalid memref element type")?;
        let mut layout = None;
        let mut memory_space = None;
        let mut first = true;
        while self.consume_if(Tok::Comma) {
            if first && self.is(Tok::Greater) {
                return Err(self.err("expected list element"));
            }
            first = false;
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
        let memory_space = self.memory_space(memory_space, start)?;
        Ok(self.ctx.intern_type(TypeData::MemRef {
            shape,
            elem,
            layout,
            memory_space,
        }))
    }

    /// Checks a memory space as upstream's `isSupportedMemorySpace` (an integer, a string, a
    /// dictionary or a registered dialect's attribute), reporting at the `memref` keyword at
    /// `pos`; `None` for upstream's default, so an integer `0` is no memory space.
    fn memory_space(
        &mut self,
        space: Option<crate::Attr>,
        pos: u32,
    ) -> PResult<Option<crate::Attr>> {
        let Some(a) = space else {
            return Ok(None);
        };
        match self.ctx.attr_data(a) {
            AttrData::Integer { value: 0, .. } => Ok(None),
            AttrData::Integer { .. }
            | AttrData::WideInteger { .. }
            | AttrData::String { .. }
            | AttrData::Dictionary(_)
            | AttrData::Dialect(_) => Ok(Some(a)),
            _ => Err(self.err_at(pos, "unsupported memory space Attribute")),
        }
    }

    fn parse_vector_type(&mut self) -> PResult<Type> {
        let start = self.tok.start;
        self.advance();
        self.expect(Tok::Less, "'<' in vector type")?;
        let (shape, scalable) = self.parse_vector_dims()?;
        let elem = self.parse_type()?;
        self.expect(Tok::Greater, "'>' in vector type")?;
        // Upstream's `VectorType::verify`, reported at the `vector` keyword.
        if shape.iter().any(|&d| d <= 0) {
            let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
            return Err(self.err_at(
                start,
                format!(
                    "vector types must have positive constant sizes but got {}",
                    dims.join(", ")
                ),
            ));
        }
        if !valid_vector_elem(self.ctx.type_data(elem)) {
            return Err(self.err_at(
                start,
                "failed to verify 'elementType': VectorElementTypeInterface instance",
            ));
        }
        Ok(self.ctx.intern_type(TypeData::Vector {
            shape,
            scalable,
            elem,
        }))
    }
}

/// Upstream's `TensorType::isValidElementType`: any dialect's type, and of the builtin ones
/// the scalars, complex and vector types.
fn valid_tensor_elem(t: &TypeData) -> bool {
    !matches!(
        t,
        TypeData::None
            | TypeData::Function { .. }
            | TypeData::RankedTensor { .. }
            | TypeData::UnrankedTensor { .. }
            | TypeData::MemRef { .. }
            | TypeData::UnrankedMemRef { .. }
            | TypeData::Tuple(_)
    )
}

/// Upstream's `BaseMemRefType::isValidElementType`: scalars, complex, vector and memref types
/// (no dialect type of nart's implements `MemRefElementTypeInterface`).
fn valid_memref_elem(t: &TypeData) -> bool {
    matches!(
        t,
        TypeData::Integer { .. }
            | TypeData::Index
            | TypeData::Float(_)
            | TypeData::Complex(_)
            | TypeData::Vector { .. }
            | TypeData::MemRef { .. }
            | TypeData::UnrankedMemRef { .. }
    )
}

/// The types that implement upstream's `VectorElementTypeInterface`: integers, `index` and
/// floats.
fn valid_vector_elem(t: &TypeData) -> bool {
    matches!(
        t,
        TypeData::Integer { .. } | TypeData::Index | TypeData::Float(_)
    )
}
