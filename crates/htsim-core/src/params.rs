//! Parameters of the kinds a scenario names (topologies, transports, job classes): each
//! parameter's key, type, default and meaning ([`ParamSpec`]), a kind's list of them
//! ([`KindSpec`]), and resolved values ([`Params`]).
//!
//! The crates that implement a kind declare its parameters next to its code (the transports in
//! `htsim-transport`); the scenario loader checks a table against them, fills in the defaults
//! and hands the resolved [`Params`] back to the kind; `htsim list` prints them.

use std::fmt;

use crate::units::{format_buffer, format_duration, format_size, BufferSize};
use crate::{Rate, SimTime};

/// The type of a parameter's value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ParamKind {
    /// An integer in `min..=max`.
    Int {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// An integer in `min..=max`, or the string `"auto"`.
    IntOrAuto {
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// A float in `min..=max`.
    Float {
        /// Smallest value.
        min: f64,
        /// Largest value.
        max: f64,
    },
    /// `true` or `false`.
    Bool,
    /// A duration with its unit (`"20us"`).
    Duration,
    /// A size with its unit (`"1400B"`).
    Size,
    /// A size with its unit, above 0 (`"1400B"`).
    PositiveSize,
    /// A size with its unit, or the string `"unlimited"`.
    SizeOrUnlimited,
    /// A rate with its unit (`"100Mbps"`).
    Rate,
    /// A buffer size: packets (`"10pkt"`) or bytes.
    Buffer,
    /// One of a fixed set of names.
    Choice(&'static [&'static str]),
    /// One of a fixed set of names, or a table of one key whose value is a non-empty list of
    /// integers in `min..=max` (`{ pinned = [0, 2] }`).
    ChoiceOrList {
        /// The names.
        names: &'static [&'static str],
        /// The table's key.
        key: &'static str,
        /// Smallest integer.
        min: i64,
        /// Largest integer.
        max: i64,
    },
    /// Free text (a file path).
    Text,
}

impl ParamKind {
    /// What a value of this kind looks like, for messages.
    pub fn expected(&self) -> String {
        match self {
            ParamKind::Int { min, max } => format!("an integer from {min} to {max}"),
            ParamKind::IntOrAuto { min, max } => {
                format!("an integer from {min} to {max}, or \"auto\"")
            }
            ParamKind::Float { min, max } => format!("a number from {min} to {max}"),
            ParamKind::Bool => "true or false".into(),
            ParamKind::Duration => "a duration such as \"20us\"".into(),
            ParamKind::Size => "a size such as \"1400B\"".into(),
            ParamKind::PositiveSize => "a size above 0 such as \"1400B\"".into(),
            ParamKind::SizeOrUnlimited => "a size such as \"64KB\", or \"unlimited\"".into(),
            ParamKind::Rate => "a rate such as \"10Gbps\"".into(),
            ParamKind::Buffer => "a buffer size such as \"100pkt\" or \"64KB\"".into(),
            ParamKind::Choice(names) => format!("one of {}", quoted_list(names)),
            ParamKind::ChoiceOrList {
                names,
                key,
                min,
                max,
            } => format!(
                "one of {}, or {{ {key} = [...] }} (a list of integers from {min} to {max})",
                quoted_list(names)
            ),
            ParamKind::Text => "a string".into(),
        }
    }
}

/// `"a", "b" or "c"`.
pub fn quoted_list(names: &[&str]) -> String {
    let q: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
    match q.len() {
        0 => String::new(),
        1 => q[0].clone(),
        n => format!("{} or {}", q[..n - 1].join(", "), q[n - 1]),
    }
}

