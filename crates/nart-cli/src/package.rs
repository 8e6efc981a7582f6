//! Packages from the command line: `nart compile` (ONNX in, package out), `nart inspect`
//! (what a package holds), `nart run --package` and `nart bench --package` (run it with
//! `nart-rt`).
//!
//! `nart compile` is a sequence of stages over one IR context: import (or, with `--quant`,
//! the stages of `nart quantize`: import, calibrate, apply), partition (the placement report
//! of `nart partition` is printed), compile-segments, then [`build_package`] walks the main
//! function (segments, the casts between them, the returned values) into a manifest whose
//! steps `nart-rt` runs. Weights stay inside the artifacts (an `interp` artifact is MLIR text
//! holding its constants), so a package has one blob per segment.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail, Context as _, Result};
use nart_interp::convert::{loc_to_string, quant_params, tensor_type_info};
use nart_interp::{InputSpec, Val, ValueKind};
use nart_ir::{AttrData, Context, Op, Trait, Type, Value};
use nart_rt::manifest::{
    CastStep, Dim, Manifest, QuantSpec, SegmentStep, Step, TargetInfo, TensorSpec,
};
use nart_rt::{Package, RuntimeRegistry, Session};
use nart_target::{Override, Setup, TargetRegistry};
use nart_tensor::{DType, Tensor};

use crate::tensor_io::{read_inputs, write_outputs};

/// What `nart compile` was asked.
#[derive(Clone, Debug, Default)]
pub struct CompileRequest {
    /// The ONNX model.
    pub model: PathBuf,
    /// The targets in preference order (`interp` is the fallback).
    pub targets: Vec<String>,
    /// The `--place` overrides, as given.
    pub place: Vec<String>,
    /// The quantization scheme, if any (see `nart quantize --list-schemes`).
    pub quant: Option<String>,
    /// Calibration data for `--quant`.
    pub calib: Option<PathBuf>,
    /// Where the package goes.
    pub output: PathBuf,
    /// What `--targets auto` optimizes.
    pub goal: crate::auto::Goal,
    /// `--dim NAME=SIZE`: sizes for symbolic dimensions, applied right after import.
    pub dims: Vec<String>,
    /// `--shape INPUT=D0xD1x...`: shapes for inputs, applied right after import.
    pub shapes: Vec<String>,
}

fn render(ctx: &Context, diags: &[nart_ir::Diagnostic]) -> String {
    diags
        .iter()
        .map(|d| format!("\n{}: error: {}", loc_to_string(ctx, d.loc), d.message))
        .collect()
}

/// Runs `graph-specialize-shapes` with `dims` and `shapes` on a freshly imported module (and
/// the verifier after it); does nothing when both are empty. Errors name the model and the
/// location of what is wrong.
pub fn specialize(
    ctx: &mut Context,
    module: Op,
    dims: &[String],
    shapes: &[String],
    model: &Path,
) -> Result<()> {
    if dims.is_empty() && shapes.is_empty() {
        return Ok(());
    }
    let mut pm = nart_pass::PassManager::new("builtin.module");
    pm.pipeline
        .add_pass(Box::new(nart_graph_opt::SpecializeShapesPass::with(
            dims.to_vec(),
            shapes.to_vec(),
        )))
        .map_err(|e| anyhow!("{e}"))?;
    let mut sink = std::io::sink();
    pm.run(ctx, module, &mut sink).map_err(|e| match e {
        nart_pass::PassManagerError::PassFailed { diagnostics, .. }
        | nart_pass::PassManagerError::VerifyFailed { diagnostics, .. } => anyhow!(
            "cannot specialize the shapes of '{}':{}",
            model.display(),
            render(ctx, &diagnostics)
        ),
        other => anyhow!(
            "cannot specialize the shapes of '{}': {other}",
            model.display()
        ),
    })
}

/// `nart compile`: import (and quantize), partition, compile, package; writes the package to
/// `req.output` and the placement report to `out`, and returns the package.
pub fn compile(
    req: &CompileRequest,
    registry: &TargetRegistry,
    out: &mut dyn Write,
) -> Result<Package> {
    compile_with(req, registry, None, out)
}

