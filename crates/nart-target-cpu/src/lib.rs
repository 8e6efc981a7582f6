//! The code-level `cpu` target: nart generates the code.
//!
//! A segment (graph ops of static shapes) is compiled in a context of its own through nart's
//! dialect stack, every step a pass of the pipeline [`PIPELINE`]:
//! `convert-qnn-to-linalg` (quant casts and qnn ops to generics on storage integers, bit-exact
//! with the interpreter), `convert-nms-to-loops` (NonMaxSuppression as loops on buffers, its
//! result of run-time length bounded, with its length as a further output that the runtime
//! truncates by), `convert-graph-to-linalg` (structured ops on tensors), `nart-bufferize{arena=true}`
//! (buffers, results as out-parameters, intermediates in one planned scratch buffer),
//! `linalg-vectorize` (matmuls as register-blocked micro-kernels and elementwise ops as
//! loops over 1-D `vector` ops, as wide as the machine's registers; `NART_CPU_VECTORIZE=0`
//! leaves it out), `convert-linalg-to-loops{parallel=true}` (`scf` loop nests of `memref`
//! loads and stores for the rest, the leading parallel loops of each op one `scf.parallel`),
//! `convert-scf-to-cf{keep-parallel=true}` (which leaves those `scf.parallel`s for the
//! translation to run on threads) and `canonicalize`; `nart-llvm` then translates the module
//! to LLVM IR,
//! adds the entry of `nart-cpu-rt`'s calling convention, optimizes it (`default<O2>`) for the
//! machine, emits an object and links it into a shared object with the system's C compiler.
//! The artifact is that shared object behind a header (`nart_cpu_rt::Header`).
//!
//! The machine is the host (its CPU and features, detected when the target is created) or,
//! with [`CpuTarget::cross_aarch64`], a generic ARMv8-A Linux device with NEON, linked with
//! `aarch64-linux-gnu-gcc`.

#![deny(missing_docs)]

mod entry;
#[cfg(feature = "testing")]
pub mod testing;

use std::path::PathBuf;

use nart_ir::{Context, Diagnostic, Op, TypeData};
use nart_target::{Level, Refusal, Support, Target, Throughput};
use nart_target_rt::{Artifact, TargetRuntime};

pub use nart_cpu_rt::{CpuRuntime, ABI_VERSION, FORMAT, TARGET as NAME};

/// The lowering pipeline from graph ops to loops in `cf` form, vectorized for 8 lanes (AVX2);
/// [`pipeline`] gives it for another vector width.
pub const PIPELINE: &str =
    "builtin.module(convert-qnn-to-linalg,func.func(convert-nms-to-loops,convert-graph-to-linalg),\
nart-bufferize{arena=true},func.func(linalg-vectorize{vector-width=8 rows=4 cols=2 parallel=true},\
convert-linalg-to-loops{parallel=true}),convert-scf-to-cf{keep-parallel=true},canonicalize)";

/// The lowering pipeline for vectors of `vector_width` lanes (`None`: scalar loops only, what
/// `NART_CPU_VECTORIZE=0` selects for debugging).
pub fn pipeline(vector_width: Option<u32>) -> String {
    let vectorize = match vector_width {
        Some(w) => format!("linalg-vectorize{{vector-width={w} rows=4 cols=2 parallel=true}},"),
        None => String::new(),
    };
    format!(
        "builtin.module(convert-qnn-to-linalg,func.func(convert-nms-to-loops,convert-graph-to-linalg),\
nart-bufferize{{arena=true}},\
func.func({vectorize}convert-linalg-to-loops{{parallel=true}}),\
convert-scf-to-cf{{keep-parallel=true}},canonicalize)"
    )
}

/// The number of 32-bit lanes of the machine's vector registers: 16 with AVX-512, 8 with AVX
/// or AVX2, 4 with SSE or NEON (and anything else).
pub fn vector_width(features: &str) -> u32 {
    let has = |f: &str| features.split(',').any(|x| x == format!("+{f}"));
    if has("avx512f") {
        16
    } else if has("avx2") || has("avx") {
        8
    } else {
        4
    }
}

/// The name of the segment's function in the generated code.
const FUNC: &str = "main";
/// The entry symbol of the calling convention.
const ENTRY: &str = "nart_entry";

