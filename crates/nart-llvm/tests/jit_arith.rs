//! Property test: every `arith` op, compiled by LLVM and run in the JIT, computes exactly
//! what nart's own `arith` folders compute, on random and edge-case constants.
//!
//! Each case is one op at one type. The JIT module holds, per case, a function that takes its
//! operands as `i64`/`f64`/`index`, narrows them to the op's types (`trunci`, `truncf`, which
//! are exact on the values we pass), applies the op and widens the result (`extui`, `extf`).
//! The folder runs on the op itself, at its own types, with constant operands. Where the folder
//! declines (upstream leaves the result undefined: division by zero, signed overflow of a
//! division, shifts by the width or more, out-of-range float-to-int conversions) the sample is
//! skipped; everywhere else the results must be bit-identical (any NaN matches any NaN, since
//! neither upstream nor LLVM fixes NaN payloads).

mod common;

use common::{context, parse};
use nart_dialect_arith::consts::{scalar_value, Scalar};
use nart_ir::registry::{FoldOutcome, FoldResult};
use nart_ir::{Attr, Context, Op, Type, WalkOrder};

#[derive(Clone, Copy, Debug, PartialEq)]
enum Ty {
    I(u32),
    Index,
    F32,
    F64,
}

impl Ty {
    fn name(self) -> String {
        match self {
            Ty::I(w) => format!("i{w}"),
            Ty::Index => "index".into(),
            Ty::F32 => "f32".into(),
            Ty::F64 => "f64".into(),
        }
    }
    fn is_float(self) -> bool {
        matches!(self, Ty::F32 | Ty::F64)
    }
    /// The type the JIT wrapper passes it as.
    fn abi(self) -> &'static str {
        match self {
            Ty::I(_) => "i64",
            Ty::Index => "index",
            _ => "f64",
        }
    }
    fn width(self) -> u32 {
        match self {
            Ty::I(w) => w,
            Ty::Index => 64,
            Ty::F32 => 32,
            Ty::F64 => 64,
        }
    }
}

/// One op at one type: how it is written, its operand types and its result type.
struct Case {
    /// The op's text with `%a`, `%b`, `%c` for the operands and `%r` for its results.
    body: String,
    operands: Vec<Ty>,
    result: Ty,
    /// Which result of the op the function returns.
    result_index: usize,
}

fn int_cases(out: &mut Vec<Case>, w: u32) {
    let t = Ty::I(w);
    let n = t.name();
    for op in [
        "addi",
        "subi",
        "muli",
        "divsi",
        "divui",
        "ceildivsi",
        "ceildivui",
        "floordivsi",
        "remsi",
        "remui",
        "andi",
        "ori",
        "xori",
        "shli",
        "shrsi",
        "shrui",
        "maxsi",
        "maxui",
        "minsi",
        "minui",
    ] {
        out.push(Case {
            body: format!("%r = arith.{op} %a, %b : {n}"),
            operands: vec![t, t],
            result: t,
            result_index: 0,
        });
    }
    for pred in [
        "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
    ] {
        out.push(Case {
            body: format!("%r = arith.cmpi {pred}, %a, %b : {n}"),
            operands: vec![t, t],
            result: Ty::I(1),
            result_index: 0,
        });
    }
    for (op, rt) in [
        ("addui_extended", [t, Ty::I(1)]),
        ("mulsi_extended", [t, t]),
        ("mului_extended", [t, t]),
    ] {
        for (i, &r) in rt.iter().enumerate() {
            let types = if op == "addui_extended" {
                format!("{n}, i1")
            } else {
                n.clone()
            };
            out.push(Case {
                body: format!("%r:2 = arith.{op} %a, %b : {types}"),
                operands: vec![t, t],
                result: r,
                result_index: i,
            });
        }
    }
    out.push(Case {
        body: format!("%r = arith.select %a, %b, %c : {n}"),
        operands: vec![Ty::I(1), t, t],
        result: t,
        result_index: 0,
    });
}

