//! The scenario document as a tree of values, each with the place it came from.
//!
//! The TOML text is parsed once, through the toml crate's spanned document
//! ([`toml::de::DeTable`]), into this tree (keeping every key's and value's byte span); `--set`
//! and `[sweep]` overrides edit the tree; the resolver then reads it into typed settings, so
//! every error can point at the line and column of the value at fault.

use std::fmt;
use std::ops::Range;

use toml::de::{DeTable, DeValue};
use toml::Spanned;

use super::error::{Origin, Result, Source};

/// A value of the document, with its origin.
///
/// Two nodes are equal when their values are, wherever they were written (origins only locate
/// errors): a scenario built in code equals the same scenario read from a file.
#[derive(Clone, Debug)]
pub struct Node {
    /// The value.
    pub value: Value,
    /// Where it came from.
    pub origin: Origin,
}

/// A TOML value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    /// A string.
    String(String),
    /// An integer.
    Integer(i64),
    /// A float.
    Float(f64),
    /// A boolean.
    Boolean(bool),
    /// A date-time, as written (no scenario key takes one).
    Datetime(String),
    /// An array.
    Array(Vec<Node>),
    /// A table (standard, inline or an element of an array of tables).
    Table(Table),
}

/// A table: its entries in the order written.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Table {
    /// The entries, in file order.
    pub entries: Vec<Entry>,
}

/// One `key = value` of a table; equal to another with the same key and value, wherever
/// written.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The key.
    pub key: String,
    /// Where the key is written.
    pub key_origin: Origin,
    /// The value.
    pub value: Node,
}

impl PartialEq for Node {
    fn eq(&self, other: &Self) -> bool {
        self.value == other.value
    }
}

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.key == other.key && self.value == other.value
    }
}

impl Table {
    /// The entry called `key`.
    pub fn get(&self, key: &str) -> Option<&Entry> {
        self.entries.iter().find(|e| e.key == key)
    }

    /// The entry called `key`, mutably.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Entry> {
        self.entries.iter_mut().find(|e| e.key == key)
    }

    /// Sets `key` to `value`, replacing an existing entry in place or appending a new one.
    pub fn set(&mut self, key: &str, value: Node, key_origin: Origin) {
        match self.get_mut(key) {
            Some(e) => e.value = value,
            None => self.entries.push(Entry {
                key: key.to_string(),
                key_origin,
                value,
            }),
        }
    }
}

impl Value {
    /// What kind of value this is, as an error message names it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::String(_) => "a string",
            Value::Integer(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Boolean(_) => "a boolean",
            Value::Datetime(_) => "a date-time",
            Value::Array(_) => "an array",
            Value::Table(_) => "a table",
        }
    }
}

impl fmt::Display for Value {
    /// Writes the value compactly: strings without quotes, others as TOML writes them. Used in
    /// sweep point names and messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Value::String(s) => f.write_str(s),
            Value::Integer(i) => write!(f, "{i}"),
            Value::Float(x) => write!(f, "{x}"),
            Value::Boolean(b) => write!(f, "{b}"),
            Value::Datetime(d) => f.write_str(d),
            Value::Array(items) => {
                f.write_str("[")?;
                for (i, n) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}", n.value)?;
                }
                f.write_str("]")
            }
            Value::Table(t) => {
                f.write_str("{")?;
                for (i, e) in t.entries.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{}={}", e.key, e.value.value)?;
                }
                f.write_str("}")
            }
        }
    }
}

impl Node {
    /// A node with no particular origin.
    pub fn new(value: Value, origin: Origin) -> Self {
        Node { value, origin }
    }

