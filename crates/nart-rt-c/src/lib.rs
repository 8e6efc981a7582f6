//! The C API of the nart runtime: the functions declared in `include/nart_rt.h`, built as the
//! shared library `libnart_rt_c.so`.
//!
//! Every function returns a status (`0` success, `-1` failure) or a value with a documented
//! failure value, and leaves a message for [`nart_last_error`] when it fails. No panic crosses
//! the boundary: each body runs under `catch_unwind`, and a panic becomes an error whose
//! message says so. Null pointers, out-of-range indices and buffers of the wrong size are
//! errors with messages, never undefined behaviour on the Rust side.
//!
//! Element types are ONNX `TensorProto.DataType` codes (1 = float32, 7 = int64, ...); tensor
//! data is dense, row-major, in the machine's byte order.

#![deny(missing_docs)]

use std::cell::RefCell;
use std::ffi::{c_char, CStr, CString};
use std::panic::{catch_unwind, AssertUnwindSafe};

use nart_rt::manifest::{Dim, TensorSpec};
use nart_rt::{Package, Session};
use nart_tensor::{DType, Data, Tensor};

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_error(message: &str) {
    let c = CString::new(message.replace('\0', " ")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = c);
}

/// Runs `f`, turning an `Err` or a panic into `fail` with the message saved.
fn guard<T>(fail: T, f: impl FnOnce() -> Result<T, String>) -> T {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => v,
        Ok(Err(m)) => {
            set_error(&m);
            fail
        }
        Err(p) => {
            let m = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            set_error(&format!("internal error (a panic in nart-rt): {m}"));
            fail
        }
    }
}

/// An opened package (`nart_package` in C).
pub struct NartPackage {
    package: Package,
    /// The names of inputs then outputs, NUL-terminated, for the `*_name` functions.
    names: Vec<CString>,
    /// The symbolic dimension names of every input then output.
    dim_names: Vec<Vec<Option<CString>>>,
}

/// A loaded session and the outputs of its last run (`nart_session` in C).
pub struct NartSession {
    session: Session,
    outputs: Vec<Tensor>,
    shapes: Vec<Vec<i64>>,
}

/// A tensor passed in or out: element type, shape and data (`nart_tensor` in C).
#[repr(C)]
pub struct NartTensor {
    /// The ONNX element type code.
    pub dtype: i32,
    /// The number of dimensions.
    pub rank: usize,
    /// `rank` sizes.
    pub dims: *const i64,
    /// The elements, row-major.
    pub data: *const u8,
    /// The size of `data` in bytes.
    pub nbytes: usize,
}

/// `NART_INPUT` in C.
pub const NART_INPUT: i32 = 0;
/// `NART_OUTPUT` in C.
pub const NART_OUTPUT: i32 = 1;

fn wrap_package(package: Package) -> Result<*mut NartPackage, String> {
    let m = package.manifest();
    let specs: Vec<&TensorSpec> = m.inputs.iter().chain(&m.outputs).collect();
    let cstr = |s: &str| CString::new(s).map_err(|_| format!("name '{s}' holds a NUL byte"));
    let names = specs
        .iter()
        .map(|t| cstr(&t.name))
        .collect::<Result<Vec<_>, _>>()?;
    let dim_names = specs
        .iter()
        .map(|t| {
            t.shape
                .iter()
                .flatten()
                .map(|d| match d {
                    Dim::Static(_) => Ok(None),
                    Dim::Symbol(s) => cstr(s).map(Some),
                })
                .collect::<Result<Vec<_>, _>>()
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Box::into_raw(Box::new(NartPackage {
        package,
        names,
        dim_names,
    })))
}

/// Writes `p` to `*out`, or fails if `out` is null.
unsafe fn give<T>(out: *mut *mut T, p: Result<*mut T, String>) -> Result<i32, String> {
    let p = p?;
    // SAFETY: the caller passes a valid, non-null pointer to write to (checked before).
    unsafe { *out = p };
    Ok(0)
}

/// Opens the package at `path` (a NUL-terminated path); on success stores it in `*out`.
///
/// # Safety
/// `path` must be null or a NUL-terminated string; `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn nart_package_open(path: *const c_char, out: *mut *mut NartPackage) -> i32 {
    guard(-1, || {
        if path.is_null() || out.is_null() {
            return Err("nart_package_open: path and out must not be null".into());
        }
        // SAFETY: non-null, and NUL-terminated by the contract.
        let path = unsafe { CStr::from_ptr(path) };
        let path = path
            .to_str()
            .map_err(|_| "nart_package_open: the path is not UTF-8".to_string())?;
        let p = Package::open(path).map_err(|e| e.to_string());
        // SAFETY: `out` is non-null and writable by the contract.
        unsafe { give(out, p.and_then(wrap_package)) }
    })
}

