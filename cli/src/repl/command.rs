//! The REPL's command language: the table of commands (names, aliases, usage,
//! help text, what their arguments complete to) and the parser from one input
//! line to a [`Command`]. Every malformed line is an `Err` with a one-line
//! message, never a panic.

/// What the arguments of a command are, for tab completion.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum ArgKind {
    /// No arguments (or a number).
    Nothing,
    /// A block name.
    Block,
    /// A block name or a `%value`.
    BlockOrValue,
    /// A `%value`.
    Value,
    /// A file path.
    File,
    /// A command name.
    Command,
    /// A setting (`threads`, `interp`, ...), then its value.
    Setting,
    /// A global `@name` or an object `#n`.
    Address,
}

/// One command of the table.
#[derive(Debug)]
pub(super) struct CommandSpec {
    /// The full name.
    pub name: &'static str,
    /// Short aliases.
    pub aliases: &'static [&'static str],
    /// `name ARGS`.
    pub usage: &'static str,
    /// One line for `help`.
    pub summary: &'static str,
    /// More for `help CMD`.
    pub details: &'static str,
    /// What its arguments complete to.
    pub args: ArgKind,
}

/// Every command, in the order `help` lists them.
pub(super) const COMMANDS: &[CommandSpec] = &[
    CommandSpec {
        name: "step",
        aliases: &["s", "next", "n"],
        usage: "step [N]",
        summary: "schedule the next N blocks (default 1) with the current policy",
        details: "Each scheduled block is one [LSS-W-STEP] (thesis Fig. 4.3). The trace row of\n\
                  every block is printed with the values it wrote, then the lanes' next blocks.\n\
                  Stops early at a breakpoint, at the end of the run or at undefined behaviour.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "sched",
        aliases: &["sc", "go"],
        usage: "sched [-f] BLOCK",
        summary: "schedule BLOCK by hand (refused when it is not legal next)",
        details: "A runtime schedule may name any block (Def. 5), but only some choices are\n\
                  greedy (Def. 12): `legal` lists them and says why the others are not. A choice\n\
                  that is not legal is refused with that reason; `sched -f BLOCK` schedules it\n\
                  anyway (to watch a non-greedy schedule, as in thesis Fig. 5.2).",
        args: ArgKind::Block,
    },
    CommandSpec {
        name: "legal",
        aliases: &["l"],
        usage: "legal",
        summary: "the blocks that may be scheduled next, and why each other block may not",
        details: "A block is legal next when scheduling it keeps the schedule greedy (Def. 12):\n\
                  it makes progress (Def. 14), is synchronizing (Def. 17) and preserves\n\
                  termination (§5.3). Each other block is shown with the first definition it\n\
                  breaks and the lane that witnesses it.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "run",
        aliases: &["r"],
        usage: "run",
        summary: "schedule blocks with the current policy to the end or a breakpoint",
        details: "Runs from the current state (like `continue`); `reset` first to start over.\n\
                  The step limit of the run configuration (max_steps) bounds it; Ctrl-C\n\
                  stops it (\"interrupted at step N\") and returns to the prompt.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "continue",
        aliases: &["c", "cont"],
        usage: "continue",
        summary: "the same as run: go on to the end or the next breakpoint",
        details: "A breakpoint on the block that is about to be scheduled does not stop the\n\
                  first block of a continue, so continue always moves.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "break",
        aliases: &["b"],
        usage: "break [BLOCK | %value]",
        summary: "stop before BLOCK is scheduled, or when the lanes of %value diverge",
        details: "break BLOCK stops step, run and continue before BLOCK is scheduled.\n\
                  break %value stops after a block in which the lanes that executed the\n\
                  definition of %value disagree on its value (the lanes of the observer:\n\
                  the control mask for a phi, every lane for total and mask(), the\n\
                  activation otherwise). break alone lists the breakpoints.",
        args: ArgKind::BlockOrValue,
    },
    CommandSpec {
        name: "delete",
        aliases: &["d"],
        usage: "delete [BLOCK | %value]",
        summary: "remove one breakpoint, or all of them",
        details: "delete alone removes every breakpoint.",
        args: ArgKind::BlockOrValue,
    },
    CommandSpec {
        name: "back",
        aliases: &["u", "undo"],
        usage: "back [N]",
        summary: "undo the last N scheduled blocks (default 1), restoring the exact state",
        details: "Every scheduled block keeps a snapshot of the state before it (𝕄, Δ^W,\n\
                  ℓ_in^W, ℓ_next^W), the trace length and the observed divergence, so back\n\
                  returns to exactly that earlier state. The session keeps the snapshots of\n\
                  the last 1,000 scheduled blocks (fewer when states are large: 256 MiB at\n\
                  most); back further says so, and reset starts over.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "print",
        aliases: &["p"],
        usage: "print [%value]",
        summary: "the value of %value in every lane; alone: every named value",
        details: "Lanes print in lane order, ⊤ for undef. A lane that was passive in the last\n\
                  scheduled block is shown in parentheses: (v).",
        args: ArgKind::Value,
    },
    CommandSpec {
        name: "masks",
        aliases: &["m"],
        usage: "masks",
        summary: "cmask, pmask and amask of every block some lane could execute next",
        details: "The masks are those [BLS-W-STEP] would compute if the block were scheduled\n\
                  now (Def. 6-8), found by executing it on a copy of the state.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "state",
        aliases: &["st", "info"],
        usage: "state",
        summary: "ℓ_in and ℓ_next of every lane (Def. 3)",
        details: "⊥: the lane has executed no block yet; ⊤: it accepts any successor of ℓ_in\n\
                  ([PC-ND-BRANCH]); □: it has terminated, with its return value.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "trace",
        aliases: &["t"],
        usage: "trace [-v]",
        summary: "the trace so far, laid out like thesis Fig. 4.5b; -v adds the values",
        details: "Columns: sc | in | next | cmask | pmask | amask | i, lanes in lane order.\n\
                  The session keeps the last 10,000 rows (fewer above W = 104: rows × W\n\
                  ≤ 2^20, and fewer when they would not fit a quarter of the host memory\n\
                  left, with a warning); a note says how many earlier rows are not kept.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "mem",
        aliases: &["x"],
        usage: "mem [@global | #object | ADDRESS]",
        summary: "memory: every object, or the contents of one",
        details: "mem alone lists the objects of 𝕄. mem @g prints global @g as elements of its\n\
                  type; mem #n prints the bytes of object n; mem ADDRESS (decimal or 0x..., as\n\
                  ptrtoint gives it) prints the bytes from there to the end of its object.",
        args: ArgKind::Address,
    },
    CommandSpec {
        name: "analyze",
        aliases: &["a"],
        usage: "analyze",
        summary: "the divergence observed so far, next to the static analyses' shapes",
        details: "For every named value and branch: observed is whether the lanes of one\n\
                  instance disagreed (diverged) or not (uniform), with the number of instances;\n\
                  thesis and popl are the shapes of the divergence analyses (thesis Ch. 6-7,\n\
                  POPL'21): uniform, varying, bottom (not reached). A parameter is uniform for\n\
                  the analyses when the run gives every lane the same value. ! marks a value an\n\
                  analysis calls uniform although its lanes disagreed (that would be a bug).",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "set",
        aliases: &[],
        usage: "set [threads W | interp fr|obl | exec reference|fast | sched POLICY | lane-input NAME=V0,V1,... | mem @G=V,... | strict on|off]",
        summary: "change the run configuration (all but sched restart the run)",
        details: "set alone shows the configuration. threads, interp, exec, lane-input (alias\n\
                  arg), mem and strict start the run over; sched changes only how step, run\n\
                  and continue pick blocks. W is 1 to 4096. exec reference runs every rule\n\
                  lane by lane as the thesis states it, exec fast (the default) its kernels.",
        args: ArgKind::Setting,
    },
    CommandSpec {
        name: "reset",
        aliases: &[],
        usage: "reset",
        summary: "start the run over from the initial state (Def. 4)",
        details: "Breakpoints and settings stay.",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "load",
        aliases: &[],
        usage: "load FILE",
        summary: "load another program (its first `; run:` line gives the default inputs)",
        details: "The file is parsed and verified; on an error the current program stays.",
        args: ArgKind::File,
    },
    CommandSpec {
        name: "list",
        aliases: &["ls"],
        usage: "list",
        summary: "the program in canonical P-LLVM text",
        details: "",
        args: ArgKind::Nothing,
    },
    CommandSpec {
        name: "save-trace",
        aliases: &["save"],
        usage: "save-trace FILE",
        summary: "write the trace so far to FILE (JSON when FILE ends in .json)",
        details: "The table is the one `trace -v` prints.",
        args: ArgKind::File,
    },
    CommandSpec {
        name: "help",
        aliases: &["h", "?"],
        usage: "help [COMMAND]",
        summary: "this list, or more about one command",
        details: "",
        args: ArgKind::Command,
    },
    CommandSpec {
        name: "quit",
        aliases: &["q", "exit"],
        usage: "quit",
        summary: "leave (so do Ctrl-D and the end of the input)",
        details: "",
        args: ArgKind::Nothing,
    },
];

