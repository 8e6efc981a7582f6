//! Dialects and op definitions: each op is declared once, as a static [`OpDef`], and everything
//! else (verification of its structure, generic docs, `--list-ops`, custom syntax) reads that one
//! declaration.
//!
//! A dialect crate declares `pub static FOO: OpDef = OpDef { name: "d.foo", ..OpDef::DEFAULT }`
//! for each op and registers them with [`Context::register_dialect`] from its `register` function.

use rustc_hash::FxHashMap;

use crate::diag::Diagnostic;
use crate::{Attr, Context, Ident, Location, Op, Type};

pub use crate::traits::Trait;

pub use nart_asm_format::Arity;

/// A predicate over types, with the text used in error messages
/// ("must be signless-integer-like, but got 'f32'").
#[derive(Clone, Copy)]
pub struct TypeConstraint {
    /// Description, e.g. `signless-integer-like`.
    pub desc: &'static str,
    /// The predicate.
    pub check: fn(&Context, Type) -> bool,
    /// For a constraint that admits exactly one type (MLIR's `BuildableType`, such as `I1`),
    /// how to build it: the assembly format then need not spell it.
    pub buildable: Option<fn(&mut crate::Uniquer) -> Type>,
}

impl TypeConstraint {
    /// A constraint from a description and a predicate.
    pub const fn new(desc: &'static str, check: fn(&Context, Type) -> bool) -> TypeConstraint {
        TypeConstraint {
            desc,
            check,
            buildable: None,
        }
    }
}

impl std::fmt::Debug for TypeConstraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.desc)
    }
}

/// A predicate over attributes, with the text used in error messages, and what kind of
/// attribute it accepts (which the declarative assembly format uses to spell it).
#[derive(Clone, Copy)]
pub struct AttrConstraint {
    /// Description, e.g. `64-bit signless integer attribute`.
    pub desc: &'static str,
    /// The predicate.
    pub check: fn(&Context, Attr) -> bool,
    /// The kind of attribute, when the constraint names one.
    pub kind: AttrKind,
}

/// The kind of attribute a constraint accepts, beyond its predicate.
#[derive(Clone, Copy, Debug)]
pub enum AttrKind {
    /// Nothing more is known: the format prints the attribute in full.
    Any,
    /// An integer attribute of `width` bits holding a case of an enum (MLIR's `I64EnumAttr`):
    /// the format prints the case's keyword.
    IntEnum {
        /// The enum.
        def: &'static crate::enums::EnumDef,
        /// The integer width (signless).
        width: u32,
    },
    /// A dialect attribute of one kind: the format prints it without `#dialect.mnemonic`.
    Dialect(&'static crate::extensible::DialectAttrDef),
    /// `unit`: in a format, present or absent, never written.
    Unit,
    /// An attribute that carries a type (MLIR's `TypedAttr`: integers, floats, dense
    /// elements): a format reading one rejects other kinds.
    Typed,
    /// A float attribute of one float type (MLIR's `F32Attr`, `F64Attr`): a format writes
    /// the number without its type.
    Float(crate::FloatKind),
    /// A dense integer array of one width (MLIR's `DenseI32ArrayAttr`): a format writes the
    /// elements only, `[1, 2]`.
    DenseIntArray(u32),
}

impl AttrConstraint {
    /// A constraint from a description and a predicate.
    pub const fn new(desc: &'static str, check: fn(&Context, Attr) -> bool) -> AttrConstraint {
        AttrConstraint {
            desc,
            check,
            kind: AttrKind::Any,
        }
    }

    /// An enum stored as a signless integer of `width` bits (MLIR's `I32EnumAttr`,
    /// `I64EnumAttr`), e.g. `arith.cmpi`'s predicate.
    pub const fn int_enum(
        desc: &'static str,
        def: &'static crate::enums::EnumDef,
        width: u32,
    ) -> AttrConstraint {
        AttrConstraint {
            desc,
            check: |_, _| true,
            kind: AttrKind::IntEnum { def, width },
        }
    }