fn float_cases(out: &mut Vec<Case>, t: Ty) {
    let n = t.name();
    for op in [
        "addf", "subf", "mulf", "divf", "remf", "maximumf", "minimumf", "maxnumf", "minnumf",
    ] {
        out.push(Case {
            body: format!("%r = arith.{op} %a, %b : {n}"),
            operands: vec![t, t],
            result: t,
            result_index: 0,
        });
    }
    out.push(Case {
        body: format!("%r = arith.negf %a : {n}"),
        operands: vec![t],
        result: t,
        result_index: 0,
    });
    for pred in [
        "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "ueq", "ugt", "uge", "ult",
        "ule", "une", "uno", "true",
    ] {
        out.push(Case {
            body: format!("%r = arith.cmpf {pred}, %a, %b : {n}"),
            operands: vec![t, t],
            result: Ty::I(1),
            result_index: 0,
        });
    }
    out.push(Case {
        body: format!("%r = arith.select %a, %b, %c : {n}"),
        operands: vec![Ty::I(1), t, t],
        result: t,
        result_index: 0,
    });
}

fn cast_cases(out: &mut Vec<Case>) {
    let casts: &[(&str, Ty, Ty)] = &[
        ("extsi", Ty::I(8), Ty::I(32)),
        ("extsi", Ty::I(1), Ty::I(64)),
        ("extui", Ty::I(8), Ty::I(32)),
        ("extui", Ty::I(16), Ty::I(64)),
        ("trunci", Ty::I(64), Ty::I(16)),
        ("trunci", Ty::I(32), Ty::I(8)),
        ("extf", Ty::F32, Ty::F64),
        ("truncf", Ty::F64, Ty::F32),
        ("sitofp", Ty::I(32), Ty::F32),
        ("sitofp", Ty::I(64), Ty::F64),
        ("sitofp", Ty::I(8), Ty::F64),
        ("uitofp", Ty::I(32), Ty::F32),
        ("uitofp", Ty::I(64), Ty::F64),
        ("fptosi", Ty::F32, Ty::I(32)),
        ("fptosi", Ty::F64, Ty::I(64)),
        ("fptosi", Ty::F64, Ty::I(16)),
        ("fptoui", Ty::F32, Ty::I(32)),
        ("fptoui", Ty::F64, Ty::I(64)),
        ("bitcast", Ty::I(32), Ty::F32),
        ("bitcast", Ty::F64, Ty::I(64)),
        ("index_cast", Ty::I(32), Ty::Index),
        ("index_cast", Ty::Index, Ty::I(16)),
        ("index_castui", Ty::I(32), Ty::Index),
        ("index_castui", Ty::Index, Ty::I(8)),
    ];
    for &(op, from, to) in casts {
        out.push(Case {
            body: format!("%r = arith.{op} %a : {} to {}", from.name(), to.name()),
            operands: vec![from],
            result: to,
            result_index: 0,
        });
    }
}

fn all_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for w in [8, 16, 32, 64] {
        int_cases(&mut v, w);
    }
    float_cases(&mut v, Ty::F32);
    float_cases(&mut v, Ty::F64);
    cast_cases(&mut v);
    v
}

/// The JIT wrapper of case `i`: ABI-typed arguments narrowed to the op's, the op, the chosen
/// result widened.
fn jit_function(i: usize, c: &Case) -> String {
    let mut s = String::new();
    let params: Vec<String> = c
        .operands
        .iter()
        .enumerate()
        .map(|(k, t)| format!("%p{k}: {}", t.abi()))
        .collect();
    let ret = c.result.abi();
    s += &format!("func.func @case{i}({}) -> {ret} {{\n", params.join(", "));
    // Operands already at their ABI type are used directly; the others are narrowed.
    for (k, t) in c.operands.iter().enumerate() {
        let name = ["a", "b", "c"][k];
        match t {
            Ty::I(64) | Ty::Index | Ty::F64 => {}
            Ty::I(w) => s += &format!("  %{name} = arith.trunci %p{k} : i64 to i{w}\n"),
            Ty::F32 => s += &format!("  %{name} = arith.truncf %p{k} : f64 to f32\n"),
        }
    }
    let mut body = c.body.clone();
    for (k, t) in c.operands.iter().enumerate() {
        let name = ["a", "b", "c"][k];
        if matches!(t, Ty::I(64) | Ty::Index | Ty::F64) {
            body = body.replace(&format!("%{name}"), &format!("%p{k}"));
        }
    }
    s += &format!("  {body}\n");
    let r = if body.starts_with("%r:2") {
        format!("%r#{}", c.result_index)
    } else {
        "%r".to_string()
    };
    s += &match c.result {
        Ty::I(64) | Ty::Index | Ty::F64 => format!("  return {r} : {ret}\n"),
        Ty::I(w) => format!("  %w = arith.extui {r} : i{w} to i64\n  return %w : i64\n"),
        Ty::F32 => format!("  %w = arith.extf {r} : f32 to f64\n  return %w : f64\n"),
    };
    s += "}\n";
    s
}

