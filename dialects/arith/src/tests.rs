//! Unit tests of the `arith` dialect: verifiers, folders (as tables) and patterns.

use super::*;

#[test]
fn docs_are_up_to_date() {
    let text = nart_ir::docs::render_dialect_docs(&dialect());
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/dialects/arith.md");
    if let Err(e) = nart_ir::docs::check_generated_file(&path, &text, "nart-dialect-arith") {
        panic!("{e}");
    }
}

use nart_ir::registry::{FoldOutcome, FoldResult};
use nart_ir::{FloatKind, PatternRewriter, RewritePattern, Trait};
use nart_test_dialect::TestFunc;

use crate::consts::{make, scalar_of, Scalar};

/// A module with an empty `test.func @f()`; tests append ops to its entry block.
fn setup() -> TestFunc {
    TestFunc::new(&[register])
}

/// What the tests of arith ops add to the shared harness.
trait ArithHarness {
    /// Appends `arith.constant v : ty`; returns its result and value.
    fn constant(&mut self, ty: Type, v: Scalar) -> (Value, Attr);
    /// Runs the folder of `op` with its constant operands.
    fn fold(&mut self, op: Op) -> FoldOutcome;
    /// The folded constant of a one-result fold, as a scalar.
    fn folded(&self, out: &FoldOutcome) -> Option<Scalar>;
}

impl ArithHarness for TestFunc {
    fn constant(&mut self, ty: Type, v: Scalar) -> (Value, Attr) {
        let a = make(&mut self.ctx, ty, v).unwrap_or_else(|| unreachable!("constant of {ty:?}"));
        let op = build_constant(&mut self.ctx, a, ty, self.loc);
        self.append(op);
        (self.ctx.result(op, 0), a)
    }

    fn fold(&mut self, op: Op) -> FoldOutcome {
        let cst: Vec<Option<Attr>> = self
            .ctx
            .operands(op)
            .to_vec()
            .into_iter()
            .map(|v| canonicalize::constant_attr(&self.ctx, v))
            .collect();
        let f = self
            .ctx
            .op_def(op)
            .and_then(|d| d.fold)
            .unwrap_or_else(|| unreachable!());
        f(&mut self.ctx, op, &cst)
    }

    fn folded(&self, out: &FoldOutcome) -> Option<Scalar> {
        match out {
            FoldOutcome::Replace(v) => match v[..] {
                [FoldResult::Attr(a)] => scalar_of(&self.ctx, a).map(|s| s.0),
                _ => None,
            },
            _ => None,
        }
    }
}

/// Ends the function and returns the first verifier message.
fn first_error(t: &mut TestFunc) -> Option<String> {
    t.ret();
    t.first_error()
}

fn int(w: u32) -> impl Fn(&mut Context) -> Type {
    move |ctx| {
        if w == 0 {
            ctx.index_type()
        } else {
            ctx.int_type(w)
        }
    }
}

/// Folds `name(a, b)` on constants of `iW` (`W = 0` means `index`).
fn fold_int2(name: &str, w: u32, a: i128, b: i128) -> Option<i128> {
    let mut t = setup();
    let ty = int(w)(&mut t.ctx);
    let (x, _) = t.constant(ty, Scalar::Int(a));
    let (y, _) = t.constant(ty, Scalar::Int(b));
    let op = t.op(name, &[x, y], &[ty]);
    let out = t.fold(op);
    match t.folded(&out) {
        Some(Scalar::Int(i)) => Some(i),
        _ => None,
    }
}

