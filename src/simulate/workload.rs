//! The flow classes of a run, resolved against its topology: each class's connections, size
//! distribution, arrival process and transport.
//!
//! Random choices come from the run's workload streams only, never from a transport's, so
//! transports compared on one seed see the same workload:
//! - `workload.matrix`: every traffic matrix, built once per run, in the order classes first use
//!   it (classes with the same recipe, `hosts` and `draws` share one matrix); a class with
//!   `draws = k` takes its connections from k draws of its matrix, made one after the other;
//! - `workload.senders`: which of a matrix's connections each class takes (`senders`), in file
//!   order; a class takes its connections out of the matrix's pool, so `"rest"` is what earlier
//!   classes on the same matrix left (docs/model.md 9.3: long flows take `floor(|CM| x 33%)`
//!   connections, short flows the rest).
//!
//! - `substream("workload.rounds.<class>", r)`: round r of a class with matrix rounds, its
//!   matrix and then its connections (`senders`); such a class shares its matrices with no
//!   other class. Round 0 is drawn here, the later ones by [`super::generator`].
//!
//! A class's `hosts` restrict its matrix to those hosts: the matrix is drawn over them as if they
//! were the whole network (their racks and pods kept), and its host indices mapped back.
//!
//! The per-flow draws (sizes, arrival gaps, which pool connection, a closed-loop flow's new
//! destination) and the hosts of each partition/aggregate job are in [`super::generator`]; a job
//! class (`jobs = { ... }`) has no matrix and takes no connection here.

use std::path::Path;

use htsim_core::rng::{RngStreams, SimRng};
use htsim_core::units::parse_share;
use htsim_topology::hops::HopPairs;
use htsim_topology::topology::Topology;
use htsim_workload::matrix::{self, LocalityBase};
use htsim_workload::{
    parse_pairs, split_connections, Connection, EmpiricalCdf, HostLayout, NewDestinations,
    PartitionAggregate, RandomLimits, SizeDist, TrafficMatrix,
};

use super::resources::{Budget, MEMORY_LIMIT_ENV};
use super::setup_error::SetupError;
use super::transports::{check_connected, check_pairs, configure, ClassPairs, Configured};
use crate::scenario::input::read_text;
use crate::scenario::{
    Arrivals, FlowClass, JobsConfig, MatrixKind, PairsSpec, RandomSources, Scenario, Senders,
    SizeSpec, TransportRef,
};

/// One flow class ready to generate flows.
#[derive(Clone)]
pub struct ClassPlan {
    /// The class's name.
    pub name: String,
    /// Its connections (source and destination host indices); none for a job class.
    pub pool: Vec<Connection>,
    /// Flow sizes (a job class: unused, its jobs give the sizes).
    pub size: SizeDist,
    /// How flows arrive; `None` = one flow per connection at `start`.
    pub arrivals: Option<Arrivals>,
    /// When the class starts.
    pub start: htsim_core::SimTime,
    /// Its transport.
    pub transport: Configured,
    /// Partition/aggregate jobs instead of pool connections.
    pub jobs: Option<JobPlan>,
    /// Matrix rounds (`arrivals = { matrix_rounds = true }`): how each round's connections are
    /// drawn; `pool` holds round 0's.
    pub rounds: Option<RoundsPlan>,
    /// Closed loop with `new_destination`: how each new flow's destination is drawn (the first
    /// flow of each connection goes to the matrix's destination).
    pub new_destinations: Option<NewDestinations>,
}

/// The rounds of a class with `arrivals = { matrix_rounds = true }`.
#[derive(Clone, Debug)]
pub struct RoundsPlan {
    /// Draws each round's matrix.
    matrix: MatrixSource,
    /// Independent draws of the matrix per round (`draws`).
    draws: usize,
    /// Which of its connections the class takes.
    senders: htsim_workload::Senders,
}

impl RoundsPlan {
    /// The connections of round `round` of class `class`, from its own stream.
    pub fn connections(
        &self,
        streams: &RngStreams,
        class: &str,
        round: u64,
    ) -> Result<Vec<Connection>, String> {
        self.round(streams, class, round).map(|(_, taken)| taken)
    }

