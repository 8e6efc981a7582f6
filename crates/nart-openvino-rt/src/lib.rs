//! The runtime half of nart's `openvino` target: runs the segments the compiler half
//! (`nart-target-openvino`) exports as ONNX models, on OpenVINO's CPU device.
//!
//! OpenVINO is not linked: [`ffi`] loads `libopenvino_c.so` on first use, so nart builds and
//! runs without it, and [`availability`] says why the target cannot run when it is missing.
//! An artifact holds the ONNX bytes (format [`FORMAT`]); [`OpenvinoRuntime::load`] reads them
//! with OpenVINO's ONNX frontend, compiles the model for `CPU` with
//! `INFERENCE_PRECISION_HINT=f32` (so results are fp32 even where the CPU would default to
//! bf16) and creates the infer request once; [`Executable::run`] only sets the inputs (wrapping
//! the caller's buffers, no copy), infers and copies the outputs out. This crate depends on
//! `nart-tensor` and `nart-target-rt` only.

#![deny(missing_docs)]

use std::ffi::{c_void, CString};
use std::sync::Mutex;

use nart_target_rt::{Artifact, Executable, RtError, TargetRuntime};
use nart_tensor::{DType, Tensor};

pub mod ffi;

/// The target's name.
pub const NAME: &str = "openvino";
/// The format of its portable artifacts: a standalone ONNX model, compiled at load.
pub const FORMAT: &str = "onnx";
/// The format of its compiled artifacts: OpenVINO's exported blob behind a small header
/// ([`encode_blob`]), imported at load by the OpenVINO version that exported it.
pub const BLOB_FORMAT: &str = "openvino-blob";
/// The OpenVINO device segments are compiled for.
pub const DEVICE: &str = "CPU";
/// The prefix of the SDK version its artifacts carry (`OpenVINO 2026.4.1-...`).
pub const SDK_PREFIX: &str = "OpenVINO ";

/// The version of the loaded OpenVINO (`OpenVINO 2026.4.1-22982-...`), or why it cannot be
/// loaded.
pub fn availability() -> Result<String, String> {
    let api = ffi::api()?;
    api.version().map(|v| format!("{SDK_PREFIX}{v}"))
}

/// Loads `openvino` artifacts.
#[derive(Clone, Copy, Debug, Default)]
pub struct OpenvinoRuntime;

impl TargetRuntime for OpenvinoRuntime {
    fn target(&self) -> &str {
        NAME
    }

    fn load(&self, artifact: &Artifact) -> Result<Box<dyn Executable>, RtError> {
        Ok(Box::new(load(artifact)?))
    }
}

/// The OpenVINO objects of a loaded artifact; freed in reverse order of creation.
struct Objects {
    api: &'static ffi::Api,
    core: ffi::Handle,
    compiled: ffi::Handle,
    request: ffi::Handle,
    /// The imported blob: `ov_core_import_model` wraps the bytes it is given as a tensor
    /// without copying them, and the CPU plugin's constants keep pointing into them, so they
    /// live as long as the compiled model (dropped after it, by `Drop`).
    blob: Vec<u8>,
}

// SAFETY: OpenVINO's core, compiled model and infer request may be used from any thread; the
// request is only used under the executable's lock.
unsafe impl Send for Objects {}
// SAFETY: as above; every use of the request goes through `&mut` behind a `Mutex`.
unsafe impl Sync for Objects {}

impl Drop for Objects {
    fn drop(&mut self) {
        // SAFETY: each handle is null or was created by the matching OpenVINO call and is
        // freed once, dependents first.
        unsafe {
            if !self.request.is_null() {
                (self.api.infer_request_free)(self.request);
            }
            if !self.compiled.is_null() {
                (self.api.compiled_model_free)(self.compiled);
            }
            if !self.core.is_null() {
                (self.api.core_free)(self.core);
            }
        }
    }
}

/// A loaded artifact: the compiled model and its one infer request, behind a lock.
pub struct OpenvinoExecutable {
    objects: Mutex<Objects>,
    inputs: usize,
    outputs: usize,
}

impl std::fmt::Debug for OpenvinoExecutable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "OpenvinoExecutable({} inputs, {} outputs)",
            self.inputs, self.outputs
        )
    }
}

/// The C strings of `pairs`, kept alive with the [`ffi::Property`] array pointing into them.
struct Properties {
    _strings: Vec<CString>,
    props: Vec<ffi::Property>,
}

