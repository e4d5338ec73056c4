//! Where hosts sit: the rack (ToR) and pod of every host, which traffic matrices need for
//! stride-to-the-next-pod and rack-local flows.
//!
//! Hosts are numbered `0..num_hosts()`, the same indices as `host<i>` in outputs. Racks and pods
//! are numbered from 0 too; a rack belongs to exactly one pod.

/// Why a host layout cannot be built.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LayoutError {
    /// A layout with no hosts.
    #[error("a host layout needs at least one host")]
    NoHosts,
    /// A fat-tree dimension of zero.
    #[error(
        "fat-tree layout with a zero dimension (hosts per ToR {hosts_per_tor}, ToRs per pod \
         {tors_per_pod}, pods {pods}); each must be at least 1"
    )]
    ZeroDimension {
        /// Hosts under each ToR.
        hosts_per_tor: usize,
        /// ToRs in each pod.
        tors_per_pod: usize,
        /// Number of pods.
        pods: usize,
    },
    /// The host count does not fit in `usize`.
    #[error("fat-tree layout too large: {hosts_per_tor} x {tors_per_pod} x {pods} hosts")]
    TooLarge {
        /// Hosts under each ToR.
        hosts_per_tor: usize,
        /// ToRs in each pod.
        tors_per_pod: usize,
        /// Number of pods.
        pods: usize,
    },
    /// The per-host rack and pod vectors have different lengths.
    #[error("per-host vectors differ in length: {racks} rack indices but {pods} pod indices")]
    LengthMismatch {
        /// Length of the rack vector.
        racks: usize,
        /// Length of the pod vector.
        pods: usize,
    },
    /// Two hosts of one rack are in different pods.
    #[error("rack {rack} is in pod {first} and, through host {host}, in pod {second}; a rack belongs to one pod")]
    RackSpansPods {
        /// The rack.
        rack: usize,
        /// The pod of the rack's first host.
        first: usize,
        /// The other pod.
        second: usize,
        /// The host in the other pod.
        host: usize,
    },
}

/// Hosts grouped by some key (rack or pod): `members[start[k]..start[k + 1]]` are the hosts of
/// group `k`, in increasing order.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Groups {
    members: Vec<usize>,
    start: Vec<usize>,
}

impl Groups {
    /// Groups hosts `0..keys.len()` by `keys[host]`; there are `max key + 1` groups.
    fn new(keys: &[usize]) -> Groups {
        let count = keys.iter().max().map_or(0, |&k| k + 1);
        let mut start = vec![0usize; count + 1];
        for &k in keys {
            start[k + 1] += 1;
        }
        for k in 0..count {
            start[k + 1] += start[k];
        }
        let mut next = start.clone();
        let mut members = vec![0usize; keys.len()];
        for (host, &k) in keys.iter().enumerate() {
            members[next[k]] = host;
            next[k] += 1;
        }
        Groups { members, start }
    }

    fn len(&self) -> usize {
        self.start.len() - 1
    }

    fn get(&self, k: usize) -> &[usize] {
        match (self.start.get(k), self.start.get(k + 1)) {
            (Some(&a), Some(&b)) => &self.members[a..b],
            _ => &[],
        }
    }
}

/// The rack (ToR) and pod of every host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostLayout {
    rack: Vec<usize>,
    pod: Vec<usize>,
    racks: Groups,
    pods: Groups,
}

impl HostLayout {
    /// A FatTree-like layout: `pods` pods of `tors_per_pod` racks of `hosts_per_tor` hosts, hosts
    /// numbered pod by pod, then rack by rack (docs/model.md 9.1:
    /// `idx = p * tors_per_pod * hosts_per_tor + t * hosts_per_tor + h`). Rack `p * tors_per_pod + t`
    /// is ToR `t` of pod `p`. A single switch (star) is `fat_tree(n, 1, 1)`.
    pub fn fat_tree(
        hosts_per_tor: usize,
        tors_per_pod: usize,
        pods: usize,
    ) -> Result<HostLayout, LayoutError> {
        if hosts_per_tor == 0 || tors_per_pod == 0 || pods == 0 {
            return Err(LayoutError::ZeroDimension {
                hosts_per_tor,
                tors_per_pod,
                pods,
            });
        }
        let per_pod = hosts_per_tor.checked_mul(tors_per_pod);
        let hosts = per_pod.and_then(|p| p.checked_mul(pods));
        let (Some(per_pod), Some(hosts)) = (per_pod, hosts) else {
            return Err(LayoutError::TooLarge {
                hosts_per_tor,
                tors_per_pod,
                pods,
            });
        };
        let rack = (0..hosts).map(|h| h / hosts_per_tor).collect();
        let pod = (0..hosts).map(|h| h / per_pod).collect();
        HostLayout::from_vectors(rack, pod)
    }

    /// A layout from explicit per-host rack and pod indices (`rack[h]`, `pod[h]` for host `h`).
    ///
    /// Indices need not be dense: racks or pods without hosts are simply empty. Every host of a
    /// rack must be in the same pod.
    pub fn from_vectors(rack: Vec<usize>, pod: Vec<usize>) -> Result<HostLayout, LayoutError> {
        if rack.len() != pod.len() {
            return Err(LayoutError::LengthMismatch {
                racks: rack.len(),
                pods: pod.len(),
            });
        }
        if rack.is_empty() {
            return Err(LayoutError::NoHosts);
        }
        let racks = Groups::new(&rack);
        for r in 0..racks.len() {
            let hosts = racks.get(r);
            if let Some(&first_host) = hosts.first() {
                let first = pod[first_host];
                if let Some(&host) = hosts.iter().find(|&&h| pod[h] != first) {
                    return Err(LayoutError::RackSpansPods {
                        rack: r,
                        first,
                        second: pod[host],
                        host,
                    });
                }
            }
        }
        let pods = Groups::new(&pod);
        Ok(HostLayout {
            rack,
            pod,
            racks,
            pods,
        })
    }

