//! Pending events (filled next).
