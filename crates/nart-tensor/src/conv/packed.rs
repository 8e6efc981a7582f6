//! f32 convolution as im2col and GEMM, with the unfolded input written straight into the GEMM's
//! packed panels, on x86-64 with AVX-512 or AVX2 and FMA.
//!
//! Through `matrixmultiply` the unfolded input crosses memory three times: im2col writes the
//! `[C * prod(kernel), positions]` matrix, the GEMM reads it to pack it into column panels and
//! writes the panels, and its kernel reads them. On ResNet-18 that packing and im2col took more
//! than a quarter of the interpreter's time. Here each row of the unfolded matrix is made in a
//! buffer that stays in cache and copied into the panels at once, and the kernels read the
//! weights in place (`mr` rows at a time), so they are not packed at all.
//!
//! The sums are `matrixmultiply`'s, term for term: the reduction index (channel, then kernel
//! tap) is cut into blocks of [`KC`] consecutive terms; within a block the terms are
//! fused-multiply-added in order onto zero; each block's sum is then added, rounding once, to
//! the output (which holds the bias), or stored where there is no bias and it is the first
//! block. That is what `matrixmultiply`'s sgemm does on an x86-64 with FMA (its AVX-512 and its
//! AVX2 kernel alike), so the results are bit-identical to the im2col path, which the tests
//! check. The tile shapes only decide which outputs are computed together, not how one is summed.

use std::ops::Range;

use super::{Geom, Unfold};

/// Terms per block of the reduction (`matrixmultiply`'s `kc` for f32).
const KC: usize = 256;

/// Output positions per block of column panels (a block of `KC x NC` f32 is 512 KiB).
const NC: usize = 512;

/// Multiply-adds below which one thread does the whole convolution.
const THREAD_MIN_WORK: usize = 1 << 22;

/// The vector instructions a kernel is compiled for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Isa {
    /// AVX-512F: tiles of 8 output channels by 32 positions.
    Avx512,
    /// AVX2 with FMA: tiles of 6 output channels by 16 positions.
    Avx2,
}

impl Isa {
    /// The best this CPU has, if any: where it has none, `matrixmultiply` sums without fused
    /// multiply-adds and the im2col path keeps that.
    pub(super) fn detect() -> Option<Isa> {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                return Some(Isa::Avx512);
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                return Some(Isa::Avx2);
            }
        }
        None
    }

    /// Tile rows (output channels) and columns (output positions).
    fn tile(self) -> (usize, usize) {
        // `nr` must be 16 or 32 (`scatter_row`).
        match self {
            Isa::Avx512 => (8, 32),
            Isa::Avx2 => (6, 16),
        }
    }

    /// One `mr x nr` tile over `kc` terms, summed as the module documentation says:
    /// `c[i * ldc + j] = Σ_k a[i * lda + k] · b[k * nr + j]`, added to what `c` holds when
    /// `add`.
    ///
    /// # Safety
    /// The CPU has the instruction set (an `Isa` is only made by `detect`, or by tests after
    /// checking); `a` reads `mr` rows of `kc` values `lda` apart, `b` one packed panel of
    /// `kc * nr` values, and `c` is `mr` rows of `nr` writable values `ldc` apart.
    #[allow(clippy::too_many_arguments)]
    unsafe fn kernel(
        self,
        kc: usize,
        a: *const f32,
        lda: usize,
        b: *const f32,
        c: *mut f32,
        ldc: usize,
        add: bool,
    ) {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: as the caller promises.
        unsafe {
            match self {
                Isa::Avx512 => x86::kernel_avx512(kc, a, lda, b, c, ldc, add),
                Isa::Avx2 => x86::kernel_avx2(kc, a, lda, b, c, ldc, add),
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        unreachable!("`Isa::detect` finds no kernel on this architecture");
    }
}

/// The images of one convolution GEMM, side by side: `images[i]` holds the input channels of
/// one group of one image; each contributes `lines` output lines of `line_len` positions.
pub(super) struct Columns<'a> {
    pub(super) images: Vec<&'a [f32]>,
    pub(super) lines: usize,
    pub(super) line_len: usize,
}