    /// [`RoundsPlan::connections`], with the size of the round's matrix they were taken from.
    fn round(
        &self,
        streams: &RngStreams,
        class: &str,
        round: u64,
    ) -> Result<(usize, Vec<Connection>), String> {
        let mut rng = streams.substream(&format!("workload.rounds.{class}"), round);
        let mut pool = self.matrix.draw_times(&mut rng, self.draws)?;
        let len = pool.len();
        let taken = split_connections(&mut rng, &self.senders, len, &mut pool)
            .map_err(|e| e.to_string())?;
        Ok((len, taken))
    }
}

/// The jobs of a partition/aggregate class: their shape and the hosts they are drawn from.
#[derive(Clone, Debug)]
pub struct JobPlan {
    /// Servers, sizes, concurrency and rack rule.
    pub shape: PartitionAggregate,
    /// Every host of the topology, with its rack.
    pub layout: HostLayout,
}

impl JobPlan {
    /// The plan of `jobs` on `layout`; an error naming the key (within `jobs`) when no job can
    /// be drawn (more servers than hosts, or, with `rack_local = false`, than hosts outside
    /// some rack).
    fn new(jobs: &JobsConfig, layout: &HostLayout) -> Result<JobPlan, SetupError> {
        let count = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        let shape = PartitionAggregate {
            servers: count(jobs.servers),
            request_bytes: jobs.request_bytes,
            response_bytes: jobs.response_bytes,
            concurrent: count(jobs.concurrent),
            rack_local: jobs.rack_local,
        };
        let hosts = layout.num_hosts();
        if shape.servers >= hosts {
            return Err(SetupError::new(
                "servers",
                format!(
                    "a job of 1 client and {} servers needs {} hosts, and the topology has \
                     {hosts}",
                    shape.servers,
                    shape.servers.saturating_add(1)
                ),
            )
            .with_hint(format!(
                "use servers = {} or fewer",
                hosts.saturating_sub(1)
            )));
        }
        if !shape.rack_local {
            let largest = (0..layout.num_racks())
                .map(|r| layout.hosts_in_rack(r).len())
                .max()
                .unwrap_or(0);
            if hosts - largest < shape.servers {
                return Err(SetupError::new(
                    "rack_local",
                    format!(
                        "with rack_local = false a client in a rack of {largest} hosts has \
                         only {} hosts outside it for {} servers",
                        hosts - largest,
                        shape.servers
                    ),
                )
                .with_hint(match hosts - largest {
                    0 => "use rack_local = true: every host is in one rack".to_string(),
                    outside => format!("use rack_local = true, or servers = {outside} or fewer"),
                }));
            }
        }
        Ok(JobPlan {
            shape,
            layout: layout.clone(),
        })
    }
}

