//! Unit strings of scenario files: parsing and exact formatting.
//!
//! Scenario files write the unit in the value (`"20us"`, `"10Gbps"`, `"70KB"`, `"100pkt"`,
//! `"33%"`; docs/scenarios.md, "Units"). Numbers may have a decimal part (`"1.5ms"`,
//! `"2.5Gbps"`) and are converted exactly with integer arithmetic, never through `f64`, so
//! `"1.5ms"` is exactly 1 500 000 000 ps. A bare number is an error that says which unit to add.
//! Nothing here panics on any input.
//!
//! The `format_*` functions write values back (for the resolved scenario) in a form the parsers
//! read back to the same value.

use std::fmt;

use crate::time::{Rate, SimTime, PS_PER_MS, PS_PER_NS, PS_PER_S, PS_PER_US};

/// Duration units and their length in picoseconds.
const DURATION_UNITS: &[(&str, u128)] = &[
    ("ps", 1),
    ("ns", PS_PER_NS as u128),
    ("us", PS_PER_US as u128),
    ("\u{b5}s", PS_PER_US as u128),  // micro sign
    ("\u{3bc}s", PS_PER_US as u128), // Greek small letter mu
    ("ms", PS_PER_MS as u128),
    ("s", PS_PER_S as u128),
];

/// Rate units (matched ignoring letter case) and their value in bits per second.
const RATE_UNITS: &[(&str, u128)] = &[
    ("bps", 1),
    ("b/s", 1),
    ("kbps", 1_000),
    ("kb/s", 1_000),
    ("mbps", 1_000_000),
    ("mb/s", 1_000_000),
    ("gbps", 1_000_000_000),
    ("gb/s", 1_000_000_000),
    ("tbps", 1_000_000_000_000),
    ("tb/s", 1_000_000_000_000),
];

/// Size units (matched exactly; `kB` is an accepted spelling of `KB`) and their value in bytes.
const SIZE_UNITS: &[(&str, u128)] = &[
    ("B", 1),
    ("KB", 1_000),
    ("kB", 1_000),
    ("MB", 1_000_000),
    ("GB", 1_000_000_000),
    ("TB", 1_000_000_000_000),
    ("KiB", 1 << 10),
    ("MiB", 1 << 20),
    ("GiB", 1 << 30),
    ("TiB", 1 << 40),
];

/// Units that make a buffer size a packet count.
const PACKET_UNITS: &[&str] = &["pkt", "pkts", "packet", "packets"];

/// Units [`format_size`] may write, largest first.
const SIZE_FORMAT_UNITS: &[(&str, u64)] = &[
    ("TiB", 1 << 40),
    ("TB", 1_000_000_000_000),
    ("GiB", 1 << 30),
    ("GB", 1_000_000_000),
    ("MiB", 1 << 20),
    ("MB", 1_000_000),
    ("KiB", 1 << 10),
    ("KB", 1_000),
];

/// The kind of value a unit string was expected to hold; used in error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quantity {
    /// A duration (`"20us"`).
    Duration,
    /// A rate (`"10Gbps"`).
    Rate,
    /// A size in bytes (`"70KB"`).
    Size,
    /// A buffer size, in packets or bytes (`"100pkt"`).
    Buffer,
    /// A share of a whole (`"33%"`).
    Share,
}