impl Properties {
    fn new(pairs: &[(String, String)]) -> Result<Properties, RtError> {
        let mut strings = Vec::with_capacity(2 * pairs.len());
        for (k, v) in pairs {
            for s in [k, v] {
                strings.push(CString::new(s.as_str()).map_err(|_| {
                    RtError::corrupt(NAME, format!("a property with a NUL byte: {s:?}"))
                })?);
            }
        }
        let props = strings
            .chunks(2)
            .map(|kv| ffi::Property {
                key: kv[0].as_ptr(),
                value: kv[1].as_ptr().cast(),
            })
            .collect();
        Ok(Properties {
            _strings: strings,
            props,
        })
    }
}

/// The properties every segment is compiled with, as (key, value): fp32 inference (OpenVINO's
/// CPU plugin would otherwise pick bf16 on CPUs with AVX-512 BF16) and the latency hint.
pub fn compile_hints() -> Vec<(String, String)> {
    vec![
        ("INFERENCE_PRECISION_HINT".into(), "f32".into()),
        ("PERFORMANCE_HINT".into(), "LATENCY".into()),
    ]
}

/// `hints` and, where [`THREADS_ENV`] is set, `INFERENCE_NUM_THREADS`.
fn with_threads(mut hints: Vec<(String, String)>) -> Vec<(String, String)> {
    if let Some(n) = threads_from_env() {
        hints.push(("INFERENCE_NUM_THREADS".into(), n.to_string()));
    }
    hints
}

/// The first line of a [`BLOB_FORMAT`] artifact.
const BLOB_MAGIC: &str = "nart-openvino-blob 1";

/// A [`BLOB_FORMAT`] artifact's bytes: a text header (the magic line, `device D`, one
/// `hint KEY VALUE` line per property the blob was compiled with, an empty line), then the
/// blob `ov_compiled_model_export_model` wrote.
pub fn encode_blob(device: &str, hints: &[(String, String)], blob: &[u8]) -> Vec<u8> {
    let mut out = format!("{BLOB_MAGIC}\ndevice {device}\n");
    for (k, v) in hints {
        out.push_str(&format!("hint {k} {v}\n"));
    }
    out.push('\n');
    let mut out = out.into_bytes();
    out.extend_from_slice(blob);
    out
}

/// A decoded [`BLOB_FORMAT`] artifact: the device and hints it was compiled with, and the blob.
#[derive(Debug, PartialEq, Eq)]
pub struct BlobArtifact<'a> {
    /// The OpenVINO device it was compiled for (`CPU`).
    pub device: String,
    /// The properties it was compiled with, in order.
    pub hints: Vec<(String, String)>,
    /// OpenVINO's exported blob.
    pub blob: &'a [u8],
}

/// Reads what [`encode_blob`] wrote, or says what is wrong with it.
pub fn decode_blob(bytes: &[u8]) -> Result<BlobArtifact<'_>, String> {
    let head = &bytes[..bytes.len().min(4096)];
    let end = head
        .windows(2)
        .position(|w| w == b"\n\n")
        .ok_or("no header (expected a header ending in an empty line in its first 4096 bytes)")?;
    let text = std::str::from_utf8(&bytes[..end]).map_err(|_| "a header that is not UTF-8")?;
    let mut lines = text.lines();
    if lines.next() != Some(BLOB_MAGIC) {
        return Err(format!("the header does not start with '{BLOB_MAGIC}'"));
    }
    let (mut device, mut hints) = (None, Vec::new());
    for line in lines {
        let words: Vec<&str> = line.split(' ').collect();
        match words.as_slice() {
            ["device", d] if device.is_none() => device = Some(d.to_string()),
            ["hint", k, v] => hints.push((k.to_string(), v.to_string())),
            _ => return Err(format!("a bad header line '{line}'")),
        }
    }
    let device = device.ok_or("the header names no device")?;
    let blob = &bytes[end + 2..];
    if blob.is_empty() {
        return Err("the blob is empty".into());
    }
    Ok(BlobArtifact {
        device,
        hints,
        blob,
    })
}

/// A file name in the temporary directory no other call of this process uses.
fn temp_path() -> std::path::PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    std::env::temp_dir().join(format!("nart-openvino-{}-{n}.blob", std::process::id()))
}

