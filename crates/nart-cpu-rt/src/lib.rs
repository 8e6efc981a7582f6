//! The runtime half of nart's code-level `cpu` target: an artifact holds a shared object that
//! the compiler side generated with LLVM, and this crate loads it and calls its entry point.
//!
//! Like every target runtime it knows tensors and nothing of the compiler, so a deployment
//! that runs `cpu` packages links this crate, `nart-rt` and no LLVM.
//!
//! # Artifact layout
//!
//! `NARTCPU1` (8 bytes), the length of the header as a little-endian `u32`, the header as JSON
//! ([`Header`]), then the shared object's bytes. The header says which machine the code is for
//! (target triple, CPU features it needs), the entry symbol, and the signature.
//!
//! # Calling convention
//!
//! The entry is `void entry(void **args)`. `args` holds one pointer per input, then one per
//! output, each to a memref descriptor as upstream MLIR lays it out
//! (`{T *allocated, T *aligned, i64 offset, i64 sizes[rank], i64 strides[rank]}`, row-major
//! strides), then one pointer to a scratch buffer of [`Header::scratch_bytes`] bytes, 64-byte
//! aligned (null when the code needs none), where the compiler placed its intermediate buffers,
//! then one pointer to the runtime interface (`nart_llvm::parallel` describes its layout),
//! through which the code's parallel loops run on the executable's thread pool; it is null
//! when the executable runs on one thread, and the loops then run on the calling thread.
//! The code reads its inputs and writes every element of its outputs; it keeps no state
//! between calls, so an executable may run on several threads at once.
//!
//! # Outputs of data-dependent length
//!
//! An output whose leading dimension is known only at run time (NonMaxSuppression's selected
//! indices) has a static upper bound in the header's signature, and the code writes its actual
//! length into a further output, a one-element `i64` tensor, which [`Header::truncated`] pairs
//! with it. The runtime checks that the length lies within the bound, returns the output's
//! first `length` rows only, and leaves the length outputs out of what it returns: the caller
//! sees the outputs of the compiled function, each of its actual size.
//!
//! # Threads
//!
//! [`CpuRuntime::with_threads`] sets how many threads an executable's parallel loops use: `1`
//! (the default) runs everything on the calling thread with no pool; `N > 1` starts a pool of
//! `N - 1` workers when the executable is loaded (the `pool` module), which the
//! caller's thread joins for each loop. The results do not depend on the number of threads:
//! each iteration of a parallel loop writes its own elements, and reductions stay inside it.

#![deny(missing_docs)]

mod features;
mod loader;
mod pool;

use nart_target_rt::{Artifact, Executable, RtError, TargetRuntime};
use nart_tensor::{DType, Data, Tensor};
use serde::{Deserialize, Serialize};

pub use features::{host_arch, host_has_feature};
pub use pool::INTERFACE_VERSION;

/// The target name.
pub const TARGET: &str = "cpu";
/// The artifact format this runtime reads.
pub const FORMAT: &str = "cpu-shared-object";
/// The version of the artifact layout and calling convention, the artifact's `sdk_version`.
/// Version 2 added the runtime interface argument; version 1 artifacts are refused.
/// Version 3 added [`Header::truncated`] (outputs of data-dependent length); a version 2
/// artifact has none and loads as before, while a runtime of version 2 refuses version 3
/// artifacts, whose extra length outputs it would not know to remove.
pub const ABI_VERSION: &str = "nart-cpu-abi-3";

/// The earlier versions this runtime still loads.
const COMPATIBLE_ABI_VERSIONS: &[&str] = &["nart-cpu-abi-2"];

const MAGIC: &[u8; 8] = b"NARTCPU1";

/// The type of one input or output: an element type (MLIR spelling, [`DType::name`]) and a
/// static shape.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TensorSig {
    /// The element type, as [`DType::name`] spells it.
    pub dtype: String,
    /// The dimensions.
    pub shape: Vec<u64>,
}

