//! Ops that make tensors rather than transform one: `Constant`, `ConstantOfShape`, `Range`,
//! `EyeLike`, the random generators and the window functions. Their shapes come from
//! attributes, from constant operands, or from a template operand.

use nart_ir::{AttrData, DenseArrayData, TypeData, DYNAMIC};

use super::{elem_of_code, f32_elem, i64_elem, one, shaped_of, t, Rules};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    ("Constant", &["Constant"]),
    ("ConstantOfShape", &["ConstantOfShape"]),
    ("Range", &["Range"]),
    (
        "Like",
        &[
            "Bernoulli",
            "EyeLike",
            "RandomNormalLike",
            "RandomUniformLike",
        ],
    ),
    ("Random", &["RandomNormal", "RandomUniform"]),
    ("Multinomial", &["Multinomial"]),
    ("Window", &["BlackmanWindow", "HammingWindow", "HannWindow"]),
];

rules! {
    /// The type of whichever `value*` attribute is set; string constants are left to the
    /// importer.
    Constant = |i| {
        let ctx = i.ctx;
        let array_len = |name: &str| match ctx.attr(i.op, name).map(|a| ctx.attr_data(a)) {
            Some(AttrData::DenseArray { data: DenseArrayData::Int(v), .. }) => Some(v.len()),
            Some(AttrData::DenseArray { data: DenseArrayData::Float(v), .. }) => Some(v.len()),
            _ => None,
        };
        let res = if let Some(v) = ctx.attr(i.op, "value") {
            ctx.typed_attr_type(v).and_then(|ty| shaped_of(ctx, ty))
        } else if ctx.attr(i.op, "value_float").is_some() {
            Some(t(f32_elem(), Some(vec![])))
        } else if ctx.attr(i.op, "value_int").is_some() {
            Some(t(i64_elem(), Some(vec![])))
        } else if let Some(n) = array_len("value_floats") {
            Some(t(f32_elem(), Some(vec![n as i64])))
        } else {
            array_len("value_ints").map(|n| t(i64_elem(), Some(vec![n as i64])))
        };
        Ok(Some(vec![res]))
    };
    /// The constant shape operand #0, in the element type of `value` (f32 by default).
    ConstantOfShape = |i| {
        let elem = match i.ctx.attr(i.op, "value").map(|a| i.ctx.attr_data(a)) {
            Some(AttrData::DenseElements { ty, .. }) => match i.ctx.type_data(*ty) {
                TypeData::RankedTensor { elem, .. } => i.ctx.type_data(*elem).clone(),
                _ => f32_elem(),
            },
            _ => f32_elem(),
        };
        let shape = match i.const_ints(0) {
            Some(s) => Some(s),
            None => i
                .shaped(0)?
                .shape
                .and_then(|s| s.first().copied())
                .filter(|&n| n != DYNAMIC)
                .map(|n| vec![DYNAMIC; n as usize]),
        };
        one(t(elem, shape))
    };
    /// `[ceil((limit - start) / delta)]` from constant scalars, in their element type.
    Range = |i| {
        let x = i.shaped(0)?;
        let len = match (i.const_floats(0), i.const_floats(1), i.const_floats(2)) {
            (Some(a), Some(b), Some(d)) if a.len() == 1 && b.len() == 1 && d.len() == 1 => {
                if d[0] == 0.0 {
                    return Err("delta must not be zero".into());
                }
                (((b[0] - a[0]) / d[0]).ceil().max(0.0)) as i64
            }
            _ => DYNAMIC,
        };
        one(t(x.elem, Some(vec![len])))
    };
    /// The template operand's shape, in the element type `dtype` names (the template's by
    /// default).
    Like = |i| {
        let x = i.shaped(0)?;
        let elem = match i.int("dtype", 0) {
            0 => x.elem,
            c => elem_of_code(c, "dtype")?,
        };
        one(t(elem, x.shape))
    };
    /// The `shape` attribute, in the element type `dtype` names (f32 by default).
    Random = |i| {
        let shape = i.ints("shape").ok_or("requires attribute 'shape'")?;
        one(t(elem_of_code(i.int("dtype", 1), "dtype")?, Some(shape)))
    };
    /// `[batch, sample_size]` indices, in `dtype` (i32 by default).
    Multinomial = |i| {
        let x = i.shaped(0)?;
        let batch = x.shape.as_ref().and_then(|s| s.first().copied()).unwrap_or(DYNAMIC);
        let elem = elem_of_code(i.int("dtype", 6), "dtype")?;
        one(t(elem, Some(vec![batch, i.int("sample_size", 1)])))
    };
    /// `[size]` from the constant scalar operand #0, in `output_datatype` (f32 by default).
    Window = |i| {
        let size = i
            .const_ints(0)
            .filter(|v| v.len() == 1)
            .map_or(DYNAMIC, |v| v[0]);
        let elem = elem_of_code(i.int("output_datatype", 1), "output_datatype")?;
        one(t(elem, Some(vec![size])))
    };
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("Constant", &[], "{value = dense<[1, 2, 3]> : tensor<3xi32>}", Ok(&["tensor<3xi32>"])),
        ("Constant", &[], "{value_float = 2.0 : f32}", Ok(&["tensor<f32>"])),
        ("Constant", &[], "{value_ints = array<i64: 1, 2>}", Ok(&["tensor<2xi64>"])),
        ("Constant", &[], "{value_string = \"a\"}", Ok(&["?"])),
        ("ConstantOfShape", &["dense<[2, 3]> : tensor<2xi64>"], "{value = dense<1> : tensor<1xi32>}", Ok(&["tensor<2x3xi32>"])),
        ("ConstantOfShape", &["tensor<3xi64>"], "", Ok(&["tensor<?x?x?xf32>"])),
        ("Range", &["dense<1> : tensor<i64>", "dense<10> : tensor<i64>", "dense<3> : tensor<i64>"], "", Ok(&["tensor<3xi64>"])),
        ("Range", &["dense<1.0> : tensor<f32>", "dense<0.0> : tensor<f32>", "dense<1.0> : tensor<f32>"], "", Ok(&["tensor<0xf32>"])),
        ("Range", &["tensor<f32>", "tensor<f32>", "tensor<f32>"], "", Ok(&["tensor<?xf32>"])),
        ("Range", &["dense<1> : tensor<i64>", "dense<10> : tensor<i64>", "dense<0> : tensor<i64>"], "", Err("delta must not be zero")),
        ("EyeLike", &["tensor<3x4xi32>"], "", Ok(&["tensor<3x4xi32>"])),
        ("RandomUniformLike", &["tensor<3x4xi32>"], "{dtype = 1 : i64}", Ok(&["tensor<3x4xf32>"])),
        ("Bernoulli", &["tensor<5xf64>"], "", Ok(&["tensor<5xf64>"])),
        ("RandomNormal", &[], "{shape = array<i64: 2, 3>}", Ok(&["tensor<2x3xf32>"])),
        ("RandomUniform", &[], "{dtype = 11 : i64, shape = array<i64: 4>}", Ok(&["tensor<4xf64>"])),
        ("RandomNormal", &[], "", Err("requires attribute 'shape'")),
        ("Multinomial", &["tensor<3x5xf32>"], "{sample_size = 7 : i64}", Ok(&["tensor<3x7xi32>"])),
        ("HannWindow", &["dense<10> : tensor<i64>"], "", Ok(&["tensor<10xf32>"])),
        ("BlackmanWindow", &["tensor<i32>"], "{output_datatype = 11 : i64}", Ok(&["tensor<?xf64>"])),
        ("EyeLike", &["tensor<3x4xi32>"], "{dtype = 99 : i64}", Err("attribute 'dtype' holds unknown ONNX type code 99")),
    ];

    #[test]
    fn generator_rules() {
        check(CASES);
    }
}
