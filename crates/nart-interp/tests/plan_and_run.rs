//! Builds small graph-dialect functions by hand and runs them: constants of several element
//! types, optional operands, If regions, freeing of intermediates, and input checking.

use nart_interp::{InterpError, Interpreter};
use nart_ir::{AttrData, Block, Context, DenseData, Op, OperationState, Type, Value};
use nart_tensor::{DType, Tensor};

struct Fn {
    ctx: Context,
    func: Op,
    body: Block,
}

impl Fn {
    fn new(make_args: impl FnOnce(&mut Context) -> Vec<Type>) -> Fn {
        let mut ctx = Context::new();
        nart_interp::register(&mut ctx);
        let args = make_args(&mut ctx);
        let loc = ctx.unknown_loc();
        let region = ctx.create_region();
        let body = ctx.create_block(&args, loc);
        ctx.append_block(region, body);
        let state = OperationState::new(&mut ctx, "func.func", loc).regions(&[region]);
        let func = ctx.create_op(state);
        Fn { ctx, func, body }
    }

    fn op(&mut self, block: Block, name: &str, operands: &[Value], results: &[Type]) -> Op {
        let loc = self.ctx.file_loc("model.onnx", 1, 1);
        let state = OperationState::new(&mut self.ctx, name, loc)
            .operands(operands)
            .results(results);
        let op = self.ctx.create_op(state);
        self.ctx.append_op(block, op);
        op
    }

    fn constant(&mut self, block: Block, ty: Type, bytes: Vec<u8>) -> Value {
        let attr = self.ctx.intern_attr(AttrData::DenseElements {
            ty,
            data: DenseData::Elements(bytes),
        });
        let op = self.op(block, "graph.constant", &[], &[ty]);
        self.ctx.set_prop(op, "value", attr);
        self.ctx.result(op, 0)
    }

    fn ret(&mut self, vals: &[Value]) {
        let body = self.body;
        self.op(body, "func.return", vals, &[]);
    }
}

fn f32_tensor(ctx: &mut Context, shape: Vec<i64>) -> Type {
    let f = ctx.f32_type();
    ctx.tensor_type(shape, f)
}

