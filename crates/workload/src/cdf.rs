//! Empirical flow-size distributions: CDF text files, the built-in production workloads, and
//! sampling by inverse transform (data/README.md describes the files and where they come from).
//!
//! A CDF file has one knot per line: `size cdf` or `size index cdf` (the index is ignored), the
//! size in bytes and the cdf as a percentage (0-100) or a fraction (0-1), told apart by the last
//! value. `#` starts a comment; blank lines are ignored. Between knots the distribution is
//! linear in size; below the first knot's size the CDF is 0, so a first knot with cdf above 0 is
//! a point mass at that size (benson_imc10 has half its flows at exactly 1400 B).

use rand::Rng;

/// The built-in distributions, by name.
const BUILTINS: [(&str, &str); 4] = [
    ("websearch", include_str!("../data/websearch.cdf")),
    ("datamining", include_str!("../data/datamining.cdf")),
    ("fb_hadoop", include_str!("../data/fb_hadoop.cdf")),
    ("benson_imc10", include_str!("../data/benson_imc10.cdf")),
];

/// Names accepted by [`EmpiricalCdf::builtin`].
pub const BUILTIN_NAMES: [&str; 4] = ["websearch", "datamining", "fb_hadoop", "benson_imc10"];

/// Why a CDF cannot be read. Line numbers count from 1 and include comment and blank lines.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CdfError {
    /// A data line without 2 or 3 columns.
    #[error("line {line}: expected 2 columns (size cdf) or 3 (size index cdf), found {found}")]
    Columns {
        /// The line.
        line: usize,
        /// Columns found.
        found: usize,
    },
    /// A data line with a different column count from the first one.
    #[error("line {line}: {found} columns, but the first data line (line {first_line}) has {expected}; use one layout throughout")]
    MixedColumns {
        /// The line.
        line: usize,
        /// Columns on this line.
        found: usize,
        /// Columns on the first data line.
        expected: usize,
        /// The first data line.
        first_line: usize,
    },
    /// A column that is not a finite number.
    #[error("line {line}: \"{text}\" is not a number")]
    NotANumber {
        /// The line.
        line: usize,
        /// The column's text.
        text: String,
    },
    /// A negative size or cdf value.
    #[error("line {line}: the {column} {value} is negative")]
    Negative {
        /// The line.
        line: usize,
        /// `"size"` or `"cdf value"`.
        column: &'static str,
        /// The value.
        value: f64,
    },
    /// A size or cdf value below the one on the previous data line.
    #[error("line {line}: the {column} {value} is below {previous} on line {previous_line}; {column}s must not decrease")]
    Decreasing {
        /// The line.
        line: usize,
        /// `"size"` or `"cdf value"`.
        column: &'static str,
        /// The value.
        value: f64,
        /// The previous data line's value.
        previous: f64,
        /// The previous data line.
        previous_line: usize,
    },
    /// Fewer than two knots.
    #[error("a CDF needs at least two data lines (size cdf), found {found}")]
    TooFewPoints {
        /// Data lines found.
        found: usize,
    },
    /// The last cdf value is neither 1 nor 100.
    #[error("line {line}: the last cdf value is {value}; a CDF must end at 1 (fractions) or 100 (percent)")]
    BadEnd {
        /// The last data line.
        line: usize,
        /// Its cdf value.
        value: f64,
    },
    /// An unknown built-in name.
    #[error("unknown built-in flow-size distribution \"{name}\"{suggestion}; the built-ins are websearch, datamining, fb_hadoop and benson_imc10")]
    UnknownBuiltin {
        /// The name given.
        name: String,
        /// `" (did you mean \"x\"?)"` or empty.
        suggestion: String,
    },
}

impl CdfError {
    /// The 1-based line the error is on, when it is on one.
    pub fn line(&self) -> Option<usize> {
        match self {
            CdfError::Columns { line, .. }
            | CdfError::MixedColumns { line, .. }
            | CdfError::NotANumber { line, .. }
            | CdfError::Negative { line, .. }
            | CdfError::Decreasing { line, .. }
            | CdfError::BadEnd { line, .. } => Some(*line),
            CdfError::TooFewPoints { .. } | CdfError::UnknownBuiltin { .. } => None,
        }
    }
}

/// A flow-size distribution given by knots `(size, cdf)`, linear in size between them.
#[derive(Clone, Debug, PartialEq)]
pub struct EmpiricalCdf {
    /// Knot sizes in bytes, non-decreasing.
    sizes: Vec<f64>,
    /// Knot cdf values as fractions, non-decreasing, the last exactly 1.
    cdf: Vec<f64>,
}