    /// A dialect attribute of kind `def` (`#arith.overflow<...>`).
    pub const fn dialect(
        desc: &'static str,
        def: &'static crate::extensible::DialectAttrDef,
    ) -> AttrConstraint {
        AttrConstraint {
            desc,
            check: |_, _| true,
            kind: AttrKind::Dialect(def),
        }
    }

    /// Whether `attr` satisfies the constraint: its predicate and its kind.
    pub fn satisfied(&self, ctx: &Context, attr: Attr) -> bool {
        let kind_ok = match self.kind {
            AttrKind::Any => true,
            AttrKind::Unit => matches!(ctx.attr_data(attr), crate::AttrData::Unit),
            // A string is typed in MLIR even without a `: type` (its type is then `none`).
            AttrKind::Typed => {
                ctx.typed_attr_type(attr).is_some()
                    || matches!(ctx.attr_data(attr), crate::AttrData::String { .. })
            }
            AttrKind::DenseIntArray(w) => matches!(ctx.attr_data(attr),
                crate::AttrData::DenseArray { elem, data: crate::DenseArrayData::Int(_) }
                    if *ctx.type_data(*elem) == crate::TypeData::int(w)),
            AttrKind::Float(kind) => matches!(ctx.attr_data(attr),
                crate::AttrData::Float { ty, .. } if *ctx.type_data(*ty) == crate::TypeData::Float(kind)),
            AttrKind::IntEnum { def, width } => match ctx.attr_data(attr) {
                crate::AttrData::Integer { value, ty } => {
                    matches!(
                        ctx.type_data(*ty),
                        crate::TypeData::Integer { width: w, signedness: crate::Signedness::Signless }
                            if *w == width
                    ) && u64::try_from(*value).is_ok_and(|v| def.is_valid(v))
                }
                _ => false,
            },
            AttrKind::Dialect(def) => {
                ctx.enum_value(attr, def).is_some()
                    || matches!(ctx.attr_data(attr), crate::AttrData::Dialect(b)
                    if b.get().def().dialect == def.dialect && b.get().def().mnemonic == def.mnemonic)
            }
        };
        kind_ok && (self.check)(ctx, attr)
    }
}

impl std::fmt::Debug for AttrConstraint {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.desc)
    }
}

/// An operand or result of an op definition.
#[derive(Clone, Copy, Debug)]
pub struct ValueDef {
    /// Name (used by accessors, docs and the assembly format: `$lhs`).
    pub name: &'static str,
    /// Type constraint.
    pub constraint: TypeConstraint,
    /// How many values.
    pub arity: Arity,
}

/// An attribute of an op definition (an inherent attribute, stored as a property).
#[derive(Clone, Copy, Debug)]
pub struct AttrDef {
    /// Name.
    pub name: &'static str,
    /// Constraint.
    pub constraint: AttrConstraint,
    /// Whether it may be absent.
    pub optional: bool,
    /// Description for the docs.
    pub doc: &'static str,
    /// The value the op carries when the creator does not set it (MLIR's default-valued
    /// properties): [`Context::create_op`] adds it, so ops built by the parser, by builders and
    /// by patterns look alike and print like upstream's.
    pub default: Option<fn(&mut crate::Uniquer) -> Attr>,
}

impl AttrDef {
    /// A required attribute.
    pub const fn required(
        name: &'static str,
        constraint: AttrConstraint,
        doc: &'static str,
    ) -> AttrDef {
        AttrDef {
            name,
            constraint,
            optional: false,
            doc,
            default: None,
        }
    }

    /// An optional attribute without a default.
    pub const fn optional(
        name: &'static str,
        constraint: AttrConstraint,
        doc: &'static str,
    ) -> AttrDef {
        AttrDef {
            name,
            constraint,
            optional: true,
            doc,
            default: None,
        }
    }
}

