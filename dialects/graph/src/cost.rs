//! The default cost model of graph ops ([`OpCostInterface`]): arithmetic operations and bytes
//! moved, from static shapes.
//!
//! The figures are the textbook ones a target starts from; a target that knows its kernels
//! attaches its own implementation (`Context::attach_interface`) to the ops it runs.
//! Every rule returns `None` when a tensor it needs has a dynamic or unknown shape.
//!
//! - **Bytes** are the same for every rule: every tensor operand read plus every tensor result
//!   written, at the element type's width (`i1` as one byte, sub-byte types packed); absent
//!   optional operands and results (`none`) count nothing. A view-like op (`Reshape`) counts as
//!   a copy: the IR has value semantics, and aliasing is a target's decision.
//! - **FLOPs** count a multiply-add as two, as [`OpCost`] says:
//!   - elementwise: one per result element for each operand beyond the first (one for a unary
//!     op), so `Add` is one per element and `Clip` with both bounds two;
//!   - `Conv`: `2 * |Y| * C_in/group * prod(kernel)`, plus `|Y|` for a bias;
//!   - `ConvTranspose`: `2 * |X| * C_out/group * prod(kernel)`, plus `|Y|` for a bias;
//!   - `Gemm`: `2 * M * N * K`, plus `M * N` for `C`; `MatMul`: `2 * |Y| * K`;
//!   - windowed pooling: `|Y| * prod(kernel)`; global pooling and reductions: `|X|`;
//!   - `BatchNormalization` (inference): `2 * |X|` (one scale and one shift per element, the
//!     statistics folded); normalizations that compute statistics: `5 * |X|` (mean, variance,
//!     subtraction, division, scale and shift);
//!   - `Softmax` and `LogSoftmax`: `5 * |X|` (max, subtraction, exponential, sum, division);
//!   - data movement (`Transpose`, `Reshape`, `Concat`, `Gather`, ...): none.

use nart_ir::interfaces::{OpCost, OpCostInterface};
use nart_ir::{Context, Op, Type, TypeData, DYNAMIC};

use crate::infer::Rules;

/// Which ops each cost rule of this file covers. `scripts/gen_graph_ops.py` reads this table
/// and declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    (
        "Elementwise",
        &[
            "Abs",
            "Acos",
            "Acosh",
            "Add",
            "And",
            "Asin",
            "Asinh",
            "Atan",
            "Atanh",
            "BitShift",
            "BitwiseAnd",
            "BitwiseNot",
            "BitwiseOr",
            "BitwiseXor",
            "Cast",
            "CastLike",
            "Ceil",
            "Celu",
            "Clip",
            "Cos",
            "Cosh",
            "Div",
            "Elu",
            "Equal",
            "Erf",
            "Exp",
            "Floor",
            "Gelu",
            "Greater",
            "GreaterOrEqual",
            "HardSigmoid",
            "HardSwish",
            "IsInf",
            "IsNaN",
            "LeakyRelu",
            "Less",
            "LessOrEqual",
            "Log",
            "Max",
            "Mean",
            "Min",
            "Mish",
            "Mod",
            "Mul",
            "Neg",
            "Not",
            "Or",
            "PRelu",
            "Pow",
            "Reciprocal",
            "Relu",
            "Round",
            "Selu",
            "Shrink",
            "Sigmoid",
            "Sign",
            "Sin",
            "Sinh",
            "Softplus",
            "Softsign",
            "Sqrt",
            "Sub",
            "Sum",
            "SwiGLU",
            "Swish",
            "Tan",
            "Tanh",
            "ThresholdedRelu",
            "Where",
            "Xor",
        ],
    ),
    ("Conv", &["Conv", "ConvInteger"]),
    ("ConvTranspose", &["ConvTranspose"]),
    ("Gemm", &["Gemm"]),
    ("MatMul", &["MatMul", "MatMulInteger"]),
    ("Pool", &["AveragePool", "LpPool", "MaxPool"]),
    (
        "Reduce",
        &[
            "ArgMax",
            "ArgMin",
            "GlobalAveragePool",
            "GlobalLpPool",
            "GlobalMaxPool",
            "ReduceL1",
            "ReduceL2",
            "ReduceLogSum",
            "ReduceLogSumExp",
            "ReduceMax",
            "ReduceMean",
            "ReduceMin",
            "ReduceProd",
            "ReduceSum",
            "ReduceSumSquare",
        ],
    ),
    ("BatchNormalization", &["BatchNormalization"]),
    (
        "Normalization",
        &[
            "GroupNormalization",
            "InstanceNormalization",
            "LayerNormalization",
            "LpNormalization",
            "MeanVarianceNormalization",
            "RMSNormalization",
        ],
    ),
    ("Softmax", &["LogSoftmax", "Softmax"]),
    (
        "DataMovement",
        &[
            "Concat",
            "DepthToSpace",
            "Expand",
            "Flatten",
            "Gather",
            "GatherElements",
            "GatherND",
            "Identity",
            "Pad",
            "Reshape",
            "Slice",
            "SpaceToDepth",
            "Split",
            "Squeeze",
            "Tile",
            "Transpose",
            "Unsqueeze",
        ],
    ),
];

