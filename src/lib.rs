//! htsim.
