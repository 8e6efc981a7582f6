//! `nart`: the command-line driver.
//!
//! `nart run` runs an ONNX model in the reference interpreter on ONNX test data (`input_N.pb` or
//! `input_N.npy`) and writes `output_N.pb`; `nart bench` times import, planning and runs;
//! `nart quantize` calibrates and quantizes a model into QDQ-form IR (`--list-schemes` lists the
//! schemes). Compilation and deployment subcommands will join these.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

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

#[derive(Subcommand)]
enum Command {
    /// Run a model in the reference interpreter.
    Run {
        /// The ONNX model.
        #[arg(long)]
        model: PathBuf,
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
    },
    /// Time import, planning and interpreter runs of a model.
    Bench {
        /// The ONNX model.
        #[arg(long)]
        model: PathBuf,
        /// A folder of inputs; without it, deterministic inputs of the declared shapes are used.
        #[arg(long)]
        inputs: Option<PathBuf>,
        /// Number of timed runs.
        #[arg(long, default_value_t = 5)]
        runs: usize,
        /// Print one JSON line.
        #[arg(long)]
        json: bool,
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
    },
    /// Run ONNX backend test folders in one process (used by the conformance suite).
    RunTests {
        /// Where outputs go: OUT/<test>/<test_data_set_N>/output_M.pb.
        #[arg(long)]
        outputs: PathBuf,
        /// Test folders, each holding model.onnx and test_data_set_*.
        dirs: Vec<PathBuf>,
    },
}

/// `--mode` of `nart quantize`.
#[derive(Clone, Copy, clap::ValueEnum)]
enum QuantMode {
    /// Activations quantized with calibrated parameters (QDQ form).
    Static,
    /// Weights quantized, activations at run time (DynamicQuantizeLinear).
    Dynamic,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let res = match cli.command {
        Command::Run {
            model,
            inputs,
            dataset,
            outputs,
            func,
        } => nart_cli::commands::run(
            &model,
            inputs.as_deref(),
            dataset.as_deref(),
            &outputs,
            func.as_deref(),
        ),
        Command::Bench {
            model,
            inputs,
            runs,
            json,
        } => nart_cli::commands::bench(&model, inputs.as_deref(), runs, json).map(|_| ()),
        Command::RunTests { outputs, dirs } => nart_cli::commands::run_tests(&dirs, &outputs),
        Command::Quantize {
            list_schemes: true, ..
        } => {
            print!("{}", nart_cli::quantize::list_schemes());
            Ok(())
        }
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
        }),
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
