//! The driver behind [`crate::main`]: reads MLIR text (or an ONNX model), verifies it, runs
//! a pass pipeline and prints the result, with mlir-opt's flags and habits.

use std::io::{Read, Write};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use nart_ir::{Context, Diagnostic, SourceMgr};

use crate::cli::{self, Options};
use crate::Registrations;

/// Wall time of the phases around the pass pipeline, for `--mlir-timing`.
#[derive(Default)]
struct Phases {
    /// Reading the input: parsing (or ONNX import) and the verification of the parsed IR.
    parser: Duration,
    /// Printing the result.
    output: Duration,
}

/// What a tool registered.
struct Tool<'a> {
    /// The dialect registrations, run on every new context.
    dialects: &'a [fn(&mut Context)],
    /// The passes.
    passes: nart_pass::PassRegistry,
}

impl Tool<'_> {
    fn new_context(&self, opts: &Options) -> Context {
        let mut ctx = Context::new();
        for register in self.dialects {
            register(&mut ctx);
        }
        ctx.allow_unregistered = opts.allow_unregistered;
        ctx
    }
}

/// Runs the tool `name` on `args` (without the program name).
pub(crate) fn main(name: &str, registrations: &Registrations, args: &[String]) -> ExitCode {
    let mut passes = nart_pass::PassRegistry::new();
    for register in &registrations.passes {
        register(&mut passes);
    }
    let tool = Tool {
        dialects: &registrations.dialects,
        passes,
    };
    let opts = match cli::parse(name, args, &tool.passes) {
        Ok(cli::Parsed::Run(o)) => o,
        Ok(cli::Parsed::Exit(text)) => {
            print!("{text}");
            return ExitCode::SUCCESS;
        }
        Err(msg) => {
            eprintln!("{name}: {msg}");
            eprintln!("Try '{name} --help' for more information.");
            return ExitCode::from(1);
        }
    };
    match run(&opts, &tool) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(msg) => {
            eprintln!("{name}: {msg}");
            ExitCode::from(1)
        }
    }
}