impl Quantity {
    /// The accepted units, as a user reads them in an error message.
    pub fn accepted_units(self) -> &'static str {
        match self {
            Quantity::Duration => "ps, ns, us, ms or s",
            Quantity::Rate => "bps, Kbps, Mbps, Gbps or Tbps",
            Quantity::Size => {
                "B, KB, MB, GB, TB (powers of 1000) or KiB, MiB, GiB, TiB (powers of 1024)"
            }
            Quantity::Buffer => "pkt, or a size: B, KB, MB, GB, TB, KiB, MiB, GiB, TiB",
            Quantity::Share => "%",
        }
    }

    /// The unit suggested when a bare number is given.
    fn suggested_unit(self) -> &'static str {
        match self {
            Quantity::Duration => "us",
            Quantity::Rate => "Gbps",
            Quantity::Size => "KB",
            Quantity::Buffer => "pkt",
            Quantity::Share => "%",
        }
    }

    /// A complete example value.
    fn example(self) -> &'static str {
        match self {
            Quantity::Duration => "20us",
            Quantity::Rate => "10Gbps",
            Quantity::Size => "70KB",
            Quantity::Buffer => "100pkt",
            Quantity::Share => "33%",
        }
    }

    /// What one unit of the smallest granularity is called.
    fn smallest(self) -> &'static str {
        match self {
            Quantity::Duration => "1 ps",
            Quantity::Rate => "1 bit/s",
            Quantity::Size | Quantity::Buffer => "1 byte (or 1 packet)",
            Quantity::Share => "what a 64-bit float holds",
        }
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Quantity::Duration => "duration",
            Quantity::Rate => "rate",
            Quantity::Size => "size",
            Quantity::Buffer => "buffer size",
            Quantity::Share => "share",
        })
    }
}

/// Why a unit string could not be read. Every message says what to write instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnitError {
    /// The value is empty or only whitespace.
    #[error("empty {quantity}: write a number and a unit ({}), e.g. \"{}\"", quantity.accepted_units(), quantity.example())]
    Empty {
        /// What was expected.
        quantity: Quantity,
    },
    /// A number without a unit, e.g. `"20"`.
    #[error("\"{input}\" needs a unit: add a unit: {}, e.g. \"{number}{}\"", quantity.accepted_units(), quantity.suggested_unit())]
    MissingUnit {
        /// The text as given.
        input: String,
        /// The number part, echoed in the example.
        number: String,
        /// What was expected.
        quantity: Quantity,
    },
    /// A unit this quantity does not have, e.g. `"20min"`.
    #[error("unknown {quantity} unit \"{unit}\" in \"{input}\": use one of {}, e.g. \"{}\"", quantity.accepted_units(), quantity.example())]
    UnknownUnit {
        /// The text as given.
        input: String,
        /// The unit part that was not recognised.
        unit: String,
        /// What was expected.
        quantity: Quantity,
    },
    /// The text does not start with a plain decimal number (digits with at most one `.`).
    #[error("\"{input}\" is not a valid {quantity}: write a plain decimal number followed by a unit ({}), e.g. \"{}\"", quantity.accepted_units(), quantity.example())]
    BadNumber {
        /// The text as given.
        input: String,
        /// What was expected.
        quantity: Quantity,
    },
    /// A negative value.
    #[error("\"{input}\": {quantity}s cannot be negative")]
    Negative {
        /// The text as given.
        input: String,
        /// What was expected.
        quantity: Quantity,
    },
    /// A value that is not a whole number of the smallest unit, e.g. `"0.5ps"` or `"1.5pkt"`.
    #[error("\"{input}\" is finer than {} and cannot be represented exactly; use fewer decimals or a smaller unit", quantity.smallest())]
    TooPrecise {
        /// The text as given.
        input: String,
        /// What was expected.
        quantity: Quantity,
    },
    /// A value too large to represent.
    #[error("\"{input}\" is too large for a {quantity} (at most {max})")]
    Overflow {
        /// The text as given.
        input: String,
        /// What was expected.
        quantity: Quantity,
        /// The largest value accepted, with its unit.
        max: String,
    },
}

/// A queue capacity: a packet count or a byte count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BufferSize {
    /// Capacity in packets, whatever their size.
    Packets(u64),
    /// Capacity in bytes.
    Bytes(u64),
}

impl fmt::Display for BufferSize {
    /// Writes `100pkt` or a size as [`format_size`] does, e.g. `64KiB`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BufferSize::Packets(n) => write!(f, "{n}pkt"),
            BufferSize::Bytes(b) => f.write_str(&format_size(*b)),
        }
    }
}

/// A non-negative unit string split into its parts, the number not yet checked against a unit.
struct Split<'a> {
    input: &'a str,
    /// The number as written, sign excluded.
    number: &'a str,
    /// The unit as written (surrounding whitespace removed); never empty.
    unit: &'a str,
}

