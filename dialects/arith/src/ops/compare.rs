//! Comparisons and `select` of the `arith` dialect.

use nart_ir::interfaces::InferTypeOpInterface;
use nart_ir::{NamedAttr, Uniquer};

use super::*;

/// The result type of a comparison: `i1` with the shape of the operands (MLIR's
/// `getI1SameShape`).
pub struct CompareResultType;

impl InferTypeOpInterface for CompareResultType {
    fn infer_return_types(
        &self,
        u: &mut Uniquer,
        operand_types: &[Type],
        _: &[NamedAttr],
    ) -> Result<Vec<Type>, String> {
        let ty = operand_types
            .first()
            .ok_or("a comparison needs operands to infer its result type")?;
        Ok(vec![syntax::i1_like(u, *ty)])
    }
}

compare_op! {
    /// integer comparison operation
    ///
    /// Compares two integers (elementwise for tensors and vectors) with the predicate, stored as an `i64`: `eq` (0), `ne` (1), `slt` (2), `sle` (3), `sgt` (4), `sge` (5), `ult` (6), `ule` (7), `ugt` (8), `uge` (9).
    /// The result is `i1`, or a tensor/vector of `i1` of the operands' shape.
    ///
    /// ```mlir
    /// %x = arith.cmpi slt, %a, %b : i32
    /// %v = arith.cmpi eq, %c, %d : vector<4xi64>
    /// ```
    pub struct CmpIOp = "arith.cmpi" as CMPI {
        operands(lhs: c::SIGNLESS_INTEGER_LIKE, rhs: c::SIGNLESS_INTEGER_LIKE),
        attrs(predicate: CMPI_PREDICATE_DEF),
        format = "$predicate `,` $lhs `,` $rhs attr-dict `:` type($lhs)",
        fold = fold::cmpi,
        canonicalize(canon::CMPI_EXTSI, canon::CMPI_EXTUI),
    }
}

compare_op! {
    /// floating-point comparison operation
    ///
    /// Compares two floats with one of 16 predicates, stored as an `i64`: `false` (0), `oeq`, `ogt`, `oge`, `olt`, `ole`, `one`, `ord` (7), `ueq` (8), `ugt`, `uge`, `ult`, `ule`, `une`, `uno` (14), `true` (15).
    /// Ordered predicates are false when an operand is NaN; unordered ones are true.
    ///
    /// ```mlir
    /// %r = arith.cmpf oeq, %a, %b : f32
    /// ```
    pub struct CmpFOp = "arith.cmpf" as CMPF {
        operands(lhs: c::FLOAT_LIKE, rhs: c::FLOAT_LIKE),
        attrs(predicate: CMPF_PREDICATE_DEF, fastmath: optional(FASTMATH)),
        format = "$predicate `,` $lhs `,` $rhs (`fastmath` `` $fastmath^)? attr-dict `:` type($lhs)",
        fold = fold::cmpf,
    }
}

#[op(
    name = "arith.select",
    def = SELECT,
    operands(condition: c::BOOL_LIKE, true_value: c::ANY, false_value: c::ANY),
    results(result: c::ANY),
    traits(
        Pure,
        verify::SELECT_TYPES_MATCH,
        verify::CONDITION_SHAPE,
        Elementwise,
    ),
    verify = verify_select,
    fold = fold::select,
    parse = syntax::parse_select,
    print = syntax::print_select,
    canonicalize(canon::SELECT_NOT_COND, canon::REDUNDANT_SELECT_TRUE, canon::REDUNDANT_SELECT_FALSE, canon::SELECT_I1_TO_NOT),
)]
/// select operation
///
/// Returns `true_value` when `condition` is true and `false_value` otherwise.
/// With a tensor or vector condition the choice is made per element.
///
/// ```mlir
/// %x = arith.select %cond, %t, %f : i32
/// %v = arith.select %vcond, %vt, %vf : vector<4xi1>, vector<4xf32>
/// ```
pub struct SelectOp;
