//! The directives of golden corpus files (docs/design/style.md §4,
//! `corpus/README.md`): how to run a file and what the spec says must come out.
//!
//! ```text
//! ;; prose, never rewritten
//! ; run: --threads 2 --interp fr --schedule A,B,C --arg x=0,1
//! ; run obl: --threads 2 --interp obl --schedule A,B,C --arg x=0,1
//! ; expect result: [3, 7]            (every run)
//! ; expect obl result: [3, ⊤]        (the run named obl)
//! ; expect outcome: returned
//! ; expect env: %x = [1, 2]
//! ; expect memory: @buf = [1, 2]
//! ; expect trace:
//! ;   sc | in  | next | cmask | pmask | amask | i
//! ;   A  | ⊥ ⊥ | A A  | 1 1   | 1 1   | 1 1   | 0 1
//! ```
//!
//! Greedy schedules (thesis Ch. 5) add run modes and expectations:
//! ```text
//! ; run lowest: --threads 2 --sched lowest            (a scheduler, see crate::sched)
//! ; run all: --threads 2 --explore --max-states 1000   (every greedy schedule, crate::explore)
//! ; expect legal: B, C                 (exactly these blocks are legal after the run)
//! ; expect illegal: C (Def. 14), D (Def. 17, lane 1)
//! ; expect first violation: C at step 2 (Def. 17, lane 0)   (or: none)
//! ; expect schedule: A,B,C,D           (what a scheduler chose)
//! ; expect outcomes: [1, 1] | [1, 2]   (explore: the distinct results)
//! ; expect cnb: {B, C}, {C, D}         (explore: concurrent next blocks, Def. 20; or: none)
//! ```
//! Dynamic convergence (LLVM's "Convergence and Uniformity", `crate::convergence`):
//! ```text
//! ; expect convergence: headers R, S   (the hierarchy; without `headers`, the documented DFS's)
//! ;   0 | Entry | P | Q |   | Exit     (a thread table: same column = converged)
//! ; expect m-converged: Entry, Exit    (exactly these executed blocks behaved m-converged)
//! ; expect controlled: %r = {0, 1} {2} (convergence tokens: the classes of %r's instances)
//! ; expect token-violations: none      (or: merged %r, split %s; crate::controlled)
//! ```
//! The CLI's embedded default program and the corpus runner read the same
//! directives, so what `pllvm run` shows is what a golden file records.

use crate::config::RunConfig;

/// One `; run:` line.
#[derive(Clone, Debug, PartialEq)]
pub struct RunDirective {
    /// Its name (`default` when unnamed).
    pub name: String,
    /// 1-based line number.
    pub line: usize,
    /// The run configuration it describes.
    pub config: RunConfig,
    /// How the blocks are chosen.
    pub mode: RunMode,
    /// `--transform NAME`: the run executes the program after the file's
    /// `; transform NAME:` pipeline instead of the program as written.
    pub transform: Option<String>,
}

/// One `; transform NAME: --pass dlt,pl ...` line: a pipeline of the vectorizing
/// transforms (`pllvm transform` options) whose output runs may execute and whose
/// CFG `; expect transform NAME cfg:` checks.
#[derive(Clone, Debug, PartialEq)]
pub struct TransformDirective {
    /// Its name.
    pub name: String,
    /// 1-based line number.
    pub line: usize,
    /// The options as written (`--pass`, `--analysis`, `--uniform-args`, `--boscc`).
    pub options: String,
}

/// How a run chooses its blocks.
#[derive(Clone, Debug, PartialEq, Default)]
pub enum RunMode {
    /// The configured schedule (checked against the greedy constraints), or
    /// without one the machine's default policy.
    #[default]
    Plain,
    /// `--sched POLICY`: a built-in scheduler (`crate::sched::builtin`).
    Sched(String),
    /// `--explore`: every greedy schedule, within the bounds.
    Explore(crate::explore::Bounds),
}