/// Which machine the code is for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Machine {
    /// This machine: its CPU and every feature it has.
    Host,
    /// `aarch64-unknown-linux-gnu`, generic ARMv8-A with NEON (and the dot-product extension
    /// when set).
    Aarch64 {
        /// Use the dot-product extension.
        dotprod: bool,
    },
}

/// The `cpu` target.
#[derive(Debug)]
pub struct CpuTarget {
    machine: Machine,
    /// Why the target cannot compile here (no C compiler to link with), if it cannot.
    unavailable: Option<String>,
    /// Also write each compiled segment in this form to `PREFIX.N.EXT` (`nart compile --emit`).
    emit: Option<(Emit, PathBuf)>,
    /// Segments compiled so far, which numbers the emitted files.
    compiled: std::sync::atomic::AtomicUsize,
}

/// Registers the `cpu` target for this machine.
pub fn register(registry: &mut nart_target::TargetRegistry) {
    registry.register(Box::new(CpuTarget::host()));
}

impl Default for CpuTarget {
    fn default() -> Self {
        CpuTarget::host()
    }
}

fn linker(machine: &Machine) -> String {
    match machine {
        Machine::Host => std::env::var("CC").unwrap_or_else(|_| "cc".into()),
        Machine::Aarch64 { .. } => "aarch64-linux-gnu-gcc".into(),
    }
}

fn check_linker(cc: &str) -> Option<String> {
    match std::process::Command::new(cc).arg("--version").output() {
        Ok(o) if o.status.success() => None,
        _ => Some(format!(
            "no C compiler '{cc}' to link the generated code with"
        )),
    }
}

impl CpuTarget {
    /// Code for this machine.
    pub fn host() -> CpuTarget {
        CpuTarget::for_machine(Machine::Host)
    }

    /// Code for an aarch64 Linux device.
    pub fn cross_aarch64(dotprod: bool) -> CpuTarget {
        CpuTarget::for_machine(Machine::Aarch64 { dotprod })
    }

    /// Code for `machine`.
    pub fn for_machine(machine: Machine) -> CpuTarget {
        let unavailable = check_linker(&linker(&machine));
        CpuTarget {
            machine,
            unavailable,
            emit: None,
            compiled: Default::default(),
        }
    }

    /// Also writes every segment it compiles as `kind` to `PREFIX.N.ll` (LLVM IR), `.s`
    /// (assembly) or `.o` (object), N counting segments from 0.
    pub fn with_emit(mut self, kind: Emit, prefix: PathBuf) -> CpuTarget {
        self.emit = Some((kind, prefix));
        self
    }

    /// The machine the code is for.
    pub fn machine(&self) -> &Machine {
        &self.machine
    }

    fn llvm_machine(&self) -> Result<nart_llvm::Machine, nart_llvm::Error> {
        match self.machine {
            Machine::Host => nart_llvm::Machine::host(),
            Machine::Aarch64 { dotprod } => nart_llvm::Machine::aarch64_linux(dotprod),
        }
    }

    /// Compiles the graph function `func` (static shapes) of `ctx` into an artifact, through
    /// a context of its own; `what` names it in errors.
    pub fn compile_function_text(
        &self,
        text: &str,
        what: &str,
    ) -> Result<(Artifact, Lowered), String> {
        let machine = self.llvm_machine().map_err(|e| e.to_string())?;
        let width = match std::env::var("NART_CPU_VECTORIZE").as_deref() {
            Ok("0") => None,
            _ => Some(vector_width(machine.features())),
        };
        let lowered = lower_to_loops_with(text, what, &pipeline(width))?;
        let so = self.codegen(&lowered)?;
        let header = nart_cpu_rt::Header {
            triple: machine.triple().to_string(),
            cpu: machine.cpu().to_string(),
            required_features: required_features(machine.features()),
            entry: ENTRY.to_string(),
            inputs: lowered.inputs.clone(),
            outputs: lowered.outputs.clone(),
            scratch_bytes: lowered.scratch_bytes,
            truncated: lowered.truncated.clone(),
        };
        let bytes = nart_cpu_rt::encode(&header, &so);
        Ok((Artifact::new(NAME, FORMAT, ABI_VERSION, bytes), lowered))
    }

