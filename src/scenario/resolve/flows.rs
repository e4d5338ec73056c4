//! `[[flows]]`: flow classes, their matrices, senders, sizes, arrivals, jobs and transports.

use htsim_core::SimTime;

use super::kinds::*;
use super::matrix::class_matrix;
use super::transports::transport;
use super::values::*;
use super::Cx;
use crate::scenario::error::Result;
use crate::scenario::params::{self, ParamValue};
use crate::scenario::schema::*;
use crate::scenario::suggest::did_you_mean;
use crate::scenario::tree::{Node, Value};

/// The keys every class may have besides [`MATRIX_KEYS`].
pub(super) const CLASS_KEYS: &[&str] = &["name", "start", "transport", "jobs"];

/// The keys a job class (`jobs = { ... }`) cannot have: `jobs` decides its hosts, sizes and
/// arrivals.
pub(super) const MATRIX_KEYS: &[&str] = &[
    "matrix",
    "senders",
    "size",
    "arrivals",
    "offset",
    "fan_in",
    "rack_local",
    "pairs",
    "pairs_file",
    "distance",
    "max_per_destination",
    "exclude_rack_local",
    "sources",
    "hosts",
    "draws",
];

pub(super) fn flows(
    cx: &Cx,
    node: &Node,
    transports: &[NamedTransport],
    run: &RunConfig,
    topo: &TopologyConfig,
) -> Result<Vec<FlowClass>> {
    let Value::Array(items) = &node.value else {
        return Err(cx.type_err(node, "flows", "an array of tables (`[[flows]]`)"));
    };
    if items.is_empty() {
        return Err(cx.err(
            &node.origin,
            "flows",
            "no flow classes: expected at least one `[[flows]]`",
        ));
    }
    let hosts = topo.host_count();
    let mut out: Vec<FlowClass> = Vec::new();
    let mut used_share = 0.0f64;
    // Counts in hosts' worth of connections: a class with `draws = k` has k per host.
    let mut used_count = 0f64;
    for (i, item) in items.iter().enumerate() {
        let provisional = format!("flows[{i}]");
        let keys: Vec<&str> = CLASS_KEYS.iter().chain(MATRIX_KEYS).copied().collect();
        let t = Tab::open(cx, item, &provisional, &keys)?;
        let name_node = t.required("name", "a unique name for the flow class, e.g. \"short\"")?;
        let name = string(cx, name_node, &t.key("name"))?.to_string();
        check_name(cx, name_node, &t.key("name"), &name)?;
        let path = format!("flows.{name}");
        if out.iter().any(|f| f.name == name) {
            return Err(cx.err(
                &name_node.origin,
                &format!("{path}.name"),
                format!(
                    "duplicate flow class name \"{name}\": every `[[flows]]` needs a distinct name"
                ),
            ));
        }
        let t = Tab {
            path: path.clone(),
            ..t
        };
        if let Some(jn) = t.get("jobs") {
            out.push(job_class(cx, &t, jn, name, transports, run, hosts)?);
            continue;
        }
        let m = class_matrix(cx, &t, hosts)?;
        let senders = match t.get("senders") {
            None => Senders::All,
            Some(n) => senders(cx, n, &t.key("senders"))?,
        };
        // Classes take disjoint hosts ("rest" = hosts no earlier class uses): they cannot ask for
        // more than all of them.
        match &senders {
            Senders::Share { fraction, .. } => used_share += fraction,
            Senders::Count(c) => used_count += *c as f64 / m.draws.unwrap_or(1) as f64,
            _ => {}
        }
        let sn = t.get("senders").unwrap_or(item);
        if used_share > 1.0 + 1e-9 {
            return Err(cx.err(
                &sn.origin,
                &t.key("senders"),
                format!(
                    "the flow classes so far ask for {:.4}% of the hosts: over 100%",
                    used_share * 100.0
                ),
            ));
        }
        if let Some(h) = hosts {
            let wanted = used_count + (used_share * h as f64).round();
            if wanted > h as f64 {
                return Err(cx.err(
                    &sn.origin,
                    &t.key("senders"),
                    format!("the flow classes so far ask for {wanted} senders, and the topology has {h} hosts"),
                ));
            }
        }
        let size = size_spec(
            cx,
            t.required("size", "a flow size such as \"70KB\" or \"infinite\"")?,
            &t.key("size"),
        )?;
        let start = class_start(cx, &t, run)?;
        let arrivals = t
            .get("arrivals")
            .map(|n| arrivals(cx, n, &t.key("arrivals")))
            .transpose()?;
        if size == SizeSpec::Infinite && arrivals.is_some() {
            let n = t.get("arrivals").unwrap_or(item);
            return Err(cx.err(
                &n.origin,
                &t.key("arrivals"),
                "infinite flows never end, so they cannot arrive repeatedly: remove `arrivals` or give a finite `size`",
            ));
        }
        if let Some(Arrivals::ClosedLoop {
            new_destination: true,
        }) = arrivals
        {
            if !matches!(m.matrix, MatrixKind::Permutation | MatrixKind::Random) {
                let nd = t
                    .get("arrivals")
                    .and_then(|a| match &a.value {
                        Value::Table(tbl) => tbl.get("new_destination").map(|e| &e.value),
                        _ => None,
                    })
                    .unwrap_or(item);
                return Err(cx
                    .err(
                        &nd.origin,
                        &format!("{}.new_destination", t.key("arrivals")),
                        format!(
                            "a new destination is drawn from a permutation or a random matrix, \
                             and this class's matrix is \"{}\"",
                            t.get("matrix")
                                .map_or(String::new(), |n| n.value.to_string())
                        ),
                    )
                    .with_hint(
                        "use matrix = \"permutation\" (a uniform new destination) or \
                         \"random\" (within max_per_destination and exclude_rack_local), or \
                         remove new_destination",
                    ));
            }
        }
        if arrivals == Some(Arrivals::MatrixRounds) && senders == Senders::Rest {
            return Err(cx
                .err(
                    &sn.origin,
                    &t.key("senders"),
                    "\"rest\" has no meaning with matrix_rounds: the class draws a matrix of its \
                     own every round, and no earlier class takes from it",
                )
                .with_hint("use \"all\", a share such as \"50%\" or a count"));
        }
        let transport = class_transport(cx, &t, transports)?;
        out.push(FlowClass {
            name,
            senders,
            size,
            start,
            arrivals,
            jobs: None,
            transport,
            ..m
        });
    }
    Ok(out)
}

