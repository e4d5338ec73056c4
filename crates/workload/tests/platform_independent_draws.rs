//! The draws that go through a logarithm or a power are the same on every platform.
//!
//! Poisson gaps (`-ln(U) / rate`) and Pareto sizes (`scale U^(-1/shape)`) are rounded to a
//! picosecond or a byte. The system math libraries disagree on the last bit of `ln` and `pow`
//! for a few percent of inputs (glibc against the Rust port of musl's, on 20 M draws: `ln` 7%,
//! `pow` 9%), and where the exact value lies near a rounding boundary, that bit moves the
//! rounded draw and the whole run after it. The inputs below are such cases: with glibc's `ln`
//! and `pow` (Rust's `f64::ln` and `f64::powf` on Linux) the gap is 2 ps longer and the size
//! 1 byte larger, so these tests fail on Linux if the draws go back to the system library.

use htsim_core::SimTime;
use htsim_workload::{Pareto, PoissonArrivals};
use rand::RngCore;

/// A generator whose every draw is `bits`: `random::<f64>()` then yields
/// `(bits >> 11) * 2^-53`, and the samplers use `U = 1 - that`.
struct Fixed(u64);

impl RngCore for Fixed {
    fn next_u32(&mut self) -> u32 {
        (self.0 >> 32) as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        for (i, byte) in dest.iter_mut().enumerate() {
            *byte = self.0.to_le_bytes()[i % 8];
        }
    }
}

#[test]
fn a_poisson_gap_is_the_same_on_every_platform() {
    // U = 0.17847480433326124 (bits 0x3fc6d8432be2bbcc), 1/8192 arrivals per second: the gap
    // is -ln(U) x 8192 s = 14 117.337 824 624 366 s; glibc's ln gives ...368 ps.
    let arrivals = PoissonArrivals::new(1.0 / 8192.0, SimTime::ZERO, SimTime::MAX).unwrap();
    let gap = arrivals.gap(&mut Fixed(0xd24f_79a8_3a88_6800));
    assert_eq!(gap.as_ps(), 14_117_337_824_624_366);
}

#[test]
fn a_pareto_size_is_the_same_on_every_platform() {
    // U = 0.7822148466176612 (bits 0x3fe907e76e156471), shape 1.2, scale 2^52 - 1 bytes (mean
    // 6 x 2^52), no cap reached: the size is scale x U^(-1/1.2); glibc's pow gives ...950.
    let pareto = Pareto::new(1.2, 6 << 52, u64::MAX).unwrap();
    assert_eq!(
        pareto.sample(&mut Fixed(0x37c0_c48f_54dc_7800)),
        5_526_557_958_439_949
    );
}
