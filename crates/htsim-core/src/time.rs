//! Simulated time and link rates.
//!
//! Time is an integer count of picoseconds ([`SimTime`]); rates are integer bits per second
//! ([`Rate`]). Serialisation time is computed exactly in integers and rounded up, so a packet
//! never leaves a link earlier than physics allows and runs are bit-for-bit reproducible.

use std::fmt;
use std::ops::{Add, AddAssign, Sub, SubAssign};

/// Picoseconds per nanosecond.
pub const PS_PER_NS: u64 = 1_000;
/// Picoseconds per microsecond.
pub const PS_PER_US: u64 = 1_000_000;
/// Picoseconds per millisecond.
pub const PS_PER_MS: u64 = 1_000_000_000;
/// Picoseconds per second.
pub const PS_PER_S: u64 = 1_000_000_000_000;

/// A simulated instant or duration, in picoseconds.
///
/// `u64` picoseconds cover about 213 days of simulated time, far beyond any experiment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

impl SimTime {
    /// Time zero, the start of every run.
    pub const ZERO: SimTime = SimTime(0);
    /// The largest representable time; used as "never".
    pub const MAX: SimTime = SimTime(u64::MAX);

    /// A time of `ps` picoseconds.
    pub const fn from_ps(ps: u64) -> Self {
        SimTime(ps)
    }
    /// A time of `ns` nanoseconds, saturating at [`SimTime::MAX`].
    pub const fn from_ns(ns: u64) -> Self {
        SimTime(ns.saturating_mul(PS_PER_NS))
    }
    /// A time of `us` microseconds, saturating at [`SimTime::MAX`].
    pub const fn from_us(us: u64) -> Self {
        SimTime(us.saturating_mul(PS_PER_US))
    }
    /// A time of `ms` milliseconds, saturating at [`SimTime::MAX`].
    pub const fn from_ms(ms: u64) -> Self {
        SimTime(ms.saturating_mul(PS_PER_MS))
    }
    /// A time of `s` seconds, saturating at [`SimTime::MAX`] (about 213 days).
    pub const fn from_secs(s: u64) -> Self {
        SimTime(s.saturating_mul(PS_PER_S))
    }
    /// A time of `s` seconds given as a float, rounded to the nearest picosecond
    /// (negative or non-finite inputs give zero).
    pub fn from_secs_f64(s: f64) -> Self {
        if s.is_finite() && s > 0.0 {
            SimTime((s * PS_PER_S as f64).round().min(u64::MAX as f64) as u64)
        } else {
            SimTime::ZERO
        }
    }

    /// This time in picoseconds.
    pub const fn as_ps(self) -> u64 {
        self.0
    }
    /// This time in whole nanoseconds (truncated).
    pub const fn as_ns(self) -> u64 {
        self.0 / PS_PER_NS
    }
    /// This time in whole microseconds (truncated).
    pub const fn as_us(self) -> u64 {
        self.0 / PS_PER_US
    }
    /// This time in whole milliseconds (truncated).
    pub const fn as_ms(self) -> u64 {
        self.0 / PS_PER_MS
    }
    /// This time in seconds as a float.
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / PS_PER_S as f64
    }

    /// `self + d`, saturating at [`SimTime::MAX`].
    pub const fn saturating_add(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
    /// `self - d`, saturating at zero.
    pub const fn saturating_sub(self, d: SimTime) -> SimTime {
        SimTime(self.0.saturating_sub(d.0))
    }
}

/// `+` and `-` are the engine's per-event arithmetic: plain integer operations (an overflow
/// panics in a debug build and wraps in a release build). A scenario's durations are bounded so
/// that a run's sums stay far inside the range (`units::MAX_SCENARIO_DURATION`); for times of
/// your own that may not be, use [`SimTime::saturating_add`] and [`SimTime::saturating_sub`].
impl Add for SimTime {
    type Output = SimTime;
    fn add(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 + rhs.0)
    }
}
impl AddAssign for SimTime {
    fn add_assign(&mut self, rhs: SimTime) {
        self.0 += rhs.0;
    }
}
impl Sub for SimTime {
    type Output = SimTime;
    fn sub(self, rhs: SimTime) -> SimTime {
        SimTime(self.0 - rhs.0)
    }
}
impl SubAssign for SimTime {
    fn sub_assign(&mut self, rhs: SimTime) {
        self.0 -= rhs.0;
    }
}

impl fmt::Display for SimTime {
    /// Prints the time exactly, in the largest unit it reaches, without trailing zeros:
    /// `20us`, `1.5ms`, `1.000000001s`, `7ps`. `units::parse_duration` reads it back.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let ps = self.0;
        for (unit, scale, digits) in [
            ("s", PS_PER_S, 12),
            ("ms", PS_PER_MS, 9),
            ("us", PS_PER_US, 6),
            ("ns", PS_PER_NS, 3),
        ] {
            if ps >= scale {
                let (whole, frac) = (ps / scale, ps % scale);
                if frac == 0 {
                    return write!(f, "{whole}{unit}");
                }
                let frac = format!("{frac:0digits$}");
                return write!(f, "{whole}.{}{unit}", frac.trim_end_matches('0'));
            }
        }
        write!(f, "{ps}ps")
    }
}

