//! [`ConversionRewriter`]: the journaled [`PatternRewriter`] as a conversion pattern sees it,
//! plus what only a conversion does: replacing an op by values of other types, converting block
//! signatures, and remapping values to their converted form through materializations.

use rustc_hash::FxHashMap;

use nart_ir::printer::type_to_string;
use nart_ir::{Block, Op, OperationState, PatternRewriter, Region, Type, Value, ValueDef};

use super::pattern::OpAdaptor;
use super::type_converter::{SignatureConversion, TypeConverter};

/// The name of the cast the driver materializes with while the conversion runs.
pub(crate) const CAST: &str = "builtin.unrealized_conversion_cast";

/// Which way a driver-made cast goes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum CastKind {
    /// Converted values back to one value of the original type, for a user that still needs it.
    Source,
    /// A value of the original type to the converted types, for an op being converted.
    Target,
}

/// The driver's bookkeeping, shared by every pattern application of one conversion.
pub(crate) struct ConversionState {
    /// The op the conversion runs under.
    pub(crate) root: Op,
    /// The casts the driver made, in creation order. A rollback tombstones some of them; the
    /// readers skip ops that are not live.
    pub(crate) casts: Vec<Op>,
    kinds: FxHashMap<Op, CastKind>,
    /// Target casts by the value they cast and the types they cast it to, for reuse.
    target_cache: FxHashMap<(Value, Vec<Type>), Op>,
}

impl ConversionState {
    pub(crate) fn new(root: Op) -> ConversionState {
        ConversionState {
            root,
            casts: Vec::new(),
            kinds: FxHashMap::default(),
            target_cache: FxHashMap::default(),
        }
    }

    /// Which way `op` casts, if the driver made it.
    pub(crate) fn cast_kind(&self, op: Op) -> Option<CastKind> {
        self.kinds.get(&op).copied()
    }
}

/// Whether `op` is in the IR under `root`: not a tombstone, and not detached (erased and waiting
/// for the commit, or nested in such an op).
pub(crate) fn is_live(ctx: &nart_ir::Context, root: Op, op: Op) -> bool {
    !ctx.is_erased(op) && ctx.is_ancestor(root, op)
}

/// What a [`ConversionPattern`](super::ConversionPattern) changes the IR through: it
/// dereferences to the journaled [`PatternRewriter`], so every mutation of the rewriter is
/// available and undone with the pattern when needed, and it adds the replacements and
/// signature conversions that know about types changing.
///
/// Use [`replace_op`](Self::replace_op) (not the rewriter's) when the new values may have
/// other types than the results they replace: the users that are not converted yet get a cast
/// back to the original type.
///
/// The rewriter's driver-side methods (`checkpoint`, `rollback`, `commit`, `take_changes`)
/// belong to the conversion driver; a pattern that calls them breaks the all-or-nothing
/// guarantee, as it would the greedy driver's bookkeeping.
pub struct ConversionRewriter<'r, 'c> {
    rw: &'r mut PatternRewriter<'c>,
    state: &'r mut ConversionState,
    converter: Option<&'r TypeConverter>,
}

impl<'c> std::ops::Deref for ConversionRewriter<'_, 'c> {
    type Target = PatternRewriter<'c>;
    fn deref(&self) -> &PatternRewriter<'c> {
        self.rw
    }
}

impl<'c> std::ops::DerefMut for ConversionRewriter<'_, 'c> {
    fn deref_mut(&mut self) -> &mut PatternRewriter<'c> {
        self.rw
    }
}

impl<'r, 'c> ConversionRewriter<'r, 'c> {
    pub(crate) fn new(
        rw: &'r mut PatternRewriter<'c>,
        state: &'r mut ConversionState,
        converter: Option<&'r TypeConverter>,
    ) -> Self {
        ConversionRewriter {
            rw,
            state,
            converter,
        }
    }