/// Compiles the ONNX model `onnx` for [`DEVICE`] with [`compile_hints`] and returns the
/// [`BLOB_FORMAT`] artifact bytes ([`encode_blob`] of OpenVINO's exported blob). The C API
/// exports only to a file, so the blob goes through a temporary file, removed afterwards.
///
/// The same ONNX bytes give the same blob: OpenVINO's export is the same in every process
/// that compiles the same model first, but the internal node names it generates come from
/// process-wide counters, so a second compile of a model in one process would differ in those
/// names. The last few blobs compiled are therefore remembered and given again.
pub fn compile_blob(onnx: &[u8]) -> Result<Vec<u8>, String> {
    /// (ONNX bytes, artifact bytes), the newest last.
    static RECENT: Mutex<Vec<(Vec<u8>, Vec<u8>)>> = Mutex::new(Vec::new());
    const KEPT: usize = 16;
    let lock = || RECENT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, blob)) = lock().iter().find(|(o, _)| o == onnx) {
        return Ok(blob.clone());
    }
    let blob = compile_blob_uncached(onnx)?;
    let mut recent = lock();
    if recent.len() == KEPT {
        recent.remove(0);
    }
    recent.push((onnx.to_vec(), blob.clone()));
    Ok(blob)
}

/// [`compile_blob`] without the memory of recent blobs.
fn compile_blob_uncached(onnx: &[u8]) -> Result<Vec<u8>, String> {
    let api = ffi::api()?;
    let hints = compile_hints();
    let props = Properties::new(&hints).map_err(|e| e.to_string())?;
    let mut o = Objects::new(api);
    let path = temp_path();
    let c_path = CString::new(path.to_string_lossy().as_bytes())
        .map_err(|_| format!("a temporary path with a NUL byte: {}", path.display()))?;
    let device = CString::new(DEVICE).expect("no NUL");
    // SAFETY: every out-parameter is valid; the model bytes outlive the read; the model is
    // freed once compiled; the objects are freed by `o`.
    unsafe {
        api.check((api.core_create)(&mut o.core), "ov_core_create")?;
        let mut model = std::ptr::null_mut();
        api.check(
            (api.core_read_model_from_memory_buffer)(
                o.core,
                onnx.as_ptr().cast(),
                onnx.len(),
                std::ptr::null_mut(),
                &mut model,
            ),
            "reading the ONNX model",
        )?;
        let status = (api.core_compile_model_props)(
            o.core,
            model,
            device.as_ptr(),
            props.props.len(),
            props.props.as_ptr(),
            &mut o.compiled,
        );
        (api.model_free)(model);
        api.check(status, "compiling for CPU")?;
        let status = (api.compiled_model_export_model)(o.compiled, c_path.as_ptr());
        let blob = api
            .check(status, "ov_compiled_model_export_model")
            .and_then(|()| {
                std::fs::read(&path).map_err(|e| format!("reading {}: {e}", path.display()))
            });
        let _ = std::fs::remove_file(&path);
        Ok(encode_blob(DEVICE, &hints, &blob?))
    }
}

/// [`OpenvinoRuntime::load`], typed: an [`FORMAT`] artifact is read and compiled, a
/// [`BLOB_FORMAT`] one imported.
pub fn load(artifact: &Artifact) -> Result<OpenvinoExecutable, RtError> {
    if !artifact.sdk_version.starts_with(SDK_PREFIX) {
        return Err(RtError::Version {
            target: NAME.into(),
            got: artifact.sdk_version.clone(),
            supported: format!("{SDK_PREFIX}*"),
        });
    }
    match artifact.format.as_str() {
        FORMAT => load_onnx(artifact),
        BLOB_FORMAT => load_blob(artifact),
        _ => Err(RtError::Format {
            target: artifact.target.clone(),
            expected: format!("{FORMAT}' or '{BLOB_FORMAT}"),
            got: artifact.format.clone(),
        }),
    }
}

/// The loaded OpenVINO, or the error saying the target is unavailable.
fn loaded_api() -> Result<&'static ffi::Api, RtError> {
    ffi::api().map_err(|e| RtError::run(format!("the openvino target is unavailable: {e}")))
}

