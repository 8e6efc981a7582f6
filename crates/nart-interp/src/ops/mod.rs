//! The dispatch table from ONNX operator name to kernel, and helpers kernels share.
//!
//! Kernels come in three kinds: tensor kernels (tensors in, tensors out: almost every op), value
//! kernels (sequences and optionals), and region kernels (If, Loop, Scan, SequenceMap), which run
//! nested blocks through the interpreter.
//! `KERNELS` is the one table of them, sorted by operator name; [`register`] attaches each to
//! its graph op as the [`ReferenceKernel`] interface, through which the interpreter finds it.
//! Tensor kernels only map attributes and operands onto `nart-tensor`'s functions, one file per
//! family: `elementwise`, `nn` (convolution, pooling, normalization, reductions, ...),
//! `attention`, `rnn`, `signal`, `text` and `shape` (shape, indexing and type operators);
//! `control` holds the value and region kernels; `fused` runs the graph dialect's fused ops
//! (base kernel, then the activation); `qnn` maps the qnn dialect's ops and the quant
//! casts onto `nart_tensor::qnn` (their own table, by full op name).

use std::sync::Arc;

use nart_tensor::elementwise::{BinaryOp, UnaryOp};
use nart_tensor::reduce::ReduceOp;
use nart_tensor::signal::WindowKind;
use nart_tensor::{KernelError, Result as KResult, Tensor};

use crate::attrs::Node;
use crate::error::Result;
use crate::interp::{Env, Step};
use crate::value::Val;

mod attention;
mod control;
mod elementwise;
mod fused;
mod nn;
mod qnn;
mod rnn;
pub(crate) mod shape;
mod signal;
mod text;

use elementwise as ew;

/// Tensors in, tensors out.
pub type TensorKernel = fn(&Node, &[Option<&Tensor>]) -> KResult<Vec<Tensor>>;
/// Values (tensors, sequences, optionals) in and out.
pub type ValueKernel = fn(&Node, &[Option<&Val>]) -> KResult<Vec<Val>>;

/// An op with regions, run through the interpreter (only this crate's control flow has them).
#[derive(Clone, Copy)]
pub struct RegionKernel(pub(crate) RegionFn);

/// A kernel of an op with regions: the step, the environment, and the operands (`None` where
/// an optional operand is absent).
pub(crate) type RegionFn = fn(&Step, &mut Env, Vec<Option<Arc<Val>>>) -> Result<Vec<Val>>;

/// How an op runs.
#[derive(Clone, Copy)]
pub enum Kernel {
    /// A tensor kernel.
    Tensor(TensorKernel),
    /// A value kernel.
    Value(ValueKernel),
    /// A region kernel.
    Region(RegionKernel),
}

/// The reference-kernel interface: how the interpreter executes an op. The interpreter asks
/// every op for it (`ctx.op_interface::<dyn ReferenceKernel>(op)`), so any dialect can give
/// its ops reference semantics by attaching an implementation; [`register`] attaches this
/// crate's kernels to the graph dialect's ops.
pub trait ReferenceKernel: Sync {
    /// The kernel.
    fn kernel(&self) -> Kernel;
}

impl ReferenceKernel for (&'static str, Kernel) {
    fn kernel(&self) -> Kernel {
        self.1
    }
}

/// Attaches the reference kernel of every graph op the interpreter runs, and of the qnn ops and
/// quant casts (call once per context, before building an
/// [`Interpreter`](crate::Interpreter)).
pub fn register(ctx: &mut nart_ir::Context) {
    for entry in KERNELS {
        let name = format!("graph.{}", entry.0);
        ctx.attach_interface::<dyn ReferenceKernel>(&name, entry);
    }
    for entry in qnn::QNN_KERNELS {
        ctx.attach_interface::<dyn ReferenceKernel>(entry.0, entry);
    }
    for entry in fused::FUSED_KERNELS {
        ctx.attach_interface::<dyn ReferenceKernel>(entry.0, entry);
    }
}

const fn region(f: RegionFn) -> Kernel {
    Kernel::Region(RegionKernel(f))
}

use Kernel::{Tensor as T, Value as V};

