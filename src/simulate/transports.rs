//! A scenario transport (`[transports.<name>]` or inline) as a configured [`Transport`]: the
//! kind's [`TransportKind`](htsim_transport::TransportKind) in `htsim-transport` turns the
//! resolved parameters into the transport (each transport module documents its keys);
//! [`reach`] gives connections what the topology says about their destination, and
//! [`check_pairs`] checks before a run that the transport can connect the pairs known then.

use std::cell::Cell;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use htsim_core::ids::HostId;
use htsim_topology::topology::{Locality as TopoLocality, Topology};
use htsim_transport::{transport_kind, transport_names, Locality, Reach, TcpConfig, Transport};
use htsim_workload::Connection;

use super::setup_error::SetupError;
use crate::scenario::TransportConfig;

/// A configured transport and what flows.csv and the ideal FCT need to know about it.
#[derive(Clone)]
pub struct Configured {
    /// The transport.
    pub transport: Arc<dyn Transport>,
    /// Its kind (`tcp`, `dctcp`): the flows.csv `transport` column.
    pub kind: String,
    /// Its TCP parameters (segment and packet sizes for the ideal FCT).
    pub tcp: TcpConfig,
}

/// The transport `config` describes.
pub fn configure(config: &TransportConfig) -> Result<Configured, SetupError> {
    let kind = config.kind.as_str();
    let Some(registered) = transport_kind(kind) else {
        return Err(SetupError::unsupported(
            "kind",
            format!(
                "transport `{kind}` is not implemented yet (available: {})",
                transport_names().join(", ")
            ),
        ));
    };
    let built =
        (registered.configure)(&config.params).map_err(|e| SetupError::new(e.key, e.message))?;
    Ok(Configured {
        transport: built.transport,
        kind: kind.to_string(),
        tcp: built.tcp,
    })
}

/// The [`Reach`] of `dst` from `src`: locality and equal-cost path count from the topology
/// (docs/model.md 6.5; the ECMP fan-out cap is not applied: every path is hashed over).
pub fn reach(topology: &Topology, src: u32, dst: u32) -> Reach {
    let (s, d) = (HostId(src), HostId(dst));
    let locality = match topology.locality(s, d) {
        TopoLocality::SameHost => Locality::SameHost,
        TopoLocality::SameTor => Locality::SameTor,
        TopoLocality::SamePod => Locality::SamePod,
        TopoLocality::OtherPod => Locality::OtherPod,
    };
    Reach {
        locality,
        paths: topology.path_count(s, d),
    }
}

/// The host pairs a flow class may connect, as far as is known before the run.
#[derive(Clone, Copy, Debug)]
pub enum ClassPairs<'a> {
    /// The class's pairs, drawn before the run.
    Known(&'a [Connection]),
    /// Pairs drawn during the run (jobs, later rounds): any two of `hosts` (all hosts when
    /// `None`), two hosts under one ToR only if `rack_local`.
    Drawn {
        /// The hosts the class draws from.
        hosts: Option<&'a [u64]>,
        /// Whether a pair may share a ToR.
        rack_local: bool,
    },
}

/// Checks that `configured` can connect every pair of `pairs` on `topology` (pinned subflow
/// paths must exist, docs/model.md 4.1); the error of the first pair it cannot, at the
/// transport's key (`paths`), naming class `class` and the hosts. Pairs are only enumerated
/// when the transport asks for them ([`Transport::check_reaches`]), and then one per two
/// [`Topology::path_classes`], destination by destination: a FatTree's racks^2 pairs, a star's
/// one (checking all n^2 pairs of a star of 3000 hosts, each a breadth-first search, hung).
pub fn check_pairs(
    configured: &Configured,
    pairs: ClassPairs<'_>,
    topology: &Topology,
    class: &str,
) -> Result<(), SetupError> {
    let last = Cell::new((0u32, 0u32));
    let mut reaches = representatives(pairs, topology).map(|(s, d)| {
        last.set((s, d));
        reach(topology, s, d)
    });
    configured
        .transport
        .check_reaches(&mut reaches)
        .map_err(|e| {
            let (src, dst) = last.get();
            let what = match pairs {
                ClassPairs::Known(_) => "has a flow",
                ClassPairs::Drawn { .. } => "may draw a flow during the run",
            };
            SetupError::new(
                e.key,
                format!("class `{class}` {what} from host{src} to host{dst}: {e}"),
            )
            .with_hint(
                "a pinned path index must exist for every pair the class may connect (a class \
                 that draws its pairs during the run is checked against every pair of its \
                 hosts); on a FatTree two hosts under one ToR have 1 path, two in one pod k/2, \
                 others (k/2)^2 (docs/model.md 4.1)",
            )
        })
}

