//! The entropy calibrator's divergence as first written, bin by bin (copy, level sums, `Q`,
//! two smoothings, the divergence of the normalized vectors), kept as the oracle of the
//! per-level computation in [`super::entropy_divergence`] and [`super::log_ratios`]; and the
//! property tests that compare the two on many kinds of histograms.

use super::{entropy_bins, entropy_divergence, log_ratios, rebin, Histogram, KlScratch};

/// Replaces zeros by `eps` and takes the same mass from the non-zero entries, so that
/// `KL(p || q)` stays finite (MXNet's `_smooth_distribution`); `None` when all are zero.
fn smooth(p: &mut [f64], eps: f64) -> Option<()> {
    let zeros = p.iter().filter(|&&x| x == 0.0).count();
    let nonzeros = p.len() - zeros;
    if nonzeros == 0 {
        return None;
    }
    let eps1 = eps * zeros as f64 / nonzeros as f64;
    for x in p.iter_mut() {
        *x = if *x == 0.0 { eps } else { *x - eps1 };
    }
    Some(())
}

/// `KL(p || q)` of two unnormalized distributions (normalized here, as `scipy.stats.entropy`).
fn kl_divergence(p: &[f64], q: &[f64]) -> f64 {
    let (sp, sq): (f64, f64) = (p.iter().sum(), q.iter().sum());
    if sp <= 0.0 || sq <= 0.0 {
        return f64::INFINITY;
    }
    let mut kl = 0.0;
    for (&a, &b) in p.iter().zip(q) {
        if a > 0.0 {
            if b <= 0.0 {
                return f64::INFINITY;
            }
            let (a, b) = (a / sp, b / sq);
            kl += a * (a / b).ln();
        }
    }
    kl
}

/// Buffers for [`entropy_divergence_reference`], reused by every candidate of a search.
#[derive(Default)]
struct ReferenceScratch {
    p: Vec<f64>,
    q: Vec<f64>,
    level_mass: Vec<f64>,
    level_nonzero: Vec<usize>,
}

impl ReferenceScratch {
    /// After [`entropy_divergence_reference`]: the non-empty bins of `P` less the levels that hold
    /// them (the degrees of freedom that merging bins into levels takes away).
    fn degrees_of_freedom(&self) -> f64 {
        let bins: usize = self.level_nonzero.iter().sum();
        let levels = self.level_nonzero.iter().filter(|&&c| c > 0).count();
        (bins - levels) as f64
    }
}

/// `KL(P || Q)` for the candidate threshold at the end of bin `i` of `bins` (with `outliers`,
/// the mass of the bins from `i` on, folded into bin `i - 1` of `P`), for `levels` quantization
/// steps over `[0, t]`; `None` when `P` or `Q` is all zeros.
///
/// Bin `k` belongs to level `k * levels / i`: the levels split `[0, t]` into equal widths, as
/// the uniform grid that the scheme quantizes with does. (MXNet and TVM merge `i / levels` bins
/// per level and give the remainder, up to `levels - 1` bins, to the last level. That models a
/// grid whose last step is up to `levels` times wider than the others, makes the divergence
/// jump at every multiple of `levels` bins and biases the search to thresholds just below one;
/// see docs/quantization.md.)
fn entropy_divergence_reference(
    bins: &[f64],
    outliers: f64,
    i: usize,
    levels: usize,
    s: &mut ReferenceScratch,
) -> Option<f64> {
    let sliced = &bins[..i];
    s.p.clear();
    s.p.extend_from_slice(sliced);
    s.p[i - 1] += outliers;
    s.level_mass.clear();
    s.level_mass.resize(levels, 0.0);
    s.level_nonzero.clear();
    s.level_nonzero.resize(levels, 0);
    for (k, (&x, &pk)) in sliced.iter().zip(&s.p).enumerate() {
        let level = k * levels / i;
        s.level_mass[level] += x;
        if pk != 0.0 {
            s.level_nonzero[level] += 1;
        }
    }
    // Each level's mass spreads evenly over its bins where `P` is non-zero.
    s.q.clear();
    s.q.extend(s.p.iter().enumerate().map(|(k, &pk)| {
        let level = k * levels / i;
        if pk != 0.0 {
            s.level_mass[level] / s.level_nonzero[level] as f64
        } else {
            0.0
        }
    }));
    smooth(&mut s.p, 1e-4)?;
    smooth(&mut s.q, 1e-4)?;
    Some(kl_divergence(&s.p, &s.q))
}

/// The log-ratios `ln(p_k / q_k)` of the normalized, smoothed `P` and `Q` of candidate `i`
/// (see [`entropy_divergence_reference`]; 0 where smoothing left one of them at 0, which the divergence
/// skips too); `None` where the divergence is undefined.
fn log_ratios_reference(
    bins: &[f64],
    outliers: f64,
    i: usize,
    levels: usize,
    s: &mut ReferenceScratch,
) -> Option<Vec<f64>> {
    entropy_divergence_reference(bins, outliers, i, levels, s)?;
    let (sp, sq): (f64, f64) = (s.p.iter().sum(), s.q.iter().sum());
    Some(
        s.p.iter()
            .zip(&s.q)
            .map(|(&p, &q)| {
                if p > 0.0 && q > 0.0 {
                    ((p / sp) / (q / sq)).ln()
                } else {
                    0.0
                }
            })
            .collect(),
    )
}

