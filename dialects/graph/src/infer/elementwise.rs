//! Elementwise ops: unary math and activations keep their input's type; binary, variadic and
//! comparison ops broadcast their operands (numpy rules); casts change the element type only.

use nart_ir::TypeData;

use super::{bool_elem, broadcast, elem_of_code, one, t, In, Rules, R};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    (
        "Unary",
        &[
            "Abs",
            "Acos",
            "Acosh",
            "Asin",
            "Asinh",
            "Atan",
            "Atanh",
            "BitwiseNot",
            "Ceil",
            "Celu",
            "Clip",
            "Cos",
            "Cosh",
            "Elu",
            "Erf",
            "Exp",
            "Floor",
            "Gelu",
            "HardSigmoid",
            "HardSwish",
            "LeakyRelu",
            "Log",
            "Mish",
            "Neg",
            "Not",
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
            "SwiGLU",
            "Swish",
            "Tan",
            "Tanh",
            "ThresholdedRelu",
        ],
    ),
    ("Identity", &["Identity"]),
    ("Predicate", &["IsInf", "IsNaN", "RegexFullMatch"]),
    ("Cast", &["Cast"]),
    ("CastLike", &["CastLike"]),
    ("BitCast", &["BitCast"]),
    (
        "Binary",
        &[
            "Add",
            "And",
            "BitShift",
            "BitwiseAnd",
            "BitwiseOr",
            "BitwiseXor",
            "Div",
            "Mod",
            "Mul",
            "Or",
            "StringConcat",
            "Sub",
            "Xor",
        ],
    ),
    ("BinaryMixed", &["PRelu", "Pow"]),
    (
        "Compare",
        &["Equal", "Greater", "GreaterOrEqual", "Less", "LessOrEqual"],
    ),
    ("Variadic", &["Max", "Mean", "Min", "Sum"]),
    ("Where", &["Where"]),
    ("Dropout", &["Dropout"]),
];

rules! {
    /// One tensor in (the others, if any, are parameters); the result has its type and shape.
    Unary = |i| one(i.shaped(0)?);
    /// The operand's type; a sequence or optional passes through untyped (the importer types
    /// those).
    Identity = |i| {
        let tensor = matches!(
            i.ty(0).map(|t| i.ctx.type_data(t)),
            Some(TypeData::RankedTensor { .. } | TypeData::UnrankedTensor { .. })
        );
        if tensor {
            one(i.shaped(0)?)
        } else {
            Ok(None)
        }
    };
    /// A boolean per element of the input.
    Predicate = |i| one(t(bool_elem(), i.shaped(0)?.shape));
    /// The input's shape in the element type the `to` attribute names.
    Cast = |i| {
        let x = i.shaped(0)?;
        let to = i.int("to", 0) as i32;
        let elem = crate::constraints::elem_type_data(to)
            .ok_or_else(|| format!("attribute 'to' holds unknown ONNX type code {to}"))?;
        one(t(elem, x.shape))
    };
    /// The input's shape in the element type of operand #1.
    CastLike = |i| {
        let x = i.shaped(0)?;
        one(t(i.shaped(1)?.elem, x.shape))
    };
    /// The input's shape in the element type the `to` attribute names.
    BitCast = |i| {
        let x = i.shaped(0)?;
        one(t(elem_of_code(i.int("to", 0), "to")?, x.shape))
    };
    /// Two operands of one element type, broadcast.
    Binary = |i| broadcast_n(i, &[0, 1], 0, None, |_| false);
    /// Two operands broadcast, of possibly different element types (`Pow`'s exponent, `PRelu`'s
    /// slope); the result has operand #0's.
    BinaryMixed = |i| broadcast_n(i, &[0, 1], 0, None, |_| true);
    /// Two operands of one element type, broadcast, compared into booleans.
    Compare = |i| broadcast_n(i, &[0, 1], 0, Some(bool_elem()), |_| false);
    /// Any number of operands of one element type, broadcast together.
    Variadic = |i| {
        let all: Vec<usize> = (0..i.n()).collect();
        broadcast_n(i, &all, 0, None, |_| false)
    };
    /// The condition and both branches broadcast; the branches' element type.
    Where = |i| broadcast_n(i, &[0, 1, 2], 1, None, |k| k == 0);
    /// The input, and a boolean mask of its shape.
    Dropout = |i| {
        let x = i.shaped(0)?;
        Ok(Some(vec![Some(x.clone()), Some(t(bool_elem(), x.shape))]))
    };
}

