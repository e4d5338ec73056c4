//! Explicit traffic matrices: (source, destination) pairs written out by hand, inline or in a
//! pairs file, and checked against the hosts there are.
//!
//! A pairs file has one pair per line, `src dst` or `src,dst` (host indices, as `host<i>` in
//! outputs); blank lines and `#` comments are skipped, and a first line `src dst` (or
//! `src,dst`) is taken as a header.

use crate::matrix::{Connection, MatrixError};

/// A line of a pairs file that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("line {line}: {message}")]
pub struct PairsError {
    /// The line, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

/// Reads a pairs file: the pairs in file order, with the line each is on.
pub fn parse_pairs(text: &str) -> Result<Vec<(usize, usize, usize)>, PairsError> {
    let mut pairs = Vec::new();
    let mut seen_data = false;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let body = raw.split('#').next().unwrap_or_default().trim();
        if body.is_empty() {
            continue;
        }
        let fields: Vec<&str> = body
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|f| !f.is_empty())
            .collect();
        if !seen_data && fields == ["src", "dst"] {
            seen_data = true;
            continue;
        }
        seen_data = true;
        let err = |message: String| PairsError { line, message };
        let [src, dst] = fields[..] else {
            return Err(err(format!(
                "expected two host indices `src dst` (or `src,dst`), found \"{body}\""
            )));
        };
        let host = |f: &str| {
            f.parse::<usize>().map_err(|_| {
                err(format!(
                    "\"{f}\" is not a host index: expected a whole number from 0"
                ))
            })
        };
        pairs.push((host(src)?, host(dst)?, line));
    }
    Ok(pairs)
}

/// The pairs as a matrix over hosts `0..hosts`, in the order given: an error for a host out of
/// range, a pair from a host to itself, or no pair at all.
pub fn explicit(pairs: &[(usize, usize)], hosts: usize) -> Result<Vec<Connection>, MatrixError> {
    if pairs.is_empty() {
        return Err(MatrixError::NoPairs);
    }
    pairs
        .iter()
        .map(|&(src, dst)| pair(src, dst, hosts))
        .collect()
}

/// One pair over hosts `0..hosts`: an error for a host out of range or a host paired with
/// itself.
pub fn pair(src: usize, dst: usize, hosts: usize) -> Result<Connection, MatrixError> {
    for host in [src, dst] {
        if host >= hosts {
            return Err(MatrixError::HostOutOfRange { host, hosts });
        }
    }
    if src == dst {
        return Err(MatrixError::SelfPair { host: src });
    }
    Ok(Connection { src, dst })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_both_forms_with_header_and_comments() {
        let text = "# BCube read\nsrc,dst\n0,1\n\n2 3   # spaces\n 4 ,\t5\n";
        assert_eq!(
            parse_pairs(text).unwrap(),
            vec![(0, 1, 3), (2, 3, 5), (4, 5, 6)]
        );
    }

    #[test]
    fn malformed_lines_name_their_line() {
        let e = parse_pairs("0 1\n1 2 3\n").unwrap_err();
        assert_eq!(e.line, 2);
        assert!(e.message.contains("two host indices"), "{e}");
        let e = parse_pairs("0 1\n\n# x\n1 -2\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "line 4: \"-2\" is not a host index: expected a whole number from 0"
        );
        // A header is only a header on the first line with data.
        assert_eq!(parse_pairs("0 1\nsrc dst\n").unwrap_err().line, 2);
        assert_eq!(parse_pairs("7\n").unwrap_err().line, 1);
    }

    #[test]
    fn explicit_checks_range_and_self_pairs() {
        let m = explicit(&[(0, 1), (3, 1), (0, 1)], 4).unwrap();
        assert_eq!(m.len(), 3, "repeated pairs are kept");
        assert_eq!(m[1], Connection { src: 3, dst: 1 });
        assert_eq!(
            explicit(&[(0, 4)], 4),
            Err(MatrixError::HostOutOfRange { host: 4, hosts: 4 })
        );
        assert_eq!(
            explicit(&[(2, 2)], 4),
            Err(MatrixError::SelfPair { host: 2 })
        );
        assert_eq!(explicit(&[], 4), Err(MatrixError::NoPairs));
    }
}
