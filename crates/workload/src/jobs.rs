//! Partition/aggregate jobs (docs/model.md 7.6, the XMP paper's incast pattern): a client sends a
//! request to each of M servers, each server answers, and when every answer has arrived the
//! job is done and a new one starts.

use rand::seq::index;
use rand::Rng;

use crate::layout::HostLayout;

/// The shape of the jobs of a partition/aggregate workload. The XMP paper runs 8 concurrent jobs
/// of 8 servers, with 2 KB requests and 64 KB responses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionAggregate {
    /// Servers per job (M).
    pub servers: usize,
    /// Bytes the client sends to each server.
    pub request_bytes: u64,
    /// Bytes each server sends back.
    pub response_bytes: u64,
    /// Jobs running at any time.
    pub concurrent: usize,
    /// Whether a server may share the client's rack. With `false` every server is drawn from
    /// outside the client's rack, so no request or response stays under one ToR (servers may
    /// still share racks with each other).
    pub rack_local: bool,
}

/// One job: its client and servers (distinct hosts) and the flow sizes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Job {
    /// The host that sends the requests and receives the responses.
    pub client: usize,
    /// The hosts that answer, in increasing order.
    pub servers: Vec<usize>,
    /// Bytes of each request.
    pub request_bytes: u64,
    /// Bytes of each response.
    pub response_bytes: u64,
}

/// Why a job cannot be drawn.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum JobError {
    /// A job with no servers.
    #[error("a partition/aggregate job needs at least one server")]
    NoServers,
    /// Fewer eligible hosts than 1 client + M servers.
    #[error("a job of 1 client and {servers} servers needs {} hosts, but only {available} are available", servers + 1)]
    TooFewHosts {
        /// Servers per job.
        servers: usize,
        /// Hosts not excluded.
        available: usize,
    },
    /// With `rack_local = false`: fewer eligible hosts outside the client's rack than servers.
    #[error("a job of {servers} servers with none in the client's rack needs {servers} hosts outside rack {rack}, but only {available} are available")]
    TooFewOutsideRack {
        /// Servers per job.
        servers: usize,
        /// The client's rack.
        rack: usize,
        /// Hosts outside that rack not excluded.
        available: usize,
    },
}