    /// LLVM IR text, assembly or an object of the lowered module (what `nart compile --emit`
    /// writes), with the entry added.
    pub fn emit(&self, lowered: &Lowered, kind: Emit) -> Result<Vec<u8>, String> {
        let ll = nart_llvm::inkwell::context::Context::create();
        let module = self.llvm_module(&ll, lowered)?;
        let machine = self.llvm_machine().map_err(|e| e.to_string())?;
        match kind {
            Emit::Llvm => Ok(module.print_to_string().to_string().into_bytes()),
            Emit::Asm | Emit::Obj => machine
                .emit(&module, kind == Emit::Obj)
                .map_err(|e| e.to_string()),
        }
    }

    fn llvm_module<'ll>(
        &self,
        ll: &'ll nart_llvm::inkwell::context::Context,
        lowered: &Lowered,
    ) -> Result<nart_llvm::inkwell::module::Module<'ll>, String> {
        let mut ctx = lowering_context();
        let module = nart_ir::parser::parse_source(&mut ctx, "lowered.mlir", &lowered.loops)
            .map_err(|d| render(&d))?;
        let llmod =
            nart_llvm::translate_module(&ctx, module, ll, "nart_cpu").map_err(|d| render(&d))?;
        entry::add_entry(ll, &llmod, FUNC, ENTRY, lowered)?;
        let machine = self.llvm_machine().map_err(|e| e.to_string())?;
        machine
            .optimize(&llmod, "default<O2>")
            .map_err(|e| e.to_string())?;
        Ok(llmod)
    }

    fn codegen(&self, lowered: &Lowered) -> Result<Vec<u8>, String> {
        let object = self.emit(lowered, Emit::Obj)?;
        let dir = scratch_dir()?;
        let (obj, so) = (dir.join("code.o"), dir.join("code.so"));
        let result = (|| {
            std::fs::write(&obj, &object).map_err(|e| format!("writing {}: {e}", obj.display()))?;
            nart_llvm::link_shared(&linker(&self.machine), &[obj.as_path()], &so)
                .map_err(|e| e.to_string())?;
            std::fs::read(&so).map_err(|e| format!("reading {}: {e}", so.display()))
        })();
        let _ = std::fs::remove_dir_all(&dir);
        result
    }
}

/// What `nart compile --emit` writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Emit {
    /// LLVM IR text.
    Llvm,
    /// Assembly.
    Asm,
    /// An object file.
    Obj,
}

/// A segment lowered to loops: the module's text and its signature.
#[derive(Clone, Debug)]
pub struct Lowered {
    /// The module after [`PIPELINE`], as MLIR text.
    pub loops: String,
    /// The inputs' types.
    pub inputs: Vec<nart_cpu_rt::TensorSig>,
    /// The outputs' types.
    pub outputs: Vec<nart_cpu_rt::TensorSig>,
    /// Bytes of the scratch buffer.
    pub scratch_bytes: u64,
    /// The outputs of run-time length (bounded in [`Lowered::outputs`]) and the outputs that
    /// hold their lengths, appended after the function's own.
    pub truncated: Vec<nart_cpu_rt::Truncated>,
}

