//! Tests of the pipeline syntax, nesting, options and instrumentation, with test-only passes
//! over the shared `test` dialect (`nart-test-dialect`).

use nart_ir::printer::{print_op, PrintOptions};
use nart_ir::{Context, Op, OperationState};
use nart_test_dialect::TestIr;

use crate::*;

/// A module holding `test.func @a`, `unreg.other`, `test.func @b`, at lines 2 to 4 of
/// `in.mlir`.
fn module() -> (Context, Op) {
    let mut t = TestIr::new();
    t.ctx.allow_unregistered = true;
    let loc = t.ctx.file_loc("in.mlir", 1, 1);
    t.ctx.set_op_loc(t.module, loc);
    let body = t.body(t.module);
    for (i, name) in ["a", "", "b"].into_iter().enumerate() {
        t.loc = t.ctx.file_loc("in.mlir", 2 + i as u32, 3);
        if name.is_empty() {
            let st = OperationState::new(&mut t.ctx, "unreg.other", t.loc);
            t.append(body, st);
        } else {
            let f = t.func(name, 0, 0, false);
            let entry = t.entry(f);
            t.ret(entry, &[]);
        }
    }
    (t.ctx, t.module)
}

// ----- test passes -----

crate::pass_options! {
    /// The options of `test-trace`.
    struct TraceOptions {
        /// Fail on ops with this symbol name
        #[name = "fail"]
        fail: String = "",
        /// Set attribute 'tag' to this value
        #[name = "tag"]
        tag: String = "",
        /// How many times to count
        #[name = "repeat"]
        repeat: i64 = 1,
    }
}

crate::declare_pass! {
    /// Prints the op it runs on.
    struct TracePass {
        argument: "test-trace",
        name: "TestTrace",
        summary: "Print the op the pass runs on",
        description: "",
        options: TraceOptions,
        statistics: ["num-visits" => "Number of ops visited"],
    }
}

impl Pass for TracePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let sym = nart_ir::symbol::symbol_name(ctx, op)
            .unwrap_or("")
            .to_string();
        let _ = writeln!(state.out, "trace {} @{sym}", ctx.op_name_str(op));
        state.add_stat("num-visits", self.opts.repeat as u64);
        if !sym.is_empty() && self.opts.fail == sym {
            return Err(PassFailure::op_error(ctx, op, "failed on purpose"));
        }
        if !self.opts.tag.is_empty() {
            let a = ctx.string_attr(&self.opts.tag);
            ctx.set_attr(op, "tag", a);
        }
        Ok(())
    }
}

static FUNC_ONLY: PassInfo = PassInfo {
    argument: "test-func-only",
    name: "TestFuncOnly",
    summary: "Runs on test.func only",
    description: "",
    anchor: Some("test.func"),
    options: &[],
    statistics: &[],
};

static BREAK: PassInfo = PassInfo {
    argument: "test-break",
    name: "TestBreak",
    summary: "Appends an op after the terminator of each function",
    description: "",
    anchor: Some("test.func"),
    options: &[],
    statistics: &[],
};

/// A pass written without the declaration macro, whose declaration is chosen at run time.
#[derive(Clone)]
struct SimplePass {
    info: &'static PassInfo,
    opts: NoOptions,
}

impl PassDecl for SimplePass {
    fn info(&self) -> &'static PassInfo {
        self.info
    }
    fn options(&self) -> &dyn PassOptions {
        &self.opts
    }
    fn options_mut(&mut self) -> &mut dyn PassOptions {
        &mut self.opts
    }
    fn clone_boxed(&self) -> Box<dyn Pass> {
        Box::new(self.clone())
    }
}

impl Pass for SimplePass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let _ = writeln!(state.out, "{} {}", self.info.argument, ctx.op_name_str(op));
        if self.info.argument == "test-break" {
            let b = ctx.region_blocks(ctx.region(op, 0))[0];
            let loc = ctx.unknown_loc();
            let st = OperationState::new(ctx, "test.return", loc);
            let r = ctx.create_op(st);
            ctx.prepend_op(b, r);
        }
        Ok(())
    }
}

fn registry() -> PassRegistry {
    let mut r = PassRegistry::new();
    r.register(|| Box::new(TracePass::new()));
    r.register(|| {
        Box::new(SimplePass {
            info: &FUNC_ONLY,
            opts: NoOptions::default(),
        })
    });
    r.register(|| {
        Box::new(SimplePass {
            info: &BREAK,
            opts: NoOptions::default(),
        })
    });
    r
}

