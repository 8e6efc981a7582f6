//! Property tests of the `cpu` target against the reference interpreter (feature `testing`).
//!
//! A test describes cases: each case is a few graph ops on its own arguments (tensors a seeded
//! generator made), with its own outputs and the tolerance each output is compared with.
//! Many cases go into one [`Batch`], which becomes one graph function, so one compilation
//! covers them all. [`Batch::check`] then
//!
//! 1. runs the function in the reference interpreter (`nart-interp`),
//! 2. compiles it with the cpu target ([`CpuTarget::compile_function_text`], the whole
//!    [`crate::PIPELINE`] and LLVM), loads the artifact with `nart-cpu-rt` and runs it,
//! 3. compares every output: integers bit for bit, floats within [`Tol`], a bound that grows
//!    with the number of terms a result element sums,
//!
//! and panics with a report on a mismatch: the test, the seed, the case's description
//! (shapes and attributes), the first differing element with its index, and the case alone as
//! a graph function that `nart-opt` reads. When the batch cannot be run or compiled as a
//! whole, each case is tried alone to name the one that fails.
//!
//! Seeds and sizes come from the environment so that a failure replays:
//! `NART_PROP_SEED` (decimal or `0x` hexadecimal) replaces every test's seed, otherwise each test
//! has a fixed seed ([`seed`] of its name); `NART_PROP_CASES` replaces the number of cases a
//! test asks [`cases`] for (more for a long local run). Without a C compiler to link with, a
//! check prints why and passes, unless `NART_REQUIRE_CC` is set (CI sets it).
//!
//! The module is public behind the `testing` feature so that any crate's tests can use it:
//! `nart-target-cpu = { workspace = true, features = ["testing"] }` under `[dev-dependencies]`
//! (this crate's own `tests/properties` do so through a dev-dependency on itself).
//!
//! ```no_run
//! use nart_target_cpu::testing::{ty, Batch, Gen, Tol};
//! let mut g = Gen::new(7);
//! let mut batch = Batch::new("relu", 7);
//! for _ in 0..4 {
//!     let shape = g.shape(2, 1, 5);
//!     let k = batch.case(format!("Relu {shape:?}"));
//!     let x = k.arg(g.tensor_f32(&shape, -1.0, 1.0));
//!     let y = k.op1("graph.Relu", &[x], "", &ty(&shape, "f32"));
//!     k.output(y, Tol::Exact);
//! }
//! batch.check();
//! ```

use std::fmt::Write as _;
use std::time::{Duration, Instant};

use nart_target_rt::TargetRuntime;
use nart_tensor::{DType, Tensor};

use crate::{lowering_context, CpuRuntime, CpuTarget};

/// A seeded generator of values, shapes and choices (SplitMix64: small, fast, and the same
/// sequence on every machine and version, so a seed replays).
#[derive(Clone, Debug)]
pub struct Gen {
    state: u64,
}

impl Gen {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Gen {
        Gen { state: seed }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// An integer in `lo..=hi`.
    pub fn int(&mut self, lo: i64, hi: i64) -> i64 {
        assert!(lo <= hi, "empty range {lo}..={hi}");
        let span = (hi - lo) as u64 + 1;
        lo + (self.next_u64() % span) as i64
    }

    /// A size in `lo..=hi`.
    pub fn size(&mut self, lo: usize, hi: usize) -> usize {
        self.int(lo as i64, hi as i64) as usize
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u64, den: u64) -> bool {
        self.next_u64() % den < num
    }

