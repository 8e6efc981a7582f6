//! Numerical checks of `convert-graph-to-linalg` and `convert-linalg-to-loops` without code
//! generation. For the first, each graph function
//! runs in the reference interpreter (`nart-interp`), and its lowering runs in a small
//! evaluator of tensor-level structured IR written here from the ops' definitions. The
//! evaluator reads every structured op (named or generic) through `StructuredOpInterface`: it
//! walks the loop space the indexing maps bound, reads each operand at the index its map
//! gives, runs the body region, and writes the yielded values at the inits' indices. So the
//! check covers the lowering, the named ops' maps and bodies, and the generics the lowering
//! builds, against an independent implementation of ONNX semantics. For the second, named ops
//! on memrefs are lowered to `scf.for` nests, which the evaluator runs with `memref.load` and
//! `memref.store` on buffers, against the interpreter running the matching graph op.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use nart_dialect_linalg::structured::{eval, static_loop_ranges, structured};
use nart_interp::Interpreter;
use nart_ir::{AttrData, Block, Context, Op, TypeData, Value};
use nart_tensor::Tensor;

/// A value of the evaluator: a tensor (row-major, elements as `f64` rounded to `f32`), or a
/// scalar.
#[derive(Clone, Debug)]
enum V {
    T(Vec<usize>, Vec<f64>),
    F(f64),
    I(i64),
    B(bool),
    /// A memref: shared, so that stores are seen through every use.
    M(Rc<RefCell<(Vec<usize>, Vec<f64>)>>),
    None,
}

fn ctx() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_dialect_tensor::register(&mut ctx);
    nart_dialect_linalg::register(&mut ctx);
    nart_dialect_math::register(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

fn round(x: f64) -> f64 {
    x as f32 as f64
}

fn strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

fn offset(shape: &[usize], idx: &[i64]) -> usize {
    let st = strides(shape);
    idx.iter()
        .zip(&st)
        .zip(shape)
        .map(|((&i, &s), &n)| {
            assert!(
                i >= 0 && (i as usize) < n,
                "index {idx:?} out of bounds of {shape:?}"
            );
            i as usize * s
        })
        .sum()
}

fn shape_of(ctx: &Context, v: Value) -> Vec<usize> {
    ctx.shape_of(ctx.value_type(v))
        .unwrap_or(&[])
        .iter()
        .map(|&d| d as usize)
        .collect()
}

struct Eval<'a> {
    ctx: &'a Context,
    env: HashMap<Value, V>,
}

