//! Reading input files (scenarios, topology files, CDF files) with a size limit, so that a path
//! such as `/dev/zero` or a huge file is an error instead of reading until memory runs out.

use std::io::Read as _;
use std::path::Path;

/// The largest input file read: 16 MiB (a topology file of this size holds about 300 000
/// links).
pub const MAX_INPUT_BYTES: u64 = 16 * 1024 * 1024;

/// Reads the text file at `path`, at most [`MAX_INPUT_BYTES`]; the error says what is wrong
/// (missing, a directory, a FIFO or device, too large, not UTF-8) without the path, which the
/// caller names. Only regular files are read: a FIFO would block until a writer comes.
pub fn read_text(path: &Path) -> Result<String, String> {
    let meta = std::fs::metadata(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => "the file does not exist".to_string(),
        _ => format!("cannot read it: {e}"),
    })?;
    if meta.is_dir() {
        return Err("it is a directory, not a file".into());
    }
    if !meta.is_file() {
        return Err("it is not a regular file (a FIFO, socket or device)".into());
    }
    let file = std::fs::File::open(path).map_err(|e| format!("cannot read it: {e}"))?;
    let mut bytes = Vec::new();
    file.take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| format!("cannot read it: {e}"))?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(format!(
            "it is larger than {} MiB, the limit for input files",
            MAX_INPUT_BYTES / (1024 * 1024)
        ));
    }
    String::from_utf8(bytes).map_err(|e| {
        format!(
            "it is not UTF-8 text (invalid byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_devices_and_missing_files_are_clear_errors() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(
            read_text(dir.path()).unwrap_err(),
            "it is a directory, not a file"
        );
        assert_eq!(
            read_text(&dir.path().join("nope")).unwrap_err(),
            "the file does not exist"
        );
        let big = dir.path().join("big");
        std::fs::write(&big, vec![b'#'; MAX_INPUT_BYTES as usize + 1]).unwrap();
        assert!(read_text(&big).unwrap_err().contains("larger than 16 MiB"));
        let ok = dir.path().join("ok");
        std::fs::write(&ok, "host host0\n").unwrap();
        assert_eq!(read_text(&ok).unwrap(), "host host0\n");
        if Path::new("/dev/zero").exists() {
            assert_eq!(
                read_text(Path::new("/dev/zero")).unwrap_err(),
                "it is not a regular file (a FIFO, socket or device)"
            );
        }
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        if !made.is_ok_and(|s| s.success()) {
            return; // no mkfifo here
        }
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || tx.send(read_text(&fifo)));
        let result = rx
            .recv_timeout(std::time::Duration::from_secs(5))
            .expect("reading a FIFO blocked");
        assert_eq!(
            result.unwrap_err(),
            "it is not a regular file (a FIFO, socket or device)"
        );
    }
}