/// Splits `s` into number and unit; checks the number's syntax, its sign and that a unit is
/// present.
fn split(s: &str, quantity: Quantity) -> Result<Split<'_>, UnitError> {
    let trimmed = s.trim();
    if trimmed.is_empty() {
        return Err(UnitError::Empty { quantity });
    }
    let (negative, rest) = match trimmed.as_bytes()[0] {
        b'-' => (true, &trimmed[1..]),
        b'+' => (false, &trimmed[1..]),
        _ => (false, trimmed),
    };
    let end = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let number = &rest[..end];
    let dots = number.matches('.').count();
    // An exponent ("1e3us") would otherwise read as the unit "e3us".
    let after = rest[end..].trim_start_matches(['e', 'E']);
    let exponent = after.len() < rest.len() - end
        && after
            .trim_start_matches(['+', '-'])
            .starts_with(|c: char| c.is_ascii_digit());
    if !number.bytes().any(|b| b.is_ascii_digit()) || dots > 1 || exponent {
        return Err(UnitError::BadNumber {
            input: s.to_string(),
            quantity,
        });
    }
    if negative {
        return Err(UnitError::Negative {
            input: s.to_string(),
            quantity,
        });
    }
    let unit = rest[end..].trim();
    if unit.is_empty() {
        return Err(UnitError::MissingUnit {
            input: s.to_string(),
            number: trimmed.to_string(),
            quantity,
        });
    }
    Ok(Split {
        input: s,
        number,
        unit,
    })
}

impl Split<'_> {
    /// The unknown-unit error for this value.
    fn unknown_unit(&self, quantity: Quantity) -> UnitError {
        UnitError::UnknownUnit {
            input: self.input.to_string(),
            unit: self.unit.to_string(),
            quantity,
        }
    }

    /// `number x factor` exactly, as a `u64`.
    fn scaled(&self, factor: u128, quantity: Quantity) -> Result<u64, UnitError> {
        let too_precise = || UnitError::TooPrecise {
            input: self.input.to_string(),
            quantity,
        };
        let overflow = || UnitError::Overflow {
            input: self.input.to_string(),
            quantity,
            max: max_text(quantity),
        };
        let (int_part, frac_part) = self.number.split_once('.').unwrap_or((self.number, ""));
        let int_part = int_part.trim_start_matches('0');
        let frac_part = frac_part.trim_end_matches('0');
        let mut int_value: u128 = 0;
        for d in int_part.bytes() {
            int_value = int_value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u128::from(d - b'0')))
                .ok_or_else(overflow)?;
        }
        let int_scaled = int_value.checked_mul(factor).ok_or_else(overflow)?;
        // The fraction's contribution is frac_digits x factor / 10^len, which must be whole.
        let mut frac_value: u128 = 0;
        for d in frac_part.bytes() {
            frac_value = frac_value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u128::from(d - b'0')))
                .ok_or_else(too_precise)?;
        }
        let frac_scaled = if frac_part.is_empty() {
            0
        } else {
            let len = u32::try_from(frac_part.len()).map_err(|_| too_precise())?;
            let denominator = 10u128.checked_pow(len).ok_or_else(too_precise)?;
            let numerator = frac_value.checked_mul(factor).ok_or_else(too_precise)?;
            if numerator % denominator != 0 {
                return Err(too_precise());
            }
            numerator / denominator
        };
        let total = int_scaled.checked_add(frac_scaled).ok_or_else(overflow)?;
        u64::try_from(total).map_err(|_| overflow())
    }
}

/// The largest accepted value of a quantity, with its unit, for overflow messages.
fn max_text(quantity: Quantity) -> String {
    let max = u64::MAX;
    match quantity {
        Quantity::Duration => format!("{max}ps, about 213 days"),
        Quantity::Rate => format!("{max}bps"),
        Quantity::Size => format!("{max}B"),
        Quantity::Buffer => format!("{max}pkt or {max}B"),
        Quantity::Share => "a finite number".to_string(),
    }
}

