//! "Did you mean ...?" hints in the scenario loader's wording, over the shared rule
//! [`htsim_core::suggest::closest`].

/// `did you mean `x`?` for the candidate closest to `word`, if one is close enough.
pub fn did_you_mean<'a, I>(word: &str, candidates: I) -> Option<String>
where
    I: IntoIterator<Item = &'a str>,
{
    htsim_core::suggest::closest(word, candidates).map(|c| format!("did you mean `{c}`?"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hint_names_the_closest_key() {
        let keys = ["duration", "drain", "warmup", "seeds"];
        assert_eq!(
            did_you_mean("durtion", keys).as_deref(),
            Some("did you mean `duration`?")
        );
        assert_eq!(did_you_mean("xyzzy", keys), None);
    }
}
