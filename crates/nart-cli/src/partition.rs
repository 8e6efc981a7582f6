//! `nart targets` (the registered targets) and `nart partition` (where each op of a model runs).
//!
//! `nart partition M.onnx --targets a,b [--place PATTERN=TARGET ...] [--emit-ir]` imports the
//! model, places every op of its main function on a target with the partitioner of
//! `nart-target`, and prints the placement table (op name, op type, target, and why it is not
//! on the first target of the list), the segments, and every op each target refuses, with the
//! reason. `--emit-ir` prints the partitioned module too. Bad input (an unknown target, a
//! malformed `--place`, an override that matches no op or names a target that refuses the op,
//! an op no target runs, a missing or malformed model) is an error naming what is wrong, with
//! the op's location where there is one.

use std::fmt::Write as _;
use std::io::Write;
use std::path::Path;

use anyhow::{anyhow, bail, Result};
use nart_interp::convert::loc_to_string;
use nart_ir::printer::{print_op_to, PrintOptions};
use nart_ir::{Context, Diagnostic, Op};
use nart_target::partition::{partition_function, Partitioned, Reason};
use nart_target::{Override, Setup, TargetRegistry};

/// The targets the `nart` binary knows: `interp`, `onednn`, `openvino` and `cpu` for this
/// machine (registered whether or not what they need is there; `nart targets` says when one
/// cannot run).
pub fn registry() -> TargetRegistry {
    registry_with_cpu(nart_target_cpu::CpuTarget::host())
}

/// [`registry`] with `cpu` configured by the caller (another machine, emitted files).
pub fn registry_with_cpu(cpu: nart_target_cpu::CpuTarget) -> TargetRegistry {
    let mut r = TargetRegistry::builtin();
    nart_target_onednn::register(&mut r);
    nart_target_openvino::register(&mut r);
    r.register(Box::new(cpu));
    r
}

/// `nart targets`: a table of the registered targets (name, level, description, scheme), then
/// a line for each target that is unavailable here, with the reason.
pub fn targets_table(registry: &TargetRegistry) -> String {
    let rows: Vec<[String; 4]> = registry
        .targets()
        .map(|t| {
            [
                t.name().to_string(),
                t.level().to_string(),
                t.description().to_string(),
                t.quant_scheme().unwrap_or("-").to_string(),
            ]
        })
        .collect();
    let mut out = table(&["name", "level", "description", "scheme"], &rows);
    for t in registry.targets() {
        if let Err(reason) = t.availability() {
            let _ = writeln!(out, "{} is unavailable: {reason}", t.name());
        }
    }
    out
}

