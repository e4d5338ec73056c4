//! Records the git commit htsim is built from, so that every run's run.json can name it
//! (`crate::identity::GIT_COMMIT`): `HTSIM_GIT_COMMIT` when the build sets it, else the `HEAD`
//! of the git checkout this crate is the top of, when it is one and `git` runs. Nothing
//! otherwise (a crate from a registry or a source archive): the commit is then unknown.
//!
//! The commit is `HEAD`'s; changes in the working tree that were not committed are not told.

use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=HTSIM_GIT_COMMIT");
    if std::env::var_os("HTSIM_GIT_COMMIT").is_some_and(|v| !v.is_empty()) {
        return;
    }
    let Some(manifest) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
        return;
    };
    let git = |args: &[&str]| -> Option<String> {
        let out = Command::new("git")
            .arg("-C")
            .arg(&manifest)
            .args(args)
            .output()
            .ok()?;
        let text = String::from_utf8(out.stdout).ok()?;
        (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
    };
    // Only a checkout whose top is this crate: not a parent repository this source sits in.
    let top = git(&["rev-parse", "--show-toplevel"]).map(PathBuf::from);
    let same = |a: &Path, b: &Path| a.canonicalize().ok() == b.canonicalize().ok();
    if !top.is_some_and(|t| same(&t, &manifest)) {
        return;
    }
    let Some(commit) = git(&["rev-parse", "HEAD"]) else {
        return;
    };
    println!("cargo:rustc-env=HTSIM_GIT_COMMIT={commit}");
    // Built again when HEAD moves: a checkout (HEAD) or a commit on its branch (the ref).
    let path = |p: String| {
        let p = PathBuf::from(p);
        if p.is_absolute() {
            p
        } else {
            manifest.join(p)
        }
    };
    let mut watched = Vec::new();
    if let Some(dir) = git(&["rev-parse", "--git-dir"]).map(path) {
        watched.push(dir.join("HEAD"));
    }
    if let Some(common) = git(&["rev-parse", "--git-common-dir"]).map(path) {
        watched.push(common.join("packed-refs"));
        if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
            watched.push(common.join(branch));
        }
    }
    for p in watched.into_iter().filter(|p| p.exists()) {
        println!("cargo:rerun-if-changed={}", p.display());
    }
}
