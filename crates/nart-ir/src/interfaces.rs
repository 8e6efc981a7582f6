//! Op interfaces (MLIR's `OpInterface`s): behaviour an op provides through methods, defined by
//! any crate as a Rust trait and looked up through the registry.
//!
//! # Defining and implementing an interface
//!
//! An interface is a trait with `Sync` as a supertrait whose methods take the context and the
//! op, implemented by a unit struct per op (or per op family):
//!
//! ```
//! use nart_ir::{interface_impl, Context, Op, OpDef};
//!
//! /// How many bytes an op moves (a made-up interface).
//! pub trait BytesMoved: Sync {
//!     fn bytes(&self, ctx: &Context, op: Op) -> u64;
//! }
//!
//! struct CopyBytes;
//! impl BytesMoved for CopyBytes {
//!     fn bytes(&self, ctx: &Context, op: Op) -> u64 {
//!         8 * ctx.operands(op).len() as u64
//!     }
//! }
//!
//! static COPY: OpDef = OpDef {
//!     name: "demo.copy",
//!     num_successors: None,
//!     interfaces: &[interface_impl!(BytesMoved => CopyBytes)],
//!     ..OpDef::DEFAULT
//! };
//! # let _ = &COPY;
//! ```
//!
//! An op declares the interfaces it implements in its [`OpDef`](crate::OpDef) (`interfaces`),
//! so the declaration stays the one place that says what an op is.
//! Another crate can attach an implementation to an op it does not own with
//! [`Context::attach_interface`] (MLIR's external models): this is how the reference
//! interpreter gives every graph op its kernel, and how a target says which ops it runs.
//!
//! # Looking one up
//!
//! `ctx.op_interface::<dyn CallOpInterface>(op)` returns the implementation or `None`.
//! Passes ask interfaces, never op names or attribute-name conventions.
//!
//! # The core interfaces
//!
//! [`ConstantOpInterface`], [`CallOpInterface`], [`CallableOpInterface`], [`BranchOpInterface`],
//! [`InferTypeOpInterface`], [`InferShapedTypeOpInterface`] and [`OpCostInterface`] are the ones
//! generic passes and the format engine use; dialects define others next to their ops.

use std::any::{Any, TypeId};
use std::ops::Range;

use crate::{Attr, Context, Ident, Op, Region, Type, TypeData};

/// One interface implementation declared by an op (see [`interface_impl!`](crate::interface_impl)).
#[derive(Clone, Copy)]
pub struct InterfaceImpl {
    /// The interface's name, for the docs.
    pub name: &'static str,
    /// The `TypeId` of `dyn Interface`.
    pub type_id: fn() -> TypeId,
    /// A `&'static &'static dyn Interface`, type-erased.
    pub imp: &'static (dyn Any + Sync),
}

impl std::fmt::Debug for InterfaceImpl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// Declares that an op implements an interface: `interface_impl!(CallOpInterface => CallImpl)`,
/// where `CallImpl` is a constant expression of a type implementing the trait.
#[macro_export]
macro_rules! interface_impl {
    ($iface:path => $imp:expr) => {
        $crate::interfaces::InterfaceImpl {
            name: stringify!($iface),
            type_id: || ::core::any::TypeId::of::<dyn $iface>(),
            imp: &(&$imp as &'static dyn $iface),
        }
    };
}

enum Stored {
    Declared(&'static (dyn Any + Sync)),
    Attached(Box<dyn Any + Send + Sync>),
}

impl Stored {
    fn as_any(&self) -> &dyn Any {
        match self {
            Stored::Declared(a) => *a,
            Stored::Attached(b) => b.as_ref(),
        }
    }
}

/// Interface implementations by op name and interface.
#[derive(Default)]
pub(crate) struct InterfaceMap {
    map: rustc_hash::FxHashMap<(Ident, TypeId), Stored>,
    /// Interface names by op, in declaration and attachment order, for the docs and `--list-ops`.
    names: rustc_hash::FxHashMap<Ident, Vec<&'static str>>,
}

impl std::fmt::Debug for InterfaceMap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InterfaceMap")
            .field("entries", &self.map.len())
            .finish()
    }
}

impl InterfaceMap {
    pub(crate) fn declare(&mut self, op: Ident, imp: &InterfaceImpl) {
        self.map
            .insert((op, (imp.type_id)()), Stored::Declared(imp.imp));
        let names = self.names.entry(op).or_default();
        if !names.contains(&imp.name) {
            names.push(imp.name);
        }
    }
}

impl Context {
    /// The implementation of interface `I` (spelled `dyn Trait`) for `op`, if its op kind has one.
    pub fn op_interface<I: ?Sized + 'static>(&self, op: Op) -> Option<&'static I> {
        self.op_interface_by_name::<I>(self.op_name(op))
    }