/// `c [m, ld]` (row-major, `ld` = all images' positions) `= w [m, kdim] · im2col(images)`, or
/// `+=` when `accumulate` (`c` then holds the bias).
#[allow(clippy::too_many_arguments)]
pub(super) fn gemm(
    isa: Isa,
    g: &Geom,
    cols: &Columns<'_>,
    w: &[f32],
    m: usize,
    kdim: usize,
    accumulate: bool,
    c: &mut [f32],
) {
    let work = m * kdim * cols.images.len() * cols.lines * cols.line_len;
    let threads = if work >= THREAD_MIN_WORK {
        threads()
    } else {
        1
    };
    gemm_on(isa, g, cols, w, m, kdim, accumulate, c, threads)
}

/// [`gemm`] on up to `threads` threads, each computing whole output lines.
#[allow(clippy::too_many_arguments)]
fn gemm_on(
    isa: Isa,
    g: &Geom,
    cols: &Columns<'_>,
    w: &[f32],
    m: usize,
    kdim: usize,
    accumulate: bool,
    c: &mut [f32],
    threads: usize,
) {
    let ld = cols.images.len() * cols.lines * cols.line_len;
    assert!(w.len() >= m * kdim && c.len() >= m * ld);
    if m == 0 || ld == 0 || kdim == 0 {
        return;
    }
    // The weights are read in place, `mr` rows at a time; the last rows, when `m` does not
    // fill a tile, from a copy padded with zero rows.
    let (mr, nr) = isa.tile();
    let full = m / mr * mr;
    let mut tail = vec![0.0f32; if full < m { mr * kdim } else { 0 }];
    tail[..(m - full) * kdim].copy_from_slice(&w[full * kdim..m * kdim]);
    let total = cols.images.len() * cols.lines;
    let threads = threads.clamp(1, total);
    let out = OutPtr(c.as_mut_ptr());
    // Each thread's lines go in chunks of at most about NC columns, so that a block of column
    // panels (KC x NC) stays in the core's L2 cache while the tiles read it. Chunks and threads
    // start at multiples of `q` lines, which fill whole panels, where there are enough lines.
    let q = nr / gcd(cols.line_len, nr);
    let chunk = if q * cols.line_len <= NC {
        NC / (q * cols.line_len) * q
    } else {
        NC.div_ceil(cols.line_len)
    };
    let job = |range: Range<usize>| {
        for start in range.clone().step_by(chunk) {
            let sub = start..(start + chunk).min(range.end);
            // SAFETY: `c` holds `m * ld` elements and the ranges of the threads are disjoint,
            // so each writes only its own columns.
            unsafe { columns(isa, g, cols, w, &tail, m, kdim, accumulate, out, ld, sub) }
        }
    };
    if threads <= 1 {
        job(0..total);
        return;
    }
    std::thread::scope(|s| {
        let per = total.div_ceil(threads);
        let per = if per >= q { per.div_ceil(q) * q } else { per };
        let handles: Vec<_> = (1..threads)
            .map(|t| (t * per).min(total)..((t + 1) * per).min(total))
            .filter(|r| !r.is_empty())
            .map(|r| s.spawn(move || job(r)))
            .collect();
        job(0..per.min(total));
        for h in handles {
            h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
        }
    });
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

/// Threads for one convolution: `MATMUL_NUM_THREADS` (the knob of `matrixmultiply`, which
/// runs the interpreter's other products), else the cores, at most 4.
fn threads() -> usize {
    static THREADS: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *THREADS.get_or_init(|| {
        std::env::var("MATMUL_NUM_THREADS")
            .ok()
            .and_then(|v| v.trim().parse::<usize>().ok())
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map_or(1, |n| n.get())
                    .min(4)
            })
            .max(1)
    })
}

