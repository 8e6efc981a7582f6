//! Writing types, attributes, locations and numbers in MLIR syntax.

use std::cell::RefCell;
use std::fmt::Write;

use rustc_hash::FxHashMap;

use crate::parser::num::{bits_to_float, float_storage_bytes, float_to_bits};
use crate::types::{FloatKind, Signedness, TypeData, DYNAMIC};
use crate::{
    AffineExpr, AffineMap, Attr, AttrData, Context, DenseArrayData, DenseData, LocData, Location,
    Type,
};

/// Above this many elements, dense elements print as a hex blob (as MLIR does).
const HEX_THRESHOLD: usize = 100;

/// Writes `s` as a quoted MLIR string literal.
pub(crate) fn write_escaped(out: &mut String, s: &[u8]) {
    out.push('"');
    for &c in s {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'"' => out.push_str("\\22"),
            0x20..=0x7e => out.push(c as char),
            _ => {
                const HEX: &[u8; 16] = b"0123456789ABCDEF";
                out.push('\\');
                out.push(HEX[(c >> 4) as usize] as char);
                out.push(HEX[(c & 15) as usize] as char);
            }
        }
    }
    out.push('"');
}

/// Writes a symbol name `@name`, quoted when it is not a bare identifier.
pub(crate) fn write_symbol(out: &mut String, name: &str) {
    out.push('@');
    if crate::parser::is_bare_ident(name) {
        out.push_str(name);
    } else {
        write_escaped(out, name.as_bytes());
    }
}

/// Writes an attribute name, quoted when needed.
pub(crate) fn write_attr_name(out: &mut String, name: &str) {
    if crate::parser::is_bare_ident(name) {
        out.push_str(name);
    } else {
        write_escaped(out, name.as_bytes());
    }
}

fn mlir_exponent(s: &str) -> String {
    // Rust writes `1.5e0` / `1.5e-7`; MLIR writes `1.500000e+00` / `1.5e-07`.
    match s.split_once('e') {
        Some((m, e)) => {
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            let mut m = m.to_string();
            if !m.contains('.') {
                m.push_str(".0");
            }
            if digits.len() < 2 {
                format!("{m}e{sign}0{digits}")
            } else {
                format!("{m}e{sign}{digits}")
            }
        }
        None => s.to_string(),
    }
}

fn rounds_back(s: &str, kind: FloatKind, v: f64) -> bool {
    s.parse::<f64>()
        .is_ok_and(|p| crate::util::round_to_float_kind(p, kind).to_bits() == v.to_bits())
}

/// Writes a float of format `kind` so that it parses back to the same value: MLIR's
/// `1.000000e+00` form when exact, else the shortest decimal that round-trips, else (NaN and
/// infinities) the hex bit pattern.
pub(crate) fn write_float(out: &mut String, kind: FloatKind, v: f64) {
    if v.is_finite() {
        let s = mlir_exponent(&format!("{v:.6e}"));
        if rounds_back(&s, kind, v) {
            out.push_str(&s);
            return;
        }
        let short32 = mlir_exponent(&format!("{:e}", v as f32));
        if kind.width() <= 32 && rounds_back(&short32, kind, v) {
            out.push_str(&short32);
            return;
        }
        let short = mlir_exponent(&format!("{v:e}"));
        if rounds_back(&short, kind, v) {
            out.push_str(&short);
            return;
        }
    }
    write_float_hex(out, kind, v);
}

/// `"0x..."` with two upper-case hex digits a byte, as MLIR writes a dense blob. Weights are
/// most of a model's text, so this goes through a table rather than `write!` a byte.
fn write_hex_blob(out: &mut String, bytes: &[u8]) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    out.reserve(bytes.len() * 2 + 3);
    out.push_str("\"0x");
    // Through a buffer of ASCII digits, a slice at a time: a weight has millions of bytes.
    let mut buf = [0u8; 8192];
    for chunk in bytes.chunks(buf.len() / 2) {
        for (&b, d) in chunk.iter().zip(buf.chunks_exact_mut(2)) {
            d[0] = DIGITS[usize::from(b >> 4)];
            d[1] = DIGITS[usize::from(b & 15)];
        }
        let hex = &buf[..2 * chunk.len()];
        out.push_str(std::str::from_utf8(hex).expect("hex digits are ASCII"));
    }
    out.push('"');
}