/// Resolves every flow class of `scenario` on `topology`, drawing from `streams`, with the
/// classes' traffic matrices within `budget` (checked before each is drawn); the problem of
/// every class that cannot be resolved.
pub fn plan(
    scenario: &Scenario,
    topology: &Topology,
    streams: htsim_core::rng::RngStreams,
    budget: Option<&Budget>,
) -> Result<Vec<ClassPlan>, Vec<SetupError>> {
    let hosts = topology.hosts();
    let layout = HostLayout::from_vectors(
        hosts.iter().map(|h| h.rack as usize).collect(),
        hosts.iter().map(|h| h.pod as usize).collect(),
    )
    .map_err(|e| vec![SetupError::new("topology", format!("host layout: {e}"))])?;
    let mut matrix_rng = streams.stream("workload.matrix");
    let mut senders_rng = streams.stream("workload.senders");
    // (recipe and hosts, full length, pool left) per distinct matrix, in order of first use.
    let mut matrices: Vec<(MatrixKey, usize, Vec<Connection>)> = Vec::new();
    // Most topologies connect every pair of hosts; on the others each class's pairs are checked.
    let connected = topology.connects_every_host_pair();
    let mut pool_memory = PoolMemory {
        budget,
        held: 0,
        links: topology.links().len() as u64,
        duration: scenario.run.duration,
    };
    let mut out = Vec::with_capacity(scenario.flows.len());
    let mut problems = Vec::new();
    for class in &scenario.flows {
        // A class that cannot be planned is reported and skipped, so every class is checked.
        let planned = (|| -> Result<ClassPlan, SetupError> {
            let key = format!("flows.{}", class.name);
            let fail = |e: SetupError| e.within(&key);
            let (transport_config, transport_key) = match &class.transport {
                TransportRef::Named(n) => (
                    scenario.transport(n).cloned().ok_or_else(|| {
                        SetupError::new(
                            format!("{key}.transport"),
                            format!("no transport named `{n}`"),
                        )
                    })?,
                    format!("transports.{n}"),
                ),
                TransportRef::Inline(t) => (t.clone(), format!("{key}.transport")),
            };
            let transport = configure(&transport_config).map_err(|e| e.within(&transport_key))?;
            // Pairs the topology does not connect are an error at `at`, within the class, and
            // pairs the transport cannot connect one at its key.
            let check = |pairs: ClassPairs<'_>, at: &str| {
                if !connected {
                    check_connected(pairs, topology, &class.name)
                        .map_err(|e| fail(e.within(at)))?;
                }
                check_pairs(&transport, pairs, topology, &class.name)
                    .map_err(|e| e.within(&transport_key))
            };
            if let Some(jobs) = &class.jobs {
                check(
                    ClassPairs::Drawn {
                        hosts: None,
                        rack_local: jobs.rack_local,
                    },
                    "jobs",
                )?;
                return Ok(ClassPlan {
                    name: class.name.clone(),
                    pool: Vec::new(),
                    size: SizeDist::Fixed(jobs.request_bytes),
                    arrivals: None,
                    start: class.start,
                    transport,
                    jobs: Some(JobPlan::new(jobs, &layout).map_err(|e| fail(e.within("jobs")))?),
                    rounds: None,
                    new_destinations: None,
                });
            }
            let senders = match &class.senders {
                Senders::Share { fraction, .. } => htsim_workload::Senders::Share(*fraction),
                Senders::Count(n) => htsim_workload::Senders::Count(*n as usize),
                Senders::All => htsim_workload::Senders::All,
                Senders::Rest => htsim_workload::Senders::Rest,
            };
            let matrix_key = MatrixKey::of(class);
            // The class a matrix is resolved for, when it is the first to use it.
            let opener = Opener {
                name: &class.name,
                senders: &senders,
                arrivals: class.arrivals.as_ref(),
            };
            let new_destinations = match class.arrivals {
                Some(Arrivals::ClosedLoop {
                    new_destination: true,
                }) => Some(new_destinations(&matrix_key, &layout)),
                _ => None,
            };
            if new_destinations.is_some() {
                // Each new flow draws its destination as the run goes.
                let excluded =
                    matches!(&matrix_key.recipe, Recipe::Random(l, _) if l.exclude_rack_local);
                check(
                    ClassPairs::Drawn {
                        hosts: matrix_key.hosts.as_deref(),
                        rack_local: !excluded,
                    },
                    "arrivals",
                )?;
            }
            let (pool, rounds) = if class.arrivals == Some(Arrivals::MatrixRounds) {
                // Later rounds draw their pairs as the run goes.
                check(
                    ClassPairs::Drawn {
                        hosts: matrix_key.hosts.as_deref(),
                        rack_local: true,
                    },
                    "arrivals",
                )?;
                let rounds = RoundsPlan {
                    matrix: MatrixSource::new(
                        &matrix_key,
                        topology,
                        &layout,
                        &scenario.base_dir,
                        &mut pool_memory,
                        true,
                        &opener,
                    )
                    .map_err(fail)?,
                    draws: matrix_key.draws,
                    senders,
                };
                let (len, pool) = rounds
                    .round(&streams, &class.name, 0)
                    .map_err(|e| fail(SetupError::new("matrix", e)))?;
                check_share_takes_some(&class.senders, len, pool.len()).map_err(fail)?;
                (pool, Some(rounds))
            } else {
                let idx = match matrices.iter().position(|(k, _, _)| *k == matrix_key) {
                    Some(i) => i,
                    None => {
                        let conns = MatrixSource::new(
                            &matrix_key,
                            topology,
                            &layout,
                            &scenario.base_dir,
                            &mut pool_memory,
                            false,
                            &opener,
                        )
                        .map_err(fail)?
                        .into_draws(&mut matrix_rng, matrix_key.draws)
                        .map_err(|e| fail(SetupError::new("matrix", e)))?;
                        matrices.push((matrix_key, conns.len(), conns));
                        matrices.len() - 1
                    }
                };
                let (_, len, pool) = &mut matrices[idx];
                let taken = split_connections(&mut senders_rng, &senders, *len, pool)
                    .map_err(|e| fail(SetupError::new("senders", e.to_string())))?;
                check_share_takes_some(&class.senders, *len, taken.len()).map_err(fail)?;
                (taken, None)
            };
            check(ClassPairs::Known(&pool), "matrix")?;
            Ok(ClassPlan {
                name: class.name.clone(),
                pool,
                size: size_dist(scenario, &class.size).map_err(fail)?,
                arrivals: class.arrivals.clone(),
                start: class.start,
                transport,
                jobs: None,
                rounds,
                new_destinations,
            })
        })();
        match planned {
            Ok(p) => out.push(p),
            Err(e) => problems.push(e),
        }
    }
    if !problems.is_empty() {
        return Err(problems);
    }
    Ok(out)
}

