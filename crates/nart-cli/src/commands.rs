//! The subcommands: `run` (one sample or a dataset), `bench` (timings), `run-tests` (a batch of
//! ONNX backend test folders in one process, for the conformance suite).
//!
//! Every run is bounded by [`Limits`]: inputs are sized before they are read or made, and the
//! interpreter checks each op against the memory and loop-iteration limits.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, bail, Context as _, Result};
use nart_interp::{Interpreter, Limits, Val, ValueKind};
use nart_ir::{Context, Op};
use nart_tensor::{DType, Tensor};

use crate::tensor_io::{read_inputs, sample_dirs, write_outputs};

/// A model imported and planned for the interpreter.
pub struct Loaded {
    /// The IR context.
    pub ctx: Context,
    /// The planned function.
    pub interp: Interpreter,
    /// Seconds spent importing (parse, upgrade, shape inference).
    pub import_s: f64,
    /// Seconds spent planning.
    pub plan_s: f64,
}

impl Loaded {
    /// Whether each output is an optional (written as `OptionalProto`).
    pub fn optional_outputs(&self) -> Vec<bool> {
        self.interp
            .output_kinds()
            .iter()
            .map(|k| *k == ValueKind::Optional)
            .collect()
    }
}

fn render_diags(ctx: &Context, diags: &[nart_ir::Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| {
            format!(
                "{}: {}",
                nart_interp::convert::loc_to_string(ctx, d.loc),
                d.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The limits of the `nart` binary: `max_memory` and `max_iterations` as given, and the memory in
/// use from the counting allocator when it is installed ([`crate::memory::Counting`]).
pub fn cli_limits(max_memory: usize, max_iterations: u64) -> Limits {
    Limits {
        max_memory,
        max_iterations,
        memory_in_use: crate::memory::counting().then_some(crate::memory::in_use as fn() -> usize),
    }
}

/// Reads the inputs in `dir`, each checked against the memory limit before it is decoded.
pub fn read_inputs_within(m: &Loaded, dir: &Path) -> Result<Vec<Val>> {
    let max = m.interp.limits().max_memory;
    Ok(nart_tensor::with_max_bytes(max, || {
        read_inputs(dir, m.interp.inputs())
    })?)
}

/// Imports `model` and plans `func` (default `main_graph`), with no limits but absurd sizes.
pub fn load(model: &Path, func: Option<&str>) -> Result<Loaded> {
    load_with(model, func, Limits::default())
}

/// Imports `model` and plans `func` (default `main_graph`) to run within `limits`.
pub fn load_with(model: &Path, func: Option<&str>, limits: Limits) -> Result<Loaded> {
    let mut ctx = Context::new();
    let t0 = Instant::now();
    let module = import_model(&mut ctx, model).map_err(|d| {
        anyhow!(
            "cannot import '{}':\n{}",
            model.display(),
            render_diags(&ctx, &d)
        )
    })?;
    let import_s = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    nart_interp::register(&mut ctx);
    let mut interp = Interpreter::from_module(&ctx, module, func)?;
    interp.set_limits(limits);
    let plan_s = t1.elapsed().as_secs_f64();
    Ok(Loaded {
        ctx,
        interp,
        import_s,
        plan_s,
    })
}

/// Reads `model`: MLIR text when its name ends in `.mlir` (what `nart quantize -o Q.mlir` and
/// `nart-opt` write: graph, quant and qnn ops, parsed and verified), ONNX otherwise.
pub fn import_model(ctx: &mut Context, model: &Path) -> Result<Op, Vec<nart_ir::Diagnostic>> {
    if model.extension().is_none_or(|e| e != "mlir") {
        return nart_onnx::import_file(ctx, model);
    }
    nart_onnx::register_dialects(ctx);
    nart_quant::register(ctx);
    let file = model.display().to_string();
    let text = std::fs::read_to_string(model).map_err(|e| {
        vec![nart_ir::Diagnostic::error(
            ctx.unknown_loc(),
            format!("cannot read '{file}': {e}"),
        )]
    })?;
    let module = nart_ir::parser::parse_source(ctx, &file, &text)?;
    nart_ir::verify::verify(ctx, module)?;
    Ok(module)
}

/// Runs one sample folder and writes its outputs.
pub fn run_sample(m: &Loaded, inputs: &Path, outputs: &Path) -> Result<()> {
    let vals = read_inputs_within(m, inputs)?;
    let outs = m.interp.run_values(vals)?;
    write_outputs(
        outputs,
        &outs,
        m.interp.output_names(),
        &m.optional_outputs(),
    )?;
    Ok(())
}

/// `nart run`: one sample folder (`--inputs`) or every sample folder of a dataset (`--dataset`).
pub fn run(
    model: &Path,
    inputs: Option<&Path>,
    dataset: Option<&Path>,
    outputs: &Path,
    func: Option<&str>,
    limits: Limits,
) -> Result<()> {
    let m = load_with(model, func, limits)?;
    match (inputs, dataset) {
        (Some(dir), None) => run_sample(&m, dir, outputs),
        (None, Some(ds)) => {
            let samples = sample_dirs(ds)?;
            if samples.is_empty() {
                bail!("dataset '{}' has no sample folders", ds.display());
            }
            for s in samples {
                let name = s.file_name().map(|n| n.to_os_string()).unwrap_or_default();
                run_sample(&m, &s, &outputs.join(name))
                    .with_context(|| format!("sample '{}'", s.display()))?;
            }
            Ok(())
        }
        _ => bail!("give exactly one of --inputs DIR and --dataset DIR"),
    }
}

/// Deterministic inputs for the declared input types (dynamic dimensions set to 1), each
/// checked against the memory limit before it is made; an input with a default value gets it.
pub fn synthetic_inputs(interp: &Interpreter) -> Result<Vec<Val>> {
    interp
        .inputs()
        .iter()
        .enumerate()
        .map(|(i, spec)| {
            if let Some(d) = &spec.default {
                return Ok(Val::Tensor(d.clone()));
            }
            let dtype = spec.dtype.unwrap_or(DType::F32);
            let shape: Vec<usize> = spec
                .shape
                .as_ref()
                .map(|d| d.iter().map(|d| d.unwrap_or(1)).collect())
                .unwrap_or_default();
            // The f64 values and the tensor made from them.
            let per_elem = std::mem::size_of::<f64>() + nart_tensor::elem_bytes(dtype);
            let max = interp.limits().max_memory;
            let n = shape
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d))
                .filter(|&n| n.checked_mul(per_elem).is_some_and(|b| b <= max))
                .ok_or_else(|| {
                    anyhow!(
                        "input #{i} '{}': a tensor of shape {shape:?} needs {}, more than the {} the memory limit allows",
                        spec.name,
                        shape
                            .iter()
                            .try_fold(per_elem, |a, &d| a.checked_mul(d))
                            .map_or("more bytes than a machine has".to_string(), nart_tensor::human_bytes),
                        nart_tensor::human_bytes(max)
                    )
                })?;
            let v: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 1000) as f64 / 1000.0 - 0.5)
                .collect();
            Ok(Val::Tensor(Tensor::from_f64(dtype, shape, v)?))
        })
        .collect()
}

