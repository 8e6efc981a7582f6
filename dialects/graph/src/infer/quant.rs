//! Quantization: `QuantizeLinear`, `DequantizeLinear`, `DynamicQuantizeLinear`, and the integer
//! and `QLinear` convolutions and matrix products, which reuse the float rules' shapes.

use super::conv_pool::conv;
use super::matmul::{matmul, matmul_shape};
use super::{elem_of_code, f32_elem, i32_elem, one, t, ui8_elem, Rules};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    ("QuantizeLinear", &["QuantizeLinear"]),
    ("DequantizeLinear", &["DequantizeLinear"]),
    ("DynamicQuantizeLinear", &["DynamicQuantizeLinear"]),
    ("ConvInteger", &["ConvInteger"]),
    ("QLinearConv", &["QLinearConv"]),
    ("MatMulInteger", &["MatMulInteger"]),
    ("QLinearMatMul", &["QLinearMatMul"]),
];

rules! {
    /// The input's shape in the zero point's element type, or `output_dtype`'s (`ui8` by
    /// default).
    QuantizeLinear = |i| {
        let x = i.shaped(0)?;
        let elem = if i.present(2) {
            i.shaped(2)?.elem
        } else {
            match i.int("output_dtype", 0) {
                0 => ui8_elem(),
                c => crate::constraints::elem_type_data(c as i32)
                    .ok_or_else(|| format!("unknown output_dtype {c}"))?,
            }
        };
        one(t(elem, x.shape))
    };
    /// The input's shape in the element type `output_dtype` names (opset 25), or the scale's
    /// by default.
    DequantizeLinear = |i| {
        let x = i.shaped(0)?;
        let elem = match i.int("output_dtype", 0) {
            0 => i.shaped(1)?.elem,
            c => elem_of_code(c, "output_dtype")?,
        };
        one(t(elem, x.shape))
    };
    /// The `ui8` input's shape, and the scalar scale (f32) and zero point (`ui8`).
    DynamicQuantizeLinear = |i| {
        let x = i.shaped(0)?;
        Ok(Some(vec![
            Some(t(ui8_elem(), x.shape)),
            Some(t(f32_elem(), Some(vec![]))),
            Some(t(ui8_elem(), Some(vec![]))),
        ]))
    };
    /// `Conv`'s shape in `i32`.
    ConvInteger = |i| conv(i, 0, 1, Some(i32_elem()));
    /// `Conv`'s shape of input #0 by weight #3, in the output zero point's (#7) element type.
    QLinearConv = |i| {
        let elem = i.shaped(7)?.elem;
        conv(i, 0, 3, Some(elem))
    };
    /// `MatMul`'s shape in `i32`.
    MatMulInteger = |i| matmul(i, Some(i32_elem()));
    /// `MatMul`'s shape of operands #0 and #3, in the output zero point's (#7) element type.
    QLinearMatMul = |i| {
        let elem = i.shaped(7)?.elem;
        let a = i.shaped(0)?;
        let b = i.shaped(3)?;
        one(t(elem, matmul_shape(a.shape.as_deref(), b.shape.as_deref(), i, 3)?))
    };
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("QuantizeLinear", &["tensor<1x3x8x8xf32>", "tensor<f32>", "tensor<i8>"], "", Ok(&["tensor<1x3x8x8xi8>"])),
        ("QuantizeLinear", &["tensor<4xf32>", "tensor<f32>", "none"], "", Ok(&["tensor<4xui8>"])),
        ("QuantizeLinear", &["tensor<4xf32>", "tensor<f32>", "none"], "{output_dtype = 3 : i64}", Ok(&["tensor<4xi8>"])),
        ("QuantizeLinear", &["tensor<4xf32>", "tensor<f32>", "none"], "{output_dtype = 99 : i64}", Err("unknown output_dtype 99")),
        ("DequantizeLinear", &["tensor<4xi8>", "tensor<f32>", "tensor<i8>"], "", Ok(&["tensor<4xf32>"])),
        ("DequantizeLinear", &["tensor<4xui8>", "tensor<f32>", "tensor<ui8>"], "{output_dtype = 10 : i64}", Ok(&["tensor<4xf16>"])),
        ("DequantizeLinear", &["tensor<4xui8>", "tensor<f32>", "tensor<ui8>"], "{output_dtype = 99 : i64}", Err("attribute 'output_dtype' holds unknown ONNX type code 99")),
        ("DynamicQuantizeLinear", &["tensor<2x3xf32>"], "", Ok(&["tensor<2x3xui8>", "tensor<f32>", "tensor<ui8>"])),
        ("ConvInteger", &["tensor<1x1x3x3xui8>", "tensor<1x1x2x2xui8>", "none", "none"], "", Ok(&["tensor<1x1x2x2xi32>"])),
        ("QLinearConv", &["tensor<1x1x7x7xui8>", "tensor<f32>", "tensor<ui8>", "tensor<1x1x1x1xui8>", "tensor<f32>", "tensor<ui8>", "tensor<f32>", "tensor<ui8>", "none"], "", Ok(&["tensor<1x1x7x7xui8>"])),
        ("MatMulInteger", &["tensor<2x4xi8>", "tensor<4x3xi8>", "none", "none"], "", Ok(&["tensor<2x3xi32>"])),
        ("QLinearMatMul", &["tensor<2x4xui8>", "tensor<f32>", "tensor<ui8>", "tensor<4x3xui8>", "tensor<f32>", "tensor<ui8>", "tensor<f32>", "tensor<i8>"], "", Ok(&["tensor<2x3xi8>"])),
        ("QLinearMatMul", &["tensor<2x4xui8>", "tensor<f32>", "tensor<ui8>", "tensor<5x3xui8>", "tensor<f32>", "tensor<ui8>", "tensor<f32>", "tensor<ui8>"], "", Err("inner dimensions do not match: tensor<2x4xui8> and tensor<5x3xui8>")),
    ];

    #[test]
    fn quantization_rules() {
        check(CASES);
    }
}
