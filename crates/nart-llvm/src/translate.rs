//! The translation of a module: functions, blocks, control flow and calls; the ops of each
//! dialect are in their own module ([`crate::arith`], ...).
//!
//! It runs in two steps. [`check`] walks the whole module first and reports every op and
//! every type that has no translation, each at its location, so that a user sees all of them
//! at once; only a module that passes is translated, by [`translate_module`].

use std::collections::{HashMap, HashSet};

use inkwell::basic_block::BasicBlock;
use inkwell::builder::{Builder, BuilderError};
use inkwell::context::Context as LlContext;
use inkwell::module::{Linkage, Module};
use inkwell::types::{BasicMetadataTypeEnum, BasicType, BasicTypeEnum, FunctionType};
use inkwell::values::{
    BasicMetadataValueEnum, BasicValue, BasicValueEnum, FunctionValue, PhiValue, ValueKind,
};
use inkwell::AddressSpace;
use nart_ir::printer::type_to_string;
use nart_ir::{Block, Context, Diagnostic, Op, Type, TypeData, Value, WalkOrder};

use crate::types;

/// Prefix of the C-interface wrapper of a public function, as upstream MLIR names it.
pub const CIFACE_PREFIX: &str = "_mlir_ciface_";

/// The ops the translator knows, by dialect module.
fn is_known_op(name: &str) -> bool {
    matches!(
        name,
        "func.func"
            | "func.return"
            | "func.call"
            | "func.constant"
            | "func.call_indirect"
            | "cf.br"
            | "cf.cond_br"
            | "cf.switch"
            | "cf.assert"
    ) || crate::arith::is_known(name)
        || crate::scf::is_known(name)
        || crate::math::is_known(name)
        || crate::memref::is_known(name)
        || crate::vector::is_known(name)
}

/// Reports every op and type in `module` that the translator cannot handle, each with its
/// location; an empty list means [`translate_module`] will accept the module.
pub fn check(ir: &Context, ll: &LlContext, module: Op) -> Vec<Diagnostic> {
    let mut errors = Vec::new();
    let Some(&body) = ir.regions(module).first() else {
        return errors;
    };
    for &block in ir.region_blocks(body) {
        for op in ir.block_ops_iter(block) {
            if !matches!(ir.op_name_str(op), "func.func" | "memref.global") {
                errors.push(ir.op_error(
                    op,
                    "cannot be translated to LLVM IR: only functions and memref globals may stand at module level",
                ));
            }
        }
    }
    for op in ir.collect_ops(module, WalkOrder::PreOrder) {
        if op == module {
            continue;
        }
        let name = ir.op_name_str(op);
        if !is_known_op(name) {
            errors.push(ir.op_error(op, "has no translation to LLVM IR"));
            continue;
        }
        if name == "func.func" {
            if let Some(fty) = func_type(ir, op) {
                if let TypeData::Function { inputs, results } = ir.type_data(fty) {
                    for &t in inputs.iter().chain(results) {
                        if !types::is_convertible(ir, ll, t) {
                            errors.push(ir.op_error(
                                op,
                                format!(
                                    "cannot be translated to LLVM IR: type '{}' has no LLVM IR equivalent",
                                    type_to_string(ir, t)
                                ),
                            ));
                        }
                    }
                }
            }
            continue;
        }
        let mut bad: Vec<Type> = Vec::new();
        let values = ir.operands(op).iter().chain(ir.results(op));
        for &v in values {
            let t = ir.value_type(v);
            if !types::is_convertible(ir, ll, t) && !bad.contains(&t) {
                bad.push(t);
            }
        }
        for &r in ir.regions(op) {
            for &b in ir.region_blocks(r) {
                for &a in ir.block_args(b) {
                    let t = ir.value_type(a);
                    if !types::is_convertible(ir, ll, t) && !bad.contains(&t) {
                        bad.push(t);
                    }
                }
            }
        }
        for t in bad {
            errors.push(ir.op_error(
                op,
                format!(
                    "cannot be translated to LLVM IR: type '{}' has no LLVM IR equivalent",
                    type_to_string(ir, t)
                ),
            ));
        }
        let extra = [
            crate::arith::check_op(ir, op),
            crate::math::check_op(ir, op),
            crate::memref::check_op(ir, op),
            crate::vector::check_op(ir, op),
        ];
        errors.extend(extra.into_iter().flatten());
    }
    errors
}