fn write_float_hex(out: &mut String, kind: FloatKind, v: f64) {
    let bits = float_to_bits(kind, v);
    let digits = (kind.width() as usize).div_ceil(4);
    let _ = write!(out, "0x{bits:0digits$X}");
}

/// Writes an `f64` in the shortest form that reads back exactly, as MLIR prints an `f64`.
pub(crate) fn write_f64(out: &mut String, v: f64) {
    write_float(out, FloatKind::F64, v);
}

/// Writes a type.
pub(crate) fn write_type(ctx: &Context, out: &mut String, ty: Type, opts: Option<AttrOpts>) {
    write_type_data(ctx, out, ctx.type_data(ty), opts);
}

/// Writes the type with structure `data` (which need not be interned).
pub(crate) fn write_type_data(
    ctx: &Context,
    out: &mut String,
    data: &TypeData,
    opts: Option<AttrOpts>,
) {
    match data {
        TypeData::Integer { width, signedness } => {
            let p = match signedness {
                Signedness::Signless => "i",
                Signedness::Signed => "si",
                Signedness::Unsigned => "ui",
            };
            let _ = write!(out, "{p}{width}");
        }
        TypeData::Index => out.push_str("index"),
        TypeData::Float(k) => out.push_str(k.keyword()),
        TypeData::None => out.push_str("none"),
        TypeData::Function { inputs, results } => {
            out.push('(');
            write_type_list(ctx, out, inputs, opts);
            out.push_str(") -> ");
            write_result_types(ctx, out, results, opts);
        }
        TypeData::RankedTensor {
            shape,
            elem,
            encoding,
        } => {
            out.push_str("tensor<");
            write_shape(out, shape, None);
            write_type(ctx, out, *elem, opts);
            if let Some(e) = encoding {
                out.push_str(", ");
                write_attr(ctx, out, *e, opts);
            }
            out.push('>');
        }
        TypeData::UnrankedTensor { elem } => {
            out.push_str("tensor<*x");
            write_type(ctx, out, *elem, opts);
            out.push('>');
        }
        TypeData::MemRef {
            shape,
            elem,
            layout,
            memory_space,
        } => {
            out.push_str("memref<");
            write_shape(out, shape, None);
            write_type(ctx, out, *elem, opts);
            if let Some(l) = layout {
                out.push_str(", ");
                write_attr(ctx, out, *l, opts);
            }
            if let Some(m) = memory_space {
                out.push_str(", ");
                write_memory_space(ctx, out, *m, opts);
            }
            out.push('>');
        }
        TypeData::UnrankedMemRef { elem, memory_space } => {
            out.push_str("memref<*x");
            write_type(ctx, out, *elem, opts);
            if let Some(m) = memory_space {
                out.push_str(", ");
                write_memory_space(ctx, out, *m, opts);
            }
            out.push('>');
        }
        TypeData::Vector {
            shape,
            scalable,
            elem,
        } => {
            out.push_str("vector<");
            write_shape(out, shape, Some(scalable));
            write_type(ctx, out, *elem, opts);
            out.push('>');
        }
        TypeData::Tuple(items) => {
            out.push_str("tuple<");
            write_type_list(ctx, out, items, opts);
            out.push('>');
        }
        TypeData::Complex(e) => {
            out.push_str("complex<");
            write_type(ctx, out, *e, opts);
            out.push('>');
        }
        TypeData::Dialect(b) => {
            let def = b.get().def();
            out.push('!');
            out.push_str(def.dialect);
            out.push('.');
            out.push_str(def.mnemonic);
            b.get()
                .print(&mut crate::extensible::AsmPrinter::new(ctx, out, opts));
        }
        TypeData::Unregistered {
            dialect,
            body,
            pretty,
        } => {
            out.push('!');
            out.push_str(dialect);
            if *pretty {
                out.push('.');
                out.push_str(body);
            } else {
                out.push('<');
                out.push_str(body);
                out.push('>');
            }
        }
    }
}

