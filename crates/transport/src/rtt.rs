//! RTT estimation and the retransmission timeout (docs/model.md 2.9).
//!
//! Sampling follows Karn's rule and is done by the subflow engine (only a never-retransmitted
//! oldest segment fully covered by an ACK gives a sample, at most one per ACK); this module keeps
//! the smoothed estimates, the backoff multiplier and computes the RTO.

use crate::config::{RttEstimatorKind, TcpConfig};
use htsim_core::time::PS_PER_MS;
use htsim_core::SimTime;

/// Smoothed RTT, RTT variation and RTO backoff of one subflow.
///
/// Both estimators update `rttvar += h (|m - srtt| - rttvar)` then `srtt += g (m - srtt)` with
/// the configured gains (RFC 6298: g = 1/8, h = 1/4; ns-3: 0.1 and 0.1); they differ in the first
/// sample (rttvar0 = m/2 or m) and in the RTO (ns-3 truncates both terms to whole ms).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RttEstimator {
    kind: RttEstimatorKind,
    srtt_gain: f64,
    rttvar_gain: f64,
    /// Smoothed RTT in picoseconds once a sample exists (`last_sample` is `Some`), else 0.
    srtt_ps: f64,
    /// What [`RttEstimator::srtt`] returns: `srtt_ps` rounded, or the initial RTO before a
    /// sample. Kept up to date where `srtt_ps` changes: multipath connections read every
    /// subflow's on every ACK, and rounding an `f64` is a library call on baseline x86-64.
    srtt: SimTime,
    rttvar_ps: f64,
    /// The most recent measurement; `None` until the first (and after a reset).
    last_sample: Option<SimTime>,
    initial_rto: SimTime,
    min_rto: SimTime,
    backoff: u32,
    max_backoff: u32,
}

impl RttEstimator {
    /// A fresh estimator (no sample, multiplier 1) with `config`'s estimator, gains and RTO bounds.
    pub fn new(config: &TcpConfig) -> Self {
        RttEstimator {
            kind: config.rtt_estimator,
            srtt_gain: config.srtt_gain,
            rttvar_gain: config.rttvar_gain,
            srtt_ps: 0.0,
            srtt: config.initial_rto,
            rttvar_ps: 0.0,
            last_sample: None,
            initial_rto: config.initial_rto,
            min_rto: config.min_rto,
            backoff: 1,
            max_backoff: config.max_rto_backoff,
        }
    }

    /// Forgets every sample and the backoff (docs/model.md 2.2: the estimator is reset at
    /// establishment; the handshake RTT is not sampled).
    pub fn reset(&mut self) {
        self.srtt_ps = 0.0;
        self.srtt = self.initial_rto;
        self.rttvar_ps = 0.0;
        self.last_sample = None;
        self.backoff = 1;
    }

    /// Feeds one RTT measurement `m` and resets the backoff multiplier to 1 (Karn).
    pub fn sample(&mut self, m: SimTime) {
        let m_ps = m.as_ps() as f64;
        if self.has_sample() {
            let err = m_ps - self.srtt_ps;
            self.rttvar_ps += self.rttvar_gain * (err.abs() - self.rttvar_ps);
            self.srtt_ps += self.srtt_gain * err;
        } else {
            self.srtt_ps = m_ps;
            self.rttvar_ps = match self.kind {
                RttEstimatorKind::Rfc6298 => m_ps / 2.0,
                RttEstimatorKind::Ns3MeanDeviation => m_ps,
            };
        }
        self.last_sample = Some(m);
        self.backoff = 1;
        self.srtt = SimTime::from_ps(self.srtt_ps.round() as u64);
    }

    /// Whether at least one sample has been taken.
    pub fn has_sample(&self) -> bool {
        self.last_sample.is_some()
    }

    /// The smoothed RTT, or the initial RTO before the first sample (what ns-3 reports, and what
    /// LIA's alpha uses: docs/model.md 4.6 "1.5 s before its first sample").
    pub fn srtt(&self) -> SimTime {
        self.srtt
    }

    /// The most recent RTT measurement.
    pub fn last_sample(&self) -> Option<SimTime> {
        self.last_sample
    }

    /// The current backoff multiplier (1, 2, 4, ... up to the configured cap).
    pub fn backoff(&self) -> u32 {
        self.backoff
    }

    /// Doubles the backoff multiplier, up to the cap (docs/model.md 2.10).
    pub fn back_off(&mut self) {
        self.backoff = (self.backoff.saturating_mul(2)).min(self.max_backoff);
    }

    /// The retransmission timeout, backoff included (docs/model.md 2.9).
    pub fn rto(&self) -> SimTime {
        let srtt = self.srtt_ps;
        let base_ps = if !self.has_sample() {
            self.initial_rto.as_ps()
        } else {
            match self.kind {
                RttEstimatorKind::Rfc6298 => (srtt + 4.0 * self.rttvar_ps).round() as u64,
                RttEstimatorKind::Ns3MeanDeviation => {
                    let ms = PS_PER_MS as f64;
                    let t = |x: f64| (x / ms).floor() as u64 * PS_PER_MS;
                    t(srtt) + 4 * t(self.rttvar_ps)
                }
            }
        };
        let base = base_ps.max(self.min_rto.as_ps());
        SimTime::from_ps(base.saturating_mul(self.backoff as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn initial_rto_depends_on_the_profile() {
        let r = RttEstimator::new(&TcpConfig::rfc());
        assert_eq!(r.rto(), SimTime::from_secs(1));
        let n = RttEstimator::new(&TcpConfig::ns3_mmptcp());
        assert_eq!(n.rto(), SimTime::from_ms(1500));
        assert_eq!(n.srtt(), SimTime::from_ms(1500));
    }

    #[test]
    fn rfc6298_update_and_min_rto() {
        let mut r = RttEstimator::new(&TcpConfig {
            min_rto: SimTime::ZERO,
            ..TcpConfig::rfc()
        });
        r.sample(SimTime::from_ms(100));
        // srtt = 100, rttvar = 50: RTO = 300 ms.
        assert_eq!(r.rto(), SimTime::from_ms(300));
        r.sample(SimTime::from_ms(180));
        // rttvar = (150 + 80)/4 = 57.5; srtt = (700 + 180)/8 = 110: RTO = 340 ms.
        assert_eq!(r.rto(), SimTime::from_ms(340));
        let mut m = RttEstimator::new(&TcpConfig::rfc());
        m.sample(SimTime::from_us(100));
        assert_eq!(m.rto(), SimTime::from_ms(200), "the 200 ms floor");
    }

    #[test]
    fn ns3_update_truncates_to_ms_and_backs_off_to_64() {
        let mut n = RttEstimator::new(&TcpConfig {
            min_rto: SimTime::ZERO,
            ..TcpConfig::ns3_mmptcp()
        });
        n.sample(SimTime::from_us(10_700));
        // srtt = rttvar = 10.7 ms, truncated to 10: RTO = 10 + 40 = 50 ms.
        assert_eq!(n.rto(), SimTime::from_ms(50));
        n.sample(SimTime::from_us(20_700));
        // err = 10 ms: srtt = 11.7, rttvar = 10.7 - 0.07 = 10.63 -> 11 + 40 = 51 ms.
        assert_eq!(n.rto(), SimTime::from_ms(51));
        for _ in 0..10 {
            n.back_off();
        }
        assert_eq!(n.backoff(), 64);
        assert_eq!(n.rto(), SimTime::from_ms(51 * 64));
        n.sample(SimTime::from_us(20_700));
        assert_eq!(n.backoff(), 1, "a valid sample resets the backoff");
    }
}
