//! The cpu target's code for the quant casts and the qnn ops against the interpreter's exact
//! integer kernels: seeded random shapes, windows, groups, scales, zero points, roundings,
//! activations and values; every stored result equal bit for bit (no tolerance).
//!
//! Each case is a function of several independent instances of one op, compiled once and run
//! on random storage integers (and floats, NaN and infinities among them, for `quant.qcast`).

use nart_target_cpu::{lowering_context, CpuRuntime, CpuTarget};
use nart_target_rt::TargetRuntime;
use nart_tensor::{DType, Tensor};

/// A seeded xorshift generator.
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    /// Uniform in `lo..=hi`.
    fn int(&mut self, lo: i64, hi: i64) -> i64 {
        lo + (self.next() % (hi - lo + 1) as u64) as i64
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.next() as usize % items.len()]
    }
    fn bool(&mut self) -> bool {
        self.next() & 1 == 1
    }
    /// A scale between `2^lo` and `2^hi`, log-uniform.
    fn scale(&mut self, lo: f64, hi: f64) -> f64 {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        2f64.powf(lo + (hi - lo) * u)
    }
}

/// A storage type: keyword, signedness, bits.
#[derive(Clone, Copy)]
struct Storage {
    name: &'static str,
    dtype: DType,
    lo: i64,
    hi: i64,
}

const I8: Storage = Storage {
    name: "i8",
    dtype: DType::I8,
    lo: -128,
    hi: 127,
};
const U8: Storage = Storage {
    name: "u8",
    dtype: DType::U8,
    lo: 0,
    hi: 255,
};
const I16: Storage = Storage {
    name: "i16",
    dtype: DType::I16,
    lo: -32768,
    hi: 32767,
};
const I32: Storage = Storage {
    name: "i32",
    dtype: DType::I32,
    lo: i32::MIN as i64,
    hi: i32::MAX as i64,
};

/// A quantized element type.
#[derive(Clone)]
struct QType {
    storage: Storage,
    scales: Vec<f64>,
    zps: Vec<i64>,
    axis: Option<usize>,
}

impl QType {
    fn per_tensor(rng: &mut Rng, storage: Storage) -> QType {
        let z = if storage.hi > 1 << 20 {
            0
        } else {
            rng.int(storage.lo, storage.hi)
        };
        QType {
            storage,
            scales: vec![rng.scale(-10.0, 0.0)],
            zps: vec![z],
            axis: None,
        }
    }

    fn per_axis(rng: &mut Rng, storage: Storage, axis: usize, n: usize, symmetric: bool) -> QType {
        QType {
            storage,
            scales: (0..n).map(|_| rng.scale(-10.0, 0.0)).collect(),
            zps: (0..n)
                .map(|_| {
                    if symmetric || storage.hi > 1 << 20 {
                        0
                    } else {
                        rng.int(storage.lo, storage.hi)
                    }
                })
                .collect(),
            axis: Some(axis),
        }
    }

    fn text(&self) -> String {
        match self.axis {
            None => format!(
                "!quant.uniform<{}:f32, {:?}:{}>",
                self.storage.name, self.scales[0], self.zps[0]
            ),
            Some(a) => {
                let items: Vec<String> = self
                    .scales
                    .iter()
                    .zip(&self.zps)
                    .map(|(s, z)| format!("{s:?}:{z}"))
                    .collect();
                format!(
                    "!quant.uniform<{}:f32:{a}, {{{}}}>",
                    self.storage.name,
                    items.join(",")
                )
            }
        }
    }
}

fn tensor_ty(shape: &[i64], elem: &str) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        s.push_str(&format!("{d}x"));
    }
    s.push_str(elem);
    s.push('>');
    s
}

/// One function under construction: arguments with their random values, body, results.
#[derive(Default)]
struct Case {
    args: Vec<String>,
    inputs: Vec<Tensor>,
    body: String,
    results: Vec<(String, String)>,
    n: usize,
}

impl Case {
    fn fresh(&mut self) -> String {
        self.n += 1;
        format!("%v{}", self.n)
    }

