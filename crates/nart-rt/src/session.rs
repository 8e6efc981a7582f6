//! [`Session`]: a package loaded for running.
//!
//! Loading hands every segment's artifact to its target's runtime once; a run then checks the
//! inputs against the manifest, runs the steps in order with values passed by name, and
//! returns the outputs. A value is moved into the step that reads it last (copied only when a
//! later step or the outputs still need it).

use std::collections::HashMap;

use nart_target_rt::{Artifact, Executable, RuntimeRegistry};
use nart_tensor::qnn::QParams;
use nart_tensor::{DType, Tensor};

use crate::manifest::{Dim, Manifest, Step, TensorSpec};
use crate::{Error, Package};

/// What a step does at run time.
enum Action {
    Segment(Box<dyn Executable>),
    Quantize(QParams),
    Dequantize(QParams, DType),
}

/// A loaded step: its action and its value slots.
struct Loaded {
    what: String,
    action: Action,
    reads: Vec<usize>,
    writes: Vec<usize>,
    /// For each read, whether this step is its last reader (then the value is moved in).
    last_use: Vec<bool>,
}

/// A package ready to run, any number of times, from any number of threads.
pub struct Session {
    manifest: Manifest,
    steps: Vec<Loaded>,
    n_slots: usize,
    outputs: Vec<usize>,
    /// With `NART_PROFILE` set at load: each step's total time (its inputs' copies included)
    /// and run count, printed to standard error when the session is dropped.
    profile: Option<std::sync::Mutex<Vec<(std::time::Duration, u64, std::time::Duration)>>>,
}

impl Drop for Session {
    fn drop(&mut self) {
        if let Some(table) = self.profile_table() {
            eprint!("{table}");
        }
    }
}

impl std::fmt::Debug for Session {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Session")
            .field("model", &self.manifest.model)
            .field("steps", &self.steps.len())
            .finish()
    }
}

impl Session {
    /// Loads every segment of `package` with the runtime of its target from `runtimes`.
    pub fn load(package: &Package, runtimes: &RuntimeRegistry) -> Result<Session, Error> {
        let manifest = package.manifest().clone();
        let mut slots: HashMap<String, usize> = HashMap::new();
        let mut slot = |name: &str| {
            let n = slots.len();
            *slots.entry(name.to_string()).or_insert(n)
        };
        for t in &manifest.inputs {
            slot(&t.name);
        }
        let mut steps = Vec::new();
        for (i, step) in manifest.steps.iter().enumerate() {
            let what = step.describe(i);
            let action = match step {
                Step::Segment(s) => {
                    let artifact = Artifact::new(
                        s.target.clone(),
                        s.format.clone(),
                        s.sdk_version.clone(),
                        package.blob(s.blob).to_vec(),
                    );
                    let exe = runtimes.load(&artifact).map_err(|error| Error::Load {
                        step: what.clone(),
                        error,
                    })?;
                    Action::Segment(exe)
                }
                Step::Quantize(c) => {
                    Action::Quantize(c.quant.to_qparams().map_err(Error::Manifest)?)
                }
                Step::Dequantize(c) => Action::Dequantize(
                    c.quant.to_qparams().map_err(Error::Manifest)?,
                    DType::from_name(&c.float)
                        .ok_or_else(|| Error::Manifest(format!("{what}: unknown float type")))?,
                ),
            };
            steps.push(Loaded {
                what,
                action,
                reads: step.reads().into_iter().map(&mut slot).collect(),
                writes: step.writes().into_iter().map(&mut slot).collect(),
                last_use: Vec::new(),
            });
        }
        let outputs: Vec<usize> = manifest.outputs.iter().map(|t| slot(t.value())).collect();
        // Last uses, scanning backwards; the outputs are read after every step.
        let mut needed: Vec<bool> = vec![false; slots.len()];
        for &o in &outputs {
            needed[o] = true;
        }
        for s in steps.iter_mut().rev() {
            // A value read twice by one step moves only at its last position.
            let mut fixed = vec![false; s.reads.len()];
            let mut done = Vec::new();
            for k in (0..s.reads.len()).rev() {
                let r = s.reads[k];
                fixed[k] = !needed[r] && !done.contains(&r);
                done.push(r);
            }
            s.last_use = fixed;
            for &r in &s.reads {
                needed[r] = true;
            }
        }
        let profile = std::env::var_os("NART_PROFILE")
            .is_some_and(|v| !v.is_empty() && v != "0")
            .then(|| {
                std::sync::Mutex::new(vec![
                    (std::time::Duration::ZERO, 0, std::time::Duration::MAX);
                    steps.len()
                ])
            });
        Ok(Session {
            manifest,
            steps,
            n_slots: slots.len(),
            outputs,
            profile,
        })
    }