/// What an artifact says about its code.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    /// The LLVM target triple the code was compiled for.
    pub triple: String,
    /// The LLVM CPU name the code was tuned for.
    pub cpu: String,
    /// The CPU features the code uses, in Rust's spelling (`avx2`, `fma`, `avx512vnni`,
    /// `neon`, `dotprod`); loading refuses a machine that lacks one.
    pub required_features: Vec<String>,
    /// The entry symbol.
    pub entry: String,
    /// The inputs, in order.
    pub inputs: Vec<TensorSig>,
    /// The outputs, in order.
    pub outputs: Vec<TensorSig>,
    /// Bytes of scratch memory the code needs per call.
    pub scratch_bytes: u64,
    /// The outputs of data-dependent length, each with the output that holds its length
    /// (empty in artifacts of ABI version 2).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub truncated: Vec<Truncated>,
}

/// An output whose leading dimension the code decides at run time: its signature in
/// [`Header::outputs`] gives the upper bound, and output [`Truncated::length`] (a one-element
/// `i64` tensor, not returned to the caller) the number of rows the code wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truncated {
    /// The index of the output in [`Header::outputs`].
    pub output: usize,
    /// The index of the output that holds its length.
    pub length: usize,
}

/// Checks that each truncation names a distinct output of rank 1 or more and a length output
/// of type `i64[1]` that is not itself truncated.
fn check_truncated(header: &Header) -> Result<(), String> {
    let n = header.outputs.len();
    let mut seen = vec![false; n];
    for (k, t) in header.truncated.iter().enumerate() {
        let bad = |m: &str| {
            format!(
                "truncation {k} (output {}, length {}): {m}",
                t.output, t.length
            )
        };
        if t.output >= n || t.length >= n || t.output == t.length {
            return Err(bad("no such pair of outputs"));
        }
        if header.outputs[t.output].shape.is_empty() {
            return Err(bad("the output is a scalar"));
        }
        let len = &header.outputs[t.length];
        if len.dtype != "i64" || len.shape != [1] {
            return Err(bad("the length output is not i64[1]"));
        }
        for i in [t.output, t.length] {
            if std::mem::replace(&mut seen[i], true) {
                return Err(bad("an output is named twice"));
            }
        }
    }
    Ok(())
}

/// Writes an artifact's bytes: the header, then the shared object.
pub fn encode(header: &Header, shared_object: &[u8]) -> Vec<u8> {
    let json = serde_json::to_vec(header).expect("a Header always serializes");
    let mut out = Vec::with_capacity(12 + json.len() + shared_object.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&(json.len() as u32).to_le_bytes());
    out.extend_from_slice(&json);
    out.extend_from_slice(shared_object);
    out
}

/// Reads an artifact's bytes back into its header and shared object.
pub fn decode(bytes: &[u8]) -> Result<(Header, &[u8]), String> {
    let rest = bytes
        .strip_prefix(MAGIC)
        .ok_or("the bytes do not start with NARTCPU1")?;
    let (len, rest) = rest
        .split_first_chunk::<4>()
        .ok_or("the header length is missing")?;
    let len = u32::from_le_bytes(*len) as usize;
    if rest.len() < len {
        return Err(format!(
            "the header says {len} bytes but only {} follow",
            rest.len()
        ));
    }
    let (json, object) = rest.split_at(len);
    let header: Header = serde_json::from_slice(json).map_err(|e| format!("bad header: {e}"))?;
    if object.is_empty() {
        return Err("the shared object is missing".into());
    }
    Ok((header, object))
}

/// Loads `cpu` artifacts, into executables whose parallel loops use `threads` threads.
#[derive(Clone, Copy, Debug)]
pub struct CpuRuntime {
    threads: usize,
}

impl Default for CpuRuntime {
    fn default() -> CpuRuntime {
        CpuRuntime { threads: 1 }
    }
}

impl CpuRuntime {
    /// The runtime whose executables run on the calling thread only.
    pub fn new() -> CpuRuntime {
        CpuRuntime::default()
    }

    /// The runtime whose executables run their parallel loops on `threads` threads (the
    /// calling one included; 0 counts as 1).
    pub fn with_threads(threads: usize) -> CpuRuntime {
        CpuRuntime {
            threads: threads.max(1),
        }
    }

    /// The threads of its executables.
    pub fn threads(&self) -> usize {
        self.threads
    }
}