/// The `start` of the flow class read by `t`, before the run's duration.
pub(super) fn class_start(cx: &Cx, t: &Tab, run: &RunConfig) -> Result<SimTime> {
    let start = t.duration("start", Some(SimTime::ZERO))?;
    if start >= run.duration {
        return Err(cx.err(
            t.get("start").map_or(t.origin, |n| &n.origin),
            &t.key("start"),
            "the class starts after the run's duration: no flow would start",
        ));
    }
    Ok(start)
}

/// The `transport` of the flow class read by `t`: a name from `[transports]` or an inline table.
pub(super) fn class_transport(
    cx: &Cx,
    t: &Tab,
    transports: &[NamedTransport],
) -> Result<TransportRef> {
    let tn = t.required(
        "transport",
        "a transport name from `[transports]` or an inline table such as { kind = \"tcp\" }",
    )?;
    match &tn.value {
        Value::String(s) => {
            if !transports.iter().any(|x| &x.name == s) {
                let names: Vec<&str> = transports.iter().map(|x| x.name.as_str()).collect();
                let known = if names.is_empty() {
                    "there is no `[transports]` table".to_string()
                } else {
                    format!("known: {}", names.join(", "))
                };
                return Err(cx
                    .err(&tn.origin, &t.key("transport"), format!("unknown transport \"{s}\" ({known})"))
                    .with_hint_opt(did_you_mean(s, names.iter().copied()).or_else(|| {
                        params::transport(s).map(|_| format!("for a transport of kind \"{s}\" with default settings write transport = {{ kind = \"{s}\" }}"))
                    })));
            }
            Ok(TransportRef::Named(s.clone()))
        }
        Value::Table(_) => Ok(TransportRef::Inline(transport(
            cx,
            tn,
            &t.key("transport"),
        )?)),
        _ => Err(cx.type_err(
            tn,
            &t.key("transport"),
            "a transport name or an inline table",
        )),
    }
}

