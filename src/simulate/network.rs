//! The network of a run: the topology with its per-layer cable overrides, the queue of every
//! egress port from `[queue]` and `[queue.layers.X]`, the routing mode, and `[[events]]`.
//!
//! Scenario layer names (`host | tor | agg | core`, per topology in `htsim list`) are mapped
//! to the topology's own names:
//! - `[topology.layers.X]` names a *cable* layer, named by its upper end as in
//!   [`htsim_topology::cabling`]: in a FatTree `host` and `tor` are the host–ToR cables, `agg`
//!   the ToR–aggregation cables, `core` the aggregation–core cables. In VL2 `core` is the
//!   aggregation–intermediate layer; in BCube `host` and `switch` are every cable; in the star,
//!   dumbbell and XMP networks `host` is the host cables and `bottleneck` the bottleneck.
//! - `[queue.layers.X]` names the *egress* layer (the transmitting node's layer): `host` is
//!   every host NIC, `core` every core switch port; `bottleneck` is the bottleneck link's
//!   queues (both directions).
//! - `[[events]] where.layer` names the layer of the switches whose egress links change. A
//!   name that is no node layer of the topology but a `[queue.layers.X]` name (BCube `switch`,
//!   whose switches are in layers `level<l>`; `bottleneck`, a cable layer) names the egress
//!   links whose queues `[queue.layers.X]` sets, and `switches` a share of the switches they
//!   leave from.

use htsim_core::link::LinkChange;
use htsim_core::queue::{Discipline, Queue};
use htsim_core::routing::RoutingMode as CoreRouting;
use htsim_core::units::{format_buffer, parse_share, BufferSize};
use htsim_core::world::World;
use htsim_topology::bcube::BCube;
use htsim_topology::cabling::{Cable, Cabling, QueueSite};
use htsim_topology::dhft::Dhft;
use htsim_topology::dumbbell::Dumbbell;
use htsim_topology::events::{self as link_events, draw_switches, LinkSelector};
use htsim_topology::fattree::FatTree;
use htsim_topology::file::FileTopology;
use htsim_topology::star::Star;
use htsim_topology::topology::Topology;
use htsim_topology::vl2::Vl2;
use htsim_topology::xmp::{XmpTorus, XmpTwoPath};

use super::setup_error::SetupError;
use crate::scenario::input::read_text;
use crate::scenario::layers::{scenario_layer, topology_layer};
use crate::scenario::{
    Event, EventChange, EventTarget, QueueKind, RoutingMode, Scenario, TopologyConfig,
};

/// Builds the scenario's topology into `world` (queues included) and sets the routing mode
/// (`shortest`: ECMP over each pair's minimum-hop paths); a
/// topology with more links than [`World::max_links`] is refused before anything is built.
/// [`schedule_events`] then schedules the link events.
pub fn build(world: &mut World, scenario: &Scenario) -> Result<Topology, SetupError> {
    world.set_routing_mode(match scenario.routing.mode {
        RoutingMode::Ecmp | RoutingMode::Shortest => CoreRouting::Ecmp,
        RoutingMode::Spray => CoreRouting::Spray,
        RoutingMode::Single => CoreRouting::Single,
        RoutingMode::First => CoreRouting::First,
    });
    let topo = &scenario.topology;
    let kind = topo.kind.as_str();
    let queue_config = &scenario.queue;
    let mut factory = |site: QueueSite<'_>| -> Queue {
        let layer = scenario_queue_layer(kind, site);
        let q = queue_config.for_layer(layer);
        let discipline = match (q.kind, q.mark_threshold) {
            (QueueKind::Ecn, Some(threshold)) => Discipline::Ecn { threshold },
            (QueueKind::Red, Some(threshold)) => Discipline::Red { threshold },
            _ => Discipline::DropTail,
        };
        Queue::new(q.capacity, discipline)
    };
    let cabling = cabling(topo)?;
    let failed = |e: htsim_topology::error::TopologyError| {
        use htsim_topology::error::TopologyError as E;
        match e {
            E::UnknownCableLayer { .. } => SetupError::new("topology.layers", e.to_string()),
            E::OverBudget {
                hosts,
                links,
                max_links,
                ..
            } => SetupError::new(
                "topology",
                format!(
                    "this {kind} topology has {hosts} hosts and {links} directed links, more \
                     than the {max_links} links a run's share of the memory holds"
                ),
            )
            .with_hint(super::resources::over_budget_hint(links, max_links)),
            _ => SetupError::new("topology", format!("building the {kind} topology: {e}")),
        }
    };
    let int = |key: &str| -> Result<u32, SetupError> {
        topo.params
            .int(key)
            .and_then(|v| u32::try_from(v).ok())
            .ok_or_else(|| SetupError::new(format!("topology.{key}"), "missing or out of range"))
    };
    match kind {
        "fattree" => FatTree {
            k: int("k")?,
            oversubscription: int("oversubscription")?,
        }
        .build(world, &cabling, &mut factory),
        "dhft" => Dhft { k: int("k")? }.build(world, &cabling, &mut factory),
        "vl2" => Vl2 {
            da: int("da")?,
            di: int("di")?,
            hosts_per_tor: int("hosts_per_tor")?,
        }
        .build(world, &cabling, &mut factory),
        "bcube" => BCube {
            n: int("n")?,
            k: int("k")?,
        }
        .build(world, &cabling, &mut factory),
        "star" => Star {
            hosts: int("hosts")?,
        }
        .build(world, &cabling, &mut factory),
        "dumbbell" => Dumbbell {
            pairs: int("hosts")?,
        }
        .build(world, &cabling, &mut factory),
        "xmp-torus" => XmpTorus { bottlenecks: 5 }.build(world, &cabling, &mut factory),
        "xmp-two-path" => XmpTwoPath {
            multipath_pairs: int("multipath_pairs")?,
            single_path_pairs: [int("path0_pairs")?, int("path1_pairs")?],
        }
        .build(world, &cabling, &mut factory),
        "file" => read_file_topology(scenario)?.build(world, &mut factory),
        other => {
            return Err(SetupError::unsupported(
                "topology.kind",
                format!("building a `{other}` topology"),
            ))
        }
    }
    .map_err(failed)
    .map(|mut topology| {
        if matches!(
            scenario.routing.mode,
            RoutingMode::Shortest | RoutingMode::First
        ) {
            topology.keep_shortest_paths(world);
        }
        topology
    })
}