/// Broadcasts operands `idx` together. Every operand has operand `elem_from`'s element type
/// unless `exempt` says so; the result has `elem`, or that element type.
pub(crate) fn broadcast_n(
    i: &In,
    idx: &[usize],
    elem_from: usize,
    elem: Option<TypeData>,
    exempt: impl Fn(usize) -> bool,
) -> R {
    let mut shape: Option<Vec<i64>> = Some(vec![]);
    let first = i.shaped(elem_from)?;
    for &k in idx {
        let s = i.shaped(k)?;
        if k != elem_from && s.elem != first.elem && !exempt(k) {
            return Err(format!(
                "operands have different element types: {} and {}",
                i.type_str(elem_from),
                i.type_str(k)
            ));
        }
        shape = match (shape, s.shape) {
            (Some(a), Some(b)) => Some(broadcast(&a, &b).ok_or_else(|| {
                let names: Vec<String> = idx.iter().map(|&q| i.type_str(q)).collect();
                format!(
                    "operands are not broadcast-compatible: {}",
                    names.join(" and ")
                )
            })?),
            _ => None,
        };
    }
    one(t(elem.unwrap_or(first.elem), shape))
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("Relu", &["tensor<2x3xf32>"], "", Ok(&["tensor<2x3xf32>"])),
        ("Clip", &["tensor<?x3xf16>", "none", "tensor<f16>"], "", Ok(&["tensor<?x3xf16>"])),
        ("Sigmoid", &["tensor<*xf32>"], "", Ok(&["tensor<*xf32>"])),
        ("Identity", &["tensor<4xi64>"], "", Ok(&["tensor<4xi64>"])),
        ("IsNaN", &["tensor<2x?xf32>"], "", Ok(&["tensor<2x?xi1>"])),
        ("RegexFullMatch", &["tensor<3x!graph.string>"], "{pattern = \"a+\"}", Ok(&["tensor<3xi1>"])),
        ("Cast", &["tensor<2x3xf32>"], "{to = 7 : i64}", Ok(&["tensor<2x3xi64>"])),
        ("Cast", &["tensor<2xf32>"], "{to = 99 : i64}", Err("attribute 'to' holds unknown ONNX type code 99")),
        ("CastLike", &["tensor<2xf32>", "tensor<f16>"], "", Ok(&["tensor<2xf16>"])),
        ("BitCast", &["tensor<2xf32>"], "{to = 6 : i64}", Ok(&["tensor<2xi32>"])),
        ("Add", &["tensor<2x1x3xf32>", "tensor<4x1xf32>"], "", Ok(&["tensor<2x4x3xf32>"])),
        ("Mul", &["tensor<2x1x3xf32>", "tensor<?x3xf32>"], "", Ok(&["tensor<2x?x3xf32>"])),
        ("Sub", &["tensor<*xf32>", "tensor<3xf32>"], "", Ok(&["tensor<*xf32>"])),
        ("Add", &["tensor<2x3xf32>", "tensor<4xf32>"], "", Err("operands are not broadcast-compatible: tensor<2x3xf32> and tensor<4xf32>")),
        ("Add", &["tensor<2xf32>", "tensor<2xf16>"], "", Err("operands have different element types: tensor<2xf32> and tensor<2xf16>")),
        ("StringConcat", &["tensor<2x!graph.string>", "tensor<!graph.string>"], "", Ok(&["tensor<2x!graph.string>"])),
        ("Pow", &["tensor<2x3xf32>", "tensor<i64>"], "", Ok(&["tensor<2x3xf32>"])),
        ("PRelu", &["tensor<1x4x5xf32>", "tensor<4x1xf32>"], "", Ok(&["tensor<1x4x5xf32>"])),
        ("Less", &["tensor<2x1x3xf32>", "tensor<4x1xf32>"], "", Ok(&["tensor<2x4x3xi1>"])),
        ("Equal", &["tensor<2xi64>", "tensor<2xi32>"], "", Err("operands have different element types: tensor<2xi64> and tensor<2xi32>")),
        ("Sum", &["tensor<3xf32>", "tensor<2x1xf32>", "tensor<f32>"], "", Ok(&["tensor<2x3xf32>"])),
        ("Max", &["tensor<3xf32>", "tensor<3xf64>"], "", Err("operands have different element types: tensor<3xf32> and tensor<3xf64>")),
        ("Where", &["tensor<2x1xi1>", "tensor<3xf32>", "tensor<f32>"], "", Ok(&["tensor<2x3xf32>"])),
        ("Where", &["tensor<2xi1>", "tensor<2xf32>", "tensor<2xi32>"], "", Err("operands have different element types: tensor<2xf32> and tensor<2xi32>")),
        ("Dropout", &["tensor<2x3xf32>", "none", "none"], "", Ok(&["tensor<2x3xf32>", "tensor<2x3xi1>"])),
        ("Relu", &["none"], "", Err("operand #0 is required")),
    ];

    #[test]
    fn elementwise_rules() {
        check(CASES);
    }
}
