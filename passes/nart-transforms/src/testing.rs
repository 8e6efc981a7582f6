//! A test-only dialect (`test.*`) with functions, calls, constants and a folding `test.add`,
//! and [`TestIr`], which builds modules of it, runs pipelines and dumps functions compactly.

use nart_ir::interface_impl;
use nart_ir::interfaces::{BranchOpInterface, CallOpInterface, CallableOpInterface, Callee};
use nart_ir::registry::{
    constraints as c, Arity, AttrDef, DialectDef, FoldOutcome, FoldResult, OpDef, RegionDef, Trait,
    ValueDef,
};
use nart_ir::{
    Attr, AttrData, Block, Context, Location, Op, OperationState, PatternRewriter, RewritePattern,
    Type, Value,
};
use nart_pass::{PassManager, PassManagerError, PassRegistry};
use rustc_hash::FxHashMap;

const VARIADIC: ValueDef = ValueDef {
    name: "values",
    constraint: c::ANY,
    arity: Arity::Variadic,
};

const SYM_ATTRS: [AttrDef; 3] = [
    AttrDef {
        default: None,
        name: "sym_name",
        constraint: c::SYMBOL_NAME_ATTR,
        optional: false,
        doc: "",
    },
    AttrDef {
        default: None,
        name: "sym_visibility",
        constraint: c::STRING_ATTR,
        optional: true,
        doc: "",
    },
    AttrDef {
        default: None,
        name: "function_type",
        constraint: c::FUNCTION_TYPE_ATTR,
        optional: true,
        doc: "",
    },
];

static FUNC: OpDef = OpDef {
    name: "test.func",
    attrs: &SYM_ATTRS,
    regions: &[RegionDef {
        name: "body",
        single_block: false,
        may_be_empty: true,
    }],
    traits: &[Trait::IsolatedFromAbove, Trait::Symbol],
    interfaces: &[interface_impl!(CallableOpInterface => TestCallable)],
    ..OpDef::DEFAULT
};

static MODULE: OpDef = OpDef {
    name: "test.module",
    attrs: &SYM_ATTRS,
    regions: &[RegionDef {
        name: "body",
        single_block: true,
        may_be_empty: false,
    }],
    traits: &[
        Trait::SymbolTable,
        Trait::Symbol,
        Trait::NoTerminator,
        Trait::SingleBlock,
        Trait::GraphRegion,
        Trait::IsolatedFromAbove,
    ],
    ..OpDef::DEFAULT
};

static CALL: OpDef = OpDef {
    name: "test.call",
    operands: &[VARIADIC],
    results: &[VARIADIC],
    attrs: &[AttrDef {
        default: None,
        name: "callee",
        constraint: c::FLAT_SYMBOL_REF_ATTR,
        optional: false,
        doc: "",
    }],
    interfaces: &[interface_impl!(CallOpInterface => TestCall)],
    ..OpDef::DEFAULT
};

static USE: OpDef = OpDef {
    name: "test.use",
    attrs: &[AttrDef {
        default: None,
        name: "ref",
        constraint: c::SYMBOL_REF_ATTR,
        optional: false,
        doc: "",
    }],
    ..OpDef::DEFAULT
};

static RETURN: OpDef = OpDef {
    name: "test.return",
    operands: &[VARIADIC],
    traits: &[Trait::Terminator, Trait::ReturnLike, Trait::Pure],
    ..OpDef::DEFAULT
};

static BR: OpDef = OpDef {
    name: "test.br",
    num_successors: None,
    traits: &[Trait::Terminator],
    interfaces: &[interface_impl!(BranchOpInterface => TestBr)],
    ..OpDef::DEFAULT
};

struct TestCallable;
impl CallableOpInterface for TestCallable {
    fn callable_region(&self, ctx: &Context, op: Op) -> Option<nart_ir::Region> {
        ctx.regions(op).first().copied()
    }
    fn argument_types(&self, _: &Context, _: Op) -> Vec<nart_ir::Type> {
        Vec::new()
    }
    fn result_types(&self, _: &Context, _: Op) -> Vec<nart_ir::Type> {
        Vec::new()
    }
}