fn scratch_dir() -> Result<PathBuf, String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    let dir = std::env::temp_dir().join(format!(
        "nart-cpu-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("creating {}: {e}", dir.display()))?;
    Ok(dir)
}

/// The messages of `d` (and their notes), one per line: the caller locates the whole at the
/// segment.
fn render(d: &[Diagnostic]) -> String {
    d.iter()
        .flat_map(|d| std::iter::once(&d.message).chain(d.notes.iter().map(|n| &n.message)))
        .cloned()
        .collect::<Vec<_>>()
        .join("; ")
}

/// A context with every dialect the pipeline meets.
pub fn lowering_context() -> Context {
    let mut ctx = Context::new();
    for r in [
        nart_dialect_func::register,
        nart_dialect_arith::register,
        nart_dialect_cf::register,
        nart_dialect_graph::register,
        nart_dialect_quant::register,
        nart_dialect_qnn::register,
        nart_dialect_math::register,
        nart_dialect_tensor::register,
        nart_dialect_linalg::register,
        nart_dialect_memref::register,
        nart_dialect_scf::register,
        nart_dialect_vector::register,
        nart_dialect_bufferization::register,
    ] {
        r(&mut ctx);
    }
    ctx
}

/// Parses `text` (a module or a function of graph ops) and runs [`PIPELINE`] on it.
pub fn lower_to_loops(text: &str, what: &str) -> Result<Lowered, String> {
    lower_to_loops_with(text, what, PIPELINE)
}

/// Parses `text` (a module or a function of graph ops) and runs `pipeline` (one of
/// [`pipeline`]'s) on it.
pub fn lower_to_loops_with(text: &str, what: &str, pipeline: &str) -> Result<Lowered, String> {
    let mut ctx = lowering_context();
    let module = nart_ir::parser::parse_source(&mut ctx, what, text).map_err(|d| render(&d))?;
    let mut registry = nart_pass::PassRegistry::new();
    nart_linalg_lowering::register(&mut registry);
    nart_bufferize::register(&mut registry);
    nart_conversion::register(&mut registry);
    nart_transforms::register(&mut registry);
    let mut pm = nart_pass::PassManager::parse(pipeline, &registry).map_err(|e| e.render())?;
    let func = ctx
        .collect_ops(module, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "func.func")
        .ok_or_else(|| format!("{what}: no function to compile"))?;
    let (inputs, outputs) = signature(&ctx, func)?;
    let mut sink = Vec::new();
    pm.run(&mut ctx, module, &mut sink).map_err(|e| match e {
        nart_pass::PassManagerError::PassFailed { diagnostics, .. }
        | nart_pass::PassManagerError::VerifyFailed { diagnostics, .. } => render(&diagnostics),
        other => other.to_string(),
    })?;
    let scratch_bytes = scratch_size(&ctx, func)?;
    let (outputs, truncated) = bounded_outputs(&ctx, func, inputs.len(), outputs)?;
    let loops = nart_ir::printer::print_op(&ctx, module, &Default::default());
    Ok(Lowered {
        loops,
        inputs,
        outputs,
        scratch_bytes,
        truncated,
    })
}

/// The inputs, and the outputs with `None` for an output whose leading dimension is decided
/// at run time (a NonMaxSuppression result, which the lowering bounds).
type Signature = (
    Vec<nart_cpu_rt::TensorSig>,
    Vec<Option<nart_cpu_rt::TensorSig>>,
);

/// The outputs after lowering: a result of run-time leading dimension (`None` before) takes
/// the bounded type of its out-parameter, and the length outputs that `convert-nms-to-loops`
/// appended, one per such result in order, follow the function's own.
fn bounded_outputs(
    ctx: &Context,
    func: Op,
    n_in: usize,
    outputs: Vec<Option<nart_cpu_rt::TensorSig>>,
) -> Result<(Vec<nart_cpu_rt::TensorSig>, Vec<nart_cpu_rt::Truncated>), String> {
    let dynamic: Vec<usize> = (0..outputs.len())
        .filter(|&i| outputs[i].is_none())
        .collect();
    let n_out = outputs.len();
    let t = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_type(a))
        .ok_or("the function has no type")?;
    let TypeData::Function { inputs: args, .. } = ctx.type_data(t) else {
        return Err("the function has no type".into());
    };
    // Inputs, outputs, the length outputs, then the scratch buffer.
    if args.len() != n_in + n_out + dynamic.len() + 1 {
        return Err(format!(
            "the lowered function takes {} arguments, not the {} inputs, {} outputs, {} lengths \
             and the scratch buffer",
            args.len(),
            n_in,
            n_out,
            dynamic.len()
        ));
    }
    let buffer_sig = |k: usize| -> Result<nart_cpu_rt::TensorSig, String> {
        match ctx.type_data(args[n_in + k]) {
            TypeData::MemRef { shape, elem, .. } if shape.iter().all(|&d| d >= 0) => {
                Ok(nart_cpu_rt::TensorSig {
                    dtype: nart_ir::printer::type_to_string(ctx, *elem),
                    shape: shape.iter().map(|&d| d as u64).collect(),
                })
            }
            _ => Err(format!(
                "output {k} of run-time size has no bounded buffer after lowering"
            )),
        }
    };
    let mut sigs = Vec::with_capacity(n_out + dynamic.len());
    for (k, o) in outputs.into_iter().enumerate() {
        sigs.push(match o {
            Some(s) => s,
            None => buffer_sig(k)?,
        });
    }
    let mut truncated = Vec::new();
    for (j, &k) in dynamic.iter().enumerate() {
        sigs.push(buffer_sig(n_out + j)?);
        truncated.push(nart_cpu_rt::Truncated {
            output: k,
            length: n_out + j,
        });
    }
    Ok((sigs, truncated))
}

