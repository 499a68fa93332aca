//! The runner protocol (`docs/native.md`): the text of the IN file the harness
//! writes and of the OUT file the runner writes back.

use std::fmt::Write;

/// One argument word of one thread, as a token of IN.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgToken {
    /// `b<hex>`: these bits.
    Bits(u64),
    /// `g<global>+<offset>`: the address of a global plus an offset.
    Global(usize, u64),
    /// `null`: address 0.
    Null,
    /// `guard`: an address inside a PROT_NONE page.
    Guard,
}

/// The initial contents of one global.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalImage {
    /// Its size in bytes (`TypeTable::size_of`).
    pub size: u64,
    /// Its alignment.
    pub align: u64,
    /// Its bytes; `None` for all zero.
    pub bytes: Option<Vec<u8>>,
}

/// One `run ... end` section: a kernel on `n` threads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunInput {
    /// The kernel's index in the batch.
    pub kernel: usize,
    /// The number of threads.
    pub n: u64,
    /// Every global of the kernel's module, in module order.
    pub globals: Vec<GlobalImage>,
    /// Per parameter, one token per thread (`args[p][t]`).
    pub args: Vec<Vec<ArgToken>>,
}

/// How one kernel run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Status {
    /// It returned: its results.
    Ok(Outputs),
    /// A signal killed it (`SIGSEGV`, ...).
    Signal(String),
    /// The runner's alarm ended it.
    Timeout,
    /// It exited with this code.
    Exit(i32),
}

/// What a kernel run left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Outputs {
    /// Where each global was placed.
    pub bases: Vec<u64>,
    /// `ret` words, one per thread.
    pub ret: Vec<u64>,
    /// Each global's bytes at the end.
    pub globals: Vec<Vec<u8>>,
}

/// One `result ... end` section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunResult {
    /// The kernel index.
    pub kernel: usize,
    /// How it ended.
    pub status: Status,
}

/// The IN text for `runs`, each kernel allowed `timeout` seconds.
pub fn encode_input(runs: &[RunInput], timeout: u32) -> String {
    let mut out = format!("pllvm-native-input 1\ntimeout {timeout}\n");
    for run in runs {
        let _ = writeln!(out, "run {} {}", run.kernel, run.n);
        let _ = writeln!(out, "globals {}", run.globals.len());
        for g in &run.globals {
            let _ = write!(out, "global {} {} ", g.size, g.align);
            match &g.bytes {
                Some(bytes) if g.size > 0 => {
                    for chunk in bytes.chunks(64) {
                        for b in chunk {
                            let _ = write!(out, "{b:02x}");
                        }
                        out.push(' ');
                    }
                }
                _ => out.push('-'),
            }
            out.push('\n');
        }
        let _ = writeln!(out, "args {}", run.args.len());
        for column in &run.args {
            out.push_str("arg");
            for token in column {
                match token {
                    ArgToken::Bits(b) => {
                        let _ = write!(out, " b{b:x}");
                    }
                    ArgToken::Global(g, off) => {
                        let _ = write!(out, " g{g}+{off}");
                    }
                    ArgToken::Null => out.push_str(" null"),
                    ArgToken::Guard => out.push_str(" guard"),
                }
            }
            out.push('\n');
        }
        out.push_str("end\n");
    }
    out
}

fn hex_u64(word: &str) -> Result<u64, String> {
    u64::from_str_radix(word, 16).map_err(|_| format!("`{word}` is not a hex word"))
}

fn hex_bytes(word: &str) -> Result<Vec<u8>, String> {
    if word == "-" {
        return Ok(Vec::new());
    }
    if !word.len().is_multiple_of(2) {
        return Err(format!("odd number of hex digits in `{word}`"));
    }
    (0..word.len())
        .step_by(2)
        .map(|k| {
            u8::from_str_radix(&word[k..k + 2], 16).map_err(|_| format!("`{word}` is not hex"))
        })
        .collect()
}