/// What an `; expect` line checks.
#[derive(Clone, Debug, PartialEq)]
pub enum ExpectKind {
    /// `result: [..]`.
    Result(String),
    /// `outcome: returned | incomplete | undefined: <substring> | ...`.
    Outcome(String),
    /// `env: %x = [..]`.
    Env(String, String),
    /// `memory: @g = [..]`.
    Memory(String, String),
    /// `trace:` followed by rows.
    Trace(Vec<String>),
    /// `legal: B, C`: exactly these blocks are legal in the final state (Def. 12-18).
    Legal(Vec<String>),
    /// `illegal: C (Def. 14), D (Def. 17, lane 1)`: each block is illegal in the
    /// final state by that definition (and witness lane, when given).
    Illegal(Vec<(String, String, Option<usize>)>),
    /// `first violation: C at step 2 (Def. 17, lane 0)` or `none`.
    FirstViolation(Option<(String, usize, String, Option<usize>)>),
    /// `schedule: A,B,C`: the blocks the run scheduled.
    Schedule(Vec<String>),
    /// `outcomes: [..] | [..]`: the distinct results of every greedy schedule.
    Outcomes(Vec<String>),
    /// `cnb: {B, C}, ...` or `none`: the concurrent next blocks (Def. 20).
    Cnb(Vec<(String, String)>),
    /// `convergence: [headers A, B]` followed by thread-table rows: the maximal
    /// converged-with relation of the run for the hierarchy with exactly those
    /// headers (none given: the documented DFS's), as the LLVM document's tables
    /// write it (`crate::convergence::check_table`).
    Convergence {
        /// The hierarchy's header names (empty: the documented DFS's hierarchy).
        headers: Vec<String>,
        /// The rows `LANE | cell | …`.
        rows: Vec<String>,
    },
    /// `m-converged: A, B` or `none`: exactly these executed blocks behaved
    /// m-converged (the same relation in every hierarchy).
    MConverged(Vec<String>),
    /// `controlled: %r = {0, 1} {2}`: the classes of converged instances of the
    /// controlled convergent operation `%r`, as its convergence control tokens
    /// define them, in the order of their first step
    /// (`crate::controlled::controlled_relation`).
    Controlled {
        /// The operation's name (`%r`, or `@callee in BLOCK`).
        op: String,
        /// The classes as written (`{0, 1}`), whitespace collapsed.
        classes: Vec<String>,
    },
    /// `token-violations: none`, or `merged %r, split %s`: the operations where
    /// lock step ran otherwise than the tokens say (`crate::controlled::violations`),
    /// each named once per kind.
    TokenViolations(Vec<String>),
    /// `transform NAME cfg:` followed by rows `A -> B, C` (`A [p] -> ...` for a
    /// predicated block, `A -> ret`): the CFG of the program after the transform
    /// `NAME`, block by block in layout order. Applies to no run.
    TransformCfg {
        /// The transform directive's name.
        transform: String,
        /// One row per block.
        rows: Vec<String>,
    },
}

/// Reads `(Def. 17, lane 1)` / `(Def. 14)` / `(§5.3)`.
fn citation(text: &str) -> Result<(String, Option<usize>), String> {
    let inner = text
        .trim()
        .strip_prefix('(')
        .and_then(|t| t.strip_suffix(')'))
        .ok_or_else(|| format!("expected (Def. N[, lane L]), got '{text}'"))?;
    match inner.split_once(',') {
        None => Ok((inner.trim().to_string(), None)),
        Some((def, lane)) => {
            let lane = lane
                .trim()
                .strip_prefix("lane")
                .and_then(|l| l.trim().parse::<usize>().ok())
                .ok_or_else(|| format!("expected 'lane N' in '{text}'"))?;
            Ok((def.trim().to_string(), Some(lane)))
        }
    }
}

/// Reads `C (Def. 14), D (Def. 17, lane 1)`.
fn illegal_list(text: &str) -> Result<Vec<(String, String, Option<usize>)>, String> {
    let mut out = Vec::new();
    let mut rest = text.trim();
    while !rest.is_empty() {
        let open = rest
            .find('(')
            .ok_or_else(|| format!("expected BLOCK (Def. N) in '{rest}'"))?;
        let close = rest[open..]
            .find(')')
            .map(|c| open + c)
            .ok_or_else(|| format!("unclosed '(' in '{rest}'"))?;
        let block = rest[..open].trim().trim_start_matches('%').to_string();
        let (def, lane) = citation(&rest[open..=close])?;
        out.push((block, def, lane));
        rest = rest[close + 1..]
            .trim_start()
            .trim_start_matches(',')
            .trim_start();
    }
    Ok(out)
}

