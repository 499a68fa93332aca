//! Ctrl-C as a request, not a kill: while a REPL run or an exploration is going,
//! SIGINT sets a flag that the loop checks between steps (the REPL then returns
//! to its prompt, `explore` reports what it found so far).

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the SIGINT handler, cleared by [`take`].
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

/// Installs the SIGINT handler (the `ctrlc` crate) once per process. `false`
/// when it cannot be installed: Ctrl-C then ends the process as usual.
pub(crate) fn install() -> bool {
    ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst)).is_ok()
}

/// Whether Ctrl-C was pressed since the last call (and forgets it).
pub(crate) fn take() -> bool {
    INTERRUPTED.swap(false, Ordering::SeqCst)
}
