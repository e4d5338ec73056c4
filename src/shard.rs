//! Shards: `--shard I/N` (1-based) and the index variables of Slurm job arrays and Kubernetes
//! indexed jobs. A shard takes every N-th run of the run list, a pure partition.

use std::fmt;
use std::str::FromStr;

/// The I-th of N parts of a run list (`index` is 1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// Which part, 1..=count.
    pub index: usize,
    /// How many parts.
    pub count: usize,
}

/// A shard that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShardError {
    /// Not `I/N` with integers.
    #[error("--shard {0:?}: expected I/N with 1 <= I <= N, e.g. --shard 2/4")]
    Syntax(String),
    /// `N` = 0.
    #[error("--shard {index}/0: the number of shards must be at least 1, e.g. --shard 1/4")]
    NoShards {
        /// The index given.
        index: usize,
    },
    /// `I` outside `1..=N`.
    #[error(
        "--shard {index}/{count}: the shard index must be from 1 to {count} (shards are 1-based)"
    )]
    OutOfRange {
        /// The index given.
        index: usize,
        /// The count given.
        count: usize,
    },
    /// An index variable that is not a number, or out of range.
    #[error("{var}={value:?}: {why}")]
    Env {
        /// The variable.
        var: &'static str,
        /// Its value.
        value: String,
        /// What is wrong.
        why: String,
    },
    /// `JOB_COMPLETION_INDEX` is set but the number of shards is not known.
    #[error("JOB_COMPLETION_INDEX is set: give the number of shards with --shard-count N (the job's completions)")]
    MissingCount,
    /// `SLURM_ARRAY_TASK_ID` is set but the number of shards is not known.
    #[error(
        "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: give the number of shards \
         with --shard-count N"
    )]
    MissingSlurmCount,
    /// A number of shards of 0, from `--shard-count` or `SLURM_ARRAY_TASK_COUNT`.
    #[error("{0}: the number of shards must be at least 1")]
    ZeroCount(String),
    /// `--shard-count` without a shard index in the environment.
    #[error(
        "--shard-count {0}: no shard index, as neither JOB_COMPLETION_INDEX nor \
         SLURM_ARRAY_TASK_ID is set; to run one part by hand, use --shard I/{0}"
    )]
    NoIndex(usize),
}

impl Shard {
    /// A checked shard.
    pub fn new(index: usize, count: usize) -> Result<Shard, ShardError> {
        if count == 0 {
            return Err(ShardError::NoShards { index });
        }
        if index == 0 || index > count {
            return Err(ShardError::OutOfRange { index, count });
        }
        Ok(Shard { index, count })
    }

    /// Whether the run at position `position` (0-based) of the run list belongs to this shard.
    /// Runs are dealt round-robin, so each shard gets a similar mix of sweep points. A shard
    /// [`Shard::new`] refuses (built from the public fields) contains no run.
    pub fn contains(&self, position: usize) -> bool {
        self.count != 0
            && self.index <= self.count
            && self.index.checked_sub(1) == Some(position % self.count)
    }

