//! The runtime half of a nart target: what a compiled segment is ([`Artifact`]), what runs it
//! ([`Executable`]), and what turns one into the other ([`TargetRuntime`], found by target name
//! in a [`RuntimeRegistry`]).
//!
//! This crate knows tensors ([`nart_tensor::Tensor`]) and nothing of the compiler: no IR, no
//! dialects, no passes. The compiler side of a target (`nart-target`'s `Target` trait) produces
//! artifacts and names the runtime that loads them; a deployment runtime (the planned `nart-rt`)
//! needs only this crate and the runtimes of the targets it ships.
//!
//! ```
//! use nart_target_rt::{Artifact, Executable, RtError, RuntimeRegistry, TargetRuntime};
//! use nart_tensor::Tensor;
//!
//! /// Runs "programs" that add a constant to their one input.
//! struct AddConst;
//! struct AddConstExe(f32);
//!
//! impl Executable for AddConstExe {
//!     fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
//!         let [x] = inputs else {
//!             return Err(RtError::inputs(format!("expected 1 input, got {}", inputs.len())));
//!         };
//!         let v = x.to_f32_vec().map_err(|e| RtError::run(e.to_string()))?;
//!         let y = v.iter().map(|a| a + self.0).collect();
//!         Ok(vec![Tensor::from_vec(x.shape().to_vec(), y).map_err(|e| RtError::run(e.to_string()))?])
//!     }
//! }
//!
//! impl TargetRuntime for AddConst {
//!     fn target(&self) -> &str {
//!         "add-const"
//!     }
//!     fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
//!         artifact.expect_format("f32-le")?;
//!         let bytes: [u8; 4] = artifact.bytes.as_slice().try_into().map_err(|_| {
//!             RtError::corrupt(&artifact.target, "expected 4 bytes")
//!         })?;
//!         Ok(Box::new(AddConstExe(f32::from_le_bytes(bytes))))
//!     }
//! }
//!
//! let mut runtimes = RuntimeRegistry::new();
//! runtimes.register(Box::new(AddConst));
//! let artifact = Artifact::new("add-const", "f32-le", "1", 2.5f32.to_le_bytes().to_vec());
//! let exe = runtimes.load(&artifact).unwrap();
//! let out = exe.run(&[Tensor::vector(vec![1.0f32, 2.0])]).unwrap();
//! assert_eq!(out[0].as_f32().unwrap(), &[3.5, 4.5]);
//! assert!(runtimes.load(&Artifact::new("npu", "blob", "1", vec![])).is_err());
//! ```

#![deny(missing_docs)]

pub mod wire;

use nart_tensor::Tensor;

/// A compiled segment: the bytes a target's compiler produced, what they are (`format`), and
/// the version of the SDK (or of nart, for nart's own targets) that produced them, so that a
/// runtime can refuse an artifact it cannot read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Artifact {
    /// The name of the target that compiled it, which names the runtime that loads it.
    pub target: String,
    /// What the bytes are, in the target's own words (`mlir-text`, `openvino-blob`).
    pub format: String,
    /// The version of the SDK (or compiler) that produced the bytes.
    pub sdk_version: String,
    /// The compiled segment.
    pub bytes: Vec<u8>,
}

impl Artifact {
    /// An artifact of `target` in `format`, produced by SDK `sdk_version`.
    pub fn new(
        target: impl Into<String>,
        format: impl Into<String>,
        sdk_version: impl Into<String>,
        bytes: Vec<u8>,
    ) -> Artifact {
        Artifact {
            target: target.into(),
            format: format.into(),
            sdk_version: sdk_version.into(),
            bytes,
        }
    }

    /// Fails with [`RtError::Format`] unless the artifact is in `format`.
    pub fn expect_format(&self, format: &str) -> Result<(), RtError> {
        if self.format == format {
            Ok(())
        } else {
            Err(RtError::Format {
                target: self.target.clone(),
                expected: format.to_string(),
                got: self.format.clone(),
            })
        }
    }
}

