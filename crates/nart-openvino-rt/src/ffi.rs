//! The part of OpenVINO's C API (`openvino/c/*.h`, 2026.4) this runtime calls, declared by
//! hand and resolved at run time from `libopenvino_c.so`, so that nart builds and runs without
//! OpenVINO and only the `openvino` target says it is unavailable.
//!
//! Every OpenVINO object is an opaque pointer here. Finding the library: the path in
//! `NART_OPENVINO_LIB`, else the `libs/` directory of the `openvino` Python wheel (asked of
//! `python3`, then looked for in the usual site-packages directories), else the loader's own
//! search (`LD_LIBRARY_PATH`). The wheel ships only versioned names (`libopenvino_c.so.2641`),
//! so a directory is searched for any `libopenvino_c.so*`.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use libloading::Library;

/// `ov_status_e` (`OK` is 0, errors are negative).
pub type Status = c_int;
/// An opaque OpenVINO object (`ov_core_t*`, `ov_model_t*`, `ov_tensor_t*`, ...).
pub type Handle = *mut c_void;

/// `ov_status_e::INVALID_C_PARAM`.
pub const INVALID_C_PARAM: Status = -14;
/// `ov_element_type_e::F32`.
pub const ELEM_F32: c_int = 4;
/// `ov_element_type_e::I32`.
pub const ELEM_I32: c_int = 9;
/// `ov_element_type_e::I64`.
pub const ELEM_I64: c_int = 10;

/// `ov_version_t`.
#[repr(C)]
pub struct Version {
    /// The version (`2026.4.1-22982-...`).
    pub build_number: *const c_char,
    /// A description.
    pub description: *const c_char,
}

/// `ov_shape_t`.
#[repr(C)]
pub struct Shape {
    /// The rank.
    pub rank: i64,
    /// `rank` dims.
    pub dims: *mut i64,
}

/// `ov_property_t`: a key and a value (a C string for every property used here).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Property {
    /// The property's name (`INFERENCE_PRECISION_HINT`).
    pub key: *const c_char,
    /// Its value.
    pub value: *const c_void,
}

/// The functions, resolved from the library (which the struct keeps loaded).
#[allow(missing_docs)]
pub struct Api {
    _lib: Library,
    /// Where the library was loaded from.
    pub path: String,
    pub get_openvino_version: unsafe extern "C" fn(*mut Version) -> Status,
    pub version_free: unsafe extern "C" fn(*mut Version),
    pub get_last_err_msg: unsafe extern "C" fn() -> *const c_char,
    pub core_create: unsafe extern "C" fn(*mut Handle) -> Status,
    pub core_free: unsafe extern "C" fn(Handle),
    pub core_read_model_from_memory_buffer:
        unsafe extern "C" fn(Handle, *const c_char, usize, Handle, *mut Handle) -> Status,
    pub core_compile_model_props: unsafe extern "C" fn(
        Handle,
        Handle,
        *const c_char,
        usize,
        *const Property,
        *mut Handle,
    ) -> Status,
    pub model_free: unsafe extern "C" fn(Handle),
    pub compiled_model_inputs_size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
    pub compiled_model_outputs_size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
    pub compiled_model_create_infer_request: unsafe extern "C" fn(Handle, *mut Handle) -> Status,
    pub compiled_model_free: unsafe extern "C" fn(Handle),
    pub infer_request_set_input_tensor_by_index:
        unsafe extern "C" fn(Handle, usize, Handle) -> Status,
    pub infer_request_get_output_tensor_by_index:
        unsafe extern "C" fn(Handle, usize, *mut Handle) -> Status,
    pub infer_request_infer: unsafe extern "C" fn(Handle) -> Status,
    pub infer_request_free: unsafe extern "C" fn(Handle),
    pub tensor_create_from_host_ptr:
        unsafe extern "C" fn(c_int, Shape, *mut c_void, *mut Handle) -> Status,
    pub tensor_get_shape: unsafe extern "C" fn(Handle, *mut Shape) -> Status,
    pub tensor_get_element_type: unsafe extern "C" fn(Handle, *mut c_int) -> Status,
    pub tensor_get_size: unsafe extern "C" fn(Handle, *mut usize) -> Status,
    pub tensor_data: unsafe extern "C" fn(Handle, *mut *mut c_void) -> Status,
    pub tensor_free: unsafe extern "C" fn(Handle),
    pub shape_free: unsafe extern "C" fn(*mut Shape) -> Status,
    pub core_set_properties:
        unsafe extern "C" fn(Handle, *const c_char, usize, *const Property) -> Status,
    pub core_import_model:
        unsafe extern "C" fn(Handle, *const c_char, usize, *const c_char, *mut Handle) -> Status,
    pub compiled_model_export_model: unsafe extern "C" fn(Handle, *const c_char) -> Status,
    pub compiled_model_get_property:
        unsafe extern "C" fn(Handle, *const c_char, *mut *mut c_char) -> Status,
    pub free: unsafe extern "C" fn(*const c_char),
}