    /// A quantized argument of random stored values.
    fn qarg(&mut self, rng: &mut Rng, shape: &[i64], q: &QType) -> String {
        let name = format!("%a{}", self.args.len());
        self.args
            .push(format!("{name}: {}", tensor_ty(shape, &q.text())));
        let n: i64 = shape.iter().product();
        let (lo, hi) = (q.storage.lo, q.storage.hi);
        let vals: Vec<i128> = (0..n)
            .map(|_| {
                // Mostly small values around the zero point, sometimes the extremes.
                match rng.int(0, 9) {
                    0 => i128::from(lo),
                    1 => i128::from(hi),
                    _ => i128::from(rng.int(lo.max(-40000), hi.min(40000))),
                }
            })
            .collect();
        let shape_u: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        self.inputs
            .push(Tensor::from_i128(q.storage.dtype, shape_u, vals).expect("tensor"));
        name
    }

    /// An `f32` argument of random values, NaN and infinities among them.
    fn farg(&mut self, rng: &mut Rng, shape: &[i64], range: f64) -> String {
        let name = format!("%a{}", self.args.len());
        self.args
            .push(format!("{name}: {}", tensor_ty(shape, "f32")));
        let n: i64 = shape.iter().product();
        let vals: Vec<f32> = (0..n)
            .map(|_| match rng.int(0, 40) {
                0 => f32::NAN,
                1 => f32::INFINITY,
                2 => f32::NEG_INFINITY,
                3 => 0.5,
                _ => {
                    ((rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) as f32
                        * range as f32
                }
            })
            .collect();
        let shape_u: Vec<usize> = shape.iter().map(|&d| d as usize).collect();
        self.inputs
            .push(Tensor::from_vec(shape_u, vals).expect("tensor"));
        name
    }

    /// `%r = <op text> : <type text>` appended; returns `%r`.
    fn op(&mut self, text: &str) -> String {
        let r = self.fresh();
        self.body.push_str(&format!("  {r} = {text}\n"));
        r
    }

    fn ret(&mut self, v: &str, ty: String) {
        self.results.push((v.to_string(), ty));
    }

    fn text(&self) -> String {
        let tys: Vec<&str> = self.results.iter().map(|(_, t)| t.as_str()).collect();
        let vals: Vec<&str> = self.results.iter().map(|(v, _)| v.as_str()).collect();
        format!(
            "func.func @main({}) -> ({}) {{\n{}  return {} : {}\n}}\n",
            self.args.join(", "),
            tys.join(", "),
            self.body,
            vals.join(", "),
            tys.join(", ")
        )
    }
}

fn have_cc() -> bool {
    let ok = std::process::Command::new(std::env::var("CC").unwrap_or_else(|_| "cc".into()))
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    assert!(
        ok || std::env::var_os("NART_REQUIRE_CC").is_none(),
        "NART_REQUIRE_CC is set but there is no C compiler"
    );
    ok
}

fn interpret(text: &str, inputs: &[Tensor]) -> Vec<Tensor> {
    let mut ctx = lowering_context();
    nart_interp::register(&mut ctx);
    let m = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text)
        .unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    nart_ir::verify::verify(&ctx, m).unwrap_or_else(|d| panic!("{}\n{text}", d[0].message));
    let func = ctx
        .collect_ops(m, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "func.func")
        .expect("a function");
    nart_interp::Interpreter::new(&ctx, func)
        .expect("the function plans")
        .run(inputs.to_vec())
        .unwrap_or_else(|e| panic!("the interpreter fails: {e}\n{text}"))
}

/// Compiles `case` for this machine, runs it and the interpreter, and checks every result bit
/// for bit.
fn check(case: &Case, what: &str) {
    let text = case.text();
    let want = interpret(&text, &case.inputs);
    let (artifact, _) = CpuTarget::host()
        .compile_function_text(&text, what)
        .unwrap_or_else(|e| panic!("{what}: the cpu target cannot compile it: {e}\n{text}"));
    let exe = CpuRuntime.load(&artifact).expect("the artifact loads");
    let got = exe.run(&case.inputs).expect("the code runs");
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g.dtype(), w.dtype(), "{what}: result {i}\n{text}");
        assert_eq!(g.shape(), w.shape(), "{what}: result {i}\n{text}");
        if w.dtype() == DType::F32 {
            let (gv, wv) = (g.to_f32_vec().unwrap(), w.to_f32_vec().unwrap());
            for (j, (a, b)) in gv.iter().zip(&wv).enumerate() {
                assert!(
                    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                    "{what}: result {i} element {j}: cpu {a}, interpreter {b}\n{text}"
                );
            }
        } else {
            let (gv, wv) = (g.to_i128_vec().unwrap(), w.to_i128_vec().unwrap());
            for (j, (a, b)) in gv.iter().zip(&wv).enumerate() {
                assert_eq!(
                    a, b,
                    "{what}: result {i} element {j}: cpu {a}, interpreter {b}\n{text}"
                );
            }
        }
    }
}

