//! Parses an MLIR file (func, arith, cf), runs a pass pipeline on it and prints the pass
//! timing report to stderr, to measure the passes until `nart-opt` exists.
//!
//! `cargo run --release -p nart-transforms --example run_pipeline -- in.mlir 'builtin.module(func.func(cse))'`

use std::time::Instant;

use nart_ir::Context;
use nart_pass::{PassManager, PassRegistry, TimingEntry};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (Some(file), Some(pipeline)) = (args.get(1), args.get(2)) else {
        eprintln!("usage: run_pipeline FILE PIPELINE");
        std::process::exit(2);
    };
    let text = match std::fs::read_to_string(file) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("cannot read {file}: {e}");
            std::process::exit(1);
        }
    };
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_dialect_cf::register(&mut ctx);
    let mut registry = PassRegistry::new();
    nart_transforms::register(&mut registry);
    let mut pm = match PassManager::parse(pipeline, &registry) {
        Ok(pm) => pm,
        Err(e) => {
            eprint!("{e}");
            std::process::exit(1);
        }
    };
    let t0 = Instant::now();
    let module = match nart_ir::parser::parse_source(&mut ctx, file, &text) {
        Ok(m) => m,
        Err(d) => {
            eprintln!("{} parse errors, first: {}", d.len(), d[0].message);
            std::process::exit(1);
        }
    };
    let parse = t0.elapsed();
    let mut err = Vec::new();
    if let Err(e) = pm.run(&mut ctx, module, &mut err) {
        eprintln!("{e}");
        std::process::exit(1);
    }
    let t1 = Instant::now();
    let out = nart_ir::printer::print_op(&ctx, module, &Default::default());
    let output = t1.elapsed();
    let mut entries = vec![TimingEntry {
        name: "Parser".into(),
        time: parse,
        children: Vec::new(),
    }];
    entries.extend(pm.timing_entries());
    entries.push(TimingEntry {
        name: "Output".into(),
        time: output,
        children: Vec::new(),
    });
    eprint!("{}", nart_pass::render_timing(&entries, None));
    println!("{} bytes of output", out.len());
}
