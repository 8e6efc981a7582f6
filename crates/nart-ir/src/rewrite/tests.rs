//! Tests of the rewriter: each mutation is applied with the journal on and the IR checked,
//! rolled back and checked to print exactly as before, then applied again and committed, and
//! the erased objects checked to be tombstones.

use super::*;
use crate::parser::parse_source;
use crate::printer::{print_op, PrintOptions};

/// A function with two blocks: the entry computes and branches, `^bb1` returns.
const SRC: &str = r#"
"t.func"() ({
^bb0(%a: i32, %b: i32):
  %0 = "t.add"(%a, %b) : (i32, i32) -> i32
  %1 = "t.mul"(%0, %b) {tag = 1 : i32} : (i32, i32) -> i32
  "t.print"(%a) : (i32) -> ()
  "t.br"(%1)[^bb1] : (i32) -> ()
^bb1(%x: i32):
  "t.ret"(%x) : (i32) -> ()
}) : () -> ()
"#;

/// A function with an op holding a region that uses a value from outside, and an unreachable
/// block.
const NESTED: &str = r#"
"t.func"() ({
^bb0(%a: i32):
  %0 = "t.add"(%a, %a) : (i32, i32) -> i32
  "t.wrap"() ({
  ^bb0(%y: i32):
    "t.use"(%0, %y) : (i32, i32) -> ()
  }) : () -> ()
  "t.ret"() : () -> ()
^bb1:
  "t.dead"(%a, %0) : (i32, i32) -> ()
  "t.ret"() : () -> ()
}) : () -> ()
"#;

fn parse(src: &str) -> (Context, Op) {
    let mut ctx = Context::new();
    ctx.allow_unregistered = true;
    let m = parse_source(&mut ctx, "t.mlir", src).expect("test input parses");
    (ctx, m)
}

fn print(ctx: &Context, m: Op) -> String {
    print_op(ctx, m, &PrintOptions::default())
}

/// The `n`th op named `name` under `m`, in pre-order.
fn nth(ctx: &Context, m: Op, name: &str, n: usize) -> Op {
    ctx.collect_ops(m, WalkOrder::PreOrder)
        .into_iter()
        .filter(|&o| ctx.op_name_str(o) == name)
        .nth(n)
        .unwrap_or_else(|| panic!("no op #{n} named {name}"))
}

fn op(ctx: &Context, m: Op, name: &str) -> Op {
    nth(ctx, m, name, 0)
}

/// The `i`th block of the function's body.
fn block(ctx: &Context, m: Op, i: usize) -> Block {
    let f = op(ctx, m, "t.func");
    ctx.region_blocks(ctx.region(f, 0))[i]
}

/// Checks that use-lists are exact and that every user of a value is a live op under `root`:
/// an erased op, even one waiting for the commit, uses nothing.
fn check_use_lists(ctx: &Context, root: Op) {
    for (vi, v) in ctx.values.iter().enumerate() {
        for (pos, u) in v.uses.iter().enumerate() {
            let d = &ctx.ops[u.op.0 as usize];
            assert!(!d.erased, "a tombstone uses value {vi}");
            assert_eq!(
                d.operands[u.index as usize],
                Value(vi as u32),
                "operand slot"
            );
            assert_eq!(d.operand_pos[u.index as usize], pos as u32, "back-pointer");
            assert!(
                ctx.is_ancestor(root, u.op),
                "value {vi} is used by '{}', which is not in the IR",
                ctx.op_name_str(u.op)
            );
        }
    }
    for (oi, d) in ctx.ops.iter().enumerate() {
        if d.erased {
            assert!(d.operands.is_empty(), "a tombstone keeps no operands");
            continue;
        }
        for (i, v) in d.operands.iter().enumerate() {
            let u = Use {
                op: Op(oi as u32),
                index: i as u32,
            };
            assert!(ctx.uses(*v).contains(&u), "a use-list misses an operand");
        }
    }
}

