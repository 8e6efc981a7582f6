//! Measures `egraph-optimize` on a model: cost and op count before and after, e-graph size,
//! saturation and extraction time, and whether the optimized function computes what the
//! original computes in the interpreter (and what the model's stored reference output says).
//!
//! Usage: `egraph_bench MODEL_DIR [target=NAME]`, where MODEL_DIR holds `model.onnx` and
//! `test_data_set_0/{input_0,output_0}.pb`. Prints one line of `key=value` fields.

use std::path::Path;
use std::process::ExitCode;
use std::time::Instant;

use nart_egraph::{optimize_function, FlopsBytes, GraphCost, Limits, TargetCost};
use nart_interp::Interpreter;
use nart_ir::{Context, Op};
use nart_tensor::Tensor;

fn load(model: &Path) -> Result<(Context, Op), String> {
    let mut ctx = Context::new();
    let module = nart_onnx::import_file(&mut ctx, model)
        .map_err(|d| format!("{}: import failed: {d:?}", model.display()))?;
    nart_interp::register(&mut ctx);
    let r = ctx.regions(module)[0];
    let b = ctx.region_blocks(r)[0];
    let func = ctx.block_first_op(b).ok_or("no function")?;
    Ok((ctx, func))
}

fn run(ctx: &Context, func: Op, x: &Tensor) -> Result<Vec<Tensor>, String> {
    let interp = Interpreter::new(ctx, func).map_err(|e| e.to_string())?;
    interp.run(vec![x.clone()]).map_err(|e| e.to_string())
}

fn max_diff(a: &Tensor, b: &Tensor) -> Result<f64, String> {
    if a.shape() != b.shape() {
        return Err(format!("shapes differ: {:?} vs {:?}", a.shape(), b.shape()));
    }
    let (u, v) = (
        a.to_f64_vec().map_err(|e| e.to_string())?,
        b.to_f64_vec().map_err(|e| e.to_string())?,
    );
    Ok(u.iter()
        .zip(&v)
        .map(|(p, q)| (p - q).abs())
        .fold(0.0, f64::max))
}

fn main() -> ExitCode {
    match real_main() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("egraph_bench: {e}");
            ExitCode::FAILURE
        }
    }
}

fn real_main() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let dir = args
        .next()
        .ok_or("usage: egraph_bench MODEL_DIR [target=NAME]")?;
    let target = args
        .next()
        .and_then(|a| a.strip_prefix("target=").map(str::to_string));
    let dir = Path::new(&dir);
    let data = dir.join("test_data_set_0");
    let x = nart_quant::dataset::read_tensor(&data.join("input_0.pb"))?;
    let reference = nart_quant::dataset::read_tensor(&data.join("output_0.pb"))?;

    let (ctx0, f0) = load(&dir.join("model.onnx"))?;
    let before = run(&ctx0, f0, &x)?;

    let (mut ctx, func) = load(&dir.join("model.onnx"))?;
    let registry = nart_target::TargetRegistry::builtin();
    let target_model;
    let model: &dyn GraphCost = match &target {
        None => &FlopsBytes,
        Some(name) => {
            let t = registry.get(name).map_err(|e| e.to_string())?;
            t.prepare(&mut ctx);
            target_model = TargetCost(t);
            &target_model
        }
    };
    let start = Instant::now();
    let out = optimize_function(&mut ctx, func, model, Limits::default()).ok_or("not one block")?;
    let total = start.elapsed();
    nart_ir::verify::verify(&ctx, func).map_err(|d| format!("verifier: {d:?}"))?;
    let after = run(&ctx, func, &x)?;
    let d_orig = max_diff(&before[0], &after[0])?;
    let d_ref = max_diff(&reference, &after[0])?;
    println!(
        "model={} cost_model={} changed={} cost_before={:.0} cost_after={:.0} ops_before={} ops_after={} enodes={} eclasses={} iterations={} saturation_ms={:.1} extraction_ms={:.1} pass_ms={:.1} max_diff_vs_original={:.3e} max_diff_vs_reference={:.3e} fired={}",
        dir.file_name().and_then(|n| n.to_str()).unwrap_or("?"),
        model.unit(),
        out.changed,
        out.cost_before,
        out.cost_after,
        out.ops_before,
        out.ops_after,
        out.enodes,
        out.eclasses,
        out.iterations,
        out.saturation.as_secs_f64() * 1e3,
        out.extraction.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e3,
        d_orig,
        d_ref,
        out.fired
            .iter()
            .map(|(n, c)| format!("{n}:{c}"))
            .collect::<Vec<_>>()
            .join(",")
    );
    if d_orig
        > 1e-3
            * (1.0
                + before[0]
                    .to_f64_vec()
                    .unwrap_or_default()
                    .iter()
                    .fold(0.0f64, |m, v| m.max(v.abs())))
    {
        return Err(format!(
            "the optimized model differs from the original by {d_orig}"
        ));
    }
    if out.cost_after > out.cost_before {
        return Err("the result costs more than the input".into());
    }
    Ok(())
}
