//! Every canonicalization pattern of every dialect `nart-opt` registers passes its own check
//! ([`RewritePattern::check`](nart_ir::RewritePattern::check)): a declarative rule compiles,
//! names only registered ops, operands and attributes, and replaces the right number of
//! results; and each pattern is rooted on the op that lists it.

use nart_ir::Context;

#[test]
fn every_registered_pattern_checks() {
    let mut ctx = Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_cf::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    let mut problems = Vec::new();
    let mut n = 0;
    for dialect in ctx.registry.dialects() {
        for op in dialect.ops {
            for p in op.canonicalize {
                n += 1;
                if let Err(e) = p.check(&ctx) {
                    problems.push(format!("{} on `{}`: {e}", p.name(), op.name));
                }
                if p.root().is_some_and(|r| r != op.name) {
                    problems.push(format!(
                        "{} is listed by `{}` but rooted on `{}`",
                        p.name(),
                        op.name,
                        p.root().unwrap_or_default()
                    ));
                }
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert!(n > 0, "the dialects list patterns");
}
