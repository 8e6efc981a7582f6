//! `graph-layout{layout=nchw8c|nchw16c}` on single random convolutions (channel counts that are
//! not multiples of the block, strides, pads, dilations, depthwise and block-aligned groups) and
//! on random conv → pool → per-channel constant → Clip → global pool chains: the blocked function
//! and its ONNX export (standard ops, imported again) give the original's outputs in the
//! reference interpreter, and every convolution is blocked.

use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_pass::{PassManager, PassRegistry};
use nart_tensor::Tensor;

/// A small deterministic random source (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn float(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (self.next() >> 11) as f64 / (1u64 << 53) as f64 * (hi - lo)
    }
    /// A dense literal of `n` random floats.
    fn floats(&mut self, n: i64) -> String {
        let v: Vec<String> = (0..n)
            .map(|_| format!("{:.4}", self.float(-1.0, 1.0)))
            .collect();
        format!("[{}]", v.join(", "))
    }
}

fn context() -> Context {
    let mut ctx = Context::new();
    nart_onnx::register_dialects(&mut ctx);
    nart_interp::register(&mut ctx);
    ctx
}

fn run(ctx: &Context, module: Op, ins: &[Tensor]) -> Vec<Tensor> {
    let interp = Interpreter::from_module(ctx, module, None).expect("plan");
    interp.run(ins.to_vec()).expect("run")
}

fn close(what: &str, got: &[Tensor], want: &[Tensor], text: &str) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        assert_eq!(g.shape(), w.shape(), "{what}\n{text}");
        let (g, w) = (g.to_f64_vec().unwrap(), w.to_f64_vec().unwrap());
        for (a, b) in g.iter().zip(&w) {
            assert!(
                (a - b).abs() <= 1e-4 * (1.0 + b.abs()),
                "{what}: {a} != {b}\n{text}"
            );
        }
    }
}

/// Blocks `text` by `b`; checks values, the export, and that no `graph.Conv` is left.
fn check(text: &str, b: i64, rng: &mut Rng) {
    let mut ctx = context();
    let module = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|e| panic!("{text}\n{e:?}"));
    nart_ir::verify::verify(&ctx, module).unwrap_or_else(|e| panic!("{text}\n{e:?}"));
    let interp = Interpreter::from_module(&ctx, module, None).expect("plan before");
    let ins: Vec<Tensor> = interp
        .inputs()
        .iter()
        .map(|spec| {
            let shape: Vec<usize> = spec
                .shape
                .as_ref()
                .unwrap()
                .iter()
                .map(|d| d.unwrap())
                .collect();
            let n: usize = shape.iter().product();
            let v = (0..n).map(|_| rng.float(-2.0, 2.0)).collect();
            Tensor::from_f64(nart_tensor::DType::F32, shape, v).unwrap()
        })
        .collect();
    let want = interp.run(ins.clone()).expect("run before");
    let mut registry = PassRegistry::new();
    nart_graph_opt::register(&mut registry);
    let pipeline = format!("builtin.module(graph-layout{{layout=nchw{b}c}})");
    let mut pm = PassManager::parse(&pipeline, &registry).unwrap();
    pm.run(&mut ctx, module, &mut Vec::new())
        .unwrap_or_else(|e| panic!("{text}\n{e}"));
    let printed = nart_ir::printer::print_op(&ctx, module, &Default::default());
    assert!(
        !printed.contains("\"graph.Conv\""),
        "not blocked:\n{printed}"
    );
    assert!(
        printed.contains(&format!("layout = \"nchw{b}c\"")),
        "{printed}"
    );
    close("blocked", &run(&ctx, module, &ins), &want, &printed);
    let bytes = nart_onnx::export_model(&ctx, module).expect("the function exports");
    let mut ctx2 = context();
    let module2 = nart_onnx::import_model(&mut ctx2, &bytes, None).expect("it imports again");
    close("exported", &run(&ctx2, module2, &ins), &want, &printed);
}

/// A random `Conv` (with a bias) followed by `Relu`, blocked by `b`.
fn conv_case(r: &mut Rng, b: i64) -> String {
    let n = r.int(1, 2);
    let (h, w) = (r.int(5, 8), r.int(5, 8));
    let k = r.int(1, 3);
    let (s, p, d) = (r.int(1, 2), r.int(0, 1), r.int(1, 2));
    let (c, m, g) = match r.int(0, 2) {
        0 => (r.int(1, 2 * b + 3), r.int(1, 2 * b + 3), 1),
        1 => {
            let c = r.int(1, 2 * b + 3);
            (c, c, c)
        }
        _ => {
            let g = r.int(2, 3);
            (g * b, g * b * r.int(1, 2), g)
        }
    };
    let oh = (h + 2 * p - d * (k - 1) - 1) / s + 1;
    let ow = (w + 2 * p - d * (k - 1) - 1) / s + 1;
    let cg = c / g;
    let wv: Vec<String> = (0..m)
        .map(|_| {
            let per: Vec<String> = (0..cg)
                .map(|_| {
                    let rows: Vec<String> = (0..k).map(|_| r.floats(k)).collect();
                    format!("[{}]", rows.join(", "))
                })
                .collect();
            format!("[{}]", per.join(", "))
        })
        .collect();
    let wv = format!("[{}]", wv.join(", "));
    let bias = r.floats(m);
    format!(
        "func.func @f(%x: tensor<{n}x{c}x{h}x{w}xf32>) -> tensor<{n}x{m}x{oh}x{ow}xf32> {{
  %w = \"graph.constant\"() <{{value = dense<{wv}> : tensor<{m}x{cg}x{k}x{k}xf32>}}> : () -> tensor<{m}x{cg}x{k}x{k}xf32>
  %b = \"graph.constant\"() <{{value = dense<{bias}> : tensor<{m}xf32>}}> : () -> tensor<{m}xf32>
  %y = \"graph.Conv\"(%x, %w, %b) <{{dilations = array<i64: {d}, {d}>, group = {g} : i64, pads = array<i64: {p}, {p}, {p}, {p}>, strides = array<i64: {s}, {s}>}}> : (tensor<{n}x{c}x{h}x{w}xf32>, tensor<{m}x{cg}x{k}x{k}xf32>, tensor<{m}xf32>) -> tensor<{n}x{m}x{oh}x{ow}xf32>
  %r = \"graph.Relu\"(%y) : (tensor<{n}x{m}x{oh}x{ow}xf32>) -> tensor<{n}x{m}x{oh}x{ow}xf32>
  return %r : tensor<{n}x{m}x{oh}x{ow}xf32>
}}"
    )
}

