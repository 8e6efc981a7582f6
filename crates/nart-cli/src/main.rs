//! `nart`: the command-line driver.
//!
//! `nart run` runs an ONNX model in the reference interpreter on ONNX test data (`input_N.pb` or
//! `input_N.npy`) and writes `output_N.pb`; `nart bench` times import, planning and runs.
//! Compilation, quantization and deployment subcommands will join these.

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
    /// Run ONNX backend test folders in one process (used by the conformance suite).
    RunTests {
        /// Where outputs go: OUT/<test>/<test_data_set_N>/output_M.pb.
        #[arg(long)]
        outputs: PathBuf,
        /// Test folders, each holding model.onnx and test_data_set_*.
        dirs: Vec<PathBuf>,
    },
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
    };
    match res {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