#[test]
fn integer_folders() {
    let min32 = i32::MIN as i128;
    let max32 = i32::MAX as i128;
    #[rustfmt::skip]
    let table: &[(&str, u32, i128, i128, Option<i128>)] = &[
        ("arith.addi", 8, 100, 100, Some(-56)),
        ("arith.addi", 32, max32, 1, Some(min32)),
        ("arith.addi", 0, 1 << 62, 3 << 62, Some(0)),
        ("arith.addi", 1, -1, -1, Some(0)),
        ("arith.subi", 8, -128, 1, Some(127)),
        ("arith.subi", 64, 5, 7, Some(-2)),
        ("arith.muli", 8, 16, 16, Some(0)),
        ("arith.muli", 16, 300, 300, Some(24464)),
        ("arith.muli", 64, i64::MAX as i128, 2, Some(-2)),
        ("arith.divsi", 32, 7, -2, Some(-3)),
        ("arith.divsi", 32, -7, 2, Some(-3)),
        ("arith.divsi", 8, -128, -1, None),
        ("arith.divsi", 32, 7, 0, None),
        ("arith.divui", 8, -1, 2, Some(127)),
        ("arith.divui", 8, 7, 0, None),
        ("arith.ceildivsi", 32, 7, 2, Some(4)),
        ("arith.ceildivsi", 32, -7, 2, Some(-3)),
        ("arith.ceildivsi", 32, 7, -2, Some(-3)),
        ("arith.ceildivsi", 32, -7, -2, Some(4)),
        ("arith.ceildivsi", 32, 6, 0, None),
        ("arith.ceildivui", 8, -1, 2, Some(-128)),
        ("arith.ceildivui", 8, 6, 3, Some(2)),
        ("arith.floordivsi", 32, -7, 2, Some(-4)),
        ("arith.floordivsi", 32, 7, -2, Some(-4)),
        ("arith.floordivsi", 32, 7, 2, Some(3)),
        ("arith.floordivsi", 8, -128, -1, None),
        ("arith.remsi", 32, -7, 2, Some(-1)),
        ("arith.remsi", 32, 7, 0, None),
        ("arith.remui", 8, -1, 10, Some(5)),
        ("arith.remui", 8, 3, 0, None),
        ("arith.andi", 8, 0b1100, 0b1010, Some(0b1000)),
        ("arith.ori", 8, 0b1100, 0b1010, Some(0b1110)),
        ("arith.xori", 8, 0b1100, 0b1010, Some(0b0110)),
        ("arith.shli", 8, 1, 7, Some(-128)),
        ("arith.shli", 8, 1, 8, None),
        ("arith.shrsi", 8, -128, 7, Some(-1)),
        ("arith.shrui", 8, -128, 7, Some(1)),
        ("arith.shrui", 8, 1, -1, None),
        ("arith.maxsi", 8, -1, 1, Some(1)),
        ("arith.maxui", 8, -1, 1, Some(-1)),
        ("arith.minsi", 8, -1, 1, Some(-1)),
        ("arith.minui", 8, -1, 1, Some(1)),
    ];
    for &(name, w, a, b, want) in table {
        assert_eq!(fold_int2(name, w, a, b), want, "{name} i{w} {a}, {b}");
    }
}

#[test]
fn extended_folders() {
    let mut t = setup();
    let i8t = t.ctx.int_type(8);
    let i1 = t.ctx.i1_type();
    let (x, _) = t.constant(i8t, Scalar::Int(-1));
    let (y, _) = t.constant(i8t, Scalar::Int(2));
    let add = t.op("arith.addui_extended", &[x, y], &[i8t, i1]);
    let mul_s = t.op("arith.mulsi_extended", &[x, y], &[i8t, i8t]);
    let mul_u = t.op("arith.mului_extended", &[x, y], &[i8t, i8t]);
    let ints = |t: &mut TestFunc, op: Op| -> Vec<i128> {
        match t.fold(op) {
            FoldOutcome::Replace(v) => v
                .iter()
                .filter_map(|r| match r {
                    FoldResult::Attr(a) => crate::consts::int_of(&t.ctx, *a),
                    FoldResult::Value(_) => None,
                })
                .collect(),
            _ => vec![],
        }
    };
    // 255 + 2 = 257: sum 1, carry.
    assert_eq!(ints(&mut t, add), vec![1, -1]);
    // -1 * 2 = -2: low 0xfe, high 0xff.
    assert_eq!(ints(&mut t, mul_s), vec![-2, -1]);
    // 255 * 2 = 510 = 0x1fe: low 0xfe, high 1.
    assert_eq!(ints(&mut t, mul_u), vec![-2, 1]);
}

