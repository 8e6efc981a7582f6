//! The MLIR text printer: custom forms where an op has one, the generic form otherwise (or
//! always, with [`PrintOptions::generic`]).
//!
//! Values are named as upstream MLIR 22 names them in the custom form: `%argN` for entry block
//! arguments, `%N` for other values; a region first numbers its own values, then each nested
//! region continues from the counters reached at the end of its parent region, so sibling
//! regions reuse numbers (isolated-from-above ops do not restart the count). Ops with several results print as `%0:2` and their results are used as
//! `%0#1`. Blocks are `^bbN` per region; the entry block label is omitted when it has no
//! arguments to show. Attributes print in sorted order, so output is deterministic.
//!
//! Custom op printers receive an [`OpAsmPrinter`]; see [`crate::asm`] for an example.

mod format;
#[cfg(test)]
mod stream_tests;
pub(crate) mod text;

use std::fmt::Write as _;

use std::cell::RefCell;

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use crate::asm::compiled_format;
use crate::context::ResourceValue;
use crate::registry::OpDef;
use crate::{Attr, Block, Context, NamedAttr, Op, Region, Type, Value};
use text::{Aliases, AttrOpts};

/// How to print.
#[derive(Clone, Debug, Default)]
pub struct PrintOptions {
    /// Print every op in the generic form (`--mlir-print-op-generic`).
    pub generic: bool,
    /// Print locations (`--mlir-print-debuginfo`).
    pub debug_info: bool,
    /// Print locations in upstream's pretty form, `file:1:2` rather than
    /// `loc("file":1:2)` (`--mlir-pretty-debuginfo`): those of ops and block arguments with
    /// [`PrintOptions::debug_info`], location attributes always.
    pub pretty_debug_info: bool,
    /// Elide dense elements attributes with more elements than this
    /// (`--mlir-elide-elementsattrs-if-larger=N`).
    pub elide_elements_larger_than: Option<usize>,
    /// Print every attribute in place, without `#map` aliases (`--mlir-print-local-scope`).
    pub local_scope: bool,
}

#[derive(Clone, Copy, PartialEq)]
enum NameKind {
    /// `%N`.
    Num,
    /// `%argN`.
    Arg,
    /// A name from a result-name hook; `id` indexes `OpAsmPrinter::hints`.
    Hint,
}

#[derive(Clone, Copy)]
struct ValueName {
    id: u32,
    /// Result number within a multi-result op, `u32::MAX` when the op has one result.
    sub: u32,
    kind: NameKind,
}

/// The counters a region starts from: MLIR continues them from the end of the parent region.
#[derive(Clone, Copy, Default)]
struct Counters {
    next: u32,
    next_arg: u32,
    conflict: u32,
}

/// The printer state exposed to custom op printers.
///
/// Everything is written to an internal buffer; the methods never fail. Print hooks return
/// `Ok(())` when done.
pub struct OpAsmPrinter<'a> {
    ctx: &'a Context,
    opts: &'a PrintOptions,
    out: String,
    names: FxHashMap<Value, ValueName>,
    block_ids: FxHashMap<Block, u32>,
    indent: usize,
    default_dialect: Vec<&'static str>,
    /// Names given by result-name hooks.
    hints: Vec<String>,
    /// Hint names visible in the region being numbered (MLIR's scoped `usedNames`).
    used: FxHashSet<String>,
    /// The predecessors of each block, one entry per branch to it.
    preds: FxHashMap<Block, SmallVec<[Block; 2]>>,
    aliases: Option<&'a RefCell<Aliases>>,
    /// Collecting aliases in MLIR's order: generic ops visit their regions first.
    collecting: bool,
    /// Where [`print_op_to`] streams the text: the buffer is drained into it between ops.
    sink: Option<Sink<'a>>,
}

/// The writer of a streaming print, and its first error (after which printing stops early).
struct Sink<'a> {
    w: &'a mut dyn std::io::Write,
    error: Option<std::io::Error>,
}

/// The buffer size at which a streaming print hands its text to the writer.
const DRAIN_AT: usize = 64 * 1024;

/// The largest text [`print_op_to`] keeps in memory to print a module in one pass; larger
/// modules are printed again, streaming.
const ONE_PASS_LIMIT: usize = 8 << 20;

