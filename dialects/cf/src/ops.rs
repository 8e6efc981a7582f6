//! The ops of the `cf` dialect, each declared once, with their verifiers.

use nart_ir::printer::type_to_string;
use nart_ir::registry::{constraints as c, Arity, AttrDef, OpDef, Trait, TypeConstraint, ValueDef};
use nart_macros::op;
use std::ops::Range;

use nart_ir::interfaces::BranchOpInterface;
use nart_ir::{
    interface_impl, AttrData, Block, Context, DenseArrayData, Diagnostic, Op, Signedness, TypeData,
    Value,
};

use crate::canonicalize;

const ANY_INTEGER: TypeConstraint = TypeConstraint {
    buildable: None,
    desc: "integer",
    check: |ctx, ty| matches!(ctx.type_data(ty), TypeData::Integer { .. }),
};

const INT_ELEMENTS_ATTR: nart_ir::registry::AttrConstraint = nart_ir::registry::AttrConstraint {
    kind: nart_ir::registry::AttrKind::Any,
    desc: "integer elements attribute",
    check: |ctx, a| match ctx.attr_data(a) {
        AttrData::DenseElements { ty, .. } => {
            matches!(
                ctx.type_data(ctx.element_type(*ty)),
                TypeData::Integer { .. }
            )
        }
        _ => false,
    },
};

#[op(
    name = "cf.assert",
    def = ASSERT,
    operands(arg: c::I1),
    attrs(msg: AttrDef::required(
        "msg",
        c::STRING_ATTR,
        "The message reported when the assertion fails."
    )),
    traits(MemoryEffects),
    canonicalize(canonicalize::AssertTrue),
    format = "$arg `,` $msg attr-dict",
)]
/// Assert operation with message attribute
///
/// Checks at run time that `arg` is true; when it is false, execution stops and `msg` is reported.
/// An assertion on a constant `true` is removed by canonicalization.
///
/// ```mlir
/// cf.assert %cond, "index out of bounds"
/// ```
pub struct AssertOp;

#[op(
    name = "cf.br",
    def = BR,
    operands(destOperands: variadic(c::ANY)),
    successors(dest),
    traits(Pure, Terminator),
    interfaces(BranchOpInterface => BrBranch),
    canonicalize(canonicalize::BranchToSinglePredBlock),
    format = "$dest (`(` $destOperands^ `:` type($destOperands) `)`)? attr-dict",
)]
/// Branch operation
///
/// Transfers control to the successor block, passing `destOperands` as its arguments.
/// The operand count and types must match the successor's arguments.
///
/// ```mlir
/// ^bb2:
///   %2 = call @someFn() : () -> i32
///   cf.br ^bb3(%2 : i32)
/// ^bb3(%3: i32):
///   return %3 : i32
/// ```
pub struct BranchOp;

#[op(
    name = "cf.cond_br",
    def = COND_BR,
    operands(
        condition: c::I1,
        trueDestOperands: variadic(c::ANY),
        falseDestOperands: variadic(c::ANY),
    ),
    attrs(branch_weights: optional(AttrDef::optional(
        "branch_weights",
        c::DENSE_I32_ARRAY_ATTR,
        "Relative weights of the true and false branches."
    ))),
    successors(trueDest, falseDest),
    traits(Pure, Terminator, AttrSizedOperandSegments),
    interfaces(BranchOpInterface => CondBrBranch),
    verify = verify_cond_br,
    canonicalize(
        canonicalize::CondBranchConstantCondition,
        canonicalize::CondBranchIdenticalSuccessors,
    ),
    format = "$condition (`weights` `(` $branch_weights^ `)` )? `,` \
        $trueDest (`(` $trueDestOperands^ `:` type($trueDestOperands) `)`)? `,` \
        $falseDest (`(` $falseDestOperands^ `:` type($falseDestOperands) `)`)? attr-dict",
)]
/// Conditional branch operation
///
/// Branches to `trueDest` when `condition` is true and to `falseDest` otherwise, passing the matching operand group as the successor's arguments.
/// The operand groups are delimited by `operandSegmentSizes`.
/// A branch on a constant condition, or to the same block with the same operands either way, is rewritten to `cf.br` by canonicalization.
///
/// ```mlir
/// cf.cond_br %cond, ^bb1(%a : i32), ^bb2
/// ```
pub struct CondBranchOp;