fn run(
    pipeline: &str,
    setup: impl FnOnce(&mut Instrumentation),
) -> (
    Result<(), PassManagerError>,
    String,
    Context,
    Op,
    PassManager,
) {
    let (mut ctx, m) = module();
    let mut pm = PassManager::parse(pipeline, &registry()).unwrap();
    setup(&mut pm.instrumentation);
    let mut out = Vec::new();
    let res = pm.run(&mut ctx, m, &mut out);
    (res, String::from_utf8(out).unwrap(), ctx, m, pm)
}

// ----- pipeline syntax -----

#[test]
fn pipeline_round_trips() {
    let reg = registry();
    for (text, canon) in [
        ("builtin.module(test-trace)", "builtin.module(test-trace{repeat=1})"),
        (
            " builtin.module( test.func( test-func-only , test-trace{tag=x repeat=2} ) , any(test-trace) )",
            "builtin.module(test.func(test-func-only,test-trace{repeat=2 tag=x}),any(test-trace{repeat=1}))",
        ),
        ("builtin.module()", "builtin.module()"),
        (
            "builtin.module(test-trace{tag={a b}})",
            "builtin.module(test-trace{repeat=1 tag={a b}})",
        ),
    ] {
        let pm = parse_pipeline(text, &reg).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(pm.to_pipeline_string(), canon);
        // The canonical form parses back to itself.
        let again = parse_pipeline(canon, &reg).unwrap();
        assert_eq!(again.to_pipeline_string(), canon);
    }
}

#[test]
fn pipeline_errors() {
    let reg = registry();
    let table: &[(&str, &str)] = &[
        (
            "builtin.module(foo)",
            "pass pipeline:1:16: error: 'foo' does not refer to a registered pass or pass pipeline\n\
             builtin.module(foo)\n               ^\n",
        ),
        (
            "builtin.module(test.func(test-trace)",
            "pass pipeline:1:15: error: encountered unbalanced parentheses while parsing pipeline\n\
             builtin.module(test.func(test-trace)\n              ^\n",
        ),
        (
            "builtin.module(test-trace))",
            "pass pipeline:1:27: error: encountered extra closing ')' creating unbalanced parentheses while parsing pipeline\n\
             builtin.module(test-trace))\n                          ^\n",
        ),
        (
            "test-trace",
            "pass pipeline:1:1: error: expected pass pipeline to be wrapped with the anchor operation type, e.g. 'builtin.module(...)'\n\
             test-trace\n^\n",
        ),
        (
            "builtin.module(,test-trace)",
            "pass pipeline:1:16: error: expected pass or pass pipeline name\n\
             builtin.module(,test-trace)\n               ^\n",
        ),
        (
            "builtin.module(test-trace{repeat=1)",
            "pass pipeline:1:26: error: missing closing '}' while processing pass options\n\
             builtin.module(test-trace{repeat=1)\n                         ^\n",
        ),
        (
            "builtin.module(test-trace{repeat=2 bogus=1})",
            "pass pipeline:1:36: error: no such option 'bogus' (in the options of pass 'test-trace')\n\
             builtin.module(test-trace{repeat=2 bogus=1})\n                                   ^\n",
        ),
        (
            "builtin.module(test-trace{repeat=many})",
            "pass pipeline:1:34: error: for the 'repeat' option: 'many' value invalid for integer argument (in the options of pass 'test-trace')\n\
             builtin.module(test-trace{repeat=many})\n                                 ^\n",
        ),
        (
            "builtin.module(test-func-only)",
            "pass pipeline:1:16: error: can't add pass 'test-func-only' restricted to 'test.func' on a pass manager intended to run on 'builtin.module', did you intend to nest?\n\
             builtin.module(test-func-only)\n               ^\n",
        ),
        (
            "builtin.module(test-trace test-trace)",
            "pass pipeline:1:27: error: expected ',' or ')' but found 't'\n\
             builtin.module(test-trace test-trace)\n                          ^\n",
        ),
    ];
    for (text, want) in table {
        let err = parse_pipeline(text, &reg).expect_err(text);
        assert_eq!(err.render(), *want, "pipeline: {text}");
        assert_eq!(err.to_string(), *want);
    }
}

