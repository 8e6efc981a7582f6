//! The tensor results of sequence and optional ops, read from the `!graph.seq` and `!graph.opt`
//! operand types. Results that are themselves sequences or optionals are outside what
//! [`ShapedTypeComponents`](nart_ir::interfaces::ShapedTypeComponents) describes: those ops are
//! in [`WITHOUT_INFERENCE`](super::WITHOUT_INFERENCE), or (`SequenceMap`) check their
//! signature and leave the results to the importer.

use nart_ir::DYNAMIC;

use super::{bool_elem, i64_elem, norm_axis, one, shaped_of, t, In, Rules};
use crate::types::{opt_elem, seq_elem};

/// Which ops each rule of this file covers. `scripts/gen_graph_ops.py` reads this table and
/// declares each rule in those ops' `OpDef`s.
pub const RULES: Rules = &[
    ("SequenceAt", &["SequenceAt"]),
    ("SequenceLength", &["SequenceLength"]),
    ("ConcatFromSequence", &["ConcatFromSequence"]),
    ("OptionalHasElement", &["OptionalHasElement"]),
    ("OptionalGetElement", &["OptionalGetElement"]),
    ("SequenceMap", &["SequenceMap"]),
];

rules! {
    /// The sequence's element type, when it is a tensor.
    SequenceAt = |i| Ok(Some(vec![seq_tensor(i, 0)]));
    /// A scalar `i64`.
    SequenceLength = |_| one(t(i64_elem(), Some(vec![])));
    /// The elements joined along `axis`, or stacked on a new `axis` under `new_axis`.
    ConcatFromSequence = |i| {
        let Some(e) = seq_tensor(i, 0) else {
            return Ok(Some(vec![None]));
        };
        let new_axis = i.int("new_axis", 0) != 0;
        let shape = match e.shape {
            Some(mut s) => {
                let rank = if new_axis { s.len() + 1 } else { s.len() };
                let axis = norm_axis(i.int("axis", 0), rank)?;
                if new_axis {
                    s.insert(axis, DYNAMIC);
                } else {
                    s[axis] = DYNAMIC;
                }
                Some(s)
            }
            None => None,
        };
        one(t(e.elem, shape))
    };
    /// A scalar `i1`.
    OptionalHasElement = |_| one(t(bool_elem(), Some(vec![])));
    /// The optional's element type (or the operand's, for a tensor operand), when it is a
    /// tensor.
    OptionalGetElement = |i| {
        let res = i.ty(0).and_then(|ty| {
            let inner = opt_elem(i.ctx, ty).unwrap_or(ty);
            shaped_of(i.ctx, inner)
        });
        Ok(Some(vec![res]))
    };
    /// Nothing about the results (sequences); checks that the body takes one argument per
    /// operand and yields one value per result.
    SequenceMap = |i| {
        let (n_ops, n_res) = (i.n(), i.n_results());
        if let Some(args) = i.region_args(0) {
            if args.len() != n_ops {
                return Err(format!(
                    "expects the body to have {n_ops} arguments (one per operand), but it has {}",
                    args.len()
                ));
            }
        }
        if let Some(ys) = i.yields(0) {
            if ys.len() != n_res {
                return Err(format!(
                    "expects the body to yield {n_res} values (one per result), but it yields {}",
                    ys.len()
                ));
            }
        }
        Ok(Some(vec![None; n_res]))
    };
}

/// The element type of sequence operand `k`, when it is a tensor.
fn seq_tensor(i: &In, k: usize) -> Option<super::Shaped> {
    let elem = seq_elem(i.ctx, i.ty(k)?)?;
    shaped_of(i.ctx, elem)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{check, infer_in_source, Case};

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        ("SequenceAt", &["!graph.seq<tensor<2x?xf32>>", "tensor<i64>"], "", Ok(&["tensor<2x?xf32>"])),
        ("SequenceAt", &["!graph.seq<!graph.seq<tensor<2xf32>>>", "tensor<i64>"], "", Ok(&["?"])),
        ("SequenceLength", &["!graph.seq<tensor<2xf32>>"], "", Ok(&["tensor<i64>"])),
        ("ConcatFromSequence", &["!graph.seq<tensor<2x3xf32>>"], "{axis = 1 : i64}", Ok(&["tensor<2x?xf32>"])),
        ("ConcatFromSequence", &["!graph.seq<tensor<2x3xf32>>"], "{axis = -1 : i64, new_axis = 1 : i64}", Ok(&["tensor<2x3x?xf32>"])),
        ("ConcatFromSequence", &["!graph.seq<tensor<*xi64>>"], "{axis = 0 : i64}", Ok(&["tensor<*xi64>"])),
        ("ConcatFromSequence", &["!graph.seq<tensor<2x3xf32>>"], "{axis = 2 : i64}", Err("axis 2 is out of range for rank 2")),
        ("OptionalHasElement", &["!graph.opt<tensor<2xf32>>"], "", Ok(&["tensor<i1>"])),
        ("OptionalGetElement", &["!graph.opt<tensor<2xf32>>"], "", Ok(&["tensor<2xf32>"])),
        ("OptionalGetElement", &["tensor<3xi8>"], "", Ok(&["tensor<3xi8>"])),
        ("OptionalGetElement", &["!graph.opt<!graph.seq<tensor<2xf32>>>"], "", Ok(&["?"])),
    ];

    #[test]
    fn sequence_and_optional_rules() {
        check(CASES);
    }

    #[test]
    fn sequence_map_checks_its_body() {
        let src = r#""test.holder"() ({
^bb0(%s: !graph.seq<tensor<2xf32>>, %x: tensor<2xf32>):
  %0 = "graph.SequenceMap"(%s, %x) ({
  ^bb0(%a: tensor<2xf32>):
    "graph.yield"(%a) : (tensor<2xf32>) -> ()
  }) : (!graph.seq<tensor<2xf32>>, tensor<2xf32>) -> !graph.seq<tensor<2xf32>>
}) : () -> ()
"#;
        assert_eq!(
            infer_in_source("SequenceMap", src),
            Err("expects the body to have 2 arguments (one per operand), but it has 1".into())
        );
    }
}
