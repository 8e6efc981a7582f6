//! Calibrators: pure functions from the statistics of a tensor to the range it is quantized
//! over.
//!
//! Statistics are a [`Histogram`]: the smallest and largest value seen, and a histogram of
//! magnitudes `|x|` over `[0, max |x|]` (2048 bins by default, as TensorRT's calibrators).
//! A calibrator picks a threshold `t` on magnitudes; the range is then
//! `[max(min, -t), min(max, t)]`, so that one-sided data (after a ReLU) keeps its one side.
//!
//! - `minmax`: `t = max |x|`: nothing clipped.
//! - `percentile`: the smallest `t` below which `p`% of the magnitudes lie (99.99 by default).
//! - `entropy`: TensorRT's, over 2048 bins (a finer histogram is re-binned first, see
//!   [`entropy_threshold`]): for each candidate `t` (a bin edge from `levels` bins on), the
//!   histogram up to `t` with everything above folded into its last bin is the reference `P`;
//!   `Q` is the same bins merged into `levels` quantization levels of equal width (bin `k` of
//!   `i` in level `k * levels / i`, as the uniform grid over `[0, t]`; MXNet and TVM give the
//!   last level the remainder of `i / levels`, see [`entropy_threshold`]) and spread back
//!   evenly over the bins where `P` is non-empty; both are smoothed (a zero becomes `1e-4`, as
//!   MXNet and TVM do), and the `t` of least `KL(P || Q)` wins. The first bin (the exact zeros of a
//!   ReLU's output) counts as much as the second, as in pytorch-quantization. The divergences
//!   are estimates from a sample: each is taken less its bias (Miller and Madow's
//!   `(non-empty bins - non-empty levels) / 2N`), and of the candidates within one standard
//!   error of the least, the widest wins (see [`entropy_search`]); on histograms of millions
//!   of values both corrections are negligible. The whole range is kept instead where the
//!   winning clip raises the expected squared error (as `mse` models it) by more than one
//!   standard error ([`clipping_costs_squared_error`]): the divergence does not see how far
//!   the clipped values lie.
//! - `mse`: the `t` minimizing the expected squared error of quantizing with `levels` steps over
//!   `[0, t]`: clipping error `(|x| - t)^2` above `t`, rounding noise `step^2 / 12` below.
//!
//! `levels` is the number of quantization steps that cover `[0, t]`: `2^(bits-1)` when the data
//! has both signs, `2^bits` when it is one-sided ([`levels_for`]).

use crate::errors::QuantError;

#[cfg(test)]
mod kl_reference;

/// The default number of histogram bins.
pub const DEFAULT_BINS: usize = 2048;

/// Count tables [`Histogram::add`] interleaves on large inputs.
const COUNTERS: usize = 4;

/// Statistics of one tensor (or one channel of it).
#[derive(Clone, Debug, PartialEq)]
pub struct Histogram {
    /// The smallest value seen.
    pub min: f64,
    /// The largest value seen.
    pub max: f64,
    /// The upper end of the magnitude histogram (`max |x|` over every value seen).
    pub amax: f64,
    /// Counts of `|x|` in `bins.len()` equal bins over `[0, amax]`; empty when only the range
    /// was collected.
    pub bins: Vec<u64>,
}

impl Histogram {
    /// Statistics with a known range and an empty magnitude histogram of `n_bins` bins
    /// (`n_bins == 0`: the range only).
    pub fn new(min: f64, max: f64, n_bins: usize) -> Histogram {
        Histogram {
            min,
            max,
            amax: min.abs().max(max.abs()),
            bins: vec![0; n_bins],
        }
    }

    /// Statistics of `data`: its range and a magnitude histogram of `n_bins` bins.
    pub fn of(data: &[f64], n_bins: usize) -> Histogram {
        let (min, max) = data
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &x| {
                (lo.min(x), hi.max(x))
            });
        let (min, max) = if min > max { (0.0, 0.0) } else { (min, max) };
        let mut h = Histogram::new(min, max, n_bins);
        h.add(data.iter().copied());
        h
    }

    /// Counts the magnitudes of `values` (values beyond `amax` go to the last bin).
    ///
    /// The bin of `x` is `|x| / width`. Where the width is a power of two (always for the
    /// one-pass histograms: a power-of-two upper end over a power-of-two number of bins),
    /// multiplying by its reciprocal is exact and gives the same bins without a division.
    /// Large inputs are counted into [`COUNTERS`] interleaved tables summed at the end: a
    /// ReLU's output is half zeros, and one table would make every other increment wait for
    /// the previous one to bin 0.
    pub fn add(&mut self, values: impl Iterator<Item = f64>) {
        let n = self.bins.len();
        if n == 0 {
            return;
        }
        let width = self.amax / n as f64;
        let bin = |x: f64| -> usize {
            if width > 0.0 {
                ((x.abs() / width) as usize).min(n - 1)
            } else {
                0
            }
        };
        let exact_reciprocal = width > 0.0 && width.is_normal() && (1.0 / width).is_normal() && {
            const MANTISSA: u64 = (1 << 52) - 1;
            width.to_bits() & MANTISSA == 0
        };
        let (lower, _) = values.size_hint();
        if !exact_reciprocal || lower < COUNTERS * n {
            for x in values {
                self.bins[bin(x)] += 1;
            }
            return;
        }
        let inv = 1.0 / width;
        let mut tables = vec![0u64; COUNTERS * n];
        let mut k = 0;
        for x in values {
            let i = ((x.abs() * inv) as usize).min(n - 1);
            tables[k * n + i] += 1;
            k = (k + 1) % COUNTERS;
        }
        for table in tables.chunks_exact(n) {
            for (b, &c) in self.bins.iter_mut().zip(table) {
                *b += c;
            }
        }
    }

    /// Statistics that have seen nothing yet, with a magnitude histogram of `n_bins` bins
    /// (`n_bins == 0`: the range only) to be filled in one pass by [`Histogram::observe`].
    pub fn empty(n_bins: usize) -> Histogram {
        Histogram {
            min: f64::INFINITY,
            max: f64::NEG_INFINITY,
            amax: 0.0,
            bins: vec![0; n_bins],
        }
    }

    /// Adds `data` to statistics collected in one pass: the range, and the magnitudes in a
    /// histogram whose upper end is a power of two that grows (by [`Histogram::grow`]) to
    /// cover every value seen. [`Histogram::finish`] ends the pass.
    pub fn observe<T: Copy + Into<f64>>(&mut self, data: &[T]) {
        let (lo, hi) = range_of(data);
        (self.min, self.max) = (self.min.min(lo), self.max.max(hi));
        if self.bins.is_empty() || lo > hi {
            return;
        }
        self.grow(lo.abs().max(hi.abs()));
        self.add(data.iter().map(|&x| x.into()));
    }

    /// Widens the histogram so that its upper end covers `a`: an empty one (upper end 0,
    /// whose counts are all zeros, in bin 0) takes the smallest power of two `>= a`; otherwise
    /// the upper end doubles until it covers `a`, each doubling adding bins `2j` and `2j + 1`
    /// into bin `j`. With powers of two as upper ends, the bin edges of the narrower histogram
    /// are edges of the wider one, so that histograms grown apart (on different threads, from
    /// different first samples) merge exactly.
    pub fn grow(&mut self, a: f64) {
        if self.bins.is_empty() || !a.is_finite() || a <= self.amax {
            return;
        }
        if self.amax <= 0.0 {
            let mut u = 2f64.powi(a.log2().ceil() as i32);
            while u < a {
                u *= 2.0;
            }
            while u / 2.0 >= a {
                u /= 2.0;
            }
            self.amax = u;
            return;
        }
        let n = self.bins.len();
        while self.amax < a {
            self.amax *= 2.0;
            for j in 0..n {
                let pair = if 2 * j < n {
                    self.bins[2 * j] + self.bins.get(2 * j + 1).copied().unwrap_or(0)
                } else {
                    0
                };
                self.bins[j] = pair;
            }
        }
    }

    /// Adds the statistics `other` collected in one pass (its histogram grown as
    /// [`Histogram::observe`] grows it, with as many bins).
    pub fn merge(&mut self, other: &Histogram) {
        self.min = self.min.min(other.min);
        self.max = self.max.max(other.max);
        if self.bins.is_empty() || self.bins.len() != other.bins.len() {
            return;
        }
        let mut other = other.clone();
        let top = self.amax.max(other.amax);
        self.grow(top);
        other.grow(top);
        for (a, b) in self.bins.iter_mut().zip(&other.bins) {
            *a += b;
        }
    }

    /// Ends a one-pass collection: drops the bins above the one that holds the largest
    /// magnitude seen, so that the histogram covers the data (between half its bins and all of
    /// them, each at most `2 max|x| / bins` wide) and its upper end is that bin's.
    pub fn finish(&mut self) {
        let a = self.min.abs().max(self.max.abs());
        if self.bins.is_empty() || self.amax <= 0.0 || a.is_nan() || a <= 0.0 {
            return;
        }
        let w = self.bin_width();
        let keep = ((a / w) as usize + 1).min(self.bins.len());
        self.bins.truncate(keep);
        self.amax = keep as f64 * w;
    }

    /// The width of one bin.
    pub fn bin_width(&self) -> f64 {
        if self.bins.is_empty() {
            0.0
        } else {
            self.amax / self.bins.len() as f64
        }
    }

    /// The range for threshold `t` on magnitudes.
    pub fn clip(&self, t: f64) -> (f64, f64) {
        (self.min.max(-t), self.max.min(t))
    }
}

