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
            also: Vec::new(),
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
    /// Further problems found with this one (at other sweep points), shown after it, each as
    /// its own `error:`.
    pub also: Vec<ScenarioError>,
}

impl ScenarioError {
    /// An error about the input `file` as a whole (no line to show), at `key_path` (empty: the
    /// whole file).
    pub fn about_file(
        file: impl Into<String>,
        key_path: impl Into<String>,
        message: impl Into<String>,
    ) -> Box<Self> {
        Box::new(ScenarioError {
            file: file.into(),
            location: Location::File,
            key_path: key_path.into(),
            message: message.into(),
            hint: None,
            snippet: None,
            also: Vec::new(),
        })
    }

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
            let (shown, caret) = clip(snippet, column.saturating_sub(1));
            write!(
                f,
                "\n {gutter} | {shown}\n {} | {}^",
                " ".repeat(gutter.len()),
                " ".repeat(caret)
            )?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n hint: {hint}")?;
        }
        for more in &self.also {
            write!(f, "\nerror: {more}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ScenarioError {}

/// The problems found at the points of a sweep, each kept once (by its text) with the first
/// point that has it and how many points do, in the order first found.
#[derive(Debug, Default)]
pub struct PointProblems {
    found: Vec<(ScenarioError, String, usize)>,
    index: std::collections::HashMap<String, usize>,
}

impl PointProblems {
    /// The most distinct problems [`PointProblems::into_errors`] lists; a last error counts
    /// the others.
    pub const SHOWN: usize = 20;

    /// Records `problem`, found at the point named `point`.
    pub fn add(&mut self, problem: ScenarioError, point: &str) {
        let key = problem.to_string();
        match self.index.get(&key) {
            Some(&i) => self.found[i].2 += 1,
            None => {
                self.index.insert(key, self.found.len());
                self.found.push((problem, point.to_string(), 1));
            }
        }
    }

    /// Whether nothing was found.
    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }

    /// The problems, at most [`PointProblems::SHOWN`] and then one counting the rest (located
    /// at `source`'s file as a whole). With `swept` (the scenario has sweep points), each
    /// message ends with where: `(at sweep point `P`)` or `(at N sweep points, the first `P`)`.
    pub fn into_errors(self, source: &Source, swept: bool) -> Vec<ScenarioError> {
        let total = self.found.len();
        let mut errors: Vec<ScenarioError> = self
            .found
            .into_iter()
            .take(Self::SHOWN)
            .map(|(mut p, first, count)| {
                if swept {
                    p.message = match count {
                        1 => format!("{} (at sweep point `{first}`)", p.message),
                        n => format!("{} (at {n} sweep points, the first `{first}`)", p.message),
                    };
                }
                p
            })
            .collect();
        if total > Self::SHOWN {
            let more = source.error(
                &Origin::Unknown,
                "sweep",
                format!(
                    "{} more problem(s) at other sweep points, not shown",
                    total - Self::SHOWN
                ),
            );
            errors.push(*more);
        }
        errors
    }

    /// [`PointProblems::into_errors`] as one error (the first, the others in its
    /// [`ScenarioError::also`]); `None` when nothing was found.
    pub fn into_error(self, source: &Source, swept: bool) -> Option<Box<ScenarioError>> {
        let mut errors = self.into_errors(source, swept).into_iter();
        let mut first = errors.next()?;
        first.also = errors.collect();
        Some(Box::new(first))
    }
}

/// The most characters of a line an error shows; a longer line (a sweep of thousands of values
/// on one line) is cut to this many around the column at fault.
pub const SNIPPET_WIDTH: usize = 100;

/// What an error shows of `line` and where its caret goes: the whole line when it is at most
/// [`SNIPPET_WIDTH`] characters, else a window of that many around the 0-based character
/// `column`, with `...` where the line goes on.
fn clip(line: &str, column: usize) -> (String, usize) {
    const MORE: &str = "...";
    let chars = line.chars().count();
    if chars <= SNIPPET_WIDTH {
        return (line.to_string(), column);
    }
    let column = column.min(chars);
    // The column sits a third of the way in, so that the value at fault shows after it.
    let start = column
        .saturating_sub(SNIPPET_WIDTH / 3)
        .min(chars - SNIPPET_WIDTH);
    let end = start + SNIPPET_WIDTH;
    let mut shown: String = line.chars().skip(start).take(SNIPPET_WIDTH).collect();
    let mut caret = column - start;
    if start > 0 {
        shown.insert_str(0, MORE);
        caret += MORE.len();
    }
    if end < chars {
        shown.push_str(MORE);
    }
    (shown, caret)
}

/// The result of loading or checking a scenario; the error is boxed to keep `Ok` paths small.
pub type Result<T> = std::result::Result<T, Box<ScenarioError>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn error_at(snippet: &str, column: usize) -> ScenarioError {
        ScenarioError {
            file: "s.toml".into(),
            location: Location::Position { line: 14, column },
            key_path: "topology.link_delay".into(),
            message: "bad".into(),
            hint: None,
            snippet: Some(snippet.into()),
            also: Vec::new(),
        }
    }

    /// The snippet and caret lines of an error's text.
    fn shown(e: &ScenarioError) -> (String, String) {
        let text = e.to_string();
        let lines: Vec<&str> = text.lines().collect();
        (lines[1].to_string(), lines[2].to_string())
    }

    #[test]
    fn a_short_line_is_shown_whole_with_the_caret_under_the_column() {
        let (line, caret) = shown(&error_at("duraton = \"2s\"", 1));
        assert_eq!(line, " 14 | duraton = \"2s\"");
        assert_eq!(caret, "    | ^");
    }

    #[test]
    fn a_long_line_is_cut_around_the_column_with_the_caret_on_the_value() {
        // A sweep of 100 000 values on one line, the bad one last (column 1 088 909 of the
        // issue's file): the error shows 100 characters around it, not 1 MB.
        let mut line = String::from("\"topology.link_delay\" = [");
        for i in 1..100_000 {
            line.push_str(&format!("\"{i}us\", "));
        }
        let column = line.chars().count() + 1;
        line.push_str("\"bad\"]");
        let (snippet, caret) = shown(&error_at(&line, column));
        let gutter = " 14 | ".len();
        assert!(snippet.starts_with(" 14 | ..."), "{snippet}");
        assert!(snippet.ends_with("\"bad\"]"), "{snippet}");
        assert!(
            snippet.chars().count() <= gutter + SNIPPET_WIDTH + 6,
            "{snippet}"
        );
        // The caret points at the opening quote of "bad".
        let at = caret.chars().count() - 1;
        assert_eq!(&snippet[at..at + 5], "\"bad\"", "{snippet}\n{caret}");
        // In the middle of the line: cut on both sides.
        let (snippet, caret) = shown(&error_at(&line, 500_000));
        assert!(snippet.starts_with(" 14 | ...") && snippet.ends_with("..."));
        let at = caret.chars().count() - 1;
        let column_char = line.chars().nth(500_000 - 1).unwrap();
        assert_eq!(snippet.chars().nth(at), Some(column_char));
    }

    #[test]
    fn clipping_counts_characters_not_bytes() {
        let line = "é".repeat(300) + "x" + &"é".repeat(300);
        let (snippet, caret) = shown(&error_at(&line, 301));
        let at = caret.chars().count() - 1;
        assert_eq!(snippet.chars().nth(at), Some('x'), "{snippet}");
        assert!(snippet.chars().count() < 120);
    }
}
