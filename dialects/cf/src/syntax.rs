//! Custom syntax of `cf.switch`, whose case list (upstream's `custom<SwitchOpCases>`) the
//! declarative format cannot express; `cf.assert`, `cf.br` and `cf.cond_br` use their formats.

use nart_ir::asm::{OpAsmParser, OpAsmPrinter};
use nart_ir::{Attr, AttrData, DenseData, Diagnostic, NamedAttr, Op, OperationState, TypeData};

use crate::ops::{successor_operands, switch_case_values};

type PResult<T> = Result<T, Diagnostic>;

fn push_prop(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState, name: &str, value: Attr) {
    let name = p.ctx().ident(name);
    st.props.retain(|a| a.name != name);
    st.props.push(NamedAttr { name, value });
}

fn i32_array(p: &mut OpAsmParser<'_, '_>, values: &[i64]) -> Attr {
    crate::segment_sizes(p.ctx(), values)
}

/// Parses `%flag : type, [ default: ^d(args), v: ^b(args), ... ] {attrs}`.
pub fn parse_switch(p: &mut OpAsmParser<'_, '_>, st: &mut OperationState) -> PResult<()> {
    let flag = p.parse_operand()?;
    let flag_ty = p.parse_colon_type()?;
    p.parse_comma()?;
    p.parse_lsquare()?;
    p.parse_keyword("default")?;
    p.parse_colon()?;
    let (default, default_args) = p.parse_successor_and_use_list()?;
    let mut values = Vec::new();
    let mut dests = Vec::new();
    let mut case_args = Vec::new();
    while p.parse_optional_comma() {
        let pos = p.current_pos();
        let v = p.parse_integer()?;
        // Upstream reads case values as 64-bit integers, then truncates them to the flag's width.
        if i64::try_from(v).is_err() {
            return Err(p.emit_error_at_pos(pos, "integer value too large"));
        }
        values.push(v);
        p.parse_colon()?;
        let (b, args) = p.parse_successor_and_use_list()?;
        dests.push(b);
        case_args.push(args);
    }
    p.parse_rsquare()?;
    p.parse_optional_attr_dict(st)?;
    let width = match p.ctx().type_data(flag_ty) {
        TypeData::Integer { width, .. } => *width,
        _ => return Err(p.emit_error("expected an integer type for the switch flag")),
    };
    let fv = p.resolve_operand(&flag, flag_ty);
    st.operands.push(fv);
    st.operands.extend(&default_args);
    for a in &case_args {
        st.operands.extend(a);
    }
    st.successors.push(default);
    st.successors.extend(&dests);
    if !values.is_empty() {
        let vt = p.ctx().intern_type(TypeData::Vector {
            shape: vec![values.len() as i64],
            scalable: vec![false],
            elem: flag_ty,
        });
        let n = (width as usize).div_ceil(8).max(1);
        let mut bytes = Vec::with_capacity(n * values.len());
        for v in &values {
            let bits = v.to_le_bytes();
            bytes.extend((0..n).map(|i| bits.get(i).copied().unwrap_or(0)));
        }
        let cv = p.ctx().intern_attr(AttrData::DenseElements {
            ty: vt,
            data: DenseData::Elements(bytes),
        });
        push_prop(p, st, "case_values", cv);
    }
    let sizes: Vec<i64> = case_args.iter().map(|a| a.len() as i64).collect();
    let n_case: i64 = sizes.iter().sum();
    let segs = i32_array(p, &sizes);
    push_prop(p, st, "case_operand_segments", segs);
    let seg = i32_array(p, &[1, default_args.len() as i64, n_case]);
    push_prop(p, st, "operandSegmentSizes", seg);
    Ok(())
}

/// Prints `cf.switch` with one case per line.
pub fn print_switch(p: &mut OpAsmPrinter<'_>, op: Op) -> std::fmt::Result {
    let ctx = p.ctx();
    let flag = ctx.operand(op, 0);
    p.write_str(" ");
    p.print_operand(flag);
    p.write_str(" : ");
    p.print_type(ctx.value_type(flag));
    p.write_str(", [");
    let (Some(groups), Some(values)) = (successor_operands(ctx, op), switch_case_values(ctx, op))
    else {
        // Malformed segments: the verifier reports them; print what can be printed.
        p.write_str("]");
        return Ok(());
    };
    p.print_newline();
    p.write_str("  default: ");
    p.print_successor_and_use_list(groups[0].0, &groups[0].1);
    for ((b, args), v) in groups.iter().skip(1).zip(&values) {
        p.write_str(",");
        p.print_newline();
        p.write_str(&format!("  {v}: "));
        p.print_successor_and_use_list(*b, args);
    }
    if !values.is_empty() {
        p.print_newline();
    }
    p.write_str("]");
    p.print_optional_attr_dict(
        op,
        &[
            "case_values",
            "case_operand_segments",
            "operandSegmentSizes",
        ],
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use nart_test_dialect::ir::Register;
    use nart_test_dialect::roundtrip::{
        check_generic_round_trip, check_round_trip, generic, parse_print,
    };

    const DIALECTS: &[Register] = &[
        nart_dialect_func::register,
        nart_dialect_arith::register,
        crate::register,
    ];

    fn ops_mlir() -> String {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/lit/dialect/cf/ops.mlir");
        std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading ops.mlir: {e}"))
    }

    #[test]
    fn custom_and_generic_forms_round_trip() {
        check_round_trip(DIALECTS, &ops_mlir()).unwrap_or_else(|e| panic!("{e}"));
        check_generic_round_trip(DIALECTS, &ops_mlir()).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn generic_form_matches_upstream() {
        let generic =
            parse_print(DIALECTS, &ops_mlir(), &generic()).unwrap_or_else(|e| panic!("{e}"));
        // As `mlir-opt --mlir-print-op-generic` (LLVM 22) prints the same ops, up to the
        // numbering of values (upstream numbers arguments across functions there).
        for want in [
            "\"cf.cond_br\"(%arg3, %arg4, %arg5)[^bb1, ^bb2] <{operandSegmentSizes = array<i32: 1, 2, 0>}> : (i1, i32, f32) -> ()",
            "<{branch_weights = array<i32: 3, 5>, operandSegmentSizes = array<i32: 1, 0, 2>}>",
            "<{case_operand_segments = array<i32: 1, 0>, case_values = dense<[42, 43]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 1, 1>}>",
            "\"cf.assert\"(%arg0) <{msg = \"must hold\"}> : (i1) -> ()",
        ] {
            assert!(generic.contains(want), "missing {want}\nin\n{generic}");
        }
    }
}
