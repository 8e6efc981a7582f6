//! Opening a shared object held in memory.
//!
//! On Linux the bytes go into an anonymous memory file (`memfd_create`) that `dlopen` reads as
//! `/proc/self/fd/N`; nothing is written to disk. The file stays open while the library is
//! loaded: the dynamic loader recognizes an already loaded library by its path, so the number
//! `N` must not be reused for another object while this one is open. Elsewhere the bytes go
//! to a uniquely named temporary file, removed once loaded.

use std::fs::File;
use std::io::Write;

/// A shared object opened from bytes.
pub(crate) struct LoadedObject {
    // Field order is drop order: the library is closed before its file.
    library: libloading::Library,
    _file: Option<File>,
}

impl LoadedObject {
    pub(crate) fn open(bytes: &[u8]) -> Result<LoadedObject, String> {
        let (path, file) = write_object(bytes)?;
        // SAFETY: loading runs the object's initializers; nart's compiler generates objects
        // with none, and the artifact's checksum (in the package) guards against accidents.
        let library = unsafe { libloading::Library::new(&path) }
            .map_err(|e| format!("cannot load the compiled code: {e}"));
        if file.is_none() {
            let _ = std::fs::remove_file(&path);
        }
        Ok(LoadedObject {
            library: library?,
            _file: file,
        })
    }

    /// The address of `name`.
    ///
    /// # Safety
    /// `T` must be the symbol's true type, and the value must not outlive `self`.
    pub(crate) unsafe fn symbol<T: Copy>(&self, name: &str) -> Result<T, String> {
        // SAFETY: the caller guarantees the type; the returned copy is tied to `self` by the
        // caller's promise not to outlive it.
        unsafe { self.library.get::<T>(name.as_bytes()) }
            .map(|s| *s)
            .map_err(|e| format!("the compiled code has no entry '{name}': {e}"))
    }
}

#[cfg(target_os = "linux")]
fn write_object(bytes: &[u8]) -> Result<(std::path::PathBuf, Option<File>), String> {
    use std::os::fd::{AsRawFd, FromRawFd};
    // SAFETY: a valid NUL-terminated name and flags; the returned descriptor is owned below.
    let fd = unsafe { libc::memfd_create(c"nart-cpu-code".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return write_temp(bytes);
    }
    // SAFETY: `fd` is a fresh descriptor nothing else owns.
    let mut file = unsafe { File::from_raw_fd(fd) };
    file.write_all(bytes)
        .map_err(|e| format!("cannot write the compiled code to memory: {e}"))?;
    let path = std::path::PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
    Ok((path, Some(file)))
}

#[cfg(not(target_os = "linux"))]
fn write_object(bytes: &[u8]) -> Result<(std::path::PathBuf, Option<File>), String> {
    write_temp(bytes)
}

fn write_temp(bytes: &[u8]) -> Result<(std::path::PathBuf, Option<File>), String> {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let path = std::env::temp_dir().join(format!(
        "nart-cpu-{}-{}-{nanos}.so",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let mut f = File::create(&path).map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    f.write_all(bytes)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    Ok((path, None))
}