impl TargetRuntime for CpuRuntime {
    fn target(&self) -> &str {
        TARGET
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        artifact.expect_format(FORMAT)?;
        if artifact.sdk_version != ABI_VERSION
            && !COMPATIBLE_ABI_VERSIONS.contains(&artifact.sdk_version.as_str())
        {
            return Err(RtError::Version {
                target: TARGET.into(),
                got: artifact.sdk_version.clone(),
                supported: ABI_VERSION.into(),
            });
        }
        let (header, object) = decode(&artifact.bytes).map_err(|m| RtError::corrupt(TARGET, m))?;
        Ok(Box::new(CpuExecutable::load_with_threads(
            header,
            object,
            self.threads,
        )?))
    }
}

/// A loaded shared object and the entry it calls.
pub struct CpuExecutable {
    header: Header,
    inputs: Vec<(DType, Vec<usize>)>,
    outputs: Vec<(DType, Vec<usize>)>,
    entry: unsafe extern "C" fn(*mut *mut u8),
    /// The pool of the parallel loops, when more than one thread runs them.
    pool: Option<Box<pool::Pool>>,
    // Dropped after `entry` is no longer callable: the library, then the file it was read from.
    _object: loader::LoadedObject,
}

impl std::fmt::Debug for CpuExecutable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CpuExecutable")
            .field("header", &self.header)
            .finish()
    }
}

fn sig_types(sigs: &[TensorSig], what: &str) -> Result<Vec<(DType, Vec<usize>)>, RtError> {
    sigs.iter()
        .enumerate()
        .map(|(i, s)| {
            let dtype = DType::from_name(&s.dtype)
                .filter(|d| pointer_width_dtype(*d))
                .ok_or_else(|| {
                    RtError::corrupt(
                        TARGET,
                        format!("{what} {i}: unsupported dtype '{}'", s.dtype),
                    )
                })?;
            let shape = s
                .shape
                .iter()
                .map(|&d| usize::try_from(d).ok().filter(|&d| d <= i64::MAX as usize))
                .collect::<Option<Vec<_>>>()
                .ok_or_else(|| {
                    RtError::corrupt(TARGET, format!("{what} {i}: dimension too large"))
                })?;
            Ok((dtype, shape))
        })
        .collect()
}

/// The element types the calling convention passes (one element per byte-addressed slot).
fn pointer_width_dtype(d: DType) -> bool {
    matches!(
        d,
        DType::F32
            | DType::F64
            | DType::F16
            | DType::BF16
            | DType::Bool
            | DType::I8
            | DType::I16
            | DType::I32
            | DType::I64
            | DType::U8
            | DType::U16
            | DType::U32
            | DType::U64
    )
}

impl CpuExecutable {
    /// Loads `object` described by `header`: checks that this machine can run it, opens it and
    /// finds the entry. Its parallel loops run on the calling thread.
    pub fn load(header: Header, object: &[u8]) -> Result<CpuExecutable, RtError> {
        CpuExecutable::load_with_threads(header, object, 1)
    }

    /// [`CpuExecutable::load`], with a pool of `threads` threads (the caller's included) for
    /// the parallel loops when `threads` is more than 1.
    pub fn load_with_threads(
        header: Header,
        object: &[u8],
        threads: usize,
    ) -> Result<CpuExecutable, RtError> {
        let arch = header.triple.split('-').next().unwrap_or_default();
        if arch != host_arch() {
            return Err(RtError::run(format!(
                "the code is for {} but this machine is {}; compile with the matching --cross",
                header.triple,
                host_arch()
            )));
        }
        let missing: Vec<&str> = header
            .required_features
            .iter()
            .filter(|f| host_has_feature(f) != Some(true))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(RtError::run(format!(
                "the code needs CPU features this machine lacks or nart cannot check: {} (compiled for '{}')",
                missing.join(", "),
                header.cpu
            )));
        }
        let inputs = sig_types(&header.inputs, "input")?;
        let outputs = sig_types(&header.outputs, "output")?;
        check_truncated(&header).map_err(|m| RtError::corrupt(TARGET, m))?;
        let object = loader::LoadedObject::open(object).map_err(RtError::run)?;
        // SAFETY: the compiler side declares the entry with exactly this signature (see the
        // crate docs); the symbol stays valid while `object` lives, which outlives `entry`.
        let entry = unsafe { object.symbol::<unsafe extern "C" fn(*mut *mut u8)>(&header.entry) }
            .map_err(RtError::run)?;
        let pool = if threads > 1 {
            Some(pool::Pool::new(threads).map_err(RtError::run)?)
        } else {
            None
        };
        Ok(CpuExecutable {
            header,
            inputs,
            outputs,
            entry,
            pool,
            _object: object,
        })
    }

    /// The artifact's header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The threads its parallel loops run on.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(1, |p| p.threads())
    }

    /// How many parallel loops have run on its pool's threads so far (0 without a pool, or
    /// when every loop was too small to share).
    pub fn loops_on_pool(&self) -> u64 {
        self.pool.as_ref().map_or(0, |p| p.dispatched())
    }
}