struct TestCall;
impl CallOpInterface for TestCall {
    fn callee(&self, ctx: &Context, op: Op) -> Option<Callee> {
        ctx.attr(op, "callee").map(Callee::Symbol)
    }
    fn arg_operands(&self, ctx: &Context, op: Op) -> std::ops::Range<usize> {
        0..ctx.operands(op).len()
    }
}

/// `test.br` passes nothing to its successors.
struct TestBr;
impl BranchOpInterface for TestBr {
    fn successor_operands(&self, _: &Context, _: Op, _: usize) -> Option<std::ops::Range<usize>> {
        Some(0..0)
    }
}

static CONSTANT: OpDef = OpDef {
    name: "test.constant",
    results: &[ValueDef {
        name: "result",
        constraint: c::ANY,
        arity: Arity::Single,
    }],
    attrs: &[AttrDef {
        default: None,
        name: "value",
        constraint: c::INTEGER_ATTR,
        optional: false,
        doc: "",
    }],
    traits: &[Trait::Pure, Trait::ConstantLike],
    ..OpDef::DEFAULT
};

fn fold_add(ctx: &mut Context, op: Op, consts: &[Option<Attr>]) -> FoldOutcome {
    let (Some(Some(a)), Some(Some(b))) = (consts.first(), consts.get(1)) else {
        return FoldOutcome::None;
    };
    let (Some(x), Some(y)) = (ctx.attr_int(*a), ctx.attr_int(*b)) else {
        return FoldOutcome::None;
    };
    let ty = ctx.value_type(ctx.result(op, 0));
    let sum = ctx.int_attr(ty, x + y);
    FoldOutcome::Replace(vec![FoldResult::Attr(sum)])
}

/// `x + 0 -> x`.
pub struct AddZero;

impl RewritePattern for AddZero {
    fn name(&self) -> &'static str {
        "AddZero"
    }
    fn root(&self) -> Option<&'static str> {
        Some("test.add")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let rhs = rw.operand(op, 1);
        let zero = nart_rewrite::OperationFolder::constant_value(rw, rhs)
            .and_then(|a| rw.attr_int(a))
            == Some(0);
        if !zero {
            return false;
        }
        let lhs = rw.operand(op, 0);
        rw.replace_op(op, &[lhs]);
        true
    }
}

static ADD_ZERO: AddZero = AddZero;

static ADD: OpDef = OpDef {
    name: "test.add",
    operands: &[VARIADIC],
    results: &[VARIADIC],
    traits: &[Trait::Pure],
    fold: Some(fold_add),
    canonicalize: &[&ADD_ZERO],
    ..OpDef::DEFAULT
};

static EFFECT: OpDef = OpDef {
    name: "test.effect",
    operands: &[VARIADIC],
    traits: &[Trait::MemoryEffects],
    ..OpDef::DEFAULT
};

static REGION: OpDef = OpDef {
    name: "test.region",
    regions: &[RegionDef {
        name: "body",
        single_block: true,
        may_be_empty: false,
    }],
    traits: &[Trait::NoTerminator],
    ..OpDef::DEFAULT
};

static OPS: [&OpDef; 10] = [
    &FUNC, &MODULE, &CALL, &USE, &RETURN, &BR, &CONSTANT, &ADD, &EFFECT, &REGION,
];

fn materialize(ctx: &mut Context, value: Attr, ty: Type, loc: Location) -> Option<Op> {
    ctx.attr_int(value)?;
    let st = OperationState::new(ctx, "test.constant", loc)
        .results(&[ty])
        .prop(ctx, "value", value);
    Some(ctx.create_op(st))
}

/// A module of the test dialect under construction, with a registry of this crate's passes.
pub struct TestIr {
    pub ctx: Context,
    pub module: Op,
    pub registry: PassRegistry,
}