/// The smallest and largest of `data` (NaNs skipped; `(inf, -inf)` when empty), in eight
/// independent lanes so that the compiler can vectorize the comparisons.
fn range_of<T: Copy + Into<f64>>(data: &[T]) -> (f64, f64) {
    const LANES: usize = 8;
    let mut lo = [f64::INFINITY; LANES];
    let mut hi = [f64::NEG_INFINITY; LANES];
    let chunks = data.chunks_exact(LANES);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..LANES {
            let x: f64 = c[k].into();
            lo[k] = if x < lo[k] { x } else { lo[k] };
            hi[k] = if x > hi[k] { x } else { hi[k] };
        }
    }
    for (k, &x) in rest.iter().enumerate() {
        let x: f64 = x.into();
        lo[k] = if x < lo[k] { x } else { lo[k] };
        hi[k] = if x > hi[k] { x } else { hi[k] };
    }
    (
        lo.iter().copied().fold(f64::INFINITY, f64::min),
        hi.iter().copied().fold(f64::NEG_INFINITY, f64::max),
    )
}

/// How a range is chosen from statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Calibrator {
    /// The whole range seen.
    MinMax,
    /// The given percentile of magnitudes (in percent, e.g. 99.99).
    Percentile(f64),
    /// Least KL divergence (TensorRT's entropy calibrator).
    Entropy,
    /// Least expected squared quantization error.
    Mse,
}

impl Calibrator {
    /// Parses `minmax`, `percentile`, `percentile:99.9`, `entropy` or `mse`.
    pub fn parse(text: &str) -> Result<Calibrator, QuantError> {
        let (name, arg) = match text.split_once(':') {
            Some((n, a)) => (n, Some(a)),
            None => (text, None),
        };
        let bad_arg = || {
            QuantError::Calibrator(format!(
                "calibrator '{name}' takes no argument (got '{text}')"
            ))
        };
        match name {
            "minmax" => arg.map_or(Ok(Calibrator::MinMax), |_| Err(bad_arg())),
            "entropy" => arg.map_or(Ok(Calibrator::Entropy), |_| Err(bad_arg())),
            "mse" => arg.map_or(Ok(Calibrator::Mse), |_| Err(bad_arg())),
            "percentile" => match arg {
                None => Ok(Calibrator::Percentile(99.99)),
                Some(a) => match a.parse::<f64>() {
                    Ok(p) if p > 0.0 && p <= 100.0 => Ok(Calibrator::Percentile(p)),
                    _ => Err(QuantError::Calibrator(format!(
                        "the percentile must be a number in (0, 100], not '{a}'"
                    ))),
                },
            },
            _ => Err(QuantError::Calibrator(format!(
                "unknown calibrator '{text}'; the calibrators are: minmax, percentile[:P], entropy, mse"
            ))),
        }
    }

    /// The name as [`Calibrator::parse`] reads it.
    pub fn name(&self) -> String {
        match self {
            Calibrator::MinMax => "minmax".into(),
            Calibrator::Percentile(p) => format!("percentile:{p}"),
            Calibrator::Entropy => "entropy".into(),
            Calibrator::Mse => "mse".into(),
        }
    }

    /// Whether the calibrator reads the magnitude histogram (the driver then fills one in its
    /// pass over the data, besides the range).
    pub fn needs_histogram(&self) -> bool {
        !matches!(self, Calibrator::MinMax)
    }

    /// The range to quantize over, for `levels` quantization steps over `[0, t]`.
    pub fn range(&self, h: &Histogram, levels: usize) -> (f64, f64) {
        let total: u64 = h.bins.iter().sum();
        if total == 0 || h.amax <= 0.0 {
            return (h.min, h.max);
        }
        let t = match self {
            Calibrator::MinMax => return (h.min, h.max),
            Calibrator::Percentile(p) => percentile_threshold(h, *p),
            Calibrator::Entropy => {
                let t = entropy_threshold(h, levels);
                if clipping_costs_squared_error(h, t, levels) {
                    h.amax
                } else {
                    t
                }
            }
            Calibrator::Mse => mse_threshold(h, levels),
        };
        h.clip(t)
    }
}

/// The number of quantization steps over `[0, t]` for `bits` bits: `2^(bits-1)` for two-sided
/// data, `2^bits` for one-sided data.
pub fn levels_for(bits: u32, h: &Histogram) -> usize {
    if h.min < 0.0 && h.max > 0.0 {
        1usize << (bits.max(1) - 1)
    } else {
        1usize << bits
    }
}

/// The smallest bin edge below which `p` percent of the magnitudes lie.
pub fn percentile_threshold(h: &Histogram, p: f64) -> f64 {
    let total: u64 = h.bins.iter().sum();
    let want = (total as f64) * p / 100.0;
    let mut seen = 0u64;
    for (i, &c) in h.bins.iter().enumerate() {
        seen += c;
        if seen as f64 >= want {
            return (i + 1) as f64 * h.bin_width();
        }
    }
    h.amax
}

/// The smoothing constant: a zero of `P` or `Q` becomes this much (MXNet's and TVM's `eps`).
const KL_EPS: f64 = 1e-4;

/// The powers of `e / b` that [`entropy_divergence`] sums for `(b - e) ln(b - e)`: with
/// `e / b <= 2^-BIG_SHIFT`, the first term left out is below `2^-56 / 42` of `b`.
const SERIES_TERMS: usize = 6;
/// A bin is "big" when its count is at least `2^BIG_SHIFT` times the largest smoothing offset
/// of any candidate.
const BIG_SHIFT: i32 = 8;