/// Reads the OUT text: one [`RunResult`] per `result ... end` section.
pub fn decode_output(text: &str) -> Result<Vec<RunResult>, String> {
    let mut lines = text.lines().map(str::trim).filter(|l| !l.is_empty());
    match lines.next() {
        Some("pllvm-native-output 1") => {}
        other => return Err(format!("expected `pllvm-native-output 1`, found {other:?}")),
    }
    let mut results = Vec::new();
    while let Some(line) = lines.next() {
        let words: Vec<&str> = line.split_whitespace().collect();
        let (kernel, rest) = match words.as_slice() {
            ["result", k, rest @ ..] => (
                k.parse::<usize>()
                    .map_err(|_| format!("bad kernel index in `{line}`"))?,
                rest,
            ),
            _ => return Err(format!("expected `result`, found `{line}`")),
        };
        let status = match rest {
            ["ok"] => {
                let mut outputs = Outputs {
                    bases: Vec::new(),
                    ret: Vec::new(),
                    globals: Vec::new(),
                };
                loop {
                    let line = lines
                        .next()
                        .ok_or("the output ends inside a result section")?;
                    let words: Vec<&str> = line.split_whitespace().collect();
                    match words.as_slice() {
                        ["end"] => break,
                        ["base", _, address] => outputs.bases.push(hex_u64(address)?),
                        ["ret", "void"] => {}
                        ["ret", words @ ..] => {
                            outputs.ret =
                                words.iter().map(|w| hex_u64(w)).collect::<Result<_, _>>()?
                        }
                        ["global", _, bytes] => outputs.globals.push(hex_bytes(bytes)?),
                        _ => return Err(format!("unexpected line `{line}`")),
                    }
                }
                results.push(RunResult {
                    kernel,
                    status: Status::Ok(outputs),
                });
                continue;
            }
            ["signal", name] => Status::Signal((*name).to_string()),
            ["timeout"] => Status::Timeout,
            ["exit", code] => Status::Exit(
                code.parse()
                    .map_err(|_| format!("bad exit code in `{line}`"))?,
            ),
            _ => return Err(format!("unexpected result line `{line}`")),
        };
        match lines.next() {
            Some("end") => {}
            other => return Err(format!("expected `end`, found {other:?}")),
        }
        results.push(RunResult { kernel, status });
    }
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_text_follows_the_protocol() {
        let run = RunInput {
            kernel: 1,
            n: 2,
            globals: vec![
                GlobalImage {
                    size: 3,
                    align: 4,
                    bytes: Some(vec![1, 0xab, 0]),
                },
                GlobalImage {
                    size: 8,
                    align: 8,
                    bytes: None,
                },
            ],
            args: vec![
                vec![ArgToken::Bits(0x1f), ArgToken::Global(1, 8)],
                vec![ArgToken::Null, ArgToken::Guard],
            ],
        };
        assert_eq!(
            encode_input(&[run], 5),
            "pllvm-native-input 1\ntimeout 5\nrun 1 2\nglobals 2\nglobal 3 4 01ab00 \nglobal 8 8 -\nargs 2\narg b1f g1+8\narg null guard\nend\n"
        );
    }

    #[test]
    fn output_text_is_read_back() {
        let text = "pllvm-native-output 1\nresult 0 ok\nbase 0 7f00\nret 1 ff\nglobal 0 0102\nend\nresult 1 signal SIGSEGV\nend\nresult 2 timeout\nend\nresult 3 exit 3\nend\n";
        let got = decode_output(text).unwrap();
        assert_eq!(
            got[0].status,
            Status::Ok(Outputs {
                bases: vec![0x7f00],
                ret: vec![1, 0xff],
                globals: vec![vec![1, 2]],
            })
        );
        assert_eq!(got[1].status, Status::Signal("SIGSEGV".into()));
        assert_eq!(got[2].status, Status::Timeout);
        assert_eq!(got[3].status, Status::Exit(3));
        assert!(decode_output("pllvm-native-output 1\nresult 0 ok\nret x\nend\n").is_err());
        assert!(decode_output("nonsense").is_err());
    }
}
