//! The table-style harness of the inference unit tests: an op's operands and attributes in MLIR
//! syntax in, its inferred result types (or error message) out.

use nart_ir::{AttrData, Context, OperationState, Value};

/// What a case expects: the inferred result types as MLIR prints them (`?` for a result
/// inference knows nothing about), or the error message.
pub(crate) type Expect = Result<&'static [&'static str], &'static str>;

/// One case: the ONNX op name, its operands, its attributes as an MLIR dictionary (`""` for
/// none), and what inference gives.
/// An operand is a type (`tensor<2x3xf32>`, `none`) for a block argument, or a typed dense
/// attribute (`dense<[1, 2]> : tensor<2xi64>`) for a `graph.constant`.
pub(crate) type Case = (&'static str, &'static [&'static str], &'static str, Expect);

/// Infers `graph.<name>` on operands given as in [`Case`]; the op gets `n_results` results.
pub(crate) fn infer_op(
    name: &str,
    operands: &[&str],
    attrs: &str,
    n_results: usize,
) -> Result<Vec<String>, String> {
    let mut ctx = Context::new();
    crate::register(&mut ctx);
    let loc = ctx.unknown_loc();
    let block = ctx.create_block(&[], loc);
    let mut values: Vec<Value> = Vec::new();
    for text in operands {
        if text.starts_with("dense<") {
            let attr = nart_ir::parser::parse_attr_str(&mut ctx, text)
                .unwrap_or_else(|d| panic!("bad constant {text}: {}", d.message));
            let ty = ctx
                .typed_attr_type(attr)
                .expect("a dense attribute is typed");
            let op = crate::ops::materialize_constant(&mut ctx, attr, ty, loc)
                .expect("a dense attribute materializes");
            ctx.append_op(block, op);
            values.push(ctx.result(op, 0));
        } else {
            let ty = nart_ir::parser::parse_type_str(&mut ctx, text)
                .unwrap_or_else(|d| panic!("bad type {text}: {}", d.message));
            values.push(ctx.add_block_arg(block, ty, loc));
        }
    }
    let none = ctx.none_type();
    let mut st = OperationState::new(&mut ctx, &format!("graph.{name}"), loc)
        .operands(&values)
        .results(&vec![none; n_results]);
    if !attrs.is_empty() {
        let dict = nart_ir::parser::parse_attr_str(&mut ctx, attrs)
            .unwrap_or_else(|d| panic!("bad attributes {attrs}: {}", d.message));
        let AttrData::Dictionary(entries) = ctx.attr_data(dict).clone() else {
            panic!("attributes must be a dictionary: {attrs}");
        };
        for e in entries {
            let key = ctx.str(e.name).to_string();
            st = st.prop(&mut ctx, &key, e.value);
        }
    }
    let op = ctx.create_op(st);
    ctx.append_op(block, op);
    let results = super::infer(&ctx, op)?.unwrap_or_else(|| panic!("graph.{name} has a rule"));
    Ok(results
        .iter()
        .map(|s| {
            s.as_ref()
                .map_or("?".into(), |s| super::fmt_shaped(&ctx, s))
        })
        .collect())
}

/// The number of results an op has when the case does not say (one per declared result).
fn default_results(name: &str) -> usize {
    let def = crate::all_ops()
        .iter()
        .find(|d| d.name.strip_prefix("graph.") == Some(name))
        .unwrap_or_else(|| panic!("graph.{name} is an op"));
    def.results.len()
}

/// Runs every case and reports all mismatches at once.
pub(crate) fn check(cases: &[Case]) {
    let mut failures = Vec::new();
    for (k, (name, operands, attrs, want)) in cases.iter().enumerate() {
        let n = match want {
            Ok(r) => r.len(),
            Err(_) => default_results(name),
        };
        let got = infer_op(name, operands, attrs, n);
        let ok = match (&got, want) {
            (Ok(g), Ok(w)) => g == w,
            (Err(g), Err(w)) => g == w,
            _ => false,
        };
        if !ok {
            failures.push(format!(
                "case #{k} graph.{name}({}) {attrs}:\n  want {want:?}\n  got  {got:?}",
                operands.join(", ")
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Infers the first op named `graph.<name>` in MLIR source in the generic form (for ops with
/// regions); unregistered ops such as `"test.func"` may hold the block arguments.
pub(crate) fn infer_in_source(name: &str, src: &str) -> Result<Vec<String>, String> {
    let mut ctx = Context::new();
    crate::register(&mut ctx);
    ctx.allow_unregistered = true;
    let module = nart_ir::parser::parse_source(&mut ctx, "test.mlir", src).unwrap_or_else(|d| {
        panic!(
            "test source does not parse: {}",
            d.iter()
                .map(|d| d.message.clone())
                .collect::<Vec<_>>()
                .join("; ")
        )
    });
    let full = format!("graph.{name}");
    let mut found = None;
    ctx.walk(module, nart_ir::WalkOrder::PreOrder, |ctx, op| {
        if found.is_none() && ctx.op_name_str(op) == full {
            found = Some(op);
        }
    });
    let op = found.unwrap_or_else(|| panic!("no {full} in the source"));
    let results = super::infer(&ctx, op)?.unwrap_or_else(|| panic!("{full} has a rule"));
    Ok(results
        .iter()
        .map(|s| {
            s.as_ref()
                .map_or("?".into(), |s| super::fmt_shaped(&ctx, s))
        })
        .collect())
}