fn rounding(rng: &mut Rng) -> &'static str {
    rng.pick(&[
        "",
        " round<half_away>",
        " round<half_up>",
        " round<half_even>",
    ])
}

fn activation(rng: &mut Rng) -> String {
    match rng.int(0, 4) {
        0 => " act<relu>".into(),
        1 => " act<relu6>".into(),
        2 => {
            let lo = -(rng.int(0, 40) as f64) / 8.0;
            let hi = lo + rng.int(1, 40) as f64 / 8.0;
            format!(" act<clip> bounds({lo:?}, {hi:?})")
        }
        _ => String::new(),
    }
}

fn shape(rng: &mut Rng, rank: usize, max: i64) -> Vec<i64> {
    (0..rank).map(|_| rng.int(1, max)).collect()
}

const SEEDS: u64 = 4;
const INSTANCES: usize = 5;

#[test]
fn casts_match_the_interpreter() {
    if !have_cc() {
        return;
    }
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed + 100);
        let mut c = Case::default();
        for _ in 0..INSTANCES {
            let rank = rng.int(1, 4) as usize;
            let sh = shape(&mut rng, rank, 5);
            let storage = rng.pick(&[I8, U8, I16, I32]);
            let q = if rng.bool() {
                QType::per_tensor(&mut rng, storage)
            } else {
                let axis = rng.int(0, rank as i64 - 1) as usize;
                QType::per_axis(&mut rng, storage, axis, sh[axis] as usize, false)
            };
            let x = c.farg(&mut rng, &sh, 300.0);
            let qt = tensor_ty(&sh, &q.text());
            let ft = tensor_ty(&sh, "f32");
            let y = c.op(&format!("quant.qcast {x} : {ft} to {qt}"));
            c.ret(&y, qt.clone());
            let a = c.qarg(&mut rng, &sh, &q);
            let f = c.op(&format!("quant.dcast {a} : {qt} to {ft}"));
            c.ret(&f, ft);
        }
        check(&c, &format!("casts, seed {seed}"));
    }
}

#[test]
fn requantize_matches_the_interpreter() {
    if !have_cc() {
        return;
    }
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed + 200);
        let mut c = Case::default();
        for _ in 0..INSTANCES {
            let rank = rng.int(1, 4) as usize;
            let sh = shape(&mut rng, rank, 5);
            let axis = rng.int(0, rank as i64 - 1) as usize;
            let xs = rng.pick(&[I8, U8, I16, I32]);
            let ys = rng.pick(&[I8, U8, I16]);
            let (xq, yq) = match rng.int(0, 2) {
                0 => (
                    QType::per_tensor(&mut rng, xs),
                    QType::per_tensor(&mut rng, ys),
                ),
                1 => (
                    QType::per_axis(&mut rng, xs, axis, sh[axis] as usize, false),
                    QType::per_tensor(&mut rng, ys),
                ),
                _ => (
                    QType::per_tensor(&mut rng, xs),
                    QType::per_axis(&mut rng, ys, axis, sh[axis] as usize, false),
                ),
            };
            let a = c.qarg(&mut rng, &sh, &xq);
            let (xt, yt) = (tensor_ty(&sh, &xq.text()), tensor_ty(&sh, &yq.text()));
            let r = rounding(&mut rng);
            let y = c.op(&format!("qnn.requantize {a}{r} : {xt} to {yt}"));
            c.ret(&y, yt);
        }
        check(&c, &format!("requantize, seed {seed}"));
    }
}