/// What [`check`] gives back: the committed IR and what the mutation returned on each run.
/// Both runs change the same ops; only the ops they create differ.
struct Checked<T> {
    ctx: Context,
    /// What `f` returned on the run that was rolled back.
    rolled_back: T,
    /// What `f` returned on the run that was committed.
    committed: T,
}

/// Applies `f` with the journal on and checks that the IR prints as `expected`; rolls back and
/// checks that it prints exactly as before; applies `f` again, commits, and checks `expected`
/// again.
fn check<T>(
    src: &str,
    opts: &PrintOptions,
    f: impl Fn(&mut PatternRewriter<'_>, Op) -> T,
    expected: &str,
) -> Checked<T> {
    let (mut ctx, m) = parse(src);
    let before = print_op(&ctx, m, opts);
    let rolled_back = {
        let mut rw = PatternRewriter::new(&mut ctx).with_journal();
        let cp = rw.checkpoint();
        let t = f(&mut rw, m);
        assert_eq!(print_op(&rw, m, opts).trim(), expected.trim(), "after");
        check_use_lists(&rw, m);
        rw.rollback(cp);
        assert_eq!(print_op(&rw, m, opts), before, "after rollback");
        check_use_lists(&rw, m);
        let (created, erased, modified) = rw.take_changes();
        assert!(
            created.is_empty() && erased.is_empty() && modified.is_empty(),
            "a rollback forgets the changes made since the checkpoint"
        );
        t
    };
    let committed = {
        let mut rw = PatternRewriter::new(&mut ctx).with_journal();
        let t = f(&mut rw, m);
        rw.commit();
        t
    };
    assert_eq!(
        print_op(&ctx, m, opts).trim(),
        expected.trim(),
        "after commit"
    );
    check_use_lists(&ctx, m);
    crate::verify::verify(&ctx, m).expect("the committed IR verifies");
    Checked {
        ctx,
        rolled_back,
        committed,
    }
}

fn plain() -> PrintOptions {
    PrintOptions::default()
}

fn state(
    rw: &mut PatternRewriter<'_>,
    name: &str,
    operands: &[Value],
    results: &[Type],
) -> OperationState {
    let loc = rw.unknown_loc();
    OperationState::new(rw.uniq(), name, loc)
        .operands(operands)
        .results(results)
}

// ----- creating ops -----

#[test]
fn create_at_each_insertion_point() {
    let c = check(
        SRC,
        &plain(),
        |rw, m| {
            let (add, mul) = (op(rw, m, "t.add"), op(rw, m, "t.mul"));
            let v0 = rw.result(add, 0);
            let i32t = rw.uniq().i32_type();
            rw.set_insertion_point_before(mul);
            let st = state(rw, "t.new", &[v0], &[i32t]);
            let new = rw.create(st);
            rw.set_insertion_point_after(add);
            let st = state(rw, "t.after1", &[], &[]);
            rw.create(st);
            let st = state(rw, "t.after2", &[], &[]);
            rw.create(st);
            rw.set_insertion_point_to_start(block(rw, m, 1));
            let st = state(rw, "t.s1", &[], &[]);
            rw.create(st);
            let st = state(rw, "t.s2", &[], &[]);
            rw.create(st);
            rw.set_insertion_point_to_end(block(rw, m, 1));
            let st = state(rw, "t.end", &[], &[]);
            rw.create(st);
            let (created, erased, modified) = rw.take_changes();
            assert_eq!(created.len(), 6);
            assert!(erased.is_empty() && modified.is_empty());
            new
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    "t.after1"() : () -> ()
    "t.after2"() : () -> ()
    %1 = "t.new"(%0) : (i32) -> i32
    %2 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%2)[^bb1] : (i32) -> ()
  ^bb1(%3: i32):  // pred: ^bb0
    "t.s1"() : () -> ()
    "t.s2"() : () -> ()
    "t.ret"(%3) : (i32) -> ()
    "t.end"() : () -> ()
  }) : () -> ()
}
"#,
    );
    // An op created in the rolled-back run is a tombstone; the committed one is alive.
    assert!(c.ctx.is_erased(c.rolled_back));
    assert!(!c.ctx.is_erased(c.committed));
}