/// A region of an op definition.
#[derive(Clone, Copy, Debug)]
pub struct RegionDef {
    /// Name.
    pub name: &'static str,
    /// Whether the region must have at most one block.
    pub single_block: bool,
    /// Whether the region may be empty (no blocks).
    pub may_be_empty: bool,
}

/// A value produced by folding: an attribute (a constant) or an existing value.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FoldResult {
    /// A constant; the driver materializes it through the dialect.
    Attr(Attr),
    /// An existing value.
    Value(crate::Value),
}

/// What a folder did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FoldOutcome {
    /// Nothing.
    None,
    /// The op was updated in place.
    InPlace,
    /// The op can be replaced by these values, one per result.
    Replace(Vec<FoldResult>),
}

/// A folder: receives the op and, per operand, its constant value if known.
pub type FoldFn = fn(&mut Context, Op, &[Option<Attr>]) -> FoldOutcome;

/// A custom verifier.
pub type VerifyFn = fn(&Context, Op) -> Result<(), Diagnostic>;

/// Builds a constant op (detached) for `value` of type `ty` in a dialect.
pub type MaterializeFn = fn(&mut Context, Attr, Type, Location) -> Option<Op>;

/// The one declaration of an op.
#[derive(Clone, Copy)]
pub struct OpDef {
    /// Full name, `dialect.mnemonic`.
    pub name: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Description in Markdown, with an IR example.
    pub description: &'static str,
    /// Operands.
    pub operands: &'static [ValueDef],
    /// Results.
    pub results: &'static [ValueDef],
    /// Inherent attributes.
    pub attrs: &'static [AttrDef],
    /// Regions.
    pub regions: &'static [RegionDef],
    /// Number of successors; `None` means any number.
    pub num_successors: Option<usize>,
    /// Traits.
    pub traits: &'static [Trait],
    /// The op must sit directly inside one of these ops.
    pub parents: &'static [&'static str],
    /// Extra verification after the structural checks.
    pub verify: Option<VerifyFn>,
    /// Folder.
    pub fold: Option<FoldFn>,
    /// Canonicalization patterns.
    pub canonicalize: &'static [&'static dyn crate::rewrite::RewritePattern],
    /// Declarative custom syntax (MLIR's assembly format), e.g. `$lhs `,` $rhs attr-dict `:` type($result)`.
    pub assembly_format: Option<&'static str>,
    /// Hand-written custom parser (used instead of `assembly_format` when set).
    pub parse: Option<crate::asm::CustomParseFn>,
    /// Hand-written custom printer.
    pub print: Option<crate::asm::CustomPrintFn>,
    /// The interfaces the op implements (see [`crate::interfaces`]).
    pub interfaces: &'static [crate::interfaces::InterfaceImpl],
}

impl std::fmt::Debug for OpDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpDef").field("name", &self.name).finish()
    }
}

impl OpDef {
    /// A definition with nothing declared; use as `..OpDef::DEFAULT`.
    pub const DEFAULT: OpDef = OpDef {
        name: "",
        summary: "",
        description: "",
        operands: &[],
        results: &[],
        attrs: &[],
        regions: &[],
        num_successors: Some(0),
        traits: &[],
        parents: &[],
        verify: None,
        fold: None,
        canonicalize: &[],
        assembly_format: None,
        parse: None,
        print: None,
        interfaces: &[],
    };

    /// Whether the op declares `t`.
    pub fn has_trait(&self, t: Trait) -> bool {
        self.traits.contains(&t)
    }

    /// The mnemonic (name without the dialect prefix).
    pub fn mnemonic(&self) -> &'static str {
        self.name.split_once('.').map_or(self.name, |(_, m)| m)
    }

    /// Whether `name` is an inherent attribute of this op.
    pub fn is_inherent(&self, name: &str) -> bool {
        self.attrs.iter().any(|a| a.name == name) || name == "operandSegmentSizes"
    }
}

