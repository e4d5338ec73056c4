//! `[routing]`: path selection.

use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::schema::*;
use crate::scenario::tree::Node;

pub(super) fn routing(cx: &Cx, node: &Node) -> Result<RoutingConfig> {
    let t = Tab::open(cx, node, "routing", &["mode"])?;
    let mode = match t
        .choice(
            "mode",
            &["ecmp", "spray", "single", "shortest"],
            Some("ecmp"),
        )?
        .as_str()
    {
        "spray" => RoutingMode::Spray,
        "single" => RoutingMode::Single,
        "shortest" => RoutingMode::Shortest,
        _ => RoutingMode::Ecmp,
    };
    Ok(RoutingConfig { mode })
}