fn write_memory_space(ctx: &Context, out: &mut String, a: Attr, opts: Option<AttrOpts>) {
    match ctx.attr_data(a) {
        AttrData::Integer { value, ty }
            if matches!(
                ctx.type_data(*ty),
                TypeData::Integer {
                    width: 64,
                    signedness: Signedness::Signless
                }
            ) =>
        {
            let _ = write!(out, "{value}");
        }
        _ => write_attr(ctx, out, a, opts),
    }
}

fn write_shape(out: &mut String, shape: &[i64], scalable: Option<&Vec<bool>>) {
    for (i, &d) in shape.iter().enumerate() {
        let sc = scalable.is_some_and(|s| s.get(i).copied().unwrap_or(false));
        if sc {
            out.push('[');
        }
        if d == DYNAMIC {
            out.push('?');
        } else {
            let _ = write!(out, "{d}");
        }
        if sc {
            out.push(']');
        }
        out.push('x');
    }
}

/// Writes types separated by `, `.
pub(crate) fn write_type_list(
    ctx: &Context,
    out: &mut String,
    types: &[Type],
    opts: Option<AttrOpts>,
) {
    for (i, &t) in types.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_type(ctx, out, t, opts);
    }
}

/// Writes function results: `t`, or `(t1, t2)`, `()`, or `((a) -> b)`.
pub(crate) fn write_result_types(
    ctx: &Context,
    out: &mut String,
    results: &[Type],
    opts: Option<AttrOpts>,
) {
    if results.len() == 1 && !matches!(ctx.type_data(results[0]), TypeData::Function { .. }) {
        write_type(ctx, out, results[0], opts);
    } else {
        out.push('(');
        write_type_list(ctx, out, results, opts);
        out.push(')');
    }
}

/// Options that change how attributes print.
#[derive(Clone, Copy, Default)]
pub(crate) struct AttrOpts<'a> {
    pub elide_larger_than: Option<usize>,
    /// Print locations in their pretty form (`--mlir-pretty-debuginfo`).
    pub pretty_locs: bool,
    /// Where affine maps get their `#map` aliases; `None` prints them in place.
    pub aliases: Option<&'a RefCell<Aliases>>,
}

/// The attribute aliases handed out while printing (`#map`, `#map1`, ...), in the order they
/// were first printed, as MLIR numbers them.
#[derive(Default)]
pub(crate) struct Aliases {
    pub index: FxHashMap<Attr, u32>,
    /// Affine maps (`#map`).
    pub order: Vec<Attr>,
    /// Integer sets (`#set`).
    pub sets: Vec<Attr>,
}

impl Aliases {
    /// The alias number of `a` among maps or sets, handing out the next one on first use.
    fn number(&mut self, a: Attr, set: bool) -> u32 {
        let list = if set { &mut self.sets } else { &mut self.order };
        let next = list.len() as u32;
        *self.index.entry(a).or_insert_with(|| {
            list.push(a);
            next
        })
    }

    /// Whether no alias was handed out.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty() && self.sets.is_empty()
    }
}

/// Writes alias number `n` of a kind: `#map`, `#map1`, ... or `#set`, `#set1`, ...
pub(crate) fn write_alias(out: &mut String, kind: &str, n: u32) {
    out.push('#');
    out.push_str(kind);
    if n != 0 {
        let _ = write!(out, "{n}");
    }
}

