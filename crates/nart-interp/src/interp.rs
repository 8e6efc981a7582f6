//! The interpreter: a function is planned once into steps over numbered value slots, then run any
//! number of times.
//!
//! Planning walks the body in order (graph ops are in SSA order), decodes every `graph.constant`,
//! extracts each op's attributes, looks its kernel up, and records after which step each
//! intermediate value is used for the last time so that running frees it there.
//! Values used inside a nested region (If, Loop, Scan bodies) count as used by the op holding the
//! region, and are never freed inside it.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use nart_ir::{AttrData, Block, Context, Op, Value};
use nart_tensor::{elem_bytes, human_bytes, numel, DType, Tensor};

use crate::attrs::{AttrValue, Node};
use crate::convert::{
    loc_to_string, quant_params, tensor_from_attr, tensor_type_info, value_kind, ValueKind,
};
use crate::error::{InterpError, Result};
use crate::ops::{self, Kernel};
use crate::value::Val;

/// A declared input of the function: its name, element type and shape (`None` for a dynamic
/// dimension or an unranked input).
#[derive(Clone, Debug, PartialEq)]
pub struct InputSpec {
    /// The input's name (from the argument attributes, else `input_N`).
    pub name: String,
    /// The declared element type, if known.
    pub dtype: Option<DType>,
    /// The declared dimensions, if ranked.
    pub shape: Option<Vec<Option<usize>>>,
    /// Whether the input is a tensor, a sequence or an optional.
    pub kind: ValueKind,
    /// The value to use when the caller gives none (the `onnx.default` argument attribute: an
    /// ONNX initializer that the graph input overrides).
    pub default: Option<Tensor>,
}

/// The declared inputs of `func`, whose entry block is `block`.
fn block_inputs(ctx: &Context, func: Op, block: Block) -> Result<Vec<InputSpec>> {
    let arg_attrs = ctx.attr(func, "arg_attrs");
    let mut inputs = Vec::new();
    for (i, &a) in ctx.block_args(block).iter().enumerate() {
        let ty = ctx.value_type(a);
        let (dtype, shape) = tensor_type_info(ctx, ty).unwrap_or((None, None));
        inputs.push(InputSpec {
            name: arg_name(ctx, arg_attrs, i).unwrap_or_else(|| format!("input_{i}")),
            dtype,
            shape,
            kind: value_kind(ctx, ty),
            default: arg_default(ctx, arg_attrs, i)?,
        });
    }
    Ok(inputs)
}

impl InputSpec {
    /// The declared shape as text, with `?` for dynamic dimensions.
    pub fn shape_text(&self) -> String {
        match &self.shape {
            None => "*".into(),
            Some(dims) => {
                let parts: Vec<String> = dims
                    .iter()
                    .map(|d| d.map_or("?".to_string(), |d| d.to_string()))
                    .collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }
}

/// The bounds of a run: memory and loop iterations.
///
/// The default bounds nothing but absurd shapes ([`nart_tensor::MAX_ELEMENTS`]); `nart run` sets
/// a memory limit from the machine's memory and an iteration limit.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The most bytes a run may allocate beyond what the process holds when it starts (the
    /// model, its constants and the inputs). Every op checks it before it runs: the bytes of its
    /// results where their shapes are static, and each tensor a kernel sizes from its inputs'
    /// values (through [`nart_tensor::with_max_bytes`]); with [`Limits::memory_in_use`], against
    /// what the run has left of it.
    pub max_memory: usize,
    /// The most iterations of loop bodies (Loop, Scan, SequenceMap, nested ones included) a run
    /// may execute.
    pub max_iterations: u64,
    /// The bytes the process has allocated now, when the caller can tell (a counting global
    /// allocator, as the `nart` binary has): each op then gets what the run has left of
    /// `max_memory` (its growth since it started counts), and the run stops after an op that
    /// takes it past the limit.
    pub memory_in_use: Option<fn() -> usize>,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_memory: usize::MAX,
            max_iterations: u64::MAX,
            memory_in_use: None,
        }
    }
}

