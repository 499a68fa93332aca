//! Where every subcommand's output goes: standard output ([`stdout`]) and the
//! files it writes ([`write_file`], [`copy_file`]), all written atomically as
//! docs/cli.md "Conventions" (output files) states.
//!
//! A file is written to a temporary file beside its target (same directory, so
//! the same file system), synced, and renamed over the target only once it is
//! complete: a run that fails part way, or is killed, leaves an existing target
//! as it was (a killed run may leave its `.NAME.pllvm-XXXXXX.tmp` beside it), and
//! nothing removes a file this process did not create. A target that is not a
//! regular file (`/dev/null`, a FIFO, a terminal, `/dev/stdout`) is written in
//! place: renaming over it would replace a device node or a pipe by a regular
//! file. A symbolic link to a regular file keeps the link; the file it names is
//! replaced.

use anyhow::{Result, anyhow};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Standard output for every subcommand's report. A reader that goes away
/// (`pllvm print big.ll | head -1`) ends the process quietly with status 0, as a
/// Unix filter ends on SIGPIPE, instead of a panic in `print!` (the broken-pipe
/// test, `cli/tests/broken_pipe.rs`).
pub(crate) fn stdout() -> PipeStdout {
    PipeStdout(std::io::stdout())
}

/// [`std::io::Stdout`] whose broken pipe is a quiet exit (see [`stdout`]).
pub(crate) struct PipeStdout(std::io::Stdout);

impl std::io::Write for PipeStdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        exit_on_broken_pipe(self.0.write(buf))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        exit_on_broken_pipe(self.0.flush())
    }
}

/// Exits with status 0, printing nothing, when `result` says the reader of
/// standard output has gone; otherwise returns `result`.
fn exit_on_broken_pipe<T>(result: std::io::Result<T>) -> std::io::Result<T> {
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => std::process::exit(0),
        other => other,
    }
}

/// Writes the file `path` with what `write` produces, atomically (see the
/// module doc). An error of `write` leaves `path` as it was; the error returned
/// names `path`. A new file gets the permissions a plain create would give it;
/// a replaced one keeps its own.
pub(crate) fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    write_with(path, None, write)
}

/// [`write_file`] of `bytes`.
pub(crate) fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    write_file(path, |w| Ok(w.write_all(bytes)?))
}

/// Copies the file `from` (a program or object built in a private directory)
/// to `to` with [`write_file`]'s care, and with `from`'s permissions (a program
/// stays executable).
pub(crate) fn copy_file(from: &Path, to: &Path) -> Result<()> {
    let permissions = std::fs::metadata(from)
        .map_err(|e| anyhow!("cannot read {}: {e}", from.display()))?
        .permissions();
    write_with(to, Some(permissions), |w| {
        let mut input = std::fs::File::open(from)
            .map_err(|e| anyhow!("cannot read {}: {e}", from.display()))?;
        std::io::copy(&mut input, w)?;
        Ok(())
    })
}

/// An IO error as a lowercase message without the OS error number
/// (docs/design/style.md §5: messages are lowercase).
pub(crate) fn io_message(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" (os error") {
        Some(k) => text[..k].to_string(),
        None => text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_lowercase().chain(chars).collect(),
        None => text,
    }
}

/// Where a write to a path goes once its symbolic links are followed.
#[derive(Debug, PartialEq, Eq)]
enum Target {
    /// A regular file, or nothing yet: replaced (or created) by a rename.
    Replace(PathBuf),
    /// Something else (a device, a FIFO, a socket): opened and written in place.
    InPlace(PathBuf),
    /// The process's own standard output or error (`/dev/stdout`,
    /// `/proc/self/fd/1`, ...): written through the stream, at its position.
    Stdout,
    /// See [`Target::Stdout`].
    Stderr,
}

/// Follows `path`'s symbolic links one at a time (at most 40, as the kernel
/// does) to decide how to write it ([`Target`]).
fn target(path: &Path) -> Target {
    let mut p = path.to_path_buf();
    for _ in 0..40 {
        // A link to a descriptor of this process names an open stream: opening it
        // again would start a second file position at 0.
        for (fd, stream) in [("1", Target::Stdout), ("2", Target::Stderr)] {
            if p == Path::new("/proc/self/fd").join(fd) || p == Path::new("/dev/fd").join(fd) {
                return stream;
            }
        }
        match std::fs::symlink_metadata(&p) {
            Err(_) => return Target::Replace(p),
            Ok(m) if m.file_type().is_symlink() => match std::fs::read_link(&p) {
                Ok(to) => {
                    p = match p.parent() {
                        Some(dir) if to.is_relative() => dir.join(to),
                        _ => to,
                    };
                }
                Err(_) => return Target::InPlace(path.to_path_buf()),
            },
            Ok(m) if m.is_file() => return Target::Replace(p),
            Ok(_) => return Target::InPlace(p),
        }
    }
    // A loop of links: the open below reports it.
    Target::InPlace(path.to_path_buf())
}