/// The setting names `set` accepts (for completion and errors).
pub(super) const SETTINGS: &[&str] = &[
    "threads",
    "interp",
    "exec",
    "sched",
    "lane-input",
    "mem",
    "strict",
];

/// One parsed input line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Command {
    /// A blank line or a `#` comment.
    Nothing,
    /// `step N`.
    Step(u64),
    /// `sched [-f] BLOCK`.
    Sched {
        /// The block name.
        block: String,
        /// Schedule even when not legal.
        force: bool,
    },
    /// `legal`.
    Legal,
    /// `run` / `continue`.
    Continue,
    /// `break [TARGET]`.
    Break(Option<Target>),
    /// `delete [TARGET]`.
    Delete(Option<Target>),
    /// `back N`.
    Back(u64),
    /// `print [%v]`.
    Print(Option<String>),
    /// `masks`.
    Masks,
    /// `state`.
    State,
    /// `trace [-v]`.
    Trace {
        /// With the values written.
        values: bool,
    },
    /// `mem [ADDR]`.
    Mem(Option<String>),
    /// `analyze`.
    Analyze,
    /// `set ...`.
    Set(Option<Setting>),
    /// `reset`.
    Reset,
    /// `load FILE`.
    Load(String),
    /// `list`.
    List,
    /// `save-trace FILE`.
    SaveTrace(String),
    /// `help [CMD]`.
    Help(Option<String>),
    /// `quit`.
    Quit,
}