    /// One of `items`.
    pub fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.size(0, items.len() - 1)].clone()
    }

    /// A float uniformly in `lo..hi`.
    pub fn f32(&mut self, lo: f32, hi: f32) -> f32 {
        let unit = (self.next_u64() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * unit
    }

    /// A shape of `rank` dimensions, each in `lo..=hi`.
    pub fn shape(&mut self, rank: usize, lo: usize, hi: usize) -> Vec<usize> {
        (0..rank).map(|_| self.size(lo, hi)).collect()
    }

    /// A random permutation of `0..n`.
    pub fn permutation(&mut self, n: usize) -> Vec<usize> {
        let mut p: Vec<usize> = (0..n).collect();
        for i in (1..n).rev() {
            p.swap(i, self.size(0, i));
        }
        p
    }

    /// An f32 tensor of `shape` with elements uniformly in `lo..hi`.
    pub fn tensor_f32(&mut self, shape: &[usize], lo: f32, hi: f32) -> Tensor {
        let n = shape.iter().product();
        let v: Vec<f32> = (0..n).map(|_| self.f32(lo, hi)).collect();
        Tensor::from_vec(shape.to_vec(), v).expect("the length matches the shape")
    }

    /// An integer tensor of `dtype` and `shape` with elements in `lo..=hi`.
    pub fn tensor_int(&mut self, dtype: DType, shape: &[usize], lo: i64, hi: i64) -> Tensor {
        let n = shape.iter().product();
        let v: Vec<i128> = (0..n).map(|_| i128::from(self.int(lo, hi))).collect();
        Tensor::from_i128(dtype, shape.to_vec(), v).expect("an integer dtype and a valid length")
    }
}

/// The seed of the test `name`: `NART_PROP_SEED` when set, otherwise a fixed hash of the name
/// (so every test draws its own cases, the same ones on every run).
pub fn seed(name: &str) -> u64 {
    if let Ok(s) = std::env::var("NART_PROP_SEED") {
        let s = s.trim();
        let parsed = match s.strip_prefix("0x") {
            Some(hex) => u64::from_str_radix(hex, 16),
            None => s.parse(),
        };
        return parsed.unwrap_or_else(|_| panic!("NART_PROP_SEED={s} is not a number"));
    }
    // FNV-1a.
    name.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// The number of cases a test draws: `NART_PROP_CASES` when set, otherwise `default`.
pub fn cases(default: usize) -> usize {
    std::env::var("NART_PROP_CASES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default)
}

/// `tensor<2x3xf32>` for shape `[2, 3]` and element type `f32` (`tensor<f32>` for rank 0).
pub fn ty(shape: &[usize], elem: &str) -> String {
    let mut s = String::from("tensor<");
    for d in shape {
        let _ = write!(s, "{d}x");
    }
    s + elem + ">"
}

/// `array<i64: 1, 2>`.
pub fn i64_array(v: &[i64]) -> String {
    let items: Vec<String> = v.iter().map(i64::to_string).collect();
    if items.is_empty() {
        "array<i64>".into()
    } else {
        format!("array<i64: {}>", items.join(", "))
    }
}

/// `x` as an MLIR float literal that reads back as the same f32 (`1.0e-7`, never `1e-7`).
pub fn f32_literal(x: f32) -> String {
    let s = format!("{x:?}");
    match s.find('e') {
        Some(e) if !s[..e].contains('.') => format!("{}.0{}", &s[..e], &s[e..]),
        _ => s,
    }
}

/// How an output is compared with the interpreter's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tol {
    /// Equal values (integers, and floats an op only moves, selects or compares).
    Exact,
    /// Floats within `4 * f32::EPSILON * (terms + 1) * max(1, |want|)`, `terms` being the
    /// number of values an element sums (the reduction length of a product or window, 1 for
    /// an elementwise op). The bound assumes inputs of magnitude about 1, as the generators
    /// draw them: a wrong index or a missed element is off by far more, reordered rounding
    /// (a blocked reference GEMM, FMA) by far less. For an `f64` output `f64::EPSILON` takes
    /// the place of `f32::EPSILON` (the code must compute in `f64`, as the interpreter does);
    /// an `f16` or `bf16` output may also be one unit in its last place apart (the code
    /// computes in `f32` where the interpreter computes in `f64`, and both round the result:
    /// see [`Tol::bound_for`]).
    Float {
        /// The number of terms an element sums.
        terms: usize,
    },
}

impl Tol {
    /// The largest `|got - want|` allowed for an `f32` output.
    pub fn bound(self, want: f64) -> f64 {
        self.bound_for(DType::F32, want)
    }

    /// The largest `|got - want|` allowed for an output of `dtype`: [`Tol::Float`]'s bound
    /// with the epsilon of the type the code computes in (`f64` for `f64`, `f32` otherwise),
    /// plus, for `f16` and `bf16`, one unit in the last place of the output type at `want`
    /// (the `f32` and `f64` results may round to neighbours).
    pub fn bound_for(self, dtype: DType, want: f64) -> f64 {
        let Tol::Float { terms } = self else {
            return 0.0;
        };
        let eps = if dtype == DType::F64 {
            f64::EPSILON
        } else {
            f64::from(f32::EPSILON)
        };
        let base = 4.0 * eps * (terms as f64 + 1.0) * want.abs().max(1.0);
        base + match dtype {
            DType::F16 => ulp(want, 10, -14),
            DType::BF16 => ulp(want, 7, -126),
            _ => 0.0,
        }
    }
}

/// The spacing of a binary float format with `mantissa` stored bits and smallest normal
/// exponent `min_exp` around `x` (the spacing above `|x|`, that of the subnormals below the
/// smallest normal).
fn ulp(x: f64, mantissa: i32, min_exp: i32) -> f64 {
    let e = if x == 0.0 || !x.is_finite() {
        min_exp
    } else {
        (x.abs().log2().floor() as i32).max(min_exp)
    };
    2f64.powi(e - mantissa)
}

/// A value of a case: its number within the case.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Val {
    case: usize,
    id: usize,
}

