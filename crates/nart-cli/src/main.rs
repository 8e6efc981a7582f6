//! `nart`: the command-line driver.
//!
//! `nart run` runs an ONNX model in the reference interpreter on ONNX test data (`input_N.pb` or
//! `input_N.npy`) and writes `output_N.pb`; `nart bench` times import, planning and runs.
//! `nart quantize` calibrates and quantizes a model into QDQ-form IR (`--list-schemes` lists
//! the schemes; `--eval` adds the accuracy guard). `nart targets` lists the targets and `nart partition` shows where each op of
//! a model runs. `nart compile` writes a package (partitioned, compiled segments), `nart
//! inspect` shows one, and `nart run --package` / `nart bench --package` run one with nart-rt.
//!
//! Runs are bounded: `--max-memory` (default half of the machine's memory) and
//! `--max-loop-iterations`; the process counts its allocations so that the interpreter knows
//! the memory in use. Every failure, bad flags included, exits with code 1 and a message, never a
//! panic; paths may be any bytes.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use nart_cli::memory::{self, DEFAULT_MAX_ITERATIONS};

#[global_allocator]
static ALLOC: memory::Counting = memory::Counting;

#[derive(Parser)]
#[command(
    name = "nart",
    version,
    about = "nart is not a runtime: import, optimize, quantize and deploy ONNX models"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The bounds of a run.
#[derive(Args)]
struct LimitArgs {
    /// The most memory a run may allocate beyond the loaded model and its inputs: bytes, a size
    /// such as 512M or 4G, or a percentage of the machine's memory such as 75% [default: 50%].
    #[arg(long, value_name = "SIZE", value_parser = memory::parse_size)]
    max_memory: Option<usize>,
    /// The most iterations of loop bodies (Loop, Scan, SequenceMap) a run may execute.
    #[arg(long, value_name = "N", default_value_t = DEFAULT_MAX_ITERATIONS)]
    max_loop_iterations: u64,
}

impl LimitArgs {
    fn limits(&self) -> nart_interp::Limits {
        nart_cli::commands::cli_limits(
            self.max_memory.unwrap_or_else(memory::default_max_memory),
            self.max_loop_iterations,
        )
    }
}

