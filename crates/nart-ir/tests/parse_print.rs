//! Round-trip, snapshot and error tests of the MLIR text parser and printer.

use nart_ir::parser::parse_source;
use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, SourceMgr};
use nart_test_dialect::ir::Register;
use nart_test_dialect::roundtrip::{
    allow_unregistered, check_generic_round_trip, check_round_trip, check_round_trip_with,
    parse_print,
};

fn ctx() -> Context {
    let mut c = Context::new();
    c.allow_unregistered = true;
    c
}

/// Parses and verifies `src` (ops of any dialect allowed), and prints it.
fn print(src: &str, opts: &PrintOptions) -> String {
    parse_print(&[allow_unregistered], src, opts).unwrap_or_else(|e| panic!("{e}\ninput:\n{src}"))
}

/// Parses, prints, parses the output and prints again: the two printouts must be equal.
fn round_trip(src: &str, opts: &PrintOptions) -> String {
    check_round_trip_with(&[allow_unregistered], src, opts)
        .unwrap_or_else(|e| panic!("{e}\ninput:\n{src}"))
}

const INPUTS: &[&str] = &[
    // Generic op syntax.
    r#"%r:2, %s = "d.op"() : () -> (i32, f32, i64)
"d.use"(%r#1, %s, %r#0) : (f32, i64, i32) -> ()"#,
    r#""d.op"() ({
^bb0(%a: i32, %b: f32):
  "d.br"(%a)[^bb1] : (i32) -> ()
^bb1(%x: i32):
  "d.ret"(%x) : (i32) -> ()
}, {
}) {attr = 2 : i32} : () -> ()"#,
    r#""d.fwd"(%later) : (i32) -> ()
%later = "d.def"() : () -> i32"#,
    r#""d.outer"() ({
  %v = "d.def"() : () -> i32
  "d.inner"() ({
    "d.use"(%v) : (i32) -> ()
  }) : () -> ()
}) : () -> ()"#,
    r#""d.r"() ({
  "d.succ"()[^bb1, ^bb2] : () -> ()
^bb1:
  "d.x"() : () -> ()
^bb2:
  "d.y"()[^bb1] : () -> ()
}) : () -> ()"#,
    r#""d.p"() <{prop = 1 : i64}> {attr = "x"} : () -> ()"#,
    r#"%0 = "d.loc"() : () -> i32 loc("f.mlir":3:4)
