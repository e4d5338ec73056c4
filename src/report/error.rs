//! Errors of the results code: reading run files, writing reports, drawing plots.

use std::path::PathBuf;

/// What went wrong while reading run files or writing a report.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// A file or directory could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        source: std::io::Error,
    },
    /// A JSON file could not be parsed or written.
    #[error("{path}: {source}")]
    Json {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: serde_json::Error,
    },
    /// A CSV file could not be parsed.
    #[error("{path}: {source}")]
    Csv {
        /// The file.
        path: PathBuf,
        /// The underlying error.
        source: csv::Error,
    },
    /// A run file is missing or is not what its name says.
    #[error("{path}: {message}")]
    Invalid {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        message: String,
    },
    /// A plot could not be drawn.
    #[error("plot {path}: {message}")]
    Plot {
        /// The image file.
        path: PathBuf,
        /// What the plotting library said.
        message: String,
    },
}

/// Results of this module.
pub type Result<T> = std::result::Result<T, ReportError>;

/// Wraps an I/O error with its path.
pub(crate) fn io_error(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> ReportError {
    let path = path.into();
    move |source| ReportError::Io { path, source }
}

/// Writes `bytes` to `path` atomically ([`crate::output::write_atomic`]), creating the parent
/// directory; errors name the path.
pub(crate) fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    crate::output::write_atomic(path, bytes).map_err(io_error(path))
}
