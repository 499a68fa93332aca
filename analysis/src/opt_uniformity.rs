//! LLVM's own uniformity analysis as a peer of `llvm` (docs/analyses.md, "Head-to-head with
//! opt-22"): the input pllvm gives `opt` for one function, running
//! `opt -mtriple=amdgcn-- -passes='print<uniformity>' -disable-output`, and the
//! parse of the report it prints on stderr.
//!
//! # The input
//! The module is lowered by `export-llvm` (plain LLVM IR for the P-LLVM additions).
//! Without a GPU triple opt calls everything uniform, hence `-mtriple=amdgcn--`
//! (`-mtriple=nvptx64-nvidia-cuda` for an nvptx module: [`opt_triple`]). On
//! AMDGPU the arguments of a function that is not an `amdgpu_kernel` are divergent
//! unless marked `inreg` (or `byval` for a shader: `target::ARG_RULES`), so every
//! parameter pllvm treats as uniform (`InitShapes`) gets `inreg` on the `define`
//! line, and the others stay divergent. (So a comparison cannot see a parameter
//! rule differ: `cli/tests/llvm_arg_rules.rs` gives opt the file itself.)
//! Stack objects live in `addrspace(5)` on AMDGPU, so each `alloca` is moved there
//! and cast back to `ptr`. `@pllvm.thread_id` becomes the target's thread id
//! intrinsic (`target_thread_id`); calls to functions opt does not know are
//! sources of divergence on AMDGPU.
//!
//! # The report
//! `UniformityInfo for function 'f':` followed by either `ALL VALUES UNIFORM` or one
//! `BLOCK name` section per block with `DEFINITIONS` and `TERMINATORS` lines, each
//! prefixed by `DIVERGENT:` when opt calls it divergent.

use pllvm_semantics::ir::{FuncId, Module};
use std::collections::BTreeMap;
use std::io::Write;
use std::process::{Command, Stdio};

/// What opt said about one function.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct OptReport {
    /// Named definitions (without `%` and quotes) and whether opt calls them
    /// divergent.
    pub values: BTreeMap<String, bool>,
    /// Blocks and whether opt calls their terminator divergent.
    pub terminators: BTreeMap<String, bool>,
    /// Whether opt printed `ALL VALUES UNIFORM` (no per-value lines then).
    pub all_uniform: bool,
}

impl OptReport {
    /// Whether opt calls the value `name` divergent; `None` if the report does not
    /// mention it (and does not call everything uniform).
    pub fn value_divergent(&self, name: &str) -> Option<bool> {
        if self.all_uniform {
            return Some(false);
        }
        self.values.get(name).copied()
    }

    /// Whether opt calls the terminator of `block` divergent.
    pub fn terminator_divergent(&self, block: &str) -> Option<bool> {
        if self.all_uniform {
            return Some(false);
        }
        self.terminators.get(block).copied()
    }
}

/// Strips `%` and quotes from a value or block name as opt prints it.
fn plain_name(text: &str) -> String {
    let t = text.trim().trim_start_matches('%');
    t.strip_prefix('"')
        .and_then(|t| t.strip_suffix('"'))
        .unwrap_or(t)
        .to_string()
}

/// Parses the report for `function` out of opt's stderr.
pub fn parse_report(text: &str, function: &str) -> Result<OptReport, String> {
    let header = format!("UniformityInfo for function '{function}':");
    let start = text
        .find(&header)
        .ok_or_else(|| format!("opt printed no uniformity report for @{function}"))?;
    let mut report = OptReport::default();
    let mut block: Option<String> = None;
    let mut in_terminators = false;
    for line in text[start + header.len()..].lines() {
        let line = line.trim_end();
        let trimmed = line.trim();
        if trimmed.starts_with("UniformityInfo for function") {
            break;
        }
        if trimmed == "ALL VALUES UNIFORM" {
            report.all_uniform = true;
            continue;
        }
        if let Some(name) = trimmed.strip_prefix("BLOCK ") {
            block = Some(plain_name(name));
            in_terminators = false;
            continue;
        }
        match trimmed {
            "DEFINITIONS" => {
                in_terminators = false;
                continue;
            }
            "TERMINATORS" => {
                in_terminators = true;
                continue;
            }
            "END BLOCK" => {
                block = None;
                continue;
            }
            _ => {}
        }
        let Some(b) = &block else { continue };
        let (divergent, inst) = match trimmed.strip_prefix("DIVERGENT:") {
            Some(rest) => (true, rest.trim()),
            None => (false, trimmed),
        };
        if inst.is_empty() {
            continue;
        }
        if in_terminators {
            // A block has one terminator; opt prints a `switch` over several
            // lines (its cases and `]`, never prefixed by `DIVERGENT:`), so only
            // the first line after TERMINATORS says anything.
            report.terminators.entry(b.clone()).or_insert(divergent);
        } else if inst.starts_with('%')
            && let Some((name, _)) = inst.split_once(" = ")
        {
            report.values.insert(plain_name(name), divergent);
        }
    }
    Ok(report)
}