/// One op to run.
pub(crate) struct Step {
    pub(crate) node: Node,
    /// The bytes of the results whose shapes are static.
    result_bytes: usize,
    pub(crate) kernel: Option<Kernel>,
    /// Operand slots; `None` for an absent optional operand.
    pub(crate) inputs: Vec<Option<usize>>,
    pub(crate) outputs: Vec<usize>,
    /// Regions by name (for If: `then_branch`, `else_branch`; Loop and Scan: `body`).
    pub(crate) regions: Vec<(String, BlockPlan)>,
    /// Slots whose last use is this step.
    free_after: Vec<usize>,
}

/// A planned block: where its arguments go, its steps, and which slots it returns.
pub(crate) struct BlockPlan {
    pub(crate) args: Vec<usize>,
    pub(crate) steps: Vec<Step>,
    pub(crate) results: Vec<Option<usize>>,
}

/// Sees the values of a run as they are computed: calibration collects statistics through it,
/// a debugger could print them.
///
/// [`Interpreter::run_observed`] calls it with each argument of the function and then with each
/// value an op of the function's body computes, in execution order, while the value is still
/// alive; values computed inside nested regions (If, Loop, Scan bodies) are not shown.
/// [`Interpreter::run`] and [`Interpreter::run_values`] take no observer and pay nothing for it.
pub trait Observer {
    /// Sees `val`, the run-time value of the IR value `value`.
    fn observe(&mut self, value: Value, val: &Val);
}

/// A function ready to run.
pub struct Interpreter {
    main: BlockPlan,
    n_slots: usize,
    /// The IR value of each top-level slot (for observers).
    slot_values: Vec<Option<Value>>,
    consts: Vec<(usize, Arc<Val>)>,
    inputs: Vec<InputSpec>,
    output_names: Vec<String>,
    output_kinds: Vec<ValueKind>,
    limits: Limits,
}

impl std::fmt::Debug for Interpreter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Interpreter")
            .field("steps", &self.main.steps.len())
            .field("inputs", &self.inputs)
            .finish()
    }
}

struct Planner<'c> {
    ctx: &'c Context,
    slots: HashMap<Value, usize>,
    /// Values that stand for an absent optional (`graph.none` results).
    absent: HashSet<Value>,
    consts: Vec<(usize, Arc<Val>)>,
    const_slots: HashSet<usize>,
    n_slots: usize,
    unsupported: Vec<(String, String)>,
}