/// A `senders` share is rounded down (docs/model.md 9.3): one too small for a single one of the
/// `total` connections of the class's matrix would leave the class without any flow, which is
/// an error at `senders` (with the smallest share that takes one) rather than a class that
/// silently sends nothing. `taken` is how many the share took.
fn check_share_takes_some(senders: &Senders, total: usize, taken: usize) -> Result<(), SetupError> {
    let Senders::Share { text, .. } = senders else {
        return Ok(());
    };
    if taken > 0 || total == 0 {
        return Ok(());
    }
    // The smallest share, in hundredths of a percent rounded up, whose floor is one connection.
    let least = (10_000u64.div_ceil(total as u64)) as f64 / 100.0;
    Err(SetupError::new(
        "senders",
        format!(
            "{text} of the {total} connections of the class's matrix rounds down to none: \
             the class would open no flow"
        ),
    )
    .with_hint(format!(
        "ask for at least {least}% or a count such as `senders = 1`, or remove the class"
    )))
}

/// What defines a traffic matrix.
#[derive(Clone, Debug, PartialEq)]
enum Recipe {
    Permutation,
    Stride(Option<u64>),
    Random(RandomLimits, htsim_workload::RandomSources),
    Incast(u64),
    ManyToOne,
    Locality(String),
    Pairs(PairsSpec),
    Neighbours(u64),
}

/// A recipe, the hosts it is drawn over (absent: all) and the number of draws; classes with
/// equal keys share one matrix.
#[derive(Clone, Debug, PartialEq)]
struct MatrixKey {
    recipe: Recipe,
    hosts: Option<Vec<u64>>,
    draws: usize,
}

impl MatrixKey {
    fn of(class: &FlowClass) -> MatrixKey {
        let recipe = match class.matrix {
            MatrixKind::Permutation => Recipe::Permutation,
            MatrixKind::Stride => Recipe::Stride(class.offset),
            MatrixKind::Random => Recipe::Random(
                RandomLimits {
                    max_per_destination: class
                        .max_per_destination
                        .map(|m| usize::try_from(m).unwrap_or(usize::MAX)),
                    exclude_rack_local: class.exclude_rack_local,
                },
                match class.sources {
                    RandomSources::Uniform => htsim_workload::RandomSources::Uniform,
                    RandomSources::Each => htsim_workload::RandomSources::Each,
                },
            ),
            MatrixKind::Incast => Recipe::Incast(class.fan_in.unwrap_or(10)),
            MatrixKind::ManyToOne => Recipe::ManyToOne,
            MatrixKind::Locality => Recipe::Locality(class.rack_local.clone().unwrap_or_default()),
            MatrixKind::Pairs => {
                Recipe::Pairs(class.pairs.clone().unwrap_or(PairsSpec::List(Vec::new())))
            }
            MatrixKind::Neighbours => Recipe::Neighbours(class.distance.unwrap_or(1)),
        };
        MatrixKey {
            recipe,
            hosts: class.hosts.as_ref().map(|h| h.0.clone()),
            draws: class
                .draws
                .map_or(1, |d| usize::try_from(d).unwrap_or(usize::MAX)),
        }
    }
}