    /// The implementation of interface `I` for the ops named `name`.
    pub fn op_interface_by_name<I: ?Sized + 'static>(&self, name: Ident) -> Option<&'static I> {
        let stored = self
            .registry
            .interfaces
            .map
            .get(&(name, TypeId::of::<I>()))?;
        stored.as_any().downcast_ref::<&'static I>().copied()
    }

    /// Attaches an implementation of interface `I` to the ops named `op_name` (MLIR's external
    /// models): for code that adds behaviour to another crate's ops. A later attachment of the
    /// same interface replaces an earlier one.
    pub fn attach_interface<I: ?Sized + Sync + 'static>(&mut self, op_name: &str, imp: &'static I) {
        let id = self.ident(op_name);
        self.registry
            .interfaces
            .map
            .insert((id, TypeId::of::<I>()), Stored::Attached(Box::new(imp)));
        let name = short_type_name::<I>();
        let names = self.registry.interfaces.names.entry(id).or_default();
        if !names.contains(&name) {
            names.push(name);
        }
    }

    /// The names of the interfaces the ops named `name` implement.
    pub fn op_interface_names(&self, name: Ident) -> &[&'static str] {
        self.registry
            .interfaces
            .names
            .get(&name)
            .map_or(&[], |v| v.as_slice())
    }
}

/// `dyn path::to::Trait` → `Trait`.
fn short_type_name<I: ?Sized>() -> &'static str {
    let full = std::any::type_name::<I>();
    let full = full.strip_prefix("dyn ").unwrap_or(full);
    full.rsplit("::").next().unwrap_or(full)
}

// ----- the core interfaces -----

/// A constant (MLIR's `ConstantLike` ops, whose fold yields their value): every op with the
/// `ConstantLike` trait implements it, so generic code (the folder, rewrite rules) reads the
/// value without knowing where the op keeps it.
pub trait ConstantOpInterface: Sync {
    /// The constant the op produces.
    fn value(&self, ctx: &Context, op: Op) -> Option<Attr>;
}

/// The common implementation of [`ConstantOpInterface`]: the value is the `value` property.
pub struct ValueProperty;

impl ConstantOpInterface for ValueProperty {
    fn value(&self, ctx: &Context, op: Op) -> Option<Attr> {
        ctx.attr(op, "value")
    }
}

/// The constant `op` produces, if it is a constant (`ConstantLike` and a
/// [`ConstantOpInterface`]).
pub fn constant_value(ctx: &Context, op: Op) -> Option<Attr> {
    if !ctx.op_has_trait(op, crate::Trait::ConstantLike) {
        return None;
    }
    ctx.op_interface::<dyn ConstantOpInterface>(op)?
        .value(ctx, op)
}

/// The constant behind `v`, if a constant defines it.
pub fn constant_of(ctx: &Context, v: crate::Value) -> Option<Attr> {
    constant_value(ctx, ctx.defining_op(v)?)
}

/// What a call calls.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Callee {
    /// A symbol reference attribute (`@f`, `@m::@f`).
    Symbol(Attr),
    /// An SSA value (an indirect call).
    Value(crate::Value),
}

/// A call (MLIR's `CallOpInterface`).
pub trait CallOpInterface: Sync {
    /// What the op calls (`None` only for a malformed op).
    fn callee(&self, ctx: &Context, op: Op) -> Option<Callee>;
    /// The operands passed as the callee's arguments, as a range of operand indices.
    fn arg_operands(&self, ctx: &Context, op: Op) -> Range<usize>;
}

/// Something that can be called: a function (MLIR's `CallableOpInterface` with the parts of
/// `FunctionOpInterface` passes need).
pub trait CallableOpInterface: Sync {
    /// The body, or `None` for a declaration.
    fn callable_region(&self, ctx: &Context, op: Op) -> Option<Region>;
    /// The argument types.
    fn argument_types(&self, ctx: &Context, op: Op) -> Vec<Type>;
    /// The result types.
    fn result_types(&self, ctx: &Context, op: Op) -> Vec<Type>;
}

/// A terminator that branches to successor blocks, passing operands to their arguments
/// (MLIR's `BranchOpInterface`).
pub trait BranchOpInterface: Sync {
    /// The operands forwarded to the arguments of successor `index`, as a range of operand
    /// indices, or `None` when the op is malformed (the verifier says how).
    fn successor_operands(&self, ctx: &Context, op: Op, index: usize) -> Option<Range<usize>>;

