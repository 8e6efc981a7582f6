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
//! - `entropy`: TensorRT's: for each candidate `t` (a bin edge from `levels` bins on), the
//!   histogram up to `t` with everything above folded into its last bin is the reference `P`;
//!   `Q` is the same bins merged into `levels` quantization levels and spread back evenly over
//!   the bins where `P` is non-empty; both are smoothed (a zero becomes `1e-4`, as MXNet and
//!   TVM do), and the `t` of least `KL(P || Q)` wins. The first bin (the exact zeros of a
//!   ReLU's output) counts as much as the second, as in pytorch-quantization.
//! - `mse`: the `t` minimizing the expected squared error of quantizing with `levels` steps over
//!   `[0, t]`: clipping error `(|x| - t)^2` above `t`, rounding noise `step^2 / 12` below.
//!
//! `levels` is the number of quantization steps that cover `[0, t]`: `2^(bits-1)` when the data
//! has both signs, `2^bits` when it is one-sided ([`levels_for`]).

use crate::errors::QuantError;

/// The default number of histogram bins.
pub const DEFAULT_BINS: usize = 2048;

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
    pub fn add(&mut self, values: impl Iterator<Item = f64>) {
        let n = self.bins.len();
        if n == 0 {
            return;
        }
        let width = self.amax / n as f64;
        for x in values {
            let i = if width > 0.0 {
                ((x.abs() / width) as usize).min(n - 1)
            } else {
                0
            };
            self.bins[i] += 1;
        }
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

    /// Whether the calibrator reads the magnitude histogram (the driver then makes a second
    /// pass over the data to fill it).
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
            Calibrator::Entropy => entropy_threshold(h, levels),
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

/// TensorRT's entropy threshold, in the form MXNet and TVM publish it (see the module
/// documentation): `P` is the first `i` bins with the outliers folded into the last, `Q` merges
/// the first `i` bins (without outliers) into `levels` levels and spreads each level evenly over
/// the positions where `P` is non-zero; both are smoothed so that the divergence stays finite.
pub fn entropy_threshold(h: &Histogram, levels: usize) -> f64 {
    let n = h.bins.len();
    if levels == 0 || levels >= n {
        return h.amax;
    }
    let mut bins: Vec<f64> = h.bins.iter().map(|&c| c as f64).collect();
    // The first bin holds the exact zeros of a ReLU's output, a spike that would dominate the
    // divergence: it counts as much as its neighbour (as pytorch-quantization does).
    bins[0] = bins[1];
    let mut best = (f64::INFINITY, n);
    let mut tail: f64 = bins[levels..].iter().sum();
    // One buffer each for P and Q, reused by every candidate.
    let (mut p, mut q) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in levels..=n {
        let sliced = &bins[..i];
        p.clear();
        p.extend_from_slice(sliced);
        p[i - 1] += tail;
        if i < n {
            tail -= bins[i];
        }
        let merged = i / levels;
        q.clear();
        q.resize(i, 0.0);
        for level in 0..levels {
            let start = level * merged;
            let stop = if level == levels - 1 {
                i
            } else {
                start + merged
            };
            let mass: f64 = sliced[start..stop].iter().sum();
            let norm = p[start..stop].iter().filter(|&&x| x != 0.0).count();
            if norm == 0 {
                continue;
            }
            let share = mass / norm as f64;
            for k in start..stop {
                if p[k] != 0.0 {
                    q[k] = share;
                }
            }
        }
        if smooth(&mut p, 1e-4).is_none() || smooth(&mut q, 1e-4).is_none() {
            continue;
        }
        let kl = kl_divergence(&p, &q);
        if kl < best.0 {
            best = (kl, i);
        }
    }
    best.1 as f64 * h.bin_width()
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

    #[test]
    fn entropy_keeps_a_range_without_outliers() {
        // Uniform data over [0, 1]: there is nothing to clip, and entropy keeps (nearly) all.
        let v: Vec<f64> = (0..100_000).map(|i| i as f64 / 100_000.0).collect();
        let h = Histogram::of(&v, DEFAULT_BINS);
        let (_, hi) = Calibrator::Entropy.range(&h, 256);
        assert!(hi > 0.9, "{hi}");
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
