//! Transports (filled by the transport issues).
