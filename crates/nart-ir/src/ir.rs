//! Operations, blocks, regions and values, and every way to read and change them.
//!
//! Structure (as in MLIR): an operation has operands, results, successors, inherent attributes
//! ("properties", printed `<{...}>`), discardable attributes (printed `{...}`), regions and a
//! location. A region holds an ordered list of blocks; a block holds arguments and a doubly linked
//! list of operations. Every value is either an operation result or a block argument and keeps a
//! list of its uses.
//!
//! Architecture invariant: the use-lists are always exact; every mutation here keeps them so.
//! Erased objects stay in the arenas as tombstones, so a stale handle never aliases a new object.

use smallvec::SmallVec;

use crate::attrs::{Location, NamedAttr};
use crate::{Attr, Context, Ident, Type, Uniquer};

/// Handle to an operation.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Op(pub(crate) u32);

/// Handle to a block.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Block(pub(crate) u32);

/// Handle to a region.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Region(pub(crate) u32);

/// Handle to an SSA value.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub struct Value(pub(crate) u32);

impl Op {
    /// Raw index, stable for the op's lifetime (useful as a map key).
    pub fn index(self) -> u32 {
        self.0
    }
}
impl Block {
    /// Raw index.
    pub fn index(self) -> u32 {
        self.0
    }
}
impl Region {
    /// Raw index.
    pub fn index(self) -> u32 {
        self.0
    }
}
impl Value {
    /// Raw index.
    pub fn index(self) -> u32 {
        self.0
    }
}

/// Where a value comes from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ValueDef {
    /// Result `index` of `op`.
    OpResult {
        /// Defining op.
        op: Op,
        /// Result number.
        index: u32,
    },
    /// Argument `index` of `block`.
    BlockArg {
        /// Owning block.
        block: Block,
        /// Argument number.
        index: u32,
    },
}

/// One use of a value: operand `index` of `op`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Use {
    /// The user.
    pub op: Op,
    /// Which operand of the user.
    pub index: u32,
}

pub(crate) struct OpData {
    pub(crate) name: Ident,
    pub(crate) operands: SmallVec<[Value; 3]>,
    /// For each operand, the position of its [`Use`] in the operand value's use-list, so that
    /// a use is removed in constant time.
    pub(crate) operand_pos: SmallVec<[u32; 3]>,
    pub(crate) results: SmallVec<[Value; 1]>,
    pub(crate) successors: SmallVec<[Block; 1]>,
    pub(crate) props: Vec<NamedAttr>,
    pub(crate) attrs: Vec<NamedAttr>,
    pub(crate) regions: SmallVec<[Region; 1]>,
    pub(crate) loc: Location,
    pub(crate) parent: Option<Block>,
    pub(crate) prev: Option<Op>,
    pub(crate) next: Option<Op>,
    pub(crate) erased: bool,
}

pub(crate) struct BlockData {
    pub(crate) args: Vec<Value>,
    pub(crate) first: Option<Op>,
    pub(crate) last: Option<Op>,
    pub(crate) parent: Option<Region>,
    pub(crate) erased: bool,
}

pub(crate) struct RegionData {
    pub(crate) blocks: Vec<Block>,
    pub(crate) parent: Option<Op>,
}

pub(crate) struct ValueData {
    pub(crate) ty: Type,
    pub(crate) def: ValueDef,
    pub(crate) uses: Vec<Use>,
    pub(crate) loc: Option<Location>,
}

/// Everything needed to create an operation (MLIR's `OperationState`).
#[derive(Clone, Debug)]
pub struct OperationState {
    /// Op name, e.g. `arith.addi`.
    pub name: Ident,
    /// Operands.
    pub operands: Vec<Value>,
    /// Result types.
    pub result_types: Vec<Type>,
    /// Inherent attributes (properties).
    pub props: Vec<NamedAttr>,
    /// Discardable attributes.
    pub attrs: Vec<NamedAttr>,
    /// Regions, already created and detached (see [`Context::create_region`]).
    pub regions: Vec<Region>,
    /// Successor blocks.
    pub successors: Vec<Block>,
    /// Location.
    pub loc: Location,
}

impl OperationState {
    /// A state for op `name` at `loc` with nothing else.
    pub fn new(ctx: &mut Uniquer, name: &str, loc: Location) -> OperationState {
        OperationState {
            name: ctx.ident(name),
            operands: Vec::new(),
            result_types: Vec::new(),
            props: Vec::new(),
            attrs: Vec::new(),
            regions: Vec::new(),
            successors: Vec::new(),
            loc,
        }
    }

    /// Adds operands.
    pub fn operands(mut self, values: &[Value]) -> Self {
        self.operands.extend_from_slice(values);
        self
    }

    /// Adds result types.
    pub fn results(mut self, types: &[Type]) -> Self {
        self.result_types.extend_from_slice(types);
        self
    }

    /// Adds an inherent attribute.
    pub fn prop(mut self, ctx: &mut Uniquer, name: &str, value: Attr) -> Self {
        let name = ctx.ident(name);
        self.props.push(NamedAttr { name, value });
        self
    }

    /// Adds a discardable attribute.
    pub fn attr(mut self, ctx: &mut Uniquer, name: &str, value: Attr) -> Self {
        let name = ctx.ident(name);
        self.attrs.push(NamedAttr { name, value });
        self
    }