impl TestIr {
    pub fn new() -> TestIr {
        let mut ctx = Context::new();
        ctx.register_dialect(DialectDef {
            name: "test",
            summary: "",
            description: "",
            ops: &OPS,
            materialize_constant: Some(materialize),
            types: &[],
            attrs: &[],
            enums: &[],
        });
        let loc = ctx.unknown_loc();
        let module = nart_ir::builtin::create_module(&mut ctx, loc);
        let mut registry = PassRegistry::new();
        crate::register(&mut registry);
        TestIr {
            ctx,
            module,
            registry,
        }
    }

    fn push(&mut self, b: Block, st: OperationState) -> Op {
        let op = self.ctx.create_op(st);
        self.ctx.append_op(b, op);
        op
    }

    fn body_of(&self, table: Op) -> Block {
        self.ctx.region_blocks(self.ctx.region(table, 0))[0]
    }

    /// A function `@name(i32 x n_args) -> (i32 x n_results)` with an empty entry block,
    /// appended to `table`.
    pub fn func_in_table(
        &mut self,
        table: Op,
        name: &str,
        n_args: usize,
        n_results: usize,
        private: bool,
    ) -> Op {
        let i32t = self.ctx.i32_type();
        let loc = self.ctx.unknown_loc();
        let region = self.ctx.create_region();
        let b = self.ctx.create_block(&vec![i32t; n_args], loc);
        self.ctx.append_block(region, b);
        let fty = self
            .ctx
            .function_type(vec![i32t; n_args], vec![i32t; n_results]);
        let fty = self.ctx.type_attr(fty);
        let sym = self.ctx.string_attr(name);
        let mut st = OperationState::new(&mut self.ctx, "test.func", loc)
            .regions(&[region])
            .prop(&mut self.ctx, "sym_name", sym)
            .prop(&mut self.ctx, "function_type", fty);
        if private {
            let p = self.ctx.string_attr("private");
            st = st.prop(&mut self.ctx, "sym_visibility", p);
        }
        let body = self.body_of(table);
        self.push(body, st)
    }

    pub fn func(&mut self, name: &str, n_args: usize, n_results: usize, private: bool) -> Op {
        self.func_in_table(self.module, name, n_args, n_results, private)
    }

    pub fn func_in(&mut self, table: Op, name: &str, private: bool) -> Op {
        self.func_in_table(table, name, 0, 0, private)
    }

    pub fn nested_module(&mut self, name: &str, private: bool) -> Op {
        let loc = self.ctx.unknown_loc();
        let region = self.ctx.create_region();
        let b = self.ctx.create_block(&[], loc);
        self.ctx.append_block(region, b);
        let sym = self.ctx.string_attr(name);
        let mut st = OperationState::new(&mut self.ctx, "test.module", loc)
            .regions(&[region])
            .prop(&mut self.ctx, "sym_name", sym);
        if private {
            let p = self.ctx.string_attr("private");
            st = st.prop(&mut self.ctx, "sym_visibility", p);
        }
        let body = self.body_of(self.module);
        self.push(body, st)
    }

    pub fn entry(&self, f: Op) -> Block {
        self.body_of(f)
    }

    pub fn block(&mut self, f: Op) -> Block {
        let loc = self.ctx.unknown_loc();
        let b = self.ctx.create_block(&[], loc);
        let r = self.ctx.region(f, 0);
        self.ctx.append_block(r, b);
        b
    }

    pub fn arg(&self, f: Op, i: usize) -> Value {
        self.ctx.block_args(self.entry(f))[i]
    }

    pub fn constant(&mut self, b: Block, v: i128) -> Value {
        let ty = self.ctx.i32_type();
        let a = self.ctx.int_attr(ty, v);
        let loc = self.ctx.unknown_loc();
        let st = OperationState::new(&mut self.ctx, "test.constant", loc)
            .results(&[ty])
            .prop(&mut self.ctx, "value", a);
        let op = self.push(b, st);
        self.ctx.result(op, 0)
    }