/// [`compile`]; with `--targets auto` and a `timer`, every candidate placement is compiled,
/// loaded (with the runtimes of `registry`'s targets) and timed on random inputs of its
/// manifest's shapes (symbolic dims at 1), and the choice is made on what was measured
/// ([`crate::auto::measure`]).
pub fn compile_with(
    req: &CompileRequest,
    registry: &TargetRegistry,
    timer: Option<&mut dyn crate::auto::Timer>,
    out: &mut dyn Write,
) -> Result<Package> {
    let overrides = req
        .place
        .iter()
        .map(|p| Override::parse(p).map_err(|m| anyhow!("--place: {m}")))
        .collect::<Result<Vec<_>>>()?;
    let mut notes = std::collections::BTreeMap::new();
    let auto = crate::auto::is_auto(&req.targets)?;
    if !auto && timer.is_some() {
        bail!("--measure measures the candidates of --targets auto; give --targets auto");
    }
    let (targets, quant) = if auto {
        // Decide on the float model, then compile as if the user had named the choice.
        let mut ctx = Context::new();
        let module = nart_onnx::import_file(&mut ctx, &req.model).map_err(|d| {
            anyhow!(
                "cannot import '{}':{}",
                req.model.display(),
                render(&ctx, &d)
            )
        })?;
        specialize(&mut ctx, module, &req.dims, &req.shapes, &req.model)?;
        let func = crate::partition::main_function(&ctx, module)
            .ok_or_else(|| anyhow!("'{}' has no function to compile", req.model.display()))?;
        let mut d = crate::auto::decide(&mut ctx, func, registry, req.goal, req.calib.is_some())?;
        if let Some(timer) = timer {
            let runtimes = Arc::new(registry.runtimes());
            d = crate::auto::measure(d, registry, timer, |targets, scheme| {
                let quant = req.quant.clone().or(scheme);
                let (pkg, _) = build(
                    req,
                    registry,
                    targets,
                    &quant,
                    &overrides,
                    Default::default(),
                )?;
                let session = Session::load(&pkg, &runtimes)?;
                let ones: Vec<String> = session
                    .manifest()
                    .inputs
                    .iter()
                    .flat_map(|t| t.shape.iter().flatten())
                    .filter_map(|d| match d {
                        Dim::Symbol(s) => Some(format!("{s}=1")),
                        Dim::Static(_) => None,
                    })
                    .collect();
                let xs = random_inputs(session.manifest(), &ones)?;
                // The package's bytes are copied inside, so that the peak holds them as a
                // load from a file does.
                let (bytes, runtimes2, xs2) = (
                    Arc::new(pkg.as_bytes().to_vec()),
                    Arc::clone(&runtimes),
                    xs.clone(),
                );
                let load_and_run = move || -> Result<()> {
                    let pkg = Package::from_bytes(bytes.to_vec())?;
                    Session::load(&pkg, &runtimes2)?.run(xs2.clone())?;
                    Ok(())
                };
                let run = move || -> Result<()> {
                    session.run(xs.clone())?;
                    Ok(())
                };
                let mut ops = std::collections::BTreeMap::new();
                let mut segments = 0;
                for step in &pkg.manifest().steps {
                    if let Step::Segment(seg) = step {
                        *ops.entry(seg.target.clone()).or_default() += seg.ops as usize;
                        segments += 1;
                    }
                }
                Ok(crate::auto::Compiled {
                    bytes: pkg.len(),
                    ops,
                    segments,
                    run: Box::new(run),
                    load_and_run: Box::new(load_and_run),
                })
            })?;
        }
        out.write_all(d.report.as_bytes())?;
        out.write_all(b"\n")?;
        notes.insert("auto".to_string(), d.report.clone());
        (d.targets, req.quant.clone().or(d.scheme))
    } else {
        (req.targets.clone(), req.quant.clone())
    };
    if req.calib.is_some() && quant.is_none() && !auto {
        bail!("--calib needs --quant SCHEME");
    }
    let (pkg, report) = build(req, registry, &targets, &quant, &overrides, notes)?;
    pkg.write(&req.output)
        .with_context(|| format!("cannot write '{}'", req.output.display()))?;
    out.write_all(report.as_bytes())?;
    writeln!(
        out,
        "\nwrote {} ({} bytes, {} step{})",
        req.output.display(),
        pkg.len(),
        pkg.manifest().steps.len(),
        if pkg.manifest().steps.len() == 1 {
            ""
        } else {
            "s"
        }
    )?;
    out.flush()?;
    Ok(pkg)
}

