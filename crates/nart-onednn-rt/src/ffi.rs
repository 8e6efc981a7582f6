//! The part of oneDNN's C API (version 2, `dnnl.h` and `dnnl_types.h`) this runtime calls,
//! declared by hand and resolved at run time from `libdnnl.so.2`, so that nart builds and runs
//! without oneDNN and only the `onednn` target says it is unavailable.
//!
//! oneDNN 2's descriptors are structs passed by pointer; this crate never reads their fields,
//! so they are opaque byte arrays of the size and alignment the 2.6 headers give them (checked
//! against the headers by a test where a C compiler is installed).

use std::ffi::{c_char, c_int, c_uint, c_void};
use std::sync::OnceLock;

use libloading::Library;

/// `dnnl_status_t`.
pub type Status = c_int;
/// `dnnl_dims_t`: `int64_t[DNNL_MAX_NDIMS]`.
pub type Dims = [i64; MAX_NDIMS];

/// `DNNL_MAX_NDIMS`.
pub const MAX_NDIMS: usize = 12;
/// `dnnl_success`.
pub const SUCCESS: Status = 0;

/// `dnnl_memory_desc_t` (696 bytes in oneDNN 2.6).
#[repr(C, align(8))]
#[derive(Clone, Copy)]
pub struct MemoryDesc(pub [u8; 696]);

impl MemoryDesc {
    /// An all-zero descriptor, to be filled by an `_init` function (a zero descriptor is
    /// oneDNN's "no memory", used for an absent bias).
    pub fn zeroed() -> MemoryDesc {
        MemoryDesc([0; 696])
    }
}

/// Room for any of the operation descriptors used here (the largest, the convolution's, is
/// 5976 bytes in 2.6).
#[repr(C, align(8))]
pub struct OpDesc(pub [u8; 8192]);

impl OpDesc {
    /// An all-zero descriptor.
    pub fn zeroed() -> Box<OpDesc> {
        Box::new(OpDesc([0; 8192]))
    }
}

/// `dnnl_exec_arg_t`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ExecArg {
    /// `DNNL_ARG_*`.
    pub arg: c_int,
    /// The memory.
    pub memory: *mut c_void,
}

/// `dnnl_version_t`.
#[repr(C)]
pub struct Version {
    /// Major version.
    pub major: c_int,
    /// Minor version.
    pub minor: c_int,
    /// Patch version.
    pub patch: c_int,
    /// Git hash of the sources.
    pub hash: *const c_char,
    /// `DNNL_RUNTIME_*` of the CPU.
    pub cpu_runtime: c_uint,
    /// `DNNL_RUNTIME_*` of the GPU.
    pub gpu_runtime: c_uint,
}

// Enumerations (values from dnnl_types.h, 2.6).
/// `dnnl_f32`.
pub const F32: c_int = 3;
/// `dnnl_s32`.
pub const S32: c_int = 4;
/// `dnnl_s8`.
pub const S8: c_int = 5;
/// `dnnl_u8`.
pub const U8: c_int = 6;
/// `dnnl_format_tag_any`.
pub const FORMAT_ANY: c_int = 1;
/// `dnnl_cpu`.
pub const ENGINE_CPU: c_int = 1;
/// `dnnl_stream_default_flags`.
pub const STREAM_DEFAULT: c_uint = 1;
/// `dnnl_forward_inference`.
pub const FORWARD_INFERENCE: c_int = 96;
/// `dnnl_convolution_direct`.
pub const CONVOLUTION_DIRECT: c_int = 1;
/// `dnnl_pooling_max`.
pub const POOLING_MAX: c_int = 511;
/// `dnnl_pooling_avg_include_padding`.
pub const POOLING_AVG_INCLUDE: c_int = 767;
/// `dnnl_pooling_avg_exclude_padding`.
pub const POOLING_AVG_EXCLUDE: c_int = 1023;
/// `dnnl_softmax_accurate`.
pub const SOFTMAX_ACCURATE: c_int = 196608;
/// `dnnl_softmax_log`.
pub const SOFTMAX_LOG: c_int = 196609;
/// `dnnl_use_global_stats`.
pub const USE_GLOBAL_STATS: c_uint = 1;
/// `dnnl_use_scale`.
pub const USE_SCALE: c_uint = 8;
/// `dnnl_use_shift`.
pub const USE_SHIFT: c_uint = 16;
/// `dnnl_query_weights_md`.
pub const QUERY_WEIGHTS_MD: c_int = 131;
/// `dnnl_query_scratchpad_md`.
pub const QUERY_SCRATCHPAD_MD: c_int = 136;
/// `dnnl_scratchpad_mode_user`.
pub const SCRATCHPAD_USER: c_int = 1;
/// `DNNL_ARG_SCRATCHPAD`.
pub const ARG_SCRATCHPAD: c_int = 80;
/// `DNNL_ARG_ATTR_MULTIPLE_POST_OP(i)`: the arguments of post-op `i`.
pub const fn arg_post_op(i: usize) -> c_int {
    16384 * (i as c_int + 1)
}
/// `DNNL_ARG_SRC` (also `DNNL_ARG_FROM`).
pub const ARG_SRC: c_int = 1;
/// `DNNL_ARG_SRC_1`.
pub const ARG_SRC_1: c_int = 2;
/// `DNNL_ARG_DST` (also `DNNL_ARG_TO`).
pub const ARG_DST: c_int = 17;
/// `DNNL_ARG_WEIGHTS`.
pub const ARG_WEIGHTS: c_int = 33;
/// `DNNL_ARG_BIAS`.
pub const ARG_BIAS: c_int = 41;
/// `DNNL_ARG_MEAN`.
pub const ARG_MEAN: c_int = 49;
/// `DNNL_ARG_VARIANCE`.
pub const ARG_VARIANCE: c_int = 50;
/// `DNNL_ARG_SCALE`.
pub const ARG_SCALE: c_int = 51;
/// `DNNL_ARG_SHIFT`.
pub const ARG_SHIFT: c_int = 52;

