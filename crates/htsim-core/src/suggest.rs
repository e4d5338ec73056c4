//! "Did you mean ...?" hints: which allowed name a mistyped one most plausibly meant.
//!
//! Scenario keys, topology node names and built-in distribution names all offer the same hint;
//! this is the one rule they share. Each caller words the hint in its own error style.

/// The candidate closest to `word` by Levenshtein distance (in characters, ignoring letter case),
/// if it is close enough to be a plausible typo: at most a third of the longer name's length, and
/// at least 1 edit allowed. A candidate identical to `word` is never suggested. Of equally close
/// candidates, one that extends `word` wins, then the first.
///
/// ```
/// use htsim_core::suggest::closest;
/// let keys = ["duration", "drain", "warmup", "seeds"];
/// assert_eq!(closest("durtion", keys), Some("duration"));
/// assert_eq!(closest("xyzzy", keys), None);
/// ```
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let lower = word.to_lowercase();
    let word_chars = word.chars().count();
    candidates
        .into_iter()
        .filter(|&c| c != word)
        .map(|c| (strsim::levenshtein(&lower, &c.to_lowercase()), c))
        .filter(|&(d, c)| d <= (word_chars.max(c.chars().count()) / 3).max(1))
        .min_by_key(|&(d, c)| (d, !c.starts_with(word)))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::closest;

    #[test]
    fn suggests_only_close_names() {
        let keys = ["duration", "drain", "warmup", "seeds"];
        assert_eq!(closest("durtion", keys), Some("duration"));
        assert_eq!(closest("seed", keys), Some("seeds"));
        assert_eq!(closest("Warmup", keys), Some("warmup"));
        assert_eq!(closest("xyzzy", keys), None);
        // Two edits in a five-letter word is too far; two in six is allowed.
        assert_eq!(closest("drxxn", keys), None);
        assert_eq!(closest("agg0.1", ["agg1.0"]), Some("agg1.0"));
        assert_eq!(closest("", keys), None);
    }

    #[test]
    fn never_suggests_the_word_itself() {
        assert_eq!(closest("core1", ["core1"]), None);
        assert_eq!(closest("core1", ["core1", "core2"]), Some("core2"));
    }

    #[test]
    fn ties_prefer_a_name_extending_the_word() {
        assert_eq!(closest("core", ["cord", "core1"]), Some("core1"));
        assert_eq!(closest("core", ["cord", "bore"]), Some("cord"));
    }
}
