//! Integer arithmetic ops of the `arith` dialect.

use super::*;

int_binary_overflow! {
    /// integer addition operation
    ///
    /// Adds two integers (or tensors/vectors of them) elementwise; the sum wraps around modulo 2^n.
    /// With `nsw` or `nuw` the result is poison when signed or unsigned overflow happens.
    ///
    /// ```mlir
    /// %a = arith.addi %b, %c : i64
    /// %x = arith.addi %y, %z overflow<nsw, nuw> : i32
    /// ```
    pub struct AddIOp = "arith.addi" as ADDI {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::addi,
        canonicalize(canon::ADDI_ADDI_CONSTANT, canon::ADDI_SUBI_CONSTANT_RHS, canon::ADDI_SUBI_CONSTANT_LHS, canon::ADDI_MULI_NEGATIVE_ONE_RHS, canon::ADDI_MULI_NEGATIVE_ONE_LHS),
    }
}

int_binary_overflow! {
    /// integer subtraction operation
    ///
    /// Subtracts the second integer from the first, elementwise, wrapping around modulo 2^n.
    ///
    /// ```mlir
    /// %a = arith.subi %b, %c : i64
    /// ```
    pub struct SubIOp = "arith.subi" as SUBI {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::subi,
        canonicalize(canon::SUBI_ADDI_CONSTANT, canon::SUBI_LHS_ADDI_CONSTANT, canon::SUBI_RHS_SUBI_CONSTANT_RHS, canon::SUBI_RHS_SUBI_CONSTANT_LHS, canon::SUBI_LHS_SUBI_CONSTANT_RHS, canon::SUBI_LHS_SUBI_CONSTANT_LHS, canon::SUBI_SUBI_LHS_RHS_LHS),
    }
}

int_binary_overflow! {
    /// integer multiplication operation
    ///
    /// Multiplies two integers elementwise, keeping the low n bits of the product.
    ///
    /// ```mlir
    /// %a = arith.muli %b, %c : i64
    /// ```
    pub struct MulIOp = "arith.muli" as MULI {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::muli,
        canonicalize(canon::MULI_MULI_CONSTANT),
    }
}

int_binary_exact! {
    /// signed integer division operation
    ///
    /// Divides signed integers, rounding toward zero.
    /// Division by zero and `MIN / -1` are undefined behaviour and are never folded.
    ///
    /// ```mlir
    /// %a = arith.divsi %b, %c : i64
    /// ```
    pub struct DivSIOp = "arith.divsi" as DIVSI {
        traits(SameOperandsAndResultType, Elementwise),
        fold = fold::divsi,
    }
}

int_binary_exact! {
    /// unsigned integer division operation
    ///
    /// Divides integers read as unsigned, rounding toward zero.
    /// Division by zero is undefined behaviour and is never folded.
    ///
    /// ```mlir
    /// %a = arith.divui %b, %c : i64
    /// ```
    pub struct DivUIOp = "arith.divui" as DIVUI {
        traits(SameOperandsAndResultType, Elementwise),
        fold = fold::divui,
    }
}

int_binary! {
    /// signed ceil integer division operation
    ///
    /// Divides signed integers, rounding toward positive infinity.
    ///
    /// ```mlir
    /// %a = arith.ceildivsi %b, %c : i64
    /// ```
    pub struct CeilDivSIOp = "arith.ceildivsi" as CEILDIVSI {
        traits(SameOperandsAndResultType, Elementwise),
        fold = fold::ceildivsi,
    }
}

int_binary! {
    /// unsigned ceil integer division operation
    ///
    /// Divides integers read as unsigned, rounding toward positive infinity.
    ///
    /// ```mlir
    /// %a = arith.ceildivui %b, %c : i64
    /// ```
    pub struct CeilDivUIOp = "arith.ceildivui" as CEILDIVUI {
        traits(SameOperandsAndResultType, Elementwise),
        fold = fold::ceildivui,
    }
}

int_binary! {
    /// signed floor integer division operation
    ///
    /// Divides signed integers, rounding toward negative infinity.
    ///
    /// ```mlir
    /// %a = arith.floordivsi %b, %c : i64
    /// ```
    pub struct FloorDivSIOp = "arith.floordivsi" as FLOORDIVSI {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::floordivsi,
    }
}

int_binary! {
    /// signed integer division remainder operation
    ///
    /// The remainder of the signed division rounding toward zero; it has the sign of the dividend.
    ///
    /// ```mlir
    /// %a = arith.remsi %b, %c : i64
    /// ```
    pub struct RemSIOp = "arith.remsi" as REMSI {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::remsi,
    }
}

int_binary! {
    /// unsigned integer division remainder operation
    ///
    /// The remainder of the unsigned division.
    ///
    /// ```mlir
    /// %a = arith.remui %b, %c : i64
    /// ```
    pub struct RemUIOp = "arith.remui" as REMUI {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::remui,
    }
}

int_binary! {
    /// integer binary and
    ///
    /// Bitwise and.
    ///
    /// ```mlir
    /// %a = arith.andi %b, %c : i64
    /// ```
    pub struct AndIOp = "arith.andi" as ANDI {
        traits(Pure, Commutative, Idempotent, SameOperandsAndResultType, Elementwise),
        fold = fold::andi,
        canonicalize(canon::ANDI_OF_EXTUI, canon::ANDI_OF_EXTSI),
    }
}

int_binary! {
    /// integer binary or
    ///
    /// Bitwise or.
    ///
    /// ```mlir
    /// %a = arith.ori %b, %c : i64
    /// ```
    pub struct OrIOp = "arith.ori" as ORI {
        traits(Pure, Commutative, Idempotent, SameOperandsAndResultType, Elementwise),
        fold = fold::ori,
        canonicalize(canon::ORI_OF_EXTUI, canon::ORI_OF_EXTSI),
    }
}

