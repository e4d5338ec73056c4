//! Traffic matrices: which host sends to which (docs/model.md 9.2; docs/model.md 16).
//!
//! A matrix is a list of [`Connection`]s built once per run from a seeded random stream. No
//! constructor here returns a self pair (`src == dst`), and none loops without bound.

use rand::seq::{index, IndexedRandom, SliceRandom};
use rand::Rng;

use crate::layout::HostLayout;

/// One (source, destination) pair of a traffic matrix; both are host indices.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Connection {
    /// The sending host.
    pub src: usize,
    /// The receiving host.
    pub dst: usize,
}

/// Why a traffic matrix cannot be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MatrixError {
    /// Fewer hosts than the matrix needs.
    #[error("a {matrix} matrix needs at least {needed} hosts, but there are {hosts}")]
    TooFewHosts {
        /// The matrix kind.
        matrix: &'static str,
        /// The least number of hosts it works with.
        needed: usize,
        /// The number of hosts there are.
        hosts: usize,
    },
    /// A stride offset that maps hosts onto themselves.
    #[error("stride offset {offset} is a multiple of the {hosts} hosts, so every host would send to itself")]
    StrideToSelf {
        /// The offset I of `dst = (src + I) mod N`.
        offset: usize,
        /// The number of hosts N.
        hosts: usize,
    },
    /// Stride to the next pod on a layout without equal, consecutively numbered pods.
    #[error("stride to the next pod needs at least 2 pods of equal size with hosts numbered pod by pod (as a FatTree has)")]
    NoUniformPods,
    /// An incast with no senders.
    #[error("an incast needs at least one sender")]
    NoSenders,
    /// An incast with more senders than hosts other than the receiver.
    #[error("an incast with {senders} senders needs {senders} hosts besides the receiver, but there are only {available}")]
    TooManySenders {
        /// Senders asked for.
        senders: usize,
        /// Hosts other than the receiver.
        available: usize,
    },
    /// A many-to-one matrix whose receiver is among its senders.
    #[error("host {host} is both the receiver and a sender of a many-to-one matrix")]
    ReceiverSends {
        /// The receiver.
        host: usize,
    },
    /// A rack-local fraction outside 0..=1.
    #[error("the fraction of rack-local flows must be between 0 and 1, got {fraction}")]
    BadFraction {
        /// The fraction given.
        fraction: f64,
    },
    /// Rack-local flows asked for, but no rack has two hosts.
    #[error("rack-local flows need a rack with at least 2 hosts, and every rack has one")]
    NoRackLocalPair,
    /// Off-rack flows asked for, but every host is in one rack.
    #[error("flows leaving their rack need at least 2 racks, and all hosts share one")]
    NoOffRackPair,
    /// A limit of 0 flows per destination.
    #[error("a limit of 0 flows per destination leaves no destination")]
    ZeroPerDestination,
    /// Every host sends one connection out of its rack, but a rack has more hosts than the
    /// hosts outside it may receive.
    #[error(
        "a rack of {rack_hosts} hosts sends {rack_hosts} connections out of the rack, and the \
         {outside} hosts outside it receive at most {max} each"
    )]
    RackOverflow {
        /// The hosts of the rack.
        rack_hosts: usize,
        /// The hosts outside it.
        outside: usize,
        /// The most connections a host receives.
        max: usize,
    },
    /// An explicit pair names a host that does not exist.
    #[error("host {host} does not exist: the hosts are 0 to {}", hosts - 1)]
    HostOutOfRange {
        /// The host named.
        host: usize,
        /// The number of hosts there are (at least 1).
        hosts: usize,
    },
    /// An explicit pair from a host to itself.
    #[error("the pair ({host}, {host}) sends from a host to itself")]
    SelfPair {
        /// The host.
        host: usize,
    },
    /// An explicit matrix with no pair.
    #[error("no pairs: expected at least one (source, destination) pair")]
    NoPairs,
    /// No two hosts at the distance asked for.
    #[error(
        "no two hosts are {distance} switch {} apart (the farthest are {farthest} apart)",
        if *distance == 1 { "hop" } else { "hops" }
    )]
    NoPairAtDistance {
        /// The distance asked for, in switch hops.
        distance: u32,
        /// The largest distance between two of the hosts.
        farthest: u32,
    },
}

/// A traffic-matrix recipe, as a scenario's `matrix` key names it; [`TrafficMatrix::build`]
/// draws one.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum TrafficMatrix {
    /// See [`permutation`].
    Permutation,
    /// See [`stride`]; `offset` is I in `dst = (src + I) mod N`.
    Stride {
        /// The offset I, in hosts.
        offset: usize,
    },
    /// See [`stride_next_pod`].
    StrideNextPod,
    /// See [`random`], or [`random_limited`] with limits; with [`RandomSources::Each`], see
    /// [`random_each`].
    Random {
        /// Limits on the destinations.
        limits: RandomLimits,
        /// How the sources are chosen.
        sources: RandomSources,
    },
    /// See [`incast`].
    Incast {
        /// Number of senders.
        senders: usize,
    },
    /// See [`locality`].
    Locality {
        /// Whether the flows form a permutation or a random matrix.
        base: LocalityBase,
        /// Fraction of flows that stay in their rack, 0..=1.
        rack_local: f64,
    },
}

impl TrafficMatrix {
    /// Draws this matrix over all hosts of `layout`.
    pub fn build<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        layout: &HostLayout,
    ) -> Result<Vec<Connection>, MatrixError> {
        let n = layout.num_hosts();
        match *self {
            TrafficMatrix::Permutation => permutation(rng, n),
            TrafficMatrix::Stride { offset } => stride(n, offset),
            TrafficMatrix::StrideNextPod => stride_next_pod(layout),
            TrafficMatrix::Random {
                limits,
                sources: RandomSources::Uniform,
            } if limits == RandomLimits::default() => random(rng, n),
            TrafficMatrix::Random {
                limits,
                sources: RandomSources::Uniform,
            } => random_limited(rng, layout, limits),
            TrafficMatrix::Random {
                limits,
                sources: RandomSources::Each,
            } => random_each(rng, layout, limits),
            TrafficMatrix::Incast { senders } => incast(rng, n, senders),
            TrafficMatrix::Locality { base, rack_local } => locality(rng, layout, base, rack_local),
        }
    }
}

/// Fails unless there are at least `needed` hosts.
fn need_hosts(matrix: &'static str, needed: usize, hosts: usize) -> Result<(), MatrixError> {
    if hosts < needed {
        return Err(MatrixError::TooFewHosts {
            matrix,
            needed,
            hosts,
        });
    }
    Ok(())
}

/// A uniform host in `0..n` other than `not` (requires `n >= 2`).
fn other_host<R: Rng + ?Sized>(rng: &mut R, n: usize, not: usize) -> usize {
    let k = rng.random_range(0..n - 1);
    if k >= not {
        k + 1
    } else {
        k
    }
}

