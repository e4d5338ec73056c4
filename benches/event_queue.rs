//! Pending-event queue throughput: the hold model on [`HeapQueue`] and [`WheelQueue`].
//!
//! Each structure is pre-filled with `N` events (N = 1e3, 1e5, 1e6); every step then pops the
//! earliest event and schedules one new event at the popped time plus a random increment, so
//! the pending count stays `N`. Increments come from one of two distributions:
//!
//! * `exp`: exponential, mean 10 us;
//! * `network`: 90% uniform in [0.1, 10] us (serialisation and propagation), 9% exactly 120 ns
//!   (the next back-to-back 1500-byte packet at 100 Gb/s), 1% exactly 200 ms (retransmission
//!   timers).
//!
//! The pre-fill draws from the hold model's stationary distribution (the residual-life
//! distribution of the increments), so a measurement sees the steady state from its first
//! step, whatever the number of iterations. In that steady state the `network` mix's pending
//! set is mostly 200 ms timers, with the pops dominated by the short events.
//!
//! Increments are drawn up front from a fixed-seed PCG into a table that the steps cycle
//! through, so the measurement is of the queue, not of the random number generator. Event
//! payloads are 16 bytes, like the engine's events. The queue persists across criterion
//! iterations (no per-iteration setup), 1000 steps per iteration. Throughput is reported in
//! events (one pop plus one schedule) per second.
//!
//! `hold/floor/fifo` runs the same steps on a FIFO (not a priority queue: it ignores the
//! times) to show what the harness itself costs per step: about 4 ns (240 M steps/s) on the
//! development machine, against 25 ns for [`WheelQueue`] at 1e5 pending.
//!
//! Run with `cargo bench --bench event_queue` (about 1.5 minutes on an idle 2-core machine).
//! The figures and the choice they support are in the `htsim_core::event_queue` documentation.

use std::collections::VecDeque;
use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use htsim_core::event_queue::{HeapQueue, PendingEvents, WheelQueue};
use htsim_core::SimTime;
use rand::Rng;
use rand::SeedableRng;
use rand_pcg::Pcg64Mcg;

/// A 16-byte event payload, shaped like the engine's events.
#[derive(Clone, Copy, Debug)]
enum Event {
    /// An event for one component (a link, a queue).
    Component(u32),
    /// An event with three ids (e.g. a timer: flow, kind, generation).
    Timer(u32, u32, u32),
}

/// Number of pre-drawn increments the hold steps cycle through (a power of two).
const TABLE_LEN: usize = 1 << 16;
/// Hold steps per criterion iteration.
const STEPS_PER_ITER: usize = 1_000;
/// Picoseconds per microsecond.
const US: u64 = 1_000_000;

/// An increment distribution, in picoseconds.
#[derive(Clone, Copy, Debug)]
enum Increments {
    /// Exponential with this mean.
    Exponential { mean_ps: u64 },
    /// The network mix described in the module documentation.
    Network,
}

/// Network mix: uniform range for 90% of the increments.
const NET_UNIFORM_PS: (u64, u64) = (US / 10, 10 * US);
/// Network mix: serialisation time for 9% of the increments (1500 B at 100 Gb/s).
const NET_SERIALISATION_PS: u64 = 120_000;
/// Network mix: timer for 1% of the increments (200 ms).
const NET_TIMER_PS: u64 = 200_000 * US;

impl Increments {
    /// The label used in benchmark names.
    fn name(self) -> &'static str {
        match self {
            Increments::Exponential { .. } => "exp",
            Increments::Network => "network",
        }
    }

    /// One increment.
    fn draw(self, rng: &mut Pcg64Mcg) -> u64 {
        match self {
            Increments::Exponential { mean_ps } => exponential(rng, mean_ps),
            Increments::Network => {
                let p: f64 = rng.random();
                if p < 0.90 {
                    rng.random_range(NET_UNIFORM_PS.0..=NET_UNIFORM_PS.1)
                } else if p < 0.99 {
                    NET_SERIALISATION_PS
                } else {
                    NET_TIMER_PS
                }
            }
        }
    }

    /// The time until a pending event fires, in the hold model's steady state: the residual
    /// life of an increment, whose density is proportional to P(increment > x).
    fn draw_residual(self, rng: &mut Pcg64Mcg) -> u64 {
        match self {
            // Memoryless.
            Increments::Exponential { mean_ps } => exponential(rng, mean_ps),
            Increments::Network => {
                // Pick a component with probability proportional to weight * mean.
                let uniform_mean = (NET_UNIFORM_PS.0 + NET_UNIFORM_PS.1) as f64 / 2.0;
                let parts = [
                    0.90 * uniform_mean,
                    0.09 * NET_SERIALISATION_PS as f64,
                    0.01 * NET_TIMER_PS as f64,
                ];
                let mut p = rng.random::<f64>() * parts.iter().sum::<f64>();
                if p < parts[0] {
                    // Rejection sampling of the density P(uniform > x) on [0, max].
                    loop {
                        let x = rng.random_range(0..=NET_UNIFORM_PS.1);
                        let survive = if x <= NET_UNIFORM_PS.0 {
                            1.0
                        } else {
                            (NET_UNIFORM_PS.1 - x) as f64
                                / (NET_UNIFORM_PS.1 - NET_UNIFORM_PS.0) as f64
                        };
                        if rng.random::<f64>() < survive {
                            return x;
                        }
                    }
                }
                p -= parts[0];
                if p < parts[1] {
                    rng.random_range(0..NET_SERIALISATION_PS)
                } else {
                    rng.random_range(0..NET_TIMER_PS)
                }
            }
        }
    }
}