impl EmpiricalCdf {
    /// Reads a CDF in either dialect (see the module documentation).
    pub fn parse(text: &str) -> Result<EmpiricalCdf, CdfError> {
        let mut sizes = Vec::new();
        let mut cdf = Vec::new();
        // (line, column count) of the first data line, and the previous data line.
        let mut first: Option<(usize, usize)> = None;
        let mut previous_line = 0;
        for (index, raw) in text.lines().enumerate() {
            let line = index + 1;
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let columns: Vec<&str> = content.split_whitespace().collect();
            if columns.len() != 2 && columns.len() != 3 {
                return Err(CdfError::Columns {
                    line,
                    found: columns.len(),
                });
            }
            match first {
                None => first = Some((line, columns.len())),
                Some((first_line, expected)) if expected != columns.len() => {
                    return Err(CdfError::MixedColumns {
                        line,
                        found: columns.len(),
                        expected,
                        first_line,
                    })
                }
                Some(_) => {}
            }
            let size = number(line, columns[0])?;
            let value = number(line, columns[columns.len() - 1])?;
            for (column, v, list) in [("size", size, &sizes), ("cdf value", value, &cdf)] {
                if v < 0.0 {
                    return Err(CdfError::Negative {
                        line,
                        column,
                        value: v,
                    });
                }
                if let Some(&previous) = list.last() {
                    if v < previous {
                        return Err(CdfError::Decreasing {
                            line,
                            column,
                            value: v,
                            previous,
                            previous_line,
                        });
                    }
                }
            }
            sizes.push(size);
            cdf.push(value);
            previous_line = line;
        }
        if sizes.len() < 2 {
            return Err(CdfError::TooFewPoints { found: sizes.len() });
        }
        let last = cdf[cdf.len() - 1];
        let scale = if (last - 1.0).abs() <= 1e-9 {
            1.0
        } else if (last - 100.0).abs() <= 1e-7 {
            100.0
        } else {
            return Err(CdfError::BadEnd {
                line: previous_line,
                value: last,
            });
        };
        for c in &mut cdf {
            *c = (*c / scale).min(1.0);
        }
        let end = cdf.len() - 1;
        cdf[end] = 1.0;
        Ok(EmpiricalCdf { sizes, cdf })
    }

    /// A built-in distribution: `websearch`, `datamining`, `fb_hadoop` or `benson_imc10`
    /// ([`BUILTIN_NAMES`]). Letter case and `-` for `_` do not matter.
    pub fn builtin(name: &str) -> Result<EmpiricalCdf, CdfError> {
        let key = name.trim().to_ascii_lowercase().replace('-', "_");
        match BUILTINS.iter().find(|(n, _)| *n == key) {
            // The embedded files are checked by the tests.
            Some((_, text)) => EmpiricalCdf::parse(text),
            None => Err(CdfError::UnknownBuiltin {
                name: name.to_string(),
                suggestion: suggest(&key),
            }),
        }
    }

    /// Draws a flow size in bytes by inverse transform: a uniform u in [0, 1) is mapped through
    /// the CDF, interpolating linearly in size between knots, and rounded to the nearest byte
    /// (at least 1 byte: a flow carries data).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> u64 {
        let u: f64 = rng.random();
        // The first knot with cdf > u; it exists because the last cdf is 1 > u.
        let i = self.cdf.partition_point(|&c| c <= u);
        let size = if i == 0 {
            self.sizes[0]
        } else {
            let (s0, s1) = (self.sizes[i - 1], self.sizes[i]);
            let (c0, c1) = (self.cdf[i - 1], self.cdf[i]);
            s0 + (s1 - s0) * (u - c0) / (c1 - c0)
        };
        // Saturating float-to-integer conversion; sizes are finite and non-negative.
        (size.round() as u64).max(1)
    }

    /// The probability that a flow is at most `bytes` long (the CDF itself, before rounding
    /// samples to whole bytes).
    pub fn cdf_at(&self, bytes: f64) -> f64 {
        let j = self.sizes.partition_point(|&s| s <= bytes);
        if j == 0 {
            return 0.0;
        }
        if j == self.sizes.len() {
            return 1.0;
        }
        let (s0, s1) = (self.sizes[j - 1], self.sizes[j]);
        let (c0, c1) = (self.cdf[j - 1], self.cdf[j]);
        c0 + (c1 - c0) * (bytes - s0) / (s1 - s0)
    }

    /// The mean flow size in bytes: the first knot's point mass plus the midpoint of each linear
    /// piece weighted by its probability. Rounding samples to whole bytes moves it by under a byte.
    pub fn mean(&self) -> f64 {
        let mut mean = self.cdf[0] * self.sizes[0];
        for i in 1..self.sizes.len() {
            mean += (self.cdf[i] - self.cdf[i - 1]) * (self.sizes[i - 1] + self.sizes[i]) / 2.0;
        }
        mean
    }

    /// The knots as (size in bytes, cdf as a fraction).
    pub fn knots(&self) -> impl Iterator<Item = (f64, f64)> + '_ {
        self.sizes.iter().copied().zip(self.cdf.iter().copied())
    }
}

