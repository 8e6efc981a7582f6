//! Casts of the `arith` dialect.

use super::*;

int_cast! {
    /// integer sign extension operation
    ///
    /// Widens an integer, copying the sign bit into the new high bits.
    ///
    /// ```mlir
    /// %2 = arith.extsi %1 : i3 to i6
    /// ```
    pub struct ExtSIOp = "arith.extsi" as EXTSI {
        verify = verify_wider_int,
        fold = fold::extsi,
        canonicalize(canon::EXTSI_OF_EXTSI, canon::EXTSI_OF_EXTUI),
    }
}

int_cast! {
    /// integer zero extension operation
    ///
    /// Widens an integer, filling the new high bits with zeros.
    ///
    /// ```mlir
    /// %2 = arith.extui %1 : i3 to i6
    /// ```
    pub struct ExtUIOp = "arith.extui" as EXTUI {
        verify = verify_wider_int,
        fold = fold::extui,
        canonicalize(canon::EXTUI_OF_EXTUI),
    }
}

int_cast! {
    /// integer truncation operation
    ///
    /// Narrows an integer, dropping its high bits.
    ///
    /// ```mlir
    /// %2 = arith.trunci %1 : i5 to i3
    /// %3 = arith.trunci %a overflow<nsw> : i32 to i16
    /// ```
    pub struct TruncIOp = "arith.trunci" as TRUNCI {
        attrs(overflowFlags: optional(OVERFLOW_FLAGS)),
        format = "$in (`overflow` `` $overflowFlags^)? attr-dict `:` type($in) `to` type($out)",
        verify = verify_narrower_int,
        fold = fold::trunci,
        canonicalize(canon::TRUNCI_OF_EXT, canon::TRUNCI_SHRSI_TO_TRUNCI_SHRUI),
    }
}

float_cast! {
    /// cast from floating-point to wider floating-point
    ///
    /// Widens a float exactly.
    ///
    /// ```mlir
    /// %1 = arith.extf %0 : f32 to f64
    /// ```
    pub struct ExtFOp = "arith.extf" as EXTF {
        attrs(fastmath: optional(OPTIONAL_FASTMATH)),
        format = "$in (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `to` type($out)",
        verify = verify_wider_float,
        fold = fold::extf,
    }
}

float_cast! {
    /// cast from floating-point to narrower floating-point
    ///
    /// Narrows a float, rounding with `roundingmode` (to nearest even when absent).
    ///
    /// ```mlir
    /// %1 = arith.truncf %0 : f64 to f32
    /// ```
    pub struct TruncFOp = "arith.truncf" as TRUNCF {
        attrs(roundingmode: optional(ROUNDING_MODE_DEF), fastmath: optional(OPTIONAL_FASTMATH)),
        format = "$in ($roundingmode^)? (`fastmath` `` $fastmath^)? attr-dict `:` type($in) `to` type($out)",
        verify = verify_narrower_float,
        fold = fold::truncf,
        canonicalize(canon::TRUNCF_SITOFP, canon::TRUNCF_UITOFP),
    }
}

cast_op! {
    /// cast from integer type to floating-point
    ///
    /// Converts a signed integer to the nearest float.
    ///
    /// ```mlir
    /// %f = arith.sitofp %i : i32 to f32
    /// ```
    pub struct SIToFPOp = "arith.sitofp" as SITOFP {
        operands(in: SIGNLESS_FIXED_WIDTH_INTEGER_LIKE),
        results(out: c::FLOAT_LIKE),
        fold = fold::sitofp,
    }
}

cast_op! {
    /// cast from unsigned integer type to floating-point
    ///
    /// Converts an unsigned integer to the nearest float.
    ///
    /// ```mlir
    /// %f = arith.uitofp %i : i32 to f32
    /// ```
    pub struct UIToFPOp = "arith.uitofp" as UITOFP {
        operands(in: SIGNLESS_FIXED_WIDTH_INTEGER_LIKE),
        results(out: c::FLOAT_LIKE),
        fold = fold::uitofp,
    }
}

cast_op! {
    /// cast from floating-point type to integer type
    ///
    /// Converts a float to a signed integer, rounding toward zero; out-of-range values give poison and are never folded.
    ///
    /// ```mlir
    /// %i = arith.fptosi %f : f32 to i32
    /// ```
    pub struct FPToSIOp = "arith.fptosi" as FPTOSI {
        operands(in: c::FLOAT_LIKE),
        results(out: SIGNLESS_FIXED_WIDTH_INTEGER_LIKE),
        fold = fold::fptosi,
    }
}

cast_op! {
    /// cast from floating-point type to integer type
    ///
    /// Converts a float to an unsigned integer, rounding toward zero; out-of-range values give poison and are never folded.
    ///
    /// ```mlir
    /// %i = arith.fptoui %f : f32 to i32
    /// ```
    pub struct FPToUIOp = "arith.fptoui" as FPTOUI {
        operands(in: c::FLOAT_LIKE),
        results(out: SIGNLESS_FIXED_WIDTH_INTEGER_LIKE),
        fold = fold::fptoui,
    }
}

cast_op! {
    /// bitcast between values of equal bit width
    ///
    /// Reinterprets the bits of an integer or float as another integer or float type of the same width.
    ///
    /// ```mlir
    /// %i = arith.bitcast %f : f32 to i32
    /// ```
    pub struct BitcastOp = "arith.bitcast" as BITCAST {
        operands(in: BITCAST_TYPE),
        results(out: BITCAST_TYPE),
        verify = verify_bitcast,
        fold = fold::bitcast,
        canonicalize(canon::BITCAST_OF_BITCAST),
    }
}

cast_op! {
    /// cast between index and integer types
    ///
    /// Converts between `index` and an integer type, sign-extending when widening and truncating when narrowing.
    ///
    /// ```mlir
    /// %i = arith.index_cast %x : i32 to index
    /// ```
    pub struct IndexCastOp = "arith.index_cast" as INDEX_CAST {
        operands(in: INDEX_CAST_TYPE),
        results(out: INDEX_CAST_TYPE),
        verify = verify_index_cast,
        fold = fold::index_cast,
        canonicalize(canon::INDEX_CAST_OF_INDEX_CAST, canon::INDEX_CAST_OF_EXTSI),
    }
}

cast_op! {
    /// unsigned cast between index and integer types
    ///
    /// Converts between `index` and an integer type, zero-extending when widening and truncating when narrowing.
    ///
    /// ```mlir
    /// %i = arith.index_castui %x : i32 to index
    /// ```
    pub struct IndexCastUIOp = "arith.index_castui" as INDEX_CASTUI {
        operands(in: INDEX_CAST_TYPE),
        results(out: INDEX_CAST_TYPE),
        verify = verify_index_cast,
        fold = fold::index_castui,
        canonicalize(canon::INDEX_CASTUI_OF_INDEX_CASTUI, canon::INDEX_CASTUI_OF_EXTUI),
    }
}