/// Reads `C at step 2 (Def. 17, lane 0)` or `none`.
type ViolationSpec = Option<(String, usize, String, Option<usize>)>;
fn violation_spec(text: &str) -> Result<ViolationSpec, String> {
    let text = text.trim();
    if text == "none" {
        return Ok(None);
    }
    let (head, cite) = text
        .split_once('(')
        .ok_or_else(|| format!("expected BLOCK at step N (Def. M), got '{text}'"))?;
    let (block, step) = head
        .split_once(" at step ")
        .ok_or_else(|| format!("expected BLOCK at step N, got '{head}'"))?;
    let step = step
        .trim()
        .parse::<usize>()
        .map_err(|_| format!("'{step}' is not a step number"))?;
    let (def, lane) = citation(&format!("({cite}"))?;
    Ok(Some((block.trim().to_string(), step, def, lane)))
}

/// Splits a comma-separated list of names.
fn name_list(text: &str) -> Vec<String> {
    text.split(',')
        .map(|n| n.trim().trim_start_matches('%').to_string())
        .filter(|n| !n.is_empty())
        .collect()
}

/// One `; expect` line (with its continuation lines for a trace).
#[derive(Clone, Debug, PartialEq)]
pub struct Expectation {
    /// The run it applies to (`None`: every run).
    pub run: Option<String>,
    /// 1-based line number.
    pub line: usize,
    /// What it checks.
    pub kind: ExpectKind,
}

/// All directives of one file.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Directives {
    /// The runs, in file order.
    pub runs: Vec<RunDirective>,
    /// The expectations, in file order.
    pub expects: Vec<Expectation>,
    /// Lines carrying a trailing `; error: <substring>` (verifier expectations).
    pub errors: Vec<(usize, String)>,
    /// The `; transform NAME:` pipelines, in file order.
    pub transforms: Vec<TransformDirective>,
}

/// Takes `--transform NAME` out of a run line's options.
fn take_transform(args: &str) -> Result<(String, Option<String>), String> {
    let words = words(args);
    let mut rest = Vec::new();
    let mut transform = None;
    let mut k = 0;
    while k < words.len() {
        if words[k] == "--transform" {
            let name = words
                .get(k + 1)
                .ok_or("--transform needs the name of a `; transform NAME:` line")?;
            transform = Some(name.clone());
            k += 2;
            continue;
        }
        if let Some(name) = words[k].strip_prefix("--transform=") {
            transform = Some(name.to_string());
            k += 1;
            continue;
        }
        rest.push(format!("\"{}\"", words[k]));
        k += 1;
    }
    Ok((rest.join(" "), transform))
}

/// Splits a run line into words; double quotes group words.
fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '"' => quoted = !quoted,
            c if c.is_whitespace() && !quoted => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            c => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// Applies `pllvm run` options (`--threads W --interp fr ...`) to a configuration.
/// The run-mode options of a corpus file (`--sched`, `--explore`, ...) are refused
/// here; see [`apply_run_options_with_mode`].
pub fn apply_run_options(config: &mut RunConfig, text: &str) -> Result<(), String> {
    let mut mode = RunMode::Plain;
    apply_run_options_with_mode(config, &mut mode, text)?;
    if mode != RunMode::Plain {
        return Err("--sched / --explore choose a run mode, not a run input".into());
    }
    Ok(())
}

