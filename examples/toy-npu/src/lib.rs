//! `toy-npu`: a new chip added to nart through its public API only, in under 400 lines (a test
//! counts them; the walk-through is `docs/tutorials/new-chip.md`): the `toynpu` dialect (this
//! file), the target and its compiler ([`ToyNpu`], `target.rs`), the chip's program format
//! (`program.rs`) and its runtime, a simulator bit-exact with nart's integer kernels
//! (`sim.rs`). What every chip would write again comes from `nart_target::lowering` and
//! `nart_target_rt::wire`.

#![deny(missing_docs)]

use nart_dialect_qnn::attrs::{
    DENSE_I64_ARRAY, DILATIONS_PROP, GROUP_PROP, PADS_PROP, ROUNDING_PROP, STRIDES_PROP,
};
use nart_dialect_qnn::QUANTIZED_TENSOR;
use nart_ir::registry::{constraints as c, AttrDef};
use nart_ir::{Context, DialectDef, OpDef};
use nart_macros::op;

pub mod program;
pub mod sim;
mod target;

pub use target::{lower, ToyNpu};

/// The target's name (`--targets toy-npu`).
pub const NAME: &str = "toy-npu";

const RELU: AttrDef = AttrDef::optional("relu", c::UNIT_ATTR, "A relu fused into the result.");
const KERNEL: AttrDef = AttrDef::required("kernel_shape", DENSE_I64_ARRAY, "The window size.");

/// int8 convolution: i32 accumulation, per-channel requantization, optional fused relu
#[op(
    name = "toynpu.conv",
    def = CONV,
    operands(input: QUANTIZED_TENSOR, weight: QUANTIZED_TENSOR, bias: optional(QUANTIZED_TENSOR)),
    results(result: QUANTIZED_TENSOR),
    attrs(
        strides: optional(STRIDES_PROP),
        pads: optional(PADS_PROP),
        dilations: optional(DILATIONS_PROP),
        group: optional(GROUP_PROP),
        relu: optional(RELU),
        rounding: optional(ROUNDING_PROP),
    ),
    traits(Pure)
)]
pub struct ConvOp;

/// int8 addition with requantization and an optional fused relu
#[op(
    name = "toynpu.add",
    def = ADD,
    operands(lhs: QUANTIZED_TENSOR, rhs: QUANTIZED_TENSOR),
    results(result: QUANTIZED_TENSOR),
    attrs(relu: optional(RELU), rounding: optional(ROUNDING_PROP)),
    traits(Pure)
)]
pub struct AddOp;

/// int8 max pooling
#[op(
    name = "toynpu.max_pool",
    def = MAX_POOL,
    operands(input: QUANTIZED_TENSOR),
    results(result: QUANTIZED_TENSOR),
    attrs(
        kernel_shape: KERNEL,
        strides: optional(STRIDES_PROP),
        pads: optional(PADS_PROP),
        dilations: optional(DILATIONS_PROP),
    ),
    traits(Pure)
)]
pub struct MaxPoolOp;

static OPS: [&OpDef; 3] = [&CONV, &ADD, &MAX_POOL];

/// Registers the `toynpu` dialect.
pub fn register(ctx: &mut Context) {
    ctx.register_dialect(DialectDef {
        summary: "The toy NPU's instructions (docs/tutorials/new-chip.md).",
        ops: &OPS,
        ..DialectDef::new("toynpu")
    });
}