"d.loc2"() : () -> () loc(unknown)
"d.loc3"() : () -> () loc("f":1:2 to 3:4)
"d.loc4"() : () -> () loc("name")
"d.loc5"() : () -> () loc("name"("f":1:1))
"d.loc6"() : () -> () loc(callsite("a" at "b":1:2))
"d.loc7"() : () -> () loc(fused["a", "b":1:2])
"d.loc8"() : () -> () loc(fused<"meta">["a"])
"d.loc9"() : () -> () loc(#l)
#l = loc("aliased":7:8)"#,
    // Types.
    r#""d.t"() {a = i1, b = si8, c = ui4, d = index, e = f16, f = bf16, g = f32, h = f64, i = f8E4M3FN, j = f8E5M2, k = none, l = tf32, m = f80, n = f128, o = f4E2M1FN, p = f8E8M0FNU} : () -> ()"#,
    r#""d.t"() {a = (i32, f32) -> i64, b = () -> (), c = (i32) -> (i32, f32), d = ((i32) -> i32) -> ((i32) -> i32)} : () -> ()"#,
    r#""d.t"() {a = tensor<2x?x3xf32>, b = tensor<*xf32>, c = tensor<4xf32, #enc.x>, d = tensor<f32>, e = tensor<0x3xi8>} : () -> ()"#,
    r#""d.t"() {a = memref<2x4xf32, strided<[4, 1], offset: ?>, 1>, b = memref<*xf32>, c = memref<?xi8, affine_map<(d0) -> (d0 + 1)>>, d = memref<*xf32, 2>, e = memref<4xf32, "gpu">} : () -> ()"#,
    r#""d.t"() {a = vector<4x[8]xf32>, b = vector<f32>, c = tuple<>, d = tuple<i32, tuple<f32>>, e = complex<f32>} : () -> ()"#,
    r#"!alias = tensor<4xi32>
"d.t"() {a = !alias, b = !quant.uniform<i8:f32, 0.0125:-3>, c = !llvm.ptr, d = !d<"opaque">, e = !x.y<a<b>, "s>">} : () -> !alias"#,
    // Attributes.
    r#""d.a"() {a = 1, b = -5 : i8, c = 0x1F : i32, d = true, e = false, f = 7 : index, g = 255 : ui8, h = -1 : si16, i = 1 : i1} : () -> ()"#,
    r#""d.a"() {a = 1.5, b = 2.0 : f32, c = 1.0e-10 : f64, d = 0x7FC00000 : f32, e = 0x7FF0000000000000 : f64, f = -0.0 : f16, g = 0.1 : bf16, h = 3.0e38 : f32, i = 0.123456789 : f64, j = 448.0 : f8E4M3FN} : () -> ()"#,
    r#""d.a"() {a = "s\n\t\"\\\41", b = unit, c = [1, "x", [i32]], d = {y = 1, x = 2}, e = "typed" : i32, "quoted name" = 3} : () -> ()"#,
    r#""d.a"() {a = @sym, b = @a::@b::@c, c = @"quoted sym", d = f32} : () -> ()"#,
    r#""d.a"() {a = dense<1.0> : tensor<2x2xf32>, b = dense<[[1, 2], [3, 4]]> : tensor<2x2xi32>, c = dense<"0x0100000002000000"> : tensor<2xi32>, d = dense<[true, false]> : tensor<2xi1>, e = dense<[(1.0, 2.0)]> : tensor<1xcomplex<f32>>, f = dense<["a", "b"]> : tensor<2x!d.str>, g = dense<> : tensor<0xi32>, h = dense<5> : tensor<i64>, i = dense<[1.5, -2.0]> : vector<2xf16>, j = dense<0x7FC00000> : tensor<2xf32>} : () -> ()"#,
    r#""d.a"() {a = dense_resource<blob1> : tensor<3xi64>, b = array<i64: 1, 2>, c = array<f32: 1.0, 2.5>, d = array<i32>, e = array<i1: true, false>} : () -> ()
{-#
  dialect_resources: {
    builtin: {
      blob1: "0x08000000010000000000000002000000000000000300000000000000"
    }
  },
  external_resources: {
    tool: {
      flag: true,
      name: "text"
    }
  }
#-}"#,
    r#"#map = affine_map<(d0, d1)[s0] -> (d0 + s0 * 2, d0 mod 4, d0 floordiv 2, d1 ceildiv 3, d0 - d1, -d0, (d0 + d1) * 3, d0 * (s0 + 1))>
"d.a"() {a = #map, b = affine_map<() -> (0)>, c = affine_map<(i, j) -> (j, i)>, d = affine_set<(d0) : (d0 - 1 >= 0)>, e = strided<[?, 1]>, f = #d.pretty<x>, g = #d<"opaque">} : () -> ()"#,
    // Modules.
    r#"module @m attributes {d.x = 1 : i32} {
  "d.op"() : () -> ()
}"#,
    r#""builtin.module"() ({
  module {
    "d.inner"() : () -> ()
  }
}) {sym_name = "outer"} : () -> ()"#,
    "module {\n}",
    "",
    // Nested isolated regions restart numbering; multi-result groups.
    r#"module {
  %0:3 = "d.three"() : () -> (i32, i32, i32)
  "d.region"() ({
  ^bb0(%a: i32):
    %1 = "d.x"(%a, %0#2) : (i32, i32) -> i32
    "d.region"() ({
    ^bb0(%b: i32):
      "d.y"(%b, %1) : (i32, i32) -> ()
    }) : () -> ()
  }) : () -> ()
  module {
    %2 = "d.z"() : () -> i1
  }
}"#,
];

