//! `htsim completions SHELL` and `htsim man`: generated from the clap definition, they name
//! every subcommand and option.

use std::path::Path;

mod common;
use common::htsim;

/// The subcommands a user can type.
const SUBCOMMANDS: [&str; 7] = [
    "run",
    "validate",
    "report",
    "list",
    "bench",
    "completions",
    "man",
];

#[test]
fn completion_scripts_name_every_subcommand_and_option() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let out = htsim(&["completions", shell], Path::new("."));
        assert_eq!(out.status.code(), Some(0), "{shell}");
        let script = String::from_utf8(out.stdout).expect("utf-8");
        for name in SUBCOMMANDS.iter().chain(&["replace-stale", "shard-count"]) {
            assert!(script.contains(name), "{shell}: no `{name}` in\n{script}");
        }
        if matches!(shell, "bash" | "zsh") {
            // Values are completed too: the list groups.
            assert!(script.contains("transports"), "{shell}");
        }
    }
    let out = htsim(&["completions", "tcsh"], Path::new("."));
    assert_eq!(
        out.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn man_page_names_every_subcommand_and_the_exit_codes() {
    let out = htsim(&["man"], Path::new("."));
    assert_eq!(out.status.code(), Some(0));
    let page = String::from_utf8(out.stdout).expect("utf-8");
    assert!(page.contains(".TH htsim 1"), "{page}");
    for name in SUBCOMMANDS {
        assert!(
            page.contains(&format!("htsim\\-{name}(1)")),
            "no {name} in\n{page}"
        );
    }
    assert!(
        page.contains("Exit status: 0 success; 2 bad arguments"),
        "{page}"
    );
}

#[test]
fn man_pages_per_command_into_a_directory() {
    let dir = tempfile::tempdir().unwrap();
    let out = htsim(&["man", "--out-dir", "."], dir.path());
    assert_eq!(out.status.code(), Some(0));
    for page in
        std::iter::once("htsim".to_string()).chain(SUBCOMMANDS.map(|s| format!("htsim-{s}")))
    {
        let text = std::fs::read_to_string(dir.path().join(format!("{page}.1")))
            .unwrap_or_else(|e| panic!("{page}.1: {e}"));
        assert!(text.contains(&format!(".TH {page} 1")), "{page}.1:\n{text}");
    }
    let run = std::fs::read_to_string(dir.path().join("htsim-run.1")).unwrap();
    assert!(run.contains("replace\\-stale"), "{run}");

    // A path that names no directory is the caller's error (exit 2, as for `run --out`); it
    // exited 1, the code of a failure of the machine.
    for (path, why) in [
        ("missing", "no such directory"),
        ("htsim.1", "not a directory"),
    ] {
        let out = htsim(&["man", "--out-dir", path], dir.path());
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(
            err.contains(&format!(
                "--out-dir {path}: {why}; expected an existing directory"
            )),
            "{err}"
        );
    }
}