/// Opens a package from `len` bytes at `data` (copied); on success stores it in `*out`.
///
/// # Safety
/// `data` must be null or point to `len` readable bytes; `out` must be null or writable.
#[no_mangle]
pub unsafe extern "C" fn nart_package_from_memory(
    data: *const u8,
    len: usize,
    out: *mut *mut NartPackage,
) -> i32 {
    guard(-1, || {
        if data.is_null() || out.is_null() {
            return Err("nart_package_from_memory: data and out must not be null".into());
        }
        // SAFETY: `data` points to `len` readable bytes by the contract.
        let bytes = unsafe { std::slice::from_raw_parts(data, len) }.to_vec();
        let p = Package::from_bytes(bytes).map_err(|e| e.to_string());
        // SAFETY: `out` is non-null and writable by the contract.
        unsafe { give(out, p.and_then(wrap_package)) }
    })
}

/// Frees a package (null is allowed). Sessions created from it stay valid.
///
/// # Safety
/// `pkg` must be null or a package from this library, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn nart_package_free(pkg: *mut NartPackage) {
    if !pkg.is_null() {
        // SAFETY: from `Box::into_raw` in this library, freed once by the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(pkg) })));
    }
}

/// The spec of input (`kind` = `NART_INPUT`) or output (`NART_OUTPUT`) `index`, and its
/// position among inputs then outputs.
fn spec(pkg: &NartPackage, kind: i32, index: usize) -> Result<(&TensorSpec, usize), String> {
    let m = pkg.package.manifest();
    let (list, base, what) = match kind {
        NART_INPUT => (&m.inputs, 0, "input"),
        NART_OUTPUT => (&m.outputs, m.inputs.len(), "output"),
        k => {
            return Err(format!(
                "kind {k} is neither NART_INPUT (0) nor NART_OUTPUT (1)"
            ))
        }
    };
    list.get(index).map(|t| (t, base + index)).ok_or_else(|| {
        format!(
            "{what} index {index} is out of range (the package has {} {what}s)",
            list.len()
        )
    })
}

/// Borrows `pkg`, or fails if it is null.
unsafe fn pkg_ref<'a>(pkg: *const NartPackage, f: &str) -> Result<&'a NartPackage, String> {
    // SAFETY: null or a live package from this library, by the contract.
    unsafe { pkg.as_ref() }.ok_or_else(|| format!("{f}: the package is null"))
}

/// The number of inputs (`NART_INPUT`) or outputs (`NART_OUTPUT`); -1 on error.
///
/// # Safety
/// `pkg` must be null or a live package from this library.
#[no_mangle]
pub unsafe extern "C" fn nart_package_count(pkg: *const NartPackage, kind: i32) -> i64 {
    guard(-1, || {
        // SAFETY: by the contract.
        let p = unsafe { pkg_ref(pkg, "nart_package_count") }?;
        let m = p.package.manifest();
        match kind {
            NART_INPUT => Ok(m.inputs.len() as i64),
            NART_OUTPUT => Ok(m.outputs.len() as i64),
            k => Err(format!(
                "nart_package_count: kind {k} is neither NART_INPUT (0) nor NART_OUTPUT (1)"
            )),
        }
    })
}

/// The name of an input or output, valid while the package lives; null on error.
///
/// # Safety
/// `pkg` must be null or a live package from this library.
#[no_mangle]
pub unsafe extern "C" fn nart_package_name(
    pkg: *const NartPackage,
    kind: i32,
    index: usize,
) -> *const c_char {
    guard(std::ptr::null(), || {
        // SAFETY: by the contract.
        let p = unsafe { pkg_ref(pkg, "nart_package_name") }?;
        let (_, at) = spec(p, kind, index).map_err(|e| format!("nart_package_name: {e}"))?;
        Ok(p.names[at].as_ptr())
    })
}

