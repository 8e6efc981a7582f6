//! The thread pool behind the runtime interface that the generated code calls for its
//! parallel loops (`nart_llvm::parallel` describes the interface's layout).
//!
//! A pool of `threads` threads is the calling thread plus `threads - 1` workers started when
//! the executable is loaded, which sleep until a loop comes. `parallel_for` splits `[0, n)`
//! into chunks of at least the loop's grain (about four per thread, for balance), which the
//! workers and the calling thread take in turn from a shared counter; it returns when every
//! worker is done with the loop. It allocates nothing. One loop runs on the pool at a time:
//! a loop that finds the pool busy (the executable run from several threads at once) runs on
//! its own thread.

use std::ffi::c_void;
use std::sync::atomic::{AtomicI64, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;

/// `void body(void *captures, int64_t begin, int64_t end)`, the outlined loop body.
pub(crate) type BodyFn = unsafe extern "C" fn(*mut u8, i64, i64);

/// `parallel_for(ctx, body, captures, n, grain)`.
type ParallelForFn = unsafe extern "C" fn(*const c_void, BodyFn, *mut u8, i64, i64);

/// The runtime interface as the generated code reads it (`#[repr(C)]`: its layout is the
/// calling convention's).
#[repr(C)]
pub(crate) struct Interface {
    version: u64,
    ctx: *const c_void,
    parallel_for: ParallelForFn,
}

/// The version of [`Interface`]'s layout (`nart_llvm::RUNTIME_INTERFACE_VERSION`, which this
/// crate cannot name without depending on LLVM).
pub const INTERFACE_VERSION: u64 = 1;

/// One loop handed to the workers.
#[derive(Clone, Copy)]
struct Job {
    body: Option<BodyFn>,
    /// The captures pointer, as an address (the job crosses threads).
    captures: usize,
    n: i64,
    chunk: i64,
}

struct State {
    /// Bumped for every loop; a worker runs each epoch once.
    epoch: u64,
    job: Job,
    /// Workers that have not finished the current loop.
    running: usize,
    stop: bool,
}

struct Shared {
    state: Mutex<State>,
    wake: Condvar,
    done: Condvar,
    /// The next iteration to hand out.
    next: AtomicI64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // Nothing panics while holding these locks; recover the data if something did.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// Takes chunks of `job` until none is left.
    fn run_chunks(&self, job: Job) {
        let Some(body) = job.body else {
            return;
        };
        loop {
            let begin = self.next.fetch_add(job.chunk, Ordering::Relaxed);
            if begin >= job.n {
                return;
            }
            let end = begin.saturating_add(job.chunk).min(job.n);
            // SAFETY: the generated code passed this body and captures to `parallel_for`,
            // which does not return before every chunk has run, so the captures are live;
            // chunks are disjoint, as the body's contract requires.
            unsafe { body(job.captures as *mut u8, begin, end) };
        }
    }
}

/// A fixed pool of threads and the interface that leads to it.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// Held while a loop runs on the pool.
    busy: Mutex<()>,
    /// Loops that ran on the pool's threads (not on the caller's alone).
    dispatched: AtomicU64,
    interface: Interface,
}

// SAFETY: `interface` holds a pointer to the pool itself (immutable once built) and a
// function; everything the threads share is behind `Arc`, `Mutex` and atomics.
unsafe impl Send for Pool {}
// SAFETY: as above; `parallel_for` takes `&self` and synchronizes through `busy` and `shared`.
unsafe impl Sync for Pool {}

impl Pool {
    /// A pool of `threads` threads (the caller's and `threads - 1` workers); `threads` is at
    /// least 2.
    pub(crate) fn new(threads: usize) -> Result<Box<Pool>, String> {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                epoch: 0,
                job: Job {
                    body: None,
                    captures: 0,
                    n: 0,
                    chunk: 1,
                },
                running: 0,
                stop: false,
            }),
            wake: Condvar::new(),
            done: Condvar::new(),
            next: AtomicI64::new(0),
        });
        let mut pool = Box::new(Pool {
            shared: shared.clone(),
            workers: Vec::with_capacity(threads - 1),
            busy: Mutex::new(()),
            dispatched: AtomicU64::new(0),
            interface: Interface {
                version: INTERFACE_VERSION,
                ctx: std::ptr::null(),
                parallel_for: parallel_for_c,
            },
        });
        pool.interface.ctx = std::ptr::from_ref::<Pool>(&pool).cast();
        for i in 1..threads {
            let s = shared.clone();
            let h = std::thread::Builder::new()
                .name(format!("nart-cpu-{i}"))
                .spawn(move || worker(&s))
                .map_err(|e| format!("cannot start a thread of the pool: {e}"))?;
            pool.workers.push(h);
        }
        Ok(pool)
    }

    /// The interface to pass to the generated code.
    pub(crate) fn interface(&self) -> *const Interface {
        &self.interface
    }

    /// The threads of the pool, the caller's included.
    pub(crate) fn threads(&self) -> usize {
        self.workers.len() + 1
    }

    /// How many loops have run on the pool's threads.
    pub(crate) fn dispatched(&self) -> u64 {
        self.dispatched.load(Ordering::Relaxed)
    }

    /// Runs `body` over `[0, n)` in chunks of at least `grain`, on every thread of the pool.
    fn parallel_for(&self, body: BodyFn, captures: *mut u8, n: i64, grain: i64) {
        let threads = self.threads() as i64;
        let chunk = grain.max(1).max((n + 4 * threads - 1) / (4 * threads));
        let guard = match self.busy.try_lock() {
            Ok(g) => Some(g),
            Err(std::sync::TryLockError::Poisoned(e)) => Some(e.into_inner()),
            Err(std::sync::TryLockError::WouldBlock) => None,
        };
        if guard.is_none() || n <= chunk {
            // SAFETY: the generated code's own body and captures, over the whole space.
            unsafe { body(captures, 0, n) };
            return;
        }
        let job = Job {
            body: Some(body),
            captures: captures as usize,
            n,
            chunk,
        };
        self.dispatched.fetch_add(1, Ordering::Relaxed);
        self.shared.next.store(0, Ordering::Relaxed);
        {
            let mut st = lock(&self.shared.state);
            st.job = job;
            st.epoch += 1;
            st.running = self.workers.len();
        }
        self.shared.wake.notify_all();
        self.shared.run_chunks(job);
        let mut st = lock(&self.shared.state);
        while st.running > 0 {
            st = self.shared.done.wait(st).unwrap_or_else(|e| e.into_inner());
        }
        drop(st);
        drop(guard);
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        lock(&self.shared.state).stop = true;
        self.shared.wake.notify_all();
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}