/// Imports `req.model` (quantized with `quant`, if any), partitions it onto `targets` with
/// `overrides`, compiles the segments and builds the package (with `notes`); returns it with
/// the placement report.
fn build(
    req: &CompileRequest,
    registry: &TargetRegistry,
    targets: &[String],
    quant: &Option<String>,
    overrides: &[Override],
    notes: std::collections::BTreeMap<String, String>,
) -> Result<(Package, String)> {
    let mut notes = notes;
    let setup = Setup::resolve(registry, targets, overrides)?;
    let (mut ctx, module) = match &quant {
        Some(scheme) => {
            let mut s = crate::quantize::Session::load(crate::quantize::QuantizeRequest {
                model: req.model.clone(),
                calib: req.calib.clone(),
                scheme: scheme.clone(),
                bits: None,
                calibrator: "minmax".into(),
                mode: nart_quant::passes::Mode::Static,
                overrides: Vec::new(),
                qparams: None,
                export_qparams: None,
                output: PathBuf::new(),
                progress: false,
                form: crate::quantize::Form::Qnn,
                guard: Default::default(),
                calib_batch: None,
            })?;
            specialize(&mut s.ctx, s.module, &req.dims, &req.shapes, &req.model)?;
            s.calibrate()?;
            s.apply()?;
            s.lower()?;
            notes.insert(
                "quantization".to_string(),
                format!("scheme {scheme}, static, minmax calibration, qnn form"),
            );
            (s.ctx, s.module)
        }
        None => {
            let mut ctx = Context::new();
            let module = nart_onnx::import_file(&mut ctx, &req.model).map_err(|d| {
                anyhow!(
                    "cannot import '{}':{}",
                    req.model.display(),
                    render(&ctx, &d)
                )
            })?;
            specialize(&mut ctx, module, &req.dims, &req.shapes, &req.model)?;
            (ctx, module)
        }
    };
    let func = crate::partition::main_function(&ctx, module)
        .ok_or_else(|| anyhow!("'{}' has no function to compile", req.model.display()))?;
    let model_name = ctx
        .attr(module, "onnx.graph_name")
        .and_then(|a| ctx.attr_str(a))
        .unwrap_or_default()
        .to_string();
    let parts = nart_target::partition_function(&mut ctx, func, &setup).map_err(|d| {
        anyhow!(
            "cannot partition '{}':{}",
            req.model.display(),
            render(&ctx, &d)
        )
    })?;
    let unmatched: Vec<String> = overrides
        .iter()
        .zip(&parts.plan.override_hits)
        .filter(|(_, &n)| n == 0)
        .map(|(o, _)| format!("'{o}'"))
        .collect();
    if !unmatched.is_empty() {
        bail!(
            "--place {} matches no op of '{}'",
            unmatched.join(", "),
            req.model.display()
        );
    }
    let report = crate::partition::report(&ctx, &parts, &setup);
    let op_counts: Vec<u64> = parts
        .plan
        .segments
        .iter()
        .map(|s| s.ops.len() as u64)
        .collect();
    apply_preferred_layouts(&mut ctx, module, registry).map_err(|d| {
        anyhow!(
            "cannot convert the segments of '{}' to their targets' layouts:{}",
            req.model.display(),
            render(&ctx, &d)
        )
    })?;
    nart_target::compile::compile_segments(&mut ctx, module, registry).map_err(|d| {
        anyhow!(
            "cannot compile the segments of '{}':{}",
            req.model.display(),
            render(&ctx, &d)
        )
    })?;
    let pkg = build_package(&ctx, func, model_name, &op_counts, notes)?;
    Ok((pkg, report))
}