/// Checks that `topology` has a path each way between every pair of `pairs`: a flow between
/// hosts it does not connect cannot open, whatever the transport (the run would stop there).
/// One pair per two [`Topology::path_classes`] is looked at, as [`check_pairs`] does; the error,
/// at no key (the caller gives the class's), names class `class` and the first pair without.
/// Worth calling only where [`Topology::connects_every_host_pair`] does not hold.
pub fn check_connected(
    pairs: ClassPairs<'_>,
    topology: &Topology,
    class: &str,
) -> Result<(), SetupError> {
    let unconnected = representatives(pairs, topology).find(|&(s, d)| {
        topology.path_count(HostId(s), HostId(d)) == 0
            || topology.path_count(HostId(d), HostId(s)) == 0
    });
    let Some((src, dst)) = unconnected else {
        return Ok(());
    };
    let what = match pairs {
        ClassPairs::Known(_) => "has a flow",
        ClassPairs::Drawn { .. } => "may draw a flow during the run",
    };
    Err(SetupError::new(
        "",
        format!(
            "class `{class}` {what} from host{src} to host{dst}, and the topology has no path \
             between them"
        ),
    )
    .with_hint(
        "choose pairs the topology connects (a matrix over the class's `hosts`, or `pairs`): \
         on `xmp-two-path` and `xmp-torus` a host reaches only the hosts cabled to a switch \
         of its bottlenecks (on `xmp-two-path`, hosts on path 0 only do not reach those on \
         path 1 only)",
    ))
}

/// The first host of a path class and, if it has one, a second.
type ClassHosts = (u32, Option<u32>);

/// Up to two of `hosts` of each path class (`classes`, by host), classes in order of first
/// appearance.
fn class_hosts(hosts: &[u32], classes: &[u32]) -> Vec<ClassHosts> {
    let mut at: HashMap<u32, usize> = HashMap::new();
    let mut drawn: Vec<ClassHosts> = Vec::new();
    for &h in hosts {
        match at.get(&classes[h as usize]) {
            Some(&i) => {
                drawn[i].1.get_or_insert(h);
            }
            None => {
                at.insert(classes[h as usize], drawn.len());
                drawn.push((h, None));
            }
        }
    }
    drawn
}

/// Whether each host is a path class of its own (`classes` numbers them from 0 in order of
/// first appearance).
fn class_per_host(classes: &[u32]) -> bool {
    classes.iter().max().map_or(0, |&c| c as usize + 1) == classes.len()
}