/// What [`entropy_divergence`] reads about the counts of one search, computed once, and the
/// per-level buffers that every candidate reuses.
///
/// The divergence of a candidate takes one pass over its levels, not over its bins: all
/// per-bin sums are differences of prefix sums. Smoothing subtracts the same offset `e` from
/// every non-empty bin of `P`, and `e` changes with the candidate (it is `1e-4` times the
/// empty bins over the non-empty ones), so `Σ (b - e) ln(b - e)` cannot be a prefix sum
/// itself. For a "big" bin (`b >= 256 e` for every candidate's `e`) it is the series
/// `b ln b - e (1 + ln b) + Σ_{n >= 2} e^n / (n (n - 1) b^(n - 1))`, whose terms are prefix
/// sums of `b ln b`, `ln b` and `b^-m` (up to `n = SERIES_TERMS`: with `e / b <= 2^-8` what
/// is left out is below `1e-18 b`); the few "small" non-empty bins are taken one by one.
/// Prefix sums are compensated (Neumaier), so that a difference is as exact as the counts:
/// the integer counts of a histogram and the multiples of 1/2048 that [`rebin`] gives are
/// summed without rounding.
struct KlScratch {
    /// `nonzero[k]`: the non-empty bins among the first `k`.
    nonzero: Vec<usize>,
    /// `mass[k]`: the counts of the first `k` bins.
    mass: Vec<f64>,
    /// `big[k]`, `big_mass[k]`: the big bins among the first `k`, and their counts.
    big: Vec<usize>,
    big_mass: Vec<f64>,
    /// `big_plogp[k]`, `big_logp[k]`: `Σ b ln b` and `Σ ln b` over the big bins among the
    /// first `k`.
    big_plogp: Vec<f64>,
    big_logp: Vec<f64>,
    /// `big_inv[m - 1][k]`: `Σ b^-m` over the big bins among the first `k`, `m` from 1 to
    /// `SERIES_TERMS - 1`.
    big_inv: Vec<Vec<f64>>,
    /// The non-empty bins that are not big, in order.
    small: Vec<usize>,
    /// `level_logs[w][a]`, made when a candidate first has levels of `w` bins (`w` at most
    /// `LOG_WIDTHS`): for the level of bins `a..a + w`, `ln(mass / count)` of its `Q` before
    /// smoothing and `count / mass` (infinite when it is empty), so that the smoothed `Q`'s
    /// logarithm is `ln(mass / count) + ln(1 - eq count / mass)`, the latter a short series.
    level_logs: Vec<Vec<[f64; 2]>>,
    /// The candidate's levels: non-empty bins of `P`, their mass (without the outliers), and
    /// the boundaries (level `l` is bins `edges[l]..edges[l + 1]`).
    level_nonzero: Vec<usize>,
    level_mass: Vec<f64>,
    edges: Vec<usize>,
}

/// The widest levels (in bins) whose logarithms [`KlScratch::level_logs`] keeps: levels of 2048
/// bins split in 128 or more are at most 16 bins wide.
const LOG_WIDTHS: usize = 16;

/// Running sums of `values`, compensated (Neumaier's summation): `out[k]` is the sum of the
/// first `k`, within about one rounding of the exact sum (exact when the values and their sums
/// are representable, as counts are).
fn prefix_sums(values: impl Iterator<Item = f64>) -> Vec<f64> {
    let (mut sum, mut carry) = (0.0f64, 0.0f64);
    let mut out = vec![0.0];
    for v in values {
        let t = sum + v;
        carry += if sum.abs() >= v.abs() {
            (sum - t) + v
        } else {
            (v - t) + sum
        };
        sum = t;
        out.push(sum + carry);
    }
    out
}

/// The smoothing of one candidate: `P`'s `zeros_p` zeros become `KL_EPS` and its other bins
/// lose `e` (`last_p` is its last bin, with the outliers); `sp` and `sq` are the sums of the
/// smoothed `P` and `Q` (each non-zero bin of `Q` loses `eq`, see [`KlScratch::smoothed_q`]).
struct Candidate {
    last_p: f64,
    zeros_p: usize,
    e: f64,
    eq: f64,
    sp: f64,
    sq: f64,
}

impl KlScratch {
    /// The tables for the searches over `bins` (non-negative counts).
    fn new(bins: &[f64]) -> KlScratch {
        let n = bins.len();
        let mut nonzero = vec![0usize; n + 1];
        for (k, &b) in bins.iter().enumerate() {
            nonzero[k + 1] = nonzero[k] + usize::from(b != 0.0);
        }
        // The largest offset `e` of any candidate `i`: its bins below `i - 1` as they are, the
        // last one possibly filled by the outliers.
        let e_max = (1..=n)
            .map(|i| {
                let nz = nonzero[i - 1];
                KL_EPS * (i - 1 - nz + 1) as f64 / nz.max(1) as f64
            })
            .fold(0.0, f64::max);
        let tau = e_max * 2f64.powi(BIG_SHIFT);
        let is_big = |b: f64| b > 0.0 && b >= tau;
        let big_bins = || bins.iter().map(move |&b| if is_big(b) { b } else { 0.0 });
        let mut big = vec![0usize; n + 1];
        for (k, &b) in bins.iter().enumerate() {
            big[k + 1] = big[k] + usize::from(is_big(b));
        }
        let big_inv = (1..SERIES_TERMS)
            .map(|m| {
                prefix_sums(big_bins().map(|b| if b > 0.0 { b.powi(-(m as i32)) } else { 0.0 }))
            })
            .collect();
        KlScratch {
            mass: prefix_sums(bins.iter().copied()),
            big_mass: prefix_sums(big_bins()),
            big_plogp: prefix_sums(big_bins().map(|b| if b > 0.0 { b * b.ln() } else { 0.0 })),
            big_logp: prefix_sums(big_bins().map(|b| if b > 0.0 { b.ln() } else { 0.0 })),
            big_inv,
            small: (0..n)
                .filter(|&k| bins[k] != 0.0 && !is_big(bins[k]))
                .collect(),
            nonzero,
            big,
            level_logs: vec![Vec::new(); LOG_WIDTHS + 1],
            level_nonzero: Vec::new(),
            level_mass: Vec::new(),
            edges: Vec::new(),
        }
    }

    /// After [`entropy_divergence`]: the non-empty bins of `P` less the levels that hold
    /// them (the degrees of freedom that merging bins into levels takes away).
    fn degrees_of_freedom(&self) -> f64 {
        let bins: usize = self.level_nonzero.iter().sum();
        let levels = self.level_nonzero.iter().filter(|&&c| c > 0).count();
        (bins - levels) as f64
    }

    /// The levels of candidate `i` (see [`entropy_divergence`]) and its smoothing; `None` when
    /// `P` or `Q` is all zeros.
    fn candidate(
        &mut self,
        bins: &[f64],
        outliers: f64,
        i: usize,
        levels: usize,
    ) -> Option<Candidate> {
        debug_assert_eq!(bins.len() + 1, self.mass.len(), "tables of other bins");
        let m = i - 1;
        let last_b = bins[m];
        let last_p = last_b + outliers;
        let zeros_p = (m - self.nonzero[m]) + usize::from(last_p == 0.0);
        let nonzeros_p = i - zeros_p;
        if nonzeros_p == 0 {
            return None;
        }
        let e = KL_EPS * zeros_p as f64 / nonzeros_p as f64;
        // Level `l` starts at the first bin `k` with `k * levels / i >= l`: `ceil(l * i /
        // levels)`, stepped without a division per level.
        self.edges.resize(levels + 1, 0);
        let (step, rem) = (i / levels, i % levels);
        let (mut whole, mut frac) = (0usize, 0usize);
        for edge in &mut self.edges[..levels] {
            *edge = whole + usize::from(frac > 0);
            whole += step;
            frac += rem;
            if frac >= levels {
                frac -= levels;
                whole += 1;
            }
        }
        self.edges[levels] = i;
        // The levels' non-empty bins and mass (the last level's last bin apart), in a loop
        // without a division, so that the loads of consecutive levels overlap.
        self.level_nonzero.resize(levels, 0);
        self.level_mass.resize(levels, 0.0);
        let (nonzero, mass) = (&self.nonzero[..=m], &self.mass[..=m]);
        for ((w, count), q) in self
            .edges
            .windows(2)
            .zip(&mut self.level_nonzero)
            .zip(&mut self.level_mass)
        {
            let (start, end) = (w[0], w[1].min(m));
            *count = nonzero[end] - nonzero[start];
            *q = mass[end] - mass[start];
        }
        self.level_nonzero[levels - 1] += usize::from(last_p != 0.0);
        self.level_mass[levels - 1] += last_b;
        // A level's `Q` is zero where its mass is (then all its bins are empty, but for the
        // last one when the outliers alone fill it).
        let zeros_q = zeros_p
            + self
                .level_nonzero
                .iter()
                .zip(&self.level_mass)
                .map(|(&count, &mass)| if mass == 0.0 { count } else { 0 })
                .sum::<usize>();
        let nonzeros_q = i - zeros_q;
        if nonzeros_q == 0 {
            return None;
        }
        let eq = KL_EPS * zeros_q as f64 / nonzeros_q as f64;
        for width in [step, step + 1] {
            self.make_level_logs(width);
        }
        let total = self.mass[m] + last_b;
        Some(Candidate {
            last_p,
            zeros_p,
            e,
            eq,
            sp: total + outliers - nonzeros_p as f64 * e + zeros_p as f64 * KL_EPS,
            sq: total - nonzeros_q as f64 * eq + zeros_q as f64 * KL_EPS,
        })
    }

