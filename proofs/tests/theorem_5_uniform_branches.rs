//! Theorem 5 (thesis §8.7, preservation of uniform branches): with a
//! dominance-compact block index, partial linearization keeps an edge `b → y` if
//! some block `d` dominates it (`d ⪰D b`, `d ≻D y`) and the edge is uniform in
//! `d`'s dominance region `G^d` (Def. 22-23).
//!
//! Checked in its static form on generated programs: (1) with `d` the entry, a
//! uniform branch in a block whose activation the analysis calls uniform keeps
//! every successor (Lemma 13; a successor the normal form funnelled through a new
//! preheader or latch counts through that block); (2) the corollary §8.7 and §9.2
//! draw for BOSCC: after `--pass boscc,pl --boscc all`, every `any` branch a
//! gadget installed keeps both its targets. By hand: Fig. 8.5 (a uniform branch
//! kept under a varying predicate, `d = b`), and a uniform branch that no block
//! dominates together with its targets, which Listing 8 folds.

use pllvm_codegen::boscc::Policy;
use pllvm_codegen::pipeline::{Options, Pass, run_passes};
use pllvm_codegen::shape::cfg_lines;
use pllvm_codegen::uniform;
use pllvm_fuzz::{GenConfig, generate};
use pllvm_proofs::linearization::transformable;
use pllvm_semantics::ir::{Body, InstKind, Module, Terminator};
use pllvm_semantics::text::{parse_module, print_module};
use std::collections::HashSet;

/// The body of the first definition.
fn body(m: &Module) -> &Body {
    let f = m.first_definition().expect("a function");
    m.functions[f].body.as_ref().expect("a body")
}

/// The successor names of `name`'s terminator in `out`, each mapped through a
/// block the transform added (a name `original` lacks) to that block's only
/// successor.
fn successors_through_new_blocks(
    out: &Body,
    original: &HashSet<String>,
    name: &str,
) -> Vec<String> {
    let Some(b) = out.block_by_name(name) else {
        return Vec::new();
    };
    out.blocks[b]
        .term
        .successors()
        .into_iter()
        .map(|s| match &out.blocks[s].term {
            Terminator::Br(t) if !original.contains(&out.blocks[s].name) => {
                out.blocks[*t].name.clone()
            }
            _ => out.blocks[s].name.clone(),
        })
        .collect()
}

