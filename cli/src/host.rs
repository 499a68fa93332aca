//! The host memory this process may still use, for the bounds a user can set
//! beyond it: a trace limit is capped by it with a warning instead of growing
//! until the allocator aborts the process (docs/cli.md "Traces and reports").
//!
//! Read from what Linux publishes, without `unsafe`: the memory the kernel can
//! give (`MemAvailable` of `/proc/meminfo`), the address space left under the
//! process's limit (`ulimit -v`: `/proc/self/limits` less `VmSize` of
//! `/proc/self/status`), and what the process's cgroup (v2) has left
//! (`memory.max` less `memory.current`). The least of those is the answer; on
//! a host that publishes none of them there is no answer, and nothing is capped.
//!
//! The files a command reads whole (a program's text, standard input `-`, an
//! `--input` file) are read with a bound instead ([`read_whole`]): a device
//! (`/dev/zero`, `/dev/urandom`: no size, no end) is refused unread, and no more
//! than [`MAX_INPUT_FILE_BYTES`] is read of anything else (docs/cli.md
//! "Conventions", "Files").

use crate::output::io_message;
use std::io::Read as _;
use std::path::{Path, PathBuf};

/// The most bytes of a program text or an `--input` file (256 MiB): room for
/// the generated kernels of a million blocks (85-105 MB of text, BENCHMARKS.md
/// "Uniformity analysis") and more, well within the parser's 32-bit positions,
/// and never enough to exhaust the host.
pub(crate) const MAX_INPUT_FILE_BYTES: u64 = 256 << 20;

/// The bytes of `path` (`-`: standard input), `what` it holds naming it in an
/// error (`the program`, `--input`), read by [`read_bounded`] with the bound
/// [`MAX_INPUT_FILE_BYTES`].
pub(crate) fn read_whole(path: &Path, what: &str) -> Result<Vec<u8>, String> {
    let stdin = path.as_os_str() == "-";
    let name = if stdin {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    let read = if stdin {
        take_bounded(std::io::stdin().lock(), MAX_INPUT_FILE_BYTES)
    } else {
        read_bounded(path, MAX_INPUT_FILE_BYTES)
    };
    read.map_err(|refusal| match refusal {
        Refusal::Device => format!(
            "{what}: {name} is a device, not a file: it is read whole, and a device has no size to check"
        ),
        Refusal::TooBig(size) => format!(
            "{what}: {name} holds {} {MAX_INPUT_FILE_BYTES} bytes, the most pllvm reads of it",
            size.more_than()
        ),
        Refusal::Io(e) => format!("cannot read {name}: {}", io_message(&e)),
    })
}

/// Why [`read_bounded`] gave no bytes.
pub(crate) enum Refusal {
    /// The path names a character or block device: refused unread.
    Device,
    /// The file holds more than the bound.
    TooBig(Size),
    /// The file could not be read.
    Io(std::io::Error),
}

/// How much more than its bound a refused file holds, as far as is known.
pub(crate) enum Size {
    /// A regular file's size, known before reading.
    Known(u64),
    /// A pipe's: it gave more than the bound, and was read no further.
    Unknown,
}

impl Size {
    /// `N bytes, more than` or `more than`, as the refusals' messages say it.
    pub(crate) fn more_than(&self) -> String {
        match self {
            Size::Known(n) => format!("{n} bytes, more than"),
            Size::Unknown => "more than".to_string(),
        }
    }
}

/// The bytes of the file `path`, at most `bound` of them: a device is refused
/// unread, a regular file's size is checked before it is read, and anything else
/// (a pipe) is read up to the bound.
pub(crate) fn read_bounded(path: &Path, bound: u64) -> Result<Vec<u8>, Refusal> {
    let kind = std::fs::metadata(path).map_err(Refusal::Io)?;
    if is_device(&kind.file_type()) {
        return Err(Refusal::Device);
    }
    if kind.is_file() && kind.len() > bound {
        return Err(Refusal::TooBig(Size::Known(kind.len())));
    }
    take_bounded(std::fs::File::open(path).map_err(Refusal::Io)?, bound)
}

/// At most `bound` bytes of `reader`; more is [`Refusal::TooBig`].
fn take_bounded(reader: impl std::io::Read, bound: u64) -> Result<Vec<u8>, Refusal> {
    let mut bytes = Vec::new();
    reader
        .take(bound.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(Refusal::Io)?;
    if bytes.len() as u64 > bound {
        return Err(Refusal::TooBig(Size::Unknown));
    }
    Ok(bytes)
}

/// Whether a file is a character or block device (never on hosts without them).
fn is_device(kind: &std::fs::FileType) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt as _;
        kind.is_char_device() || kind.is_block_device()
    }
    #[cfg(not(unix))]
    {
        let _ = kind;
        false
    }
}

/// Bytes this process may still allocate, the least of the bounds above, or
/// `None` when the host tells none of them.
pub(crate) fn available_memory() -> Option<u64> {
    [meminfo_available(), address_space_left(), cgroup_left()]
        .into_iter()
        .flatten()
        .min()
}

/// A field `NAME:   N kB` of a `/proc` status file, in bytes.
fn kib_field(text: &str, name: &str) -> Option<u64> {
    text.lines()
        .find_map(|l| l.strip_prefix(name)?.trim().strip_prefix(':'))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|n| n.trim().parse::<u64>().ok())
        .map(|kib| kib.saturating_mul(1024))
}