/// A resolved parameter value.
#[derive(Clone, Debug, PartialEq)]
pub enum ParamValue {
    /// An integer.
    Int(i64),
    /// The string `"auto"`.
    Auto,
    /// A float.
    Float(f64),
    /// A boolean.
    Bool(bool),
    /// A duration.
    Duration(SimTime),
    /// A size in bytes.
    Size(u64),
    /// No limit.
    Unlimited,
    /// A rate.
    Rate(Rate),
    /// A buffer size.
    Buffer(BufferSize),
    /// A name from a fixed set, or free text.
    Text(String),
    /// A table of one key and a list of integers ([`ParamKind::ChoiceOrList`]).
    List {
        /// The table's key (`pinned`).
        key: &'static str,
        /// The integers, in order.
        values: Vec<i64>,
    },
}

impl fmt::Display for ParamValue {
    /// Writes the value as a scenario file would (units included, strings unquoted).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ParamValue::Int(i) => write!(f, "{i}"),
            ParamValue::Auto => f.write_str("auto"),
            ParamValue::Float(x) => write!(f, "{x}"),
            ParamValue::Bool(b) => write!(f, "{b}"),
            ParamValue::Duration(t) => f.write_str(&format_duration(*t)),
            ParamValue::Size(b) => f.write_str(&format_size(*b)),
            ParamValue::Unlimited => f.write_str("unlimited"),
            ParamValue::Rate(r) => write!(f, "{r}"),
            ParamValue::Buffer(b) => f.write_str(&format_buffer(b)),
            ParamValue::Text(s) => f.write_str(s),
            ParamValue::List { key, values } => {
                let items: Vec<String> = values.iter().map(i64::to_string).collect();
                write!(f, "{{ {key} = [{}] }}", items.join(", "))
            }
        }
    }
}

/// One parameter of a kind.
#[derive(Clone, Copy, Debug)]
pub struct ParamSpec {
    /// The key.
    pub key: &'static str,
    /// Its type.
    pub kind: ParamKind,
    /// Its default, as written in a scenario; `None` when the key is required.
    pub default: Option<&'static str>,
    /// Defaults that differ under a compatibility profile: `(profile, value)` pairs that replace
    /// [`ParamSpec::default`] when the table's `profile` is that profile (docs/model.md 12).
    pub profile_defaults: &'static [(&'static str, &'static str)],
    /// What it means.
    pub doc: &'static str,
}

impl ParamSpec {
    /// A parameter `key` of type `kind` with `default` (`None`: required), the same under
    /// every profile.
    pub const fn new(
        key: &'static str,
        kind: ParamKind,
        default: Option<&'static str>,
        doc: &'static str,
    ) -> ParamSpec {
        ParamSpec {
            key,
            kind,
            default,
            profile_defaults: &[],
            doc,
        }
    }

    /// The default under `profile` (the table's `profile` value, if the kind has one).
    pub fn default_for(&self, profile: Option<&str>) -> Option<&'static str> {
        profile
            .and_then(|pr| self.profile_defaults.iter().find(|(name, _)| *name == pr))
            .map(|&(_, value)| value)
            .or(self.default)
    }
}

/// A kind of a scenario table (a topology, a transport, partition/aggregate jobs): its name,
/// what it is and its parameters.
#[derive(Clone, Copy, Debug)]
pub struct KindSpec {
    /// The `kind = "..."` name.
    pub name: &'static str,
    /// One line on what it is.
    pub doc: &'static str,
    /// Its parameters (not counting `kind`).
    pub params: &'static [ParamSpec],
}

impl KindSpec {
    /// The parameter called `key`.
    pub fn param(&self, key: &str) -> Option<&'static ParamSpec> {
        self.params.iter().find(|p| p.key == key)
    }
}

/// A kind's parameters with resolved values, in the kind's order.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Params {
    /// `(key, value)` pairs.
    pub values: Vec<(String, ParamValue)>,
}