    /// The shard from the environment, when no `--shard` was given: Slurm's
    /// `SLURM_ARRAY_TASK_ID` / `SLURM_ARRAY_TASK_COUNT` / `SLURM_ARRAY_TASK_MIN`, or Kubernetes'
    /// `JOB_COMPLETION_INDEX` (0-based) with `shard_count`. `None` when neither is set (an
    /// error with `shard_count`, which then names no shard).
    pub fn from_env(
        shard_count: Option<usize>,
        var: impl Fn(&str) -> Option<String>,
    ) -> Result<Option<Shard>, ShardError> {
        let num = |name: &'static str| -> Result<Option<usize>, ShardError> {
            match var(name) {
                None => Ok(None),
                Some(v) => v
                    .trim()
                    .parse::<usize>()
                    .map(Some)
                    .map_err(|_| ShardError::Env {
                        var: name,
                        value: v,
                        why: "expected a non-negative integer".into(),
                    }),
            }
        };
        if shard_count == Some(0) {
            return Err(ShardError::ZeroCount("--shard-count 0".into()));
        }
        if let Some(id) = num("SLURM_ARRAY_TASK_ID")? {
            let min = num("SLURM_ARRAY_TASK_MIN")?.unwrap_or(0);
            let count = match shard_count {
                Some(c) => c,
                None => match num("SLURM_ARRAY_TASK_COUNT")? {
                    None => return Err(ShardError::MissingSlurmCount),
                    Some(0) => {
                        return Err(ShardError::ZeroCount("SLURM_ARRAY_TASK_COUNT=\"0\"".into()))
                    }
                    Some(c) => c,
                },
            };
            // A stepped (`--array=0-30:2`) or listed (`--array=1,3,5`) array numbers its tasks
            // with gaps: ID - MIN would skip shards and overrun others. Slurm's MAX and COUNT
            // tell: a contiguous array has MAX - MIN + 1 tasks.
            if let (Some(max), Some(tasks)) =
                (num("SLURM_ARRAY_TASK_MAX")?, num("SLURM_ARRAY_TASK_COUNT")?)
            {
                if max.checked_sub(min).map(|span| span.saturating_add(1)) != Some(tasks) {
                    return Err(ShardError::Env {
                        var: "SLURM_ARRAY_TASK_ID",
                        value: id.to_string(),
                        why: format!(
                            "the array's {tasks} task(s) are not numbered {min} to {max} without \
                             gaps (SLURM_ARRAY_TASK_MIN={min}, SLURM_ARRAY_TASK_MAX={max}): use a \
                             contiguous array (--array=MIN-MAX without a step, a % throttle \
                             allowed), or --shard I/N"
                        ),
                    });
                }
            }
            let index = id.checked_sub(min).ok_or(ShardError::Env {
                var: "SLURM_ARRAY_TASK_ID",
                value: id.to_string(),
                why: format!("below SLURM_ARRAY_TASK_MIN={min}"),
            })?;
            return Shard::new(index + 1, count)
                .map(Some)
                .map_err(|_| ShardError::Env {
                    var: "SLURM_ARRAY_TASK_ID",
                    value: id.to_string(),
                    why: format!(
                        "with SLURM_ARRAY_TASK_MIN={min} and {count} shard(s) (the task count, or \
                     --shard-count) this is shard {} of {count}: use a contiguous array \
                     (--array=MIN-MAX without a step) or give --shard-count",
                        index.saturating_add(1)
                    ),
                });
        }
        if let Some(index) = num("JOB_COMPLETION_INDEX")? {
            let count = shard_count.ok_or(ShardError::MissingCount)?;
            return Shard::new(index + 1, count)
                .map(Some)
                .map_err(|_| ShardError::Env {
                    var: "JOB_COMPLETION_INDEX",
                    value: index.to_string(),
                    why: format!(
                    "a 0-based index must be below --shard-count {count} (the job's completions)"
                ),
                });
        }
        match shard_count {
            Some(n) => Err(ShardError::NoIndex(n)),
            None => Ok(None),
        }
    }
}

impl FromStr for Shard {
    type Err = ShardError;

