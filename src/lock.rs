//! The lock of an output directory against a second concurrent writer.
//!
//! A writer creates a lock file in the directory (`create_new`, so only one can create it)
//! holding its process id and host: `.htsim-lock` for a writer of the whole run list,
//! `.htsim-lock-shard-I-of-N` for shard I/N. Shards of one count write disjoint runs, so they may
//! share a directory, when they run the same scenario with the same seeds (the lock file records
//! its digest, [`crate::identity::scenario_digest`]); any other pair of writers conflicts. A lock whose process is gone (killed,
//! or interrupted with Ctrl-C) is taken over, and [`DirLock::taken_over`] says whose it was.
//! Whether a process is alive is known only on the same host with `/proc`; a lock from another
//! host, or where that cannot be told, is assumed alive.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};

use crate::shard::Shard;

/// Lock files start with this.
const PREFIX: &str = ".htsim-lock";

/// A held lock; dropping it removes the lock file.
#[derive(Debug)]
pub struct DirLock {
    path: PathBuf,
    taken_over: Vec<String>,
    alone: bool,
}

/// Why a directory could not be locked.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another live writer holds a conflicting lock.
    #[error(
        "{dir} is being written by another htsim (process {holder}, lock file {file}); wait \
         for it, or write elsewhere; if that process is gone, delete the lock file"
    )]
    Held {
        /// The output directory.
        dir: PathBuf,
        /// The lock file.
        file: PathBuf,
        /// Who holds it (`pid on host`).
        holder: String,
    },
    /// A shard of another scenario (other settings) is writing the directory.
    #[error(
        "{dir} is being written by a shard of another scenario (process {holder}, lock file \
         {file}): shards sharing a directory must run the same settings and seeds; write \
         elsewhere and merge the directories with `htsim report DIR...` (whose scenarios must match)"
    )]
    OtherScenario {
        /// The output directory.
        dir: PathBuf,
        /// The other shard's lock file.
        file: PathBuf,
        /// Who holds it (`pid on host`).
        holder: String,
    },
    /// The directory could not be created.
    #[error("cannot create the output directory {dir}: {why}")]
    CreateDir {
        /// The directory.
        dir: PathBuf,
        /// Why.
        why: String,
    },
    /// The lock file could not be created or read.
    #[error("locking {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: io::Error,
    },
}

/// The process that wrote a lock file.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Holder {
    pid: u32,
    host: Option<String>,
    /// The digest of the scenario it writes, when it said.
    scenario: Option<String>,
}

impl Holder {
    fn me() -> Holder {
        Holder {
            pid: std::process::id(),
            host: host_name(),
            scenario: None,
        }
    }

    fn text(&self) -> String {
        let mut text = format!(
            "pid={}\nhost={}\n",
            self.pid,
            self.host.as_deref().unwrap_or("")
        );
        if let Some(d) = &self.scenario {
            text.push_str(&format!("scenario={d}\n"));
        }
        text
    }

    fn parse(text: &str) -> Option<Holder> {
        let mut pid = None;
        let mut host = None;
        let mut scenario = None;
        for line in text.lines() {
            match line.split_once('=') {
                Some(("pid", v)) => pid = v.trim().parse().ok(),
                Some(("host", v)) if !v.trim().is_empty() => host = Some(v.trim().to_string()),
                Some(("scenario", v)) if !v.trim().is_empty() => {
                    scenario = Some(v.trim().to_string())
                }
                _ => {}
            }
        }
        Some(Holder {
            pid: pid?,
            host,
            scenario,
        })
    }

    /// Whether the process may still be running: `false` only when it is known to be gone,
    /// which includes a zombie (killed, not yet reaped by its parent: it holds no file and
    /// will never write again).
    fn may_be_alive(&self) -> bool {
        let me = Holder::me();
        if self.host != me.host || !Path::new("/proc/self").exists() {
            return true;
        }
        if self.pid == me.pid {
            return true;
        }
        match fs::read_to_string(Path::new("/proc").join(self.pid.to_string()).join("stat")) {
            Ok(stat) => process_state(&stat) != Some('Z'),
            // Gone, or unreadable: only a missing entry says it is gone.
            Err(e) => e.kind() != io::ErrorKind::NotFound,
        }
    }

    fn describe(&self) -> String {
        match &self.host {
            Some(h) => format!("{} on {h}", self.pid),
            None => self.pid.to_string(),
        }
    }
}

/// The state letter of a `/proc/<pid>/stat` line (`R`, `S`, `Z`, ...): the field after the
/// command name, which is in parentheses and may itself hold spaces and parentheses.
fn process_state(stat: &str) -> Option<char> {
    let (_, after) = stat.rsplit_once(')')?;
    after.trim_start().chars().next()
}