impl Planner<'_> {
    fn new_slot(&mut self, v: Value) -> usize {
        let s = self.n_slots;
        self.n_slots += 1;
        self.slots.insert(v, s);
        s
    }

    fn operand_slot(&self, op: Op, v: Value) -> Result<Option<usize>> {
        if self.absent.contains(&v) {
            return Ok(None);
        }
        match self.slots.get(&v) {
            Some(&s) => Ok(Some(s)),
            None => Err(InterpError::BadOp {
                op: self.ctx.op_name_str(op).to_string(),
                loc: loc_to_string(self.ctx, self.ctx.op_loc(op)),
                msg: "uses a value defined after it (ops must be in SSA order)".into(),
            }),
        }
    }

    /// Plans a block; returns the plan and the slots it uses that it does not define.
    fn plan_block(&mut self, block: Block) -> Result<(BlockPlan, HashSet<usize>)> {
        let ctx = self.ctx;
        let mut defined: HashSet<usize> = HashSet::new();
        let mut captured: HashSet<usize> = HashSet::new();
        let args: Vec<usize> = ctx
            .block_args(block)
            .iter()
            .map(|&a| self.new_slot(a))
            .collect();
        defined.extend(args.iter().copied());
        let mut steps = Vec::new();
        // Per step: every slot it reads, including captures of its regions.
        let mut step_uses: Vec<Vec<usize>> = Vec::new();
        let mut results = Vec::new();
        for op in ctx.block_ops_iter(block) {
            let name = ctx.op_name_str(op);
            match name {
                "func.return" | "graph.yield" => {
                    for &v in ctx.operands(op) {
                        let s = self.operand_slot(op, v)?;
                        if let Some(s) = s {
                            if !defined.contains(&s) {
                                captured.insert(s);
                            }
                        }
                        results.push(s);
                    }
                    break;
                }
                "graph.none" => {
                    for &r in ctx.results(op) {
                        self.absent.insert(r);
                    }
                }
                "graph.constant" => {
                    let loc = loc_to_string(ctx, ctx.op_loc(op));
                    let attr = ctx.attr(op, "value").ok_or_else(|| InterpError::BadOp {
                        op: name.into(),
                        loc: loc.clone(),
                        msg: "has no 'value' attribute".into(),
                    })?;
                    let t = tensor_from_attr(ctx, attr).map_err(|msg| InterpError::BadOp {
                        op: name.into(),
                        loc,
                        msg,
                    })?;
                    let s = self.new_slot(ctx.result(op, 0));
                    self.consts.push((s, Arc::new(Val::Tensor(t))));
                    self.const_slots.insert(s);
                }
                _ => {
                    let (step, uses) = self.plan_op(op)?;
                    for &u in &uses {
                        if !defined.contains(&u) {
                            captured.insert(u);
                        }
                    }
                    defined.extend(step.outputs.iter().copied());
                    step_uses.push(uses);
                    steps.push(step);
                }
            }
        }
        // Last use of every slot this block defines; results stay alive to the end.
        let keep: HashSet<usize> = results.iter().flatten().copied().collect();
        let mut last: HashMap<usize, usize> = HashMap::new();
        for (i, uses) in step_uses.iter().enumerate() {
            for &u in uses {
                if defined.contains(&u) && !keep.contains(&u) && !self.const_slots.contains(&u) {
                    last.insert(u, i);
                }
            }
        }
        // Outputs nobody reads are freed right after the step that makes them.
        for (i, step) in steps.iter().enumerate() {
            for &o in &step.outputs {
                if !keep.contains(&o) {
                    last.entry(o).or_insert(i);
                }
            }
        }
        for (slot, i) in last {
            steps[i].free_after.push(slot);
        }
        Ok((
            BlockPlan {
                args,
                steps,
                results,
            },
            captured,
        ))
    }

    fn plan_op(&mut self, op: Op) -> Result<(Step, Vec<usize>)> {
        let ctx = self.ctx;
        let name = ctx.op_name_str(op);
        let loc = loc_to_string(ctx, ctx.op_loc(op));
        let schema = nart_dialect_graph::schema::schema_of_op(name);
        let kernel = ctx
            .op_interface::<dyn ops::ReferenceKernel>(op)
            .map(|k| k.kernel());
        if kernel.is_none() {
            self.unsupported.push((name.to_string(), loc.clone()));
        }
        let node = node_of(ctx, op);
        let mut inputs = Vec::new();
        let mut uses = Vec::new();
        for &v in ctx.operands(op) {
            let s = self.operand_slot(op, v)?;
            if let Some(s) = s {
                uses.push(s);
            }
            inputs.push(s);
        }
        let region_names: Vec<&str> = schema
            .map(|s| s.def)
            .map(|d| d.regions.iter().map(|r| r.name).collect())
            .unwrap_or_default();
        let mut regions = Vec::new();
        for (i, &region) in ctx.regions(op).iter().enumerate() {
            let rname = region_names.get(i).copied().unwrap_or("body").to_string();
            let blocks = ctx.region_blocks(region);
            if blocks.len() != 1 {
                return Err(InterpError::BadOp {
                    op: name.into(),
                    loc: node.loc.clone(),
                    msg: format!("region '{rname}' must have exactly one block"),
                });
            }
            let (plan, captured) = self.plan_block(blocks[0])?;
            uses.extend(captured);
            regions.push((rname, plan));
        }
        let outputs = ctx.results(op).iter().map(|&r| self.new_slot(r)).collect();
        let result_bytes = node
            .out_shapes
            .iter()
            .zip(&node.out_dtypes)
            .filter_map(|(s, d)| Some(numel(s.as_ref()?).saturating_mul(elem_bytes((*d)?))))
            .fold(0usize, usize::saturating_add);
        Ok((
            Step {
                node,
                result_bytes,
                kernel,
                inputs,
                outputs,
                regions,
                free_after: Vec::new(),
            },
            uses,
        ))
    }
}