/// One case of a batch: arguments, ops and outputs, written as MLIR text with names of its
/// own (`%kC_N`), so that cases never see each other's values.
#[derive(Clone, Debug)]
pub struct Case {
    index: usize,
    desc: String,
    /// The type of each value, by its number.
    types: Vec<String>,
    /// Arguments: value number and tensor.
    args: Vec<(usize, Tensor)>,
    lines: Vec<String>,
    outputs: Vec<(usize, Tol)>,
}

impl Case {
    fn name(&self, v: Val) -> String {
        assert_eq!(
            v.case, self.index,
            "a value of case {} used in case {}",
            v.case, self.index
        );
        format!("%k{}_{}", self.index, v.id)
    }

    fn fresh(&mut self, ty: String) -> Val {
        self.types.push(ty);
        Val {
            case: self.index,
            id: self.types.len() - 1,
        }
    }

    /// The description the case was made with.
    pub fn description(&self) -> &str {
        &self.desc
    }

    /// A function argument holding `t` (of type `tensor<SHAPExDTYPE>`).
    pub fn arg(&mut self, t: Tensor) -> Val {
        let ty = ty(t.shape(), t.dtype().name());
        self.arg_typed(t, &ty)
    }

    /// A function argument of type `ty` holding `t` (for element types a tensor's dtype does
    /// not name, such as quantized types stored as integers).
    pub fn arg_typed(&mut self, t: Tensor, ty: &str) -> Val {
        let v = self.fresh(ty.to_string());
        self.args.push((v.id, t));
        v
    }

    /// `t` as a `graph.constant` (float or integer elements).
    pub fn constant(&mut self, t: &Tensor) -> Val {
        let ty = ty(t.shape(), t.dtype().name());
        let v = self.fresh(ty.clone());
        let line = format!(
            "{} = \"graph.constant\"() <{{value = {} : {ty}}}> : () -> {ty}",
            self.name(v),
            dense_literal(t)
        );
        self.lines.push(line);
        v
    }

    /// A `graph.none` (an absent optional operand).
    pub fn none(&mut self) -> Val {
        let v = self.fresh("none".into());
        let line = format!("{} = \"graph.none\"() : () -> none", self.name(v));
        self.lines.push(line);
        v
    }

    /// The op `name` on `operands` with properties `props` (the text inside `<{...}>`, empty
    /// for none) and results of types `results`.
    pub fn op(&mut self, name: &str, operands: &[Val], props: &str, results: &[&str]) -> Vec<Val> {
        let ins: Vec<String> = operands.iter().map(|&v| self.name(v)).collect();
        let in_types: Vec<String> = operands.iter().map(|v| self.types[v.id].clone()).collect();
        let outs: Vec<Val> = results.iter().map(|t| self.fresh(t.to_string())).collect();
        let lhs = match outs.len() {
            0 => String::new(),
            _ => {
                let names: Vec<String> = outs.iter().map(|&v| self.name(v)).collect();
                format!("{} = ", names.join(", "))
            }
        };
        let props = if props.is_empty() {
            String::new()
        } else {
            format!(" <{{{props}}}>")
        };
        let line = format!(
            "{lhs}\"{name}\"({}){props} : ({}) -> ({})",
            ins.join(", "),
            in_types.join(", "),
            results.join(", ")
        );
        self.lines.push(line);
        outs
    }