fn tensor_sig(ctx: &Context, t: nart_ir::Type) -> Result<nart_cpu_rt::TensorSig, String> {
    match ctx.type_data(t) {
        TypeData::RankedTensor { shape, elem, .. } if shape.iter().all(|&d| d >= 0) => {
            // A quantized tensor crosses the boundary as its storage integers, which the
            // runtime holds as the interpreter does (`u8` storage as `ui8`).
            let dtype = match ctx.type_as::<nart_dialect_quant::UniformQuantizedType>(*elem) {
                Some(q) => format!("{}{}", if q.signed { "i" } else { "ui" }, q.storage_width),
                None => nart_ir::printer::type_to_string(ctx, *elem),
            };
            Ok(nart_cpu_rt::TensorSig {
                dtype,
                shape: shape.iter().map(|&d| d as u64).collect(),
            })
        }
        _ => Err(format!(
            "the cpu target compiles tensors of static shape only, not {}",
            nart_ir::printer::type_to_string(ctx, t)
        )),
    }
}

fn signature(ctx: &Context, func: Op) -> Result<Signature, String> {
    let t = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_type(a))
        .ok_or("the function has no type")?;
    let TypeData::Function { inputs, results } = ctx.type_data(t) else {
        return Err("the function has no type".into());
    };
    let ins = inputs
        .iter()
        .map(|&t| tensor_sig(ctx, t))
        .collect::<Result<_, _>>()?;
    // The results `convert-nms-to-loops` bounds: every returned NonMaxSuppression result,
    // whatever its declared type (an ONNX file may declare the rows it expects).
    let returned: Vec<Option<Op>> = ctx
        .collect_ops(func, nart_ir::WalkOrder::PreOrder)
        .into_iter()
        .find(|&op| ctx.op_name_str(op) == "func.return" && ctx.op_parent_op(op) == Some(func))
        .map(|ret| {
            ctx.operands(ret)
                .iter()
                .map(|&v| ctx.defining_op(v))
                .collect()
        })
        .unwrap_or_default();
    let outs = results
        .iter()
        .enumerate()
        .map(|(k, &t)| {
            let bounded = returned
                .get(k)
                .copied()
                .flatten()
                .is_some_and(|d| ctx.op_name_str(d) == nart_linalg_lowering::nms::OP);
            if bounded {
                Ok(None)
            } else {
                tensor_sig(ctx, t).map(Some)
            }
        })
        .collect::<Result<_, _>>()?;
    Ok((ins, outs))
}

/// The size of the scratch argument `nart-bufferize{arena=true}` added last.
fn scratch_size(ctx: &Context, func: Op) -> Result<u64, String> {
    let t = ctx
        .attr(func, "function_type")
        .and_then(|a| ctx.attr_type(a))
        .ok_or("the function has no type")?;
    match ctx.type_data(t) {
        TypeData::Function { inputs, .. } => match inputs.last().map(|&t| ctx.type_data(t)) {
            Some(TypeData::MemRef { shape, .. }) if shape.len() == 1 && shape[0] >= 0 => {
                Ok(shape[0] as u64)
            }
            _ => Err("the lowered function has no scratch argument".into()),
        },
        _ => Err("the function has no type".into()),
    }
}