    fn from_str(s: &str) -> Result<Shard, ShardError> {
        let (i, n) = s
            .split_once('/')
            .ok_or_else(|| ShardError::Syntax(s.to_string()))?;
        let parse = |t: &str| {
            t.trim()
                .parse::<usize>()
                .map_err(|_| ShardError::Syntax(s.to_string()))
        };
        Shard::new(parse(i)?, parse(n)?)
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_check() {
        assert_eq!("2/4".parse(), Ok(Shard { index: 2, count: 4 }));
        assert_eq!(
            "3/2".parse::<Shard>(),
            Err(ShardError::OutOfRange { index: 3, count: 2 })
        );
        assert!("0/2".parse::<Shard>().is_err());
        assert_eq!(
            "0/0".parse::<Shard>(),
            Err(ShardError::NoShards { index: 0 })
        );
        assert!("0/0"
            .parse::<Shard>()
            .unwrap_err()
            .to_string()
            .contains("the number of shards must be at least 1"));
        assert!("x".parse::<Shard>().is_err());
    }

    #[test]
    fn a_shard_built_by_hand_never_panics() {
        for (index, count) in [(0, 0), (1, 0), (0, 3), (4, 3), (usize::MAX, 1)] {
            let shard = Shard { index, count };
            assert!((0..10).all(|pos| !shard.contains(pos)), "{shard:?}");
        }
        assert!(Shard { index: 2, count: 3 }.contains(4));
    }

    #[test]
    fn shards_partition_positions() {
        for count in 1..6 {
            for pos in 0..50 {
                let owners = (1..=count)
                    .filter(|&i| Shard::new(i, count).unwrap().contains(pos))
                    .count();
                assert_eq!(owners, 1);
            }
        }
    }

    /// An environment of `pairs` (variable, value).
    fn env(
        pairs: &'static [(&'static str, &'static str)],
    ) -> impl Fn(&str) -> Option<String> + Copy {
        move |k: &str| {
            pairs
                .iter()
                .find(|(n, _)| *n == k)
                .map(|(_, v)| v.to_string())
        }
    }

    #[test]
    fn environment() {
        let slurm = env(&[
            ("SLURM_ARRAY_TASK_ID", "5"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ]);
        assert_eq!(
            Shard::from_env(None, slurm),
            Ok(Some(Shard { index: 5, count: 8 }))
        );
        let k8s = env(&[("JOB_COMPLETION_INDEX", "0")]);
        assert_eq!(
            Shard::from_env(Some(3), k8s),
            Ok(Some(Shard { index: 1, count: 3 }))
        );
        assert_eq!(Shard::from_env(None, k8s), Err(ShardError::MissingCount));
        assert_eq!(Shard::from_env(None, env(&[])), Ok(None));
        // Out of range: the message names the variables, not a --shard that was never given.
        let past = env(&[
            ("SLURM_ARRAY_TASK_ID", "9"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_COUNT", "8"),
        ]);
        let err = Shard::from_env(None, past).unwrap_err().to_string();
        assert!(err.starts_with("SLURM_ARRAY_TASK_ID=\"9\""), "{err}");
        assert!(
            err.contains("shard 9 of 8") && !err.contains("--shard 9/8"),
            "{err}"
        );
        let bad = env(&[("SLURM_ARRAY_TASK_ID", "x")]);
        assert!(Shard::from_env(None, bad)
            .unwrap_err()
            .to_string()
            .contains("expected a non-negative integer"));
        let err = Shard::from_env(Some(2), env(&[("JOB_COMPLETION_INDEX", "2")])).unwrap_err();
        assert!(err.to_string().contains("below --shard-count 2"), "{err}");
    }

    #[test]
    fn a_stepped_or_listed_slurm_array_is_refused() {
        // --array=0-30:2: 16 tasks numbered 0, 2, ..., 30. Task 2 would be shard 3 of 16 and
        // shard 2 would never run.
        let stepped = env(&[
            ("SLURM_ARRAY_TASK_ID", "2"),
            ("SLURM_ARRAY_TASK_MIN", "0"),
            ("SLURM_ARRAY_TASK_MAX", "30"),
            ("SLURM_ARRAY_TASK_COUNT", "16"),
        ]);
        let err = Shard::from_env(None, stepped).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "SLURM_ARRAY_TASK_ID=\"2\": the array's 16 task(s) are not numbered 0 to 30"
            ) && err.contains("contiguous array"),
            "{err}"
        );
        // --shard-count does not make the numbering contiguous.
        assert!(Shard::from_env(Some(16), stepped).is_err());
        // --array=1,3,5,7
        let listed = env(&[
            ("SLURM_ARRAY_TASK_ID", "3"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "7"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ]);
        assert!(Shard::from_env(None, listed).is_err());
        // --array=1-16%4: contiguous, throttled.
        let contiguous = env(&[
            ("SLURM_ARRAY_TASK_ID", "16"),
            ("SLURM_ARRAY_TASK_MIN", "1"),
            ("SLURM_ARRAY_TASK_MAX", "16"),
            ("SLURM_ARRAY_TASK_COUNT", "16"),
        ]);
        assert_eq!(
            Shard::from_env(None, contiguous),
            Ok(Some(Shard {
                index: 16,
                count: 16
            }))
        );
    }

    #[test]
    fn shard_counts_of_zero_missing_counts_and_counts_without_an_index_say_so() {
        let message = |count, vars| Shard::from_env(count, vars).unwrap_err().to_string();
        assert_eq!(
            message(
                None,
                env(&[
                    ("SLURM_ARRAY_TASK_ID", "1"),
                    ("SLURM_ARRAY_TASK_COUNT", "0")
                ])
            ),
            "SLURM_ARRAY_TASK_COUNT=\"0\": the number of shards must be at least 1"
        );
        assert_eq!(
            message(Some(0), env(&[("JOB_COMPLETION_INDEX", "0")])),
            "--shard-count 0: the number of shards must be at least 1"
        );
        assert_eq!(
            message(None, env(&[("SLURM_ARRAY_TASK_ID", "1")])),
            "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not: give the number of \
             shards with --shard-count N"
        );
        // A count alone names no shard: every task would run the whole list.
        let err = message(Some(4), env(&[]));
        assert!(
            err.contains("no shard index") && err.contains("--shard I/4"),
            "{err}"
        );
    }
}