/// Upstream MLIR's memref descriptor for `data` with row-major `shape`, as 64-bit words.
fn descriptor(data: *mut u8, shape: &[usize]) -> Vec<i64> {
    let mut words = vec![data as i64, data as i64, 0];
    words.extend(shape.iter().map(|&d| d as i64));
    let mut strides = vec![0i64; shape.len()];
    let mut stride = 1i64;
    for (s, &d) in strides.iter_mut().zip(shape).rev() {
        *s = stride;
        stride *= d.max(1) as i64;
    }
    words.extend(strides);
    words
}

fn data_ptr(d: &mut Data) -> Option<*mut u8> {
    Some(match d {
        Data::F32(v) => v.as_mut_ptr().cast(),
        Data::F64(v) => v.as_mut_ptr().cast(),
        // `half`'s types are 16-bit words in IEEE binary16 and bfloat16 layout, as LLVM's
        // `half` and `bfloat` are stored.
        Data::F16(v) => v.as_mut_ptr().cast(),
        Data::BF16(v) => v.as_mut_ptr().cast(),
        Data::I8(v) => v.as_mut_ptr().cast(),
        Data::I16(v) => v.as_mut_ptr().cast(),
        Data::I32(v) => v.as_mut_ptr().cast(),
        Data::I64(v) => v.as_mut_ptr().cast(),
        Data::U8(v) => v.as_mut_ptr().cast(),
        Data::U16(v) => v.as_mut_ptr().cast(),
        Data::U32(v) => v.as_mut_ptr().cast(),
        Data::U64(v) => v.as_mut_ptr().cast(),
        // One byte each, 0 or 1: what the generated code stores for an `i1`.
        Data::Bool(v) => v.as_mut_ptr().cast(),
        _ => return None,
    })
}

impl Executable for CpuExecutable {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        self.run_owned(inputs.to_vec())
    }

    fn run_owned(&self, inputs: Vec<Tensor>) -> Result<Vec<Tensor>, RtError> {
        if inputs.len() != self.inputs.len() {
            return Err(RtError::inputs(format!(
                "expected {} inputs, got {}",
                self.inputs.len(),
                inputs.len()
            )));
        }
        let mut in_data = Vec::with_capacity(inputs.len());
        for (i, (t, (dtype, shape))) in inputs.into_iter().zip(&self.inputs).enumerate() {
            if t.dtype() != *dtype || t.shape() != shape.as_slice() {
                return Err(RtError::inputs(format!(
                    "input {i}: expected {}{shape:?}, got {}{:?}",
                    dtype.name(),
                    t.dtype().name(),
                    t.shape()
                )));
            }
            in_data.push(t.into_parts().2);
        }
        let mut out_data: Vec<Data> = self
            .outputs
            .iter()
            .map(|(dtype, shape)| Tensor::zeros(*dtype, shape.clone()).into_parts().2)
            .collect();
        let mut descriptors: Vec<Vec<i64>> = Vec::new();
        for (d, (_, shape)) in in_data
            .iter_mut()
            .zip(&self.inputs)
            .chain(out_data.iter_mut().zip(&self.outputs))
        {
            let p = data_ptr(d).ok_or_else(|| RtError::run("unsupported element storage"))?;
            descriptors.push(descriptor(p, shape));
        }
        let mut scratch = Scratch::new(self.header.scratch_bytes)?;
        let mut args: Vec<*mut u8> = descriptors
            .iter_mut()
            .map(|d| d.as_mut_ptr().cast::<u8>())
            .collect();
        args.push(scratch.ptr());
        args.push(
            self.pool
                .as_ref()
                .map_or(std::ptr::null_mut(), |p| p.interface().cast_mut().cast()),
        );
        // SAFETY: every descriptor points at a live buffer of the element type and shape the
        // header declares (checked above for inputs, allocated so for outputs), the scratch
        // buffer has the declared size and alignment, the interface (or null) belongs to this
        // executable's pool, which outlives the call, and `args` has one slot per parameter of
        // the convention the compiler implements.
        unsafe { (self.entry)(args.as_mut_ptr()) };
        drop(scratch);
        let mut outs: Vec<Option<Tensor>> = self
            .outputs
            .iter()
            .zip(out_data)
            .map(|((dtype, shape), data)| {
                Tensor::new(*dtype, shape.clone(), data)
                    .map(Some)
                    .map_err(|e| RtError::run(e.to_string()))
            })
            .collect::<Result<_, _>>()?;
        for t in &self.header.truncated {
            let len = outs[t.length]
                .take()
                .and_then(|l| l.as_i64().map(|v| v[0]))
                .ok_or_else(|| RtError::run(format!("output {} holds no length", t.length)))?;
            let full = outs[t.output]
                .take()
                .ok_or_else(|| RtError::run(format!("output {} is truncated twice", t.output)))?;
            outs[t.output] = Some(truncate_rows(full, len)?);
        }
        Ok(outs.into_iter().flatten().collect())
    }
}

