//! Imports an `.onnx` file and prints the module (a debugging aid until `nart-opt` reads ONNX).
//!
//! `cargo run -p nart-onnx --example onnx_dump -- model.onnx [out.onnx]`: with a second path,
//! the module is also exported back to ONNX there.

use nart_ir::printer::{print_op, PrintOptions};

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: onnx_dump model.onnx [out.onnx]");
        return std::process::ExitCode::FAILURE;
    };
    let mut ctx = nart_ir::Context::new();
    match nart_onnx::import_file(&mut ctx, std::path::Path::new(path)) {
        Ok(m) => {
            print!("{}", print_op(&ctx, m, &PrintOptions::default()));
            if let Some(out) = args.get(1) {
                match nart_onnx::export_model(&ctx, m) {
                    Ok(bytes) => {
                        if let Err(e) = std::fs::write(out, bytes) {
                            eprintln!("cannot write {out}: {e}");
                            return std::process::ExitCode::FAILURE;
                        }
                    }
                    Err(d) => {
                        eprintln!("error: {}", d.message);
                        return std::process::ExitCode::FAILURE;
                    }
                }
            }
            std::process::ExitCode::SUCCESS
        }
        Err(errs) => {
            for d in errs {
                eprintln!("error: {}", d.message);
            }
            std::process::ExitCode::FAILURE
        }
    }
}
