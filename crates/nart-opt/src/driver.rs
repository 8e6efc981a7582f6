//! The driver behind [`crate::main`]: reads MLIR text (or an ONNX model), verifies it, runs
//! a pass pipeline and prints the result, with mlir-opt's flags and habits.
//!
//! Output is streamed: each module is written as it is printed ([`nart_ir::printer::print_op_to`]),
//! and a failed write (a full disk, a closed standard output) is an error with exit code 1.
//! Arguments need not be UTF-8 where they are paths (the input file and `-o`); elsewhere a
//! non-UTF-8 argument is an error.

use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
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

/// Writes to standard error, ignoring failures: there is nowhere left to report them, and the
/// exit code already says whether the tool failed.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = write!(std::io::stderr(), $($arg)*);
    }};
}

/// [`say!`] with a newline.
macro_rules! sayln {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stderr(), $($arg)*);
    }};
}

/// The command line as UTF-8 strings for [`cli::parse`], with each non-UTF-8 argument that does
/// not start with `-` (a path) replaced by a placeholder that no real argument can equal: it
/// starts with a NUL, which a command-line argument cannot hold.
struct Args {
    /// The arguments, placeholders included.
    text: Vec<String>,
    /// Each placeholder and the argument it stands for.
    paths: Vec<(String, OsString)>,
}

impl Args {
    fn new(args: &[OsString]) -> Result<Args, String> {
        let mut res = Args {
            text: Vec::with_capacity(args.len()),
            paths: Vec::new(),
        };
        for arg in args {
            match arg.to_str() {
                Some(s) => res.text.push(s.to_string()),
                None if !arg.as_encoded_bytes().starts_with(b"-") => {
                    let placeholder = format!("\0{}:{}", res.paths.len(), arg.to_string_lossy());
                    res.text.push(placeholder.clone());
                    res.paths.push((placeholder, arg.clone()));
                }
                None => {
                    return Err(format!(
                        "argument '{}' is not valid UTF-8 (only file paths may be)",
                        arg.to_string_lossy()
                    ))
                }
            }
        }
        Ok(res)
    }

    /// The path an option holds: the original argument for a placeholder.
    fn path(&self, s: &str) -> PathBuf {
        match self.paths.iter().find(|(p, _)| p == s) {
            Some((_, os)) => PathBuf::from(os),
            None => PathBuf::from(s),
        }
    }

    /// `msg` with the placeholders shown as the lossy text of their arguments.
    fn show(&self, msg: &str) -> String {
        let mut msg = msg.to_string();
        for (p, os) in &self.paths {
            msg = msg.replace(p.as_str(), &os.to_string_lossy());
        }
        msg
    }
}

/// Where the input comes from and where the output goes.
struct Io {
    /// The input file; `None` for standard input.
    input: Option<PathBuf>,
    /// The output file; `None` for standard output.
    output: Option<PathBuf>,
}

impl Io {
    /// Resolves the paths of `opts`; a placeholder used anywhere else is a non-UTF-8 argument
    /// where text is needed, and an error.
    fn new(opts: &Options, args: &Args) -> Result<Io, String> {
        let input = (opts.input != "-").then(|| args.path(&opts.input));
        let output = match opts.output.as_deref() {
            None | Some("-") => None,
            Some(o) => Some(args.path(o)),
        };
        let used = [Some(opts.input.as_str()), opts.output.as_deref()];
        if let Some((_, os)) = args.paths.iter().find(|(p, _)| !used.contains(&Some(p))) {
            return Err(format!(
                "argument '{}' is not valid UTF-8 (only file paths may be)",
                os.to_string_lossy()
            ));
        }
        Ok(Io { input, output })
    }
}

/// Runs the tool `name` on `args` (without the program name).
pub(crate) fn main(name: &str, registrations: &Registrations, args: &[OsString]) -> ExitCode {
    let fail = |msg: &str| {
        sayln!("{name}: {msg}");
        ExitCode::from(1)
    };
    let args = match Args::new(args) {
        Ok(a) => a,
        Err(msg) => return fail(&msg),
    };
    let mut passes = nart_pass::PassRegistry::new();
    for register in &registrations.passes {
        register(&mut passes);
    }
    let tool = Tool {
        dialects: &registrations.dialects,
        passes,
    };
    let opts = match cli::parse(name, &args.text, &tool.passes) {
        Ok(cli::Parsed::Run(o)) => o,
        Ok(cli::Parsed::Exit(text)) => {
            return match write_stdout(text.as_bytes()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(msg) => fail(&msg),
            };
        }
        Err(msg) => {
            sayln!("{name}: {}", args.show(&msg));
            sayln!("Try '{name} --help' for more information.");
            return ExitCode::from(1);
        }
    };
    let io = match Io::new(&opts, &args) {
        Ok(io) => io,
        Err(msg) => return fail(&msg),
    };
    match run(&opts, &io, &tool) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(msg) => fail(&msg),
    }
}