/// `cf.switch`: a multi-way branch on an integer.
pub static SWITCH: OpDef = OpDef {
    name: "cf.switch",
    summary: "Switch operation",
    description: "Branches to the case destination whose value in `case_values` equals `flag`, \
or to the default destination when none does.\n\
The first successor is the default destination; the others are the case destinations in the \
order of `case_values`.\n\
`operandSegmentSizes` splits the operands into the flag, the default operands and all case \
operands, and `case_operand_segments` splits the case operands per case.\n\n\
```mlir\ncf.switch %flag : i32, [\n  default: ^bb1(%a : i32),\n  42: ^bb1(%b : i32),\n  \
43: ^bb3(%c : i32)\n]\n```",
    operands: &[
        ValueDef {
            name: "flag",
            constraint: ANY_INTEGER,
            arity: Arity::Single,
        },
        ValueDef {
            name: "defaultOperands",
            constraint: c::ANY,
            arity: Arity::Variadic,
        },
        ValueDef {
            name: "caseOperands",
            constraint: c::ANY,
            arity: Arity::Variadic,
        },
    ],
    attrs: &[
        AttrDef {
            default: None,
            name: "case_values",
            constraint: INT_ELEMENTS_ATTR,
            optional: true,
            doc: "The value of each case, as a vector of the flag's type.",
        },
        AttrDef {
            default: None,
            name: "case_operand_segments",
            constraint: c::DENSE_I32_ARRAY_ATTR,
            optional: false,
            doc: "The number of operands passed to each case destination.",
        },
    ],
    num_successors: None,
    traits: &[
        Trait::Pure,
        Trait::Terminator,
        Trait::AttrSizedOperandSegments,
    ],
    interfaces: &[interface_impl!(BranchOpInterface => SwitchBranch)],
    verify: Some(verify_switch),
    parse: Some(crate::syntax::parse_switch),
    print: Some(crate::syntax::print_switch),
    canonicalize: &[
        &canonicalize::SwitchConstantFlag,
        &canonicalize::SwitchNoCases,
    ],
    assembly_format: Some(
        "$flag `:` type($flag) `,` `[` `\\n` custom<SwitchOpCases>(ref(type($flag)),\
$defaultDestination, $defaultOperands, type($defaultOperands), $case_values, \
$caseDestinations, $caseOperands, type($caseOperands)) `]` attr-dict",
    ),
    ..OpDef::DEFAULT
};

/// The sizes in a dense `i32` array attribute named `name`.
pub fn dense_i32_array(ctx: &Context, op: Op, name: &str) -> Option<Vec<i64>> {
    match ctx.attr_data(ctx.attr(op, name)?) {
        AttrData::DenseArray {
            data: DenseArrayData::Int(v),
            ..
        } => Some(v.clone()),
        _ => None,
    }
}

/// The case values of a `cf.switch`, sign-extended, or `None` when the attribute is malformed.
pub fn switch_case_values(ctx: &Context, op: Op) -> Option<Vec<i128>> {
    let Some(attr) = ctx.attr(op, "case_values") else {
        return Some(Vec::new());
    };
    let AttrData::DenseElements { ty, data } = ctx.attr_data(attr) else {
        return None;
    };
    let n: i64 = ctx.shape_of(*ty)?.iter().product();
    let TypeData::Integer { width, .. } = *ctx.type_data(ctx.element_type(*ty)) else {
        return None;
    };
    let bytes = (width as usize).div_ceil(8).max(1);
    let read = |chunk: &[u8]| {
        let mut v: u128 = 0;
        for (i, &b) in chunk.iter().enumerate().take(16) {
            v |= (b as u128) << (8 * i);
        }
        nart_ir::util::normalize_int(v as i128, width, Signedness::Signless)
    };
    match data {
        nart_ir::DenseData::Splat(b) => Some(vec![read(b); n as usize]),
        nart_ir::DenseData::Elements(b) => {
            Some(b.chunks(bytes).map(read).collect::<Vec<_>>()).filter(|v| v.len() == n as usize)
        }
        nart_ir::DenseData::Strings { .. } => None,
    }
}

/// For each successor of a branch op, the block and the operands passed to it (through
/// `BranchOpInterface`). Returns `None` when the operand segments are malformed (the verifier
/// reports that).
pub fn successor_operands(ctx: &Context, op: Op) -> Option<Vec<(Block, Vec<Value>)>> {
    nart_ir::interfaces::successor_operand_groups(ctx, op)
}

/// `cf.br`: every operand goes to the one successor.
struct BrBranch;

impl BranchOpInterface for BrBranch {
    fn successor_operands(&self, ctx: &Context, op: Op, index: usize) -> Option<Range<usize>> {
        (index == 0).then(|| 0..ctx.operands(op).len())
    }