/// Nesting past `MAX_NESTING` is an error at the `(` that goes too deep, not a stack overflow.
#[test]
fn deep_nesting_is_an_error() {
    let reg = registry();
    let nested = |n: usize| format!("{}test-trace{}", "any(".repeat(n), ")".repeat(n));
    let ok = parse_pipeline(&nested(crate::pipeline::MAX_NESTING), &reg);
    assert!(ok.is_ok(), "{:?}", ok.err());
    for n in [crate::pipeline::MAX_NESTING + 1, 100_000] {
        let err = parse_pipeline(&nested(n), &reg).expect_err("too deep");
        assert_eq!(err.offset, 4 * (crate::pipeline::MAX_NESTING + 1) - 1);
        assert!(
            err.message.contains("nest more than 256 levels"),
            "{}",
            err.message
        );
    }
}

#[test]
fn dump_pipeline_like_mlir() {
    let pm = PassManager::parse(
        "builtin.module(test.func(test-func-only,test-trace),test-trace{tag=t})",
        &registry(),
    )
    .unwrap();
    assert_eq!(
        pm.dump_pipeline(),
        "Pass Manager with 2 passes:\n\
         builtin.module(\n  test.func(\n    test-func-only,\n    test-trace{repeat=1}\n  ),\n  test-trace{repeat=1 tag=t}\n)\n\n"
    );
}

#[test]
fn list_passes_layout() {
    let text = registry().list_passes();
    let want_head = "Passes:\n  --test-break                                            -   Appends an op after the terminator of each function\n";
    assert!(text.starts_with(want_head), "{text}");
    assert!(text.contains(
        "  --test-trace                                            -   Print the op the pass runs on\n    --fail=<string>                                       - Fail on ops with this symbol name\n    --repeat=<long>                                       - How many times to count\n"
    ));
}

// ----- running -----

#[test]
fn nesting_runs_one_level_down_in_order() {
    let (res, out, ..) = run(
        "builtin.module(test.func(test-trace,test-func-only),test-trace,any(test-trace))",
        |_| {},
    );
    res.unwrap();
    assert_eq!(
        out,
        "trace test.func @a\ntest-func-only test.func\ntrace test.func @b\ntest-func-only test.func\n\
         trace builtin.module @\n\
         trace test.func @a\ntrace unreg.other @\ntrace test.func @b\n"
    );
}

#[test]
fn any_skips_ops_a_restricted_pass_cannot_run_on() {
    let (res, out, ..) = run("builtin.module(any(test-func-only))", |_| {});
    res.unwrap();
    assert_eq!(out, "test-func-only test.func\ntest-func-only test.func\n");
}

#[test]
fn failure_stops_pipeline_with_location() {
    let (res, out, ctx, ..) = run(
        "builtin.module(test.func(test-trace{fail=a}),test-trace)",
        |_| {},
    );
    let err = res.unwrap_err();
    assert_eq!(out, "trace test.func @a\n");
    match &err {
        PassManagerError::PassFailed {
            pass, diagnostics, ..
        } => {
            assert_eq!(pass, "test-trace");
            assert_eq!(diagnostics[0].message, "'test.func' op failed on purpose");
            assert_eq!(
                ctx.loc_file_line_col(diagnostics[0].loc),
                Some(("in.mlir", 2, 3))
            );
        }
        e => panic!("unexpected {e:?}"),
    }
}

#[test]
fn verifier_runs_after_each_pass_unless_disabled() {
    let (res, ..) = run("builtin.module(test.func(test-break))", |_| {});
    match res.unwrap_err() {
        PassManagerError::VerifyFailed { pass, diagnostics } => {
            assert_eq!(pass, "test-break");
            assert!(
                diagnostics[0]
                    .message
                    .contains("must be the last operation"),
                "{diagnostics:?}"
            );
        }
        e => panic!("unexpected {e:?}"),
    }
    let (res, ..) = run("builtin.module(test.func(test-break))", |i| {
        i.verify_each = false
    });
    res.unwrap();
}

#[test]
fn anchor_mismatch_at_run() {
    let (mut ctx, m) = module();
    let mut pm = PassManager::new("test.func");
    let err = pm.run(&mut ctx, m, &mut Vec::new()).unwrap_err();
    assert_eq!(
        err.to_string(),
        "can't run 'test.func' pass manager on 'builtin.module' op"
    );
}

// ----- instrumentation -----