    /// Converts to a `toml::Value` (for writing the resolved scenario and sweep values back).
    pub fn to_toml(&self) -> toml::Value {
        match &self.value {
            Value::String(s) => toml::Value::String(s.clone()),
            Value::Integer(i) => toml::Value::Integer(*i),
            Value::Float(x) => toml::Value::Float(*x),
            Value::Boolean(b) => toml::Value::Boolean(*b),
            Value::Datetime(d) => d
                .parse()
                .map(toml::Value::Datetime)
                .unwrap_or_else(|_| toml::Value::String(d.clone())),
            Value::Array(items) => toml::Value::Array(items.iter().map(Node::to_toml).collect()),
            Value::Table(t) => toml::Value::Table(
                t.entries
                    .iter()
                    .map(|e| (e.key.clone(), e.value.to_toml()))
                    .collect(),
            ),
        }
    }

    /// The value as an inline TOML value, tables with their keys in the order of the
    /// document (`toml::Value` would sort them): how scenario.toml writes sweep values, whose
    /// point names follow that order.
    pub fn to_inline_toml(&self) -> String {
        match &self.value {
            Value::Array(items) => {
                let items: Vec<String> = items.iter().map(Node::to_inline_toml).collect();
                format!("[{}]", items.join(", "))
            }
            Value::Table(t) if t.entries.is_empty() => "{}".to_string(),
            Value::Table(t) => {
                let entries: Vec<String> = t
                    .entries
                    .iter()
                    .map(|e| format!("{} = {}", inline_key(&e.key), e.value.to_inline_toml()))
                    .collect();
                format!("{{ {} }}", entries.join(", "))
            }
            _ => self.to_toml().to_string(),
        }
    }

    /// Converts a `toml::Value`, giving every node `origin`.
    pub fn from_toml(v: &toml::Value, origin: &Origin) -> Node {
        let value = match v {
            toml::Value::String(s) => Value::String(s.clone()),
            toml::Value::Integer(i) => Value::Integer(*i),
            toml::Value::Float(x) => Value::Float(*x),
            toml::Value::Boolean(b) => Value::Boolean(*b),
            toml::Value::Datetime(d) => Value::Datetime(d.to_string()),
            toml::Value::Array(a) => {
                Value::Array(a.iter().map(|x| Node::from_toml(x, origin)).collect())
            }
            toml::Value::Table(t) => Value::Table(Table {
                entries: t
                    .iter()
                    .map(|(k, x)| Entry {
                        key: k.clone(),
                        key_origin: origin.clone(),
                        value: Node::from_toml(x, origin),
                    })
                    .collect(),
            }),
        };
        Node::new(value, origin.clone())
    }
}

/// A key as TOML writes it: bare when it can be (letters, digits, `-`, `_`), else quoted.
fn inline_key(key: &str) -> String {
    let bare = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare {
        key.to_string()
    } else {
        toml::Value::String(key.to_string()).to_string()
    }
}

/// Parses TOML text into a tree whose root is a table. A syntax error is reported at its line
/// and column with the parser's message.
pub fn parse(source: &Source) -> Result<Node> {
    let syntax_error = |span: Option<Range<usize>>, message: &str| {
        let origin = span.map_or(Origin::Unknown, Origin::File);
        source.error(
            &origin,
            "",
            format!("TOML syntax error: {}", message.trim()),
        )
    };
    let root = DeTable::parse(&source.text).map_err(|e| {
        let message = match e.span() {
            Some(span) if e.message() == "duplicate key" => name_duplicate(&source.text, span),
            _ => None,
        };
        syntax_error(e.span(), message.as_deref().unwrap_or(e.message()))
    })?;
    let table = read_table(root.into_inner())
        .map_err(|NumberError { span, message }| syntax_error(Some(span), message))?;
    Ok(Node::new(Value::Table(table), Origin::File(0..0)))
}