/// The LLVM IR pllvm gives opt for `func`: `export-llvm` of the module with
/// `inreg` on the parameters listed in `uniform` (by position).
pub fn opt_input(module: &Module, func: FuncId, uniform: &[bool]) -> String {
    let triple = opt_triple(module);
    let text = target_thread_id(&pllvm_semantics::text::export_llvm(module), triple);
    let name = &module.functions[func].name;
    let amdgcn = triple == "amdgcn--";
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.lines() {
        if line.starts_with("define ") && line.contains(&format!("@{name}(")) {
            out.push_str(&mark_inreg(line, uniform));
        } else if let Some(lowered) = private_alloca(line).filter(|_| amdgcn) {
            out.push_str(&lowered);
        } else {
            out.push_str(line);
        }
        out.push('\n');
    }
    out
}

/// The thread id as the target spells it: `call i32 @pllvm.thread_id()` (and its
/// `declare`) becomes `llvm.amdgcn.workitem.id.x` on amdgcn and
/// `llvm.nvvm.read.ptx.sreg.tid.x` on nvptx, the intrinsics the targets' rules
/// make sources of divergence, so that opt reads a kernel as a GPU compiler's
/// front end would have written it. Left alone when the module already declares
/// the intrinsic or reads the id in another type (opt then sees a call it does not
/// know, also divergent on both targets).
fn target_thread_id(text: &str, triple: &str) -> String {
    let intrinsic = match triple {
        "amdgcn--" => "llvm.amdgcn.workitem.id.x",
        "nvptx64-nvidia-cuda" => "llvm.nvvm.read.ptx.sreg.tid.x",
        _ => return text.to_string(),
    };
    let only_i32 = text
        .match_indices("@pllvm.thread_id()")
        .all(|(at, _)| text[..at].ends_with("i32 "));
    if text.contains(&format!("@{intrinsic}(")) || !only_i32 {
        return text.to_string();
    }
    text.replace("i32 @pllvm.thread_id()", &format!("i32 @{intrinsic}()"))
}

/// AMDGPU wants stack objects in `addrspace(5)`: `%a = alloca T` becomes
/// `%a.as5 = alloca T, addrspace(5)` and `%a = addrspacecast` of it to `ptr`, so the
/// rest of the function is unchanged.
fn private_alloca(line: &str) -> Option<String> {
    let trimmed = line.trim_start();
    let (name, rest) = trimmed.split_once(" = alloca ")?;
    if !name.starts_with('%') || rest.contains("addrspace") {
        return None;
    }
    let inner = match name.strip_prefix("%\"").and_then(|n| n.strip_suffix('"')) {
        Some(quoted) => format!("%\"{quoted}.as5\""),
        None => format!("{name}.as5"),
    };
    Some(format!(
        "  {inner} = alloca {rest}, addrspace(5)\n  {name} = addrspacecast ptr addrspace(5) {inner} to ptr"
    ))
}