#[test]
fn conv_matches_the_interpreter() {
    if !have_cc() {
        return;
    }
    for seed in 0..SEEDS * 2 {
        let mut rng = Rng::new(seed + 300);
        let mut c = Case::default();
        for _ in 0..INSTANCES {
            let n = rng.int(1, 2);
            let group = rng.pick(&[1, 1, 2, 3]);
            let cg = rng.int(1, 3);
            let depthwise = rng.int(0, 3) == 0;
            let (group, cg, mg) = if depthwise {
                (rng.int(2, 4), 1, 1)
            } else {
                (group, cg, rng.int(1, 3))
            };
            let (ch, m) = (group * cg, group * mg);
            let k = [rng.int(1, 3), rng.int(1, 3)];
            let dil = [rng.int(1, 2), rng.int(1, 2)];
            let st = [rng.int(1, 2), rng.int(1, 2)];
            let pads = [rng.int(0, 2), rng.int(0, 2), rng.int(0, 2), rng.int(0, 2)];
            let mut hw = [0; 2];
            let mut out = [0; 2];
            for i in 0..2 {
                let eff = dil[i] * (k[i] - 1) + 1;
                hw[i] = (eff - pads[i] - pads[2 + i]).max(1) + rng.int(0, 5);
                out[i] = (hw[i] + pads[i] + pads[2 + i] - eff) / st[i] + 1;
            }
            let xq = {
                let st = rng.pick(&[U8, I8]);
                QType::per_tensor(&mut rng, st)
            };
            let wq = if rng.bool() {
                QType::per_tensor(&mut rng, I8)
            } else {
                {
                    let sym = rng.bool();
                    QType::per_axis(&mut rng, I8, 0, m as usize, sym)
                }
            };
            let yq = {
                let st = rng.pick(&[U8, I8]);
                QType::per_tensor(&mut rng, st)
            };
            let xsh = [n, ch, hw[0], hw[1]];
            let wsh = [m, cg, k[0], k[1]];
            let ysh = [n, m, out[0], out[1]];
            let x = c.qarg(&mut rng, &xsh, &xq);
            let w = c.qarg(&mut rng, &wsh, &wq);
            let (xt, wt, yt) = (
                tensor_ty(&xsh, &xq.text()),
                tensor_ty(&wsh, &wq.text()),
                tensor_ty(&ysh, &yq.text()),
            );
            let (bias, bt) = if rng.bool() {
                let bq = QType {
                    storage: I32,
                    scales: wq.scales.iter().map(|s| s * xq.scales[0]).collect(),
                    zps: vec![0; wq.scales.len()],
                    axis: wq.axis,
                };
                let b = c.qarg(&mut rng, &[m], &bq);
                (
                    format!(", {b}"),
                    format!(", {}", tensor_ty(&[m], &bq.text())),
                )
            } else {
                (String::new(), String::new())
            };
            let mut attrs = String::new();
            attrs.push_str(&format!(" strides [{}, {}]", st[0], st[1]));
            attrs.push_str(&format!(
                " pads [{}, {}, {}, {}]",
                pads[0], pads[1], pads[2], pads[3]
            ));
            attrs.push_str(&format!(" dilations [{}, {}]", dil[0], dil[1]));
            attrs.push_str(&activation(&mut rng));
            attrs.push_str(rounding(&mut rng));
            let g = if group > 1 {
                format!(" {{group = {group} : i64}}")
            } else {
                String::new()
            };
            let y = c.op(&format!(
                "qnn.conv {x}, {w}{bias}{attrs}{g} : ({xt}, {wt}{bt}) -> {yt}"
            ));
            c.ret(&y, yt);
        }
        check(&c, &format!("conv, seed {seed}"));
    }
}

