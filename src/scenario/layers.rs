//! Where a scenario's layer names differ from a topology's own, which the outputs use
//! (summary.csv's `layer:` classes, links.csv's `layer`): VL2's intermediate switches are
//! `int` in the topology and `core` in a scenario, and BCube's switch levels `level<l>` are
//! together `switch` in a scenario. Every other layer has one name.

/// The scenario's name for `layer`, a node layer of a `kind` topology as the outputs name it.
pub fn scenario_layer<'a>(kind: &str, layer: &'a str) -> &'a str {
    match kind {
        "vl2" if layer == "int" => "core",
        "bcube" if is_level(layer) => "switch",
        _ => layer,
    }
}

/// Whether the scenario's `layer` of a `kind` topology names several of the topology's
/// layers at once (BCube's `switch`, every level).
pub fn names_several(kind: &str, layer: &str) -> bool {
    kind == "bcube" && layer == "switch"
}

/// The node layer of a `kind` topology that a scenario's `layer` names, where it is one
/// layer (VL2's `core` is `int`); else `layer` itself.
pub fn topology_layer<'a>(kind: &str, layer: &'a str) -> &'a str {
    match (kind, layer) {
        ("vl2", "core") => "int",
        _ => layer,
    }
}

/// Whether `layer` is a BCube switch level, `level<l>`.
fn is_level(layer: &str) -> bool {
    layer
        .strip_prefix("level")
        .is_some_and(|l| !l.is_empty() && l.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vl2_and_bcube_layers_have_their_scenario_names() {
        assert_eq!(scenario_layer("vl2", "int"), "core");
        assert_eq!(topology_layer("vl2", "core"), "int");
        assert_eq!(scenario_layer("bcube", "level2"), "switch");
        assert_eq!(scenario_layer("bcube", "level"), "level");
        assert_eq!(scenario_layer("bcube", "host"), "host");
        assert!(names_several("bcube", "switch") && !names_several("vl2", "core"));
        assert_eq!(scenario_layer("fattree", "int"), "int");
        assert_eq!(topology_layer("fattree", "core"), "core");
    }
}