    /// Level `l`'s `Q` smoothed (after [`KlScratch::candidate`], whose `Q` loses `eq`): its
    /// mass spread evenly over its bins where `P` is non-zero, less `eq`; `KL_EPS` where the
    /// mass is zero.
    fn smoothed_q(&self, l: usize, eq: f64) -> f64 {
        let mass = self.level_mass[l];
        if mass == 0.0 {
            KL_EPS
        } else {
            mass / self.level_nonzero[l] as f64 - eq
        }
    }

    /// Makes `level_logs[width]` if it is kept and not made yet.
    fn make_level_logs(&mut self, width: usize) {
        if width == 0 || width > LOG_WIDTHS || !self.level_logs[width].is_empty() {
            return;
        }
        let n = self.mass.len() - 1;
        self.level_logs[width] = (0..=n.saturating_sub(width))
            .map(|a| {
                let count = (self.nonzero[a + width] - self.nonzero[a]) as f64;
                let mass = self.mass[a + width] - self.mass[a];
                if mass > 0.0 {
                    [(mass / count).ln(), count / mass]
                } else {
                    [0.0, f64::INFINITY]
                }
            })
            .collect();
    }

    /// `ln` of the smoothed `Q` of level `l`, a level before the last of `width` bins from bin
    /// `start`, from [`KlScratch::level_logs`]: `ln(mass / count) + ln(1 - x)` with `x = eq count
    /// / mass`, the latter as its series up to `x^7 / 7` where `x <= 2^-8` (what is left out is
    /// below `2^-66`); `None` where the table does not serve.
    fn log_q_from_table(&self, start: usize, width: usize, eq: f64) -> Option<f64> {
        let [log, ratio] = *self.level_logs.get(width)?.get(start)?;
        let x = eq * ratio;
        // `x` is NaN for an empty level when `eq` is zero.
        if x.is_nan() || x > 2f64.powi(-BIG_SHIFT) {
            return None;
        }
        // Three terms where they suffice (`x^4 / 4 <= 2^-82`), as they mostly do.
        let series = if x <= 2f64.powi(-20) {
            x * (1.0 + x * (1.0 / 2.0 + x / 3.0))
        } else {
            x * (1.0
                + x * (1.0 / 2.0
                    + x * (1.0 / 3.0
                        + x * (1.0 / 4.0 + x * (1.0 / 5.0 + x * (1.0 / 6.0 + x / 7.0))))))
        };
        Some(log - series)
    }
}

/// `KL(P || Q)` for the candidate threshold at the end of bin `i` of `bins` (with `outliers`,
/// the mass of the bins from `i` on, folded into bin `i - 1` of `P`), for `levels` quantization
/// steps over `[0, t]`; `None` when `P` or `Q` is all zeros. `s` holds the tables of `bins`
/// ([`KlScratch::new`]).
///
/// Bin `k` belongs to level `k * levels / i`: the levels split `[0, t]` into equal widths, as
/// the uniform grid that the scheme quantizes with does. (MXNet and TVM merge `i / levels` bins
/// per level and give the remainder, up to `levels - 1` bins, to the last level. That models a
/// grid whose last step is up to `levels` times wider than the others, makes the divergence
/// jump at every multiple of `levels` bins and biases the search to thresholds just below one;
/// see docs/quantization.md.)
///
/// `Q` spreads each level's mass evenly over the level's bins where `P` is non-zero. Both are
/// then smoothed as MXNet's `_smooth_distribution` does: each zero becomes `1e-4` and the
/// non-zero entries give up the same mass evenly; and the divergence is that of the normalized
/// vectors, as `scipy.stats.entropy` takes it (a non-zero bin smoothed to or below zero is
/// left out, an entry of `Q` smoothed to or below zero under one of `P` makes it infinite).
///
/// It is computed per level, exactly (up to rounding) as those steps would: with `p'`, `q'` the
/// smoothed vectors and `sp`, `sq` their sums, `KL = (Σ p' ln p' - Σ p' ln q') / sp +
/// (Σ p' / sp) ln(sq / sp)` over the bins where `p' > 0`. Every zero of `P` is a zero of `Q`
/// (both smoothed to `1e-4`), so those bins add only to `Σ p'`. `q'` is one value over a
/// level's non-zero bins, so `Σ p' ln q'` takes one logarithm per level, read from a table
/// where it can ([`KlScratch::level_logs`]); `Σ p' ln p'` is a prefix sum ([`KlScratch`]).
fn entropy_divergence(
    bins: &[f64],
    outliers: f64,
    i: usize,
    levels: usize,
    s: &mut KlScratch,
) -> Option<f64> {
    let c = s.candidate(bins, outliers, i, levels)?;
    if c.sp <= 0.0 || c.sq <= 0.0 {
        return Some(f64::INFINITY);
    }
    let (e, m) = (c.e, i - 1);
    // The big bins below the last: `Σ (b - e) ln(b - e)` as its series in `e / b`.
    let big = s.big[m] as f64;
    let mut plogp = s.big_plogp[m] - e * (big + s.big_logp[m]);
    let mut power = e;
    for (n, inv) in (2..=SERIES_TERMS).zip(&s.big_inv) {
        power *= e;
        plogp += power / (n * (n - 1)) as f64 * inv[m];
    }
    // `Σ p'` over the bins where `p' > 0`: the zeros of `P` (`KL_EPS` each), and each level's.
    let mut mass_p = c.zeros_p as f64 * KL_EPS;
    let mut plogq = 0.0;
    let mut small = s.small.iter().copied().take_while(|&k| k < m).peekable();
    for l in 0..levels {
        let (start, end) = (s.edges[l], s.edges[l + 1].min(m));
        // The level's `Σ p'`: its big bins, then its small ones and the last bin where
        // smoothing leaves them positive (taken one by one).
        let count = s.big[end] - s.big[start];
        let mut weight = s.big_mass[end] - s.big_mass[start] - count as f64 * e;
        let mut positive = count > 0;
        let last = (l + 1 == levels && c.last_p != 0.0).then_some(c.last_p);
        let one_by_one = std::iter::from_fn(|| small.next_if(|&k| k < end).map(|k| bins[k]));
        for p in one_by_one.chain(last).map(|p| p - e) {
            if p > 0.0 {
                plogp += p * p.ln();
                weight += p;
                positive = true;
            }
        }
        if positive {
            let from_table = if l + 1 < levels {
                s.log_q_from_table(start, end - start, c.eq)
            } else {
                None
            };
            let log_q = match from_table {
                Some(log_q) => log_q,
                None => {
                    let q = s.smoothed_q(l, c.eq);
                    if q <= 0.0 {
                        return Some(f64::INFINITY);
                    }
                    q.ln()
                }
            };
            plogq += weight * log_q;
        }
        mass_p += weight;
    }
    Some((plogp - plogq) / c.sp + mass_p / c.sp * (c.sq / c.sp).ln())
}