    /// The type converter of the conversion, if it has one.
    pub fn type_converter(&self) -> Option<&'r TypeConverter> {
        self.converter
    }

    /// The types `ty` converts to (itself without a type converter), or `None` when it has no
    /// conversion.
    pub fn convert_type(&mut self, ty: Type) -> Option<Vec<Type>> {
        match self.converter {
            Some(conv) => conv.convert_type(self.rw.uniq(), ty),
            None => Some(vec![ty]),
        }
    }

    /// Whether `op` is a cast the driver made (it is exempt from legality, and removed or
    /// materialized at the end).
    pub fn is_materialization(&self, op: Op) -> bool {
        self.state.cast_kind(op).is_some()
    }

    /// The values standing for `value` in the conversion (MLIR's `getRemappedValue`): what
    /// replaced it, cast to the converted types when there is a type converter. `None` when its
    /// type has no conversion. May create a cast after the definition of `value`.
    pub fn remapped_values(&mut self, value: Value) -> Option<Vec<Value>> {
        let unwrapped = self.unwrap_source_cast(value);
        let Some(conv) = self.converter else {
            return Some(unwrapped.unwrap_or_else(|| vec![value]));
        };
        let ty = self.rw.value_type(value);
        let want = conv.convert_type(self.rw.uniq(), ty)?;
        if let Some(vals) = unwrapped {
            if self.types_of(&vals) == want {
                return Some(vals);
            }
        }
        if want == [ty] {
            return Some(vec![value]);
        }
        Some(self.target_cast(value, want))
    }

    /// Replaces the results of `op` with `values`, one per result, and erases `op`. A value of
    /// another type than the result it replaces reaches the result's remaining users through a
    /// source cast back to the result's type.
    pub fn replace_op(&mut self, op: Op, values: &[Value]) {
        let values: Vec<Vec<Value>> = values.iter().map(|&v| vec![v]).collect();
        self.replace_op_with_multiple(op, &values);
    }

    /// Replaces each result of `op` with a list of values (1:N; an empty list for a result
    /// whose type converts to nothing) and erases `op`. Results replaced by other than one value
    /// of their own type reach their remaining users through a source cast.
    pub fn replace_op_with_multiple(&mut self, op: Op, values: &[Vec<Value>]) {
        let results = self.rw.results(op).to_vec();
        assert_eq!(
            results.len(),
            values.len(),
            "invariant: a replacement gives one list of values per result"
        );
        for (r, vals) in results.into_iter().zip(values) {
            let ty = self.rw.value_type(r);
            if let [v] = vals.as_slice() {
                if self.rw.value_type(*v) == ty {
                    self.rw.replace_all_uses_with(r, *v);
                    continue;
                }
            }
            if !self.rw.has_uses(r) {
                continue;
            }
            let ip = self.rw.insertion_point();
            self.rw.set_insertion_point_before(op);
            let loc = self.rw.op_loc(op);
            let cast = self.create_cast(vals, &[ty], CastKind::Source, loc);
            self.rw.set_insertion_point(ip);
            let cr = self.rw.result(cast, 0);
            self.rw.replace_all_uses_with(r, cr);
        }
        self.rw.erase_op(op);
    }

    /// Creates an op from `state` before `op` and replaces `op` with its results, as
    /// [`replace_op`](Self::replace_op) does.
    pub fn replace_op_with_new(&mut self, op: Op, state: OperationState) -> Op {
        self.rw.set_insertion_point_before(op);
        let new = self.rw.create(state);
        let results = self.rw.results(new).to_vec();
        self.replace_op(op, &results);
        new
    }

    /// Converts the argument types of every block of `region` with the type converter (MLIR's
    /// `convertRegionTypes`); see [`apply_signature_conversion`](Self::apply_signature_conversion).
    /// Returns `false`, changing nothing, when an argument type has no conversion; without a
    /// type converter there is nothing to do.
    pub fn convert_region_types(&mut self, region: Region) -> bool {
        let Some(conv) = self.converter else {
            return true;
        };
        let mut sigs = Vec::new();
        for b in self.rw.region_blocks(region).to_vec() {
            let tys = self.types_of(self.rw.block_args(b));
            let Some(sig) = conv.convert_signature(self.rw.uniq(), &tys) else {
                return false;
            };
            sigs.push((b, sig));
        }
        for (b, sig) in sigs {
            self.apply_signature_conversion(b, &sig);
        }
        true
    }

    /// Gives the arguments of `block` the types of `sig`, in place: an argument converted 1:1
    /// changes type; one converted 1:N is replaced by new arguments (none when it converts to
    /// nothing). Uses of an argument that changed see a source cast of the new arguments back to
    /// the old type, at the start of the block, which converted users look through. An input
    /// `sig` does not map keeps its argument.
    pub fn apply_signature_conversion(&mut self, block: Block, sig: &SignatureConversion) {
        let args = self.rw.block_args(block).to_vec();
        assert_eq!(
            sig.num_inputs(),
            args.len(),
            "invariant: a signature conversion maps every argument of its block"
        );
        let ip = self.rw.insertion_point();
        let mut last_cast: Option<Op> = None;
        let mut index = 0;
        for (i, arg) in args.into_iter().enumerate() {
            let old = self.rw.value_type(arg);
            let Some(new) = sig.input_types(i).map(<[Type]>::to_vec) else {
                index += 1;
                continue;
            };
            if new == [old] {
                index += 1;
                continue;
            }
            let loc = self.rw.value_loc(arg);
            if let [ty] = new.as_slice() {
                self.rw.set_value_type(arg, *ty);
                if self.rw.has_uses(arg) {
                    self.at_cast_position(block, last_cast);
                    let cast = self.create_cast(&[arg], &[old], CastKind::Source, loc);
                    last_cast = Some(cast);
                    let cr = self.rw.result(cast, 0);
                    self.rw.replace_uses_where(arg, cr, |user| user != cast);
                }
                index += 1;
                continue;
            }
            let mut new_args = Vec::with_capacity(new.len());
            for (k, &ty) in new.iter().enumerate() {
                new_args.push(self.rw.insert_block_arg(block, index + 1 + k, ty, loc));
            }
            if self.rw.has_uses(arg) {
                self.at_cast_position(block, last_cast);
                let cast = self.create_cast(&new_args, &[old], CastKind::Source, loc);
                last_cast = Some(cast);
                let cr = self.rw.result(cast, 0);
                self.rw.replace_all_uses_with(arg, cr);
            }
            self.rw.erase_block_arg(block, index);
            index += new.len();
        }
        self.rw.set_insertion_point(ip);
    }

    /// The adaptor of `op`: its operands remapped, or why one cannot be.
    pub(crate) fn build_adaptor(&mut self, op: Op) -> Result<OpAdaptor, String> {
        let operands = self.rw.operands(op).to_vec();
        let mut out = Vec::with_capacity(operands.len());
        for (i, v) in operands.into_iter().enumerate() {
            match self.remapped_values(v) {
                Some(vals) => out.push(vals),
                None => {
                    let ty = type_to_string(self.rw, self.rw.value_type(v));
                    return Err(format!("operand #{i} of type '{ty}' has no conversion"));
                }
            }
        }
        Ok(OpAdaptor::new(out))
    }

    fn types_of(&self, vals: &[Value]) -> Vec<Type> {
        vals.iter().map(|&v| self.rw.value_type(v)).collect()
    }

    fn is_live(&self, op: Op) -> bool {
        is_live(self.rw, self.state.root, op)
    }

    /// The converted values behind `value` when a live source cast defines it, looking through
    /// chains of source casts.
    fn unwrap_source_cast(&self, value: Value) -> Option<Vec<Value>> {
        let def = self.rw.defining_op(value)?;
        if self.state.cast_kind(def) != Some(CastKind::Source) || !self.is_live(def) {
            return None;
        }
        let mut out = Vec::new();
        for &v in self.rw.operands(def) {
            match self.unwrap_source_cast(v) {
                Some(vals) => out.extend(vals),
                None => out.push(v),
            }
        }
        Some(out)
    }

    /// A target cast of `value` to `types`, right after the definition of `value`, reused
    /// while it lives.
    fn target_cast(&mut self, value: Value, types: Vec<Type>) -> Vec<Value> {
        let key = (value, types);
        if let Some(&cast) = self.state.target_cache.get(&key) {
            if self.is_live(cast) && self.rw.operands(cast) == [value] {
                return self.rw.results(cast).to_vec();
            }
        }
        let ip = self.rw.insertion_point();
        match self.rw.value_def(value) {
            ValueDef::OpResult { op, .. } => self.rw.set_insertion_point_after(op),
            ValueDef::BlockArg { block, .. } => self.rw.set_insertion_point_to_start(block),
        }
        let loc = self.rw.value_loc(value);
        let cast = self.create_cast(&[value], &key.1, CastKind::Target, loc);
        self.rw.set_insertion_point(ip);
        self.state.target_cache.insert(key, cast);
        self.rw.results(cast).to_vec()
    }

    /// Sets the insertion point for the next argument cast of `block`: after the previous one,
    /// or at the start of the block.
    fn at_cast_position(&mut self, block: Block, last: Option<Op>) {
        match last {
            Some(c) => self.rw.set_insertion_point_after(c),
            None => self.rw.set_insertion_point_to_start(block),
        }
    }

    fn create_cast(
        &mut self,
        inputs: &[Value],
        types: &[Type],
        kind: CastKind,
        loc: nart_ir::Location,
    ) -> Op {
        let st = OperationState::new(self.rw.uniq(), CAST, loc)
            .operands(inputs)
            .results(types);
        let cast = self.rw.create(st);
        self.state.casts.push(cast);
        self.state.kinds.insert(cast, kind);
        cast
    }
}