/// A permutation of hosts `0..n`: every host sends to exactly one host and receives from exactly
/// one, never itself (docs/model.md 9.2).
///
/// Pairs are drawn sequentially, as the MMPTCP driver does: host 0, 1, ... in turn takes a uniform
/// destination among those not yet taken, other than itself. If only the last host is left with
/// only itself to send to, it swaps destinations with a uniformly chosen earlier host, which keeps
/// both pairs free of self loops. The result is not uniform over all derangements (neither is the
/// driver's); it never fails or retries for `n >= 2`. Connections are listed by source.
pub fn permutation<R: Rng + ?Sized>(rng: &mut R, n: usize) -> Result<Vec<Connection>, MatrixError> {
    need_hosts("permutation", 2, n)?;
    // `free` holds the destinations not yet taken; `pos[h]` is h's index in `free` while free.
    let mut free: Vec<usize> = (0..n).collect();
    let mut pos: Vec<usize> = (0..n).collect();
    let mut dst = vec![0usize; n];
    for src in 0..n - 1 {
        // `free` has n - src >= 2 entries; skip src's own slot if it is still free.
        let own = (pos[src] < free.len() && free[pos[src]] == src).then(|| pos[src]);
        let k = match own {
            Some(own) => {
                let k = rng.random_range(0..free.len() - 1);
                if k >= own {
                    k + 1
                } else {
                    k
                }
            }
            None => rng.random_range(0..free.len()),
        };
        let d = free.swap_remove(k);
        if let Some(&moved) = free.get(k) {
            pos[moved] = k;
        }
        dst[src] = d;
    }
    let last = n - 1;
    dst[last] = free[0];
    if dst[last] == last {
        let j = rng.random_range(0..last);
        dst[last] = dst[j];
        dst[j] = last;
    }
    Ok(dst
        .into_iter()
        .enumerate()
        .map(|(src, dst)| Connection { src, dst })
        .collect())
}

/// The stride matrix `dst = (src + offset) mod n` over hosts `0..n` (docs/model.md 9.2).
pub fn stride(n: usize, offset: usize) -> Result<Vec<Connection>, MatrixError> {
    need_hosts("stride", 2, n)?;
    let shift = offset % n;
    if shift == 0 {
        return Err(MatrixError::StrideToSelf { offset, hosts: n });
    }
    Ok((0..n)
        .map(|src| Connection {
            src,
            dst: (src + shift) % n,
        })
        .collect())
}

/// Stride with the offset equal to the hosts per pod, so every host sends to the host at the
/// same position in the next pod (the last pod sends to pod 0) (docs/model.md 9.2).
///
/// Needs at least 2 pods of equal size, numbered pod by pod ([`HostLayout::uniform_pod_size`]).
pub fn stride_next_pod(layout: &HostLayout) -> Result<Vec<Connection>, MatrixError> {
    match layout.uniform_pod_size() {
        Some(per_pod) if layout.num_pods() >= 2 => stride(layout.num_hosts(), per_pod),
        _ => Err(MatrixError::NoUniformPods),
    }
}

/// The random matrix: `n` connections, each with a uniform source in `0..n` and a uniform
/// destination other than the source; sources and destinations may repeat (docs/model.md 9.2).
pub fn random<R: Rng + ?Sized>(rng: &mut R, n: usize) -> Result<Vec<Connection>, MatrixError> {
    need_hosts("random", 2, n)?;
    Ok((0..n)
        .map(|_| {
            let src = rng.random_range(0..n);
            Connection {
                src,
                dst: other_host(rng, n, src),
            }
        })
        .collect())
}

/// Limits on a random matrix ([`random_limited`], [`random_each`]); the default is no limit.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RandomLimits {
    /// The most connections any host receives (the XMP paper's random pattern: 4).
    pub max_per_destination: Option<usize>,
    /// No connection stays in its rack.
    pub exclude_rack_local: bool,
}

/// How a random matrix chooses the sources of its `n` connections.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RandomSources {
    /// Each connection has a uniform source, so a host may send several connections or none
    /// (the MMPTCP paper's random matrix; [`random`], [`random_limited`]).
    #[default]
    Uniform,
    /// Every host is the source of exactly one connection (the XMP paper's random pattern, in
    /// which every host runs one large flow at a time; [`random_each`]).
    Each,
}

/// Tries of drawing an open destination at random before [`random_limited`] and
/// [`random_each`] list the eligible ones (the result is uniform over them either way).
const DRAW_TRIES: usize = 16;

/// The index in `open` of a host uniform among those `allowed` accepts: up to [`DRAW_TRIES`]
/// draws over all of `open`, then [`choose_open`]. `None` when `allowed` accepts none.
fn pick_open<R: Rng + ?Sized>(
    rng: &mut R,
    open: &[usize],
    allowed: &impl Fn(usize) -> bool,
) -> Option<usize> {
    let drawn = (0..DRAW_TRIES)
        .map(|_| rng.random_range(0..open.len()))
        .find(|&k| allowed(open[k]));
    drawn.or_else(|| choose_open(rng, open, allowed))
}

/// The index in `open` of a host uniform among those `allowed` accepts, drawn from their list;
/// `None` (and no draw) when it accepts none.
fn choose_open<R: Rng + ?Sized>(
    rng: &mut R,
    open: &[usize],
    allowed: &impl Fn(usize) -> bool,
) -> Option<usize> {
    let listed: Vec<usize> = (0..open.len()).filter(|&k| allowed(open[k])).collect();
    listed.choose(rng).copied()
}

/// A limited random matrix's rules on a layout, checked: which (source, destination) pairs it
/// may draw and how many connections a host may receive.
struct Rules<'a> {
    layout: &'a HostLayout,
    /// The most connections a host receives (`usize::MAX`: no limit).
    cap: usize,
    exclude_rack_local: bool,
}

impl<'a> Rules<'a> {
    /// The rules of `limits` on `layout`: at least 2 hosts, a limit of at least 1, two racks
    /// when rack-local pairs are excluded.
    fn new(layout: &'a HostLayout, limits: RandomLimits) -> Result<Self, MatrixError> {
        let n = layout.num_hosts();
        need_hosts("random", 2, n)?;
        let cap = limits.max_per_destination.unwrap_or(usize::MAX);
        if cap == 0 {
            return Err(MatrixError::ZeroPerDestination);
        }
        if limits.exclude_rack_local && (0..n).all(|h| layout.same_rack(0, h)) {
            return Err(MatrixError::NoOffRackPair);
        }
        Ok(Rules {
            layout,
            cap,
            exclude_rack_local: limits.exclude_rack_local,
        })
    }

    /// Whether `src` may send to `dst` (room aside).
    fn eligible(&self, src: usize, dst: usize) -> bool {
        dst != src && !(self.exclude_rack_local && self.layout.same_rack(src, dst))
    }