impl PartitionAggregate {
    /// Draws a job: 1 client and `servers` servers, distinct and uniform among the hosts of
    /// `layout` not in `exclude` (e.g. the hosts of jobs still running, when jobs must not share
    /// hosts; the XMP paper does not say they must, so pass `&[]` to allow it). Without
    /// [`PartitionAggregate::rack_local`] the client is uniform among those hosts and the
    /// servers uniform among those outside its rack.
    pub fn next_job<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        layout: &HostLayout,
        exclude: &[usize],
    ) -> Result<Job, JobError> {
        if self.servers == 0 {
            return Err(JobError::NoServers);
        }
        let mut excluded = vec![false; layout.num_hosts()];
        for &h in exclude {
            if let Some(slot) = excluded.get_mut(h) {
                *slot = true;
            }
        }
        let candidates: Vec<usize> = (0..layout.num_hosts()).filter(|&h| !excluded[h]).collect();
        let needed = self.servers.saturating_add(1);
        if candidates.len() < needed {
            return Err(JobError::TooFewHosts {
                servers: self.servers,
                available: candidates.len(),
            });
        }
        let mut servers: Vec<usize>;
        let client;
        if self.rack_local {
            let picked = index::sample(rng, candidates.len(), needed);
            client = candidates[picked.index(0)];
            servers = picked.iter().skip(1).map(|k| candidates[k]).collect();
        } else {
            client = candidates[rng.random_range(0..candidates.len())];
            let rack = layout.rack_of(client);
            let outside: Vec<usize> = candidates
                .iter()
                .copied()
                .filter(|&h| layout.rack_of(h) != rack)
                .collect();
            if outside.len() < self.servers {
                return Err(JobError::TooFewOutsideRack {
                    servers: self.servers,
                    rack,
                    available: outside.len(),
                });
            }
            servers = index::sample(rng, outside.len(), self.servers)
                .iter()
                .map(|k| outside[k])
                .collect();
        }
        servers.sort_unstable();
        Ok(Job {
            client,
            servers,
            request_bytes: self.request_bytes,
            response_bytes: self.response_bytes,
        })
    }

    /// The `concurrent` jobs running at the start, each drawn independently with
    /// [`PartitionAggregate::next_job`] (jobs may share hosts).
    pub fn initial_jobs<R: Rng + ?Sized>(
        &self,
        rng: &mut R,
        layout: &HostLayout,
    ) -> Result<Vec<Job>, JobError> {
        (0..self.concurrent)
            .map(|_| self.next_job(rng, layout, &[]))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_pcg::Pcg64;

    fn xmp() -> PartitionAggregate {
        PartitionAggregate {
            servers: 8,
            request_bytes: 2_000,
            response_bytes: 64_000,
            concurrent: 8,
            rack_local: true,
        }
    }

    #[test]
    fn jobs_have_distinct_hosts() {
        // The XMP setup: FatTree k = 8, 128 hosts, 8 jobs of 1 client + 8 servers.
        let layout = HostLayout::fat_tree(4, 4, 8).unwrap();
        let mut rng = Pcg64::seed_from_u64(31);
        let jobs = xmp().initial_jobs(&mut rng, &layout).unwrap();
        assert_eq!(jobs.len(), 8);
        for job in &jobs {
            assert_eq!(job.servers.len(), 8);
            assert!(job.servers.windows(2).all(|w| w[0] < w[1]));
            assert!(!job.servers.contains(&job.client));
            assert!(job.servers.iter().all(|&s| s < 128));
            assert_eq!((job.request_bytes, job.response_bytes), (2_000, 64_000));
        }
    }

    #[test]
    fn exclusion_is_respected() {
        let layout = HostLayout::fat_tree(4, 4, 1).unwrap();
        let mut rng = Pcg64::seed_from_u64(32);
        let exclude: Vec<usize> = (0..7).collect();
        for _ in 0..100 {
            let job = xmp().next_job(&mut rng, &layout, &exclude).unwrap();
            // 16 hosts minus 7 leaves exactly 9: the job uses all of them.
            let mut all = job.servers.clone();
            all.push(job.client);
            all.sort_unstable();
            assert_eq!(all, (7..16).collect::<Vec<_>>());
        }
        assert_eq!(
            xmp().next_job(&mut rng, &layout, &(0..8).collect::<Vec<_>>()),
            Err(JobError::TooFewHosts {
                servers: 8,
                available: 8
            })
        );
        let none = PartitionAggregate {
            servers: 0,
            ..xmp()
        };
        assert_eq!(
            none.next_job(&mut rng, &layout, &[]),
            Err(JobError::NoServers)
        );
    }

    #[test]
    fn without_rack_local_no_server_shares_the_client_rack() {
        // k = 4 FatTree: 8 racks of 2 hosts; 14 hosts outside any rack.
        let layout = HostLayout::fat_tree(2, 2, 4).unwrap();
        let mut rng = Pcg64::seed_from_u64(34);
        let apart = PartitionAggregate {
            servers: 14,
            rack_local: false,
            ..xmp()
        };
        let mut clients = [0u32; 16];
        for _ in 0..1_600 {
            let job = apart.next_job(&mut rng, &layout, &[]).unwrap();
            assert_eq!(job.servers.len(), 14);
            assert!(job.servers.windows(2).all(|w| w[0] < w[1]));
            assert!(job
                .servers
                .iter()
                .all(|&s| !layout.same_rack(s, job.client)));
            clients[job.client] += 1;
        }
        // 100 each; Binomial sd 9.7.
        assert!(
            clients.iter().all(|&c| (60..140).contains(&c)),
            "{clients:?}"
        );
        let too_many = PartitionAggregate {
            servers: 15,
            ..apart
        };
        assert!(matches!(
            too_many.next_job(&mut rng, &layout, &[]),
            Err(JobError::TooFewOutsideRack {
                servers: 15,
                available: 14,
                ..
            })
        ));
    }

    #[test]
    fn clients_are_uniform() {
        let layout = HostLayout::fat_tree(4, 4, 1).unwrap();
        let mut rng = Pcg64::seed_from_u64(33);
        let mut clients = [0u32; 16];
        for _ in 0..16_000 {
            clients[xmp().next_job(&mut rng, &layout, &[]).unwrap().client] += 1;
        }
        // 1000 each; Binomial sd 31.
        assert!(
            clients.iter().all(|&c| (850..1150).contains(&c)),
            "{clients:?}"
        );
    }
}