/// The new destinations of a closed-loop class with `new_destination` on the matrix `key`
/// (a permutation or a random matrix, as the loader checks): drawn over the class's hosts, with
/// a random matrix's limits. Each of the `draws` matrices keeps `max_per_destination`, so the
/// open flows to a host are held to `draws` times it, as many as the first flows may already
/// have.
fn new_destinations(key: &MatrixKey, layout: &HostLayout) -> NewDestinations {
    let hosts = match &key.hosts {
        Some(set) => set.iter().map(|&h| h as usize).collect(),
        None => (0..layout.num_hosts()).collect(),
    };
    let limits = match key.recipe {
        Recipe::Random(limits, _) => RandomLimits {
            max_per_destination: limits
                .max_per_destination
                .map(|m| m.saturating_mul(key.draws)),
            ..limits
        },
        _ => RandomLimits::default(),
    };
    NewDestinations::new(hosts, layout.clone(), limits)
}

/// The memory a run's traffic matrices take ([`BYTES_PER_CONNECTION`] per connection), kept
/// within the run's budget: n hosts have up to n(n - 1) `neighbours` pairs, and `draws`
/// multiplies a matrix, so a matrix is refused before it is drawn rather than when memory runs
/// out.
struct PoolMemory<'a> {
    budget: Option<&'a Budget>,
    /// Connections of the matrices resolved so far.
    held: u64,
    /// Directed links of the network, and the run's duration: for [`PoolMemory::check_flows`].
    links: u64,
    duration: htsim_core::SimTime,
}

/// The class a matrix is resolved for (the first that uses it), whose flows its pairs become.
struct Opener<'a> {
    name: &'a str,
    senders: &'a htsim_workload::Senders,
    arrivals: Option<&'a Arrivals>,
}

impl PoolMemory<'_> {
    /// Takes `per_draw` x `draws` connections, and `per_draw` more if `kept` (a fixed matrix
    /// kept for later rounds), or the error that they do not fit.
    fn take(&mut self, per_draw: u64, draws: usize, kept: bool) -> Result<(), SetupError> {
        self.check(per_draw, draws, kept)?;
        self.held = self.held.saturating_add(Self::count(per_draw, draws, kept));
        Ok(())
    }

    /// The connections of `draws` draws of `per_draw`, and a kept copy if `kept`.
    fn count(per_draw: u64, draws: usize, kept: bool) -> u64 {
        per_draw.saturating_mul((draws as u64).saturating_add(u64::from(kept)))
    }

    /// Whether the flows `opener` opens from its share of a matrix of `connections`
    /// connections fit, alone ([`Budget::check_matrix_flows`]); the error is at the key that
    /// decides them.
    fn check_flows(&self, opener: &Opener<'_>, connections: u64) -> Result<(), SetupError> {
        let Some(budget) = self.budget else {
            return Ok(());
        };
        let total = usize::try_from(connections).unwrap_or(usize::MAX);
        // A share that cannot be taken is reported when the matrix is split.
        let taken = opener.senders.count(total, total).unwrap_or(0) as u64;
        budget.check_matrix_flows(
            self.links,
            taken,
            opener.arrivals,
            self.duration,
            opener.name,
        )
    }

    /// Whether [`PoolMemory::take`] would fit; the error (at `draws` when there are several
    /// draws, else at `matrix`) when it would not.
    fn check(&self, per_draw: u64, draws: usize, kept: bool) -> Result<(), SetupError> {
        let Some(budget) = self.budget else {
            return Ok(());
        };
        let held = self.held.saturating_add(Self::count(per_draw, draws, kept));
        let key = if draws > 1 { "draws" } else { "matrix" };
        budget.check_connections(held).map_err(|e| {
            let draws = if draws > 1 {
                format!(" x {draws} draws")
            } else {
                String::new()
            };
            let kept = if kept {
                ", and its pairs kept for later rounds"
            } else {
                ""
            };
            e.within(key).with_hint(format!(
                "the class's matrix needs room for {per_draw} connections{draws}{kept}: fewer \
                 hosts (`hosts`), fewer draws, a smaller topology, fewer runs at once (--jobs), \
                 or set {MEMORY_LIMIT_ENV} if more memory is free"
            ))
        })
    }
}