    /// The hosts that may send to one of `open` (distinct hosts), ascending: each host `h`
    /// for which some `d` of `open` is [`Rules::eligible`]. Counted per rack, so it takes
    /// time in the hosts and `open`, not their product.
    fn senders_to(&self, open: &[usize]) -> Vec<usize> {
        let n = self.layout.num_hosts();
        if self.exclude_rack_local {
            let mut open_in_rack = vec![0usize; self.layout.num_racks()];
            for &d in open {
                open_in_rack[self.layout.rack_of(d)] += 1;
            }
            (0..n)
                .filter(|&h| open.len() > open_in_rack[self.layout.rack_of(h)])
                .collect()
        } else {
            let mut is_open = vec![false; n];
            for &d in open {
                is_open[d] = true;
            }
            (0..n)
                .filter(|&h| open.len() > usize::from(is_open[h]))
                .collect()
        }
    }
}

/// The random matrix with `limits`: `n` connections for `n` hosts, each with a uniform source
/// and a destination uniform among the hosts other than the source (outside its rack with
/// `exclude_rack_local`) that still receive fewer than `max_per_destination` connections.
///
/// Connections are drawn in turn. When the drawn source has no such destination left (near the
/// end, when only its own rack still has room), the source is drawn again among the hosts that
/// have one; so sources stay uniform except for those last draws. The loop is bounded: every
/// connection takes one source draw, at most 16 destination draws and one listing.
pub fn random_limited<R: Rng + ?Sized>(
    rng: &mut R,
    layout: &HostLayout,
    limits: RandomLimits,
) -> Result<Vec<Connection>, MatrixError> {
    let n = layout.num_hosts();
    let rules = Rules::new(layout, limits)?;
    let eligible = |src: usize, dst: usize| rules.eligible(src, dst);
    // The destinations with room left, and how many connections each receives.
    let mut open: Vec<usize> = (0..n).collect();
    let mut received = vec![0usize; n];
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let mut src = rng.random_range(0..n);
        let k = match pick_open(rng, &open, &|d| eligible(src, d)) {
            Some(k) => k,
            None => {
                // Capacity n x cap >= n leaves a destination open, and with 2 hosts (2 racks
                // when rack-local pairs are excluded) some host may send to it.
                let sources = rules.senders_to(&open);
                src = *sources.choose(rng).ok_or(MatrixError::NoOffRackPair)?;
                choose_open(rng, &open, &|d| eligible(src, d)).ok_or(MatrixError::NoOffRackPair)?
            }
        };
        let dst = open[k];
        received[dst] += 1;
        if received[dst] == rules.cap {
            open.swap_remove(k);
        }
        out.push(Connection { src, dst });
    }
    Ok(out)
}

/// The random matrix in which every host sends exactly one connection ([`RandomSources::Each`]):
/// `n` connections for `n` hosts, listed by source; each destination is uniform among the
/// hosts other than the source (outside its rack with `exclude_rack_local`) that still receive
/// fewer than `max_per_destination` connections.
///
/// The sources draw their destinations in a uniformly shuffled order, so no host is always
/// among the last, whose choice the limits narrow. When a source has no such destination left
/// (only its own rack, or itself, still has room), an earlier connection `(a, b)` chosen
/// uniformly among those whose `b` the source may take and whose `a` may send to a host with
/// room moves to such a host `d` (uniform), and the source takes `b`: `b` receives as many as
/// before, `d` one more. That always exists when every rack fits (below); the loop is bounded,
/// one listing at most per connection.
///
/// With `exclude_rack_local`, a rack of h hosts sends h connections to the `n - h` hosts
/// outside it, which receive at most `max_per_destination` each: a rack of more than
/// `max_per_destination x (n - h)` hosts is an error ([`MatrixError::RackOverflow`]).
pub fn random_each<R: Rng + ?Sized>(
    rng: &mut R,
    layout: &HostLayout,
    limits: RandomLimits,
) -> Result<Vec<Connection>, MatrixError> {
    let n = layout.num_hosts();
    let rules = Rules::new(layout, limits)?;
    let cap = rules.cap;
    if limits.exclude_rack_local {
        for rack in 0..layout.num_racks() {
            let rack_hosts = layout.hosts_in_rack(rack).len();
            let outside = n - rack_hosts;
            if rack_hosts > cap.saturating_mul(outside) {
                return Err(MatrixError::RackOverflow {
                    rack_hosts,
                    outside,
                    max: cap,
                });
            }
        }
    }
    let eligible = |src: usize, dst: usize| rules.eligible(src, dst);
    let mut order: Vec<usize> = (0..n).collect();
    order.shuffle(rng);
    // The destinations with room left, how many connections each receives, each source's
    // destination (usize::MAX: not drawn yet).
    let mut open: Vec<usize> = (0..n).collect();
    let mut received = vec![0usize; n];
    let mut dst = vec![usize::MAX; n];
    for (i, &src) in order.iter().enumerate() {
        let (k, to) = match pick_open(rng, &open, &|d| eligible(src, d)) {
            Some(k) => (k, src),
            None => {
                // Every host outside src's rack (or, with rack-local pairs allowed, every host
                // but src) is full; an earlier source from another rack can move to a host
                // with room and leave src its destination.
                let movable: Vec<usize> = order[..i]
                    .iter()
                    .copied()
                    .filter(|&a| eligible(src, dst[a]) && open.iter().any(|&d| eligible(a, d)))
                    .collect();
                let a = *movable.choose(rng).ok_or(MatrixError::NoOffRackPair)?;
                dst[src] = dst[a];
                let k = choose_open(rng, &open, &|d| eligible(a, d))
                    .ok_or(MatrixError::NoOffRackPair)?;
                (k, a)
            }
        };
        let d = open[k];
        dst[to] = d;
        received[d] += 1;
        if received[d] == cap {
            open.swap_remove(k);
        }
    }
    Ok(dst
        .into_iter()
        .enumerate()
        .map(|(src, dst)| Connection { src, dst })
        .collect())
}

/// An incast over hosts `0..n`: one uniform receiver and `senders` distinct uniform senders other
/// than it, listed by increasing sender (docs/model.md 9.2, 9.5).
pub fn incast<R: Rng + ?Sized>(
    rng: &mut R,
    n: usize,
    senders: usize,
) -> Result<Vec<Connection>, MatrixError> {
    need_hosts("incast", 2, n)?;
    if senders == 0 {
        return Err(MatrixError::NoSenders);
    }
    if senders > n - 1 {
        return Err(MatrixError::TooManySenders {
            senders,
            available: n - 1,
        });
    }
    let receiver = rng.random_range(0..n);
    let mut chosen: Vec<usize> = index::sample(rng, n - 1, senders)
        .into_iter()
        .map(|k| if k >= receiver { k + 1 } else { k })
        .collect();
    chosen.sort_unstable();
    Ok(chosen
        .into_iter()
        .map(|src| Connection { src, dst: receiver })
        .collect())
}