/// A small deterministic generator (a linear congruential one) for the random histograms.
struct Rng(u64);

impl Rng {
    /// Uniform in `[0, 1)`.
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 11) as f64 / (1u64 << 53) as f64
    }

    /// Uniform in `0..n`.
    fn below(&mut self, n: usize) -> usize {
        ((self.next() * n as f64) as usize).min(n - 1)
    }
}

/// `n` values drawn from the density `density` (non-negative weights of `bins` bins), as
/// counts.
fn draw(rng: &mut Rng, density: &[f64], n: usize) -> Vec<u64> {
    let total: f64 = density.iter().sum();
    let cdf: Vec<f64> = density
        .iter()
        .scan(0.0, |acc, &d| {
            *acc += d / total;
            Some(*acc)
        })
        .collect();
    let mut counts = vec![0u64; density.len()];
    for _ in 0..n {
        let u = rng.next();
        counts[cdf.partition_point(|&c| c < u).min(density.len() - 1)] += 1;
    }
    counts
}

/// The kinds of histograms the entropy search meets, as counts over `bins` bins: `kind` picks
/// one, `rng` its details.
fn random_counts(rng: &mut Rng, kind: usize, bins: usize) -> Vec<u64> {
    let scale = 1.0 + 60.0 * rng.next();
    let tail = |k: usize| (1.0 + k as f64 / scale).powi(-3);
    match kind {
        // Dense: a smooth tail with counts in the millions, rounded.
        0 => (0..bins)
            .map(|k| (1e6 * tail(k) * (0.9 + 0.2 * rng.next())).round() as u64)
            .collect(),
        // Sparse: a few values a bin, many bins empty.
        1 => {
            let density: Vec<f64> = (0..bins).map(tail).collect();
            {
                let n = 500 + rng.below(8000);
                draw(rng, &density, n)
            }
        }
        // A ReLU's output: a spike of exact zeros in bin 0, a half-normal body.
        2 => {
            let width = bins as f64 * (0.05 + 0.3 * rng.next());
            let density: Vec<f64> = (0..bins)
                .map(|k| (-(k as f64 / width).powi(2) / 2.0).exp())
                .collect();
            let mut c = {
                let n = 2000 + rng.below(50_000);
                draw(rng, &density, n)
            };
            c[0] += 10_000 + rng.below(100_000) as u64;
            c
        }
        // A long, heavy tail: a power law.
        3 => {
            let density: Vec<f64> = (0..bins)
                .map(|k| (1.0 + k as f64 / scale).powf(-1.2))
                .collect();
            {
                let n = 1000 + rng.below(100_000);
                draw(rng, &density, n)
            }
        }
        // Stretches of empty bins between dense ones.
        4 => {
            let mut c: Vec<u64> = (0..bins)
                .map(|k| (1e4 * tail(k)).round() as u64 + rng.below(30) as u64)
                .collect();
            for _ in 0..1 + rng.below(6) {
                let start = rng.below(bins);
                let len = rng.below(bins / 4 + 1);
                for x in c.iter_mut().skip(start).take(len) {
                    *x = 0;
                }
            }
            c
        }
        // The bulk in the first bins, nothing after, and the last bin filled by the outliers
        // alone.
        _ => {
            let body = 1 + rng.below(bins / 3);
            let density: Vec<f64> = (0..body).map(tail).collect();
            let mut c = {
                let n = 200 + rng.below(20_000);
                draw(rng, &density, n)
            };
            c.resize(bins, 0);
            c[bins - 1] = 1 + rng.below(3) as u64;
            c
        }
    }
}

/// The counts of one random histogram as the search reads them: `raw` as they are, or as
/// [`entropy_bins`] gives them (over 2048 bins, re-binned from up to 4096 with fractional
/// counts, the first bin counted as the second).
fn random_bins(rng: &mut Rng, kind: usize) -> Vec<f64> {
    let raw = rng.below(3);
    let fine = match raw {
        0 => 64 + rng.below(2048 - 64),
        1 => 2048,
        _ => 2049 + rng.below(2048),
    };
    let counts = random_counts(rng, kind, fine);
    let mut h = Histogram::new(0.0, fine as f64, fine);
    h.bins = counts;
    if raw == 0 {
        h.bins.iter().map(|&c| c as f64).collect()
    } else {
        entropy_bins(&h, fine.min(2048))
    }
}

/// Whether `new` is `old` within the relative tolerance `rel` (or both are infinite).
fn close(new: f64, old: f64, rel: f64) -> bool {
    if old.is_infinite() || new.is_infinite() {
        return old == new;
    }
    (new - old).abs() <= rel * old.abs().max(1e-6)
}