impl Eval<'_> {
    fn get(&self, v: Value) -> V {
        self.env
            .get(&v)
            .cloned()
            .unwrap_or_else(|| panic!("value not computed"))
    }

    fn f(&self, v: Value) -> f64 {
        match self.get(v) {
            V::F(x) => x,
            V::I(x) => x as f64,
            other => panic!("expected a scalar, got {other:?}"),
        }
    }

    /// Runs the ops of `block`; returns the operands of its terminator.
    fn run_block(&mut self, block: Block) -> Vec<V> {
        for op in self.ctx.block_ops(block) {
            let name = self.ctx.op_name_str(op);
            if matches!(
                name,
                "linalg.yield" | "tensor.yield" | "func.return" | "scf.yield"
            ) {
                return self.ctx.operands(op).iter().map(|&v| self.get(v)).collect();
            }
            let results = self.run_op(op);
            for (&r, v) in self.ctx.results(op).iter().zip(results) {
                self.env.insert(r, v);
            }
        }
        panic!("block without terminator")
    }

    fn run_op(&mut self, op: Op) -> Vec<V> {
        let ctx = self.ctx;
        let name = ctx.op_name_str(op);
        let o = ctx.operands(op).to_vec();
        let res_ty = ctx.results(op).first().map(|&r| ctx.value_type(r));
        let fl = |s: &Self, i: usize| s.f(o[i]);
        let scalar = |x: f64| vec![V::F(round(x))];
        if structured(ctx, op).is_some() {
            return self.run_structured(op);
        }
        match name {
            "arith.constant" => {
                let a = ctx.attr(op, "value").expect("value");
                let v = match ctx.attr_data(a) {
                    AttrData::Float { .. } => V::F(ctx.attr_float(a).expect("float")),
                    AttrData::Integer { .. } => V::I(ctx.attr_int(a).expect("int") as i64),
                    AttrData::DenseElements { .. } => {
                        match nart_linalg_lowering::emit::dense_f32(ctx, a) {
                            Some(d) => V::T(
                                shape_of(ctx, ctx.result(op, 0)),
                                d.into_iter().map(f64::from).collect(),
                            ),
                            None => V::None,
                        }
                    }
                    _ => V::None,
                };
                vec![v]
            }
            "graph.none" => vec![V::None],
            "tensor.empty" => {
                let s = shape_of(ctx, ctx.result(op, 0));
                let n = s.iter().product();
                vec![V::T(s, vec![0.0; n])]
            }
            "tensor.collapse_shape" | "tensor.expand_shape" => {
                let V::T(_, d) = self.get(o[0]) else {
                    panic!("tensor")
                };
                vec![V::T(shape_of(ctx, ctx.result(op, 0)), d)]
            }
            "tensor.pad" => {
                let V::T(s, d) = self.get(o[0]) else {
                    panic!("tensor")
                };
                let low = nart_dialect_tensor::util::dense_prop(ctx, op, "static_low");
                let region = ctx.region(op, 0);
                let block = ctx.region_blocks(region)[0];
                for &a in ctx.block_args(block) {
                    self.env.insert(a, V::I(0));
                }
                let pad = match self.run_block(block)[0] {
                    V::F(x) => x,
                    ref other => panic!("pad value {other:?}"),
                };
                let out = shape_of(ctx, ctx.result(op, 0));
                let mut data = vec![pad; out.iter().product()];
                for_each_index(&s, |idx| {
                    let to: Vec<i64> = idx.iter().zip(&low).map(|(&i, &l)| i + l).collect();
                    data[offset(&out, &to)] = d[offset(&s, idx)];
                });
                vec![V::T(out, data)]
            }
            "tensor.concat" => {
                let dim = ctx
                    .attr(op, "dim")
                    .and_then(|a| ctx.attr_int(a))
                    .expect("dim") as usize;
                let out = shape_of(ctx, ctx.result(op, 0));
                let mut data = vec![0.0; out.iter().product()];
                let mut base = 0i64;
                for &v in &o {
                    let V::T(s, d) = self.get(v) else {
                        panic!("tensor")
                    };
                    for_each_index(&s, |idx| {
                        let mut to = idx.to_vec();
                        to[dim] += base;
                        data[offset(&out, &to)] = d[offset(&s, idx)];
                    });
                    base += s[dim] as i64;
                }
                vec![V::T(out, data)]
            }
            "arith.addf" => scalar(fl(self, 0) + fl(self, 1)),
            "arith.subf" => scalar(fl(self, 0) - fl(self, 1)),
            "arith.mulf" => scalar(fl(self, 0) * fl(self, 1)),
            "arith.divf" => scalar(fl(self, 0) / fl(self, 1)),
            "arith.maximumf" => scalar(fl(self, 0).max(fl(self, 1))),
            "arith.minimumf" => scalar(fl(self, 0).min(fl(self, 1))),
            "arith.negf" => scalar(-fl(self, 0)),
            "arith.addi" => vec![V::I(fl(self, 0) as i64 + fl(self, 1) as i64)],
            "arith.subi" => vec![V::I(fl(self, 0) as i64 - fl(self, 1) as i64)],
            "arith.muli" => vec![V::I(fl(self, 0) as i64 * fl(self, 1) as i64)],
            "arith.divsi" => vec![V::I(fl(self, 0) as i64 / fl(self, 1) as i64)],
            "arith.cmpf" => {
                let p = ctx
                    .attr(op, "predicate")
                    .and_then(|a| ctx.attr_int(a))
                    .expect("predicate");
                assert_eq!(p, 2, "only ogt is used by the lowering");
                vec![V::B(fl(self, 0) > fl(self, 1))]
            }
            "arith.select" => {
                let V::B(c) = self.get(o[0]) else {
                    panic!("i1")
                };
                vec![self.get(if c { o[1] } else { o[2] })]
            }
            "scf.for" => {
                let (lb, ub, step) = (fl(self, 0) as i64, fl(self, 1) as i64, fl(self, 2) as i64);
                let body = ctx.region_blocks(ctx.region(op, 0))[0];
                let iv = ctx.block_args(body)[0];
                let mut i = lb;
                while i < ub {
                    self.env.insert(iv, V::I(i));
                    self.run_block(body);
                    i += step;
                }
                vec![]
            }
            "memref.load" => {
                let V::M(m) = self.get(o[0]) else {
                    panic!("memref")
                };
                let idx: Vec<i64> = o[1..].iter().map(|&v| self.f(v) as i64).collect();
                let m = m.borrow();
                vec![V::F(m.1[offset(&m.0, &idx)])]
            }
            "memref.store" => {
                let V::M(m) = self.get(o[1]) else {
                    panic!("memref")
                };
                let x = fl(self, 0);
                let idx: Vec<i64> = o[2..].iter().map(|&v| self.f(v) as i64).collect();
                let mut m = m.borrow_mut();
                let off = offset(&m.0, &idx);
                m.1[off] = x;
                vec![]
            }
            "arith.index_cast" => vec![V::I(fl(self, 0) as i64)],
            "arith.sitofp" => scalar(fl(self, 0)),
            "math.exp" => scalar(fl(self, 0).exp()),
            "math.tanh" => scalar(fl(self, 0).tanh()),
            "math.sqrt" => scalar(fl(self, 0).sqrt()),
            "math.erf" => scalar(erf(fl(self, 0))),
            other => panic!("the evaluator has no rule for '{other}' ({res_ty:?})"),
        }
    }

    fn run_structured(&mut self, op: Op) -> Vec<V> {
        let ctx = self.ctx;
        let s = structured(ctx, op).expect("structured");
        let maps = s.indexing_maps(ctx, op).expect("maps");
        let iters = s.iterator_types(ctx, op).expect("iterators");
        let n_in = s.num_inputs(ctx, op);
        let operands = ctx.operands(op).to_vec();
        let ranges = static_loop_ranges(ctx, op, &maps, iters.len());
        assert!(ranges.iter().all(|&r| r >= 0), "static loop ranges");
        let vals: Vec<V> = operands.iter().map(|&v| self.get(v)).collect();
        let mut inits: Vec<V> = vals[n_in..].to_vec();
        let block = ctx.region_blocks(ctx.region(op, 0))[0];
        let args = ctx.block_args(block).to_vec();
        let ranges_u: Vec<usize> = ranges.iter().map(|&r| r as usize).collect();
        for_each_index(&ranges_u, |point| {
            for (i, (&a, m)) in args.iter().zip(&maps).enumerate() {
                let src = if i < n_in { &vals[i] } else { &inits[i - n_in] };
                let v = match src {
                    V::T(s, d) => {
                        let idx: Vec<i64> = m
                            .results
                            .iter()
                            .map(|e| eval(e, point).expect("no symbols"))
                            .collect();
                        V::F(d[offset(s, &idx)])
                    }
                    other => other.clone(),
                };
                self.env.insert(a, v);
            }
            // `linalg.index` reads the point.
            for bop in ctx.block_ops(block) {
                if ctx.op_name_str(bop) == "linalg.index" {
                    let dim = ctx
                        .attr(bop, "dim")
                        .and_then(|a| ctx.attr_int(a))
                        .expect("dim") as usize;
                    self.env.insert(ctx.result(bop, 0), V::I(point[dim]));
                }
            }
            let yielded = self.run_block(block);
            for (k, y) in yielded.into_iter().enumerate() {
                let m = &maps[n_in + k];
                let idx: Vec<i64> = m
                    .results
                    .iter()
                    .map(|e| eval(e, point).expect("no symbols"))
                    .collect();
                if let (V::T(s, d), V::F(x)) = (&mut inits[k], y) {
                    let off = offset(s, &idx);
                    d[off] = x;
                }
            }
        });
        inits
            .into_iter()
            .zip(&operands[n_in..])
            .filter(|(_, &v)| {
                matches!(
                    ctx.type_data(ctx.value_type(v)),
                    TypeData::RankedTensor { .. }
                )
            })
            .map(|(i, _)| i)
            .collect()
    }
}