fn host_name() -> Option<String> {
    fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

/// The lock file name of a writer of `shard` (`None`: the whole run list).
fn file_name(shard: Option<Shard>) -> String {
    match shard {
        None => PREFIX.to_string(),
        Some(s) => format!("{PREFIX}-shard-{}-of-{}", s.index, s.count),
    }
}

/// The writer a lock file name stands for: `Some(None)` the whole run list, `Some(Some(s))` a
/// shard, `None` not a lock file.
fn writer_of(name: &str) -> Option<Option<Shard>> {
    if name == PREFIX {
        return Some(None);
    }
    let (i, n) = name
        .strip_prefix(PREFIX)?
        .strip_prefix("-shard-")?
        .split_once("-of-")?;
    Shard::new(i.parse().ok()?, n.parse().ok()?).ok().map(Some)
}

/// Whether writers of `a` and `b` may write the same runs.
fn conflict(a: Option<Shard>, b: Option<Shard>) -> bool {
    match (a, b) {
        (Some(x), Some(y)) => x.count != y.count || x.index == y.index,
        _ => true,
    }
}

impl DirLock {
    /// Locks `dir` (created if missing) for a writer of `shard` (`None`: the whole run list)
    /// of the scenario with digest `scenario` (when given, a live shard of another digest
    /// conflicts).
    pub fn acquire(
        dir: &Path,
        shard: Option<Shard>,
        scenario: Option<&str>,
    ) -> Result<DirLock, LockError> {
        let io = |path: &Path| {
            let path = path.to_path_buf();
            move |source| LockError::Io { path, source }
        };
        fs::create_dir_all(dir).map_err(|e| LockError::CreateDir {
            dir: dir.to_path_buf(),
            why: match dir.ancestors().skip(1).find(|a| a.is_file()) {
                Some(file) => format!("{} is a file, not a directory", file.display()),
                None => e.to_string(),
            },
        })?;
        let path = dir.join(file_name(shard));
        let mut taken_over = Vec::new();
        let mut retried = false;
        // Create ours; a dead holder's file is removed and creation tried once more.
        loop {
            match fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    let me = Holder {
                        scenario: scenario.map(str::to_string),
                        ..Holder::me()
                    };
                    f.write_all(me.text().as_bytes())
                        .and_then(|()| f.sync_all())
                        .map_err(io(&path))?;
                    break;
                }
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && !retried => {
                    retried = true;
                    taken_over.extend(check_holder(dir, &path)?);
                }
                Err(e) => return Err(io(&path)(e)),
            }
        }
        let mut lock = DirLock {
            path,
            taken_over,
            alone: true,
        };
        // Then look at the other writers' files: any conflicting live one and we back off.
        for entry in fs::read_dir(dir).map_err(io(dir))? {
            let entry = entry.map_err(io(dir))?;
            let name = entry.file_name();
            let Some(other) = name.to_str().and_then(writer_of) else {
                continue;
            };
            let other_path = entry.path();
            if other_path == lock.path {
                continue;
            }
            lock.alone = false;
            let other_scenario = fs::read_to_string(&other_path)
                .ok()
                .and_then(|t| Holder::parse(&t))
                .and_then(|h| h.scenario);
            let other_settings = scenario
                .zip(other_scenario.as_deref())
                .is_some_and(|(a, b)| a != b);
            if conflict(shard, other) || other_settings {
                // On an error `lock` is dropped, removing our file.
                let gone = check_holder(dir, &other_path).map_err(|e| match e {
                    LockError::Held { dir, file, holder } if other_settings => {
                        LockError::OtherScenario { dir, file, holder }
                    }
                    e => e,
                })?;
                lock.taken_over.extend(gone);
            }
        }
        Ok(lock)
    }

    /// The lock files of processes found gone and taken over, as `<file> (process <pid>)`.
    pub fn taken_over(&self) -> &[String] {
        &self.taken_over
    }

    /// Whether no other writer (not even a shard that does not conflict) holds a lock on the
    /// directory: then files left by a killed writer may be cleaned.
    pub fn alone(&self) -> bool {
        self.alone
    }
}

/// A lock file found in the way: removed when its holder is gone (returning what was taken
/// over; `None` when it vanished meanwhile), else [`LockError::Held`]. A file that cannot be
/// read as a lock counts as held.
fn check_holder(dir: &Path, file: &Path) -> Result<Option<String>, LockError> {
    let text = match fs::read_to_string(file) {
        Ok(t) => t,
        // Removed by its holder in the meantime: nothing to take over.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(LockError::Io {
                path: file.to_path_buf(),
                source,
            })
        }
    };
    let holder = Holder::parse(&text);
    match holder {
        Some(h) if !h.may_be_alive() => {
            match fs::remove_file(file) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(source) => {
                    return Err(LockError::Io {
                        path: file.to_path_buf(),
                        source,
                    })
                }
            }
            Ok(Some(format!(
                "{} (process {})",
                file.display(),
                h.describe()
            )))
        }
        _ => Err(LockError::Held {
            dir: dir.to_path_buf(),
            file: file.to_path_buf(),
            holder: holder.map_or("unknown".into(), |h| h.describe()),
        }),
    }
}

