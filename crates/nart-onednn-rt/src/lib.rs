//! The runtime half of nart's `onednn` target: runs the op lists the compiler half
//! (`nart-target-onednn`) produces, on the system's oneDNN.
//!
//! oneDNN is not linked: [`ffi`] loads `libdnnl.so.2` on first use, so nart builds and runs
//! without it, and [`availability`] says why the target cannot run when it is missing. An
//! artifact is a [`program::Program`] (format [`FORMAT`]); [`OnednnRuntime::load`] decodes it
//! and creates the engine, the stream, the memory objects and every primitive once, and
//! [`Executable::run`] only copies the inputs in, executes the primitives and copies the
//! results out. This crate depends on `nart-tensor` and `nart-target-rt` only.

#![deny(missing_docs)]

use std::sync::Mutex;

use nart_target_rt::{Artifact, Executable, RtError, TargetRuntime};
use nart_tensor::Tensor;

mod exec;
pub mod ffi;
pub mod int8;
pub mod program;

/// The target's name.
pub const NAME: &str = "onednn";
/// The format of its artifacts.
pub const FORMAT: &str = "onednn-ops";
/// The prefix of the SDK version its artifacts carry (`oneDNN 2.6.3`).
pub const SDK_PREFIX: &str = "oneDNN ";

/// The version of the loaded oneDNN (`oneDNN 2.6.3`), or why it cannot be loaded.
pub fn availability() -> Result<String, String> {
    ffi::api().map(|a| format!("{SDK_PREFIX}{}", a.version_string()))
}

/// Loads `onednn` artifacts.
#[derive(Clone, Copy, Debug, Default)]
pub struct OnednnRuntime;

/// How many sizes of the dynamic dim an executable keeps primitives for.
const KEEP_SIZES: usize = 8;

/// A loaded artifact: its primitives, behind a lock (a run uses the buffers the primitives
/// were created on). A program with a dynamic dim (the batch) has primitives for each size
/// it has run at, created on the first run at that size (size 1 at load).
pub struct OnednnExecutable {
    api: &'static ffi::Api,
    program: program::Program,
    loaded: Mutex<Vec<(i64, exec::Loaded)>>,
}

impl std::fmt::Debug for OnednnExecutable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("OnednnExecutable")
    }
}

impl TargetRuntime for OnednnRuntime {
    fn target(&self) -> &str {
        NAME
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        Ok(Box::new(load(artifact)?))
    }
}

/// [`OnednnRuntime::load`], typed.
pub fn load(artifact: &Artifact) -> Result<OnednnExecutable, RtError> {
    artifact.expect_format(FORMAT)?;
    if !artifact.sdk_version.starts_with("oneDNN 2.") {
        return Err(RtError::Version {
            target: NAME.into(),
            got: artifact.sdk_version.clone(),
            supported: "oneDNN 2.x".into(),
        });
    }
    let program = program::Program::decode(&artifact.bytes)
        .map_err(|e| RtError::corrupt(NAME, e.to_string()))?;
    let api =
        ffi::api().map_err(|e| RtError::run(format!("the onednn target is unavailable: {e}")))?;
    let first = exec::Loaded::new(api, &program.specialize(1))?;
    Ok(OnednnExecutable {
        api,
        program,
        loaded: Mutex::new(vec![(1, first)]),
    })
}

impl OnednnExecutable {
    /// The size of the dynamic dim in `inputs` (1 when there is none).
    fn size_of(&self, inputs: &[Tensor]) -> Result<i64, RtError> {
        let mut n = None;
        for (i, (&v, t)) in self.program.inputs.iter().zip(inputs).enumerate() {
            let dims = &self.program.values[v as usize].dims;
            if dims.len() != t.rank() {
                return Err(RtError::inputs(format!(
                    "input #{i}: expected rank {}, got shape {:?}",
                    dims.len(),
                    t.shape()
                )));
            }
            for (&d, &s) in dims.iter().zip(t.shape()) {
                if d == program::DYN {
                    let s = s as i64;
                    match n {
                        None => n = Some(s),
                        Some(m) if m != s => {
                            return Err(RtError::inputs(format!(
                                "input #{i}: dynamic dims of {m} and {s}; an onednn segment \
                                 runs one size of its dynamic dim at a time"
                            )))
                        }
                        _ => {}
                    }
                }
            }
        }
        Ok(n.unwrap_or(1))
    }
}

impl Executable for OnednnExecutable {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        if inputs.len() != self.program.inputs.len() {
            return Err(RtError::inputs(format!(
                "expected {} inputs, got {}",
                self.program.inputs.len(),
                inputs.len()
            )));
        }
        let n = self.size_of(inputs)?;
        let mut cache = self
            .loaded
            .lock()
            .map_err(|_| RtError::run("onednn: an earlier run panicked"))?;
        let at = match cache.iter().position(|(m, _)| *m == n) {
            Some(i) => i,
            None => {
                if n < 1 {
                    return Err(RtError::inputs(format!("a dynamic dim of size {n}")));
                }
                let l = exec::Loaded::new(self.api, &self.program.specialize(n))?;
                if cache.len() >= KEEP_SIZES {
                    cache.remove(0);
                }
                cache.push((n, l));
                cache.len() - 1
            }
        };
        cache[at].1.run(inputs)
    }
}