/// The output pointer the threads share (each writes its own columns).
#[derive(Clone, Copy)]
struct OutPtr(*mut f32);
// SAFETY: the threads write disjoint columns (see `gemm`).
unsafe impl Send for OutPtr {}
unsafe impl Sync for OutPtr {}

/// Computes the output columns of global lines `range` (line `l` is line `l % lines` of image
/// `l / lines`) for every output channel; `tail` holds the last `m % mr` rows of `w` padded
/// with zero rows to `mr` (empty when `mr` divides `m`).
///
/// # Safety
/// `out` points to `m * ld` elements, and no other thread writes these columns meanwhile.
#[allow(clippy::too_many_arguments)]
unsafe fn columns(
    isa: Isa,
    g: &Geom,
    cols: &Columns<'_>,
    w: &[f32],
    tail: &[f32],
    m: usize,
    kdim: usize,
    accumulate: bool,
    out: OutPtr,
    ld: usize,
    range: Range<usize>,
) {
    let (mr, nr) = isa.tile();
    let width = range.len() * cols.line_len;
    let panels = width.div_ceil(nr);
    let col0 = range.start * cols.line_len;
    // The pieces of `range` in each image, in column order.
    let pieces: Vec<(usize, Range<usize>)> = (0..cols.images.len())
        .filter_map(|i| {
            let lo = range.start.max(i * cols.lines);
            let hi = range.end.min((i + 1) * cols.lines);
            (lo < hi).then(|| (i, lo - i * cols.lines..hi - i * cols.lines))
        })
        .collect();
    let unfold = Unfold::new(g);
    let mut idx = unfold.scratch();
    // One row of the unfolded input; the columns past `width` stay zero.
    let mut row = vec![0.0f32; panels * nr];
    let mut tile = [0.0f32; MAX_TILE];
    super::PANELS.with(|cell| {
        super::scratch(cell, panels * nr * KC.min(kdim), |b| {
            for k0 in (0..kdim).step_by(KC) {
                let kc = KC.min(kdim - k0);
                // B: row after row of the unfolded input, each cut into the column panels.
                for k in 0..kc {
                    let mut at = 0;
                    for (img, lines) in &pieces {
                        let n = lines.len() * cols.line_len;
                        let dst = &mut row[at..at + n];
                        unfold.row(cols.images[*img], k0 + k, lines.clone(), dst, &mut idx);
                        at += n;
                    }
                    match nr {
                        32 => scatter_row::<32>(&row, b, kc, k),
                        16 => scatter_row::<16>(&row, b, kc, k),
                        _ => unreachable!("tile widths are 16 or 32"),
                    }
                }
                let add = k0 > 0 || accumulate;
                for i0 in (0..m).step_by(mr) {
                    let a = if i0 < m / mr * mr {
                        &w[i0 * kdim + k0..]
                    } else {
                        &tail[k0..]
                    };
                    for p in 0..panels {
                        let b_panel = b[p * kc * nr..][..kc * nr].as_ptr();
                        let j0 = p * nr;
                        let nj = nr.min(width - j0);
                        let rows = mr.min(m - i0);
                        // SAFETY: `a` has `mr` rows of `kdim >= k0 + kc` values and `b_panel`
                        // `kc * nr` values. A whole tile goes straight to `c`: rows `i0..i0 +
                        // mr <= m` and columns `col0 + j0..+ nr` of this thread's range, which
                        // the caller vouches for; a partial one goes through `tile`.
                        unsafe {
                            let c = out.0.add(i0 * ld + col0 + j0);
                            if rows == mr && nj == nr {
                                isa.kernel(kc, a.as_ptr(), kdim, b_panel, c, ld, add);
                                continue;
                            }
                            let t = tile.as_mut_ptr();
                            isa.kernel(kc, a.as_ptr(), kdim, b_panel, t, nr, false);
                            for i in 0..rows {
                                let dst = std::slice::from_raw_parts_mut(c.add(i * ld), nj);
                                let src = &tile[i * nr..][..nj];
                                if add {
                                    dst.iter_mut().zip(src).for_each(|(d, &s)| *d += s);
                                } else {
                                    dst.copy_from_slice(src);
                                }
                            }
                        }
                    }
                }
            }
        })
    });
}