/// The most packets of `packet` bytes the network of `world` holds at once, as it starts: on
/// every link, its queue's capacity, the packet in service and those on the cable (the link's
/// rate times its delay). A window larger than that loses the rest on arrival.
pub fn packets_held_at_most(world: &World, packet: u64) -> u64 {
    let packet = packet.max(1);
    world
        .links()
        .iter()
        .map(|link| {
            let queued = match link.queue.limit() {
                BufferSize::Packets(n) => n,
                BufferSize::Bytes(bytes) => bytes / packet,
            };
            let on_cable = link.rate().bytes_in(link.delay()) / packet;
            queued.saturating_add(on_cable).saturating_add(1)
        })
        .fold(0u64, u64::saturating_add)
}

/// Queues sized in bytes too small for one data packet of some flow class (`packet` bytes on
/// the wire, of class `class`): every such packet would be dropped on arrival, so the class
/// could never deliver a byte. Checked: `[queue]` and `[queue.layers.X]` capacities (the links
/// of a `file` topology: their buffers instead) and the capacities `[[events]]` set.
pub fn queues_too_small(
    scenario: &Scenario,
    world: &World,
    topology: &Topology,
    packet: u64,
    class: &str,
) -> Vec<SetupError> {
    let small = |b: &BufferSize| matches!(b, BufferSize::Bytes(n) if *n < packet);
    let problem = |key: String, what: String| {
        SetupError::new(
            key,
            format!(
                "{what} cannot hold one data packet of class \"{class}\" ({packet} B on the \
                 wire): every such packet would be dropped, so its flows could never deliver \
                 anything"
            ),
        )
        .with_hint(format!(
            "a capacity of at least {packet}B, or in packets (\"100pkt\")"
        ))
    };
    let mut problems = Vec::new();
    if scenario.topology.kind == "file" {
        let links: Vec<(String, BufferSize)> = topology
            .links()
            .iter()
            .map(|l| (topology.link_name(l), world.link(l.id).queue.limit()))
            .filter(|(_, limit)| small(limit))
            .collect();
        if let Some((first, limit)) = links.first() {
            let more = match links.len() {
                1 => String::new(),
                n => format!(" (and {} more links)", n - 1),
            };
            problems.push(problem(
                "topology.path".into(),
                format!(
                    "the buffer of link {first}{more} in the topology file, {},",
                    format_buffer(limit)
                ),
            ));
        }
    } else {
        let q = &scenario.queue;
        if small(&q.capacity) {
            let what = format!("a queue of {}", format_buffer(&q.capacity));
            problems.push(problem("queue.capacity".into(), what));
        }
        for (layer, settings) in &q.layers {
            if small(&settings.capacity) {
                let what = format!("a queue of {}", format_buffer(&settings.capacity));
                problems.push(problem(format!("queue.layers.{layer}.capacity"), what));
            }
        }
    }
    for (i, event) in scenario.events.iter().enumerate() {
        if let EventChange::Capacity(b) = &event.set {
            if small(b) {
                let what = format!("a queue of {}", format_buffer(b));
                problems.push(problem(format!("events[{i}].set.capacity"), what));
            }
        }
    }
    problems
}