/// Standard output as a writer of its own, or an error when it is closed (Rust's `Stdout`
/// silently discards what is written to a closed descriptor).
fn open_stdout() -> std::io::Result<Box<dyn Write>> {
    #[cfg(unix)]
    {
        use std::os::fd::AsFd;
        let fd = std::io::stdout().as_fd().try_clone_to_owned()?;
        Ok(Box::new(std::fs::File::from(fd)))
    }
    #[cfg(not(unix))]
    {
        Ok(Box::new(std::io::stdout()))
    }
}

/// Writes `bytes` to standard output, or says why it could not.
fn write_stdout(bytes: &[u8]) -> Result<(), String> {
    open_stdout()
        .and_then(|mut w| {
            w.write_all(bytes)?;
            w.flush()
        })
        .map_err(|e| format!("cannot write to standard output: {e}"))
}

/// The output stream: a file or standard output, buffered, with its name for messages.
struct Output {
    w: std::io::BufWriter<Box<dyn Write>>,
    name: String,
    /// The output file ends in `.onnx`: modules are written as ONNX models, not as text.
    onnx: bool,
    /// Whether a model was written already (an `.onnx` file holds one).
    wrote_model: bool,
}

impl Output {
    fn open(path: Option<&Path>) -> Result<Output, String> {
        let (w, name): (std::io::Result<Box<dyn Write>>, String) = match path {
            None => (open_stdout(), "standard output".into()),
            Some(p) => (
                std::fs::File::create(p).map(|f| Box::new(f) as Box<dyn Write>),
                format!("'{}'", p.display()),
            ),
        };
        let w = w.map_err(|e| format!("cannot write to {name}: {e}"))?;
        Ok(Output {
            w: std::io::BufWriter::with_capacity(64 * 1024, w),
            name,
            onnx: path.is_some_and(|p| p.extension().is_some_and(|e| e == "onnx")),
            wrote_model: false,
        })
    }

    fn error(&self, e: std::io::Error) -> String {
        format!("cannot write to {}: {e}", self.name)
    }

    fn write(&mut self, text: &str) -> Result<(), String> {
        self.w.write_all(text.as_bytes()).map_err(|e| self.error(e))
    }

    /// Prints `op` into the stream as it is printed, or, for an `.onnx` output, writes it as
    /// an ONNX model (the exporter says why a module cannot be one).
    fn print(&mut self, ctx: &Context, op: nart_ir::Op, opts: &Options) -> Result<(), String> {
        if self.onnx {
            if std::mem::replace(&mut self.wrote_model, true) {
                return Err(format!(
                    "cannot write several modules to {}: an ONNX file holds one model",
                    self.name
                ));
            }
            let bytes = nart_onnx::export_model(ctx, op)
                .map_err(|d| SourceMgr::new().render(ctx, &d).trim_end().to_string())?;
            return self.w.write_all(&bytes).map_err(|e| self.error(e));
        }
        nart_ir::printer::print_op_to(ctx, op, &opts.print, &mut self.w).map_err(|e| self.error(e))
    }

    fn finish(mut self) -> Result<(), String> {
        self.w.flush().map_err(|e| self.error(e))
    }
}

/// Runs the tool; `Ok(false)` means diagnostics were reported.
fn run(opts: &Options, io: &Io, tool: &Tool<'_>) -> Result<bool, String> {
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
            say!("{msg}");
            if !msg.ends_with('\n') {
                sayln!();
            }
            return Ok(false);
        }
    };
    if opts.dump_pass_pipeline {
        say!("{}", pipeline.dump_pipeline());
    }

    let (name, bytes) = read_input(io.input.as_deref())?;
    // Open the output before the work, as mlir-opt does, so that an unwritable output fails
    // fast.
    let mut out = Output::open(io.output.as_deref())?;
    if name.ends_with(".onnx") {
        let ok = run_onnx(tool, opts, &mut pipeline, io, &bytes, &mut out, &mut phases)?;
        out.finish()?;
        report(opts, &pipeline, &phases, start);
        return Ok(ok);
    }
    let text = String::from_utf8(bytes).map_err(|_| format!("{name}: input is not valid UTF-8"))?;
    let chunks = if opts.split_input_file {
        nart_ir::parser::split_input_file(&text)
    } else {
        vec![(text.clone(), 0)]
    };
    let mut ok = true;
    for (i, (chunk, first_line)) in chunks.iter().enumerate() {
        if i > 0 && !out.onnx {
            out.write("// -----\n")?;
        }
        let chunk_ok = process_chunk(
            tool,
            opts,
            &mut pipeline,
            &name,
            chunk,
            (&text, *first_line),
            &mut out,
            &mut phases,
        )?;
        ok &= chunk_ok;
    }
    let t = Instant::now();
    out.finish()?;
    phases.output += t.elapsed();
    report(opts, &pipeline, &phases, start);
    Ok(ok)
}