#[test]
fn compare_folders() {
    #[rustfmt::skip]
    let int_table: &[(i64, i128, i128, bool)] = &[
        (0, 3, 3, true), (1, 3, 3, false), (2, -1, 1, true), (3, 1, 1, true),
        (4, -1, 1, false), (5, -1, -1, true), (6, -1, 1, false), (7, 1, 1, true),
        (8, -1, 1, true), (9, 0, 1, false),
    ];
    for &(pred, a, b, want) in int_table {
        let mut t = setup();
        let i8t = t.ctx.int_type(8);
        let i1 = t.ctx.i1_type();
        let (x, _) = t.constant(i8t, Scalar::Int(a));
        let (y, _) = t.constant(i8t, Scalar::Int(b));
        let op = t.op("arith.cmpi", &[x, y], &[i1]);
        let p = t.ctx.i64_attr(pred);
        t.ctx.set_prop(op, "predicate", p);
        let out = t.fold(op);
        assert_eq!(
            t.folded(&out),
            Some(Scalar::Int(-i128::from(want))),
            "cmpi {pred} {a} {b}"
        );
    }
    let nan = f64::NAN;
    #[rustfmt::skip]
    let float_table: &[(i64, f64, f64, bool)] = &[
        (0, 1.0, 1.0, false), (1, 1.0, 1.0, true), (2, 2.0, 1.0, true), (3, 1.0, 1.0, true),
        (4, nan, 1.0, false), (5, 1.0, 2.0, true), (6, 1.0, 2.0, true), (6, nan, 2.0, false),
        (7, nan, 1.0, false), (8, nan, 1.0, true), (9, 1.0, 2.0, false), (10, nan, nan, true),
        (11, 1.0, 2.0, true), (12, 3.0, 2.0, false), (13, 1.0, 1.0, false), (14, nan, 0.0, true),
        (14, 0.0, 0.0, false), (15, nan, nan, true),
    ];
    for &(pred, a, b, want) in float_table {
        let mut t = setup();
        let f32t = t.ctx.f32_type();
        let i1 = t.ctx.i1_type();
        let (x, _) = t.constant(f32t, Scalar::Float(a));
        let (y, _) = t.constant(f32t, Scalar::Float(b));
        let op = t.op("arith.cmpf", &[x, y], &[i1]);
        let p = t.ctx.i64_attr(pred);
        t.ctx.set_prop(op, "predicate", p);
        let out = t.fold(op);
        assert_eq!(
            t.folded(&out),
            Some(Scalar::Int(-i128::from(want))),
            "cmpf {pred} {a} {b}"
        );
    }
}

/// Folds a float op on constants of `kind`.
fn fold_float(name: &str, kind: FloatKind, args: &[f64]) -> Option<f64> {
    let mut t = setup();
    let ty = t.ctx.float_type(kind);
    let vals: Vec<Value> = args
        .iter()
        .map(|&a| t.constant(ty, Scalar::Float(a)).0)
        .collect();
    let op = t.op(name, &vals, &[ty]);
    let out = t.fold(op);
    match t.folded(&out) {
        Some(Scalar::Float(f)) => Some(f),
        _ => None,
    }
}

#[test]
fn float_folders() {
    use FloatKind::*;
    let same = |a: Option<f64>, b: f64| {
        a.is_some_and(|a| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()))
    };
    #[rustfmt::skip]
    let table: &[(&str, FloatKind, &[f64], f64)] = &[
        // f32 arithmetic for f32: 0.1f + 0.2f is 0.3f's neighbour, not the f64 sum.
        ("arith.addf", F32, &[0.1, 0.2], (0.1f32 + 0.2f32) as f64),
        ("arith.addf", F64, &[0.1, 0.2], 0.1 + 0.2),
        ("arith.subf", F32, &[1.0, 0.25], 0.75),
        ("arith.mulf", F16, &[3.0, 0.1], nart_ir::util::round_to_float_kind(3.0 * nart_ir::util::round_to_float_kind(0.1, F16), F16)),
        ("arith.divf", F64, &[1.0, 0.0], f64::INFINITY),
        ("arith.divf", F32, &[1.0, 3.0], (1.0f32 / 3.0f32) as f64),
        ("arith.remf", F64, &[5.5, 2.0], 1.5),
        ("arith.remf", F64, &[-5.5, 2.0], -1.5),
        ("arith.negf", F32, &[2.0], -2.0),
        ("arith.maximumf", F32, &[f64::NAN, 1.0], f64::NAN),
        ("arith.maximumf", F32, &[-0.0, 0.0], 0.0),
        ("arith.minimumf", F32, &[-0.0, 0.0], -0.0),
        ("arith.maxnumf", F32, &[f64::NAN, 1.0], 1.0),
        ("arith.minnumf", F64, &[3.0, f64::NAN], 3.0),
        ("arith.addf", BF16, &[1.0, 0.001], 1.0),
    ];
    for &(name, kind, args, want) in table {
        let got = fold_float(name, kind, args);
        assert!(
            same(got, want),
            "{name} {kind:?} {args:?}: {got:?} != {want}"
        );
    }
}

/// Folds the cast `name` of constant `v : from` to `to`.
fn fold_cast(
    name: &str,
    from: fn(&mut Context) -> Type,
    to: fn(&mut Context) -> Type,
    v: Scalar,
) -> Option<Scalar> {
    let mut t = setup();
    let (ft, tt) = (from(&mut t.ctx), to(&mut t.ctx));
    let (x, _) = t.constant(ft, v);
    let op = t.op(name, &[x], &[tt]);
    let out = t.fold(op);
    t.folded(&out)
}