/// One (source, destination) pair of `pairs` per pair of path classes, grouped by
/// destination (on a BCube with shortest paths, one per path count and locality); computed
/// when first asked for.
fn representatives<'a>(
    pairs: ClassPairs<'a>,
    topology: &'a Topology,
) -> impl Iterator<Item = (u32, u32)> + 'a {
    std::iter::once(()).flat_map(move |()| {
        let classes = topology.path_classes();
        let n = classes.len() as u64;
        let mut seen = HashSet::new();
        let (known, drawn): (Vec<(u32, u32)>, Vec<ClassHosts>) = match pairs {
            ClassPairs::Known(list) if class_per_host(&classes) => {
                // Every pair of classes is a pair of hosts (a BCube with shortest paths): a set
                // of them would hold up to every pair of the list (28 B each, beside the 16 B of
                // the pair). The check depends on a pair's reach only, so of each reach the pair
                // it would meet first in the order below (by destination, then in list order)
                // is enough: it fails at the same pair.
                let mut first: HashMap<Reach, (u32, usize, u32)> = HashMap::new();
                for (i, c) in list.iter().enumerate() {
                    let (s, d) = (c.src as u32, c.dst as u32);
                    let at = first.entry(reach(topology, s, d)).or_insert((d, i, s));
                    if d < at.0 {
                        *at = (d, i, s);
                    }
                }
                let mut known: Vec<(u32, usize, u32)> = first.into_values().collect();
                known.sort_unstable();
                let known = known.into_iter().map(|(d, _, s)| (s, d)).collect();
                (known, Vec::new())
            }
            ClassPairs::Known(list) => {
                let mut known: Vec<(u32, u32)> = list
                    .iter()
                    .map(|c| (c.src as u32, c.dst as u32))
                    .filter(|&(s, d)| seen.insert((classes[s as usize], classes[d as usize])))
                    .collect();
                known.sort_by_key(|&(_, d)| d);
                (known, Vec::new())
            }
            ClassPairs::Drawn { hosts, rack_local } => {
                // Hosts beyond the topology are reported by the class's matrix.
                let all: Box<dyn Iterator<Item = u64>> = match hosts {
                    Some(h) => Box::new(h.iter().copied().filter(|&h| h < n)),
                    None => Box::new(0..n),
                };
                let all: Vec<u32> = all.map(|h| h as u32).collect();
                match topology.first_pair_per_reach(&all, rack_local) {
                    // A class per host: one pair per path count and locality instead.
                    Some(pairs) => (pairs, Vec::new()),
                    None => (Vec::new(), class_hosts(&all, &classes)),
                }
            }
        };
        let rack_local = match pairs {
            ClassPairs::Known(_) => true,
            ClassPairs::Drawn { rack_local, .. } => rack_local,
        };
        let m = drawn.len();
        let by_destination = (0..m * m).filter_map(move |x| {
            let (j, i) = (x / m, x % m);
            let (d, _) = drawn[j];
            match drawn[i] {
                (_, second) if i == j => second.map(|s| (s, d)),
                (s, _) => Some((s, d)),
            }
        });
        known
            .into_iter()
            .chain(by_destination)
            .filter(move |&(s, d)| {
                rack_local || topology.locality(HostId(s), HostId(d)) != TopoLocality::SameTor
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pair a check would fail at: the first of `pairs` in the check's order whose reach
    /// fails `ok`.
    fn first_failing(
        pairs: impl Iterator<Item = (u32, u32)>,
        topology: &Topology,
        ok: impl Fn(Reach) -> bool,
    ) -> Option<(u32, u32)> {
        pairs.into_iter().find(|&(s, d)| !ok(reach(topology, s, d)))
    }

    #[test]
    fn known_pairs_of_a_class_per_host_fail_at_the_pair_every_pair_would() {
        let text = r#"
[run]
duration = "1ms"
[topology]
kind = "bcube"
n = 4
k = 2
link_rate = "1Gbps"
[routing]
mode = "shortest"
[[flows]]
name = "n"
size = "1KB"
transport = { kind = "tcp" }
"#;
        let loaded = crate::scenario::load_str(
            "b.toml",
            text,
            std::path::Path::new("."),
            &crate::scenario::LoadOptions::default(),
        )
        .unwrap();
        let mut world = htsim_core::world::World::new(1);
        let topology =
            super::super::network::build(&mut world, &loaded.points[0].scenario).unwrap();
        let classes = topology.path_classes();
        assert!(class_per_host(&classes));
        let n = classes.len() as u32;
        // Every ordered pair, in a scrambled order, some twice.
        let mut list: Vec<Connection> = (0..n * n)
            .map(|x| (x * 37 + 11) % (n * n))
            .map(|x| (x / n, x % n))
            .chain([(5, 1), (1, 5)])
            .filter(|&(s, d)| s != d)
            .map(|(s, d)| Connection {
                src: s as usize,
                dst: d as usize,
            })
            .collect();
        list.rotate_left(7);
        // Every pair by destination, then in list order: what a set of pairs per class gave.
        let mut all: Vec<(u32, u32)> = list.iter().map(|c| (c.src as u32, c.dst as u32)).collect();
        all.sort_by_key(|&(_, d)| d);
        let checks: [Box<dyn Fn(Reach) -> bool>; 4] = [
            Box::new(|r| r.paths >= 2),
            Box::new(|r| r.paths >= 3),
            Box::new(|r| r.locality != Locality::SameTor),
            Box::new(|_| true),
        ];
        for ok in &checks {
            let got = first_failing(
                representatives(ClassPairs::Known(&list), &topology),
                &topology,
                ok,
            );
            let want = first_failing(all.iter().copied(), &topology, ok);
            assert_eq!(got, want);
        }
        // One pair per reach.
        let reps: Vec<(u32, u32)> = representatives(ClassPairs::Known(&list), &topology).collect();
        let reaches: HashSet<Reach> = reps.iter().map(|&(s, d)| reach(&topology, s, d)).collect();
        assert_eq!(reps.len(), reaches.len());
        assert!(reps.len() >= 3, "{reps:?}");
    }
}