/// The error function, by Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7).
fn erf(x: f64) -> f64 {
    let t = 1.0 / (1.0 + 0.327_591_1 * x.abs());
    let poly = t
        * (0.254_829_592
            + t * (-0.284_496_736
                + t * (1.421_413_741 + t * (-1.453_152_027 + t * 1.061_405_429))));
    let y = 1.0 - poly * (-x * x).exp();
    if x < 0.0 {
        -y
    } else {
        y
    }
}

/// Calls `f` with every index of `shape`, in row-major order.
fn for_each_index(shape: &[usize], mut f: impl FnMut(&[i64])) {
    if shape.contains(&0) {
        return;
    }
    let mut idx = vec![0i64; shape.len()];
    loop {
        f(&idx);
        let mut d = shape.len();
        loop {
            if d == 0 {
                return;
            }
            d -= 1;
            idx[d] += 1;
            if (idx[d] as usize) < shape[d] {
                break;
            }
            idx[d] = 0;
        }
    }
}

/// SplitMix64 for inputs.
struct Rng(u64);

impl Rng {
    fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        ((z >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
    }
}

/// Runs `text` in the interpreter and, lowered, in the evaluator, on seeded inputs; returns
/// how many outputs were compared.
fn check(text: &str, seed: u64) -> usize {
    let mut ctx = ctx();
    let module = nart_ir::parser::parse_source(&mut ctx, "t.mlir", text)
        .unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    nart_ir::verify::verify(&ctx, module).unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    let func = ctx.nested_ops(module)[0];
    let entry = ctx.region_blocks(ctx.region(func, 0))[0];
    let mut rng = Rng(seed);
    let mut inputs = Vec::new();
    let mut tensors = Vec::new();
    for &a in ctx.block_args(entry) {
        let s = shape_of(&ctx, a);
        let data: Vec<f32> = (0..s.iter().product::<usize>())
            .map(|_| rng.next_f32())
            .collect();
        tensors.push(Tensor::from_vec(s.clone(), data.clone()).expect("tensor"));
        inputs.push(V::T(s, data.into_iter().map(f64::from).collect()));
    }
    let want = Interpreter::from_module(&ctx, module, None)
        .expect("the function plans")
        .run(tensors)
        .expect("the interpreter runs");

    let mut registry = nart_pass::PassRegistry::new();
    nart_linalg_lowering::register(&mut registry);
    let mut pm = nart_pass::PassManager::parse(
        "builtin.module(func.func(convert-graph-to-linalg))",
        &registry,
    )
    .expect("pipeline parses");
    let mut out = Vec::new();
    pm.run(&mut ctx, module, &mut out)
        .unwrap_or_else(|e| panic!("{e}: {}\n{text}", String::from_utf8_lossy(&out)));
    let lowered = nart_ir::printer::print_op(&ctx, module, &Default::default());
    assert!(!lowered.contains("\"graph."), "graph ops left:\n{lowered}");

    let mut ev = Eval {
        ctx: &ctx,
        env: HashMap::new(),
    };
    for (&a, v) in ctx.block_args(entry).iter().zip(inputs) {
        ev.env.insert(a, v);
    }
    let got = ev.run_block(entry);
    assert_eq!(got.len(), want.len());
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        let V::T(s, d) = g else {
            panic!("output {i} is not a tensor")
        };
        assert_eq!(s.as_slice(), w.shape(), "output {i} shape\n{lowered}");
        let w = w.to_f64_vec().expect("f64");
        for (j, (x, y)) in d.iter().zip(&w).enumerate() {
            assert!(
                (x - y).abs() <= 1e-4 + 1e-4 * y.abs(),
                "output {i} element {j}: lowered {x}, interpreter {y}\n{text}\n{lowered}"
            );
        }
    }
    want.len()
}