/// Timings of `nart bench`.
#[derive(Debug, Clone)]
pub struct BenchReport {
    /// Import seconds.
    pub import_s: f64,
    /// Planning seconds.
    pub plan_s: f64,
    /// Seconds of each run.
    pub runs_s: Vec<f64>,
}

fn median(v: &[f64]) -> f64 {
    let mut s = v.to_vec();
    s.sort_by(|a, b| a.total_cmp(b));
    if s.is_empty() {
        0.0
    } else {
        s[s.len() / 2]
    }
}

/// Standard output as a writer of its own, or an error when it is closed (Rust's `Stdout`
/// silently discards what is written to a closed descriptor).
pub fn open_stdout() -> std::io::Result<Box<dyn Write>> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = std::io::stdout().as_fd().try_clone_to_owned()?;
        Ok(Box::new(std::fs::File::from(fd)))
    }
    #[cfg(not(unix))]
    {
        Ok(Box::new(std::io::stdout()))
    }
}

/// `nart bench`: imports, plans and runs the model `runs` times within `limits`, and writes the
/// report to `out`.
pub fn bench(
    model: &Path,
    inputs: Option<&Path>,
    runs: usize,
    json: bool,
    limits: Limits,
    out: &mut dyn Write,
) -> Result<BenchReport> {
    let m = load_with(model, None, limits)?;
    let vals = match inputs {
        Some(dir) => read_inputs_within(&m, dir)?,
        None => synthetic_inputs(&m.interp)?,
    };
    let mut runs_s = Vec::new();
    for _ in 0..runs.max(1) {
        let t = Instant::now();
        m.interp.run_values(vals.clone())?;
        runs_s.push(t.elapsed().as_secs_f64());
    }
    let r = BenchReport {
        import_s: m.import_s,
        plan_s: m.plan_s,
        runs_s,
    };
    use std::fmt::Write as _;
    let ms = |s: f64| s * 1e3;
    let mut text = String::new();
    if json {
        writeln!(
            text,
            "{{\"import_ms\": {:.3}, \"plan_ms\": {:.3}, \"run_ms_median\": {:.3}, \"run_ms_min\": {:.3}, \"runs\": {}}}",
            ms(r.import_s),
            ms(r.plan_s),
            ms(median(&r.runs_s)),
            ms(r.runs_s.iter().copied().fold(f64::INFINITY, f64::min)),
            r.runs_s.len()
        )?;
    } else {
        writeln!(text, "model:          {}", model.display())?;
        writeln!(
            text,
            "import:         {:.3} ms (parse, upgrade, shape inference)",
            ms(r.import_s)
        )?;
        writeln!(
            text,
            "plan:           {:.3} ms ({} steps)",
            ms(r.plan_s),
            m.interp.num_steps()
        )?;
        writeln!(
            text,
            "run (median):   {:.3} ms over {} runs",
            ms(median(&r.runs_s)),
            r.runs_s.len()
        )?;
    }
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .context("cannot write to standard output")?;
    Ok(r)
}

