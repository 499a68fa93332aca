//! `pllvm repl`: step a thread array through a program block by block and look at
//! every lane (thesis Ch. 4-5), like a debugger.
//!
//! A thin loop over the library calls `pllvm run` and the corpus use
//! (`pllvm_interp::{Machine, RunConfig, trace, observe}`): [`session`] holds the
//! state and runs commands, [`command`] parses them, [`show`] prints, [`policy`]
//! picks blocks, [`helper`] completes and colours the input line.
//!
//! When stdin is a terminal, lines are read with rustyline (editing, completion,
//! history in `$XDG_STATE_HOME/pllvm/history` or `~/.local/state/pllvm/history`).
//! Otherwise lines are read from stdin and echoed after the prompt, so a script's
//! output reads as a session transcript, and the exit code is 1 when a command
//! of the script failed (0 otherwise); a reader of stdout that goes away ends
//! the session quietly with status 0, as it ends `pllvm print`
//! (`crate::output::stdout`, docs/cli.md "repl"). Colour only when stdout is a terminal
//! and `NO_COLOR` is unset.

mod command;
mod helper;
mod policy;
mod session;
mod show;
mod style;

use crate::flags::{self, MachineFlags, RunInputs};
use crate::output::stdout;
use anyhow::{Result, anyhow};
use clap::Args;
use rustyline::Editor;
use rustyline::config::{CompletionType, Config};
use rustyline::error::ReadlineError;
use rustyline::history::FileHistory;
use session::{Flow, Session, StartOptions};
use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;
use style::{Role, Style};

/// The prompt.
const PROMPT: &str = "pllvm> ";

/// `pllvm repl` options: the run flags of `pllvm run` (the REPL takes no
/// `--buffer`), over the program's first `; run:` line.
#[derive(Args, Debug)]
#[command(mut_arg("memory_limit", |a| a.help(
    "Most bytes of guest memory live at once; beyond it a run ends with a limit outcome. Suffixes K, M, G, T (powers of 1024); default 1G"
)))]
pub(crate) struct ReplArgs {
    /// A .ll file; the embedded logstar program of Fig. 3.22c/d if absent. Its first
    /// `; run:` line gives the default inputs.
    file: Option<PathBuf>,
    #[command(flatten)]
    inputs: RunInputs,
    #[command(flatten)]
    machine: MachineFlags,
    /// How step, run and continue pick blocks: lowest, highest, random:SEED,
    /// replay:FILE (or replay:A,B,C), ipd, interactive (every block by sched).
    #[arg(long, value_name = "POLICY", value_parser = flags::sched_flag)]
    sched: Option<String>,
    /// The function to run (default: the first definition).
    #[arg(long, value_name = "NAME")]
    function: Option<String>,
}

/// Runs the REPL until `quit` or the end of the input.
pub(crate) fn main(args: ReplArgs) -> Result<ExitCode> {
    let style = Style::detect();
    let options = StartOptions {
        inputs: args.inputs,
        machine: args.machine,
        sched: args.sched,
        function: args.function,
    };
    let mut session = Session::new(args.file.as_deref(), &options, style)?;
    // A reader that goes away ends the session quietly, as it ends `print`
    // (`crate::output::stdout`).
    let mut stdout = stdout();
    write!(stdout, "{}", session.banner())?;
    stdout.flush()?;
    if std::io::stdin().is_terminal() {
        interactive(&mut session, style)
    } else {
        scripted(&mut session, style)
    }
}

/// What one input line did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Done {
    /// The command ran; the flow says whether to go on.
    Ran(Flow),
    /// The command failed (its error is printed); the session goes on.
    Failed,
}

/// Runs one line and prints what it says.
fn one(session: &mut Session, line: &str, style: Style) -> Result<Done> {
    let mut stdout = stdout();
    match session.execute(line) {
        Ok((text, flow)) => {
            write!(stdout, "{text}")?;
            stdout.flush()?;
            Ok(Done::Ran(flow))
        }
        Err(e) => {
            writeln!(
                stdout,
                "{}",
                style.paint(Role::Error, &format!("error: {e}"))
            )?;
            stdout.flush()?;
            Ok(Done::Failed)
        }
    }
}

