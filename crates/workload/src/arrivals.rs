//! When flows start: a scenario's `arrivals` key (`{ poisson = 256 }`, `{ every = "500ms" }`,
//! `{ closed_loop = true }`, or none for all at the start), with the exact scheduling rules of
//! the MMPTCP driver (docs/model.md 9.3 and 9.5).
//!
//! Both generators stop scheduling [`SCHEDULING_MARGIN`] (0.2 s) before the end of flow
//! generation, as the driver does.

use htsim_core::{Rate, SimTime};
use rand::Rng;

/// How long before the end of flow generation (`run.duration`) no new arrival is scheduled:
/// 0.2 s (docs/model.md 9.3 and 9.5).
pub const SCHEDULING_MARGIN: SimTime = SimTime::from_ms(200);

/// An arrival process.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Arrivals {
    /// Poisson arrivals of `rate_per_s` flows per second over the whole network, from one central
    /// scheduler; see [`PoissonArrivals`].
    Poisson {
        /// Network-wide arrival rate in flows per second.
        rate_per_s: f64,
    },
    /// Synchronised rounds: every sender starts a flow at the same instant, once per `period`;
    /// see [`round_times`].
    Every {
        /// Time between rounds.
        period: SimTime,
    },
    /// Each sender starts a new flow when its previous one ends (the caller reacts to flow
    /// completions; no times are drawn here).
    ClosedLoop,
    /// Every flow starts once, at the class's start time (long flows: t = 0).
    Once,
}

/// Why an arrival process is invalid.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ArrivalError {
    /// A Poisson rate that is not a positive finite number.
    #[error("the Poisson arrival rate must be a positive number of flows per second, got {rate}")]
    BadRate {
        /// The rate given, in flows per second.
        rate: f64,
    },
    /// Rounds with a zero period.
    #[error("the period between rounds must be above 0")]
    ZeroPeriod,
    /// An offered load that is not a positive finite number.
    #[error("the offered load must be a positive fraction of capacity, got {load}")]
    BadLoad {
        /// The load given.
        load: f64,
    },
    /// A load turned into flows/s with an unusable mean size or capacity.
    #[error("a load needs a finite mean flow size above 0 and a capacity above 0 (mean {mean_bytes} B, capacity {capacity})")]
    NoRateForLoad {
        /// The mean flow size in bytes.
        mean_bytes: f64,
        /// The capacity.
        capacity: Rate,
    },
}

/// The last instant at which the generators still schedule a following arrival:
/// `end - 0.2 s`, or 0 if `end` is shorter.
pub fn arrival_cutoff(end: SimTime) -> SimTime {
    end.saturating_sub(SCHEDULING_MARGIN)
}

/// The Poisson rate in flows/s that offers `load` (a fraction, e.g. 0.5) of `capacity` with flows
/// of `mean_bytes` on average: `load x capacity / (8 x mean_bytes)`.
///
/// `capacity` is whatever the load is a fraction of, e.g. the sum of the host link rates.
pub fn rate_for_load(load: f64, capacity: Rate, mean_bytes: f64) -> Result<f64, ArrivalError> {
    if !(load > 0.0 && load.is_finite()) {
        return Err(ArrivalError::BadLoad { load });
    }
    if !(mean_bytes > 0.0 && mean_bytes.is_finite()) || capacity.as_bps() == 0 {
        return Err(ArrivalError::NoRateForLoad {
            mean_bytes,
            capacity,
        });
    }
    Ok(load * capacity.as_bps() as f64 / (8.0 * mean_bytes))
}

/// The central scheduler of Poisson arrivals (docs/model.md 9.3).
///
/// The first arrival is at `start`. After each arrival at `t`, if `t` is before the cut-off, the
/// next is `t + gap` with `gap = -ln(U) / rate` seconds (U uniform in (0, 1], rounded to the
/// nearest picosecond); otherwise there are no more. So the last arrival may lie past the
/// cut-off, by one gap at most, exactly as in the driver.
#[derive(Clone, Debug, PartialEq)]
pub struct PoissonArrivals {
    rate_per_s: f64,
    next: Option<SimTime>,
    cutoff: SimTime,
}

impl PoissonArrivals {
    /// Arrivals at `rate_per_s` flows per second from `start`, scheduled while before `cutoff`
    /// (usually [`arrival_cutoff`] of the run's duration).
    pub fn new(
        rate_per_s: f64,
        start: SimTime,
        cutoff: SimTime,
    ) -> Result<PoissonArrivals, ArrivalError> {
        if !(rate_per_s > 0.0 && rate_per_s.is_finite()) {
            return Err(ArrivalError::BadRate { rate: rate_per_s });
        }
        Ok(PoissonArrivals {
            rate_per_s,
            next: Some(start),
            cutoff,
        })
    }

    /// The next arrival time, or `None` when the process has ended. Draws one gap per call
    /// unless the process ends.
    pub fn next_arrival<R: Rng + ?Sized>(&mut self, rng: &mut R) -> Option<SimTime> {
        let t = self.next?;
        self.next = (t < self.cutoff).then(|| t.saturating_add(self.gap(rng)));
        Some(t)
    }

    /// One exponential inter-arrival gap with mean `1 / rate` seconds. The logarithm is
    /// [`libm::log`], not the system math library's, whose last bit differs between platforms
    /// (glibc against a musl-derived `log`: 7% of draws), so that a seed draws the same gaps on
    /// every platform (docs/model.md 15.5).
    pub fn gap<R: Rng + ?Sized>(&self, rng: &mut R) -> SimTime {
        let u = 1.0 - rng.random::<f64>();
        SimTime::from_secs_f64(-libm::log(u) / self.rate_per_s)
    }
}