#[test]
fn cast_folders() {
    let i8t: fn(&mut Context) -> Type = |c| c.int_type(8);
    let i32t: fn(&mut Context) -> Type = |c| c.i32_type();
    let i64t: fn(&mut Context) -> Type = |c| c.i64_type();
    let f32t: fn(&mut Context) -> Type = |c| c.f32_type();
    let f64t: fn(&mut Context) -> Type = |c| c.float_type(FloatKind::F64);
    let idx: fn(&mut Context) -> Type = |c| c.index_type();
    use Scalar::{Float as F, Int as I};
    #[rustfmt::skip]
    type TypeFn = fn(&mut Context) -> Type;
    let table: &[(&str, TypeFn, TypeFn, Scalar, Option<Scalar>)] = &[
        ("arith.extsi", i8t, i32t, I(-1), Some(I(-1))),
        ("arith.extui", i8t, i32t, I(-1), Some(I(255))),
        ("arith.trunci", i32t, i8t, I(300), Some(I(44))),
        ("arith.trunci", i32t, i8t, I(200), Some(I(-56))),
        ("arith.sitofp", i8t, f32t, I(-3), Some(F(-3.0))),
        ("arith.uitofp", i8t, f32t, I(-1), Some(F(255.0))),
        (
            "arith.sitofp",
            i64t,
            f32t,
            I(16_777_217),
            Some(F(16_777_216.0)),
        ),
        ("arith.fptosi", f32t, i8t, F(-2.7), Some(I(-2))),
        ("arith.fptosi", f32t, i8t, F(127.9), Some(I(127))),
        ("arith.fptosi", f32t, i8t, F(128.0), None),
        ("arith.fptoui", f32t, i8t, F(255.5), Some(I(-1))),
        ("arith.fptoui", f32t, i8t, F(-1.0), None),
        (
            "arith.extf",
            f32t,
            f64t,
            F(0.1f32 as f64),
            Some(F(0.1f32 as f64)),
        ),
        ("arith.truncf", f64t, f32t, F(0.1), Some(F(0.1f32 as f64))),
        ("arith.bitcast", f32t, i32t, F(1.0), Some(I(0x3f80_0000))),
        (
            "arith.bitcast",
            i64t,
            f64t,
            I(0x4000_0000_0000_0000),
            Some(F(2.0)),
        ),
        ("arith.index_cast", i32t, idx, I(-1), Some(I(-1))),
        ("arith.index_castui", i32t, idx, I(-1), Some(I(0xffff_ffff))),
        ("arith.index_cast", idx, i8t, I(0x1ff), Some(I(-1))),
    ];
    for &(name, from, to, v, want) in table {
        assert_eq!(fold_cast(name, from, to, v), want, "{name} {v:?}");
    }
}

#[test]
fn splat_folding() {
    let mut t = setup();
    let i8t = t.ctx.int_type(8);
    let vt = t.ctx.tensor_type(vec![4], i8t);
    let (x, _) = t.constant(vt, Scalar::Int(100));
    let op = t.op("arith.addi", &[x, x], &[vt]);
    let out = t.fold(op);
    let FoldOutcome::Replace(r) = out else {
        unreachable!("splats fold")
    };
    let FoldResult::Attr(a) = r[0] else {
        unreachable!("to a constant")
    };
    assert_eq!(scalar_of(&t.ctx, a), Some((Scalar::Int(-56), vt)));
    // The constant materializes as an arith.constant of the tensor type.
    let m = materialize_constant(&mut t.ctx, a, vt, t.loc).unwrap_or_else(|| unreachable!());
    assert_eq!(t.ctx.op_name_str(m), "arith.constant");
}

