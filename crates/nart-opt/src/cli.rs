//! Command-line parsing for `nart-opt` and the tools built on [`crate::main`], with mlir-opt's
//! flag names.
//!
//! Flags are parsed by hand because every registered pass is also a flag (`--cse`,
//! `--canonicalize=max-iterations=3`), which a static argument parser cannot express.

use nart_ir::printer::PrintOptions;
use nart_pass::IrPrintFilter;

/// Adds comma-separated pass names to a print filter (`--mlir-print-ir-after=cse,canonicalize`).
fn pass_filter(prev: IrPrintFilter, names: &str) -> IrPrintFilter {
    let mut list = match prev {
        IrPrintFilter::Passes(v) => v,
        IrPrintFilter::All => return IrPrintFilter::All,
        IrPrintFilter::None => Vec::new(),
    };
    list.extend(
        names
            .split(',')
            .filter(|n| !n.is_empty())
            .map(str::to_string),
    );
    IrPrintFilter::Passes(list)
}

/// Everything the command line asked for.
#[derive(Debug, Default)]
pub struct Options {
    /// Input path, `-` for standard input.
    pub input: String,
    /// Output path.
    pub output: Option<String>,
    /// `--split-input-file`.
    pub split_input_file: bool,
    /// `--verify-diagnostics`.
    pub verify_diagnostics: bool,
    /// `--allow-unregistered-dialect`.
    pub allow_unregistered: bool,
    /// Printing flags.
    pub print: PrintOptions,
    /// `--pass-pipeline=...`.
    pub pass_pipeline: Option<String>,
    /// Individual pass flags, in order: (name, options text).
    pub pass_flags: Vec<(String, String)>,
    /// `--dump-pass-pipeline`.
    pub dump_pass_pipeline: bool,
    /// `--list-dialects`.
    pub list_dialects: bool,
    /// `--list-ops`.
    pub list_ops: bool,
    /// `--emit-docs=DIR`.
    pub emit_docs: Option<String>,
    /// Instrumentation.
    pub instr: nart_pass::Instrumentation,
    /// `--mlir-timing`.
    pub timing: bool,
    /// `--mlir-pass-statistics`.
    pub statistics: bool,
}

/// What to do after parsing.
pub enum Parsed {
    /// Run with these options (boxed: they are much larger than the other variant).
    Run(Box<Options>),
    /// Print this text and exit successfully (`--help`, `--list-passes`, `--version`).
    Exit(String),
}

/// The `--help` text; `{name}` stands for the tool's name.
const HELP: &str = "\
OVERVIEW: nart modular optimizer driver

USAGE: {name} [options] <input file (.mlir or .onnx; - for stdin)>

OPTIONS:
  -o <file>                               Output file (default: stdout); a .onnx file gets an ONNX model
  --pass-pipeline=<pipeline>              A textual pass pipeline, e.g. 'builtin.module(func.func(canonicalize,cse))'
  --<pass-name>[=<options>]               Add a registered pass to the top-level pipeline (see --list-passes)
  --split-input-file                      Split the input at '// -----' lines and process each chunk independently
  --verify-diagnostics                    Check that emitted diagnostics match expected-* annotations in the input
  --allow-unregistered-dialect            Accept operations of unregistered dialects
  --mlir-print-op-generic                 Print every operation in the generic form
  --mlir-print-debuginfo                  Print locations
  --mlir-pretty-debuginfo                 Print locations as file:line:col (with --mlir-print-debuginfo)
  --mlir-disable-threading                Accepted for mlir-opt compatibility (nart runs on one thread)
  --mlir-print-local-scope                Print attributes in place, without #map aliases
  --mlir-elide-elementsattrs-if-larger=<n>  Elide dense elements attributes with more than n elements
  --no-verify-each / --verify-each=false  Do not run the verifier after each pass
  --print-ir-before-all                   Print the IR before every pass
  --print-ir-after-all                    Print the IR after every pass
  --print-ir-before=<passes>              Print the IR before the named passes (comma-separated)
  --print-ir-after=<passes>               Print the IR after the named passes (comma-separated)
  --print-ir-after-change                 Print the IR after a pass only when it changed the IR
  --print-ir-after-failure                Print the IR after a pass that failed
  --print-ir-module-scope                 Print the whole module, not only the op the pass ran on
  --mlir-timing                           Report the wall time of every pass
  --mlir-pass-statistics                  Report pass statistics
  --dump-pass-pipeline                    Print the pipeline that will run
  --list-passes                           List the registered passes and their options
  --list-dialects                         List the registered dialects
  --list-ops                              List the registered operations
  --emit-docs=<dir>                       Write one Markdown reference per dialect into <dir>
  --help                                  Show this text
  --version                               Show the version
";

fn value<'a>(
    flag: &str,
    inline: Option<&'a str>,
    rest: &mut impl Iterator<Item = &'a String>,
) -> Result<&'a str, String> {
    if let Some(v) = inline {
        return Ok(v);
    }
    rest.next()
        .map(|s| s.as_str())
        .ok_or_else(|| format!("flag '{flag}' needs a value"))
}

fn bool_value(flag: &str, inline: Option<&str>) -> Result<bool, String> {
    match inline {
        None | Some("true") | Some("1") => Ok(true),
        Some("false") | Some("0") => Ok(false),
        Some(v) => Err(format!("flag '{flag}' takes true or false, not '{v}'")),
    }
}

