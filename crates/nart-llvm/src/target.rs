//! Target machines, the optimization pipeline, and object and assembly output.
//!
//! A [`Machine`] is an LLVM target machine for one triple, CPU and feature set: the host's
//! (detected at run time with LLVM's host queries) or one given by name, such as
//! [`Machine::aarch64_linux`] for `aarch64-unknown-linux-gnu` with NEON.
//! [`Machine::optimize`] runs the new pass manager's `default<O2>` pipeline (or any pipeline
//! text `opt -passes` takes), and [`Machine::emit`] writes an object file or assembly.

use std::path::Path;
use std::process::Command;
use std::sync::Once;

use inkwell::module::Module;
use inkwell::passes::PassBuilderOptions;
use inkwell::targets::{
    CodeModel, FileType, InitializationConfig, RelocMode, Target, TargetMachine, TargetTriple,
};
use inkwell::OptimizationLevel;

use crate::Error;

/// The triple of 64-bit ARM Linux.
pub const AARCH64_LINUX: &str = "aarch64-unknown-linux-gnu";

static INIT: Once = Once::new();

/// Registers the x86 and AArch64 back ends with LLVM (once per process).
pub fn init_targets() {
    INIT.call_once(|| {
        let config = InitializationConfig::default();
        Target::initialize_x86(&config);
        Target::initialize_aarch64(&config);
    });
}

/// An LLVM target machine and what it was made for.
pub struct Machine {
    tm: TargetMachine,
    triple: String,
    cpu: String,
    features: String,
}

impl std::fmt::Debug for Machine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Machine")
            .field("triple", &self.triple)
            .field("cpu", &self.cpu)
            .field("features", &self.features)
            .finish()
    }
}

impl Machine {
    /// The machine this process runs on: the default triple, and the CPU name and features
    /// LLVM detects at run time (AVX2, FMA, AVX-512, ... where present).
    pub fn host() -> Result<Machine, Error> {
        init_targets();
        let triple = TargetMachine::get_default_triple();
        let triple = triple.as_str().to_string_lossy().into_owned();
        let cpu = TargetMachine::get_host_cpu_name().to_string();
        let features = TargetMachine::get_host_cpu_features().to_string();
        Machine::new(&triple, &cpu, &features)
    }

    /// `aarch64-unknown-linux-gnu` for a generic ARMv8-A CPU with NEON, and with the
    /// dot-product extension when `dotprod` is set.
    pub fn aarch64_linux(dotprod: bool) -> Result<Machine, Error> {
        let features = if dotprod { "+neon,+dotprod" } else { "+neon" };
        Machine::new(AARCH64_LINUX, "generic", features)
    }

    /// A machine for `triple` (x86-64 or AArch64), `cpu` (`generic`, `skylake-avx512`,
    /// `cortex-a76`, ...) and LLVM feature string `features` (`+avx2,+fma`). Code is
    /// position-independent, so objects link into shared libraries and into the JIT.
    pub fn new(triple: &str, cpu: &str, features: &str) -> Result<Machine, Error> {
        init_targets();
        let tt = TargetTriple::create(triple);
        let target = Target::from_triple(&tt).map_err(|m| {
            Error::Target(format!(
                "unknown target triple '{triple}': {}",
                m.to_string().trim_end()
            ))
        })?;
        let tm = target
            .create_target_machine(
                &tt,
                cpu,
                features,
                OptimizationLevel::Default,
                RelocMode::PIC,
                CodeModel::Default,
            )
            .ok_or_else(|| {
                Error::Target(format!(
                    "LLVM cannot create a target machine for '{triple}' (cpu '{cpu}', features '{features}')"
                ))
            })?;
        Ok(Machine {
            tm,
            triple: triple.to_string(),
            cpu: cpu.to_string(),
            features: features.to_string(),
        })
    }

    /// The target triple.
    pub fn triple(&self) -> &str {
        &self.triple
    }

    /// The CPU name.
    pub fn cpu(&self) -> &str {
        &self.cpu
    }

    /// The LLVM feature string.
    pub fn features(&self) -> &str {
        &self.features
    }

    /// The underlying inkwell target machine.
    pub fn target_machine(&self) -> &TargetMachine {
        &self.tm
    }

    /// Sets the module's triple and data layout to this machine's, and the CPU and features on
    /// every function defined in it, so that the optimizer sees the same target as code
    /// generation.
    pub fn prepare(&self, module: &Module<'_>) {
        module.set_triple(&self.tm.get_triple());
        module.set_data_layout(&self.tm.get_target_data().get_data_layout());
        let ctx = module.get_context();
        for f in module.get_functions() {
            if f.count_basic_blocks() == 0 {
                continue;
            }
            let cpu = ctx.create_string_attribute("target-cpu", &self.cpu);
            f.add_attribute(inkwell::attributes::AttributeLoc::Function, cpu);
            if !self.features.is_empty() {
                let feats = ctx.create_string_attribute("target-features", &self.features);
                f.add_attribute(inkwell::attributes::AttributeLoc::Function, feats);
            }
        }
    }

    /// Runs an optimization pipeline in `opt -passes` syntax, such as `default<O2>`.
    pub fn optimize(&self, module: &Module<'_>, pipeline: &str) -> Result<(), Error> {
        self.prepare(module);
        module
            .run_passes(pipeline, &self.tm, PassBuilderOptions::create())
            .map_err(|m| {
                Error::Llvm(format!(
                    "pipeline '{pipeline}': {}",
                    m.to_string().trim_end()
                ))
            })
    }

    /// The module compiled to an object file (`obj` true) or to assembly text.
    pub fn emit(&self, module: &Module<'_>, obj: bool) -> Result<Vec<u8>, Error> {
        self.prepare(module);
        let ft = if obj {
            FileType::Object
        } else {
            FileType::Assembly
        };
        let buf = self
            .tm
            .write_to_memory_buffer(module, ft)
            .map_err(|m| Error::Llvm(format!("code generation: {}", m.to_string().trim_end())))?;
        Ok(buf.as_slice().to_vec())
    }
}

/// Links object files into a shared library with the C compiler driver `cc` (`cc` for the
/// host, `aarch64-linux-gnu-gcc` for ARM Linux), adding `-lm` for the math library calls.
pub fn link_shared(cc: &str, objects: &[&Path], out: &Path) -> Result<(), Error> {
    let output = Command::new(cc)
        .arg("-shared")
        .arg("-o")
        .arg(out)
        .args(objects)
        .arg("-lm")
        .output()
        .map_err(|e| Error::Link(format!("cannot run '{cc}': {e}")))?;
    if !output.status.success() {
        return Err(Error::Link(format!(
            "'{cc} -shared' failed: {}",
            String::from_utf8_lossy(&output.stderr).trim_end()
        )));
    }
    Ok(())
}