/// Writes an attribute.
pub(crate) fn write_attr(ctx: &Context, out: &mut String, attr: Attr, opts: Option<AttrOpts>) {
    match ctx.attr_data(attr) {
        AttrData::Unit => out.push_str("unit"),
        AttrData::Integer { value, ty } => {
            if matches!(
                ctx.type_data(*ty),
                TypeData::Integer {
                    width: 1,
                    signedness: Signedness::Signless
                }
            ) {
                out.push_str(if *value != 0 { "true" } else { "false" });
                return;
            }
            if let TypeData::Integer {
                width: 128,
                signedness: Signedness::Unsigned,
            } = ctx.type_data(*ty)
            {
                let _ = write!(out, "{} : ", *value as u128);
            } else {
                let _ = write!(out, "{value} : ");
            }
            write_type(ctx, out, *ty, opts);
        }
        AttrData::WideInteger { value, ty } => {
            let signed = !matches!(
                ctx.type_data(*ty),
                TypeData::Integer {
                    signedness: Signedness::Unsigned,
                    ..
                }
            );
            out.push_str(&value.to_decimal(signed));
            out.push_str(" : ");
            write_type(ctx, out, *ty, opts);
        }
        AttrData::Float { bits, ty } => {
            let v = f64::from_bits(*bits);
            let kind = match ctx.type_data(*ty) {
                TypeData::Float(k) => *k,
                _ => FloatKind::F64,
            };
            write_float(out, kind, v);
            out.push_str(" : ");
            write_type(ctx, out, *ty, opts);
        }
        AttrData::String { value, ty } => {
            write_escaped(out, value);
            if let Some(t) = ty {
                out.push_str(" : ");
                write_type(ctx, out, *t, opts);
            }
        }
        AttrData::Array(items) => {
            out.push('[');
            for (i, &a) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                // Inside arrays MLIR elides the default types, `i64` and `f64`.
                match ctx.attr_data(a) {
                    AttrData::Integer { value, ty } if is_i64(ctx, *ty) => {
                        let _ = write!(out, "{value}");
                    }
                    AttrData::Float { bits, ty }
                        if matches!(ctx.type_data(*ty), TypeData::Float(FloatKind::F64)) =>
                    {
                        write_float(out, FloatKind::F64, f64::from_bits(*bits));
                    }
                    _ => write_attr(ctx, out, a, opts),
                }
            }
            out.push(']');
        }
        AttrData::Dictionary(entries) => {
            out.push('{');
            write_dict_entries(ctx, out, entries.iter().copied(), opts);
            out.push('}');
        }
        AttrData::Type(t) => write_type(ctx, out, *t, opts),
        AttrData::SymbolRef { root, nested } => {
            write_symbol(out, ctx.str(*root));
            for n in nested {
                out.push_str("::");
                write_symbol(out, ctx.str(*n));
            }
        }
        AttrData::DenseElements { ty, data } => write_dense(ctx, out, *ty, data, opts),
        AttrData::DenseResource { key, ty } => {
            out.push_str("dense_resource<");
            if crate::parser::is_bare_ident(key) {
                out.push_str(key);
            } else {
                write_escaped(out, key.as_bytes());
            }
            out.push_str("> : ");
            write_type(ctx, out, *ty, opts);
        }
        AttrData::DenseArray { elem, data } => {
            out.push_str("array<");
            write_type(ctx, out, *elem, opts);
            let is_bool = matches!(ctx.type_data(*elem), TypeData::Integer { width: 1, .. });
            match data {
                DenseArrayData::Int(v) if !v.is_empty() => {
                    out.push_str(": ");
                    for (i, x) in v.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        if is_bool {
                            out.push_str(if *x != 0 { "true" } else { "false" });
                        } else {
                            let _ = write!(out, "{x}");
                        }
                    }
                }
                DenseArrayData::Float(v) if !v.is_empty() => {
                    let kind = match ctx.type_data(*elem) {
                        TypeData::Float(k) => *k,
                        _ => FloatKind::F64,
                    };
                    out.push_str(": ");
                    for (i, x) in v.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        write_float(out, kind, f64::from_bits(*x));
                    }
                }
                _ => {}
            }
            out.push('>');
        }
        AttrData::AffineMap(m) => {
            if let Some(al) = opts.and_then(|o| o.aliases) {
                let n = al.borrow_mut().number(attr, false);
                write_alias(out, "map", n);
                return;
            }
            out.push_str("affine_map<");
            write_affine_map(out, m);
            out.push('>');
        }
        AttrData::StridedLayout { strides, offset } => {
            out.push_str("strided<[");
            for (i, &s) in strides.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_dyn(out, s);
            }
            out.push(']');
            if *offset != 0 {
                out.push_str(", offset: ");
                write_dyn(out, *offset);
            }
            out.push('>');
        }
        AttrData::Location(_) => {
            let loc = ctx.as_location(attr).expect("location attribute");
            write_loc(ctx, out, loc, opts.is_some_and(|o| o.pretty_locs));
        }
        AttrData::Dialect(b) => {
            let def = b.get().def();
            out.push('#');
            out.push_str(def.dialect);
            out.push('.');
            out.push_str(def.mnemonic);
            b.get()
                .print(&mut crate::extensible::AsmPrinter::new(ctx, out, opts));
        }
        AttrData::Unregistered {
            dialect,
            body,
            pretty,
        } => {
            out.push('#');
            out.push_str(dialect);
            if *pretty {
                out.push('.');
                out.push_str(body);
            } else {
                out.push('<');
                out.push_str(body);
                out.push('>');
            }
        }
        AttrData::Opaque(text) => {
            if text.starts_with("affine_set<") {
                if let Some(al) = opts.and_then(|o| o.aliases) {
                    let n = al.borrow_mut().number(attr, true);
                    write_alias(out, "set", n);
                    return;
                }
            }
            out.push_str(text)
        }
    }
}