#[test]
fn matmul_matches_the_interpreter() {
    if !have_cc() {
        return;
    }
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed + 400);
        let mut c = Case::default();
        for _ in 0..INSTANCES {
            let (m, k, n) = (rng.int(1, 5), rng.int(1, 9), rng.int(1, 5));
            let nbatch = rng.int(0, 2) as usize;
            let batch: Vec<i64> = shape(&mut rng, nbatch, 3);
            let mut ab = batch.clone();
            let mut bb = batch.clone();
            if !batch.is_empty() && rng.bool() {
                ab[0] = 1;
            }
            if batch.len() == 2 && ab[0] == batch[0] && rng.bool() {
                bb.remove(0);
            }
            let ash: Vec<i64> = ab.iter().copied().chain([m, k]).collect();
            let bsh: Vec<i64> = bb.iter().copied().chain([k, n]).collect();
            let ysh: Vec<i64> = batch.iter().copied().chain([m, n]).collect();
            let aq = {
                let st = rng.pick(&[U8, I8]);
                QType::per_tensor(&mut rng, st)
            };
            let bq = if rng.bool() {
                {
                    let st = rng.pick(&[U8, I8]);
                    QType::per_tensor(&mut rng, st)
                }
            } else {
                {
                    let sym = rng.bool();
                    QType::per_axis(&mut rng, I8, bsh.len() - 1, n as usize, sym)
                }
            };
            let yq = {
                let st = rng.pick(&[U8, I8]);
                QType::per_tensor(&mut rng, st)
            };
            let a = c.qarg(&mut rng, &ash, &aq);
            let b = c.qarg(&mut rng, &bsh, &bq);
            let (at, btt, yt) = (
                tensor_ty(&ash, &aq.text()),
                tensor_ty(&bsh, &bq.text()),
                tensor_ty(&ysh, &yq.text()),
            );
            let (bias, bt) = if rng.bool() {
                let cq = QType {
                    storage: I32,
                    scales: bq.scales.iter().map(|s| s * aq.scales[0]).collect(),
                    zps: vec![0; bq.scales.len()],
                    axis: bq.axis.map(|_| 0),
                };
                let v = c.qarg(&mut rng, &[n], &cq);
                (
                    format!(", {v}"),
                    format!(", {}", tensor_ty(&[n], &cq.text())),
                )
            } else {
                (String::new(), String::new())
            };
            let attrs = format!("{}{}", activation(&mut rng), rounding(&mut rng));
            let y = c.op(&format!(
                "qnn.matmul {a}, {b}{bias}{attrs} : ({at}, {btt}{bt}) -> {yt}"
            ));
            c.ret(&y, yt);
        }
        check(&c, &format!("matmul, seed {seed}"));
    }
}

#[test]
fn add_mul_and_concat_match_the_interpreter() {
    if !have_cc() {
        return;
    }
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed + 500);
        let mut c = Case::default();
        for i in 0..INSTANCES {
            let rank = rng.int(1, 4) as usize;
            let ysh = shape(&mut rng, rank, 4);
            let mut ash = ysh.clone();
            let mut bsh = ysh.clone();
            for d in 0..rank {
                if rng.int(0, 3) == 0 {
                    ash[d] = 1;
                } else if rng.int(0, 3) == 0 {
                    bsh[d] = 1;
                }
            }
            if rank > 1 && ash[0] == ysh[0] && rng.bool() {
                bsh.remove(0);
            }
            // 16-bit products would not fit the lowering's 62-bit bound.
            let storages = if i % 2 == 0 {
                vec![U8, I8, I16]
            } else {
                vec![U8, I8]
            };
            let aq = {
                let st = rng.pick(&storages);
                QType::per_tensor(&mut rng, st)
            };
            let bq = {
                let st = rng.pick(&storages);
                QType::per_tensor(&mut rng, st)
            };
            let yq = {
                let st = rng.pick(&[U8, I8]);
                QType::per_tensor(&mut rng, st)
            };
            // Scales within 2^8 of each other, as calibration gives.
            let a = c.qarg(&mut rng, &ash, &aq);
            let b = c.qarg(&mut rng, &bsh, &bq);
            let (at, bt, yt) = (
                tensor_ty(&ash, &aq.text()),
                tensor_ty(&bsh, &bq.text()),
                tensor_ty(&ysh, &yq.text()),
            );
            let name = if i % 2 == 0 { "add" } else { "mul" };
            let attrs = format!("{}{}", activation(&mut rng), rounding(&mut rng));
            let y = c.op(&format!(
                "qnn.{name} {a}, {b}{attrs} : ({at}, {bt}) -> {yt}"
            ));
            c.ret(&y, yt);
        }
        // A concat of inputs with the result's parameters and with others.
        let rank = rng.int(1, 3) as usize;
        let axis = rng.int(0, rank as i64 - 1) as usize;
        let base = shape(&mut rng, rank, 4);
        let yq = QType::per_tensor(&mut rng, U8);
        let mut ins = Vec::new();
        let mut tys = Vec::new();
        let mut total = 0;
        for j in 0..3 {
            let mut sh = base.clone();
            sh[axis] = rng.int(1, 3);
            total += sh[axis];
            let q = if j == 0 {
                yq.clone()
            } else {
                {
                    let st = rng.pick(&[U8, I8]);
                    QType::per_tensor(&mut rng, st)
                }
            };
            ins.push(c.qarg(&mut rng, &sh, &q));
            tys.push(tensor_ty(&sh, &q.text()));
        }
        let mut ysh = base.clone();
        ysh[axis] = total;
        let yt = tensor_ty(&ysh, &yq.text());
        let r = rounding(&mut rng);
        let y = c.op(&format!(
            "qnn.concat {}{r} {{axis = {axis} : i64}} : ({}) -> {yt}",
            ins.join(", "),
            tys.join(", ")
        ));
        c.ret(&y, yt);
        check(&c, &format!("add, mul and concat, seed {seed}"));
    }
}

