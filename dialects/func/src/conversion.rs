//! Type conversion of functions (MLIR's `populateFunctionOpInterfaceTypeConversionPattern` and
//! the return/call patterns of `FuncConversions`): patterns a dialect conversion adds so that
//! `func.func`, `func.return` and `func.call` follow the types the [`TypeConverter`] changes.
//!
//! - [`FuncSignatureConversion`] converts a function's signature and its entry block's
//!   arguments in place;
//! - [`ReturnConversion`] and [`CallConversion`] rebuild the op with its operands converted
//!   (and, for a call, its result types).
//!
//! They apply only when a type actually changes, and all three need a type converter.

use nart_ir::{Op, OperationState, Type, TypeData};
use nart_rewrite::conversion::{
    ConversionPattern, ConversionPatternSet, ConversionRewriter, ConversionTarget, OpAdaptor,
};

/// Adds the three patterns to `patterns`.
pub fn add_func_type_conversion_patterns(patterns: &mut ConversionPatternSet) {
    patterns
        .add(FuncSignatureConversion)
        .add(ReturnConversion)
        .add(CallConversion);
}

/// Makes `func.func`, `func.return` and `func.call` legal exactly when their types are.
pub fn add_func_legality(target: &mut ConversionTarget) {
    target.add_dynamically_legal_op("func.func", |cx, op| {
        let ty = cx.attr(op, "function_type").and_then(|a| cx.attr_type(a));
        ty.is_none_or(|t| cx.is_signature_legal(t))
    });
    target.add_dynamically_legal_op("func.return", |cx, op| cx.are_op_types_legal(op));
    target.add_dynamically_legal_op("func.call", |cx, op| cx.are_op_types_legal(op));
}

fn function_type(rw: &ConversionRewriter<'_, '_>, op: Op) -> Option<(Vec<Type>, Vec<Type>)> {
    let t = rw.attr_type(rw.attr(op, "function_type")?)?;
    match rw.type_data(t) {
        TypeData::Function { inputs, results } => Some((inputs.clone(), results.clone())),
        _ => None,
    }
}

/// Converts the signature of a `func.func` and the arguments of its entry block, in place.
pub struct FuncSignatureConversion;

impl ConversionPattern for FuncSignatureConversion {
    fn name(&self) -> &'static str {
        "FuncSignatureConversion"
    }
    fn root(&self) -> Option<&'static str> {
        Some("func.func")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        _: &OpAdaptor,
    ) -> bool {
        let Some(conv) = rw.type_converter() else {
            return rw.match_failure("it needs a type converter");
        };
        let Some(fty) = rw.attr(op, "function_type").and_then(|a| rw.attr_type(a)) else {
            return rw.match_failure("the function has no signature");
        };
        let Some(new_ty) = conv.convert_function_type(rw.uniq(), fty) else {
            return rw.match_failure("the signature has no conversion");
        };
        if function_type(rw, op).is_none() {
            return rw.match_failure("the signature is not a function type");
        }
        let region = rw.region(op, 0);
        if !rw.convert_region_types(region) {
            return rw.match_failure("an argument type has no conversion");
        }
        let a = rw.uniq().type_attr(new_ty);
        rw.set_prop(op, "function_type", a);
        true
    }
}

/// Rebuilds `func.return` with its operands converted.
pub struct ReturnConversion;

impl ConversionPattern for ReturnConversion {
    fn name(&self) -> &'static str {
        "ReturnConversion"
    }
    fn root(&self) -> Option<&'static str> {
        Some("func.return")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let loc = rw.op_loc(op);
        let st = OperationState::new(rw.uniq(), "func.return", loc).operands(&a.flat_operands());
        rw.replace_op_with_new(op, st);
        true
    }
}

/// Rebuilds `func.call` with its operands and result types converted.
pub struct CallConversion;

impl ConversionPattern for CallConversion {
    fn name(&self) -> &'static str {
        "CallConversion"
    }
    fn root(&self) -> Option<&'static str> {
        Some("func.call")
    }
    fn match_and_rewrite(
        &self,
        rw: &mut ConversionRewriter<'_, '_>,
        op: Op,
        a: &OpAdaptor,
    ) -> bool {
        let old: Vec<Type> = rw.results(op).iter().map(|&r| rw.value_type(r)).collect();
        let Some(results) = rw
            .type_converter()
            .and_then(|c| c.convert_types(rw.uniq(), &old))
        else {
            return rw.match_failure("a result type has no conversion");
        };
        if results.len() != old.len() {
            return rw.match_failure("1:N result conversions of calls are not supported");
        }
        let loc = rw.op_loc(op);
        let mut st = OperationState::new(rw.uniq(), "func.call", loc)
            .operands(&a.flat_operands())
            .results(&results);
        st.props = rw.props(op).to_vec();
        st.attrs = rw.attrs(op).to_vec();
        rw.replace_op_with_new(op, st);
        true
    }
}