/// What to install when the library is missing.
pub const INSTALL_HINT: &str =
    "install OpenVINO's Python wheel (pip install openvino) or set NART_OPENVINO_LIB to the path of libopenvino_c.so";

/// The environment variable naming the library's path.
pub const LIB_ENV: &str = "NART_OPENVINO_LIB";

/// The first `libopenvino_c.so*` in `dir` (in name order, so the choice is stable).
fn find_in_dir(dir: &Path) -> Option<PathBuf> {
    let mut found: Vec<PathBuf> = std::fs::read_dir(dir)
        .ok()?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libopenvino_c.so"))
        })
        .collect();
    found.sort();
    found.into_iter().next()
}

/// The `openvino/libs` directory of the Python wheel, if one is installed: asked of `python3`
/// (`openvino.__file__`), else looked for under the usual site-packages directories.
fn wheel_libs() -> Option<PathBuf> {
    let asked = std::process::Command::new("python3")
        .args([
            "-c",
            "import importlib.util as u, os; s = u.find_spec('openvino'); \
             print(os.path.dirname(s.origin) if s and s.origin else '')",
        ])
        .stderr(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty());
    if let Some(dir) = asked {
        let libs = Path::new(&dir).join("libs");
        if libs.is_dir() {
            return Some(libs);
        }
    }
    let mut roots = vec![PathBuf::from("/usr/lib"), PathBuf::from("/usr/local/lib")];
    if let Some(home) = std::env::var_os("HOME") {
        roots.push(Path::new(&home).join(".local/lib"));
    }
    for root in roots {
        let Ok(entries) = std::fs::read_dir(&root) else {
            continue;
        };
        let mut pythons: Vec<PathBuf> = entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("python3"))
            })
            .collect();
        pythons.sort();
        for py in pythons {
            for sub in ["site-packages", "dist-packages"] {
                let libs = py.join(sub).join("openvino/libs");
                if libs.is_dir() {
                    return Some(libs);
                }
            }
        }
    }
    None
}

/// Where the library is looked for, in order: a path to open, or a name for the loader.
pub fn candidates() -> Vec<PathBuf> {
    if let Some(p) = std::env::var_os(LIB_ENV) {
        return vec![PathBuf::from(p)];
    }
    let mut c = Vec::new();
    if let Some(p) = wheel_libs().and_then(|d| find_in_dir(&d)) {
        c.push(p);
    }
    c.push(PathBuf::from("libopenvino_c.so"));
    c
}

impl Api {
    /// Loads the library at `path` (a path, or a bare name the loader searches for) and
    /// resolves every function.
    pub fn open(path: &Path) -> Result<Api, String> {
        // SAFETY: loading OpenVINO runs its initialisers, which only set up its own state.
        let lib = unsafe { Library::new(path) }
            .map_err(|e| format!("cannot load {}: {e}", path.display()))?;
        macro_rules! sym {
            ($name:literal) => {{
                // SAFETY: the symbol's type is the one OpenVINO's C headers (2026.4) declare.
                let s = unsafe { lib.get(concat!($name, "\0").as_bytes()) }
                    .map_err(|e| format!("{} has no '{}': {e}", path.display(), $name))?;
                *s
            }};
        }
        Ok(Api {
            path: path.display().to_string(),
            get_openvino_version: sym!("ov_get_openvino_version"),
            version_free: sym!("ov_version_free"),
            get_last_err_msg: sym!("ov_get_last_err_msg"),
            core_create: sym!("ov_core_create"),
            core_free: sym!("ov_core_free"),
            core_read_model_from_memory_buffer: sym!("ov_core_read_model_from_memory_buffer"),
            core_compile_model_props: sym!("ov_core_compile_model_props"),
            model_free: sym!("ov_model_free"),
            compiled_model_inputs_size: sym!("ov_compiled_model_inputs_size"),
            compiled_model_outputs_size: sym!("ov_compiled_model_outputs_size"),
            compiled_model_create_infer_request: sym!("ov_compiled_model_create_infer_request"),
            compiled_model_free: sym!("ov_compiled_model_free"),
            infer_request_set_input_tensor_by_index: sym!(
                "ov_infer_request_set_input_tensor_by_index"
            ),
            infer_request_get_output_tensor_by_index: sym!(
                "ov_infer_request_get_output_tensor_by_index"
            ),
            infer_request_infer: sym!("ov_infer_request_infer"),
            infer_request_free: sym!("ov_infer_request_free"),
            tensor_create_from_host_ptr: sym!("ov_tensor_create_from_host_ptr"),
            tensor_get_shape: sym!("ov_tensor_get_shape"),
            tensor_get_element_type: sym!("ov_tensor_get_element_type"),
            tensor_get_size: sym!("ov_tensor_get_size"),
            tensor_data: sym!("ov_tensor_data"),
            tensor_free: sym!("ov_tensor_free"),
            shape_free: sym!("ov_shape_free"),
            core_set_properties: sym!("ov_core_set_properties"),
            core_import_model: sym!("ov_core_import_model"),
            compiled_model_export_model: sym!("ov_compiled_model_export_model"),
            compiled_model_get_property: sym!("ov_compiled_model_get_property"),
            free: sym!("ov_free"),
            _lib: lib,
        })
    }

