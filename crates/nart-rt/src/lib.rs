//! `nart-rt`: the nart runtime. It opens a package that `nart compile` wrote ([`Package`]),
//! loads each segment's artifact through the runtime of its target ([`Session::load`], with a
//! [`RuntimeRegistry`]), checks inputs against the manifest and runs it ([`Session::run`]).
//!
//! It holds no compiler: it depends on `nart-tensor` (tensors and the exact quantize/dequantize
//! kernels it runs between segments) and `nart-target-rt` (the runtime half of targets) only.
//! Which target runtimes a deployment links is the caller's choice; `nart-rt-std` registers
//! the ones that ship with nart.
//!
//! ```
//! use nart_rt::manifest::{Dim, Manifest, SegmentStep, Step, TargetInfo, TensorSpec};
//! use nart_rt::{Package, Session};
//! use nart_target_rt::{Artifact, Executable, RtError, RuntimeRegistry, TargetRuntime};
//! use nart_tensor::Tensor;
//!
//! /// A target whose artifact is one f32 added to the input.
//! struct AddConst;
//! struct AddConstExe(f32);
//! impl Executable for AddConstExe {
//!     fn run(&self, x: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
//!         let v: Vec<f32> = x[0].as_f32().unwrap().iter().map(|a| a + self.0).collect();
//!         Ok(vec![Tensor::from_vec(x[0].shape().to_vec(), v).unwrap()])
//!     }
//! }
//! impl TargetRuntime for AddConst {
//!     fn target(&self) -> &str { "add" }
//!     fn load(&self, a: &Artifact) -> Result<Box<dyn Executable>, RtError> {
//!         let b: [u8; 4] = a.bytes.as_slice().try_into().map_err(|_| RtError::corrupt("add", "4 bytes"))?;
//!         Ok(Box::new(AddConstExe(f32::from_le_bytes(b))))
//!     }
//! }
//!
//! let spec = |name: &str| TensorSpec {
//!     name: name.into(),
//!     dtype: "f32".into(),
//!     shape: Some(vec![Dim::Symbol("N".into())]),
//!     value: None,
//! };
//! let manifest = Manifest {
//!     nart_version: "doc".into(),
//!     model: "add".into(),
//!     inputs: vec![spec("x")],
//!     outputs: vec![spec("y")],
//!     targets: vec![TargetInfo { name: "add".into(), sdk_version: "1".into() }],
//!     steps: vec![Step::Segment(SegmentStep {
//!         target: "add".into(),
//!         format: "f32".into(),
//!         sdk_version: "1".into(),
//!         ops: 1,
//!         reads: vec!["x".into()],
//!         writes: vec!["y".into()],
//!         blob: 0,
//!     })],
//!     blobs: vec![],
//!     notes: Default::default(),
//! };
//! let pkg = Package::new(manifest, vec![2.0f32.to_le_bytes().to_vec()]).unwrap();
//! let pkg = Package::from_bytes(pkg.as_bytes().to_vec()).unwrap();
//! let mut runtimes = RuntimeRegistry::new();
//! runtimes.register(Box::new(AddConst));
//! let session = Session::load(&pkg, &runtimes).unwrap();
//! let y = session.run(vec![Tensor::vector(vec![1.0f32, 2.0])]).unwrap();
//! assert_eq!(y[0].as_f32().unwrap(), &[3.0, 4.0]);
//! let e = session.run(vec![Tensor::vector(vec![1i64])]).unwrap_err();
//! assert_eq!(e.to_string(), "bad inputs: input #0 'x': expected dtype f32, given i64");
//! ```

#![deny(missing_docs)]

mod crc32;
mod error;
pub mod manifest;
pub mod package;
mod session;

pub use crc32::crc32;
pub use error::Error;
pub use manifest::Manifest;
pub use nart_target_rt::{RtError, RuntimeRegistry};
pub use package::{Package, FORMAT_VERSION};
pub use session::{check_inputs, Session};

/// This crate's version, which packages record as the runtime that reads them.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

#[cfg(test)]
mod tests;