#[test]
fn round_trips_generic_inputs() {
    let opts = PrintOptions::default();
    for src in INPUTS {
        round_trip(src, &opts);
    }
}

#[test]
fn round_trips_generic_form_and_debug_info() {
    let opts = PrintOptions {
        generic: true,
        debug_info: true,
        ..Default::default()
    };
    for src in INPUTS {
        round_trip(src, &opts);
    }
}

#[test]
fn elides_large_elements() {
    let opts = PrintOptions {
        elide_elements_larger_than: Some(2),
        ..Default::default()
    };
    let out = print(
        r#""d.a"() {a = dense<[1, 2, 3]> : tensor<3xi32>, b = dense<1> : tensor<8xi32>} : () -> ()"#,
        &opts,
    );
    assert!(
        out.contains("a = dense_resource<__elided__> : tensor<3xi32>"),
        "{out}"
    );
    assert!(out.contains("b = dense<1> : tensor<8xi32>"), "{out}");
}

#[test]
fn large_dense_prints_hex() {
    let items: Vec<String> = (0..101).map(|i| i.to_string()).collect();
    let src = format!(
        "\"d.a\"() {{a = dense<[{}]> : tensor<101xi8>}} : () -> ()",
        items.join(", ")
    );
    let out = round_trip(&src, &PrintOptions::default());
    assert!(out.contains("dense<\"0x000102"), "{out}");
}

#[test]
fn snapshots() {
    let opts = PrintOptions::default();
    insta::assert_snapshot!("cfg_generic", round_trip(INPUTS[1], &opts));
    insta::assert_snapshot!("attributes", round_trip(INPUTS[17], &opts));
    insta::assert_snapshot!("numbering", round_trip(INPUTS.last().unwrap(), &opts));
    insta::assert_snapshot!("resources", round_trip(INPUTS[18], &opts));
}

/// Bad inputs and the exact rendered first diagnostic.
const ERRORS: &[(&str, &str)] = &[
    ("\"d.use\"(%x) : (i32) -> ()", "in.mlir:1:9: error: use of undeclared SSA value name"),
    (
        "%x = \"d.a\"() : () -> i32\n%x = \"d.b\"() : () -> i32",
        "in.mlir:2:1: error: redefinition of SSA value '%x'",
    ),
    (
        "%x = \"d.a\"() : () -> f32\n\"d.u\"(%x) : (i32) -> ()",
        "in.mlir:2:7: error: use of value '%x' expects different type than prior uses: 'i32' vs 'f32'",
    ),
    ("\"d.a\"() : () -> ()\n  foo.bar", "in.mlir:2:3: error: Dialect `foo' not found for custom op 'foo.bar' "),
    ("\"d.a\"(", "in.mlir:1:6: error: expected ')' to end operand list"),
    ("\"d.a\"() : () -> tensor<2x>", "in.mlir:1:26: error: expected non-function type"),
    ("\"d.a\"() {a = dense<[1, 2]> : tensor<3xi32>} : () -> ()", "in.mlir:1:14: error: inferred shape of elements literal ([2]) does not match type ([3])"),
    ("\"d.a\"()[^bb9] : () -> ()", "in.mlir:1:9: error: reference to an undefined block"),
    ("\"d.a\"() {a = #nope} : () -> ()", "in.mlir:1:19: error: undefined symbol alias id 'nope'"),
    ("\"d.a\"() : () -> () loc(#missing)", "in.mlir:1:24: error: operation location alias was never defined"),
    ("\"d.a\"() {a = \"unterminated} : () -> ()", "in.mlir:1:39: error: expected '\"' in string literal"),
    ("%0:2 = \"d.a\"() : () -> i32", "in.mlir:1:1: error: operation defines 1 results but was provided 2 to bind"),
    ("\"d.a\"(%0) : () -> ()", "in.mlir:1:13: error: expected 1 operand type  but had 0"),
    ("\"d.a\"() {a = 300 : i8} : () -> ()", "in.mlir:1:14: error: integer constant out of range for attribute"),
    ("\"d.a\"() ({\n^bb0:\n^bb0:\n}) : () -> ()", "in.mlir:3:1: error: redefinition of block '^bb0'"),
];