#[test]
fn the_divergence_per_level_is_the_divergence_bin_by_bin() {
    let mut rng = Rng(20261125);
    let (mut checked, mut worst) = (0usize, 0.0f64);
    // The histograms with bins the series does not take (`KlScratch::small`), and those with
    // only big ones.
    let (mut with_small, mut all_big) = (0, 0);
    for round in 0..60 {
        let kind = round % 6;
        let bins = random_bins(&mut rng, kind);
        let n = bins.len();
        let levels = [2, 8, 128, 256][rng.below(4)].min(n - 1);
        let tails: Vec<f64> = (0..=n).map(|i| bins[i..].iter().rev().sum()).collect();
        let mut fast = KlScratch::new(&bins);
        let mut slow = ReferenceScratch::default();
        if fast.small.is_empty() {
            all_big += 1;
        } else {
            with_small += 1;
        }
        // Every candidate for the small histograms; a stride for the big ones (with the first
        // and the last), to keep the test quick in debug builds.
        let stride = if n > 512 { 13 } else { 1 };
        let candidates = (levels..=n).step_by(stride).chain([n]);
        for i in candidates {
            let new = entropy_divergence(&bins, tails[i], i, levels, &mut fast);
            let old = entropy_divergence_reference(&bins, tails[i], i, levels, &mut slow);
            let ctx = || format!("round {round} kind {kind} bins {n} levels {levels} i {i}");
            match (new, old) {
                (None, None) => continue,
                (Some(a), Some(b)) => {
                    assert!(close(a, b, 1e-9), "{}: {a} vs {b}", ctx());
                    if b.is_finite() {
                        worst = worst.max((a - b).abs() / b.abs().max(1e-6));
                    }
                }
                _ => panic!("{}: {new:?} vs {old:?}", ctx()),
            }
            assert_eq!(
                fast.degrees_of_freedom(),
                slow.degrees_of_freedom(),
                "{}",
                ctx()
            );
            let new = log_ratios(&bins, tails[i], i, levels, &mut fast).unwrap();
            let old = log_ratios_reference(&bins, tails[i], i, levels, &mut slow).unwrap();
            assert_eq!(new.len(), old.len(), "{}", ctx());
            for (k, (a, b)) in new.iter().zip(&old).enumerate() {
                assert!((a - b).abs() <= 1e-9, "{} bin {k}: {a} vs {b}", ctx());
            }
            checked += 1;
        }
    }
    eprintln!(
        "{checked} candidates, worst relative difference {worst:e}; \
         {with_small} histograms with small bins, {all_big} without"
    );
    assert!(checked > 5_000, "{checked}");
    assert!(with_small >= 5 && all_big >= 5, "{with_small} {all_big}");
}

/// The candidate of least divergence, plain or less its bias (the estimates that do not
/// depend on [`super::entropy_search`]'s rule among near-best candidates), from `divergence`.
fn least(
    n: usize,
    levels: usize,
    total: f64,
    unbiased: bool,
    mut divergence: impl FnMut(usize) -> Option<(f64, f64)>,
) -> usize {
    let mut best = (f64::INFINITY, n);
    for i in levels..=n {
        if let Some((kl, dof)) = divergence(i) {
            let score = if unbiased {
                kl - dof / (2.0 * total)
            } else {
                kl
            };
            if score < best.0 {
                best = (score, i);
            }
        }
    }
    best.1
}

#[test]
fn the_search_picks_the_same_candidate_as_bin_by_bin() {
    let mut rng = Rng(7);
    for round in 0..12 {
        let kind = round % 6;
        let bins = random_bins(&mut rng, kind);
        let n = bins.len();
        let levels = [128, 256][rng.below(2)].min(n - 1);
        let tails: Vec<f64> = (0..=n).map(|i| bins[i..].iter().rev().sum()).collect();
        for unbiased in [false, true] {
            let mut fast = KlScratch::new(&bins);
            let new = least(n, levels, tails[0], unbiased, |i| {
                let kl = entropy_divergence(&bins, tails[i], i, levels, &mut fast)?;
                Some((kl, fast.degrees_of_freedom()))
            });
            let mut slow = ReferenceScratch::default();
            let old = least(n, levels, tails[0], unbiased, |i| {
                let kl = entropy_divergence_reference(&bins, tails[i], i, levels, &mut slow)?;
                Some((kl, slow.degrees_of_freedom()))
            });
            assert_eq!(new, old, "round {round} kind {kind} unbiased {unbiased}");
        }
    }
}

#[test]
fn rebinned_counts_are_summed_exactly() {
    // The prefix sums are exact for the counts `rebin` gives (multiples of 1/2048), so that a
    // level's mass is the same however it is summed.
    let mut rng = Rng(3);
    let mut h = Histogram::new(0.0, 3000.0, 3001);
    h.bins = random_counts(&mut rng, 3, 3001);
    let bins = rebin(&h, 2048);
    let s = KlScratch::new(&bins);
    for (a, b) in [(0, 2048), (17, 900), (1000, 1001), (5, 2000)] {
        let direct: f64 = bins[a..b].iter().sum();
        assert_eq!(s.mass[b] - s.mass[a], direct, "{a}..{b}");
    }
}
