//! `--time SECONDS` for the commands whose work has no deadline of its own:
//! `analyze` (without `--compare-llvm`), `transform` (without `--check`) and
//! `compile` (docs/cli.md "Time and progress").
//!
//! Their work (parsing, the analyses, the transforms, the emitters, Graphviz's
//! `dot`, llc-19 and gcc) checks no clock, so a watchdog ends it instead of a
//! deadline threaded through every analysis: [`within`] runs the work on a
//! thread of its own while the calling (main) thread waits for its answer until
//! the deadline, then reports which [`Watch::stage`] the work was in and the
//! command returns from `main`, which ends the process and the work with it.
//! Nothing is lost that the report claims: the work writes no output itself
//! (it returns what is to be printed or written, and the main thread writes it
//! only once the work has finished in time), so a cut-off command prints no
//! part of its report and touches no output file.
//!
//! External tools are the exception, as a process outlives the thread that
//! started it: the work runs them through `pllvm_codegen::native::run_tool`
//! with [`Watch::deadline`], which kills a tool (and the processes it started)
//! when the deadline comes and starts none after it, and marks the stage with
//! [`Watch::tool`]. At the deadline, the main thread looks at the stage: in a
//! tool stage it waits for the work to end (it does within a few milliseconds,
//! its tool killed); in any other stage no tool is running and none will start
//! (the work marks the stage before it starts a tool, and `run_tool` starts
//! none past the deadline), so it reports at once.
//!
//! Without `--time` the work runs on the calling thread, as it always did.

use indicatif::ProgressBar;
use std::process::ExitCode;
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

/// The stack of the work's thread: as much as the main thread's usual 8 MiB
/// and more, so that no input that the main thread analysed overflows it.
const STACK_BYTES: usize = 64 << 20;

/// How long the main thread waits, after the deadline, for work in a tool
/// stage to end: the tool is killed within milliseconds; this only bounds a
/// wait that should never be long.
const TOOL_GRACE: Duration = Duration::from_secs(5);

/// What the work is doing, as the main thread and the progress line see it.
pub(crate) struct Watch {
    /// The stage and whether an external tool may be running in it.
    stage: Mutex<(String, bool)>,
    /// The spinner on stderr (a terminal only), showing the command and the
    /// stage.
    spinner: Option<(ProgressBar, String)>,
    /// When the tools must stop.
    deadline: Option<Instant>,
}

impl Watch {
    /// A watch of work nothing cuts off and no progress line shows (`diff-exec`
    /// preparing its kernels under a deadline of its own).
    pub(crate) fn unwatched() -> Watch {
        Watch {
            stage: Mutex::new((String::new(), false)),
            spinner: None,
            deadline: None,
        }
    }

    /// The work is now in `stage` (`analysing @f (thesis, llvm)`), Rust code
    /// only: no external tool runs in it.
    pub(crate) fn stage(&self, stage: impl Into<String>) {
        self.set(stage.into(), false);
    }

    /// The work is now in `stage`, which runs external tools, each through
    /// `run_tool` with [`Watch::deadline`].
    pub(crate) fn tool(&self, stage: impl Into<String>) {
        self.set(stage.into(), true);
    }

    /// When the external tools of this work must stop.
    pub(crate) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    fn set(&self, stage: String, tool: bool) {
        if let Some((bar, what)) = &self.spinner {
            bar.set_message(format!("{what}: {stage}"));
        }
        if let Ok(mut s) = self.stage.lock() {
            *s = (stage, tool);
        }
    }

    fn current(&self) -> (String, bool) {
        self.stage
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|e| e.into_inner().clone())
    }
}

/// How a watched command ended.
pub(crate) enum Ending<T> {
    /// The work finished (in time, or without a limit).
    Done(T),
    /// The limit came first.
    Cut(Cut),
}

/// Where the limit found the work.
pub(crate) struct Cut {
    /// The limit.
    pub limit: Duration,
    /// The stage the work was in.
    pub stage: String,
}

impl Cut {
    /// The line on stderr: `pllvm analyze: time limit of 2 s reached (--time
    /// sets it) while analysing @f (thesis, llvm); nothing written`.
    pub(crate) fn message(&self, command: &str) -> String {
        format!(
            "pllvm {command}: time limit of {} s reached (--time sets it) while {}; nothing written",
            self.limit.as_secs_f64(),
            self.stage
        )
    }

    /// The exit code: 3, as for every command `--time` cut off (docs/cli.md
    /// "Exit codes").
    pub(crate) fn exit_code(&self) -> ExitCode {
        ExitCode::from(crate::errors::EXIT_TRUNCATED)
    }

    /// The `time_limit` object of a `--json` document cut off.
    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "seconds": self.limit.as_secs_f64(),
            "reached": true,
            "stage": self.stage,
        })
    }
}

/// Runs `work` within `limit` (none: to its end, on this thread), with a
/// spinner labelled `what` on stderr when stderr is a terminal; `first` is the
/// stage it starts in. See the module doc.
pub(crate) fn within<T: Send + 'static>(
    limit: Option<Duration>,
    what: &str,
    first: &str,
    work: impl FnOnce(&Watch) -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<Ending<T>> {
    let spinner = crate::progress::spinner(what);
    // A limit the clock cannot reach is no limit.
    let deadline = limit.and_then(|l| Instant::now().checked_add(l));
    let (Some(limit), Some(deadline)) = (limit, deadline) else {
        let watch = Watch {
            stage: Mutex::new((first.to_string(), false)),
            spinner: spinner.clone().map(|bar| (bar, what.to_string())),
            deadline: None,
        };
        watch.stage(first);
        let result = work(&watch);
        crate::progress::finish(spinner);
        return result.map(Ending::Done);
    };
    let watch = Arc::new(Watch {
        stage: Mutex::new((first.to_string(), false)),
        spinner: spinner.clone().map(|bar| (bar, what.to_string())),
        deadline: Some(deadline),
    });
    watch.stage(first);
    let (send, receive) = mpsc::channel();
    let worker = Arc::clone(&watch);
    let handle = std::thread::Builder::new()
        .name("pllvm-work".into())
        .stack_size(STACK_BYTES)
        .spawn(move || {
            let _ = send.send(work(&worker));
        })?;
    let answer = match receive.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
        Ok(answer) => Some(answer),
        Err(mpsc::RecvTimeoutError::Timeout) => None,
        Err(mpsc::RecvTimeoutError::Disconnected) => {
            // The work panicked (its message is printed): pass the panic on.
            crate::progress::finish(spinner);
            return match handle.join() {
                Err(panic) => std::panic::resume_unwind(panic),
                Ok(()) => Err(anyhow::anyhow!(
                    "internal error: the work ended without an answer"
                )),
            };
        }
    };
    let cut = || {
        Ending::Cut(Cut {
            limit,
            stage: watch.current().0,
        })
    };
    // An answer that came in time is the answer; so is a success that came
    // late. An error after the deadline may be the deadline's doing (a tool
    // killed): the limit is the answer then.
    let result = match answer {
        Some(Ok(done)) => Ok(Ending::Done(done)),
        Some(Err(e)) if Instant::now() < deadline => Err(e),
        Some(Err(_)) => Ok(cut()),
        None if watch.current().1 => {
            // A tool may be running: the work kills it and ends; wait.
            let ending = cut();
            match receive.recv_timeout(TOOL_GRACE) {
                Ok(Ok(done)) => Ok(Ending::Done(done)),
                _ => Ok(ending),
            }
        }
        None => Ok(cut()),
    };
    crate::progress::finish(spinner);
    result
}