/// The `function_type` of a `func.func`.
pub(crate) fn func_type(ir: &Context, op: Op) -> Option<Type> {
    ir.attr_type(ir.attr(op, "function_type")?)
}

fn func_name(ir: &Context, op: Op) -> Option<&str> {
    ir.attr_str(ir.attr(op, "sym_name")?)
}

fn is_public(ir: &Context, op: Op) -> bool {
    ir.attr(op, "sym_visibility")
        .and_then(|a| ir.attr_str(a))
        .is_none_or(|v| v == "public")
}

/// Translates a module (a `builtin.module` of `func.func`s) into a new LLVM module named
/// `name`. Every untranslatable op is reported, each at its location.
///
/// Besides each function, a public function with a body gets a C-interface wrapper
/// (`_mlir_ciface_NAME`, see the crate documentation).
pub fn translate_module<'ll>(
    ir: &Context,
    module: Op,
    ll: &'ll LlContext,
    name: &str,
) -> Result<Module<'ll>, Vec<Diagnostic>> {
    let errors = check(ir, ll, module);
    if !errors.is_empty() {
        return Err(errors);
    }
    let llmod = ll.create_module(name);
    let mut t = ModuleTranslator {
        ir,
        ll,
        module: llmod,
        funcs: HashMap::new(),
    };
    let funcs: Vec<Op> = ir
        .regions(module)
        .first()
        .map(|&r| {
            ir.region_blocks(r)
                .iter()
                .flat_map(|&b| ir.block_ops(b))
                .collect()
        })
        .unwrap_or_default();
    let (globals, funcs): (Vec<Op>, Vec<Op>) = funcs
        .into_iter()
        .partition(|&o| ir.op_name_str(o) == "memref.global");
    let mut errors = Vec::new();
    for &g in &globals {
        if let Err(d) = crate::memref::declare_global(&mut t, g) {
            errors.push(d);
        }
    }
    for &f in &funcs {
        if let Err(d) = t.declare(f) {
            errors.push(d);
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    for &f in &funcs {
        let has_body = ir
            .regions(f)
            .first()
            .is_some_and(|&r| !ir.region_blocks(r).is_empty());
        if !has_body {
            continue;
        }
        if let Err(d) = t.define(f) {
            errors.push(d);
        }
    }
    // The C-interface wrappers follow every function, in the same order.
    for &f in &funcs {
        let has_body = ir
            .regions(f)
            .first()
            .is_some_and(|&r| !ir.region_blocks(r).is_empty());
        if has_body && is_public(ir, f) && errors.is_empty() {
            if let Err(d) = t.ciface_wrapper(f) {
                errors.push(d);
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    if let Err(msg) = t.module.verify() {
        return Err(vec![Diagnostic::error(
            ir.op_loc(module),
            format!(
                "internal error: the LLVM IR generated for this module does not verify: {}",
                msg.to_string().trim_end()
            ),
        )]);
    }
    Ok(t.module)
}

/// How a function's arguments and results are passed at the LLVM level.
struct Signature<'ll> {
    /// Per nart argument: the LLVM parameters it takes (a memref expands to its descriptor's
    /// fields, as upstream; anything else is one parameter).
    params: Vec<BasicTypeEnum<'ll>>,
    /// Per nart argument, its LLVM type (the descriptor struct for memrefs).
    args: Vec<BasicTypeEnum<'ll>>,
    /// The return type (`None` is `void`).
    ret: Option<BasicTypeEnum<'ll>>,
}

impl<'ll> Signature<'ll> {
    fn fn_type(&self, ll: &'ll LlContext) -> FunctionType<'ll> {
        let params: Vec<BasicMetadataTypeEnum> = self.params.iter().map(|&t| t.into()).collect();
        match self.ret {
            Some(r) => r.fn_type(&params, false),
            None => ll.void_type().fn_type(&params, false),
        }
    }
}

/// The LLVM parameters a value of type `t` takes: the fields of a memref descriptor, or the
/// type itself.
fn expanded<'ll>(
    ll: &'ll LlContext,
    t: BasicTypeEnum<'ll>,
    is_memref: bool,
) -> Vec<BasicTypeEnum<'ll>> {
    if !is_memref {
        return vec![t];
    }
    let s = t.into_struct_type();
    let mut out = Vec::new();
    for f in s.get_field_types() {
        match f {
            BasicTypeEnum::ArrayType(a) => {
                out.extend((0..a.len()).map(|_| ll.i64_type().as_basic_type_enum()))
            }
            other => out.push(other),
        }
    }
    out
}

pub(crate) fn is_memref(ir: &Context, t: Type) -> bool {
    matches!(ir.type_data(t), TypeData::MemRef { .. })
}

pub(crate) struct ModuleTranslator<'a, 'll> {
    pub(crate) ir: &'a Context,
    pub(crate) ll: &'ll LlContext,
    pub(crate) module: Module<'ll>,
    funcs: HashMap<String, (FunctionValue<'ll>, Op)>,
}

impl<'a, 'll> ModuleTranslator<'a, 'll> {
    fn signature(&self, fty: Type) -> Option<Signature<'ll>> {
        let TypeData::Function { inputs, results } = self.ir.type_data(fty) else {
            return None;
        };
        let mut params = Vec::new();
        let mut args = Vec::new();
        for &t in inputs {
            let lt = types::convert(self.ir, self.ll, t)?;
            params.extend(expanded(self.ll, lt, is_memref(self.ir, t)));
            args.push(lt);
        }
        let ret = types::results_type(self.ir, self.ll, results)?;
        Some(Signature { params, args, ret })
    }

    fn declare(&mut self, f: Op) -> Result<(), Diagnostic> {
        let ir = self.ir;
        let name = func_name(ir, f).ok_or_else(|| ir.op_error(f, "has no symbol name"))?;
        let fty = func_type(ir, f).ok_or_else(|| ir.op_error(f, "has no function type"))?;
        let sig = self
            .signature(fty)
            .ok_or_else(|| ir.op_error(f, "has a type with no LLVM IR equivalent"))?;
        let has_body = ir
            .regions(f)
            .first()
            .is_some_and(|&r| !ir.region_blocks(r).is_empty());
        let linkage = if has_body && !is_public(ir, f) {
            Linkage::Internal
        } else {
            Linkage::External
        };
        let fv = self
            .module
            .add_function(name, sig.fn_type(self.ll), Some(linkage));
        self.funcs.insert(name.to_string(), (fv, f));
        Ok(())
    }

    fn define(&mut self, f: Op) -> Result<(), Diagnostic> {
        let ir = self.ir;
        let name = func_name(ir, f).unwrap_or_default().to_string();
        let (fv, _) = self.funcs[&name];
        let fty = func_type(ir, f).ok_or_else(|| ir.op_error(f, "has no function type"))?;
        let sig = self
            .signature(fty)
            .ok_or_else(|| ir.op_error(f, "has a type with no LLVM IR equivalent"))?;
        let region = ir.region(f, 0);
        let blocks = ir.region_blocks(region).to_vec();
        let builder = self.ll.create_builder();
        let mut fx = FnTranslator {
            m: self,
            builder,
            values: HashMap::new(),
            blocks: HashMap::new(),
            phis: HashMap::new(),
            ret: sig.ret,
        };
        for &b in &blocks {
            let bb = fx.m.ll.append_basic_block(fv, "");
            fx.blocks.insert(b, bb);
        }
        // Entry block arguments are the parameters (a memref's descriptor is rebuilt from
        // its expanded fields); the others become phis.
        let entry = blocks[0];
        fx.builder.position_at_end(fx.blocks[&entry]);
        let mut p = 0u32;
        for (i, &arg) in ir.block_args(entry).iter().enumerate() {
            let lt = sig.args[i];
            let v = if is_memref(ir, ir.value_type(arg)) {
                let n = expanded(fx.m.ll, lt, true).len() as u32;
                let fields: Vec<BasicValueEnum> = (p..p + n)
                    .map(|k| {
                        fv.get_nth_param(k)
                            .expect("parameter count matches the signature")
                    })
                    .collect();
                p += n;
                fx.pack_descriptor(lt, &fields)
                    .map_err(|e| fx.builder_error(f, e))?
            } else {
                let v = fv
                    .get_nth_param(p)
                    .expect("parameter count matches the signature");
                p += 1;
                v
            };
            fx.values.insert(arg, v);
        }
        for &b in &blocks[1..] {
            fx.builder.position_at_end(fx.blocks[&b]);
            let mut phis = Vec::new();
            for &arg in ir.block_args(b) {
                let lt = types::convert(ir, fx.m.ll, ir.value_type(arg))
                    .expect("checked before translation");
                let phi = fx
                    .builder
                    .build_phi(lt, "")
                    .map_err(|e| fx.builder_error(f, e))?;
                fx.values.insert(arg, phi.as_basic_value());
                phis.push(phi);
            }
            fx.phis.insert(b, phis);
        }
        // Blocks in reverse post-order, so that a value is translated before its uses
        // (definitions dominate uses); unreachable blocks only get `unreachable`.
        let order = reverse_post_order(ir, entry);
        let reached: HashSet<Block> = order.iter().copied().collect();
        for &b in &order {
            fx.builder.position_at_end(fx.blocks[&b]);
            for op in ir.block_ops_iter(b) {
                fx.lower_op(op)?;
            }
        }
        for &b in &blocks {
            if !reached.contains(&b) {
                fx.builder.position_at_end(fx.blocks[&b]);
                fx.builder
                    .build_unreachable()
                    .map_err(|e| fx.builder_error(f, e))?;
            }
        }
        Ok(())
    }

    /// `_mlir_ciface_NAME`: memref arguments come as pointers to descriptors; when the
    /// function returns a memref or several results, the first parameter points to where the
    /// result goes and the wrapper returns `void`. Scalars pass by value.
    fn ciface_wrapper(&mut self, f: Op) -> Result<(), Diagnostic> {
        let ir = self.ir;
        let ll = self.ll;
        let name = func_name(ir, f).unwrap_or_default().to_string();
        let (callee, _) = self.funcs[&name];
        let fty = func_type(ir, f).expect("declared before");
        let TypeData::Function { inputs, results } = ir.type_data(fty).clone() else {
            unreachable!("function_type is a function type (verified)")
        };
        let sig = self.signature(fty).expect("declared before");
        let ptr = ll.ptr_type(AddressSpace::default());
        let ret_by_ptr = results.len() > 1 || results.iter().any(|&t| is_memref(ir, t));
        let mut params: Vec<BasicMetadataTypeEnum> = Vec::new();
        if ret_by_ptr {
            params.push(ptr.into());
        }
        for (i, &t) in inputs.iter().enumerate() {
            params.push(if is_memref(ir, t) {
                ptr.into()
            } else {
                sig.args[i].into()
            });
        }
        let wty = match (ret_by_ptr, sig.ret) {
            (false, Some(r)) => r.fn_type(&params, false),
            _ => ll.void_type().fn_type(&params, false),
        };
        let w = self.module.add_function(
            &format!("{CIFACE_PREFIX}{name}"),
            wty,
            Some(Linkage::External),
        );
        let b = ll.create_builder();
        b.position_at_end(ll.append_basic_block(w, ""));
        let err = |e: BuilderError| {
            ir.op_error(
                f,
                format!("internal error while building its C interface: {e}"),
            )
        };
        let first = usize::from(ret_by_ptr) as u32;
        let mut call_args: Vec<BasicMetadataValueEnum> = Vec::new();
        for (i, &t) in inputs.iter().enumerate() {
            let p = w
                .get_nth_param(first + i as u32)
                .expect("wrapper parameter");
            if is_memref(ir, t) {
                let st = sig.args[i].into_struct_type();
                let d = b.build_load(st, p.into_pointer_value(), "").map_err(err)?;
                for k in 0..st.count_fields() {
                    let field = b
                        .build_extract_value(d.into_struct_value(), k, "")
                        .map_err(err)?;
                    match field {
                        BasicValueEnum::ArrayValue(a) => {
                            let n = a.get_type().len();
                            for j in 0..n {
                                let e = b.build_extract_value(a, j, "").map_err(err)?;
                                call_args.push(e.into());
                            }
                        }
                        other => call_args.push(other.into()),
                    }
                }
            } else {
                call_args.push(p.into());
            }
        }
        let call = b.build_call(callee, &call_args, "").map_err(err)?;
        match (ret_by_ptr, call.try_as_basic_value()) {
            (true, ValueKind::Basic(v)) => {
                let out = w
                    .get_nth_param(0)
                    .expect("result pointer")
                    .into_pointer_value();
                b.build_store(out, v).map_err(err)?;
                b.build_return(None).map_err(err)?;
            }
            (false, ValueKind::Basic(v)) => {
                b.build_return(Some(&v)).map_err(err)?;
            }
            _ => {
                b.build_return(None).map_err(err)?;
            }
        }
        Ok(())
    }
}

/// Blocks reachable from `entry` in reverse post-order.
fn reverse_post_order(ir: &Context, entry: Block) -> Vec<Block> {
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    // Iterative depth-first search: (block, next successor index).
    let mut stack = vec![(entry, 0usize)];
    seen.insert(entry);
    while let Some(&mut (b, ref mut i)) = stack.last_mut() {
        let succs: Vec<Block> = ir
            .block_last_op(b)
            .map(|t| ir.successors(t).to_vec())
            .unwrap_or_default();
        if *i < succs.len() {
            let s = succs[*i];
            *i += 1;
            if seen.insert(s) {
                stack.push((s, 0));
            }
        } else {
            post.push(b);
            stack.pop();
        }
    }
    post.reverse();
    post
}

/// The translation of one function body.
pub(crate) struct FnTranslator<'m, 'a, 'll> {
    pub(crate) m: &'m mut ModuleTranslator<'a, 'll>,
    pub(crate) builder: Builder<'ll>,
    values: HashMap<Value, BasicValueEnum<'ll>>,
    blocks: HashMap<Block, BasicBlock<'ll>>,
    phis: HashMap<Block, Vec<PhiValue<'ll>>>,
    ret: Option<BasicTypeEnum<'ll>>,
}

/// Turns an inkwell builder error into a diagnostic at `op` (a closure that borrows only the
/// nart context, so that the translator stays free to change).
pub(crate) fn builder_err(ir: &Context, op: Op) -> impl Fn(BuilderError) -> Diagnostic + Copy + '_ {
    move |e| {
        ir.op_error(
            op,
            format!("internal error while translating to LLVM IR: {e}"),
        )
    }
}

