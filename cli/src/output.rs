//! Standard output for every subcommand's report ([`stdout`]).

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