/// The interpreter's view of `op` (its name, location, attributes with the schema's defaults,
/// result types and quantization), as plans and [`eval_op`] build it.
pub fn node_of(ctx: &Context, op: Op) -> Node {
    let name = ctx.op_name_str(op);
    let loc = loc_to_string(ctx, ctx.op_loc(op));
    let schema = nart_dialect_graph::schema::schema_of_op(name);
    let mut attrs = Vec::new();
    for na in ctx.props(op).iter().chain(ctx.attrs(op)) {
        attrs.push((
            ctx.str(na.name).to_string(),
            AttrValue::from_ir(ctx, na.value),
        ));
    }
    let mut node = Node::new(name, loc, attrs, schema);
    for &v in ctx.operands(op) {
        node.in_quant.push(quant_params(ctx, ctx.value_type(v)));
    }
    for &r in ctx.results(op) {
        node.out_quant.push(quant_params(ctx, ctx.value_type(r)));
        let info = tensor_type_info(ctx, ctx.value_type(r));
        node.out_dtypes.push(info.as_ref().and_then(|i| i.0));
        node.out_shapes.push(
            info.and_then(|i| i.1)
                .and_then(|d| d.into_iter().collect::<Option<Vec<usize>>>()),
        );
    }
    node
}

/// Evaluates one op without regions on tensors (`None` for an absent optional operand) with its
/// reference kernel: `None` when the op has no tensor kernel, else the kernel's results (a
/// kernel error names the op and its location). Constant folding uses this.
pub fn eval_op(ctx: &Context, op: Op, inputs: &[Option<&Tensor>]) -> Option<Result<Vec<Tensor>>> {
    let Some(Kernel::Tensor(kernel)) = ctx
        .op_interface::<dyn ops::ReferenceKernel>(op)
        .map(|k| k.kernel())
    else {
        return None;
    };
    let node = node_of(ctx, op);
    Some(kernel(&node, inputs).map_err(|error| InterpError::Kernel {
        op: node.op.clone(),
        loc: node.loc.clone(),
        error,
    }))
}

/// The `onnx.default` value of argument `i`, if it has one.
fn arg_default(ctx: &Context, dicts: Option<nart_ir::Attr>, i: usize) -> Result<Option<Tensor>> {
    let Some(AttrData::Array(items)) = dicts.map(|d| ctx.attr_data(d)) else {
        return Ok(None);
    };
    let Some(AttrData::Dictionary(entries)) = items.get(i).map(|&d| ctx.attr_data(d)) else {
        return Ok(None);
    };
    let Some(e) = entries.iter().find(|e| ctx.str(e.name) == "onnx.default") else {
        return Ok(None);
    };
    tensor_from_attr(ctx, e.value)
        .map(Some)
        .map_err(|m| InterpError::BadFunction(format!("argument #{i}'s default value: {m}")))
}

fn arg_name(ctx: &Context, dicts: Option<nart_ir::Attr>, i: usize) -> Option<String> {
    let AttrData::Array(items) = ctx.attr_data(dicts?) else {
        return None;
    };
    let AttrData::Dictionary(entries) = ctx.attr_data(*items.get(i)?) else {
        return None;
    };
    entries.iter().find_map(|e| {
        let key = ctx.str(e.name);
        if key == "onnx.name" || key.ends_with(".name") || key == "name" {
            ctx.attr_str(e.value).map(str::to_string)
        } else {
            None
        }
    })
}