#[test]
fn single_convolutions() {
    for b in [8, 16] {
        for seed in 1..=12u64 {
            let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
            let text = conv_case(&mut rng, b);
            check(&text, b, &mut rng);
        }
    }
}

/// Conv → MaxPool or AveragePool → Add of a per-channel constant → Clip(0, 6) →
/// GlobalAveragePool, with a random channel count.
fn chain_case(r: &mut Rng) -> String {
    let c = r.int(1, 20);
    let m = r.int(1, 20);
    let h = r.int(4, 8);
    let wv = format!(
        "[{}]",
        (0..m)
            .map(|_| format!(
                "[{}]",
                (0..c)
                    .map(|_| format!("[{}]", r.floats(1)))
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let shift = format!(
        "[{}]",
        (0..m)
            .map(|_| format!("[[{:.4}]]", r.float(-1.0, 1.0)))
            .collect::<Vec<_>>()
            .join(", ")
    );
    let (kind, extra) = if r.int(0, 1) == 0 {
        ("MaxPool", ", none")
    } else {
        ("AveragePool", "")
    };
    let ph = (h + 2 - 3) / 2 + 1;
    let results = if extra.is_empty() {
        format!("tensor<1x{m}x{ph}x{ph}xf32>")
    } else {
        format!("(tensor<1x{m}x{ph}x{ph}xf32>, none)")
    };
    format!(
        "func.func @f(%x: tensor<1x{c}x{h}x{h}xf32>) -> tensor<1x{m}x1x1xf32> {{
  %w = \"graph.constant\"() <{{value = dense<{wv}> : tensor<{m}x{c}x1x1xf32>}}> : () -> tensor<{m}x{c}x1x1xf32>
  %n = \"graph.none\"() : () -> none
  %y = \"graph.Conv\"(%x, %w, %n) : (tensor<1x{c}x{h}x{h}xf32>, tensor<{m}x{c}x1x1xf32>, none) -> tensor<1x{m}x{h}x{h}xf32>
  %p{q} = \"graph.{kind}\"(%y) <{{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}}> : (tensor<1x{m}x{h}x{h}xf32>) -> {results}
  %k = \"graph.constant\"() <{{value = dense<{shift}> : tensor<{m}x1x1xf32>}}> : () -> tensor<{m}x1x1xf32>
  %a = \"graph.Add\"(%p{first}, %k) : (tensor<1x{m}x{ph}x{ph}xf32>, tensor<{m}x1x1xf32>) -> tensor<1x{m}x{ph}x{ph}xf32>
  %lo = \"graph.constant\"() <{{value = dense<0.0> : tensor<f32>}}> : () -> tensor<f32>
  %hi = \"graph.constant\"() <{{value = dense<6.0> : tensor<f32>}}> : () -> tensor<f32>
  %cl = \"graph.Clip\"(%a, %lo, %hi) : (tensor<1x{m}x{ph}x{ph}xf32>, tensor<f32>, tensor<f32>) -> tensor<1x{m}x{ph}x{ph}xf32>
  %g = \"graph.GlobalAveragePool\"(%cl) : (tensor<1x{m}x{ph}x{ph}xf32>) -> tensor<1x{m}x1x1xf32>
  return %g : tensor<1x{m}x1x1xf32>
}}",
        q = if extra.is_empty() { "" } else { ":2" },
        first = if extra.is_empty() { "" } else { "#0" },
    )
}

#[test]
fn conv_pool_chains() {
    for b in [8, 16] {
        for seed in 1..=8u64 {
            let mut rng = Rng(seed.wrapping_mul(0x2545_F491_4F6C_DD1D) | 1);
            let text = chain_case(&mut rng);
            check(&text, b, &mut rng);
            // The whole chain is blocked: one reorder in, one out.
            let mut ctx = context();
            let module = nart_ir::parser::parse_source(&mut ctx, "case.mlir", &text).unwrap();
            let mut registry = PassRegistry::new();
            nart_graph_opt::register(&mut registry);
            let p = format!("builtin.module(graph-layout{{layout=nchw{b}c}})");
            let mut pm = PassManager::parse(&p, &registry).unwrap();
            pm.run(&mut ctx, module, &mut Vec::new()).unwrap();
            let printed = nart_ir::printer::print_op(&ctx, module, &Default::default());
            assert_eq!(printed.matches("\"graph.reorder\"").count(), 2, "{printed}");
        }
    }
}