/// The bins TensorRT's entropy search runs over: `[0, max |x|]` cut in 2048 equal bins.
pub const ENTROPY_BINS: usize = 2048;

/// TensorRT's entropy threshold (see the module documentation): for each candidate `i` from
/// `levels` bins on, `P` is the first `i` bins with the outliers folded into the last, `Q`
/// merges the first `i` bins (without outliers) into `levels` levels of equal width and spreads
/// each level evenly over the positions where `P` is non-zero; both are smoothed so that the
/// divergence stays finite, and the candidate of least divergence wins.
///
/// The search runs over [`ENTROPY_BINS`] bins, as TensorRT's: a histogram with more (the
/// one-pass histograms have between 2049 and 4096) is first re-binned to that many over the
/// same `[0, amax]` ([`rebin`]). The divergence depends on the bins per level, not only on the
/// data: with finer bins each level merges more of them, so the sampling noise of the counts
/// and their structure within a level count as information that quantizing loses, and the
/// search lands elsewhere. On MobileNetV2 (random weights, 64 samples) the global average
/// pool's output (1280 values a sample, about 25 a bin) was clipped at 2.79 of 3.46 with the
/// 3544 bins of its one-pass histogram, and is kept to 3.45 with 2048; see docs/quantization.md.
///
/// The divergence is estimated from a sample, and two corrections make the search answer for
/// the data the sample stands for rather than for its noise ([`entropy_search`]): each
/// candidate's divergence less its estimation bias (Miller and Madow's), and, among the
/// candidates that the sample cannot tell from the best, the widest. Both vanish as the counts
/// grow; on a sparse histogram (a few values a bin) the plain search clips systematically.
pub fn entropy_threshold(h: &Histogram, levels: usize) -> f64 {
    let n = h.bins.len().min(ENTROPY_BINS);
    if levels == 0 || levels >= n {
        return h.amax;
    }
    let bins = entropy_bins(h, n);
    entropy_search(&bins, levels, Estimate::Widest) as f64 * h.amax / n as f64
}

/// How [`entropy_search`] reads the divergences it estimates.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Estimate {
    /// The candidate of least plug-in divergence (TensorRT's search).
    PlugIn,
    /// The candidate of least divergence less its estimation bias (the tests measure the
    /// bias with it).
    #[cfg_attr(not(test), allow(dead_code))]
    Unbiased,
    /// Among the candidates whose unbiased divergence the sample cannot tell from the least
    /// (within one standard error of the difference), the widest.
    Widest,
}

/// The number of bins the entropy threshold keeps, out of `bins.len()` (the counts as
/// [`entropy_bins`] gives them), for `levels` levels; `levels < bins.len()`.
///
/// [`Estimate::PlugIn`] is the plain search: the candidate of least plug-in divergence. It is
/// biased on sparse histograms: the divergence of `P` from its quantization `Q`, computed from
/// `N` counts over `K_P` non-empty bins in `K_L` non-empty levels, overestimates the divergence
/// of the distribution they were drawn from by about `(K_P - K_L) / 2N` (the bias of the
/// plug-in entropy of each level's bins, Miller and Madow's correction). A wider candidate has
/// more non-empty bins, so the bias grows with the threshold and pushes the search to clip: on
/// digits_cnn's second ReLU (4221 non-zero values from 64 samples over 2048 bins, about two a
/// bin) the plain search clipped at 7.74 of 8.26, which cost 2 dB of output SQNR. Drawn from a
/// fixed smooth density, the plain thresholds of 5000 values are 40% below that of the
/// density itself, the corrected ones centred on it (the test
/// `entropy_is_unbiased_on_sparse_histograms`).
///
/// [`Estimate::Unbiased`] subtracts that bias from each candidate's divergence;
/// [`Estimate::Widest`] (what [`entropy_threshold`] uses) then keeps the widest candidate
/// whose divergence exceeds the least by no more than one standard error of the difference
/// (each value's contribution to a divergence is the log-ratio `ln(p_k / q_k)` of the bin it
/// counts in, so the difference of two candidates has the variance of the difference of their
/// log-ratios over the counts, divided by `N`). Candidates the sample cannot tell apart are
/// equally good for it, and the wider clips less of the data it did not see (a clipped
/// value's error is unbounded, a wider step's rounding error at most half a step). On large
/// tensors the standard error is small and the choice is the least divergence's.
fn entropy_search(bins: &[f64], levels: usize, estimate: Estimate) -> usize {
    let n = bins.len();
    // `tails[i]`: the mass of the bins from `i` on (summed from the end, so that the
    // fractional counts of a re-binned histogram do not accumulate a running error).
    let mut tails = vec![0.0; n + 1];
    for i in (0..n).rev() {
        tails[i] = tails[i + 1] + bins[i];
    }
    let total = tails[0];
    let mut scores = vec![f64::INFINITY; n + 1];
    let mut best = (f64::INFINITY, n);
    let mut scratch = KlScratch::new(bins);
    for (i, &tail) in tails.iter().enumerate().skip(levels) {
        let Some(kl) = entropy_divergence(bins, tail, i, levels, &mut scratch) else {
            continue;
        };
        let score = if estimate != Estimate::PlugIn {
            kl - scratch.degrees_of_freedom() / (2.0 * total)
        } else {
            kl
        };
        scores[i] = score;
        if score < best.0 {
            best = (score, i);
        }
    }
    if estimate != Estimate::Widest || best.0.is_infinite() {
        return best.1;
    }
    // The widest candidate within one standard error of the best.
    let (best_score, b) = best;
    let Some(best_ratios) = log_ratios(bins, tails[b], b, levels, &mut scratch) else {
        return b;
    };
    for j in (b + 1..=n).rev() {
        if !scores[j].is_finite() {
            continue;
        }
        let Some(ratios) = log_ratios(bins, tails[j], j, levels, &mut scratch) else {
            continue;
        };
        // Bin `k`'s values count in bin `min(k, i - 1)` of candidate `i`'s `P`.
        let (mut mean, mut square) = (0.0, 0.0);
        for (k, &c) in bins.iter().enumerate() {
            if c > 0.0 {
                let d = ratios[k.min(j - 1)] - best_ratios[k.min(b - 1)];
                mean += c * d;
                square += c * d * d;
            }
        }
        let (mean, square) = (mean / total, square / total);
        let se = ((square - mean * mean).max(0.0) / total).sqrt();
        if scores[j] - best_score <= se {
            return j;
        }
    }
    b
}

/// The log-ratios `ln(p_k / q_k)` of the normalized, smoothed `P` and `Q` of candidate `i`
/// (see [`entropy_divergence`]; 0 where smoothing left one of them at 0, which the divergence
/// skips too); `None` where the divergence is undefined.
fn log_ratios(
    bins: &[f64],
    outliers: f64,
    i: usize,
    levels: usize,
    s: &mut KlScratch,
) -> Option<Vec<f64>> {
    let c = s.candidate(bins, outliers, i, levels)?;
    // A zero of `P` is a zero of `Q`: both are `KL_EPS`, and the ratio is that of the sums.
    let at_zero = (c.sq / c.sp).ln();
    let mut ratios = Vec::with_capacity(i);
    for l in 0..levels {
        let q = s.smoothed_q(l, c.eq);
        let scale = c.sq / (c.sp * q);
        let (start, end) = (s.edges[l], s.edges[l + 1]);
        for (k, &b) in (start..end).zip(&bins[start..end]) {
            let p = if k + 1 == i { c.last_p } else { b };
            ratios.push(if p == 0.0 {
                at_zero
            } else if p - c.e > 0.0 && q > 0.0 {
                ((p - c.e) * scale).ln()
            } else {
                0.0
            });
        }
    }
    Some(ratios)
}

