//! `htsim completions SHELL` and `htsim man`: shell completion scripts and man pages, generated
//! from the same clap definition as the argument parser, so they cannot drift from it.

use std::io::Write as _;
use std::path::Path;

use clap_complete::Shell;

/// Writes the completion script for `shell` to stdout.
pub fn completions(mut command: clap::Command, shell: Shell) {
    let name = command.get_name().to_string();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut command, name, &mut script);
    // Ignoring a closed pipe, as `htsim list` does.
    let _ = std::io::stdout().write_all(&script);
}

/// Writes the man page of `command` (section 1, roff) to stdout or, with `out_dir`, one page per
/// command into that directory (`htsim.1`, `htsim-run.1`, ...), which must exist.
pub fn man(command: clap::Command, out_dir: Option<&Path>) -> std::io::Result<()> {
    match out_dir {
        Some(dir) => clap_mangen::generate_to(command, dir),
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(command).render(&mut page)?;
            let _ = std::io::stdout().write_all(&page);
            Ok(())
        }
    }
}
