//! The tutorial's dialect at work: parse and print, verify, canonicalize, ask an interface,
//! attach one from outside, and lower to `arith`.

use nart_ir::interfaces::{OpCost, OpCostInterface};
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Op, WalkOrder};
use nart_rewrite::{apply_patterns_greedily, FrozenPatternSet, GreedyConfig};

const SRC: &str = r#"func.func @scale(%x: !fx.fixed<16, 8>) -> !fx.fixed<16, 8> {
  %one = fx.constant 1.0 as !fx.fixed<16, 8>
  %half = fx.constant 0.5 as !fx.fixed<16, 8>
  %0 = fx.mul %x, %one : !fx.fixed<16, 8>
  %1 = fx.mul %half, %0 round<floor> : !fx.fixed<16, 8>
  %2 = fx.add %1, %x : !fx.fixed<16, 8>
  return %2 : !fx.fixed<16, 8>
}
"#;

fn context() -> Context {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_tutorial_fixed_point::register(&mut ctx);
    ctx
}

fn parse(ctx: &mut Context, src: &str) -> Op {
    let m = nart_ir::parser::parse_source(ctx, "fx.mlir", src).expect("parses");
    nart_ir::verify::verify(ctx, m).expect("verifies");
    m
}

fn print(ctx: &Context, m: Op) -> String {
    print_op(ctx, m, &PrintOptions::default())
}

fn canonicalize(ctx: &mut Context, m: Op) {
    let statics: Vec<_> = ctx
        .registry
        .dialects()
        .flat_map(|d| d.ops.iter().flat_map(|o| o.canonicalize.iter().copied()))
        .collect();
    let patterns = FrozenPatternSet::new(statics, Vec::new());
    apply_patterns_greedily(ctx, m, &patterns, &GreedyConfig::default());
    nart_ir::verify::verify(ctx, m).expect("canonical IR verifies");
}

#[test]
fn prints_what_it_parses() {
    let mut ctx = context();
    let m = parse(&mut ctx, SRC);
    let text = print(&ctx, m);
    assert!(
        text.contains("%0 = fx.constant 1.000000e+00 as !fx.fixed<16, 8>"),
        "{text}"
    );
    assert!(
        text.contains("%3 = fx.mul %1, %2 round<floor> : !fx.fixed<16, 8>"),
        "{text}"
    );
    let again = parse(&mut ctx, &text);
    assert_eq!(print(&ctx, again), text);
    // The default rounding is stored (generic form) but not written (custom form).
    let generic = print_op(
        &ctx,
        m,
        &PrintOptions {
            generic: true,
            ..Default::default()
        },
    );
    assert!(
        generic.contains("rounding = #fx.round<nearest>"),
        "{generic}"
    );
}

#[test]
fn bad_input_gets_diagnostics() {
    for (src, want) in [
        ("func.func @f(%x: !fx.fixed<4, 9>) { return }", "invalid fixed-point type <4, 9>"),
        ("func.func @f(%x: !fx.float) { return }", "unknown  type `float` in dialect `fx`"),
        (
            "func.func @f(%x: !fx.fixed<8, 4>) {\n %0 = fx.mul %x, %x round<up> : !fx.fixed<8, 4>\n return }",
            "expected Rounding to be one of: nearest, floor",
        ),
        (
            "func.func @f(%x: i8) {\n %0 = fx.add %x, %x : i8\n return }",
            "must be fixed-point, but got 'i8'",
        ),
    ] {
        let mut ctx = context();
        let err = match nart_ir::parser::parse_source(&mut ctx, "bad.mlir", src) {
            Err(d) => d[0].message.clone(),
            Ok(m) => nart_ir::verify::verify(&ctx, m).expect_err(src)[0].message.clone(),
        };
        assert!(err.contains(want), "{src}: {err}");
    }
}

#[test]
fn canonicalization_uses_the_pattern_and_the_commutative_fold() {
    let mut ctx = context();
    let m = parse(&mut ctx, SRC);
    canonicalize(&mut ctx, m);
    let text = print(&ctx, m);
    // `x * 1.0` is gone (MulByOne), and the constant of `0.5 * x` moved right (Commutative).
    assert!(!text.contains("1.000000e+00"), "{text}");
    assert!(
        text.contains("%1 = fx.mul %arg0, %0 round<floor>"),
        "{text}"
    );
}