/// Prints `op` (usually a module) and everything in it, ending with a newline. For a top-level
/// op (one without a parent) the resource section of the context follows, if it has entries.
pub fn print_op(ctx: &Context, op: Op, opts: &PrintOptions) -> String {
    let top = ctx.op_parent_block(op).is_none();
    if !top || opts.local_scope {
        return print_op_with(ctx, op, opts, None, false);
    }
    // Affine maps print as `#map` aliases, numbered in the order MLIR visits them. Most
    // modules have none: print once, and only when a map was seen, number them in MLIR's
    // order in a first pass and print again.
    let aliases = RefCell::new(Aliases::default());
    let first = print_op_with(ctx, op, opts, Some(&aliases), false);
    if aliases.borrow().is_empty() {
        return first;
    }
    let aliases = RefCell::new(Aliases::default());
    let _ = print_op_with(ctx, op, opts, Some(&aliases), true);
    let body = print_op_with(ctx, op, opts, Some(&aliases), false);
    let al = aliases.into_inner();
    let mut out = String::with_capacity(body.len() + 64 * (al.order.len() + al.sets.len()));
    for (kind, list) in [("map", &al.order), ("set", &al.sets)] {
        for (i, &a) in list.iter().enumerate() {
            text::write_alias(&mut out, kind, i as u32);
            out.push_str(" = ");
            text::write_attr(ctx, &mut out, a, None);
            out.push('\n');
        }
    }
    out.push_str(&body);
    out
}

fn print_op_with(
    ctx: &Context,
    op: Op,
    opts: &PrintOptions,
    aliases: Option<&RefCell<Aliases>>,
    collecting: bool,
) -> String {
    let mut p = OpAsmPrinter::new(ctx, opts, aliases);
    p.collecting = collecting;
    p.number_root(op);
    // The default dialect of the enclosing op's regions; `builtin` at the top level.
    let dd = match ctx.op_parent_op(op) {
        Some(parent) => p.regions_default_dialect(parent),
        None => "builtin",
    };
    p.default_dialect.push(dd);
    p.print_op_line(op);
    if ctx.op_parent_block(op).is_none() {
        p.print_resources();
    }
    p.out
}

/// Prints like [`print_op`], but writes the text to `w` as it is produced, so that printing a
/// huge module does not first build its whole text in memory; returns the first write error.
///
/// Output up to a few MiB is printed once and written at the end; a larger module is printed
/// again (a third time when it has `#map` aliases, which come first), streaming. The text is
/// handed to `w` in chunks between ops, so `w` should not need to be buffered.
pub fn print_op_to(
    ctx: &Context,
    op: Op,
    opts: &PrintOptions,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    print_op_to_with_limit(ctx, op, opts, w, ONE_PASS_LIMIT)
}

/// [`print_op_to`], printing in one pass only when the text fits in `one_pass_limit` bytes.
fn print_op_to_with_limit(
    ctx: &Context,
    op: Op,
    opts: &PrintOptions,
    w: &mut dyn std::io::Write,
    one_pass_limit: usize,
) -> std::io::Result<()> {
    let top = ctx.op_parent_block(op).is_none();
    if !top || opts.local_scope {
        return stream_op_with(ctx, op, opts, None, false, w);
    }
    let aliases = RefCell::new(Aliases::default());
    let mut first = CappedBuf {
        buf: Vec::new(),
        limit: one_pass_limit,
        overflowed: false,
    };
    stream_op_with(ctx, op, opts, Some(&aliases), false, &mut first)?;
    if aliases.borrow().is_empty() {
        if !first.overflowed {
            return w.write_all(&first.buf);
        }
        drop(first);
        let aliases = RefCell::new(Aliases::default());
        return stream_op_with(ctx, op, opts, Some(&aliases), false, w);
    }
    drop(first);
    let aliases = RefCell::new(Aliases::default());
    stream_op_with(ctx, op, opts, Some(&aliases), true, &mut std::io::sink())?;
    let mut header = String::new();
    {
        let al = aliases.borrow();
        for (kind, list) in [("map", &al.order), ("set", &al.sets)] {
            for (i, &a) in list.iter().enumerate() {
                text::write_alias(&mut header, kind, i as u32);
                header.push_str(" = ");
                text::write_attr(ctx, &mut header, a, None);
                header.push('\n');
            }
        }
    }
    w.write_all(header.as_bytes())?;
    stream_op_with(ctx, op, opts, Some(&aliases), false, w)
}

/// A writer that keeps everything written to it while it fits in `limit` bytes, and nothing
/// once it does not.
struct CappedBuf {
    buf: Vec<u8>,
    limit: usize,
    overflowed: bool,
}

