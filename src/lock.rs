//! The lock of an output directory against a second concurrent writer.
//!
//! A writer creates a lock file in the directory (`create_new`, so only one can create it)
//! holding its process id and host: `.htsim-lock` for a writer of the whole run list,
//! `.htsim-lock-shard-I-of-N` for shard I/N. Shards of one count write disjoint runs, so they may
//! share a directory, when they run the same scenario with the same seeds (the lock file records
//! its digest, [`crate::identity::scenario_digest`]); any other pair of writers conflicts. A
//! lock whose process is gone (killed, or interrupted with Ctrl-C) is taken over, and
//! [`DirLock::taken_over`] says whose it was. Whether a process is alive is known only on the
//! same host with `/proc`; a lock from another host, or where that cannot be told, is assumed
//! alive.
//!
//! The writer also holds the OS's advisory lock on its lock file ([`File::try_lock`]: `flock`
//! on Unix) for the life of the [`DirLock`]; the OS releases it when the process ends, however
//! it ends. A lock file is removed (taken over, or released) only by a process holding its OS
//! lock, after checking that the path still names the file it locked and not one another
//! writer created since (on Unix, same device and inode). So of processes taking over one dead
//! lock at the same instant, exactly one removes it, and the others find the winner's lock. A
//! lock file whose OS lock is held is never taken over; one whose OS lock is free still needs
//! its content to name a process known gone, or to stay empty (a writer killed between
//! creating the file and writing it) for a quarter of a second. The content also names the
//! holder in messages.
//!
//! Caveats. The OS lock is shared by every process of a host. Between hosts it depends on the
//! file system: NFS passes it to the server, so every client sees it, unless mounted with
//! `nolock` or `local_lock`; other network file systems may keep it on one host. This is no
//! gap in itself, since a lock from another host is never taken over; but where the file
//! system refuses the lock (NFS without its lock service, some FUSE file systems), htsim goes
//! on with the content alone, as before the OS lock, and two processes of one host taking over
//! one dead lock at the same instant may then both hold it. On NFS, Linux emulates the lock
//! with a POSIX record lock, which all handles of one process share: there it does not
//! separate threads of one process (a second lock of a directory within one process is still
//! refused: the file names a live process). Off Unix, a lock file replaced after it was opened
//! cannot be told from the original.