/// The topology file of a `file` topology (`topology.path`, relative to the scenario), read
/// and parsed; errors name the file's line.
fn read_file_topology(scenario: &Scenario) -> Result<FileTopology, SetupError> {
    let rel = scenario.topology.params.text("path").unwrap_or_default();
    let path = scenario.base_dir.join(rel);
    let text = read_text(&path).map_err(|e| {
        SetupError::new(
            "topology.path",
            format!("cannot use the topology file {}: {e}", path.display()),
        )
    })?;
    FileTopology::parse(&text).map_err(|e| match e {
        htsim_topology::error::TopologyError::File { line, message } => {
            SetupError::new("topology.path", message).on_line(&path, line)
        }
        other => SetupError::new("topology.path", format!("{}: {other}", path.display())),
    })
}

/// The cabling of a topology: its default rate and delay, and `[topology.layers.X]` mapped to
/// the topology's cable layers.
fn cabling(topo: &TopologyConfig) -> Result<Cabling, SetupError> {
    let rate = topo.params.rate("link_rate");
    let delay = topo.params.duration("link_delay");
    let (Some(rate), Some(delay)) = (rate, delay) else {
        return Err(SetupError::new(
            "topology",
            "topology.link_rate and topology.link_delay must be set",
        ));
    };
    let mut cabling = Cabling::uniform(rate, delay);
    match topo.kind.as_str() {
        "vl2" => {
            // Fabric links at switch_rate, host links at link_rate.
            let switch = topo.params.rate("switch_rate").unwrap_or(rate);
            cabling = Cabling::uniform(switch, delay).with_layer("tor", rate, delay);
        }
        "dumbbell" => {
            let neck = topo.params.rate("bottleneck_rate").unwrap_or(rate);
            cabling = cabling.with_layer("bottleneck", neck, delay);
        }
        "file" if !topo.layers.is_empty() => {
            return Err(SetupError::unsupported(
                "topology.layers",
                "[topology.layers] with a file topology: rates and delays come from the file",
            ))
        }
        _ => {}
    }
    for (layer, o) in &topo.layers {
        for cable in cable_layers(topo, layer) {
            let base = cabling.cable(&cable);
            let c = Cable {
                rate: o.link_rate.unwrap_or(base.rate),
                delay: o.link_delay.unwrap_or(base.delay),
            };
            cabling = cabling.with_layer(&cable, c.rate, c.delay);
        }
    }
    Ok(cabling)
}

/// The topology's cable layers a scenario layer name stands for (module doc).
fn cable_layers(topo: &TopologyConfig, layer: &str) -> Vec<String> {
    let one = |s: &str| vec![s.to_string()];
    match (topo.kind.as_str(), layer) {
        ("fattree" | "dhft" | "vl2", "host") => one("tor"),
        ("vl2", "core") => one("int"),
        ("bcube", _) => {
            let k = topo.params.int("k").unwrap_or(0).max(0);
            (0..=k).map(|l| format!("level{l}")).collect()
        }
        ("star" | "dumbbell" | "xmp-two-path" | "xmp-torus", "host") => one("switch"),
        _ => one(layer),
    }
}

/// The scenario's `[queue.layers.X]` name of an egress port (module doc).
pub(crate) fn scenario_queue_layer<'a>(kind: &str, site: QueueSite<'a>) -> &'a str {
    match kind {
        "dumbbell" | "xmp-two-path" | "xmp-torus" | "star" => {
            if site.cable == "bottleneck" {
                "bottleneck"
            } else if site.layer == "host" {
                "host"
            } else {
                "switch"
            }
        }
        _ => scenario_layer(kind, site.layer),
    }
}

/// Schedules `[[events]]` in file order on `topology`; random switch choices come from the
/// `events` stream. Returns the problem of every event that cannot be scheduled.
pub fn schedule_events(
    world: &mut World,
    scenario: &Scenario,
    topology: &Topology,
) -> Vec<SetupError> {
    let mut rng = world.streams().stream("events");
    let mut problems = Vec::new();
    for (i, event) in scenario.events.iter().enumerate() {
        if let Err(e) = schedule_event(world, &mut rng, scenario, topology, i, event) {
            problems.push(e);
        }
    }
    problems
}

/// The most directed links `[output] crossings` may watch: each costs a map update per data
/// packet and up to a row per flow that crosses it.
pub const MAX_WATCHED_LINKS: usize = 64;

