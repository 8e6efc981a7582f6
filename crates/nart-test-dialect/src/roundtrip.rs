//! Round trips through the parser, the verifier and the printer, for the tests of every
//! dialect's syntax: the custom form must be a fixpoint of parse-and-print, and the generic form
//! must parse back to the same IR.
//!
//! Each function starts from a new [`Context`] in which the `dialects` are registered (pass
//! [`crate::register`] for the `test` dialect, [`allow_unregistered`] for ops of no dialect).
//! Failures are returned as text, so a test can assert on the message: a parse error is
//! `parse: ` and a verifier error `verify: ` followed by the rendered diagnostics
//! (`input.mlir:2:7: error: ...`, the source line and a caret).
//!
//! ```
//! use nart_test_dialect::roundtrip::{check_generic_round_trip, check_round_trip};
//!
//! let text = "test.func @f(%arg0: i32) -> i32 {\n  test.return %arg0 : i32\n}\n";
//! let custom = check_round_trip(&[nart_test_dialect::register], text).unwrap();
//! assert!(custom.contains("test.return %arg0 : i32"));
//! let generic = check_generic_round_trip(&[nart_test_dialect::register], text).unwrap();
//! assert!(generic.contains("\"test.return\"(%arg0) : (i32) -> ()"));
//! ```

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Diagnostic, Op, SourceMgr};

use crate::ir::Register;

/// The file name diagnostics carry.
pub const FILE: &str = "input.mlir";

/// A registration that lets the context hold ops of unregistered dialects.
pub fn allow_unregistered(ctx: &mut Context) {
    ctx.allow_unregistered = true;
}

/// The options of the generic form.
pub fn generic() -> PrintOptions {
    PrintOptions {
        generic: true,
        ..PrintOptions::default()
    }
}

fn render(ctx: &Context, text: &str, what: &str, diags: &[Diagnostic]) -> String {
    let mut sm = SourceMgr::new();
    sm.add(FILE, text);
    let rendered: String = diags.iter().map(|d| sm.render(ctx, d)).collect();
    format!("{what}: {rendered}")
}

/// Parses `text` into a new context with `dialects` registered, and verifies it.
pub fn parse(dialects: &[Register], text: &str) -> Result<(Context, Op), String> {
    let mut ctx = Context::new();
    for r in dialects {
        r(&mut ctx);
    }
    let module = match nart_ir::parser::parse_source(&mut ctx, FILE, text) {
        Ok(m) => m,
        Err(e) => return Err(render(&ctx, text, "parse", &e)),
    };
    if let Err(e) = nart_ir::verify::verify(&ctx, module) {
        return Err(render(&ctx, text, "verify", &e));
    }
    Ok((ctx, module))
}

/// Parses and verifies `text`, and prints it with `opts`.
pub fn parse_print(
    dialects: &[Register],
    text: &str,
    opts: &PrintOptions,
) -> Result<String, String> {
    let (ctx, module) = parse(dialects, text)?;
    Ok(print_op(&ctx, module, opts))
}

/// Checks that printing `text` in the custom form is a fixpoint: the printout parses, verifies
/// and prints as itself. Returns the printout.
pub fn check_round_trip(dialects: &[Register], text: &str) -> Result<String, String> {
    check_round_trip_with(dialects, text, &PrintOptions::default())
}

/// [`check_round_trip`] with printing options (the generic form, debug info, ...).
pub fn check_round_trip_with(
    dialects: &[Register],
    text: &str,
    opts: &PrintOptions,
) -> Result<String, String> {
    let once = parse_print(dialects, text, opts)?;
    let twice = parse_print(dialects, &once, opts)
        .map_err(|e| format!("{e}\nwhile parsing the first printout:\n{once}"))?;
    if once != twice {
        return Err(format!(
            "printing is not a fixpoint; first printout:\n{once}\nsecond printout:\n{twice}"
        ));
    }
    Ok(once)
}

/// Checks that `text` printed in the generic form parses back to the same IR: its custom
/// printout is that of `text`. Returns the generic printout.
pub fn check_generic_round_trip(dialects: &[Register], text: &str) -> Result<String, String> {
    let custom = parse_print(dialects, text, &PrintOptions::default())?;
    let generic = parse_print(dialects, text, &generic())?;
    let back = parse_print(dialects, &generic, &PrintOptions::default())
        .map_err(|e| format!("{e}\nwhile parsing the generic printout:\n{generic}"))?;
    if back != custom {
        return Err(format!(
            "the generic form does not parse back to the same IR; custom printout:\n{custom}\n\
             generic printout:\n{generic}\nits custom printout:\n{back}"
        ));
    }
    Ok(generic)
}
