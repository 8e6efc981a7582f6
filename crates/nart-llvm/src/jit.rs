//! The JIT: an ORC `LLJIT` through llvm-sys's C API.
//!
//! Code is compiled by a [`Machine`] for the host (the same path as ahead-of-time objects:
//! host CPU and features, `default<O2>`), and the JIT links the object into the process,
//! resolving external symbols (`libm`, `puts`, `abort`) against the process's own. LLJIT is
//! used rather than inkwell's MCJIT execution engine because MCJIT takes no target machine (it
//! would not tune for the host CPU) and LLVM keeps ORC as its maintained JIT.

use std::ffi::{CStr, CString};

use inkwell::llvm_sys;
use llvm_sys::error::{LLVMDisposeErrorMessage, LLVMErrorRef, LLVMGetErrorMessage};
use llvm_sys::orc2::lljit::{
    LLVMOrcCreateLLJIT, LLVMOrcDisposeLLJIT, LLVMOrcLLJITAddObjectFile,
    LLVMOrcLLJITGetGlobalPrefix, LLVMOrcLLJITGetMainJITDylib, LLVMOrcLLJITLookup, LLVMOrcLLJITRef,
};
use llvm_sys::orc2::{
    LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess, LLVMOrcDefinitionGeneratorRef,
    LLVMOrcJITDylibAddGenerator,
};

use crate::target::Machine;
use crate::Error;

/// Turns an LLVM error into its message (and frees it); `None` for success.
fn take_error(err: LLVMErrorRef) -> Option<String> {
    if err.is_null() {
        return None;
    }
    // SAFETY: `err` is a live error that we own; getting its message consumes it, and the
    // message is freed with the matching call.
    unsafe {
        let msg = LLVMGetErrorMessage(err);
        let s = CStr::from_ptr(msg).to_string_lossy().into_owned();
        LLVMDisposeErrorMessage(msg);
        Some(s)
    }
}

/// An ORC LLJIT instance holding the code added to it. Function addresses it returns are
/// valid while it lives.
pub struct Jit {
    jit: LLVMOrcLLJITRef,
}

impl std::fmt::Debug for Jit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Jit")
    }
}

impl Jit {
    /// A JIT for the host, which resolves undefined symbols against the process.
    pub fn new() -> Result<Jit, Error> {
        crate::target::init_targets();
        let mut jit: LLVMOrcLLJITRef = std::ptr::null_mut();
        // SAFETY: a null builder asks for the default configuration (host target).
        let err = unsafe { LLVMOrcCreateLLJIT(&mut jit, std::ptr::null_mut()) };
        if let Some(m) = take_error(err) {
            return Err(Error::Jit(format!("cannot create the JIT: {m}")));
        }
        let out = Jit { jit };
        // SAFETY: `jit` is live; the generator is handed over to the main JITDylib.
        unsafe {
            let mut generator: LLVMOrcDefinitionGeneratorRef = std::ptr::null_mut();
            let prefix = LLVMOrcLLJITGetGlobalPrefix(out.jit);
            let err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
                &mut generator,
                prefix,
                None,
                std::ptr::null_mut(),
            );
            if let Some(m) = take_error(err) {
                return Err(Error::Jit(format!(
                    "cannot search the process's symbols: {m}"
                )));
            }
            LLVMOrcJITDylibAddGenerator(LLVMOrcLLJITGetMainJITDylib(out.jit), generator);
        }
        Ok(out)
    }

    /// Links an object file (for the host) into the JIT.
    pub fn add_object(&mut self, object: &[u8]) -> Result<(), Error> {
        let name = CString::new("nart-jit-object").expect("no interior NUL");
        // SAFETY: the buffer copies `object`; the JIT takes ownership of the buffer.
        let err = unsafe {
            let buf = llvm_sys::core::LLVMCreateMemoryBufferWithMemoryRangeCopy(
                object.as_ptr().cast(),
                object.len(),
                name.as_ptr(),
            );
            LLVMOrcLLJITAddObjectFile(self.jit, LLVMOrcLLJITGetMainJITDylib(self.jit), buf)
        };
        match take_error(err) {
            Some(m) => Err(Error::Jit(format!("cannot add the object: {m}"))),
            None => Ok(()),
        }
    }

    /// Compiles an LLVM module for the host with `machine` (after optimizing it with
    /// `default<O2>`) and links it into the JIT.
    pub fn add_module(
        &mut self,
        machine: &Machine,
        module: &inkwell::module::Module<'_>,
    ) -> Result<(), Error> {
        machine.optimize(module, "default<O2>")?;
        let obj = machine.emit(module, true)?;
        self.add_object(&obj)
    }

    /// The address of symbol `name` (materializing its code on first use).
    pub fn lookup(&self, name: &str) -> Result<u64, Error> {
        let cname =
            CString::new(name).map_err(|_| Error::Jit(format!("bad symbol name '{name}'")))?;
        let mut addr = 0u64;
        // SAFETY: `jit` is live and `cname` outlives the call.
        let err = unsafe { LLVMOrcLLJITLookup(self.jit, &mut addr, cname.as_ptr()) };
        match take_error(err) {
            Some(m) => Err(Error::Jit(format!("cannot find '{name}': {m}"))),
            None if addr == 0 => Err(Error::Jit(format!("symbol '{name}' has address 0"))),
            None => Ok(addr),
        }
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        // SAFETY: `jit` is live and disposed once; an error on teardown can only be dropped.
        let err = unsafe { LLVMOrcDisposeLLJIT(self.jit) };
        let _ = take_error(err);
    }
}
