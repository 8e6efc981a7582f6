//! Building small IR of the `test` dialect in unit tests: [`TestIr`] (a module of functions,
//! nested modules and symbol uses), [`TestFunc`] (a module with one function whose entry block
//! a test fills), and [`dump`], a compact text of a function body for assertions.

use nart_ir::registry::Trait;
use nart_ir::{AttrData, Block, Context, Location, Op, OperationState, Type, Value, WalkOrder};
use std::collections::HashMap;

/// A dialect registration function (`nart_dialect_arith::register`).
pub type Register = fn(&mut Context);

/// A `builtin.module` under construction, in a context where the `test` dialect is registered.
///
/// The builders append one op each and give it [`loc`](Self::loc); functions take and return
/// `i32`s unless built with [`typed_func`](Self::typed_func).
pub struct TestIr {
    /// The context.
    pub ctx: Context,
    /// The top-level `builtin.module`.
    pub module: Op,
    /// The location of the ops built from now on (unknown at first).
    pub loc: Location,
}

impl Default for TestIr {
    fn default() -> TestIr {
        TestIr::new()
    }
}

impl TestIr {
    /// An empty module; only `builtin` and `test` are registered.
    pub fn new() -> TestIr {
        TestIr::with_dialects(&[])
    }

    /// An empty module, with the dialects of `register` registered besides `test`.
    pub fn with_dialects(register: &[Register]) -> TestIr {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        for r in register {
            r(&mut ctx);
        }
        let loc = ctx.unknown_loc();
        let module = nart_ir::builtin::create_module(&mut ctx, loc);
        TestIr { ctx, module, loc }
    }

    /// Creates the op of `st` and appends it to `b`.
    pub fn append(&mut self, b: Block, st: OperationState) -> Op {
        let op = self.ctx.create_op(st);
        self.ctx.append_op(b, op);
        op
    }

    /// The first block of `op`'s first region (a module's body, a function's entry block).
    pub fn body(&self, op: Op) -> Block {
        self.ctx.region_blocks(self.ctx.region(op, 0))[0]
    }

    /// Appends `test.func @name(inputs) -> results` with an empty entry block to symbol table
    /// `table`.
    pub fn typed_func_in(
        &mut self,
        table: Op,
        name: &str,
        inputs: &[Type],
        results: &[Type],
        private: bool,
    ) -> Op {
        let loc = self.loc;
        let region = self.ctx.create_region();
        let b = self.ctx.create_block(inputs, loc);
        self.ctx.append_block(region, b);
        let fty = self.ctx.function_type(inputs.to_vec(), results.to_vec());
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
        let body = self.body(table);
        self.append(body, st)
    }

    /// Appends `test.func @name(inputs) -> results` (public) to the module.
    pub fn typed_func(&mut self, name: &str, inputs: &[Type], results: &[Type]) -> Op {
        self.typed_func_in(self.module, name, inputs, results, false)
    }

    /// Appends `test.func @name(i32 x n_args) -> (i32 x n_results)` to symbol table `table`.
    pub fn func_in_table(
        &mut self,
        table: Op,
        name: &str,
        n_args: usize,
        n_results: usize,
        private: bool,
    ) -> Op {
        let i32t = self.ctx.i32_type();
        let (inputs, results) = (vec![i32t; n_args], vec![i32t; n_results]);
        self.typed_func_in(table, name, &inputs, &results, private)
    }

    /// Appends `test.func @name(i32 x n_args) -> (i32 x n_results)` to the module.
    pub fn func(&mut self, name: &str, n_args: usize, n_results: usize, private: bool) -> Op {
        self.func_in_table(self.module, name, n_args, n_results, private)
    }

    /// Appends `test.func @name()` to symbol table `table`.
    pub fn func_in(&mut self, table: Op, name: &str, private: bool) -> Op {
        self.func_in_table(table, name, 0, 0, private)
    }