/// A typed handle to an op of one kind, generated by `#[nart_macros::op]`
/// (`AddIOp`), for `ctx.dyn_cast::<AddIOp>(op)`.
pub trait TypedOp: Copy {
    /// The op's name.
    const NAME: &'static str;
    /// The op's declaration.
    fn def() -> &'static OpDef;
    /// Wraps `op` without checking its name.
    fn from_op_unchecked(op: Op) -> Self;
    /// The op handle.
    fn op(self) -> Op;
}

impl Context {
    /// `op` as a `T` if it is one (MLIR's `dyn_cast`).
    pub fn dyn_cast<T: TypedOp>(&self, op: Op) -> Option<T> {
        (self.op_name_str(op) == T::NAME).then(|| T::from_op_unchecked(op))
    }

    /// Whether `op` is a `T` (MLIR's `isa`).
    pub fn isa<T: TypedOp>(&self, op: Op) -> bool {
        self.op_name_str(op) == T::NAME
    }
}

/// The operand (or, with `results`, result) positions of each group an op's definition
/// declares: variadic and optional groups are sized by `operandSegmentSizes` when the op has
/// `AttrSizedOperandSegments`, otherwise by the values left over by the single ones. `None`
/// when the op is not registered or its values do not fit the declaration.
pub fn value_groups(ctx: &Context, op: Op, results: bool) -> Option<Vec<std::ops::Range<usize>>> {
    let def = ctx.op_def(op)?;
    let (defs, n) = if results {
        (def.results, ctx.results(op).len())
    } else {
        (def.operands, ctx.operands(op).len())
    };
    if !results && def.has_trait(Trait::AttrSizedOperandSegments) {
        let a = ctx.attr(op, "operandSegmentSizes")?;
        let crate::AttrData::DenseArray {
            data: crate::DenseArrayData::Int(sizes),
            ..
        } = ctx.attr_data(a)
        else {
            return None;
        };
        if sizes.len() != defs.len()
            || sizes.iter().any(|&s| s < 0)
            || sizes.iter().sum::<i64>() as usize != n
        {
            return None;
        }
        let mut out = Vec::new();
        let mut at = 0;
        for &s in sizes {
            out.push(at..at + s as usize);
            at += s as usize;
        }
        return Some(out);
    }
    let fixed = defs.iter().filter(|d| d.arity == Arity::Single).count();
    let var = defs.len() - fixed;
    if (var == 0 && n != fixed) || n < fixed || var > 1 {
        return None;
    }
    let extra = n - fixed;
    let mut out = Vec::new();
    let mut at = 0;
    for d in defs {
        let len = match d.arity {
            Arity::Single => 1,
            Arity::Optional if extra > 1 => return None,
            _ => extra,
        };
        out.push(at..at + len);
        at += len;
    }
    Some(out)
}

/// The positions of group `index` (see [`value_groups`]).
pub fn value_group(
    ctx: &Context,
    op: Op,
    results: bool,
    index: usize,
) -> Option<std::ops::Range<usize>> {
    value_groups(ctx, op, results)?.into_iter().nth(index)
}

/// The declaration of a dialect.
#[derive(Clone)]
pub struct DialectDef {
    /// Namespace, e.g. `arith`.
    pub name: &'static str,
    /// One-line summary.
    pub summary: &'static str,
    /// Description in Markdown.
    pub description: &'static str,
    /// Its ops.
    pub ops: &'static [&'static OpDef],
    /// Builds constants for folding.
    pub materialize_constant: Option<MaterializeFn>,
    /// Its types.
    pub types: &'static [&'static crate::extensible::DialectTypeDef],
    /// Its attributes.
    pub attrs: &'static [&'static crate::extensible::DialectAttrDef],
    /// Its enums (for the docs; enum attributes are also listed in `attrs`).
    pub enums: &'static [&'static crate::enums::EnumDef],
}

impl DialectDef {
    /// A dialect with nothing declared but its name; use as `..DialectDef::new("d")`.
    pub const fn new(name: &'static str) -> DialectDef {
        DialectDef {
            name,
            summary: "",
            description: "",
            ops: &[],
            materialize_constant: None,
            types: &[],
            attrs: &[],
            enums: &[],
        }
    }

