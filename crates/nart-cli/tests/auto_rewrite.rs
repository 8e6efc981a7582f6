//! `--targets auto` plans each candidate after its targets' rewrites, as compiling for it
//! does: the onednn candidate of a transformer with decomposed GELUs and layer
//! normalizations counts the recognized ops on onednn (no `Erf` left for interp), the same
//! placement the partitioner makes for `--targets onednn,interp`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nart_cli::auto::{decide, Goal};
use nart_ir::Context;
use nart_target::{Setup, Target};

fn model(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/models")
        .join(name)
        .join("model.onnx")
}

fn main_func(ctx: &mut Context, path: &Path) -> nart_ir::Op {
    let module = nart_onnx::import_file(ctx, path).unwrap();
    let body = ctx.region_blocks(ctx.region(module, 0))[0];
    ctx.block_ops(body)[0]
}

#[test]
fn auto_estimates_the_placement_after_the_targets_rewrites() {
    if let Err(e) = nart_target_onednn::OnednnTarget::new().availability() {
        if std::env::var("NART_REQUIRE_ONEDNN").as_deref() == Ok("1") {
            panic!("NART_REQUIRE_ONEDNN=1 but oneDNN is unavailable: {e}");
        }
        eprintln!("skipped: oneDNN is unavailable: {e}");
        return;
    }
    let path = model("decomposed_transformer");
    let registry = nart_cli::partition::registry();
    let mut ctx = Context::new();
    let func = main_func(&mut ctx, &path);
    let d = decide(&mut ctx, func, &registry, Goal::Latency, false).unwrap();
    let c = d
        .candidates
        .iter()
        .find(|c| c.targets == ["onednn", "interp"])
        .unwrap_or_else(|| panic!("no onednn,interp candidate:\n{}", d.report));
    // What compiling for onednn,interp places where.
    let mut ctx = Context::new();
    let func = main_func(&mut ctx, &path);
    let setup = Setup::resolve(&registry, &["onednn".to_string()], &[]).unwrap();
    let parts = nart_target::partition_function(&mut ctx, func, &setup).unwrap();
    let mut placed: BTreeMap<String, usize> = BTreeMap::new();
    for p in &parts.plan.ops {
        *placed.entry(p.target.clone()).or_default() += 1;
    }
    assert_eq!(c.ops, placed, "{}", d.report);
    assert!(
        !parts.plan.ops.iter().any(|p| p.op_type.contains("Erf")),
        "the rewrite left an Erf"
    );
    // The interp-only candidate is estimated on the function as imported (no rewrite of its
    // own), so it has more ops than the onednn one.
    let interp = &d.candidates[0];
    assert_eq!(interp.targets, ["interp"]);
    let total = |m: &BTreeMap<String, usize>| m.values().sum::<usize>();
    assert!(
        total(&interp.ops) > total(&c.ops),
        "interp {:?} against onednn {:?}",
        interp.ops,
        c.ops
    );
}