fn is_i64(ctx: &Context, ty: Type) -> bool {
    matches!(
        ctx.type_data(ty),
        TypeData::Integer {
            width: 64,
            signedness: Signedness::Signless
        }
    )
}

fn write_dyn(out: &mut String, v: i64) {
    if v == DYNAMIC {
        out.push('?');
    } else {
        let _ = write!(out, "{v}");
    }
}

/// Writes `a = 1, b` (unit values as bare names).
pub(crate) fn write_dict_entries(
    ctx: &Context,
    out: &mut String,
    entries: impl Iterator<Item = crate::NamedAttr>,
    opts: Option<AttrOpts>,
) {
    for (i, e) in entries.enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_attr_name(out, ctx.str(e.name));
        if !matches!(ctx.attr_data(e.value), AttrData::Unit) {
            out.push_str(" = ");
            write_attr(ctx, out, e.value, opts);
        }
    }
}

/// Writes a location as `loc(...)`.
/// Writes a location: `loc("file":1:2)`, or with `pretty` as upstream's
/// `--mlir-pretty-debuginfo` writes it, without `loc(...)` and quotes around file names
/// (`file:1:2`, `[unknown]`, `callee\n at caller`, `[a, b]` for a fused location).
pub(crate) fn write_loc(ctx: &Context, out: &mut String, loc: Location, pretty: bool) {
    if pretty {
        write_loc_inner(ctx, out, loc, true);
        return;
    }
    out.push_str("loc(");
    write_loc_inner(ctx, out, loc, false);
    out.push(')');
}