/// What a breakpoint is on.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Target {
    /// A block name.
    Block(String),
    /// A value name, without `%`.
    Value(String),
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Target::Block(b) => write!(f, "{b}"),
            Target::Value(v) => write!(f, "%{v}"),
        }
    }
}

/// A `set` command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Setting {
    /// `threads W`.
    Threads(usize),
    /// `interp fr|obl`.
    Interp(String),
    /// `exec reference|fast`.
    Exec(pllvm_semantics::rules::Exec),
    /// `sched POLICY`.
    Sched(String),
    /// `lane-input NAME=V0,V1,...`.
    LaneInput(String),
    /// `mem @G=V,...`.
    Mem(String),
    /// `strict on|off`.
    Strict(bool),
}

/// The command called `word` (a name or an alias).
pub(super) fn lookup(word: &str) -> Option<&'static CommandSpec> {
    COMMANDS
        .iter()
        .find(|c| c.name == word || c.aliases.contains(&word))
}

/// Parses one input line.
pub(super) fn parse(line: &str) -> Result<Command, String> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return Ok(Command::Nothing);
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    };
    let Some(spec) = lookup(word) else {
        return Err(format!(
            "unknown command '{}' (type help for the list)",
            truncate(word)
        ));
    };
    let args: Vec<&str> = rest.split_whitespace().collect();
    let usage = || format!("usage: {}", spec.usage);
    let no_args = |cmd: Command| {
        if args.is_empty() {
            Ok(cmd)
        } else {
            Err(format!("{} takes no arguments ({})", spec.name, usage()))
        }
    };
    let count = |what: &str| -> Result<u64, String> {
        match args.as_slice() {
            [] => Ok(1),
            [n] => match n.parse::<u64>() {
                Ok(0) => Err(format!("{}: {what} must be at least 1", spec.name)),
                Ok(k) => Ok(k),
                Err(_) => Err(format!(
                    "{}: '{}' is not a number ({})",
                    spec.name,
                    truncate(n),
                    usage()
                )),
            },
            _ => Err(usage()),
        }
    };
    match spec.name {
        "step" => Ok(Command::Step(count("N")?)),
        "back" => Ok(Command::Back(count("N")?)),
        "sched" => match args.as_slice() {
            [b] if !b.starts_with('-') => Ok(Command::Sched {
                block: block_name(b),
                force: false,
            }),
            ["-f" | "--force", b] | [b, "-f" | "--force"] => Ok(Command::Sched {
                block: block_name(b),
                force: true,
            }),
            _ => Err(usage()),
        },
        "legal" => no_args(Command::Legal),
        "run" | "continue" => no_args(Command::Continue),
        "break" | "delete" => {
            let target = match args.as_slice() {
                [] => None,
                [t] => Some(target(t)?),
                _ => return Err(usage()),
            };
            Ok(if spec.name == "break" {
                Command::Break(target)
            } else {
                Command::Delete(target)
            })
        }
        "print" => match args.as_slice() {
            [] => Ok(Command::Print(None)),
            [v] => Ok(Command::Print(Some(value_name(v)?))),
            _ => Err(usage()),
        },
        "masks" => no_args(Command::Masks),
        "state" => no_args(Command::State),
        "trace" => match args.as_slice() {
            [] => Ok(Command::Trace { values: false }),
            ["-v" | "--values" | "values"] => Ok(Command::Trace { values: true }),
            _ => Err(usage()),
        },
        "mem" => match args.as_slice() {
            [] => Ok(Command::Mem(None)),
            [a] => Ok(Command::Mem(Some((*a).to_string()))),
            _ => Err(usage()),
        },
        "analyze" => no_args(Command::Analyze),
        "set" => parse_set(&args).map(Command::Set),
        "reset" => no_args(Command::Reset),
        "list" => no_args(Command::List),
        "load" | "save-trace" => {
            if rest.is_empty() {
                return Err(usage());
            }
            let file = rest.trim_matches('"').to_string();
            Ok(if spec.name == "load" {
                Command::Load(file)
            } else {
                Command::SaveTrace(file)
            })
        }
        "help" => match args.as_slice() {
            [] => Ok(Command::Help(None)),
            [c] => Ok(Command::Help(Some((*c).to_string()))),
            _ => Err(usage()),
        },
        "quit" => no_args(Command::Quit),
        _ => Err(format!("unknown command '{}'", truncate(word))),
    }
}

