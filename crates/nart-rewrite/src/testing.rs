//! Patterns for the driver's unit tests, over the ops of the shared `test` dialect
//! (`nart-test-dialect`).

use nart_ir::{Op, PatternRewriter, RewritePattern};

/// Rewrites every `test.effect` forever (bumps a counter attribute).
pub struct Forever;

impl RewritePattern for Forever {
    fn name(&self) -> &'static str {
        "Forever"
    }
    fn root(&self) -> Option<&'static str> {
        Some("test.effect")
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        let n = rw
            .attr(op, "count")
            .and_then(|a| rw.attr_int(a))
            .unwrap_or(0);
        let a = rw.uniq().i64_attr(n as i64 + 1);
        rw.set_attr(op, "count", a);
        true
    }
}

/// Tags an untagged `test.effect` with its name, at a given benefit.
pub struct Tag(pub &'static str, pub u16);

impl RewritePattern for Tag {
    fn name(&self) -> &'static str {
        self.0
    }
    fn root(&self) -> Option<&'static str> {
        None
    }
    fn benefit(&self) -> u16 {
        self.1
    }
    fn match_and_rewrite(&self, rw: &mut PatternRewriter<'_>, op: Op) -> bool {
        if rw.op_name_str(op) != "test.effect" || rw.attr(op, "tag").is_some() {
            return false;
        }
        let a = rw.uniq().string_attr(self.0);
        rw.set_attr(op, "tag", a);
        true
    }
}