/// Eltwise algorithms (`dnnl_eltwise_*`).
pub mod eltwise {
    use std::ffi::c_int;
    /// `dnnl_eltwise_relu` (alpha: the negative slope).
    pub const RELU: c_int = 31;
    /// `dnnl_eltwise_tanh`.
    pub const TANH: c_int = 47;
    /// `dnnl_eltwise_elu`.
    pub const ELU: c_int = 63;
    /// `dnnl_eltwise_abs`.
    pub const ABS: c_int = 95;
    /// `dnnl_eltwise_sqrt`.
    pub const SQRT: c_int = 111;
    /// `dnnl_eltwise_linear` (alpha * x + beta).
    pub const LINEAR: c_int = 127;
    /// `dnnl_eltwise_logistic`.
    pub const LOGISTIC: c_int = 175;
    /// `dnnl_eltwise_exp`.
    pub const EXP: c_int = 191;
    /// `dnnl_eltwise_log`.
    pub const LOG: c_int = 239;
    /// `dnnl_eltwise_clip_v2` (max(alpha, min(beta, x))).
    pub const CLIP_V2: c_int = 16;
    /// `dnnl_eltwise_gelu_erf`.
    pub const GELU_ERF: c_int = 48;
    /// `dnnl_eltwise_gelu_tanh`.
    pub const GELU_TANH: c_int = 207;
    /// `dnnl_eltwise_hardswish`.
    pub const HARDSWISH: c_int = 112;
    /// `dnnl_eltwise_mish`.
    pub const MISH: c_int = 96;
}

/// Binary algorithms (`dnnl_binary_*`).
pub mod binary {
    use std::ffi::c_int;
    /// `dnnl_binary_add`.
    pub const ADD: c_int = 131056;
    /// `dnnl_binary_mul`.
    pub const MUL: c_int = 131057;
    /// `dnnl_binary_max`.
    pub const MAX: c_int = 131058;
    /// `dnnl_binary_min`.
    pub const MIN: c_int = 131059;
    /// `dnnl_binary_div`.
    pub const DIV: c_int = 131060;
    /// `dnnl_binary_sub`.
    pub const SUB: c_int = 131061;
}

type H = *mut c_void;
type Cmd = *const MemoryDesc;