    /// The type of mnemonic `m`.
    pub fn type_def(&self, m: &str) -> Option<&'static crate::extensible::DialectTypeDef> {
        self.types.iter().copied().find(|t| t.mnemonic == m)
    }

    /// The attribute of mnemonic `m`.
    pub fn attr_def(&self, m: &str) -> Option<&'static crate::extensible::DialectAttrDef> {
        self.attrs.iter().copied().find(|a| a.mnemonic == m)
    }
}

impl std::fmt::Debug for DialectDef {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DialectDef")
            .field("name", &self.name)
            .finish()
    }
}

/// All registered dialects and ops.
#[derive(Default, Debug)]
pub struct Registry {
    dialects: indexmap::IndexMap<&'static str, DialectDef>,
    ops: FxHashMap<Ident, &'static OpDef>,
    /// Interface implementations by op.
    pub(crate) interfaces: crate::interfaces::InterfaceMap,
    /// The default value of each default-valued property, interned once at registration:
    /// `(op, property) → value`.
    pub(crate) defaults: FxHashMap<(Ident, Ident), Attr>,
    /// Result-name hooks for the printer, by op name (see [`AsmResultNameFn`]).
    pub(crate) asm_result_names: FxHashMap<Ident, AsmResultNameFn>,
}

/// Names the results of an op for the printer, as MLIR's `OpAsmOpInterface::getAsmResultNames`
/// does: `Some("c42_i32")` prints the results as `%c42_i32` (made unique with `_0`, `_1`, ...);
/// `None` keeps the number. Used in the custom form only.
pub type AsmResultNameFn = fn(&Context, crate::Op) -> Option<String>;

impl Registry {
    /// Registered dialects, in registration order.
    pub fn dialects(&self) -> impl Iterator<Item = &DialectDef> {
        self.dialects.values()
    }

    /// A dialect by name.
    pub fn dialect(&self, name: &str) -> Option<&DialectDef> {
        self.dialects.get(name)
    }

    /// Whether a dialect of this name is registered.
    pub fn has_dialect(&self, name: &str) -> bool {
        self.dialects.contains_key(name)
    }
}

impl Context {
    /// Registers a dialect and its ops. Registering the same dialect twice is harmless.
    pub fn register_dialect(&mut self, def: DialectDef) {
        for &op in def.ops {
            let id = self.ident(op.name);
            self.registry.ops.insert(id, op);
            for imp in op.interfaces {
                self.registry.interfaces.declare(id, imp);
            }
            for a in op.attrs {
                if let Some(default) = a.default {
                    let name = self.ident(a.name);
                    let value = default(self);
                    self.registry.defaults.insert((id, name), value);
                }
            }
        }
        self.registry.dialects.insert(def.name, def);
    }

    /// Registers the result-name hook of the ops named `op_name` (see [`AsmResultNameFn`]).
    pub fn register_asm_result_name(&mut self, op_name: &str, hook: AsmResultNameFn) {
        let id = self.ident(op_name);
        self.registry.asm_result_names.insert(id, hook);
    }

    /// The result-name hook registered for `op`'s name, if any.
    pub fn asm_result_name_hook(&self, op: crate::Op) -> Option<AsmResultNameFn> {
        if self.registry.asm_result_names.is_empty() {
            return None;
        }
        self.registry
            .asm_result_names
            .get(&self.op_name(op))
            .copied()
    }

    /// The default value of property `prop` of the ops named `op`, if it declares one.
    pub fn default_prop(&self, op: Ident, prop: Ident) -> Option<Attr> {
        self.registry.defaults.get(&(op, prop)).copied()
    }