/// A partition/aggregate class (`jobs = { ... }`, [`params::JOBS`]): `t` is the class's table,
/// `jn` its `jobs` value, `hosts` the topology's host count when the parameters say it.
pub(super) fn job_class(
    cx: &Cx,
    t: &Tab,
    jn: &Node,
    name: String,
    transports: &[NamedTransport],
    run: &RunConfig,
    hosts: Option<u64>,
) -> Result<FlowClass> {
    for &key in MATRIX_KEYS {
        if let Some(e) = t.table.get(key) {
            return Err(cx
                .err(
                    &e.key_origin,
                    &t.key(key),
                    format!(
                        "`{key}` has no meaning in a class with `jobs`: the jobs choose their \
                         hosts, the request and response sizes and when flows start"
                    ),
                )
                .with_hint(format!(
                    "remove `{key}`, or give these flows a `[[flows]]` class of their own"
                )));
        }
    }
    let jp = t.key("jobs");
    let keys: Vec<&str> = params::JOBS.params.iter().map(|p| p.key).collect();
    let jt = Tab::open(cx, jn, &jp, &keys)?;
    let p = kind_params(cx, &jt, &params::JOBS)?;
    let at = |key: &str| jt.get(key).unwrap_or(jn);
    let servers = p.int("servers").unwrap_or(1) as u64;
    if let Some(h) = hosts {
        if servers >= h {
            return Err(cx
                .err(
                    &at("servers").origin,
                    &jt.key("servers"),
                    format!(
                        "a job of 1 client and {servers} servers needs {} distinct hosts, and \
                         the topology has {h}",
                        servers + 1
                    ),
                )
                .with_hint(format!("use servers = {} or fewer", h.saturating_sub(1))));
        }
    }
    let positive = |key: &str| -> Result<u64> {
        let b = p.size(key).unwrap_or(0);
        if b == 0 {
            return Err(cx.err(
                &at(key).origin,
                &jt.key(key),
                format!("a {key} of 0 bytes: expected a positive size such as \"2KB\""),
            ));
        }
        Ok(b)
    };
    let jobs = JobsConfig {
        servers,
        request_bytes: positive("request")?,
        response_bytes: positive("response")?,
        concurrent: p.int("concurrent").unwrap_or(1) as u64,
        rack_local: !matches!(p.get("rack_local"), Some(ParamValue::Bool(false))),
    };
    Ok(FlowClass {
        name,
        start: class_start(cx, t, run)?,
        jobs: Some(jobs),
        transport: class_transport(cx, t, transports)?,
        ..FlowClass::default()
    })
}

pub(super) fn senders(cx: &Cx, n: &Node, path: &str) -> Result<Senders> {
    match &n.value {
        Value::String(s) if s == "all" => Ok(Senders::All),
        Value::String(s) if s == "rest" => Ok(Senders::Rest),
        Value::String(s) if s.trim_end().ends_with('%') => Ok(Senders::Share {
            fraction: share(cx, n, path)?,
            text: s.clone(),
        }),
        Value::String(s) => Err(cx.err(
            &n.origin,
            path,
            format!("\"{s}\" is not a sender selection: expected a share such as \"33%\", a count such as 12, \"all\" or \"rest\""),
        )),
        Value::Integer(_) => Ok(Senders::Count(int(cx, n, path, 1, i64::MAX)? as u64)),
        _ => Err(cx.type_err(n, path, "a share such as \"33%\", a count, \"all\" or \"rest\"")),
    }
}