    /// [`Case::op`] with one result.
    pub fn op1(&mut self, name: &str, operands: &[Val], props: &str, result: &str) -> Val {
        self.op(name, operands, props, &[result])[0]
    }

    /// Makes `v` an output of the function, compared with `tol`.
    pub fn output(&mut self, v: Val, tol: Tol) {
        assert_eq!(v.case, self.index, "a value of another case");
        self.outputs.push((v.id, tol));
    }

    /// The case alone as a function `@main`, which `nart-opt` and the interpreter read.
    pub fn function(&self) -> String {
        function_text(std::slice::from_ref(self))
    }
}

/// `t` as the literal of a dense elements attribute (`dense<[[1.0, 2.0]]>`).
fn dense_literal(t: &Tensor) -> String {
    let elems: Vec<String> = match t.dtype() {
        // Every digit of an f64 (the narrower floats are exact as f32).
        DType::F64 => t
            .to_f64_vec()
            .expect("a float tensor")
            .into_iter()
            .map(|x| {
                let s = format!("{x:?}");
                match s.find('e') {
                    Some(e) if !s[..e].contains('.') => format!("{}.0{}", &s[..e], &s[e..]),
                    _ => s,
                }
            })
            .collect(),
        DType::F32 | DType::F16 | DType::BF16 => t
            .to_f64_vec()
            .expect("a float tensor")
            .into_iter()
            .map(|x| f32_literal(x as f32))
            .collect(),
        DType::Bool => t
            .to_bool_vec()
            .expect("a boolean tensor")
            .into_iter()
            .map(|b| b.to_string())
            .collect(),
        _ => t
            .to_i128_vec()
            .expect("an integer tensor")
            .into_iter()
            .map(|x| x.to_string())
            .collect(),
    };
    fn nest(shape: &[usize], elems: &[String]) -> String {
        match shape.split_first() {
            None => elems[0].clone(),
            Some((&d, rest)) => {
                let step = rest.iter().product::<usize>();
                let parts: Vec<String> = (0..d)
                    .map(|i| nest(rest, &elems[i * step..(i + 1) * step]))
                    .collect();
                format!("[{}]", parts.join(", "))
            }
        }
    }
    if t.shape().contains(&0) {
        return "dense<[]>".into();
    }
    format!("dense<{}>", nest(t.shape(), &elems))
}

/// The function `@main` of `cases`: their arguments in order, their ops, and their outputs
/// as its results.
fn function_text(cases: &[Case]) -> String {
    let mut args = Vec::new();
    let mut results = Vec::new();
    let mut returned = Vec::new();
    for c in cases {
        for (id, _) in &c.args {
            let v = Val {
                case: c.index,
                id: *id,
            };
            args.push(format!("{}: {}", c.name(v), c.types[*id]));
        }
        for (id, _) in &c.outputs {
            let v = Val {
                case: c.index,
                id: *id,
            };
            returned.push(c.name(v));
            results.push(c.types[*id].clone());
        }
    }
    let mut text = format!(
        "func.func @main({}) -> ({}) {{\n",
        args.join(", "),
        results.join(", ")
    );
    for c in cases {
        let _ = writeln!(text, "  // case {}: {}", c.index, c.desc.replace('\n', " "));
        for l in &c.lines {
            let _ = writeln!(text, "  {l}");
        }
    }
    let _ = writeln!(
        text,
        "  return {} : {}\n}}",
        returned.join(", "),
        results.join(", ")
    );
    text
}

/// What a check measured.
#[derive(Clone, Debug)]
pub struct Summary {
    /// Cases checked.
    pub cases: usize,
    /// Output elements compared.
    pub elements: usize,
    /// The largest `|got - want| / bound` over the float outputs compared with a tolerance
    /// (0 when every one was exact): how close the batch came to failing.
    pub worst: f64,
    /// Time to lower, generate and link the code.
    pub compile: Duration,
}

