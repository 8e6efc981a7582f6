//! The library's contract: deterministic output, every untranslatable op reported through
//! the API as well as the tool, and errors (never panics) from the JIT and target machines.

mod common;

use common::{context, parse};
use nart_llvm::{Error, Jit, Machine};

const MODULE: &str = r#"
func.func @f(%a: i32, %b: i32) -> i32 {
  %0 = arith.muli %a, %b : i32
  %1 = arith.cmpi sgt, %0, %a : i32
  cf.cond_br %1, ^bb1(%0 : i32), ^bb1(%a : i32)
^bb1(%x: i32):
  return %x : i32
}
"#;

fn translate_text(text: &str) -> String {
    let mut ctx = context();
    let m = parse(&mut ctx, text);
    let ll = nart_llvm::inkwell::context::Context::create();
    let llmod = nart_llvm::translate_module(&ctx, m, &ll, "m").expect("translates");
    llmod.print_to_string().to_string()
}

#[test]
fn translation_is_deterministic() {
    let a = translate_text(MODULE);
    let b = translate_text(MODULE);
    assert_eq!(a, b);
    assert!(a.contains("define i32 @f(i32 %0, i32 %1)"), "{a}");
}

#[test]
fn every_untranslatable_op_is_an_error_with_its_location() {
    let mut ctx = context();
    ctx.allow_unregistered = true;
    let m = parse(
        &mut ctx,
        "func.func @g(%a: i32) -> i32 {\n  %0 = \"x.y\"(%a) : (i32) -> i32\n  %1 = \"x.z\"(%0) : (i32) -> i32\n  return %1 : i32\n}\n",
    );
    let Err(Error::Translate(diags)) = nart_llvm::jit_module(&ctx, m) else {
        panic!("an untranslatable module must be refused");
    };
    let lines: Vec<u32> = diags
        .iter()
        .map(|d| ctx.loc_file_line_col(d.loc).expect("a file location").1)
        .collect();
    assert_eq!(lines, vec![2, 3]);
    assert!(diags[0]
        .message
        .contains("'x.y' op has no translation to LLVM IR"));
}

#[test]
fn jit_runs_and_reports_missing_symbols() {
    let mut ctx = context();
    let m = parse(&mut ctx, MODULE);
    let jit = nart_llvm::jit_module(&ctx, m).expect("compiles");
    let f: extern "C" fn(i32, i32) -> i32 =
        // SAFETY: @f has this signature.
        unsafe { std::mem::transmute(jit.lookup("f").expect("f is there")) };
    assert_eq!(f(3, 4), 12);
    assert_eq!(f(-3, 4), -3);
    assert!(matches!(jit.lookup("nope"), Err(Error::Jit(_))));
    assert!(matches!(
        Jit::new().and_then(|mut j| j.add_object(b"not an object")),
        Err(Error::Jit(_))
    ));
}

#[test]
fn bad_targets_are_errors() {
    assert!(matches!(
        Machine::new("nonsense-unknown-none", "generic", ""),
        Err(Error::Target(_))
    ));
    let host = Machine::host().expect("the host machine");
    assert!(!host.cpu().is_empty());
    let ll = nart_llvm::inkwell::context::Context::create();
    let llmod = ll.create_module("m");
    assert!(matches!(
        host.optimize(&llmod, "no-such-pass"),
        Err(Error::Llvm(_))
    ));
}
