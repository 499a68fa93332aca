//! The parameter rules of `analysis/src/target.rs` (`ARG_RULES`, one row per
//! target and group of calling conventions, after LLVM 22's
//! `AMDGPU::isArgPassedInSGPR` and `NVPTXTTIImpl::isSourceOfDivergence`) end to
//! end: for each row, a function per calling convention it names, with a plain,
//! an `inreg` and (where the convention allows it) a `byval` parameter, goes
//! through `pllvm analyze --analysis llvm --json`; where opt-22 is installed, the
//! same file goes through `opt-22 -passes='print<uniformity>'` unchanged (not
//! through `--compare-llvm`, which marks pllvm's uniform parameters `inreg` for
//! opt and so cannot see a parameter rule differ) and the two must agree.

use pllvm_analysis::target::{ARG_RULES, ArgUniformity, GpuTarget};
use std::path::Path;
use std::process::Command;

fn triple_of(target: Option<GpuTarget>) -> &'static str {
    match target {
        Some(GpuTarget::Amdgcn) => "amdgcn-amd-amdhsa",
        Some(GpuTarget::Nvptx) => "nvptx64-nvidia-cuda",
        Some(GpuTarget::Spir) => "spir64-unknown-unknown",
        None => "x86_64-pc-linux-gnu",
    }
}

/// The conventions whose functions LLVM 22's verifier refuses `byval`
/// parameters for ("Calling convention disallows byval").
fn disallows_byval(cc: &str) -> bool {
    matches!(
        cc,
        "amdgpu_kernel"
            | "spir_kernel"
            | "ptx_kernel"
            | "amdgpu_vs"
            | "amdgpu_hs"
            | "amdgpu_gs"
            | "amdgpu_ps"
            | "amdgpu_cs"
            | "amdgpu_cs_chain"
            | "amdgpu_cs_chain_preserve"
    )
}

/// The test function: each parameter used by one `add`, so that opt prints a
/// verdict for it even in a module for a target whose arguments it does not list.
fn source(triple: &str, cc: &str, byval: bool) -> (String, Vec<&'static str>) {
    let mut params = vec!["i32 %a", "i32 inreg %b"];
    let mut uses = vec!["  %ua = add i32 %a, 1\n", "  %ub = add i32 %b, 1\n"];
    let mut names = vec!["ua", "ub"];
    if byval {
        params.push("ptr addrspace(5) byval(i32) %c");
        uses.push("  %uc = ptrtoint ptr addrspace(5) %c to i32\n");
        names.push("uc");
    }
    (
        format!(
            "target triple = \"{triple}\"\ndefine {cc} void @f({}) {{\nentry:\n{}  ret void\n}}\n",
            params.join(", "),
            uses.concat()
        ),
        names,
    )
}

/// pllvm's `llvm` analysis of `file`: whether each of `names` is varying.
fn pllvm_verdicts(file: &Path, names: &[&str]) -> Vec<bool> {
    let out = Command::new(env!("CARGO_BIN_EXE_pllvm"))
        .args(["analyze", "--analysis", "llvm", "--json"])
        .arg(file)
        .output()
        .expect("run pllvm");
    assert!(
        out.status.success(),
        "{}: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON document");
    let values = &doc["functions"][0]["analyses"][0]["values"];
    names
        .iter()
        .map(|n| {
            let entry = values
                .as_array()
                .and_then(|vs| vs.iter().find(|v| v["name"] == format!("%{n}")))
                .unwrap_or_else(|| panic!("no %{n} in {doc}"));
            entry["shape"] == "varying"
        })
        .collect()
}

/// opt-22's verdicts on `file` for `names` (`DIVERGENT:` before a definition),
/// `None` when opt-22 is not installed.
fn opt_22_verdicts(file: &Path, triple: &str, names: &[&str]) -> Option<Vec<bool>> {
    let opt_triple = if triple.starts_with("nvptx") {
        "nvptx64-nvidia-cuda"
    } else {
        "amdgcn--"
    };
    let out = Command::new("opt-22")
        .arg(format!("-mtriple={opt_triple}"))
        .args(["-passes=print<uniformity>", "-disable-output"])
        .arg(file)
        .output()
        .ok()?;
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{}: {text}", file.display());
    Some(
        names
            .iter()
            .map(|n| {
                text.lines().any(|l| {
                    l.trim()
                        .strip_prefix("DIVERGENT:")
                        .is_some_and(|rest| rest.trim().starts_with(&format!("%{n} = ")))
                })
            })
            .collect(),
    )
}

#[test]
fn every_calling_convention_row_through_pllvm_and_opt_22() {
    let dir = std::env::temp_dir().join(format!("pllvm-arg-rules-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut compared = 0;
    for row in ARG_RULES {
        let conventions: &[&str] = if row.conventions.is_empty() {
            &["ccc", "fastcc"]
        } else {
            row.conventions
        };
        let triple = triple_of(row.target);
        for cc in conventions {
            let byval = !disallows_byval(cc);
            let (src, names) = source(triple, cc, byval);
            let file = dir.join(format!("{cc}-{triple}.ll"));
            std::fs::write(&file, &src).expect("write");
            let ours = pllvm_verdicts(&file, &names);
            let want: Vec<bool> = names
                .iter()
                .map(|n| match (row.uniform, *n) {
                    (ArgUniformity::All, _) => false,
                    (ArgUniformity::None, _) => true,
                    (_, "ua") => true,
                    (_, "ub") => false,
                    (ArgUniformity::InregOrByval, _) => false,
                    (_, _) => true,
                })
                .collect();
            assert_eq!(ours, want, "{cc} on {triple}: pllvm (varying per value)");
            // LLVM has no divergence rules for SPIR or a CPU: opt's answer there
            // is not LLVM's rule for the row (ARG_RULES says why).
            if matches!(row.target, Some(GpuTarget::Amdgcn | GpuTarget::Nvptx))
                && let Some(opt) = opt_22_verdicts(&file, triple, &names)
            {
                assert_eq!(ours, opt, "{cc} on {triple}: pllvm vs opt-22\n{src}");
                compared += 1;
            }
        }
    }
    std::fs::remove_dir_all(&dir).ok();
    eprintln!("{compared} conventions compared with opt-22");
}