/// Cases that compile into one function and are checked together.
#[derive(Clone, Debug)]
pub struct Batch {
    name: String,
    seed: u64,
    cases: Vec<Case>,
}

/// The outputs of a function run both ways.
struct Runs {
    want: Vec<Tensor>,
    got: Vec<Tensor>,
    compile: Duration,
}

impl Batch {
    /// An empty batch of the test `name`, whose cases a generator seeded with `seed` drew
    /// (both are printed with a failure).
    pub fn new(name: &str, seed: u64) -> Batch {
        Batch {
            name: name.to_string(),
            seed,
            cases: Vec::new(),
        }
    }

    /// A new case described by `desc` (its shapes and attributes, printed with a failure).
    pub fn case(&mut self, desc: impl Into<String>) -> &mut Case {
        let index = self.cases.len();
        self.cases.push(Case {
            index,
            desc: desc.into(),
            types: Vec::new(),
            args: Vec::new(),
            lines: Vec::new(),
            outputs: Vec::new(),
        });
        self.cases.last_mut().expect("just pushed")
    }

    /// The cases so far.
    pub fn cases(&self) -> &[Case] {
        &self.cases
    }

    /// The whole batch as one function `@main`.
    pub fn function(&self) -> String {
        function_text(&self.cases)
    }

    /// Checks the batch (see the module documentation); panics with a report on any mismatch
    /// or failure. Returns what it measured, or `None` when there is no C compiler to link
    /// with (and `NART_REQUIRE_CC` is not set), having printed why.
    pub fn check(&self) -> Option<Summary> {
        let target = CpuTarget::host();
        if let Err(reason) = nart_target::Target::availability(&target) {
            assert!(
                std::env::var_os("NART_REQUIRE_CC").is_none(),
                "NART_REQUIRE_CC is set but the cpu target cannot link: {reason}"
            );
            eprintln!("skipping {}: {reason}", self.name);
            return None;
        }
        let summary = match self.compare() {
            Ok(s) => s,
            Err(report) => panic!("{report}"),
        };
        eprintln!(
            "{}: {} cases, {} elements, seed {:#x}, worst |diff|/bound {:.3}, compiled in {} ms",
            self.name,
            summary.cases,
            summary.elements,
            self.seed,
            summary.worst,
            summary.compile.as_millis()
        );
        Some(summary)
    }

    fn header(&self) -> String {
        format!(
            "property test `{}` failed (seed {:#x}; replay with NART_PROP_SEED={:#x})",
            self.name, self.seed, self.seed
        )
    }

    /// Runs and compares every case; `Err` is the report of what failed.
    fn compare(&self) -> Result<Summary, String> {
        if self.cases.is_empty() {
            return Err(format!("{}: the batch has no cases", self.header()));
        }
        let runs = match run_both(&self.cases, &self.name) {
            Ok(r) => r,
            Err(whole) => return Err(self.localize(&whole)),
        };
        let mut report = String::new();
        let mut worst = 0.0f64;
        let mut elements = 0;
        let mut k = 0;
        for c in &self.cases {
            for (n, (id, tol)) in c.outputs.iter().enumerate() {
                let (got, want) = (&runs.got[k], &runs.want[k]);
                k += 1;
                elements += want.len();
                match compare_tensors(got, want, *tol) {
                    Ok(w) => worst = worst.max(w),
                    Err(m) => {
                        let _ = writeln!(
                            report,
                            "case {}: {}\n  output {n} ({}): {m}",
                            c.index, c.desc, c.types[*id]
                        );
                    }
                }
            }
            if !report.is_empty() {
                let _ = write!(report, "  the case alone:\n{}", indent(&c.function()));
                return Err(format!("{}:\n{report}", self.header()));
            }
        }
        Ok(Summary {
            cases: self.cases.len(),
            elements,
            worst,
            compile: runs.compile,
        })
    }