#[test]
fn runs_add_with_constant_and_clip_with_absent_min() {
    let mut f = Fn::new(|ctx| vec![f32_tensor(ctx, vec![nart_ir::DYNAMIC, 3])]);
    let t = f32_tensor(&mut f.ctx, vec![nart_ir::DYNAMIC, 3]);
    let c_ty = f32_tensor(&mut f.ctx, vec![3]);
    let s_ty = f32_tensor(&mut f.ctx, vec![]);
    let body = f.body;
    let x = f.ctx.block_args(body)[0];
    let bytes: Vec<u8> = [1.0f32, 2.0, 3.0]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let c = f.constant(body, c_ty, bytes);
    let add = f.op(body, "graph.Add", &[x, c], &[t]);
    let sum = f.ctx.result(add, 0);
    let none_ty = f.ctx.none_type();
    let none = f.op(body, "graph.none", &[], &[none_ty]);
    let none = f.ctx.result(none, 0);
    let hi = f.constant(body, s_ty, 4.5f32.to_le_bytes().to_vec());
    let clip = f.op(body, "graph.Clip", &[sum, none, hi], &[t]);
    let out = f.ctx.result(clip, 0);
    f.ret(&[out, sum]);

    let interp = Interpreter::new(&f.ctx, f.func).unwrap();
    assert_eq!(interp.num_steps(), 2);
    let x = Tensor::from_vec(vec![2, 3], vec![0f32, 1., 2., -10., 0., 10.]).unwrap();
    let outs = interp.run(vec![x]).unwrap();
    assert_eq!(outs[0].as_f32().unwrap(), &[1., 3., 4.5, -9., 2., 4.5]);
    assert_eq!(outs[1].as_f32().unwrap(), &[1., 3., 5., -9., 2., 13.]);

    // Wrong element type, wrong shape, wrong count: errors naming the input.
    let bad = Tensor::from_vec(vec![1, 3], vec![0f64; 3]).unwrap();
    let err = interp.run(vec![bad]).unwrap_err();
    assert!(
        matches!(err, InterpError::InputDType { index: 0, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("input #0 'input_0'"), "{err}");
    let bad = Tensor::from_vec(vec![3], vec![0f32; 3]).unwrap();
    let err = interp.run(vec![bad]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "input #0 'input_0': expected shape [?, 3], got [3]"
    );
    let err = interp.run(vec![]).unwrap_err();
    assert!(matches!(
        err,
        InterpError::InputCount {
            expected: 1,
            got: 0,
            ..
        }
    ));
}

#[test]
fn runs_if_regions_and_reports_unsupported_ops() {
    let mut f = Fn::new(|_| Vec::new());
    let i1 = f.ctx.i1_type();
    let b = f.ctx.tensor_type(vec![], i1);
    let i64t = f.ctx.i64_type();
    let it = f.ctx.tensor_type(vec![1], i64t);
    let body = f.body;
    let cond = f.constant(body, b, vec![1]);
    let if_op = f.op(body, "graph.If", &[cond], &[it]);
    // Regions in the schema's order: else_branch, then then_branch.
    for (k, v) in [(0usize, 7i64), (1, 42)] {
        let _ = k;
        let loc = f.ctx.unknown_loc();
        let region = f.ctx.add_region(if_op);
        let blk = f.ctx.create_block(&[], loc);
        f.ctx.append_block(region, blk);
        let c = f.constant(blk, it, v.to_le_bytes().to_vec());
        f.op(blk, "graph.yield", &[c], &[]);
    }
    let out = f.ctx.result(if_op, 0);
    f.ret(&[out]);
    let interp = Interpreter::new(&f.ctx, f.func).unwrap();
    let outs = interp.run(vec![]).unwrap();
    assert_eq!(outs[0].dtype(), DType::I64);
    assert_eq!(outs[0].as_i64().unwrap(), &[42]);

    let mut g = Fn::new(|_| Vec::new());
    let body = g.body;
    let ty = f32_tensor(&mut g.ctx, vec![1]);
    let c = g.constant(body, ty, 1f32.to_le_bytes().to_vec());
    let op = g.op(body, "graph.NoSuchOp", &[c], &[ty]);
    let r = g.ctx.result(op, 0);
    g.ret(&[r]);
    let err = Interpreter::new(&g.ctx, g.func).unwrap_err();
    assert_eq!(
        err.to_string(),
        "model.onnx:1:1: 'graph.NoSuchOp' is not supported by the interpreter"
    );
}

#[test]
fn runs_loop_with_carried_value_and_scan_output() {
    let mut f = Fn::new(|_| Vec::new());
    let i64t = f.ctx.i64_type();
    let i1 = f.ctx.i1_type();
    let scalar = f.ctx.tensor_type(vec![], i64t);
    let flag = f.ctx.tensor_type(vec![], i1);
    let stacked = f.ctx.tensor_type(vec![3], i64t);
    let body = f.body;
    let m = f.constant(body, scalar, 3i64.to_le_bytes().to_vec());
    let none_ty = f.ctx.none_type();
    let none = f.op(body, "graph.none", &[], &[none_ty]);
    let none = f.ctx.result(none, 0);
    let x0 = f.constant(body, scalar, 10i64.to_le_bytes().to_vec());
    let lp = f.op(body, "graph.Loop", &[m, none, x0], &[scalar, stacked]);
    let loc = f.ctx.unknown_loc();
    let region = f.ctx.add_region(lp);
    let blk = f.ctx.create_block(&[scalar, flag, scalar], loc);
    f.ctx.append_block(region, blk);
    let (iter, cond, x) = {
        let a = f.ctx.block_args(blk);
        (a[0], a[1], a[2])
    };
    let add = f.op(blk, "graph.Add", &[x, iter], &[scalar]);
    let sum = f.ctx.result(add, 0);
    f.op(blk, "graph.yield", &[cond, sum, sum], &[]);
    let (last, all) = (f.ctx.result(lp, 0), f.ctx.result(lp, 1));
    f.ret(&[last, all]);
    let outs = Interpreter::new(&f.ctx, f.func)
        .unwrap()
        .run(vec![])
        .unwrap();
    assert_eq!(outs[0].as_i64().unwrap(), &[13]);
    assert_eq!(outs[1].as_i64().unwrap(), &[10, 11, 13]);
}

/// Records what an observer sees.
struct Seen(Vec<(Value, Vec<f32>)>);

impl nart_interp::Observer for Seen {
    fn observe(&mut self, value: Value, val: &nart_interp::Val) {
        let t = val.as_tensor().expect("only tensors here");
        self.0.push((value, t.as_f32().unwrap().to_vec()));
    }
}

#[test]
fn an_observer_sees_the_arguments_and_every_computed_value_in_order() {
    let mut f = Fn::new(|ctx| vec![f32_tensor(ctx, vec![2])]);
    let t = f32_tensor(&mut f.ctx, vec![2]);
    let body = f.body;
    let x = f.ctx.block_args(body)[0];
    let neg = f.op(body, "graph.Neg", &[x], &[t]);
    let n = f.ctx.result(neg, 0);
    let add = f.op(body, "graph.Add", &[n, x], &[t]);
    let a = f.ctx.result(add, 0);
    let mul = f.op(body, "graph.Mul", &[a, n], &[t]);
    let m = f.ctx.result(mul, 0);
    f.ret(&[m]);
    let interp = Interpreter::new(&f.ctx, f.func).unwrap();
    let x_val = Tensor::from_vec(vec![2], vec![1.5f32, -2.0]).unwrap();
    let mut seen = Seen(Vec::new());
    let outs = interp
        .run_observed(vec![nart_interp::Val::Tensor(x_val.clone())], &mut seen)
        .unwrap();
    assert_eq!(
        seen.0,
        vec![
            (x, vec![1.5, -2.0]),
            (n, vec![-1.5, 2.0]),
            (a, vec![0.0, 0.0]),
            (m, vec![-0.0, 0.0]),
        ]
    );
    // Values freed after their last use were still alive when observed, and the run without an
    // observer gives the same result.
    assert_eq!(
        outs[0].as_tensor(),
        interp.run(vec![x_val]).unwrap().first()
    );
}
