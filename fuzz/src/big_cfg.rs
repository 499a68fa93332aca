//! Large CFG programs for the benchmark of the `llvm` uniformity analysis against
//! opt-22 (BENCHMARKS.md: "a benchmark ... on the same generated CFGs of 10k, 100k and
//! 300k blocks, some loop-heavy"): [`big_cfg`] writes one function `@big` of
//! P-LLVM text (plain LLVM IR: no P-LLVM additions, so `export-llvm` gives opt-22 an
//! equivalent module) from a [`Family`], a block count and a seed. The same
//! arguments always give the same text (`ChaCha8Rng`).
//!
//! # Shape
//! The function is a sequence of *chunks*, each a construct nested at most a few
//! levels deep, so every loop nest and every irreducible region stays bounded while
//! the function grows: real kernels grow by adding code, not by deepening one
//! loop. The constructs:
//! - **diamond**: `if` / `if-else` on a condition of the current value, the thread
//!   id or the uniform argument `%n`, both sides a nested construct, a phi at the
//!   join;
//! - **switch** on the thread id or on a uniform value, 2-4 cases to one join;
//! - **loop**: a counter loop whose body is a sequence of nested constructs, with
//!   0-3 early exits (each to its own exit block, merged by a phi after the loop)
//!   and a latch test that is uniform or compares against the thread id;
//! - **irreducible**: a two-entry cycle `P ⇄ Q` entered at `P` or `Q`, with a nested
//!   construct on the path from `P` to `Q`.
//!
//! Every definition dominates its uses (values pass between constructs through
//! phis), so `pllvm check` and opt-22 accept the programs. They are meant for
//! analysis, not execution: loops may not terminate.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::fmt::Write;

/// Which mix of constructs to draw.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    /// Mostly diamonds and switches (on the thread id and on uniform values),
    /// a few simple loops.
    Structured,
    /// Mostly nested loops (up to three deep) with several exits, divergent or not.
    Loops,
    /// Structured code and loops with frequent two-entry irreducible regions.
    Irreducible,
}

impl Family {
    /// Every family, in the order the benchmark prints them.
    pub const ALL: [Family; 3] = [Family::Structured, Family::Loops, Family::Irreducible];

    /// A short name for tables and file names.
    pub fn name(self) -> &'static str {
        match self {
            Family::Structured => "structured",
            Family::Loops => "loops",
            Family::Irreducible => "irreducible",
        }
    }
}

/// The text of one generated function `@big(i32 %n, i32 %u)` with about
/// `blocks` blocks (at least that many; a construct in progress is finished).
/// `%n` and `%u` are meant to be uniform (`--uniform-args n,u`; `inreg` for opt).
pub fn big_cfg(family: Family, blocks: usize, seed: u64) -> String {
    let mut g = Gen {
        rng: ChaCha8Rng::seed_from_u64(seed),
        family,
        out: String::with_capacity(blocks * 120),
        blocks: 0,
        counter: 0,
    };
    g.out
        .push_str("define i32 @big(i32 %n, i32 %u) {\nentry:\n");
    g.blocks += 1;
    g.out.push_str("  %tid = call i32 @pllvm.thread_id()\n");
    let mut open = "entry".to_string();
    let mut value = "%u".to_string();
    while g.blocks < blocks {
        let (o, v) = g.construct(&open, &value, 0);
        open = o;
        value = v;
    }
    let _ = writeln!(g.out, "  ret i32 {value}\n}}");
    g.out
}

/// The generator's state: the text so far, ending inside an *open* block (its
/// label and some instructions written, its terminator not yet).
struct Gen {
    rng: ChaCha8Rng,
    family: Family,
    out: String,
    blocks: usize,
    counter: u32,
}

impl Gen {
    fn fresh(&mut self) -> u32 {
        self.counter += 1;
        self.counter
    }

    /// Ends the open block with `term` and opens a new block `label`.
    fn open(&mut self, term: &str, label: &str) {
        let _ = write!(self.out, "  {term}\n\n{label}:\n");
        self.blocks += 1;
    }

    /// An `i1` condition computed in the open block from `value`, the thread id
    /// or `%n`: divergent when it involves the thread id (or `value` is).
    fn condition(&mut self, value: &str) -> String {
        let k = self.fresh();
        let c = self.rng.gen_range(0..8);
        let source = match self.rng.gen_range(0..3) {
            0 => {
                let t = format!("%t{k}");
                let _ = writeln!(self.out, "  {t} = and i32 %tid, {}", 1 + (k % 7));
                t
            }
            1 => value.to_string(),
            _ => "%n".to_string(),
        };
        let name = format!("%c{k}");
        let _ = writeln!(self.out, "  {name} = icmp slt i32 {source}, {c}");
        name
    }