    /// With `NART_PROFILE` set when the session was loaded, and after a run: a table of the
    /// steps (segments and casts, each with the copies of its operands) in step order, with
    /// the least and the mean time of a run, the total and its share.
    pub fn profile_table(&self) -> Option<String> {
        let times = self.profile.as_ref()?.lock().ok()?.clone();
        let runs = times.iter().map(|&(_, n, _)| n).max().filter(|&n| n > 0)?;
        let total: f64 = times.iter().map(|(t, _, _)| t.as_secs_f64()).sum();
        let least: f64 = times
            .iter()
            .filter(|r| r.1 > 0)
            .map(|r| r.2.as_secs_f64())
            .sum();
        let mut out = format!(
            "session profile: {} steps, {runs} runs: {:.3} ms a run on average, {:.3} ms adding up the least times\n\
             {:<44} {:>9} {:>9} {:>10} {:>6}\n",
            times.len(),
            total * 1e3 / runs as f64,
            least * 1e3,
            "step",
            "least us",
            "mean us",
            "total ms",
            "share"
        );
        for (s, &(t, n, m)) in self.steps.iter().zip(&times) {
            let t = t.as_secs_f64();
            let m = if n > 0 { m.as_secs_f64() } else { 0.0 };
            out.push_str(&format!(
                "{:<44} {:>9.2} {:>9.2} {:>10.3} {:>5.1}%\n",
                s.what,
                m * 1e6,
                t * 1e6 / n.max(1) as f64,
                t * 1e3,
                if total > 0.0 { 100.0 * t / total } else { 0.0 }
            ));
        }
        Some(out)
    }

    /// The manifest of the loaded package.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The inputs the session takes.
    pub fn inputs(&self) -> &[TensorSpec] {
        &self.manifest.inputs
    }

    /// The outputs a run returns.
    pub fn outputs(&self) -> &[TensorSpec] {
        &self.manifest.outputs
    }

    /// Checks `inputs` against the manifest: count, dtype, rank, static dimensions, and one
    /// size per symbolic dimension across all inputs.
    pub fn check_inputs(&self, inputs: &[Tensor]) -> Result<(), Error> {
        check_inputs(&self.manifest.inputs, inputs).map_err(Error::Inputs)
    }

    /// Runs the package on inputs given by name, in any order; returns the outputs with
    /// their names. An unknown, repeated or missing name is an error naming it.
    pub fn run_named(&self, inputs: Vec<(String, Tensor)>) -> Result<Vec<(String, Tensor)>, Error> {
        let specs = &self.manifest.inputs;
        let known = || {
            let names: Vec<String> = specs.iter().map(|t| format!("'{}'", t.name)).collect();
            names.join(", ")
        };
        let mut slots: Vec<Option<Tensor>> = vec![None; specs.len()];
        for (name, t) in inputs {
            let k = specs.iter().position(|s| s.name == name).ok_or_else(|| {
                Error::Inputs(format!(
                    "no input is named '{name}' (the inputs: {})",
                    known()
                ))
            })?;
            if slots[k].replace(t).is_some() {
                return Err(Error::Inputs(format!("input '{name}' is given twice")));
            }
        }
        let xs = slots
            .into_iter()
            .zip(specs)
            .map(|(t, s)| t.ok_or_else(|| Error::Inputs(format!("input '{}' is missing", s.name))))
            .collect::<Result<Vec<_>, _>>()?;
        let ys = self.run(xs)?;
        Ok(self
            .manifest
            .outputs
            .iter()
            .map(|s| s.name.clone())
            .zip(ys)
            .collect())
    }

