//! Tests of the dialect itself: every op round-trips in both forms, the verifiers, the folder,
//! the pattern, the interfaces, the type and the enum attribute.

use nart_ir::interfaces::{successor_operand_groups, CallOpInterface, CallableOpInterface};
use nart_ir::registry::{FoldOutcome, FoldResult};
use nart_ir::{PatternRewriter, RewritePattern};

use crate::roundtrip::{check_generic_round_trip, check_round_trip, parse, parse_print};
use crate::*;

const D: &[ir::Register] = &[register];

const EVERY_OP: &str = r#"module {
  test.func private @decl(i32, f32) -> i64
  test.func @f(%arg0: i32, %arg1: i32) -> i1 attributes {x} {
    %0 = test.constant 1 : i32
    %1 = test.add %arg0, %0 : i32
    %2 = test.cmp slt, %1, %arg1 : i32
    %3:2 = test.cast %1, %1 : i32, i32 to f32, f32
    %4 = test.cast to i8
    %5 = test.call @g(%3#0, %4) : (f32, i8) -> i64
    test.effect %5 : i64
    test.region {
      test.effect %1, %arg0 : i32, i32
    }
    %6 = test.with_flags flags<a, c> : !test.int<8>
    test.br ^bb1(%2 : i1)
  ^bb1(%7: i1):  // pred: ^bb0
    test.br ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    test.return %7 : i1
  ^bb3:  // pred: ^bb1
    test.return %2 : i1
  }
  test.func @g(%arg0: f32, %arg1: i8) -> i64 {
    %0 = test.constant 7 : i64
    test.return %0 : i64
  }
  test.module @m attributes {sym_visibility = "private"} {
    test.func @h() {
      test.return
    }
  }
  test.use @m::@h
}
"#;

#[test]
fn every_op_round_trips_in_both_forms() {
    let custom = check_round_trip(D, EVERY_OP).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(custom, EVERY_OP);
    let generic = check_generic_round_trip(D, EVERY_OP).unwrap_or_else(|e| panic!("{e}"));
    for want in [
        "\"test.with_flags\"() <{flags = #test.flags<a, c>}> : () -> !test.int<8>",
        "\"test.cmp\"(%2, %arg3) <{predicate = 2 : i64}> : (i32, i32) -> i1",
        "\"test.br\"(%3)[^bb1] : (i1) -> ()",
        "\"test.use\"() <{ref = @m::@h}> : () -> ()",
    ] {
        assert!(generic.contains(want), "missing {want}\nin\n{generic}");
    }
}

#[test]
fn verifier_errors() {
    for (text, want) in [
        (
            "test.func @f(%a: i32) -> i32 {\n  %0 = \"test.constant\"() <{value = 1 : i64}> : () -> i32\n  test.return %0 : i32\n}",
            "'test.constant' op value type does not match the result type",
        ),
        (
            "\"test.func\"() <{function_type = (i32) -> (), sym_name = \"f\"}> ({\n^bb0(%a: i64):\n  test.return\n}) : () -> ()",
            "'test.func' op entry block arguments do not match the inputs of 'function_type'",
        ),
        (
            "test.func @f(%a: i32) {\n  test.br ^bb1(%a : i32)\n^bb1:\n  test.return\n}",
            "branch has 1 operands for successor #0, but target block has 0",
        ),
    ] {
        let err = parse(D, text).map(|_| ()).expect_err(text);
        assert!(err.starts_with("verify:") && err.contains(want), "{err}");
    }
}

#[test]
fn type_and_enum_attribute() {
    let err = parse_print(
        D,
        "%0 = test.with_flags flags<d> : i32",
        &Default::default(),
    )
    .expect_err("not a flag");
    assert!(
        err.contains("expected TestFlags to be one of: none, a, b, c, all"),
        "{err}"
    );
    let err = parse_print(
        D,
        "%0 = test.with_flags flags<a> : !test.int<0>",
        &Default::default(),
    )
    .expect_err("width 0");
    assert!(
        err.contains("'!test.int' width must be between 1 and 128, got 0"),
        "{err}"
    );
    let mut t = TestIr::new();
    let ty = types::int_type(&mut t.ctx, 8);
    assert_eq!(
        t.ctx.type_as::<types::IntType>(ty),
        Some(&types::IntType { width: 8 })
    );
    let all = types::flags_attr(&mut t.ctx, 7);
    assert_eq!(t.ctx.enum_value(all, &types::FLAGS), Some(7));
    assert_eq!(
        nart_ir::printer::attr_to_string(&t.ctx, all),
        "#test.flags<all>"
    );
}