/// Every ONNX operator the interpreter runs, with its kernel, sorted by name (a test checks).
static KERNELS: &[(&str, Kernel)] = &[
    ("Abs", T(|n, i| ew::un(n, i, UnaryOp::Abs))),
    ("Acos", T(|n, i| ew::un(n, i, UnaryOp::Acos))),
    ("Acosh", T(|n, i| ew::un(n, i, UnaryOp::Acosh))),
    ("Add", T(|n, i| ew::bin(n, i, BinaryOp::Add))),
    ("AffineGrid", T(nn::affine_grid)),
    ("And", T(|n, i| ew::bin(n, i, BinaryOp::And))),
    ("ArgMax", T(nn::arg_max)),
    ("ArgMin", T(nn::arg_min)),
    ("Asin", T(|n, i| ew::un(n, i, UnaryOp::Asin))),
    ("Asinh", T(|n, i| ew::un(n, i, UnaryOp::Asinh))),
    ("Atan", T(|n, i| ew::un(n, i, UnaryOp::Atan))),
    ("Atanh", T(|n, i| ew::un(n, i, UnaryOp::Atanh))),
    ("Attention", T(attention::attention_k)),
    ("AveragePool", T(nn::average_pool)),
    ("BatchNormalization", T(nn::batch_norm)),
    ("BitCast", T(shape::bit_cast)),
    ("BitShift", T(ew::bit_shift)),
    ("BitwiseAnd", T(|n, i| ew::bin(n, i, BinaryOp::BitwiseAnd))),
    ("BitwiseNot", T(|n, i| ew::un(n, i, UnaryOp::BitwiseNot))),
    ("BitwiseOr", T(|n, i| ew::bin(n, i, BinaryOp::BitwiseOr))),
    ("BitwiseXor", T(|n, i| ew::bin(n, i, BinaryOp::BitwiseXor))),
    (
        "BlackmanWindow",
        T(|n, i| signal::window(n, i, WindowKind::Blackman)),
    ),
    ("Cast", T(shape::cast)),
    ("CastLike", T(shape::cast_like)),
    ("CausalConvWithState", T(nn::causal_conv)),
    ("Ceil", T(|n, i| ew::un(n, i, UnaryOp::Ceil))),
    ("Celu", T(ew::celu)),
    ("CenterCropPad", T(shape::center_crop_pad)),
    ("Clip", T(ew::clip)),
    ("Col2Im", T(nn::col2im)),
    ("Compress", T(shape::compress)),
    ("Concat", T(shape::concat_k)),
    ("ConcatFromSequence", V(control::concat_from_sequence)),
    ("ConstantOfShape", T(shape::constant_of_shape)),
    ("Conv", T(nn::conv_k)),
    ("ConvInteger", T(nn::conv_integer)),
    ("ConvTranspose", T(nn::conv_transpose)),
    ("Cos", T(|n, i| ew::un(n, i, UnaryOp::Cos))),
    ("Cosh", T(|n, i| ew::un(n, i, UnaryOp::Cosh))),
    (
        "CumProd",
        T(|n, i| nn::cumulative(n, i, nart_tensor::reduce::cumprod)),
    ),
    (
        "CumSum",
        T(|n, i| nn::cumulative(n, i, nart_tensor::reduce::cumsum)),
    ),
    ("DFT", T(signal::dft)),
    ("DeformConv", T(nn::deform_conv)),
    ("DepthToSpace", T(shape::depth_to_space)),
    ("DequantizeLinear", T(nn::dequantize_linear)),
    ("Det", T(nn::det)),
    ("Div", T(|n, i| ew::bin(n, i, BinaryOp::Div))),
    ("Dropout", T(ew::dropout)),
    ("DynamicQuantizeLinear", T(nn::dynamic_quantize_linear)),
    ("Einsum", T(nn::einsum_k)),
    ("Elu", T(ew::elu)),
    ("Equal", T(|n, i| ew::bin(n, i, BinaryOp::Equal))),
    ("Erf", T(|n, i| ew::un(n, i, UnaryOp::Erf))),
    ("Exp", T(|n, i| ew::un(n, i, UnaryOp::Exp))),
    ("Expand", T(shape::expand)),
    ("EyeLike", T(shape::eye_like)),
    ("Flatten", T(shape::flatten)),
    ("Floor", T(|n, i| ew::un(n, i, UnaryOp::Floor))),
    ("GRU", T(|n, i| rnn::recurrent("GRU", n, i))),
    ("Gather", T(shape::gather)),
    ("GatherElements", T(shape::gather_elements)),
    ("GatherND", T(shape::gather_nd)),
    ("Gelu", T(ew::gelu)),
    ("Gemm", T(nn::gemm)),
    ("GlobalAveragePool", T(nn::global_average_pool)),
    ("GlobalLpPool", T(nn::global_lp_pool)),
    ("GlobalMaxPool", T(nn::global_max_pool)),
    ("Greater", T(|n, i| ew::bin(n, i, BinaryOp::Greater))),
    (
        "GreaterOrEqual",
        T(|n, i| ew::bin(n, i, BinaryOp::GreaterOrEqual)),
    ),
    ("GridSample", T(nn::grid_sample)),
    ("GroupNormalization", T(nn::group_norm)),
    (
        "HammingWindow",
        T(|n, i| signal::window(n, i, WindowKind::Hamming)),
    ),
    (
        "HannWindow",
        T(|n, i| signal::window(n, i, WindowKind::Hann)),
    ),
    ("HardSigmoid", T(ew::hard_sigmoid)),
    ("HardSwish", T(|n, i| ew::un(n, i, UnaryOp::HardSwish))),
    (
        "Hardmax",
        T(|n, i| nn::softmax_like(n, i, nart_tensor::norm::hardmax)),
    ),
    ("Identity", V(control::identity)),
    ("If", region(control::run_if)),
    ("InstanceNormalization", T(nn::instance_norm)),
    ("IsInf", T(ew::is_inf)),
    ("IsNaN", T(ew::is_nan)),
    ("LRN", T(nn::lrn)),
    ("LSTM", T(|n, i| rnn::recurrent("LSTM", n, i))),
    ("LayerNormalization", T(nn::layer_norm)),
    ("LeakyRelu", T(ew::leaky_relu)),
    ("Less", T(|n, i| ew::bin(n, i, BinaryOp::Less))),
    (
        "LessOrEqual",
        T(|n, i| ew::bin(n, i, BinaryOp::LessOrEqual)),
    ),
    ("LinearAttention", T(attention::linear_attention)),
    ("Log", T(|n, i| ew::un(n, i, UnaryOp::Log))),
    (
        "LogSoftmax",
        T(|n, i| nn::softmax_like(n, i, nart_tensor::norm::log_softmax)),
    ),
    ("Loop", region(control::run_loop)),
    ("LpNormalization", T(nn::lp_norm)),
    ("LpPool", T(nn::lp_pool)),
    ("MatMul", T(nn::matmul_k)),
    ("MatMulInteger", T(nn::matmul_integer)),
    (
        "Max",
        T(|_, i| ew::variadic(i, nart_tensor::elementwise::max)),
    ),
    ("MaxPool", T(nn::max_pool)),
    ("MaxUnpool", T(nn::max_unpool)),
    (
        "Mean",
        T(|_, i| ew::variadic(i, nart_tensor::elementwise::mean)),
    ),
    ("MeanVarianceNormalization", T(nn::mean_variance_norm)),
    (
        "Min",
        T(|_, i| ew::variadic(i, nart_tensor::elementwise::min)),
    ),
    ("Mish", T(|n, i| ew::un(n, i, UnaryOp::Mish))),
    ("Mod", T(ew::modulo)),
    ("Mul", T(|n, i| ew::bin(n, i, BinaryOp::Mul))),
    ("Neg", T(|n, i| ew::un(n, i, UnaryOp::Neg))),
    ("NegativeLogLikelihoodLoss", T(nn::nll_loss)),
    ("NonMaxSuppression", T(shape::nms)),
    ("NonZero", T(shape::non_zero)),
    ("Not", T(|n, i| ew::un(n, i, UnaryOp::Not))),
    ("OneHot", T(shape::one_hot)),
    ("Optional", V(control::optional)),
    ("OptionalGetElement", V(control::optional_get_element)),
    ("OptionalHasElement", V(control::optional_has_element)),
    ("Or", T(|n, i| ew::bin(n, i, BinaryOp::Or))),
    ("PRelu", T(ew::prelu)),
    ("Pad", T(shape::pad)),
    ("Pow", T(|n, i| ew::bin(n, i, BinaryOp::Pow))),
    ("QLinearConv", T(nn::qlinear_conv)),
    ("QLinearMatMul", T(nn::qlinear_matmul)),
    ("QuantizeLinear", T(nn::quantize_linear)),
    ("RMSNormalization", T(nn::rms_norm)),
    ("RNN", T(|n, i| rnn::recurrent("RNN", n, i))),
    ("Range", T(shape::range)),
    ("Reciprocal", T(|n, i| ew::un(n, i, UnaryOp::Reciprocal))),
    ("ReduceL1", T(|n, i| nn::reduce_k(n, i, ReduceOp::L1))),
    ("ReduceL2", T(|n, i| nn::reduce_k(n, i, ReduceOp::L2))),
    (
        "ReduceLogSum",
        T(|n, i| nn::reduce_k(n, i, ReduceOp::LogSum)),
    ),
    (
        "ReduceLogSumExp",
        T(|n, i| nn::reduce_k(n, i, ReduceOp::LogSumExp)),
    ),
    ("ReduceMax", T(|n, i| nn::reduce_bool(n, i, ReduceOp::Max))),
    ("ReduceMean", T(|n, i| nn::reduce_k(n, i, ReduceOp::Mean))),
    ("ReduceMin", T(|n, i| nn::reduce_bool(n, i, ReduceOp::Min))),
    ("ReduceProd", T(|n, i| nn::reduce_k(n, i, ReduceOp::Prod))),
    ("ReduceSum", T(|n, i| nn::reduce_k(n, i, ReduceOp::Sum))),
    (
        "ReduceSumSquare",
        T(|n, i| nn::reduce_k(n, i, ReduceOp::SumSquare)),
    ),
    ("RegexFullMatch", T(text::regex_full_match)),
    ("Relu", T(|n, i| ew::un(n, i, UnaryOp::Relu))),
    ("Reshape", T(shape::reshape)),
    ("Resize", T(nn::resize_k)),
    ("ReverseSequence", T(shape::reverse_sequence)),
    ("RoiAlign", T(nn::roi_align)),
    ("RotaryEmbedding", T(attention::rotary_embedding)),
    ("Round", T(|n, i| ew::un(n, i, UnaryOp::Round))),
    ("STFT", T(signal::stft)),
    ("Scan", region(control::run_scan)),
    ("Scatter", T(shape::scatter)),
    ("ScatterElements", T(shape::scatter_elements)),
    ("ScatterND", T(shape::scatter_nd)),
    ("Selu", T(ew::selu)),
    ("SequenceAt", V(control::sequence_at)),
    ("SequenceConstruct", V(control::sequence_construct)),
    ("SequenceEmpty", V(control::sequence_empty)),
    ("SequenceErase", V(control::sequence_erase)),
    ("SequenceInsert", V(control::sequence_insert)),
    ("SequenceLength", V(control::sequence_length)),
    ("SequenceMap", region(control::run_sequence_map)),
    ("Shape", T(shape::shape_k)),
    ("Shrink", T(ew::shrink)),
    ("Sigmoid", T(|n, i| ew::un(n, i, UnaryOp::Sigmoid))),
    ("Sign", T(|n, i| ew::un(n, i, UnaryOp::Sign))),
    ("Sin", T(|n, i| ew::un(n, i, UnaryOp::Sin))),
    ("Sinh", T(|n, i| ew::un(n, i, UnaryOp::Sinh))),
    ("Size", T(shape::size)),
    ("Slice", T(shape::slice)),
    (
        "Softmax",
        T(|n, i| nn::softmax_like(n, i, nart_tensor::norm::softmax)),
    ),
    ("SoftmaxCrossEntropyLoss", T(nn::softmax_ce_loss)),
    ("Softplus", T(|n, i| ew::un(n, i, UnaryOp::Softplus))),
    ("Softsign", T(|n, i| ew::un(n, i, UnaryOp::Softsign))),
    ("SpaceToDepth", T(shape::space_to_depth)),
    ("Split", T(shape::split)),
    ("SplitToSequence", V(control::split_to_sequence)),
    ("Sqrt", T(|n, i| ew::un(n, i, UnaryOp::Sqrt))),
    ("Squeeze", T(shape::squeeze)),
    ("StringConcat", T(text::string_concat)),
    ("StringNormalizer", T(text::string_normalizer)),
    ("StringSplit", T(text::string_split)),
    ("Sub", T(|n, i| ew::bin(n, i, BinaryOp::Sub))),
    (
        "Sum",
        T(|_, i| ew::variadic(i, nart_tensor::elementwise::sum)),
    ),
    ("SwiGLU", T(ew::swiglu)),
    ("Swish", T(ew::swish)),
    ("Tan", T(|n, i| ew::un(n, i, UnaryOp::Tan))),
    ("Tanh", T(|n, i| ew::un(n, i, UnaryOp::Tanh))),
    ("TensorScatter", T(shape::tensor_scatter)),
    ("TfIdfVectorizer", T(text::tfidf_vectorizer)),
    ("ThresholdedRelu", T(ew::thresholded_relu)),
    ("Tile", T(shape::tile)),
    ("TopK", T(nn::top_k)),
    ("Transpose", T(shape::transpose_k)),
    ("Trilu", T(shape::trilu)),
    ("Unique", T(shape::unique)),
    ("Unsqueeze", T(shape::unsqueeze)),
    ("Where", T(ew::where_k)),
    ("Xor", T(|n, i| ew::bin(n, i, BinaryOp::Xor))),
];