/// A matrix key resolved against the topology: what draws the matrix.
#[derive(Clone, Debug)]
enum MatrixSource {
    /// A random (or layout-given) matrix over `layout`, whose host `i` is host `hosts[i]`.
    Drawn {
        recipe: Recipe,
        layout: HostLayout,
        hosts: Vec<usize>,
    },
    /// The same pairs every time (explicit pairs, neighbours).
    Fixed(Vec<Connection>),
}

impl MatrixSource {
    /// Resolves `key` on `topology` (whose hosts `layout` describes), reading a pairs file from
    /// `base_dir`, and takes its connections out of `memory`; errors name the key within the
    /// class. With `rounds` (a class with matrix rounds, which keeps its source for the run) a
    /// fixed matrix's pairs are taken once more: they stay while each round's are drawn.
    fn new(
        key: &MatrixKey,
        topology: &Topology,
        layout: &HostLayout,
        base_dir: &Path,
        memory: &mut PoolMemory<'_>,
        rounds: bool,
        opener: &Opener<'_>,
    ) -> Result<MatrixSource, SetupError> {
        let source =
            MatrixSource::resolve(key, topology, layout, base_dir, memory, rounds, opener)?;
        let kept = rounds && matches!(source, MatrixSource::Fixed(_));
        memory.take(source.connections(), key.draws, kept)?;
        Ok(source)
    }

    /// The most connections one draw yields: a drawn matrix has at most one per host (an
    /// incast its `fan_in`, which a draw refuses when the hosts are fewer).
    fn connections(&self) -> u64 {
        let n = match self {
            MatrixSource::Fixed(pairs) => pairs.len(),
            MatrixSource::Drawn { recipe, hosts, .. } => match recipe {
                Recipe::Incast(fan_in) => {
                    usize::try_from(*fan_in).map_or(hosts.len(), |f| f.min(hosts.len()))
                }
                _ => hosts.len(),
            },
        };
        n as u64
    }

    /// [`MatrixSource::new`] without taking the connections; a `neighbours` matrix, whose
    /// pairs are listed here, is counted first and refused when they, or the flows `opener`
    /// would open from them, do not fit in `memory`.
    fn resolve(
        key: &MatrixKey,
        topology: &Topology,
        layout: &HostLayout,
        base_dir: &Path,
        memory: &PoolMemory<'_>,
        rounds: bool,
        opener: &Opener<'_>,
    ) -> Result<MatrixSource, SetupError> {
        let n = layout.num_hosts();
        let hosts: Vec<usize> = match &key.hosts {
            None => (0..n).collect(),
            Some(set) => {
                if let Some(&h) = set.iter().find(|&&h| h >= n as u64) {
                    return Err(SetupError::new(
                        "hosts",
                        format!("host {h} does not exist: the topology has {n} hosts"),
                    )
                    .with_hint(format!(
                        "hosts are numbered from 0 to {}, as host<i> in the outputs",
                        n.saturating_sub(1)
                    )));
                }
                set.iter().map(|&h| h as usize).collect()
            }
        };
        match &key.recipe {
            Recipe::Pairs(spec) => Ok(MatrixSource::Fixed(explicit_pairs(spec, n, base_dir)?)),
            Recipe::Neighbours(d) => {
                let distance = u32::try_from(*d).unwrap_or(u32::MAX);
                let ids: Vec<u32> = hosts.iter().map(|&h| h as u32).collect();
                let pairs = HopPairs::new(topology, &ids, distance);
                let tally = pairs.tally();
                if tally.pairs == 0 {
                    let e = matrix::MatrixError::NoPairAtDistance {
                        distance,
                        farthest: tally.farthest.unwrap_or(0),
                    };
                    return Err(SetupError::new("distance", e.to_string()).with_hint(
                        "`distance` counts the switches between two hosts: on a BCube(n, k) \
                             1 to k + 1, on a FatTree 1 (one rack), 3 (one pod) or 5",
                    ));
                }
                // Counted first: the pairs are listed only when they and their flows fit.
                memory.check(tally.pairs, key.draws, rounds)?;
                memory.check_flows(opener, tally.pairs.saturating_mul(key.draws as u64))?;
                let mut list = Vec::with_capacity(usize::try_from(tally.pairs).unwrap_or(0));
                pairs.for_each(|src, dst| {
                    list.push(Connection {
                        src: hosts[src as usize],
                        dst: hosts[dst as usize],
                    })
                });
                Ok(MatrixSource::Fixed(list))
            }
            recipe => {
                let layout = if key.hosts.is_some() {
                    HostLayout::from_vectors(
                        hosts.iter().map(|&h| layout.rack_of(h)).collect(),
                        hosts.iter().map(|&h| layout.pod_of(h)).collect(),
                    )
                    .map_err(|e| SetupError::new("hosts", format!("host layout: {e}")))?
                } else {
                    layout.clone()
                };
                Ok(MatrixSource::Drawn {
                    recipe: recipe.clone(),
                    layout,
                    hosts,
                })
            }
        }
    }