/// Reads the ONNX model of `artifact` and compiles it for the CPU.
fn load_onnx(artifact: &Artifact) -> Result<OpenvinoExecutable, RtError> {
    let api = loaded_api()?;
    let fail = |e: String| RtError::run(format!("openvino: {e}"));
    let mut o = Objects::new(api);
    let props = Properties::new(&with_threads(compile_hints()))?;
    let device = CString::new(DEVICE).expect("no NUL");
    // SAFETY: every out-parameter is a valid pointer; the model bytes outlive the read (the
    // ONNX frontend copies what it keeps); the model is freed once compiled.
    unsafe {
        api.check((api.core_create)(&mut o.core), "ov_core_create")
            .map_err(fail)?;
        let mut model = std::ptr::null_mut();
        api.check(
            (api.core_read_model_from_memory_buffer)(
                o.core,
                artifact.bytes.as_ptr().cast(),
                artifact.bytes.len(),
                std::ptr::null_mut(),
                &mut model,
            ),
            "reading the ONNX model",
        )
        .map_err(|e| RtError::corrupt(NAME, e))?;
        let status = (api.core_compile_model_props)(
            o.core,
            model,
            device.as_ptr(),
            props.props.len(),
            props.props.as_ptr(),
            &mut o.compiled,
        );
        (api.model_free)(model);
        api.check(status, "compiling for CPU").map_err(fail)?;
    }
    o.finish()
}

/// Imports the blob of `artifact`, which must come from the loaded OpenVINO's version.
fn load_blob(artifact: &Artifact) -> Result<OpenvinoExecutable, RtError> {
    let api = loaded_api()?;
    let loaded = api
        .version()
        .map(|v| format!("{SDK_PREFIX}{v}"))
        .map_err(|e| RtError::run(format!("openvino: {e}")))?;
    if artifact.sdk_version != loaded {
        return Err(RtError::Version {
            target: NAME.into(),
            got: artifact.sdk_version.clone(),
            supported: format!(
                "only blobs of the loaded {loaded}, from {}: recompile the package with it",
                api.path
            ),
        });
    }
    let blob = decode_blob(&artifact.bytes).map_err(|e| RtError::corrupt(NAME, e))?;
    if blob.device != DEVICE {
        return Err(RtError::corrupt(
            NAME,
            format!(
                "a blob compiled for device '{}' (this runtime runs '{DEVICE}')",
                blob.device
            ),
        ));
    }
    let fail = |e: String| RtError::run(format!("openvino: {e}"));
    let mut o = Objects::new(api);
    o.blob = blob.blob.to_vec();
    // Import takes no properties: the precision and thread count are set on the core first.
    let props = Properties::new(&with_threads(blob.hints.clone()))?;
    let device = CString::new(DEVICE).expect("no NUL");
    // SAFETY: every out-parameter is valid; the blob the import reads (and keeps referring to)
    // is `o.blob`, which outlives the compiled model.
    unsafe {
        api.check((api.core_create)(&mut o.core), "ov_core_create")
            .map_err(fail)?;
        api.check(
            (api.core_set_properties)(
                o.core,
                device.as_ptr(),
                props.props.len(),
                props.props.as_ptr(),
            ),
            "setting the blob's properties",
        )
        .map_err(fail)?;
        api.check(
            (api.core_import_model)(
                o.core,
                o.blob.as_ptr().cast(),
                o.blob.len(),
                device.as_ptr(),
                &mut o.compiled,
            ),
            "importing the compiled blob",
        )
        .map_err(|e| RtError::corrupt(NAME, e))?;
    }
    o.finish()
}

impl Objects {
    fn new(api: &'static ffi::Api) -> Objects {
        Objects {
            api,
            core: std::ptr::null_mut(),
            compiled: std::ptr::null_mut(),
            request: std::ptr::null_mut(),
            blob: Vec::new(),
        }
    }

    /// The executable of a compiled model: its infer request, created once, and its counts.
    fn finish(mut self) -> Result<OpenvinoExecutable, RtError> {
        let api = self.api;
        let fail = |e: String| RtError::run(format!("openvino: {e}"));
        let (mut inputs, mut outputs) = (0, 0);
        // SAFETY: the compiled model is live; out-parameters are valid.
        unsafe {
            api.check(
                (api.compiled_model_create_infer_request)(self.compiled, &mut self.request),
                "ov_compiled_model_create_infer_request",
            )
            .map_err(fail)?;
            api.check(
                (api.compiled_model_inputs_size)(self.compiled, &mut inputs),
                "ov_compiled_model_inputs_size",
            )
            .map_err(fail)?;
            api.check(
                (api.compiled_model_outputs_size)(self.compiled, &mut outputs),
                "ov_compiled_model_outputs_size",
            )
            .map_err(fail)?;
        }
        Ok(OpenvinoExecutable {
            objects: Mutex::new(self),
            inputs,
            outputs,
        })
    }
}