fn write_loc_inner(ctx: &Context, out: &mut String, loc: Location, pretty: bool) {
    match ctx.loc_data(loc) {
        LocData::Unknown => out.push_str(if pretty { "[unknown]" } else { "unknown" }),
        LocData::FileLineCol {
            file,
            line,
            col,
            end,
        } => {
            if pretty {
                out.push_str(ctx.str(*file));
            } else {
                write_escaped(out, ctx.str(*file).as_bytes());
            }
            let _ = write!(out, ":{line}:{col}");
            if let Some((l, c)) = end {
                let _ = write!(out, " to {l}:{c}");
            }
        }
        LocData::Name { name, child } => {
            write_escaped(out, ctx.str(*name).as_bytes());
            if let Some(c) = child {
                if !matches!(ctx.loc_data(*c), LocData::Unknown) {
                    out.push('(');
                    write_loc_inner(ctx, out, *c, pretty);
                    out.push(')');
                }
            }
        }
        LocData::CallSite { callee, caller } => {
            if !pretty {
                out.push_str("callsite(");
            }
            write_loc_inner(ctx, out, *callee, pretty);
            // Upstream's pretty form breaks the line, unless a named callee is called from a
            // file location.
            let same_line = !pretty
                || (matches!(ctx.loc_data(*callee), LocData::Name { .. })
                    && matches!(ctx.loc_data(*caller), LocData::FileLineCol { .. }));
            out.push_str(if same_line { " at " } else { "\n at " });
            write_loc_inner(ctx, out, *caller, pretty);
            if !pretty {
                out.push(')');
            }
        }
        LocData::Fused { metadata, locs } => {
            if !pretty {
                out.push_str("fused");
            }
            if let Some(m) = metadata {
                out.push('<');
                write_attr(ctx, out, *m, None);
                out.push('>');
            }
            out.push('[');
            for (i, l) in locs.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_loc_inner(ctx, out, *l, pretty);
            }
            out.push(']');
        }
    }
}

// ----- affine maps -----

fn write_affine_map(out: &mut String, m: &AffineMap) {
    out.push('(');
    for i in 0..m.num_dims {
        if i > 0 {
            out.push_str(", ");
        }
        let _ = write!(out, "d{i}");
    }
    out.push(')');
    if m.num_symbols > 0 {
        out.push('[');
        for i in 0..m.num_symbols {
            if i > 0 {
                out.push_str(", ");
            }
            let _ = write!(out, "s{i}");
        }
        out.push(']');
    }
    out.push_str(" -> (");
    for (i, e) in m.results.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        write_affine(out, e);
    }
    out.push(')');
}

#[derive(Clone, Copy, PartialEq)]
enum Binding {
    Weak,
    Strong,
}

/// Writes an affine expression as MLIR's printer does: `-e` for `e * -1`, `a - b` for
/// `a + b * -1` and for negative constants, and every binary operand of `*`, `mod`,
/// `floordiv`, `ceildiv` in parentheses.
fn write_affine(out: &mut String, e: &AffineExpr) {
    write_affine_in(out, e, Binding::Weak);
}