    /// `draws` independent draws of the matrix, one after the other, their connections in
    /// that order (a fixed matrix repeated). One draw is returned as drawn; several are
    /// gathered in a list sized for them at once, rather than one grown by doubling (a grown
    /// list and its copy are up to three times the connections).
    fn draw_times(&self, rng: &mut SimRng, draws: usize) -> Result<Vec<Connection>, String> {
        if draws == 1 {
            return self.draw(rng);
        }
        let most = self.connections().saturating_mul(draws as u64);
        let mut out = Vec::with_capacity(usize::try_from(most).unwrap_or(0));
        for _ in 0..draws {
            match self {
                MatrixSource::Fixed(pairs) => out.extend_from_slice(pairs),
                MatrixSource::Drawn { .. } => out.extend(self.draw(rng)?),
            }
        }
        out.shrink_to_fit();
        Ok(out)
    }

    /// [`MatrixSource::draw_times`], taking a fixed matrix drawn once as it is rather than
    /// copying it (a `neighbours` matrix may hold most of the run's memory).
    fn into_draws(self, rng: &mut SimRng, draws: usize) -> Result<Vec<Connection>, String> {
        match self {
            MatrixSource::Fixed(pairs) if draws == 1 => Ok(pairs),
            source => source.draw_times(rng, draws),
        }
    }

    /// Draws the matrix (a fixed one is the same every time).
    fn draw(&self, rng: &mut SimRng) -> Result<Vec<Connection>, String> {
        let (recipe, layout, hosts) = match self {
            MatrixSource::Fixed(pairs) => return Ok(pairs.clone()),
            MatrixSource::Drawn {
                recipe,
                layout,
                hosts,
            } => (recipe, layout, hosts),
        };
        let conns = draw_recipe(recipe, rng, layout)?;
        Ok(conns
            .into_iter()
            .map(|c| Connection {
                src: hosts[c.src],
                dst: hosts[c.dst],
            })
            .collect())
    }
}

/// Draws a matrix of `recipe` over the hosts of `layout`.
fn draw_recipe(
    recipe: &Recipe,
    rng: &mut SimRng,
    layout: &HostLayout,
) -> Result<Vec<Connection>, String> {
    use rand::Rng;
    let n = layout.num_hosts();
    let m = |e: htsim_workload::MatrixError| e.to_string();
    match recipe {
        Recipe::Permutation => TrafficMatrix::Permutation.build(rng, layout).map_err(m),
        Recipe::Stride(None) => TrafficMatrix::StrideNextPod.build(rng, layout).map_err(m),
        Recipe::Stride(Some(offset)) => TrafficMatrix::Stride {
            offset: *offset as usize,
        }
        .build(rng, layout)
        .map_err(m),
        Recipe::Random(limits, sources) => TrafficMatrix::Random {
            limits: *limits,
            sources: *sources,
        }
        .build(rng, layout)
        .map_err(m),
        Recipe::Incast(fan_in) => TrafficMatrix::Incast {
            senders: *fan_in as usize,
        }
        .build(rng, layout)
        .map_err(m),
        Recipe::ManyToOne => {
            if n < 2 {
                return Err("many-to-one needs at least 2 hosts".into());
            }
            let receiver = rng.random_range(0..n);
            let senders: Vec<usize> = (0..n).filter(|&h| h != receiver).collect();
            matrix::many_to_one(&senders, receiver).map_err(m)
        }
        Recipe::Locality(share) => {
            let rack_local = parse_share(share).map_err(|e| format!("rack_local: {e}"))?;
            TrafficMatrix::Locality {
                base: LocalityBase::Permutation,
                rack_local,
            }
            .build(rng, layout)
            .map_err(m)
        }
        // Resolved to fixed pairs by `MatrixSource::new`.
        Recipe::Pairs(_) | Recipe::Neighbours(_) => Err("not a drawn matrix".into()),
    }
}