/// The links `[output] crossings` names (none when it is absent), sorted, without duplicates.
pub fn watched_links(
    world: &World,
    scenario: &Scenario,
    topology: &Topology,
) -> Result<Vec<htsim_core::ids::LinkId>, SetupError> {
    let names = &scenario.output.crossings;
    if names.is_empty() {
        return Ok(Vec::new());
    }
    // Names draw nothing at random; the stream is only the selector's argument.
    let mut rng = world.streams().stream("output.crossings");
    let links = LinkSelector::Names(names.clone())
        .resolve(topology, &mut rng)
        .map_err(|e| SetupError::new("output.crossings", e.to_string()))?;
    if links.len() > MAX_WATCHED_LINKS {
        return Err(SetupError::new(
            "output.crossings",
            format!(
                "these names select {} directed links; at most {MAX_WATCHED_LINKS} can be \
                 watched",
                links.len()
            ),
        )
        .with_hint(
            "name single links (\"core0->agg0.0\", or \"core0<->agg0.0\" for both \
             directions) rather than whole switches",
        ));
    }
    Ok(links)
}

/// Schedules event `i` of the scenario.
fn schedule_event(
    world: &mut World,
    rng: &mut htsim_core::rng::SimRng,
    scenario: &Scenario,
    topology: &Topology,
    i: usize,
    event: &Event,
) -> Result<(), SetupError> {
    let selector = match &event.target {
        EventTarget::Layer { layer, switches } => {
            let share = switches
                .as_deref()
                .map(parse_share)
                .transpose()
                .map_err(|e| {
                    SetupError::new(format!("events[{i}].where.switches"), e.to_string())
                })?;
            let kind = scenario.topology.kind.as_str();
            let node_layer = topology_layer(kind, layer);
            let has_nodes = topology
                .layer_id(node_layer)
                .is_ok_and(|id| topology.nodes().iter().any(|n| n.layer == id));
            let queue_links = (!has_nodes)
                .then(|| queue_layer_links(world, topology, kind, layer, share, rng))
                .flatten();
            match queue_links {
                Some(Ok(links)) => LinkSelector::Ids(links),
                Some(Err(e)) => {
                    return Err(SetupError::new(format!("events[{i}].where.switches"), e))
                }
                None => LinkSelector::Layer {
                    layer: node_layer.to_string(),
                    switches: share,
                },
            }
        }
        EventTarget::Links(names) => LinkSelector::Names(link_names(topology, names)),
    };
    let links = selector.resolve(topology, rng).map_err(|e| {
        let key = match &event.target {
            EventTarget::Layer { .. } => "layer",
            EventTarget::Links(_) => "link",
        };
        SetupError::new(format!("events[{i}].where.{key}"), e.to_string())
    })?;
    let change = match &event.set {
        EventChange::Capacity(b) => LinkChange::Limit(*b),
        EventChange::Rate(r) => LinkChange::Rate(*r),
        EventChange::Down => LinkChange::Down,
        EventChange::Up => LinkChange::Up,
    };
    link_events::schedule(world, &links, event.at, change);
    Ok(())
}

/// The egress links whose `[queue.layers.X]` name is `layer`, or, with `share`, those of
/// `floor(count x share)` of the switches they leave from, drawn as for a node layer
/// ([`LinkSelector::Layer`]); `None` when no link has that name, an error for a share outside
/// 0 to 1.
fn queue_layer_links(
    world: &World,
    topology: &Topology,
    kind: &str,
    layer: &str,
    share: Option<f64>,
    rng: &mut htsim_core::rng::SimRng,
) -> Option<Result<Vec<htsim_core::ids::LinkId>, String>> {
    let named: Vec<_> = topology
        .links()
        .iter()
        .filter(|l| {
            let site = QueueSite {
                layer: topology.layer_name(l.layer),
                cable: topology.layer_name(l.cable),
                rate: world.link(l.id).rate(),
            };
            scenario_queue_layer(kind, site) == layer
        })
        .collect();
    if named.is_empty() {
        return None;
    }
    let Some(share) = share else {
        return Some(Ok(named.iter().map(|l| l.id).collect()));
    };
    let mut nodes: Vec<_> = named.iter().map(|l| l.from).collect();
    nodes.sort_unstable();
    nodes.dedup();
    let nodes = match draw_switches(topology, nodes, share, rng) {
        Ok(nodes) => nodes,
        Err(e) => return Some(Err(e.to_string())),
    };
    Some(Ok(named
        .iter()
        .filter(|l| nodes.contains(&l.from))
        .map(|l| l.id)
        .collect()))
}

/// `link = ["core3", "agg1.0"]`: two plain node names joined by a link are that link
/// (`core3->agg1.0`); otherwise each entry is a link name (`a->b`, `a<->b`) or a node (its
/// egress links).
fn link_names(topology: &Topology, names: &[String]) -> Vec<String> {
    if let [a, b] = names {
        let plain = |s: &str| !s.contains("->");
        if plain(a) && plain(b) {
            if let (Ok(x), Ok(y)) = (topology.node_by_name(a), topology.node_by_name(b)) {
                if topology.links_between(x, y).next().is_some() {
                    return vec![format!("{a}->{b}")];
                }
            }
        }
    }
    names.to_vec()
}