    fn set_successor_operands(
        &self,
        ctx: &mut Context,
        op: Op,
        index: usize,
        values: &[Value],
    ) -> bool {
        if index != 0 {
            return false;
        }
        ctx.set_operands(op, values);
        true
    }
}

/// Replaces the operands of successor `index` of a branch whose operands are the `lead`
/// operands (the condition or flag) followed by each successor's, in order, and updates the
/// per-successor sizes through `set_sizes` (given every successor's new operand count).
fn set_grouped_successor_operands(
    ctx: &mut Context,
    op: Op,
    index: usize,
    values: &[Value],
    lead: usize,
    set_sizes: impl FnOnce(&mut Context, &[usize]),
) -> bool {
    let Some(groups) = successor_operands(ctx, op) else {
        return false;
    };
    if index >= groups.len() {
        return false;
    }
    let mut operands: Vec<Value> = ctx.operands(op)[..lead].to_vec();
    let mut sizes = Vec::with_capacity(groups.len());
    for (i, (_, vals)) in groups.iter().enumerate() {
        let vals = if i == index { values } else { vals };
        operands.extend_from_slice(vals);
        sizes.push(vals.len());
    }
    ctx.set_operands(op, &operands);
    set_sizes(ctx, &sizes);
    true
}

/// `cf.cond_br`: the condition, then the true and the false destination's operands, sized by
/// `operandSegmentSizes`.
struct CondBrBranch;

impl BranchOpInterface for CondBrBranch {
    fn successor_operands(&self, ctx: &Context, op: Op, index: usize) -> Option<Range<usize>> {
        let seg = dense_i32_array(ctx, op, "operandSegmentSizes")?;
        let (nt, nf) = (
            usize::try_from(*seg.get(1)?).ok()?,
            usize::try_from(*seg.get(2)?).ok()?,
        );
        if ctx.operands(op).len() != 1 + nt + nf || ctx.successors(op).len() != 2 {
            return None;
        }
        match index {
            0 => Some(1..1 + nt),
            1 => Some(1 + nt..1 + nt + nf),
            _ => None,
        }
    }

    fn set_successor_operands(
        &self,
        ctx: &mut Context,
        op: Op,
        index: usize,
        values: &[Value],
    ) -> bool {
        set_grouped_successor_operands(ctx, op, index, values, 1, |ctx, sizes| {
            let seg = crate::segment_sizes(ctx, &[1, sizes[0] as i64, sizes[1] as i64]);
            ctx.set_prop(op, "operandSegmentSizes", seg);
        })
    }
}

/// `cf.switch`: the flag, the default destination's operands, then each case's, sized by
/// `operandSegmentSizes` and `case_operand_segments`.
struct SwitchBranch;

impl BranchOpInterface for SwitchBranch {
    fn successor_operands(&self, ctx: &Context, op: Op, index: usize) -> Option<Range<usize>> {
        let seg = dense_i32_array(ctx, op, "operandSegmentSizes")?;
        let nd = usize::try_from(*seg.get(1)?).ok()?;
        let cases = dense_i32_array(ctx, op, "case_operand_segments")?;
        let n_succ = ctx.successors(op).len();
        if n_succ == 0 || cases.len() != n_succ - 1 {
            return None;
        }
        let mut start = 1 + nd;
        let mut ranges: Vec<std::ops::Range<usize>> = std::iter::once(1..start).collect();
        for &n in &cases {
            let n = usize::try_from(n).ok()?;
            ranges.push(start..start + n);
            start += n;
        }
        if start != ctx.operands(op).len() {
            return None;
        }
        ranges.into_iter().nth(index)
    }

    fn set_successor_operands(
        &self,
        ctx: &mut Context,
        op: Op,
        index: usize,
        values: &[Value],
    ) -> bool {
        set_grouped_successor_operands(ctx, op, index, values, 1, |ctx, sizes| {
            let total: usize = sizes[1..].iter().sum();
            let seg = crate::segment_sizes(ctx, &[1, sizes[0] as i64, total as i64]);
            let cases: Vec<i64> = sizes[1..].iter().map(|&n| n as i64).collect();
            let cases = crate::segment_sizes(ctx, &cases);
            ctx.set_prop(op, "operandSegmentSizes", seg);
            ctx.set_prop(op, "case_operand_segments", cases);
        })
    }
}