/// Declares cost rules: `Name = |c| ...;` defines the unit struct `Name`, whose
/// [`OpCostInterface`] implementation runs the closure on the op's [`Costed`] view and adds
/// the bytes moved.
macro_rules! cost_rules {
    ($($(#[$doc:meta])* $name:ident = $f:expr;)*) => {$(
        $(#[$doc])*
        #[derive(Clone, Copy, Debug)]
        pub struct $name;

        impl OpCostInterface for $name {
            fn cost(&self, ctx: &Context, op: Op) -> Option<OpCost> {
                let flops: fn(&Costed<'_>) -> Option<f64> = $f;
                let c = Costed { ctx, op };
                Some(OpCost { flops: flops(&c)?, bytes: c.bytes()? })
            }
        }
    )*};
}

cost_rules! {
    /// One operation per result element for each operand beyond the first.
    Elementwise = |c| {
        let per = c.tensor_operands().saturating_sub(1).max(1) as f64;
        Some(c.result_numel(0)? * per)
    };
    /// `2 * |Y| * C_in/group * prod(kernel)`, plus `|Y|` for a bias.
    Conv = |c| {
        let w = c.operand_shape(1)?;
        let per_output = numel(w.get(1..)?);
        let y = c.result_numel(0)?;
        Some(2.0 * y * per_output + c.bias(2, y))
    };
    /// `2 * |X| * C_out/group * prod(kernel)`, plus `|Y|` for a bias.
    ConvTranspose = |c| {
        let w = c.operand_shape(1)?;
        let per_input = numel(w.get(1..)?);
        let x = numel(&c.operand_shape(0)?);
        let y = c.result_numel(0)?;
        Some(2.0 * x * per_input + c.bias(2, y))
    };
    /// `2 * M * N * K`, plus `M * N` for `C`.
    Gemm = |c| {
        let a = c.operand_shape(0)?;
        let k = *if c.int("transA", 0) != 0 { a.first()? } else { a.get(1)? } as f64;
        let mn = c.result_numel(0)?;
        Some(2.0 * mn * k + c.bias(2, mn))
    };
    /// `2 * |Y| * K`, with `K` the last dim of `A`.
    MatMul = |c| {
        let k = *c.operand_shape(0)?.last()? as f64;
        Some(2.0 * c.result_numel(0)? * k)
    };
    /// `|Y| * prod(kernel_shape)`.
    Pool = |c| {
        let kernel = c.ints("kernel_shape")?;
        Some(c.result_numel(0)? * numel(&kernel))
    };
    /// One operation per input element.
    Reduce = |c| Some(numel(&c.operand_shape(0)?));
    /// A scale and a shift per element.
    BatchNormalization = |c| Some(2.0 * numel(&c.operand_shape(0)?));
    /// Mean, variance, subtraction, division, and scale and shift per element.
    Normalization = |c| Some(5.0 * numel(&c.operand_shape(0)?));
    /// Max, subtraction, exponential, sum and division per element.
    Softmax = |c| Some(5.0 * numel(&c.operand_shape(0)?));
    /// No arithmetic.
    DataMovement = |_| Some(0.0);
}

/// What a cost rule sees of an op.
pub(crate) struct Costed<'a> {
    ctx: &'a Context,
    op: Op,
}

impl Costed<'_> {
    fn is_none(&self, ty: Type) -> bool {
        matches!(self.ctx.type_data(ty), TypeData::None)
    }

    /// The number of operands that are tensors (not `none`).
    fn tensor_operands(&self) -> usize {
        self.ctx
            .operands(self.op)
            .iter()
            .filter(|v| !self.is_none(self.ctx.value_type(**v)))
            .count()
    }

    /// The static shape of operand `k`.
    fn operand_shape(&self, k: usize) -> Option<Vec<i64>> {
        let v = *self.ctx.operands(self.op).get(k)?;
        static_shape(self.ctx, self.ctx.value_type(v))
    }

    /// The element count of result `k`, when its shape is static.
    fn result_numel(&self, k: usize) -> Option<f64> {
        let v = *self.ctx.results(self.op).get(k)?;
        Some(numel(&static_shape(self.ctx, self.ctx.value_type(v))?))
    }

    /// `n` when optional operand `k` (a bias) is given, else 0.
    fn bias(&self, k: usize, n: f64) -> f64 {
        match self.ctx.operands(self.op).get(k) {
            Some(v) if !self.is_none(self.ctx.value_type(*v)) => n,
            _ => 0.0,
        }
    }

    fn int(&self, name: &str, default: i64) -> i64 {
        self.ctx
            .attr(self.op, name)
            .and_then(|a| self.ctx.attr_int(a))
            .map_or(default, |v| v as i64)
    }

    fn ints(&self, name: &str) -> Option<Vec<i64>> {
        match self.ctx.attr_data(self.ctx.attr(self.op, name)?) {
            nart_ir::AttrData::DenseArray {
                data: nart_ir::DenseArrayData::Int(v),
                ..
            } => Some(v.clone()),
            _ => None,
        }
    }

    /// Every tensor operand's and result's bytes; `None` if one is not statically shaped.
    fn bytes(&self) -> Option<f64> {
        let ctx = self.ctx;
        let values = ctx.operands(self.op).iter().chain(ctx.results(self.op));
        let mut total = 0.0;
        for &v in values {
            let ty = ctx.value_type(v);
            if self.is_none(ty) {
                continue;
            }
            total += tensor_bytes(ctx, ty)?;
        }
        Some(total)
    }
}

/// The shape of a ranked tensor type without dynamic dims.
fn static_shape(ctx: &Context, ty: Type) -> Option<Vec<i64>> {
    match ctx.type_data(ty) {
        TypeData::RankedTensor { shape, .. } if !shape.contains(&DYNAMIC) => Some(shape.clone()),
        _ => None,
    }
}

fn numel(shape: &[i64]) -> f64 {
    shape.iter().map(|&d| d as f64).product()
}

/// The bytes a statically shaped tensor holds.
fn tensor_bytes(ctx: &Context, ty: Type) -> Option<f64> {
    let shape = static_shape(ctx, ty)?;
    let TypeData::RankedTensor { elem, .. } = ctx.type_data(ty) else {
        return None;
    };
    let bits = match ctx.type_data(*elem) {
        TypeData::Integer { width: 1, .. } => 8,
        TypeData::Integer { width, .. } => *width,
        TypeData::Float(k) => k.width(),
        TypeData::Index => 64,
        TypeData::Complex(t) => match ctx.type_data(*t) {
            TypeData::Float(k) => 2 * k.width(),
            _ => return None,
        },
        _ => return None,
    };
    Some(numel(&shape) * f64::from(bits) / 8.0)
}

#[cfg(test)]
mod tests {
    use nart_ir::interfaces::{OpCost, OpCostInterface};
    use nart_ir::{Context, WalkOrder};

    /// The cost of the last op in `body`, whose block arguments are `args`.
    fn cost(args: &str, body: &str) -> Option<OpCost> {
        let src = format!("\"test.holder\"() ({{\n^bb0({args}):\n{body}\n}}) : () -> ()\n");
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        ctx.allow_unregistered = true;
        let module = nart_ir::parser::parse_source(&mut ctx, "test.mlir", &src)
            .unwrap_or_else(|d| panic!("{}", d[0].message));
        let mut last = None;
        ctx.walk(module, WalkOrder::PreOrder, |ctx, op| {
            if ctx.op_name_str(op).starts_with("graph.") {
                last = Some(op);
            }
        });
        let op = last.expect("a graph op");
        let imp = ctx
            .op_interface::<dyn OpCostInterface>(op)
            .expect("the op has a cost rule");
        imp.cost(&ctx, op)
    }

    fn flops_bytes(args: &str, body: &str) -> (f64, f64) {
        let c = cost(args, body).expect("static shapes give a cost");
        (c.flops, c.bytes)
    }

    #[test]
    fn conv_counts_multiply_adds_and_tensors() {
        // ResNet's stem: 64 filters of 3x7x7 over 1x3x224x224, stride 2, pads 3 -> 1x64x112x112.
        // FLOPs: 2 * (64 * 112 * 112) * (3 * 7 * 7) = 2 * 802816 * 147 = 236027904.
        // Bytes: (150528 + 9408 + 802816) f32 elements * 4 = 3851008.
        let got = flops_bytes(
            "%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %n: none",
            r#"%0 = "graph.Conv"(%x, %w, %n) <{pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, none) -> tensor<1x64x112x112xf32>"#,
        );
        assert_eq!(got, (236_027_904.0, 3_851_008.0));
        // With a bias: 802816 more FLOPs and 64 * 4 more bytes.
        let got = flops_bytes(
            "%x: tensor<1x3x224x224xf32>, %w: tensor<64x3x7x7xf32>, %b: tensor<64xf32>",
            r#"%0 = "graph.Conv"(%x, %w, %b) <{pads = array<i64: 3, 3, 3, 3>, strides = array<i64: 2, 2>}> : (tensor<1x3x224x224xf32>, tensor<64x3x7x7xf32>, tensor<64xf32>) -> tensor<1x64x112x112xf32>"#,
        );
        assert_eq!(got, (236_830_720.0, 3_851_264.0));
    }

    #[test]
    fn conv_transpose_counts_per_input_element() {
        // 2 * (3 * 10 * 10) * (8 * 4 * 4) = 76800; (300 + 384 + 3200) * 4 = 15536.
        let got = flops_bytes(
            "%x: tensor<1x3x10x10xf32>, %w: tensor<3x8x4x4xf32>, %n: none",
            r#"%0 = "graph.ConvTranspose"(%x, %w, %n) <{pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x3x10x10xf32>, tensor<3x8x4x4xf32>, none) -> tensor<1x8x20x20xf32>"#,
        );
        assert_eq!(got, (76_800.0, 15_536.0));
    }

    #[test]
    fn matrix_products() {
        // Gemm 128x256 by 256x512 plus C: 2 * 128 * 512 * 256 + 128 * 512 = 33619968;
        // (32768 + 131072 + 512 + 65536) * 4 = 919552.
        let got = flops_bytes(
            "%a: tensor<128x256xf32>, %b: tensor<256x512xf32>, %c: tensor<512xf32>",
            r#"%0 = "graph.Gemm"(%a, %b, %c) : (tensor<128x256xf32>, tensor<256x512xf32>, tensor<512xf32>) -> tensor<128x512xf32>"#,
        );
        assert_eq!(got, (33_619_968.0, 919_552.0));
        // Transposed A: K is A's first dim.
        let got = flops_bytes(
            "%a: tensor<256x128xf32>, %b: tensor<256x512xf32>, %n: none",
            r#"%0 = "graph.Gemm"(%a, %b, %n) <{transA = 1 : i64}> : (tensor<256x128xf32>, tensor<256x512xf32>, none) -> tensor<128x512xf32>"#,
        );
        assert_eq!(got.0, 33_554_432.0);
        // Batched MatMul 8x64x32 by 32x16: 2 * (8 * 64 * 16) * 32 = 524288;
        // (16384 + 512 + 8192) * 4 = 100352.
        let got = flops_bytes(
            "%a: tensor<8x64x32xf32>, %b: tensor<32x16xf32>",
            r#"%0 = "graph.MatMul"(%a, %b) : (tensor<8x64x32xf32>, tensor<32x16xf32>) -> tensor<8x64x16xf32>"#,
        );
        assert_eq!(got, (524_288.0, 100_352.0));
    }

    #[test]
    fn elementwise_pooling_reductions_and_normalization() {
        // Add with broadcasting: 6 FLOPs; (6 + 3 + 6) * 4 bytes.
        let got = flops_bytes(
            "%a: tensor<2x3xf32>, %b: tensor<3xf32>",
            r#"%0 = "graph.Add"(%a, %b) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>"#,
        );
        assert_eq!(got, (6.0, 60.0));
        // Relu on f16: 10 FLOPs, (10 + 10) * 2 bytes.
        let got = flops_bytes(
            "%a: tensor<10xf16>",
            r#"%0 = "graph.Relu"(%a) : (tensor<10xf16>) -> tensor<10xf16>"#,
        );
        assert_eq!(got, (10.0, 40.0));
        // Comparisons write one byte per boolean: (4 + 4) * 4 + 4.
        let got = flops_bytes(
            "%a: tensor<4xf32>, %b: tensor<4xf32>",
            r#"%0 = "graph.Less"(%a, %b) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>"#,
        );
        assert_eq!(got, (4.0, 36.0));
        // MaxPool 3x3 stride 2 on 1x64x112x112: 200704 outputs * 9 = 1806336; the input,
        // the values and the i64 indices: 802816 * 4 + 200704 * 4 + 200704 * 8 = 5619712.
        let got = flops_bytes(
            "%x: tensor<1x64x112x112xf32>",
            r#"%0:2 = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x64x112x112xf32>) -> (tensor<1x64x56x56xf32>, tensor<1x64x56x56xi64>)"#,
        );
        assert_eq!(got, (1_806_336.0, 5_619_712.0));
        // Without the indices (a none result), only the values are written.
        let got = flops_bytes(
            "%x: tensor<1x64x112x112xf32>",
            r#"%0:2 = "graph.MaxPool"(%x) <{kernel_shape = array<i64: 3, 3>, pads = array<i64: 1, 1, 1, 1>, strides = array<i64: 2, 2>}> : (tensor<1x64x112x112xf32>) -> (tensor<1x64x56x56xf32>, none)"#,
        );
        assert_eq!(got, (1_806_336.0, 4_014_080.0));
        // GlobalAveragePool 1x64x7x7: 3136 FLOPs; (3136 + 64) * 4 bytes.
        let got = flops_bytes(
            "%x: tensor<1x64x7x7xf32>",
            r#"%0 = "graph.GlobalAveragePool"(%x) : (tensor<1x64x7x7xf32>) -> tensor<1x64x1x1xf32>"#,
        );
        assert_eq!(got, (3136.0, 12_800.0));
        // ReduceSum over the last axis of 2x3x4: 24 FLOPs; 96 + 8 (axes) + 24 bytes.
        let got = flops_bytes(
            "%x: tensor<2x3x4xf32>, %axes: tensor<1xi64>",
            r#"%0 = "graph.ReduceSum"(%x, %axes) : (tensor<2x3x4xf32>, tensor<1xi64>) -> tensor<2x3x1xf32>"#,
        );
        assert_eq!(got, (24.0, 128.0));
        // BatchNormalization 1x4x2x2 with four [4] parameters: 2 * 16; (16 + 16 + 16) * 4.
        let got = flops_bytes(
            "%x: tensor<1x4x2x2xf32>, %p: tensor<4xf32>",
            r#"%0:3 = "graph.BatchNormalization"(%x, %p, %p, %p, %p) : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<1x4x2x2xf32>, none, none)"#,
        );
        assert_eq!(got, (32.0, 192.0));
        // LayerNormalization of 2x5x8 with an [8] scale: 5 * 80; (80 + 8 + 80) * 4.
        let got = flops_bytes(
            "%x: tensor<2x5x8xf32>, %s: tensor<8xf32>, %n: none",
            r#"%0:3 = "graph.LayerNormalization"(%x, %s, %n) : (tensor<2x5x8xf32>, tensor<8xf32>, none) -> (tensor<2x5x8xf32>, none, none)"#,
        );
        assert_eq!(got, (400.0, 672.0));
        // Softmax of 2x10: 5 * 20; (20 + 20) * 4.
        let got = flops_bytes(
            "%x: tensor<2x10xf32>",
            r#"%0 = "graph.Softmax"(%x) : (tensor<2x10xf32>) -> tensor<2x10xf32>"#,
        );
        assert_eq!(got, (100.0, 160.0));
    }

    #[test]
    fn data_movement_costs_only_bytes() {
        let got = flops_bytes(
            "%x: tensor<2x3x4xf32>",
            r#"%0 = "graph.Transpose"(%x) <{perm = array<i64: 2, 0, 1>}> : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>"#,
        );
        assert_eq!(got, (0.0, 192.0));
        // Concat of two i64 vectors: (2 + 3 + 5) * 8.
        let got = flops_bytes(
            "%a: tensor<2xi64>, %b: tensor<3xi64>",
            r#"%0 = "graph.Concat"(%a, %b) <{axis = 0 : i64}> : (tensor<2xi64>, tensor<3xi64>) -> tensor<5xi64>"#,
        );
        assert_eq!(got, (0.0, 80.0));
    }

    #[test]
    fn dynamic_shapes_have_no_cost() {
        assert_eq!(
            cost(
                "%x: tensor<?x3xf32>",
                r#"%0 = "graph.Relu"(%x) : (tensor<?x3xf32>) -> tensor<?x3xf32>"#
            ),
            None
        );
        assert_eq!(
            cost(
                "%a: tensor<*xf32>, %b: tensor<4x6xf32>",
                r#"%0 = "graph.MatMul"(%a, %b) : (tensor<*xf32>, tensor<4x6xf32>) -> tensor<*xf32>"#
            ),
            None
        );
    }

    /// Every op a cost rule lists declares it.
    #[test]
    fn cost_rules_are_declared() {
        let mut ctx = Context::new();
        crate::register(&mut ctx);
        for (rule, ops) in super::RULES {
            for op in *ops {
                let id = ctx.ident(&format!("graph.{op}"));
                assert!(
                    ctx.op_interface_by_name::<dyn OpCostInterface>(id)
                        .is_some(),
                    "{rule} lists {op}, whose OpDef declares no cost rule"
                );
            }
        }
    }
}