impl OpenvinoExecutable {
    /// The compiled model's value of property `key` (`INFERENCE_PRECISION_HINT` gives `f32`).
    pub fn property(&self, key: &str) -> Result<String, RtError> {
        let o = self
            .objects
            .lock()
            .map_err(|_| RtError::run("openvino: an earlier run panicked"))?;
        let c_key = CString::new(key).map_err(|_| RtError::run("a key with a NUL byte"))?;
        let mut value: *mut std::ffi::c_char = std::ptr::null_mut();
        // SAFETY: the compiled model is live; the returned string is freed with ov_free.
        unsafe {
            o.api
                .check(
                    (o.api.compiled_model_get_property)(o.compiled, c_key.as_ptr(), &mut value),
                    &format!("getting property {key}"),
                )
                .map_err(|e| RtError::run(format!("openvino: {e}")))?;
            if value.is_null() {
                return Ok(String::new());
            }
            let s = std::ffi::CStr::from_ptr(value)
                .to_string_lossy()
                .into_owned();
            (o.api.free)(value);
            Ok(s)
        }
    }
}

/// The environment variable that caps the threads OpenVINO's CPU plugin uses for one
/// inference (its `INFERENCE_NUM_THREADS`); unset, OpenVINO chooses (every core).
pub const THREADS_ENV: &str = "NART_OPENVINO_THREADS";

/// A positive thread count from [`THREADS_ENV`], if set to one.
fn threads_from_env() -> Option<u32> {
    std::env::var(THREADS_ENV)
        .ok()
        .and_then(|v| v.trim().parse::<u32>().ok())
        .filter(|&n| n > 0)
}

/// The OpenVINO element type of `dtype`, for the types segments exchange.
fn element_type(dtype: DType) -> Option<std::ffi::c_int> {
    match dtype {
        DType::F32 => Some(ffi::ELEM_F32),
        DType::I32 => Some(ffi::ELEM_I32),
        DType::I64 => Some(ffi::ELEM_I64),
        _ => None,
    }
}

/// A pointer to the elements of `t` (f32, i32 or i64).
fn data_ptr(t: &Tensor) -> Option<*mut c_void> {
    let p: *const c_void = match t.dtype() {
        DType::F32 => t.as_slice::<f32>()?.as_ptr().cast(),
        DType::I32 => t.as_slice::<i32>()?.as_ptr().cast(),
        DType::I64 => t.as_slice::<i64>()?.as_ptr().cast(),
        _ => return None,
    };
    Some(p.cast_mut())
}

/// Copies `n` elements of `ty` at `p` into a tensor of `shape`.
///
/// # Safety
/// `p` must point to `n` valid elements of `ty`.
unsafe fn copy_out(
    ty: std::ffi::c_int,
    shape: Vec<usize>,
    p: *const c_void,
    n: usize,
) -> Result<Tensor, RtError> {
    // SAFETY: the caller vouches for `n` elements of `ty` at `p`; `slice` reads nothing when
    // `n` is 0.
    let t = unsafe {
        match ty {
            ffi::ELEM_F32 => Tensor::from_vec(shape, slice::<f32>(p, n).to_vec()),
            ffi::ELEM_I32 => Tensor::from_vec(shape, slice::<i32>(p, n).to_vec()),
            ffi::ELEM_I64 => Tensor::from_vec(shape, slice::<i64>(p, n).to_vec()),
            other => {
                return Err(RtError::run(format!(
                    "openvino: an output of element type #{other}, which segments do not \
                     exchange"
                )))
            }
        }
    };
    t.map_err(|e| RtError::run(format!("openvino: an output: {e}")))
}

/// `n` elements of `T` at `p` (none when `n` is 0, whatever `p` is).
///
/// # Safety
/// Where `n > 0`, `p` must point to `n` valid, aligned elements of `T`.
unsafe fn slice<'a, T>(p: *const c_void, n: usize) -> &'a [T] {
    if n == 0 {
        &[]
    } else {
        // SAFETY: as the caller vouches.
        unsafe { std::slice::from_raw_parts(p.cast::<T>(), n) }
    }
}