#[test]
fn reports_errors_with_locations() {
    for (src, want) in ERRORS {
        let mut c = ctx();
        let errs = parse_source(&mut c, "in.mlir", src).expect_err(src);
        let mut sm = SourceMgr::new();
        sm.add("in.mlir", src);
        let text = sm.render(&c, &errs[0]);
        let first = text.lines().next().unwrap_or("");
        assert_eq!(first, *want, "input: {src}\nfull:\n{text}");
    }
}

#[test]
fn unregistered_ops_need_permission() {
    let mut c = Context::new();
    let errs = parse_source(&mut c, "in.mlir", "\"d.a\"() : () -> ()").unwrap_err();
    assert!(errs[0]
        .message
        .starts_with("operation being parsed with an unregistered dialect"));
    let errs = parse_source(&mut c, "in.mlir", "\"builtin.nope\"() : () -> ()").unwrap_err();
    assert!(errs[0]
        .message
        .starts_with("unregistered operation 'builtin.nope'"));
}

#[test]
fn single_module_is_returned_and_others_are_wrapped() {
    let mut c = ctx();
    let m = parse_source(&mut c, "in.mlir", "module @x {\n}").unwrap();
    assert_eq!(nart_ir::symbol::symbol_name(&c, m), Some("x"));
    let m = parse_source(&mut c, "w.mlir", "module {\n}\nmodule {\n}").unwrap();
    assert_eq!(c.loc_file_line_col(c.op_loc(m)), Some(("w.mlir", 0, 0)));
}

/// With `NART_DUMP_DIR` set, writes every input in both forms there (to check them against
/// upstream `mlir-opt` by hand).
#[test]
fn dump_for_upstream_check() {
    let Ok(dir) = std::env::var("NART_DUMP_DIR") else {
        return;
    };
    for (i, src) in INPUTS.iter().enumerate() {
        for generic in [false, true] {
            let opts = PrintOptions {
                generic,
                debug_info: generic,
                ..Default::default()
            };
            let out = print(src, &opts);
            let path = format!("{dir}/in{i}_{}.mlir", if generic { "g" } else { "c" });
            std::fs::write(path, out).expect("write dump");
        }
    }
}

/// With `NART_PARSE_FILE` set, parses that file (for example upstream `mlir-opt` output) and
/// prints it to `$NART_PARSE_FILE.out`.
#[test]
fn parse_file_from_env() {
    let Ok(path) = std::env::var("NART_PARSE_FILE") else {
        return;
    };
    let src = std::fs::read_to_string(&path).expect("read input");
    let out = print(&src, &PrintOptions::default());
    std::fs::write(format!("{path}.out"), out).expect("write output");
}

// ----- registered ops with custom syntax (the `test` dialect) -----

const CUSTOM: &str = r#"module {
  test.func @f(%arg0: i32, %arg1: i32) -> i1 attributes {d.x} {
    %0 = test.constant 1 : i32
    %1 = test.add %arg0, %0 : i32
    %2 = test.add %1, %arg1 {d.tag = 3 : i64} : i32
    %3 = test.cmp slt, %2, %arg1 : i32
    %4:2 = test.cast %1, %2 : i32, i32 to f32, f32
    %5 = test.cast to i8
    %6 = test.call @g(%4#0, %5) : (f32, i8) -> i64
    test.br ^bb1(%3 : i1)
  ^bb1(%7: i1):  // pred: ^bb0
    test.br ^bb2
  ^bb2:  // pred: ^bb1
    test.return %7 : i1
  }
  test.func @g(%arg0: f32, %arg1: i8) -> i64 {
    %0 = test.constant 7 : i64
    test.return %0 : i64
  }
  test.func @h() {
    test.return
  }
}
"#;