#[test]
fn insert_a_detached_op() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            rw.set_insertion_point(InsertPoint::Detached);
            let st = state(rw, "t.loose", &[], &[]);
            let loose = rw.create(st);
            assert_eq!(rw.op_parent_block(loose), None);
            rw.set_insertion_point_before(op(rw, m, "t.ret"));
            rw.insert(loose);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "t.loose"() : () -> ()
    "t.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn clone_an_op_with_its_region() {
    let c = check(
        NESTED,
        &plain(),
        |rw, m| {
            rw.set_insertion_point_before(op(rw, m, "t.ret"));
            rw.clone_op(op(rw, m, "t.wrap"))
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32):
    %0 = "t.add"(%arg0, %arg0) : (i32, i32) -> i32
    "t.wrap"() ({
    ^bb0(%arg1: i32):
      "t.use"(%0, %arg1) : (i32, i32) -> ()
    }) : () -> ()
    "t.wrap"() ({
    ^bb0(%arg1: i32):
      "t.use"(%0, %arg1) : (i32, i32) -> ()
    }) : () -> ()
    "t.ret"() : () -> ()
  ^bb1:  // no predecessors
    "t.dead"(%arg0, %0) : (i32, i32) -> ()
    "t.ret"() : () -> ()
  }) : () -> ()
}
"#,
    );
    // Rolling back the clone erased it with everything nested in it.
    let nested = c.ctx.nested_ops(c.rolled_back);
    assert!(c.ctx.is_erased(c.rolled_back));
    assert!(nested.iter().all(|&o| c.ctx.is_erased(o)));
}

// ----- replacing and erasing -----

#[test]
fn replace_all_uses_with() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let add = op(rw, m, "t.add");
            let (v0, a) = (rw.result(add, 0), rw.operand(add, 0));
            rw.replace_all_uses_with(v0, a);
            assert!(!rw.has_uses(v0));
            let (_, _, modified) = rw.take_changes();
            assert_eq!(modified, vec![op(rw, m, "t.mul")]);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%arg0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "t.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn replace_uses_where() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let (add, mul) = (op(rw, m, "t.add"), op(rw, m, "t.mul"));
            let (a, b) = (rw.operand(add, 0), rw.operand(add, 1));
            rw.replace_uses_where(b, a, |user| user == mul);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg0) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "t.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn replace_op_waits_for_the_commit_to_erase() {
    let c = check(
        SRC,
        &plain(),
        |rw, m| {
            let (add, mul) = (op(rw, m, "t.add"), op(rw, m, "t.mul"));
            let v0 = rw.result(add, 0);
            rw.replace_op(mul, &[v0]);
            // Detached, using nothing, but not a tombstone before the commit.
            assert!(!rw.is_erased(mul));
            assert_eq!(rw.op_parent_block(mul), None);
            assert_eq!(rw.uses(v0).len(), 1, "only the branch uses %0 now");
            let (created, erased, modified) = rw.take_changes();
            assert!(created.is_empty());
            assert_eq!(erased, vec![mul]);
            assert!(modified.contains(&op(rw, m, "t.br")));
            assert!(modified.contains(&add), "the definer of an erased operand");
            mul
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%0)[^bb1] : (i32) -> ()
  ^bb1(%1: i32):  // pred: ^bb0
    "t.ret"(%1) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
    assert!(
        c.ctx.is_erased(c.committed),
        "the commit made it a tombstone"
    );
}

