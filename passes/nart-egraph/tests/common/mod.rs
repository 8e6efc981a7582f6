//! Helpers the tests share: contexts with the dialects, parsing, random inputs, running a
//! function in the interpreter, and the property check of a rule.

#![allow(dead_code)]

use nart_egraph::{optimize_function, write_alternative, FlopsBytes, Limits, Outcome};
use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_tensor::{DType, Tensor};

/// A small deterministic generator (xorshift64*), so every run tests the same cases.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    /// A number in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % ((hi - lo + 1) as u64)) as i64
    }

    /// A float in [-2, 2).
    pub fn float(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32 * 4.0 - 2.0
    }

    /// A random shape of a random rank in `lo..=hi`.
    pub fn shape_of_rank(&mut self, lo: i64, hi: i64) -> Vec<i64> {
        let rank = self.range(lo, hi) as usize;
        self.shape(rank)
    }

    /// A random shape of `rank` dims in 1..=4.
    pub fn shape(&mut self, rank: usize) -> Vec<i64> {
        (0..rank).map(|_| self.range(1, 4)).collect()
    }
}

/// `2x3x4` for `[2, 3, 4]`.
pub fn dims(shape: &[i64]) -> String {
    shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join("x")
}

/// `tensor<2x3xf32>` (`tensor<f32>` for a scalar).
pub fn tensor(shape: &[i64]) -> String {
    if shape.is_empty() {
        "tensor<f32>".into()
    } else {
        format!("tensor<{}xf32>", dims(shape))
    }
}

/// A `graph.constant` of random values (or `splat` everywhere).
pub fn constant(rng: &mut Rng, name: &str, shape: &[i64], splat: Option<f32>) -> String {
    let n: i64 = shape.iter().product();
    let body = match splat {
        Some(v) => format!("{v:?}"),
        None => {
            let vals: Vec<String> = (0..n).map(|_| format!("{:?}", rng.float())).collect();
            if shape.is_empty() {
                vals[0].clone()
            } else {
                nest(&vals, shape)
            }
        }
    };
    format!(
        "  %{name} = \"graph.constant\"() <{{value = dense<{body}> : {t}}}> : () -> {t}\n",
        t = tensor(shape)
    )
}

fn nest(vals: &[String], shape: &[i64]) -> String {
    if shape.len() == 1 {
        return format!("[{}]", vals.join(", "));
    }
    let inner: usize = shape[1..].iter().product::<i64>() as usize;
    let parts: Vec<String> = vals.chunks(inner).map(|c| nest(c, &shape[1..])).collect();
    format!("[{}]", parts.join(", "))
}

/// A context with the dialects the tests use and the interpreter's kernels.
pub fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_dialect_quant::register(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

/// Parses `text` (a module with one function) and verifies it.
pub fn parse(text: &str) -> (Context, Op) {
    let mut ctx = context();
    let module = nart_ir::parser::parse_source(&mut ctx, "test.mlir", text)
        .unwrap_or_else(|d| panic!("test input parses: {d:?}\n{text}"));
    nart_ir::verify::verify(&ctx, module).unwrap_or_else(|d| panic!("verifies: {d:?}\n{text}"));
    let func = first_function(&ctx, module);
    (ctx, func)
}

/// The first op in the module's body.
pub fn first_function(ctx: &Context, module: Op) -> Op {
    let r = ctx.regions(module)[0];
    let b = ctx.region_blocks(r)[0];
    ctx.block_first_op(b).expect("a function")
}

/// Random inputs for `func`'s arguments.
pub fn inputs(ctx: &Context, func: Op, rng: &mut Rng) -> Vec<Tensor> {
    let interp = Interpreter::new(ctx, func).expect("the function plans");
    interp
        .inputs()
        .iter()
        .map(|spec| {
            let shape: Vec<usize> = spec
                .shape
                .as_ref()
                .expect("ranked")
                .iter()
                .map(|d| d.expect("static"))
                .collect();
            let n: usize = shape.iter().product();
            assert_eq!(spec.dtype, Some(DType::F32), "tests use f32 inputs");
            Tensor::from_vec(shape, (0..n).map(|_| rng.float()).collect::<Vec<f32>>()).unwrap()
        })
        .collect()
}

/// Runs `func` on `inputs`.
pub fn run(ctx: &Context, func: Op, inputs: &[Tensor]) -> Vec<Tensor> {
    Interpreter::new(ctx, func)
        .expect("the function plans")
        .run(inputs.to_vec())
        .expect("the function runs")
}

/// Asserts two output lists are equal within float tolerance.
pub fn assert_close(a: &[Tensor], b: &[Tensor], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}: output count");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(x.shape(), y.shape(), "{what}: shape");
        let (u, v) = (x.to_f64_vec().unwrap(), y.to_f64_vec().unwrap());
        for (i, (p, q)) in u.iter().zip(&v).enumerate() {
            let tol = 1e-4 * (1.0 + p.abs().max(q.abs()));
            assert!((p - q).abs() <= tol, "{what}: element {i}: {p} vs {q}");
        }
    }
}

/// Small limits for the tests (the rules fire within a few iterations).
pub fn limits() -> Limits {
    Limits {
        nodes: 5000,
        iters: 6,
        time: std::time::Duration::from_secs(20),
    }
}

/// The property check of a rule on one function: the pass's output, and every alternative
/// of the root's e-class that can be written, compute what the input computes on random
/// inputs; and `rule` fired. Returns the pass's outcome and the number of alternatives
/// written.
pub fn check_rule(rule: &str, text: &str, rng: &mut Rng) -> (Outcome, usize) {
    let (ctx0, f0) = parse(text);
    let ins = inputs(&ctx0, f0, rng);
    let expected = run(&ctx0, f0, &ins);

    let (mut ctx, func) = parse(text);
    let out = optimize_function(&mut ctx, func, &FlopsBytes, limits()).expect("one block");
    assert!(
        out.fired.iter().any(|(n, c)| *n == rule && *c > 0),
        "rule {rule} did not fire on\n{text}\nfired: {:?}",
        out.fired
    );
    nart_ir::verify::verify(&ctx, func).expect("the pass's output verifies");
    assert_close(
        &expected,
        &run(&ctx, func, &ins),
        &format!("{rule}: pass output"),
    );

    let mut written = 0;
    for i in 0.. {
        let (mut ctx, func) = parse(text);
        let Some(o) = write_alternative(&mut ctx, func, limits(), i) else {
            break;
        };
        if !o.changed {
            continue;
        }
        nart_ir::verify::verify(&ctx, func).expect("an alternative verifies");
        let got = run(&ctx, func, &ins);
        assert_close(&expected, &got, &format!("{rule}: alternative {i}"));
        written += 1;
    }
    assert!(written > 0, "{rule}: no alternative could be written");
    (out, written)
}

/// The function's text (the IR printed).
pub fn print(ctx: &Context, op: Op) -> String {
    nart_ir::printer::print_op(ctx, op, &Default::default())
}