/// The CPU features of an LLVM feature string (`+avx2,+fma,-avx512f`) that `nart-cpu-rt`
/// checks before it runs the code, in Rust's spelling.
pub fn required_features(llvm: &str) -> Vec<String> {
    const CHECKED: &[(&str, &str)] = &[
        ("sse4.2", "sse4.2"),
        ("avx", "avx"),
        ("avx2", "avx2"),
        ("fma", "fma"),
        ("f16c", "f16c"),
        ("avx512f", "avx512f"),
        ("avx512bw", "avx512bw"),
        ("avx512dq", "avx512dq"),
        ("avx512vl", "avx512vl"),
        ("avx512vnni", "avx512vnni"),
        ("avx512bf16", "avx512bf16"),
        ("avxvnni", "avxvnni"),
        ("neon", "neon"),
        ("dotprod", "dotprod"),
    ];
    let mut out: Vec<String> = llvm
        .split(',')
        .filter_map(|f| f.strip_prefix('+'))
        .filter_map(|f| {
            CHECKED
                .iter()
                .find(|(l, _)| *l == f)
                .map(|(_, r)| r.to_string())
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// `op` alone in a function (constant operands as constants, large ones as splats of the same
/// type, since a lowering reads only small constants' values), through
/// `convert-graph-to-linalg` in a scratch context: `Err` with the lowering's reasons when it
/// cannot lower this op with these attributes and shapes.
fn trial_lowering(ctx: &Context, op: Op) -> Result<(), String> {
    use nart_ir::printer::{attr_to_string, type_to_string};
    use std::fmt::Write;
    let mut args = Vec::new();
    let mut body = String::new();
    let mut names = Vec::new();
    for (i, &v) in ctx.operands(op).iter().enumerate() {
        let t = ctx.value_type(v);
        let ts = type_to_string(ctx, t);
        let def = ctx.defining_op(v);
        let constant = def.filter(|&d| ctx.op_name_str(d) == "graph.constant");
        if let Some(d) = constant {
            let value = ctx.attr(d, "value").ok_or("a constant without a value")?;
            let small = match ctx.type_data(t) {
                TypeData::RankedTensor { shape, .. } => shape.iter().product::<i64>() <= 64,
                _ => false,
            };
            let text = if small {
                attr_to_string(ctx, value)
            } else if matches!(ctx.type_data(ctx.element_type(t)), TypeData::Integer { .. }) {
                format!("dense<0> : {ts}")
            } else {
                format!("dense<0.0> : {ts}")
            };
            let _ = writeln!(
                body,
                "  %c{i} = \"graph.constant\"() <{{value = {text}}}> : () -> {ts}"
            );
            names.push(format!("%c{i}"));
        } else if matches!(ctx.type_data(t), TypeData::None) {
            let _ = writeln!(body, "  %c{i} = \"graph.none\"() : () -> none");
            names.push(format!("%c{i}"));
        } else {
            args.push(format!("%a{i}: {ts}"));
            names.push(format!("%a{i}"));
        }
    }
    let results: Vec<String> = ctx
        .results(op)
        .iter()
        .map(|&r| type_to_string(ctx, ctx.value_type(r)))
        .collect();
    let operand_types: Vec<String> = ctx
        .operands(op)
        .iter()
        .map(|&v| type_to_string(ctx, ctx.value_type(v)))
        .collect();
    let props: Vec<String> = ctx
        .props(op)
        .iter()
        .map(|p| format!("{} = {}", ctx.str(p.name), attr_to_string(ctx, p.value)))
        .collect();
    let n = results.len();
    let lhs = if n == 0 {
        String::new()
    } else {
        format!("%r:{n} = ")
    };
    let _ = writeln!(
        body,
        "  {lhs}\"{}\"({}) <{{{}}}> : ({}) -> ({})",
        ctx.op_name_str(op),
        names.join(", "),
        props.join(", "),
        operand_types.join(", "),
        results.join(", ")
    );
    // The results the model uses are returned, so that a lowering sees which optional results
    // (LayerNormalization's Mean, MaxPool's Indices) it must produce.
    let used: Vec<usize> = (0..n)
        .filter(|&k| ctx.has_uses(ctx.results(op)[k]))
        .collect();
    let ret_names: Vec<String> = used.iter().map(|k| format!("%r#{k}")).collect();
    let ret_types: Vec<String> = used.iter().map(|&k| results[k].clone()).collect();
    let (sig, ret) = if used.is_empty() {
        (String::new(), "return".to_string())
    } else {
        (
            format!(" -> ({})", ret_types.join(", ")),
            format!("return {} : {}", ret_names.join(", "), ret_types.join(", ")),
        )
    };
    let text = format!(
        "func.func @trial({}){sig} {{\n{body}  {ret}\n}}\n",
        args.join(", ")
    );
    let mut scratch = lowering_context();
    let module = nart_ir::parser::parse_source(&mut scratch, "trial.mlir", &text)
        .map_err(|d| format!("cannot restate the op for a trial: {}", render(&d)))?;
    let mut registry = nart_pass::PassRegistry::new();
    nart_linalg_lowering::register(&mut registry);
    let mut pm = nart_pass::PassManager::parse(
        "builtin.module(convert-qnn-to-linalg,func.func(convert-graph-to-linalg))",
        &registry,
    )
    .map_err(|e| e.render())?;
    pm.run(&mut scratch, module, &mut Vec::new())
        .map_err(|e| match e {
            nart_pass::PassManagerError::PassFailed { diagnostics, .. }
            | nart_pass::PassManagerError::VerifyFailed { diagnostics, .. } => {
                let mut m = render(&diagnostics);
                m.truncate(300);
                m
            }
            other => other.to_string(),
        })
}

/// Tensors of static shape of `f16`, `bf16`, `f32`, `f64`, `i32`, `i64`, `i1` or a uniform
/// quantized type (the element types the lowerings and the calling convention handle; `f16`
/// and `bf16` ops compute in `f32`, see `nart_linalg_lowering::floats`).
fn elem_ok(ctx: &Context, t: nart_ir::Type) -> bool {
    use nart_ir::FloatKind as F;
    match ctx.type_data(t) {
        TypeData::RankedTensor { shape, elem, .. } => {
            shape.iter().all(|&d| d >= 0)
                && (match ctx.type_data(*elem) {
                    TypeData::Float(k) => matches!(k, F::F16 | F::BF16 | F::F32 | F::F64),
                    // Unsigned integers lower as signless ones with the unsigned ops.
                    TypeData::Integer { width, signedness } => match signedness {
                        nart_ir::Signedness::Signless => matches!(width, 1 | 8 | 16 | 32 | 64),
                        nart_ir::Signedness::Unsigned => matches!(width, 8 | 16 | 32 | 64),
                        nart_ir::Signedness::Signed => false,
                    },
                    _ => false,
                } || ctx
                    .type_as::<nart_dialect_quant::UniformQuantizedType>(*elem)
                    .is_some())
        }
        TypeData::None => true,
        _ => false,
    }
}

/// Why a tensor of a float format narrower than 16 bits (float8, float6, float4) is refused:
/// these are storage formats, which a model converts to a wider type before computing.
fn storage_float(ctx: &Context, t: nart_ir::Type) -> Option<String> {
    let elem = ctx.element_type(t);
    match ctx.type_data(elem) {
        TypeData::Float(k) if k.width() < 16 => Some(format!(
            "{} is a storage format; the cpu target computes in f16, bf16, f32 and f64",
            nart_ir::printer::type_to_string(ctx, elem)
        )),
        _ => None,
    }
}

impl Target for CpuTarget {
    fn name(&self) -> &str {
        NAME
    }

    fn level(&self) -> Level {
        Level::Code
    }

    fn description(&self) -> &str {
        match self.machine {
            Machine::Host => {
                "code generated by nart through linalg, loops and LLVM for this machine's CPU \
                 (f32, f64, i32, i64, bool, and f16/bf16 computed in f32 and rounded per op: \
                 elementwise, matmul/gemm, conv, pooling (1-3-D, max indices), softmax, \
                 reductions, normalizations, gather, slices, shape ops, casts; i8, i16 and \
                 unsigned integers for the integer ops; int8: the quant casts and qnn ops and \
                 ONNX's QuantizeLinear, DequantizeLinear, DynamicQuantizeLinear, MatMulInteger, \
                 ConvInteger, QLinearMatMul and QLinearConv, bit-exact with the interpreter)"
            }
            Machine::Aarch64 { .. } => {
                "code generated by nart through linalg, loops and LLVM for aarch64 Linux \
                 (generic ARMv8-A with NEON; f32, f64, f16/bf16 in f32, i32, i64, bool, narrow \
                 and unsigned integers, and int8 quant/qnn and ONNX quantization ops)"
            }
        }
    }

    fn availability(&self) -> Result<(), String> {
        match &self.unavailable {
            Some(r) => Err(r.clone()),
            None => Ok(()),
        }
    }

    fn supports(&self, ctx: &Context, op: Op) -> Support {
        if let Some(r) = &self.unavailable {
            return Support::Refused(Refusal::Other(r.clone()));
        }
        let name = ctx.op_name_str(op);
        // Constants and `graph.none` are materialized in the segment, not run.
        if name == "graph.constant" || name == "graph.none" {
            return Support::Supported;
        }
        // NonMaxSuppression lowers to loops with a bounded result (convert-nms-to-loops);
        // its result of run-time length can only leave the segment.
        if name == nart_linalg_lowering::nms::OP {
            return match nart_linalg_lowering::nms::bound(ctx, op) {
                Ok(_) => Support::Supported,
                Err(reason) => Support::Refused(Refusal::Other(reason)),
            };
        }
        if !nart_linalg_lowering::graph_to_linalg::LOWERED_OPS.contains(&name)
            && !nart_linalg_lowering::qnn_to_linalg::LOWERED_OPS.contains(&name)
        {
            return Support::Refused(Refusal::UnknownOp);
        }
        for (what, vals) in [("operand", ctx.operands(op)), ("result", ctx.results(op))] {
            for (i, &v) in vals.iter().enumerate() {
                // A result nothing reads (MaxPool's indices) is not computed.
                if what == "result" && !ctx.has_uses(v) {
                    continue;
                }
                // Constant operands (shapes, bounds, weights) are read by the lowering, which
                // the trial below asks.
                if what == "operand"
                    && ctx
                        .defining_op(v)
                        .is_some_and(|d| ctx.op_name_str(d) == "graph.constant")
                {
                    continue;
                }
                let t = ctx.value_type(v);
                if !elem_ok(ctx, t) {
                    let text = nart_ir::printer::type_to_string(ctx, t);
                    if let Some(reason) = storage_float(ctx, t) {
                        return Support::Refused(Refusal::Other(format!(
                            "{what} #{i}: {text}: {reason}"
                        )));
                    }
                    let dynamic = matches!(ctx.type_data(t), TypeData::RankedTensor { shape, .. } if shape.iter().any(|&d| d < 0));
                    return Support::Refused(if dynamic {
                        Refusal::Shape {
                            value: format!("{what} #{i}"),
                            shape: format!("{text} (compile with --dim to fix the size)"),
                        }
                    } else {
                        Refusal::DType {
                            value: format!("{what} #{i}"),
                            dtype: text,
                        }
                    });
                }
            }
        }
        match trial_lowering(ctx, op) {
            Ok(()) => Support::Supported,
            Err(reason) => Support::Refused(Refusal::Other(reason)),
        }
    }

    fn throughput(&self) -> Throughput {
        // Scalar loop nests compiled by LLVM at -O2: far from a tuned library, but with no
        // per-op call overhead.
        Throughput {
            flops_per_s: 2.0e9,
            bytes_per_s: 8.0e9,
            op_overhead_s: 1.0e-7,
            ..Throughput::default()
        }
    }

    fn compile(&self, ctx: &mut Context, segment: Op) -> Result<Artifact, Diagnostic> {
        if let Some(r) = &self.unavailable {
            return Err(ctx.op_error(segment, format!("cpu: {r}")));
        }
        let text = nart_target::interp::segment_as_function(ctx, segment, FUNC)?;
        let (artifact, lowered) = self
            .compile_function_text(&text, "segment")
            .map_err(|m| ctx.op_error(segment, format!("cpu: {m}")))?;
        if let Some((kind, prefix)) = &self.emit {
            let n = self
                .compiled
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let ext = match kind {
                Emit::Llvm => "ll",
                Emit::Asm => "s",
                Emit::Obj => "o",
            };
            let mut name = prefix.clone().into_os_string();
            name.push(format!(".{n}.{ext}"));
            let path = PathBuf::from(name);
            let bytes = self
                .emit(&lowered, *kind)
                .map_err(|m| ctx.op_error(segment, format!("cpu: {m}")))?;
            std::fs::write(&path, bytes).map_err(|e| {
                ctx.op_error(segment, format!("cpu: writing {}: {e}", path.display()))
            })?;
        }
        Ok(artifact)
    }

    fn runtime(&self) -> Box<dyn TargetRuntime> {
        Box::new(CpuRuntime::new())
    }
}

#[cfg(test)]
mod tests;