#[derive(Subcommand)]
enum Command {
    /// Run a model in the reference interpreter, or a compiled package (--package).
    Run {
        /// The ONNX model.
        #[arg(long, required_unless_present = "package", conflicts_with = "package")]
        model: Option<PathBuf>,
        /// A package written by `nart compile`, run with nart-rt.
        #[arg(long, conflicts_with_all = ["dataset", "func"])]
        package: Option<PathBuf>,
        /// A folder of input_0.pb, input_1.pb, ... (or .npy).
        #[arg(long, conflicts_with = "dataset", required_unless_present = "dataset")]
        inputs: Option<PathBuf>,
        /// A folder of sample folders (test_data_set_0, ...); each gets its own output folder.
        #[arg(long)]
        dataset: Option<PathBuf>,
        /// Where output_0.pb, ... are written.
        #[arg(long)]
        outputs: PathBuf,
        /// The function to run (default: main_graph).
        #[arg(long)]
        func: Option<String>,
        /// With --package: threads the cpu target's parallel loops run on (1: the calling
        /// thread only, no pool).
        #[arg(long, default_value_t = 1, requires = "package", value_parser = clap::value_parser!(u64).range(1..=256))]
        cpu_threads: u64,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// Time import, planning and interpreter runs of a model, or load and runs of a package.
    Bench {
        /// The ONNX model.
        #[arg(long, required_unless_present = "package", conflicts_with = "package")]
        model: Option<PathBuf>,
        /// A package written by `nart compile`: prints load time, median and p90 latency.
        #[arg(long)]
        package: Option<PathBuf>,
        /// With --package: threads running the package at once, each doing --runs runs.
        #[arg(long, default_value_t = 1, requires = "package", value_parser = clap::value_parser!(u64).range(1..=256))]
        threads: u64,
        /// With --package: threads the cpu target's parallel loops run on, in each run (1: the
        /// calling thread only, no pool).
        #[arg(long, default_value_t = 1, requires = "package", value_parser = clap::value_parser!(u64).range(1..=256))]
        cpu_threads: u64,
        /// With --package and no --inputs: the size of a symbolic dimension (N=1; repeatable).
        #[arg(long = "dim", requires = "package")]
        dims: Vec<String>,
        /// A folder of inputs; without it, deterministic inputs of the declared shapes are used.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Number of timed runs (1 to 1000000).
        #[arg(long, default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=1_000_000))]
        runs: u64,
        /// Print one JSON line.
        #[arg(long)]
        json: bool,
        #[command(flatten)]
        limits: LimitArgs,
    },
    /// List the registered targets.
    Targets,
    /// Compile a model into a package: import, (quantize,) partition, compile the segments.
    Compile {
        /// The ONNX model.
        model: PathBuf,
        /// Targets in preference order, comma-separated; interp, the fallback, is added last.
        #[arg(long, value_delimiter = ',')]
        targets: Vec<String>,
        /// PATTERN=TARGET: ops whose name or op type match PATTERN go to TARGET (repeatable).
        #[arg(long)]
        place: Vec<String>,
        /// Quantize first with this scheme (see `nart quantize --list-schemes`).
        #[arg(long, requires = "calib")]
        quant: Option<String>,
        /// Calibration data for --quant (as `nart quantize --calib`; with --targets auto, for
        /// the scheme a chosen target wants).
        #[arg(long)]
        calib: Option<PathBuf>,
        /// Where to write the package.
        #[arg(short = 'o', long)]
        output: PathBuf,
        /// What --targets auto optimizes.
        #[arg(long, value_enum, default_value_t = GoalArg::Latency)]
        goal: GoalArg,
        /// NAME=SIZE: compile for this size of a symbolic dimension (N=1; repeatable).
        #[arg(long = "dim", value_name = "NAME=SIZE")]
        dims: Vec<String>,
        /// INPUT=D0xD1x...: compile for this shape of an input, by name or index (repeatable).
        #[arg(long = "shape", value_name = "INPUT=SHAPE")]
        shapes: Vec<String>,
        /// Generate the cpu target's code for another machine: aarch64 (an ARM Linux device
        /// with NEON); the package then runs there, not here.
        #[arg(long, value_enum)]
        cross: Option<CrossArg>,
        /// Also write the cpu target's code of each segment: llvm (LLVM IR), asm or obj, to
        /// OUTPUT.N.ll, .s or .o.
        #[arg(long, value_enum)]
        emit: Option<EmitArg>,
        /// With --targets auto: compile, load and time every candidate here (random inputs of
        /// the model's shapes, symbolic dims at 1) and choose on the measurements.
        #[arg(long)]
        measure: bool,
        /// Timed runs per candidate with --measure (the median is kept).
        #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=100_000))]
        measure_runs: u64,
    },
    /// Print what a package holds: inputs, outputs, targets, segments.
    Inspect {
        /// The package.
        package: PathBuf,
        /// Print the manifest as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Place every op of a model on a target and print where each runs.
    Partition {
        /// The ONNX model.
        model: PathBuf,
        /// Targets in preference order, comma-separated; interp, the fallback, is added last.
        #[arg(long, value_delimiter = ',')]
        targets: Vec<String>,
        /// PATTERN=TARGET: ops whose name or op type (graph.Conv) match the glob PATTERN go to
        /// TARGET (repeatable; the last matching one wins).
        #[arg(long)]
        place: Vec<String>,
        /// Also print the partitioned IR.
        #[arg(long)]
        emit_ir: bool,
        /// What --targets auto optimizes.
        #[arg(long, value_enum, default_value_t = GoalArg::Latency)]
        goal: GoalArg,
    },
    /// Quantize a model: calibrate on data, apply a scheme, write the quantized IR.
    Quantize {
        /// The ONNX model.
        #[arg(required_unless_present = "list_schemes")]
        model: Option<PathBuf>,
        /// List the quantization schemes and exit.
        #[arg(long)]
        list_schemes: bool,
        /// Calibration data: a folder of sample folders (input_0.pb, ...), a folder of input
        /// files, or one batch file (.pb or .npy) for a one-input model.
        #[arg(long)]
        calib: Option<PathBuf>,
        /// The scheme (see --list-schemes).
        #[arg(long, default_value = "onnx-qdq")]
        scheme: String,
        /// Bits, for schemes of variable width (arm-lowbit).
        #[arg(long)]
        bits: Option<u32>,
        /// minmax, percentile[:P], entropy or mse.
        #[arg(long, default_value = "minmax")]
        calibrator: String,
        /// static (calibrated QDQ form) or dynamic (weights int8, activations at run time).
        #[arg(long, value_enum, default_value_t = QuantMode::Static)]
        mode: QuantMode,
        /// A per-layer override, PATTERN=float, PATTERN=bits:N or PATTERN=scheme:NAME (repeatable).
        #[arg(long = "override")]
        overrides: Vec<String>,
        /// A JSON file of scales and zero points to use instead of the chosen ones.
        #[arg(long)]
        qparams: Option<PathBuf>,
        /// Write the chosen scales and zero points to this JSON file.
        #[arg(long)]
        export_qparams: Option<PathBuf>,
        /// Where to write the quantized IR (.mlir).
        #[arg(short = 'o', long, required_unless_present = "list_schemes")]
        output: Option<PathBuf>,
        #[command(flatten)]
        guard: nart_cli::guard::GuardArgs,
        /// The form of a static model: qnn (integer ops), qdq (float ops between quantize and
        /// dequantize casts), or auto (qnn, but qdq for an .onnx output).
        #[arg(long, value_enum, default_value_t = QuantForm::Auto)]
        form: QuantForm,
        /// Calibration samples stacked along the batch axis into one run, where the model
        /// allows it (the statistics are the same; default 1: one sample per run).
        #[arg(long)]
        calib_batch: Option<usize>,
    },
    /// Run ONNX backend test folders in one process (used by the conformance suite).
    RunTests {
        /// Where outputs go: OUT/<test>/<test_data_set_N>/output_M.pb.
        #[arg(long)]
        outputs: PathBuf,
        /// Test folders, each holding model.onnx and test_data_set_*.
        dirs: Vec<PathBuf>,
        #[command(flatten)]
        limits: LimitArgs,
    },
}

/// Writes to standard error, ignoring failures: there is nowhere left to report them, and the
/// exit code says that the command failed.
fn say(text: &str) {
    let _ = std::io::stderr().write_all(text.as_bytes());
}

/// Parses the command line; help and version go to standard output (exit 0, or 1 when it cannot
/// be written), and every other problem to standard error with exit code 1.
fn parse() -> Result<Cli, ExitCode> {
    use clap::error::ErrorKind;
    let e = match Cli::try_parse() {
        Ok(cli) => return Ok(cli),
        Err(e) => e,
    };
    let text = e.render().to_string();
    if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
        let written = nart_cli::commands::open_stdout().and_then(|mut w| {
            w.write_all(text.as_bytes())?;
            w.flush()
        });
        return Err(match written {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                say(&format!("error: cannot write to standard output: {e}\n"));
                ExitCode::FAILURE
            }
        });
    }
    say(&text);
    Err(ExitCode::FAILURE)
}