/// Finds `unit` in a table; `ignore_case` compares ASCII letters case-insensitively.
fn lookup(table: &[(&str, u128)], unit: &str, ignore_case: bool) -> Option<u128> {
    table
        .iter()
        .find(|(name, _)| {
            if ignore_case {
                name.eq_ignore_ascii_case(unit)
            } else {
                *name == unit
            }
        })
        .map(|&(_, factor)| factor)
}

/// Parses a duration such as `"20us"`, `"1.5ms"` or `"2s"` into exact picoseconds.
///
/// Units: `ps`, `ns`, `us` (also `µs`), `ms`, `s`. Decimals are converted exactly; a value finer
/// than 1 ps, a negative value, a bare number and an unknown unit are errors.
pub fn parse_duration(s: &str) -> Result<SimTime, UnitError> {
    let q = Quantity::Duration;
    let v = split(s, q)?;
    let factor = lookup(DURATION_UNITS, v.unit, false).ok_or_else(|| v.unknown_unit(q))?;
    v.scaled(factor, q).map(SimTime)
}

/// The longest duration a scenario or a topology file may give: 10^6 s, about 11.6 days. Far
/// beyond any packet-level experiment, and small enough that a run's times added together (its
/// end, a link's delay, a timer) never overflow [`SimTime`], whose range ends at about 213 days.
pub const MAX_SCENARIO_DURATION: SimTime = SimTime::from_secs(1_000_000);

/// [`parse_duration`] for a scenario's (or a topology file's) durations: above
/// [`MAX_SCENARIO_DURATION`] is an [`UnitError::Overflow`].
pub fn parse_scenario_duration(s: &str) -> Result<SimTime, UnitError> {
    let t = parse_duration(s)?;
    if t > MAX_SCENARIO_DURATION {
        return Err(UnitError::Overflow {
            input: s.to_string(),
            quantity: Quantity::Duration,
            max: format!("{MAX_SCENARIO_DURATION}, about 11.6 days"),
        });
    }
    Ok(t)
}

/// Parses a rate such as `"100Mbps"`, `"2.5Gbps"` or `"10Gb/s"` into bits per second.
///
/// Units (decimal multiples, any letter case): `bps`, `Kbps`, `Mbps`, `Gbps`, `Tbps`, and the
/// same with `b/s` in place of `bps`. The result must be a whole number of bits per second.
pub fn parse_rate(s: &str) -> Result<Rate, UnitError> {
    let q = Quantity::Rate;
    let v = split(s, q)?;
    let factor = lookup(RATE_UNITS, v.unit, true).ok_or_else(|| v.unknown_unit(q))?;
    v.scaled(factor, q).map(Rate)
}

/// Parses a size such as `"70KB"`, `"64KiB"` or `"1500B"` into bytes.
///
/// Units: `B`; `KB` (also `kB`) = 1000 B, `MB`, `GB`, `TB`; `KiB` = 1024 B, `MiB`, `GiB`, `TiB`.
/// Decimals are allowed when the result is a whole number of bytes (`"1.5KB"` = 1500 B).
pub fn parse_size(s: &str) -> Result<u64, UnitError> {
    parse_size_as(s, Quantity::Size)
}

/// [`parse_size`], reporting errors as the given quantity.
fn parse_size_as(s: &str, q: Quantity) -> Result<u64, UnitError> {
    let v = split(s, q)?;
    let factor = lookup(SIZE_UNITS, v.unit, false).ok_or_else(|| v.unknown_unit(q))?;
    v.scaled(factor, q)
}

/// Parses a queue capacity: a packet count (`"100pkt"`, also `pkts`, `packet`, `packets`) or any
/// size accepted by [`parse_size`] (`"64KiB"`).
pub fn parse_buffer(s: &str) -> Result<BufferSize, UnitError> {
    let q = Quantity::Buffer;
    let v = split(s, q)?;
    if PACKET_UNITS.contains(&v.unit) {
        return v.scaled(1, q).map(BufferSize::Packets);
    }
    parse_size_as(s, q).map(BufferSize::Bytes)
}

