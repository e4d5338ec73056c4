//! Flow-size distributions: a scenario's `size` key (`"70KB"`, `"infinite"`,
//! `{ uniform = [..] }`, `{ pareto = {..} }`, `{ cdf = ".." }`), sampling and means.
//!
//! Sizes are in bytes. Parameters are checked when a distribution is built, so sampling never
//! fails.

use rand::Rng;

use crate::cdf::EmpiricalCdf;

/// The size of one flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlowSize {
    /// This many bytes of application data.
    Bytes(u64),
    /// An unlimited bulk transfer, stopped by the run's end (docs/model.md 9.3 long flows).
    Infinite,
}

/// Why a size distribution is invalid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SizeError {
    /// Uniform bounds in the wrong order.
    #[error("uniform flow sizes need lo <= hi, got lo = {lo} B and hi = {hi} B")]
    UniformBounds {
        /// Lower bound in bytes.
        lo: u64,
        /// Upper bound in bytes.
        hi: u64,
    },
    /// A Pareto shape of at most 1 (infinite mean) or not a number.
    #[error(
        "the Pareto shape must be a number above 1 (the mean is infinite otherwise), got {shape}"
    )]
    ParetoShape {
        /// The shape given.
        shape: f64,
    },
    /// A Pareto mean of zero.
    #[error("the Pareto mean must be at least 1 byte")]
    ParetoMean,
    /// A Pareto cap below the smallest value the distribution takes.
    #[error("the Pareto cap {max} B is below the scale {scale:.0} B (the smallest size); every flow would be {max} B")]
    ParetoMax {
        /// The cap in bytes.
        max: u64,
        /// The scale `mean (shape - 1) / shape` in bytes.
        scale: f64,
    },
}

/// Sizes drawn uniformly from the whole bytes `lo..=hi`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UniformSize {
    lo: u64,
    hi: u64,
}

impl UniformSize {
    /// Uniform sizes between `lo_bytes` and `hi_bytes`, both included.
    pub fn new(lo_bytes: u64, hi_bytes: u64) -> Result<UniformSize, SizeError> {
        if lo_bytes > hi_bytes {
            return Err(SizeError::UniformBounds {
                lo: lo_bytes,
                hi: hi_bytes,
            });
        }
        Ok(UniformSize {
            lo: lo_bytes,
            hi: hi_bytes,
        })
    }

    /// The smallest size in bytes.
    pub fn lo(&self) -> u64 {
        self.lo
    }

    /// The largest size in bytes.
    pub fn hi(&self) -> u64 {
        self.hi
    }
}

/// A Pareto distribution given by its shape and the mean it would have uncapped, capped at a
/// maximum (docs/model.md 7.6: shape 1.5, mean 192 MB, cap 768 MB).
///
/// The scale (smallest value) is `mean (shape - 1) / shape`; a sample is
/// `min(scale / U^(1 / shape), max)` for U uniform in (0, 1], rounded to the nearest byte.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pareto {
    shape: f64,
    mean: u64,
    max: u64,
    scale: f64,
}

impl Pareto {
    /// A capped Pareto with `shape` > 1, uncapped mean `mean_bytes` and cap `max_bytes`, which
    /// must not be below the scale.
    pub fn new(shape: f64, mean_bytes: u64, max_bytes: u64) -> Result<Pareto, SizeError> {
        if !(shape > 1.0 && shape.is_finite()) {
            return Err(SizeError::ParetoShape { shape });
        }
        if mean_bytes == 0 {
            return Err(SizeError::ParetoMean);
        }
        let scale = mean_bytes as f64 * (shape - 1.0) / shape;
        if (max_bytes as f64) < scale {
            return Err(SizeError::ParetoMax {
                max: max_bytes,
                scale,
            });
        }
        Ok(Pareto {
            shape,
            mean: mean_bytes,
            max: max_bytes,
            scale,
        })
    }

    /// The shape (tail index).
    pub fn shape(&self) -> f64 {
        self.shape
    }