/// `duplicate key `k` in table `a.b`` (or `in document root`) for the duplicate key written at
/// `span`: the parser's message names neither. The text is parsed again with that key renamed,
/// and the table the renamed key lands in is the one it was written twice in.
fn name_duplicate(text: &str, span: Range<usize>) -> Option<String> {
    const RENAMED: &str = "htsim-duplicate-key";
    let written = text.get(span.clone())?;
    // A quoted key (`"flows.short.size"` in `[sweep]`) is named by its value.
    let key = match DeValue::parse(written).map(Spanned::into_inner) {
        Ok(DeValue::String(s)) => s.into_owned(),
        _ => written.to_string(),
    };
    let renamed = format!("{}{RENAMED}{}", &text[..span.start], &text[span.end..]);
    let (root, _) = DeTable::parse_recoverable(&renamed);
    let mut path = Vec::new();
    if !path_to_key(root.get_ref(), RENAMED, &mut path) {
        return None;
    }
    Some(if path.is_empty() {
        format!("duplicate key `{key}` in document root")
    } else {
        format!("duplicate key `{key}` in table `{}`", path.join("."))
    })
}

/// Whether `key` is in `table` or a table below it; `path` ends holding the names of the tables
/// down to the one holding it (an array of tables by its name).
fn path_to_key(table: &DeTable<'_>, key: &str, path: &mut Vec<String>) -> bool {
    for (name, value) in table {
        if name.get_ref() == key {
            return true;
        }
        let tables: Vec<&DeTable<'_>> = match value.get_ref() {
            DeValue::Table(t) => vec![t],
            DeValue::Array(items) => items
                .iter()
                .filter_map(|i| i.get_ref().as_table())
                .collect(),
            _ => continue,
        };
        path.push(name.get_ref().to_string());
        if tables.into_iter().any(|t| path_to_key(t, key, path)) {
            return true;
        }
        path.pop();
    }
    false
}

/// A number the TOML grammar accepts that does not fit the type it is read as.
struct NumberError {
    span: Range<usize>,
    message: &'static str,
}

/// The entries of a parsed table, in the order their keys are first written. The parser keeps
/// them sorted by key, so they are put back in file order by where each key is written.
fn read_table(table: DeTable<'_>) -> std::result::Result<Table, NumberError> {
    let mut entries = table
        .into_iter()
        .map(|(key, value)| {
            Ok(Entry {
                key_origin: Origin::File(key.span()),
                key: key.into_inner().into_owned(),
                value: read_node(value)?,
            })
        })
        .collect::<std::result::Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| match &e.key_origin {
        Origin::File(span) => span.start,
        _ => 0,
    });
    Ok(Table { entries })
}

/// A parsed value and the span it is written at (a table's header, or the key of a table only
/// implied by a longer header or dotted key).
fn read_node(node: Spanned<DeValue<'_>>) -> std::result::Result<Node, NumberError> {
    let span = node.span();
    let value = match node.into_inner() {
        DeValue::String(s) => Value::String(s.into_owned()),
        DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
            .map(Value::Integer)
            .map_err(|_| NumberError {
                span: span.clone(),
                message: "number too large to fit in target type",
            })?,
        DeValue::Float(x) => {
            // As the toml crate reads floats: an overflow to infinity is an error, `inf` is not.
            match x.as_str().parse::<f64>() {
                Ok(v) if !v.is_infinite() || x.as_str().contains("inf") => Value::Float(v),
                _ => {
                    return Err(NumberError {
                        span,
                        message: "invalid floating-point number",
                    })
                }
            }
        }
        DeValue::Boolean(b) => Value::Boolean(b),
        DeValue::Datetime(d) => Value::Datetime(d.to_string()),
        DeValue::Array(items) => Value::Array(
            items
                .into_iter()
                .map(read_node)
                .collect::<std::result::Result<_, _>>()?,
        ),
        DeValue::Table(t) => Value::Table(read_table(t)?),
    };
    Ok(Node::new(value, Origin::File(span)))
}

/// Parses the text of a `--set` value: a TOML value (`8`, `true`, `[1, 2]`, `{ kind = "tcp" }`,
/// `"5s"`), or else the text itself as a string (`5s`, `70KB`).
pub fn parse_value(text: &str, origin: &Origin) -> Node {
    let doc = format!("v = {text}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(t) => match t.get("v") {
            Some(v) => Node::from_toml(v, origin),
            None => Node::new(Value::String(text.to_string()), origin.clone()),
        },
        Err(_) => Node::new(Value::String(text.trim().to_string()), origin.clone()),
    }
}

