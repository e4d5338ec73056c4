//! docs/scenarios.md documents everything `htsim list` prints: every kind and every parameter
//! key must appear on that page as a code span (`` `name` ``) or a quoted value (`"name"`), so
//! the two cannot drift.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

/// The names `htsim list` prints: the first word of every indented line (a kind, a parameter
/// key, or a workload key such as `matrix`), every layer of a `layers:` line, every matrix kind
/// of the `matrix` line, every built-in CDF, and the first key of every inline table
/// (`{ poisson = ... }`). Group headers (unindented) and the `node names:` note are not names.
fn listed_names(listing: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in listing.lines().filter(|l| l.starts_with(' ')) {
        let line = line.trim_start();
        if let Some(layers) = line.strip_prefix("layers:") {
            names.extend(layers.split(',').map(|l| l.trim().to_string()));
            continue;
        }
        if line.starts_with("node names:") {
            continue;
        }
        let word = line.split_whitespace().next().unwrap_or_default();
        names.insert(word.to_string());
        let rest = &line[word.len()..];
        if word == "matrix" {
            names.extend(rest.split('|').filter_map(first_word));
        }
        if let Some((_, cdfs)) = rest.split_once("cdf = ") {
            let cdfs = cdfs.split('}').next().unwrap_or_default();
            names.extend(cdfs.split('|').filter_map(first_word));
        }
        names.extend(rest.split("{ ").skip(1).filter_map(first_word));
    }
    names
}

/// The leading name (letters, digits, `_`, `-`) of `text`, if any.
fn first_word(text: &str) -> Option<String> {
    let word: String = text
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    (!word.is_empty()).then_some(word)
}

/// The names of `listed` that `doc` holds neither as a code span (`` `name` ``) nor as a quoted
/// value (`"name"`, as `matrix = "permutation"` is written).
fn missing<'a>(listed: &'a BTreeSet<String>, doc: &str) -> Vec<&'a str> {
    listed
        .iter()
        .filter(|n| !doc.contains(&format!("`{n}`")) && !doc.contains(&format!("\"{n}\"")))
        .map(String::as_str)
        .collect()
}

#[test]
fn every_kind_and_key_htsim_list_prints_is_in_docs_scenarios_md() {
    let out = Command::new(env!("CARGO_BIN_EXE_htsim"))
        .arg("list")
        .output()
        .expect("the binary runs");
    assert!(out.status.success(), "htsim list failed");
    let listing = String::from_utf8(out.stdout).expect("utf-8");
    let listed = listed_names(&listing);
    // The listing's shape is what the parser above expects: kinds, keys and layers of every group.
    for name in [
        "fattree",
        "k",
        "tor",
        "mmptcp",
        "switch_threshold",
        "ecn",
        "matrix",
        "many-to-one",
        "benson_imc10",
        "closed_loop",
        "servers",
        "tolerance_pct",
    ] {
        assert!(listed.contains(name), "`{name}` not parsed from htsim list");
    }
    assert!(listed.len() > 60, "only {} names parsed", listed.len());

    let page = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/scenarios.md");
    let doc = std::fs::read_to_string(&page).expect("docs/scenarios.md exists");
    let gaps = missing(&listed, &doc);
    assert!(
        gaps.is_empty(),
        "docs/scenarios.md does not document these names `htsim list` prints: {gaps:?}"
    );
}

#[test]
fn a_name_missing_from_the_page_is_reported() {
    let listed = listed_names(
        "transports ([transports.<name>] kind = ...):\n  tcp  TCP NewReno\n      mss  = 1400B  a size\n      layers: host, tor\n  node names: host<i>\n  matrix  permutation (default) | many-to-one\n  size  \"70KB\" | { cdf = websearch | datamining }\n",
    );
    let expected: BTreeSet<String> = [
        "tcp",
        "mss",
        "host",
        "tor",
        "matrix",
        "permutation",
        "many-to-one",
        "size",
        "cdf",
        "websearch",
        "datamining",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    assert_eq!(listed, expected);
    let page = "`tcp` `mss` `host` `matrix` `permutation` `many-to-one` `size` `cdf` `websearch`";
    assert_eq!(missing(&listed, page), vec!["datamining", "tor"]);
    // A bare word is not enough: the name must be a code span.
    assert_eq!(
        missing(&listed, &format!("{page} `datamining` tor")),
        vec!["tor"]
    );
}
