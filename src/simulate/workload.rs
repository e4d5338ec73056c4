//! The flow classes of a run, resolved against its topology: each class's connections, size
//! distribution, arrival process and transport.
//!
//! Random choices come from the run's workload streams only, never from a transport's, so
//! transports compared on one seed see the same workload:
//! - `workload.matrix`: every traffic matrix, built once per run, in the order classes first use
//!   it (classes with the same recipe share one matrix);
//! - `workload.senders`: which of a matrix's connections each class takes (`senders`), in file
//!   order; a class takes its connections out of the matrix's pool, so `"rest"` is what earlier
//!   classes on the same matrix left (docs/model.md 9.3: long flows take `floor(|CM| x 33%)`
//!   connections, short flows the rest).
//!
//! The per-flow draws (sizes, arrival gaps, which pool connection) and the hosts of each
//! partition/aggregate job are in [`super::generator`]; a job class (`jobs = { ... }`) has no
//! matrix and takes no connection here.

use htsim_core::units::parse_share;
use htsim_topology::topology::Topology;
use htsim_workload::matrix::{self, LocalityBase};
use htsim_workload::{
    split_connections, Connection, EmpiricalCdf, HostLayout, PartitionAggregate, SizeDist,
    TrafficMatrix,
};

use super::setup_error::SetupError;
use super::transports::{configure, Configured};
use crate::scenario::input::read_text;
use crate::scenario::{
    Arrivals, FlowClass, JobsConfig, MatrixKind, Scenario, Senders, SizeSpec, TransportRef,
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

/// Resolves every flow class of `scenario` on `topology`, drawing from `streams`; the problem
/// of every class that cannot be resolved.
pub fn plan(
    scenario: &Scenario,
    topology: &Topology,
    streams: htsim_core::rng::RngStreams,
) -> Result<Vec<ClassPlan>, Vec<SetupError>> {
    let hosts = topology.hosts();
    let layout = HostLayout::from_vectors(
        hosts.iter().map(|h| h.rack as usize).collect(),
        hosts.iter().map(|h| h.pod as usize).collect(),
    )
    .map_err(|e| vec![SetupError::new("topology", format!("host layout: {e}"))])?;
    let mut matrix_rng = streams.stream("workload.matrix");
    let mut senders_rng = streams.stream("workload.senders");
    // (recipe, full length, pool left) per distinct matrix, in order of first use.
    let mut matrices: Vec<(Recipe, usize, Vec<Connection>)> = Vec::new();
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
            if let Some(jobs) = &class.jobs {
                return Ok(ClassPlan {
                    name: class.name.clone(),
                    pool: Vec::new(),
                    size: SizeDist::Fixed(jobs.request_bytes),
                    arrivals: None,
                    start: class.start,
                    transport,
                    jobs: Some(JobPlan::new(jobs, &layout).map_err(|e| fail(e.within("jobs")))?),
                });
            }
            let recipe = Recipe::of(class);
            let idx = match matrices.iter().position(|(r, _, _)| *r == recipe) {
                Some(i) => i,
                None => {
                    let conns = recipe
                        .build(&mut matrix_rng, &layout)
                        .map_err(|e| fail(SetupError::new("matrix", e)))?;
                    matrices.push((recipe, conns.len(), conns));
                    matrices.len() - 1
                }
            };
            let (_, len, pool) = &mut matrices[idx];
            let senders = match &class.senders {
                Senders::Share { fraction, .. } => htsim_workload::Senders::Share(*fraction),
                Senders::Count(n) => htsim_workload::Senders::Count(*n as usize),
                Senders::All => htsim_workload::Senders::All,
                Senders::Rest => htsim_workload::Senders::Rest,
            };
            let taken = split_connections(&mut senders_rng, &senders, *len, pool)
                .map_err(|e| fail(SetupError::new("senders", e.to_string())))?;
            Ok(ClassPlan {
                name: class.name.clone(),
                pool: taken,
                size: size_dist(scenario, &class.size).map_err(fail)?,
                arrivals: class.arrivals.clone(),
                start: class.start,
                transport,
                jobs: None,
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

/// What defines a traffic matrix; classes with equal recipes share one matrix.
#[derive(Clone, Debug, PartialEq)]
enum Recipe {
    Permutation,
    Stride(Option<u64>),
    Random,
    Incast(u64),
    ManyToOne,
    Locality(String),
}

impl Recipe {
    fn of(class: &FlowClass) -> Recipe {
        match class.matrix {
            MatrixKind::Permutation => Recipe::Permutation,
            MatrixKind::Stride => Recipe::Stride(class.offset),
            MatrixKind::Random => Recipe::Random,
            MatrixKind::Incast => Recipe::Incast(class.fan_in.unwrap_or(10)),
            MatrixKind::ManyToOne => Recipe::ManyToOne,
            MatrixKind::Locality => Recipe::Locality(class.rack_local.clone().unwrap_or_default()),
        }
    }

    fn build(
        &self,
        rng: &mut htsim_core::rng::SimRng,
        layout: &HostLayout,
    ) -> Result<Vec<Connection>, String> {
        use rand::Rng;
        let n = layout.num_hosts();
        let m = |e: htsim_workload::MatrixError| e.to_string();
        match self {
            Recipe::Permutation => TrafficMatrix::Permutation.build(rng, layout).map_err(m),
            Recipe::Stride(None) => TrafficMatrix::StrideNextPod.build(rng, layout).map_err(m),
            Recipe::Stride(Some(offset)) => TrafficMatrix::Stride {
                offset: *offset as usize,
            }
            .build(rng, layout)
            .map_err(m),
            Recipe::Random => TrafficMatrix::Random.build(rng, layout).map_err(m),
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
            let text = read_text(&full).map_err(|err| {
                SetupError::new(
                    key,
                    format!("cannot use the CDF file {}: {err}", full.display()),
                )
            })?;
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