#[test]
fn replace_op_with_new() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let add = op(rw, m, "t.add");
            let ops = rw.operands(add).to_vec();
            let i32t = rw.uniq().i32_type();
            let st = state(rw, "t.sub", &ops, &[i32t]);
            rw.replace_op_with_new(add, st)
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.sub"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "t.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn erase_op_drops_nested_uses_until_the_commit() {
    let c = check(
        NESTED,
        &plain(),
        |rw, m| {
            let (add, wrap) = (op(rw, m, "t.add"), op(rw, m, "t.wrap"));
            let inner = op(rw, m, "t.use");
            let v0 = rw.result(add, 0);
            assert_eq!(rw.uses(v0).len(), 2);
            rw.erase_op(wrap);
            assert_eq!(rw.uses(v0).len(), 1, "the nested use is dropped");
            assert!(!rw.is_erased(inner));
            (wrap, inner)
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32):
    %0 = "t.add"(%arg0, %arg0) : (i32, i32) -> i32
    "t.ret"() : () -> ()
  ^bb1:  // no predecessors
    "t.dead"(%arg0, %0) : (i32, i32) -> ()
    "t.ret"() : () -> ()
  }) : () -> ()
}
"#,
    );
    let (wrap, inner) = c.committed;
    assert!(c.ctx.is_erased(wrap) && c.ctx.is_erased(inner));
}

#[test]
fn erase_without_the_journal_is_immediate() {
    let (mut ctx, m) = parse(NESTED);
    let wrap = op(&ctx, m, "t.wrap");
    let mut rw = PatternRewriter::new(&mut ctx);
    assert!(!rw.has_journal());
    rw.erase_op(wrap);
    assert!(rw.is_erased(wrap));
    drop(rw);
    check_use_lists(&ctx, m);
}

// ----- updating ops in place -----

#[test]
fn set_operands_and_operand() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let (add, mul) = (op(rw, m, "t.add"), op(rw, m, "t.mul"));
            let (a, b) = (rw.operand(add, 0), rw.operand(add, 1));
            rw.set_operands(add, &[b, a, b]);
            rw.set_operand(mul, 1, a);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg1, %arg0, %arg1) : (i32, i32, i32) -> i32
    %1 = "t.mul"(%0, %arg0) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "t.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn set_and_remove_attributes_and_properties() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let (add, mul, print) = (op(rw, m, "t.add"), op(rw, m, "t.mul"), op(rw, m, "t.print"));
            let two = rw.uniq().i64_attr(2);
            let s = rw.uniq().string_attr("s");
            rw.set_attr(add, "b", two);
            rw.set_attr(add, "a", s);
            rw.set_attr(mul, "tag", two);
            rw.set_prop(print, "p", two);
            assert_eq!(rw.remove_attr(add, "b"), Some(two));
            assert_eq!(rw.remove_attr(add, "missing"), None);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) {a = "s"} : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg1) {tag = 2 : i64} : (i32, i32) -> i32
    "t.print"(%arg0) <{p = 2 : i64}> : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "t.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn remove_a_property() {
    let src = r#""t.f"() <{p = 1 : i32}> {q = 2 : i32} : () -> ()"#;
    check(
        src,
        &plain(),
        |rw, m| {
            let f = op(rw, m, "t.f");
            assert!(rw.remove_attr(f, "p").is_some());
        },
        r#"
module {
  "t.f"() {q = 2 : i32} : () -> ()
}
"#,
    );
}

#[test]
fn set_location() {
    check(
        SRC,
        &PrintOptions {
            debug_info: true,
            ..PrintOptions::default()
        },
        |rw, m| {
            let print = op(rw, m, "t.print");
            let loc = rw.uniq().file_loc("other.mlir", 7, 9);
            rw.set_loc(print, loc);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32 loc("t.mlir":3:6), %arg1: i32 loc("t.mlir":3:15)):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32 loc("t.mlir":4:8)
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32 loc("t.mlir":5:8)
    "t.print"(%arg0) : (i32) -> () loc("other.mlir":7:9)
    "t.br"(%1)[^bb1] : (i32) -> () loc("t.mlir":7:3)
  ^bb1(%2: i32 loc("t.mlir":8:6)):  // pred: ^bb0
    "t.ret"(%2) : (i32) -> () loc("t.mlir":9:3)
  }) : () -> () loc("t.mlir":2:1)
} loc("t.mlir":0:0)
"#,
    );
}