    pub fn add(&mut self, b: Block, x: Value, y: Value) -> Value {
        let ty = self.ctx.i32_type();
        let loc = self.ctx.unknown_loc();
        let st = OperationState::new(&mut self.ctx, "test.add", loc)
            .operands(&[x, y])
            .results(&[ty]);
        let op = self.push(b, st);
        self.ctx.result(op, 0)
    }

    pub fn effect(&mut self, b: Block, vals: &[Value]) -> Op {
        let loc = self.ctx.unknown_loc();
        let st = OperationState::new(&mut self.ctx, "test.effect", loc).operands(vals);
        self.push(b, st)
    }

    pub fn ret(&mut self, b: Block, vals: &[Value]) -> Op {
        let loc = self.ctx.unknown_loc();
        let st = OperationState::new(&mut self.ctx, "test.return", loc).operands(vals);
        self.push(b, st)
    }

    pub fn br(&mut self, b: Block, succs: &[Block]) -> Op {
        let loc = self.ctx.unknown_loc();
        let st = OperationState::new(&mut self.ctx, "test.br", loc).successors(succs);
        self.push(b, st)
    }

    pub fn call(&mut self, b: Block, callee: &str, args: &[Value], n_results: usize) -> Vec<Value> {
        let i32t = self.ctx.i32_type();
        let loc = self.ctx.unknown_loc();
        let sym = self.ctx.flat_symbol_ref(callee);
        let st = OperationState::new(&mut self.ctx, "test.call", loc)
            .operands(args)
            .results(&vec![i32t; n_results])
            .prop(&mut self.ctx, "callee", sym);
        let op = self.push(b, st);
        self.ctx.results(op).to_vec()
    }

    pub fn region_op(&mut self, b: Block) -> Block {
        let loc = self.ctx.unknown_loc();
        let region = self.ctx.create_region();
        let inner = self.ctx.create_block(&[], loc);
        self.ctx.append_block(region, inner);
        let st = OperationState::new(&mut self.ctx, "test.region", loc).regions(&[region]);
        self.push(b, st);
        inner
    }

    fn use_attr(&mut self, sym: Attr) {
        let loc = self.ctx.unknown_loc();
        let st =
            OperationState::new(&mut self.ctx, "test.use", loc).prop(&mut self.ctx, "ref", sym);
        let body = self.body_of(self.module);
        self.push(body, st);
    }

    pub fn use_symbol(&mut self, name: &str) {
        let sym = self.ctx.flat_symbol_ref(name);
        self.use_attr(sym);
    }

    pub fn use_nested_symbol(&mut self, outer: &str, inner: &str) {
        let root = self.ctx.ident(outer);
        let nested = vec![self.ctx.ident(inner)];
        let sym = self.ctx.intern_attr(AttrData::SymbolRef { root, nested });
        self.use_attr(sym);
    }

    /// Terminates every function block that has no terminator with an empty `test.return`.
    pub fn ret_all_empty(&mut self) {
        for op in self
            .ctx
            .collect_ops(self.module, nart_ir::WalkOrder::PreOrder)
        {
            if self.ctx.op_name_str(op) != "test.func" {
                continue;
            }
            for b in self.ctx.region_blocks(self.ctx.region(op, 0)).to_vec() {
                let terminated = self
                    .ctx
                    .block_last_op(b)
                    .is_some_and(|l| self.ctx.op_has_trait(l, Trait::Terminator));
                if !terminated {
                    self.ret(b, &[]);
                }
            }
        }
    }

    pub fn symbols_in(&self, table: Op) -> Vec<String> {
        self.ctx
            .block_ops(self.body_of(table))
            .into_iter()
            .filter_map(|o| nart_ir::symbol::symbol_name(&self.ctx, o).map(str::to_string))
            .collect()
    }

    pub fn symbols(&self) -> Vec<String> {
        self.symbols_in(self.module)
    }

