//! The memory bounds of `nart run` and `nart bench`: the `--max-memory` size syntax, its default
//! (a fraction of the machine's memory), and a counting global allocator that tells the
//! interpreter how much memory the process uses, and measures the peak a package's load and
//! run hold ([`measure_peak`], for `nart bench --package` and `--targets auto --measure`).
//!
//! The `nart` binary installs [`Counting`] as its global allocator; a program that does not
//! still gets the interpreter's per-tensor checks, without the running total.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The share of the machine's memory a run may use by default: one half.
pub const DEFAULT_SHARE: (usize, usize) = (1, 2);

/// The memory assumed when the machine's cannot be read.
const FALLBACK_MACHINE_BYTES: usize = 8 << 30;

/// The default of `--max-loop-iterations`: loop body iterations in one run.
pub const DEFAULT_MAX_ITERATIONS: u64 = 10_000_000;

static IN_USE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);
static INSTALLED: AtomicBool = AtomicBool::new(false);

/// The system allocator, counting the bytes allocated and not yet freed.
pub struct Counting;

// SAFETY: every method forwards to `System` with the same arguments, and only adds bookkeeping
// on atomics, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, which `System` shares.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            grow(layout.size());
            mark_installed();
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            grow(layout.size());
            mark_installed();
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` was allocated by this allocator (so by `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) };
        IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract, which `System` shares.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            grow(new_size);
            IN_USE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

/// Adds `n` bytes in use and raises the peak to the new total.
fn grow(n: usize) {
    let now = IN_USE.fetch_add(n, Ordering::Relaxed) + n;
    PEAK.fetch_max(now, Ordering::Relaxed);
}

/// The bytes `f` held at its peak above what was held when it started: every allocation
/// through [`Counting`] by any thread while `f` runs (so the figure is the process's, and
/// other threads' allocations count), from a peak reset to the bytes in use at the start.
/// `None` when [`Counting`] is not the global allocator (nothing is measured then).
///
/// `nart bench --package` and `--targets auto --measure` measure loading a package and one
/// run with it: the package's bytes, the targets' executables (the buffers they keep: the
/// interpreter's and the cpu target's, the onednn target's values), the inputs and results and
/// every temporary of the run. Memory the targets' libraries allocate with `malloc`
/// themselves is not seen: oneDNN's weights in its blocked layouts, its scratchpads and JIT
/// code, and OpenVINO's buffers.
pub fn measure_peak<T>(f: impl FnOnce() -> T) -> (T, Option<usize>) {
    let base = in_use();
    PEAK.store(base, Ordering::Relaxed);
    let r = f();
    let peak = PEAK.load(Ordering::Relaxed);
    (r, counting().then(|| peak.saturating_sub(base)))
}

/// Records that [`Counting`] allocates (a load first, so that the flag's cache line is not
/// written on every allocation).
fn mark_installed() {
    if !INSTALLED.load(Ordering::Relaxed) {
        INSTALLED.store(true, Ordering::Relaxed);
    }
}

/// The bytes allocated through [`Counting`] and not yet freed.
pub fn in_use() -> usize {
    IN_USE.load(Ordering::Relaxed)
}

/// Whether [`Counting`] is this process's global allocator (it has allocated something).
pub fn counting() -> bool {
    INSTALLED.load(Ordering::Relaxed)
}

/// The machine's memory: the smaller of the physical memory and the cgroup's limit, when they
/// can be read.
pub fn machine_bytes() -> Option<usize> {
    let total = std::fs::read_to_string("/proc/meminfo").ok().and_then(|s| {
        let line = s.lines().find(|l| l.starts_with("MemTotal:"))?;
        let kib: usize = line.split_whitespace().nth(1)?.parse().ok()?;
        kib.checked_mul(1024)
    });
    let cgroup = [
        "/sys/fs/cgroup/memory.max",
        "/sys/fs/cgroup/memory/memory.limit_in_bytes",
    ]
    .iter()
    .find_map(|p| {
        std::fs::read_to_string(p)
            .ok()?
            .trim()
            .parse::<usize>()
            .ok()
    });
    match (total, cgroup) {
        (Some(t), Some(c)) => Some(t.min(c)),
        (t, c) => t.or(c),
    }
}

/// The default of `--max-memory`: [`DEFAULT_SHARE`] of [`machine_bytes`].
pub fn default_max_memory() -> usize {
    let machine = machine_bytes().unwrap_or(FALLBACK_MACHINE_BYTES);
    machine / DEFAULT_SHARE.1 * DEFAULT_SHARE.0
}

/// Parses a `--max-memory` value: bytes (`1000000`), a binary size with a suffix (`512K`,
/// `64M`, `4G`, `1T`, also written `4GiB` or `4GB`), or a share of the machine's memory (`75%`).
pub fn parse_size(text: &str) -> Result<usize, String> {
    let bad = || {
        format!(
            "invalid size '{text}': expected bytes, a number with K, M, G or T (1024-based), or a percentage of the machine's memory"
        )
    };
    let t = text.trim();
    if let Some(p) = t.strip_suffix('%') {
        let p: f64 = p.trim().parse().map_err(|_| bad())?;
        if !(0.0..=100.0).contains(&p) {
            return Err(format!(
                "invalid size '{text}': a percentage is between 0 and 100"
            ));
        }
        let machine = machine_bytes().unwrap_or(FALLBACK_MACHINE_BYTES);
        return Ok((machine as f64 * p / 100.0) as usize);
    }
    let upper = t.to_ascii_uppercase();
    let body = upper
        .strip_suffix("IB")
        .or_else(|| upper.strip_suffix('B'))
        .unwrap_or(&upper);
    let (digits, shift) = match body.chars().last() {
        Some('K') => (&body[..body.len() - 1], 10),
        Some('M') => (&body[..body.len() - 1], 20),
        Some('G') => (&body[..body.len() - 1], 30),
        Some('T') => (&body[..body.len() - 1], 40),
        _ => (body, 0),
    };
    let n: u64 = digits.trim().parse().map_err(|_| bad())?;
    n.checked_mul(1u64 << shift)
        .and_then(|b| usize::try_from(b).ok())
        .ok_or_else(|| format!("invalid size '{text}': too large"))
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn sizes_parse() {
        assert_eq!(parse_size("1000"), Ok(1000));
        assert_eq!(parse_size("512K"), Ok(512 << 10));
        assert_eq!(parse_size("64m"), Ok(64 << 20));
        assert_eq!(parse_size("4GiB"), Ok(4 << 30));
        assert_eq!(parse_size("1TB"), Ok(1 << 40));
        assert_eq!(parse_size("0"), Ok(0));
        assert!(parse_size("50%").is_ok_and(|b| b > 0));
        for bad in [
            "",
            "G",
            "-1",
            "1.5G",
            "12Q",
            "101%",
            "x%",
            "99999999999999999999",
        ] {
            assert!(parse_size(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_size("16777216T"),
            Err("invalid size '16777216T': too large".to_string())
        );
    }
}