fn parse_set(args: &[&str]) -> Result<Option<Setting>, String> {
    let Some((&what, value)) = args.split_first() else {
        return Ok(None);
    };
    let value = value.join(" ");
    if value.is_empty() {
        return Err(format!(
            "set {}: missing value (help set tells the settings)",
            truncate(what)
        ));
    }
    match what {
        "threads" | "w" | "width" => pllvm_interp::config::parse_width(&truncate(&value))
            .map(|w| Some(Setting::Threads(w)))
            .map_err(|e| format!("set threads: {e}")),
        "interp" => Ok(Some(Setting::Interp(value))),
        "exec" => pllvm_interp::config::parse_exec(&truncate(&value))
            .map(|x| Some(Setting::Exec(x)))
            .map_err(|e| format!("set exec: {e}")),
        "sched" | "policy" => Ok(Some(Setting::Sched(value))),
        "lane-input" | "arg" => Ok(Some(Setting::LaneInput(value))),
        "mem" => Ok(Some(Setting::Mem(value))),
        "strict" => match value.as_str() {
            "on" | "true" | "1" => Ok(Some(Setting::Strict(true))),
            "off" | "false" | "0" => Ok(Some(Setting::Strict(false))),
            other => Err(format!(
                "set strict: '{}' is neither on nor off",
                truncate(other)
            )),
        },
        other => Err(format!(
            "unknown setting '{}' (settings: {})",
            truncate(other),
            SETTINGS.join(", ")
        )),
    }
}

fn block_name(word: &str) -> String {
    word.trim_start_matches('%').to_string()
}

fn value_name(word: &str) -> Result<String, String> {
    let name = word.trim_start_matches('%');
    if name.is_empty() {
        Err("print: empty value name".into())
    } else {
        Ok(name.to_string())
    }
}