/// Copies `row` into row `k` of a block of `kc` rows of column panels `NR` wide (position `j`
/// goes to `(j / NR) * kc * NR + k * NR + j % NR`), in copies of a constant size, which
/// compile to a few vector moves rather than calls.
fn scatter_row<const NR: usize>(row: &[f32], b: &mut [f32], kc: usize, k: usize) {
    for (p, chunk) in row.chunks_exact(NR).enumerate() {
        let dst: &mut [f32; NR] = (&mut b[p * kc * NR + k * NR..][..NR])
            .try_into()
            .expect("NR values");
        let src: &[f32; NR] = chunk.try_into().expect("NR values");
        *dst = *src;
    }
}

/// The largest tile, `mr * nr`, of any kernel.
const MAX_TILE: usize = 8 * 32;

#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::*;

    /// A tile kernel: `MR` rows by two vectors of `lanes` columns. Each step loads two vectors
    /// of B and fused-multiply-adds each of `MR` values of A (broadcast) onto its row.
    macro_rules! tile_kernel {
        ($(#[$doc:meta])* $name:ident, $feature:literal, MR = $mr:literal, lanes = $lanes:literal,
         $zero:ident, $load:ident, $store:ident, $set1:ident, $fmadd:ident, $add:ident) => {
            $(#[$doc])*
            #[target_feature(enable = $feature)]
            pub(super) unsafe fn $name(
                kc: usize,
                a: *const f32,
                lda: usize,
                b: *const f32,
                c: *mut f32,
                ldc: usize,
                add: bool,
            ) {
                const MR: usize = $mr;
                const L: usize = $lanes;
                // SAFETY: the caller gives `MR` rows of `kc` values of A, `kc` steps of a
                // packed panel of B (`2 * L` wide), and a whole tile of C.
                unsafe {
                    let mut acc = [[$zero(); 2]; MR];
                    for k in 0..kc {
                        let b0 = $load(b.add(k * 2 * L));
                        let b1 = $load(b.add(k * 2 * L + L));
                        for (i, row) in acc.iter_mut().enumerate() {
                            let ai = $set1(*a.add(i * lda + k));
                            row[0] = $fmadd(ai, b0, row[0]);
                            row[1] = $fmadd(ai, b1, row[1]);
                        }
                    }
                    for (i, row) in acc.iter().enumerate() {
                        let (c0, c1) = (c.add(i * ldc), c.add(i * ldc + L));
                        if add {
                            $store(c0, $add($load(c0), row[0]));
                            $store(c1, $add($load(c1), row[1]));
                        } else {
                            $store(c0, row[0]);
                            $store(c1, row[1]);
                        }
                    }
                }
            }
        };
    }

    tile_kernel!(
        /// 8 x 32 tile, 16-lane vectors.
        kernel_avx512, "avx512f", MR = 8, lanes = 16,
        _mm512_setzero_ps, _mm512_loadu_ps, _mm512_storeu_ps, _mm512_set1_ps, _mm512_fmadd_ps,
        _mm512_add_ps
    );

    tile_kernel!(
        /// 6 x 16 tile, 8-lane vectors.
        kernel_avx2, "avx2,fma", MR = 6, lanes = 8,
        _mm256_setzero_ps, _mm256_loadu_ps, _mm256_storeu_ps, _mm256_set1_ps, _mm256_fmadd_ps,
        _mm256_add_ps
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conv::tests::{geometry, rand, Case};
    use crate::matmul::float_gemm;

    /// The instruction sets this CPU runs (an AVX-512 machine runs both kernels).
    fn isas() -> Vec<Isa> {
        let mut out = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f") {
                out.push(Isa::Avx512);
            }
            if std::is_x86_feature_detected!("avx2") && std::is_x86_feature_detected!("fma") {
                out.push(Isa::Avx2);
            }
        }
        out
    }

    /// Every kernel, on one thread and on several, gives the bits of im2col followed by
    /// `matrixmultiply`'s sgemm, with and without a bias, on reductions shorter and longer than
    /// a block, with channels and positions that do not fill the tiles.
    #[test]
    fn packed_gemm_is_bit_identical_to_matrixmultiply() {
        let isas = isas();
        if isas.is_empty() {
            eprintln!("skipped: this CPU has no packed kernel (no AVX2 with FMA)");
            return;
        }
        let mut seed = 5;
        #[rustfmt::skip]
        let cases: Vec<Case> = vec![
            (1, 3, 5, 1, vec![9, 11], vec![3, 3], vec![], vec![], vec![1, 1, 1, 1]),
            // Whole tiles of both kernels (24 channels, 320 positions), straight into the output.
            (1, 30, 24, 1, vec![8, 40], vec![3, 3], vec![], vec![], vec![1, 1, 1, 1]),
            (1, 40, 13, 1, vec![10, 9], vec![3, 3], vec![2, 1], vec![], vec![1, 0, 2, 1]),
            // More than NC positions: blocks of panels, one of them across two images.
            (2, 12, 10, 1, vec![14, 30], vec![3, 3], vec![], vec![], vec![1, 1, 1, 1]),
            (2, 64, 17, 1, vec![7, 7], vec![3, 3], vec![], vec![1, 2], vec![2, 2, 2, 2]),
            (1, 33, 9, 1, vec![12, 5], vec![1, 1], vec![], vec![], vec![]),
            (1, 7, 6, 1, vec![20], vec![5], vec![3], vec![], vec![2, 0]),
            (1, 5, 4, 1, vec![4, 5, 3], vec![2, 2, 2], vec![1, 2, 1], vec![], vec![1, 0, 1, 0, 1, 1]),
        ];
        for (n, c, m, _, input, kernel, strides, dilations, pads) in cases {
            let g = geometry(c, &input, &kernel, strides, dilations, pads);
            let isz: usize = input.iter().product();
            let osz: usize = g.out.iter().product();
            let kdim = c * kernel.iter().product::<usize>();
            let x = rand(&mut seed, n * c * isz);
            let w = rand(&mut seed, m * kdim);
            let bias = rand(&mut seed, m);
            let ld = n * osz;
            // The reference: the images unfolded side by side, then sgemm.
            let mut col = vec![0.0; kdim * ld];
            for b in 0..n {
                super::super::im2col(
                    &x[b * c * isz..][..c * isz],
                    c,
                    &g,
                    &mut col,
                    ld,
                    b * osz,
                    0..osz / g.out[g.out.len() - 1],
                );
            }
            for accumulate in [false, true] {
                let init: Vec<f32> = (0..m * ld)
                    .map(|i| if accumulate { bias[i / ld] } else { f32::NAN })
                    .collect();
                let mut want = init.clone();
                let beta = if accumulate { 1.0 } else { 0.0 };
                float_gemm(m, kdim, ld, &w, (kdim, 1), &col, (ld, 1), beta, &mut want);
                let images: Vec<&[f32]> = (0..n).map(|b| &x[b * c * isz..][..c * isz]).collect();
                let last = g.out[g.out.len() - 1];
                let cols = Columns {
                    images,
                    lines: osz / last,
                    line_len: last,
                };
                for &isa in &isas {
                    for threads in [1, 3] {
                        let mut got = init.clone();
                        gemm_on(isa, &g, &cols, &w, m, kdim, accumulate, &mut got, threads);
                        let diff = got
                            .iter()
                            .zip(&want)
                            .position(|(a, b)| a.to_bits() != b.to_bits());
                        assert_eq!(
                            diff,
                            None,
                            "{isa:?} on {threads} threads, {n}x{c}x{input:?} * {m}x{kernel:?}, accumulate {accumulate}: element {diff:?} is {:?}, sgemm gives {:?}",
                            diff.map(|i| got[i]),
                            diff.map(|i| want[i]),
                        );
                    }
                }
            }
        }
    }
}