    /// Adds regions.
    pub fn regions(mut self, regions: &[Region]) -> Self {
        self.regions.extend_from_slice(regions);
        self
    }

    /// Adds successors.
    pub fn successors(mut self, blocks: &[Block]) -> Self {
        self.successors.extend_from_slice(blocks);
        self
    }
}

/// Removes the earlier of adjacent entries with one name from a sorted list.
fn dedup_keep_last(list: &mut Vec<NamedAttr>) {
    let mut out: Vec<NamedAttr> = Vec::with_capacity(list.len());
    for a in list.drain(..) {
        match out.last_mut() {
            Some(last) if last.name == a.name => *last = a,
            _ => out.push(a),
        }
    }
    *list = out;
}

/// Insert or replace `name` in a sorted attribute list.
fn set_named(ctx: &Context, list: &mut Vec<NamedAttr>, name: Ident, value: Attr) {
    if let Some(it) = list.iter_mut().find(|it| it.name == name) {
        it.value = value;
        return;
    }
    let key = ctx.str(name);
    let pos = list
        .iter()
        .position(|it| ctx.str(it.name) > key)
        .unwrap_or(list.len());
    list.insert(pos, NamedAttr { name, value });
}

/// Traversal order for [`Context::walk`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum WalkOrder {
    /// Parents before the ops nested in them.
    PreOrder,
    /// Nested ops before their parents.
    PostOrder,
}

/// A map from old to new values and blocks, filled while cloning (MLIR's `IRMapping`).
#[derive(Default, Debug, Clone)]
pub struct IrMapping {
    /// Value map.
    pub values: rustc_hash::FxHashMap<Value, Value>,
    /// Block map.
    pub blocks: rustc_hash::FxHashMap<Block, Block>,
}

impl IrMapping {
    /// The mapped value, or the value itself.
    pub fn lookup_value(&self, v: Value) -> Value {
        self.values.get(&v).copied().unwrap_or(v)
    }

    /// The mapped block, or the block itself.
    pub fn lookup_block(&self, b: Block) -> Block {
        self.blocks.get(&b).copied().unwrap_or(b)
    }
}

impl Context {
    // ----- creation -----

    /// Creates a detached operation from `state`; its result values are created with it.
    pub fn create_op(&mut self, state: OperationState) -> Op {
        let op = Op(u32::try_from(self.ops.len()).expect("fewer than 2^32 ops"));
        let mut props = state.props;
        let mut attrs = state.attrs;
        if let Some(def) = self.op_def_by_name(state.name) {
            for a in def.attrs.iter().filter(|a| a.default.is_some()) {
                let name = self.ident(a.name);
                if !props.iter().any(|p| p.name == name) {
                    if let Some(value) = self.default_prop(state.name, name) {
                        props.push(NamedAttr { name, value });
                    }
                }
            }
        }
        self.sort_named(&mut props);
        self.sort_named(&mut attrs);
        // A name given twice keeps its last value (the sort is stable): a custom form's
        // attribute dictionary overrides what its syntax set, as upstream.
        dedup_keep_last(&mut props);
        dedup_keep_last(&mut attrs);
        self.ops.push(OpData {
            name: state.name,
            operands: SmallVec::new(),
            operand_pos: SmallVec::new(),
            results: SmallVec::new(),
            successors: state.successors.into_iter().collect(),
            props,
            attrs,
            regions: SmallVec::new(),
            loc: state.loc,
            parent: None,
            prev: None,
            next: None,
            erased: false,
        });
        for (index, ty) in state.result_types.into_iter().enumerate() {
            let v = self.new_value(
                ty,
                ValueDef::OpResult {
                    op,
                    index: index as u32,
                },
                None,
            );
            self.ops[op.0 as usize].results.push(v);
        }
        for v in state.operands {
            self.ops[op.0 as usize].operands.push(v);
            self.ops[op.0 as usize].operand_pos.push(0);
        }
        for index in 0..self.ops[op.0 as usize].operands.len() {
            let v = self.ops[op.0 as usize].operands[index];
            self.add_use(v, op, index);
        }
        for r in state.regions {
            debug_assert!(
                self.regions[r.0 as usize].parent.is_none(),
                "a region is owned by one op"
            );
            self.regions[r.0 as usize].parent = Some(op);
            self.ops[op.0 as usize].regions.push(r);
        }
        op
    }

    fn new_value(&mut self, ty: Type, def: ValueDef, loc: Option<Location>) -> Value {
        let v = Value(u32::try_from(self.values.len()).expect("fewer than 2^32 values"));
        self.values.push(ValueData {
            ty,
            def,
            uses: Vec::new(),
            loc,
        });
        v
    }

    /// Creates a detached, empty region.
    pub fn create_region(&mut self) -> Region {
        let r = Region(u32::try_from(self.regions.len()).expect("fewer than 2^32 regions"));
        self.regions.push(RegionData {
            blocks: Vec::new(),
            parent: None,
        });
        r
    }

    /// Creates a detached block with arguments of the given types.
    pub fn create_block(&mut self, arg_types: &[Type], loc: Location) -> Block {
        let b = Block(u32::try_from(self.blocks.len()).expect("fewer than 2^32 blocks"));
        self.blocks.push(BlockData {
            args: Vec::new(),
            first: None,
            last: None,
            parent: None,
            erased: false,
        });
        for &ty in arg_types {
            self.add_block_arg(b, ty, loc);
        }
        b
    }