impl Interpreter {
    /// Plans `func` (a `func.func` whose body is graph-dialect ops).
    pub fn new(ctx: &Context, func: Op) -> Result<Interpreter> {
        let registered = ctx.lookup_ident("graph.Add").is_some_and(|id| {
            ctx.op_interface_by_name::<dyn ops::ReferenceKernel>(id)
                .is_some()
        });
        if !registered {
            return Err(InterpError::BadFunction(
                "no reference kernels are registered in this context: call \
                 nart_interp::register(&mut ctx) after registering the graph dialect"
                    .into(),
            ));
        }
        let region = ctx
            .regions(func)
            .first()
            .copied()
            .ok_or_else(|| InterpError::BadFunction("the function has no body".into()))?;
        let blocks = ctx.region_blocks(region);
        if blocks.len() != 1 {
            return Err(InterpError::BadFunction(format!(
                "the body has {} blocks; only single-block functions are supported",
                blocks.len()
            )));
        }
        let mut planner = Planner {
            ctx,
            slots: HashMap::new(),
            absent: HashSet::new(),
            consts: Vec::new(),
            const_slots: HashSet::new(),
            n_slots: 0,
            unsupported: Vec::new(),
        };
        let (main, _) = planner.plan_block(blocks[0])?;
        let mut slot_values = vec![None; planner.n_slots];
        for (&v, &s) in &planner.slots {
            slot_values[s] = Some(v);
        }
        match planner.unsupported.as_slice() {
            [] => {}
            [(op, loc)] => {
                return Err(InterpError::Unsupported {
                    op: op.clone(),
                    loc: loc.clone(),
                })
            }
            many => {
                let mut names: Vec<&str> = many.iter().map(|(n, _)| n.as_str()).collect();
                names.sort_unstable();
                names.dedup();
                return Err(InterpError::UnsupportedOps {
                    ops: names.join(", "),
                    first: format!("'{}' at {}", many[0].0, many[0].1),
                });
            }
        }
        let res_attrs = ctx.attr(func, "res_attrs");
        let inputs = block_inputs(ctx, func, blocks[0])?;
        let output_kinds = ctx
            .block_last_op(blocks[0])
            .map(|ret| {
                ctx.operands(ret)
                    .iter()
                    .map(|&v| value_kind(ctx, ctx.value_type(v)))
                    .collect()
            })
            .unwrap_or_default();
        let output_names = (0..main.results.len())
            .map(|i| arg_name(ctx, res_attrs, i).unwrap_or_else(|| format!("output_{i}")))
            .collect();
        Ok(Interpreter {
            main,
            n_slots: planner.n_slots,
            slot_values,
            consts: planner.consts,
            inputs,
            output_names,
            output_kinds,
            limits: Limits::default(),
        })
    }

    /// The declared inputs of `func` (what [`Interpreter::inputs`] of `Interpreter::new(ctx,
    /// func)` gives), without planning the body: no constant is decoded.
    pub fn input_specs(ctx: &Context, func: Op) -> Result<Vec<InputSpec>> {
        let block = ctx
            .regions(func)
            .first()
            .and_then(|&r| ctx.region_blocks(r).first().copied())
            .ok_or_else(|| InterpError::BadFunction("the function has no body".into()))?;
        block_inputs(ctx, func, block)
    }

    /// Sets the bounds of later runs.
    pub fn set_limits(&mut self, limits: Limits) {
        self.limits = limits;
    }

    /// The bounds of a run.
    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// Plans the function called `name` in `module`, or, when `name` is `None`, `main_graph` if
    /// present, else the module's first `func.func`.
    pub fn from_module(ctx: &Context, module: Op, name: Option<&str>) -> Result<Interpreter> {
        let region = ctx
            .regions(module)
            .first()
            .copied()
            .ok_or_else(|| InterpError::BadFunction("the module has no body".into()))?;
        let mut funcs = Vec::new();
        for &b in ctx.region_blocks(region) {
            for op in ctx.block_ops_iter(b) {
                if ctx.op_name_str(op) == "func.func" {
                    funcs.push(op);
                }
            }
        }
        let sym = |op: Op| nart_ir::symbol::symbol_name(ctx, op).map(str::to_string);
        let func = match name {
            Some(n) => funcs
                .iter()
                .copied()
                .find(|&f| sym(f).as_deref() == Some(n)),
            None => funcs
                .iter()
                .copied()
                .find(|&f| sym(f).as_deref() == Some("main_graph"))
                .or(funcs.first().copied()),
        };
        let func = func.ok_or_else(|| {
            InterpError::BadFunction(match name {
                Some(n) => format!("the module has no function '@{n}'"),
                None => "the module has no func.func".into(),
            })
        })?;
        Interpreter::new(ctx, func)
    }