    /// One construct starting in the open block `open` with the current value
    /// `value`; returns the open block it ends in and the value it produced.
    fn construct(&mut self, open: &str, value: &str, depth: u32) -> (String, String) {
        let roll = self.rng.gen_range(0..100);
        let deep = depth >= 3;
        let (loop_p, irr_p, switch_p) = match self.family {
            Family::Structured => (8, 0, 20),
            Family::Loops => (55, 0, 5),
            Family::Irreducible => (25, 20, 10),
        };
        if deep || roll >= loop_p + irr_p + switch_p + 45 {
            return self.straight(open, value);
        }
        if roll < loop_p {
            let depth_limit = if self.family == Family::Loops { 3 } else { 2 };
            if depth < depth_limit {
                return self.loop_(open, value, depth);
            }
            return self.diamond(open, value, depth);
        }
        if roll < loop_p + irr_p {
            return self.irreducible(open, value, depth);
        }
        if roll < loop_p + irr_p + switch_p {
            return self.switch(open, value, depth);
        }
        self.diamond(open, value, depth)
    }

    /// Some arithmetic, then a branch to a new block.
    fn straight(&mut self, _open: &str, value: &str) -> (String, String) {
        let k = self.fresh();
        let v = format!("%s{k}");
        let _ = writeln!(self.out, "  {v} = add i32 {value}, {}", k % 13);
        let label = format!("S{k}");
        self.open(&format!("br label %{label}"), &label);
        (label, v)
    }

    /// A nested construct, or nothing (then the open block goes on).
    fn side(&mut self, open: &str, value: &str, depth: u32) -> (String, String) {
        if self.rng.gen_bool(0.3) {
            let k = self.fresh();
            let v = format!("%x{k}");
            let _ = writeln!(self.out, "  {v} = mul i32 {value}, {}", 2 + k % 5);
            return (open.to_string(), v);
        }
        self.construct(open, value, depth + 1)
    }

    fn diamond(&mut self, open: &str, value: &str, depth: u32) -> (String, String) {
        let k = self.fresh();
        let c = self.condition(value);
        let (t, f, j) = (format!("D{k}.t"), format!("D{k}.f"), format!("D{k}.j"));
        let one_sided = self.rng.gen_bool(0.3);
        let else_target = if one_sided { &j } else { &f };
        self.open(&format!("br i1 {c}, label %{t}, label %{else_target}"), &t);
        let (t_end, t_val) = self.side(&t, value, depth);
        let (f_end, f_val) = if one_sided {
            let _ = write!(self.out, "  br label %{j}\n\n{j}:\n");
            self.blocks += 1;
            (open.to_string(), value.to_string())
        } else {
            self.open(&format!("br label %{j}"), &f);
            let (fe, fv) = self.side(&f, value, depth);
            self.open(&format!("br label %{j}"), &j);
            (fe, fv)
        };
        let v = format!("%p{k}");
        let _ = writeln!(
            self.out,
            "  {v} = phi i32 [ {t_val}, %{t_end} ], [ {f_val}, %{f_end} ]"
        );
        (j, v)
    }

    fn switch(&mut self, _open: &str, value: &str, depth: u32) -> (String, String) {
        let k = self.fresh();
        let on = if self.rng.gen_bool(0.5) {
            "%tid".to_string()
        } else {
            value.to_string()
        };
        let cases = self.rng.gen_range(2..5u32);
        let j = format!("W{k}.j");
        let mut term = format!("switch i32 {on}, label %W{k}.0 [");
        for c in 1..cases {
            let _ = write!(term, " i32 {c}, label %W{k}.{c}");
        }
        term.push_str(" ]");
        let mut incoming = Vec::new();
        let mut prev_term = term;
        for c in 0..cases {
            let label = format!("W{k}.{c}");
            self.open(&prev_term, &label);
            let (end, val) = self.side(&label, value, depth);
            incoming.push(format!("[ {val}, %{end} ]"));
            prev_term = format!("br label %{j}");
        }
        self.open(&prev_term, &j);
        let v = format!("%q{k}");
        let _ = writeln!(self.out, "  {v} = phi i32 {}", incoming.join(", "));
        (j, v)
    }