#[test]
fn add_folds_constants_and_add_zero_rewrites() {
    let mut t = TestIr::new();
    let f = t.func("f", 1, 1, false);
    let b = t.entry(f);
    let x = t.arg(f, 0);
    let c1 = t.constant(b, 1);
    let c2 = t.constant(b, 2);
    let s = t.add(b, c1, c2);
    let zero = t.constant(b, 0);
    let y = t.add(b, x, zero);
    t.ret(b, &[s, y]);
    let (add, add_zero) = (
        t.ctx.defining_op(s).expect("an op result"),
        t.ctx.defining_op(y).expect("an op result"),
    );
    let fold = ops::ADD.fold.expect("test.add folds");
    let (a1, a2) = (
        t.ctx.attr(t.ctx.defining_op(c1).unwrap(), "value"),
        t.ctx.attr(t.ctx.defining_op(c2).unwrap(), "value"),
    );
    let i32t = t.ctx.i32_type();
    let three = t.ctx.int_attr(i32t, 3);
    assert_eq!(
        fold(&mut t.ctx, add, &[a1, a2]),
        FoldOutcome::Replace(vec![FoldResult::Attr(three)])
    );
    assert_eq!(fold(&mut t.ctx, add, &[a1, None]), FoldOutcome::None);
    let mut rw = PatternRewriter::new(&mut t.ctx);
    assert!(!AddZero.match_and_rewrite(&mut rw, add));
    assert_eq!(
        rw.take_match_failure().as_deref(),
        Some("the right operand is not the constant 0")
    );
    assert!(AddZero.match_and_rewrite(&mut rw, add_zero));
    drop(rw);
    assert_eq!(
        t.dump(f),
        "test.constant 1\ntest.constant 2\n%0 = test.add %c1, %c2\ntest.constant 0\ntest.return %0, %arg0"
    );
    let loc = t.loc;
    let k = ops::materialize_constant(&mut t.ctx, three, i32t, loc).expect("an integer");
    assert_eq!(t.ctx.op_name_str(k), "test.constant");
    let s = t.ctx.string_attr("s");
    assert!(ops::materialize_constant(&mut t.ctx, s, i32t, loc).is_none());
}

#[test]
fn interfaces() {
    let mut t = TestIr::new();
    let g = t.func("g", 2, 1, true);
    let f = t.func("f", 1, 0, false);
    let b = t.entry(f);
    let x = t.arg(f, 0);
    let r = t.call(b, "g", &[x, x], 1);
    let call = t.ctx.defining_op(r[0]).expect("an op result");
    let next = t.block(f);
    let br = t.br(b, &[next, next]);
    t.ret_all_empty();
    assert_eq!(t.first_error(), None);
    let callable = t
        .ctx
        .op_interface::<dyn CallableOpInterface>(g)
        .expect("test.func is callable");
    let i32t = t.ctx.i32_type();
    assert_eq!(callable.argument_types(&t.ctx, g), [i32t, i32t]);
    assert_eq!(callable.result_types(&t.ctx, g), [i32t]);
    assert_eq!(
        callable.callable_region(&t.ctx, g),
        Some(t.ctx.region(g, 0))
    );
    let c = t
        .ctx
        .op_interface::<dyn CallOpInterface>(call)
        .expect("test.call is a call");
    assert_eq!(c.arg_operands(&t.ctx, call), 0..2);
    assert_eq!(
        successor_operand_groups(&t.ctx, br),
        Some(vec![(next, vec![]), (next, vec![])])
    );
    assert_eq!(t.symbols(), ["g", "f"]);
}

#[test]
fn test_func_harness() {
    let mut s = TestFunc::new(&[]);
    let i32t = s.ctx.i32_type();
    let a = s.add_arg(i32t);
    assert_eq!(s.arg(0), a);
    let b = s.return_block(&[i32t]);
    let st = nart_ir::OperationState::new(&mut s.ctx, "test.br", s.loc)
        .operands(&[a])
        .successors(&[b]);
    let br = s.ctx.create_op(st);
    s.append(br);
    assert_eq!(s.first_error(), None);
    assert_eq!(s.dump(), "test.br %arg0 ^1\n^1:\ntest.return");
    s.ctx.set_operands(br, &[]);
    assert_eq!(
        s.first_error().as_deref(),
        Some("branch has 0 operands for successor #0, but target block has 1")
    );
}