fn write_affine_in(out: &mut String, e: &AffineExpr, enclosing: Binding) {
    let open = |out: &mut String| {
        if enclosing == Binding::Strong {
            out.push('(');
        }
    };
    let close = |out: &mut String| {
        if enclosing == Binding::Strong {
            out.push(')');
        }
    };
    match e {
        AffineExpr::Dim(i) => {
            let _ = write!(out, "d{i}");
        }
        AffineExpr::Symbol(i) => {
            let _ = write!(out, "s{i}");
        }
        AffineExpr::Const(c) => {
            let _ = write!(out, "{c}");
        }
        AffineExpr::Mul(l, r)
        | AffineExpr::Mod(l, r)
        | AffineExpr::FloorDiv(l, r)
        | AffineExpr::CeilDiv(l, r) => {
            let op = match e {
                AffineExpr::Mul(..) => " * ",
                AffineExpr::Mod(..) => " mod ",
                AffineExpr::FloorDiv(..) => " floordiv ",
                _ => " ceildiv ",
            };
            open(out);
            if matches!(e, AffineExpr::Mul(..)) && **r == AffineExpr::Const(-1) {
                out.push('-');
                write_affine_in(out, l, Binding::Strong);
            } else {
                write_affine_in(out, l, Binding::Strong);
                out.push_str(op);
                write_affine_in(out, r, Binding::Strong);
            }
            close(out);
        }
        AffineExpr::Add(l, r) => {
            open(out);
            match &**r {
                AffineExpr::Mul(rl, rr) if matches!(**rr, AffineExpr::Const(c) if c == -1) => {
                    write_affine_in(out, l, Binding::Weak);
                    out.push_str(" - ");
                    let b = if matches!(**rl, AffineExpr::Add(..)) {
                        Binding::Strong
                    } else {
                        Binding::Weak
                    };
                    write_affine_in(out, rl, b);
                }
                AffineExpr::Mul(rl, rr) if matches!(**rr, AffineExpr::Const(c) if c < -1) => {
                    let AffineExpr::Const(c) = **rr else {
                        unreachable!("matched a constant above")
                    };
                    write_affine_in(out, l, Binding::Weak);
                    out.push_str(" - ");
                    write_affine_in(out, rl, Binding::Strong);
                    let _ = write!(out, " * {}", c.wrapping_neg());
                }
                AffineExpr::Const(c) if *c < 0 => {
                    write_affine_in(out, l, Binding::Weak);
                    let _ = write!(out, " - {}", (*c as i128).wrapping_neg());
                }
                r => {
                    write_affine_in(out, l, Binding::Weak);
                    out.push_str(" + ");
                    write_affine_in(out, r, Binding::Weak);
                }
            }
            close(out);
        }
    }
}

// ----- dense elements -----

fn write_dense(
    ctx: &Context,
    out: &mut String,
    ty: Type,
    data: &DenseData,
    opts: Option<AttrOpts>,
) {
    let (shape, elem) = match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, elem, .. }
        | TypeData::Vector { shape, elem, .. }
        | TypeData::MemRef { shape, elem, .. } => (shape.clone(), *elem),
        _ => (Vec::new(), ty),
    };
    let n: usize = shape.iter().map(|&d| d.max(0) as usize).product();
    if let Some(limit) = opts.and_then(|o| o.elide_larger_than) {
        let count = match data {
            DenseData::Splat(_) => 1,
            DenseData::Strings { splat: true, .. } => 1,
            _ => n,
        };
        if count > limit {
            out.push_str("dense_resource<__elided__> : ");
            write_type(ctx, out, ty, opts);
            return;
        }
    }
    out.push_str("dense<");
    match data {
        DenseData::Splat(bytes) => write_elem(ctx, out, elem, bytes),
        DenseData::Elements(bytes) => {
            let esize = crate::parser::elem_storage_bytes(ctx, elem)
                .unwrap_or(1)
                .max(1);
            if n > HEX_THRESHOLD && !bytes.is_empty() {
                write_hex_blob(out, bytes);
            } else if n > 0 && bytes.len() == n * esize {
                write_nested(out, &shape, 0, &mut 0, &mut |out, i| {
                    write_elem(ctx, out, elem, &bytes[i * esize..(i + 1) * esize])
                });
            } else if !bytes.is_empty() {
                write_hex_blob(out, bytes);
            }
        }
        DenseData::Strings { splat, values } => {
            if *splat || shape.is_empty() {
                if let Some(v) = values.first() {
                    write_escaped(out, v);
                }
            } else if n > 0 && values.len() == n {
                write_nested(out, &shape, 0, &mut 0, &mut |out, i| {
                    write_escaped(out, &values[i])
                });
            }
        }
    }
    out.push_str("> : ");
    write_type(ctx, out, ty, opts);
}