impl Drop for DirLock {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_until_the_first_is_done() {
        let tmp = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(tmp.path(), None, None).unwrap();
        assert!(first.alone() && first.taken_over().is_empty());
        // Our own pid counts as alive: a second writer in this process is refused.
        let err = DirLock::acquire(tmp.path(), None, None).unwrap_err();
        assert!(
            err.to_string().contains("being written by another htsim"),
            "{err}"
        );
        let shard = Shard::new(1, 2).unwrap();
        assert!(DirLock::acquire(tmp.path(), Some(shard), None).is_err());
        drop(first);
        assert_eq!(fs::read_dir(tmp.path()).unwrap().count(), 0);
        let _again = DirLock::acquire(tmp.path(), None, None).unwrap();
    }

    #[test]
    fn shards_of_one_count_share_a_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let one = DirLock::acquire(tmp.path(), Some(Shard::new(1, 2).unwrap()), None).unwrap();
        let two = DirLock::acquire(tmp.path(), Some(Shard::new(2, 2).unwrap()), None).unwrap();
        assert!(one.alone() && !two.alone());
        assert!(DirLock::acquire(tmp.path(), Some(Shard::new(2, 2).unwrap()), None).is_err());
        assert!(DirLock::acquire(tmp.path(), Some(Shard::new(1, 3).unwrap()), None).is_err());
        assert!(DirLock::acquire(tmp.path(), None, None).is_err());
    }

    #[test]
    fn shards_of_other_scenarios_do_not_share_a_directory() {
        let tmp = tempfile::tempdir().unwrap();
        let (i, ii) = (Shard::new(1, 2).unwrap(), Shard::new(2, 2).unwrap());
        let one = DirLock::acquire(tmp.path(), Some(i), Some("sha256:aa")).unwrap();
        let err = DirLock::acquire(tmp.path(), Some(ii), Some("sha256:bb")).unwrap_err();
        assert!(matches!(err, LockError::OtherScenario { .. }), "{err}");
        assert!(
            err.to_string().contains("shard of another scenario"),
            "{err}"
        );
        let _two = DirLock::acquire(tmp.path(), Some(ii), Some("sha256:aa")).unwrap();
        drop(one);
    }

    #[test]
    fn the_lock_of_a_dead_process_is_taken_over() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        // A process id above the kernel's limit (2^22) never runs.
        let dead = Holder {
            pid: 4_194_305,
            host: host_name(),
            scenario: None,
        };
        fs::write(tmp.path().join(PREFIX), dead.text()).unwrap();
        let lock = DirLock::acquire(tmp.path(), None, None).unwrap();
        assert_eq!(lock.taken_over().len(), 1);
        assert!(lock.taken_over()[0].contains("4194305"));
        let text = fs::read_to_string(tmp.path().join(PREFIX)).unwrap();
        assert_eq!(Holder::parse(&text), Some(Holder::me()));
    }

    #[test]
    fn the_lock_of_a_killed_process_not_yet_reaped_is_taken_over() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let mut child = std::process::Command::new("sleep")
            .arg("60")
            .spawn()
            .unwrap();
        let holder = Holder {
            pid: child.id(),
            host: host_name(),
            scenario: None,
        };
        fs::write(tmp.path().join(PREFIX), holder.text()).unwrap();
        assert!(DirLock::acquire(tmp.path(), None, None).is_err());
        child.kill().unwrap();
        // Killed but not waited for: a zombie until `wait`, with its /proc entry still there.
        let stat = Path::new("/proc").join(child.id().to_string()).join("stat");
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while fs::read_to_string(&stat)
            .ok()
            .and_then(|s| process_state(&s))
            != Some('Z')
        {
            assert!(std::time::Instant::now() < deadline, "the child never died");
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        let lock = DirLock::acquire(tmp.path(), None, None).unwrap();
        assert_eq!(lock.taken_over().len(), 1);
        child.wait().unwrap();
    }

    #[test]
    fn process_states_are_read_past_the_command_name() {
        assert_eq!(process_state("42 (sleep) S 1 42"), Some('S'));
        assert_eq!(process_state("7 (a) b) (c) Z 1 7"), Some('Z'));
        assert_eq!(process_state("garbage"), None);
    }

    #[test]
    fn lock_file_names_round_trip() {
        assert_eq!(writer_of(&file_name(None)), Some(None));
        let s = Shard::new(3, 4).unwrap();
        assert_eq!(writer_of(&file_name(Some(s))), Some(Some(s)));
        assert_eq!(writer_of("flows.csv"), None);
    }
}