#[test]
fn print_ir_before_and_after_all() {
    let (res, out, ctx, m, _) = run("builtin.module(test.func(test-func-only))", |i| {
        i.print_before = IrPrintFilter::All;
        i.print_after = IrPrintFilter::All;
    });
    res.unwrap();
    let body = nart_ir::builtin::module_body(&ctx, m);
    let f = ctx.block_first_op(body).unwrap();
    let fx = print_op(&ctx, f, &PrintOptions::default());
    let want = format!(
        "// -----// IR Dump Before TestFuncOnly (test-func-only) //----- //\n{fx}\n\
         test-func-only test.func\n\
         // -----// IR Dump After TestFuncOnly (test-func-only) //----- //\n{fx}\n"
    );
    assert!(out.starts_with(&want), "{out}");
}

#[test]
fn print_after_change_only_when_changed() {
    let (res, out, ..) = run(
        "builtin.module(test.func(test-trace),test.func(test-trace{tag=x}),test-trace{tag=y})",
        |i| {
            i.print_after = IrPrintFilter::All;
            i.print_after_change = true;
        },
    );
    res.unwrap();
    let headers: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("// -----//"))
        .collect();
    // The first run changes nothing; the second tags both functions; the third tags the module.
    assert_eq!(
        headers,
        [
            "// -----// IR Dump After TestTrace (test-trace) //----- //",
            "// -----// IR Dump After TestTrace (test-trace) //----- //",
            "// -----// IR Dump After TestTrace (test-trace) //----- //",
        ]
    );
}

#[test]
fn print_module_scope_and_failure() {
    let (res, out, ctx, m, _) = run("builtin.module(test.func(test-trace{fail=b}))", |i| {
        i.print_after = IrPrintFilter::Passes(vec!["test-trace".into()]);
        i.print_after_failure = true;
        i.print_module_scope = true;
    });
    assert!(res.is_err());
    let mx = print_op(&ctx, m, &PrintOptions::default());
    let want = format!(
        "trace test.func @a\n\
         // -----// IR Dump After TestTrace (test-trace) ('test.func' operation: @a) //----- //\n{mx}\n\
         trace test.func @b\n\
         // -----// IR Dump After TestTrace Failed (test-trace) ('test.func' operation: @b) //----- //\n{mx}\n"
    );
    assert_eq!(out, want);
}

#[test]
fn statistics_and_timing_reports() {
    let (res, _, _, _, pm) = run(
        "builtin.module(test.func(test-trace{repeat=5}),test-trace)",
        |_| {},
    );
    res.unwrap();
    let stats = pm.statistics_report();
    assert!(
        stats.ends_with(
            "'test.func' Pipeline\n  TestTrace\n    (S) 10 num-visits - Number of ops visited\nTestTrace\n  (S) 1 num-visits - Number of ops visited\n"
        ),
        "{stats}"
    );
    let timing = pm.timing_report();
    let lines: Vec<&str> = timing.lines().collect();
    assert_eq!(
        lines[1],
        "                         ... Execution time report ..."
    );
    assert!(lines[3].starts_with("  Total Execution Time: "));
    assert_eq!(lines[5], "  ----Wall Time----  ----Name----");
    assert!(lines[6].ends_with("%)  'test.func' Pipeline"), "{timing}");
    assert!(lines[7].ends_with("%)    TestTrace"));
    assert!(lines[8].ends_with("%)  TestTrace"));
    assert!(lines[9].ends_with("(100.0%)  Total"));
}

#[test]
fn fingerprint_sees_attribute_changes() {
    let (mut ctx, m) = module();
    let a = fingerprint(&ctx, m);
    assert_eq!(a, fingerprint(&ctx, m));
    let body = nart_ir::builtin::module_body(&ctx, m);
    let f = ctx.block_first_op(body).unwrap();
    let t = ctx.unit_attr();
    ctx.set_attr(f, "x", t);
    assert_ne!(a, fingerprint(&ctx, m));
}

#[test]
fn typed_options_from_pipeline() {
    let pass = registry()
        .create("test-trace", "tag=x repeat=3")
        .unwrap()
        .unwrap();
    assert_eq!(pass.pipeline_text(), "test-trace{repeat=3 tag=x}");
    let mut typed = TracePass::with_options(TraceOptions {
        repeat: 3,
        ..TraceOptions::default()
    });
    typed.opts.tag = "x".into();
    assert_eq!(typed.pipeline_text(), pass.pipeline_text());
    assert_eq!(TracePass::INFO.options[2].name, "repeat");
}