/// The weights of `cf.cond_br`, when given, are one per successor and not all zero (upstream's
/// `WeightedBranchOpInterface` verifier, which reports without the op prefix).
fn verify_cond_br(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let Some(weights) = dense_i32_array(ctx, op, "branch_weights") else {
        return Ok(());
    };
    let n = ctx.successors(op).len();
    if weights.is_empty() {
        return Ok(());
    }
    if weights.len() != n {
        return Err(Diagnostic::error(
            ctx.op_loc(op),
            format!(
                "expects number of branch weights to match number of successors: {} vs {n}",
                weights.len()
            ),
        ));
    }
    if weights.iter().all(|&w| w == 0) {
        return Err(Diagnostic::error(
            ctx.op_loc(op),
            "branch weights cannot all be zero",
        ));
    }
    Ok(())
}

fn verify_switch(ctx: &Context, op: Op) -> Result<(), Diagnostic> {
    let n_dests = ctx.successors(op).len();
    if n_dests == 0 {
        return Err(ctx.op_error(op, "requires a default destination"));
    }
    let n_cases = n_dests - 1;
    let flag_ty = ctx.value_type(ctx.operand(op, 0));
    if let Some(attr) = ctx.attr(op, "case_values") {
        if let AttrData::DenseElements { ty, .. } = ctx.attr_data(attr) {
            let elem = ctx.element_type(*ty);
            if elem != flag_ty {
                return Err(ctx.op_error(
                    op,
                    format!(
                        "'flag' type ('{}') should match case value type ('{}')",
                        type_to_string(ctx, flag_ty),
                        type_to_string(ctx, elem)
                    ),
                ));
            }
        }
        let n_values = switch_case_values(ctx, op)
            .ok_or_else(|| ctx.op_error(op, "has malformed 'case_values'"))?
            .len();
        if n_values != n_cases {
            return Err(ctx.op_error(
                op,
                format!(
                    "number of case values ({n_values}) should match number of case destinations ({n_cases})"
                ),
            ));
        }
    } else if n_cases != 0 {
        return Err(ctx.op_error(
            op,
            "number of case values (0) should match number of case destinations",
        ));
    }
    let segs = dense_i32_array(ctx, op, "case_operand_segments").unwrap_or_default();
    if segs.len() != n_cases {
        return Err(ctx.op_error(
            op,
            format!(
                "'case_operand_segments' must have {n_cases} elements, but got {}",
                segs.len()
            ),
        ));
    }
    Ok(())
}

#[cfg(test)]
pub(crate) mod tests {
    use nart_ir::OperationState;
    use nart_test_dialect::TestFunc;

    use super::*;
    use crate::{build_br, build_cond_br, segment_sizes};

    /// A module with `test.func @f(%c: i1, %a: i32, %b: i32)`; the entry block is empty.
    pub(crate) fn setup() -> TestFunc {
        let mut s = TestFunc::new(&[nart_dialect_arith::register, crate::register]);
        let i1 = s.ctx.i1_type();
        let i32t = s.ctx.i32_type();
        for ty in [i1, i32t, i32t] {
            s.add_arg(ty);
        }
        s
    }