/// Every host of `senders` sends to `receiver` (e.g. BCube "read from neighbours" per host, or a
/// fixed many-to-one). Duplicate senders are kept as given.
pub fn many_to_one(senders: &[usize], receiver: usize) -> Result<Vec<Connection>, MatrixError> {
    if senders.is_empty() {
        return Err(MatrixError::NoSenders);
    }
    if senders.contains(&receiver) {
        return Err(MatrixError::ReceiverSends { host: receiver });
    }
    Ok(senders
        .iter()
        .map(|&src| Connection { src, dst: receiver })
        .collect())
}

/// The shape of a [`locality`] matrix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocalityBase {
    /// Every host sends one flow and receives one flow (p2-fig15).
    Permutation,
    /// Every host sends one flow; destinations may repeat (p2-fig8).
    Random,
}

/// A matrix in which every host sends one flow and a given fraction of the flows stay in their
/// rack (p2-fig8, p2-fig15: "fraction of rack-local flows 0..1").
///
/// The number of rack-local flows is exactly `round(rack_local x N)` for N hosts, moved to the
/// nearest count that the layout allows when that one is impossible (with `Permutation` and two
/// racks, for example, the off-rack flows must be an even number; a host alone in its rack can
/// only send off-rack). Listed by source.
///
/// `Random`: the rack-local sources are a uniform sample of the hosts in racks of at least two;
/// each sends to a uniform other host of its rack. Every other host sends to a uniform host
/// outside its rack.
///
/// `Permutation`: the off-rack senders are spread over the racks as evenly as possible (extra
/// ones to random racks) and chosen uniformly in each rack; each rack's rack-local senders send to
/// a uniform subset of the rack's hosts of the same size, matched at random without self pairs.
/// The remaining receivers of each rack take the off-rack flows: senders and receivers are listed
/// rack by rack (racks in random order, hosts shuffled in each) and sender `i` sends to receiver
/// `(i + s) mod T` for a random shift `s` with `max <= s <= T - max`, where T is the number of
/// off-rack flows and `max` the most any rack has. That keeps every such flow out of its rack. The
/// result is random but not uniform over all permutations with that many rack-local flows.
pub fn locality<R: Rng + ?Sized>(
    rng: &mut R,
    layout: &HostLayout,
    base: LocalityBase,
    rack_local: f64,
) -> Result<Vec<Connection>, MatrixError> {
    if !(0.0..=1.0).contains(&rack_local) {
        return Err(MatrixError::BadFraction {
            fraction: rack_local,
        });
    }
    let n = layout.num_hosts();
    need_hosts("locality", 2, n)?;
    let racks: Vec<usize> = (0..layout.num_racks())
        .filter(|&r| !layout.hosts_in_rack(r).is_empty())
        .collect();
    if rack_local > 0.0 && racks.iter().all(|&r| layout.hosts_in_rack(r).len() < 2) {
        return Err(MatrixError::NoRackLocalPair);
    }
    if rack_local < 1.0 && racks.len() < 2 {
        return Err(MatrixError::NoOffRackPair);
    }
    // Rounded to a whole flow; the product is in 0..=n, so the cast is exact.
    let target_local = (rack_local * n as f64).round() as usize;
    let mut dst = vec![usize::MAX; n];
    match base {
        LocalityBase::Random => {
            locality_random(rng, layout, racks.len() >= 2, target_local, &mut dst)
        }
        LocalityBase::Permutation => {
            locality_permutation(rng, layout, &racks, n - target_local, &mut dst)
        }
    }
    Ok(dst
        .into_iter()
        .enumerate()
        .map(|(src, dst)| Connection { src, dst })
        .collect())
}

/// [`locality`] with the random base; fills `dst[src]`. `multi_rack` says whether the hosts span
/// two racks or more.
fn locality_random<R: Rng + ?Sized>(
    rng: &mut R,
    layout: &HostLayout,
    multi_rack: bool,
    target_local: usize,
    dst: &mut [usize],
) {
    let n = layout.num_hosts();
    let eligible: Vec<usize> = (0..n)
        .filter(|&h| layout.hosts_in_rack(layout.rack_of(h)).len() >= 2)
        .collect();
    // With one rack `locality` only gets here with a fraction of 1, and every host is eligible.
    let local_count = if multi_rack {
        target_local.min(eligible.len())
    } else {
        eligible.len()
    };
    let mut local = vec![false; n];
    for k in index::sample(rng, eligible.len(), local_count) {
        local[eligible[k]] = true;
    }
    let by_rack = layout.hosts_by_rack();
    for src in 0..n {
        let rack = layout.rack_of(src);
        let members = layout.hosts_in_rack(rack);
        dst[src] = if local[src] {
            // `members` is sorted, so src's position is found by binary search.
            let own = members.partition_point(|&h| h < src);
            members[other_host(rng, members.len(), own)]
        } else {
            // Pick among the hosts outside the rack: by_rack minus one contiguous block.
            let start = layout.rack_start(rack);
            let k = rng.random_range(0..n - members.len());
            if k < start {
                by_rack[k]
            } else {
                by_rack[k + members.len()]
            }
        };
    }
}

/// The least possible maximum of per-rack off-rack sender counts for `remote` of them, or None
/// when no valid spread exists (see [`locality`]). `sizes` are the non-empty racks' sizes.
fn min_max_spread(sizes: &[usize], remote: usize) -> Option<usize> {
    let forced = sizes.iter().filter(|&&h| h == 1).count();
    let total: usize = sizes.iter().sum();
    if remote < forced || remote > total {
        return None;
    }
    // The least m in floor..=largest with sum(min(h, m)) >= remote, by binary search (the sum
    // grows with m, and reaches `total` >= remote at the largest rack size).
    let (mut lo, mut hi) = (
        usize::from(forced > 0),
        sizes.iter().copied().max().unwrap_or(0),
    );
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if sizes.iter().map(|&h| h.min(mid)).sum::<usize>() >= remote {
            hi = mid;
        } else {
            lo = mid + 1;
        }
    }
    let max = lo;
    // Each rack's off-rack senders need receivers in the other racks: 2 max <= remote.
    (2 * max <= remote).then_some(max)
}