/// Adds `inreg` after the type of each uniform parameter of a `define` line.
fn mark_inreg(line: &str, uniform: &[bool]) -> String {
    let Some(open) = line.find('(') else {
        return line.to_string();
    };
    // The parameter list ends at the matching parenthesis.
    let mut depth = 0i32;
    let mut close = None;
    for (k, c) in line[open..].char_indices() {
        match c {
            '(' | '{' | '[' | '<' => depth += 1,
            ')' | '}' | ']' | '>' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + k);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(close) = close else {
        return line.to_string();
    };
    let params = &line[open + 1..close];
    let mut pieces = Vec::new();
    let (mut depth, mut cur) = (0i32, String::new());
    for c in params.chars() {
        match c {
            '{' | '[' | '<' | '(' => depth += 1,
            '}' | ']' | '>' | ')' => depth -= 1,
            ',' if depth == 0 => {
                pieces.push(std::mem::take(&mut cur));
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        pieces.push(cur);
    }
    let marked: Vec<String> = pieces
        .iter()
        .enumerate()
        .map(|(k, p)| {
            let p = p.trim();
            if !uniform.get(k).copied().unwrap_or(false) {
                return p.to_string();
            }
            match p.rfind(" %") {
                Some(at) => format!("{} inreg{}", &p[..at], &p[at..]),
                None => format!("{p} inreg"),
            }
        })
        .collect();
    format!(
        "{}({}){}",
        &line[..open],
        marked.join(", "),
        &line[close + 1..]
    )
}

/// The triple opt analyses `module` for: NVPTX's rules for an nvptx module (its
/// kernels, `tid` and `laneid` sources), AMDGPU's for every other (without a GPU
/// triple opt would call everything uniform).
pub fn opt_triple(module: &Module) -> &'static str {
    match crate::target::GpuTarget::of(module) {
        Some(crate::target::GpuTarget::Nvptx) => "nvptx64-nvidia-cuda",
        _ => "amdgcn--",
    }
}

/// Runs `opt` (e.g. `opt-22`) for `triple` ([`opt_triple`]) on `input` and
/// returns its stderr (where `print<uniformity>` writes), or why it could not.
pub fn run_opt(opt: &str, input: &str, triple: &str) -> Result<String, String> {
    let args = [
        &format!("-mtriple={triple}"),
        "-passes=print<uniformity>",
        "-disable-output",
        "-",
    ];
    run_opt_with(opt, &args, input).map(|(_, stderr)| stderr)
}

/// Runs `opt` with `args` on `input` (its standard input) and returns what it
/// printed on standard output and standard error; or why it could not run, or
/// that it failed (its exit status and the first lines of its standard error).
pub fn run_opt_with(opt: &str, args: &[&str], input: &str) -> Result<(Vec<u8>, String), String> {
    let mut child = Command::new(opt)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {opt}: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .map_err(|e| format!("cannot write to {opt}: {e}"))?;
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("{opt} did not finish: {e}"))?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if !out.status.success() {
        return Err(format!(
            "{opt} failed ({}): {}",
            out.status,
            stderr.lines().take(5).collect::<Vec<_>>().join(" / ")
        ));
    }
    Ok((out.stdout, stderr))
}

/// Whether `opt` can be run at all (`opt --version`).
pub fn opt_available(opt: &str) -> bool {
    Command::new(opt)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = "UniformityInfo for function 'f':\n\nBLOCK entry\nDEFINITIONS\n  DIVERGENT:   %t = call i32 @x()\n               %\"7\" = add i32 %n, 1\nTERMINATORS\n  DIVERGENT:   br i1 %c, label %a, label %b\nEND BLOCK\n\nBLOCK b\nDEFINITIONS\nTERMINATORS\n               ret void\nEND BLOCK\n";

    #[test]
    fn report_lines_become_names_and_flags() {
        let r = parse_report(REPORT, "f").unwrap_or_default();
        assert_eq!(r.value_divergent("t"), Some(true));
        assert_eq!(r.value_divergent("7"), Some(false));
        assert_eq!(r.value_divergent("q"), None);
        assert_eq!(r.terminator_divergent("entry"), Some(true));
        assert_eq!(r.terminator_divergent("b"), Some(false));
        assert!(parse_report(REPORT, "g").is_err());
        let all = parse_report(
            "UniformityInfo for function 'f':\nALL VALUES UNIFORM\n",
            "f",
        )
        .unwrap_or_default();
        assert_eq!(all.value_divergent("anything"), Some(false));
    }

    /// Found by `pllvm fuzz --oracle llvm` (docs/fuzzing.md): the case lines of a
    /// divergent `switch` made it read as uniform.
    #[test]
    fn a_switch_over_several_lines_keeps_its_first_lines_flag() {
        let text = "UniformityInfo for function 'f':\nBLOCK a\nDEFINITIONS\nTERMINATORS\n  DIVERGENT:   switch i32 %s, label %d [\n    i32 3, label %c\n    i32 0, label %c\n  ]\nEND BLOCK\n";
        let r = parse_report(text, "f").unwrap_or_default();
        assert_eq!(r.terminator_divergent("a"), Some(true));
    }

    #[test]
    fn allocas_move_to_the_private_address_space() {
        assert_eq!(
            private_alloca("  %\"7\" = alloca i64, align 8").as_deref(),
            Some(
                "  %\"7.as5\" = alloca i64, align 8, addrspace(5)\n  %\"7\" = addrspacecast ptr addrspace(5) %\"7.as5\" to ptr"
            )
        );
        assert_eq!(private_alloca("  %x = add i32 1, 2"), None);
    }

    #[test]
    fn the_thread_id_is_the_targets_intrinsic() {
        let text = "define i32 @f() {\n  %t = call i32 @pllvm.thread_id()\n  ret i32 %t\n}\ndeclare i32 @pllvm.thread_id()\n";
        let amd = target_thread_id(text, "amdgcn--");
        assert!(
            amd.contains("%t = call i32 @llvm.amdgcn.workitem.id.x()"),
            "{amd}"
        );
        assert!(
            amd.contains("declare i32 @llvm.amdgcn.workitem.id.x()"),
            "{amd}"
        );
        assert!(!amd.contains("pllvm.thread_id"), "{amd}");
        let nv = target_thread_id(text, "nvptx64-nvidia-cuda");
        assert!(
            nv.contains("call i32 @llvm.nvvm.read.ptx.sreg.tid.x()"),
            "{nv}"
        );
        // Another type: left as the unknown call.
        let wide = text
            .replace("i32 @pllvm", "i64 @pllvm")
            .replace("ret i32", "ret i64");
        assert_eq!(target_thread_id(&wide, "amdgcn--"), wide);
    }

    #[test]
    fn inreg_goes_after_the_type_of_uniform_parameters() {
        assert_eq!(
            mark_inreg(
                "define i32 @f(i1 %u, { i32, i32 } %s, ptr %p) {",
                &[true, true, false]
            ),
            "define i32 @f(i1 inreg %u, { i32, i32 } inreg %s, ptr %p) {"
        );
    }
}
