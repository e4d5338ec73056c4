//! The scenario document as a tree of values, each with the place it came from.
//!
//! The TOML text is parsed once into this tree (keeping every key's and value's byte span);
//! `--set` and `[sweep]` overrides edit the tree; the resolver then reads it into typed settings,
//! so every error can point at the line and column of the value at fault.

use std::fmt;
use std::ops::Range;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

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
    match toml::from_str::<Value>(&source.text) {
        Ok(value @ Value::Table(_)) => Ok(Node::new(value, Origin::File(0..0))),
        Ok(other) => Err(source.error(
            &Origin::File(0..0),
            "",
            format!(
                "expected a TOML document (a table), found {}",
                other.type_name()
            ),
        )),
        Err(e) => {
            let origin = e.span().map_or(Origin::Unknown, Origin::File);
            let message = e.message().trim().to_string();
            Err(source.error(&origin, "", format!("TOML syntax error: {message}")))
        }
    }
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

/// Spanned node, as read from the TOML deserializer. Values of implicit tables (`a` in `[a.b]`)
/// come without a span and are read as plain tables.
impl<'de> Deserialize<'de> for Node {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_struct(SPANNED_NAME, &SPANNED_FIELDS, NodeVisitor)
    }
}

struct NodeVisitor;

macro_rules! unspanned {
    ($($name:ident: $t:ty),*) => {
        $(fn $name<E: de::Error>(self, v: $t) -> std::result::Result<Node, E> {
            ValueVisitor.$name(v).map(|value| Node::new(value, Origin::Unknown))
        })*
    };
}

impl<'de> Visitor<'de> for NodeVisitor {
    type Value = Node;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TOML value")
    }

    unspanned!(visit_bool: bool, visit_i64: i64, visit_u64: u64, visit_f64: f64, visit_str: &str, visit_string: String);

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> std::result::Result<Node, A::Error> {
        ValueVisitor
            .visit_seq(seq)
            .map(|value| Node::new(value, Origin::Unknown))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Node, A::Error> {
        let Some(first) = map.next_key::<Key>()? else {
            return Ok(Node::new(Value::Table(Table::default()), Origin::Unknown));
        };
        if first.name != SPANNED_FIELDS[0] {
            // A plain table handed over without a span.
            return read_table(Some(first), map).map(|value| Node::new(value, Origin::Unknown));
        }
        let start: usize = map.next_value()?;
        let mut end = start;
        let mut value = None;
        while let Some(field) = map.next_key::<String>()? {
            if field == SPANNED_FIELDS[1] {
                end = map.next_value()?;
            } else {
                value = Some(map.next_value::<Value>()?);
            }
        }
        let value = value.ok_or_else(|| de::Error::custom("a spanned value without its value"))?;
        Ok(Node::new(value, Origin::File(start..end)))
    }
}

/// Reads the entries of a table, `first` being a key already taken from `map`.
fn read_table<'de, A: MapAccess<'de>>(
    first: Option<Key>,
    mut map: A,
) -> std::result::Result<Value, A::Error> {
    let mut entries = Vec::new();
    let mut next = first;
    if next.is_none() {
        next = map.next_key::<Key>()?;
    }
    while let Some(key) = next {
        if key.name == DATETIME_KEY {
            let text: String = map.next_value()?;
            return Ok(Value::Datetime(text));
        }
        let value: Node = map.next_value()?;
        // Keys of implicit tables (`b` in `[a.b.c]`) may come without a span: point at the value.
        let key_origin = key.span.map_or_else(|| value.origin.clone(), Origin::File);
        entries.push(Entry {
            key: key.name,
            key_origin,
            value,
        });
        next = map.next_key::<Key>()?;
    }
    Ok(Value::Table(Table { entries }))
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

/// A table key with its span when the deserializer knows it.
struct Key {
    name: String,
    span: Option<Range<usize>>,
}

/// The struct name and fields through which the TOML deserializer hands out spans
/// (`serde_spanned`'s protocol).
const SPANNED_NAME: &str = "$__serde_spanned_private_Spanned";
const SPANNED_FIELDS: [&str; 3] = [
    "$__serde_spanned_private_start",
    "$__serde_spanned_private_end",
    "$__serde_spanned_private_value",
];

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        d.deserialize_struct(SPANNED_NAME, &SPANNED_FIELDS, KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a table key")
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Key, E> {
        Ok(Key {
            name: v.to_string(),
            span: None,
        })
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Key, A::Error> {
        let (mut start, mut end, mut name) = (None, None, None);
        while let Some(field) = map.next_key::<String>()? {
            if field == SPANNED_FIELDS[0] {
                start = Some(map.next_value::<usize>()?);
            } else if field == SPANNED_FIELDS[1] {
                end = Some(map.next_value::<usize>()?);
            } else {
                name = Some(map.next_value::<String>()?);
            }
        }
        let name = name.ok_or_else(|| de::Error::custom("a key without its text"))?;
        let span = match (start, end) {
            (Some(s), Some(e)) => Some(s..e),
            _ => None,
        };
        Ok(Key { name, span })
    }
}

/// The marker key under which the TOML deserializer passes a date-time.
const DATETIME_KEY: &str = "$__toml_private_datetime";

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a TOML value")
    }

    fn visit_bool<E: de::Error>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Boolean(v))
    }

    fn visit_i64<E: de::Error>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::Integer(v))
    }

    fn visit_u64<E: de::Error>(self, v: u64) -> std::result::Result<Value, E> {
        i64::try_from(v)
            .map(Value::Integer)
            .map_err(|_| E::custom("integer too large"))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> std::result::Result<Value, E> {
        Ok(Value::Float(v))
    }

    fn visit_str<E: de::Error>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E: de::Error>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> std::result::Result<Value, A::Error> {
        let mut items = Vec::new();
        while let Some(n) = seq.next_element::<Node>()? {
            items.push(n);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> std::result::Result<Value, A::Error> {
        read_table(None, map)
    }
}

#[cfg(test)]
mod tests {
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
}