/// Converts each `target.segment` under `root` whose target states a
/// [`preferred_layout`](nart_target::Target::preferred_layout) with `graph-layout`
/// ([`nart_graph_opt::layout::convert_segment`], the verifier after it), before the targets
/// compile them. `nart-target` cannot do it itself: `nart-graph-opt` is in its tier.
pub fn apply_preferred_layouts(
    ctx: &mut Context,
    root: Op,
    registry: &TargetRegistry,
) -> std::result::Result<(), Vec<nart_ir::Diagnostic>> {
    use nart_graph_opt::layout::{convert_segment, Layout as PassLayout};
    let segments: Vec<Op> = ctx
        .collect_ops(root, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .filter(|&op| ctx.op_name_str(op) == "target.segment")
        .collect();
    for seg in segments {
        let name = nart_target::compile::target_of(ctx, seg).unwrap_or_default();
        // An unknown target is compile_segments' error to report.
        let Ok(target) = registry.get(name) else {
            continue;
        };
        let layout = match target.preferred_layout() {
            None => continue,
            Some(nart_target::Layout::Nchw) => PassLayout::Nchw,
            Some(nart_target::Layout::Nhwc) => PassLayout::Nhwc,
            Some(nart_target::Layout::Nchw8c) => PassLayout::Nchw8c,
            Some(nart_target::Layout::Nchw16c) => PassLayout::Nchw16c,
        };
        convert_segment(ctx, seg, layout)?;
    }
    Ok(())
}

/// The string of key `key` in entry `i` of a `func.func`'s `arg_attrs`/`res_attrs`.
fn dict_entry(ctx: &Context, func: Op, attrs: &str, i: usize, key: &str) -> Option<nart_ir::Attr> {
    let AttrData::Array(items) = ctx.attr_data(ctx.attr(func, attrs)?) else {
        return None;
    };
    let AttrData::Dictionary(entries) = ctx.attr_data(*items.get(i)?) else {
        return None;
    };
    entries
        .iter()
        .find(|e| ctx.str(e.name) == key)
        .map(|e| e.value)
}

/// The manifest description of a value of type `ty` named `name`.
fn tensor_spec(
    ctx: &Context,
    func: Op,
    attrs: &str,
    i: usize,
    name: String,
    ty: Type,
) -> Result<TensorSpec> {
    let (dtype, dims) = tensor_type_info(ctx, ty)
        .ok_or_else(|| anyhow!("'{name}' is not a tensor; packages take and return tensors"))?;
    let dtype = dtype.ok_or_else(|| anyhow!("'{name}' has an element type nart cannot hold"))?;
    let dim_names: Vec<String> = dict_entry(ctx, func, attrs, i, "graph.dim_names")
        .and_then(|a| match ctx.attr_data(a) {
            AttrData::Array(v) => Some(
                v.iter()
                    .map(|&s| ctx.attr_str(s).unwrap_or_default().to_string())
                    .collect(),
            ),
            _ => None,
        })
        .unwrap_or_default();
    let shape = dims.map(|dims| {
        dims.iter()
            .enumerate()
            .map(|(k, d)| match d {
                Some(n) => Dim::Static(*n as u64),
                None => Dim::Symbol(
                    dim_names
                        .get(k)
                        .filter(|s| !s.is_empty())
                        .cloned()
                        .unwrap_or_else(|| "?".into()),
                ),
            })
            .collect()
    });
    Ok(TensorSpec {
        name,
        dtype: dtype.name().to_string(),
        shape,
        value: None,
    })
}

/// The element dtype name of `ty` (the float side of a cast).
fn float_name(ctx: &Context, ty: Type) -> Result<String> {
    tensor_type_info(ctx, ty)
        .and_then(|(d, _)| d)
        .filter(|d| d.is_float())
        .map(|d| d.name().to_string())
        .ok_or_else(|| anyhow!("a cast's float side is not a float tensor"))
}

/// Walks the compiled main function `func` into a package: its arguments are the inputs, each
/// `target.compiled` a segment step (its artifact a blob), each `quant.qcast`/`quant.dcast`
/// between segments a cast step, the returned values the outputs. Any other op outside the
/// segments is an error naming it (unused constants are skipped).
pub fn build_package(
    ctx: &Context,
    func: Op,
    model: String,
    op_counts: &[u64],
    notes: std::collections::BTreeMap<String, String>,
) -> Result<Package> {
    let body = ctx
        .region_blocks(ctx.region(func, 0))
        .first()
        .copied()
        .ok_or_else(|| anyhow!("the main function has no body"))?;
    let mut names: HashMap<Value, String> = HashMap::new();
    let mut inputs = Vec::new();
    for (i, &a) in ctx.block_args(body).iter().enumerate() {
        let name = dict_entry(ctx, func, "arg_attrs", i, "onnx.name")
            .and_then(|a| ctx.attr_str(a))
            .map(str::to_string)
            .unwrap_or_else(|| format!("input_{i}"));
        inputs.push(tensor_spec(
            ctx,
            func,
            "arg_attrs",
            i,
            name.clone(),
            ctx.value_type(a),
        )?);
        names.insert(a, name);
    }
    let ops = ctx.block_ops(body);
    let Some((&ret, ops)) = ops.split_last() else {
        bail!("the main function is empty");
    };
    // Returned values are named after the outputs where they are first defined.
    let mut outputs = Vec::new();
    let mut out_names: HashMap<Value, String> = HashMap::new();
    for (i, &v) in ctx.operands(ret).iter().enumerate() {
        let name = dict_entry(ctx, func, "res_attrs", i, "onnx.name")
            .and_then(|a| ctx.attr_str(a))
            .map(str::to_string)
            .unwrap_or_else(|| format!("output_{i}"));
        let spec = tensor_spec(ctx, func, "res_attrs", i, name.clone(), ctx.value_type(v))?;
        let taken = names.contains_key(&v) || out_names.contains_key(&v);
        if !taken && !inputs.iter().any(|t| t.name == name) {
            out_names.insert(v, name);
        }
        outputs.push((spec, v));
    }
    let mut fresh = 0;
    let mut name_of = |v: Value, names: &mut HashMap<Value, String>| -> String {
        let n = out_names.get(&v).cloned().unwrap_or_else(|| {
            fresh += 1;
            format!("%{}", fresh - 1)
        });
        names.insert(v, n.clone());
        n
    };
    let mut steps = Vec::new();
    let mut blobs = Vec::new();
    let mut targets: Vec<TargetInfo> = Vec::new();
    let mut segment_index = 0;
    for &op in ops {
        let reads = || -> Result<Vec<String>> {
            ctx.operands(op)
                .iter()
                .map(|v| {
                    names.get(v).cloned().ok_or_else(|| {
                        anyhow!(
                            "{}: '{}' reads a value defined outside the segments",
                            loc_to_string(ctx, ctx.op_loc(op)),
                            ctx.op_name_str(op)
                        )
                    })
                })
                .collect()
        };
        match ctx.op_name_str(op) {
            "target.compiled" => {
                let a = nart_target::compile::artifact_of(ctx, op)
                    .ok_or_else(|| anyhow!("a target.compiled op holds no artifact"))?;
                let reads = reads()?;
                let writes = ctx
                    .results(op)
                    .to_vec()
                    .into_iter()
                    .map(|r| name_of(r, &mut names))
                    .collect();
                if !targets.iter().any(|t| t.name == a.target) {
                    targets.push(TargetInfo {
                        name: a.target.clone(),
                        sdk_version: a.sdk_version.clone(),
                    });
                }
                steps.push(Step::Segment(SegmentStep {
                    target: a.target,
                    format: a.format,
                    sdk_version: a.sdk_version,
                    ops: op_counts.get(segment_index).copied().unwrap_or(0),
                    reads,
                    writes,
                    blob: blobs.len(),
                }));
                segment_index += 1;
                blobs.push(a.bytes);
            }
            kind @ ("quant.qcast" | "quant.dcast") => {
                let reads = reads()?;
                let (x, y) = (ctx.operand(op, 0), ctx.results(op)[0]);
                let quantize = kind == "quant.qcast";
                let (qty, fty) = if quantize { (y, x) } else { (x, y) };
                let q = quant_params(ctx, ctx.value_type(qty)).ok_or_else(|| {
                    anyhow!(
                        "{}: '{kind}' has no quantized type",
                        loc_to_string(ctx, ctx.op_loc(op))
                    )
                })?;
                let cast = CastStep {
                    reads: reads[0].clone(),
                    writes: name_of(y, &mut names),
                    quant: QuantSpec::from_qparams(&q),
                    float: float_name(ctx, ctx.value_type(fty))?,
                };
                steps.push(if quantize {
                    Step::Quantize(cast)
                } else {
                    Step::Dequantize(cast)
                });
            }
            _ if ctx.op_has_trait(op, Trait::ConstantLike)
                && ctx.results(op).iter().all(|&r| !ctx.has_uses(r)) => {}
            other => bail!(
                "{}: '{other}' is outside every segment, and a package runs only segments and the casts between them",
                loc_to_string(ctx, ctx.op_loc(op))
            ),
        }
    }
    let outputs = outputs
        .into_iter()
        .map(|(mut spec, v)| {
            let value = names
                .get(&v)
                .cloned()
                .ok_or_else(|| anyhow!("output '{}' is defined outside the segments", spec.name))?;
            if value != spec.name {
                spec.value = Some(value);
            }
            Ok(spec)
        })
        .collect::<Result<Vec<_>>>()?;
    let manifest = Manifest {
        nart_version: env!("CARGO_PKG_VERSION").to_string(),
        model,
        inputs,
        outputs,
        targets,
        steps,
        blobs: Vec::new(),
        notes,
    };
    Ok(Package::new(manifest, blobs)?)
}

/// `nart inspect`: the manifest, readable (or as JSON).
pub fn inspect(path: &Path, json: bool, out: &mut dyn Write) -> Result<()> {
    let pkg = Package::open(path)?;
    let m = pkg.manifest();
    if json {
        let text = serde_json::to_string_pretty(m)?;
        writeln!(out, "{text}")?;
        return Ok(out.flush()?);
    }
    use std::fmt::Write as _;
    let mut s = String::new();
    writeln!(
        s,
        "package: {} bytes, format version {}, written by nart {}",
        pkg.len(),
        nart_rt::FORMAT_VERSION,
        m.nart_version
    )?;
    if !m.model.is_empty() {
        writeln!(s, "model:   {}", m.model)?;
    }
    let specs = |s: &mut String, title: &str, v: &[TensorSpec]| -> std::fmt::Result {
        writeln!(s, "{title}:")?;
        let w = v.iter().map(|t| t.name.len()).max().unwrap_or(0);
        for t in v {
            write!(s, "  {:<w$}  {:<4}  {}", t.name, t.dtype, t.shape_string())?;
            match &t.value {
                Some(v) => writeln!(s, "  (returns {v})")?,
                None => writeln!(s)?,
            }
        }
        Ok(())
    };
    specs(&mut s, "inputs", &m.inputs)?;
    specs(&mut s, "outputs", &m.outputs)?;
    writeln!(s, "targets:")?;
    for t in &m.targets {
        writeln!(s, "  {}  ({})", t.name, t.sdk_version)?;
    }
    writeln!(s, "steps:")?;
    for (i, step) in m.steps.iter().enumerate() {
        match step {
            Step::Segment(g) => writeln!(
                s,
                "  #{i} segment on {}: {} op{}, {} artifact of {} bytes; ({}) -> ({})",
                g.target,
                g.ops,
                if g.ops == 1 { "" } else { "s" },
                g.format,
                m.blobs[g.blob].length,
                g.reads.join(", "),
                g.writes.join(", ")
            )?,
            Step::Quantize(c) | Step::Dequantize(c) => {
                let kind = if matches!(step, Step::Quantize(_)) {
                    "quantize"
                } else {
                    "dequantize"
                };
                let q = &c.quant;
                let scale = if q.scales.len() == 1 {
                    format!("scale {} zero point {}", q.scales[0], q.zero_points[0])
                } else {
                    format!("{} scales", q.scales.len())
                };
                writeln!(
                    s,
                    "  #{i} {kind} {} -> {}: {} <-> {}, {scale}",
                    c.reads, c.writes, c.float, q.storage
                )?
            }
        }
    }
    if !m.notes.is_empty() {
        writeln!(s, "notes:")?;
        for (k, v) in &m.notes {
            writeln!(s, "  {k}: {v}")?;
        }
    }
    out.write_all(s.as_bytes())?;
    Ok(out.flush()?)
}

/// The interpreter's view of the package's inputs, for reading input files.
fn input_specs(m: &Manifest) -> Vec<InputSpec> {
    m.inputs
        .iter()
        .map(|t| InputSpec {
            name: t.name.clone(),
            dtype: t.dtype(),
            shape: t.shape.as_ref().map(|d| {
                d.iter()
                    .map(|d| match d {
                        Dim::Static(n) => Some(*n as usize),
                        Dim::Symbol(_) => None,
                    })
                    .collect()
            }),
            kind: ValueKind::Tensor,
            default: None,
        })
        .collect()
}

/// Reads the inputs of `session` from `dir` (`input_N.pb` or `.npy`).
pub fn read_package_inputs(session: &Session, dir: &Path) -> Result<Vec<Tensor>> {
    read_inputs(dir, &input_specs(session.manifest()))?
        .into_iter()
        .enumerate()
        .map(|(i, v)| match v {
            Val::Tensor(t) => Ok(t),
            _ => bail!("input #{i} is not a tensor"),
        })
        .collect()
}

/// Opens and loads the package at `path`.
pub fn load_package(path: &Path, runtimes: &RuntimeRegistry) -> Result<Session> {
    let pkg = Package::open(path)?;
    Ok(Session::load(&pkg, runtimes)?)
}

/// `nart run --package`: runs the package on `inputs/input_N.pb` and writes
/// `outputs/output_N.pb`.
pub fn run_package(
    path: &Path,
    inputs: &Path,
    outputs: &Path,
    runtimes: &RuntimeRegistry,
) -> Result<()> {
    let session = load_package(path, runtimes)?;
    let xs = read_package_inputs(&session, inputs)?;
    let ys = session.run(xs)?;
    let names: Vec<String> = session.outputs().iter().map(|t| t.name.clone()).collect();
    let vals: Vec<Val> = ys.into_iter().map(Val::Tensor).collect();
    write_outputs(outputs, &vals, &names, &vec![false; vals.len()])?;
    Ok(())
}

/// What `nart bench --package` was asked.
#[derive(Clone, Debug)]
pub struct BenchRequest {
    /// The package.
    pub package: PathBuf,
    /// Input files; random inputs of the manifest's shapes without them.
    pub inputs: Option<PathBuf>,
    /// Threads running the session at once (each does `runs` runs).
    pub threads: usize,
    /// Timed runs per thread.
    pub runs: usize,
    /// Sizes of symbolic dimensions (`N=1`), for random inputs.
    pub dims: Vec<String>,
    /// One JSON line instead of text.
    pub json: bool,
}

/// Timings of `nart bench --package`.
#[derive(Clone, Debug)]
pub struct PackageBench {
    /// Seconds to open and load the package.
    pub load_s: f64,
    /// Median run latency, seconds.
    pub median_s: f64,
    /// 90th percentile run latency, seconds.
    pub p90_s: f64,
    /// The fastest run, seconds (what a loaded machine disturbs least).
    pub min_s: f64,
    /// Number of timed runs (all threads).
    pub runs: usize,
    /// The peak bytes loading the package and one run held ([`crate::memory::measure_peak`]:
    /// the larger of `peaks`' two); `None` where neither could be measured.
    pub peak_bytes: Option<usize>,
    /// Both measures of that peak: the counting allocator's and the resident set's.
    pub peaks: crate::memory::Peaks,
}

/// Random (seeded, deterministic) inputs of the manifest's types, with symbolic dims from
/// `dims` (`N=1`).
pub fn random_inputs(m: &Manifest, dims: &[String]) -> Result<Vec<Tensor>> {
    let mut sizes: HashMap<&str, usize> = HashMap::new();
    for d in dims {
        let (k, v) = d
            .split_once('=')
            .ok_or_else(|| anyhow!("--dim '{d}': expected NAME=SIZE"))?;
        let v: usize = v
            .trim()
            .parse()
            .map_err(|_| anyhow!("--dim '{d}': '{v}' is not a size"))?;
        sizes.insert(k.trim(), v);
    }
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    m.inputs
        .iter()
        .map(|t| {
            let dtype = t.dtype().unwrap_or(DType::F32);
            let shape = t
                .shape
                .as_ref()
                .ok_or_else(|| anyhow!("input '{}' has an unknown rank; give --inputs DIR", t.name))?
                .iter()
                .map(|d| match d {
                    Dim::Static(n) => Ok(*n as usize),
                    Dim::Symbol(s) => sizes.get(s.as_str()).copied().ok_or_else(|| {
                        anyhow!(
                            "input '{}' has symbolic dimension '{s}' ({}): give its size with --dim {s}=SIZE, or --inputs DIR",
                            t.name,
                            t.shape_string()
                        )
                    }),
                })
                .collect::<Result<Vec<usize>>>()?;
            let n = shape
                .iter()
                .try_fold(1usize, |a, &d| a.checked_mul(d))
                .filter(|&n| n <= 1 << 28)
                .ok_or_else(|| anyhow!("input '{}' of shape {shape:?} is too large", t.name))?;
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    (seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
                })
                .collect();
            Ok(Tensor::from_f64(dtype, shape, v)?)
        })
        .collect()
}