/// Runs the tool; `Ok(false)` means diagnostics were reported.
fn run(opts: &Options, tool: &Tool<'_>) -> Result<bool, String> {
    let start = Instant::now();
    let mut phases = Phases::default();
    if opts.list_dialects || opts.list_ops || opts.emit_docs.is_some() {
        let ctx = tool.new_context(opts);
        return list_registry(&ctx, opts).map(|_| true);
    }
    // Build the pipeline first, so that pipeline errors come before reading input.
    let mut pipeline = match cli::build_pipeline(opts, &tool.passes) {
        Ok(p) => p,
        Err(msg) => {
            eprint!("{msg}");
            if !msg.ends_with('\n') {
                eprintln!();
            }
            return Ok(false);
        }
    };
    if opts.dump_pass_pipeline {
        eprint!("{}", pipeline.dump_pipeline());
    }

    let (name, bytes) = read_input(&opts.input)?;
    if name.ends_with(".onnx") {
        let ok = run_onnx(tool, opts, &mut pipeline, &name, &bytes, &mut phases)?;
        report(opts, &pipeline, &phases, start);
        return Ok(ok);
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{name}: input is not valid UTF-8"))?;
    let chunks = if opts.split_input_file {
        nart_ir::parser::split_input_file(&text)
    } else {
        vec![(text.clone(), 0)]
    };
    let mut out = String::new();
    let mut ok = true;
    for (i, (chunk, first_line)) in chunks.iter().enumerate() {
        if i > 0 {
            out.push_str("// -----\n");
        }
        // Pad the chunk with empty lines so that line numbers match the original file.
        let padded = format!("{}{}", "\n".repeat(*first_line as usize), chunk);
        let chunk_ok = process_chunk(
            tool,
            opts,
            &mut pipeline,
            &name,
            &padded,
            (&text, *first_line),
            &mut out,
            &mut phases,
        );
        ok &= chunk_ok;
    }
    let t = Instant::now();
    write_output(opts, &out)?;
    phases.output += t.elapsed();
    report(opts, &pipeline, &phases, start);
    Ok(ok)
}

/// Prints the timing and statistics reports asked for.
/// MLIR's report layout: `Parser`, the pipeline's passes, `Output`, and `Rest` (everything
/// else, such as reading the file and starting up), adding up to the total.
fn report(opts: &Options, pipeline: &nart_pass::PassManager, phases: &Phases, start: Instant) {
    if opts.statistics {
        eprint!("{}", pipeline.statistics_report());
    }
    if opts.timing {
        use nart_pass::TimingEntry;
        let total = start.elapsed();
        let leaf = |name: &str, time: Duration| TimingEntry {
            name: name.to_string(),
            time,
            children: Vec::new(),
        };
        let mut entries = vec![leaf("Parser", phases.parser)];
        entries.extend(pipeline.timing_entries());
        entries.push(leaf("Output", phases.output));
        let accounted: Duration = entries.iter().map(|e| e.time).sum();
        entries.push(leaf("Rest", total.saturating_sub(accounted)));
        eprint!(
            "{}",
            nart_pass::render_timing(&entries, Some(total.max(accounted)))
        );
    }
}

/// Runs the pipeline: `Ok` with the warnings and remarks passes emitted, or `Err` with those
/// and the failure's diagnostics.
fn run_pipeline(
    ctx: &mut Context,
    pipeline: &mut nart_pass::PassManager,
    module: nart_ir::Op,
) -> Result<Vec<Diagnostic>, Vec<Diagnostic>> {
    let mut log = std::io::stderr();
    let res = pipeline.run(ctx, module, &mut log);
    let mut emitted = pipeline.take_diagnostics();
    match res {
        Ok(()) => Ok(emitted),
        Err(e) => {
            let diags = e.diagnostics().to_vec();
            if diags.is_empty() {
                emitted.push(Diagnostic::error(ctx.op_loc(module), e.to_string()));
            } else {
                emitted.extend(diags);
            }
            Err(emitted)
        }
    }
}

/// Parses, verifies, transforms and prints one buffer. Returns whether it succeeded (with
/// `--verify-diagnostics`: whether the diagnostics matched the expectations).
#[allow(clippy::too_many_arguments)]
fn process_chunk(
    tool: &Tool<'_>,
    opts: &Options,
    pipeline: &mut nart_pass::PassManager,
    name: &str,
    text: &str,
    (whole, first_line): (&str, u32),
    out: &mut String,
    phases: &mut Phases,
) -> bool {
    let t = Instant::now();
    let mut ctx = tool.new_context(opts);
    // The implicit module of a chunk sits where mlir-opt puts it: at the separator line.
    let module_loc = nart_ir::parser::chunk_module_loc(&mut ctx, name, whole, first_line);
    let mut sm = SourceMgr::new();
    sm.add(name, text);
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut result = None;
    let parsed = nart_ir::parser::parse_source_with_module_loc(&mut ctx, name, text, module_loc)
        .and_then(|m| nart_ir::verify::verify(&ctx, m).map(|()| m));
    phases.parser += t.elapsed();
    match parsed {
        Err(errs) => diags.extend(errs),
        Ok(module) => match run_pipeline(&mut ctx, pipeline, module) {
            Err(errs) => diags.extend(errs),
            Ok(warnings) => {
                diags.extend(warnings);
                result = Some(module);
            }
        },
    }
    if opts.verify_diagnostics {
        return verify_diagnostics(&ctx, &sm, name, text, &diags);
    }
    for d in &diags {
        eprint!("{}", sm.render(&ctx, d));
    }
    match result {
        Some(module) if diags.iter().all(|d| d.severity != nart_ir::Severity::Error) => {
            let t = Instant::now();
            out.push_str(&nart_ir::printer::print_op(&ctx, module, &opts.print));
            phases.output += t.elapsed();
            true
        }
        _ => false,
    }
}

fn verify_diagnostics(
    ctx: &Context,
    sm: &SourceMgr,
    name: &str,
    text: &str,
    diags: &[Diagnostic],
) -> bool {
    let expected = match nart_ir::diag::parse_expected(text) {
        Ok(e) => e,
        Err((line, col, msg)) => {
            eprintln!("{name}:{line}:{col}: error: {msg}");
            return false;
        }
    };
    let problems = nart_ir::diag::check_expected(ctx, name, &expected, diags);
    for (pos, msg) in &problems {
        match pos {
            Some((line, col)) => {
                eprintln!("{name}:{line}:{col}: error: {msg}");
                if let Some(src) = sm.line(name, *line) {
                    eprintln!("{src}");
                    eprintln!("{}^", " ".repeat(col.saturating_sub(1) as usize));
                }
            }
            None => eprintln!("{name}: error: {msg}"),
        }
    }
    problems.is_empty()
}

fn run_onnx(
    tool: &Tool<'_>,
    opts: &Options,
    pipeline: &mut nart_pass::PassManager,
    name: &str,
    bytes: &[u8],
    phases: &mut Phases,
) -> Result<bool, String> {
    let t = Instant::now();
    let mut ctx = tool.new_context(opts);
    let path = std::path::Path::new(name);
    let dir = if name == "-" { None } else { Some(path) };
    let import_opts = nart_onnx::ImportOptions {
        allow_unknown_ops: opts.allow_unregistered,
    };
    // An ONNX file has no text to show under a diagnostic: render without source lines.
    let report = |ctx: &Context, errs: Vec<Diagnostic>| {
        let sm = SourceMgr::new();
        for d in &errs {
            eprint!("{}", sm.render(ctx, d));
        }
        Ok(false)
    };
    let module = match nart_onnx::import_model_with(&mut ctx, bytes, dir, &import_opts)
        .and_then(|m| nart_ir::verify::verify(&ctx, m).map(|()| m))
    {
        Ok(m) => m,
        Err(errs) => return report(&ctx, errs),
    };
    phases.parser += t.elapsed();
    match run_pipeline(&mut ctx, pipeline, module) {
        Err(errs) => return report(&ctx, errs),
        Ok(warnings) => {
            let sm = SourceMgr::new();
            for d in &warnings {
                eprint!("{}", sm.render(&ctx, d));
            }
        }
    }
    let t = Instant::now();
    let text = nart_ir::printer::print_op(&ctx, module, &opts.print);
    write_output(opts, &text)?;
    phases.output += t.elapsed();
    Ok(true)
}

fn read_input(input: &str) -> Result<(String, Vec<u8>), String> {
    if input == "-" {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(("<stdin>".to_string(), buf));
    }
    let bytes =
        std::fs::read(input).map_err(|e| format!("cannot open input file '{input}': {e}"))?;
    Ok((input.to_string(), bytes))
}

fn write_output(opts: &Options, text: &str) -> Result<(), String> {
    match opts.output.as_deref() {
        None | Some("-") => {
            let mut so = std::io::stdout().lock();
            // A closed pipe (e.g. `| head`) is not an error worth reporting.
            let _ = so.write_all(text.as_bytes());
            let _ = so.flush();
            Ok(())
        }
        Some(path) => std::fs::write(path, text).map_err(|e| format!("cannot write '{path}': {e}")),
    }
}

fn list_registry(ctx: &Context, opts: &Options) -> Result<(), String> {
    if let Some(dir) = &opts.emit_docs {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{dir}': {e}"))?;
        for d in ctx.registry.dialects() {
            let text = nart_ir::docs::render_dialect_docs(d);
            let path = format!("{dir}/{}.md", d.name);
            std::fs::write(&path, text).map_err(|e| format!("cannot write '{path}': {e}"))?;
        }
        return Ok(());
    }
    let mut out = String::new();
    for d in ctx.registry.dialects() {
        if opts.list_dialects {
            out.push_str(&format!("{:<10} {}\n", d.name, d.summary));
        }
        if opts.list_ops {
            for op in d.ops {
                out.push_str(&format!("{:<36} {}\n", op.name, op.summary));
            }
        }
    }
    print!("{out}");
    Ok(())
}