    /// The report when the batch fails as a whole: each case alone, to name those that fail.
    fn localize(&self, whole: &str) -> String {
        let mut report = format!("{}:\nthe batch failed: {whole}\n", self.header());
        let mut named = 0;
        for c in &self.cases {
            if let Err(e) = run_both(std::slice::from_ref(c), &self.name) {
                let _ = write!(
                    report,
                    "case {}: {}\n  {e}\n  the case alone:\n{}",
                    c.index,
                    c.desc,
                    indent(&c.function())
                );
                named += 1;
                if named == 3 {
                    break;
                }
            }
        }
        if named == 0 {
            report += "every case passes alone; the batch's function:\n";
            report += &indent(&self.function());
        }
        report
    }
}

fn indent(text: &str) -> String {
    text.lines().map(|l| format!("    {l}\n")).collect()
}

/// The function of `cases` run in the interpreter and as compiled code.
fn run_both(cases: &[Case], name: &str) -> Result<Runs, String> {
    let text = function_text(cases);
    let inputs: Vec<Tensor> = cases
        .iter()
        .flat_map(|c| c.args.iter().map(|(_, t)| t.clone()))
        .collect();
    let want = interpret(&text, inputs.clone())?;
    let start = Instant::now();
    let (artifact, _) = CpuTarget::host()
        .compile_function_text(&text, name)
        .map_err(|e| format!("the cpu target cannot compile it: {e}"))?;
    let compile = start.elapsed();
    let exe = CpuRuntime::new()
        .load(&artifact)
        .map_err(|e| format!("nart-cpu-rt cannot load the code: {e}"))?;
    let got = exe
        .run(&inputs)
        .map_err(|e| format!("the compiled code failed: {e}"))?;
    if got.len() != want.len() {
        return Err(format!(
            "the code returned {} outputs, the interpreter {}",
            got.len(),
            want.len()
        ));
    }
    Ok(Runs { want, got, compile })
}

/// The interpreter's outputs for the function `text` on `inputs`.
fn interpret(text: &str, inputs: Vec<Tensor>) -> Result<Vec<Tensor>, String> {
    let mut ctx = lowering_context();
    nart_interp::register(&mut ctx);
    let module = nart_ir::parser::parse_source(&mut ctx, "case.mlir", text).map_err(|d| {
        let msgs: Vec<String> = d.iter().map(|d| d.message.clone()).collect();
        format!("the case does not parse: {}", msgs.join("; "))
    })?;
    // The interpreter runs ops the verifier would refuse (a left-off optional operand); a case
    // must be valid IR, or the cpu target's verifier between passes refuses the batch.
    nart_ir::verify::verify(&ctx, module).map_err(|d| {
        let msgs: Vec<String> = d.iter().map(|d| d.message.clone()).collect();
        format!("the case does not verify: {}", msgs.join("; "))
    })?;
    let func = ctx
        .collect_ops(module, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "func.func")
        .ok_or("no function")?;
    let interp = nart_interp::Interpreter::new(&ctx, func)
        .map_err(|e| format!("the interpreter cannot plan it: {e}"))?;
    interp
        .run(inputs)
        .map_err(|e| format!("the interpreter failed: {e}"))
}

/// The row-major index of flat position `i` in `shape`.
fn unravel(mut i: usize, shape: &[usize]) -> Vec<usize> {
    let mut idx = vec![0; shape.len()];
    for (k, &d) in shape.iter().enumerate().rev() {
        if d > 0 {
            idx[k] = i % d;
            i /= d;
        }
    }
    idx
}

