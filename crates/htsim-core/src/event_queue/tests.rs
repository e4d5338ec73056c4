//! Tests of both pending-event structures against a simple sorted-vector reference.

use proptest::prelude::*;

use super::{HeapQueue, PendingEvents, WheelQueue};
use crate::SimTime;

/// The reference: a vector sorted by (time, seq), popped from the front.
#[derive(Default)]
struct Reference {
    events: Vec<(u64, u64, u32)>,
    next_seq: u64,
}

impl PendingEvents<u32> for Reference {
    fn schedule(&mut self, at: SimTime, event: u32) {
        let key = (at.0, self.next_seq);
        self.next_seq += 1;
        let i = self.events.partition_point(|&(t, s, _)| (t, s) < key);
        self.events.insert(i, (key.0, key.1, event));
    }
    fn pop(&mut self) -> Option<(SimTime, u32)> {
        if self.events.is_empty() {
            return None;
        }
        let (t, _, e) = self.events.remove(0);
        Some((SimTime(t), e))
    }
    fn peek_time(&mut self) -> Option<SimTime> {
        self.events.first().map(|&(t, _, _)| SimTime(t))
    }
    fn len(&self) -> usize {
        self.events.len()
    }
}

/// When an event is scheduled, relative to the last popped time `now`.
#[derive(Clone, Copy, Debug)]
enum When {
    /// Exactly `now`.
    Now,
    /// The same time as the previously scheduled event (if not before `now`).
    SameAsLast,
    /// `now + d`.
    After(u64),
    /// `u64::MAX - d` (near "never").
    NearMax(u64),
}

#[derive(Clone, Copy, Debug)]
enum Op {
    /// Schedule `count` events at the same time.
    Schedule(When, u8),
    Pop,
    Peek,
}

fn when() -> impl Strategy<Value = When> {
    prop_oneof![
        2 => Just(When::Now),
        3 => Just(When::SameAsLast),
        4 => (0u64..64).prop_map(When::After),
        6 => (0u64..5_000).prop_map(When::After),
        6 => (0u64..10_000_000).prop_map(When::After),
        2 => (100_000_000_000u64..5_000_000_000_000).prop_map(When::After),
        1 => (0u64..1_000).prop_map(When::NearMax),
        1 => Just(When::NearMax(0)),
    ]
}

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => (when(), Just(1u8)).prop_map(|(w, n)| Op::Schedule(w, n)),
        1 => (when(), 2u8..40).prop_map(|(w, n)| Op::Schedule(w, n)),
        8 => Just(Op::Pop),
        2 => Just(Op::Peek),
    ]
}