/// An exponential draw with mean `mean_ps`, rounded to the picosecond.
fn exponential(rng: &mut Pcg64Mcg, mean_ps: u64) -> u64 {
    let u: f64 = rng.random();
    (-(1.0 - u).ln() * mean_ps as f64).round() as u64
}

/// A queue in the hold model's steady state, with the increments its steps will use.
struct Hold<Q> {
    queue: Q,
    increments: Vec<u64>,
    next: usize,
}

impl<Q: PendingEvents<Event>> Hold<Q> {
    /// `queue` pre-filled with `pending` events from `dist`'s steady state.
    fn new(mut queue: Q, pending: usize, dist: Increments) -> Self {
        let mut rng = Pcg64Mcg::seed_from_u64(0x5eed_4e1d);
        for i in 0..pending {
            let event = if i % 2 == 0 {
                Event::Component(i as u32)
            } else {
                Event::Timer(i as u32, 1, 2)
            };
            queue.schedule(SimTime(dist.draw_residual(&mut rng)), event);
        }
        let increments = (0..TABLE_LEN).map(|_| dist.draw(&mut rng)).collect();
        Hold {
            queue,
            increments,
            next: 0,
        }
    }

    /// `steps` hold steps: pop the earliest event, schedule it again a random increment later.
    #[inline]
    fn run(&mut self, steps: usize) {
        for _ in 0..steps {
            let (t, event) = self.queue.pop().expect("the hold model never empties");
            // A stand-in for the engine's dispatch: the handler turns one event into the next.
            let next_event = match black_box(event) {
                Event::Component(id) => Event::Timer(id, 0, 1),
                Event::Timer(id, kind, generation) => Event::Component(id ^ kind ^ generation),
            };
            let increment = self.increments[self.next % TABLE_LEN];
            self.next = self.next.wrapping_add(1);
            self.queue.schedule(SimTime(t.0 + increment), next_event);
        }
    }
}

/// Benchmarks `queue` (fresh, empty) in the hold model.
fn bench_one<Q: PendingEvents<Event>>(
    c: &mut Criterion,
    dist: Increments,
    name: &str,
    pending: usize,
    queue: Q,
) {
    let mut group = c.benchmark_group(format!("hold/{}", dist.name()));
    group.throughput(Throughput::Elements(STEPS_PER_ITER as u64));
    let mut hold = Hold::new(queue, pending, dist);
    group.bench_function(BenchmarkId::new(name, pending), |b| {
        b.iter(|| hold.run(STEPS_PER_ITER))
    });
    group.finish();
}

/// The harness's own cost: a FIFO in place of a priority queue (pops in scheduling order).
struct Fifo(VecDeque<(SimTime, Event)>);

impl PendingEvents<Event> for Fifo {
    fn schedule(&mut self, at: SimTime, event: Event) {
        self.0.push_back((at, event));
    }
    fn pop(&mut self) -> Option<(SimTime, Event)> {
        self.0.pop_front()
    }
    fn peek_time(&mut self) -> Option<SimTime> {
        self.0.front().map(|&(t, _)| t)
    }
    fn len(&self) -> usize {
        self.0.len()
    }
}

/// Both structures, both increment distributions, 1e3, 1e5 and 1e6 pending events; and the
/// harness alone at 1e5.
fn hold_model(c: &mut Criterion) {
    for dist in [
        Increments::Exponential { mean_ps: 10 * US },
        Increments::Network,
    ] {
        for pending in [1_000, 100_000, 1_000_000] {
            bench_one(c, dist, "heap", pending, HeapQueue::new());
            bench_one(c, dist, "wheel", pending, WheelQueue::new());
        }
    }
    let mut floor = c.benchmark_group("hold/floor");
    floor.throughput(Throughput::Elements(STEPS_PER_ITER as u64));
    let mut hold = Hold::new(
        Fifo(VecDeque::new()),
        100_000,
        Increments::Exponential { mean_ps: 10 * US },
    );
    floor.bench_function(BenchmarkId::new("fifo", 100_000), |b| {
        b.iter(|| hold.run(STEPS_PER_ITER))
    });
    floor.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = hold_model
}
criterion_main!(benches);
