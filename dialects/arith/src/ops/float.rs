//! Floating-point arithmetic ops of the `arith` dialect.

use super::*;

float_binary! {
    /// floating point addition operation
    ///
    /// Adds two floats elementwise, rounding to the nearest representable value.
    ///
    /// ```mlir
    /// %a = arith.addf %b, %c : f64
    /// %x = arith.addf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct AddFOp = "arith.addf" as ADDF {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::addf,
    }
}

float_binary! {
    /// floating point subtraction operation
    ///
    /// Subtracts the second float from the first, elementwise.
    ///
    /// ```mlir
    /// %a = arith.subf %b, %c : f64
    /// %x = arith.subf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct SubFOp = "arith.subf" as SUBF {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::subf,
    }
}

float_binary! {
    /// floating point multiplication operation
    ///
    /// Multiplies two floats elementwise.
    ///
    /// ```mlir
    /// %a = arith.mulf %b, %c : f64
    /// %x = arith.mulf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct MulFOp = "arith.mulf" as MULF {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::mulf,
        canonicalize(canon::MULF_OF_NEGF),
    }
}

float_binary! {
    /// floating point division operation
    ///
    /// Divides the first float by the second, elementwise.
    ///
    /// ```mlir
    /// %a = arith.divf %b, %c : f64
    /// %x = arith.divf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct DivFOp = "arith.divf" as DIVF {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::divf,
        canonicalize(canon::DIVF_OF_NEGF),
    }
}

float_binary! {
    /// floating point division remainder operation
    ///
    /// The remainder of the division rounded toward zero (C's `fmod`).
    ///
    /// ```mlir
    /// %a = arith.remf %b, %c : f64
    /// %x = arith.remf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct RemFOp = "arith.remf" as REMF {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::remf,
    }
}

float_unary! {
    /// floating point negation
    ///
    /// Flips the sign bit of a float, elementwise.
    ///
    /// ```mlir
    /// %a = arith.negf %b : f64
    /// ```
    pub struct NegFOp = "arith.negf" as NEGF {
        fold = fold::negf,
    }
}

float_binary! {
    /// floating-point maximum operation
    ///
    /// The larger of two floats; a NaN operand gives NaN, and `+0.0` is larger than `-0.0`.
    ///
    /// ```mlir
    /// %a = arith.maximumf %b, %c : f64
    /// %x = arith.maximumf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct MaximumFOp = "arith.maximumf" as MAXIMUMF {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::maximumf,
    }
}

float_binary! {
    /// floating-point minimum operation
    ///
    /// The smaller of two floats; a NaN operand gives NaN, and `-0.0` is smaller than `+0.0`.
    ///
    /// ```mlir
    /// %a = arith.minimumf %b, %c : f64
    /// %x = arith.minimumf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct MinimumFOp = "arith.minimumf" as MINIMUMF {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::minimumf,
    }
}

float_binary! {
    /// floating-point maximum operation
    ///
    /// The larger of two floats; when one operand is NaN, the other is returned.
    ///
    /// ```mlir
    /// %a = arith.maxnumf %b, %c : f64
    /// %x = arith.maxnumf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct MaxNumFOp = "arith.maxnumf" as MAXNUMF {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::maxnumf,
    }
}

float_binary! {
    /// floating-point minimum operation
    ///
    /// The smaller of two floats; when one operand is NaN, the other is returned.
    ///
    /// ```mlir
    /// %a = arith.minnumf %b, %c : f64
    /// %x = arith.minnumf %y, %z fastmath<fast> : vector<4xf32>
    /// ```
    pub struct MinNumFOp = "arith.minnumf" as MINNUMF {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::minnumf,
    }
}