/// The pairs of a pairs matrix over `hosts` hosts: inline, or read from a file relative to
/// `base_dir` (its problems name the file and line).
fn explicit_pairs(
    spec: &PairsSpec,
    hosts: usize,
    base_dir: &Path,
) -> Result<Vec<Connection>, SetupError> {
    match spec {
        PairsSpec::List(list) => {
            let list: Vec<(usize, usize)> = list
                .iter()
                .map(|&(a, b)| {
                    let h = |x: u64| usize::try_from(x).unwrap_or(usize::MAX);
                    (h(a), h(b))
                })
                .collect();
            htsim_workload::pairs::explicit(&list, hosts)
                .map_err(|e| SetupError::new("pairs", e.to_string()))
        }
        PairsSpec::File(path) => {
            let full = base_dir.join(path);
            let key = "pairs_file";
            let text = read_input(&full, key, "pairs file")?;
            let lines = parse_pairs(&text)
                .map_err(|e| SetupError::new(key, e.message).on_line(&full, e.line))?;
            if lines.is_empty() {
                return Err(SetupError::new(
                    key,
                    format!(
                        "the pairs file {} holds no pair: expected `src dst` lines",
                        full.display()
                    ),
                ));
            }
            lines
                .iter()
                .map(|&(src, dst, line)| {
                    htsim_workload::pairs::pair(src, dst, hosts)
                        .map_err(|e| SetupError::new(key, e.to_string()).on_line(&full, line))
                })
                .collect()
        }
    }
}

/// The size distribution of a class; errors name the key within the class.
fn size_dist(scenario: &Scenario, size: &SizeSpec) -> Result<SizeDist, SetupError> {
    let e = |e: htsim_workload::SizeError| SetupError::new("size", e.to_string());
    Ok(match size {
        SizeSpec::Fixed(b) => SizeDist::Fixed(*b),
        SizeSpec::Infinite => SizeDist::Infinite,
        SizeSpec::Uniform(lo, hi) => SizeDist::uniform(*lo, *hi).map_err(e)?,
        SizeSpec::Pareto { shape, mean, max } => {
            SizeDist::pareto(*shape, *mean, max.unwrap_or(u64::MAX)).map_err(e)?
        }
        SizeSpec::Cdf(name) => SizeDist::Cdf(
            EmpiricalCdf::builtin(name).map_err(|e| SetupError::new("size.cdf", e.to_string()))?,
        ),
        SizeSpec::CdfFile(path) => {
            let full = scenario.base_dir.join(path);
            let key = "size.cdf_file";
            let text = read_input(&full, key, "CDF file")?;
            SizeDist::Cdf(EmpiricalCdf::parse(&text).map_err(|err| match err.line() {
                Some(line) => {
                    let text = err.to_string();
                    let message = text
                        .strip_prefix(&format!("line {line}: "))
                        .unwrap_or(&text);
                    SetupError::new(key, message).on_line(&full, line)
                }
                None => SetupError::new(key, format!("{}: {err}", full.display())),
            })?)
        }
    })
}

/// The text of the `what` file (`"CDF file"`) at `full`, named by `key` of the class; an error
/// naming it when it cannot be read.
fn read_input(full: &Path, key: &str, what: &str) -> Result<String, SetupError> {
    read_text(full).map_err(|err| {
        SetupError::new(
            key,
            format!("cannot use the {what} {}: {err}", full.display()),
        )
    })
}