/// The functions of `libdnnl.so.2` this runtime calls, with the library that holds them.
#[allow(missing_docs)]
pub struct Api {
    _lib: Library,
    pub version: unsafe extern "C" fn() -> *const Version,
    pub engine_create: unsafe extern "C" fn(*mut H, c_int, usize) -> Status,
    pub engine_destroy: unsafe extern "C" fn(H) -> Status,
    pub stream_create: unsafe extern "C" fn(*mut H, H, c_uint) -> Status,
    pub stream_wait: unsafe extern "C" fn(H) -> Status,
    pub stream_destroy: unsafe extern "C" fn(H) -> Status,
    pub memory_desc_init_by_strides:
        unsafe extern "C" fn(*mut MemoryDesc, c_int, *const i64, c_int, *const i64) -> Status,
    pub memory_desc_init_by_tag:
        unsafe extern "C" fn(*mut MemoryDesc, c_int, *const i64, c_int, c_int) -> Status,
    pub memory_desc_get_size: unsafe extern "C" fn(Cmd) -> usize,
    pub memory_desc_equal: unsafe extern "C" fn(Cmd, Cmd) -> c_int,
    pub memory_create: unsafe extern "C" fn(*mut H, Cmd, H, *mut c_void) -> Status,
    pub memory_destroy: unsafe extern "C" fn(H) -> Status,
    pub dilated_convolution_forward_desc_init: unsafe extern "C" fn(
        *mut OpDesc,
        c_int,
        c_int,
        Cmd,
        Cmd,
        Cmd,
        Cmd,
        *const i64,
        *const i64,
        *const i64,
        *const i64,
    ) -> Status,
    pub matmul_desc_init: unsafe extern "C" fn(*mut OpDesc, Cmd, Cmd, Cmd, Cmd) -> Status,
    pub pooling_v2_forward_desc_init: unsafe extern "C" fn(
        *mut OpDesc,
        c_int,
        c_int,
        Cmd,
        Cmd,
        *const i64,
        *const i64,
        *const i64,
        *const i64,
        *const i64,
    ) -> Status,
    pub eltwise_forward_desc_init:
        unsafe extern "C" fn(*mut OpDesc, c_int, c_int, Cmd, f32, f32) -> Status,
    pub softmax_v2_forward_desc_init:
        unsafe extern "C" fn(*mut OpDesc, c_int, c_int, Cmd, Cmd, c_int) -> Status,
    pub batch_normalization_forward_desc_init:
        unsafe extern "C" fn(*mut OpDesc, c_int, Cmd, f32, c_uint) -> Status,
    pub layer_normalization_forward_desc_init:
        unsafe extern "C" fn(*mut OpDesc, c_int, Cmd, Cmd, f32, c_uint) -> Status,
    pub binary_desc_init: unsafe extern "C" fn(*mut OpDesc, c_int, Cmd, Cmd, Cmd) -> Status,
    pub reorder_primitive_desc_create:
        unsafe extern "C" fn(*mut H, Cmd, H, Cmd, H, *const c_void) -> Status,
    pub primitive_desc_create:
        unsafe extern "C" fn(*mut H, *const OpDesc, *const c_void, H, *const c_void) -> Status,
    pub primitive_desc_query_md: unsafe extern "C" fn(H, c_int, c_int) -> Cmd,
    pub primitive_desc_destroy: unsafe extern "C" fn(H) -> Status,
    pub primitive_create: unsafe extern "C" fn(*mut H, H) -> Status,
    pub primitive_execute: unsafe extern "C" fn(H, H, c_int, *const ExecArg) -> Status,
    pub primitive_destroy: unsafe extern "C" fn(H) -> Status,
    pub primitive_attr_create: unsafe extern "C" fn(*mut H) -> Status,
    pub primitive_attr_destroy: unsafe extern "C" fn(H) -> Status,
    pub primitive_attr_set_scratchpad_mode: unsafe extern "C" fn(H, c_int) -> Status,
    pub primitive_attr_set_post_ops: unsafe extern "C" fn(H, H) -> Status,
    pub post_ops_create: unsafe extern "C" fn(*mut H) -> Status,
    pub post_ops_destroy: unsafe extern "C" fn(H) -> Status,
    pub post_ops_append_eltwise: unsafe extern "C" fn(H, f32, c_int, f32, f32) -> Status,
    pub post_ops_append_binary: unsafe extern "C" fn(H, c_int, Cmd) -> Status,
    pub get_effective_cpu_isa: unsafe extern "C" fn() -> c_int,
}

/// The library names tried, in order.
pub const LIBRARY_NAMES: [&str; 2] = ["libdnnl.so.2", "libdnnl.so"];

/// What to install when the library is missing.
pub const INSTALL_HINT: &str = "install oneDNN 2 (Debian: apt-get install libdnnl-dev)";