    /// The mean of the uncapped distribution, in bytes (the parameter, not [`Pareto::mean`]).
    pub fn uncapped_mean(&self) -> u64 {
        self.mean
    }

    /// The cap in bytes.
    pub fn max(&self) -> u64 {
        self.max
    }

    /// The scale (smallest value) in bytes: `mean (shape - 1) / shape`.
    pub fn scale(&self) -> f64 {
        self.scale
    }

    /// The mean of the capped distribution in bytes, `E[min(X, max)]`:
    /// `scale (shape - (scale / max)^(shape - 1)) / (shape - 1)`.
    pub fn mean(&self) -> f64 {
        let a = self.shape;
        self.scale * (a - libm::pow(self.scale / self.max as f64, a - 1.0)) / (a - 1.0)
    }

    /// Draws a size in bytes (at least 1). The power is [`libm::pow`], the same on every
    /// platform, as in [`PoissonArrivals::gap`](crate::arrivals::PoissonArrivals::gap).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        let u = 1.0 - rng.random::<f64>();
        let x = (self.scale * libm::pow(u, -1.0 / self.shape)).min(self.max as f64);
        // Saturating float-to-integer conversion of a finite, non-negative value.
        (x.round() as u64).max(1)
    }
}

/// A flow-size distribution.
#[derive(Clone, Debug, PartialEq)]
pub enum SizeDist {
    /// Every flow has this many bytes.
    Fixed(u64),
    /// Every flow is unlimited.
    Infinite,
    /// Uniform in a range of bytes.
    Uniform(UniformSize),
    /// A capped Pareto.
    Pareto(Pareto),
    /// An empirical CDF (built-in or from a file).
    Cdf(EmpiricalCdf),
}

impl SizeDist {
    /// [`SizeDist::Uniform`] over `lo_bytes..=hi_bytes`.
    pub fn uniform(lo_bytes: u64, hi_bytes: u64) -> Result<SizeDist, SizeError> {
        UniformSize::new(lo_bytes, hi_bytes).map(SizeDist::Uniform)
    }

    /// [`SizeDist::Pareto`]; see [`Pareto::new`].
    pub fn pareto(shape: f64, mean_bytes: u64, max_bytes: u64) -> Result<SizeDist, SizeError> {
        Pareto::new(shape, mean_bytes, max_bytes).map(SizeDist::Pareto)
    }

