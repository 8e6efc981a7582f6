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
/// The format of its artifacts: a standalone ONNX model.
pub const FORMAT: &str = "onnx";
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

/// [`OpenvinoRuntime::load`], typed.
pub fn load(artifact: &Artifact) -> Result<OpenvinoExecutable, RtError> {
    artifact.expect_format(FORMAT)?;
    if !artifact.sdk_version.starts_with(SDK_PREFIX) {
        return Err(RtError::Version {
            target: NAME.into(),
            got: artifact.sdk_version.clone(),
            supported: format!("{SDK_PREFIX}*"),
        });
    }
    let api =
        ffi::api().map_err(|e| RtError::run(format!("the openvino target is unavailable: {e}")))?;
    let fail = |e: String| RtError::run(format!("openvino: {e}"));
    let mut o = Objects {
        api,
        core: std::ptr::null_mut(),
        compiled: std::ptr::null_mut(),
        request: std::ptr::null_mut(),
    };
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
        let key = CString::new("INFERENCE_PRECISION_HINT").expect("no NUL");
        let f32_ = CString::new("f32").expect("no NUL");
        let hint = CString::new("PERFORMANCE_HINT").expect("no NUL");
        let latency = CString::new("LATENCY").expect("no NUL");
        let mut props = vec![
            ffi::Property {
                key: key.as_ptr(),
                value: f32_.as_ptr().cast(),
            },
            ffi::Property {
                key: hint.as_ptr(),
                value: latency.as_ptr().cast(),
            },
        ];
        let threads_key = CString::new("INFERENCE_NUM_THREADS").expect("no NUL");
        let threads = threads_from_env().map(|n| CString::new(n.to_string()).expect("digits"));
        if let Some(n) = &threads {
            props.push(ffi::Property {
                key: threads_key.as_ptr(),
                value: n.as_ptr().cast(),
            });
        }
        let device = CString::new("CPU").expect("no NUL");
        let status = (api.core_compile_model_props)(
            o.core,
            model,
            device.as_ptr(),
            props.len(),
            props.as_ptr(),
            &mut o.compiled,
        );
        (api.model_free)(model);
        api.check(status, "compiling for CPU").map_err(fail)?;
        api.check(
            (api.compiled_model_create_infer_request)(o.compiled, &mut o.request),
            "ov_compiled_model_create_infer_request",
        )
        .map_err(fail)?;
        let (mut inputs, mut outputs) = (0, 0);
        api.check(
            (api.compiled_model_inputs_size)(o.compiled, &mut inputs),
            "ov_compiled_model_inputs_size",
        )
        .map_err(fail)?;
        api.check(
            (api.compiled_model_outputs_size)(o.compiled, &mut outputs),
            "ov_compiled_model_outputs_size",
        )
        .map_err(fail)?;
        Ok(OpenvinoExecutable {
            objects: Mutex::new(o),
            inputs,
            outputs,
        })
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