    /// Appends an empty `test.module @name` to the module.
    pub fn nested_module(&mut self, name: &str, private: bool) -> Op {
        let loc = self.loc;
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
        let body = self.body(self.module);
        self.append(body, st)
    }

    /// The entry block of function `f`.
    pub fn entry(&self, f: Op) -> Block {
        self.body(f)
    }

    /// Appends an empty block without arguments to function `f`.
    pub fn block(&mut self, f: Op) -> Block {
        let b = self.ctx.create_block(&[], self.loc);
        let r = self.ctx.region(f, 0);
        self.ctx.append_block(r, b);
        b
    }

    /// Argument `i` of function `f`.
    pub fn arg(&self, f: Op, i: usize) -> Value {
        self.ctx.block_args(self.entry(f))[i]
    }

    /// Appends `test.constant v : i32` to `b`.
    pub fn constant(&mut self, b: Block, v: i128) -> Value {
        let ty = self.ctx.i32_type();
        let a = self.ctx.int_attr(ty, v);
        let st = OperationState::new(&mut self.ctx, "test.constant", self.loc)
            .results(&[ty])
            .prop(&mut self.ctx, "value", a);
        let op = self.append(b, st);
        self.ctx.result(op, 0)
    }

    /// Appends `test.add x, y : i32` to `b`.
    pub fn add(&mut self, b: Block, x: Value, y: Value) -> Value {
        let ty = self.ctx.i32_type();
        let st = OperationState::new(&mut self.ctx, "test.add", self.loc)
            .operands(&[x, y])
            .results(&[ty]);
        let op = self.append(b, st);
        self.ctx.result(op, 0)
    }

    /// Appends `test.effect vals` to `b`.
    pub fn effect(&mut self, b: Block, vals: &[Value]) -> Op {
        let st = OperationState::new(&mut self.ctx, "test.effect", self.loc).operands(vals);
        self.append(b, st)
    }

    /// Appends `test.return vals` to `b`.
    pub fn ret(&mut self, b: Block, vals: &[Value]) -> Op {
        let st = OperationState::new(&mut self.ctx, "test.return", self.loc).operands(vals);
        self.append(b, st)
    }

    /// Appends `test.br succs` (passing nothing) to `b`.
    pub fn br(&mut self, b: Block, succs: &[Block]) -> Op {
        let st = OperationState::new(&mut self.ctx, "test.br", self.loc).successors(succs);
        self.append(b, st)
    }

    /// Appends `test.call @callee(args)` with `n_results` `i32` results to `b`.
    pub fn call(&mut self, b: Block, callee: &str, args: &[Value], n_results: usize) -> Vec<Value> {
        let i32t = self.ctx.i32_type();
        let sym = self.ctx.flat_symbol_ref(callee);
        let st = OperationState::new(&mut self.ctx, "test.call", self.loc)
            .operands(args)
            .results(&vec![i32t; n_results])
            .prop(&mut self.ctx, "callee", sym);
        let op = self.append(b, st);
        self.ctx.results(op).to_vec()
    }

    /// Appends a `test.region` to `b` and returns the block of its region.
    pub fn region_op(&mut self, b: Block) -> Block {
        let region = self.ctx.create_region();
        let inner = self.ctx.create_block(&[], self.loc);
        self.ctx.append_block(region, inner);
        let st = OperationState::new(&mut self.ctx, "test.region", self.loc).regions(&[region]);
        self.append(b, st);
        inner
    }

    fn use_attr(&mut self, sym: nart_ir::Attr) {
        let st = OperationState::new(&mut self.ctx, "test.use", self.loc).prop(
            &mut self.ctx,
            "ref",
            sym,
        );
        let body = self.body(self.module);
        self.append(body, st);
    }

    /// Appends `test.use @name` to the module.
    pub fn use_symbol(&mut self, name: &str) {
        let sym = self.ctx.flat_symbol_ref(name);
        self.use_attr(sym);
    }