/// Drives `queues` (all starting empty) through `ops`, then drains them, checking every result
/// against the reference.
fn check_against_reference(ops: &[Op], queues: &mut [&mut dyn PendingEvents<u32>]) {
    let mut reference = Reference::default();
    let mut now = 0u64;
    let mut last_scheduled = 0u64;
    let mut next_id = 0u32;
    for op in ops {
        match *op {
            Op::Schedule(when, count) => {
                let at = match when {
                    When::Now => now,
                    When::SameAsLast => last_scheduled.max(now),
                    When::After(d) => now.saturating_add(d),
                    When::NearMax(d) => (u64::MAX - d).max(now),
                };
                last_scheduled = at;
                for _ in 0..count {
                    reference.schedule(SimTime(at), next_id);
                    for q in queues.iter_mut() {
                        q.schedule(SimTime(at), next_id);
                    }
                    next_id += 1;
                }
            }
            Op::Pop => {
                let expected = reference.pop();
                if let Some((t, _)) = expected {
                    now = t.0;
                }
                for q in queues.iter_mut() {
                    assert_eq!(q.pop(), expected);
                }
            }
            Op::Peek => {
                let expected = reference.peek_time();
                for q in queues.iter_mut() {
                    assert_eq!(q.peek_time(), expected);
                }
            }
        }
        for q in queues.iter_mut() {
            assert_eq!(q.len(), reference.len());
            assert_eq!(q.is_empty(), reference.len() == 0);
        }
    }
    while let Some(expected) = reference.pop() {
        for q in queues.iter_mut() {
            assert_eq!(q.peek_time(), Some(expected.0));
            assert_eq!(q.pop(), Some(expected));
        }
    }
    for q in queues.iter_mut() {
        assert_eq!(q.pop(), None);
        assert_eq!(q.peek_time(), None);
        assert!(q.is_empty());
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn both_structures_match_the_reference(ops in prop::collection::vec(op(), 0..3000)) {
        let mut heap = HeapQueue::new();
        let mut wheel = WheelQueue::new();
        let mut retuning = WheelQueue::with_min_window(8);
        check_against_reference(&ops, &mut [&mut heap, &mut wheel, &mut retuning]);
    }
}

/// All structures under test, as trait objects.
fn all_structures() -> Vec<Box<dyn PendingEvents<u32>>> {
    vec![
        Box::new(HeapQueue::new()),
        Box::new(WheelQueue::new()),
        Box::new(WheelQueue::with_min_window(8)),
    ]
}

#[test]
fn empty_queue() {
    for mut q in all_structures() {
        assert!(q.is_empty());
        assert_eq!(q.len(), 0);
        assert_eq!(q.peek_time(), None);
        assert_eq!(q.pop(), None);
        q.schedule(SimTime(5), 1);
        assert_eq!(q.len(), 1);
        assert_eq!(q.pop(), Some((SimTime(5), 1)));
        assert_eq!(q.pop(), None);
        assert!(q.is_empty());
    }
}

#[test]
fn equal_times_come_out_fifo() {
    for mut q in all_structures() {
        // Interleave three time values so that ties are spread over the insertion order.
        let times = [
            SimTime::from_us(3),
            SimTime::from_ns(7),
            SimTime::from_secs(2),
        ];
        for id in 0..3000u32 {
            q.schedule(times[id as usize % 3], id);
        }
        for (k, &t) in [1usize, 0, 2].iter().map(|&k| (k, &times[k])) {
            for id in (k as u32..3000).step_by(3) {
                assert_eq!(q.pop(), Some((t, id)));
            }
        }
        assert!(q.is_empty());
    }
}

#[test]
fn scheduling_at_the_current_time_while_draining() {
    for mut q in all_structures() {
        let t = SimTime::from_ns(100);
        for id in 0..10 {
            q.schedule(t, id);
        }
        q.schedule(t + SimTime(1), 100);
        // Pop half of the events at `t`, then add more at exactly `t` and just after it.
        for id in 0..5 {
            assert_eq!(q.pop(), Some((t, id)));
        }
        q.schedule(t, 10);
        q.schedule(t + SimTime(1), 101);
        q.schedule(t, 11);
        let mut rest = Vec::new();
        while let Some(e) = q.pop() {
            rest.push(e);
        }
        let mut expected: Vec<_> = (5..12).map(|id| (t, id)).collect();
        expected.extend([(t + SimTime(1), 100), (t + SimTime(1), 101)]);
        assert_eq!(rest, expected);
    }
}

#[test]
fn scheduling_between_now_and_a_peeked_time() {
    // `peek_time` may move the wheel to a far bucket; an event scheduled afterwards between the
    // last popped time and that bucket must still come first.
    for mut q in all_structures() {
        q.schedule(SimTime::from_ns(1), 0);
        q.schedule(SimTime::from_secs(3), 1);
        assert_eq!(q.pop(), Some((SimTime::from_ns(1), 0)));
        assert_eq!(q.peek_time(), Some(SimTime::from_secs(3)));
        q.schedule(SimTime::from_ns(2), 2);
        q.schedule(SimTime::from_ns(1), 3);
        assert_eq!(q.peek_time(), Some(SimTime::from_ns(1)));
        assert_eq!(q.pop(), Some((SimTime::from_ns(1), 3)));
        assert_eq!(q.pop(), Some((SimTime::from_ns(2), 2)));
        assert_eq!(q.pop(), Some((SimTime::from_secs(3), 1)));
    }
}

#[test]
fn times_up_to_max() {
    for mut q in all_structures() {
        q.schedule(SimTime::MAX, 0);
        q.schedule(SimTime(u64::MAX - 1), 1);
        q.schedule(SimTime::from_secs(189), 2);
        q.schedule(SimTime::MAX, 3);
        q.schedule(SimTime::ZERO, 4);
        assert_eq!(q.pop(), Some((SimTime::ZERO, 4)));
        assert_eq!(q.pop(), Some((SimTime::from_secs(189), 2)));
        assert_eq!(q.pop(), Some((SimTime(u64::MAX - 1), 1)));
        q.schedule(SimTime::MAX, 5);
        assert_eq!(q.pop(), Some((SimTime::MAX, 0)));
        q.schedule(SimTime::MAX, 6);
        assert_eq!(q.pop(), Some((SimTime::MAX, 3)));
        assert_eq!(q.pop(), Some((SimTime::MAX, 5)));
        assert_eq!(q.pop(), Some((SimTime::MAX, 6)));
        assert_eq!(q.pop(), None);
    }
}

#[test]
fn len_bookkeeping() {
    for mut q in all_structures() {
        let mut expected = 0;
        let mut now = SimTime::ZERO;
        for round in 0..50u64 {
            for k in 0..100u64 {
                // Near, far and "never" events.
                let at = match k % 10 {
                    0 => SimTime::from_ms(200 + k),
                    1 => SimTime::MAX,
                    _ => SimTime::from_ns(round * 1_000 + k * 37),
                };
                q.schedule(at.max(now), k as u32);
                expected += 1;
                assert_eq!(q.len(), expected);
            }
            for _ in 0..60 {
                now = q.pop().expect("not empty").0;
                expected -= 1;
                assert_eq!(q.len(), expected);
            }
        }
        while q.pop().is_some() {
            expected -= 1;
            assert_eq!(q.len(), expected);
        }
        assert_eq!(expected, 0);
    }
}

#[cfg(debug_assertions)]
#[test]
#[should_panic(expected = "before the last popped time")]
fn scheduling_in_the_past_panics_in_debug_builds() {
    let mut q = WheelQueue::new();
    q.schedule(SimTime(10), 0u32);
    q.pop();
    q.schedule(SimTime(9), 1);
}

#[cfg(not(debug_assertions))]
#[test]
fn scheduling_in_the_past_uses_the_last_popped_time_in_release_builds() {
    for mut q in all_structures() {
        q.schedule(SimTime(10), 0);
        q.schedule(SimTime(10), 1);
        q.schedule(SimTime(11), 2);
        assert_eq!(q.pop(), Some((SimTime(10), 0)));
        q.schedule(SimTime(3), 3);
        assert_eq!(q.pop(), Some((SimTime(10), 1)));
        assert_eq!(q.pop(), Some((SimTime(10), 3)));
        assert_eq!(q.pop(), Some((SimTime(11), 2)));
    }
}