fn custom_ctx() -> Context {
    let mut c = Context::new();
    nart_test_dialect::register(&mut c);
    c
}

#[test]
fn custom_forms_round_trip_exactly() {
    let dialects: &[Register] = &[nart_test_dialect::register];
    let out = check_round_trip(dialects, CUSTOM).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(out, CUSTOM);
    // The generic form parses back to the same custom printout.
    let generic = check_generic_round_trip(dialects, CUSTOM).unwrap_or_else(|e| panic!("{e}"));
    insta::assert_snapshot!("custom_generic", generic);
}

#[test]
fn inherent_attrs_in_generic_dict_become_properties() {
    let mut c = custom_ctx();
    let src = "%0 = \"test.constant\"() {value = 1 : i32, other = 2 : i32} : () -> i32";
    let m = parse_source(&mut c, "in.mlir", src).unwrap();
    let op = c.block_ops(nart_ir::builtin::module_body(&c, m))[0];
    assert_eq!(c.props(op).len(), 1);
    assert_eq!(c.attrs(op).len(), 1);
    let out = print_op(
        &c,
        m,
        &PrintOptions {
            generic: true,
            ..Default::default()
        },
    );
    assert!(
        out.contains("\"test.constant\"() <{value = 1 : i32}> {other = 2 : i32} : () -> i32"),
        "{out}"
    );
}

#[test]
fn custom_op_errors() {
    let mut c = custom_ctx();
    let cases = [
        ("%0 = test.nope 1", "custom op 'test.nope' is unknown"),
        (
            "%0 = test.cmp sgt, %a, %b : i32",
            "custom op 'test.cmp' expected one of [eq, ne, slt], got 'sgt'",
        ),
        (
            "%0 = test.constant 1 : i32\n%1 = test.add %0, %0 : f32",
            "use of value '%0' expects different type than prior uses: 'f32' vs 'i32'",
        ),
    ];
    for (src, want) in cases {
        let errs = parse_source(&mut c, "in.mlir", src).unwrap_err();
        assert_eq!(errs[0].message, want, "{src}");
    }
}

/// With `NART_BENCH_FILE` set, times parse + verify + print of that file (run with
/// `--release`); prints the medians of 5 runs.
#[test]
fn bench_file_from_env() {
    let Ok(path) = std::env::var("NART_BENCH_FILE") else {
        return;
    };
    let src = std::fs::read_to_string(&path).expect("read input");
    let mut times = Vec::new();
    let mut out_len = 0;
    for _ in 0..5 {
        let t = std::time::Instant::now();
        let mut c = ctx();
        let m = parse_source(&mut c, &path, &src).unwrap_or_else(|e| panic!("{:?}", e[0]));
        let t1 = t.elapsed();
        nart_ir::verify::verify(&c, m).unwrap_or_else(|e| panic!("{:?}", e[0]));
        let t2 = t.elapsed();
        let out = print_op(&c, m, &PrintOptions::default());
        let t3 = t.elapsed();
        out_len = out.len();
        times.push((t1, t2 - t1, t3 - t2, t3));
    }
    times.sort_by_key(|t| t.3);
    let (p, v, w, all) = times[2];
    eprintln!("bench {path}: parse {p:?}, verify {v:?}, print {w:?}, total {all:?} (median of 5), {out_len} bytes out");
}