/// The kernel of ONNX operator `name`.
pub(crate) fn lookup(name: &str) -> Option<Kernel> {
    KERNELS
        .binary_search_by(|(op, _)| (*op).cmp(name))
        .ok()
        .map(|i| KERNELS[i].1)
}

/// Every ONNX operator name the interpreter has a kernel for, sorted.
pub fn supported_ops() -> Vec<&'static str> {
    nart_dialect_graph::SCHEMAS
        .iter()
        .map(|s| s.name)
        .filter(|n| lookup(n).is_some())
        .collect()
}

/// Input `i`, which must be present.
pub(crate) fn req<'a>(node: &Node, ins: &[Option<&'a Tensor>], i: usize) -> KResult<&'a Tensor> {
    ins.get(i)
        .copied()
        .flatten()
        .ok_or_else(|| KernelError::Arity {
            op: node.onnx,
            msg: format!("input #{i} is required"),
        })
}

/// Input `i` if present.
pub(crate) fn opt<'a>(ins: &[Option<&'a Tensor>], i: usize) -> Option<&'a Tensor> {
    ins.get(i).copied().flatten()
}

/// Wraps one tensor as a kernel result.
pub(crate) fn one(t: Tensor) -> KResult<Vec<Tensor>> {
    Ok(vec![t])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_sorted_without_duplicates() {
        for w in KERNELS.windows(2) {
            assert!(w[0].0 < w[1].0, "{} must come before {}", w[1].0, w[0].0);
        }
    }

    #[test]
    fn every_entry_is_a_graph_dialect_op() {
        for (name, _) in KERNELS {
            assert!(
                nart_dialect_graph::SCHEMAS.iter().any(|s| s.name == *name),
                "{name} is not an ONNX operator of the graph dialect"
            );
        }
        assert_eq!(supported_ops().len(), KERNELS.len());
    }

    #[test]
    fn batch_normalization_has_one_kernel_for_both_modes() {
        let n = |mode: i64| {
            Node::new(
                "graph.BatchNormalization",
                "test".into(),
                vec![(
                    "training_mode".to_string(),
                    crate::attrs::AttrValue::Int(mode),
                )],
                nart_dialect_graph::schema("BatchNormalization"),
            )
        };
        let Some(Kernel::Tensor(k)) = lookup("BatchNormalization") else {
            panic!("BatchNormalization is a tensor kernel");
        };
        let x = Tensor::from_vec(vec![2, 1], vec![1.0f32, 3.0]).unwrap();
        let (s, b) = (Tensor::vector(vec![1.0f32]), Tensor::vector(vec![0.0f32]));
        let (m, v) = (Tensor::vector(vec![0.0f32]), Tensor::vector(vec![1.0f32]));
        let ins = [Some(&x), Some(&s), Some(&b), Some(&m), Some(&v)];
        // Inference: the running statistics, one output.
        let y = k(&n(0), &ins).unwrap();
        assert_eq!(y.len(), 1);
        assert_eq!(y[0].to_f32_vec().unwrap()[1].round(), 3.0);
        // Training: the batch's statistics (mean 2, variance 1), and updated running ones.
        let y = k(&n(1), &ins).unwrap();
        assert_eq!(y.len(), 3);
        let out = y[0].to_f32_vec().unwrap();
        assert!(
            (out[0] + 1.0).abs() < 1e-4 && (out[1] - 1.0).abs() < 1e-4,
            "{out:?}"
        );
    }
}