    /// Replaces the operands forwarded to successor `index` by `values`, keeping the op's
    /// other operands and whatever records their grouping (MLIR's mutable
    /// `SuccessorOperands`), so that region simplification can erase and add block arguments.
    /// Returns `false`, changing nothing, when the op cannot do it (the default).
    fn set_successor_operands(
        &self,
        ctx: &mut Context,
        op: Op,
        index: usize,
        values: &[crate::Value],
    ) -> bool {
        let _ = (ctx, op, index, values);
        false
    }
}

/// For each successor of a branch op, the block and the operands passed to it; `None` when the
/// op is not a branch or is malformed.
pub fn successor_operand_groups(
    ctx: &Context,
    op: Op,
) -> Option<Vec<(crate::Block, Vec<crate::Value>)>> {
    let branch = ctx.op_interface::<dyn BranchOpInterface>(op)?;
    let operands = ctx.operands(op);
    ctx.successors(op)
        .iter()
        .enumerate()
        .map(|(i, &b)| {
            let r = branch.successor_operands(ctx, op, i)?;
            Some((b, operands.get(r)?.to_vec()))
        })
        .collect()
}

/// The verifier every branch gets (MLIR's `verifyBranchSuccessorOperands`): each successor
/// receives as many operands as it has arguments, of the same types.
pub(crate) fn verify_branch_op(ctx: &Context, op: Op) -> Result<(), crate::Diagnostic> {
    let Some(groups) = successor_operand_groups(ctx, op) else {
        return Err(ctx.op_error(op, "has malformed operand segments"));
    };
    for (i, (block, values)) in groups.iter().enumerate() {
        let args = ctx.block_args(*block);
        if args.len() != values.len() {
            // Upstream emits these two without the op prefix.
            return Err(crate::Diagnostic::error(
                ctx.op_loc(op),
                format!(
                    "branch has {} operands for successor #{i}, but target block has {}",
                    values.len(),
                    args.len()
                ),
            ));
        }
        for (j, (&v, &a)) in values.iter().zip(args).enumerate() {
            if ctx.value_type(v) != ctx.value_type(a) {
                return Err(crate::Diagnostic::error(
                    ctx.op_loc(op),
                    format!("type mismatch for bb argument #{j} of successor #{i}"),
                ));
            }
        }
    }
    Ok(())
}

/// Computes an op's result types from its operand types and properties before the op exists
/// (MLIR's `InferTypeOpInterface`): used by generated builders and by the declarative assembly
/// format when the text does not spell the result types.
/// It sees types, not values, so it cannot depend on constant operands (shape inference that
/// does is [`InferShapedTypeOpInterface`]).
pub trait InferTypeOpInterface: Sync {
    /// The result types, or a message saying why there are none.
    fn infer_return_types(
        &self,
        ctx: &mut crate::Uniquer,
        operand_types: &[Type],
        props: &[crate::NamedAttr],
    ) -> Result<Vec<Type>, String>;
}

/// The element type and shape of one shaped result (MLIR's `ShapedTypeComponents`).
#[derive(Clone, Debug, PartialEq)]
pub struct ShapedTypeComponents {
    /// Element type.
    pub elem: TypeData,
    /// Dimensions, [`DYNAMIC`](crate::DYNAMIC) where unknown; `None` when even the rank is
    /// unknown.
    pub shape: Option<Vec<i64>>,
}

impl ShapedTypeComponents {
    /// Interns the tensor type these components describe.
    pub fn tensor_type(&self, ctx: &mut crate::Uniquer) -> Type {
        let elem = ctx.intern_type(self.elem.clone());
        match &self.shape {
            Some(shape) => ctx.tensor_type(shape.clone(), elem),
            None => ctx.intern_type(TypeData::UnrankedTensor { elem }),
        }
    }
}

/// Infers the shapes and element types of an existing op's results from its operands'
/// types, its attributes and its constant operands (MLIR's `InferShapedTypeOpInterface`).
/// It needs only `&Context`, so verifiers can call it.
pub trait InferShapedTypeOpInterface: Sync {
    /// Per result what inference knows (`None` for a result it knows nothing about); `Ok(None)`
    /// when it knows nothing at all; `Err` with a message when the operands are inconsistent.
    fn infer_shaped_results(
        &self,
        ctx: &Context,
        op: Op,
    ) -> Result<Option<Vec<Option<ShapedTypeComponents>>>, String>;
}

/// What executing an op costs, estimated from its types.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct OpCost {
    /// Arithmetic operations (a multiply-add counts two).
    pub flops: f64,
    /// Bytes read and written.
    pub bytes: f64,
}

/// The default cost model every target can start from: FLOPs and bytes moved, from shapes.
/// A target that knows better attaches its own interface to the ops it runs.
pub trait OpCostInterface: Sync {
    /// The cost, or `None` when the shapes are not known well enough.
    fn cost(&self, ctx: &Context, op: Op) -> Option<OpCost>;
}