#[test]
fn set_value_type() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let add = op(rw, m, "t.add");
            let v0 = rw.result(add, 0);
            let arg = rw.block_args(block(rw, m, 1))[0];
            let i64t = rw.uniq().i64_type();
            rw.set_value_type(v0, i64t);
            rw.set_value_type(arg, i64t);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i64
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i64, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i64):  // pred: ^bb0
    "t.ret"(%2) : (i64) -> ()
  }) : () -> ()
}
"#,
    );
}

// ----- moving ops -----

#[test]
fn move_ops() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let (add, print, ret) = (op(rw, m, "t.add"), op(rw, m, "t.print"), op(rw, m, "t.ret"));
            rw.move_op_before(print, add);
            let br = op(rw, m, "t.br");
            let st = state(rw, "t.marker", &[], &[]);
            rw.set_insertion_point_before(br);
            let marker = rw.create(st);
            rw.move_op_after(marker, ret);
            rw.move_op_to_end(marker, block(rw, m, 0));
            rw.move_op_after(marker, print);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    "t.print"(%arg0) : (i32) -> ()
    "t.marker"() : () -> ()
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "t.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

// ----- blocks -----

#[test]
fn create_block_and_retarget_a_successor() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let f = op(rw, m, "t.func");
            let region = rw.region(f, 0);
            let (i32t, loc) = (rw.uniq().i32_type(), rw.unknown_loc());
            let bb1 = block(rw, m, 1);
            let new = rw.create_block(region, Some(bb1), &[i32t], loc);
            assert_eq!(rw.insertion_point(), InsertPoint::BlockEnd(new));
            let arg = rw.block_args(new)[0];
            let st = state(rw, "t.ret", &[arg], &[]);
            rw.create(st);
            rw.set_successor(op(rw, m, "t.br"), 0, new);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: i32):  // pred: ^bb0
    "t.ret"(%2) : (i32) -> ()
  ^bb2(%3: i32):  // no predecessors
    "t.ret"(%3) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn erase_block_waits_for_the_commit() {
    let c = check(
        NESTED,
        &plain(),
        |rw, m| {
            let dead = op(rw, m, "t.dead");
            let bb1 = rw.op_parent_block(dead).expect("t.dead is in a block");
            let a = rw.operand(dead, 0);
            let uses_before = rw.uses(a).len();
            rw.erase_block(bb1);
            assert_eq!(rw.uses(a).len(), uses_before - 1);
            assert!(!rw.is_block_erased(bb1));
            (bb1, dead)
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32):
    %0 = "t.add"(%arg0, %arg0) : (i32, i32) -> i32
    "t.wrap"() ({
    ^bb0(%arg1: i32):
      "t.use"(%0, %arg1) : (i32, i32) -> ()
    }) : () -> ()
    "t.ret"() : () -> ()
  }) : () -> ()
}
"#,
    );
    let (bb1, dead) = c.committed;
    assert!(c.ctx.is_block_erased(bb1) && c.ctx.is_erased(dead));
}

#[test]
fn add_insert_and_erase_block_arguments() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let bb1 = block(rw, m, 1);
            let (i64t, f32t, loc) = (rw.uniq().i64_type(), rw.uniq().f32_type(), rw.unknown_loc());
            let x = rw.block_args(bb1)[0];
            let added = rw.add_block_arg(bb1, i64t, loc);
            let inserted = rw.insert_block_arg(bb1, 0, f32t, loc);
            assert_eq!(rw.block_args(bb1), &[inserted, x, added]);
            assert_eq!(
                rw.value_def(x),
                crate::ValueDef::BlockArg {
                    block: bb1,
                    index: 1
                }
            );
            rw.replace_all_uses_with(x, added);
            rw.erase_block_arg(bb1, 1);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb1] : (i32) -> ()
  ^bb1(%2: f32, %3: i64):  // pred: ^bb0
    "t.ret"(%3) : (i64) -> ()
  }) : () -> ()
}
"#,
    );
}

/// What inlining `^bb1` into the entry block gives.
const INLINED: &str = r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
    "t.print"(%arg0) : (i32) -> ()
    "t.ret"(%1) : (i32) -> ()
  }) : () -> ()
}
"#;

