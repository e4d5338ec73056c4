//! Scenario errors: what went wrong, where (file, line, column, key path), what was expected, and
//! a hint where one exists.

use std::fmt;
use std::ops::Range;

/// Where a value of a scenario came from, so that an error can point at it.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Origin {
    /// A byte range of the scenario file.
    File(Range<usize>),
    /// The `--set` override with this index (0-based, in command-line order).
    Set(usize),
    /// Nowhere in particular (a default, or the file as a whole).
    #[default]
    Unknown,
}

/// The text a scenario was read from, with its display name; turns byte offsets into line and
/// column numbers.
#[derive(Clone, Debug)]
pub struct Source {
    /// The file name as the user gave it (or `<string>`).
    pub name: String,
    /// The whole text.
    pub text: String,
    /// The `--set PATH=VALUE` overrides as written, for errors that point at one of them.
    pub overrides: Vec<String>,
}

impl Source {
    /// A source named `name` holding `text`.
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
            overrides: Vec::new(),
        }
    }

    /// 1-based line and column (in characters) of byte offset `offset`.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = offset.min(self.text.len());
        // Step back to a character boundary so slicing cannot panic.
        let mut at = offset;
        while !self.text.is_char_boundary(at) {
            at -= 1;
        }
        let before = &self.text[..at];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
    }

    /// The text of 1-based line `line`, without its end-of-line characters.
    pub fn line_text(&self, line: usize) -> Option<&str> {
        self.text
            .split('\n')
            .nth(line.saturating_sub(1))
            .map(|l| l.trim_end_matches('\r'))
    }

    /// Builds an error located at `origin`.
    pub fn error(
        &self,
        origin: &Origin,
        key_path: impl Into<String>,
        message: impl Into<String>,
    ) -> Box<ScenarioError> {
        let mut location = Location::File;
        let mut snippet = None;
        match origin {
            Origin::File(span) => {
                let (line, column) = self.line_col(span.start);
                location = Location::Position { line, column };
                snippet = self.line_text(line).map(|s| s.to_string());
            }
            Origin::Set(i) => {
                if let Some(text) = self.overrides.get(*i) {
                    location = Location::Override(text.clone());
                }
            }
            Origin::Unknown => {}
        }
        Box::new(ScenarioError {
            file: self.name.clone(),
            location,
            key_path: key_path.into(),
            message: message.into(),
            hint: None,
            snippet,
        })
    }
}

/// Where in the input an error is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Location {
    /// A line and column (both 1-based) of the file.
    Position {
        /// 1-based line.
        line: usize,
        /// 1-based column, in characters.
        column: usize,
    },
    /// A `--set PATH=VALUE` argument, as written.
    Override(String),
    /// The file as a whole (it could not be read, or the problem has no single place).
    File,
}

/// A scenario that cannot be loaded: a TOML syntax error, an unknown key, a bad value, a name that
/// refers to nothing or an impossible combination.
///
/// Displayed as `FILE:LINE:COLUMN: error at `KEY.PATH`: MESSAGE`, then the offending line with a
/// caret, then `hint: ...` when there is one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    /// The file name as the user gave it.
    pub file: String,
    /// Where in the file (or command line) the problem is.
    pub location: Location,
    /// The key path of the offending value (`flows.short.size`), empty for the whole file.
    pub key_path: String,
    /// What is wrong and what was expected.
    pub message: String,
    /// A suggestion ("did you mean `duration`?"), when there is one.
    pub hint: Option<String>,
    /// The offending line of the file, shown under the message.
    pub snippet: Option<String>,
}

impl ScenarioError {
    /// Adds a hint.
    pub fn with_hint(mut self: Box<Self>, hint: impl Into<String>) -> Box<Self> {
        self.hint = Some(hint.into());
        self
    }

    /// Adds a hint when there is one.
    pub fn with_hint_opt(mut self: Box<Self>, hint: Option<String>) -> Box<Self> {
        if hint.is_some() {
            self.hint = hint;
        }
        self
    }

    /// The 1-based line of the error, when it is in the file.
    pub fn line(&self) -> Option<usize> {
        match self.location {
            Location::Position { line, .. } => Some(line),
            _ => None,
        }
    }
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.location {
            Location::Position { line, column } => write!(f, "{}:{line}:{column}: ", self.file)?,
            Location::Override(text) => write!(f, "{}: in `--set {text}`: ", self.file)?,
            Location::File => write!(f, "{}: ", self.file)?,
        }
        if self.key_path.is_empty() {
            write!(f, "{}", self.message)?;
        } else {
            write!(f, "`{}`: {}", self.key_path, self.message)?;
        }
        if let (Some(snippet), Location::Position { line, column }) =
            (&self.snippet, &self.location)
        {
            let gutter = line.to_string();
            write!(
                f,
                "\n {gutter} | {snippet}\n {} | {}^",
                " ".repeat(gutter.len()),
                " ".repeat(column.saturating_sub(1))
            )?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// The result of loading or checking a scenario; the error is boxed to keep `Ok` paths small.
pub type Result<T> = std::result::Result<T, Box<ScenarioError>>;