/// Applies the options of a `; run:` line: run inputs to `config`, and `--sched
/// POLICY`, `--explore`, `--max-states N`, `--max-depth N`, `--order ORDER` to `mode`.
pub fn apply_run_options_with_mode(
    config: &mut RunConfig,
    mode: &mut RunMode,
    text: &str,
) -> Result<(), String> {
    let mut bounds = crate::explore::Bounds::default();
    let mut explore = false;
    let words = words(text);
    let mut k = 0;
    while k < words.len() {
        let flag = words[k].as_str();
        let (flag, inline) = match flag.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f, Some(v.to_string())),
            _ => (flag, None),
        };
        let mut value = || -> Result<String, String> {
            if let Some(v) = &inline {
                return Ok(v.clone());
            }
            k += 1;
            words
                .get(k)
                .cloned()
                .ok_or_else(|| format!("{flag} needs a value"))
        };
        match flag {
            "--threads" | "-w" => {
                let v = value()?;
                config.threads =
                    crate::config::parse_width(&v).map_err(|e| format!("--threads: {e}"))?;
            }
            "--interp" => config.interp = crate::config::parse_interp(&value()?)?,
            "--schedule" => config.set_schedule(&value()?),
            "--arg" => config.add_arg(&value()?)?,
            "--mem" => config.add_memory(&value()?)?,
            "--function" => config.function = Some(value()?),
            "--max-steps" => {
                let v = value()?;
                config.max_steps = v
                    .parse()
                    .map_err(|_| format!("--max-steps: '{v}' is not a number"))?;
            }
            "--strict" => config.strict = true,
            "--exec" => config.exec = pllvm_semantics::rules::Exec::parse(&value()?)?,
            "--sched" => *mode = RunMode::Sched(value()?),
            "--explore" => explore = true,
            "--max-states" => {
                let v = value()?;
                bounds.max_states = v
                    .parse()
                    .map_err(|_| format!("--max-states: '{v}' is not a number"))?;
            }
            "--max-depth" => {
                let v = value()?;
                bounds.max_steps = v
                    .parse()
                    .map_err(|_| format!("--max-depth: '{v}' is not a number"))?;
            }
            "--order" => {
                let v = value()?;
                bounds.order = match v.as_str() {
                    "lowest" => crate::explore::Order::Lowest,
                    "highest" => crate::explore::Order::Highest,
                    other => match other.strip_prefix("random:").map(str::parse::<u64>) {
                        Some(Ok(seed)) => crate::explore::Order::Random(seed),
                        _ => {
                            return Err(format!(
                                "--order: '{v}' is not lowest, highest or random:SEED"
                            ));
                        }
                    },
                };
            }
            other => return Err(format!("unknown run option '{other}'")),
        }
        k += 1;
    }
    if explore {
        if *mode != RunMode::Plain {
            return Err("--explore and --sched exclude each other".into());
        }
        *mode = RunMode::Explore(bounds);
    }
    Ok(())
}

/// The continuation rows of a multi-line expectation (`;   row`, up to a line
/// that is not one, a `;;` line or an empty row), trimmed; advances `n` past them.
fn continuation_rows(lines: &[&str], n: &mut usize) -> Vec<String> {
    let mut rows = Vec::new();
    while *n < lines.len() {
        let t = lines[*n].trim_start();
        let Some(row) = t.strip_prefix(";  ") else {
            break;
        };
        if t.starts_with(";;") || row.trim().is_empty() {
            break;
        }
        rows.push(row.trim().to_string());
        *n += 1;
    }
    rows
}

