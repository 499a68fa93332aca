//! Progress of a long command on stderr, and only when stderr is a terminal:
//! standard output carries the report alone (a `--json` document stays one
//! document) and a log or a pipe gets no progress lines (docs/cli.md
//! "Conventions"). `pllvm run`, `transform --check`, `diff-exec` and `analyze
//! --compare-llvm` show the time they have taken, a launch the
//! thread arrays done (docs/launch.md "Time limit and progress"), `analyze`,
//! `transform` and `compile` their stage too (`crate::watchdog`); `explore`
//! and `fuzz` draw their own.

use indicatif::{ProgressBar, ProgressStyle};
use std::io::IsTerminal;
use std::time::Duration;

/// How often a spinner redraws.
const TICK: Duration = Duration::from_millis(200);

/// A spinner with the elapsed time, `what: 12s`, when stderr is a terminal.
pub(crate) fn spinner(what: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new_spinner();
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}: {elapsed}") {
        bar.set_style(style);
    }
    bar.set_message(what.to_string());
    bar.enable_steady_tick(TICK);
    Some(bar)
}

/// A bar of `len` steps counted in `unit` (`thread arrays`), with the elapsed
/// time, when stderr is a terminal.
pub(crate) fn bar(len: u64, unit: &str) -> Option<ProgressBar> {
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::new(len);
    let template = format!("{{elapsed_precise}} [{{wide_bar}}] {{pos}}/{{len}} {unit} {{msg}}");
    if let Ok(style) = ProgressStyle::with_template(&template) {
        bar.set_style(style);
    }
    bar.enable_steady_tick(TICK);
    Some(bar)
}

/// Clears a spinner or a bar from the terminal, leaving the report alone.
pub(crate) fn finish(bar: Option<ProgressBar>) {
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
}