impl std::io::Write for CappedBuf {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if !self.overflowed && self.buf.len() + b.len() <= self.limit {
            self.buf.extend_from_slice(b);
        } else if !self.overflowed {
            self.overflowed = true;
            self.buf = Vec::new();
        }
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// [`print_op_with`], draining the text into `w` between ops.
fn stream_op_with(
    ctx: &Context,
    op: Op,
    opts: &PrintOptions,
    aliases: Option<&RefCell<Aliases>>,
    collecting: bool,
    w: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let mut p = OpAsmPrinter::new(ctx, opts, aliases);
    p.sink = Some(Sink { w, error: None });
    p.collecting = collecting;
    p.number_root(op);
    // The default dialect of the enclosing op's regions, as in `print_op_with`.
    let dd = match ctx.op_parent_op(op) {
        Some(parent) => p.regions_default_dialect(parent),
        None => "builtin",
    };
    p.default_dialect.push(dd);
    p.print_op_line(op);
    if ctx.op_parent_block(op).is_none() {
        p.print_resources();
    }
    p.drain(0);
    match p.sink.take().and_then(|s| s.error) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// Prints a type in MLIR syntax.
pub fn type_to_string(ctx: &Context, ty: Type) -> String {
    let mut s = String::new();
    text::write_type(ctx, &mut s, ty, None);
    s
}

/// Prints the type with structure `data` (interned or not) in MLIR syntax.
pub fn type_data_to_string(ctx: &Context, data: &crate::TypeData) -> String {
    let mut s = String::new();
    text::write_type_data(ctx, &mut s, data, None);
    s
}

/// Prints an attribute in MLIR syntax.
pub fn attr_to_string(ctx: &Context, attr: Attr) -> String {
    let mut s = String::new();
    text::write_attr(ctx, &mut s, attr, None);
    s
}

/// Prints a location as `loc(...)`.
pub fn loc_to_string(ctx: &Context, loc: crate::Location) -> String {
    let mut s = String::new();
    text::write_loc(ctx, &mut s, loc, false);
    s
}

impl std::fmt::Write for OpAsmPrinter<'_> {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        self.out.push_str(s);
        Ok(())
    }
}

impl<'a> OpAsmPrinter<'a> {
    fn new(
        ctx: &'a Context,
        opts: &'a PrintOptions,
        aliases: Option<&'a RefCell<Aliases>>,
    ) -> Self {
        OpAsmPrinter {
            ctx,
            opts,
            out: String::with_capacity(4096),
            names: FxHashMap::default(),
            block_ids: FxHashMap::default(),
            indent: 0,
            default_dialect: Vec::new(),
            hints: Vec::new(),
            used: FxHashSet::default(),
            preds: FxHashMap::default(),
            aliases,
            collecting: false,
            sink: None,
        }
    }

    /// Hands the buffered text to the sink of a streaming print once it holds `at` bytes.
    fn drain(&mut self, at: usize) {
        let Some(sink) = &mut self.sink else {
            return;
        };
        if self.out.len() < at.max(1) {
            return;
        }
        if sink.error.is_none() {
            if let Err(e) = sink.w.write_all(self.out.as_bytes()) {
                sink.error = Some(e);
            }
        }
        self.out.clear();
    }

    /// Whether a streaming print has failed to write (and can stop).
    fn sink_failed(&self) -> bool {
        self.sink.as_ref().is_some_and(|s| s.error.is_some())
    }