/// Reads the directives of a corpus file. Errors name the line.
pub fn parse(src: &str) -> Result<Directives, String> {
    let mut d = Directives::default();
    let lines: Vec<&str> = src.lines().collect();
    let mut n = 0;
    while n < lines.len() {
        let line = lines[n];
        let number = n + 1;
        n += 1;
        let trimmed = line.trim_start();
        if !trimmed.starts_with(';') || trimmed.starts_with(";;") {
            if let Some(pos) = line.find("; error:")
                && !trimmed.starts_with(';')
            {
                d.errors.push((number, line[pos + 8..].trim().to_string()));
            }
            continue;
        }
        let body = trimmed.trim_start_matches(';').trim();
        if let Some(rest) = body.strip_prefix("transform") {
            let Some((name, options)) = rest.split_once(':') else {
                continue;
            };
            let name = name.trim();
            if name.is_empty() || name.contains(' ') {
                return Err(format!(
                    "line {number}: a transform line is `; transform NAME: --pass ...`"
                ));
            }
            d.transforms.push(TransformDirective {
                name: name.to_string(),
                line: number,
                options: options.trim().to_string(),
            });
        } else if let Some(rest) = body.strip_prefix("run") {
            let Some((name, args)) = rest.split_once(':') else {
                continue;
            };
            let name = name.trim();
            if name.contains(' ') {
                continue;
            }
            let mut config = RunConfig::default();
            let mut mode = RunMode::Plain;
            let (args, transform) =
                take_transform(args).map_err(|e| format!("line {number}: {e}"))?;
            apply_run_options_with_mode(&mut config, &mut mode, &args)
                .map_err(|e| format!("line {number}: {e}"))?;
            d.runs.push(RunDirective {
                name: if name.is_empty() {
                    "default".into()
                } else {
                    name.into()
                },
                line: number,
                config,
                mode,
                transform,
            });
        } else if let Some(rest) = body.strip_prefix("expect") {
            let expectation = parse_expect(body, rest, number, &lines, &mut n)?;
            d.expects.push(expectation);
        }
    }
    check_references(&d)?;
    Ok(d)
}

/// One `; expect …: VALUE` line (`body` the line after `;`, `rest` after
/// `expect`), line `number`; continuation rows are read from `lines` at `*n`,
/// which moves past them.
fn parse_expect(
    body: &str,
    rest: &str,
    number: usize,
    lines: &[&str],
    n: &mut usize,
) -> Result<Expectation, String> {
    let Some((head, value)) = rest.split_once(':') else {
        return Err(format!("line {number}: expect without ':'"));
    };
    let head: Vec<&str> = head.split_whitespace().collect();
    if let ["transform", transform, "cfg"] = head.as_slice() {
        let rows = continuation_rows(lines, n)
            .into_iter()
            .map(|r| collapse_whitespace(&r))
            .collect();
        return Ok(Expectation {
            run: None,
            line: number,
            kind: ExpectKind::TransformCfg {
                transform: transform.to_string(),
                rows,
            },
        });
    }
    // `first violation` is the one two-word expectation.
    let (run, what) = match head.as_slice() {
        ["first", "violation"] => (None, "first violation"),
        [run, "first", "violation"] => (Some(run.to_string()), "first violation"),
        [what] => (None, *what),
        [run, what] => (Some(run.to_string()), *what),
        _ => return Err(format!("line {number}: cannot read '{body}'")),
    };
    let at_line = |e: String| format!("line {number}: {e}");
    let value = value.trim().to_string();
    let kind = match what {
        "result" => ExpectKind::Result(value),
        "outcome" => ExpectKind::Outcome(value),
        "env" | "memory" => {
            let (name, v) = value
                .split_once('=')
                .ok_or_else(|| format!("line {number}: expected NAME = [..]"))?;
            let (name, v) = (name.trim().to_string(), v.trim().to_string());
            if what == "env" {
                ExpectKind::Env(name, v)
            } else {
                ExpectKind::Memory(name, v)
            }
        }
        "trace" => {
            let rows = continuation_rows(lines, n);
            ExpectKind::Trace(rows)
        }
        "legal" => ExpectKind::Legal(if value == "none" {
            Vec::new()
        } else {
            name_list(&value)
        }),
        "illegal" => ExpectKind::Illegal(illegal_list(&value).map_err(at_line)?),
        "first violation" => ExpectKind::FirstViolation(violation_spec(&value).map_err(at_line)?),
        "schedule" => ExpectKind::Schedule(name_list(&value)),
        "outcomes" => ExpectKind::Outcomes(
            value
                .split('|')
                .map(|o| collapse_whitespace(o).replace(' ', ""))
                .filter(|o| !o.is_empty())
                .collect(),
        ),
        "cnb" => ExpectKind::Cnb(if value == "none" {
            Vec::new()
        } else {
            cnb_list(&value).map_err(at_line)?
        }),
        "convergence" => {
            let headers = match value.strip_prefix("headers") {
                Some(list) => name_list(list),
                None if value.is_empty() => Vec::new(),
                None => {
                    return Err(at_line(format!(
                        "expected 'headers A, B' or nothing, got '{value}'"
                    )));
                }
            };
            let rows = continuation_rows(lines, n);
            ExpectKind::Convergence { headers, rows }
        }
        "controlled" => {
            let Some((op, classes)) = value.split_once('=') else {
                return Err(at_line(format!(
                    "expected '%op = {{lanes}} {{lanes}} ...', got '{value}'"
                )));
            };
            let classes = classes
                .split('}')
                .map(|c| c.trim())
                .filter(|c| !c.is_empty())
                .map(|c| format!("{}}}", c.split_whitespace().collect::<Vec<_>>().join(" ")))
                .collect();
            ExpectKind::Controlled {
                op: op.trim().to_string(),
                classes,
            }
        }
        "token-violations" => ExpectKind::TokenViolations(if value == "none" {
            Vec::new()
        } else {
            name_list(&value)
        }),
        "m-converged" => ExpectKind::MConverged(if value == "none" {
            Vec::new()
        } else {
            name_list(&value)
        }),
        other => return Err(format!("line {number}: unknown expectation '{other}'")),
    };
    Ok(Expectation {
        run,
        line: number,
        kind,
    })
}