#[test]
fn identity_folders() {
    let mut t = setup();
    let i32t = t.ctx.i32_type();
    let i1 = t.ctx.i1_type();
    let x = t.add_arg(i32t);
    let y = t.add_arg(i32t);
    let c = t.add_arg(i1);
    let (zero, zero_attr) = t.constant(i32t, Scalar::Int(0));
    let (one, _) = t.constant(i32t, Scalar::Int(1));
    let (tru, _) = t.constant(i1, Scalar::Int(-1));
    let value = |v: Value| FoldOutcome::Replace(vec![FoldResult::Value(v)]);
    let zero_out = FoldOutcome::Replace(vec![FoldResult::Attr(zero_attr)]);
    let cases: Vec<(&str, Vec<Value>, Type, FoldOutcome)> = vec![
        ("arith.addi", vec![x, zero], i32t, value(x)),
        ("arith.subi", vec![x, x], i32t, zero_out.clone()),
        ("arith.subi", vec![x, zero], i32t, value(x)),
        ("arith.muli", vec![x, one], i32t, value(x)),
        ("arith.muli", vec![x, zero], i32t, zero_out.clone()),
        ("arith.xori", vec![x, x], i32t, zero_out.clone()),
        ("arith.andi", vec![x, x], i32t, value(x)),
        ("arith.ori", vec![x, zero], i32t, value(x)),
        ("arith.divsi", vec![x, one], i32t, value(x)),
        ("arith.select", vec![tru, x, y], i32t, value(x)),
        ("arith.select", vec![c, y, y], i32t, value(y)),
        ("arith.maxsi", vec![x, x], i32t, value(x)),
    ];
    for (name, operands, ty, want) in cases {
        let op = t.op(name, &operands, &[ty]);
        assert_eq!(t.fold(op), want, "{name}");
    }
    // cmpi eq (x, x) → true; cmpi slt (x, x) → false.
    for (pred, want) in [(0, -1), (2, 0)] {
        let op = t.op("arith.cmpi", &[x, x], &[i1]);
        let p = t.ctx.i64_attr(pred);
        t.ctx.set_prop(op, "predicate", p);
        let out = t.fold(op);
        assert_eq!(t.folded(&out), Some(Scalar::Int(want)));
    }
    // subi(addi(x, y), y) → x.
    let add = t.op("arith.addi", &[x, y], &[i32t]);
    let s = t.ctx.result(add, 0);
    let sub = t.op("arith.subi", &[s, y], &[i32t]);
    assert_eq!(t.fold(sub), value(x));
}

#[test]
fn default_properties_match_upstream() {
    let mut t = setup();
    let i32t = t.ctx.i32_type();
    let f32t = t.ctx.f32_type();
    let x = t.add_arg(i32t);
    let f = t.add_arg(f32t);
    let add = t.op("arith.addi", &[x, x], &[i32t]);
    let neg = t.op("arith.negf", &[f], &[f32t]);
    let div = t.op("arith.divsi", &[x, x], &[i32t]);
    let ovf = overflow_none(&mut t.ctx);
    let fm = fastmath_none(&mut t.ctx);
    assert_eq!(t.ctx.attr(add, "overflowFlags"), Some(ovf));
    assert_eq!(t.ctx.attr(neg, "fastmath"), Some(fm));
    assert!(t.ctx.props(div).is_empty());
    assert_eq!(first_error(&mut t), None);
}

/// Builds a verifier case with `operands` of the given types and returns the first error.
fn verify_error(
    name: &str,
    operand_types: &[fn(&mut Context) -> Type],
    result_types: &[fn(&mut Context) -> Type],
    props: &[(&str, i64)],
) -> Option<String> {
    let mut t = setup();
    let operands: Vec<Value> = operand_types
        .iter()
        .map(|f| {
            let ty = f(&mut t.ctx);
            t.add_arg(ty)
        })
        .collect();
    let results: Vec<Type> = result_types.iter().map(|f| f(&mut t.ctx)).collect();
    let op = t.op(name, &operands, &results);
    for &(k, v) in props {
        let a = t.ctx.i64_attr(v);
        t.ctx.set_prop(op, k, a);
    }
    first_error(&mut t)
}