    /// Runs the package on `inputs` (in the manifest's order) and returns its outputs.
    pub fn run(&self, inputs: Vec<Tensor>) -> Result<Vec<Tensor>, Error> {
        self.check_inputs(&inputs)?;
        let mut env: Vec<Option<Tensor>> = vec![None; self.n_slots];
        for (k, t) in inputs.into_iter().enumerate() {
            env[k] = Some(t);
        }
        for (i, s) in self.steps.iter().enumerate() {
            let started = self.profile.is_some().then(std::time::Instant::now);
            let mut args = Vec::with_capacity(s.reads.len());
            for (&r, &last) in s.reads.iter().zip(&s.last_use) {
                let v = if last { env[r].take() } else { env[r].clone() };
                args.push(v.ok_or_else(|| Error::Run {
                    step: s.what.clone(),
                    message: "an operand has no value (a broken session invariant)".into(),
                })?);
            }
            let fail = |message: String| Error::Run {
                step: s.what.clone(),
                message,
            };
            let results = match &s.action {
                Action::Segment(exe) => exe.run_owned(args).map_err(|e| fail(e.to_string()))?,
                Action::Quantize(q) => {
                    vec![nart_tensor::qnn::quantize(&args[0], q).map_err(|e| fail(e.to_string()))?]
                }
                Action::Dequantize(q, to) => vec![nart_tensor::qnn::dequantize(&args[0], q, *to)
                    .map_err(|e| fail(e.to_string()))?],
            };
            if results.len() != s.writes.len() {
                return Err(fail(format!(
                    "it returned {} values, the manifest says {}",
                    results.len(),
                    s.writes.len()
                )));
            }
            for (&w, t) in s.writes.iter().zip(results) {
                env[w] = Some(t);
            }
            if let (Some(t0), Some(p)) = (started, &self.profile) {
                if let Ok(mut p) = p.lock() {
                    let t = t0.elapsed();
                    p[i].0 += t;
                    p[i].1 += 1;
                    p[i].2 = p[i].2.min(t);
                }
            }
        }
        let mut outs = Vec::with_capacity(self.outputs.len());
        for (k, &o) in self.outputs.iter().enumerate() {
            let later = self.outputs[k + 1..].contains(&o);
            let v = if later { env[o].clone() } else { env[o].take() };
            outs.push(v.ok_or_else(|| Error::Run {
                step: "collecting the outputs".into(),
                message: format!("output '{}' has no value", self.manifest.outputs[k].name),
            })?);
        }
        Ok(outs)
    }
}

/// The shape of `t` as text: `[1, 8, 8]`.
fn shape_text(shape: &[usize]) -> String {
    let d: Vec<String> = shape.iter().map(usize::to_string).collect();
    format!("[{}]", d.join(", "))
}

/// See [`Session::check_inputs`]; the message names the input, the expected and the given.
pub fn check_inputs(specs: &[TensorSpec], inputs: &[Tensor]) -> Result<(), String> {
    if inputs.len() != specs.len() {
        let names: Vec<String> = specs.iter().map(|s| format!("'{}'", s.name)).collect();
        return Err(format!(
            "expected {} inputs ({}), given {}",
            specs.len(),
            names.join(", "),
            inputs.len()
        ));
    }
    let mut bound: HashMap<&str, (usize, &str)> = HashMap::new();
    for (k, (spec, t)) in specs.iter().zip(inputs).enumerate() {
        let name = &spec.name;
        if spec.dtype() != Some(t.dtype()) {
            return Err(format!(
                "input #{k} '{name}': expected dtype {}, given {}",
                spec.dtype,
                t.dtype().name()
            ));
        }
        let Some(dims) = &spec.shape else { continue };
        if dims.len() != t.rank() {
            return Err(format!(
                "input #{k} '{name}': expected rank {} {}, given rank {} {}",
                dims.len(),
                spec.shape_string(),
                t.rank(),
                shape_text(t.shape())
            ));
        }
        for (d, (want, &got)) in dims.iter().zip(t.shape()).enumerate() {
            match want {
                Dim::Static(n) if *n != got as u64 => {
                    return Err(format!(
                        "input #{k} '{name}': dimension {d} must be {n} (shape {}), given {got} (shape {})",
                        spec.shape_string(),
                        shape_text(t.shape())
                    ));
                }
                Dim::Symbol(s) if s != "?" => match bound.get(s.as_str()) {
                    Some(&(n, by)) if n != got => {
                        return Err(format!(
                            "input #{k} '{name}': dimension {d} is '{s}', which input '{by}' set to {n}, given {got} (shape {})",
                            shape_text(t.shape())
                        ));
                    }
                    Some(_) => {}
                    None => {
                        bound.insert(s, (got, name));
                    }
                },
                _ => {}
            }
        }
    }
    Ok(())
}