    /// Appends an argument to `block`.
    pub fn add_block_arg(&mut self, block: Block, ty: Type, loc: Location) -> Value {
        let index = self.blocks[block.0 as usize].args.len() as u32;
        let v = self.new_value(ty, ValueDef::BlockArg { block, index }, Some(loc));
        self.blocks[block.0 as usize].args.push(v);
        v
    }

    /// Inserts a new argument of type `ty` at position `index` of `block`.
    pub fn insert_block_arg(
        &mut self,
        block: Block,
        index: usize,
        ty: Type,
        loc: Location,
    ) -> Value {
        let v = self.new_value(
            ty,
            ValueDef::BlockArg {
                block,
                index: index as u32,
            },
            Some(loc),
        );
        self.reinsert_block_arg(block, index, v);
        v
    }

    /// Removes argument `index` of `block`; it must have no uses.
    pub fn erase_block_arg(&mut self, block: Block, index: usize) {
        let v = self.blocks[block.0 as usize].args.remove(index);
        debug_assert!(
            self.values[v.0 as usize].uses.is_empty(),
            "an erased block argument has no uses"
        );
        let args = self.blocks[block.0 as usize].args.clone();
        for (i, a) in args.into_iter().enumerate().skip(index) {
            self.values[a.0 as usize].def = ValueDef::BlockArg {
                block,
                index: i as u32,
            };
        }
    }

    /// Puts back argument `value` of `block` at `index` (undoing [`Context::erase_block_arg`]).
    pub fn reinsert_block_arg(&mut self, block: Block, index: usize, value: Value) {
        self.blocks[block.0 as usize].args.insert(index, value);
        let args = self.blocks[block.0 as usize].args.clone();
        for (i, a) in args.into_iter().enumerate().skip(index) {
            self.values[a.0 as usize].def = ValueDef::BlockArg {
                block,
                index: i as u32,
            };
        }
    }

    /// Appends `block` to `region`.
    pub fn append_block(&mut self, region: Region, block: Block) {
        debug_assert!(self.blocks[block.0 as usize].parent.is_none());
        self.blocks[block.0 as usize].parent = Some(region);
        self.regions[region.0 as usize].blocks.push(block);
    }

    /// Inserts `block` into `region` at position `index`.
    pub fn insert_block(&mut self, region: Region, index: usize, block: Block) {
        debug_assert!(self.blocks[block.0 as usize].parent.is_none());
        self.blocks[block.0 as usize].parent = Some(region);
        self.regions[region.0 as usize].blocks.insert(index, block);
    }

    /// Detaches `block` from its region (its ops stay in it).
    pub fn detach_block(&mut self, block: Block) {
        if let Some(r) = self.blocks[block.0 as usize].parent.take() {
            self.regions[r.0 as usize].blocks.retain(|&b| b != block);
        }
    }

    /// Appends a new region to `op` and returns it.
    pub fn add_region(&mut self, op: Op) -> Region {
        let r = self.create_region();
        self.regions[r.0 as usize].parent = Some(op);
        self.ops[op.0 as usize].regions.push(r);
        r
    }

    // ----- op reading -----

    /// The op's name as an interned string.
    pub fn op_name(&self, op: Op) -> Ident {
        self.ops[op.0 as usize].name
    }

    /// The op's name as text, e.g. `arith.addi`.
    pub fn op_name_str(&self, op: Op) -> &str {
        self.str(self.ops[op.0 as usize].name)
    }

    /// Operands.
    pub fn operands(&self, op: Op) -> &[Value] {
        &self.ops[op.0 as usize].operands
    }

    /// Operand `i`.
    pub fn operand(&self, op: Op, i: usize) -> Value {
        self.ops[op.0 as usize].operands[i]
    }

    /// Results.
    pub fn results(&self, op: Op) -> &[Value] {
        &self.ops[op.0 as usize].results
    }

    /// Result `i`.
    pub fn result(&self, op: Op, i: usize) -> Value {
        self.ops[op.0 as usize].results[i]
    }

    /// Successor blocks.
    pub fn successors(&self, op: Op) -> &[Block] {
        &self.ops[op.0 as usize].successors
    }

    /// Regions.
    pub fn regions(&self, op: Op) -> &[Region] {
        &self.ops[op.0 as usize].regions
    }

    /// Region `i`.
    pub fn region(&self, op: Op, i: usize) -> Region {
        self.ops[op.0 as usize].regions[i]
    }

    /// Location.
    pub fn op_loc(&self, op: Op) -> Location {
        self.ops[op.0 as usize].loc
    }

    /// Sets the location.
    pub fn set_op_loc(&mut self, op: Op, loc: Location) {
        self.ops[op.0 as usize].loc = loc;
    }

    /// Inherent attributes (properties), sorted by name.
    pub fn props(&self, op: Op) -> &[NamedAttr] {
        &self.ops[op.0 as usize].props
    }

    /// Discardable attributes, sorted by name.
    pub fn attrs(&self, op: Op) -> &[NamedAttr] {
        &self.ops[op.0 as usize].attrs
    }

    /// An attribute by name, looking at properties first, then discardable attributes.
    pub fn attr(&self, op: Op, name: &str) -> Option<Attr> {
        let d = &self.ops[op.0 as usize];
        d.props
            .iter()
            .chain(d.attrs.iter())
            .find(|it| self.str(it.name) == name)
            .map(|it| it.value)
    }