    #[test]
    fn br_operands_must_match_block_arguments() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let b = s.return_block(&[i32t]);
        let a = s.arg(1);
        let br = build_br(&mut s.ctx, b, &[a], s.loc);
        s.ctx.append_op(s.entry, br);
        assert_eq!(s.first_error(), None);
        s.ctx.set_operands(br, &[]);
        assert_eq!(
            s.first_error().as_deref(),
            Some("branch has 0 operands for successor #0, but target block has 1")
        );
        let c = s.arg(0);
        s.ctx.set_operands(br, &[c]);
        let msg = s.first_error().unwrap_or_default();
        assert!(
            msg.starts_with("type mismatch for bb argument #0 of successor #0"),
            "{msg}"
        );
    }

    #[test]
    fn cond_br_checks_each_successor() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let t = s.return_block(&[i32t]);
        let f = s.return_block(&[]);
        let (c, a) = (s.arg(0), s.arg(1));
        let op = build_cond_br(&mut s.ctx, c, (t, &[a]), (f, &[]), s.loc);
        s.ctx.append_op(s.entry, op);
        assert_eq!(s.first_error(), None);
        // Condition must be i1.
        s.ctx.set_operand(op, 0, a);
        let msg = s.first_error().unwrap_or_default();
        assert!(
            msg.starts_with("'cf.cond_br' op operand #0 must be 1-bit signless integer"),
            "{msg}"
        );
        s.ctx.set_operand(op, 0, c);
        // Pass the operand to the false successor instead.
        let seg = segment_sizes(&mut s.ctx, &[1, 0, 1]);
        s.ctx.set_prop(op, "operandSegmentSizes", seg);
        assert_eq!(
            s.first_error().as_deref(),
            Some("branch has 0 operands for successor #0, but target block has 1")
        );
    }

    fn switch(s: &mut TestFunc, values: &[i32], dests: &[Block], per_case: &[i64]) -> Op {
        let i32t = s.ctx.i32_type();
        let vt = s.ctx.intern_type(TypeData::Vector {
            shape: vec![values.len() as i64],
            scalable: vec![false],
            elem: i32t,
        });
        let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let cv = s.ctx.intern_attr(AttrData::DenseElements {
            ty: vt,
            data: nart_ir::DenseData::Elements(bytes),
        });
        let a = s.arg(1);
        let n_case_ops: i64 = per_case.iter().sum();
        let mut operands = vec![a];
        operands.extend(std::iter::repeat_n(a, n_case_ops as usize));
        let seg = segment_sizes(&mut s.ctx, &[1, 0, n_case_ops]);
        let cseg = segment_sizes(&mut s.ctx, per_case);
        let st = OperationState::new(&mut s.ctx, "cf.switch", s.loc)
            .operands(&operands)
            .successors(dests)
            .prop(&mut s.ctx, "operandSegmentSizes", seg)
            .prop(&mut s.ctx, "case_operand_segments", cseg)
            .prop(&mut s.ctx, "case_values", cv);
        let op = s.ctx.create_op(st);
        s.ctx.append_op(s.entry, op);
        op
    }

    #[test]
    fn switch_verifier() {
        let mut s = setup();
        let i32t = s.ctx.i32_type();
        let d = s.return_block(&[]);
        let b = s.return_block(&[i32t]);
        let op = switch(&mut s, &[42, 43], &[d, b, d], &[1, 0]);
        assert_eq!(s.first_error(), None);
        assert_eq!(switch_case_values(&s.ctx, op), Some(vec![42, 43]));
        let groups = successor_operands(&s.ctx, op).unwrap_or_default();
        assert_eq!(groups.len(), 3);
        assert_eq!(groups[1].1.len(), 1);

        let mut s = setup();
        let d = s.return_block(&[]);
        switch(&mut s, &[42], &[d, d, d], &[0, 0]);
        assert_eq!(
            s.first_error().as_deref(),
            Some("'cf.switch' op number of case values (1) should match number of case destinations (2)")
        );

        let mut s = setup();
        let d = s.return_block(&[]);
        switch(&mut s, &[42], &[d, d], &[0, 0]);
        assert_eq!(
            s.first_error().as_deref(),
            Some("'cf.switch' op 'case_operand_segments' must have 1 elements, but got 2")
        );

        let mut s = setup();
        let d = s.return_block(&[]);
        switch(&mut s, &[42], &[d, d], &[1]);
        assert_eq!(
            s.first_error().as_deref(),
            Some("branch has 1 operands for successor #1, but target block has 0")
        );
    }

    #[test]
    fn switch_flag_type_must_match_case_values() {
        let mut s = setup();
        let d = s.return_block(&[]);
        let op = switch(&mut s, &[1], &[d, d], &[0]);
        let c = s.arg(0);
        s.ctx.set_operand(op, 0, c);
        let msg = s.first_error().unwrap_or_default();
        assert!(msg.starts_with("'cf.switch' op 'flag' type ("), "{msg}");
    }

    #[test]
    fn assert_requires_i1_and_message() {
        // The verifier stops at the first problem of a function, so check each case in its own.
        let mut s = setup();
        let a = s.arg(1);
        let st = OperationState::new(&mut s.ctx, "cf.assert", s.loc).operands(&[a]);
        let op = s.ctx.create_op(st);
        s.ctx.append_op(s.entry, op);
        s.ret();
        let msg = s.first_error().unwrap_or_default();
        assert!(
            msg.starts_with("'cf.assert' op operand #0 must be 1-bit"),
            "{msg}"
        );

        let mut s = setup();
        s.ctx.allow_unregistered = true;
        let i1 = s.ctx.i1_type();
        let cond = OperationState::new(&mut s.ctx, "unreg.cond", s.loc).results(&[i1]);
        let cond = s.ctx.create_op(cond);
        s.ctx.append_op(s.entry, cond);
        let c = s.ctx.result(cond, 0);
        let st = OperationState::new(&mut s.ctx, "cf.assert", s.loc).operands(&[c]);
        let op = s.ctx.create_op(st);
        s.ctx.append_op(s.entry, op);
        s.ret();
        let msg = s.first_error().unwrap_or_default();
        assert_eq!(msg, "'cf.assert' op requires attribute 'msg'");
    }
}