/// A link or sending rate in bits per second.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Rate(pub u64);

impl Rate {
    /// A rate of `bps` bits per second.
    pub const fn bps(bps: u64) -> Self {
        Rate(bps)
    }
    /// A rate of `m` megabits per second, saturating at `u64::MAX` b/s.
    pub const fn mbps(m: u64) -> Self {
        Rate(m.saturating_mul(1_000_000))
    }
    /// A rate of `g` gigabits per second, saturating at `u64::MAX` b/s.
    pub const fn gbps(g: u64) -> Self {
        Rate(g.saturating_mul(1_000_000_000))
    }
    /// This rate in bits per second.
    pub const fn as_bps(self) -> u64 {
        self.0
    }

    /// Time to serialise `bytes` at this rate, exact and rounded up to the next picosecond.
    ///
    /// A zero rate never finishes: it returns [`SimTime::MAX`].
    pub fn serialisation_time(self, bytes: u64) -> SimTime {
        if self.0 == 0 {
            return SimTime::MAX;
        }
        let bits = bytes as u128 * 8 * PS_PER_S as u128;
        let ps = bits.div_ceil(self.0 as u128);
        SimTime(ps.min(u64::MAX as u128) as u64)
    }

    /// Bytes that this rate carries in `d` (truncated).
    pub fn bytes_in(self, d: SimTime) -> u64 {
        let b = self.0 as u128 * d.0 as u128 / (8 * PS_PER_S as u128);
        b.min(u64::MAX as u128) as u64
    }
}

impl fmt::Display for Rate {
    /// Prints the rate in the largest exact unit, e.g. `100Mbps`, `10Gbps`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let b = self.0;
        for (unit, scale) in [
            ("Tbps", 1_000_000_000_000u64),
            ("Gbps", 1_000_000_000),
            ("Mbps", 1_000_000),
            ("Kbps", 1_000),
        ] {
            if b >= scale && b.is_multiple_of(scale) {
                return write!(f, "{}{unit}", b / scale);
            }
        }
        write!(f, "{b}bps")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constructors_saturate_instead_of_overflowing() {
        assert_eq!(SimTime::from_ns(u64::MAX), SimTime::MAX);
        assert_eq!(SimTime::from_us(u64::MAX / 2), SimTime::MAX);
        assert_eq!(SimTime::from_ms(u64::MAX), SimTime::MAX);
        assert_eq!(SimTime::from_secs(100_000_000), SimTime::MAX);
        assert_eq!(SimTime::from_secs(3), SimTime(3 * PS_PER_S));
        assert_eq!(Rate::mbps(u64::MAX), Rate(u64::MAX));
        assert_eq!(Rate::gbps(u64::MAX / 1000), Rate(u64::MAX));
        assert_eq!(Rate::gbps(10), Rate(10_000_000_000));
    }

    #[test]
    fn serialisation_matches_spec_examples() {
        // docs/model.md 1: at 100 Mb/s a 1462 B data packet takes 116.96 us, an ACK 3.36 us.
        let r = Rate::mbps(100);
        assert_eq!(r.serialisation_time(1462), SimTime::from_ns(116_960));
        assert_eq!(r.serialisation_time(42), SimTime::from_ns(3_360));
    }

    #[test]
    fn serialisation_rounds_up() {
        // 1 byte at 3 bit/s = 8/3 s = 2.666...e12 ps, rounded up.
        assert_eq!(Rate(3).serialisation_time(1), SimTime(2_666_666_666_667));
        assert_eq!(Rate(0).serialisation_time(1), SimTime::MAX);
    }

    #[test]
    fn display_is_exact_and_short() {
        assert_eq!(SimTime::from_us(20).to_string(), "20us");
        assert_eq!(SimTime::from_us(1500).to_string(), "1.5ms");
        assert_eq!(SimTime::from_secs(2).to_string(), "2s");
        assert_eq!(SimTime(7).to_string(), "7ps");
        assert_eq!(SimTime(1_000_000_001_000).to_string(), "1.000000001s");
        assert_eq!(SimTime(1_000_000_001).to_string(), "1.000000001ms");
        assert_eq!(Rate::mbps(100).to_string(), "100Mbps");
        assert_eq!(Rate::gbps(10).to_string(), "10Gbps");
        assert_eq!(Rate(1_500).to_string(), "1500bps");
    }

    #[test]
    fn bytes_in_inverts_serialisation() {
        let r = Rate::gbps(1);
        assert_eq!(r.bytes_in(SimTime::from_secs(1)), 125_000_000);
    }
}