fn target(word: &str) -> Result<Target, String> {
    match word.strip_prefix('%') {
        Some("") => Err("empty value name".into()),
        Some(v) => Ok(Target::Value(v.to_string())),
        None => Ok(Target::Block(word.to_string())),
    }
}

/// At most 40 characters of user input, for messages (garbage can be long).
pub(super) fn truncate(text: &str) -> String {
    let mut out: String = text.chars().take(40).collect();
    if text.chars().count() > 40 {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(line: &str, expect: Result<Command, &str>) {
        let got = parse(line);
        match expect {
            Ok(cmd) => assert_eq!(got, Ok(cmd), "{line}"),
            Err(prefix) => match got {
                Err(msg) => {
                    assert!(msg.starts_with(prefix), "{line}: {msg}");
                    assert!(!msg.contains('\n'), "{line}: one line: {msg}");
                }
                Ok(c) => panic!("{line}: parsed as {c:?}"),
            },
        }
    }

    #[test]
    fn commands_and_aliases() {
        check("", Ok(Command::Nothing));
        check("  # a comment", Ok(Command::Nothing));
        check("step", Ok(Command::Step(1)));
        check("s 3", Ok(Command::Step(3)));
        check(
            "sched B",
            Ok(Command::Sched {
                block: "B".into(),
                force: false,
            }),
        );
        check(
            "sc -f %C",
            Ok(Command::Sched {
                block: "C".into(),
                force: true,
            }),
        );
        check("b %x", Ok(Command::Break(Some(Target::Value("x".into())))));
        check(
            "break E",
            Ok(Command::Break(Some(Target::Block("E".into())))),
        );
        check("break", Ok(Command::Break(None)));
        check("u 2", Ok(Command::Back(2)));
        check("p x", Ok(Command::Print(Some("x".into()))));
        check("r", Ok(Command::Continue));
        check("c", Ok(Command::Continue));
        check("t -v", Ok(Command::Trace { values: true }));
        check("set", Ok(Command::Set(None)));
        check("set threads 4", Ok(Command::Set(Some(Setting::Threads(4)))));
        check(
            "set exec reference",
            Ok(Command::Set(Some(Setting::Exec(
                pllvm_semantics::rules::Exec::Reference,
            )))),
        );
        check(
            "set exec fast",
            Ok(Command::Set(Some(Setting::Exec(
                pllvm_semantics::rules::Exec::Fast,
            )))),
        );
        check("set exec slow", Err("set exec: unknown execution 'slow'"));
        check(
            "set lane-input x=0,1",
            Ok(Command::Set(Some(Setting::LaneInput("x=0,1".into())))),
        );
        check("load a b.ll", Ok(Command::Load("a b.ll".into())));
        check("help step", Ok(Command::Help(Some("step".into()))));
        check("exit", Ok(Command::Quit));
    }

    #[test]
    fn garbage_is_one_line_errors() {
        check("frobnicate", Err("unknown command 'frobnicate'"));
        check("step x", Err("step: 'x' is not a number"));
        check("step 0", Err("step: N must be at least 1"));
        check("step 1 2", Err("usage: step [N]"));
        check("step 99999999999999999999999", Err("step: '9999"));
        check("sched", Err("usage: sched"));
        check("legal now", Err("legal takes no arguments"));
        check(
            "set threads many",
            Err("set threads: 'many' is not a number of lanes (1 to 4096)"),
        );
        check("set colour red", Err("unknown setting 'colour'"));
        check("set strict maybe", Err("set strict: 'maybe'"));
        check("set interp", Err("set interp: missing value"));
        check("break %", Err("empty value name"));
        check("load", Err("usage: load FILE"));
        check(&"x".repeat(500), Err("unknown command 'xxxx"));
        check("\u{7}\u{1b}[A", Err("unknown command"));
    }

    #[test]
    fn every_name_and_alias_is_unique() {
        let mut seen = std::collections::BTreeSet::new();
        for c in COMMANDS {
            for w in std::iter::once(&c.name).chain(c.aliases) {
                assert!(seen.insert(*w), "{w} twice");
                assert_eq!(lookup(w).map(|s| s.name), Some(c.name));
            }
        }
    }
}
