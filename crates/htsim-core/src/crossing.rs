//! Which flows crossed chosen links: per flow, the data packets that arrived at each watched
//! link (accepted into its queue or dropped there).
//!
//! A link is watched through [`World::watch_links`](crate::world::World::watch_links); every
//! data packet offered to it is then counted against the packet's [`Packet::flow`] number, and
//! [`World::take_crossings`](crate::world::World::take_crossings) returns the counts. An
//! unwatched link costs nothing more (a link tests one flag byte for "down or watched", as it
//! tested whether it was down); a watched one takes the admission out of line and updates a map
//! per data packet, so watch a few links (a slow or failed link, a hot spot), not a layer.
//!
//! [`Packet::flow`]: crate::packet::Packet::flow

use std::collections::BTreeMap;

use crate::ids::LinkId;

/// What one flow's data packets did at one watched link while it was watched.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Crossing {
    /// The watched link.
    pub link: LinkId,
    /// The packets' [`Packet::flow`](crate::packet::Packet::flow) number.
    pub flow: u32,
    /// Data packets the link's queue accepted, retransmissions included.
    pub packets: u64,
    /// Their bytes on the wire.
    pub bytes: u64,
    /// Data packets dropped on arrival at the link (queue full, or link down).
    pub dropped: u64,
}

/// The counts of the watched links: (packets, bytes, dropped) by (link, flow).
#[derive(Debug, Default)]
pub(crate) struct Crossings {
    counts: BTreeMap<(u32, u32), (u64, u64, u64)>,
}

impl Crossings {
    /// Counts one data packet of `flow` and `bytes` on the wire offered to `link`.
    pub(crate) fn count(&mut self, link: LinkId, flow: u32, bytes: u64, dropped: bool) {
        let (packets, accepted_bytes, drops) = self.counts.entry((link.0, flow)).or_default();
        if dropped {
            *drops += 1;
        } else {
            *packets += 1;
            *accepted_bytes += bytes;
        }
    }

    /// Every count, ordered by link, then flow; leaves none.
    pub(crate) fn take(&mut self) -> Vec<Crossing> {
        std::mem::take(&mut self.counts)
            .into_iter()
            .map(|((link, flow), (packets, bytes, dropped))| Crossing {
                link: LinkId(link),
                flow,
                packets,
                bytes,
                dropped,
            })
            .collect()
    }
}