    /// The declared inputs.
    pub fn inputs(&self) -> &[InputSpec] {
        &self.inputs
    }

    /// The names of the outputs (from the result attributes, else `output_N`).
    pub fn output_names(&self) -> &[String] {
        &self.output_names
    }

    /// Whether each output is a tensor, a sequence or an optional.
    pub fn output_kinds(&self) -> &[ValueKind] {
        &self.output_kinds
    }

    /// Number of planned steps at the top level (constants and `graph.none` excluded).
    pub fn num_steps(&self) -> usize {
        self.main.steps.len()
    }

    /// Checks inputs against the declared count, element types and shapes.
    pub fn check_inputs(&self, inputs: &[Val]) -> Result<()> {
        if inputs.len() != self.inputs.len() {
            return Err(InterpError::InputCount {
                expected: self.inputs.len(),
                names: self
                    .inputs
                    .iter()
                    .map(|i| format!("'{}'", i.name))
                    .collect::<Vec<_>>()
                    .join(", "),
                got: inputs.len(),
            });
        }
        for (index, (spec, val)) in self.inputs.iter().zip(inputs).enumerate() {
            let Val::Tensor(t) = val else {
                if spec.kind == ValueKind::Tensor {
                    return Err(InterpError::InputKind {
                        index,
                        name: spec.name.clone(),
                        got: val.describe(),
                    });
                }
                continue;
            };
            if let Some(dt) = spec.dtype {
                if dt != t.dtype() {
                    return Err(InterpError::InputDType {
                        index,
                        name: spec.name.clone(),
                        expected: dt,
                        got: t.dtype(),
                    });
                }
            }
            if let Some(dims) = &spec.shape {
                let ok = dims.len() == t.rank()
                    && dims
                        .iter()
                        .zip(t.shape())
                        .all(|(d, &n)| d.is_none_or(|d| d == n));
                if !ok {
                    return Err(InterpError::InputShape {
                        index,
                        name: spec.name.clone(),
                        expected: spec.shape_text(),
                        got: t.shape().to_vec(),
                    });
                }
            }
        }
        Ok(())
    }

    /// Runs the function on tensors; every output must be a tensor.
    pub fn run(&self, inputs: Vec<Tensor>) -> Result<Vec<Tensor>> {
        let outs = self.run_values(inputs.into_iter().map(Val::Tensor).collect())?;
        outs.into_iter()
            .enumerate()
            .map(|(i, v)| match v {
                Val::Tensor(t) => Ok(t),
                other => Err(InterpError::BadFunction(format!(
                    "output #{i} is a {}, not a tensor",
                    other.describe()
                ))),
            })
            .collect()
    }

    /// Runs the function on values (tensors, sequences, optionals).
    pub fn run_values(&self, inputs: Vec<Val>) -> Result<Vec<Val>> {
        self.run_inner(inputs, None)
    }

    /// Runs the function on values, showing `observer` every argument and every value the
    /// function's body computes (see [`Observer`]).
    pub fn run_observed(&self, inputs: Vec<Val>, observer: &mut dyn Observer) -> Result<Vec<Val>> {
        self.run_inner(inputs, Some(observer))
    }

    fn run_inner(&self, inputs: Vec<Val>, observer: Option<&mut dyn Observer>) -> Result<Vec<Val>> {
        self.check_inputs(&inputs)?;
        let mut env = Env {
            slots: vec![None; self.n_slots],
            limits: self.limits,
            iterations: 0,
            baseline: self.limits.memory_in_use.map_or(0, |in_use| in_use()),
        };
        for (s, v) in &self.consts {
            env.slots[*s] = Some(v.clone());
        }
        let args = inputs.into_iter().map(Arc::new).collect();
        let outs = match observer {
            None => run_block(&self.main, &mut env, args)?,
            Some(obs) => run_block_observed(
                &self.main,
                &mut env,
                args,
                Some(Watch {
                    obs,
                    values: &self.slot_values,
                }),
            )?,
        };
        Ok(outs
            .into_iter()
            .map(|v| match v {
                Some(v) => Arc::try_unwrap(v).unwrap_or_else(|a| (*a).clone()),
                None => Val::Empty,
            })
            .collect())
    }
}