#[test]
fn elementwise_with_broadcasting() {
    let text = r#"func.func @f(%a: tensor<2x3x4xf32>, %b: tensor<3x1xf32>, %c: tensor<1x3x4xf32>, %s: tensor<f32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = "graph.Add"(%a, %b) : (tensor<2x3x4xf32>, tensor<3x1xf32>) -> tensor<2x3x4xf32>
  %1 = "graph.Sub"(%0, %c) : (tensor<2x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = "graph.Mul"(%1, %s) : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  %3 = "graph.Relu"(%2) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = "graph.LeakyRelu"(%2) <{alpha = 0.3 : f32}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %lo = "graph.constant"() <{value = dense<-0.5> : tensor<f32>}> : () -> tensor<f32>
  %hi = "graph.constant"() <{value = dense<0.75> : tensor<f32>}> : () -> tensor<f32>
  %5 = "graph.Clip"(%4, %lo, %hi) : (tensor<2x3x4xf32>, tensor<f32>, tensor<f32>) -> tensor<2x3x4xf32>
  %6 = "graph.Div"(%5, %c) : (tensor<2x3x4xf32>, tensor<1x3x4xf32>) -> tensor<2x3x4xf32>
  return %3, %6 : tensor<2x3x4xf32>, tensor<2x3x4xf32>
}"#;
    for seed in 0..3 {
        assert_eq!(check(text, seed), 2);
    }
}

