//! The directives of golden corpus files (STYLE §4, `corpus/README.md`): how to
//! run a file and what the spec says must come out.
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
pub fn apply_run_options(config: &mut RunConfig, text: &str) -> Result<(), String> {
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
                config.threads = v
                    .parse()
                    .map_err(|_| format!("--threads: '{v}' is not a number"))?;
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
            other => return Err(format!("unknown run option '{other}'")),
        }
        k += 1;
    }
    Ok(())
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
        if let Some(rest) = body.strip_prefix("run") {
            let Some((name, args)) = rest.split_once(':') else {
                continue;
            };
            let name = name.trim();
            if name.contains(' ') {
                continue;
            }
            let mut config = RunConfig::default();
            apply_run_options(&mut config, args).map_err(|e| format!("line {number}: {e}"))?;
            d.runs.push(RunDirective {
                name: if name.is_empty() {
                    "default".into()
                } else {
                    name.into()
                },
                line: number,
                config,
            });
        } else if let Some(rest) = body.strip_prefix("expect") {
            let Some((head, value)) = rest.split_once(':') else {
                return Err(format!("line {number}: expect without ':'"));
            };
            let head: Vec<&str> = head.split_whitespace().collect();
            let (run, what) = match head.as_slice() {
                [what] => (None, *what),
                [run, what] => (Some(run.to_string()), *what),
                _ => return Err(format!("line {number}: cannot read '{body}'")),
            };
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
                    let mut rows = Vec::new();
                    while n < lines.len() {
                        let t = lines[n].trim_start();
                        let Some(row) = t.strip_prefix(";  ") else {
                            break;
                        };
                        if t.starts_with(";;") || row.trim().is_empty() {
                            break;
                        }
                        rows.push(row.trim().to_string());
                        n += 1;
                    }
                    ExpectKind::Trace(rows)
                }
                other => return Err(format!("line {number}: unknown expectation '{other}'")),
            };
            d.expects.push(Expectation {
                run,
                line: number,
                kind,
            });
        }
    }
    for e in &d.expects {
        if let Some(r) = &e.run
            && !d.runs.iter().any(|run| &run.name == r)
        {
            return Err(format!("line {}: no run named '{r}'", e.line));
        }
    }
    Ok(d)
}

/// Collapses runs of white space, so hand-written tables compare by content.
pub fn normalize(text: &str) -> String {
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
    fn bad_directives_name_the_line() {
        assert!(parse("; run: --bogus\n").unwrap_err().starts_with("line 1"));
        assert!(
            parse("; expect nope result: 1\n")
                .unwrap_err()
                .contains("no run named")
        );
    }
}