use std::fs::{self, File, TryLockError};
use std::io::{self, Read as _, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::shard::Shard;

/// Lock files start with this.
const PREFIX: &str = ".htsim-lock";

/// A held lock; dropping it removes the lock file.
#[derive(Debug)]
pub struct DirLock {
    path: PathBuf,
    /// The lock file, open for the life of the lock: it holds the OS lock.
    file: File,
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
        /// The kind of the I/O error; `None` when a file is in the way of the path.
        kind: Option<io::ErrorKind>,
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

impl LockError {
    /// Whether the error is the caller's: the directory is held by another writer, or the path
    /// cannot be a directory this user writes (a file in the way, no permission, a read-only
    /// file system, a name too long). Other I/O errors (a full disk, a quota, a failing
    /// device) are failures of the environment, not of the input.
    pub fn is_usage(&self) -> bool {
        match self {
            LockError::Held { .. } | LockError::OtherScenario { .. } => true,
            LockError::CreateDir { kind, .. } => kind.is_none_or(is_path_problem),
            LockError::Io { source, .. } => is_path_problem(source.kind()),
        }
    }
}

/// Whether an I/O error of this kind says the path itself cannot be written by this user,
/// whatever the state of the machine.
pub(crate) fn is_path_problem(kind: io::ErrorKind) -> bool {
    use io::ErrorKind as K;
    matches!(
        kind,
        K::NotFound
            | K::PermissionDenied
            | K::AlreadyExists
            | K::NotADirectory
            | K::IsADirectory
            | K::ReadOnlyFilesystem
            | K::InvalidFilename
            | K::InvalidInput
    )
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
        fs::create_dir_all(dir).map_err(|e| {
            let file = dir.ancestors().skip(1).find(|a| a.is_file());
            LockError::CreateDir {
                dir: dir.to_path_buf(),
                why: match file {
                    Some(file) => format!("{} is a file, not a directory", file.display()),
                    None => e.to_string(),
                },
                kind: file.is_none().then(|| e.kind()),
            }
        })?;
        let path = dir.join(file_name(shard));
        let me = Holder {
            scenario: scenario.map(str::to_string),
            ..Holder::me()
        };
        let mut taken_over = Vec::new();
        let file = create(dir, &path, &me, &mut taken_over)?;
        let mut lock = DirLock {
            path,
            file,
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
            let other_scenario = crate::output::read_regular_text(&other_path)
                .ok()
                .and_then(|t| Holder::parse(&t))
                .and_then(|h| h.scenario);
            let other_settings = scenario
                .zip(other_scenario.as_deref())
                .is_some_and(|(a, b)| a != b);
            if conflict(shard, other) || other_settings {
                // On an error `lock` is dropped, removing our file.
                let gone = clear(dir, &other_path).map_err(|e| match e {
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

/// How many times a lock file is looked at again while it is in transition (being created,
/// or removed by a process taking it over), [`SETTLE_WAIT`] apart, before it counts as held;
/// also the most lock files of gone processes one acquisition removes in a row.
const SETTLE_TRIES: u32 = 50;

/// The wait between two looks at a lock file in transition.
const SETTLE_WAIT: Duration = Duration::from_millis(10);

/// The OS advisory lock of an open lock file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OsLock {
    /// Taken: ours until the file is closed.
    Taken,
    /// Another open file holds it: a live process (of this host, or of any host the file
    /// system shares locks with).
    Busy,
    /// The OS or the file system does not lock this file: its content alone decides.
    Unavailable,
}

/// Takes the OS lock of `file` without waiting.
fn try_os_lock(file: &File) -> OsLock {
    match file.try_lock() {
        Ok(()) => OsLock::Taken,
        Err(TryLockError::WouldBlock) => OsLock::Busy,
        Err(TryLockError::Error(_)) => OsLock::Unavailable,
    }
}

/// Whether `path` still names the open `file`, and not a file created in its place after it
/// was removed. Compares device and inode numbers.
#[cfg(unix)]
fn names(path: &Path, file: &File) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    match (fs::metadata(path), file.metadata()) {
        (Ok(p), Ok(f)) => p.dev() == f.dev() && p.ino() == f.ino(),
        _ => false,
    }
}

/// Whether `path` still names a file. Off Unix the standard library cannot tell two files
/// apart, so a lock file replaced after it was opened goes unnoticed.
#[cfg(not(unix))]
fn names(path: &Path, _file: &File) -> bool {
    path.is_file()
}

/// Opens an existing lock file to take its OS lock: for reading and writing where allowed
/// (Linux takes an exclusive lock on NFS only on a file open for writing), else for reading.
fn open_existing(path: &Path) -> io::Result<File> {
    // A FIFO in the way would open, and its read then wait for ever for a writer.
    if fs::metadata(path).is_ok_and(|m| !m.is_file()) {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file (a FIFO, socket, device or directory), so not a lock file \
             htsim wrote: remove it",
        ));
    }
    match fs::OpenOptions::new().read(true).write(true).open(path) {
        Err(e) if e.kind() == io::ErrorKind::PermissionDenied => File::open(path),
        opened => opened,
    }
}

/// What a lock file in the way turned out to be.
#[derive(Debug)]
enum Found {
    /// There is no file at the path (any more).
    Absent,
    /// The path no longer names the file opened: it was removed, maybe replaced, meanwhile.
    Moved,
    /// Held by a process that may be alive (`None`: content that names no process).
    Held(Option<Holder>),
    /// In transition: being created (empty), or being taken over by another process (its OS
    /// lock is held but the file names no live process). Look again shortly.
    Settling(Option<Holder>),
    /// Its process is known gone: the file was removed, under its OS lock. `None`: it was
    /// empty, its OS lock free, for as long as [`EMPTY_LOOKS`] looks: a writer killed between
    /// creating it and writing it.
    Removed(Option<Holder>),
}

/// How many looks in a row find a lock file empty with its OS lock free before it counts as
/// left by a writer killed before it wrote it. A live writer locks its new file at once
/// ([`create`]), so its file is empty and unlocked for microseconds, not for these
/// `EMPTY_LOOKS` x [`SETTLE_WAIT`]; one stalled that long finds its file gone once it has the
/// lock, and starts again.
const EMPTY_LOOKS: u32 = SETTLE_TRIES / 2;

/// Looks at the existing lock file `path` once. Its OS lock is taken first, so that of
/// processes looking at one lock file at once only one can remove it; the content then
/// decides, as it does where there is no OS lock. With `remove_empty` (the file was found
/// empty by the last [`EMPTY_LOOKS`] looks), a file still empty whose OS lock this look took
/// is removed.
fn inspect(path: &Path, remove_empty: bool) -> io::Result<Found> {
    let mut file = match open_existing(path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Found::Absent),
        Err(e) => return Err(e),
    };
    let os = try_os_lock(&file);
    // Read through this handle: on NFS, closing another handle of the file would release
    // the lock just taken.
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    let holder = Holder::parse(&text);
    if os == OsLock::Busy {
        return Ok(match holder {
            Some(h) if h.may_be_alive() => Found::Held(Some(h)),
            other => Found::Settling(other),
        });
    }
    // Removed and replaced between our open and our lock: this file is no one's any more.
    if !names(path, &file) {
        return Ok(Found::Moved);
    }
    // Removed while we hold its OS lock: whoever locks it after us finds the path no longer
    // names it.
    let remove = |gone| match fs::remove_file(path) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
        _ => Ok(Found::Removed(gone)),
    };
    match holder {
        Some(h) if !h.may_be_alive() => remove(Some(h)),
        Some(h) => Ok(Found::Held(Some(h))),
        None if text.trim().is_empty() => {
            if remove_empty && os == OsLock::Taken {
                remove(None)
            } else {
                // A writer between creating its file and writing its content.
                Ok(Found::Settling(None))
            }
        }
        None => Ok(Found::Held(None)),
    }
}

/// [`LockError::Held`] for the lock file `file` of `dir`, held by `holder` (`None`: unknown).
fn held(dir: &Path, file: &Path, holder: Option<&Holder>) -> LockError {
    LockError::Held {
        dir: dir.to_path_buf(),
        file: file.to_path_buf(),
        holder: holder.map_or("unknown".into(), Holder::describe),
    }
}

/// What [`DirLock::taken_over`] says of the lock file `file` of the gone process `holder`
/// (`None`: an empty file, whose writer was killed before it wrote it).
fn taken_over_entry(file: &Path, holder: Option<&Holder>) -> String {
    match holder {
        Some(h) => format!("{} (process {})", file.display(), h.describe()),
        None => format!("{} (empty: its writer never wrote it)", file.display()),
    }
}

/// Another writer's lock file `file` found in the way, looked at until it settles: `Ok(None)`
/// when it is gone, `Ok(Some(entry))` when it was found left by a gone process and removed
/// (`entry` for [`DirLock::taken_over`]), else [`LockError::Held`].
fn clear(dir: &Path, file: &Path) -> Result<Option<String>, LockError> {
    let io = |source| LockError::Io {
        path: file.to_path_buf(),
        source,
    };
    let mut last = None;
    let mut empty_looks = 0;
    for _ in 0..SETTLE_TRIES {
        match inspect(file, empty_looks >= EMPTY_LOOKS).map_err(io)? {
            Found::Absent => return Ok(None),
            Found::Removed(h) => return Ok(Some(taken_over_entry(file, h.as_ref()))),
            Found::Held(h) => return Err(held(dir, file, h.as_ref())),
            Found::Moved => empty_looks = 0,
            Found::Settling(h) => {
                empty_looks = if h.is_none() { empty_looks + 1 } else { 0 };
                last = h;
                std::thread::sleep(SETTLE_WAIT);
            }
        }
    }
    Err(held(dir, file, last.as_ref()))
}

/// Creates the lock file `path` of `dir` holding `me`, with its OS lock taken; a lock file of
/// a process found gone is removed first, and named in `taken_over`.
fn create(
    dir: &Path,
    path: &Path,
    me: &Holder,
    taken_over: &mut Vec<String>,
) -> Result<File, LockError> {
    let io = |source| LockError::Io {
        path: path.to_path_buf(),
        source,
    };
    for _ in 0..SETTLE_TRIES {
        match fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create_new(true)
            .open(path)
        {
            Ok(mut file) => {
                // The OS lock before the content: whoever opens the file meanwhile finds it
                // empty and looks again later. An error means no OS lock here: the content
                // alone guards the directory.
                let _ = file.lock();
                // Removed (by hand) before we locked it: start again.
                if !names(path, &file) {
                    continue;
                }
                if let Err(e) = file
                    .write_all(me.text().as_bytes())
                    .and_then(|()| file.sync_all())
                {
                    // Not left behind empty or cut short (say on a full disk): such a file
                    // would read as held by an unknown writer until deleted by hand.
                    let _ = fs::remove_file(path);
                    return Err(io(e));
                }
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                taken_over.extend(clear(dir, path)?);
            }
            Err(e) => return Err(io(e)),
        }
    }
    // Lock files that keep appearing and going: someone else's, whose we cannot tell.
    Err(held(dir, path, None))
}

impl Drop for DirLock {
    fn drop(&mut self) {
        // Removed while the OS lock is still held (the file is closed after this), and only
        // while the path names our file.
        if names(&self.path, &self.file) {
            let _ = fs::remove_file(&self.path);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_disk_is_no_usage_error_but_a_busy_or_bad_path_is() {
        let tmp = tempfile::tempdir().unwrap();
        let first = DirLock::acquire(tmp.path(), None, None).unwrap();
        let held = DirLock::acquire(tmp.path(), None, None).unwrap_err();
        assert!(matches!(held, LockError::Held { .. }) && held.is_usage());
        drop(first);
        std::fs::write(tmp.path().join("file"), b"").unwrap();
        let in_the_way = DirLock::acquire(&tmp.path().join("file/out"), None, None).unwrap_err();
        assert!(in_the_way.is_usage(), "{in_the_way}");
        let io = |kind: io::ErrorKind| LockError::Io {
            path: tmp.path().join(PREFIX),
            source: io::Error::from(kind),
        };
        let create = |kind: io::ErrorKind| LockError::CreateDir {
            dir: tmp.path().join("out"),
            why: io::Error::from(kind).to_string(),
            kind: Some(kind),
        };
        for kind in [
            io::ErrorKind::PermissionDenied,
            io::ErrorKind::ReadOnlyFilesystem,
            io::ErrorKind::InvalidFilename,
        ] {
            assert!(io(kind).is_usage() && create(kind).is_usage(), "{kind:?}");
        }
        for kind in [
            io::ErrorKind::StorageFull,
            io::ErrorKind::QuotaExceeded,
            io::ErrorKind::Other,
        ] {
            assert!(!io(kind).is_usage() && !create(kind).is_usage(), "{kind:?}");
            // `htsim run` exits 1 for it, not 2.
            assert!(!crate::runner::RunError::Locked(io(kind)).is_usage());
        }
        assert!(crate::runner::RunError::Locked(held).is_usage());
    }

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

    /// A lock file of a process that never runs (a process id above the kernel's limit of
    /// 2^22), on this host.
    fn dead_holder() -> Holder {
        Holder {
            pid: 4_194_305,
            host: host_name(),
            scenario: None,
        }
    }

    #[test]
    fn concurrent_takeovers_of_a_dead_lock_leave_one_holder() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        const ROUNDS: usize = 100;
        const RACERS: usize = 8;
        let shard = Shard::new(1, 2).unwrap();
        for round in 0..ROUNDS {
            let writer = if round % 2 == 0 { None } else { Some(shard) };
            let tmp = tempfile::tempdir().unwrap();
            fs::write(tmp.path().join(file_name(writer)), dead_holder().text()).unwrap();
            let start = std::sync::Barrier::new(RACERS);
            let outcomes: Vec<Result<DirLock, LockError>> = std::thread::scope(|s| {
                let racers: Vec<_> = (0..RACERS)
                    .map(|_| {
                        s.spawn(|| {
                            start.wait();
                            DirLock::acquire(tmp.path(), writer, None)
                        })
                    })
                    .collect();
                racers.into_iter().map(|r| r.join().unwrap()).collect()
            });
            let holders = outcomes.iter().filter(|o| o.is_ok()).count();
            assert_eq!(holders, 1, "round {round}: {holders} writers hold the lock");
            for o in &outcomes {
                if let Err(e) = o {
                    assert!(matches!(e, LockError::Held { .. }), "round {round}: {e}");
                }
            }
        }
    }

    #[test]
    fn a_dead_process_lock_whose_os_lock_is_held_is_not_taken_over() {
        if !Path::new("/proc/self").exists() {
            return;
        }
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(PREFIX);
        fs::write(&path, dead_holder().text()).unwrap();
        // A live process in the middle of taking it over holds its OS lock.
        let taker = File::open(&path).unwrap();
        taker.try_lock().unwrap();
        let err = DirLock::acquire(tmp.path(), None, None).unwrap_err();
        assert!(matches!(err, LockError::Held { .. }), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), dead_holder().text());
        drop(taker);
        let lock = DirLock::acquire(tmp.path(), None, None).unwrap();
        assert_eq!(lock.taken_over().len(), 1);
    }

    #[test]
    fn an_empty_lock_file_left_by_a_killed_writer_is_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(PREFIX);
        // A writer killed between creating its file and writing it.
        fs::write(&path, "").unwrap();
        let lock = DirLock::acquire(tmp.path(), None, None).unwrap();
        assert_eq!(lock.taken_over().len(), 1);
        assert!(
            lock.taken_over()[0].contains("empty"),
            "{:?}",
            lock.taken_over()
        );
        let text = fs::read_to_string(&path).unwrap();
        assert_eq!(Holder::parse(&text), Some(Holder::me()));
        drop(lock);
        // Likewise another writer's file in the way of a shard.
        let other = tmp.path().join(file_name(None));
        fs::write(&other, "").unwrap();
        let shard = DirLock::acquire(tmp.path(), Some(Shard::new(1, 2).unwrap()), None).unwrap();
        assert_eq!(shard.taken_over().len(), 1);
        assert!(!other.exists());
    }

    #[test]
    fn an_empty_lock_file_whose_os_lock_is_held_is_not_taken_over() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(PREFIX);
        fs::write(&path, "").unwrap();
        // A live writer that has locked its new file and not yet written it.
        let writer = File::open(&path).unwrap();
        if writer.try_lock().is_err() {
            return; // No OS locks here: the content alone decides.
        }
        let err = DirLock::acquire(tmp.path(), None, None).unwrap_err();
        assert!(matches!(err, LockError::Held { .. }), "{err}");
        assert_eq!(fs::read_to_string(&path).unwrap(), "");
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_file_replaced_after_it_was_opened_is_told_apart() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(PREFIX);
        fs::write(&path, "pid=1\n").unwrap();
        let opened = File::open(&path).unwrap();
        assert!(names(&path, &opened));
        fs::remove_file(&path).unwrap();
        assert!(!names(&path, &opened));
        fs::write(&path, "pid=2\n").unwrap();
        assert!(!names(&path, &opened));
    }

    #[cfg(unix)]
    #[test]
    fn a_lock_leaves_a_lock_file_that_is_not_its_own() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join(PREFIX);
        let lock = DirLock::acquire(tmp.path(), None, None).unwrap();
        // Deleted by hand and taken by another writer while the first still ran.
        fs::remove_file(&path).unwrap();
        fs::write(&path, "pid=2\n").unwrap();
        drop(lock);
        assert_eq!(fs::read_to_string(&path).unwrap(), "pid=2\n");
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