/// Prints the timing and statistics reports asked for.
/// MLIR's report layout: `Parser`, the pipeline's passes, `Output`, and `Rest` (everything
/// else, such as reading the file and starting up), adding up to the total.
fn report(opts: &Options, pipeline: &nart_pass::PassManager, phases: &Phases, start: Instant) {
    if opts.statistics {
        say!("{}", pipeline.statistics_report());
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
        say!(
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
/// `--verify-diagnostics`: whether the diagnostics matched the expectations), or why the output
/// could not be written.
#[allow(clippy::too_many_arguments)]
fn process_chunk(
    tool: &Tool<'_>,
    opts: &Options,
    pipeline: &mut nart_pass::PassManager,
    name: &str,
    text: &str,
    (whole, first_line): (&str, u32),
    out: &mut Output,
    phases: &mut Phases,
) -> Result<bool, String> {
    let t = Instant::now();
    let mut ctx = tool.new_context(opts);
    // The implicit module of a chunk sits where mlir-opt puts it: at the separator line.
    let module_loc = nart_ir::parser::chunk_module_loc(&mut ctx, name, whole, first_line);
    let mut sm = SourceMgr::new();
    sm.add_at(name, text, first_line);
    let mut diags: Vec<Diagnostic> = Vec::new();
    let mut result = None;
    // The chunk is parsed where it sits in the file (locations and expected-* lines are the
    // file's) without padding it, so that splitting a buffer is linear in its size.
    let parsed = nart_ir::parser::parse_chunk(&mut ctx, name, text, first_line, module_loc)
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
    let matched = if opts.verify_diagnostics {
        Some(verify_diagnostics(
            &ctx,
            &sm,
            name,
            (text, first_line),
            &diags,
        ))
    } else {
        for d in &diags {
            say!("{}", sm.render(&ctx, d));
        }
        None
    };
    // As mlir-opt, a buffer whose pipeline succeeded is printed, with `--verify-diagnostics`
    // too; there the result is whether the diagnostics matched.
    let printed = match result {
        Some(module) if diags.iter().all(|d| d.severity != nart_ir::Severity::Error) => {
            let t = Instant::now();
            out.print(&ctx, module, opts)?;
            phases.output += t.elapsed();
            true
        }
        _ => false,
    };
    Ok(matched.unwrap_or(printed))
}

fn verify_diagnostics(
    ctx: &Context,
    sm: &SourceMgr,
    name: &str,
    (text, first_line): (&str, u32),
    diags: &[Diagnostic],
) -> bool {
    let expected = match nart_ir::diag::parse_expected_at(text, first_line) {
        Ok(e) => e,
        Err((line, col, msg)) => {
            sayln!("{name}:{line}:{col}: error: {msg}");
            return false;
        }
    };
    let problems = nart_ir::diag::check_expected(ctx, name, &expected, diags);
    for (pos, msg) in &problems {
        match pos {
            Some((line, col)) => {
                sayln!("{name}:{line}:{col}: error: {msg}");
                if let Some(src) = sm.line(name, *line) {
                    sayln!("{src}");
                    sayln!("{}^", " ".repeat(col.saturating_sub(1) as usize));
                }
            }
            None => sayln!("{name}: error: {msg}"),
        }
    }
    problems.is_empty()
}

fn run_onnx(
    tool: &Tool<'_>,
    opts: &Options,
    pipeline: &mut nart_pass::PassManager,
    io: &Io,
    bytes: &[u8],
    out: &mut Output,
    phases: &mut Phases,
) -> Result<bool, String> {
    let t = Instant::now();
    let mut ctx = tool.new_context(opts);
    let dir = io.input.as_deref();
    let import_opts = nart_onnx::ImportOptions {
        allow_unknown_ops: opts.allow_unregistered,
    };
    // An ONNX file has no text to show under a diagnostic: render without source lines.
    let report = |ctx: &Context, errs: Vec<Diagnostic>| {
        let sm = SourceMgr::new();
        for d in &errs {
            say!("{}", sm.render(ctx, d));
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
    out.print(&ctx, module, opts)?;
    phases.output += t.elapsed();
    Ok(true)
}

/// Reads the input; returns its name for messages (lossy where the path is not UTF-8) and its
/// bytes.
fn read_input(input: Option<&Path>) -> Result<(String, Vec<u8>), String> {
    let Some(path) = input else {
        let mut buf = Vec::new();
        std::io::stdin()
            .read_to_end(&mut buf)
            .map_err(|e| format!("cannot read standard input: {e}"))?;
        return Ok(("<stdin>".to_string(), buf));
    };
    let name = path.to_string_lossy().into_owned();
    let bytes = std::fs::read(path).map_err(|e| format!("cannot open input file '{name}': {e}"))?;
    Ok((name, bytes))
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
    write_stdout(out.as_bytes())
}