/// The ONNX element type code of an input or output; -1 on error.
///
/// # Safety
/// `pkg` must be null or a live package from this library.
#[no_mangle]
pub unsafe extern "C" fn nart_package_dtype(
    pkg: *const NartPackage,
    kind: i32,
    index: usize,
) -> i32 {
    guard(-1, || {
        // SAFETY: by the contract.
        let p = unsafe { pkg_ref(pkg, "nart_package_dtype") }?;
        let (t, _) = spec(p, kind, index).map_err(|e| format!("nart_package_dtype: {e}"))?;
        t.dtype()
            .map(DType::onnx_code)
            .ok_or_else(|| format!("nart_package_dtype: unknown dtype '{}'", t.dtype))
    })
}

/// The rank of an input or output: -1 on error, -2 for an unknown rank.
///
/// # Safety
/// `pkg` must be null or a live package from this library.
#[no_mangle]
pub unsafe extern "C" fn nart_package_rank(
    pkg: *const NartPackage,
    kind: i32,
    index: usize,
) -> i64 {
    guard(-1, || {
        // SAFETY: by the contract.
        let p = unsafe { pkg_ref(pkg, "nart_package_rank") }?;
        let (t, _) = spec(p, kind, index).map_err(|e| format!("nart_package_rank: {e}"))?;
        Ok(t.shape.as_ref().map_or(-2, |s| s.len() as i64))
    })
}

/// Dimension `dim` of an input or output: its size, or -2 for a symbolic dimension (whose
/// name, when it has one, is stored in `*symbol` if `symbol` is not null, valid while the
/// package lives); -1 on error.
///
/// # Safety
/// `pkg` must be null or a live package from this library; `symbol` null or writable.
#[no_mangle]
pub unsafe extern "C" fn nart_package_dim(
    pkg: *const NartPackage,
    kind: i32,
    index: usize,
    dim: usize,
    symbol: *mut *const c_char,
) -> i64 {
    guard(-1, || {
        // SAFETY: by the contract.
        let p = unsafe { pkg_ref(pkg, "nart_package_dim") }?;
        let (t, at) = spec(p, kind, index).map_err(|e| format!("nart_package_dim: {e}"))?;
        let dims = t.shape.as_deref().unwrap_or_default();
        let d = dims.get(dim).ok_or_else(|| {
            format!(
                "nart_package_dim: dimension {dim} is out of range ('{}' has rank {})",
                t.name,
                dims.len()
            )
        })?;
        if !symbol.is_null() {
            let name = p.dim_names[at][dim]
                .as_ref()
                .map_or(std::ptr::null(), |c| c.as_ptr());
            // SAFETY: non-null and writable by the contract.
            unsafe { *symbol = name };
        }
        Ok(match d {
            Dim::Static(n) => *n as i64,
            Dim::Symbol(_) => -2,
        })
    })
}

/// Loads every segment of `pkg` with the runtimes nart ships; on success stores the session
/// in `*out`.
///
/// # Safety
/// `pkg` must be null or a live package from this library; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn nart_session_create(
    pkg: *const NartPackage,
    out: *mut *mut NartSession,
) -> i32 {
    guard(-1, || {
        // SAFETY: by the contract.
        let p = unsafe { pkg_ref(pkg, "nart_session_create") }?;
        if out.is_null() {
            return Err("nart_session_create: out must not be null".into());
        }
        let session =
            Session::load(&p.package, &nart_rt_std::runtimes()).map_err(|e| e.to_string())?;
        let s = Box::into_raw(Box::new(NartSession {
            session,
            outputs: Vec::new(),
            shapes: Vec::new(),
        }));
        // SAFETY: non-null and writable by the contract.
        unsafe { give(out, Ok(s)) }
    })
}

/// Frees a session (null is allowed); the output views of its last run die with it.
///
/// # Safety
/// `s` must be null or a session from this library, not yet freed.
#[no_mangle]
pub unsafe extern "C" fn nart_session_free(s: *mut NartSession) {
    if !s.is_null() {
        // SAFETY: from `Box::into_raw` in this library, freed once by the contract.
        let _ = catch_unwind(AssertUnwindSafe(|| drop(unsafe { Box::from_raw(s) })));
    }
}

