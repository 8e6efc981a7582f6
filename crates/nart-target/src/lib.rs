//! Targets and partitioning: the compiler side of deploying one graph on several devices.
//!
//! - [`Target`] is the trait a device implements: its name, [`Level`] and description, which
//!   ops it runs ([`Target::supports`], with a typed [`Refusal`] for each op it does not), the
//!   quantization scheme and data layout ([`Target::preferred_layout`]) it wants, what an op
//!   costs there ([`Target::cost`], by default from the ops' `OpCostInterface` and the
//!   target's [`Throughput`]), the precision it wants at its boundaries
//!   ([`Target::io_precision`]), how it compiles a segment into an
//!   [`Artifact`](nart_target_rt::Artifact), and the runtime that loads what it compiles.
//! - [`TargetRegistry`] holds targets by name; [`TargetRegistry::builtin`] has `interp`
//!   ([`interp::InterpTarget`]), the reference interpreter as a target and the fallback.
//! - [`partition`] places every op of a graph function on a target (preference order, cost,
//!   overrides), forms the segments and outlines each into a `target.segment`;
//!   [`compile::compile_segments`] turns segments into `target.compiled` ops holding
//!   artifacts. [`pass`] wraps both as the `partition` and `compile-segments` passes.
//! - [`lowering`] has helpers for a target that compiles segments itself (attributes as plain
//!   values, one-to-one lowering to a chip's dialect, value slots and embedded weights).
//! - [`testing`] has a configurable fake target for tests.
//!
//! The runtime half of a target (artifacts, executables, loaders) is the `nart-target-rt`
//! crate, re-exported as [`rt`]: it knows no IR, so a deployment runtime can hold it without
//! the compiler.
//!
//! `docs/targets.md` says how to add a target.

#![deny(missing_docs)]

pub mod compile;
pub mod harness;
pub mod interp;
pub mod lowering;
pub mod partition;
pub mod pass;
mod registry;
mod target;
pub mod testing;

pub use nart_target_rt as rt;
pub use partition::{partition_function, plan, Override, Plan, Setup};
pub use pass::{register_passes, CompileSegmentsPass, PartitionPass};
pub use registry::{TargetRegistry, UnknownTarget};
pub use target::{
    value_bytes, Cost, IoPrecision, Layout, Level, Refusal, Support, Target, Throughput,
};