#[test]
fn inline_block_before() {
    let c = check(
        SRC,
        &plain(),
        |rw, m| {
            let (mul, br) = (op(rw, m, "t.mul"), op(rw, m, "t.br"));
            let bb1 = block(rw, m, 1);
            let v1 = rw.result(mul, 0);
            rw.inline_block_before(bb1, br, &[v1]);
            rw.erase_op(br);
            bb1
        },
        INLINED,
    );
    assert!(c.ctx.is_block_erased(c.committed));
}

#[test]
fn merge_blocks() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let (mul, br) = (op(rw, m, "t.mul"), op(rw, m, "t.br"));
            let (bb0, bb1) = (block(rw, m, 0), block(rw, m, 1));
            let v1 = rw.result(mul, 0);
            rw.erase_op(br);
            rw.merge_blocks(bb1, bb0, &[v1]);
        },
        INLINED,
    );
}

#[test]
fn split_block_keeps_the_insertion_point() {
    check(
        SRC,
        &plain(),
        |rw, m| {
            let (add, print) = (op(rw, m, "t.add"), op(rw, m, "t.print"));
            rw.set_insertion_point_after(add);
            let new = rw.split_block(block(rw, m, 0), print);
            assert_eq!(rw.insertion_point(), InsertPoint::After(add));
            assert_eq!(rw.op_parent_block(print), Some(new));
            assert_eq!(block(rw, m, 1), new);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i32):
    %0 = "t.add"(%arg0, %arg1) : (i32, i32) -> i32
    %1 = "t.mul"(%0, %arg1) {tag = 1 : i32} : (i32, i32) -> i32
  ^bb1:  // no predecessors
    "t.print"(%arg0) : (i32) -> ()
    "t.br"(%1)[^bb2] : (i32) -> ()
  ^bb2(%2: i32):  // pred: ^bb1
    "t.ret"(%2) : (i32) -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn inline_region_into_a_new_op() {
    check(
        NESTED,
        &plain(),
        |rw, m| {
            let wrap = op(rw, m, "t.wrap");
            let from = rw.region(wrap, 0);
            let region = rw.create_region();
            let loc = rw.op_loc(wrap);
            rw.set_insertion_point_before(wrap);
            let st = OperationState::new(rw.uniq(), "t.wrap2", loc).regions(&[region]);
            let new = rw.create(st);
            rw.inline_region_before(from, region, None);
            assert!(rw.region_blocks(from).is_empty());
            rw.erase_op(wrap);
            new
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32):
    %0 = "t.add"(%arg0, %arg0) : (i32, i32) -> i32
    "t.wrap2"() ({
    ^bb0(%arg1: i32):
      "t.use"(%0, %arg1) : (i32, i32) -> ()
    }) : () -> ()
    "t.ret"() : () -> ()
  ^bb1:  // no predecessors
    "t.dead"(%arg0, %0) : (i32, i32) -> ()
    "t.ret"() : () -> ()
  }) : () -> ()
}
"#,
    );
}

#[test]
fn move_a_block_into_another_region() {
    check(
        NESTED,
        &plain(),
        |rw, m| {
            let f = op(rw, m, "t.func");
            let (body, inner) = (rw.region(f, 0), rw.region(op(rw, m, "t.wrap"), 0));
            let (entry, dead) = (block(rw, m, 0), block(rw, m, 1));
            rw.move_block_before(dead, body, Some(entry));
            assert_eq!(rw.region_blocks(body), &[dead, entry]);
            rw.move_block_before(dead, inner, None);
            assert_eq!(rw.region_blocks(body), &[entry]);
        },
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32):
    %0 = "t.add"(%arg0, %arg0) : (i32, i32) -> i32
    "t.wrap"() ({
    ^bb0(%arg1: i32):
      "t.use"(%0, %arg1) : (i32, i32) -> ()
    ^bb1:  // no predecessors
      "t.dead"(%arg0, %0) : (i32, i32) -> ()
      "t.ret"() : () -> ()
    }) : () -> ()
    "t.ret"() : () -> ()
  }) : () -> ()
}
"#,
    );
}