/// Parses the text of a `--set` value as [`parse_value`] does, except that text which starts as
/// a TOML array, inline table or quoted string (`[`, `{`, `"`, `'`) must be one: a value cut
/// short or mistyped (`[1, 2`, `{ kind = "tcp"`) is an error with TOML's message, not a string
/// that a key would then reject for another reason (or take as it is). Likewise an integer
/// beyond TOML's 64 bits (`99999999999999999999`) is an error saying so, not the string "found"
/// where a number was expected; digits with a leading zero (`007`) stay a string, as TOML
/// reads no such integer.
pub fn parse_set_value(text: &str, origin: &Origin) -> std::result::Result<Node, String> {
    let trimmed = text.trim();
    let digits = trimmed.strip_prefix(['+', '-']).unwrap_or(trimmed);
    let integer = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits.len() == 1 || !digits.starts_with('0'));
    if integer && trimmed.parse::<i64>().is_err() {
        return Err(format!(
            "`{trimmed}` is out of the range of an integer ({} to {})",
            i64::MIN,
            i64::MAX
        ));
    }
    if trimmed.starts_with(['[', '{', '"', '\'']) {
        if let Err(e) = toml::from_str::<toml::Table>(&format!("v = {trimmed}")) {
            return Err(format!(
                "`{trimmed}` is not a TOML value: {}",
                e.message().trim()
            ));
        }
    }
    Ok(parse_value(text, origin))
}

#[cfg(test)]
mod tests {
    use super::super::error::Location;
    use super::*;

    #[test]
    fn spans_of_keys_and_values() {
        let src = Source::new("t.toml", "name = \"x\"\n[run]\nduration = \"20s\"\n");
        let root = parse(&src).unwrap();
        let Value::Table(t) = &root.value else {
            panic!("root is a table")
        };
        let run = t.get("run").unwrap();
        let Value::Table(run) = &run.value.value else {
            panic!("run is a table")
        };
        let d = run.get("duration").unwrap();
        let Origin::File(span) = &d.key_origin else {
            panic!("key has a span")
        };
        assert_eq!(src.line_col(span.start), (3, 1));
        let Origin::File(span) = &d.value.origin else {
            panic!("value has a span")
        };
        assert_eq!(src.line_col(span.start), (3, 12));
    }

    #[test]
    fn entries_keep_the_order_written() {
        let src = Source::new("t.toml", "[sweep]\nz = [1]\n\"b.c\" = [2]\na = [3]\n");
        let Value::Table(root) = parse(&src).unwrap().value else {
            panic!("root is a table")
        };
        let Value::Table(sweep) = &root.get("sweep").unwrap().value.value else {
            panic!("sweep is a table")
        };
        let keys: Vec<&str> = sweep.entries.iter().map(|e| e.key.as_str()).collect();
        assert_eq!(keys, ["z", "b.c", "a"]);
    }

    #[test]
    fn duplicate_keys_are_named_with_their_table() {
        let cases = [
            (
                "a = 1\na = 2\n",
                "duplicate key `a` in document root",
                (2, 1),
            ),
            (
                "[run]\nseeds = 1\n[queue]\nkind = \"ecn\"\n[run.x]\ny = 1\ny = 2\n",
                "duplicate key `y` in table `run.x`",
                (7, 1),
            ),
            (
                "[[flows]]\nname = \"a\"\n[[flows]]\nname = \"b\"\nname = \"c\"\n",
                "duplicate key `name` in table `flows`",
                (5, 1),
            ),
            (
                "[sweep]\n\"run.seeds\" = [1]\n'run.seeds' = [2]\n",
                "duplicate key `run.seeds` in table `sweep`",
                (3, 1),
            ),
        ];
        for (text, message, line_col) in cases {
            let src = Source::new("t.toml", text);
            let e = parse(&src).unwrap_err();
            assert_eq!(e.message, format!("TOML syntax error: {message}"), "{text}");
            let location = Location::Position {
                line: line_col.0,
                column: line_col.1,
            };
            assert_eq!(e.location, location, "{text}");
        }
    }