fn write_nested(
    out: &mut String,
    shape: &[i64],
    depth: usize,
    idx: &mut usize,
    f: &mut dyn FnMut(&mut String, usize),
) {
    if depth == shape.len() {
        f(out, *idx);
        *idx += 1;
        return;
    }
    out.push('[');
    for i in 0..shape[depth].max(0) {
        if i > 0 {
            out.push_str(", ");
        }
        write_nested(out, shape, depth + 1, idx, f);
    }
    out.push(']');
}

fn read_le(bytes: &[u8]) -> u128 {
    let mut v = 0u128;
    for (i, &b) in bytes.iter().enumerate().take(16) {
        v |= (b as u128) << (8 * i);
    }
    v
}

fn write_elem(ctx: &Context, out: &mut String, elem: Type, bytes: &[u8]) {
    match ctx.type_data(elem) {
        TypeData::Integer { width, signedness } => {
            if *width == 1 {
                out.push_str(if bytes.first().copied().unwrap_or(0) != 0 {
                    "true"
                } else {
                    "false"
                });
                return;
            }
            let unsigned = *signedness == Signedness::Unsigned;
            if *width >= 128 {
                let v = crate::apint::ApInt::from_le_bytes(*width, bytes);
                out.push_str(&v.to_decimal(!unsigned));
                return;
            }
            let raw = read_le(bytes) as i128;
            let v = crate::util::normalize_int(raw, *width, *signedness);
            let _ = write!(out, "{v}");
        }
        TypeData::Index => {
            let v = read_le(bytes) as u64 as i64;
            let _ = write!(out, "{v}");
        }
        TypeData::Float(k) => {
            let nb = float_storage_bytes(*k);
            let bits = read_le(&bytes[..nb.min(bytes.len())]);
            let v = bits_to_float(*k, bits);
            if v.is_nan() {
                // Keep the exact NaN payload.
                let digits = (k.width() as usize).div_ceil(4);
                let _ = write!(out, "0x{bits:0digits$X}");
            } else {
                write_float(out, *k, v);
            }
        }
        TypeData::Complex(inner) => {
            let half = bytes.len() / 2;
            out.push('(');
            write_elem(ctx, out, *inner, &bytes[..half]);
            out.push(',');
            write_elem(ctx, out, *inner, &bytes[half..]);
            out.push(')');
        }
        _ => out.push('0'),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(kind: FloatKind, v: f64) -> String {
        let mut s = String::new();
        write_float(&mut s, kind, v);
        s
    }

    /// Blobs across the buffer's slices: every byte value, lengths around the slice size.
    #[test]
    fn hex_blobs() {
        for n in [0usize, 1, 255, 4095, 4096, 4097, 10_000] {
            let bytes: Vec<u8> = (0..n).map(|i| (i * 7 + i / 256) as u8).collect();
            let mut got = String::from("x");
            write_hex_blob(&mut got, &bytes);
            let want: String = bytes.iter().map(|b| format!("{b:02X}")).collect();
            assert_eq!(got, format!("x\"0x{want}\""), "{n} bytes");
        }
    }

    #[test]
    fn floats_print_like_mlir() {
        assert_eq!(f(FloatKind::F32, 1.0), "1.000000e+00");
        assert_eq!(f(FloatKind::F64, 0.1), "1.000000e-01");
        assert_eq!(f(FloatKind::F64, 0.123456789), "1.23456789e-01");
        assert_eq!(f(FloatKind::F32, 0.1f32 as f64), "1.000000e-01");
        assert_eq!(f(FloatKind::F32, f64::NAN), "0x7FC00000");
        assert_eq!(f(FloatKind::F64, f64::INFINITY), "0x7FF0000000000000");
        assert_eq!(f(FloatKind::F16, f64::NEG_INFINITY), "0xFC00");
        assert_eq!(f(FloatKind::F64, 1e300), "1.000000e+300");
    }

    #[test]
    fn escapes_strings() {
        let mut s = String::new();
        write_escaped(&mut s, b"a\"b\\\n");
        assert_eq!(s, r#""a\22b\\\0A""#);
    }
}