impl Executable for OpenvinoExecutable {
    fn run(&self, inputs: &[Tensor]) -> Result<Vec<Tensor>, RtError> {
        if inputs.len() != self.inputs {
            return Err(RtError::inputs(format!(
                "expected {} inputs, got {}",
                self.inputs,
                inputs.len()
            )));
        }
        let o = self
            .objects
            .lock()
            .map_err(|_| RtError::run("openvino: an earlier run panicked"))?;
        let api = o.api;
        let fail = |e: String| RtError::run(format!("openvino: {e}"));
        // The input tensors wrap the callers' buffers; they are freed after the inference.
        let mut wrapped: Vec<ffi::Handle> = Vec::with_capacity(inputs.len());
        let free_all = |w: &[ffi::Handle]| {
            for &t in w {
                // SAFETY: each was created by ov_tensor_create_from_host_ptr, freed once.
                unsafe { (api.tensor_free)(t) };
            }
        };
        let result = (|| {
            for (i, t) in inputs.iter().enumerate() {
                let (Some(ty), Some(p)) = (element_type(t.dtype()), data_ptr(t)) else {
                    return Err(RtError::inputs(format!(
                        "input #{i}: element type {} (the openvino target exchanges f32, i32 \
                         and i64)",
                        t.dtype()
                    )));
                };
                let mut dims: Vec<i64> = t.shape().iter().map(|&d| d as i64).collect();
                let shape = ffi::Shape {
                    rank: dims.len() as i64,
                    dims: dims.as_mut_ptr(),
                };
                let mut h = std::ptr::null_mut();
                // SAFETY: `p` points to the tensor's elements, which outlive the inference
                // (OpenVINO only reads an input); the shape's dims are copied by the call.
                unsafe {
                    api.check(
                        (api.tensor_create_from_host_ptr)(ty, shape, p, &mut h),
                        "ov_tensor_create_from_host_ptr",
                    )
                    .map_err(fail)?;
                }
                wrapped.push(h);
                // SAFETY: the request and the tensor are live.
                unsafe {
                    api.check(
                        (api.infer_request_set_input_tensor_by_index)(o.request, i, h),
                        &format!("setting input #{i}"),
                    )
                    .map_err(|e| RtError::inputs(format!("openvino: {e}")))?;
                }
            }
            // SAFETY: the request is live and has all its inputs.
            unsafe {
                api.check((api.infer_request_infer)(o.request), "inference")
                    .map_err(fail)?;
            }
            let mut out = Vec::with_capacity(self.outputs);
            for i in 0..self.outputs {
                let mut h = std::ptr::null_mut();
                // SAFETY: out-parameters are valid; the output tensor and its shape are freed
                // after copying.
                unsafe {
                    api.check(
                        (api.infer_request_get_output_tensor_by_index)(o.request, i, &mut h),
                        &format!("getting output #{i}"),
                    )
                    .map_err(fail)?;
                    let got = (|| {
                        let mut ty = 0;
                        api.check(
                            (api.tensor_get_element_type)(h, &mut ty),
                            "ov_tensor_get_element_type",
                        )
                        .map_err(fail)?;
                        let mut s = ffi::Shape {
                            rank: 0,
                            dims: std::ptr::null_mut(),
                        };
                        let status = (api.tensor_get_shape)(h, &mut s);
                        if status == ffi::INVALID_C_PARAM {
                            // The C API cannot express a rank-0 shape (it wants a positive
                            // rank): a scalar output is refused this way; its size is 1.
                            let mut size = 0;
                            api.check((api.tensor_get_size)(h, &mut size), "ov_tensor_get_size")
                                .map_err(fail)?;
                            if size != 1 {
                                api.check(status, "ov_tensor_get_shape").map_err(fail)?;
                            }
                            s.rank = 0;
                            s.dims = std::ptr::null_mut();
                        } else {
                            api.check(status, "ov_tensor_get_shape").map_err(fail)?;
                        }
                        let shape: Vec<usize> = if s.rank > 0 && !s.dims.is_null() {
                            std::slice::from_raw_parts(s.dims, s.rank as usize)
                                .iter()
                                .map(|&d| d as usize)
                                .collect()
                        } else {
                            Vec::new()
                        };
                        if !s.dims.is_null() {
                            (api.shape_free)(&mut s);
                        }
                        let n: usize = shape.iter().product();
                        let mut p = std::ptr::null_mut();
                        api.check((api.tensor_data)(h, &mut p), "ov_tensor_data")
                            .map_err(fail)?;
                        if n > 0 && p.is_null() {
                            return Err(RtError::run("openvino: an output without data"));
                        }
                        copy_out(ty, shape, p, n)
                    })();
                    (api.tensor_free)(h);
                    out.push(got?);
                }
            }
            Ok(out)
        })();
        free_all(&wrapped);
        result
    }
}