/// `--mode` of `nart quantize`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum QuantMode {
    /// Activations quantized with calibrated parameters (QDQ form).
    Static,
    /// Weights quantized, activations at run time (DynamicQuantizeLinear).
    Dynamic,
}

/// `--form` of `nart quantize`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum QuantForm {
    /// qnn for IR output, qdq for an .onnx output.
    Auto,
    /// Float ops between quant.qcast and quant.dcast.
    Qdq,
    /// Integer qnn ops where they fit; the rest stays in QDQ form.
    Qnn,
}

/// `--cross`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum CrossArg {
    /// aarch64-unknown-linux-gnu, generic ARMv8-A with NEON.
    Aarch64,
}

/// `--emit`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum EmitArg {
    /// LLVM IR text.
    Llvm,
    /// Assembly.
    Asm,
    /// An object file.
    Obj,
}

/// The target registry of `nart compile`: the cpu target for `--cross`'s machine, writing
/// `--emit`'s files next to `output`.
fn compile_registry(
    cross: Option<CrossArg>,
    emit: Option<EmitArg>,
    output: &std::path::Path,
) -> nart_target::TargetRegistry {
    use nart_target_cpu::{CpuTarget, Emit};
    let mut cpu = match cross {
        None => CpuTarget::host(),
        Some(CrossArg::Aarch64) => CpuTarget::cross_aarch64(false),
    };
    if let Some(e) = emit {
        let kind = match e {
            EmitArg::Llvm => Emit::Llvm,
            EmitArg::Asm => Emit::Asm,
            EmitArg::Obj => Emit::Obj,
        };
        cpu = cpu.with_emit(kind, output.to_path_buf());
    }
    nart_cli::partition::registry_with_cpu(cpu)
}