fn worker(shared: &Shared) {
    let mut seen = 0u64;
    loop {
        let job = {
            let mut st = lock(&shared.state);
            while st.epoch == seen && !st.stop {
                st = shared.wake.wait(st).unwrap_or_else(|e| e.into_inner());
            }
            if st.stop {
                return;
            }
            seen = st.epoch;
            st.job
        };
        shared.run_chunks(job);
        let mut st = lock(&shared.state);
        st.running -= 1;
        if st.running == 0 {
            shared.done.notify_all();
        }
    }
}

/// The interface's `parallel_for`.
unsafe extern "C" fn parallel_for_c(
    ctx: *const c_void,
    body: BodyFn,
    captures: *mut u8,
    n: i64,
    grain: i64,
) {
    // SAFETY: `ctx` is the pool the interface belongs to (set in `Pool::new`), which lives
    // while the executable that passes the interface runs.
    let pool = unsafe { &*ctx.cast::<Pool>() };
    pool.parallel_for(body, captures, n, grain);
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "C" fn mark(captures: *mut u8, begin: i64, end: i64) {
        let cells = captures.cast::<std::sync::atomic::AtomicU32>();
        for i in begin..end {
            // SAFETY: the test's captures are an array of n atomics.
            unsafe { (*cells.add(i as usize)).fetch_add(1, Ordering::Relaxed) };
        }
    }

    #[test]
    fn every_iteration_runs_once_for_any_size_and_grain() {
        for threads in [2, 3] {
            let pool = Pool::new(threads).unwrap();
            assert_eq!(pool.threads(), threads);
            for (n, grain) in [(0, 1), (1, 1), (7, 1), (100, 3), (1000, 1), (1000, 600)] {
                let cells: Vec<std::sync::atomic::AtomicU32> =
                    (0..n).map(|_| Default::default()).collect();
                // SAFETY: the interface of a live pool, over `cells`.
                unsafe {
                    let iface = &*pool.interface();
                    assert_eq!(iface.version, INTERFACE_VERSION);
                    (iface.parallel_for)(
                        iface.ctx,
                        mark,
                        cells.as_ptr().cast_mut().cast(),
                        n,
                        grain,
                    )
                };
                assert!(
                    cells.iter().all(|c| c.load(Ordering::Relaxed) == 1),
                    "threads {threads}, n {n}, grain {grain}"
                );
            }
        }
    }

    unsafe extern "C" fn record_thread(captures: *mut u8, begin: i64, end: i64) {
        let seen = captures.cast::<Mutex<Vec<(std::thread::ThreadId, i64, i64)>>>();
        // SAFETY: the test's captures are this mutex.
        let seen = unsafe { &*seen };
        lock(seen).push((std::thread::current().id(), begin, end));
        // Each chunk waits (10 s at most) until a second thread has taken one, so that the
        // caller cannot take every chunk before a worker wakes up.
        let start = std::time::Instant::now();
        while start.elapsed().as_secs() < 10 {
            let ids: std::collections::HashSet<_> = lock(seen).iter().map(|s| s.0).collect();
            if ids.len() >= 2 {
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
    }

    #[test]
    fn work_spreads_over_the_threads_in_chunks_of_at_least_the_grain() {
        let pool = Pool::new(3).unwrap();
        let seen: Mutex<Vec<(std::thread::ThreadId, i64, i64)>> = Mutex::new(Vec::new());
        pool.parallel_for(
            record_thread,
            std::ptr::from_ref(&seen).cast_mut().cast(),
            120,
            5,
        );
        let mut seen = seen.into_inner().unwrap();
        seen.sort_by_key(|s| s.1);
        let mut at = 0;
        for &(_, b, e) in &seen {
            assert_eq!(b, at);
            assert!(e - b >= 5 || e == 120);
            at = e;
        }
        assert_eq!(at, 120);
        let threads: std::collections::HashSet<_> = seen.iter().map(|s| s.0).collect();
        assert!(threads.len() >= 2, "{seen:?}");
    }
}