/// The pairs of an `; expect cnb:` line, `{A, B}, {C, D}`.
fn cnb_list(value: &str) -> Result<Vec<(String, String)>, String> {
    let mut pairs = Vec::new();
    for pair in value.split('}') {
        let pair = pair.trim().trim_start_matches(',').trim();
        if pair.is_empty() {
            continue;
        }
        let inner = pair
            .strip_prefix('{')
            .ok_or_else(|| format!("expected {{A, B}}, got '{pair}'"))?;
        match name_list(inner).as_slice() {
            [a, b] => pairs.push((a.clone(), b.clone())),
            _ => return Err(format!("expected two blocks in '{pair}'")),
        }
    }
    Ok(pairs)
}

/// Every transform and run a directive names exists.
fn check_references(d: &Directives) -> Result<(), String> {
    let transform_named = |t: &str| d.transforms.iter().any(|x| x.name == t);
    for r in &d.runs {
        if let Some(t) = &r.transform
            && !transform_named(t)
        {
            return Err(format!("line {}: no transform named '{t}'", r.line));
        }
    }
    for e in &d.expects {
        if let ExpectKind::TransformCfg { transform, .. } = &e.kind
            && !transform_named(transform)
        {
            return Err(format!("line {}: no transform named '{transform}'", e.line));
        }
    }
    for e in &d.expects {
        if let Some(r) = &e.run
            && !d.runs.iter().any(|run| &run.name == r)
        {
            return Err(format!("line {}: no run named '{r}'", e.line));
        }
    }
    Ok(())
}