fn one_test(dir: &Path, out_root: &Path, limits: Limits) -> Result<()> {
    let m = load_with(&dir.join("model.onnx"), None, limits)?;
    let name = dir
        .file_name()
        .map(|n| n.to_os_string())
        .unwrap_or_default();
    for s in sample_dirs(dir)? {
        let set = s.file_name().map(|n| n.to_os_string()).unwrap_or_default();
        run_sample(&m, &s, &out_root.join(&name).join(set))?;
    }
    Ok(())
}

fn one_line(s: &str) -> String {
    s.replace(['\n', '\t', '\r'], " ")
}

/// `nart run-tests`: runs ONNX backend test folders (each with `model.onnx` and
/// `test_data_set_*`) in one process, writing outputs under `out_root/<test>/<set>/` and printing
/// `name<TAB>ok|error<TAB>message` per test. A panic in one test is caught and reported.
pub fn run_tests(dirs: &[PathBuf], out_root: &Path, limits: Limits) -> Result<()> {
    std::panic::set_hook(Box::new(|_| {}));
    let mut stdout = open_stdout().context("cannot write to standard output")?;
    for dir in dirs {
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let res = std::panic::catch_unwind(|| one_test(dir, out_root, limits));
        let line = match res {
            Ok(Ok(())) => format!("{name}\tok\t"),
            Ok(Err(e)) => format!("{name}\terror\t{}", one_line(&format!("{e:#}"))),
            Err(p) => {
                let msg = p
                    .downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default();
                format!("{name}\tpanic\t{}", one_line(&msg))
            }
        };
        writeln!(stdout, "{line}").context("cannot write to standard output")?;
    }
    Ok(())
}