/// Parses one column as a finite number.
fn number(line: usize, text: &str) -> Result<f64, CdfError> {
    text.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .ok_or_else(|| CdfError::NotANumber {
            line,
            text: text.to_string(),
        })
}

/// `" (did you mean \"x\"?)"` for the built-in name closest to `key`
/// ([`htsim_core::suggest::closest`]), else for the first one containing `key` or contained in it
/// (`benson`, `web`), else the empty string.
fn suggest(key: &str) -> String {
    htsim_core::suggest::closest(key, BUILTIN_NAMES)
        .or_else(|| {
            BUILTIN_NAMES
                .into_iter()
                .find(|n| (!key.is_empty() && n.contains(key)) || key.contains(n))
        })
        .map(|n| format!(" (did you mean \"{n}\"?)"))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    #[test]
    fn every_builtin_loads() {
        for name in BUILTIN_NAMES {
            let cdf = EmpiricalCdf::builtin(name).unwrap();
            assert!(cdf.knots().count() >= 11, "{name}");
            assert_eq!(cdf.knots().last().map(|k| k.1), Some(1.0));
        }
        assert_eq!(BUILTINS.map(|b| b.0), BUILTIN_NAMES);
        assert!(EmpiricalCdf::builtin("FB-Hadoop").is_ok());
    }

    #[test]
    fn both_dialects_and_three_columns() {
        let percent = EmpiricalCdf::parse("0 0\n10000 15\n30000000 100\n").unwrap();
        let fraction = EmpiricalCdf::parse("0 0\n10000 0.15\n3e7 1\n").unwrap();
        let three =
            EmpiricalCdf::parse("# size index cdf\n\n0 1 0\n10000 2 0.15 # knot\n3.0e+07 3 1.0\n")
                .unwrap();
        assert_eq!(percent, fraction);
        assert_eq!(percent, three);
        assert_eq!(percent.cdf_at(5_000.0), 0.075);
        assert_eq!(percent.cdf_at(-1.0), 0.0);
        assert_eq!(percent.cdf_at(3e7), 1.0);
    }

    #[test]
    fn builtin_means() {
        // websearch: 0.15 x 5000 + 0.05 x 15000 + 0.1 x 25000 + ... (hand sum of the pieces).
        let web = EmpiricalCdf::builtin("websearch").unwrap();
        let expected = 0.15 * 5e3
            + 0.05 * 15e3
            + 0.10 * 25e3
            + 0.10 * 40e3
            + 0.13 * 65e3
            + 0.07 * 140e3
            + 0.10 * 600e3
            + 0.10 * 1.5e6
            + 0.10 * 3.5e6
            + 0.07 * 7.5e6
            + 0.03 * 20e6;
        assert!((web.mean() - expected).abs() < 1e-6 * expected);
        // benson_imc10: the point mass at 1400 B counts fully.
        let benson = EmpiricalCdf::builtin("benson_imc10").unwrap();
        let expected = 0.5 * 1400.0
            + 0.1 * 2100.0
            + 0.1 * 3500.0
            + 0.05 * 5600.0
            + 0.05 * 8400.0
            + 0.0125 * 32900.0
            + 0.0125 * 78400.0
            + 0.025 * 146300.0
            + 0.05 * 282800.0
            + 0.05 * 1017800.0
            + 0.05 * 2305800.0;
        assert!((benson.mean() - expected).abs() < 1e-6 * expected);
    }

    /// The largest distance between the CDF and the empirical CDF of samples rounded to whole
    /// bytes: a sample k stands for the continuous values in [k - 0.5, k + 0.5).
    fn ks_distance(cdf: &EmpiricalCdf, samples: &mut [u64]) -> f64 {
        samples.sort_unstable();
        let n = samples.len() as f64;
        let mut d: f64 = 0.0;
        let mut i = 0;
        while i < samples.len() {
            let k = samples[i];
            let mut j = i;
            while j < samples.len() && samples[j] == k {
                j += 1;
            }
            // F_n just below k and at k, against F below k - 0.5 and at k + 0.5; samples of 1
            // also stand for the values below 0.5 that were raised to a byte.
            let below = if k == 1 {
                0.0
            } else {
                cdf.cdf_at(k as f64 - 0.5)
            };
            d = d.max((i as f64 / n - below).abs());
            d = d.max((j as f64 / n - cdf.cdf_at(k as f64 + 0.5)).abs());
            i = j;
        }
        d
    }

    #[test]
    fn sampling_matches_every_builtin_by_kolmogorov_smirnov() {
        let n = 100_000;
        let critical = 1.63 / (n as f64).sqrt();
        for (seed, name) in BUILTIN_NAMES.iter().enumerate() {
            let cdf = EmpiricalCdf::builtin(name).unwrap();
            let mut rng = Pcg64::seed_from_u64(seed as u64 + 100);
            let mut samples: Vec<u64> = (0..n).map(|_| cdf.sample(&mut rng)).collect();
            let mean = samples.iter().map(|&s| s as f64).sum::<f64>() / n as f64;
            let d = ks_distance(&cdf, &mut samples);
            assert!(d < critical, "{name}: D = {d}, critical {critical}");
            // Sanity of the KS check itself: a distribution shifted by 10% fails it.
            let mut shifted: Vec<u64> = samples.iter().map(|&s| s + s / 10 + 1).collect();
            assert!(ks_distance(&cdf, &mut shifted) > critical, "{name}");
            // Heavy tails make the sample mean noisy; 10% is a loose check of mean().
            assert!(
                (mean / cdf.mean() - 1.0).abs() < 0.1,
                "{name}: {mean} vs {}",
                cdf.mean()
            );
        }
    }

    #[test]
    fn errors_name_the_line() {
        let cases: [(&str, CdfError); 8] = [
            ("0 0\n1 2 3 4\n", CdfError::Columns { line: 2, found: 4 }),
            (
                "0 0\n5 1 0.5\n9 1\n",
                CdfError::MixedColumns {
                    line: 2,
                    found: 3,
                    expected: 2,
                    first_line: 1,
                },
            ),
            (
                "# c\n0 0\n10 abc\n",
                CdfError::NotANumber {
                    line: 3,
                    text: "abc".into(),
                },
            ),
            (
                "0 0\ninf 1\n",
                CdfError::NotANumber {
                    line: 2,
                    text: "inf".into(),
                },
            ),
            (
                "-5 0\n10 1\n",
                CdfError::Negative {
                    line: 1,
                    column: "size",
                    value: -5.0,
                },
            ),
            (
                "0 0\n\n200 0.5\n100 1\n",
                CdfError::Decreasing {
                    line: 4,
                    column: "size",
                    value: 100.0,
                    previous: 200.0,
                    previous_line: 3,
                },
            ),
            (
                "0 0\n100 60\n200 50\n300 100\n",
                CdfError::Decreasing {
                    line: 3,
                    column: "cdf value",
                    value: 50.0,
                    previous: 60.0,
                    previous_line: 2,
                },
            ),
            (
                "0 0\n100 0.5\n200 0.9\n",
                CdfError::BadEnd {
                    line: 3,
                    value: 0.9,
                },
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(EmpiricalCdf::parse(text), Err(expected.clone()), "{text:?}");
            let message = expected.to_string();
            assert!(message.starts_with("line "), "{message}");
        }
        assert_eq!(
            EmpiricalCdf::parse("# only\n100 1\n"),
            Err(CdfError::TooFewPoints { found: 1 })
        );
    }

    #[test]
    fn unknown_builtin_suggests() {
        let err = EmpiricalCdf::builtin("websearh").unwrap_err();
        assert_eq!(
            err.to_string(),
            "unknown built-in flow-size distribution \"websearh\" (did you mean \"websearch\"?); \
             the built-ins are websearch, datamining, fb_hadoop and benson_imc10"
        );
        let err = EmpiricalCdf::builtin("hadoop").unwrap_err();
        assert!(
            err.to_string().contains("did you mean \"fb_hadoop\""),
            "{err}"
        );
        let err = EmpiricalCdf::builtin("benson").unwrap_err();
        assert!(
            err.to_string().contains("did you mean \"benson_imc10\""),
            "{err}"
        );
        let err = EmpiricalCdf::builtin("zzzzzzzzzzzz").unwrap_err();
        assert!(!err.to_string().contains("did you mean"), "{err}");
    }

    #[test]
    fn point_mass_at_the_first_knot() {
        let cdf = EmpiricalCdf::parse("1400 0.5\n2800 1\n").unwrap();
        let mut rng = Pcg64::seed_from_u64(1);
        let at_first = (0..10_000).filter(|_| cdf.sample(&mut rng) == 1400).count();
        // Binomial(10000, 0.5) plus the rare exact 1400 from the linear piece: sd 50.
        assert!((4800..5200).contains(&at_first), "{at_first}");
        assert_eq!(cdf.mean(), 0.5 * 1400.0 + 0.5 * 2100.0);
    }
}