/// Parses the arguments (without the program name) of the tool `name`.
pub fn parse(
    name: &str,
    args: &[String],
    passes: &nart_pass::PassRegistry,
) -> Result<Parsed, String> {
    let tool = name;
    let mut o = Options {
        input: "-".to_string(),
        ..Options::default()
    };
    let mut input: Option<String> = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        if arg == "-" || !arg.starts_with('-') {
            if input.is_some() {
                return Err(format!("more than one input file given ('{arg}')"));
            }
            input = Some(arg.clone());
            continue;
        }
        if arg == "-o" {
            o.output = Some(value("-o", None, &mut it)?.to_string());
            continue;
        }
        let body = arg.trim_start_matches('-');
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (body, None),
        };
        match name {
            "help" | "h" => return Ok(Parsed::Exit(HELP.replace("{name}", tool))),
            "version" => {
                return Ok(Parsed::Exit(format!(
                    "{tool} {}\n",
                    env!("CARGO_PKG_VERSION")
                )))
            }
            "list-passes" => return Ok(Parsed::Exit(passes.list_passes())),
            "o" => o.output = Some(value("-o", inline, &mut it)?.to_string()),
            "split-input-file" => o.split_input_file = bool_value(name, inline)?,
            "verify-diagnostics" => o.verify_diagnostics = bool_value(name, inline)?,
            "allow-unregistered-dialect" => o.allow_unregistered = bool_value(name, inline)?,
            "mlir-print-op-generic" | "print-op-generic" => {
                o.print.generic = bool_value(name, inline)?
            }
            "mlir-print-debuginfo" => o.print.debug_info = bool_value(name, inline)?,
            "mlir-pretty-debuginfo" => o.print.pretty_debug_info = bool_value(name, inline)?,
            // nart runs on one thread: accepted for compatibility, nothing to disable.
            "mlir-disable-threading" => {
                bool_value(name, inline)?;
            }
            "mlir-print-local-scope" => o.print.local_scope = bool_value(name, inline)?,
            "mlir-elide-elementsattrs-if-larger" => {
                let v = value(name, inline, &mut it)?;
                o.print.elide_elements_larger_than = Some(
                    v.parse()
                        .map_err(|_| format!("'{name}' needs a number, not '{v}'"))?,
                );
            }
            "pass-pipeline" => o.pass_pipeline = Some(value(name, inline, &mut it)?.to_string()),
            "no-verify-each" => o.instr.verify_each = false,
            "verify-each" => o.instr.verify_each = bool_value(name, inline)?,
            "print-ir-before-all" | "mlir-print-ir-before-all" => {
                if bool_value(name, inline)? {
                    o.instr.print_before = IrPrintFilter::All;
                }
            }
            "print-ir-after-all" | "mlir-print-ir-after-all" => {
                if bool_value(name, inline)? {
                    o.instr.print_after = IrPrintFilter::All;
                }
            }
            "print-ir-before" | "mlir-print-ir-before" => {
                o.instr.print_before =
                    pass_filter(o.instr.print_before.clone(), value(name, inline, &mut it)?)
            }
            "print-ir-after" | "mlir-print-ir-after" => {
                o.instr.print_after =
                    pass_filter(o.instr.print_after.clone(), value(name, inline, &mut it)?)
            }
            "print-ir-after-change" | "mlir-print-ir-after-change" => {
                o.instr.print_after_change = bool_value(name, inline)?
            }
            "print-ir-after-failure" | "mlir-print-ir-after-failure" => {
                o.instr.print_after_failure = bool_value(name, inline)?
            }
            "print-ir-module-scope" | "mlir-print-ir-module-scope" => {
                o.instr.print_module_scope = bool_value(name, inline)?
            }
            "mlir-timing" => o.timing = bool_value(name, inline)?,
            "mlir-pass-statistics" => o.statistics = bool_value(name, inline)?,
            "dump-pass-pipeline" => o.dump_pass_pipeline = bool_value(name, inline)?,
            "list-dialects" => o.list_dialects = true,
            "list-ops" => o.list_ops = true,
            "emit-docs" => o.emit_docs = Some(value(name, inline, &mut it)?.to_string()),
            _ if passes.contains(name) => {
                o.pass_flags
                    .push((name.to_string(), inline.unwrap_or("").to_string()));
            }
            _ => return Err(format!("unknown command line argument '{arg}'")),
        }
    }
    if o.pass_pipeline.is_some() && !o.pass_flags.is_empty() {
        return Err("'--pass-pipeline' cannot be combined with individual pass flags".into());
    }
    o.input = input.unwrap_or_else(|| "-".to_string());
    o.instr.print_options = o.print.clone();
    Ok(Parsed::Run(Box::new(o)))
}

/// Builds the pass manager the options ask for, or the rendered pipeline error.
pub fn build_pipeline(
    o: &Options,
    passes: &nart_pass::PassRegistry,
) -> Result<nart_pass::PassManager, String> {
    let text = match &o.pass_pipeline {
        Some(p) => p.clone(),
        None => {
            let items: Vec<String> = o
                .pass_flags
                .iter()
                .map(|(n, opts)| {
                    if opts.is_empty() {
                        n.clone()
                    } else {
                        format!("{n}{{{opts}}}")
                    }
                })
                .collect();
            format!("builtin.module({})", items.join(","))
        }
    };
    let mut pm = nart_pass::PassManager::parse(&text, passes).map_err(|e| e.render())?;
    pm.instrumentation = o.instr.clone();
    Ok(pm)
}