    /// Tries [`candidates`] in order.
    fn find() -> Result<Api, String> {
        let mut errors = Vec::new();
        for c in candidates() {
            match Api::open(&c) {
                Ok(api) => return Ok(api),
                Err(e) => errors.push(e),
            }
        }
        Err(format!("{}; {INSTALL_HINT}", errors.join("; ")))
    }

    /// OpenVINO's version (`2026.4.1-22982-e213a147257-releases/2026/4`).
    pub fn version(&self) -> Result<String, String> {
        let mut v = Version {
            build_number: std::ptr::null(),
            description: std::ptr::null(),
        };
        // SAFETY: `v` is a valid out-parameter; its strings are freed by ov_version_free.
        unsafe {
            self.check(
                (self.get_openvino_version)(&mut v),
                "ov_get_openvino_version",
            )?;
            let s = if v.build_number.is_null() {
                String::new()
            } else {
                CStr::from_ptr(v.build_number)
                    .to_string_lossy()
                    .into_owned()
            };
            (self.version_free)(&mut v);
            Ok(s)
        }
    }

    /// `Ok` for status 0, else the call's name, the status and OpenVINO's last message.
    pub fn check(&self, status: Status, what: &str) -> Result<(), String> {
        if status == 0 {
            return Ok(());
        }
        // SAFETY: ov_get_last_err_msg returns a thread-local string or null.
        let msg = unsafe {
            let p = (self.get_last_err_msg)();
            if p.is_null() {
                String::new()
            } else {
                CStr::from_ptr(p).to_string_lossy().trim().to_string()
            }
        };
        Err(format!("{what} failed (status {status}): {msg}"))
    }
}

/// The process's OpenVINO, loaded on first use, or why it cannot be.
pub fn api() -> Result<&'static Api, String> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(Api::find).as_ref().map_err(Clone::clone)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bad_path_is_an_error_naming_it() {
        let e = match Api::open(Path::new("/nonexistent/libopenvino_c.so.2641")) {
            Ok(_) => panic!("opened a path that does not exist"),
            Err(e) => e,
        };
        assert!(
            e.starts_with("cannot load /nonexistent/libopenvino_c.so.2641: "),
            "{e}"
        );
    }

    #[test]
    fn a_file_that_is_not_a_library_is_an_error() {
        let dir = std::env::temp_dir().join(format!("nart-ov-ffi-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let fake = dir.join("libopenvino_c.so.1");
        std::fs::write(&fake, b"not an ELF file").unwrap();
        let e = Api::open(&fake).err().expect("not a library");
        assert!(e.contains("cannot load"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_directory_is_searched_for_versioned_names_in_order() {
        let dir = std::env::temp_dir().join(format!("nart-ov-find-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        for name in [
            "libopenvino.so.2641",
            "libopenvino_c.so.2641",
            "libopenvino_c.so.2650",
        ] {
            std::fs::write(dir.join(name), b"").unwrap();
        }
        assert_eq!(find_in_dir(&dir), Some(dir.join("libopenvino_c.so.2641")));
        std::fs::remove_file(dir.join("libopenvino_c.so.2641")).unwrap();
        std::fs::remove_file(dir.join("libopenvino_c.so.2650")).unwrap();
        assert_eq!(find_in_dir(&dir), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