impl Api {
    fn open() -> Result<Api, String> {
        let mut errors = Vec::new();
        let mut lib = None;
        for name in LIBRARY_NAMES {
            // SAFETY: loading oneDNN runs its initialisers, which only set up its own state.
            match unsafe { Library::new(name) } {
                Ok(l) => {
                    lib = Some(l);
                    break;
                }
                Err(e) => errors.push(format!("{name}: {e}")),
            }
        }
        let lib = lib
            .ok_or_else(|| format!("cannot load oneDNN ({}); {INSTALL_HINT}", errors.join("; ")))?;
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the symbol's type is the one `dnnl.h` (2.6) declares for it.
                let s = unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| format!("oneDNN has no '{}': {e}", $name))?;
                *s
            }};
        }
        let api = Api {
            version: sym!("dnnl_version"),
            engine_create: sym!("dnnl_engine_create"),
            engine_destroy: sym!("dnnl_engine_destroy"),
            stream_create: sym!("dnnl_stream_create"),
            stream_wait: sym!("dnnl_stream_wait"),
            stream_destroy: sym!("dnnl_stream_destroy"),
            memory_desc_init_by_strides: sym!("dnnl_memory_desc_init_by_strides"),
            memory_desc_init_by_tag: sym!("dnnl_memory_desc_init_by_tag"),
            memory_desc_get_size: sym!("dnnl_memory_desc_get_size"),
            memory_desc_equal: sym!("dnnl_memory_desc_equal"),
            memory_create: sym!("dnnl_memory_create"),
            memory_destroy: sym!("dnnl_memory_destroy"),
            dilated_convolution_forward_desc_init: sym!(
                "dnnl_dilated_convolution_forward_desc_init"
            ),
            matmul_desc_init: sym!("dnnl_matmul_desc_init"),
            pooling_v2_forward_desc_init: sym!("dnnl_pooling_v2_forward_desc_init"),
            eltwise_forward_desc_init: sym!("dnnl_eltwise_forward_desc_init"),
            softmax_v2_forward_desc_init: sym!("dnnl_softmax_v2_forward_desc_init"),
            batch_normalization_forward_desc_init: sym!(
                "dnnl_batch_normalization_forward_desc_init"
            ),
            layer_normalization_forward_desc_init: sym!(
                "dnnl_layer_normalization_forward_desc_init"
            ),
            binary_desc_init: sym!("dnnl_binary_desc_init"),
            reorder_primitive_desc_create: sym!("dnnl_reorder_primitive_desc_create"),
            primitive_desc_create: sym!("dnnl_primitive_desc_create"),
            primitive_desc_query_md: sym!("dnnl_primitive_desc_query_md"),
            primitive_desc_destroy: sym!("dnnl_primitive_desc_destroy"),
            primitive_create: sym!("dnnl_primitive_create"),
            primitive_execute: sym!("dnnl_primitive_execute"),
            primitive_destroy: sym!("dnnl_primitive_destroy"),
            primitive_attr_create: sym!("dnnl_primitive_attr_create"),
            primitive_attr_destroy: sym!("dnnl_primitive_attr_destroy"),
            primitive_attr_set_scratchpad_mode: sym!("dnnl_primitive_attr_set_scratchpad_mode"),
            primitive_attr_set_post_ops: sym!("dnnl_primitive_attr_set_post_ops"),
            post_ops_create: sym!("dnnl_post_ops_create"),
            post_ops_destroy: sym!("dnnl_post_ops_destroy"),
            post_ops_append_eltwise: sym!("dnnl_post_ops_append_eltwise"),
            post_ops_append_binary: sym!("dnnl_post_ops_append_binary"),
            get_effective_cpu_isa: sym!("dnnl_get_effective_cpu_isa"),
            _lib: lib,
        };
        // SAFETY: dnnl_version returns a pointer to a static struct.
        let v = unsafe { &*(api.version)() };
        if v.major != 2 {
            return Err(format!(
                "oneDNN {}.{}.{} found; this runtime uses the version 2 C API; {INSTALL_HINT}",
                v.major, v.minor, v.patch
            ));
        }
        Ok(api)
    }

    /// Whether the instruction set oneDNN uses here has VNNI (`vpdpbusd`: `u8 × s8` products
    /// summed into `s32` without 16-bit saturation): `dnnl_cpu_isa_avx512_core_vnni` (`0x40`)
    /// and `dnnl_cpu_isa_avx2_vnni` (`0x400`) bits. It follows `DNNL_MAX_CPU_ISA`.
    pub fn has_vnni(&self) -> bool {
        // SAFETY: a query without arguments.
        let isa = unsafe { (self.get_effective_cpu_isa)() };
        isa & (0x40 | 0x400) != 0
    }

    /// `major.minor.patch` of the loaded library.
    pub fn version_string(&self) -> String {
        // SAFETY: dnnl_version returns a pointer to a static struct.
        let v = unsafe { &*(self.version)() };
        format!("{}.{}.{}", v.major, v.minor, v.patch)
    }
}

/// The process's oneDNN, loaded on first use, or why it cannot be.
pub fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(Api::open).as_ref().map_err(Clone::clone)
}

/// A oneDNN status as text (the names of `dnnl_status_t`).
pub fn status_name(s: Status) -> &'static str {
    match s {
        0 => "success",
        1 => "out of memory",
        2 => "invalid arguments",
        3 => "unimplemented (no primitive for this descriptor on this machine)",
        4 => "iterator ends",
        5 => "runtime error",
        6 => "not required",
        _ => "unknown status",
    }
}