    /// Number of hosts.
    pub fn num_hosts(&self) -> usize {
        self.rack.len()
    }

    /// Number of racks (largest rack index + 1, empty racks included).
    pub fn num_racks(&self) -> usize {
        self.racks.len()
    }

    /// Number of pods (largest pod index + 1, empty pods included).
    pub fn num_pods(&self) -> usize {
        self.pods.len()
    }

    /// The rack (ToR) index of `host`.
    ///
    /// # Panics
    /// If `host >= num_hosts()`, like slice indexing.
    pub fn rack_of(&self, host: usize) -> usize {
        self.rack[host]
    }

    /// The pod index of `host`.
    ///
    /// # Panics
    /// If `host >= num_hosts()`, like slice indexing.
    pub fn pod_of(&self, host: usize) -> usize {
        self.pod[host]
    }

    /// Whether hosts `a` and `b` hang off the same ToR (false if either is out of range).
    pub fn same_rack(&self, a: usize, b: usize) -> bool {
        matches!((self.rack.get(a), self.rack.get(b)), (Some(x), Some(y)) if x == y)
    }

    /// Whether hosts `a` and `b` are in the same pod (false if either is out of range).
    pub fn same_pod(&self, a: usize, b: usize) -> bool {
        matches!((self.pod.get(a), self.pod.get(b)), (Some(x), Some(y)) if x == y)
    }

    /// The hosts of rack `rack`, in increasing order (empty for an unknown rack).
    pub fn hosts_in_rack(&self, rack: usize) -> &[usize] {
        self.racks.get(rack)
    }

    /// The hosts of pod `pod`, in increasing order (empty for an unknown pod).
    pub fn hosts_in_pod(&self, pod: usize) -> &[usize] {
        self.pods.get(pod)
    }

    /// All hosts ordered rack by rack: rack 0's hosts, then rack 1's, and so on.
    pub(crate) fn hosts_by_rack(&self) -> &[usize] {
        &self.racks.members
    }

    /// Index in [`HostLayout::hosts_by_rack`] where rack `rack`'s hosts begin.
    pub(crate) fn rack_start(&self, rack: usize) -> usize {
        self.racks.start[rack]
    }

    /// The number of hosts per pod, if every pod has that many hosts and hosts are numbered pod
    /// by pod (pod `p` holds hosts `p * n .. (p + 1) * n`), as in [`HostLayout::fat_tree`].
    pub fn uniform_pod_size(&self) -> Option<usize> {
        let n = self.num_hosts() / self.num_pods();
        let uniform = n > 0 && (0..self.num_hosts()).all(|h| self.pod[h] == h / n);
        uniform.then_some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fat_tree_numbering_follows_the_spec() {
        // k = 8 at 4:1: 16 hosts per ToR, 4 ToRs per pod, 8 pods = 512 hosts.
        let l = HostLayout::fat_tree(16, 4, 8).unwrap();
        assert_eq!(l.num_hosts(), 512);
        assert_eq!(l.num_racks(), 32);
        assert_eq!(l.num_pods(), 8);
        // idx = p * 64 + t * 16 + h: host 3 of ToR 2 of pod 5.
        let h = 5 * 64 + 2 * 16 + 3;
        assert_eq!(l.pod_of(h), 5);
        assert_eq!(l.rack_of(h), 5 * 4 + 2);
        assert!(l.same_rack(h, 5 * 64 + 2 * 16));
        assert!(!l.same_rack(h, 5 * 64 + 3 * 16));
        assert!(l.same_pod(h, 5 * 64 + 3 * 16));
        assert!(!l.same_pod(h, 6 * 64));
        assert!(!l.same_pod(h, 512));
        assert_eq!(l.hosts_in_rack(1), (16..32).collect::<Vec<_>>());
        assert_eq!(l.hosts_in_pod(7), (448..512).collect::<Vec<_>>());
        assert!(l.hosts_in_rack(32).is_empty());
        assert_eq!(l.uniform_pod_size(), Some(64));
    }

    #[test]
    fn explicit_vectors() {
        let l = HostLayout::from_vectors(vec![1, 0, 1, 3], vec![0, 0, 0, 1]).unwrap();
        assert_eq!(l.num_racks(), 4);
        assert_eq!(l.hosts_in_rack(1), &[0, 2]);
        assert!(l.hosts_in_rack(2).is_empty());
        assert_eq!(l.hosts_in_pod(0), &[0, 1, 2]);
        assert_eq!(l.hosts_by_rack(), &[1, 0, 2, 3]);
        assert_eq!(l.rack_start(3), 3);
        assert_eq!(l.uniform_pod_size(), None);
    }

    #[test]
    fn errors() {
        assert!(matches!(
            HostLayout::fat_tree(0, 4, 8),
            Err(LayoutError::ZeroDimension { .. })
        ));
        assert!(matches!(
            HostLayout::fat_tree(usize::MAX, 2, 1),
            Err(LayoutError::TooLarge { .. })
        ));
        assert_eq!(
            HostLayout::from_vectors(vec![0], vec![]),
            Err(LayoutError::LengthMismatch { racks: 1, pods: 0 })
        );
        assert_eq!(
            HostLayout::from_vectors(vec![], vec![]),
            Err(LayoutError::NoHosts)
        );
        assert_eq!(
            HostLayout::from_vectors(vec![0, 0], vec![0, 1]),
            Err(LayoutError::RackSpansPods {
                rack: 0,
                first: 0,
                second: 1,
                host: 1
            })
        );
    }
}