/// The first `len` rows (along the leading dimension) of `t`, or an error when `len` lies
/// outside `0..=rows`, which would be a bug of the generated code.
fn truncate_rows(t: Tensor, len: i64) -> Result<Tensor, RtError> {
    let rows = t.shape()[0];
    let len = usize::try_from(len)
        .ok()
        .filter(|&l| l <= rows)
        .ok_or_else(|| {
            RtError::run(format!(
                "the code reported {len} rows for an output of at most {rows}"
            ))
        })?;
    if len == rows {
        return Ok(t);
    }
    let mut shape = t.shape().to_vec();
    let row: usize = shape[1..].iter().product();
    shape[0] = len;
    let (dtype, _, mut data) = t.into_parts();
    truncate_data(&mut data, len * row)
        .ok_or_else(|| RtError::run("unsupported element storage"))?;
    Tensor::new(dtype, shape, data).map_err(|e| RtError::run(e.to_string()))
}

fn truncate_data(d: &mut Data, n: usize) -> Option<()> {
    match d {
        Data::F32(v) => v.truncate(n),
        Data::F64(v) => v.truncate(n),
        Data::F16(v) => v.truncate(n),
        Data::BF16(v) => v.truncate(n),
        Data::I8(v) => v.truncate(n),
        Data::I16(v) => v.truncate(n),
        Data::I32(v) => v.truncate(n),
        Data::I64(v) => v.truncate(n),
        Data::U8(v) => v.truncate(n),
        Data::U16(v) => v.truncate(n),
        Data::U32(v) => v.truncate(n),
        Data::U64(v) => v.truncate(n),
        Data::Bool(v) => v.truncate(n),
        _ => return None,
    }
    Some(())
}

/// A zeroed, 64-byte aligned scratch buffer.
struct Scratch {
    buf: Vec<u8>,
    offset: usize,
    len: usize,
}

impl Scratch {
    fn new(bytes: u64) -> Result<Scratch, RtError> {
        let len = usize::try_from(bytes)
            .ok()
            .filter(|&n| n <= isize::MAX as usize - 64)
            .ok_or_else(|| RtError::run(format!("scratch of {bytes} bytes is too large")))?;
        if len == 0 {
            return Ok(Scratch {
                buf: Vec::new(),
                offset: 0,
                len,
            });
        }
        let mut buf = Vec::new();
        buf.try_reserve_exact(len + 64)
            .map_err(|_| RtError::run(format!("cannot allocate {len} bytes of scratch")))?;
        buf.resize(len + 64, 0);
        let offset = buf.as_ptr().align_offset(64);
        Ok(Scratch { buf, offset, len })
    }

    fn ptr(&mut self) -> *mut u8 {
        if self.len == 0 {
            std::ptr::null_mut()
        } else {
            self.buf[self.offset..].as_mut_ptr()
        }
    }
}

#[cfg(test)]
mod tests;