    /// Sets an inherent attribute (property).
    pub fn set_prop(&mut self, op: Op, name: &str, value: Attr) {
        let name = self.ident(name);
        let mut list = std::mem::take(&mut self.ops[op.0 as usize].props);
        set_named(self, &mut list, name, value);
        self.ops[op.0 as usize].props = list;
    }

    /// Sets a discardable attribute.
    pub fn set_attr(&mut self, op: Op, name: &str, value: Attr) {
        let name = self.ident(name);
        let mut list = std::mem::take(&mut self.ops[op.0 as usize].attrs);
        set_named(self, &mut list, name, value);
        self.ops[op.0 as usize].attrs = list;
    }

    /// Removes an attribute (property or discardable) by name; returns it if present.
    pub fn remove_attr(&mut self, op: Op, name: &str) -> Option<Attr> {
        let id = self.lookup_ident(name)?;
        let d = &mut self.ops[op.0 as usize];
        for list in [&mut d.props, &mut d.attrs] {
            if let Some(pos) = list.iter().position(|it| it.name == id) {
                return Some(list.remove(pos).value);
            }
        }
        None
    }

    /// Replaces all properties (sorted on the way in).
    pub fn set_all_props(&mut self, op: Op, mut props: Vec<NamedAttr>) {
        self.sort_named(&mut props);
        self.ops[op.0 as usize].props = props;
    }

    /// Replaces all discardable attributes (sorted on the way in).
    pub fn set_all_attrs(&mut self, op: Op, mut attrs: Vec<NamedAttr>) {
        self.sort_named(&mut attrs);
        self.ops[op.0 as usize].attrs = attrs;
    }

    /// The block holding `op`, if attached.
    pub fn op_parent_block(&self, op: Op) -> Option<Block> {
        self.ops[op.0 as usize].parent
    }

    /// The op whose region holds `op`, if any.
    pub fn op_parent_op(&self, op: Op) -> Option<Op> {
        let b = self.op_parent_block(op)?;
        self.block_parent_op(b)
    }

    /// The op after `op` in its block.
    pub fn op_next(&self, op: Op) -> Option<Op> {
        self.ops[op.0 as usize].next
    }

    /// The op before `op` in its block.
    pub fn op_prev(&self, op: Op) -> Option<Op> {
        self.ops[op.0 as usize].prev
    }

    /// Whether `op` has been erased.
    pub fn is_erased(&self, op: Op) -> bool {
        self.ops[op.0 as usize].erased
    }

    /// Whether `ancestor` is `op` or holds it, directly or through nested regions.
    pub fn is_ancestor(&self, ancestor: Op, op: Op) -> bool {
        let mut cur = Some(op);
        while let Some(o) = cur {
            if o == ancestor {
                return true;
            }
            cur = self.op_parent_op(o);
        }
        false
    }

    // ----- blocks, regions, values -----

    /// Block arguments.
    pub fn block_args(&self, block: Block) -> &[Value] {
        &self.blocks[block.0 as usize].args
    }

    /// The region holding `block`.
    pub fn block_parent_region(&self, block: Block) -> Option<Region> {
        self.blocks[block.0 as usize].parent
    }

    /// The op holding the region holding `block`.
    pub fn block_parent_op(&self, block: Block) -> Option<Op> {
        let r = self.block_parent_region(block)?;
        self.region_parent_op(r)
    }

    /// First op of `block`.
    pub fn block_first_op(&self, block: Block) -> Option<Op> {
        self.blocks[block.0 as usize].first
    }

    /// Last op of `block` (its terminator, when it has one).
    pub fn block_last_op(&self, block: Block) -> Option<Op> {
        self.blocks[block.0 as usize].last
    }

    /// The ops of `block`, in order, collected into a vector (safe to mutate the block while
    /// iterating the result).
    pub fn block_ops(&self, block: Block) -> Vec<Op> {
        self.block_ops_iter(block).collect()
    }