/// The state of a run: a value per slot, the limits, the loop iterations so far, and the
/// memory in use when the run started.
pub(crate) struct Env {
    slots: Vec<Option<Arc<Val>>>,
    limits: Limits,
    iterations: u64,
    baseline: usize,
}

impl Env {
    /// The bytes the run has allocated so far (0 without a probe).
    fn memory_used(&self) -> usize {
        self.limits
            .memory_in_use
            .map_or(0, |in_use| in_use().saturating_sub(self.baseline))
    }

    /// The bytes an op may still allocate.
    fn memory_left(&self) -> usize {
        self.limits.max_memory.saturating_sub(self.memory_used())
    }

    /// Counts one iteration of a loop body run by `step`, or fails past the iteration limit.
    pub(crate) fn count_iteration(&mut self, step: &Step) -> Result<()> {
        self.iterations += 1;
        if self.iterations > self.limits.max_iterations {
            return Err(limit(
                step,
                format!(
                    "ran past the limit of {} loop iterations in one run",
                    self.limits.max_iterations
                ),
            ));
        }
        Ok(())
    }

    /// Fails when `bytes` more (of values an op collects, such as scan outputs) would not fit in
    /// the memory limit.
    pub(crate) fn check_collected(&self, step: &Step, bytes: usize) -> Result<()> {
        let left = self.memory_left();
        if bytes > left {
            return Err(limit(
                step,
                format!(
                    "collects {} of loop outputs but {}",
                    human_bytes(bytes),
                    memory_left_text(left, self.limits.max_memory)
                ),
            ));
        }
        Ok(())
    }
}

/// `the memory limit is M`, and how much of it is in use when some is.
fn memory_left_text(left: usize, max: usize) -> String {
    if left == max {
        format!("the memory limit is {}", human_bytes(max))
    } else {
        format!(
            "the memory limit is {}, of which the run uses {}",
            human_bytes(max),
            human_bytes(max - left)
        )
    }
}

fn limit(step: &Step, msg: String) -> InterpError {
    InterpError::Limit {
        op: step.node.op.clone(),
        loc: step.node.loc.clone(),
        msg,
    }
}

fn bad(step: &Step, msg: impl Into<String>) -> InterpError {
    InterpError::BadOp {
        op: step.node.op.clone(),
        loc: step.node.loc.clone(),
        msg: msg.into(),
    }
}

/// An observer and the IR value of each slot.
struct Watch<'o, 'v> {
    obs: &'o mut dyn Observer,
    values: &'v [Option<Value>],
}

impl Watch<'_, '_> {
    fn see(&mut self, slot: usize, env: &Env) {
        if let (Some(Some(v)), Some(val)) = (self.values.get(slot), &env.slots[slot]) {
            self.obs.observe(*v, val);
        }
    }
}

/// Runs a block with the given argument values, returning the values it yields.
pub(crate) fn run_block(
    plan: &BlockPlan,
    env: &mut Env,
    args: Vec<Arc<Val>>,
) -> Result<Vec<Option<Arc<Val>>>> {
    run_block_observed(plan, env, args, None)
}