    pub fn pass_manager(&self, pipeline: &str) -> PassManager {
        PassManager::parse(pipeline, &self.registry).unwrap_or_else(|e| panic!("{e}"))
    }

    pub fn try_pipeline(&mut self, pipeline: &str) -> Result<String, PassManagerError> {
        let mut pm = self.pass_manager(pipeline);
        let mut out = Vec::new();
        pm.run(&mut self.ctx, self.module, &mut out)?;
        Ok(String::from_utf8(out).expect("pass output is UTF-8"))
    }

    pub fn run_pipeline(&mut self, pipeline: &str) -> String {
        match self.try_pipeline(pipeline) {
            Ok(out) => out,
            Err(e) => panic!("{e}: {:?}", e.diagnostics()),
        }
    }

    /// The body of `f`: one op per line, results numbered `%0, %1, ...` in order, constants
    /// printed as `test.constant V` and used as `%cV`, successors as `^index`.
    pub fn dump(&self, f: Op) -> String {
        let mut names: FxHashMap<Value, String> = FxHashMap::default();
        let entry = self.entry(f);
        for (i, &a) in self.ctx.block_args(entry).iter().enumerate() {
            names.insert(a, format!("%arg{i}"));
        }
        let mut lines = Vec::new();
        let mut counter = 0;
        let blocks = self.ctx.region_blocks(self.ctx.region(f, 0)).to_vec();
        for (bi, &b) in blocks.iter().enumerate() {
            if bi > 0 {
                lines.push(format!("^{bi}:"));
            }
            self.dump_block(b, &blocks, 0, &mut names, &mut counter, &mut lines);
        }
        lines.join("\n")
    }

    fn dump_block(
        &self,
        b: Block,
        blocks: &[Block],
        depth: usize,
        names: &mut FxHashMap<Value, String>,
        counter: &mut usize,
        lines: &mut Vec<String>,
    ) {
        let ctx = &self.ctx;
        for op in ctx.block_ops_iter(b) {
            let pad = "  ".repeat(depth);
            let name = ctx.op_name_str(op);
            if name == "test.constant" {
                let v = ctx
                    .attr(op, "value")
                    .and_then(|a| ctx.attr_int(a))
                    .unwrap_or(0);
                names.insert(ctx.result(op, 0), format!("%c{v}"));
                lines.push(format!("{pad}test.constant {v}"));
                continue;
            }
            let operands: Vec<String> = ctx
                .operands(op)
                .iter()
                .map(|v| names.get(v).cloned().unwrap_or_else(|| "%?".into()))
                .collect();
            let mut results = Vec::new();
            for &r in ctx.results(op) {
                let n = format!("%{counter}");
                *counter += 1;
                names.insert(r, n.clone());
                results.push(n);
            }
            let mut line = pad.clone();
            if !results.is_empty() {
                line.push_str(&format!("{} = ", results.join(", ")));
            }
            line.push_str(name);
            if let Some(callee) = ctx.attr(op, "callee").and_then(|a| ctx.attr_flat_symbol(a)) {
                line.push_str(&format!(" @{callee}({})", operands.join(", ")));
            } else if !operands.is_empty() {
                line.push_str(&format!(" {}", operands.join(", ")));
            }
            let succs: Vec<String> = ctx
                .successors(op)
                .iter()
                .map(|s| {
                    format!(
                        "^{}",
                        blocks.iter().position(|x| x == s).unwrap_or(usize::MAX)
                    )
                })
                .collect();
            if !succs.is_empty() {
                line.push_str(&format!(" {}", succs.join(", ")));
            }
            if ctx.regions(op).is_empty() {
                lines.push(line);
                continue;
            }
            line.push_str(" {");
            lines.push(line);
            for &r in ctx.regions(op) {
                for &ib in ctx.region_blocks(r) {
                    self.dump_block(ib, blocks, depth + 1, names, counter, lines);
                }
            }
            lines.push(format!("{pad}}}"));
        }
    }
}