/// [`write_file`] with the new file's permissions (`None`: those of the file it
/// replaces, or a plain create's).
fn write_with(
    path: &Path,
    permissions: Option<std::fs::Permissions>,
    write: impl FnOnce(&mut dyn Write) -> Result<()>,
) -> Result<()> {
    let cannot = |e: &dyn std::fmt::Display| anyhow!("cannot write {}: {e}", path.display());
    let io = |e: std::io::Error| cannot(&io_message(&e));
    match target(path) {
        Target::Stdout => {
            let mut out = stdout();
            write(&mut out)
                .and_then(|()| Ok(out.flush()?))
                .map_err(|e| cannot(&format!("{e:#}")))
        }
        Target::Stderr => {
            let mut err = std::io::stderr();
            write(&mut err)
                .and_then(|()| Ok(err.flush()?))
                .map_err(|e| cannot(&format!("{e:#}")))
        }
        Target::InPlace(p) => {
            let file = std::fs::OpenOptions::new()
                .write(true)
                .open(&p)
                .map_err(io)?;
            let mut buffered = std::io::BufWriter::new(file);
            write(&mut buffered)
                .and_then(|()| Ok(buffered.flush()?))
                .map_err(|e| cannot(&format!("{e:#}")))
        }
        Target::Replace(p) => {
            let permissions = match permissions {
                Some(p) => Some(p),
                None => std::fs::metadata(&p).ok().map(|m| m.permissions()),
            };
            let mut temp = temporary_beside(&p).map_err(io)?;
            {
                let mut buffered = std::io::BufWriter::new(temp.as_file_mut());
                write(&mut buffered)
                    .and_then(|()| Ok(buffered.flush()?))
                    .map_err(|e| cannot(&format!("{e:#}")))?;
            }
            temp.as_file().sync_all().map_err(io)?;
            if let Some(permissions) = permissions {
                temp.as_file().set_permissions(permissions).map_err(io)?;
            }
            // On an error the temporary goes with the value: removed.
            temp.persist(&p).map(drop).map_err(|e| io(e.error))
        }
    }
}

/// A new temporary file `.NAME.pllvm-XXXXXX.tmp` in `target`'s directory,
/// created exclusively with a plain create's permissions (0666 less the umask),
/// removed when dropped unless persisted over the target.
fn temporary_beside(target: &Path) -> std::io::Result<tempfile::NamedTempFile> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let name = target
        .file_name()
        .map_or_else(|| "output".into(), |n| n.to_string_lossy());
    let prefix = format!(".{name}.pllvm-");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".tmp");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt as _;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    builder.tempfile_in(dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the build's temporary folder.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("pllvm-output-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        dir
    }

    /// Checks what [`write_file`] leaves in `dir` after writing `file` with
    /// `write`: the file's text (`None`: absent) and that no temporary is left.
    fn check(dir: &Path, file: &str, write: Result<(), &str>, expect: Option<&str>) {
        let path = dir.join(file);
        let result = write_file(&path, |w| {
            w.write_all(b"new")?;
            write.map_err(|e| anyhow!("{e}"))
        });
        assert_eq!(result.is_ok(), write.is_ok(), "{result:?}");
        assert_eq!(std::fs::read_to_string(&path).ok().as_deref(), expect);
        let left: Vec<_> = std::fs::read_dir(dir)
            .expect("dir")
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect();
        assert!(left.is_empty(), "temporaries left: {left:?}");
    }

    #[test]
    fn a_failed_write_keeps_the_old_file_and_a_good_one_replaces_it() {
        let dir = scratch("replace");
        std::fs::write(dir.join("a"), "old").expect("write");
        check(&dir, "a", Err("no page"), Some("old"));
        check(&dir, "a", Ok(()), Some("new"));
        check(&dir, "b", Err("no page"), None);
        check(&dir, "b", Ok(()), Some("new"));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn targets_that_are_not_regular_files_are_written_in_place() {
        assert_eq!(
            target(Path::new("/dev/null")),
            Target::InPlace("/dev/null".into())
        );
        assert_eq!(target(Path::new("/dev/stdout")), Target::Stdout);
        let dir = scratch("links");
        std::os::unix::fs::symlink("real", dir.join("link")).expect("symlink");
        std::fs::write(dir.join("real"), "old").expect("write");
        assert_eq!(target(&dir.join("link")), Target::Replace(dir.join("real")));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