/// Parses a percentage such as `"33%"` or `"12.5%"` into a fraction (0.33, 0.125).
///
/// The result is the `f64` nearest to the exact decimal. Negative values are errors; upper limits
/// (such as at most 100%) are the caller's to check.
pub fn parse_share(s: &str) -> Result<f64, UnitError> {
    let q = Quantity::Share;
    let v = split(s, q)?;
    if v.unit != "%" {
        return Err(v.unknown_unit(q));
    }
    // Shifting the exponent in the text keeps the conversion to one correctly rounded step.
    let fraction: f64 = format!("{}e-2", v.number)
        .parse()
        .map_err(|_| UnitError::BadNumber {
            input: s.to_string(),
            quantity: q,
        })?;
    if fraction.is_finite() {
        Ok(fraction)
    } else {
        Err(UnitError::Overflow {
            input: s.to_string(),
            quantity: q,
            max: max_text(q),
        })
    }
}

/// Writes a byte count in the largest unit that holds it exactly: `70000` -> `"70KB"`,
/// `65536` -> `"64KiB"`, `1500` -> `"1500B"`. Binary units win ties of size (`KiB` before `KB`).
pub fn format_size(bytes: u64) -> String {
    SIZE_FORMAT_UNITS
        .iter()
        .find(|&&(_, scale)| bytes != 0 && bytes.is_multiple_of(scale))
        .map(|&(unit, scale)| format!("{}{unit}", bytes / scale))
        .unwrap_or_else(|| format!("{bytes}B"))
}

/// Writes a buffer size: `"100pkt"`, or the byte count as [`format_size`] does.
pub fn format_buffer(buffer: &BufferSize) -> String {
    buffer.to_string()
}

