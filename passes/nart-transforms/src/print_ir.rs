//! `print-ir`: prints the op it runs on to the pass manager's output (MLIR's PrintIRPass).

use nart_ir::printer::print_op;
use nart_ir::{Context, Op};
use nart_pass::{Pass, PassFailure, PassState};

nart_pass::pass_options! {
    /// The options of `print-ir`.
    pub struct PrintIrOptions {
        /// Label
        #[name = "label"]
        pub label: String = "",
    }
}

nart_pass::declare_pass! {
    /// The `print-ir` pass.
    pub struct PrintIrPass {
        argument: "print-ir",
        name: "PrintIRPass",
        summary: "Print IR on the debug stream",
        description: "Prints the op the pass runs on, under a \
            `// -----// IR Dump <label> //----- //` header.",
        options: PrintIrOptions,
    }
}

impl Pass for PrintIrPass {
    fn run(
        &mut self,
        ctx: &mut Context,
        op: Op,
        state: &mut PassState<'_>,
    ) -> Result<(), PassFailure> {
        let label = &self.opts.label;
        let header = if label.is_empty() {
            "// -----// IR Dump //----- //\n".to_string()
        } else {
            format!("// -----// IR Dump {label} //----- //\n")
        };
        let text = print_op(ctx, op, &Default::default());
        let res = state
            .out
            .write_all(header.as_bytes())
            .and_then(|_| state.out.write_all(text.as_bytes()));
        res.map_err(|e| PassFailure::op_error(ctx, op, format!("print-ir: cannot write: {e}")))
    }
}

#[cfg(test)]
mod tests {
    use crate::testing::*;

    #[test]
    fn prints_with_label() {
        let mut t = TestIr::new();
        t.ret_all_empty();
        let out = t.run_pipeline("builtin.module(print-ir{label=hello},print-ir)");
        let m = nart_ir::printer::print_op(&t.ctx, t.module, &Default::default());
        assert_eq!(
            out,
            format!("// -----// IR Dump hello //----- //\n{m}// -----// IR Dump //----- //\n{m}")
        );
    }
}