    /// The definition of a registered op name.
    pub fn op_def_by_name(&self, name: Ident) -> Option<&'static OpDef> {
        self.registry.ops.get(&name).copied()
    }

    /// The definition of `op`, if its name is registered.
    pub fn op_def(&self, op: Op) -> Option<&'static OpDef> {
        self.op_def_by_name(self.op_name(op))
    }

    /// Whether `op` is registered and declares `t`.
    pub fn op_has_trait(&self, op: Op, t: Trait) -> bool {
        self.op_def(op).is_some_and(|d| d.has_trait(t))
    }

    /// The dialect `op` belongs to, if registered.
    pub fn op_dialect(&self, op: Op) -> Option<&DialectDef> {
        let name = self.op_name_str(op);
        let ns = name.split_once('.').map_or(name, |(d, _)| d);
        self.registry.dialects.get(ns)
    }
}

/// Common type and attribute constraints.
pub mod constraints {
    use super::{AttrConstraint, TypeConstraint};
    use crate::types::{Signedness, TypeData};
    use crate::{AttrData, Context, Type};

    fn elem(ctx: &Context, ty: Type) -> Type {
        match ctx.type_data(ty) {
            TypeData::RankedTensor { elem, .. }
            | TypeData::UnrankedTensor { elem }
            | TypeData::Vector { elem, .. } => *elem,
            _ => ty,
        }
    }

    /// Whether `ty` is a signless integer.
    pub fn is_signless_int(ctx: &Context, ty: Type) -> bool {
        matches!(
            ctx.type_data(ty),
            TypeData::Integer {
                signedness: Signedness::Signless,
                ..
            }
        )
    }

    /// Whether `ty` is a float.
    pub fn is_float(ctx: &Context, ty: Type) -> bool {
        matches!(ctx.type_data(ty), TypeData::Float(_))
    }

    /// Whether `ty` is `index`.
    pub fn is_index(ctx: &Context, ty: Type) -> bool {
        matches!(ctx.type_data(ty), TypeData::Index)
    }