#[test]
fn values_from_above_reach_isolated_regions() {
    // MLIR's parser resolves names through enclosing regions; the verifier rejects the use.
    let src = "\"d.outer\"() ({\n  %v = \"d.def\"() : () -> i32\n  builtin.module {\n    \"d.use\"(%v) : (i32) -> ()\n  }\n}) : () -> ()";
    let mut c = ctx();
    let m = parse_source(&mut c, "in.mlir", src).expect("parses");
    let errs = nart_ir::verify::verify(&c, m).expect_err("isolation is violated");
    assert!(errs[0]
        .message
        .contains("using value defined outside the region"));
    // A region entry argument may not reuse a name from above.
    let src = "test.func @a(%x: i32) {\n  builtin.module {\n    test.func @b(%x: i32) {\n      test.return\n    }\n  }\n  test.return\n}";
    let mut c = custom_ctx();
    let errs = parse_source(&mut c, "in.mlir", src).expect_err("name in use");
    assert_eq!(
        errs[0].message,
        "region entry argument '%x' is already in use"
    );
    assert_eq!(errs[0].notes[0].message, "previously referenced here");
}

#[test]
fn type_mismatch_between_uses_is_reported_once() {
    let src = "%a = \"d.a\"() : () -> i32\n\"d.u\"(%a, %a) : (i64, i64) -> ()";
    let mut c = ctx();
    let errs = parse_source(&mut c, "in.mlir", src).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(errs[0].notes[0].message, "prior use here");
}

#[test]
fn ops_are_located_at_their_name() {
    let mut c = ctx();
    let m = parse_source(&mut c, "in.mlir", "  %0 = \"d.a\"() : () -> i32").unwrap();
    assert_eq!(c.loc_file_line_col(c.op_loc(m)), Some(("in.mlir", 0, 0)));
    let body = nart_ir::builtin::module_body(&c, m);
    let op = c.block_ops(body)[0];
    assert_eq!(c.loc_file_line_col(c.op_loc(op)), Some(("in.mlir", 1, 8)));
    let mut c = ctx();
    let loc = nart_ir::parser::chunk_module_loc(&mut c, "in.mlir", "a\n// -----\nb\n", 2);
    assert_eq!(c.loc_file_line_col(loc), Some(("in.mlir", 2, 9)));
}

#[test]
fn affine_maps_print_as_aliases_unless_local_scope() {
    let src = "\"d.a\"() {m = affine_map<(d0) -> (d0 + 1)>, n = [affine_map<(d0) -> (-d0)>, affine_map<(d0) -> (d0 + 1)>]} : () -> memref<4xf32, affine_map<(d0) -> (d0 * 2)>>";
    let out = round_trip(src, &PrintOptions::default());
    // A generic op's types are visited before its attributes, as MLIR numbers them.
    assert!(out.starts_with("#map = affine_map<(d0) -> (d0 * 2)>\n#map1 = affine_map<(d0) -> (d0 + 1)>\n#map2 = affine_map<(d0) -> (-d0)>\nmodule {"), "{out}");
    assert!(
        out.contains("{m = #map1, n = [#map2, #map1]} : () -> memref<4xf32, #map>"),
        "{out}"
    );
    let local = PrintOptions {
        local_scope: true,
        ..Default::default()
    };
    let out = round_trip(src, &local);
    assert!(!out.contains("#map"), "{out}");
    // An identity layout is dropped, as MLIR drops it.
    let out = print(
        "\"d.a\"() : () -> memref<4x4xf32, affine_map<(d0, d1) -> (d0, d1)>>",
        &local,
    );
    assert!(out.contains("() -> memref<4x4xf32>"), "{out}");
}

#[test]
fn fused_locations_are_simplified() {
    let opts = PrintOptions {
        debug_info: true,
        ..Default::default()
    };
    let out = print("\"d.a\"() : () -> () loc(fused[\"y.mlir\":2:2, unknown])\n\"d.b\"() : () -> () loc(fused[\"a\", fused[\"b\", \"a\"], unknown])", &opts);
    assert!(
        out.contains("\"d.a\"() : () -> () loc(\"y.mlir\":2:2)"),
        "{out}"
    );
    assert!(out.contains("loc(fused[\"a\", \"b\"])"), "{out}");
}

