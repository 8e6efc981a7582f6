//! LLVM IR from nart's loop-level IR, through `inkwell` (LLVM 22): what upstream's
//! `mlir-translate --mlir-to-llvmir` does, read directly from nart's dialects.
//!
//! - [`translate_module`] turns a `builtin.module` of `func.func`s and `memref.global`s whose
//!   bodies use `func`, `arith`, `cf`, `scf`, `memref` and `math` into an LLVM module;
//!   [`check`] lists every op and type it cannot translate, each with its location, and
//!   translation refuses a module that has any. `scf` is translated directly into blocks and
//!   phis (the result `convert-scf-to-cf` and the `cf` translation would give, in one step).
//! - [`Machine`] is a target machine (the host's CPU and features detected at run time, or
//!   `aarch64-unknown-linux-gnu` with NEON), which optimizes (`default<O2>`) and emits
//!   objects and assembly; [`link_shared`] links objects into a shared library with `cc`.
//! - [`Jit`] is an ORC LLJIT that links host objects into the process.
//!
//! # Calling convention
//!
//! A function keeps its name and its arguments; `index` is `i64`; a memref argument expands
//! to its descriptor's fields (allocated pointer, aligned pointer, offset, the sizes, the
//! strides) as upstream does; several results come back as a literal struct.
//! Every public function with a body also gets a C-interface wrapper
//! `_mlir_ciface_NAME`, which takes each memref as a pointer to its descriptor
//! (`{T *allocated; T *aligned; int64_t offset; int64_t sizes[rank]; int64_t strides[rank];}`)
//! and, when the function returns a memref or several results, takes a pointer to the result
//! as its first parameter and returns `void`. Scalars pass by value in both.
//!
//! # Why no `llvm` dialect in between
//!
//! Upstream lowers to the `llvm` dialect and translates that. nart translates its own
//! dialects directly: one step fewer and no second copy of LLVM's instruction set to keep in
//! sync, since inkwell's builder already is a typed LLVM IR API. The price is that LLVM-level
//! rewrites cannot be written as nart patterns; they run in LLVM's own pass pipeline instead.

//! # Not translated yet
//!
//! Each is reported, at its location, by [`check`]: `vector.contract` and n-D vectors,
//! `scf.execute_region`, `math.ipowi`, unranked memrefs and layouts other than strided ones,
//! and `arith.truncf` with a rounding mode.
//!
//! # Threads
//!
//! An outermost `scf.parallel` without reductions becomes a body function over its linearized
//! iteration space, which the code hands to a runtime interface found through the global
//! [`RUNTIME_GLOBAL`], as [`parallel`] describes; with no interface it runs on the calling
//! thread.

#![deny(missing_docs)]

mod arith;
mod jit;
mod math;
mod memref;
mod narrow;
pub mod parallel;
mod scf;
mod target;
mod translate;
pub mod types;
mod vector;

pub use inkwell;
pub use jit::Jit;
pub use parallel::{GRAIN_WORK, RUNTIME_GLOBAL, RUNTIME_INTERFACE_VERSION};
pub use target::{init_targets, link_shared, Machine, AARCH64_LINUX};
pub use translate::{check, translate_module, CIFACE_PREFIX};

use nart_ir::Diagnostic;

/// What can go wrong between nart IR and machine code.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The module has ops or types with no translation (each diagnostic is located).
    #[error("the module cannot be translated to LLVM IR ({} error(s))", .0.len())]
    Translate(Vec<Diagnostic>),
    /// LLVM has no such target, CPU or feature set.
    #[error("{0}")]
    Target(String),
    /// LLVM reported an error while optimizing or generating code.
    #[error("LLVM: {0}")]
    Llvm(String),
    /// Linking a shared library failed.
    #[error("{0}")]
    Link(String),
    /// The JIT could not create itself, link code or find a symbol.
    #[error("JIT: {0}")]
    Jit(String),
}

/// Translates `module` and compiles it into a new JIT for the host: the path tests use to run
/// nart functions. Look functions up with [`Jit::lookup`].
pub fn jit_module(ir: &nart_ir::Context, module: nart_ir::Op) -> Result<Jit, Error> {
    let ll = inkwell::context::Context::create();
    let llmod = translate_module(ir, module, &ll, "nart").map_err(Error::Translate)?;
    let machine = Machine::host()?;
    let mut jit = Jit::new()?;
    jit.add_module(&machine, &llmod)?;
    Ok(jit)
}