/// A byte count in JSON (`null` when not measured).
fn json_bytes(b: Option<usize>) -> String {
    b.map_or_else(|| "null".to_string(), |b| b.to_string())
}

/// `nart bench --package`: loads the package, then `threads` threads each run it `runs` times;
/// prints the load time and the median and p90 latency of a run.
pub fn bench_package(
    req: &BenchRequest,
    runtimes: &RuntimeRegistry,
    out: &mut dyn Write,
) -> Result<PackageBench> {
    // The load and one untimed run (the first touches every page), their peak memory
    // measured; the inputs are read first, so that the peak holds them once.
    let mut load_s = 0.0;
    let (session, peaks) = crate::memory::measure_peaks(|| -> Result<_> {
        let t0 = Instant::now();
        let session = Arc::new(load_package(&req.package, runtimes)?);
        load_s = t0.elapsed().as_secs_f64();
        let xs = match &req.inputs {
            Some(dir) => read_package_inputs(&session, dir)?,
            None => random_inputs(session.manifest(), &req.dims)?,
        };
        session.check_inputs(&xs)?;
        session.run(xs.clone())?;
        Ok((session, xs))
    });
    let (session, xs) = session?;
    let threads = req.threads.max(1);
    let runs = req.runs.max(1);
    let mut times: Vec<f64> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..threads)
            .map(|_| {
                let (session, xs) = (Arc::clone(&session), xs.clone());
                s.spawn(move || -> Result<Vec<f64>> {
                    (0..runs)
                        .map(|_| {
                            let t = Instant::now();
                            session.run(xs.clone())?;
                            Ok(t.elapsed().as_secs_f64())
                        })
                        .collect()
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().map_err(|_| anyhow!("a bench thread panicked"))?)
            .collect::<Result<Vec<Vec<f64>>>>()
    })?
    .into_iter()
    .flatten()
    .collect();
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    let r = PackageBench {
        load_s,
        median_s: at(0.5),
        p90_s: at(0.9),
        min_s: at(0.0),
        runs: times.len(),
        peak_bytes: peaks.larger(),
        peaks,
    };
    let ms = |s: f64| s * 1e3;
    let text = if req.json {
        format!(
            "{{\"package\": {}, \"load_ms\": {:.3}, \"run_ms_median\": {:.3}, \"run_ms_p90\": {:.3}, \"run_ms_min\": {:.3}, \"runs\": {}, \"threads\": {threads}, \"peak_bytes\": {}, \"peak_heap_bytes\": {}, \"peak_resident_bytes\": {}}}\n",
            serde_json::to_string(&req.package.display().to_string())?,
            ms(r.load_s),
            ms(r.median_s),
            ms(r.p90_s),
            ms(r.min_s),
            r.runs,
            json_bytes(r.peak_bytes),
            json_bytes(r.peaks.heap),
            json_bytes(r.peaks.resident),
        )
    } else {
        format!(
            "package:        {}\nload:           {:.3} ms\nrun (median):   {:.3} ms\nrun (p90):      {:.3} ms over {} runs on {threads} thread(s)\npeak memory:    {} (load and one run)\n",
            req.package.display(),
            ms(r.load_s),
            ms(r.median_s),
            ms(r.p90_s),
            r.runs,
            r.peak_bytes.map_or_else(
                || "not measured (no counting allocator, no resident set)".to_string(),
                |b| {
                    let part = |v: Option<usize>| {
                        v.map_or_else(|| "not measured".to_string(), |v| format!("{v} bytes"))
                    };
                    format!(
                        "{b} bytes ({:.1} MiB; allocator {}, resident set {})",
                        b as f64 / (1u64 << 20) as f64,
                        part(r.peaks.heap),
                        part(r.peaks.resident)
                    )
                }
            )
        )
    };
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(r)
}
