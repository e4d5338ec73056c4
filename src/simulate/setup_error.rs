//! Why a run cannot be set up from its scenario: the key at fault, what is wrong, and the line
//! of a file the scenario names (a topology or CDF file). [`super::preflight`] turns it into a
//! scenario error with file, line and column; a run reports it as a [`RunError`].

use std::fmt;
use std::path::PathBuf;

use crate::runner::RunError;

/// A line of a file the scenario names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InputLine {
    /// The file, as read (the scenario's directory joined with the path written).
    pub path: PathBuf,
    /// 1-based line.
    pub line: usize,
}

/// A scenario a run cannot be set up from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetupError {
    /// The key path at fault (`topology.path`, `events[2].where`, `flows.short.senders`).
    pub key: String,
    /// What is wrong.
    pub message: String,
    /// A suggestion, when there is one.
    pub hint: Option<String>,
    /// The line of a named file the problem is on.
    pub input: Option<InputLine>,
    /// The scenario asks for something not implemented yet (rather than something wrong).
    pub unsupported: bool,
}

impl SetupError {
    /// An error at `key`.
    pub fn new(key: impl Into<String>, message: impl Into<String>) -> Self {
        SetupError {
            key: key.into(),
            message: message.into(),
            hint: None,
            input: None,
            unsupported: false,
        }
    }

    /// Something the scenario asks for that is not implemented yet.
    pub fn unsupported(key: impl Into<String>, message: impl Into<String>) -> Self {
        SetupError {
            unsupported: true,
            ..SetupError::new(key, message)
        }
    }

    /// Adds a hint.
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Places the problem on `line` of the named file `path`.
    pub fn on_line(mut self, path: impl Into<PathBuf>, line: usize) -> Self {
        self.input = Some(InputLine {
            path: path.into(),
            line,
        });
        self
    }

    /// The same error with its key inside `prefix` (`mss` within `transports.t` is
    /// `transports.t.mss`).
    pub fn within(mut self, prefix: &str) -> Self {
        self.key = if self.key.is_empty() {
            prefix.to_string()
        } else {
            format!("{prefix}.{}", self.key)
        };
        self
    }
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.key.is_empty() {
            write!(f, "{}: ", self.key)?;
        }
        if let Some(input) = &self.input {
            write!(f, "{} line {}: ", input.path.display(), input.line)?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for SetupError {}

impl From<SetupError> for RunError {
    fn from(e: SetupError) -> Self {
        if e.unsupported {
            RunError::Unsupported(e.to_string())
        } else {
            RunError::Failed(e.to_string())
        }
    }
}

/// Several problems as one run error: unsupported when the first is, the messages joined.
impl From<Vec<SetupError>> for RunError {
    fn from(errors: Vec<SetupError>) -> Self {
        let text = errors
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ");
        match errors.first() {
            Some(e) if e.unsupported => RunError::Unsupported(text),
            _ => RunError::Failed(text),
        }
    }
}