/// The (1) property on one generated program; the number of branches checked.
fn uniform_branches_kept(seed: u64, config: &GenConfig) -> Result<Option<usize>, String> {
    let g = generate(seed, config);
    let options = Options {
        uniform_args: g.uniform_args(),
        ..Options::default()
    };
    let stages = match run_passes(&g.module, g.func, &[Pass::Pl], &options) {
        Ok(s) => s,
        Err(e) if e.message.contains("is divergent") => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let out = &stages.last().ok_or("no stage")?.module;
    let u = uniform::analyze(
        &g.module,
        g.func,
        options.analysis,
        &options.uniform_args,
        "theorem 5",
    )
    .map_err(|e| e.to_string())?;
    let before = body(&g.module);
    let names: HashSet<String> = before
        .layout
        .iter()
        .map(|&b| before.blocks[b].name.clone())
        .collect();
    let mut checked = 0;
    for &a in &before.layout {
        let term = &before.blocks[a].term;
        if !term.is_branch_on_value()
            || u.terminators[a].is_varying()
            || !u.activation[a].is_uniform()
        {
            continue;
        }
        let want: Vec<String> = term
            .successors()
            .iter()
            .map(|&s| before.blocks[s].name.clone())
            .collect();
        let name = &before.blocks[a].name;
        let got = successors_through_new_blocks(body(out), &names, name);
        if want != got {
            return Err(format!(
                "uniform branch in %{name}: {want:?} became {got:?}\n{}",
                print_module(out)
            ));
        }
        checked += 1;
    }
    Ok(Some(checked))
}

#[test]
fn theorem_5_uniform_branches_in_uniform_blocks_keep_their_successors() {
    let mut failures = Vec::new();
    let (mut checked, mut programs) = (0, 0);
    for (config, seeds) in [
        (transformable(GenConfig::acyclic()), 0..300u64),
        (transformable(GenConfig::reducible()), 300..800),
    ] {
        for seed in seeds {
            match uniform_branches_kept(seed, &config) {
                Ok(Some(n)) => {
                    programs += 1;
                    checked += n;
                }
                Ok(None) => {}
                Err(why) => failures.push(format!("seed {seed}: {why}")),
            }
        }
    }
    eprintln!("theorem 5: {programs} programs, {checked} uniform branches in uniform blocks kept");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(checked > 200, "{checked}");
}

/// The (2) property on one generated program; the number of gadgets checked.
fn any_branches_kept(seed: u64, config: &GenConfig) -> Result<Option<usize>, String> {
    let g = generate(seed, config);
    let options = Options {
        uniform_args: g.uniform_args(),
        boscc: Policy::All,
        ..Options::default()
    };
    let stages = match run_passes(&g.module, g.func, &[Pass::Boscc, Pass::Pl], &options) {
        Ok(s) => s,
        Err(e) if e.message.contains("is divergent") => return Ok(None),
        Err(e) => return Err(e.to_string()),
    };
    let [gadgets, linear] = stages.as_slice() else {
        return Err("two stages expected".into());
    };
    let with = body(&gadgets.module);
    let out = body(&linear.module);
    let mut checked = 0;
    for &a in &with.layout {
        let Terminator::CondBr { cond, .. } = &with.blocks[a].term else {
            continue;
        };
        let is_any = with.def_inst(*cond).is_some_and(|i| {
            matches!(&with.insts[i].kind, InstKind::Call { callee, .. }
                if gadgets.module.functions[*callee].name == "pllvm.any")
        });
        if !is_any {
            continue;
        }
        let name = &with.blocks[a].name;
        let want: Vec<String> = with.blocks[a]
            .term
            .successors()
            .iter()
            .map(|&s| with.blocks[s].name.clone())
            .collect();
        let got: Vec<String> = out
            .block_by_name(name)
            .map(|b| {
                out.blocks[b]
                    .term
                    .successors()
                    .iter()
                    .map(|&s| out.blocks[s].name.clone())
                    .collect()
            })
            .unwrap_or_default();
        if want != got {
            return Err(format!(
                "the any branch in %{name}: {want:?} became {got:?}\n{}",
                print_module(&linear.module)
            ));
        }
        checked += 1;
    }
    Ok(Some(checked))
}

#[test]
fn theorem_5_keeps_every_boscc_any_branch() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (config, seeds) in [
        (transformable(GenConfig::acyclic()), 0..300u64),
        (transformable(GenConfig::reducible()), 300..700),
    ] {
        for seed in seeds {
            match any_branches_kept(seed, &config) {
                Ok(Some(n)) => checked += n,
                Ok(None) => {}
                Err(why) => failures.push(format!("seed {seed}: {why}")),
            }
        }
    }
    eprintln!("theorem 5 (BOSCC): {checked} any branches kept");
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    assert!(checked > 100, "{checked}");
}

/// The CFG of `src` after `pl` with `uniform` arguments.
fn pl_cfg(src: &str, uniform: &[&str]) -> Vec<String> {
    let (module, _) = parse_module(src).expect("parses");
    let func = module.first_definition().expect("a function");
    let options = Options {
        uniform_args: uniform.iter().map(|s| s.to_string()).collect(),
        ..Options::default()
    };
    let stages = run_passes(&module, func, &[Pass::Pl], &options).expect("linearizes");
    cfg_lines(body(&stages[0].module))
}

/// Fig. 8.5: `b`'s branch is uniform, its predicate varying (it is control
/// dependent on the divergent edge `a → b`). With `d = b`: `b` dominates `b → c`
/// and `b → d`, and in `G^b` the branch is uniform, so both edges stay.
#[test]
fn theorem_5_fig_8_5() {
    let src = "
define i32 @fig85(i32 %u, i32 %tid) {
a:
  %va = icmp slt i32 %tid, 2
  br i1 %va, label %b, label %f
b:
  %ub = icmp sgt i32 %u, 5
  br i1 %ub, label %c, label %d
c:
  br label %e
d:
  br label %e
e:
  br label %f
f:
  ret i32 0
}
";
    let lines = pl_cfg(src, &["u"]);
    assert!(lines.contains(&"b [p] -> c, d".to_string()), "{lines:?}");
}

/// No block dominates both `b → c` and `c` (`a → c` enters `c` too), so Theorem 5
/// says nothing, and Listing 8 folds the uniform branch in `b`: block index a, b,
/// c, d; `a`: next = min{b, c} = b, (b, c) deferred; `b`: both edges get
/// `next = c` ((c, d) deferred), so `b` ends in `br label %c`.
#[test]
fn theorem_5_needs_a_dominating_block() {
    let src = "
define i32 @fold(i32 %u, i32 %tid) {
a:
  %va = icmp slt i32 %tid, 2
  br i1 %va, label %b, label %c
b:
  %ub = icmp sgt i32 %u, 5
  br i1 %ub, label %c, label %d
c:
  br label %d
d:
  ret i32 0
}
";
    assert_eq!(
        pl_cfg(src, &["u"]),
        ["a -> b", "b [p] -> c", "c [p] -> d", "d -> ret"]
    );
}