/// [`run_block`], showing `watch` the arguments and every value computed.
fn run_block_observed(
    plan: &BlockPlan,
    env: &mut Env,
    args: Vec<Arc<Val>>,
    mut watch: Option<Watch<'_, '_>>,
) -> Result<Vec<Option<Arc<Val>>>> {
    if args.len() != plan.args.len() {
        return Err(InterpError::BadFunction(format!(
            "a region takes {} arguments but got {}",
            plan.args.len(),
            args.len()
        )));
    }
    for (&s, a) in plan.args.iter().zip(args) {
        env.slots[s] = Some(a);
        if let Some(w) = &mut watch {
            w.see(s, env);
        }
    }
    for step in &plan.steps {
        let left = env.memory_left();
        if step.result_bytes > left {
            return Err(limit(
                step,
                format!(
                    "needs {} for its results but {}",
                    human_bytes(step.result_bytes),
                    memory_left_text(left, env.limits.max_memory)
                ),
            ));
        }
        let outs = nart_tensor::with_max_bytes(left, || run_step(step, env))?;
        if outs.len() < step.outputs.len() {
            // Optional outputs a kernel does not compute stay empty; reading them is an error.
            for &s in &step.outputs[outs.len()..] {
                env.slots[s] = None;
            }
        }
        for (&s, v) in step.outputs.iter().zip(outs) {
            env.slots[s] = Some(Arc::new(v));
            if let Some(w) = &mut watch {
                w.see(s, env);
            }
        }
        for &s in &step.free_after {
            env.slots[s] = None;
        }
        let used = env.memory_used();
        if used > env.limits.max_memory {
            return Err(limit(
                step,
                format!(
                    "took the run's memory to {}, past the memory limit of {}",
                    human_bytes(used),
                    human_bytes(env.limits.max_memory)
                ),
            ));
        }
    }
    Ok(plan
        .results
        .iter()
        .map(|s| s.and_then(|s| env.slots[s].clone()))
        .collect())
}

fn input_vals(step: &Step, env: &Env) -> Result<Vec<Option<Arc<Val>>>> {
    step.inputs
        .iter()
        .enumerate()
        .map(|(i, s)| match s {
            None => Ok(None),
            Some(s) => match &env.slots[*s] {
                Some(v) => Ok(Some(v.clone())),
                None => Err(bad(step, format!("operand #{i} has no value at run time"))),
            },
        })
        .collect()
}

fn run_step(step: &Step, env: &mut Env) -> Result<Vec<Val>> {
    let kerr = |e: nart_tensor::KernelError| InterpError::Kernel {
        op: step.node.op.clone(),
        loc: step.node.loc.clone(),
        error: e,
    };
    let Some(kernel) = step.kernel else {
        return Err(InterpError::Unsupported {
            op: step.node.op.clone(),
            loc: step.node.loc.clone(),
        });
    };
    match kernel {
        Kernel::Tensor(f) => {
            let mut ins: Vec<Option<&Tensor>> = Vec::with_capacity(step.inputs.len());
            for (i, s) in step.inputs.iter().enumerate() {
                match s {
                    None => ins.push(None),
                    Some(s) => match env.slots[*s].as_deref() {
                        Some(Val::Tensor(t)) => ins.push(Some(t)),
                        Some(Val::Empty) => ins.push(None),
                        Some(other) => {
                            return Err(bad(
                                step,
                                format!(
                                    "operand #{i} is a {}, expected a tensor",
                                    other.describe()
                                ),
                            ))
                        }
                        None => {
                            return Err(bad(step, format!("operand #{i} has no value at run time")))
                        }
                    },
                }
            }
            let outs = f(&step.node, &ins).map_err(kerr)?;
            Ok(outs.into_iter().map(Val::Tensor).collect())
        }
        Kernel::Value(f) => {
            let held = input_vals(step, env)?;
            let ins: Vec<Option<&Val>> = held.iter().map(|v| v.as_deref()).collect();
            f(&step.node, &ins).map_err(kerr)
        }
        Kernel::Region(f) => {
            let held = input_vals(step, env)?;
            (f.0)(step, env, held)
        }
    }
}

/// The region of `step` called `name`.
pub(crate) fn region<'s>(step: &'s Step, name: &str) -> Result<&'s BlockPlan> {
    step.regions
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, p)| p)
        .ok_or_else(|| bad(step, format!("has no region '{name}'")))
}

/// An error about `step` with a message.
pub(crate) fn step_error(step: &Step, msg: impl Into<String>) -> InterpError {
    bad(step, msg)
}