macro_rules! decode {
    ($bytes:expr, $ty:ty, $variant:ident) => {
        Data::$variant(
            $bytes
                .chunks_exact(std::mem::size_of::<$ty>())
                .map(|c| <$ty>::from_ne_bytes(c.try_into().expect("chunks_exact")))
                .collect(),
        )
    };
}

/// The tensor of a C view, checked: known dtype, non-negative dims, `nbytes` matching.
fn tensor_of(k: usize, spec: &TensorSpec, v: &NartTensor) -> Result<Tensor, String> {
    let name = &spec.name;
    let dtype = DType::from_onnx_code(v.dtype)
        .ok_or_else(|| format!("input #{k} '{name}': unknown dtype code {}", v.dtype))?;
    if v.rank > 0 && v.dims.is_null() {
        return Err(format!(
            "input #{k} '{name}': dims is null for rank {}",
            v.rank
        ));
    }
    let dims: &[i64] = if v.rank == 0 {
        &[]
    } else {
        // SAFETY: non-null and `rank` long by the contract.
        unsafe { std::slice::from_raw_parts(v.dims, v.rank) }
    };
    let shape = dims
        .iter()
        .map(|&d| {
            usize::try_from(d)
                .map_err(|_| format!("input #{k} '{name}': dimension {d} is negative"))
        })
        .collect::<Result<Vec<usize>, _>>()?;
    let n = shape
        .iter()
        .try_fold(1usize, |a, &d| a.checked_mul(d))
        .ok_or_else(|| format!("input #{k} '{name}': the shape {shape:?} overflows"))?;
    let elem = match dtype {
        DType::F32 | DType::I32 | DType::U32 => 4,
        DType::F64 | DType::I64 | DType::U64 => 8,
        DType::I16 | DType::U16 => 2,
        DType::I8 | DType::U8 | DType::Bool => 1,
        d => {
            return Err(format!(
                "input #{k} '{name}': dtype {} is not supported by the C API",
                d.name()
            ))
        }
    };
    let want = n.saturating_mul(elem);
    if v.nbytes != want {
        return Err(format!(
            "input #{k} '{name}': shape {shape:?} of {} needs {want} bytes, nbytes is {}",
            dtype.name(),
            v.nbytes
        ));
    }
    if want > 0 && v.data.is_null() {
        return Err(format!("input #{k} '{name}': data is null"));
    }
    let bytes: &[u8] = if want == 0 {
        &[]
    } else {
        // SAFETY: non-null and `nbytes` long by the contract.
        unsafe { std::slice::from_raw_parts(v.data, want) }
    };
    let data = match dtype {
        DType::F32 => decode!(bytes, f32, F32),
        DType::F64 => decode!(bytes, f64, F64),
        DType::I8 => decode!(bytes, i8, I8),
        DType::I16 => decode!(bytes, i16, I16),
        DType::I32 => decode!(bytes, i32, I32),
        DType::I64 => decode!(bytes, i64, I64),
        DType::U8 => Data::U8(bytes.to_vec()),
        DType::U16 => decode!(bytes, u16, U16),
        DType::U32 => decode!(bytes, u32, U32),
        DType::U64 => decode!(bytes, u64, U64),
        DType::Bool => Data::Bool(bytes.iter().map(|&b| b != 0).collect()),
        _ => unreachable!("dtypes are filtered above"),
    };
    Tensor::new(dtype, shape, data).map_err(|e| format!("input #{k} '{name}': {e}"))
}

