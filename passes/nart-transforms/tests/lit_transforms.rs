//! Runs the lit tests of `tests/lit/transforms/*.mlir` in-process, with the real `func`, `arith`
//! and `cf` dialects and the project's FileCheck library, so that the passes are checked against
//! their lit tests without the `nart-opt` binary.
//!
//! Only the flags those tests use are understood: `--pass-pipeline`, `--split-input-file`,
//! `--allow-unregistered-dialect`, `--mlir-print-debuginfo`, and `-o /dev/null 2>&1` (check the
//! pass output instead of the printed IR).

use std::path::{Path, PathBuf};

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::Context;
use nart_pass::{PassManager, PassRegistry};

struct Run {
    pipeline: String,
    split: bool,
    unregistered: bool,
    debuginfo: bool,
    check_stderr: bool,
}

fn parse_run(text: &str) -> Run {
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("// RUN: "))
        .expect("a lit test has a RUN line");
    let start = line
        .find("--pass-pipeline='")
        .expect("a --pass-pipeline flag")
        + 17;
    let end = start + line[start..].find('\'').expect("a closing quote");
    Run {
        pipeline: line[start..end].to_string(),
        split: line.contains("--split-input-file"),
        unregistered: line.contains("--allow-unregistered-dialect"),
        debuginfo: line.contains("--mlir-print-debuginfo"),
        check_stderr: line.contains("-o /dev/null 2>&1"),
    }
}

fn render(ctx: &Context, file: &str, text: &str, diags: &[nart_ir::Diagnostic]) -> String {
    let mut sm = nart_ir::SourceMgr::new();
    sm.add(file, text);
    diags.iter().map(|d| sm.render(ctx, d)).collect()
}

/// What `nart-opt` prints for `text`: (stdout, stderr), or the error it reports.
fn opt(run: &Run, file: &str, text: &str) -> Result<(String, String), String> {
    let chunks = if run.split {
        nart_ir::parser::split_input_file(text)
    } else {
        vec![(text.to_string(), 0)]
    };
    let mut registry = PassRegistry::new();
    nart_transforms::register(&mut registry);
    let mut outs = Vec::new();
    let mut err = Vec::new();
    for (chunk, first_line) in chunks {
        let mut ctx = Context::new();
        ctx.allow_unregistered = run.unregistered;
        nart_dialect_func::register(&mut ctx);
        nart_dialect_arith::register(&mut ctx);
        nart_dialect_cf::register(&mut ctx);
        // Keep line numbers of the original file.
        let padded = format!("{}{chunk}", "\n".repeat(first_line as usize));
        let module = nart_ir::parser::parse_source(&mut ctx, file, &padded)
            .map_err(|d| render(&ctx, file, &padded, &d))?;
        nart_ir::verify::verify(&ctx, module).map_err(|d| render(&ctx, file, &padded, &d))?;
        let mut pm = PassManager::parse(&run.pipeline, &registry).map_err(|e| e.to_string())?;
        pm.run(&mut ctx, module, &mut err)
            .map_err(|e| format!("{e}\n{}", render(&ctx, file, &padded, e.diagnostics())))?;
        let opts = PrintOptions {
            debug_info: run.debuginfo,
            ..PrintOptions::default()
        };
        outs.push(print_op(&ctx, module, &opts));
    }
    Ok((
        outs.join("// -----\n"),
        String::from_utf8(err).expect("UTF-8 output"),
    ))
}

fn lit_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/lit/transforms")
}

#[test]
fn lit_transforms() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(lit_dir())
        .expect("tests/lit/transforms exists")
        .map(|e| e.expect("readable directory").path())
        .filter(|p| p.extension().is_some_and(|x| x == "mlir"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    let mut failures = Vec::new();
    for path in files {
        let name = path
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .to_string();
        let text = std::fs::read_to_string(&path).expect("readable test");
        let run = parse_run(&text);
        let (stdout, stderr) = match opt(&run, &name, &text) {
            Ok(o) => o,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let input = if run.check_stderr { stderr } else { stdout };
        let req = nart_filecheck::Request::default();
        let out = nart_filecheck::run(
            &req,
            &name,
            Ok(text.clone().into_bytes()),
            "<stdin>",
            || Ok(input.clone().into_bytes()),
            "",
        );
        if out.status != 0 {
            failures.push(format!("{name}:\n{}\n--- output ---\n{input}", out.stderr));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