    /// Draws one flow size.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> FlowSize {
        match self {
            SizeDist::Fixed(bytes) => FlowSize::Bytes(*bytes),
            SizeDist::Infinite => FlowSize::Infinite,
            SizeDist::Uniform(u) => FlowSize::Bytes(rng.random_range(u.lo..=u.hi)),
            SizeDist::Pareto(p) => FlowSize::Bytes(p.sample(rng)),
            SizeDist::Cdf(c) => FlowSize::Bytes(c.sample(rng)),
        }
    }

    /// The mean flow size in bytes (analytic), or `None` for infinite flows. Divide an offered
    /// load by it to get an arrival rate ([`crate::arrivals::rate_for_load`]).
    pub fn mean(&self) -> Option<f64> {
        match self {
            SizeDist::Fixed(bytes) => Some(*bytes as f64),
            SizeDist::Infinite => None,
            SizeDist::Uniform(u) => Some((u.lo as f64 + u.hi as f64) / 2.0),
            SizeDist::Pareto(p) => Some(p.mean()),
            SizeDist::Cdf(c) => Some(c.mean()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn sample_mean<R: Rng>(dist: &SizeDist, rng: &mut R, n: usize) -> f64 {
        let mut sum = 0.0;
        for _ in 0..n {
            match dist.sample(rng) {
                FlowSize::Bytes(b) => sum += b as f64,
                FlowSize::Infinite => panic!("finite distribution"),
            }
        }
        sum / n as f64
    }

    #[test]
    fn pareto_capped_mean_matches_samples() {
        let mut rng = Pcg64::seed_from_u64(12);
        // The XMP paper's random pattern (docs/model.md 7.6).
        let xmp = Pareto::new(1.5, 192_000_000, 768_000_000).unwrap();
        assert_eq!(xmp.scale(), 64_000_000.0);
        // 64 (1.5 - (64/768)^0.5) / 0.5 = 192 - 128 / sqrt(12) = 155.0497... MB.
        let analytic = 192e6 - 128e6 / 12f64.sqrt();
        assert!((xmp.mean() - analytic).abs() < 1.0, "{}", xmp.mean());
        for (p, n) in [
            (xmp, 200_000),
            (Pareto::new(1.2, 100_000, 10_000_000).unwrap(), 400_000),
            (Pareto::new(3.0, 1_000, 1_000_000_000).unwrap(), 200_000),
        ] {
            let m = sample_mean(&SizeDist::Pareto(p), &mut rng, n);
            assert!(
                (m / p.mean() - 1.0).abs() < 0.03,
                "shape {}: sample mean {m}, analytic {}",
                p.shape(),
                p.mean()
            );
        }
    }

    #[test]
    fn pareto_stays_within_scale_and_cap() {
        let mut rng = Pcg64::seed_from_u64(13);
        let p = Pareto::new(1.5, 192_000_000, 768_000_000).unwrap();
        let samples: Vec<u64> = (0..10_000).map(|_| p.sample(&mut rng)).collect();
        assert!(samples
            .iter()
            .all(|&s| (64_000_000..=768_000_000).contains(&s)));
        // P(X > 768 MB) = (64 / 768)^1.5 = 2.4%: the cap is hit about 240 times.
        let capped = samples.iter().filter(|&&s| s == 768_000_000).count();
        assert!((170..310).contains(&capped), "{capped}");
    }

    #[test]
    fn parameter_errors() {
        assert_eq!(
            SizeDist::pareto(1.0, 100, 1000),
            Err(SizeError::ParetoShape { shape: 1.0 })
        );
        assert!(matches!(
            SizeDist::pareto(f64::NAN, 100, 1000),
            Err(SizeError::ParetoShape { .. })
        ));
        assert_eq!(SizeDist::pareto(1.5, 0, 1000), Err(SizeError::ParetoMean));
        assert!(matches!(
            SizeDist::pareto(1.5, 192, 10),
            Err(SizeError::ParetoMax { max: 10, .. })
        ));
        assert_eq!(
            SizeDist::uniform(10, 9),
            Err(SizeError::UniformBounds { lo: 10, hi: 9 })
        );
    }

    #[test]
    fn uniform_fixed_infinite() {
        let mut rng = Pcg64::seed_from_u64(14);
        // MMPTCP uniform mode spans 1 KiB .. 1 MiB (docs/model.md 9.3).
        let u = SizeDist::uniform(1_024, 1_048_576).unwrap();
        assert_eq!(u.mean(), Some(524_800.0));
        let m = sample_mean(&u, &mut rng, 100_000);
        assert!((m / 524_800.0 - 1.0).abs() < 0.01, "{m}");
        assert!((0..1000).all(|_| match u.sample(&mut rng) {
            FlowSize::Bytes(b) => (1_024..=1_048_576).contains(&b),
            FlowSize::Infinite => false,
        }));
        assert_eq!(
            SizeDist::uniform(5, 5).unwrap().sample(&mut rng),
            FlowSize::Bytes(5)
        );
        assert_eq!(
            SizeDist::Fixed(70_000).sample(&mut rng),
            FlowSize::Bytes(70_000)
        );
        assert_eq!(SizeDist::Fixed(70_000).mean(), Some(70_000.0));
        assert_eq!(SizeDist::Infinite.sample(&mut rng), FlowSize::Infinite);
        assert_eq!(SizeDist::Infinite.mean(), None);
        let web = SizeDist::Cdf(EmpiricalCdf::builtin("websearch").unwrap());
        assert!(web.mean().is_some_and(|m| m > 1e6));
    }
}