    /// Any type.
    pub const ANY: TypeConstraint = TypeConstraint {
        buildable: None,
        desc: "any type",
        check: |_, _| true,
    };
    /// `iN`, `index`, or a tensor/vector of them.
    pub const SIGNLESS_INTEGER_LIKE: TypeConstraint = TypeConstraint {
        buildable: None,
        desc: "signless-integer-like",
        check: |ctx, ty| {
            let e = elem(ctx, ty);
            is_signless_int(ctx, e) || is_index(ctx, e)
        },
    };
    /// A float, or a tensor/vector of floats.
    pub const FLOAT_LIKE: TypeConstraint = TypeConstraint {
        buildable: None,
        desc: "floating-point-like",
        check: |ctx, ty| is_float(ctx, elem(ctx, ty)),
    };
    /// `i1`, or a tensor/vector of `i1`.
    pub const BOOL_LIKE: TypeConstraint = TypeConstraint {
        buildable: None,
        desc: "bool-like",
        check: |ctx, ty| {
            matches!(
                ctx.type_data(elem(ctx, ty)),
                TypeData::Integer {
                    width: 1,
                    signedness: Signedness::Signless
                }
            )
        },
    };
    /// `i1` (buildable: a format need not write it).
    pub const I1: TypeConstraint = TypeConstraint {
        desc: "1-bit signless integer",
        check: |ctx, ty| *ctx.type_data(ty) == TypeData::int(1),
        buildable: Some(|u| u.i1_type()),
    };
    /// `index` (buildable, so formats need not write it).
    pub const INDEX: TypeConstraint = TypeConstraint {
        buildable: Some(|u| u.index_type()),
        desc: "index",
        check: is_index,
    };
    /// A ranked memref.
    pub const MEMREF: TypeConstraint = TypeConstraint {
        buildable: None,
        desc: "memref of any type values",
        check: |ctx, ty| matches!(ctx.type_data(ty), TypeData::MemRef { .. }),
    };
    /// A ranked or unranked memref.
    pub const ANY_MEMREF: TypeConstraint = TypeConstraint {
        buildable: None,
        desc: "ranked or unranked memref of any type values",
        check: |ctx, ty| {
            matches!(
                ctx.type_data(ty),
                TypeData::MemRef { .. } | TypeData::UnrankedMemRef { .. }
            )
        },
    };
    /// A ranked or unranked tensor.
    pub const ANY_TENSOR: TypeConstraint = TypeConstraint {
        buildable: None,
        desc: "tensor of any type values",
        check: |ctx, ty| {
            matches!(
                ctx.type_data(ty),
                TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. }
            )
        },
    };

    /// Any attribute.
    pub const ANY_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "any attribute",
        check: |_, _| true,
    };
    /// A string attribute.
    pub const STRING_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "string attribute",
        check: |ctx, a| matches!(ctx.attr_data(a), AttrData::String { .. }),
    };
    /// A symbol name (string attribute).
    pub const SYMBOL_NAME_ATTR: AttrConstraint = STRING_ATTR;
    /// `@sym`.
    pub const FLAT_SYMBOL_REF_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "flat symbol reference attribute",
        check: |ctx, a| ctx.attr_flat_symbol(a).is_some(),
    };
    /// A symbol reference, possibly nested.
    pub const SYMBOL_REF_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "symbol reference attribute",
        check: |ctx, a| matches!(ctx.attr_data(a), AttrData::SymbolRef { .. }),
    };
    /// A type attribute holding a function type.
    pub const FUNCTION_TYPE_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "type attribute of function type",
        check: |ctx, a| {
            ctx.attr_type(a)
                .is_some_and(|t| matches!(ctx.type_data(t), TypeData::Function { .. }))
        },
    };
    /// An `f64` float attribute (MLIR's `F64Attr`).
    pub const F64_ATTR: AttrConstraint = AttrConstraint {
        desc: "64-bit float attribute",
        check: |_, _| true,
        kind: crate::registry::AttrKind::Float(crate::FloatKind::F64),
    };
    /// An `f32` float attribute (MLIR's `F32Attr`).
    pub const F32_ATTR: AttrConstraint = AttrConstraint {
        desc: "32-bit float attribute",
        check: |_, _| true,
        kind: crate::registry::AttrKind::Float(crate::FloatKind::F32),
    };
    /// A type attribute.
    pub const TYPE_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "any type attribute",
        check: |ctx, a| matches!(ctx.attr_data(a), AttrData::Type(_)),
    };
    /// An array attribute.
    pub const ARRAY_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "array attribute",
        check: |ctx, a| matches!(ctx.attr_data(a), AttrData::Array(_)),
    };
    /// An array of dictionary attributes.
    pub const DICT_ARRAY_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "Array of dictionary attributes",
        check: |ctx, a| match ctx.attr_data(a) {
            AttrData::Array(items) => items
                .iter()
                .all(|&i| matches!(ctx.attr_data(i), AttrData::Dictionary(_))),
            _ => false,
        },
    };
    /// An integer attribute of any integer type.
    pub const INTEGER_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Any,
        desc: "integer attribute",
        check: |ctx, a| matches!(ctx.attr_data(a), AttrData::Integer { .. }),
    };
    /// An attribute that carries a type (integer, float, dense elements, ...).
    pub const TYPED_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Typed,
        desc: "TypedAttr instance",
        check: |ctx, a| {
            ctx.typed_attr_type(a).is_some() || matches!(ctx.attr_data(a), AttrData::String { .. })
        },
    };
    /// `unit`.
    pub const UNIT_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::Unit,
        desc: "unit attribute",
        check: |ctx, a| matches!(ctx.attr_data(a), AttrData::Unit),
    };
    /// A dense `i32` array (MLIR's `DenseI32ArrayAttr`).
    pub const DENSE_I32_ARRAY_ATTR: AttrConstraint = AttrConstraint {
        kind: crate::registry::AttrKind::DenseIntArray(32),
        desc: "i32 dense array attribute",
        check: |_, _| true,
    };
}