    fn loop_(&mut self, open: &str, value: &str, depth: u32) -> (String, String) {
        let k = self.fresh();
        let (h, m) = (format!("L{k}.h"), format!("L{k}.m"));
        self.open(&format!("br label %{h}"), &h);
        let i = format!("%i{k}");
        let next = format!("%i{k}.next");
        // The latch block is only known at the end: the phi is written with a
        // placeholder and patched.
        let phi_at = self.out.len();
        let _ = writeln!(
            self.out,
            "  {i} = phi i32 [ {value}, %{open} ], [ {next}, %@LATCH@ ]"
        );
        let exits = self.rng.gen_range(0..4u32);
        let mut cur_block = h.clone();
        let mut cur_val = i.clone();
        let mut exit_incoming = Vec::new();
        for e in 0..=exits {
            let (b, v) = self.side(&cur_block, &cur_val, depth);
            cur_block = b;
            cur_val = v;
            if e < exits {
                let c = self.condition(&cur_val);
                let (x, cont) = (format!("L{k}.x{e}"), format!("L{k}.c{e}"));
                self.open(&format!("br i1 {c}, label %{x}, label %{cont}"), &x);
                exit_incoming.push(format!("[ {cur_val}, %{x} ]"));
                self.open(&format!("br label %{m}"), &cont);
                cur_block = cont;
            }
        }
        let _ = writeln!(self.out, "  {next} = add i32 {cur_val}, 1");
        let bound = if self.rng.gen_bool(0.4) { "%tid" } else { "%n" };
        let c = format!("%l{k}.more");
        let _ = writeln!(self.out, "  {c} = icmp slt i32 {next}, {bound}");
        let x = format!("L{k}.x");
        self.open(&format!("br i1 {c}, label %{h}, label %{x}"), &x);
        exit_incoming.push(format!("[ {next}, %{x} ]"));
        self.open(&format!("br label %{m}"), &m);
        let v = format!("%r{k}");
        let _ = writeln!(self.out, "  {v} = phi i32 {}", exit_incoming.join(", "));
        let patched = self.out[phi_at..].replacen("@LATCH@", &cur_block, 1);
        self.out.truncate(phi_at);
        self.out.push_str(&patched);
        (m, v)
    }

    fn irreducible(&mut self, open: &str, value: &str, depth: u32) -> (String, String) {
        let k = self.fresh();
        let (p, q, x) = (format!("R{k}.p"), format!("R{k}.q"), format!("R{k}.x"));
        let c = self.condition(value);
        self.open(&format!("br i1 {c}, label %{p}, label %{q}"), &p);
        let pv = format!("%rp{k}");
        let phi_at = self.out.len();
        let _ = writeln!(
            self.out,
            "  {pv} = phi i32 [ {value}, %{open} ], [ @QVAL@, %@QEND@ ]"
        );
        let (p_end, p_val) = self.side(&p, &pv, depth);
        self.open(&format!("br label %{q}"), &q);
        let qv = format!("%rq{k}");
        let _ = writeln!(
            self.out,
            "  {qv} = phi i32 [ {value}, %{open} ], [ {p_val}, %{p_end} ]"
        );
        let q2 = format!("%rq{k}.next");
        let _ = writeln!(self.out, "  {q2} = add i32 {qv}, 1");
        let d = self.condition(&q2);
        self.open(&format!("br i1 {d}, label %{p}, label %{x}"), &x);
        let v = format!("%rx{k}");
        let _ = writeln!(self.out, "  {v} = phi i32 [ {q2}, %{q} ]");
        let patched = self.out[phi_at..]
            .replacen("@QVAL@", &q2, 1)
            .replacen("@QEND@", &q, 1);
        self.out.truncate(phi_at);
        self.out.push_str(&patched);
        (x, v)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pllvm_semantics::text::parse_module;
    use pllvm_semantics::verify::verify_module;

    /// Every family parses and verifies (§4.10), reaches the size asked, and is
    /// reproducible by seed.
    #[test]
    fn programs_are_well_formed_sized_and_reproducible() {
        for family in Family::ALL {
            for seed in 0..3 {
                let text = big_cfg(family, 1500, seed);
                assert_eq!(text, big_cfg(family, 1500, seed));
                let (module, spans) = match parse_module(&text) {
                    Ok(m) => m,
                    Err(e) => panic!("{family:?} {seed}: {:?}", e.first()),
                };
                let report = verify_module(&module, &spans);
                assert!(
                    report.errors.is_empty(),
                    "{family:?} {seed}: {:?}",
                    report.errors.first()
                );
                let func = module.first_definition().map(|f| &module.functions[f]);
                let blocks = func
                    .and_then(|f| f.body.as_ref())
                    .map_or(0, |b| b.layout.len());
                assert!(
                    (1500..1700).contains(&blocks),
                    "{family:?} {seed}: {blocks} blocks"
                );
            }
        }
    }
}