    /// Appends `test.use @outer::@inner` to the module.
    pub fn use_nested_symbol(&mut self, outer: &str, inner: &str) {
        let root = self.ctx.ident(outer);
        let nested = vec![self.ctx.ident(inner)];
        let sym = self.ctx.intern_attr(AttrData::SymbolRef { root, nested });
        self.use_attr(sym);
    }

    /// Ends every block of every function that has no terminator with an empty `test.return`.
    pub fn ret_all_empty(&mut self) {
        for op in self.ctx.collect_ops(self.module, WalkOrder::PreOrder) {
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

    /// The names of the symbols defined directly in `table`, in order.
    pub fn symbols_in(&self, table: Op) -> Vec<String> {
        self.ctx
            .block_ops(self.body(table))
            .into_iter()
            .filter_map(|o| nart_ir::symbol::symbol_name(&self.ctx, o).map(str::to_string))
            .collect()
    }

    /// The names of the symbols defined directly in the module, in order.
    pub fn symbols(&self) -> Vec<String> {
        self.symbols_in(self.module)
    }

    /// The first message of verifying the module, if it does not verify.
    pub fn first_error(&self) -> Option<String> {
        first_error(&self.ctx, self.module)
    }

    /// The body of function `f`, as [`dump`] writes it.
    pub fn dump(&self, f: Op) -> String {
        dump(&self.ctx, f)
    }
}

/// A module holding one function, `test.func @f`, whose entry block a test fills: the harness
/// of unit tests of a dialect's ops (build an op, verify, fold, rewrite).
pub struct TestFunc {
    /// The context.
    pub ctx: Context,
    /// The top-level `builtin.module`.
    pub module: Op,
    /// `@f`.
    pub func: Op,
    /// The entry block of `@f`.
    pub entry: Block,
    /// The location of the ops built here.
    pub loc: Location,
}

impl TestFunc {
    /// `test.func @f()` in a module, with the dialects of `register` registered besides
    /// `test`.
    pub fn new(register: &[Register]) -> TestFunc {
        let mut ir = TestIr::with_dialects(register);
        let func = ir.func("f", 0, 0, false);
        let entry = ir.entry(func);
        let TestIr { ctx, module, loc } = ir;
        TestFunc {
            ctx,
            module,
            func,
            entry,
            loc,
        }
    }

    /// Appends an argument of type `ty` to `@f` (keeping its `function_type` in step).
    pub fn add_arg(&mut self, ty: Type) -> Value {
        let v = self.ctx.add_block_arg(self.entry, ty, self.loc);
        let inputs: Vec<Type> = self
            .ctx
            .block_args(self.entry)
            .iter()
            .map(|&a| self.ctx.value_type(a))
            .collect();
        let (_, results) = crate::ops::func_signature(&self.ctx, self.func);
        let fty = self.ctx.function_type(inputs, results);
        let fty = self.ctx.type_attr(fty);
        self.ctx.set_prop(self.func, "function_type", fty);
        v
    }

    /// Argument `i` of `@f`.
    pub fn arg(&self, i: usize) -> Value {
        self.ctx.block_args(self.entry)[i]
    }

    /// Appends `op` (detached) to the entry block.
    pub fn append(&mut self, op: Op) -> Op {
        self.ctx.append_op(self.entry, op);
        op
    }

    /// Appends a generic op `name(operands) -> results` to the entry block.
    pub fn op(&mut self, name: &str, operands: &[Value], results: &[Type]) -> Op {
        let st = OperationState::new(&mut self.ctx, name, self.loc)
            .operands(operands)
            .results(results);
        let op = self.ctx.create_op(st);
        self.append(op)
    }

    /// Appends `test.return vals` to `b`.
    pub fn ret_from(&mut self, b: Block, vals: &[Value]) -> Op {
        let st = OperationState::new(&mut self.ctx, "test.return", self.loc).operands(vals);
        let op = self.ctx.create_op(st);
        self.ctx.append_op(b, op);
        op
    }

    /// Ends the entry block with an empty `test.return`.
    pub fn ret(&mut self) -> Op {
        self.ret_from(self.entry, &[])
    }

    /// Appends to `@f` a block with arguments of `types` that just returns.
    pub fn return_block(&mut self, types: &[Type]) -> Block {
        let b = self.ctx.create_block(types, self.loc);
        let r = self.ctx.region(self.func, 0);
        self.ctx.append_block(r, b);
        self.ret_from(b, &[]);
        b
    }

    /// The first message of verifying the module, if it does not verify.
    pub fn first_error(&self) -> Option<String> {
        first_error(&self.ctx, self.module)
    }

    /// The body of `@f`, as [`dump`] writes it.
    pub fn dump(&self) -> String {
        dump(&self.ctx, self.func)
    }
}

/// The first message of verifying `op`, if it does not verify.
pub fn first_error(ctx: &Context, op: Op) -> Option<String> {
    nart_ir::verify::verify(ctx, op)
        .err()
        .map(|e| e[0].message.clone())
}

/// The body of function `f`, one op per line: results numbered `%0, %1, ...` in order,
/// arguments `%argN`, a `test.constant` printed `test.constant V` and used as `%cV`, a callee
/// as `@name(args)`, successors as `^index`, blocks after the entry as `^index:`, and nested
/// regions indented in braces.
pub fn dump(ctx: &Context, f: Op) -> String {
    let mut d = Dump {
        ctx,
        names: HashMap::new(),
        counter: 0,
        lines: Vec::new(),
        blocks: ctx.region_blocks(ctx.region(f, 0)).to_vec(),
    };
    if let Some(&entry) = d.blocks.first() {
        for (i, &a) in ctx.block_args(entry).iter().enumerate() {
            d.names.insert(a, format!("%arg{i}"));
        }
    }
    for (bi, b) in d.blocks.clone().into_iter().enumerate() {
        if bi > 0 {
            d.lines.push(format!("^{bi}:"));
        }
        d.block(b, 0);
    }
    d.lines.join("\n")
}

struct Dump<'c> {
    ctx: &'c Context,
    names: HashMap<Value, String>,
    counter: usize,
    lines: Vec<String>,
    blocks: Vec<Block>,
}

impl Dump<'_> {
    fn block(&mut self, b: Block, depth: usize) {
        let ctx = self.ctx;
        for op in ctx.block_ops_iter(b) {
            let pad = "  ".repeat(depth);
            let name = ctx.op_name_str(op);
            if name == "test.constant" {
                let v = ctx
                    .attr(op, "value")
                    .and_then(|a| ctx.attr_int(a))
                    .unwrap_or(0);
                self.names.insert(ctx.result(op, 0), format!("%c{v}"));
                self.lines.push(format!("{pad}test.constant {v}"));
                continue;
            }
            let operands: Vec<String> = ctx
                .operands(op)
                .iter()
                .map(|v| self.names.get(v).cloned().unwrap_or_else(|| "%?".into()))
                .collect();
            let mut results = Vec::new();
            for &r in ctx.results(op) {
                let n = format!("%{}", self.counter);
                self.counter += 1;
                self.names.insert(r, n.clone());
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
                .map(|s| match self.blocks.iter().position(|x| x == s) {
                    Some(i) => format!("^{i}"),
                    None => "^?".to_string(),
                })
                .collect();
            if !succs.is_empty() {
                line.push_str(&format!(" {}", succs.join(", ")));
            }
            if ctx.regions(op).is_empty() {
                self.lines.push(line);
                continue;
            }
            line.push_str(" {");
            self.lines.push(line);
            for &r in ctx.regions(op) {
                for &ib in ctx.region_blocks(r) {
                    self.block(ib, depth + 1);
                }
            }
            self.lines.push(format!("{pad}}}"));
        }
    }
}