/// The counts of `h` in `n` equal bins over the same `[0, amax]` (`n` at most the bins of
/// `h`), each fine bin's count split over the coarse bins in proportion to the overlap, as if
/// its values were spread evenly over it. With `n` the bins of `h`, the counts themselves.
fn rebin(h: &Histogram, n: usize) -> Vec<f64> {
    let k = h.bins.len();
    if n >= k {
        return h.bins.iter().map(|&c| c as f64).collect();
    }
    let mut out = vec![0.0; n];
    // Fine bin `j` covers `[j, j + 1)` in fine units; coarse bin `b` covers
    // `[b·k/n, (b + 1)·k/n)`.
    let ratio = k as f64 / n as f64;
    for (j, &c) in h.bins.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let (lo, hi) = (j as f64, (j + 1) as f64);
        let first = ((lo / ratio) as usize).min(n - 1);
        let last = (((hi / ratio).ceil() as usize).max(first + 1)).min(n);
        for (b, o) in out.iter_mut().enumerate().take(last).skip(first) {
            let (blo, bhi) = (b as f64 * ratio, (b + 1) as f64 * ratio);
            let overlap = hi.min(bhi) - lo.max(blo);
            if overlap > 0.0 {
                *o += c as f64 * overlap;
            }
        }
    }
    out
}

/// The counts the entropy search reads: `h` in `n` bins ([`rebin`]), the first of which holds
/// the exact zeros of a ReLU's output, a spike that would dominate the divergence, so it
/// counts as much as its neighbour (as pytorch-quantization does).
fn entropy_bins(h: &Histogram, n: usize) -> Vec<f64> {
    let mut bins = rebin(h, n);
    if bins.len() > 1 {
        bins[0] = bins[1];
    }
    bins
}

/// Whether quantizing with `levels` steps over `[0, t]` has a larger expected squared error
/// than over the whole range `[0, max |x|]`, by more than one standard error of the
/// difference: the entropy calibrator then keeps the whole range (see docs/quantization.md,
/// "MobileNetV2: entropy clips that cost squared error").
///
/// The divergence that [`entropy_threshold`] minimizes compares the shapes of the histograms:
/// the values above `t` count only as mass folded into the last bin, however far above `t`
/// they lie, so a threshold can save a little rounding noise on the bulk while clipping a long
/// tail by many steps. Each value's squared error is modelled as in [`mse_threshold`] (its
/// bin's centre less `t`, squared, above `t`; `step^2 / 12` below); the difference between the
/// two ranges is a mean over the values, and, as in [`entropy_search`], it counts only where
/// the sample can tell it from zero: a single outlier far out is clipped (its squared error is
/// about one standard error of the mean: one value cannot show that the tail recurs), a tail
/// of many values that clipping moves by many steps is kept.
pub fn clipping_costs_squared_error(h: &Histogram, t: f64, levels: usize) -> bool {
    let a = h.min.abs().max(h.max.abs());
    let w = h.bin_width();
    let total: u64 = h.bins.iter().sum();
    if levels == 0 || total == 0 || t.is_nan() || t >= a || w <= 0.0 {
        return false;
    }
    let levels = levels as f64;
    let noise = |range: f64| (range / levels) * (range / levels) / 12.0;
    let (kept, clipped) = (noise(a), noise(t));
    let (mut mean, mut square) = (0.0, 0.0);
    for (k, &c) in h.bins.iter().enumerate() {
        if c == 0 {
            continue;
        }
        let centre = (k as f64 + 0.5) * w;
        let error = if centre > t {
            (centre - t) * (centre - t)
        } else {
            clipped
        };
        let d = error - kept;
        mean += c as f64 * d;
        square += c as f64 * d * d;
    }
    let n = total as f64;
    let (mean, square) = (mean / n, square / n);
    let se = ((square - mean * mean).max(0.0) / n).sqrt();
    mean > se
}