/// Lays `rows` out in columns under `header`, the last column unpadded.
pub(crate) fn table<R: AsRef<[String]>>(header: &[&str], rows: &[R]) -> String {
    let n = header.len();
    let mut width: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for r in rows {
        for (w, c) in width.iter_mut().zip(r.as_ref()) {
            *w = (*w).max(c.chars().count());
        }
    }
    let mut out = String::new();
    let line = |out: &mut String, cells: &[&str]| {
        let mut text = String::new();
        for (i, c) in cells.iter().enumerate() {
            if i + 1 == n {
                text.push_str(c);
            } else {
                let _ = write!(text, "{c:<w$}  ", w = width[i]);
            }
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&mut out, header);
    for r in rows {
        let cells: Vec<&str> = r.as_ref().iter().map(String::as_str).collect();
        line(&mut out, &cells);
    }
    out
}

/// Renders diagnostics as `location: error: message`, with their notes.
fn render(ctx: &Context, diags: &[Diagnostic]) -> String {
    let mut out = String::new();
    for d in diags {
        let _ = write!(out, "\n{}: error: {}", loc_to_string(ctx, d.loc), d.message);
        for n in &d.notes {
            let _ = write!(out, "\n{}: note: {}", loc_to_string(ctx, n.loc), n.message);
        }
    }
    out
}

/// What `nart partition` was asked.
#[derive(Clone, Debug, Default)]
pub struct PartitionRequest {
    /// The targets in preference order.
    pub targets: Vec<String>,
    /// The `--place` overrides, as given.
    pub place: Vec<String>,
    /// Whether to print the partitioned IR.
    pub emit_ir: bool,
}

/// The function to partition or compile: `main_graph` if there is one, else the module's first
/// function.
pub(crate) fn main_function(ctx: &Context, module: Op) -> Option<Op> {
    let funcs: Vec<Op> = ctx
        .regions(module)
        .iter()
        .flat_map(|&r| ctx.region_blocks(r).iter())
        .flat_map(|&b| ctx.block_ops(b))
        .filter(|&op| ctx.op_name_str(op) == "func.func")
        .collect();
    funcs
        .iter()
        .copied()
        .find(|&f| nart_ir::symbol::symbol_name(ctx, f) == Some("main_graph"))
        .or(funcs.first().copied())
}

/// `nart partition`: partitions `model` with the targets of `registry` and writes the report
/// (and, when asked, the IR) to `out`.
pub fn partition(
    model: &Path,
    request: &PartitionRequest,
    registry: &TargetRegistry,
    out: &mut dyn Write,
) -> Result<()> {
    partition_for(model, request, crate::auto::Goal::default(), registry, out)
}

/// [`partition`], with the goal `--targets auto` optimizes.
pub fn partition_for(
    model: &Path,
    request: &PartitionRequest,
    goal: crate::auto::Goal,
    registry: &TargetRegistry,
    out: &mut dyn Write,
) -> Result<()> {
    // The command line first, so that a typo is found before a long import.
    let overrides = request
        .place
        .iter()
        .map(|p| Override::parse(p).map_err(|m| anyhow!("--place: {m}")))
        .collect::<Result<Vec<_>>>()?;
    let auto = crate::auto::is_auto(&request.targets)?;
    if !auto {
        Setup::resolve(registry, &request.targets, &overrides)?;
    }
    let mut ctx = Context::new();
    let module = nart_onnx::import_file(&mut ctx, model)
        .map_err(|d| anyhow!("cannot import '{}':{}", model.display(), render(&ctx, &d)))?;
    let func = main_function(&ctx, module)
        .ok_or_else(|| anyhow!("'{}' has no function to partition", model.display()))?;
    let mut decision = String::new();
    let targets = if auto {
        // Decide on a scratch copy: the decision specializes dynamic dims.
        let mut scratch = Context::new();
        let m = nart_onnx::import_file(&mut scratch, model).map_err(|d| {
            anyhow!(
                "cannot import '{}':{}",
                model.display(),
                render(&scratch, &d)
            )
        })?;
        let f = main_function(&scratch, m)
            .ok_or_else(|| anyhow!("'{}' has no function to partition", model.display()))?;
        let d = crate::auto::decide(&mut scratch, f, registry, goal, false)?;
        decision = d.report + "\n";
        d.targets
    } else {
        request.targets.clone()
    };
    let setup = Setup::resolve(registry, &targets, &overrides)?;
    let result = partition_function(&mut ctx, func, &setup).map_err(|d| {
        anyhow!(
            "cannot partition '{}':{}",
            model.display(),
            render(&ctx, &d)
        )
    })?;
    let unmatched: Vec<String> = overrides
        .iter()
        .zip(&result.plan.override_hits)
        .filter(|(_, &n)| n == 0)
        .map(|(o, _)| format!("'{o}'"))
        .collect();
    if !unmatched.is_empty() {
        bail!(
            "--place {} matches no op of '{}'",
            unmatched.join(", "),
            model.display()
        );
    }
    out.write_all(decision.as_bytes())?;
    out.write_all(report(&ctx, &result, &setup).as_bytes())?;
    if request.emit_ir {
        out.write_all(b"\n")?;
        print_op_to(&ctx, module, &PrintOptions::default(), &mut *out)?;
        out.write_all(b"\n")?;
    }
    out.flush()?;
    Ok(())
}

/// The placement table, the segments and the refusals of each target.
pub fn report(ctx: &Context, result: &Partitioned, setup: &Setup<'_>) -> String {
    let plan = &result.plan;
    let rows: Vec<[String; 4]> = plan
        .ops
        .iter()
        .map(|p| {
            [
                p.name.clone().unwrap_or_else(|| "-".into()),
                p.op_type.clone(),
                p.target.clone(),
                match &p.reason {
                    Reason::Preferred => String::new(),
                    r => r.to_string(),
                },
            ]
        })
        .collect();
    let mut out = table(&["op", "type", "target", "reason"], &rows);
    let plural = |n: usize, w: &str| format!("{n} {w}{}", if n == 1 { "" } else { "s" });
    let _ = writeln!(
        out,
        "\n{} in {} ({} at boundaries):",
        plural(plan.ops.len(), "op"),
        plural(plan.segments.len(), "segment"),
        plural(result.casts, "cast")
    );
    for (i, (s, &op)) in plan.segments.iter().zip(&result.segment_ops).enumerate() {
        let names: Vec<String> = s
            .ops
            .iter()
            .map(|&o| {
                plan.ops
                    .iter()
                    .find(|p| p.op == o)
                    .and_then(|p| p.name.clone())
                    .unwrap_or_else(|| "-".into())
            })
            .collect();
        let listed = if names.len() <= 6 {
            names.join(", ")
        } else {
            format!(
                "{}, {}, {}, ..., {}",
                names[0],
                names[1],
                names[2],
                names[names.len() - 1]
            )
        };
        let _ = writeln!(
            out,
            "  #{i} {}: {} ({listed}); {}, {}",
            s.target,
            plural(s.ops.len(), "op"),
            plural(ctx.operands(op).len(), "input"),
            plural(ctx.results(op).len(), "output"),
        );
    }
    let _ = writeln!(out, "\nunsupported ops by target:");
    for r in plan
        .refusals
        .iter()
        .filter(|r| setup.preferred.iter().any(|t| t.name() == r.target))
    {
        if r.ops.is_empty() {
            let _ = writeln!(out, "  {}: none", r.target);
            continue;
        }
        let _ = writeln!(
            out,
            "  {}: {} of {} ops",
            r.target,
            r.ops.len(),
            plan.ops.len()
        );
        for o in &r.ops {
            let _ = writeln!(
                out,
                "    {} ({}): {}",
                o.name.as_deref().unwrap_or("-"),
                o.op_type,
                o.refusal
            );
        }
    }
    out
}