#[test]
fn products() {
    let text = r#"func.func @f(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>, %c: tensor<5x2x3xf32>, %d: tensor<5x3x4xf32>, %t: tensor<3x2xf32>, %w: tensor<4x3xf32>, %bias: tensor<4xf32>, %bias2: tensor<2x1xf32>) -> (tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
  %0 = "graph.MatMul"(%a, %b) : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
  %1 = "graph.MatMul"(%c, %d) : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  %2 = "graph.Gemm"(%t, %w, %bias) <{transA = 1 : i64, transB = 1 : i64}> : (tensor<3x2xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %3 = "graph.Gemm"(%a, %b, %bias2) <{alpha = 0.5 : f32, beta = -2.0 : f32}> : (tensor<2x3xf32>, tensor<3x4xf32>, tensor<2x1xf32>) -> tensor<2x4xf32>
  %none = "graph.none"() : () -> none
  %4 = "graph.fused_gemm"(%a, %w, %none) <{activation = #graph.activation<clip>, activation_params = array<f32: -1.0, 1.0>, transB = 1 : i64}> : (tensor<2x3xf32>, tensor<4x3xf32>, none) -> tensor<2x4xf32>
  return %0, %1, %2, %3, %4 : tensor<2x4xf32>, tensor<5x2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
}"#;
    for seed in 0..3 {
        assert_eq!(check(text, seed), 5);
    }
}

#[test]
fn convolutions() {
    let text = r#"func.func @f(%x: tensor<1x4x7x6xf32>, %w: tensor<3x4x3x2xf32>, %b: tensor<3xf32>, %dw: tensor<4x1x3x3xf32>, %gw: tensor<6x2x2x2xf32>, %gb: tensor<6xf32>) -> (tensor<1x3x4x3xf32>, tensor<1x4x7x6xf32>, tensor<1x6x4x3xf32>, tensor<1x3x3x4xf32>) {
  %0 = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 1, 0, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x4x7x6xf32>, tensor<3x4x3x2xf32>, tensor<3xf32>) -> tensor<1x3x4x3xf32>
  %none = "graph.none"() : () -> none
  %1 = "graph.Conv"(%x, %dw, %none) <{pads = array<i64: 1, 1, 1, 1>, group = 4 : i64}> : (tensor<1x4x7x6xf32>, tensor<4x1x3x3xf32>, none) -> tensor<1x4x7x6xf32>
  %2 = "graph.Conv"(%x, %gw, %gb) <{pads = array<i64: 1, 1, 0, 0>, strides = array<i64: 2, 2>, group = 2 : i64}> : (tensor<1x4x7x6xf32>, tensor<6x2x2x2xf32>, tensor<6xf32>) -> tensor<1x6x4x3xf32>
  %3 = "graph.fused_conv"(%x, %w, %b) <{activation = #graph.activation<leaky_relu>, activation_params = array<f32: 0.1>, dilations = array<i64: 2, 2>}> : (tensor<1x4x7x6xf32>, tensor<3x4x3x2xf32>, tensor<3xf32>) -> tensor<1x3x3x4xf32>
  return %0, %1, %2, %3 : tensor<1x3x4x3xf32>, tensor<1x4x7x6xf32>, tensor<1x6x4x3xf32>, tensor<1x3x3x4xf32>
}"#;
    for seed in 0..2 {
        assert_eq!(check(text, seed), 4);
    }
}

