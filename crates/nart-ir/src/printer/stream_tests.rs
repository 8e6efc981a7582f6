//! Tests of the streaming printer [`super::print_op_to`]: it writes exactly what
//! [`super::print_op`] returns, in one pass or streaming, with and without `#map` aliases, and
//! reports the writer's errors.

use super::{print_op, print_op_to_with_limit, PrintOptions};
use crate::Context;

/// Nested regions, a multi-result op and an affine map, so that aliases are printed.
const WITH_MAP: &str = r#"
"t.outer"() ({
  %0:2 = "t.two"() : () -> (i32, i32)
  "t.inner"(%0#1) ({
    "t.leaf"() {m = affine_map<(d0, d1) -> (d1, d0)>} : () -> ()
  }) : (i32) -> ()
}) : () -> ()
"t.last"() {s = "x"} : () -> ()
"#;

/// Many ops in one nested block, so that the text is drained in many chunks.
fn many_ops(n: usize, with_map: bool) -> String {
    let mut s = String::from("\"t.outer\"() ({\n");
    for i in 0..n {
        s.push_str(&format!(
            "  %{i} = \"t.op\"() {{v = {i} : i64}} : () -> i32\n"
        ));
    }
    if with_map {
        s.push_str("  \"t.leaf\"() {m = affine_map<(d0) -> (d0 + 1)>} : () -> ()\n");
    }
    s.push_str("}) : () -> ()\n");
    s
}

fn parse(ctx: &mut Context, text: &str) -> crate::Op {
    ctx.allow_unregistered = true;
    crate::parser::parse_source(ctx, "t.mlir", text).expect("the test input parses")
}

/// Prints `text` with a one-pass limit of `limit` bytes and compares with `print_op`.
fn check(text: &str, opts: &PrintOptions, limit: usize) {
    let mut ctx = Context::new();
    let m = parse(&mut ctx, text);
    let want = print_op(&ctx, m, opts);
    let mut got = Vec::new();
    print_op_to_with_limit(&ctx, m, opts, &mut got, limit).expect("a Vec never fails");
    assert_eq!(
        String::from_utf8(got).expect("UTF-8"),
        want,
        "limit {limit}"
    );
}

#[test]
fn streaming_writes_what_print_op_returns() {
    let big = many_ops(3000, false);
    let big_map = many_ops(3000, true);
    let local = PrintOptions {
        local_scope: true,
        ..Default::default()
    };
    let generic = PrintOptions {
        generic: true,
        ..Default::default()
    };
    for text in [WITH_MAP, big.as_str(), big_map.as_str()] {
        for limit in [0, 100, usize::MAX] {
            check(text, &PrintOptions::default(), limit);
            check(text, &local, limit);
            check(text, &generic, limit);
        }
    }
}

/// A writer that fails after `ok` bytes.
struct Failing {
    ok: usize,
    written: usize,
}

impl std::io::Write for Failing {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        if self.written + b.len() > self.ok {
            return Err(std::io::Error::other("disk full"));
        }
        self.written += b.len();
        Ok(b.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn write_errors_are_returned() {
    let mut ctx = Context::new();
    let m = parse(&mut ctx, &many_ops(3000, true));
    for (ok, limit) in [(0, usize::MAX), (0, 0), (70_000, 0), (10, 0)] {
        let mut w = Failing { ok, written: 0 };
        let res = print_op_to_with_limit(&ctx, m, &PrintOptions::default(), &mut w, limit);
        assert_eq!(
            res.expect_err("the writer fails").to_string(),
            "disk full",
            "ok {ok}, limit {limit}"
        );
    }
}