/// Collapses runs of white space, so hand-written tables compare by content.
pub fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_runs_and_expectations() {
        let src = "\
;; prose
; run: --threads 2 --schedule A,B --arg x=0,1
; run obl: --threads 2 --interp obl --schedule A,B
; expect result: [1, 2]
; expect obl outcome: returned
; expect trace:
;   sc | in
;   A  | ⊥ ⊥
define i32 @f(i32 %x) {
  %y = add i32 %x, 1   ; error: something
}
";
        let d = parse(src).unwrap();
        assert_eq!(d.runs.len(), 2);
        assert_eq!(d.runs[1].name, "obl");
        assert_eq!(d.runs[0].config.threads, 2);
        assert_eq!(d.expects.len(), 3);
        assert_eq!(
            d.expects[2].kind,
            ExpectKind::Trace(vec!["sc | in".into(), "A  | ⊥ ⊥".into()])
        );
        assert_eq!(d.errors, vec![(10, "something".to_string())]);
    }

    #[test]
    fn reads_greedy_directives() {
        let src = "\
; run a: --threads 2 --schedule A,C
; run b: --sched random:7
; run c: --explore --max-states 50 --order highest
; expect a legal: B, C
; expect a illegal: D (Def. 17, lane 1), E (§5.3)
; expect a first violation: C at step 2 (Def. 14)
; expect b first violation: none
; expect b schedule: A,B
; expect c outcomes: [1, 2] | [2, 2]
; expect c cnb: {B, C}, {C, D}
";
        let d = parse(src).unwrap();
        assert_eq!(d.runs[1].mode, RunMode::Sched("random:7".into()));
        let RunMode::Explore(bounds) = d.runs[2].mode else {
            panic!("run c explores")
        };
        assert_eq!(bounds.max_states, 50);
        assert_eq!(bounds.order, crate::explore::Order::Highest);
        let kinds: Vec<&ExpectKind> = d.expects.iter().map(|e| &e.kind).collect();
        assert_eq!(kinds[0], &ExpectKind::Legal(vec!["B".into(), "C".into()]));
        assert_eq!(
            kinds[1],
            &ExpectKind::Illegal(vec![
                ("D".into(), "Def. 17".into(), Some(1)),
                ("E".into(), "§5.3".into(), None)
            ])
        );
        assert_eq!(
            kinds[2],
            &ExpectKind::FirstViolation(Some(("C".into(), 2, "Def. 14".into(), None)))
        );
        assert_eq!(kinds[3], &ExpectKind::FirstViolation(None));
        assert_eq!(
            kinds[5],
            &ExpectKind::Outcomes(vec!["[1,2]".into(), "[2,2]".into()])
        );
        assert_eq!(
            kinds[6],
            &ExpectKind::Cnb(vec![("B".into(), "C".into()), ("C".into(), "D".into())])
        );
        assert!(parse("; expect illegal: D Def. 17\n").is_err());
        assert!(parse("; run: --sched lowest --explore\n").is_err());
    }

    #[test]
    fn reads_convergence_directives() {
        let src = "\
; run: --threads 2
; expect convergence: headers R, S
;   thread | 1 | 2
;   0 | Entry | P
;   1 | Entry |
; expect convergence:
;   0 | Entry
; expect m-converged: Entry, Exit
";
        let d = parse(src).unwrap();
        assert_eq!(
            d.expects[0].kind,
            ExpectKind::Convergence {
                headers: vec!["R".into(), "S".into()],
                rows: vec![
                    "thread | 1 | 2".into(),
                    "0 | Entry | P".into(),
                    "1 | Entry |".into()
                ]
            }
        );
        assert_eq!(
            d.expects[1].kind,
            ExpectKind::Convergence {
                headers: Vec::new(),
                rows: vec!["0 | Entry".into()]
            }
        );
        assert_eq!(
            d.expects[2].kind,
            ExpectKind::MConverged(vec!["Entry".into(), "Exit".into()])
        );
        assert!(parse("; expect convergence: R, S\n").is_err());
    }

    #[test]
    fn reads_transform_directives() {
        let src = "\
; transform pl: --pass dlt,pl --uniform-args n
; expect transform pl cfg:
;   A -> B,   C
;   B [p] -> ret
; run obl: --transform pl --threads 2 --interp obl
; run fr: --threads 2
";
        let d = parse(src).unwrap();
        assert_eq!(d.transforms[0].name, "pl");
        assert_eq!(d.transforms[0].options, "--pass dlt,pl --uniform-args n");
        assert_eq!(d.runs[0].transform.as_deref(), Some("pl"));
        assert_eq!(d.runs[0].config.threads, 2);
        assert_eq!(d.runs[1].transform, None);
        assert_eq!(
            d.expects[0].kind,
            ExpectKind::TransformCfg {
                transform: "pl".into(),
                rows: vec!["A -> B, C".into(), "B [p] -> ret".into()]
            }
        );
        assert!(
            parse("; run: --transform nope\n")
                .unwrap_err()
                .contains("no transform named")
        );
    }

    #[test]
    fn bad_directives_name_the_line() {
        assert!(parse("; run: --bogus\n").unwrap_err().starts_with("line 1"));
        assert!(
            parse("; expect nope result: 1\n")
                .unwrap_err()
                .contains("no run named")
        );
    }
}