#[test]
fn arrays_elide_default_element_types() {
    let out = round_trip(
        "\"d.a\"() {x = [1, 1.0, 2 : i32, 2.0 : f32, [3]]} : () -> ()",
        &PrintOptions::default(),
    );
    assert!(
        out.contains("{x = [1, 1.000000e+00, 2 : i32, 2.000000e+00 : f32, [3]]}"),
        "{out}"
    );
}

/// Splits `text` and parses each chunk both ways the parser offers: padded with empty lines,
/// and on its own at its first line. Both give the same locations.
#[test]
fn chunks_parse_alike_padded_and_at_their_line() {
    let text = "\"d.a\"() : () -> ()\n// -----\n\n  \"d.b\"() : () -> ()\n// -----  \n\"d.c\"() : () -> ()\n";
    let chunks = nart_ir::parser::split_input_file(text);
    assert_eq!(chunks.len(), 3);
    let mut seen = Vec::new();
    for (chunk, first_line) in &chunks {
        let mut c = ctx();
        let loc = nart_ir::parser::chunk_module_loc(&mut c, "in.mlir", text, *first_line);
        let padded = format!("{}{chunk}", "\n".repeat(*first_line as usize));
        let a = nart_ir::parser::parse_source_with_module_loc(&mut c, "in.mlir", &padded, loc)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let b = nart_ir::parser::parse_chunk(&mut c, "in.mlir", chunk, *first_line, loc)
            .unwrap_or_else(|e| panic!("{e:?}"));
        let op_loc = |m| {
            let body = nart_ir::builtin::module_body(&c, m);
            let op = c.block_ops(body)[0];
            c.loc_file_line_col(c.op_loc(op))
                .map(|(f, l, col)| (f.to_string(), l, col))
        };
        assert_eq!(op_loc(a), op_loc(b));
        seen.push((
            op_loc(a),
            c.loc_file_line_col(loc).map(|(_, l, col)| (l, col)),
        ));
    }
    let want = |l, col| Some(("in.mlir".to_string(), l, col));
    assert_eq!(seen[0], (want(1, 1), Some((0, 0))));
    assert_eq!(seen[1], (want(4, 3), Some((2, 9))));
    // The module of a chunk sits at the end of its separator line, trailing blanks included.
    assert_eq!(seen[2], (want(6, 1), Some((5, 11))));
}

/// A 100,000-term affine sum and exponentially aliased attributes are errors, not a stack
/// overflow or an unbounded output.
#[test]
fn hostile_input_is_an_error() {
    let sum = vec!["d0"; 100_000].join(" + ");
    let mut c = ctx();
    let src = format!("\"d.a\"() {{m = affine_map<(d0) -> ({sum})>}} : () -> ()");
    let errs = parse_source(&mut c, "in.mlir", &src).unwrap_err();
    assert_eq!(
        errs[0].message,
        "affine expression nested more than 1000 levels deep"
    );
    let mut aliases = vec!["#a0 = [1, 2]".to_string()];
    for i in 1..64 {
        aliases.push(format!("#a{i} = [#a{p}, #a{p}]", p = i - 1));
    }
    aliases.push("\"d.a\"() {a = #a63} : () -> ()".to_string());
    let mut c = ctx();
    let errs = parse_source(&mut c, "in.mlir", &aliases.join("\n")).unwrap_err();
    assert!(
        errs[0].message.starts_with("aliases expand to more than"),
        "{errs:?}"
    );
    // Below the budget, an alias used many times is fine.
    let mut c = ctx();
    let uses = vec!["#m"; 10_000].join(", ");
    let src = format!("#m = affine_map<(d0) -> (d0 + 1)>\n\"d.a\"() {{a = [{uses}]}} : () -> ()");
    assert!(parse_source(&mut c, "in.mlir", &src).is_ok());
}