/// The exit code of a script: 0 when every command ran, 1 when one failed (the
/// script goes on after a failed command, as a session would, and its exit code
/// tells that something went wrong).
fn script_exit(failed: u64) -> ExitCode {
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// Lines from a pipe or a file, each echoed after the prompt. Exits 1 at the end
/// (or at `quit`) when a command failed, 0 otherwise.
fn scripted(session: &mut Session, style: Style) -> Result<ExitCode> {
    let stdin = std::io::stdin();
    let mut reader = stdin.lock();
    let mut buf = Vec::new();
    let mut failed = 0u64;
    loop {
        buf.clear();
        if reader.read_until(b'\n', &mut buf)? == 0 {
            return Ok(script_exit(failed));
        }
        // Bytes that are not UTF-8 are garbage like any other: replaced, not fatal.
        let line = String::from_utf8_lossy(&buf);
        let line = line.trim_end_matches(['\n', '\r']);
        writeln!(stdout(), "{}{line}", style.paint(Role::Prompt, PROMPT))?;
        match one(session, line, style)? {
            Done::Ran(Flow::Quit) => return Ok(script_exit(failed)),
            Done::Ran(Flow::Continue) => {}
            Done::Failed => failed += 1,
        }
    }
}

/// The history file: `$XDG_STATE_HOME/pllvm/history`, else
/// `$HOME/.local/state/pllvm/history`.
fn history_path() -> Option<PathBuf> {
    let non_empty = |k: &str| std::env::var_os(k).filter(|v| !v.is_empty());
    if let Some(state) = non_empty("XDG_STATE_HOME") {
        let p = PathBuf::from(state);
        if p.is_absolute() {
            return Some(p.join("pllvm").join("history"));
        }
    }
    non_empty("HOME").map(|h| {
        PathBuf::from(h)
            .join(".local")
            .join("state")
            .join("pllvm")
            .join("history")
    })
}

/// Lines from a terminal through rustyline.
fn interactive(session: &mut Session, style: Style) -> Result<ExitCode> {
    // Ctrl-C during step, run or continue stops the run at the next block and
    // returns to the prompt (at the prompt, the line editor reads it as a key).
    crate::interrupt::install();
    let config = Config::builder()
        .completion_type(CompletionType::List)
        .auto_add_history(true)
        .max_history_size(1000)
        .map_err(|e| anyhow!("{e}"))?
        .history_ignore_dups(true)
        .map_err(|e| anyhow!("{e}"))?
        .build();
    let mut editor: Editor<helper::ReplHelper, FileHistory> =
        Editor::with_config(config).map_err(|e| anyhow!("cannot start the line editor: {e}"))?;
    let mut names = helper::ReplHelper::new(style.color);
    (names.blocks, names.values, names.globals) = session.names();
    editor.set_helper(Some(names));
    let history = history_path();
    if let Some(p) = &history {
        // A missing history file is the first session, not an error.
        let _ = editor.load_history(p);
    }
    let save = |editor: &mut Editor<helper::ReplHelper, FileHistory>| {
        if let Some(p) = &history {
            if let Some(dir) = p.parent() {
                let _ = std::fs::create_dir_all(dir);
            }
            if let Err(e) = editor.save_history(p) {
                let _ = writeln!(
                    stdout(),
                    "{}",
                    style.paint(
                        Role::Note,
                        &format!("note: cannot save the history to {}: {e}", p.display())
                    )
                );
            }
        }
    };
    loop {
        match editor.readline(PROMPT) {
            Ok(line) => {
                save(&mut editor);
                let done = one(session, &line, style)?;
                if let Some(h) = editor.helper_mut() {
                    (h.blocks, h.values, h.globals) = session.names();
                }
                if done == Done::Ran(Flow::Quit) {
                    return Ok(ExitCode::SUCCESS);
                }
            }
            Err(ReadlineError::Interrupted) => {
                writeln!(stdout(), "(Ctrl-C: type quit or Ctrl-D to leave)")?;
            }
            Err(ReadlineError::Eof) => {
                save(&mut editor);
                return Ok(ExitCode::SUCCESS);
            }
            Err(e) => return Err(anyhow!("cannot read the input: {e}")),
        }
    }
}