#[test]
fn pools_and_tables_match_the_interpreter() {
    if !have_cc() {
        return;
    }
    for seed in 0..SEEDS {
        let mut rng = Rng::new(seed + 600);
        let mut c = Case::default();
        for i in 0..INSTANCES {
            let k = [rng.int(1, 3), rng.int(1, 3)];
            let st = [rng.int(1, 2), rng.int(1, 2)];
            let dil = if i % 2 == 0 {
                [rng.int(1, 2), rng.int(1, 2)]
            } else {
                [1, 1]
            };
            let pads = [
                rng.int(0, k[0] - 1),
                rng.int(0, k[1] - 1),
                rng.int(0, k[0] - 1),
                rng.int(0, k[1] - 1),
            ];
            let mut hw = [0; 2];
            let mut out = [0; 2];
            for d in 0..2 {
                let eff = dil[d] * (k[d] - 1) + 1;
                hw[d] = (eff - pads[d] - pads[2 + d]).max(1) + rng.int(0, 4);
                out[d] = (hw[d] + pads[d] + pads[2 + d] - eff) / st[d] + 1;
            }
            let (n, ch) = (rng.int(1, 2), rng.int(1, 3));
            let xsh = [n, ch, hw[0], hw[1]];
            let ysh = [n, ch, out[0], out[1]];
            let xq = {
                let st = rng.pick(&[U8, I8]);
                QType::per_tensor(&mut rng, st)
            };
            let x = c.qarg(&mut rng, &xsh, &xq);
            let xt = tensor_ty(&xsh, &xq.text());
            let win = format!(
                "kernel [{}, {}] strides [{}, {}] pads [{}, {}, {}, {}]",
                k[0], k[1], st[0], st[1], pads[0], pads[1], pads[2], pads[3]
            );
            if i % 2 == 0 {
                let yt = tensor_ty(&ysh, &xq.text());
                let y = c.op(&format!(
                    "qnn.max_pool {x} {win} dilations [{}, {}] : {xt} to {yt}",
                    dil[0], dil[1]
                ));
                c.ret(&y, yt);
            } else {
                let yq = {
                    let st = rng.pick(&[U8, I8]);
                    QType::per_tensor(&mut rng, st)
                };
                let yt = tensor_ty(&ysh, &yq.text());
                let inc = if rng.bool() { " count_include_pad" } else { "" };
                let r = rounding(&mut rng);
                let y = c.op(&format!("qnn.avg_pool {x} {win}{inc}{r} : {xt} to {yt}"));
                c.ret(&y, yt);
            }
            // A table from the input's storage to a random one.
            let yq = {
                let st = rng.pick(&[U8, I8]);
                QType::per_tensor(&mut rng, st)
            };
            let table: Vec<String> = (0..256)
                .map(|_| rng.int(yq.storage.lo, yq.storage.hi).to_string())
                .collect();
            let yt = tensor_ty(&xsh, &yq.text());
            let y = c.op(&format!(
                "qnn.lut {x} table [{}] : {xt} to {yt}",
                table.join(", ")
            ));
            c.ret(&y, yt);
        }
        check(&c, &format!("pools and tables, seed {seed}"));
    }
}