/// Writes a duration exactly in the largest unit not above it, with as many decimals as needed:
/// `"20us"`, `"1.5ms"`, `"1.000000001s"`, `"7ps"`. [`parse_duration`] reads it back unchanged.
/// The same text as `SimTime`'s `Display`; kept beside the other formatters of this module.
pub fn format_duration(t: SimTime) -> String {
    t.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn durations_every_unit() {
        assert_eq!(parse_duration("7ps"), Ok(SimTime(7)));
        assert_eq!(parse_duration("3ns"), Ok(SimTime(3_000)));
        assert_eq!(parse_duration("20us"), Ok(SimTime(20_000_000)));
        assert_eq!(parse_duration("20\u{b5}s"), Ok(SimTime(20_000_000)));
        assert_eq!(parse_duration("20\u{3bc}s"), Ok(SimTime(20_000_000)));
        assert_eq!(parse_duration("4ms"), Ok(SimTime(4_000_000_000)));
        assert_eq!(parse_duration("2s"), Ok(SimTime(2_000_000_000_000)));
    }

    #[test]
    fn scenario_durations_end_at_the_limit() {
        assert_eq!(
            parse_scenario_duration("1000000s"),
            Ok(MAX_SCENARIO_DURATION)
        );
        assert_eq!(parse_scenario_duration("20us"), Ok(SimTime(20_000_000)));
        let e = parse_scenario_duration("1000000.000000000001s").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"1000000.000000000001s\" is too large for a duration (at most 1000000s, about \
             11.6 days)"
        );
        assert!(matches!(
            parse_scenario_duration("-1s"),
            Err(UnitError::Negative { .. })
        ));
    }

    #[test]
    fn durations_decimals_are_exact() {
        assert_eq!(parse_duration("1.5ms"), Ok(SimTime(1_500_000_000)));
        assert_eq!(parse_duration("0.2s"), Ok(SimTime(200_000_000_000)));
        assert_eq!(parse_duration("0.000000000001s"), Ok(SimTime(1)));
        assert_eq!(parse_duration("1.234567ns"), Err(too_precise("1.234567ns")));
        assert_eq!(parse_duration(".5us"), Ok(SimTime(500_000)));
        assert_eq!(parse_duration("5.us"), Ok(SimTime(5_000_000)));
        assert_eq!(parse_duration("0012.50000us"), Ok(SimTime(12_500_000)));
        assert_eq!(parse_duration("  20 us "), Ok(SimTime(20_000_000)));
        assert_eq!(parse_duration("+1s"), Ok(SimTime(1_000_000_000_000)));
        assert_eq!(parse_duration("0s"), Ok(SimTime(0)));
        // 0.1 + 0.2 style binary rounding must not leak in.
        assert_eq!(parse_duration("0.3s"), Ok(SimTime(300_000_000_000)));
    }

    fn too_precise(input: &str) -> UnitError {
        UnitError::TooPrecise {
            input: input.to_string(),
            quantity: Quantity::Duration,
        }
    }

    #[test]
    fn durations_errors() {
        let bare = parse_duration("20").unwrap_err();
        assert!(matches!(bare, UnitError::MissingUnit { .. }));
        assert_eq!(
            bare.to_string(),
            "\"20\" needs a unit: add a unit: ps, ns, us, ms or s, e.g. \"20us\""
        );
        let neg = parse_duration("-5ms").unwrap_err();
        assert!(matches!(neg, UnitError::Negative { .. }));
        assert!(neg.to_string().contains("durations cannot be negative"));
        let unknown = parse_duration("20min").unwrap_err();
        assert_eq!(
            unknown,
            UnitError::UnknownUnit {
                input: "20min".into(),
                unit: "min".into(),
                quantity: Quantity::Duration
            }
        );
        assert!(unknown.to_string().contains("\"min\""));
        assert!(unknown.to_string().contains("ps, ns, us, ms or s"));
        assert!(matches!(
            parse_duration("  "),
            Err(UnitError::Empty {
                quantity: Quantity::Duration
            })
        ));
        assert!(parse_duration("")
            .unwrap_err()
            .to_string()
            .contains("empty"));
        for bad in ["ms", "1.2.3ms", "--1s", ".s", "abc", "1e3us", "1E-3s", "-"] {
            assert!(
                matches!(parse_duration(bad), Err(UnitError::BadNumber { .. })),
                "{bad}"
            );
        }
        assert_eq!(parse_duration("0.5ps"), Err(too_precise("0.5ps")));
        assert!(matches!(
            parse_duration("18446744073709551616ps"),
            Err(UnitError::Overflow { .. })
        ));
        assert_eq!(
            parse_duration("18446744073709551615ps"),
            Ok(SimTime(u64::MAX))
        );
        assert!(matches!(
            parse_duration("18446745s"),
            Err(UnitError::Overflow { .. })
        ));
        assert!(matches!(
            parse_duration("99999999999999999999999999999999999999999999s"),
            Err(UnitError::Overflow { .. })
        ));
        assert!(matches!(
            parse_duration("0.0000000000000000000000000000000000000000001s"),
            Err(UnitError::TooPrecise { .. })
        ));
    }

    #[test]
    fn rates_every_unit_any_case() {
        assert_eq!(parse_rate("1500bps"), Ok(Rate(1_500)));
        assert_eq!(parse_rate("64Kbps"), Ok(Rate(64_000)));
        assert_eq!(parse_rate("100Mbps"), Ok(Rate(100_000_000)));
        assert_eq!(parse_rate("10Gbps"), Ok(Rate(10_000_000_000)));
        assert_eq!(parse_rate("10gbps"), Ok(Rate(10_000_000_000)));
        assert_eq!(parse_rate("10GBPS"), Ok(Rate(10_000_000_000)));
        assert_eq!(parse_rate("1Tbps"), Ok(Rate(1_000_000_000_000)));
        assert_eq!(parse_rate("100Mb/s"), Ok(Rate(100_000_000)));
        assert_eq!(parse_rate("2.5Gbps"), Ok(Rate(2_500_000_000)));
        assert_eq!(parse_rate("1.5kbps"), Ok(Rate(1_500)));
    }

    #[test]
    fn rates_errors() {
        let bare = parse_rate("100").unwrap_err();
        assert_eq!(
            bare.to_string(),
            "\"100\" needs a unit: add a unit: bps, Kbps, Mbps, Gbps or Tbps, e.g. \"100Gbps\""
        );
        assert!(matches!(
            parse_rate("10GB"),
            Err(UnitError::UnknownUnit { .. })
        ));
        assert!(parse_rate("-1Mbps")
            .unwrap_err()
            .to_string()
            .contains("rates cannot be negative"));
        assert!(matches!(
            parse_rate("0.5bps"),
            Err(UnitError::TooPrecise { .. })
        ));
        assert!(matches!(
            parse_rate("20000000Tbps"),
            Err(UnitError::Overflow { .. })
        ));
    }

    #[test]
    fn sizes_every_unit() {
        assert_eq!(parse_size("1500B"), Ok(1_500));
        assert_eq!(parse_size("70KB"), Ok(70_000));
        assert_eq!(parse_size("70kB"), Ok(70_000));
        assert_eq!(parse_size("192MB"), Ok(192_000_000));
        assert_eq!(parse_size("2GB"), Ok(2_000_000_000));
        assert_eq!(parse_size("3TB"), Ok(3_000_000_000_000));
        assert_eq!(parse_size("64KiB"), Ok(65_536));
        assert_eq!(parse_size("1MiB"), Ok(1_048_576));
        assert_eq!(parse_size("1GiB"), Ok(1_073_741_824));
        assert_eq!(parse_size("1TiB"), Ok(1_099_511_627_776));
        assert_eq!(parse_size("1.5KB"), Ok(1_500));
        assert_eq!(parse_size("0.5KiB"), Ok(512));
    }

    #[test]
    fn sizes_errors() {
        assert!(matches!(
            parse_size("1.5B"),
            Err(UnitError::TooPrecise { .. })
        ));
        assert!(matches!(
            parse_size("0.1KiB"),
            Err(UnitError::TooPrecise { .. })
        ));
        let bare = parse_size("1500").unwrap_err();
        assert!(bare.to_string().contains("e.g. \"1500KB\""), "{bare}");
        let unknown = parse_size("70Kb").unwrap_err();
        assert!(matches!(unknown, UnitError::UnknownUnit { ref unit, .. } if unit == "Kb"));
        assert!(parse_size("-1KB")
            .unwrap_err()
            .to_string()
            .contains("sizes cannot be negative"));
        assert!(matches!(
            parse_size("20000000TB"),
            Err(UnitError::Overflow { .. })
        ));
    }

    #[test]
    fn buffers() {
        assert_eq!(parse_buffer("100pkt"), Ok(BufferSize::Packets(100)));
        assert_eq!(parse_buffer("10pkts"), Ok(BufferSize::Packets(10)));
        assert_eq!(parse_buffer("10 packets"), Ok(BufferSize::Packets(10)));
        assert_eq!(parse_buffer("64KiB"), Ok(BufferSize::Bytes(65_536)));
        assert_eq!(parse_buffer("1500B"), Ok(BufferSize::Bytes(1_500)));
        assert!(matches!(
            parse_buffer("1.5pkt"),
            Err(UnitError::TooPrecise { .. })
        ));
        let bare = parse_buffer("100").unwrap_err();
        assert!(bare.to_string().contains("e.g. \"100pkt\""), "{bare}");
        let unknown = parse_buffer("100frames").unwrap_err();
        assert!(matches!(
            unknown,
            UnitError::UnknownUnit {
                quantity: Quantity::Buffer,
                ..
            }
        ));
        assert!(unknown.to_string().contains("pkt"));
        assert!(matches!(
            parse_buffer("-3pkt"),
            Err(UnitError::Negative { .. })
        ));
    }

    #[test]
    fn shares() {
        assert_eq!(parse_share("33%"), Ok(0.33));
        assert_eq!(parse_share("12.5%"), Ok(0.125));
        assert_eq!(parse_share("100%"), Ok(1.0));
        assert_eq!(parse_share("0%"), Ok(0.0));
        assert_eq!(parse_share("150%"), Ok(1.5));
        assert_eq!(parse_share(" 53 % "), Ok(0.53));
        let bare = parse_share("33").unwrap_err();
        assert_eq!(
            bare.to_string(),
            "\"33\" needs a unit: add a unit: %, e.g. \"33%\""
        );
        assert!(matches!(
            parse_share("33pct"),
            Err(UnitError::UnknownUnit { .. })
        ));
        assert_eq!(parse_share("5.%"), Ok(0.05));
        assert!(parse_share("-5%")
            .unwrap_err()
            .to_string()
            .contains("shares cannot be negative"));
        let huge = format!("{}%", "9".repeat(400));
        assert!(matches!(
            parse_share(&huge),
            Err(UnitError::Overflow { .. })
        ));
    }

    #[test]
    fn formatting() {
        assert_eq!(format_size(70_000), "70KB");
        assert_eq!(format_size(65_536), "64KiB");
        assert_eq!(format_size(1_500), "1500B");
        assert_eq!(format_size(0), "0B");
        assert_eq!(format_size(1_000_000), "1MB");
        assert_eq!(format_size(3 << 30), "3GiB");
        assert_eq!(format_size(1_024_000), "1000KiB");
        assert_eq!(format_buffer(&BufferSize::Packets(100)), "100pkt");
        assert_eq!(format_buffer(&BufferSize::Bytes(65_536)), "64KiB");
        assert_eq!(BufferSize::Bytes(1_500).to_string(), "1500B");
        assert_eq!(format_duration(SimTime(1_500_000_000)), "1.5ms");
        assert_eq!(format_duration(SimTime(1_000_000_001_000)), "1.000000001s");
        assert_eq!(format_duration(SimTime(20_000_000)), "20us");
        assert_eq!(format_duration(SimTime(7)), "7ps");
        assert_eq!(format_duration(SimTime(0)), "0ps");
        assert_eq!(format_duration(SimTime(1_001)), "1.001ns");
    }

    proptest! {
        #[test]
        fn random_strings_never_panic(s in any::<String>()) {
            let _ = parse_duration(&s);
            let _ = parse_rate(&s);
            let _ = parse_size(&s);
            let _ = parse_buffer(&s);
            let _ = parse_share(&s);
        }

        #[test]
        fn unit_like_strings_never_panic(
            s in "[ +-]{0,2}[0-9.]{0,45}[ ]?(ps|ns|us|\u{b5}s|ms|s|bps|Gbps|gb/s|B|KB|KiB|TiB|pkt|%|x|)"
        ) {
            let _ = parse_duration(&s);
            let _ = parse_rate(&s);
            let _ = parse_size(&s);
            let _ = parse_buffer(&s);
            let _ = parse_share(&s);
        }

        #[test]
        fn durations_round_trip(ps in any::<u64>()) {
            prop_assert_eq!(parse_duration(&format_duration(SimTime(ps))), Ok(SimTime(ps)));
        }

        #[test]
        fn rates_round_trip(bps in any::<u64>()) {
            prop_assert_eq!(parse_rate(&Rate(bps).to_string()), Ok(Rate(bps)));
        }

        #[test]
        fn sizes_and_buffers_round_trip(bytes in any::<u64>(), small in 0u64..10_000_000) {
            prop_assert_eq!(parse_size(&format_size(bytes)), Ok(bytes));
            prop_assert_eq!(parse_size(&format_size(small * 1000)), Ok(small * 1000));
            prop_assert_eq!(parse_size(&format_size(small * 1024)), Ok(small * 1024));
            for b in [BufferSize::Packets(small), BufferSize::Bytes(bytes)] {
                prop_assert_eq!(parse_buffer(&format_buffer(&b)), Ok(b));
            }
        }

        #[test]
        fn shares_round_trip(permille in 0u32..1_000_000) {
            // A share written with up to three decimals of a percent parses to the nearest f64.
            let text = format!("{}.{:03}%", permille / 1000, permille % 1000);
            let expected = f64::from(permille) / 100_000.0;
            prop_assert_eq!(parse_share(&text), Ok(expected));
        }
    }
}