/// The result of translating one op.
pub(crate) type OpResult = Result<(), Diagnostic>;

impl<'ll> FnTranslator<'_, '_, 'll> {
    pub(crate) fn ir(&self) -> &Context {
        self.m.ir
    }

    pub(crate) fn builder_error(&self, op: Op, e: BuilderError) -> Diagnostic {
        self.m.ir.op_error(
            op,
            format!("internal error while translating to LLVM IR: {e}"),
        )
    }

    /// The LLVM value of a nart value (translated before: definitions dominate uses).
    pub(crate) fn value(&self, op: Op, v: Value) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        self.values.get(&v).copied().ok_or_else(|| {
            self.m.ir.op_error(
                op,
                "internal error: an operand was not translated before its use",
            )
        })
    }

    pub(crate) fn operand(&self, op: Op, i: usize) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        self.value(op, self.m.ir.operand(op, i))
    }

    /// Maps a nart value (a block argument of a nested region) to an LLVM value.
    pub(crate) fn bind(&mut self, v: Value, lv: BasicValueEnum<'ll>) {
        self.values.insert(v, lv);
    }

    /// Translates the ops of a block nested in a structured op (`scf.for`'s body, ...) at the
    /// builder's position, except its terminator, which is returned for the parent to handle
    /// (`None` when the block has none, as a body that yields nothing may).
    pub(crate) fn lower_nested_block(&mut self, block: Block) -> Result<Option<Op>, Diagnostic> {
        let ir = self.m.ir;
        let ops = ir.block_ops(block);
        let term = ops.last().copied().filter(|&t| {
            ir.op_def(t)
                .is_some_and(|d| d.has_trait(nart_ir::Trait::Terminator))
        });
        let body = if term.is_some() {
            &ops[..ops.len() - 1]
        } else {
            &ops[..]
        };
        for &op in body {
            self.lower_op(op)?;
        }
        Ok(term)
    }

    pub(crate) fn set_result(&mut self, op: Op, i: usize, v: BasicValueEnum<'ll>) {
        let r = self.m.ir.result(op, i);
        self.values.insert(r, v);
    }

    /// The LLVM type of a nart type (checked convertible before translation).
    pub(crate) fn ty(&self, t: Type) -> BasicTypeEnum<'ll> {
        types::convert(self.m.ir, self.m.ll, t).expect("types are checked before translation")
    }

    pub(crate) fn result_ty(&self, op: Op, i: usize) -> BasicTypeEnum<'ll> {
        self.ty(self.m.ir.value_type(self.m.ir.result(op, i)))
    }

    /// Calls an overloaded LLVM intrinsic.
    pub(crate) fn intrinsic(
        &self,
        op: Op,
        name: &str,
        overloads: &[BasicTypeEnum<'ll>],
        args: &[BasicValueEnum<'ll>],
    ) -> Result<BasicValueEnum<'ll>, Diagnostic> {
        let decl = inkwell::intrinsics::Intrinsic::find(name)
            .and_then(|i| i.get_declaration(&self.m.module, overloads))
            .ok_or_else(|| {
                self.m.ir.op_error(
                    op,
                    format!("internal error: LLVM has no intrinsic '{name}'"),
                )
            })?;
        let args: Vec<BasicMetadataValueEnum> = args.iter().map(|&a| a.into()).collect();
        let call = self
            .builder
            .build_call(decl, &args, "")
            .map_err(|e| self.builder_error(op, e))?;
        match call.try_as_basic_value() {
            ValueKind::Basic(v) => Ok(v),
            ValueKind::Instruction(_) => Err(self.m.ir.op_error(
                op,
                format!("internal error: intrinsic '{name}' returns nothing"),
            )),
        }
    }

    /// Builds a memref descriptor struct of type `st` from its flattened fields.
    fn pack_descriptor(
        &self,
        st: BasicTypeEnum<'ll>,
        fields: &[BasicValueEnum<'ll>],
    ) -> Result<BasicValueEnum<'ll>, BuilderError> {
        let st = st.into_struct_type();
        let mut agg = st.get_undef();
        let mut k = 0usize;
        for (i, ft) in st.get_field_types().into_iter().enumerate() {
            let v: BasicValueEnum = match ft {
                BasicTypeEnum::ArrayType(a) => {
                    let mut arr = a.get_undef();
                    for j in 0..a.len() {
                        arr = self
                            .builder
                            .build_insert_value(arr, fields[k], j, "")?
                            .into_array_value();
                        k += 1;
                    }
                    arr.into()
                }
                _ => {
                    k += 1;
                    fields[k - 1]
                }
            };
            agg = self
                .builder
                .build_insert_value(agg, v, i as u32, "")?
                .into_struct_value();
        }
        Ok(agg.into())
    }

    fn lower_op(&mut self, op: Op) -> OpResult {
        let name = self.m.ir.op_name_str(op).to_string();
        match name.as_str() {
            "func.return" => self.lower_return(op),
            "func.call" | "func.call_indirect" => self.lower_call(op),
            "func.constant" => {
                let ir = self.m.ir;
                let name = ir
                    .attr(op, "value")
                    .and_then(|a| ir.attr_flat_symbol(a))
                    .ok_or_else(|| ir.op_error(op, "has no flat symbol"))?;
                let (f, _) = *self.m.funcs.get(name).ok_or_else(|| {
                    ir.op_error(
                        op,
                        format!("refers to '@{name}', which is not a function of this module"),
                    )
                })?;
                self.set_result(op, 0, f.as_global_value().as_pointer_value().into());
                Ok(())
            }
            "cf.br" | "cf.cond_br" | "cf.switch" => self.lower_branch(op, &name),
            "cf.assert" => self.lower_assert(op),
            n if crate::arith::is_known(n) => crate::arith::lower(self, op, n),
            n if crate::scf::is_known(n) => crate::scf::lower(self, op, n),
            n if crate::math::is_known(n) => crate::math::lower(self, op, n),
            n if crate::memref::is_known(n) => crate::memref::lower(self, op, n),
            n if crate::vector::is_known(n) => crate::vector::lower(self, op, n),
            _ => Err(self.m.ir.op_error(op, "has no translation to LLVM IR")),
        }
    }

    fn lower_return(&mut self, op: Op) -> OpResult {
        let vals: Vec<BasicValueEnum> = (0..self.m.ir.operands(op).len())
            .map(|i| self.operand(op, i))
            .collect::<Result<_, _>>()?;
        let b = &self.builder;
        let e = |e| self.builder_error(op, e);
        match (vals.len(), self.ret) {
            (0, _) => b.build_return(None).map_err(e)?,
            (1, _) => b.build_return(Some(&vals[0])).map_err(e)?,
            (_, Some(rt)) => {
                let mut agg = rt.into_struct_type().get_undef();
                for (i, v) in vals.iter().enumerate() {
                    agg = b
                        .build_insert_value(agg, *v, i as u32, "")
                        .map_err(e)?
                        .into_struct_value();
                }
                b.build_return(Some(&agg)).map_err(e)?
            }
            (_, None) => {
                return Err(self
                    .m
                    .ir
                    .op_error(op, "returns values from a function without results"))
            }
        };
        Ok(())
    }

    /// `func.call` and `func.call_indirect` (whose first operand is the callee).
    fn lower_call(&mut self, op: Op) -> OpResult {
        let ir = self.m.ir;
        let indirect = ir.op_name_str(op) == "func.call_indirect";
        let first = usize::from(indirect);
        let mut args: Vec<BasicMetadataValueEnum> = Vec::new();
        for (i, &v) in ir.operands(op).iter().enumerate().skip(first) {
            let lv = self.operand(op, i)?;
            if is_memref(ir, ir.value_type(v)) {
                for f in self.unpack_descriptor(op, lv)? {
                    args.push(f.into());
                }
            } else {
                args.push(lv.into());
            }
        }
        let call = if indirect {
            let fty = ir.value_type(ir.operand(op, 0));
            let sig = self
                .m
                .signature(fty)
                .ok_or_else(|| ir.op_error(op, "has a callee type with no LLVM IR equivalent"))?;
            let ptr = self.operand(op, 0)?.into_pointer_value();
            self.builder
                .build_indirect_call(sig.fn_type(self.m.ll), ptr, &args, "")
        } else {
            let callee_name = ir
                .attr(op, "callee")
                .and_then(|a| ir.attr_flat_symbol(a))
                .ok_or_else(|| ir.op_error(op, "has no flat callee symbol"))?;
            let (callee, _) = *self.m.funcs.get(callee_name).ok_or_else(|| {
                ir.op_error(
                    op,
                    format!("calls '@{callee_name}', which is not a function of this module"),
                )
            })?;
            self.builder.build_call(callee, &args, "")
        }
        .map_err(|e| self.builder_error(op, e))?;
        let n = ir.results(op).len();
        if n == 0 {
            return Ok(());
        }
        let ValueKind::Basic(v) = call.try_as_basic_value() else {
            return Err(ir.op_error(op, "internal error: the callee returns nothing"));
        };
        if n == 1 {
            self.set_result(op, 0, v);
        } else {
            for i in 0..n {
                let r = self
                    .builder
                    .build_extract_value(v.into_struct_value(), i as u32, "")
                    .map_err(|e| self.builder_error(op, e))?;
                self.set_result(op, i, r);
            }
        }
        Ok(())
    }

    /// The flattened fields of a memref descriptor value.
    pub(crate) fn unpack_descriptor(
        &self,
        op: Op,
        d: BasicValueEnum<'ll>,
    ) -> Result<Vec<BasicValueEnum<'ll>>, Diagnostic> {
        let e = |e| self.builder_error(op, e);
        let s = d.into_struct_value();
        let mut out = Vec::new();
        for k in 0..s.get_type().count_fields() {
            match self.builder.build_extract_value(s, k, "").map_err(e)? {
                BasicValueEnum::ArrayValue(a) => {
                    for j in 0..a.get_type().len() {
                        out.push(self.builder.build_extract_value(a, j, "").map_err(e)?);
                    }
                }
                other => out.push(other),
            }
        }
        Ok(out)
    }

    /// `cf.br`, `cf.cond_br`, `cf.switch`: block arguments become phi incomings; an edge to a
    /// block that the same terminator already reaches goes through a block of its own, since
    /// a phi has one incoming value per predecessor.
    fn lower_branch(&mut self, op: Op, name: &str) -> OpResult {
        let ir = self.m.ir;
        let groups = nart_ir::interfaces::successor_operand_groups(ir, op)
            .ok_or_else(|| ir.op_error(op, "has malformed successor operands"))?;
        let here = self
            .builder
            .get_insert_block()
            .expect("the builder is positioned in a block");
        let mut seen = HashSet::new();
        let mut targets = Vec::new();
        for (b, vals) in &groups {
            let lvals: Vec<BasicValueEnum> = vals
                .iter()
                .map(|&v| self.value(op, v))
                .collect::<Result<_, _>>()?;
            let dest = self.blocks[b];
            let (from, target) = if seen.insert(*b) || lvals.is_empty() {
                (here, dest)
            } else {
                let edge = self.m.ll.insert_basic_block_after(here, "");
                let saved = self.builder.get_insert_block();
                self.builder.position_at_end(edge);
                self.builder
                    .build_unconditional_branch(dest)
                    .map_err(|e| self.builder_error(op, e))?;
                if let Some(s) = saved {
                    self.builder.position_at_end(s);
                }
                (edge, edge)
            };
            for (phi, v) in self.phis.get(b).into_iter().flatten().zip(&lvals) {
                phi.add_incoming(&[(v as &dyn BasicValue, from)]);
            }
            targets.push(target);
        }
        let e = |e| self.builder_error(op, e);
        match name {
            "cf.br" => {
                self.builder
                    .build_unconditional_branch(targets[0])
                    .map_err(e)?;
            }
            "cf.cond_br" => {
                let c = self.operand(op, 0)?.into_int_value();
                self.builder
                    .build_conditional_branch(c, targets[0], targets[1])
                    .map_err(e)?;
            }
            _ => {
                let flag = self.operand(op, 0)?.into_int_value();
                let values = nart_dialect_cf::ops::switch_case_values(ir, op)
                    .ok_or_else(|| ir.op_error(op, "has malformed case values"))?;
                let ity = flag.get_type();
                let cases: Vec<_> = values
                    .iter()
                    .zip(&targets[1..])
                    .map(|(&v, &t)| (crate::arith::const_int_i128(ity, v), t))
                    .collect();
                self.builder
                    .build_switch(flag, targets[0], &cases)
                    .map_err(e)?;
            }
        }
        Ok(())
    }

    /// `cf.assert`: when the condition is false, print the message (`puts`) and abort, as
    /// upstream's lowering does.
    fn lower_assert(&mut self, op: Op) -> OpResult {
        let ir = self.m.ir;
        let ll = self.m.ll;
        let msg = ir
            .attr(op, "msg")
            .and_then(|a| ir.attr_str(a))
            .unwrap_or("assertion failed")
            .to_string();
        let cond = self.operand(op, 0)?.into_int_value();
        let e = |e| self.builder_error(op, e);
        let here = self.builder.get_insert_block().expect("positioned");
        let fail = ll.insert_basic_block_after(here, "");
        let cont = ll.insert_basic_block_after(fail, "");
        self.builder
            .build_conditional_branch(cond, cont, fail)
            .map_err(e)?;
        self.builder.position_at_end(fail);
        let ptr = ll.ptr_type(AddressSpace::default());
        let puts = self.m.module.get_function("puts").unwrap_or_else(|| {
            self.m.module.add_function(
                "puts",
                ll.i32_type().fn_type(&[ptr.into()], false),
                Some(Linkage::External),
            )
        });
        let abort = self.m.module.get_function("abort").unwrap_or_else(|| {
            self.m.module.add_function(
                "abort",
                ll.void_type().fn_type(&[], false),
                Some(Linkage::External),
            )
        });
        let text = self
            .builder
            .build_global_string_ptr(&msg, "assert_msg")
            .map_err(e)?;
        self.builder
            .build_call(puts, &[text.as_pointer_value().into()], "")
            .map_err(e)?;
        self.builder.build_call(abort, &[], "").map_err(e)?;
        self.builder.build_unreachable().map_err(e)?;
        self.builder.position_at_end(cont);
        Ok(())
    }
}
