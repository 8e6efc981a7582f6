//! `filecheck`: the command-line driver, with LLVM FileCheck's options and exit statuses.
//!
//! Options are read from `FILECHECK_OPTS` and then from the command line, with one or two dashes,
//! values after `=` or in the next argument, as LLVM's `cl` library accepts them.

use std::io::{Read, Write};
use std::process::ExitCode;

use nart_filecheck::errors::FileCheckError;
use nart_filecheck::{run, DumpInput, Filter, Request};

struct Args {
    req: Request,
    check_file: Option<String>,
    input_file: String,
}

fn parse_bool(opt: &str, v: Option<&str>) -> Result<bool, FileCheckError> {
    match v {
        None | Some("true") | Some("TRUE") | Some("True") | Some("1") => Ok(true),
        Some("false") | Some("FALSE") | Some("False") | Some("0") => Ok(false),
        Some(v) => Err(FileCheckError::BadValue {
            option: opt.into(),
            value: v.into(),
        }),
    }
}

fn parse_args(argv: &[String]) -> Result<Args, FileCheckError> {
    let mut a = Args {
        req: Request::default(),
        check_file: None,
        input_file: "-".into(),
    };
    let mut dumps: Vec<DumpInput> = Vec::new();
    let mut filters: Vec<Filter> = Vec::new();
    let mut contexts: Vec<usize> = Vec::new();
    let mut i = 0;
    let mut positional_only = false;
    while i < argv.len() {
        let arg = &argv[i];
        i += 1;
        if positional_only || !arg.starts_with('-') || arg == "-" {
            if a.check_file.is_some() {
                return Err(FileCheckError::TooManyPositional);
            }
            a.check_file = Some(arg.clone());
            continue;
        }
        if arg == "--" {
            positional_only = true;
            continue;
        }
        let body = arg.trim_start_matches('-');
        if let Some(rest) = body.strip_prefix('D') {
            if !body.starts_with("D") || arg.starts_with("--") {
                return Err(FileCheckError::UnknownArgument(arg.clone()));
            }
            let v = if rest.is_empty() {
                let v = argv
                    .get(i)
                    .cloned()
                    .ok_or_else(|| FileCheckError::MissingValue("D".into()))?;
                i += 1;
                v
            } else {
                rest.to_string()
            };
            a.req.defines.push(v);
            continue;
        }
        let (name, inline) = match body.find('=') {
            Some(e) => (&body[..e], Some(&body[e + 1..])),
            None => (body, None),
        };
        let value = |i: &mut usize| -> Result<String, FileCheckError> {
            if let Some(v) = inline {
                return Ok(v.to_string());
            }
            let v = argv
                .get(*i)
                .cloned()
                .ok_or_else(|| FileCheckError::MissingValue(name.into()))?;
            *i += 1;
            Ok(v)
        };
        match name {
            "input-file" => a.input_file = value(&mut i)?,
            "check-prefix" | "check-prefixes" => {
                let v = value(&mut i)?;
                a.req
                    .check_prefixes
                    .extend(v.split(',').map(str::to_string));
            }
            "comment-prefixes" => {
                let v = value(&mut i)?;
                a.req
                    .comment_prefixes
                    .extend(v.split(',').map(str::to_string));
            }
            "implicit-check-not" => {
                let v = value(&mut i)?;
                a.req.implicit_check_not.push(v);
            }
            "dump-input" => {
                let v = value(&mut i)?;
                dumps.push(match v.as_str() {
                    "help" => DumpInput::Help,
                    "always" => DumpInput::Always,
                    "fail" => DumpInput::Fail,
                    "never" => DumpInput::Never,
                    _ => {
                        return Err(FileCheckError::BadValue {
                            option: "dump-input".into(),
                            value: v,
                        })
                    }
                });
            }
            "dump-input-filter" => {
                let v = value(&mut i)?;
                filters.push(match v.as_str() {
                    "all" => Filter::All,
                    "annotation-full" => Filter::AnnotationFull,
                    "annotation" => Filter::Annotation,
                    "error" => Filter::Error,
                    _ => {
                        return Err(FileCheckError::BadValue {
                            option: "dump-input-filter".into(),
                            value: v,
                        })
                    }
                });
            }
            "dump-input-context" => {
                let v = value(&mut i)?;
                let n = v.parse().map_err(|_| FileCheckError::BadValue {
                    option: "dump-input-context".into(),
                    value: v,
                })?;
                contexts.push(n);
            }
            "dump-input-label-width" => {
                value(&mut i)?;
            }
            "strict-whitespace" => a.req.strict_whitespace = parse_bool(name, inline)?,
            "ignore-case" => a.req.ignore_case = parse_bool(name, inline)?,
            "allow-empty" => a.req.allow_empty = parse_bool(name, inline)?,
            "allow-unused-prefixes" => a.req.allow_unused_prefixes = parse_bool(name, inline)?,
            "match-full-lines" => a.req.match_full_lines = parse_bool(name, inline)?,
            "enable-var-scope" => a.req.enable_var_scope = parse_bool(name, inline)?,
            "allow-deprecated-dag-overlap" => {
                a.req.allow_deprecated_dag_overlap = parse_bool(name, inline)?
            }
            "v" => a.req.verbose = parse_bool(name, inline)?,
            "vv" => a.req.verbose_verbose = parse_bool(name, inline)?,
            "color" => {
                parse_bool(name, inline)?;
            }
            _ => return Err(FileCheckError::UnknownArgument(arg.clone())),
        }
    }
    a.req.dump_input = dumps.into_iter().max().unwrap_or(DumpInput::Fail);
    a.req.dump_filter = filters.into_iter().max();
    a.req.dump_context = contexts.into_iter().max().unwrap_or(5);
    if a.req.verbose_verbose {
        a.req.verbose = true;
    }
    Ok(a)
}