#[test]
fn pooling() {
    let text = r#"func.func @f(%x: tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>) {
  %0, %i = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, ceil_mode = 1 : i64}> : (tensor<1x2x5x5xf32>) -> (tensor<1x2x3x3xf32>, tensor<1x2x3x3xi64>)
  %1 = "graph.AveragePool"(%x) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %2 = "graph.AveragePool"(%x) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>, count_include_pad = 1 : i64}> : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  %3 = "graph.GlobalAveragePool"(%x) : (tensor<1x2x5x5xf32>) -> tensor<1x2x1x1xf32>
  return %0, %1, %2, %3 : tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x3x3xf32>, tensor<1x2x1x1xf32>
}"#;
    for seed in 0..3 {
        assert_eq!(check(text, seed), 4);
    }
}

#[test]
fn data_movement_and_batch_norm() {
    let text = r#"func.func @f(%x: tensor<2x3x4xf32>, %y: tensor<4x2x5xf32>, %n: tensor<1x3x2x2xf32>) -> (tensor<4x2x8xf32>, tensor<6x4xf32>, tensor<1x3x2x2xf32>) {
  %t = "graph.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %c = "graph.Concat"(%t, %y) <{axis = 2 : i64}> : (tensor<4x2x3xf32>, tensor<4x2x5xf32>) -> tensor<4x2x8xf32>
  %f = "graph.Flatten"(%t) <{axis = 2 : i64}> : (tensor<4x2x3xf32>) -> tensor<8x3xf32>
  %shape = "graph.constant"() <{value = dense<[6, 4]> : tensor<2xi64>}> : () -> tensor<2xi64>
  %r = "graph.Reshape"(%f, %shape) : (tensor<8x3xf32>, tensor<2xi64>) -> tensor<6x4xf32>
  %scale = "graph.constant"() <{value = dense<[2.0, 1.0, 0.5]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %bias = "graph.constant"() <{value = dense<[1.0, 0.0, -1.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %mean = "graph.constant"() <{value = dense<[0.5, -1.0, 2.0]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %var = "graph.constant"() <{value = dense<[1.0, 4.0, 0.25]> : tensor<3xf32>}> : () -> tensor<3xf32>
  %b:3 = "graph.BatchNormalization"(%n, %scale, %bias, %mean, %var) <{epsilon = 0.001 : f32}> : (tensor<1x3x2x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<1x3x2x2xf32>, none, none)
  return %c, %r, %b#0 : tensor<4x2x8xf32>, tensor<6x4xf32>, tensor<1x3x2x2xf32>
}"#;
    for seed in 0..2 {
        assert_eq!(check(text, seed), 3);
    }
}

#[test]
fn math_ops_and_softmax() {
    let text = r#"func.func @f(%a: tensor<2x3x4xf32>) -> (tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>) {
  %0 = "graph.Sigmoid"(%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %1 = "graph.Tanh"(%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %2 = "graph.Exp"(%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %3 = "graph.Erf"(%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %4 = "graph.Softmax"(%a) : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  %5 = "graph.Softmax"(%a) <{axis = 1 : i64}> : (tensor<2x3x4xf32>) -> tensor<2x3x4xf32>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>, tensor<2x3x4xf32>
}"#;
    for seed in 0..3 {
        assert_eq!(check(text, seed), 6);
    }
}

#[test]
fn batch_norm_with_run_time_parameters() {
    // The variance is a square, so that it is never negative.
    let text = r#"func.func @f(%x: tensor<2x3x2xf32>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x2xf32> {
  %vv = "graph.Mul"(%v, %v) : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  %y:3 = "graph.BatchNormalization"(%x, %s, %b, %m, %vv) <{epsilon = 0.5 : f32}> : (tensor<2x3x2xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> (tensor<2x3x2xf32>, none, none)
  return %y#0 : tensor<2x3x2xf32>
}"#;
    for seed in 0..3 {
        assert_eq!(check(text, seed), 1);
    }
}

/// Runs `graph` in the interpreter, and `buffers` (a function taking the graph function's
/// inputs, then its outputs, then scratch buffers, as memrefs) lowered by
/// `convert-linalg-to-loops` in the evaluator, with the outputs and scratch buffers starting
/// at zero; compares the outputs.
fn check_loops(graph: &str, buffers: &str, seed: u64) {
    let mut ctx = ctx();
    nart_dialect_scf::register(&mut ctx);
    nart_dialect_memref::register(&mut ctx);
    let g = nart_ir::parser::parse_source(&mut ctx, "g.mlir", graph)
        .unwrap_or_else(|d| panic!("{}\n{graph}", d[0].message));
    nart_ir::verify::verify(&ctx, g).unwrap_or_else(|d| panic!("{}\n{graph}", d[0].message));
    let gf = ctx.nested_ops(g)[0];
    let gentry = ctx.region_blocks(ctx.region(gf, 0))[0];
    let mut rng = Rng(seed);
    let mut inputs: Vec<Vec<f32>> = Vec::new();
    let mut tensors = Vec::new();
    for &a in ctx.block_args(gentry) {
        let s = shape_of(&ctx, a);
        let data: Vec<f32> = (0..s.iter().product::<usize>())
            .map(|_| rng.next_f32())
            .collect();
        tensors.push(Tensor::from_vec(s, data.clone()).expect("tensor"));
        inputs.push(data);
    }
    let want = Interpreter::from_module(&ctx, g, None)
        .expect("the function plans")
        .run(tensors)
        .expect("the interpreter runs");

    let b = nart_ir::parser::parse_source(&mut ctx, "b.mlir", buffers)
        .unwrap_or_else(|d| panic!("{}\n{buffers}", d[0].message));
    nart_ir::verify::verify(&ctx, b).unwrap_or_else(|d| panic!("{}\n{buffers}", d[0].message));
    let mut registry = nart_pass::PassRegistry::new();
    nart_linalg_lowering::register(&mut registry);
    let mut pm = nart_pass::PassManager::parse(
        "builtin.module(func.func(convert-linalg-to-loops))",
        &registry,
    )
    .expect("pipeline parses");
    let mut out = Vec::new();
    pm.run(&mut ctx, b, &mut out)
        .unwrap_or_else(|e| panic!("{e}: {}\n{buffers}", String::from_utf8_lossy(&out)));
    let lowered = nart_ir::printer::print_op(&ctx, b, &Default::default());
    assert!(
        !lowered.contains("linalg."),
        "structured ops left:\n{lowered}"
    );

    let bf = ctx.nested_ops(b)[0];
    let bentry = ctx.region_blocks(ctx.region(bf, 0))[0];
    let mut ev = Eval {
        ctx: &ctx,
        env: HashMap::new(),
    };
    let mut mems = Vec::new();
    for (i, &a) in ctx.block_args(bentry).iter().enumerate() {
        let s = shape_of(&ctx, a);
        let n: usize = s.iter().product();
        let data = match inputs.get(i) {
            Some(d) => {
                assert_eq!(d.len(), n, "buffer {i} has as many elements as input {i}");
                d.iter().map(|&x| f64::from(x)).collect()
            }
            None => vec![0.0; n],
        };
        let m = Rc::new(RefCell::new((s, data)));
        mems.push(m.clone());
        ev.env.insert(a, V::M(m));
    }
    ev.run_block(bentry);
    for (k, w) in want.iter().enumerate() {
        let got = mems[inputs.len() + k].borrow();
        let w = w.to_f64_vec().expect("f64");
        assert_eq!(got.1.len(), w.len(), "output {k} size");
        for (j, (x, y)) in got.1.iter().zip(&w).enumerate() {
            assert!(
                (x - y).abs() <= 1e-4 + 1e-4 * y.abs(),
                "output {k} element {j}: loops {x}, interpreter {y}\n{lowered}"
            );
        }
    }
}

#[test]
fn loops_compute_what_the_graph_ops_compute() {
    let cases = [
        (
            r#"func.func @f(%a: tensor<3x5xf32>, %b: tensor<5x4xf32>) -> tensor<3x4xf32> {
  %0 = "graph.MatMul"(%a, %b) : (tensor<3x5xf32>, tensor<5x4xf32>) -> tensor<3x4xf32>
  return %0 : tensor<3x4xf32>
}"#,
            r#"func.func @f(%a: memref<3x5xf32>, %b: memref<5x4xf32>, %c: memref<3x4xf32>) {
  linalg.matmul ins(%a, %b : memref<3x5xf32>, memref<5x4xf32>) outs(%c : memref<3x4xf32>)
  return
}"#,
        ),
        (
            r#"func.func @f(%x: tensor<1x3x9x8xf32>, %w: tensor<4x3x3x2xf32>) -> tensor<1x4x4x6xf32> {
  %none = "graph.none"() : () -> none
  %0 = "graph.Conv"(%x, %w, %none) <{strides = array<i64: 2, 1>, dilations = array<i64: 1, 2>}> : (tensor<1x3x9x8xf32>, tensor<4x3x3x2xf32>, none) -> tensor<1x4x4x6xf32>
  return %0 : tensor<1x4x4x6xf32>
}"#,
            r#"func.func @f(%x: memref<1x3x9x8xf32>, %w: memref<4x3x3x2xf32>, %o: memref<1x4x4x6xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<[2, 1]> : tensor<2xi64>} ins(%x, %w : memref<1x3x9x8xf32>, memref<4x3x3x2xf32>) outs(%o : memref<1x4x4x6xf32>)
  return
}"#,
        ),
        (
            r#"func.func @f(%x: tensor<1x3x6x5xf32>, %w: tensor<3x1x3x2xf32>) -> tensor<1x3x4x4xf32> {
  %none = "graph.none"() : () -> none
  %0 = "graph.Conv"(%x, %w, %none) <{group = 3 : i64}> : (tensor<1x3x6x5xf32>, tensor<3x1x3x2xf32>, none) -> tensor<1x3x4x4xf32>
  return %0 : tensor<1x3x4x4xf32>
}"#,
            r#"func.func @f(%x: memref<1x3x6x5xf32>, %w: memref<3x3x2xf32>, %o: memref<1x3x4x4xf32>) {
  linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : memref<1x3x6x5xf32>, memref<3x3x2xf32>) outs(%o : memref<1x3x4x4xf32>)
  return
}"#,
        ),
        (
            r#"func.func @f(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x2x2xf32> {
  %0, %1 = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x2x5x5xf32>) -> (tensor<1x2x2x2xf32>, tensor<1x2x2x2xi64>)
  return %0 : tensor<1x2x2x2xf32>
}"#,
            r#"func.func @f(%x: memref<1x2x5x5xf32>, %o: memref<1x2x2x2xf32>, %k: memref<3x3xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%ninf : f32) outs(%o : memref<1x2x2x2xf32>)
  linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %k : memref<1x2x5x5xf32>, memref<3x3xf32>) outs(%o : memref<1x2x2x2xf32>)
  return
}"#,
        ),
        (
            r#"func.func @f(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = "graph.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  return %0 : tensor<4x2x3xf32>
}"#,
            r#"func.func @f(%x: memref<2x3x4xf32>, %o: memref<4x2x3xf32>) {
  linalg.transpose ins(%x : memref<2x3x4xf32>) outs(%o : memref<4x2x3xf32>) permutation = [2, 0, 1]
  return
}"#,
        ),
    ];
    for (graph, buffers) in cases {
        for seed in 0..2 {
            check_loops(graph, buffers, seed);
        }
    }
}
