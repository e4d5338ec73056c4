//! Unit strings (filled next).