fn main() -> ExitCode {
    let mut argv: Vec<String> = Vec::new();
    for (i, a) in std::env::args_os().enumerate() {
        match a.into_string() {
            Ok(s) => argv.push(s),
            Err(a) => {
                eprintln!(
                    "FileCheck: argument {i} is not valid UTF-8: {}",
                    a.to_string_lossy()
                );
                return ExitCode::from(2);
            }
        }
    }
    let prog = argv.first().cloned().unwrap_or_else(|| "filecheck".into());
    let mut all: Vec<String> = std::env::var("FILECHECK_OPTS")
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    all.extend(argv.iter().skip(1).cloned());
    let args = match parse_args(&all) {
        Ok(a) => a,
        Err(FileCheckError::BadValue { option, value }) => {
            eprintln!("FileCheck: for the --{option} option: Cannot find option named '{value}'!");
            return ExitCode::from(1);
        }
        Err(e) => {
            eprintln!("FileCheck: {e}  Try: '{prog} --help'");
            return ExitCode::from(1);
        }
    };
    if args.req.dump_input == DumpInput::Help {
        let out = run(&args.req, "", Ok(Vec::new()), "", || Ok(Vec::new()), "");
        print!("{}", out.stderr);
        return ExitCode::SUCCESS;
    }
    let Some(check_file) = args.check_file.clone() else {
        eprintln!("<check-file> not specified");
        return ExitCode::from(2);
    };
    let mut bad_define = false;
    for d in &args.req.defines {
        match d.find('=') {
            None => {
                eprintln!("Missing equal sign in command-line definition '-D{d}'");
                bad_define = true;
            }
            Some(0) => {
                eprintln!("Missing variable name in command-line definition '-D{d}'");
                bad_define = true;
            }
            Some(_) => {}
        }
    }
    if bad_define {
        return ExitCode::from(2);
    }
    let check = read_file_or_stdin(&check_file);
    let input_name = if args.input_file == "-" {
        "<stdin>".to_string()
    } else {
        args.input_file.clone()
    };
    let cmdline = format!(" {}", argv.join(" "));
    let input_file = args.input_file.clone();
    let out = run(
        &args.req,
        &check_file,
        check,
        &input_name,
        || read_file_or_stdin(&input_file),
        &cmdline,
    );
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(out.stderr.as_bytes());
    let _ = err.flush();
    ExitCode::from(out.status as u8)
}

fn read_file_or_stdin(path: &str) -> std::io::Result<Vec<u8>> {
    if path == "-" {
        let mut v = Vec::new();
        std::io::stdin().read_to_end(&mut v)?;
        Ok(v)
    } else {
        std::fs::read(path)
    }
}