impl Params {
    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&ParamValue> {
        self.values.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    /// The integer value of `key`.
    pub fn int(&self, key: &str) -> Option<i64> {
        match self.get(key) {
            Some(ParamValue::Int(i)) => Some(*i),
            _ => None,
        }
    }

    /// The rate value of `key`.
    pub fn rate(&self, key: &str) -> Option<Rate> {
        match self.get(key) {
            Some(ParamValue::Rate(r)) => Some(*r),
            _ => None,
        }
    }

    /// The duration value of `key`.
    pub fn duration(&self, key: &str) -> Option<SimTime> {
        match self.get(key) {
            Some(ParamValue::Duration(t)) => Some(*t),
            _ => None,
        }
    }

    /// The size value of `key`, in bytes.
    pub fn size(&self, key: &str) -> Option<u64> {
        match self.get(key) {
            Some(ParamValue::Size(b)) => Some(*b),
            _ => None,
        }
    }

    /// The text value of `key`.
    pub fn text(&self, key: &str) -> Option<&str> {
        match self.get(key) {
            Some(ParamValue::Text(s)) => Some(s),
            _ => None,
        }
    }

    /// The list of integers of `key` (a [`ParamValue::List`]).
    pub fn list(&self, key: &str) -> Option<&[i64]> {
        match self.get(key) {
            Some(ParamValue::List { values, .. }) => Some(values),
            _ => None,
        }
    }

    /// The boolean value of `key`.
    pub fn bool(&self, key: &str) -> Option<bool> {
        match self.get(key) {
            Some(ParamValue::Bool(b)) => Some(*b),
            _ => None,
        }
    }

    /// The numeric value of `key` (a float, or an integer as a float).
    pub fn float(&self, key: &str) -> Option<f64> {
        match self.get(key) {
            Some(ParamValue::Float(x)) => Some(*x),
            Some(ParamValue::Int(i)) => Some(*i as f64),
            _ => None,
        }
    }

    /// Sets `key` to `value`, replacing an earlier value (a new key goes last).
    pub fn set(&mut self, key: &str, value: ParamValue) {
        match self.values.iter_mut().find(|(k, _)| k == key) {
            Some(slot) => slot.1 = value,
            None => self.values.push((key.to_string(), value)),
        }
    }
}

impl From<i64> for ParamValue {
    /// An integer parameter.
    fn from(v: i64) -> Self {
        ParamValue::Int(v)
    }
}

impl From<f64> for ParamValue {
    /// A float parameter.
    fn from(v: f64) -> Self {
        ParamValue::Float(v)
    }
}

impl From<bool> for ParamValue {
    /// A boolean parameter.
    fn from(v: bool) -> Self {
        ParamValue::Bool(v)
    }
}

impl From<Rate> for ParamValue {
    /// A rate parameter.
    fn from(v: Rate) -> Self {
        ParamValue::Rate(v)
    }
}

impl From<SimTime> for ParamValue {
    /// A duration parameter.
    fn from(v: SimTime) -> Self {
        ParamValue::Duration(v)
    }
}

impl From<BufferSize> for ParamValue {
    /// A buffer-size parameter.
    fn from(v: BufferSize) -> Self {
        ParamValue::Buffer(v)
    }
}

impl From<&str> for ParamValue {
    /// A name (`cc = "lia"`), a path, or `"auto"` / `"unlimited"` where a parameter takes them.
    fn from(v: &str) -> Self {
        ParamValue::Text(v.to_string())
    }
}

impl From<String> for ParamValue {
    /// As for `&str`.
    fn from(v: String) -> Self {
        ParamValue::Text(v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_value_writes_as_its_table_and_its_kind_says_so() {
        let v = ParamValue::List {
            key: "pinned",
            values: vec![3, 0],
        };
        assert_eq!(v.to_string(), "{ pinned = [3, 0] }");
        let kind = ParamKind::ChoiceOrList {
            names: &["ecmp", "distinct"],
            key: "pinned",
            min: 0,
            max: 9,
        };
        assert_eq!(
            kind.expected(),
            "one of \"ecmp\" or \"distinct\", or { pinned = [...] } (a list of integers from 0 to 9)"
        );
        let mut p = Params::default();
        p.set("paths", v);
        assert_eq!(p.list("paths"), Some(&[3, 0][..]));
        assert_eq!(p.text("paths"), None);
        p.set("paths", "ecmp".into());
        assert_eq!((p.list("paths"), p.values.len()), (None, 1));
    }
}