/// `Ok(worst |diff| / bound)` when `got` matches `want` under `tol`, or what differs.
fn compare_tensors(got: &Tensor, want: &Tensor, tol: Tol) -> Result<f64, String> {
    if got.dtype() != want.dtype() || got.shape() != want.shape() {
        return Err(format!(
            "got a {} tensor of shape {:?}, want {} of shape {:?}",
            got.dtype().name(),
            got.shape(),
            want.dtype().name(),
            want.shape()
        ));
    }
    let float = matches!(
        want.dtype(),
        DType::F32 | DType::F64 | DType::F16 | DType::BF16
    );
    if !float {
        let (g, w) = (
            got.to_i128_vec().map_err(|e| e.to_string())?,
            want.to_i128_vec().map_err(|e| e.to_string())?,
        );
        let bad: Vec<usize> = (0..w.len()).filter(|&i| g[i] != w[i]).collect();
        if let Some(&i) = bad.first() {
            return Err(format!(
                "{} of {} elements differ; first at {:?} (flat {i}): got {}, want {}",
                bad.len(),
                w.len(),
                unravel(i, want.shape()),
                g[i],
                w[i]
            ));
        }
        return Ok(0.0);
    }
    let (g, w) = (
        got.to_f64_vec().map_err(|e| e.to_string())?,
        want.to_f64_vec().map_err(|e| e.to_string())?,
    );
    let mut worst = 0.0f64;
    let mut first = None;
    let mut bad = 0;
    let mut max_diff = 0.0f64;
    for i in 0..w.len() {
        let (a, b) = (g[i], w[i]);
        if a.is_nan() && b.is_nan() || a == b {
            continue;
        }
        let diff = (a - b).abs();
        let bound = tol.bound_for(want.dtype(), b);
        if diff.is_nan() || diff > bound {
            bad += 1;
            first.get_or_insert(i);
            max_diff = max_diff.max(if diff.is_nan() { f64::INFINITY } else { diff });
        } else if bound > 0.0 {
            worst = worst.max(diff / bound);
        }
    }
    match first {
        None => Ok(worst),
        Some(i) => Err(format!(
            "{bad} of {} elements differ; first at {:?} (flat {i}): got {}, want {} \
             (|diff| {:e} > bound {:e} of {tol:?}); max |diff| {max_diff:e}",
            w.len(),
            unravel(i, want.shape()),
            g[i],
            w[i],
            (g[i] - w[i]).abs(),
            tol.bound_for(want.dtype(), w[i])
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_is_deterministic_and_in_range() {
        let (mut a, mut b) = (Gen::new(3), Gen::new(3));
        let first: Vec<u64> = (0..8).map(|_| a.next_u64()).collect();
        let again: Vec<u64> = (0..8).map(|_| b.next_u64()).collect();
        assert_eq!(first, again);
        assert_ne!(first[0], first[1]);
        for _ in 0..100 {
            let x = a.int(-2, 5);
            assert!((-2..=5).contains(&x));
            let f = a.f32(-1.0, 1.0);
            assert!((-1.0..1.0).contains(&f));
        }
        let mut p = a.permutation(6);
        p.sort();
        assert_eq!(p, [0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn literals_read_back() {
        assert_eq!(f32_literal(1e-7), "1.0e-7");
        assert_eq!(f32_literal(-0.5), "-0.5");
        assert_eq!(f32_literal(3.0), "3.0");
        assert_eq!(ty(&[], "f32"), "tensor<f32>");
        assert_eq!(ty(&[2, 3], "i8"), "tensor<2x3xi8>");
        assert_eq!(i64_array(&[1, -2]), "array<i64: 1, -2>");
        let t = Tensor::from_vec(vec![2, 2], vec![1.0f32, 2.5, -1e-7, 0.0]).unwrap();
        assert_eq!(dense_literal(&t), "dense<[[1.0, 2.5], [-1.0e-7, 0.0]]>");
        let d = Tensor::from_vec(vec![2], vec![0.1f64, 1e-300]).unwrap();
        assert_eq!(dense_literal(&d), "dense<[0.1, 1.0e-300]>");
    }

    #[test]
    fn cases_become_one_function() {
        let mut b = Batch::new("t", 1);
        let k = b.case("relu");
        let x = k.arg(Tensor::from_vec(vec![2], vec![1.0f32, -1.0]).unwrap());
        let y = k.op1("graph.Relu", &[x], "", "tensor<2xf32>");
        k.output(y, Tol::Exact);
        let k = b.case("add");
        let a = k.arg(Tensor::from_vec(vec![1], vec![1i64]).unwrap());
        let c = k.constant(&Tensor::from_vec(vec![1], vec![2i64]).unwrap());
        let s = k.op1("graph.Add", &[a, c], "", "tensor<1xi64>");
        k.output(s, Tol::Exact);
        let text = b.function();
        assert!(
            text.starts_with(
                "func.func @main(%k0_0: tensor<2xf32>, %k1_0: tensor<1xi64>) -> (tensor<2xf32>, tensor<1xi64>)"
            ),
            "{text}"
        );
        assert!(
            text.contains("%k1_1 = \"graph.constant\"() <{value = dense<[2]> : tensor<1xi64>}>")
        );
        assert!(text.contains("return %k0_1, %k1_2 : tensor<2xf32>, tensor<1xi64>"));
        // The interpreter reads it.
        let out = interpret(
            &text,
            b.cases
                .iter()
                .flat_map(|c| c.args.iter().map(|a| a.1.clone()))
                .collect(),
        )
        .unwrap();
        assert_eq!(out[0].to_f32_vec().unwrap(), [1.0, 0.0]);
        assert_eq!(out[1].to_i64_vec().unwrap(), [3]);
    }

    #[test]
    fn a_batch_that_cannot_compile_names_the_case() {
        if nart_target::Target::availability(&CpuTarget::host()).is_err() {
            return;
        }
        let mut b = Batch::new("t", 5);
        for op in ["graph.Relu", "graph.Softsign", "graph.Tanh"] {
            let k = b.case(format!("{op} case"));
            let x = k.arg(Tensor::from_vec(vec![2], vec![0.5f32, -1.0]).unwrap());
            let y = k.op1(op, &[x], "", "tensor<2xf32>");
            k.output(y, Tol::Float { terms: 1 });
        }
        let report = b.compare().unwrap_err();
        assert!(
            report.contains("replay with NART_PROP_SEED=0x5")
                && report.contains("case 1: graph.Softsign case")
                && report.contains("the case alone:")
                && report.contains("func.func @main(%k1_0: tensor<2xf32>)")
                && !report.contains("case 0:")
                && !report.contains("case 2:"),
            "{report}"
        );
        // Without the case that cannot compile, the rest passes.
        b.cases.remove(1);
        let s = b.compare().unwrap();
        assert_eq!((s.cases, s.elements), (2, 4));
    }

    #[test]
    fn bounds_follow_the_output_type() {
        // One unit in the last place of f16 at 1.0 is 2^-10, of bf16 2^-7; f16's subnormal
        // spacing is 2^-24.
        assert_eq!(ulp(1.0, 10, -14), 2f64.powi(-10));
        assert_eq!(ulp(-3.0, 7, -126), 2f64.powi(-6));
        assert_eq!(ulp(1e-9, 10, -14), 2f64.powi(-24));
        let t = Tol::Float { terms: 0 };
        assert!(t.bound_for(DType::F16, 1.0) > 2f64.powi(-10));
        assert!(t.bound_for(DType::F16, 1.0) < 2f64.powi(-9));
        assert!(t.bound_for(DType::F64, 1.0) < 1e-15);
        assert_eq!(t.bound_for(DType::F32, 2.0), t.bound(2.0));
        assert_eq!(Tol::Exact.bound_for(DType::BF16, 1.0), 0.0);
    }

    #[test]
    fn comparisons_find_the_first_difference() {
        let w = Tensor::from_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let g = Tensor::from_vec(vec![2, 2], vec![1.0f32, 2.0, 3.5, 4.0]).unwrap();
        let e = compare_tensors(&g, &w, Tol::Float { terms: 8 }).unwrap_err();
        assert!(
            e.contains("1 of 4 elements differ; first at [1, 0] (flat 2)"),
            "{e}"
        );
        let close = Tensor::from_vec(vec![2, 2], vec![1.0f32, 2.0, 3.0000002, 4.0]).unwrap();
        let worst = compare_tensors(&close, &w, Tol::Float { terms: 1 }).unwrap();
        assert!(worst > 0.0 && worst <= 1.0);
        assert!(compare_tensors(&close, &w, Tol::Exact).is_err());
        let i = Tensor::from_vec(vec![3], vec![1i32, 2, 3]).unwrap();
        let j = Tensor::from_vec(vec![3], vec![1i32, 2, 4]).unwrap();
        assert!(compare_tensors(&j, &i, Tol::Exact)
            .unwrap_err()
            .contains("first at [2]"));
        assert!(compare_tensors(&w, &i, Tol::Exact).is_err());
    }
}