#[test]
fn verifier_errors() {
    let i1: fn(&mut Context) -> Type = |c| c.i1_type();
    let i8t: fn(&mut Context) -> Type = |c| c.int_type(8);
    let i32t: fn(&mut Context) -> Type = |c| c.i32_type();
    let f16t: fn(&mut Context) -> Type = |c| c.float_type(FloatKind::F16);
    let f32t: fn(&mut Context) -> Type = |c| c.f32_type();
    let f64t: fn(&mut Context) -> Type = |c| c.float_type(FloatKind::F64);
    let idx: fn(&mut Context) -> Type = |c| c.index_type();
    let v4i32: fn(&mut Context) -> Type = |c| {
        let e = c.i32_type();
        c.tensor_type(vec![4], e)
    };
    type Case<'a> = (
        &'a str,
        &'a [fn(&mut Context) -> Type],
        &'a [fn(&mut Context) -> Type],
        &'a [(&'a str, i64)],
        Option<&'a str>,
    );
    #[rustfmt::skip]
    let cases: &[Case] = &[
        ("arith.addi", &[i32t, i32t], &[i32t], &[], None),
        ("arith.addi", &[i32t, i8t], &[i32t], &[], Some("'arith.addi' op requires the same type for all operands and results")),
        ("arith.addi", &[f32t, f32t], &[f32t], &[], Some("'arith.addi' op operand #0 must be signless-integer-like, but got")),
        ("arith.addf", &[i32t, i32t], &[i32t], &[], Some("'arith.addf' op operand #0 must be floating-point-like")),
        ("arith.extsi", &[i32t], &[i8t], &[], Some("'arith.extsi' op operand type '")),
        ("arith.extui", &[i32t], &[i32t], &[], Some("'arith.extui' op operand type '")),
        ("arith.trunci", &[i8t], &[i32t], &[], Some("'arith.trunci' op operand type '")),
        ("arith.extf", &[f32t], &[f16t], &[], Some("'arith.extf' op operand type '")),
        ("arith.truncf", &[f16t], &[f64t], &[], Some("'arith.truncf' op operand type '")),
        ("arith.extsi", &[idx], &[i32t], &[], Some("'arith.extsi' op operand #0 must be signless-fixed-width-integer-like")),
        ("arith.extsi", &[i8t], &[v4i32], &[], Some("'arith.extsi' op failed to verify that input and output have the same tensor dimensions")),
        ("arith.bitcast", &[f32t], &[i8t], &[], Some("'arith.bitcast' op operand type '")),
        ("arith.bitcast", &[f32t], &[i32t], &[], None),
        ("arith.index_cast", &[i32t], &[i8t], &[], Some("'arith.index_cast' op operand type '")),
        ("arith.index_castui", &[idx], &[i8t], &[], None),
        ("arith.cmpi", &[i32t, i32t], &[i1], &[("predicate", 2)], None),
        ("arith.cmpi", &[i32t, i32t], &[i1], &[("predicate", 12)], Some("'arith.cmpi' op attribute 'predicate' failed to satisfy constraint: allowed 64-bit signless integer cases: 0, 1, 2, 3, 4, 5, 6, 7, 8, 9")),
        ("arith.cmpi", &[i32t, i32t], &[i1], &[], Some("'arith.cmpi' op requires attribute 'predicate'")),
        ("arith.cmpi", &[i32t, i32t], &[i8t], &[("predicate", 0)], Some("'arith.cmpi' op result #0 must be bool-like")),
        ("arith.cmpi", &[v4i32, v4i32], &[i1], &[("predicate", 0)], Some("'arith.cmpi' op failed to verify that result type has i1 element type and same shape as operands")),
        ("arith.cmpi", &[i32t, i8t], &[i1], &[("predicate", 0)], Some("'arith.cmpi' op requires all operands to have the same type")),
        ("arith.cmpf", &[f32t, f32t], &[i1], &[("predicate", 16)], Some("'arith.cmpf' op attribute 'predicate' failed to satisfy constraint")),
        ("arith.select", &[i1, i32t, i32t], &[i32t], &[], None),
        ("arith.select", &[i1, i32t, i8t], &[i32t], &[], Some("'arith.select' op failed to verify that all of {true_value, false_value, result} have same type")),
        ("arith.select", &[v4i32, v4i32, v4i32], &[v4i32], &[], Some("'arith.select' op operand #0 must be bool-like")),
        ("arith.addui_extended", &[i32t, i32t], &[i32t, i1], &[], None),
        ("arith.addui_extended", &[i32t, i32t], &[i32t, i32t], &[], Some("'arith.addui_extended' op result #1 must be bool-like")),
        ("arith.mulsi_extended", &[i32t, i32t], &[i32t, i8t], &[], Some("'arith.mulsi_extended' op failed to verify that all of {lhs, rhs, low, high} have same type")),
    ];
    for &(name, ops, res, props, want) in cases {
        let got = verify_error(name, ops, res, props);
        match want {
            None => assert_eq!(got, None, "{name}"),
            Some(w) => assert!(
                got.as_deref().is_some_and(|g| g.starts_with(w)),
                "{name}: {got:?} does not start with {w:?}"
            ),
        }
    }
}

#[test]
fn constant_verifier() {
    let mut t = setup();
    let i32t = t.ctx.i32_type();
    let i64t = t.ctx.i64_type();
    let a = t.ctx.int_attr(i64t, 1);
    let op = build_constant(&mut t.ctx, a, i32t, t.loc);
    t.append(op);
    assert_eq!(
        first_error(&mut t).as_deref(),
        Some("'arith.constant' op failed to verify that all of {value, result} have same type")
    );
    let mut t = setup();
    let i32t = t.ctx.i32_type();
    let s = t.ctx.string_attr("x");
    let op = build_constant(&mut t.ctx, s, i32t, t.loc);
    t.append(op);
    assert_eq!(
        first_error(&mut t).as_deref(),
        // A string is a typed attribute (of type `none`), as upstream.
        Some("'arith.constant' op failed to verify that all of {value, result} have same type")
    );
    let mut t = setup();
    let si = t.ctx.int_type_signed(8, nart_ir::Signedness::Signed);
    let a = t.ctx.int_attr(si, 1);
    let op = build_constant(&mut t.ctx, a, si, t.loc);
    t.append(op);
    assert_eq!(
        first_error(&mut t).as_deref(),
        Some("'arith.constant' op integer return type must be signless")
    );
}