#[test]
fn interfaces_are_found_through_the_registry() {
    let mut ctx = context();
    let m = parse(&mut ctx, SRC);
    let muls: Vec<Op> = ctx
        .collect_ops(m, WalkOrder::PreOrder)
        .into_iter()
        .filter(|&o| ctx.op_name_str(o) == "fx.mul")
        .collect();
    let cost = ctx
        .op_interface::<dyn OpCostInterface>(muls[0])
        .and_then(|i| i.cost(&ctx, muls[0]));
    assert_eq!(
        cost,
        Some(OpCost {
            flops: 3.0,
            bytes: 6.0
        })
    );

    // A target crate attaches its own interface to ops it does not own.
    trait RunsOnMyChip: Sync {
        fn supported(&self) -> bool;
    }
    struct Yes;
    impl RunsOnMyChip for Yes {
        fn supported(&self) -> bool {
            true
        }
    }
    ctx.attach_interface::<dyn RunsOnMyChip>("fx.add", &Yes);
    let ops = ctx.collect_ops(m, WalkOrder::PreOrder);
    let on_chip: Vec<&str> = ops
        .iter()
        .filter(|&&o| {
            ctx.op_interface::<dyn RunsOnMyChip>(o)
                .is_some_and(|i| i.supported())
        })
        .map(|&o| ctx.op_name_str(o))
        .collect();
    assert_eq!(on_chip, ["fx.add"]);
}

#[test]
fn lowers_to_arith_and_computes_fixed_point_products() {
    let mut ctx = context();
    let m = parse(
        &mut ctx,
        r#"func.func @f() -> !fx.fixed<16, 8> {
  %a = fx.constant 1.5 as !fx.fixed<16, 8>
  %b = fx.constant 2.25 as !fx.fixed<16, 8>
  %p = fx.mul %a, %b : !fx.fixed<16, 8>
  return %p : !fx.fixed<16, 8>
}
"#,
    );
    nart_tutorial_fixed_point::lower::lower_to_arith(&mut ctx, m).expect("lowers");
    nart_ir::verify::verify(&ctx, m).expect("lowered IR verifies");
    let lowered = print(&ctx, m);
    assert!(lowered.contains("func.func @f() -> i16"), "{lowered}");
    assert!(!lowered.contains("fx."), "{lowered}");
    assert!(lowered.contains("arith.muli"), "{lowered}");
    // Folding the lowered arithmetic gives 1.5 * 2.25 = 3.375 = 864 / 2^8.
    canonicalize(&mut ctx, m);
    let folded = print(&ctx, m);
    assert!(folded.contains("arith.constant 864 : i16"), "{folded}");
}

#[test]
fn a_failed_lowering_reports_every_op_and_changes_nothing() {
    let mut ctx = context();
    ctx.allow_unregistered = true;
    let src = r#"func.func @f(%x: !fx.fixed<8, 4>) {
  %0 = fx.add %x, %x : !fx.fixed<8, 4>
  "other.use"(%0) : (!fx.fixed<8, 4>) -> ()
  %1 = fx.add %0, %0 : !fx.fixed<8, 4>
  "other.use"(%1) : (!fx.fixed<8, 4>) -> ()
  return
}
"#;
    let m = parse(&mut ctx, src);
    let before = print(&ctx, m);
    let err = nart_tutorial_fixed_point::lower::lower_to_arith(&mut ctx, m)
        .expect_err("other.use is not legal in a full conversion");
    assert_eq!(err.diagnostics.len(), 2, "{:?}", err.diagnostics);
    assert!(err.diagnostics[0]
        .message
        .contains("failed to legalize operation 'other.use'"));
    assert_eq!(print(&ctx, m), before);
}

/// Every Rust block of the chapter is a verbatim part of the crate.
#[test]
fn the_chapter_quotes_the_crate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let chapter = std::fs::read_to_string(dir.join("../define-a-dialect.md")).expect("chapter");
    let source = std::fs::read_to_string(dir.join("src/lib.rs")).expect("lib.rs")
        + &std::fs::read_to_string(dir.join("src/lower.rs")).expect("lower.rs");
    let mut blocks = 0;
    for block in chapter.split("```rust\n").skip(1) {
        let code = block.split("```").next().expect("a closing fence");
        let first = code.lines().next().unwrap_or("");
        assert!(
            source.contains(code.trim_end()),
            "the chapter's block starting `{first}` is not in the crate any more"
        );
        blocks += 1;
    }
    assert!(blocks >= 8, "only {blocks} Rust blocks");
    // The sizes the chapter states are the files' line counts.
    let lines = |p: &str| {
        std::fs::read_to_string(dir.join(p))
            .expect("a crate file")
            .lines()
            .count()
    };
    for (what, path) in [
        ("The crate is ", "src/lib.rs"),
        ("plus ", "src/lower.rs"),
        ("and ", "tests/tutorial.rs"),
    ] {
        let stated = format!("{what}{} lines", lines(path));
        assert!(
            chapter.contains(&stated),
            "the chapter should say `{stated}` ({path})"
        );
    }
}
