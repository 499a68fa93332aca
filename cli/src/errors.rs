//! The two errors `main` renders in its own way: a mistake of the command line
//! ([`Usage`], exit code 2) and diagnostics already rendered at their source
//! positions ([`Rendered`], printed as they are). Every other error is printed
//! as `error: ...` with exit code 1.

/// A mistake of the command line that only the program shows (a flag naming a
/// parameter, function or global the program does not have, a value that does not
/// fit its parameter): exit code 2, like the mistakes clap finds itself.
#[derive(Debug)]
pub(crate) struct Usage(pub String);

impl std::fmt::Display for Usage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// Diagnostics rendered as `file:line:col: error: ...` with their source lines:
/// `main` prints them as they are, without a second `error:` prefix.
#[derive(Debug)]
pub(crate) struct Rendered(pub String);

impl std::fmt::Display for Rendered {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Rendered {}

/// The exit code of an exploration the bounds, `--time` or Ctrl-C cut off, and
/// of every other command `--time` cut off: its report is partial, or none
/// (`analyze`, `transform`, `compile`: docs/cli.md "Time and progress").
pub(crate) const EXIT_TRUNCATED: u8 = 3;
