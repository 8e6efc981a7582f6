//! `quant-lint`: reports every dequantized value that still feeds a float compute op.
//!
//! A dequantize is any op with the [`DequantizeOpInterface`] (`quant.dcast`, and
//! `graph.DequantizeLinear` of an imported QDQ model). A float compute op is an op with a cost
//! model ([`OpCostInterface`](nart_ir::interfaces::OpCostInterface)) that computes (not data
//! movement) and has a float result. In the QDQ form every quantized op still reads dequantized
//! values until the `qnn` lowering fuses them, so after that lowering the lint lists exactly the
//! ops left in float: one warning per op, with its location and which operands are
//! dequantized, a remark at the same op saying why it is not an integer `qnn` op (from
//! [`crate::lower_qnn::explain`]), and a summary.

use nart_ir::{Context, Diagnostic, Op, Severity};

use crate::{ir_util, roles};

/// Marks ops that turn quantized values back into floats.
pub trait DequantizeOpInterface: Sync {
    /// The operand holding the quantized value.
    fn quantized_operand(&self) -> usize {
        0
    }
}

struct Dequantize;

impl DequantizeOpInterface for Dequantize {}

/// Attaches the interface to `quant.dcast` and `graph.DequantizeLinear`.
pub fn register(ctx: &mut Context) {
    ctx.attach_interface::<dyn DequantizeOpInterface>("quant.dcast", &Dequantize);
    ctx.attach_interface::<dyn DequantizeOpInterface>("graph.DequantizeLinear", &Dequantize);
}

/// Whether `op` computes in float: it has a cost model, is not data movement and has a float
/// result.
pub fn is_float_compute(ctx: &Context, op: Op) -> bool {
    ctx.op_interface::<dyn nart_ir::interfaces::OpCostInterface>(op)
        .is_some()
        && ctx.op_interface::<dyn DequantizeOpInterface>(op).is_none()
        && roles::role(ctx, op) != Some(roles::Role::PassThrough)
        && ctx
            .results(op)
            .iter()
            .any(|&r| ir_util::is_float_tensor(ctx, ctx.value_type(r)))
}

/// The value a quantized value was made from, for messages: through `quant.qcast` and
/// `quant.scast` back to the float value or the integer constant.
fn source_name(ctx: &Context, mut v: nart_ir::Value) -> String {
    for _ in 0..4 {
        match ctx.defining_op(v) {
            Some(d) if matches!(ctx.op_name_str(d), "quant.qcast" | "quant.scast") => {
                v = ctx.operand(d, 0);
            }
            _ => break,
        }
    }
    format!("'{}'", ir_util::describe_value(ctx, v))
}

/// What the lint found.
#[derive(Clone, Debug, Default)]
pub struct LintReport {
    /// One warning per float compute op reading dequantized values.
    pub warnings: Vec<Diagnostic>,
    /// One remark per float compute op reading dequantized values: why it stayed float.
    pub reasons: Vec<Diagnostic>,
    /// Dequantize-to-compute edges.
    pub edges: usize,
}

/// Lints the ops nested in `root`.
pub fn lint(ctx: &Context, root: Op) -> LintReport {
    let mut report = LintReport::default();
    for op in ctx.collect_ops(root, nart_ir::WalkOrder::PreOrder) {
        if !is_float_compute(ctx, op) {
            continue;
        }
        let mut from = Vec::new();
        for (i, &v) in ctx.operands(op).iter().enumerate() {
            let Some(d) = ctx.defining_op(v) else {
                continue;
            };
            if ctx.op_interface::<dyn DequantizeOpInterface>(d).is_some() {
                from.push(format!("#{i} ({})", source_name(ctx, ctx.operand(d, 0))));
            }
        }
        if from.is_empty() {
            continue;
        }
        report.edges += from.len();
        let name = ir_util::op_name(ctx, op)
            .map(|n| format!(" '{n}'"))
            .unwrap_or_default();
        report.warnings.push(Diagnostic::new(
            Severity::Warning,
            ctx.op_loc(op),
            format!(
                "'{}'{name} computes in float on dequantized operand{} {}",
                ctx.op_name_str(op),
                if from.len() > 1 { "s" } else { "" },
                from.join(", ")
            ),
        ));
        let why = crate::lower_qnn::explain(ctx, op, nart_dialect_qnn::attrs::rounding::HALF_EVEN);
        report.reasons.push(Diagnostic::new(
            Severity::Remark,
            ctx.op_loc(op),
            format!("'{}'{name} stays float: {why}", ctx.op_name_str(op)),
        ));
    }
    report
}