int_binary! {
    /// integer binary xor
    ///
    /// Bitwise exclusive or.
    ///
    /// ```mlir
    /// %a = arith.xori %b, %c : i64
    /// ```
    pub struct XOrIOp = "arith.xori" as XORI {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::xori,
        canonicalize(canon::XORI_NOT_CMPI, canon::XORI_OF_EXTUI, canon::XORI_OF_EXTSI),
    }
}

int_binary_overflow! {
    /// integer left-shift
    ///
    /// Shifts the first operand left by the second, filling with zeros.
    /// A shift by the bit width or more gives poison and is never folded.
    ///
    /// ```mlir
    /// %a = arith.shli %b, %c : i64
    /// ```
    pub struct ShLIOp = "arith.shli" as SHLI {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::shli,
    }
}

int_binary_exact! {
    /// signed integer right-shift
    ///
    /// Shifts right, filling with copies of the sign bit.
    ///
    /// ```mlir
    /// %a = arith.shrsi %b, %c : i64
    /// ```
    pub struct ShRSIOp = "arith.shrsi" as SHRSI {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::shrsi,
    }
}

int_binary_exact! {
    /// unsigned integer right-shift
    ///
    /// Shifts right, filling with zeros.
    ///
    /// ```mlir
    /// %a = arith.shrui %b, %c : i64
    /// ```
    pub struct ShRUIOp = "arith.shrui" as SHRUI {
        traits(Pure, SameOperandsAndResultType, Elementwise),
        fold = fold::shrui,
    }
}

int_binary! {
    /// signed integer maximum
    ///
    /// The signed integer maximum of two integers, elementwise.
    ///
    /// ```mlir
    /// %a = arith.maxsi %b, %c : i64
    /// ```
    pub struct MaxSIOp = "arith.maxsi" as MAXSI {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::maxsi,
    }
}

int_binary! {
    /// unsigned integer maximum
    ///
    /// The unsigned integer maximum of two integers, elementwise.
    ///
    /// ```mlir
    /// %a = arith.maxui %b, %c : i64
    /// ```
    pub struct MaxUIOp = "arith.maxui" as MAXUI {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::maxui,
    }
}

int_binary! {
    /// signed integer minimum
    ///
    /// The signed integer minimum of two integers, elementwise.
    ///
    /// ```mlir
    /// %a = arith.minsi %b, %c : i64
    /// ```
    pub struct MinSIOp = "arith.minsi" as MINSI {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::minsi,
    }
}

int_binary! {
    /// unsigned integer minimum
    ///
    /// The unsigned integer minimum of two integers, elementwise.
    ///
    /// ```mlir
    /// %a = arith.minui %b, %c : i64
    /// ```
    pub struct MinUIOp = "arith.minui" as MINUI {
        traits(Pure, Commutative, SameOperandsAndResultType, Elementwise),
        fold = fold::minui,
    }
}

int_extended! {
    /// extended unsigned integer addition operation returning sum and overflow bit
    ///
    /// Adds two integers and returns the wrapped sum and an `i1` that is true when the unsigned addition overflowed.
    ///
    /// ```mlir
    /// %sum, %overflow = arith.addui_extended %a, %b : i64, i1
    /// ```
    pub struct AddUIExtendedOp = "arith.addui_extended" as ADDUI_EXTENDED {
        traits(Pure, Commutative, verify::SUM_TYPES_MATCH, Elementwise),
        results(sum: c::SIGNLESS_INTEGER_LIKE, overflow: c::BOOL_LIKE),
        format = "$lhs `,` $rhs attr-dict `:` type($sum) `,` type($overflow)",
        parse = syntax::parse_addui_extended,
        print = syntax::print_addui_extended,
        fold = fold::addui_extended,
        canonicalize(canon::ADDUI_EXTENDED_TO_ADDI),
    }
}

int_extended! {
    /// extended signed integer multiplication operation
    ///
    /// Multiplies two signed integers and returns the low and high halves of the double-width product.
    ///
    /// ```mlir
    /// %low, %high = arith.mulsi_extended %a, %b : i32
    /// ```
    pub struct MulSIExtendedOp = "arith.mulsi_extended" as MULSI_EXTENDED {
        // Upstream's `AllTypesMatch`; `SameOperandsAndResultType` (which it implies) lets the
        // format infer the types it does not spell.
        traits(
            Pure,
            Commutative,
            verify::LOW_HIGH_TYPES_MATCH,
            SameOperandsAndResultType,
            Elementwise,
        ),
        fold = fold::mulsi_extended,
        canonicalize(canon::MULSI_EXTENDED_TO_MULI),
    }
}

int_extended! {
    /// extended unsigned integer multiplication operation
    ///
    /// Multiplies two unsigned integers and returns the low and high halves of the double-width product.
    ///
    /// ```mlir
    /// %low, %high = arith.mului_extended %a, %b : i32
    /// ```
    pub struct MulUIExtendedOp = "arith.mului_extended" as MULUI_EXTENDED {
        // Upstream's `AllTypesMatch`; `SameOperandsAndResultType` (which it implies) lets the
        // format infer the types it does not spell.
        traits(
            Pure,
            Commutative,
            verify::LOW_HIGH_TYPES_MATCH,
            SameOperandsAndResultType,
            Elementwise,
        ),
        fold = fold::mului_extended,
        canonicalize(canon::MULUI_EXTENDED_TO_MULI),
    }
}
