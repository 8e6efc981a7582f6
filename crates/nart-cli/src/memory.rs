//! The memory bounds of `nart run` and `nart bench`: the `--max-memory` size syntax, its default
//! (a fraction of the machine's memory), and a counting global allocator that tells the
//! interpreter how much memory the process uses; and the peak a package's load and run hold
//! ([`measure_peak`], for `nart bench --package` and `--targets auto --measure`), from that
//! allocator and from the resident set's high-water mark, which also sees what oneDNN and
//! OpenVINO allocate themselves.
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

/// The bytes `f` held at its peak above what was held when it started, as the larger of two
/// measures (`None` when neither can be taken):
///
/// - the counting allocator's: every allocation through [`Counting`] by any thread while `f`
///   runs (so other threads' allocations count), from a peak reset to the bytes in use at the
///   start. It is exact for Rust's allocations, even those that reuse pages the process
///   already holds, but blind to what C and C++ libraries allocate with `malloc` or `new`
///   themselves (oneDNN's weights in its blocked layouts, its scratchpads and JIT code;
///   OpenVINO's compiled model and buffers).
/// - the resident set's ([`resident_peak`]): the high-water mark of the pages the process
///   holds (Linux's `VmHWM`, reset before `f` through `/proc/self/clear_refs`) less the
///   resident set just before. It sees every allocation the libraries touch, and the pages
///   of their code and data first touched while `f` runs (which the process really holds),
///   but not allocations that reuse pages already resident (freed earlier, not given back).
///
/// Neither bounds the other, so the larger is what the process is known to have needed.
/// `nart bench --package` and `--targets auto --measure` measure loading a package and one
/// run with it: the package's bytes, the targets' executables, the inputs and results and
/// every temporary of the run. The figure depends on the machine and on what ran before in
/// the process; nothing deterministic (a package compiled without `--measure`) records it.
pub fn measure_peak<T>(f: impl FnOnce() -> T) -> (T, Option<usize>) {
    let (r, p) = measure_peaks(f);
    (r, p.larger())
}

/// The two measures of [`measure_peak`], each `None` where it cannot be taken.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Peaks {
    /// The counting allocator's peak above the bytes in use at the start.
    pub heap: Option<usize>,
    /// The resident set's high-water mark above the resident set at the start.
    pub resident: Option<usize>,
}

impl Peaks {
    /// The larger of the two (what [`measure_peak`] reports).
    pub fn larger(self) -> Option<usize> {
        match (self.heap, self.resident) {
            (Some(h), Some(r)) => Some(h.max(r)),
            (h, r) => h.or(r),
        }
    }
}

/// [`measure_peak`] with both measures.
pub fn measure_peaks<T>(f: impl FnOnce() -> T) -> (T, Peaks) {
    let base = in_use();
    PEAK.store(base, Ordering::Relaxed);
    let resident = ResidentPeak::start();
    let r = f();
    let peak = PEAK.load(Ordering::Relaxed);
    let peaks = Peaks {
        heap: counting().then(|| peak.saturating_sub(base)),
        resident: resident.and_then(ResidentPeak::finish),
    };
    (r, peaks)
}

/// The resident-set figures of this process from `/proc/self/status`: `VmRSS` and `VmHWM`,
/// in bytes (`None` where they cannot be read: not Linux, or no procfs).
pub fn resident() -> Option<(usize, usize)> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let field = |name: &str| -> Option<usize> {
        let line = status.lines().find(|l| l.starts_with(name))?;
        let kib: usize = line[name.len()..].split_whitespace().next()?.parse().ok()?;
        kib.checked_mul(1024)
    };
    Some((field("VmRSS:")?, field("VmHWM:")?))
}

/// A resident-set measurement in progress: the high-water mark reset to the resident set,
/// and that resident set.
pub struct ResidentPeak {
    base: usize,
}

impl ResidentPeak {
    /// Resets the high-water mark (writing `5` to `/proc/self/clear_refs`, Linux 4.0 on) and
    /// notes the resident set; `None` where either fails.
    pub fn start() -> Option<ResidentPeak> {
        std::fs::write("/proc/self/clear_refs", "5").ok()?;
        let (rss, hwm) = resident()?;
        // After the reset the mark is the resident set; a larger one means it did not reset.
        (hwm <= rss.saturating_add(64 << 10)).then_some(ResidentPeak { base: rss })
    }

    /// The high-water mark's rise over the resident set at [`ResidentPeak::start`].
    pub fn finish(self) -> Option<usize> {
        resident().map(|(_, hwm)| hwm.saturating_sub(self.base))
    }
}

/// The rise of the resident set's high-water mark while `f` runs (see [`measure_peak`]);
/// `None` where it cannot be measured.
pub fn resident_peak<T>(f: impl FnOnce() -> T) -> (T, Option<usize>) {
    let m = ResidentPeak::start();
    let r = f();
    (r, m.and_then(ResidentPeak::finish))
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
    use super::{measure_peak, parse_size, resident_peak};

    extern "C" {
        fn malloc(n: usize) -> *mut std::ffi::c_void;
        fn free(p: *mut std::ffi::c_void);
    }

    /// Allocates `n` bytes with the C library's `malloc` (as oneDNN and OpenVINO do, past the
    /// counting allocator), touches every page, and frees them.
    fn c_side_allocation(n: usize) -> usize {
        // SAFETY: `malloc` returns null or `n` writable bytes, written and read within them
        // and freed once below.
        unsafe {
            let p = malloc(n).cast::<u8>();
            assert!(!p.is_null());
            for i in (0..n).step_by(4096) {
                p.add(i).write_volatile(1);
            }
            let touched = p.add(n - 1).read_volatile() as usize;
            free(p.cast());
            touched
        }
    }

    #[test]
    fn a_c_side_allocation_shows_in_the_peak() {
        if super::ResidentPeak::start().is_none() {
            eprintln!("skipped: the resident set's high-water mark cannot be reset here");
            return;
        }
        const N: usize = 64 << 20;
        let (_, resident) = resident_peak(|| c_side_allocation(N));
        let resident = resident.expect("measured");
        assert!(
            resident >= N * 9 / 10,
            "resident peak {resident} for {N} bytes"
        );
        // The test binary's allocator is not the counting one: the peak is the resident one.
        let (_, peak) = measure_peak(|| c_side_allocation(N));
        let peak = peak.expect("measured");
        assert!(peak >= N * 9 / 10, "peak {peak} for {N} bytes");
        // Without the allocation the rise is far smaller.
        let (_, idle) = measure_peak(|| 0usize);
        assert!(idle.unwrap() < N / 4, "idle peak {idle:?}");
    }

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