// ----- the driver's side -----

#[test]
fn match_failure_records_the_reason() {
    let (mut ctx, _) = parse(SRC);
    let mut rw = PatternRewriter::new(&mut ctx);
    assert_eq!(rw.take_match_failure(), None);
    assert!(!rw.match_failure("the operand is not a constant"));
    assert_eq!(
        rw.take_match_failure().as_deref(),
        Some("the operand is not a constant")
    );
    assert_eq!(rw.take_match_failure(), None, "taking it clears it");
}

#[test]
fn nested_checkpoints_roll_back_in_steps() {
    let (mut ctx, m) = parse(SRC);
    let original = print(&ctx, m);
    let mut rw = PatternRewriter::new(&mut ctx).with_journal();
    let outer = rw.checkpoint();
    let add = op(&rw, m, "t.add");
    let one = rw.uniq().i64_attr(1);
    rw.set_attr(add, "first", one);
    let after_first = print(&rw, m);
    let inner = rw.checkpoint();
    let mul = op(&rw, m, "t.mul");
    let v0 = rw.result(add, 0);
    rw.replace_op(mul, &[v0]);
    rw.erase_op(op(&rw, m, "t.print"));
    assert_ne!(print(&rw, m), after_first);
    rw.rollback(inner);
    assert_eq!(print(&rw, m), after_first);
    check_use_lists(&rw, m);
    let (_, erased, modified) = rw.take_changes();
    assert!(erased.is_empty(), "the erasures were rolled back");
    assert_eq!(
        modified,
        vec![add],
        "the change before the inner checkpoint stays"
    );
    rw.rollback(outer);
    assert_eq!(print(&rw, m), original);
    // A commit with nothing pending changes nothing.
    rw.commit();
    drop(rw);
    assert_eq!(print(&ctx, m), original);
    check_use_lists(&ctx, m);
}

#[test]
fn a_sequence_of_every_kind_rolls_back_exactly() {
    let (mut ctx, m) = parse(NESTED);
    let original = print(&ctx, m);
    let mut rw = PatternRewriter::new(&mut ctx).with_journal();
    let cp = rw.checkpoint();
    let (add, wrap, dead) = (
        op(&rw, m, "t.add"),
        op(&rw, m, "t.wrap"),
        op(&rw, m, "t.dead"),
    );
    let v0 = rw.result(add, 0);
    let a = rw.operand(add, 0);
    let (i64t, loc) = (rw.uniq().i64_type(), rw.unknown_loc());
    // Clone, replace, retype, add arguments, erase blocks, split and inline, all interleaved.
    rw.set_insertion_point_before(wrap);
    let clone = rw.clone_op(add);
    let cv = rw.result(clone, 0);
    rw.replace_all_uses_with(v0, cv);
    rw.erase_op(add);
    rw.set_value_type(cv, i64t);
    let entry = block(&rw, m, 0);
    rw.add_block_arg(entry, i64t, loc);
    rw.erase_block(rw.op_parent_block(dead).expect("t.dead is in a block"));
    let tail = rw.split_block(entry, wrap);
    let first = rw.region_blocks(rw.region(wrap, 0))[0];
    let ret = op(&rw, m, "t.ret");
    rw.inline_block_before(first, ret, &[a]);
    rw.erase_op(wrap);
    rw.merge_blocks(tail, entry, &[]);
    check_use_lists(&rw, m);
    assert_eq!(
        print(&rw, m).trim(),
        r#"
module {
  "t.func"() ({
  ^bb0(%arg0: i32, %arg1: i64):
    %0 = "t.add"(%arg0, %arg0) : (i32, i32) -> i64
    "t.use"(%0, %arg0) : (i64, i32) -> ()
    "t.ret"() : () -> ()
  }) : () -> ()
}
"#
        .trim()
    );
    rw.rollback(cp);
    assert_eq!(print(&rw, m), original);
    check_use_lists(&rw, m);
    drop(rw);
    crate::verify::verify(&ctx, m).expect("the rolled-back IR verifies");
}