pub(super) fn size_spec(cx: &Cx, n: &Node, path: &str) -> Result<SizeSpec> {
    const FORMS: &str = "\"70KB\", \"infinite\", { uniform = [\"1KB\", \"1MB\"] }, { pareto = { shape = 1.5, mean = \"192MB\", max = \"768MB\" } }, { cdf = \"websearch\" } or { cdf_file = \"sizes.cdf\" }";
    match &n.value {
        Value::String(s) if s == "infinite" => Ok(SizeSpec::Infinite),
        Value::String(_) | Value::Integer(_) | Value::Float(_) => {
            let b = size(cx, n, path)?;
            if b == 0 {
                return Err(cx.err(
                    &n.origin,
                    path,
                    "a flow of 0 bytes: expected a positive size",
                ));
            }
            Ok(SizeSpec::Fixed(b))
        }
        Value::Table(tbl) => {
            if tbl.entries.len() != 1 {
                return Err(cx.err(
                    &n.origin,
                    path,
                    format!("expected exactly one of uniform, pareto, cdf, cdf_file: {FORMS}"),
                ));
            }
            let t = Tab::open(cx, n, path, &["uniform", "pareto", "cdf", "cdf_file"])?;
            if let Some(u) = t.get("uniform") {
                let p = t.key("uniform");
                let Value::Array(items) = &u.value else {
                    return Err(cx.type_err(u, &p, "two sizes: [\"1KB\", \"1MB\"]"));
                };
                if items.len() != 2 {
                    return Err(cx.err(&u.origin, &p, "expected two sizes: [\"1KB\", \"1MB\"]"));
                }
                let (lo, hi) = (size(cx, &items[0], &p)?, size(cx, &items[1], &p)?);
                if lo == 0 || lo > hi {
                    return Err(cx.err(&u.origin, &p, "expected 0 < low <= high"));
                }
                return Ok(SizeSpec::Uniform(lo, hi));
            }
            if let Some(pn) = t.get("pareto") {
                let p = t.key("pareto");
                let pt = Tab::open(cx, pn, &p, &["shape", "mean", "max"])?;
                let shape = float(
                    cx,
                    pt.required("shape", "a shape above 1, e.g. 1.5")?,
                    &pt.key("shape"),
                    0.0,
                    1e6,
                )?;
                if shape <= 1.0 {
                    return Err(cx.err(
                        &pt.get("shape").unwrap_or(pn).origin,
                        &pt.key("shape"),
                        "a Pareto shape at or below 1 has no finite mean: expected a shape above 1",
                    ));
                }
                let mean = size(
                    cx,
                    pt.required("mean", "a mean size such as \"192MB\"")?,
                    &pt.key("mean"),
                )?;
                let max = pt
                    .get("max")
                    .map(|m| size(cx, m, &pt.key("max")))
                    .transpose()?;
                if mean == 0 || max.is_some_and(|m| m < mean) {
                    return Err(cx.err(&pn.origin, &p, "expected 0 < mean <= max"));
                }
                return Ok(SizeSpec::Pareto { shape, mean, max });
            }
            if let Some(c) = t.get("cdf") {
                let name = choice(cx, c, &t.key("cdf"), BUILTIN_CDFS)?;
                return Ok(SizeSpec::Cdf(name));
            }
            let f = t.required("cdf_file", "a file")?;
            let file = existing_file(
                cx,
                f,
                &t.key("cdf_file"),
                "CDF file",
                &format!(
                    "paths are relative to the scenario's directory; built-in CDFs: {}",
                    BUILTIN_CDFS.join(", ")
                ),
            )?;
            Ok(SizeSpec::CdfFile(file))
        }
        _ => Err(cx.type_err(n, path, &format!("a size: {FORMS}"))),
    }
}

pub(super) fn arrivals(cx: &Cx, n: &Node, path: &str) -> Result<Arrivals> {
    let t = Tab::open(
        cx,
        n,
        path,
        &[
            "poisson",
            "every",
            "closed_loop",
            "matrix_rounds",
            "new_destination",
        ],
    )?;
    let new_destination = t.get("new_destination");
    let processes = t.table.entries.len() - usize::from(new_destination.is_some());
    if processes != 1 {
        return Err(cx.err(&n.origin, path, "expected exactly one of { poisson = 256 }, { every = \"500ms\" }, { closed_loop = true } (with new_destination = true: a new destination per flow) or { matrix_rounds = true }"));
    }
    if let (Some(nd), None) = (new_destination, t.get("closed_loop")) {
        return Err(cx
            .err(
                &nd.origin,
                &t.key("new_destination"),
                "`new_destination` only applies to closed-loop arrivals: each connection's next \
                 flow draws a new destination when its previous one ends",
            )
            .with_hint("use arrivals = { closed_loop = true, new_destination = true }"));
    }
    if let Some(p) = t.get("poisson") {
        let rate = float(cx, p, &t.key("poisson"), 0.0, 1e12)?;
        if rate <= 0.0 {
            return Err(cx.err(
                &p.origin,
                &t.key("poisson"),
                "expected a positive rate in flows per second",
            ));
        }
        return Ok(Arrivals::Poisson(rate));
    }
    if let Some(e) = t.get("every") {
        let d = duration(cx, e, &t.key("every"))?;
        if d == SimTime::ZERO {
            return Err(cx.err(&e.origin, &t.key("every"), "expected a period above 0s"));
        }
        return Ok(Arrivals::Every(d));
    }
    let closed_loop = Arrivals::ClosedLoop {
        new_destination: t.bool("new_destination", false)?,
    };
    for (key, arrivals) in [
        ("closed_loop", closed_loop),
        ("matrix_rounds", Arrivals::MatrixRounds),
    ] {
        match t.get(key) {
            Some(Node {
                value: Value::Boolean(true),
                ..
            }) => return Ok(arrivals),
            Some(c) => {
                return Err(cx.err(
                    &c.origin,
                    &t.key(key),
                    format!("expected {key} = true (remove `arrivals` for one flow per sender)"),
                ))
            }
            None => {}
        }
    }
    Err(cx.err(
        &n.origin,
        path,
        "expected one of poisson, every, closed_loop, matrix_rounds",
    ))
}