/// The threshold of least expected squared error for `levels` steps over `[0, t]`.
pub fn mse_threshold(h: &Histogram, levels: usize) -> f64 {
    let n = h.bins.len();
    let w = h.bin_width();
    let levels = levels.max(1) as f64;
    let mut best = (f64::INFINITY, h.amax);
    for i in 1..=n {
        let t = i as f64 * w;
        let step = t / levels;
        let noise = step * step / 12.0;
        let mut err = 0.0;
        for (k, &c) in h.bins.iter().enumerate() {
            if c == 0 {
                continue;
            }
            let center = (k as f64 + 0.5) * w;
            err += c as f64
                * if center > t {
                    (center - t) * (center - t)
                } else {
                    noise
                };
        }
        if err < best.0 {
            best = (err, t);
        }
    }
    best.1
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic standard-normal-ish sample (sum of 12 uniforms minus 6), from a small
    /// linear congruential generator.
    fn normal(n: usize, seed: u64) -> Vec<f64> {
        let mut s = seed;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        };
        (0..n)
            .map(|_| (0..12).map(|_| next()).sum::<f64>() - 6.0)
            .collect()
    }

    /// 20000 normal values and one outlier at 100: a heavy tail.
    fn tailed() -> Histogram {
        let mut v = normal(20000, 7);
        v.push(100.0);
        Histogram::of(&v, DEFAULT_BINS)
    }

    #[test]
    fn minmax_is_the_whole_range() {
        let h = Histogram::of(&[-1.0, 0.5, 3.0], 16);
        assert_eq!(Calibrator::MinMax.range(&h, 128), (-1.0, 3.0));
        assert_eq!(h.bins.iter().sum::<u64>(), 3);
    }

    #[test]
    fn percentile_of_uniform_magnitudes() {
        let v: Vec<f64> = (0..1000).map(|i| i as f64 / 1000.0).collect();
        let h = Histogram::of(&v, 1000);
        let (lo, hi) = Calibrator::Percentile(90.0).range(&h, 256);
        assert_eq!(lo, 0.0);
        assert!((hi - 0.9).abs() < 0.0021, "{hi}");
    }

    #[test]
    fn entropy_and_percentile_clip_a_heavy_tail_that_minmax_keeps() {
        let h = tailed();
        let mm = Calibrator::MinMax.range(&h, 128);
        assert_eq!(mm.1, 100.0);
        let levels = levels_for(8, &h);
        assert_eq!(levels, 128);
        let ent = Calibrator::Entropy.range(&h, levels);
        let pct = Calibrator::Percentile(99.99).range(&h, levels);
        for (name, r) in [("entropy", ent), ("percentile", pct)] {
            assert!(
                r.1 < 20.0 && r.1 > 2.0,
                "{name} should clip the outlier but keep the bulk: {r:?}"
            );
            assert!(r.0 >= mm.0 && r.1 < mm.1, "{name}: {r:?} vs {mm:?}");
            assert_ne!(r, mm, "{name} must differ from minmax");
        }
        // The negative side is clipped at the same threshold, or at the data's minimum.
        assert!(ent.0 >= -ent.1 - 1e-12);
        // With 128 levels one outlier in 20001 costs MSE less kept than clipped: it narrows the
        // range only a little (a real difference from entropy, which optimizes the shape).
        let mse = Calibrator::Mse.range(&h, levels);
        assert!(mse.1 <= mm.1 && mse.1 > ent.1, "{mse:?} vs {ent:?}");
    }

    /// A bulk of 200000 magnitudes near 0 (`|normal| * 0.02`) and a smooth tail of 4000
    /// exponential quantiles (scale 0.5) reaching 4.49: the shape MobileNetV2's depthwise
    /// ReLU6 outputs have (random weights), where the least divergence clips about 1 value in
    /// 1700 by up to 2.7.
    fn long_tail() -> Histogram {
        let mut v: Vec<f64> = normal(200_000, 11).iter().map(|x| x.abs() * 0.02).collect();
        let n = 4000;
        v.extend((0..n).map(|k| -(1.0 - (k as f64 + 0.5) / n as f64).ln() * 0.5));
        Histogram::of(&v, DEFAULT_BINS)
    }

    #[test]
    fn entropy_keeps_a_tail_whose_clipping_costs_squared_error() {
        let h = long_tail();
        let levels = levels_for(8, &h);
        assert_eq!(levels, 256);
        // The search alone clips at less than half the range, ...
        let t = entropy_threshold(&h, levels);
        assert!(t < 0.5 * h.max, "{t} of {}", h.max);
        // ... which multiplies the expected squared error ...
        let sq_error = |t: f64| {
            let w = h.bin_width();
            let step = t / levels as f64;
            h.bins
                .iter()
                .enumerate()
                .map(|(k, &c)| {
                    let centre = (k as f64 + 0.5) * w;
                    let e = if centre > t {
                        (centre - t) * (centre - t)
                    } else {
                        step * step / 12.0
                    };
                    c as f64 * e
                })
                .sum::<f64>()
        };
        assert!(sq_error(t) > 2.0 * sq_error(h.max));
        assert!(clipping_costs_squared_error(&h, t, levels));
        // ... so the entropy calibrator keeps the whole range.
        assert_eq!(Calibrator::Entropy.range(&h, levels), (h.min, h.max));
        // A single outlier is still clipped (it cannot show that clipping costs more than
        // chance): the heavy tail of `tailed`.
        let ht = tailed();
        let levels = levels_for(8, &ht);
        assert!(!clipping_costs_squared_error(
            &ht,
            entropy_threshold(&ht, levels),
            levels
        ));
    }

    #[test]
    fn entropy_keeps_a_range_without_outliers() {
        // Uniform data over [0, 1]: there is nothing to clip, and entropy keeps (nearly) all.
        let v: Vec<f64> = (0..100_000).map(|i| i as f64 / 100_000.0).collect();
        let h = Histogram::of(&v, DEFAULT_BINS);
        let (_, hi) = Calibrator::Entropy.range(&h, 256);
        assert!(hi > 0.9, "{hi}");
    }

    /// A smooth, heavy-tailed one-sided histogram: `1e6 / (1 + k/30)^3` counts in bin `k`.
    fn smooth_tail() -> Histogram {
        let mut h = Histogram::new(0.0, 2048.0, 2048);
        for (k, c) in h.bins.iter_mut().enumerate() {
            *c = (1e6 / (1.0 + k as f64 / 30.0).powi(3)).round() as u64;
        }
        h
    }

    fn divergence_at(h: &Histogram, i: usize, levels: usize) -> f64 {
        let bins = entropy_bins(h, h.bins.len());
        let outliers = bins[i..].iter().sum();
        entropy_divergence(&bins, outliers, i, levels, &mut KlScratch::new(&bins)).unwrap()
    }

    #[test]
    fn entropy_levels_have_equal_widths() {
        // With the remainder of `i / levels` merged into the last level, the divergence of a
        // smooth histogram jumps by 16% from 511 to 512 bins (for 256 levels), and the search
        // picks a threshold just below a multiple of 256 bins (1279). With levels of equal
        // width it is continuous there.
        let h = smooth_tail();
        for i in [511, 767, 1279] {
            let (below, at) = (divergence_at(&h, i, 256), divergence_at(&h, i + 1, 256));
            assert!(
                (below - at).abs() < 0.01 * at,
                "divergence jumps at {}: {below} vs {at}",
                i + 1
            );
        }
        let t = entropy_threshold(&h, 256);
        let bin = (t / h.bin_width()).round() as usize;
        assert_ne!(bin % 256, 255, "threshold at bin {bin}");
        assert!(bin > 256 && bin < 2048, "{bin}");
    }

    /// `n` values drawn from the density of [`smooth_tail`] (bin `k` of 2048 with weight
    /// `(1 + k/30)^-3`), as the counts [`entropy_search`] reads.
    fn sampled_tail(n: usize, seed: u64) -> Vec<f64> {
        let mut cdf: Vec<f64> = (0..2048)
            .scan(0.0, |acc, k| {
                *acc += (1.0 + k as f64 / 30.0).powi(-3);
                Some(*acc)
            })
            .collect();
        let last = cdf[2047];
        cdf.iter_mut().for_each(|c| *c /= last);
        let mut s = seed;
        let mut h = Histogram::new(0.0, 2048.0, 2048);
        for _ in 0..n {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let u = (s >> 11) as f64 / (1u64 << 53) as f64;
            h.bins[cdf.partition_point(|&c| c < u).min(2047)] += 1;
        }
        entropy_bins(&h, 2048)
    }

    fn mean(xs: &[usize]) -> f64 {
        xs.iter().sum::<usize>() as f64 / xs.len() as f64
    }

    #[test]
    fn entropy_is_unbiased_on_sparse_histograms() {
        // The density itself (counts in the millions): every estimate gives one threshold.
        let dense = entropy_bins(&smooth_tail(), 2048);
        let want = entropy_search(&dense, 256, Estimate::PlugIn);
        for e in [Estimate::Unbiased, Estimate::Widest] {
            assert_eq!(entropy_search(&dense, 256, e), want, "{e:?}");
        }
        assert!(want > 512 && want < 1536, "{want}");
        // 5000 values drawn from it, eight times: the plug-in divergence's bias grows with
        // the candidate's non-empty bins, and the plain search clips far below the density's
        // threshold; less the bias, the thresholds centre on it.
        let samples: Vec<Vec<f64>> = (1..=8).map(|seed| sampled_tail(5000, seed)).collect();
        let search =
            |e| -> Vec<usize> { samples.iter().map(|b| entropy_search(b, 256, e)).collect() };
        let (plain, unbiased, widest) = (
            search(Estimate::PlugIn),
            search(Estimate::Unbiased),
            search(Estimate::Widest),
        );
        let want = want as f64;
        assert!(mean(&plain) < 0.8 * want, "{plain:?} vs {want}");
        assert!(
            (mean(&unbiased) - want).abs() < 0.15 * want,
            "{unbiased:?} vs {want}"
        );
        // The widest within one standard error is wider, still well inside the range.
        for (u, w) in unbiased.iter().zip(&widest) {
            assert!(w >= u, "{widest:?} vs {unbiased:?}");
        }
        assert!(mean(&widest) < 0.8 * 2048.0, "{widest:?}");
        eprintln!("plain {plain:?} unbiased {unbiased:?} widest {widest:?} want {want}");
    }

    #[test]
    fn rebin_keeps_the_mass_and_merges_pairs_exactly() {
        let mut h = Histogram::new(0.0, 6.0, 6);
        h.bins = vec![4, 2, 0, 6, 1, 3];
        assert_eq!(rebin(&h, 6), vec![4.0, 2.0, 0.0, 6.0, 1.0, 3.0]);
        assert_eq!(rebin(&h, 3), vec![6.0, 6.0, 4.0]);
        // 6 bins into 4: each coarse bin is 1.5 fine bins wide.
        let r = rebin(&h, 4);
        let want = [4.0 + 1.0, 1.0 + 0.0, 6.0 + 0.5, 0.5 + 3.0];
        for (a, b) in r.iter().zip(want) {
            assert!((a - b).abs() < 1e-12, "{r:?}");
        }
        assert!((r.iter().sum::<f64>() - 16.0).abs() < 1e-12);
    }

    #[test]
    fn entropy_searches_tensorrts_2048_bins_whatever_the_resolution() {
        // A smooth 2048-bin histogram, and a 4096-bin one whose pairs of bins add up to it but
        // split 70/30: structure below TensorRT's resolution, as the sampling noise of a
        // one-pass histogram with up to twice the bins is. Searched at its own resolution the
        // finer one counted that structure as information that quantization loses and picked
        // another threshold (1281 instead of 1024); re-binned, both give the same one.
        let coarse = smooth_tail();
        let mut fine = Histogram::new(0.0, 2048.0, 4096);
        for (j, &c) in coarse.bins.iter().enumerate() {
            let a = c * 7 / 10;
            fine.bins[2 * j] = a;
            fine.bins[2 * j + 1] = c - a;
        }
        assert_eq!(rebin(&fine, ENTROPY_BINS), rebin(&coarse, ENTROPY_BINS));
        let (tc, tf) = (
            entropy_threshold(&coarse, 256),
            entropy_threshold(&fine, 256),
        );
        assert_eq!(tc, tf);
        assert!(tc > 256.0 && tc < 2048.0, "{tc}");
    }

    #[test]
    fn entropy_divergence_is_zero_for_one_bin_per_level() {
        // `levels` bins and no outliers: Q is P, and only smoothing is left.
        let mut h = Histogram::new(0.0, 8.0, 8);
        h.bins = vec![5, 3, 0, 2, 7, 1, 1, 4];
        let bins = entropy_bins(&h, h.bins.len());
        let kl = entropy_divergence(&bins, 0.0, 8, 8, &mut KlScratch::new(&bins)).unwrap();
        assert!(kl.abs() < 1e-9, "{kl}");
        // Two bins per level: the non-empty bins of a level share its mass evenly.
        let kl2 = entropy_divergence(&bins, 0.0, 8, 4, &mut KlScratch::new(&bins)).unwrap();
        assert!(kl2 > 1e-3, "{kl2}");
    }

    #[test]
    fn one_pass_histograms_are_exact_and_merge_in_any_order() {
        // Three "samples" whose magnitudes grow: the histogram's upper end doubles up to 16,
        // merging pairs of bins each time.
        let a: Vec<f64> = normal(3000, 1);
        let b: Vec<f64> = normal(3000, 2).into_iter().map(|x| 2.0 * x).collect();
        let c: Vec<f64> = normal(3000, 3)
            .into_iter()
            .map(|x| 0.5 * x)
            .chain([-9.5])
            .collect();
        let mut one = Histogram::empty(64);
        for d in [&a, &b, &c] {
            one.observe(d);
        }
        assert_eq!(one.amax, 16.0);
        // The same counts as a histogram made over [0, 16] directly.
        let mut direct = Histogram::new(-9.5, 16.0, 64);
        direct.amax = 16.0;
        for d in [&a, &b, &c] {
            direct.add(d.iter().copied());
        }
        assert_eq!(one.bins, direct.bins);
        assert_eq!(one.min, -9.5);
        // Collected apart (other orders, other first samples) and merged: the same.
        let mut x = Histogram::empty(64);
        x.observe(&c);
        x.observe(&a);
        let mut y = Histogram::empty(64);
        y.observe(&b);
        y.merge(&x);
        assert_eq!((y.min, y.max, y.amax), (one.min, one.max, one.amax));
        assert_eq!(y.bins, one.bins);
        // Finishing drops the empty bins above the largest magnitude (9.5, in bin 38 of 64).
        one.finish();
        assert_eq!(one.bins.len(), 39);
        assert_eq!(one.amax, 39.0 * 0.25);
        assert_eq!(one.bins.iter().sum::<u64>(), 9001);
    }

    #[test]
    fn interleaved_counting_gives_the_bins_of_a_division() {
        // Power-of-two widths take the interleaved tables and the reciprocal; others divide.
        let mut data: Vec<f64> = normal(20_000, 7).into_iter().map(|x| x * 3.0).collect();
        data.extend([
            0.0,
            -0.0,
            8.0,
            -8.0,
            1e-310,
            f64::INFINITY,
            f64::NAN,
            7.999_999_999,
        ]);
        data.extend((0..4000).map(|_| 0.0)); // a ReLU's spike at zero
        for (amax, n) in [
            (8.0, 4096),
            (8.0, 64),
            (0.5, 1024),
            (6.0, 4096),
            (3.7, 1000),
        ] {
            let mut h = Histogram::new(-amax, amax, n);
            h.add(data.iter().copied());
            let width = amax / n as f64;
            let mut want = vec![0u64; n];
            for &x in &data {
                want[((x.abs() / width) as usize).min(n - 1)] += 1;
            }
            assert_eq!(h.bins, want, "amax {amax}, {n} bins");
        }
    }

    #[test]
    fn one_pass_histograms_start_from_zeros() {
        // A first sample of zeros only (a dead ReLU) keeps its counts in bin 0.
        let mut h = Histogram::empty(8);
        h.observe(&[0.0, 0.0]);
        assert_eq!((h.amax, h.bins[0]), (0.0, 2));
        h.observe(&[0.0, 3.0]);
        assert_eq!(h.amax, 4.0);
        assert_eq!(h.bins, vec![3, 0, 0, 0, 0, 0, 1, 0]);
        h.finish();
        assert_eq!(h.bins, vec![3, 0, 0, 0, 0, 0, 1]);
        // Ranges only.
        let mut r = Histogram::empty(0);
        r.observe(&[-1.0, 2.0]);
        r.finish();
        assert_eq!((r.min, r.max, r.bins.len()), (-1.0, 2.0, 0));
    }

    #[test]
    fn mse_trades_clipping_against_resolution() {
        // With 2 levels, MSE clips a Gaussian well inside its range; with 2^15 it keeps it.
        let mut v = normal(20000, 3);
        v.push(8.0);
        let h = Histogram::of(&v, 512);
        let coarse = mse_threshold(&h, 2);
        let fine = mse_threshold(&h, 1 << 15);
        assert!(coarse < 3.0, "{coarse}");
        assert!(fine > coarse, "{fine} vs {coarse}");
    }

    #[test]
    fn one_sided_data_keeps_its_side() {
        let v: Vec<f64> = normal(5000, 11).into_iter().map(f64::abs).collect();
        let h = Histogram::of(&v, DEFAULT_BINS);
        assert_eq!(levels_for(8, &h), 256);
        let (lo, hi) = Calibrator::Entropy.range(&h, 256);
        assert!(lo >= 0.0 && hi > 0.0, "{lo} {hi}");
    }

    #[test]
    fn empty_statistics_give_the_range() {
        let h = Histogram::new(0.0, 0.0, 8);
        assert_eq!(Calibrator::Entropy.range(&h, 128), (0.0, 0.0));
    }

    #[test]
    fn calibrator_names_parse() {
        assert_eq!(Calibrator::parse("minmax").unwrap(), Calibrator::MinMax);
        assert_eq!(
            Calibrator::parse("percentile:99.9").unwrap(),
            Calibrator::Percentile(99.9)
        );
        assert_eq!(
            Calibrator::parse("percentile").unwrap(),
            Calibrator::Percentile(99.99)
        );
        assert!(Calibrator::parse("percentile:120").is_err());
        let e = Calibrator::parse("kl").unwrap_err().to_string();
        assert!(e.contains("unknown calibrator 'kl'"), "{e}");
        assert!(Calibrator::parse("mse:3").is_err());
    }
}