/// [`locality`] with the permutation base; `target_remote` is the wanted number of off-rack flows.
fn locality_permutation<R: Rng + ?Sized>(
    rng: &mut R,
    layout: &HostLayout,
    racks: &[usize],
    target_remote: usize,
    dst: &mut [usize],
) {
    let sizes: Vec<usize> = racks
        .iter()
        .map(|&r| layout.hosts_in_rack(r).len())
        .collect();
    let n = layout.num_hosts();
    // The nearest feasible off-rack count, preferring fewer off-rack flows on ties. `locality`
    // checked that some count is feasible: 0 when a rack has 2 hosts and there is one rack, and
    // otherwise n or a smaller count (every layout with 2 racks has one).
    let (remote, max) = (0..=n)
        .flat_map(|d| [target_remote.checked_sub(d), target_remote.checked_add(d)])
        .flatten()
        .find_map(|t| min_max_spread(&sizes, t).map(|m| (t, m)))
        .unwrap_or((0, 0));

    // Spread `remote` over the racks level by level so that no rack exceeds `max`.
    let mut order: Vec<usize> = (0..racks.len()).collect();
    order.shuffle(rng);
    let mut count: Vec<usize> = sizes.iter().map(|&h| usize::from(h == 1)).collect();
    let mut left = remote.saturating_sub(count.iter().sum::<usize>());
    for level in 1..=max {
        for &i in &order {
            if left > 0 && count[i] < level && sizes[i] >= level {
                count[i] += 1;
                left -= 1;
            }
        }
    }

    let mut senders: Vec<Vec<usize>> = Vec::with_capacity(racks.len());
    let mut receivers: Vec<Vec<usize>> = Vec::with_capacity(racks.len());
    for (i, &r) in racks.iter().enumerate() {
        let mut hosts = layout.hosts_in_rack(r).to_vec();
        hosts.shuffle(rng);
        let (remote_senders, local_senders) = hosts.split_at(count[i]);
        let mut pool = layout.hosts_in_rack(r).to_vec();
        pool.shuffle(rng);
        let (local_receivers, remote_receivers) = pool.split_at_mut(local_senders.len());
        match_without_self(rng, local_senders, local_receivers, remote_receivers);
        for (&s, &d) in local_senders.iter().zip(local_receivers.iter()) {
            dst[s] = d;
        }
        senders.push(remote_senders.to_vec());
        receivers.push(remote_receivers.to_vec());
    }

    let mut rack_order: Vec<usize> = (0..racks.len()).collect();
    rack_order.shuffle(rng);
    let all_senders: Vec<usize> = rack_order
        .iter()
        .flat_map(|&i| senders[i].clone())
        .collect();
    let all_receivers: Vec<usize> = rack_order
        .iter()
        .flat_map(|&i| receivers[i].clone())
        .collect();
    if remote > 0 {
        let shift = rng.random_range(max..=remote - max);
        for (i, &s) in all_senders.iter().enumerate() {
            dst[s] = all_receivers[(i + shift) % remote];
        }
    }
}

