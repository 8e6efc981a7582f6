//! `nart-translate`: nart's `mlir-translate --mlir-to-llvmir`, plus code generation.
//!
//! ```text
//! nart-translate --mlir-to-llvmir in.mlir              # LLVM IR text on standard output
//! nart-translate --emit=obj -o out.o in.mlir           # an object for the host
//! nart-translate --emit=asm --target-triple=aarch64-unknown-linux-gnu --mattr=+neon in.mlir
//! ```
//!
//! Bad input (IR that does not parse or verify, ops with no translation) is reported with
//! locations, every untranslatable op at once, and the exit code is 1.

use std::io::{Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, ValueEnum};
use nart_ir::{Context, SourceMgr};
use nart_llvm::{Error, Machine};

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Emit {
    /// LLVM IR text.
    Llvm,
    /// Assembly.
    Asm,
    /// An object file.
    Obj,
}

/// Translates nart IR (func, arith, cf) to LLVM IR, assembly or an object file.
#[derive(Parser, Debug)]
#[command(name = "nart-translate", version)]
struct Cli {
    /// The input file (`-` for standard input).
    #[arg(default_value = "-")]
    input: PathBuf,
    /// Translate to LLVM IR text (the same as `--emit=llvm`).
    #[arg(long = "mlir-to-llvmir")]
    mlir_to_llvmir: bool,
    /// What to write.
    #[arg(long, value_enum, default_value = "llvm")]
    emit: Emit,
    /// The output file (`-` or absent: standard output; an object needs a file).
    #[arg(short = 'o', long = "output")]
    output: Option<PathBuf>,
    /// The target triple (default: the host's).
    #[arg(long = "target-triple")]
    target_triple: Option<String>,
    /// The CPU (default: the host's for the host triple, `generic` otherwise).
    #[arg(long)]
    mcpu: Option<String>,
    /// LLVM target features such as `+avx2,+fma` or `+neon,+dotprod` (default: the host's
    /// for the host triple, `+neon` for AArch64, none otherwise).
    #[arg(long)]
    mattr: Option<String>,
    /// An LLVM pass pipeline to run before output, in `opt -passes` syntax (`default<O2>`);
    /// by default LLVM IR is printed as translated and code is generated after `default<O2>`.
    #[arg(long)]
    passes: Option<String>,
    /// Accept ops of dialects nart-translate does not know (they are then reported as
    /// untranslatable, all at once, instead of stopping the parse at the first).
    #[arg(long = "allow-unregistered-dialect")]
    allow_unregistered_dialect: bool,
}

fn machine(cli: &Cli) -> Result<Machine, Error> {
    let host = Machine::host()?;
    match &cli.target_triple {
        None if cli.mcpu.is_none() && cli.mattr.is_none() => Ok(host),
        None => Machine::new(
            host.triple(),
            cli.mcpu.as_deref().unwrap_or(host.cpu()),
            cli.mattr.as_deref().unwrap_or(host.features()),
        ),
        Some(t) => {
            let default_attr = if t.starts_with("aarch64") {
                "+neon"
            } else {
                ""
            };
            Machine::new(
                t,
                cli.mcpu.as_deref().unwrap_or("generic"),
                cli.mattr.as_deref().unwrap_or(default_attr),
            )
        }
    }
}

fn run(cli: &Cli) -> Result<(), String> {
    let (name, text) = if cli.input.as_os_str() == "-" {
        let mut s = String::new();
        std::io::stdin()
            .read_to_string(&mut s)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        ("<stdin>".to_string(), s)
    } else {
        let s = std::fs::read_to_string(&cli.input)
            .map_err(|e| format!("cannot read '{}': {e}", cli.input.display()))?;
        (cli.input.display().to_string(), s)
    };
    let mut ctx = Context::new();
    ctx.allow_unregistered = cli.allow_unregistered_dialect;
    nart_dialect_func::register(&mut ctx);
    nart_dialect_cf::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_dialect_scf::register(&mut ctx);
    nart_dialect_memref::register(&mut ctx);
    nart_dialect_math::register(&mut ctx);
    nart_dialect_vector::register(&mut ctx);
    let mut sm = SourceMgr::new();
    sm.add(&name, &text);
    let render = |ctx: &Context, diags: &[nart_ir::Diagnostic]| -> String {
        diags
            .iter()
            .map(|d| sm.render(ctx, d))
            .collect::<Vec<_>>()
            .join("")
            .trim_end()
            .to_string()
    };
    let module =
        nart_ir::parser::parse_source(&mut ctx, &name, &text).map_err(|d| render(&ctx, &d))?;
    nart_ir::verify::verify(&ctx, module).map_err(|d| render(&ctx, &d))?;

    let ll = nart_llvm::inkwell::context::Context::create();
    let llmod =
        nart_llvm::translate_module(&ctx, module, &ll, &name).map_err(|d| render(&ctx, &d))?;
    let emit = if cli.mlir_to_llvmir {
        Emit::Llvm
    } else {
        cli.emit
    };
    let passes = match (&cli.passes, emit) {
        (Some(p), _) => Some(p.as_str()),
        (None, Emit::Llvm) => None,
        (None, _) => Some("default<O2>"),
    };
    // LLVM IR with no target, CPU, features or passes asked for is the bare translation, as
    // `mlir-translate` prints it: no triple, no data layout, the same on every machine.
    let targeted = cli.target_triple.is_some() || cli.mcpu.is_some() || cli.mattr.is_some();
    let m = if emit != Emit::Llvm || targeted || passes.is_some() {
        Some(machine(cli).map_err(|e| e.to_string())?)
    } else {
        None
    };
    if let Some(m) = &m {
        match passes {
            Some(p) => m.optimize(&llmod, p).map_err(|e| e.to_string())?,
            None => m.prepare(&llmod),
        }
    }
    let bytes = match (emit, &m) {
        (Emit::Asm, Some(m)) => m.emit(&llmod, false).map_err(|e| e.to_string())?,
        (Emit::Obj, Some(m)) => m.emit(&llmod, true).map_err(|e| e.to_string())?,
        _ => llmod.print_to_string().to_string().into_bytes(),
    };
    match &cli.output {
        Some(p) if p.as_os_str() != "-" => {
            std::fs::write(p, &bytes).map_err(|e| format!("cannot write '{}': {e}", p.display()))?
        }
        _ if emit == Emit::Obj => {
            return Err("an object file needs an output file: pass -o FILE".to_string())
        }
        _ => std::io::stdout()
            .write_all(&bytes)
            .map_err(|e| format!("cannot write the output: {e}"))?,
    }
    Ok(())
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(c) => c,
        Err(e) => {
            let code = if e.use_stderr() { 1 } else { 0 };
            let _ = e.print();
            return ExitCode::from(code);
        }
    };
    match run(&cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("{msg}");
            ExitCode::FAILURE
        }
    }
}