#[test]
fn materialize_only_matching_types() {
    let mut ctx = Context::new();
    register(&mut ctx);
    let loc = ctx.unknown_loc();
    let i32t = ctx.i32_type();
    let f32t = ctx.f32_type();
    let a = ctx.int_attr(i32t, 5);
    assert!(materialize_constant(&mut ctx, a, i32t, loc).is_some());
    assert!(materialize_constant(&mut ctx, a, f32t, loc).is_none());
    let s = ctx.string_attr("s");
    assert!(materialize_constant(&mut ctx, s, i32t, loc).is_none());
}

/// Applies `p` to `op`, checks the result verifies, and returns whether it matched.
fn apply(t: &mut TestFunc, p: &dyn RewritePattern, op: Op) -> bool {
    let mut rw = PatternRewriter::new(&mut t.ctx);
    p.match_and_rewrite(&mut rw, op)
}

fn verify_ok(t: &mut TestFunc) {
    assert_eq!(first_error(t), None);
}

#[test]
fn commutative_trait_fold_moves_constants_right() {
    let mut t = setup();
    let i32t = t.ctx.i32_type();
    let x = t.add_arg(i32t);
    let (c, _) = t.constant(i32t, Scalar::Int(3));
    let op = t.op("arith.addi", &[c, x], &[i32t]);
    let def = t.ctx.op_def(op).expect("arith.addi is registered");
    let fold = def
        .traits
        .iter()
        .find_map(|tr| tr.fold.filter(|_| *tr == Trait::Commutative))
        .expect("arith.addi is Commutative, whose trait folds");
    let c_attr = canonicalize::constant_attr(&t.ctx, c);
    assert_eq!(fold(&mut t.ctx, op, &[c_attr, None]), FoldOutcome::InPlace);
    assert_eq!(t.ctx.operands(op), &[x, c]);
    assert_eq!(fold(&mut t.ctx, op, &[None, c_attr]), FoldOutcome::None);
    verify_ok(&mut t);
}

#[test]
fn reassociate_constants() {
    for (name, pattern, want) in [
        ("arith.addi", &canonicalize::ADDI_ADDI_CONSTANT, 127 + 3),
        ("arith.muli", &canonicalize::MULI_MULI_CONSTANT, 127 * 3),
    ] {
        let mut t = setup();
        let i8t = t.ctx.int_type(8);
        let x = t.add_arg(i8t);
        let (c1, _) = t.constant(i8t, Scalar::Int(127));
        let (c2, _) = t.constant(i8t, Scalar::Int(3));
        let inner = t.op(name, &[x, c1], &[i8t]);
        let iv = t.ctx.result(inner, 0);
        let outer = t.op(name, &[iv, c2], &[i8t]);
        let r = t.ctx.result(outer, 0);
        let sink = t.op("arith.addi", &[r, r], &[i8t]);
        assert!(apply(&mut t, pattern, outer));
        let new = t
            .ctx
            .defining_op(t.ctx.operand(sink, 0))
            .unwrap_or_else(|| unreachable!());
        assert_eq!(t.ctx.op_name_str(new), name);
        assert_eq!(t.ctx.operand(new, 0), x);
        let c = canonicalize::constant_attr(&t.ctx, t.ctx.operand(new, 1));
        assert_eq!(
            c.and_then(|c| crate::consts::int_of(&t.ctx, c)),
            Some(crate::consts::sext(want, 8))
        );
        verify_ok(&mut t);
    }
}

#[test]
fn subi_of_addi_constant() {
    let mut t = setup();
    let i32t = t.ctx.i32_type();
    let x = t.add_arg(i32t);
    let (c1, _) = t.constant(i32t, Scalar::Int(10));
    let (c2, _) = t.constant(i32t, Scalar::Int(3));
    let add = t.op("arith.addi", &[x, c1], &[i32t]);
    let a = t.ctx.result(add, 0);
    let sub = t.op("arith.subi", &[a, c2], &[i32t]);
    let s = t.ctx.result(sub, 0);
    let sink = t.op("arith.muli", &[s, s], &[i32t]);
    assert!(apply(&mut t, &canonicalize::SUBI_ADDI_CONSTANT, sub));
    let new = t
        .ctx
        .defining_op(t.ctx.operand(sink, 0))
        .unwrap_or_else(|| unreachable!());
    assert_eq!(t.ctx.op_name_str(new), "arith.addi");
    let c = canonicalize::constant_attr(&t.ctx, t.ctx.operand(new, 1));
    assert_eq!(c.and_then(|c| crate::consts::int_of(&t.ctx, c)), Some(7));
    verify_ok(&mut t);
}