/// Round times of synchronised arrivals (docs/model.md 9.5, incast), an iterator from
/// [`round_times`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rounds {
    next: Option<SimTime>,
    period: SimTime,
    cutoff: SimTime,
}

impl Iterator for Rounds {
    type Item = SimTime;

    fn next(&mut self) -> Option<SimTime> {
        let t = self.next?;
        // The driver's rule: another round if (end - 0.2 s) - now > period.
        self.next = t
            .as_ps()
            .checked_add(self.period.as_ps())
            .filter(|&after| self.cutoff.as_ps() > after)
            .map(|_| t + self.period);
        Some(t)
    }
}

/// The times of synchronised rounds: the first at `start`, then one every `period` while
/// `(end - 0.2 s) - now > period` (docs/model.md 9.5). With `start` 0, `period` 0.5 s and `end`
/// 20 s that is 0, 0.5, ..., 19.5 s: 40 rounds.
pub fn round_times(start: SimTime, period: SimTime, end: SimTime) -> Result<Rounds, ArrivalError> {
    if period == SimTime::ZERO {
        return Err(ArrivalError::ZeroPeriod);
    }
    Ok(Rounds {
        next: Some(start),
        period,
        cutoff: arrival_cutoff(end),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn poisson_gap_mean_is_one_over_rate() {
        let mut rng = Pcg64::seed_from_u64(21);
        for rate in [256.0, 2560.0] {
            let p = PoissonArrivals::new(rate, SimTime::ZERO, SimTime::MAX).unwrap();
            let n = 100_000;
            let total: f64 = (0..n).map(|_| p.gap(&mut rng).as_secs_f64()).sum();
            let mean_s = total / n as f64;
            assert!(
                (mean_s * rate - 1.0).abs() < 0.02,
                "rate {rate}: mean gap {mean_s} s"
            );
        }
    }

    #[test]
    fn poisson_count_over_a_run() {
        // 256 flows/s over 20 s, cut off at 19.8 s: about 256 x 19.8 = 5069 arrivals
        // (docs/model.md 9.4 counts about 101 k over 20 runs).
        let mut rng = Pcg64::seed_from_u64(22);
        let end = SimTime::from_secs(20);
        let mut p = PoissonArrivals::new(256.0, SimTime::ZERO, arrival_cutoff(end)).unwrap();
        let mut times = Vec::new();
        while let Some(t) = p.next_arrival(&mut rng) {
            times.push(t);
        }
        assert_eq!(times[0], SimTime::ZERO);
        assert!(times.windows(2).all(|w| w[0] <= w[1]));
        // Only the last one may be at or past the cut-off.
        let late = times.iter().filter(|&&t| t >= arrival_cutoff(end)).count();
        assert_eq!(late, 1);
        // Poisson(5069): sd 71.
        assert!((4800..5340).contains(&times.len()), "{}", times.len());
        assert_eq!(p.next_arrival(&mut rng), None);
    }

    #[test]
    fn rounds_match_the_incast_setup() {
        let rounds: Vec<SimTime> =
            round_times(SimTime::ZERO, SimTime::from_ms(500), SimTime::from_secs(20))
                .unwrap()
                .collect();
        assert_eq!(rounds.len(), 40);
        assert_eq!(rounds[1], SimTime::from_ms(500));
        assert_eq!(rounds[39], SimTime::from_ms(19_500));
        // A run shorter than the margin still has its first round.
        let short: Vec<SimTime> =
            round_times(SimTime::ZERO, SimTime::from_ms(500), SimTime::from_ms(100))
                .unwrap()
                .collect();
        assert_eq!(short, vec![SimTime::ZERO]);
        assert_eq!(
            round_times(SimTime::ZERO, SimTime::ZERO, SimTime::from_secs(1)),
            Err(ArrivalError::ZeroPeriod)
        );
        // No overflow near the end of time.
        let far = round_times(SimTime(u64::MAX - 1), SimTime(10), SimTime::MAX).unwrap();
        assert_eq!(far.count(), 1);
    }

    #[test]
    fn rates_and_loads() {
        assert!(matches!(
            PoissonArrivals::new(0.0, SimTime::ZERO, SimTime::ZERO),
            Err(ArrivalError::BadRate { .. })
        ));
        assert!(matches!(
            PoissonArrivals::new(f64::INFINITY, SimTime::ZERO, SimTime::ZERO),
            Err(ArrivalError::BadRate { .. })
        ));
        // 50% of 128 x 10 Gb/s with 1 MB flows: 0.5 x 1.28e12 / 8e6 = 80 000 flows/s.
        let rate = rate_for_load(0.5, Rate::gbps(1_280), 1e6).unwrap();
        assert!((rate - 80_000.0).abs() < 1e-6);
        assert!(matches!(
            rate_for_load(-0.1, Rate::gbps(1), 1e6),
            Err(ArrivalError::BadLoad { .. })
        ));
        assert!(matches!(
            rate_for_load(0.5, Rate::gbps(1), f64::INFINITY),
            Err(ArrivalError::NoRateForLoad { .. })
        ));
        assert_eq!(arrival_cutoff(SimTime::from_ms(100)), SimTime::ZERO);
        assert_eq!(
            arrival_cutoff(SimTime::from_secs(20)),
            SimTime::from_ms(19_800)
        );
    }
}