/// `MemAvailable` of `/proc/meminfo`.
fn meminfo_available() -> Option<u64> {
    kib_field(
        &std::fs::read_to_string("/proc/meminfo").ok()?,
        "MemAvailable",
    )
}

/// The soft address-space limit (`ulimit -v`) less the address space in use.
fn address_space_left() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    // `Max address space   SOFT   HARD   bytes`, each `unlimited` or a number.
    let soft = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max address space"))?
        .split_whitespace()
        .next()?
        .parse::<u64>()
        .ok()?;
    let used = kib_field(
        &std::fs::read_to_string("/proc/self/status").ok()?,
        "VmSize",
    )?;
    Some(soft.saturating_sub(used))
}

/// What the process's cgroup (v2) may still charge: `memory.max` less
/// `memory.current` (`max` is no limit).
fn cgroup_left() -> Option<u64> {
    let membership = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = membership.lines().find_map(|l| l.strip_prefix("0::"))?;
    let dir = PathBuf::from("/sys/fs/cgroup").join(path.trim().trim_start_matches('/'));
    let read = |name: &str| -> Option<u64> {
        std::fs::read_to_string(dir.join(name))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some(read("memory.max")?.saturating_sub(read("memory.current")?))
}

/// The share of [`available_memory`] a trace may take: a quarter, as the
/// output built from it (a text table, a page) costs about as much again, and
/// the run itself needs the rest.
pub(crate) const TRACE_SHARE: u64 = 4;

/// The rows of `row_bytes` each that fit in the trace's share of `available`
/// bytes, when fewer than `requested` (at least 1); `None` when all fit or the
/// host tells no bound.
fn rows_that_fit(requested: usize, row_bytes: usize, available: Option<u64>) -> Option<usize> {
    let share = available? / TRACE_SHARE;
    let fit = usize::try_from(share / row_bytes.max(1) as u64).unwrap_or(usize::MAX);
    (requested > fit).then_some(fit.max(1))
}

/// `rows × row_bytes` in MiB, for the warnings.
fn mib_of(rows: usize, row_bytes: usize) -> u128 {
    (rows as u128).saturating_mul(row_bytes as u128) / (1 << 20)
}

/// `requested` trace rows (of `row_bytes` each), capped so that they fit in
/// the trace's share of `available` bytes: the rows kept, and when they are
/// fewer, the warning that says why.
pub(crate) fn cap_trace_rows(
    requested: usize,
    row_bytes: usize,
    available: Option<u64>,
    width: usize,
) -> (usize, Option<String>) {
    let Some(kept) = rows_that_fit(requested, row_bytes, available) else {
        return (requested, None);
    };
    (
        kept,
        Some(format!(
            "a trace of {requested} rows (--trace-limit) of {width} lanes would take about {} MiB of host memory, more than a quarter of the {} MiB this process may still use; the trace keeps {kept} rows (the first and the latest)",
            mib_of(requested, row_bytes),
            available.unwrap_or(0) / (1 << 20)
        )),
    )
}

/// The REPL's trace window (`pllvm_interp::stepper::Stepper::trace_window`):
/// `requested` rows of `row_bytes` each, capped so that the trace fits in the
/// trace's share of `available` bytes, as [`cap_trace_rows`] caps `run`'s. The
/// stepper holds up to twice its window before it drops the oldest rows, so
/// twice the window must fit. The window kept, and when it is smaller, the
/// warning that says why.
pub(crate) fn cap_repl_trace_window(
    requested: usize,
    row_bytes: usize,
    available: Option<u64>,
    width: usize,
) -> (usize, Option<String>) {
    let held = requested.saturating_mul(2);
    let Some(fit) = rows_that_fit(held, row_bytes, available) else {
        return (requested, None);
    };
    let kept = (fit / 2).max(1);
    (
        kept,
        Some(format!(
            "the session would keep up to {held} trace rows of {width} lanes, about {} MiB of host memory, more than a quarter of the {} MiB this process may still use; it keeps the last {kept} rows instead of {requested}",
            mib_of(held, row_bytes),
            available.unwrap_or(0) / (1 << 20)
        )),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A trace limit within the share is kept; one beyond it is cut to the
    /// share, with a warning naming both; without a known bound nothing is cut.
    fn check(requested: usize, available: Option<u64>, expect: (usize, bool)) {
        let (kept, warning) = cap_trace_rows(requested, 1000, available, 8);
        assert_eq!((kept, warning.is_some()), expect, "{warning:?}");
    }

    #[test]
    fn trace_rows_are_capped_by_a_quarter_of_the_available_memory() {
        check(1000, Some(4_000_000), (1000, false));
        check(1001, Some(4_000_000), (1000, true));
        check(1_000_000_000, None, (1_000_000_000, false));
        check(10, Some(0), (1, true));
    }

    #[test]
    fn the_repl_window_is_halved_to_hold_twice_its_rows() {
        let cap = |requested, available| {
            let (kept, warning) = cap_repl_trace_window(requested, 1000, available, 8);
            (kept, warning.is_some())
        };
        assert_eq!(cap(500, Some(4_000_000)), (500, false));
        assert_eq!(cap(501, Some(4_000_000)), (500, true));
        assert_eq!(cap(10_000, Some(0)), (1, true));
        assert_eq!(cap(10_000, None), (10_000, false));
    }

    #[test]
    fn proc_fields_are_read_in_bytes() {
        let text = "MemTotal:       24000000 kB\nMemAvailable:    1000 kB\n";
        assert_eq!(kib_field(text, "MemAvailable"), Some(1_024_000));
        assert_eq!(kib_field(text, "VmSize"), None);
    }
}