    fn attr_opts(&self) -> Option<AttrOpts<'a>> {
        Some(AttrOpts {
            elide_larger_than: self.opts.elide_elements_larger_than,
            pretty_locs: self.opts.pretty_debug_info,
            aliases: self.aliases,
        })
    }

    // ----- naming -----

    fn number_root(&mut self, op: Op) {
        // As MLIR does, the root's regions start from the counters before the root's results.
        let start = Counters::default();
        let mut c = start;
        let mut scope = Vec::new();
        self.name_results(op, &mut c, &mut scope);
        if self.opts.generic {
            // MLIR prints unique SSA ids in the generic form: the counters never restart,
            // and regions are numbered from a stack, the last pushed first.
            let mut c = start;
            let mut stack: Vec<Region> = self.ctx.regions(op).to_vec();
            while let Some(r) = stack.pop() {
                self.number_region_blocks(r, &mut c, &mut scope);
                for &b in self.ctx.region_blocks(r) {
                    for o in self.ctx.block_ops_iter(b) {
                        stack.extend_from_slice(self.ctx.regions(o));
                    }
                }
            }
            return;
        }
        for &r in self.ctx.regions(op) {
            self.number_region(r, start);
        }
    }

    /// Names the results of `op`: from its result-name hook in the custom form, else the
    /// next number. Hint names defined here are pushed to `scope`.
    fn name_results(&mut self, op: Op, c: &mut Counters, scope: &mut Vec<String>) {
        let results = self.ctx.results(op);
        if results.is_empty() {
            return;
        }
        let multi = results.len() > 1;
        let hint = if self.opts.generic {
            None
        } else {
            self.ctx
                .asm_result_name_hook(op)
                .and_then(|h| h(self.ctx, op))
        };
        let (id, kind) = match hint {
            Some(h) if !h.is_empty() => {
                let name = self.unique_name(&h, c);
                self.used.insert(name.clone());
                scope.push(name.clone());
                self.hints.push(name);
                (self.hints.len() as u32 - 1, NameKind::Hint)
            }
            _ => {
                c.next += 1;
                (c.next - 1, NameKind::Num)
            }
        };
        for (i, &r) in results.iter().enumerate() {
            self.names.insert(
                r,
                ValueName {
                    id,
                    sub: if multi { i as u32 } else { u32::MAX },
                    kind,
                },
            );
        }
    }

    /// MLIR's `uniqueValueName`: the sanitized name, or `name_N` with the next free conflict
    /// number when it is taken in an enclosing scope.
    fn unique_name(&self, name: &str, c: &mut Counters) -> String {
        let name = sanitize_identifier(name);
        if !self.used.contains(&name) {
            return name;
        }
        loop {
            let probe = format!("{name}_{}", c.conflict);
            c.conflict += 1;
            if !self.used.contains(&probe) {
                return probe;
            }
        }
    }

    fn number_region(&mut self, region: Region, mut c: Counters) {
        let ctx = self.ctx;
        let mut scope: Vec<String> = Vec::new();
        self.number_region_blocks(region, &mut c, &mut scope);
        for &b in ctx.region_blocks(region) {
            for op in ctx.block_ops_iter(b) {
                for &r in ctx.regions(op) {
                    self.number_region(r, c);
                }
            }
        }
        for n in scope {
            self.used.remove(&n);
        }
    }

    /// Numbers the blocks, block arguments and op results of one region (not nested
    /// regions), and records block predecessors.
    fn number_region_blocks(&mut self, region: Region, c: &mut Counters, scope: &mut Vec<String>) {
        let ctx = self.ctx;
        let blocks = ctx.region_blocks(region);
        let many_blocks = blocks.len() > 1;
        for (bi, &b) in blocks.iter().enumerate() {
            self.block_ids.insert(b, bi as u32);
            for &a in ctx.block_args(b) {
                let name = if bi == 0 {
                    c.next_arg += 1;
                    ValueName {
                        id: c.next_arg - 1,
                        sub: u32::MAX,
                        kind: NameKind::Arg,
                    }
                } else {
                    c.next += 1;
                    ValueName {
                        id: c.next - 1,
                        sub: u32::MAX,
                        kind: NameKind::Num,
                    }
                };
                self.names.insert(a, name);
            }
            for op in ctx.block_ops_iter(b) {
                self.name_results(op, c, scope);
                if many_blocks {
                    for &s in ctx.successors(op) {
                        self.preds.entry(s).or_default().push(b);
                    }
                }
            }
        }
    }

    // ----- public API for hooks -----

    /// The context.
    pub fn ctx(&self) -> &'a Context {
        self.ctx
    }

    /// The print options.
    pub fn options(&self) -> &PrintOptions {
        self.opts
    }

    /// Writes raw text.
    pub fn write_str(&mut self, s: &str) {
        self.out.push_str(s);
    }

    /// Writes a bare keyword (`slt`, `to`).
    pub fn print_keyword(&mut self, kw: &str) {
        self.out.push_str(kw);
    }

    /// Writes a newline and the current indentation.
    pub fn print_newline(&mut self) {
        self.out.push('\n');
        self.write_indent();
    }

    fn write_indent(&mut self) {
        for _ in 0..self.indent {
            self.out.push(' ');
        }
    }

    /// Writes upstream's `custom<DynamicIndexList>`: `[a, %v, b]` from the static entries and
    /// the values standing, in order, for their [`crate::DYNAMIC`] ones (`<<missing>>` where
    /// the op has too few, which only unverified IR can).
    pub fn print_dynamic_index_list(&mut self, statics: &[i64], dynamics: &[Value]) {
        self.out.push('[');
        let mut next = dynamics.iter();
        for (i, &s) in statics.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            if s == crate::DYNAMIC {
                match next.next() {
                    Some(&v) => self.print_operand(v),
                    None => self.out.push_str("<<missing>>"),
                }
            } else {
                let _ = write!(self.out, "{s}");
            }
        }
        self.out.push(']');
    }

    /// Writes `%name` of a value (`%0`, `%arg1`, `%3#1`).
    pub fn print_operand(&mut self, v: Value) {
        match self.names.get(&v).copied() {
            Some(n) => {
                self.write_value_name(n);
                if n.sub != u32::MAX {
                    let _ = write!(self.out, "#{}", n.sub);
                }
            }
            None => self.out.push_str("<<UNKNOWN SSA VALUE>>"),
        }
    }

    fn write_value_name(&mut self, n: ValueName) {
        self.out.push('%');
        match n.kind {
            NameKind::Num => {
                let _ = write!(self.out, "{}", n.id);
            }
            NameKind::Arg => {
                let _ = write!(self.out, "arg{}", n.id);
            }
            NameKind::Hint => {
                let h = &self.hints[n.id as usize];
                self.out.push_str(h);
            }
        }
    }

    /// Writes values separated by `, `.
    pub fn print_operands(&mut self, vs: &[Value]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_operand(v);
        }
    }

    /// Writes a type.
    pub fn print_type(&mut self, ty: Type) {
        let o = self.attr_opts();
        text::write_type(self.ctx, &mut self.out, ty, o);
    }

    /// Writes types separated by `, `.
    pub fn print_types(&mut self, tys: &[Type]) {
        let o = self.attr_opts();
        text::write_type_list(self.ctx, &mut self.out, tys, o);
    }

    /// Writes the types of `vs` separated by `, `.
    pub fn print_value_types(&mut self, vs: &[Value]) {
        for (i, &v) in vs.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            let t = self.ctx.value_type(v);
            self.print_type(t);
        }
    }

    /// Writes `(inputs) -> results`.
    pub fn print_functional_type(&mut self, inputs: &[Type], results: &[Type]) {
        self.out.push('(');
        self.print_types(inputs);
        self.out.push_str(") -> ");
        let o = self.attr_opts();
        text::write_result_types(self.ctx, &mut self.out, results, o);
    }

    /// Writes ` -> t` or ` -> (t1, t2)`; nothing for an empty list.
    pub fn print_arrow_type_list(&mut self, results: &[Type]) {
        if results.is_empty() {
            return;
        }
        self.out.push_str(" -> ");
        let o = self.attr_opts();
        text::write_result_types(self.ctx, &mut self.out, results, o);
    }

    /// Writes an attribute (with its type where it has one).
    pub fn print_attribute(&mut self, a: Attr) {
        let o = self.attr_opts();
        text::write_attr(self.ctx, &mut self.out, a, o);
    }

    /// Writes an integer or float attribute without its `: type` suffix.
    pub fn print_attribute_without_type(&mut self, a: Attr) {
        match self.ctx.attr_data(a) {
            crate::AttrData::Integer { .. } | crate::AttrData::WideInteger { .. } => {
                let mut s = String::new();
                text::write_attr(self.ctx, &mut s, a, None);
                let v = s.split(" : ").next().unwrap_or("");
                self.out.push_str(v);
            }
            crate::AttrData::Float { bits, ty } => {
                let kind = match self.ctx.type_data(*ty) {
                    crate::TypeData::Float(k) => *k,
                    _ => crate::FloatKind::F64,
                };
                text::write_float(&mut self.out, kind, f64::from_bits(*bits));
            }
            crate::AttrData::String { value, .. } => text::write_escaped(&mut self.out, value),
            _ => self.print_attribute(a),
        }
    }

    /// Writes `@name` (quoted when needed).
    pub fn print_symbol_name(&mut self, name: &str) {
        text::write_symbol(&mut self.out, name);
    }

    /// Writes a string literal with MLIR escapes.
    pub fn print_string(&mut self, s: &str) {
        text::write_escaped(&mut self.out, s.as_bytes());
    }

    /// Writes ` {a = 1, b}` with the op's properties and attributes except those named in
    /// `elided` (and `operandSegmentSizes`); nothing when none are left.
    pub fn print_optional_attr_dict(&mut self, op: Op, elided: &[&str]) {
        self.print_attr_dict_impl(op, elided, false);
    }

    /// Like [`print_optional_attr_dict`](Self::print_optional_attr_dict), with the `attributes`
    /// keyword before the dictionary.
    pub fn print_optional_attr_dict_with_keyword(&mut self, op: Op, elided: &[&str]) {
        self.print_attr_dict_impl(op, elided, true);
    }

    fn print_attr_dict_impl(&mut self, op: Op, elided: &[&str], keyword: bool) {
        let ctx = self.ctx;
        let mut entries: Vec<NamedAttr> = ctx
            .props(op)
            .iter()
            .chain(ctx.attrs(op))
            .filter(|a| {
                let n = ctx.str(a.name);
                n != "operandSegmentSizes" && !elided.contains(&n)
            })
            .copied()
            .collect();
        if entries.is_empty() {
            return;
        }
        ctx.sort_named(&mut entries);
        self.out
            .push_str(if keyword { " attributes {" } else { " {" });
        let o = self.attr_opts();
        text::write_dict_entries(ctx, &mut self.out, entries.into_iter(), o);
        self.out.push('}');
    }

    /// Writes ` {a = 1}` for a list of named attributes, skipping `elided`.
    pub fn print_attr_dict_entries(&mut self, entries: &[NamedAttr], elided: &[&str]) {
        let ctx = self.ctx;
        let list: Vec<NamedAttr> = entries
            .iter()
            .filter(|a| !elided.contains(&ctx.str(a.name)))
            .copied()
            .collect();
        if list.is_empty() {
            return;
        }
        self.out.push_str(" {");
        let o = self.attr_opts();
        text::write_dict_entries(ctx, &mut self.out, list.into_iter(), o);
        self.out.push('}');
    }

    /// Writes `^bbN`.
    pub fn print_successor(&mut self, b: Block) {
        match self.block_ids.get(&b) {
            Some(id) => {
                let _ = write!(self.out, "^bb{id}");
            }
            None => self.out.push_str("<<UNKNOWN BLOCK>>"),
        }
    }

    /// Writes `^bbN` or `^bbN(%a, %b : i32, f32)`.
    pub fn print_successor_and_use_list(&mut self, b: Block, operands: &[Value]) {
        self.print_successor(b);
        if operands.is_empty() {
            return;
        }
        self.out.push('(');
        self.print_operands(operands);
        self.out.push_str(" : ");
        self.print_value_types(operands);
        self.out.push(')');
    }

    /// Writes a block argument declaration `%arg0: i32` (with `loc(...)` under debug info).
    pub fn print_block_arg_decl(&mut self, v: Value) {
        self.print_operand(v);
        self.out.push_str(": ");
        let t = self.ctx.value_type(v);
        self.print_type(t);
        if self.opts.debug_info {
            self.out.push(' ');
            let l = self.ctx.value_loc(v);
            text::write_loc(self.ctx, &mut self.out, l, self.opts.pretty_debug_info);
        }
    }

    /// Writes a region `{ ... }` at the current indentation. `print_entry_args`: show the
    /// entry block's label and arguments (when it has arguments); `print_empty_block`: show the
    /// label of an empty entry block.
    pub fn print_region(
        &mut self,
        region: Region,
        print_entry_args: bool,
        print_empty_block: bool,
    ) {
        self.print_region_with(region, print_entry_args, print_empty_block, true);
    }

    /// [`print_region`](Self::print_region) that, with `print_terminators` false, leaves out
    /// the entry block's terminator when it has no operands, as upstream's `printRegion` does
    /// for ops whose parser adds an implicit terminator back (`scf.for`, `scf.if`).
    pub fn print_region_with(
        &mut self,
        region: Region,
        print_entry_args: bool,
        print_empty_block: bool,
        print_terminators: bool,
    ) {
        let ctx = self.ctx;
        self.out.push_str("{\n");
        let parent = ctx.region_parent_op(region);
        let dd = parent.map_or("", |o| self.regions_default_dialect(o));
        self.default_dialect.push(dd);
        self.indent += 2;
        for (i, &b) in ctx.region_blocks(region).iter().enumerate() {
            let header = i > 0
                || (print_entry_args && !ctx.block_args(b).is_empty())
                || (print_empty_block && ctx.block_is_empty(b));
            if header {
                for _ in 0..self.indent.saturating_sub(2) {
                    self.out.push(' ');
                }
                self.print_successor(b);
                let args = ctx.block_args(b);
                if !args.is_empty() {
                    self.out.push('(');
                    for (j, &a) in args.iter().enumerate() {
                        if j > 0 {
                            self.out.push_str(", ");
                        }
                        self.print_block_arg_decl(a);
                    }
                    self.out.push(')');
                }
                self.out.push(':');
                self.write_preds_comment(b, i == 0);
                self.out.push('\n');
            }
            let elided = (i == 0 && !print_terminators)
                .then(|| ctx.block_last_op(b))
                .flatten()
                .filter(|&t| {
                    ctx.operands(t).is_empty()
                        && ctx
                            .op_def(t)
                            .is_some_and(|d| d.has_trait(crate::Trait::Terminator))
                });
            for op in ctx.block_ops_iter(b) {
                if Some(op) == elided {
                    continue;
                }
                self.print_op_line(op);
                self.drain(DRAIN_AT);
                if self.sink_failed() {
                    break;
                }
            }
        }
        self.indent -= 2;
        self.default_dialect.pop();
        self.write_indent();
        self.out.push('}');
    }

    /// MLIR's comment after a block label: `// pred: ^bb0`, `// 2 preds: ^bb0, ^bb2` or
    /// `// no predecessors` (not for an entry block).
    fn write_preds_comment(&mut self, b: Block, entry: bool) {
        let Some(preds) = self.preds.get(&b) else {
            if !entry {
                self.out.push_str("  // no predecessors");
            }
            return;
        };
        if preds.len() == 1 {
            self.out.push_str("  // pred: ");
            self.print_successor(preds[0]);
            return;
        }
        let mut sorted: SmallVec<[Block; 4]> = preds.iter().copied().collect();
        sorted.sort_by_key(|p| self.block_ids.get(p).copied().unwrap_or(u32::MAX));
        let _ = write!(self.out, "  // {} preds: ", sorted.len());
        for (i, &p) in sorted.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
            }
            self.print_successor(p);
        }
    }

    // ----- ops -----

    /// The default dialect of the regions of `op`: its [`OpAsmOpInterface`]'s when it prints
    /// in custom form, none in generic form (as upstream's printer).
    ///
    /// [`OpAsmOpInterface`]: crate::asm::OpAsmOpInterface
    fn regions_default_dialect(&self, op: Op) -> &'static str {
        if self.custom_form(op).is_none() {
            return "";
        }
        crate::asm::default_dialect_of(self.ctx, self.ctx.op_name(op))
    }

    fn custom_form(&self, op: Op) -> Option<&'static OpDef> {
        if self.opts.generic {
            return None;
        }
        let def = self.ctx.op_def(op)?;
        if def.print.is_some() {
            return Some(def);
        }
        let c = compiled_format(def)?;
        let elems = c.as_ref().as_ref().ok()?;
        format::applicable(self.ctx, def, elems, op).then_some(def)
    }

    fn print_op_line(&mut self, op: Op) {
        self.write_indent();
        let ctx = self.ctx;
        let results = ctx.results(op);
        if let Some(&r0) = results.first() {
            if let Some(n) = self.names.get(&r0).copied() {
                self.write_value_name(n);
            } else {
                self.out.push_str("%<<UNKNOWN>>");
            }
            if results.len() > 1 {
                let _ = write!(self.out, ":{}", results.len());
            }
            self.out.push_str(" = ");
        }
        match self.custom_form(op) {
            Some(def) => {
                let name = def.name;
                let dd = self.default_dialect.last().copied().unwrap_or("");
                let shown = match name.split_once('.') {
                    Some((d, rest)) if d == dd => rest,
                    _ => name,
                };
                self.out.push_str(shown);
                if let Some(hook) = def.print {
                    let _ = hook(self, op);
                } else if let Some(c) = compiled_format(def) {
                    if let Ok(elems) = c.as_ref() {
                        format::print(self, def, elems, op);
                    }
                }
            }
            None => self.print_generic(op),
        }
        if self.opts.debug_info {
            self.out.push(' ');
            text::write_loc(
                ctx,
                &mut self.out,
                ctx.op_loc(op),
                self.opts.pretty_debug_info,
            );
        }
        self.out.push('\n');
    }

    fn print_generic(&mut self, op: Op) {
        let ctx = self.ctx;
        text::write_escaped(&mut self.out, ctx.op_name_str(op).as_bytes());
        self.out.push('(');
        let n_succ_operands = 0;
        let operands = ctx.operands(op);
        self.print_operands(&operands[..operands.len() - n_succ_operands]);
        self.out.push(')');
        let succ = ctx.successors(op);
        if !succ.is_empty() {
            self.out.push('[');
            for (i, &b) in succ.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_successor(b);
            }
            self.out.push(']');
        }
        let regions = ctx.regions(op);
        if self.collecting {
            // MLIR's alias pass visits a generic op's regions, then its operand and result
            // types, then its attributes.
            for &r in regions {
                self.print_region(r, true, true);
            }
            self.print_value_types(operands);
            let rt: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
            self.print_types(&rt);
            let o = self.attr_opts();
            if ctx.op_def(op).is_some() {
                text::write_dict_entries(ctx, &mut self.out, ctx.props(op).iter().copied(), o);
            }
            text::write_dict_entries(ctx, &mut self.out, ctx.attrs(op).iter().copied(), o);
            return;
        }
        let props = ctx.props(op);
        if !props.is_empty() {
            self.out.push_str(" <{");
            let mut o = self.attr_opts();
            if ctx.op_def(op).is_none() {
                // Properties of unregistered ops print in place, as upstream prints them.
                o = o.map(|o| AttrOpts { aliases: None, ..o });
            }
            text::write_dict_entries(ctx, &mut self.out, props.iter().copied(), o);
            self.out.push_str("}>");
        }
        if !regions.is_empty() {
            self.out.push_str(" (");
            for (i, &r) in regions.iter().enumerate() {
                if i > 0 {
                    self.out.push_str(", ");
                }
                self.print_region(r, true, true);
            }
            self.out.push(')');
        }
        let attrs = ctx.attrs(op);
        if !attrs.is_empty() {
            self.out.push_str(" {");
            let o = self.attr_opts();
            text::write_dict_entries(ctx, &mut self.out, attrs.iter().copied(), o);
            self.out.push('}');
        }
        self.out.push_str(" : (");
        self.print_value_types(operands);
        self.out.push_str(") -> ");
        let rt: Vec<Type> = ctx.results(op).iter().map(|&r| ctx.value_type(r)).collect();
        let o = self.attr_opts();
        text::write_result_types(ctx, &mut self.out, &rt, o);
    }

    fn print_resources(&mut self) {
        let res = &self.ctx.resources;
        if res.dialect.is_empty() && res.external.is_empty() {
            return;
        }
        self.out.push_str("\n{-#\n");
        let mut first = true;
        for (section, map) in [
            ("dialect_resources", &res.dialect),
            ("external_resources", &res.external),
        ] {
            if map.is_empty() {
                continue;
            }
            if !first {
                self.out.push_str(",\n");
            }
            first = false;
            let _ = writeln!(self.out, "  {section}: {{");
            for (gi, (group, entries)) in map.iter().enumerate() {
                self.out.push_str("    ");
                text::write_attr_name(&mut self.out, group);
                self.out.push_str(": {\n");
                for (ei, (key, value)) in entries.iter().enumerate() {
                    self.out.push_str("      ");
                    text::write_attr_name(&mut self.out, key);
                    self.out.push_str(": ");
                    match value {
                        ResourceValue::Blob { alignment, data } => {
                            self.out.push_str("\"0x");
                            for b in alignment.to_le_bytes().iter().chain(data) {
                                let _ = write!(self.out, "{b:02X}");
                            }
                            self.out.push('"');
                        }
                        ResourceValue::String(s) => {
                            text::write_escaped(&mut self.out, s.as_bytes())
                        }
                        ResourceValue::Bool(b) => {
                            self.out.push_str(if *b { "true" } else { "false" })
                        }
                    }
                    self.out
                        .push_str(if ei + 1 < entries.len() { ",\n" } else { "\n" });
                }
                self.out.push_str(if gi + 1 < map.len() {
                    "    },\n"
                } else {
                    "    }\n"
                });
            }
            self.out.push_str("  }");
        }
        self.out.push_str("\n#-}\n");
    }
}

/// MLIR's `sanitizeIdentifier` for value names: characters other than letters, digits and
/// `$._-` become `_` (spaces) or their hex code; a leading digit gets a `_` prefix.
fn sanitize_identifier(name: &str) -> String {
    let valid = |c: u8| c.is_ascii_alphanumeric() || b"$._-".contains(&c);
    let b = name.as_bytes();
    let lead_digit = b.first().is_some_and(|c| c.is_ascii_digit());
    if !lead_digit && b.iter().all(|&c| valid(c)) {
        return name.to_string();
    }
    let mut out = String::with_capacity(name.len() + 1);
    if lead_digit {
        out.push('_');
    }
    for &c in b {
        if valid(c) {
            out.push(c as char);
        } else if c == b' ' {
            out.push('_');
        } else {
            let _ = write!(out, "{c:X}");
        }
    }
    out
}