    /// Iterates the ops of `block` in order.
    pub fn block_ops_iter(&self, block: Block) -> impl Iterator<Item = Op> + '_ {
        let mut cur = self.blocks[block.0 as usize].first;
        std::iter::from_fn(move || {
            let op = cur?;
            cur = self.ops[op.0 as usize].next;
            Some(op)
        })
    }

    /// Whether `block` has no ops.
    pub fn block_is_empty(&self, block: Block) -> bool {
        self.blocks[block.0 as usize].first.is_none()
    }

    /// Blocks of `region`, in order.
    pub fn region_blocks(&self, region: Region) -> &[Block] {
        &self.regions[region.0 as usize].blocks
    }

    /// The op holding `region`.
    pub fn region_parent_op(&self, region: Region) -> Option<Op> {
        self.regions[region.0 as usize].parent
    }

    /// The type of a value.
    pub fn value_type(&self, v: Value) -> Type {
        self.values[v.0 as usize].ty
    }

    /// Changes the type of a value (callers keep the IR valid).
    pub fn set_value_type(&mut self, v: Value, ty: Type) {
        self.values[v.0 as usize].ty = ty;
    }

    /// Where a value comes from.
    pub fn value_def(&self, v: Value) -> ValueDef {
        self.values[v.0 as usize].def
    }

    /// The op defining `v`, if it is a result.
    pub fn defining_op(&self, v: Value) -> Option<Op> {
        match self.values[v.0 as usize].def {
            ValueDef::OpResult { op, .. } => Some(op),
            ValueDef::BlockArg { .. } => None,
        }
    }

    /// The block in which `v` is defined.
    pub fn value_parent_block(&self, v: Value) -> Option<Block> {
        match self.values[v.0 as usize].def {
            ValueDef::OpResult { op, .. } => self.op_parent_block(op),
            ValueDef::BlockArg { block, .. } => Some(block),
        }
    }

    /// Location of a block argument (ops' results use their op's location).
    pub fn value_loc(&self, v: Value) -> Location {
        match self.values[v.0 as usize].def {
            ValueDef::OpResult { op, .. } => self.op_loc(op),
            ValueDef::BlockArg { .. } => self.values[v.0 as usize]
                .loc
                .unwrap_or_else(|| self.unknown_loc()),
        }
    }

    /// Uses of a value.
    pub fn uses(&self, v: Value) -> &[Use] {
        &self.values[v.0 as usize].uses
    }

    /// Whether a value has any use.
    pub fn has_uses(&self, v: Value) -> bool {
        !self.values[v.0 as usize].uses.is_empty()
    }

    /// Whether no result of `op` is used.
    pub fn op_results_unused(&self, op: Op) -> bool {
        self.results(op).iter().all(|&r| !self.has_uses(r))
    }

    // ----- mutation: operands and uses -----

    /// Records that operand `index` of `op` uses `v` (the operand slot must hold `v`).
    fn add_use(&mut self, v: Value, op: Op, index: usize) {
        let uses = &mut self.values[v.0 as usize].uses;
        let pos = uses.len() as u32;
        uses.push(Use {
            op,
            index: index as u32,
        });
        self.ops[op.0 as usize].operand_pos[index] = pos;
    }

    /// Removes the use made by operand `index` of `op` of the value `v`, in constant time.
    fn remove_use(&mut self, v: Value, op: Op, index: usize) {
        let pos = self.ops[op.0 as usize].operand_pos[index] as usize;
        let uses = &mut self.values[v.0 as usize].uses;
        debug_assert_eq!(
            uses.get(pos),
            Some(&Use {
                op,
                index: index as u32
            }),
            "operand positions mirror use-lists"
        );
        uses.swap_remove(pos);
        if let Some(&moved) = uses.get(pos) {
            self.ops[moved.op.0 as usize].operand_pos[moved.index as usize] = pos as u32;
        }
    }

    /// Drops every use made by `op`'s operands and clears its operand list.
    fn drop_operands(&mut self, op: Op) {
        let n = self.ops[op.0 as usize].operands.len();
        for i in (0..n).rev() {
            let v = self.ops[op.0 as usize].operands[i];
            self.remove_use(v, op, i);
        }
        self.ops[op.0 as usize].operands.clear();
        self.ops[op.0 as usize].operand_pos.clear();
    }

    /// Sets operand `i` of `op` to `v`.
    pub fn set_operand(&mut self, op: Op, i: usize, v: Value) {
        let old = self.ops[op.0 as usize].operands[i];
        self.remove_use(old, op, i);
        self.ops[op.0 as usize].operands[i] = v;
        self.add_use(v, op, i);
    }

    /// Replaces every operand of `op`.
    pub fn set_operands(&mut self, op: Op, values: &[Value]) {
        self.drop_operands(op);
        for (i, &v) in values.iter().enumerate() {
            self.ops[op.0 as usize].operands.push(v);
            self.ops[op.0 as usize].operand_pos.push(0);
            self.add_use(v, op, i);
        }
    }

    /// Replaces successor `i` of `op`.
    pub fn set_successor(&mut self, op: Op, i: usize, block: Block) {
        self.ops[op.0 as usize].successors[i] = block;
    }

    /// Makes every use of `from` use `to` instead.
    pub fn replace_all_uses(&mut self, from: Value, to: Value) {
        if from == to {
            return;
        }
        let uses = std::mem::take(&mut self.values[from.0 as usize].uses);
        for u in uses {
            self.ops[u.op.0 as usize].operands[u.index as usize] = to;
            self.add_use(to, u.op, u.index as usize);
        }
    }

    /// Like [`replace_all_uses`](Self::replace_all_uses), but only where `keep(user)` is false.
    pub fn replace_uses_where(&mut self, from: Value, to: Value, mut pred: impl FnMut(Op) -> bool) {
        if from == to {
            return;
        }
        let uses = std::mem::take(&mut self.values[from.0 as usize].uses);
        for u in uses {
            let target = if pred(u.op) { to } else { from };
            self.ops[u.op.0 as usize].operands[u.index as usize] = target;
            self.add_use(target, u.op, u.index as usize);
        }
    }

    /// Replaces the results of `op` with `values` at every use, then erases `op`.
    pub fn replace_op(&mut self, op: Op, values: &[Value]) {
        let results: SmallVec<[Value; 1]> = self.ops[op.0 as usize].results.clone();
        debug_assert_eq!(
            results.len(),
            values.len(),
            "replace_op needs one value per result"
        );
        for (r, &v) in results.iter().zip(values) {
            self.replace_all_uses(*r, v);
        }
        self.erase_op(op);
    }

    // ----- mutation: placement -----

    /// Appends detached `op` at the end of `block`.
    pub fn append_op(&mut self, block: Block, op: Op) {
        debug_assert!(self.ops[op.0 as usize].parent.is_none(), "op is detached");
        let last = self.blocks[block.0 as usize].last;
        {
            let d = &mut self.ops[op.0 as usize];
            d.parent = Some(block);
            d.prev = last;
            d.next = None;
        }
        match last {
            Some(l) => self.ops[l.0 as usize].next = Some(op),
            None => self.blocks[block.0 as usize].first = Some(op),
        }
        self.blocks[block.0 as usize].last = Some(op);
    }

    /// Inserts detached `op` at the start of `block`.
    pub fn prepend_op(&mut self, block: Block, op: Op) {
        match self.blocks[block.0 as usize].first {
            Some(first) => self.insert_op_before(first, op),
            None => self.append_op(block, op),
        }
    }

    /// Inserts detached `op` just before `anchor`.
    pub fn insert_op_before(&mut self, anchor: Op, op: Op) {
        debug_assert!(self.ops[op.0 as usize].parent.is_none(), "op is detached");
        let block = self.ops[anchor.0 as usize]
            .parent
            .expect("the anchor of an insertion is attached to a block");
        let prev = self.ops[anchor.0 as usize].prev;
        {
            let d = &mut self.ops[op.0 as usize];
            d.parent = Some(block);
            d.prev = prev;
            d.next = Some(anchor);
        }
        self.ops[anchor.0 as usize].prev = Some(op);
        match prev {
            Some(p) => self.ops[p.0 as usize].next = Some(op),
            None => self.blocks[block.0 as usize].first = Some(op),
        }
    }

    /// Inserts detached `op` just after `anchor`.
    pub fn insert_op_after(&mut self, anchor: Op, op: Op) {
        match self.ops[anchor.0 as usize].next {
            Some(n) => self.insert_op_before(n, op),
            None => {
                let block = self.ops[anchor.0 as usize]
                    .parent
                    .expect("the anchor of an insertion is attached to a block");
                self.append_op(block, op)
            }
        }
    }

    /// Unlinks `op` from its block, keeping it (and its uses) alive.
    pub fn detach_op(&mut self, op: Op) {
        let (parent, prev, next) = {
            let d = &self.ops[op.0 as usize];
            (d.parent, d.prev, d.next)
        };
        let Some(block) = parent else { return };
        match prev {
            Some(p) => self.ops[p.0 as usize].next = next,
            None => self.blocks[block.0 as usize].first = next,
        }
        match next {
            Some(n) => self.ops[n.0 as usize].prev = prev,
            None => self.blocks[block.0 as usize].last = prev,
        }
        let d = &mut self.ops[op.0 as usize];
        d.parent = None;
        d.prev = None;
        d.next = None;
    }

    /// Moves `op` to just before `anchor`.
    pub fn move_op_before(&mut self, op: Op, anchor: Op) {
        self.detach_op(op);
        self.insert_op_before(anchor, op);
    }

    /// Moves `op` to just after `anchor`.
    pub fn move_op_after(&mut self, op: Op, anchor: Op) {
        self.detach_op(op);
        self.insert_op_after(anchor, op);
    }

    /// Erases `op` and everything nested in it. Uses of its results must be gone already
    /// (in debug builds this is checked); the uses it makes of other values are dropped.
    pub fn erase_op(&mut self, op: Op) {
        self.detach_op(op);
        self.erase_op_rec(op);
    }

    fn erase_op_rec(&mut self, op: Op) {
        let regions: SmallVec<[Region; 1]> = self.ops[op.0 as usize].regions.clone();
        for r in regions {
            for b in self.regions[r.0 as usize].blocks.clone() {
                self.erase_block_contents(b);
                self.blocks[b.0 as usize].erased = true;
            }
            self.regions[r.0 as usize].blocks.clear();
        }
        self.drop_operands(op);
        self.ops[op.0 as usize].erased = true;
    }

    /// Erases every op of `block` (dropping all uses between them first, so that the order
    /// does not matter).
    pub fn erase_block_contents(&mut self, block: Block) {
        let ops = self.block_ops(block);
        // Drop all uses made by nested ops first so that results can be erased in any order.
        for &op in &ops {
            self.drop_all_uses_rec(op);
        }
        for op in ops {
            self.detach_op(op);
            self.erase_op_rec(op);
        }
    }

    /// Drops every use `op` and the ops nested in it make of values (before erasing a group
    /// of ops that use each other).
    pub fn drop_all_uses(&mut self, op: Op) {
        self.drop_all_uses_rec(op);
    }

    /// Marks a detached block as erased (a tombstone), without touching its ops.
    pub fn mark_block_erased(&mut self, block: Block) {
        self.blocks[block.0 as usize].erased = true;
    }

    fn drop_all_uses_rec(&mut self, op: Op) {
        self.drop_operands(op);
        for r in self.ops[op.0 as usize].regions.clone() {
            for b in self.regions[r.0 as usize].blocks.clone() {
                for inner in self.block_ops(b) {
                    self.drop_all_uses_rec(inner);
                }
            }
        }
    }

    /// Erases `block` and its ops, detaching it from its region.
    pub fn erase_block(&mut self, block: Block) {
        self.erase_block_contents(block);
        self.detach_block(block);
        self.blocks[block.0 as usize].erased = true;
    }

    /// Whether `block` has been erased.
    pub fn is_block_erased(&self, block: Block) -> bool {
        self.blocks[block.0 as usize].erased
    }

    /// Moves all ops of `from` to the end of `to`.
    pub fn splice_block_end(&mut self, from: Block, to: Block) {
        for op in self.block_ops(from) {
            self.detach_op(op);
            self.append_op(to, op);
        }
    }

    /// Moves all ops of `from` to just before `anchor`.
    pub fn splice_block_before(&mut self, from: Block, anchor: Op) {
        for op in self.block_ops(from) {
            self.detach_op(op);
            self.insert_op_before(anchor, op);
        }
    }

    /// Moves every block of `from` to the end of `to`.
    pub fn take_region_blocks(&mut self, from: Region, to: Region) {
        let blocks = std::mem::take(&mut self.regions[from.0 as usize].blocks);
        for b in blocks {
            self.blocks[b.0 as usize].parent = None;
            self.append_block(to, b);
        }
    }

    // ----- traversal -----

    /// Calls `f` on `root` and every op nested in it, in the given order.
    /// The set of ops is collected first, so `f` may mutate the IR; ops erased by an earlier
    /// call are skipped.
    pub fn walk(&mut self, root: Op, order: WalkOrder, mut f: impl FnMut(&mut Context, Op)) {
        let ops = self.collect_ops(root, order);
        for op in ops {
            if !self.is_erased(op) {
                f(self, op);
            }
        }
    }

    /// `root` and every op nested in it, in the given order.
    pub fn collect_ops(&self, root: Op, order: WalkOrder) -> Vec<Op> {
        let mut out = Vec::new();
        self.collect_rec(root, order, &mut out);
        out
    }

    fn collect_rec(&self, op: Op, order: WalkOrder, out: &mut Vec<Op>) {
        if order == WalkOrder::PreOrder {
            out.push(op);
        }
        for &r in self.regions(op) {
            for &b in self.region_blocks(r) {
                for inner in self.block_ops_iter(b) {
                    self.collect_rec(inner, order, out);
                }
            }
        }
        if order == WalkOrder::PostOrder {
            out.push(op);
        }
    }

    /// Ops nested (at any depth) inside `root`, excluding `root` itself, in pre-order.
    pub fn nested_ops(&self, root: Op) -> Vec<Op> {
        let mut v = self.collect_ops(root, WalkOrder::PreOrder);
        v.remove(0);
        v
    }

    // ----- cloning -----

    /// Deep-clones `op` (with its regions), mapping operands and successors through `map` and
    /// recording the new results and blocks in it. The clone is detached.
    pub fn clone_op(&mut self, op: Op, map: &mut IrMapping) -> Op {
        let (name, operands, successors, props, attrs, loc, regions, result_types) = {
            let d = &self.ops[op.0 as usize];
            (
                d.name,
                d.operands.iter().map(|&v| map.lookup_value(v)).collect(),
                d.successors.iter().map(|&b| map.lookup_block(b)).collect(),
                d.props.clone(),
                d.attrs.clone(),
                d.loc,
                d.regions.clone(),
                d.results
                    .iter()
                    .map(|&r| self.values[r.0 as usize].ty)
                    .collect(),
            )
        };
        let mut new_regions = Vec::new();
        for r in regions {
            let nr = self.create_region();
            self.clone_region_into(r, nr, map);
            new_regions.push(nr);
        }
        let new = self.create_op(OperationState {
            name,
            operands,
            result_types,
            props,
            attrs,
            regions: new_regions,
            successors,
            loc,
        });
        for (i, &r) in self.ops[op.0 as usize].results.clone().iter().enumerate() {
            let nr = self.ops[new.0 as usize].results[i];
            map.values.insert(r, nr);
        }
        new
    }

    /// Clones every block of `from` to the end of `to`, through `map`.
    pub fn clone_region_into(&mut self, from: Region, to: Region, map: &mut IrMapping) {
        let blocks = self.regions[from.0 as usize].blocks.clone();
        // Create all blocks first so that forward successor references map.
        let mut new_blocks = Vec::new();
        for &b in &blocks {
            let nb = self.create_block(&[], self.unknown_loc());
            for a in self.block_args(b).to_vec() {
                let ty = self.value_type(a);
                let loc = self.value_loc(a);
                let na = self.add_block_arg(nb, ty, loc);
                map.values.insert(a, na);
            }
            map.blocks.insert(b, nb);
            new_blocks.push(nb);
        }
        for (&b, &nb) in blocks.iter().zip(&new_blocks) {
            self.append_block(to, nb);
            for op in self.block_ops(b) {
                let c = self.clone_op(op, map);
                self.append_op(nb, c);
            }
        }
        // Operands that referred to values defined later (graph regions) were mapped before
        // their definitions were cloned: fix them up now.
        for &nb in &new_blocks {
            for op in self.collect_block_ops_deep(nb) {
                let ops: Vec<Value> = self.operands(op).to_vec();
                for (i, v) in ops.into_iter().enumerate() {
                    let m = map.lookup_value(v);
                    if m != v {
                        self.set_operand(op, i, m);
                    }
                }
            }
        }
    }

    fn collect_block_ops_deep(&self, b: Block) -> Vec<Op> {
        let mut out = Vec::new();
        for op in self.block_ops_iter(b) {
            self.collect_rec(op, WalkOrder::PreOrder, &mut out);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Checks that every use-list entry matches its operand slot and back-pointer.
    fn check_use_lists(ctx: &Context) {
        for (vi, v) in ctx.values.iter().enumerate() {
            for (pos, u) in v.uses.iter().enumerate() {
                let d = &ctx.ops[u.op.0 as usize];
                assert_eq!(
                    d.operands[u.index as usize],
                    Value(vi as u32),
                    "operand slot"
                );
                assert_eq!(d.operand_pos[u.index as usize], pos as u32, "back-pointer");
            }
        }
        for (oi, d) in ctx.ops.iter().enumerate() {
            if d.erased {
                continue;
            }
            for (i, v) in d.operands.iter().enumerate() {
                let uses = &ctx.values[v.0 as usize].uses;
                assert!(uses.contains(&Use {
                    op: Op(oi as u32),
                    index: i as u32
                }));
            }
        }
    }

    struct Fixture {
        ctx: Context,
        block: Block,
        args: Vec<Value>,
    }

    fn fixture() -> Fixture {
        let mut ctx = Context::new();
        ctx.allow_unregistered = true;
        let i32 = ctx.i32_type();
        let loc = ctx.unknown_loc();
        let block = ctx.create_block(&[i32, i32, i32], loc);
        let args = ctx.block_args(block).to_vec();
        Fixture { ctx, block, args }
    }

    fn add(f: &mut Fixture, a: Value, b: Value) -> Op {
        let i32 = f.ctx.i32_type();
        let loc = f.ctx.unknown_loc();
        let st = OperationState::new(&mut f.ctx, "t.add", loc)
            .operands(&[a, b])
            .results(&[i32]);
        let op = f.ctx.create_op(st);
        f.ctx.append_op(f.block, op);
        op
    }

    #[test]
    fn use_lists_stay_exact_through_mutation() {
        let mut f = fixture();
        let (a, b, c) = (f.args[0], f.args[1], f.args[2]);
        let x = add(&mut f, a, a);
        let xr = f.ctx.result(x, 0);
        let y = add(&mut f, xr, b);
        let z = add(&mut f, a, xr);
        check_use_lists(&f.ctx);
        assert_eq!(f.ctx.uses(a).len(), 3);
        f.ctx.set_operand(y, 1, a);
        check_use_lists(&f.ctx);
        f.ctx.replace_all_uses(a, c);
        assert!(!f.ctx.has_uses(a));
        assert_eq!(f.ctx.uses(c).len(), 4);
        check_use_lists(&f.ctx);
        f.ctx.replace_uses_where(xr, b, |op| op == z);
        assert_eq!(f.ctx.uses(xr).len(), 1);
        check_use_lists(&f.ctx);
        f.ctx.set_operands(z, &[b, b, c]);
        check_use_lists(&f.ctx);
        f.ctx.erase_op(y);
        f.ctx.erase_op(z);
        check_use_lists(&f.ctx);
        assert!(!f.ctx.has_uses(xr));
        assert_eq!(f.ctx.block_ops(f.block), vec![x]);
    }

    #[test]
    fn insertion_order_and_detach() {
        let mut f = fixture();
        let a = f.args[0];
        let x = add(&mut f, a, a);
        let z = add(&mut f, a, a);
        let i32 = f.ctx.i32_type();
        let loc = f.ctx.unknown_loc();
        let st = OperationState::new(&mut f.ctx, "t.mid", loc).results(&[i32]);
        let y = f.ctx.create_op(st);
        f.ctx.insert_op_after(x, y);
        assert_eq!(f.ctx.block_ops(f.block), vec![x, y, z]);
        f.ctx.move_op_before(z, x);
        assert_eq!(f.ctx.block_ops(f.block), vec![z, x, y]);
        f.ctx.detach_op(x);
        assert_eq!(f.ctx.block_ops(f.block), vec![z, y]);
        assert_eq!(f.ctx.op_parent_block(x), None);
        f.ctx.prepend_op(f.block, x);
        assert_eq!(f.ctx.block_ops(f.block), vec![x, z, y]);
        assert_eq!(f.ctx.block_last_op(f.block), Some(y));
    }

    #[test]
    fn clone_maps_operands_and_nested_regions() {
        let mut f = fixture();
        let a = f.args[0];
        let x = add(&mut f, a, a);
        let xr = f.ctx.result(x, 0);
        let loc = f.ctx.unknown_loc();
        let region = f.ctx.create_region();
        let inner_block = f.ctx.create_block(&[], loc);
        f.ctx.append_block(region, inner_block);
        let st = OperationState::new(&mut f.ctx, "t.wrap", loc).regions(&[region]);
        let wrap = f.ctx.create_op(st);
        f.ctx.append_op(f.block, wrap);
        let st = OperationState::new(&mut f.ctx, "t.use", loc).operands(&[xr]);
        let user = f.ctx.create_op(st);
        f.ctx.append_op(inner_block, user);

        let mut map = IrMapping::default();
        map.values.insert(xr, f.args[1]);
        let c = f.ctx.clone_op(wrap, &mut map);
        let cb = f.ctx.region_blocks(f.ctx.region(c, 0))[0];
        let cu = f.ctx.block_first_op(cb).unwrap();
        assert_ne!(cu, user);
        assert_eq!(f.ctx.operands(cu), &[f.args[1]]);
        check_use_lists(&f.ctx);
        // Erasing the original wrapper drops the nested use of `xr`.
        f.ctx.erase_op(wrap);
        assert!(!f.ctx.has_uses(xr));
        check_use_lists(&f.ctx);
    }
}
