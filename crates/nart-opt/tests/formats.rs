//! Every registered op's declared assembly format compiles against its declaration, including
//! the ops not declared with `#[op]` (whose formats the macro could not check at build time).

#[test]
fn every_declared_format_compiles() {
    let mut ctx = nart_ir::Context::new();
    nart_dialect_func::register(&mut ctx);
    nart_dialect_cf::register(&mut ctx);
    nart_dialect_arith::register(&mut ctx);
    nart_dialect_graph::register(&mut ctx);
    nart_dialect_quant::register(&mut ctx);
    nart_dialect_qnn::register(&mut ctx);
    let mut checked = 0;
    let mut bad = Vec::new();
    for d in ctx.registry.dialects() {
        for &op in d.ops {
            if op.assembly_format.is_none() {
                continue;
            }
            checked += 1;
            if let Err(e) = nart_ir::asm::check_format(op) {
                bad.push(format!("{}: {e}", op.name));
            }
        }
    }
    assert!(bad.is_empty(), "bad formats:\n{}", bad.join("\n"));
    assert!(checked > 50, "only {checked} formats found");
}