#[test]
fn clone_keeps_options() {
    let pm = PassManager::parse("builtin.module(test-trace{tag=q})", &registry()).unwrap();
    let copy = pm.clone();
    assert_eq!(
        copy.pipeline.to_pipeline_string(),
        "builtin.module(test-trace{repeat=1 tag=q})"
    );
}

// ----- pipeline aliases -----

fn registry_with_aliases() -> PassRegistry {
    let mut r = registry();
    r.register_pipeline(
        "test-alias",
        "Two traces",
        "test-trace{tag=x},test.func(test-func-only)",
    );
    r.register_pipeline(
        "test-outer",
        "An alias of an alias",
        "test-alias,test-trace",
    );
    r.register_pipeline("test-cycle", "Names itself", "test-cycle");
    r.register_pipeline(
        "test-broken",
        "Names a pass nobody registered",
        "no-such-pass",
    );
    r
}

#[test]
fn pipeline_alias_expands_in_place() {
    let reg = registry_with_aliases();
    let pm = parse_pipeline("builtin.module(test-outer,test-trace{repeat=3})", &reg).unwrap();
    assert_eq!(
        pm.to_pipeline_string(),
        "builtin.module(test-trace{repeat=1 tag=x},test.func(test-func-only),test-trace{repeat=1},test-trace{repeat=3})"
    );
    assert!(reg.contains("test-alias") && reg.contains("test-trace") && !reg.contains("nope"));
    let list = reg.list_passes();
    let at = list.find("Pass Pipelines:\n").expect("a pipelines section");
    assert!(list[at..].contains("  --test-alias "), "{list}");
    assert!(list[at..].contains("-   Two traces\n"), "{list}");
    assert!(!registry().list_passes().contains("Pass Pipelines:"));
}

#[test]
fn pipeline_alias_errors() {
    let reg = registry_with_aliases();
    for (text, expect) in [
        (
            "builtin.module(test-alias{tag=y})",
            "pass pipeline:1:26: error: pass pipeline 'test-alias' takes no options",
        ),
        (
            "builtin.module(test-cycle)",
            "pass pipeline:1:16: error: in pass pipeline 'test-cycle': pass pipeline 'test-cycle' expands more than 16 levels deep",
        ),
        (
            "builtin.module(test-broken)",
            "pass pipeline:1:16: error: in pass pipeline 'test-broken': 'no-such-pass' does not refer to a registered pass or pass pipeline",
        ),
    ] {
        let Err(e) = parse_pipeline(text, &reg) else {
            panic!("{text} parsed");
        };
        let e = e.render();
        assert!(e.starts_with(expect), "{text}:\n{e}");
    }
}
crate::declare_pass! {
    /// Times two phases of its own.
    struct PhasedPass {
        argument: "test-phased",
        name: "TestPhased",
        summary: "Report two timed phases",
        description: "",
    }
}

impl Pass for PhasedPass {
    fn run(
        &mut self,
        _: &mut Context,
        _: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        state.add_time("first", std::time::Duration::from_millis(2));
        state.add_time("second", std::time::Duration::from_millis(1));
        state.add_time("first", std::time::Duration::from_millis(2));
        Ok(())
    }
}

/// Phases a pass times (`PassState::add_time`) nest under it in the timing report, summed
/// over the ops it ran on, in the order first reported.
#[test]
fn pass_phases_nest_in_timing() {
    let (mut ctx, m) = module();
    let mut r = PassRegistry::new();
    r.register(|| Box::new(PhasedPass::new()));
    assert_eq!(
        PhasedPass::with_options(NoOptions::default()).argument(),
        "test-phased"
    );
    let mut pm = PassManager::parse("builtin.module(test.func(test-phased))", &r).unwrap();
    pm.run(&mut ctx, m, &mut Vec::new()).unwrap();
    let entries = pm.timing_entries();
    let pass = &entries[0].children[0];
    assert_eq!(pass.name, "TestPhased");
    let phases: Vec<(&str, u128)> = pass
        .children
        .iter()
        .map(|c| (c.name.as_str(), c.time.as_millis()))
        .collect();
    let funcs = 2; // the test module's functions
    assert_eq!(phases, [("first", 4 * funcs), ("second", funcs)]);
    let report = pm.timing_report();
    assert!(report.contains("%)      first\n"), "{report}");
}