#[test]
fn cast_chains() {
    // extsi(extsi(x : i8 → i16) → i32) → extsi(x : i8 → i32).
    let mut t = setup();
    let (i8t, i16t, i32t) = (t.ctx.int_type(8), t.ctx.int_type(16), t.ctx.i32_type());
    let x = t.add_arg(i8t);
    let e1 = t.op("arith.extsi", &[x], &[i16t]);
    let v1 = t.ctx.result(e1, 0);
    let e2 = t.op("arith.extsi", &[v1], &[i32t]);
    let v2 = t.ctx.result(e2, 0);
    let sink = t.op("arith.addi", &[v2, v2], &[i32t]);
    assert!(apply(&mut t, &canonicalize::EXTSI_OF_EXTSI, e2));
    let new = t
        .ctx
        .defining_op(t.ctx.operand(sink, 0))
        .unwrap_or_else(|| unreachable!());
    assert_eq!(
        (t.ctx.op_name_str(new), t.ctx.operand(new, 0)),
        ("arith.extsi", x)
    );
    verify_ok(&mut t);

    // index_cast(index_cast(x : i32 → index) → i32) → x.
    let mut t = setup();
    let (i32t, idx) = (t.ctx.i32_type(), t.ctx.index_type());
    let x = t.add_arg(i32t);
    let c1 = t.op("arith.index_cast", &[x], &[idx]);
    let v1 = t.ctx.result(c1, 0);
    let c2 = t.op("arith.index_cast", &[v1], &[i32t]);
    let v2 = t.ctx.result(c2, 0);
    let sink = t.op("arith.addi", &[v2, v2], &[i32t]);
    assert!(apply(&mut t, &canonicalize::INDEX_CAST_OF_INDEX_CAST, c2));
    assert_eq!(t.ctx.operand(sink, 0), x);
    verify_ok(&mut t);

    // trunci(extsi(x : i8 → i32) → i16) → extsi(x : i8 → i16); to i8 it folds to x.
    let mut t = setup();
    let (i8t, i16t, i32t) = (t.ctx.int_type(8), t.ctx.int_type(16), t.ctx.i32_type());
    let x = t.add_arg(i8t);
    let e = t.op("arith.extsi", &[x], &[i32t]);
    let ev = t.ctx.result(e, 0);
    let tr = t.op("arith.trunci", &[ev], &[i16t]);
    let tv = t.ctx.result(tr, 0);
    let sink = t.op("arith.addi", &[tv, tv], &[i16t]);
    let back = t.op("arith.trunci", &[ev], &[i8t]);
    assert_eq!(
        t.fold(back),
        FoldOutcome::Replace(vec![FoldResult::Value(x)])
    );
    assert!(apply(&mut t, &canonicalize::TRUNCI_OF_EXT, tr));
    let new = t
        .ctx
        .defining_op(t.ctx.operand(sink, 0))
        .unwrap_or_else(|| unreachable!());
    assert_eq!(t.ctx.op_name_str(new), "arith.extsi");
    verify_ok(&mut t);

    // bitcast(bitcast(x : f32 → i32) → f32) → bitcast(x : f32 → f32), which folds to x.
    let mut t = setup();
    let (f32t, i32t) = (t.ctx.f32_type(), t.ctx.i32_type());
    let x = t.add_arg(f32t);
    let b1 = t.op("arith.bitcast", &[x], &[i32t]);
    let v1 = t.ctx.result(b1, 0);
    let b2 = t.op("arith.bitcast", &[v1], &[f32t]);
    let v2 = t.ctx.result(b2, 0);
    let sink = t.op("arith.addf", &[v2, v2], &[f32t]);
    assert!(apply(&mut t, &canonicalize::BITCAST_OF_BITCAST, b2));
    let new = t
        .ctx
        .defining_op(t.ctx.operand(sink, 0))
        .unwrap_or_else(|| unreachable!());
    assert_eq!(
        t.fold(new),
        FoldOutcome::Replace(vec![FoldResult::Value(x)])
    );
    verify_ok(&mut t);
}
