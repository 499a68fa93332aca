//! `pllvm repl` in a real terminal: tmux runs the binary in a detached session,
//! `send-keys` types, `capture-pane` reads the screen. Covers what a pipe cannot:
//! rustyline's tab completion (commands, command arguments, blocks, `%values`),
//! colour on a terminal, and the history file carried across sessions.
//!
//! Needs tmux; without it the tests fail and say so (scripts/test-all.sh installs
//! it). Each test uses its own tmux server socket and kills only that server.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from(".."))
}

/// One private tmux server with one session running `pllvm repl`.
struct Tmux {
    socket: String,
}

impl Tmux {
    fn tmux(&self, args: &[&str]) -> Output {
        Command::new("tmux")
            .args(["-L", &self.socket, "-f", "/dev/null"])
            .args(args)
            .output()
            .unwrap_or_else(|e| {
                panic!(
                    "cannot run tmux ({e}): the REPL terminal tests need tmux \
                     (apt-get install tmux; scripts/test-all.sh installs it)"
                )
            })
    }

    /// Starts `pllvm repl ARGS` with `env` (NAME=VALUE words) in a 100x40 terminal.
    fn start(name: &str, env: &[String], args: &[&str]) -> Tmux {
        let probe = Command::new("tmux").arg("-V").output();
        assert!(
            probe.as_ref().is_ok_and(|o| o.status.success()),
            "tmux is not installed: the REPL terminal tests (cli/tests/repl_tmux.rs) need it \
             (apt-get install tmux; scripts/test-all.sh installs it)"
        );
        let t = Tmux {
            socket: format!("pllvm-repl-{}-{name}", std::process::id()),
        };
        let mut command = vec!["env".to_string(), "-u".into(), "XDG_STATE_HOME".into()];
        command.extend(env.iter().cloned());
        command.push(env!("CARGO_BIN_EXE_pllvm").into());
        command.push("repl".into());
        command.extend(args.iter().map(|a| a.to_string()));
        let quoted: Vec<String> = command
            .iter()
            .map(|w| format!("'{}'", w.replace('\'', r"'\''")))
            .collect();
        let root = workspace();
        let out = t.tmux(&[
            "new-session",
            "-d",
            "-s",
            "repl",
            "-x",
            "100",
            "-y",
            "40",
            "-c",
            &root.display().to_string(),
            &quoted.join(" "),
        ]);
        assert!(
            out.status.success(),
            "tmux new-session failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        t
    }

    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "repl"];
        args.extend(keys);
        let out = self.tmux(&args);
        assert!(out.status.success(), "send-keys {keys:?} failed");
    }

    /// Types `text` literally (no key names).
    fn type_text(&self, text: &str) {
        let out = self.tmux(&["send-keys", "-t", "repl", "-l", text]);
        assert!(out.status.success(), "send-keys -l {text:?} failed");
    }

    fn screen(&self) -> String {
        String::from_utf8_lossy(&self.tmux(&["capture-pane", "-p", "-t", "repl"]).stdout)
            .into_owned()
    }

    /// Waits until `check` holds for the screen (10 s at most).
    fn wait(&self, what: &str, check: impl Fn(&str) -> bool) -> String {
        let start = Instant::now();
        loop {
            let screen = self.screen();
            if check(&screen) {
                return screen;
            }
            if start.elapsed() > Duration::from_secs(10) {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the screen has a line equal to `line` (trailing blanks ignored).
    fn wait_line(&self, line: &str) -> String {
        self.wait(line, |s| s.lines().any(|l| l.trim_end() == line))
    }

    /// Waits until the repl has exited (the session is gone).
    fn wait_exit(&self) {
        let start = Instant::now();
        while self.tmux(&["has-session", "-t", "repl"]).status.success() {
            if start.elapsed() > Duration::from_secs(10) {
                panic!("the repl did not exit; the screen:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .args(["-L", &self.socket, "kill-server"])
            .output();
    }
}

fn temp_home(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pllvm-tmux-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir
}

const FIG_4_5: &str = "corpus/semantics/fig4.5-control-mechanics.ll";

#[test]
fn tab_completes_commands_blocks_and_values() {
    let home = temp_home("complete");
    // Colour stays on (a terminal, NO_COLOR unset); capture-pane shows the text.
    let t = Tmux::start(
        "complete",
        &[format!("HOME={}", home.display()), "NO_COLOR=".into()],
        &[FIG_4_5],
    );
    t.wait_line("pllvm>");

    // A command name: "he" + Tab completes to "help ", then an argument of help
    // (a command name): "sch" + Tab completes to "sched".
    t.type_text("he");
    t.keys(&["Tab"]);
    t.wait_line("pllvm> help");
    t.type_text("sch");
    t.keys(&["Tab"]);
    t.wait_line("pllvm> help sched");
    t.keys(&["Enter"]);
    t.wait_line("usage: sched [-f] BLOCK");

    // A block name: the blocks of Fig. 4.5 are A B C D E; Tab twice lists them.
    t.type_text("sched ");
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    t.wait("the list of blocks", |s| {
        s.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["A", "B", "C", "D", "E"])
    });
    t.type_text("A");
    t.keys(&["Enter"]);
    t.wait_line("next: B C");

    // Value names: "%" + Tab, Tab lists the four values; %p is the only one
    // starting with p.
    t.type_text("print %");
    t.keys(&["Tab"]);
    t.keys(&["Tab"]);
    t.wait("the list of values", |s| {
        s.lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["%x", "%p", "%q", "%r"])
    });
    t.type_text("p");
    t.keys(&["Tab"]);
    t.keys(&["Enter"]);
    t.wait_line("%p : i1 = [1, 0]");

    t.type_text("quit");
    t.keys(&["Enter"]);
    t.wait_exit();
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn history_is_kept_across_sessions() {
    let home = temp_home("history");
    let env = [format!("HOME={}", home.display()), "NO_COLOR=1".into()];
    {
        let t = Tmux::start("history1", &env, &[FIG_4_5]);
        t.wait_line("pllvm>");
        t.type_text("print %x");
        t.keys(&["Enter"]);
        t.wait_line("%x : i32 = [0, 1]");
        t.type_text("quit");
        t.keys(&["Enter"]);
        t.wait_exit();
    }
    let file = home.join(".local/state/pllvm/history");
    let saved = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("no history file {}: {e}", file.display()));
    assert!(saved.contains("print %x"), "{saved}");

    // The second session: Up, Up recalls "print %x" (the last entry is "quit").
    let t = Tmux::start("history2", &env, &[FIG_4_5]);
    t.wait_line("pllvm>");
    t.keys(&["Up"]);
    t.wait_line("pllvm> quit");
    t.keys(&["Up"]);
    t.wait_line("pllvm> print %x");
    t.keys(&["Enter"]);
    t.wait_line("%x : i32 = [0, 1]");
    t.type_text("quit");
    t.keys(&["Enter"]);
    t.wait_exit();
    let _ = std::fs::remove_dir_all(&home);
}

#[test]
fn history_goes_to_xdg_state_home() {
    let home = temp_home("xdg");
    let state = home.join("state");
    let env = [
        format!("HOME={}", home.display()),
        format!("XDG_STATE_HOME={}", state.display()),
        "NO_COLOR=1".into(),
    ];
    let t = Tmux::start("xdg", &env, &[]);
    t.wait_line("pllvm>");
    t.type_text("state");
    t.keys(&["Enter"]);
    t.wait_line("0    | ⊥  | A");
    t.type_text("quit");
    t.keys(&["Enter"]);
    t.wait_exit();
    let saved = std::fs::read_to_string(state.join("pllvm/history")).unwrap_or_default();
    assert!(saved.contains("state"), "history not under XDG_STATE_HOME");
    assert!(
        !home.join(".local").exists(),
        "history also went under HOME"
    );
    let _ = std::fs::remove_dir_all(&home);
}

/// Interrupting the REPL: Ctrl-C during `run` stops the run between two blocks and
/// returns to the prompt with the session intact ("interrupted at step N", then
/// `state` shows that step, still running), instead of killing the REPL.
#[test]
fn ctrl_c_stops_a_run_and_keeps_the_session() {
    let home = temp_home("ctrl-c");
    let dir = std::env::temp_dir().join(format!("pllvm-tmux-{}-ctrl-c-in", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let program = dir.join("forever.ll");
    std::fs::write(
        &program,
        "define void @f() {\na:\n  br label %b\nb:\n  br label %b\n}\n",
    )
    .expect("write program");
    // A step limit no test waits for: only Ctrl-C ends this run.
    let input = dir.join("input.json");
    std::fs::write(&input, r#"{"threads": 4, "max_steps": 1000000000000}"#).expect("write input");
    let t = Tmux::start(
        "ctrl-c",
        &[format!("HOME={}", home.display()), "NO_COLOR=1".into()],
        &[
            &program.display().to_string(),
            "--input",
            &input.display().to_string(),
        ],
    );
    t.wait_line("pllvm>");
    t.type_text("run");
    t.keys(&["Enter"]);
    t.wait_line("pllvm> run");
    // Ctrl-C until the run says it stopped (a Ctrl-C that reaches the prompt
    // first is only a note there).
    let start = Instant::now();
    let screen = loop {
        t.keys(&["C-c"]);
        std::thread::sleep(Duration::from_millis(100));
        let screen = t.screen();
        if screen.contains("stopped: interrupted at step ") {
            break screen;
        }
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "the run did not stop; the screen:\n{screen}"
        );
    };
    let step: u64 = screen
        .lines()
        .find_map(|l| l.trim().strip_prefix("stopped: interrupted at step "))
        .and_then(|n| n.trim().parse().ok())
        .expect("a step number");
    assert!(step > 0, "{screen}");
    t.wait_line("pllvm>");
    t.type_text("state");
    t.keys(&["Enter"]);
    t.wait("the state after the interrupted run", |s| {
        s.lines()
            .any(|l| l.trim_end() == format!("step {step}: running"))
    });
    t.type_text("quit");
    t.keys(&["Enter"]);
    t.wait_exit();
    let _ = std::fs::remove_dir_all(&home);
    let _ = std::fs::remove_dir_all(&dir);
}