/// `--goal`.
#[derive(Clone, Copy, Debug, clap::ValueEnum)]
enum GoalArg {
    /// The estimated time of one run.
    Latency,
    /// The estimated bytes held while running.
    Memory,
}

impl GoalArg {
    fn goal(self) -> nart_cli::auto::Goal {
        match self {
            GoalArg::Latency => nart_cli::auto::Goal::Latency,
            GoalArg::Memory => nart_cli::auto::Goal::Memory,
        }
    }
}

/// The runtimes nart ships, the cpu target's with `cpu_threads` threads.
fn runtimes(cpu_threads: u64) -> nart_rt::RuntimeRegistry {
    let mut r = nart_rt_std::runtimes();
    r.register(Box::new(nart_target_cpu::CpuRuntime::with_threads(
        cpu_threads as usize,
    )));
    r
}

fn main() -> ExitCode {
    let cli = match parse() {
        Ok(cli) => cli,
        Err(code) => return code,
    };
    if matches!(cli.command, Command::Quantize { .. }) {
        nart_cli::quantize::single_threaded_gemm();
    }
    let res = match cli.command {
        Command::Run {
            package: Some(package),
            inputs,
            outputs,
            cpu_threads,
            ..
        } => match inputs {
            Some(inputs) => {
                nart_cli::package::run_package(&package, &inputs, &outputs, &runtimes(cpu_threads))
            }
            None => Err(anyhow::anyhow!("--package needs --inputs DIR")),
        },
        Command::Run {
            model,
            inputs,
            dataset,
            outputs,
            func,
            limits,
            ..
        } => nart_cli::commands::run(
            &model.unwrap_or_default(),
            inputs.as_deref(),
            dataset.as_deref(),
            &outputs,
            func.as_deref(),
            limits.limits(),
        ),
        Command::Bench {
            package: Some(package),
            inputs,
            runs,
            json,
            threads,
            cpu_threads,
            dims,
            ..
        } => nart_cli::commands::open_stdout()
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))
            .and_then(|mut out| {
                let req = nart_cli::package::BenchRequest {
                    package,
                    inputs,
                    threads: threads as usize,
                    runs: runs as usize,
                    dims,
                    json,
                };
                nart_cli::package::bench_package(&req, &runtimes(cpu_threads), &mut out)
            })
            .map(|_| ()),
        Command::Bench {
            model,
            inputs,
            runs,
            json,
            limits,
            ..
        } => nart_cli::commands::open_stdout()
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))
            .and_then(|mut out| {
                nart_cli::commands::bench(
                    &model.unwrap_or_default(),
                    inputs.as_deref(),
                    runs as usize,
                    json,
                    limits.limits(),
                    &mut out,
                )
            })
            .map(|_| ()),
        Command::RunTests {
            outputs,
            dirs,
            limits,
        } => nart_cli::commands::run_tests(&dirs, &outputs, limits.limits()),
        Command::Targets => nart_cli::commands::open_stdout()
            .and_then(|mut out| {
                let table = nart_cli::partition::targets_table(&nart_cli::partition::registry());
                out.write_all(table.as_bytes())?;
                out.flush()
            })
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}")),
        Command::Compile {
            model,
            targets,
            place,
            quant,
            calib,
            output,
            goal,
            dims,
            shapes,
            cross,
            emit,
            measure,
            measure_runs,
        } => nart_cli::commands::open_stdout()
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))
            .and_then(|mut out| {
                let req = nart_cli::package::CompileRequest {
                    model,
                    targets,
                    place,
                    quant,
                    calib,
                    output,
                    goal: goal.goal(),
                    dims,
                    shapes,
                };
                let registry = compile_registry(cross, emit, &req.output);
                // --cross and --emit are about the cpu target's code: asking for them without
                // that target, or where it cannot compile, is a mistake to report, not a
                // package that silently holds no cpu code.
                if cross.is_some() || emit.is_some() {
                    let flag = if cross.is_some() { "--cross" } else { "--emit" };
                    if !req.targets.iter().any(|t| t == "cpu" || t == "auto") {
                        anyhow::bail!("{flag} applies to the cpu target; add cpu to --targets");
                    }
                    if let Some(Err(reason)) = registry.lookup("cpu").map(|t| t.availability()) {
                        anyhow::bail!("{flag}: the cpu target cannot compile here: {reason}");
                    }
                }
                let mut clock = nart_cli::auto::WallClock {
                    runs: measure_runs as usize,
                };
                let timer = measure.then_some(&mut clock as &mut dyn nart_cli::auto::Timer);
                nart_cli::package::compile_with(&req, &registry, timer, &mut out)
            })
            .map(|_| ()),
        Command::Inspect { package, json } => nart_cli::commands::open_stdout()
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))
            .and_then(|mut out| nart_cli::package::inspect(&package, json, &mut out)),
        Command::Partition {
            model,
            targets,
            place,
            emit_ir,
            goal,
        } => nart_cli::commands::open_stdout()
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}"))
            .and_then(|mut out| {
                let request = nart_cli::partition::PartitionRequest {
                    targets,
                    place,
                    emit_ir,
                };
                nart_cli::partition::partition_for(
                    &model,
                    &request,
                    goal.goal(),
                    &nart_cli::partition::registry(),
                    &mut out,
                )
            }),
        Command::Quantize {
            list_schemes: true, ..
        } => nart_cli::commands::open_stdout()
            .and_then(|mut out| {
                out.write_all(nart_cli::quantize::list_schemes().as_bytes())?;
                out.flush()
            })
            .map_err(|e| anyhow::anyhow!("cannot write to standard output: {e}")),
        Command::Quantize {
            model,
            calib,
            scheme,
            bits,
            calibrator,
            mode,
            overrides,
            qparams,
            export_qparams,
            output,
            guard,
            form,
            calib_batch,
            ..
        } => nart_cli::quantize::quantize(nart_cli::quantize::QuantizeRequest {
            model: model.unwrap_or_default(),
            calib,
            scheme,
            bits,
            calibrator,
            mode: match mode {
                QuantMode::Static => nart_quant::passes::Mode::Static,
                QuantMode::Dynamic => nart_quant::passes::Mode::Dynamic,
            },
            overrides,
            qparams,
            export_qparams,
            output: output.unwrap_or_default(),
            progress: true,
            guard,
            form: match form {
                QuantForm::Auto => nart_cli::quantize::Form::Auto,
                QuantForm::Qdq => nart_cli::quantize::Form::Qdq,
                QuantForm::Qnn => nart_cli::quantize::Form::Qnn,
            },
            calib_batch,
        }),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            say(&format!("error: {e:#}\n"));
            ExitCode::FAILURE
        }
    }
}