/// The op alone at its own types, for the folder.
fn fold_function(i: usize, c: &Case) -> String {
    let params: Vec<String> = c
        .operands
        .iter()
        .enumerate()
        .map(|(k, t)| format!("%{}: {}", ["a", "b", "c"][k], t.name()))
        .collect();
    format!(
        "func.func @fold{i}({}) {{\n  {}\n  return\n}}\n",
        params.join(", "),
        c.body
    )
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[derive(Clone, Copy, Debug)]
enum Val {
    I(u64),
    F(f64),
}

fn sext(v: u64, w: u32) -> i128 {
    if w >= 64 {
        v as i64 as i128
    } else {
        (((v << (64 - w)) as i64) >> (64 - w)) as i128
    }
}

fn mask(v: u64, w: u32) -> u64 {
    if w >= 64 {
        v
    } else {
        v & ((1u64 << w) - 1)
    }
}

fn sample(rng: &mut Rng, t: Ty) -> Val {
    let r = rng.next();
    match t {
        Ty::I(_) | Ty::Index => {
            let w = t.width();
            let min = 1u64 << (w - 1);
            let edges = [
                0,
                1,
                mask(u64::MAX, w),
                min,
                min.wrapping_sub(1),
                min + 1,
                2,
                7,
                w as u64 - 1,
                w as u64,
            ];
            let v = if r.is_multiple_of(3) {
                edges[(r >> 8) as usize % edges.len()]
            } else if r % 3 == 1 {
                rng.next() % 17
            } else {
                rng.next()
            };
            Val::I(mask(v, w))
        }
        _ => {
            let specials = [
                0.0,
                -0.0,
                1.0,
                -1.0,
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                0.5,
                -2.5,
                3.0,
                1e10,
                -1e-10,
                65536.0,
                4294967296.0,
                -2147483648.0,
            ];
            let v = if r.is_multiple_of(3) {
                specials[(r >> 8) as usize % specials.len()]
            } else if r % 3 == 1 {
                ((rng.next() % 2001) as f64 - 1000.0) / 8.0
            } else {
                f64::from_bits(rng.next())
            };
            Val::F(if t == Ty::F32 { v as f32 as f64 } else { v })
        }
    }
}

fn attr_of(ctx: &mut Context, ty: Type, t: Ty, v: Val) -> Attr {
    match v {
        Val::I(x) => ctx.int_attr(ty, sext(x, t.width())),
        Val::F(f) => ctx.float_attr(ty, f),
    }
}

/// Calls JIT function `addr` with ABI-typed arguments.
///
/// # Safety
/// `addr` must be a function whose parameters and result are these ABI types.
unsafe fn call(addr: u64, args: &[Val], ret_float: bool) -> Val {
    use std::mem::transmute as t;
    use Val::{F, I};
    // SAFETY: the caller guarantees the signature; each arm transmutes to exactly it.
    unsafe {
        match (args, ret_float) {
            ([I(a)], false) => I(t::<u64, extern "C" fn(u64) -> u64>(addr)(*a)),
            ([I(a)], true) => F(t::<u64, extern "C" fn(u64) -> f64>(addr)(*a)),
            ([F(a)], false) => I(t::<u64, extern "C" fn(f64) -> u64>(addr)(*a)),
            ([F(a)], true) => F(t::<u64, extern "C" fn(f64) -> f64>(addr)(*a)),
            ([I(a), I(b)], false) => I(t::<u64, extern "C" fn(u64, u64) -> u64>(addr)(*a, *b)),
            ([F(a), F(b)], false) => I(t::<u64, extern "C" fn(f64, f64) -> u64>(addr)(*a, *b)),
            ([F(a), F(b)], true) => F(t::<u64, extern "C" fn(f64, f64) -> f64>(addr)(*a, *b)),
            ([I(a), I(b), I(c)], false) => I(t::<u64, extern "C" fn(u64, u64, u64) -> u64>(addr)(
                *a, *b, *c,
            )),
            ([I(a), F(b), F(c)], true) => F(t::<u64, extern "C" fn(u64, f64, f64) -> f64>(addr)(
                *a, *b, *c,
            )),
            _ => panic!("no call shape for {args:?} -> float {ret_float}"),
        }
    }
}

const SAMPLES: usize = 300;

#[test]
fn jit_matches_arith_folders_bit_for_bit() {
    let cases = all_cases();
    let jit_text: String = cases
        .iter()
        .enumerate()
        .map(|(i, c)| jit_function(i, c))
        .collect();
    let fold_text: String = cases
        .iter()
        .enumerate()
        .map(|(i, c)| fold_function(i, c))
        .collect();

    let mut jctx = context();
    let jmod = parse(&mut jctx, &jit_text);
    let jit = nart_llvm::jit_module(&jctx, jmod).expect("the JIT module compiles");

    let mut fctx = context();
    let fmod = parse(&mut fctx, &fold_text);
    // The op of each fold function, in order.
    let fold_ops: Vec<Op> = fctx
        .collect_ops(fmod, WalkOrder::PreOrder)
        .into_iter()
        .filter(|&o| fctx.op_name_str(o).starts_with("arith."))
        .collect();
    assert_eq!(fold_ops.len(), cases.len());

    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut compared = 0usize;
    let mut per_case_compared = vec![0usize; cases.len()];
    for (i, c) in cases.iter().enumerate() {
        let addr = jit
            .lookup(&format!("case{i}"))
            .expect("the case is in the JIT");
        let op = fold_ops[i];
        let fold = fctx
            .op_def(op)
            .and_then(|d| d.fold)
            .expect("arith ops fold");
        let operand_types: Vec<Type> = fctx
            .operands(op)
            .iter()
            .map(|&v| fctx.value_type(v))
            .collect();
        for _ in 0..SAMPLES {
            let vals: Vec<Val> = c.operands.iter().map(|&t| sample(&mut rng, t)).collect();
            let attrs: Vec<Option<Attr>> = vals
                .iter()
                .zip(&c.operands)
                .zip(&operand_types)
                .map(|((&v, &t), &ty)| Some(attr_of(&mut fctx, ty, t, v)))
                .collect();
            let outcome = fold(&mut fctx, op, &attrs);
            let FoldOutcome::Replace(results) = outcome else {
                continue;
            };
            let expected = match &results[c.result_index] {
                FoldResult::Attr(a) => scalar_value(&fctx, *a).expect("a scalar constant"),
                FoldResult::Value(v) => {
                    let k = fctx
                        .operands(op)
                        .iter()
                        .position(|o| o == v)
                        .expect("a folder returns an operand");
                    match vals[k] {
                        Val::I(x) => Scalar::Int(sext(x, c.operands[k].width())),
                        Val::F(f) => Scalar::Float(f),
                    }
                }
            };
            // The JIT takes integers sign-extended to i64 (only their low bits are read).
            let args: Vec<Val> = vals
                .iter()
                .zip(&c.operands)
                .map(|(&v, &t)| match v {
                    Val::I(x) => Val::I(sext(x, t.width()) as u64),
                    f => f,
                })
                .collect();
            // SAFETY: case{i} has exactly these ABI types (see `jit_function`).
            let got = unsafe { call(addr, &args, c.result.is_float()) };
            let ok = match (expected, got) {
                (Scalar::Int(e), Val::I(g)) => {
                    let w = c.result.width();
                    mask(e as u64, w) == mask(g, w)
                }
                (Scalar::Float(e), Val::F(g)) => {
                    let e = if c.result == Ty::F32 {
                        e as f32 as f64
                    } else {
                        e
                    };
                    (e.is_nan() && g.is_nan()) || e.to_bits() == g.to_bits()
                }
                _ => false,
            };
            assert!(
                ok,
                "case `{}` on {vals:?}: folder {expected:?}, JIT {got:?}",
                c.body
            );
            compared += 1;
            per_case_compared[i] += 1;
        }
    }
    // Every case was really compared on a good share of its samples.
    for (i, c) in cases.iter().enumerate() {
        assert!(
            per_case_compared[i] >= SAMPLES / 5,
            "case `{}` compared only {} of {SAMPLES} samples",
            c.body,
            per_case_compared[i]
        );
    }
    assert!(compared > cases.len() * SAMPLES / 2);
}