/// What went wrong while loading or running an artifact.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum RtError {
    /// No runtime is registered for the artifact's target.
    #[error("no runtime for target '{target}' (known: {known})")]
    UnknownTarget {
        /// The artifact's target.
        target: String,
        /// The registered runtimes' targets, comma-separated.
        known: String,
    },
    /// The artifact is in a format the runtime does not read.
    #[error("target '{target}' reads artifacts in format '{expected}', not '{got}'")]
    Format {
        /// The target.
        target: String,
        /// The format the runtime reads.
        expected: String,
        /// The artifact's format.
        got: String,
    },
    /// The artifact was produced by an SDK version the runtime cannot load.
    #[error(
        "target '{target}' cannot load an artifact of SDK version '{got}' (it loads {supported})"
    )]
    Version {
        /// The target.
        target: String,
        /// The artifact's SDK version.
        got: String,
        /// The versions the runtime loads.
        supported: String,
    },
    /// The bytes are not a valid artifact.
    #[error("corrupt artifact for target '{target}': {message}")]
    Corrupt {
        /// The target.
        target: String,
        /// What is wrong.
        message: String,
    },
    /// The inputs do not match what the executable takes.
    #[error("bad inputs: {0}")]
    Inputs(String),
    /// Running failed.
    #[error("run failed: {0}")]
    Run(String),
}

impl RtError {
    /// A [`RtError::Corrupt`] for `target`.
    pub fn corrupt(target: &str, message: impl Into<String>) -> RtError {
        RtError::Corrupt {
            target: target.to_string(),
            message: message.into(),
        }
    }

    /// A [`RtError::Inputs`].
    pub fn inputs(message: impl Into<String>) -> RtError {
        RtError::Inputs(message.into())
    }

    /// A [`RtError::Run`].
    pub fn run(message: impl Into<String>) -> RtError {
        RtError::Run(message.into())
    }
}

/// A loaded artifact, ready to run any number of times (from several threads).
pub trait Executable: Send + Sync {
    /// Runs it on `inputs` (in the segment's operand order) and returns its results.
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError>;

    /// [`Executable::run`] on inputs the caller gives away, so that an executable that
    /// consumes its inputs (the interpreter does) takes them without a copy.
    fn run_owned(&self, inputs: Vec<Tensor>) -> Result<Vec<Tensor>, RtError> {
        self.run(&inputs)
    }
}

/// The runtime side of one target: loads its artifacts.
pub trait TargetRuntime: Send + Sync {
    /// The target whose artifacts it loads.
    fn target(&self) -> &str;
    /// Loads `artifact` (checking its format and version) into an executable; all the work
    /// that does not depend on the inputs (parsing, planning, creating kernels) happens here.
    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError>;
}

/// Runtimes by target name: what a deployment runtime holds.
#[derive(Default)]
pub struct RuntimeRegistry {
    runtimes: Vec<Box<dyn TargetRuntime>>,
}

impl std::fmt::Debug for RuntimeRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list()
            .entries(self.runtimes.iter().map(|r| r.target()))
            .finish()
    }
}

impl RuntimeRegistry {
    /// An empty registry.
    pub fn new() -> RuntimeRegistry {
        RuntimeRegistry::default()
    }

    /// Registers `runtime`; a later runtime for the same target replaces an earlier one.
    pub fn register(&mut self, runtime: Box<dyn TargetRuntime>) {
        self.runtimes.retain(|r| r.target() != runtime.target());
        self.runtimes.push(runtime);
    }

    /// The runtime for `target`.
    pub fn lookup(&self, target: &str) -> Option<&dyn TargetRuntime> {
        self.runtimes
            .iter()
            .find(|r| r.target() == target)
            .map(|r| r.as_ref())
    }

    /// The targets with a runtime, in registration order.
    pub fn targets(&self) -> Vec<&str> {
        self.runtimes.iter().map(|r| r.target()).collect()
    }

    /// Loads `artifact` with the runtime of its target.
    pub fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        let runtime = self
            .lookup(&artifact.target)
            .ok_or_else(|| RtError::UnknownTarget {
                target: artifact.target.clone(),
                known: self.targets().join(", "),
            })?;
        runtime.load(artifact)
    }
}