    #[test]
    fn numbers_beyond_64_bits_are_syntax_errors() {
        let src = Source::new("t.toml", "k = 1\nn = 99999999999999999999\n");
        let e = parse(&src).unwrap_err();
        assert_eq!(
            e.message,
            "TOML syntax error: number too large to fit in target type"
        );
        let location = Location::Position { line: 2, column: 5 };
        assert_eq!(e.location, location);
        let e = parse(&Source::new("t.toml", "x = 1e400\n")).unwrap_err();
        assert_eq!(
            e.message,
            "TOML syntax error: invalid floating-point number"
        );
        let Value::Table(t) = parse(&Source::new("t.toml", "x = nan\ny = -inf\n"))
            .unwrap()
            .value
        else {
            panic!("root is a table")
        };
        assert!(matches!(t.get("x").unwrap().value.value, Value::Float(x) if x.is_nan()));
        assert_eq!(
            t.get("y").unwrap().value.value,
            Value::Float(f64::NEG_INFINITY)
        );
    }

    #[test]
    fn syntax_error_has_a_line() {
        let src = Source::new("t.toml", "a = 1\nb = = 2\n");
        let e = parse(&src).unwrap_err();
        assert_eq!(e.line(), Some(2));
    }

    #[test]
    fn inline_values_keep_the_order_of_their_keys() {
        let src = Source::new(
            "t.toml",
            "v = [{ kind = \"dctcp\", g = 0.5, \"a.b\" = [1, \"x\"] }, {}]\n",
        );
        let root = parse(&src).unwrap();
        let Value::Table(t) = &root.value else {
            panic!("root is a table")
        };
        let v = &t.get("v").unwrap().value;
        assert_eq!(
            v.to_inline_toml(),
            "[{ kind = \"dctcp\", g = 0.5, \"a.b\" = [1, \"x\"] }, {}]"
        );
        let back: toml::Table = toml::from_str(&format!("v = {}", v.to_inline_toml())).unwrap();
        assert_eq!(back["v"], v.to_toml());
    }

    #[test]
    fn set_values() {
        assert_eq!(parse_value("8", &Origin::Unknown).value, Value::Integer(8));
        assert_eq!(
            parse_value("5s", &Origin::Unknown).value,
            Value::String("5s".into())
        );
        assert_eq!(
            parse_value("\"5s\"", &Origin::Unknown).value,
            Value::String("5s".into())
        );
    }

    #[test]
    fn set_values_that_start_as_toml_must_parse() {
        let set = |text: &str| parse_set_value(text, &Origin::Unknown).map(|n| n.value);
        assert_eq!(set("5s"), Ok(Value::String("5s".into())));
        assert_eq!(set("a b"), Ok(Value::String("a b".into())));
        assert_eq!(set(" \"5s\" "), Ok(Value::String("5s".into())));
        assert!(matches!(set("[1, 2]"), Ok(Value::Array(_))));
        assert_eq!(set("-12"), Ok(Value::Integer(-12)));
        assert_eq!(set("007"), Ok(Value::String("007".into())));
        assert_eq!(
            set("99999999999999999999"),
            Err("`99999999999999999999` is out of the range of an integer \
                 (-9223372036854775808 to 9223372036854775807)"
                .into())
        );
        assert!(set("-9223372036854775809").is_err());
        assert_eq!(set("9223372036854775807"), Ok(Value::Integer(i64::MAX)));
        for bad in ["[1,", "{ kind = \"tcp\"", "\"10KB", "'x", "[\"a\" \"b\"]"] {
            let e = set(bad).unwrap_err();
            assert!(
                e.starts_with(&format!("`{bad}` is not a TOML value: ")),
                "{e}"
            );
        }
    }
}