/// Reorders `receivers` (same length as `senders`, all distinct hosts) so that no
/// `senders[i] == receivers[i]`. With one pair whose receiver is the sender itself, that receiver
/// is exchanged with a uniform host of `spare` (the rest of the rack), which must then be
/// non-empty.
fn match_without_self<R: Rng + ?Sized>(
    rng: &mut R,
    senders: &[usize],
    receivers: &mut [usize],
    spare: &mut [usize],
) {
    let len = senders.len();
    if len == 1 {
        if receivers[0] == senders[0] {
            let k = rng.random_range(0..spare.len());
            std::mem::swap(&mut receivers[0], &mut spare[k]);
        }
        return;
    }
    for i in 0..len {
        if receivers[i] == senders[i] {
            // Receivers are distinct, so any other slot holds a host other than senders[i], and
            // senders[i] is not senders[j]: the swap fixes slot i and breaks none.
            let j = other_host(rng, len, i);
            receivers.swap(i, j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    /// The XMP paper's random pattern: at most 4 connections into a host, none in its rack.
    const XMP: RandomLimits = RandomLimits {
        max_per_destination: Some(4),
        exclude_rack_local: true,
    };

    /// Racks of these sizes, numbered in order, in one pod.
    fn racks_of(sizes: &[usize]) -> HostLayout {
        let rack: Vec<usize> = sizes
            .iter()
            .enumerate()
            .flat_map(|(r, &h)| std::iter::repeat_n(r, h))
            .collect();
        let n = rack.len();
        HostLayout::from_vectors(rack, vec![0; n]).unwrap()
    }

    fn assert_derangement(m: &[Connection], n: usize) {
        assert_eq!(m.len(), n);
        let mut sent = vec![0; n];
        let mut received = vec![0; n];
        for c in m {
            assert_ne!(c.src, c.dst, "self pair");
            sent[c.src] += 1;
            received[c.dst] += 1;
        }
        assert!(sent.iter().all(|&k| k == 1), "a host sends != 1 flow");
        assert!(
            received.iter().all(|&k| k == 1),
            "a host receives != 1 flow"
        );
    }

    proptest! {
        #[test]
        fn permutation_is_a_derangement(n in 2usize..2000, seed in any::<u64>()) {
            let mut rng = Pcg64::seed_from_u64(seed);
            assert_derangement(&permutation(&mut rng, n).unwrap(), n);
        }

        #[test]
        fn locality_permutation_is_a_derangement(
            hosts_per_tor in 1usize..6,
            tors in 1usize..5,
            pods in 1usize..4,
            fraction in 0.0f64..=1.0,
            seed in any::<u64>(),
        ) {
            let layout = HostLayout::fat_tree(hosts_per_tor, tors, pods).unwrap();
            let mut rng = Pcg64::seed_from_u64(seed);
            let result = locality(&mut rng, &layout, LocalityBase::Permutation, fraction);
            match result {
                Ok(m) => {
                    assert_derangement(&m, layout.num_hosts());
                    // The count is within one of the target whenever racks are uniform and >= 3,
                    // and within 1 of an even number of off-rack flows with 2 racks.
                    let local = m.iter().filter(|c| layout.same_rack(c.src, c.dst)).count();
                    let target = (fraction * layout.num_hosts() as f64).round() as usize;
                    if layout.num_racks() >= 2 && hosts_per_tor >= 2 {
                        prop_assert!(local.abs_diff(target) <= 1, "local {} target {}", local, target);
                    }
                }
                Err(e) => prop_assert!(
                    matches!(e, MatrixError::NoRackLocalPair | MatrixError::NoOffRackPair | MatrixError::TooFewHosts { .. }),
                    "{}", e
                ),
            }
        }

        #[test]
        fn the_senders_to_open_hosts_are_those_a_pair_by_pair_search_finds(
            rack_sizes in proptest::collection::vec(1usize..7, 1..7),
            open_bits in any::<u64>(),
            exclude_rack_local in any::<bool>(),
        ) {
            let layout = racks_of(&rack_sizes);
            let n = layout.num_hosts();
            let rules = Rules { layout: &layout, cap: 1, exclude_rack_local };
            let open: Vec<usize> = (0..n).filter(|&h| open_bits >> (h % 64) & 1 == 1).collect();
            let searched: Vec<usize> = (0..n)
                .filter(|&h| open.iter().any(|&d| rules.eligible(h, d)))
                .collect();
            prop_assert_eq!(rules.senders_to(&open), searched);
        }

        #[test]
        fn locality_on_uneven_racks(
            rack_sizes in proptest::collection::vec(1usize..7, 1..7),
            fraction in 0.0f64..=1.0,
            seed in any::<u64>(),
        ) {
            let layout = racks_of(&rack_sizes);
            let n = layout.num_hosts();
            let mut rng = Pcg64::seed_from_u64(seed);
            for base in [LocalityBase::Permutation, LocalityBase::Random] {
                match locality(&mut rng, &layout, base, fraction) {
                    Ok(m) => {
                        prop_assert_eq!(m.len(), n);
                        prop_assert!(m.iter().all(|c| c.src != c.dst && c.dst < n));
                        if base == LocalityBase::Permutation {
                            assert_derangement(&m, n);
                        }
                    }
                    Err(e) => prop_assert!(
                        matches!(e, MatrixError::NoRackLocalPair | MatrixError::NoOffRackPair | MatrixError::TooFewHosts { .. }),
                        "{}", e
                    ),
                }
            }
        }
    }

    #[test]
    fn permutation_two_hosts_swaps() {
        let mut rng = Pcg64::seed_from_u64(1);
        let m = permutation(&mut rng, 2).unwrap();
        assert_eq!(
            m,
            vec![Connection { src: 0, dst: 1 }, Connection { src: 1, dst: 0 }]
        );
        assert_eq!(
            permutation(&mut rng, 1),
            Err(MatrixError::TooFewHosts {
                matrix: "permutation",
                needed: 2,
                hosts: 1
            })
        );
    }

    #[test]
    fn permutation_of_three_reaches_both_cycles() {
        // With 3 hosts, 0 -> 1 and 1 -> 0 leave host 2 only itself: the swap must repair it.
        // The only derangements of 3 are the two 3-cycles; both must appear.
        let mut seen = std::collections::BTreeSet::new();
        for seed in 0..200 {
            let mut rng = Pcg64::seed_from_u64(seed);
            let m = permutation(&mut rng, 3).unwrap();
            assert_derangement(&m, 3);
            seen.insert(m.iter().map(|c| c.dst).collect::<Vec<_>>());
        }
        assert_eq!(
            seen.into_iter().collect::<Vec<_>>(),
            [vec![1, 2, 0], vec![2, 0, 1]]
        );
    }

    #[test]
    fn stride_lands_in_the_next_pod() {
        // k = 8 FatTree at 1:1: 4 hosts per ToR, 4 ToRs per pod, 8 pods.
        let layout = HostLayout::fat_tree(4, 4, 8).unwrap();
        let m = stride_next_pod(&layout).unwrap();
        assert_eq!(m.len(), 128);
        for c in &m {
            assert_eq!(c.dst, (c.src + 16) % 128);
            assert_eq!(layout.pod_of(c.dst), (layout.pod_of(c.src) + 1) % 8);
        }
        let one_pod = HostLayout::fat_tree(4, 4, 1).unwrap();
        assert_eq!(stride_next_pod(&one_pod), Err(MatrixError::NoUniformPods));
        assert_eq!(
            stride(8, 16),
            Err(MatrixError::StrideToSelf {
                offset: 16,
                hosts: 8
            })
        );
        assert_eq!(stride(8, 11).unwrap()[7], Connection { src: 7, dst: 2 });
    }

    #[test]
    fn random_has_no_self_pairs_and_spreads() {
        let mut rng = Pcg64::seed_from_u64(7);
        let n = 128;
        let mut hits = vec![0usize; n];
        for _ in 0..100 {
            let m = random(&mut rng, n).unwrap();
            assert_eq!(m.len(), n);
            for c in m {
                assert_ne!(c.src, c.dst);
                hits[c.dst] += 1;
            }
        }
        // 100 destinations per host on average; uniform draws stay well within 50..150.
        assert!(hits.iter().all(|&h| (50..150).contains(&h)), "{hits:?}");
    }

    #[test]
    fn random_matrices_never_exceed_the_limit() {
        // The XMP paper's random pattern: at most 4 flows per destination; here also off-rack.
        let layout = HostLayout::fat_tree(4, 4, 8).unwrap();
        let (mut most, mut most_each) = (0, 0);
        for seed in 0..300 {
            let mut rng = Pcg64::seed_from_u64(seed);
            let each = random_each(&mut rng, &layout, XMP).unwrap();
            most_each = most_each.max(*assert_each(&each, &layout, XMP).iter().max().unwrap());
            let m = random_limited(&mut rng, &layout, XMP).unwrap();
            assert_eq!(m.len(), 128);
            let mut received = [0usize; 128];
            for c in &m {
                assert!(!layout.same_rack(c.src, c.dst), "{c:?} stays in its rack");
                received[c.dst] += 1;
            }
            let max = *received.iter().max().unwrap();
            assert!(max <= 4, "seed {seed}: a host receives {max}");
            most = most.max(max);
        }
        // Unlimited, 128 uniform draws put 4 or more on one of 128 hosts almost always.
        assert_eq!((most, most_each), (4, 4), "the limit never bound");
        // A limit of 1 makes every host receive exactly once.
        let one = RandomLimits {
            max_per_destination: Some(1),
            exclude_rack_local: false,
        };
        for seed in 0..50 {
            let mut rng = Pcg64::seed_from_u64(seed);
            let m = random_limited(&mut rng, &HostLayout::fat_tree(1, 2, 2).unwrap(), one).unwrap();
            let mut dsts: Vec<usize> = m.iter().map(|c| c.dst).collect();
            dsts.sort_unstable();
            assert_eq!(dsts, [0, 1, 2, 3]);
            assert!(m.iter().all(|c| c.src != c.dst));
        }
    }

    #[test]
    fn random_limited_spreads_sources_and_checks_its_limits() {
        let layout = HostLayout::fat_tree(4, 4, 8).unwrap();
        let limits = RandomLimits {
            max_per_destination: Some(4),
            exclude_rack_local: false,
        };
        let mut rng = Pcg64::seed_from_u64(3);
        let mut sent = vec![0usize; 128];
        for _ in 0..100 {
            for c in random_limited(&mut rng, &layout, limits).unwrap() {
                sent[c.src] += 1;
            }
        }
        // 100 flows per host on average, as from uniform sources.
        assert!(sent.iter().all(|&h| (50..150).contains(&h)), "{sent:?}");
        let zero = RandomLimits {
            max_per_destination: Some(0),
            exclude_rack_local: false,
        };
        assert_eq!(
            random_limited(&mut rng, &layout, zero),
            Err(MatrixError::ZeroPerDestination)
        );
        let off_rack = RandomLimits {
            max_per_destination: None,
            exclude_rack_local: true,
        };
        let one_rack = HostLayout::fat_tree(8, 1, 1).unwrap();
        assert_eq!(
            random_limited(&mut rng, &one_rack, off_rack),
            Err(MatrixError::NoOffRackPair)
        );
        // Without limits `build` draws the plain random matrix.
        let mut a = Pcg64::seed_from_u64(9);
        let mut b = Pcg64::seed_from_u64(9);
        assert_eq!(
            TrafficMatrix::Random {
                limits: RandomLimits::default(),
                sources: RandomSources::Uniform,
            }
            .build(&mut a, &layout),
            random(&mut b, 128)
        );
    }

    /// Pearson's chi-square statistic of `counts` against `expected` in every cell.
    fn chi_square(counts: impl IntoIterator<Item = usize>, expected: f64) -> f64 {
        counts
            .into_iter()
            .map(|o| (o as f64 - expected).powi(2) / expected)
            .sum()
    }

    /// Checks a [`random_each`] matrix on `layout`: listed by source, every host the source of
    /// one connection, no self pair, within `limits`. Returns what each host receives.
    fn assert_each(m: &[Connection], layout: &HostLayout, limits: RandomLimits) -> Vec<usize> {
        let n = layout.num_hosts();
        assert_eq!(m.len(), n);
        let mut received = vec![0usize; n];
        for (i, c) in m.iter().enumerate() {
            assert_eq!(c.src, i, "not listed by source");
            assert_ne!(c.src, c.dst, "self pair");
            if limits.exclude_rack_local {
                assert!(!layout.same_rack(c.src, c.dst), "{c:?} stays in its rack");
            }
            received[c.dst] += 1;
        }
        let cap = limits.max_per_destination.unwrap_or(usize::MAX);
        assert!(
            received.iter().all(|&r| r <= cap),
            "{received:?} over {cap}"
        );
        received
    }

    proptest! {
        #[test]
        fn random_each_fills_every_layout_that_fits(
            rack_sizes in proptest::collection::vec(1usize..7, 1..7),
            cap in proptest::option::of(1usize..4),
            exclude_rack_local in any::<bool>(),
            seed in any::<u64>(),
        ) {
            let layout = racks_of(&rack_sizes);
            let n = layout.num_hosts();
            let limits = RandomLimits { max_per_destination: cap, exclude_rack_local };
            let mut rng = Pcg64::seed_from_u64(seed);
            // Feasible exactly when every rack's hosts fit into what the others may receive.
            let fits = n >= 2
                && (!exclude_rack_local
                    || (rack_sizes.len() >= 2
                        && rack_sizes
                            .iter()
                            .all(|&h| h <= cap.unwrap_or(usize::MAX).saturating_mul(n - h))));
            match random_each(&mut rng, &layout, limits) {
                Ok(m) => {
                    prop_assert!(fits, "drawn where no matrix fits: {:?}", m);
                    assert_each(&m, &layout, limits);
                }
                Err(e) => {
                    prop_assert!(!fits, "{}", e);
                    prop_assert!(
                        matches!(e, MatrixError::RackOverflow { .. } | MatrixError::NoOffRackPair | MatrixError::TooFewHosts { .. }),
                        "{}", e
                    );
                }
            }
        }
    }

    #[test]
    fn random_each_sends_one_connection_from_every_host() {
        // (With the XMP paper's limits: `random_matrices_never_exceed_the_limit`.) A limit of 1
        // leaves the last sources only themselves or their rack: the repair makes every draw a
        // derangement, off-rack when asked.
        for (layout, exclude_rack_local) in [
            (HostLayout::fat_tree(4, 4, 8).unwrap(), false),
            (HostLayout::fat_tree(2, 2, 2).unwrap(), true),
            (HostLayout::fat_tree(3, 1, 2).unwrap(), true),
        ] {
            let one = RandomLimits {
                max_per_destination: Some(1),
                exclude_rack_local,
            };
            for seed in 0..200 {
                let mut rng = Pcg64::seed_from_u64(seed);
                let m = random_each(&mut rng, &layout, one).unwrap();
                assert_each(&m, &layout, one);
                assert_derangement(&m, layout.num_hosts());
            }
        }
        // Same seed, same matrix; another seed, another.
        let layout = HostLayout::fat_tree(4, 4, 8).unwrap();
        let draw = |seed| random_each(&mut Pcg64::seed_from_u64(seed), &layout, XMP).unwrap();
        assert_eq!(draw(5), draw(5));
        assert_ne!(draw(5), draw(6));
        // `build` dispatches on the sources.
        let each = TrafficMatrix::Random {
            limits: XMP,
            sources: RandomSources::Each,
        };
        assert_eq!(
            each.build(&mut Pcg64::seed_from_u64(5), &layout),
            Ok(draw(5))
        );
    }

    #[test]
    fn random_each_destinations_are_uniform() {
        // Chi-square statistics cut off at the 0.999 quantile of their distribution (by the
        // Wilson-Hilferty approximation). With a limit, counts vary less than multinomial ones,
        // so a uniform draw stays further below the cut-off; a bias against the sources that
        // draw last (whose choice the limits narrow) shows in their rows.
        let layout = HostLayout::fat_tree(4, 4, 8).unwrap();
        let seeds = 3000;
        // pairs[src][dst]: connections from src to dst over all draws, and the statistic summed
        // over the sources, each over the destinations it may take (`eligible` of them).
        let pooled = |limits: RandomLimits| {
            let mut pairs = vec![vec![0usize; 128]; 128];
            for seed in 0..seeds {
                let m = random_each(&mut Pcg64::seed_from_u64(seed), &layout, limits).unwrap();
                assert_each(&m, &layout, limits);
                m.iter().for_each(|c| pairs[c.src][c.dst] += 1);
            }
            let eligible = |src: usize, dst: usize| {
                src != dst && !(limits.exclude_rack_local && layout.same_rack(src, dst))
            };
            let width = (0..128).filter(|&d| eligible(0, d)).count();
            let chi: f64 = (0..128)
                .map(|src| {
                    let row = (0..128)
                        .filter(|&d| eligible(src, d))
                        .map(|d| pairs[src][d]);
                    chi_square(row, seeds as f64 / width as f64)
                })
                .sum();
            let received = (0..128).map(|d| (0..128).map(|s| pairs[s][d]).sum::<usize>());
            (chi, chi_square(received, seeds as f64))
        };
        // The XMP pattern: every source over the 124 hosts outside its rack, 128 x 123 degrees
        // of freedom (cut-off 16298.1); every host receives alike, 127 (cut-off 182.0).
        let (chi, received) = pooled(XMP);
        assert!(chi < 16298.1, "pairs: chi-square {chi:.1}");
        assert!(received < 182.0, "destinations: chi-square {received:.1}");
        // At most 1 per destination (an off-rack derangement), the limit binds at the end of
        // every draw: drawn in a fixed order instead of a shuffled one, this reaches 16546.
        let (chi, received) = pooled(RandomLimits {
            max_per_destination: Some(1),
            exclude_rack_local: true,
        });
        assert!(chi < 16298.1, "pairs, at most 1: chi-square {chi:.1}");
        assert_eq!(received, 0.0, "a derangement");
        // Without limits: every source over the 127 others, 128 x 126 (cut-off 16688.7).
        let (chi, received) = pooled(RandomLimits::default());
        assert!(chi < 16688.7, "pairs, no limit: chi-square {chi:.1}");
        assert!(
            received < 182.0,
            "destinations, no limit: chi-square {received:.1}"
        );
    }

    #[test]
    fn random_each_rejects_a_rack_that_cannot_send_out() {
        // Racks of 3 and 1 with at most 1 per destination: the 3 hosts have 1 host outside.
        let layout = racks_of(&[3, 1]);
        let limits = RandomLimits {
            max_per_destination: Some(1),
            exclude_rack_local: true,
        };
        let mut rng = Pcg64::seed_from_u64(1);
        let e = random_each(&mut rng, &layout, limits).unwrap_err();
        assert_eq!(
            e,
            MatrixError::RackOverflow {
                rack_hosts: 3,
                outside: 1,
                max: 1
            }
        );
        assert_eq!(
            e.to_string(),
            "a rack of 3 hosts sends 3 connections out of the rack, and the 1 hosts outside it \
             receive at most 1 each"
        );
        // At most 3 each, they fit.
        let three = RandomLimits {
            max_per_destination: Some(3),
            ..limits
        };
        let m = random_each(&mut rng, &layout, three).unwrap();
        assert_eq!(assert_each(&m, &layout, three)[3], 3);
        let zero = RandomLimits {
            max_per_destination: Some(0),
            ..limits
        };
        assert_eq!(
            random_each(&mut rng, &layout, zero),
            Err(MatrixError::ZeroPerDestination)
        );
        let one_rack = HostLayout::fat_tree(8, 1, 1).unwrap();
        assert_eq!(
            random_each(&mut rng, &one_rack, three),
            Err(MatrixError::NoOffRackPair)
        );
    }

    #[test]
    fn incast_distinct_senders() {
        let mut rng = Pcg64::seed_from_u64(3);
        let m = incast(&mut rng, 128, 100).unwrap();
        assert_eq!(m.len(), 100);
        let receiver = m[0].dst;
        assert!(m.iter().all(|c| c.dst == receiver && c.src != receiver));
        assert!(
            m.windows(2).all(|w| w[0].src < w[1].src),
            "distinct, sorted"
        );
        assert_eq!(incast(&mut rng, 128, 127).unwrap().len(), 127);
        assert_eq!(
            incast(&mut rng, 128, 128),
            Err(MatrixError::TooManySenders {
                senders: 128,
                available: 127
            })
        );
        assert_eq!(incast(&mut rng, 128, 0), Err(MatrixError::NoSenders));
    }

    #[test]
    fn many_to_one_checks_receiver() {
        assert_eq!(many_to_one(&[1, 2], 0).unwrap().len(), 2);
        assert_eq!(
            many_to_one(&[1, 2], 2),
            Err(MatrixError::ReceiverSends { host: 2 })
        );
        assert_eq!(many_to_one(&[], 2), Err(MatrixError::NoSenders));
    }

    #[test]
    fn locality_random_hits_the_exact_fraction() {
        // p2-fig8: 4:1 FatTree k = 8, 512 hosts.
        let layout = HostLayout::fat_tree(16, 4, 8).unwrap();
        let mut rng = Pcg64::seed_from_u64(11);
        for fraction in [0.0, 0.25, 0.5, 1.0] {
            let m = locality(&mut rng, &layout, LocalityBase::Random, fraction).unwrap();
            assert_eq!(m.len(), 512);
            assert!(m.iter().all(|c| c.src != c.dst));
            assert!(m.iter().enumerate().all(|(i, c)| c.src == i));
            let local = m.iter().filter(|c| layout.same_rack(c.src, c.dst)).count();
            assert_eq!(local, (fraction * 512.0) as usize, "fraction {fraction}");
        }
    }

    #[test]
    fn locality_permutation_exact_on_a_fat_tree() {
        let layout = HostLayout::fat_tree(16, 4, 8).unwrap();
        let mut rng = Pcg64::seed_from_u64(5);
        for fraction in [0.0, 0.1, 0.5, 0.9, 1.0] {
            let m = locality(&mut rng, &layout, LocalityBase::Permutation, fraction).unwrap();
            assert_derangement(&m, 512);
            let local = m.iter().filter(|c| layout.same_rack(c.src, c.dst)).count();
            assert_eq!(local, (fraction * 512.0_f64).round() as usize);
        }
    }

    #[test]
    fn locality_corner_cases() {
        let mut rng = Pcg64::seed_from_u64(9);
        // Two racks of 3: the off-rack count must be even, so 1 off-rack flow becomes 0 or 2.
        let two = HostLayout::fat_tree(3, 2, 1).unwrap();
        let m = locality(&mut rng, &two, LocalityBase::Permutation, 5.0 / 6.0).unwrap();
        assert_derangement(&m, 6);
        let off = m.iter().filter(|c| !two.same_rack(c.src, c.dst)).count();
        assert_eq!(off, 0);
        // One host per rack: nothing can be rack-local.
        let singles = HostLayout::fat_tree(1, 4, 1).unwrap();
        assert_eq!(
            locality(&mut rng, &singles, LocalityBase::Random, 0.5),
            Err(MatrixError::NoRackLocalPair)
        );
        let m = locality(&mut rng, &singles, LocalityBase::Permutation, 0.0).unwrap();
        assert_derangement(&m, 4);
        // One rack: nothing can leave it.
        let one = HostLayout::fat_tree(4, 1, 1).unwrap();
        assert_eq!(
            locality(&mut rng, &one, LocalityBase::Permutation, 0.5),
            Err(MatrixError::NoOffRackPair)
        );
        let m = locality(&mut rng, &one, LocalityBase::Permutation, 1.0).unwrap();
        assert_derangement(&m, 4);
        assert!(matches!(
            locality(&mut rng, &one, LocalityBase::Random, 1.5),
            Err(MatrixError::BadFraction { .. })
        ));
        assert!(matches!(
            locality(&mut rng, &one, LocalityBase::Random, f64::NAN),
            Err(MatrixError::BadFraction { .. })
        ));
    }

    #[test]
    fn build_dispatches() {
        let layout = HostLayout::fat_tree(4, 4, 8).unwrap();
        let mut rng = Pcg64::seed_from_u64(2);
        let m = TrafficMatrix::Incast { senders: 20 }
            .build(&mut rng, &layout)
            .unwrap();
        assert_eq!(m.len(), 20);
        let m = TrafficMatrix::Stride { offset: 1 }
            .build(&mut rng, &layout)
            .unwrap();
        assert_eq!(m[127], Connection { src: 127, dst: 0 });
    }
}