/// Runs the session on `n_inputs` tensors (in the package's input order, checked against its
/// manifest). The outputs stay in the session until the next run; read them with
/// [`nart_session_output`].
///
/// # Safety
/// `s` must be null or a live session; `inputs` null or `n_inputs` readable views whose
/// `dims` and `data` point to `rank` sizes and `nbytes` bytes.
#[no_mangle]
pub unsafe extern "C" fn nart_session_run(
    s: *mut NartSession,
    inputs: *const NartTensor,
    n_inputs: usize,
) -> i32 {
    guard(-1, || {
        // SAFETY: null or a live session by the contract.
        let s = unsafe { s.as_mut() }.ok_or("nart_session_run: the session is null")?;
        s.outputs.clear();
        s.shapes.clear();
        if inputs.is_null() && n_inputs > 0 {
            return Err("nart_session_run: inputs is null".into());
        }
        let views: &[NartTensor] = if n_inputs == 0 {
            &[]
        } else {
            // SAFETY: `n_inputs` readable views by the contract.
            unsafe { std::slice::from_raw_parts(inputs, n_inputs) }
        };
        let specs = s.session.inputs();
        if views.len() != specs.len() {
            let names: Vec<String> = specs.iter().map(|t| format!("'{}'", t.name)).collect();
            return Err(format!(
                "bad inputs: expected {} inputs ({}), given {}",
                specs.len(),
                names.join(", "),
                views.len()
            ));
        }
        let xs = views
            .iter()
            .zip(specs)
            .enumerate()
            .map(|(k, (v, spec))| tensor_of(k, spec, v))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| format!("bad inputs: {e}"))?;
        let ys = s.session.run(xs).map_err(|e| e.to_string())?;
        s.shapes = ys
            .iter()
            .map(|t| t.shape().iter().map(|&d| d as i64).collect())
            .collect();
        s.outputs = ys;
        Ok(0)
    })
}

/// The bytes of `t`'s elements, in the machine's order, if the C API can hand them out.
fn raw_bytes(t: &Tensor) -> Option<(*const u8, usize)> {
    fn raw<T>(v: &[T]) -> (*const u8, usize) {
        (v.as_ptr().cast(), std::mem::size_of_val(v))
    }
    Some(match t.data() {
        Data::F32(v) => raw(v),
        Data::F64(v) => raw(v),
        Data::F16(v) => raw(v),
        Data::BF16(v) => raw(v),
        Data::I8(v) => raw(v),
        Data::I16(v) => raw(v),
        Data::I32(v) => raw(v),
        Data::I64(v) => raw(v),
        Data::U8(v) => raw(v),
        Data::U16(v) => raw(v),
        Data::U32(v) => raw(v),
        Data::U64(v) => raw(v),
        // Rust's bool is one byte, 0 or 1.
        Data::Bool(v) => raw(v),
        _ => return None,
    })
}

/// Output `index` of the last successful run, as a view valid until the next run or until
/// the session is freed.
///
/// # Safety
/// `s` must be null or a live session; `out` null or writable.
#[no_mangle]
pub unsafe extern "C" fn nart_session_output(
    s: *const NartSession,
    index: usize,
    out: *mut NartTensor,
) -> i32 {
    guard(-1, || {
        // SAFETY: null or a live session by the contract.
        let s = unsafe { s.as_ref() }.ok_or("nart_session_output: the session is null")?;
        if out.is_null() {
            return Err("nart_session_output: out must not be null".into());
        }
        let t = s.outputs.get(index).ok_or_else(|| {
            format!(
                "nart_session_output: no output {index} (the last successful run produced {})",
                s.outputs.len()
            )
        })?;
        let (data, nbytes) = raw_bytes(t).ok_or_else(|| {
            format!(
                "nart_session_output: dtype {} is not supported by the C API",
                t.dtype().name()
            )
        })?;
        let view = NartTensor {
            dtype: t.dtype().onnx_code(),
            rank: t.rank(),
            dims: s.shapes[index].as_ptr(),
            data,
            nbytes,
        };
        // SAFETY: non-null and writable by the contract.
        unsafe { *out = view };
        Ok(0)
    })
}

/// The message of the last failure on this thread ("" if none), valid until the next call
/// into this library on this thread.
#[no_mangle]
pub extern "C" fn nart_last_error() -> *const c_char {
    LAST_ERROR.with(|e| e.borrow().as_ptr())
}

/// The library's version, e.g. "0.1.0".
#[no_mangle]
pub extern "C" fn nart_version() -> *const c_char {
    static VERSION: &CStr =
        match CStr::from_bytes_with_nul(concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes()) {
            Ok(v) => v,
            Err(_) => panic!("the version has no NUL inside"),
        };
    VERSION.as_ptr()
}
