//! Control flow of generated programs: sequences of statements, each a
//! single-entry region of the CFG (thesis §2.2-2.4, §4.1): straight-line code,
//! if/else diamonds, `switch`es, natural loops with a counter and several exits,
//! irreducible two-entry cycles, predicated blocks (Def. 7, Def. 11.1) and `break`s.
//!
//! Dominance is kept by scoping: a region's inner values are dropped from the pool
//! when the region ends, except those of blocks that dominate its exit (the block
//! before an if/switch, a loop header); everything else reaches the join only
//! through phis whose incoming values come from the pool at the end of each
//! predecessor.

use super::builder::{Builder, Edge, ExitCtx};
use num_bigint::BigUint;
use pllvm_semantics::ir::{BinOp, Block, ICmpPred, Terminator, Value};
use pllvm_semantics::types::{Ty, TypeTable};
use rand::Rng;

/// The statements of a sequence.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stmt {
    Straight,
    If,
    Switch,
    Loop,
    Irreducible,
    Predicated,
    Break,
}

impl Builder<'_> {
    /// Up to `n` statements in the current block and the blocks they create.
    pub(super) fn gen_seq(&mut self, n: usize, nesting: usize) {
        for _ in 0..n {
            let stmt = self.pick_stmt(nesting);
            match stmt {
                Stmt::Straight => self.gen_straight(),
                Stmt::If => self.gen_if(nesting),
                Stmt::Switch => self.gen_switch(nesting),
                Stmt::Loop => self.gen_loop(nesting),
                Stmt::Irreducible => self.gen_irreducible(nesting),
                Stmt::Predicated => self.gen_predicated(),
                Stmt::Break => self.gen_break(),
            }
        }
    }

    fn pick_stmt(&mut self, nesting: usize) -> Stmt {
        let left = self.blocks_left;
        let deep = nesting >= 4;
        let mut menu: Vec<(u32, Stmt)> = vec![(4, Stmt::Straight)];
        if left >= 3 && !deep {
            menu.push((4, Stmt::If));
        }
        if left >= 4 && !deep && self.cfg.switches {
            menu.push((2, Stmt::Switch));
        }
        if left >= 3 && self.cycle_depth < self.cfg.max_loop_depth {
            menu.push((4, Stmt::Loop));
        }
        if left >= 4 && self.cycle_depth < self.cfg.max_loop_depth && self.cfg.irreducible {
            menu.push((3, Stmt::Irreducible));
        }
        if left >= 2 && self.cfg.predicates {
            menu.push((2, Stmt::Predicated));
        }
        if left >= 1 && !self.exits.is_empty() {
            menu.push((2, Stmt::Break));
        }
        let total: u32 = menu.iter().map(|(w, _)| w).sum();
        let mut roll = self.rng.gen_range(0..total);
        for (w, s) in menu {
            if roll < w {
                return s;
            }
            roll -= w;
        }
        Stmt::Straight
    }

    /// A few commands in the current block.
    fn gen_straight(&mut self) {
        let n = self.rng.gen_range(1..=self.cfg.max_insts_per_block.max(1));
        for _ in 0..n {
            self.gen_inst();
        }
    }

    /// The body of one arm: a fresh scope, a few statements, and the edge it ends in.
    fn gen_arm(&mut self, nesting: usize) -> Edge {
        self.scopes.push(Vec::new());
        self.gen_straight();
        let n = self.rng.gen_range(0..=2);
        self.gen_seq(n, nesting + 1);
        let edge = Edge {
            from: self.cur,
            avail: self.snapshot(),
        };
        self.scopes.pop();
        edge
    }

    /// Places `join` and gives it phis over `edges` (each incoming value from the
    /// pool at the end of its edge's source); the phis go to the current scope. A
    /// shadow operand comes from `dominating`, values that dominate `join`.
    fn gen_join(&mut self, join: Block, edges: &[Edge], dominating: &[Value]) {
        self.place(join);
        let n = self.rng.gen_range(0..=3);
        for _ in 0..n {
            let ty = self.random_ty();
            let incoming = edges
                .iter()
                .map(|e| (self.pick_existing(ty, &e.avail), e.from))
                .collect();
            let shadow = self.maybe_shadow(ty, dominating);
            let (_, v) = self.phi(join, ty, incoming, shadow, "phi");
            self.offer(v);
        }
    }

    /// A shadow operand of type `ty` (§4.8) among `dominating`, if the knob allows
    /// and a coin says so.
    fn maybe_shadow(&mut self, ty: Ty, dominating: &[Value]) -> Option<Value> {
        if !self.cfg.shadow_phis || !self.rng.gen_bool(0.35) {
            return None;
        }
        Some(self.pick_existing(ty, dominating))
    }

    /// `if (c) { … } [else { … }]`: a diamond or a triangle, joined by phis.
    fn gen_if(&mut self, nesting: usize) {
        let cond = self.make_cond();
        let header = self.cur;
        let dominating = self.snapshot();
        let then_block = self.new_block("then");
        let join = self.new_block("join");
        let else_block = if self.rng.gen_bool(0.6) {
            Some(self.new_block("else"))
        } else {
            None
        };
        self.terminate(Terminator::CondBr {
            cond,
            if_true: then_block,
            if_false: else_block.unwrap_or(join),
        });
        let mut edges = Vec::new();
        if else_block.is_none() {
            edges.push(Edge {
                from: header,
                avail: dominating.clone(),
            });
        }
        for arm in std::iter::once(then_block).chain(else_block) {
            self.place(arm);
            let edge = self.gen_arm(nesting);
            self.terminate(Terminator::Br(join));
            edges.push(edge);
        }
        self.gen_join(join, &edges, &dominating);
    }

    /// `switch ty %s, label %default [ ty c, label %arm … ]`: every case (and the
    /// default) goes to an arm block, several cases may share an arm, and every arm
    /// goes on to the join.
    fn gen_switch(&mut self, nesting: usize) {
        let scrutinee = self.make_scrutinee();
        let ty = self.ty(scrutinee);
        let width = self.width(ty);
        let dominating = self.snapshot();
        let max_cases = self.cfg.max_switch_cases.max(1);
        let n_cases = self.rng.gen_range(1..=max_cases);
        let mut values: Vec<u128> = Vec::new();
        let span: u128 = if width >= 4 { 8 } else { 1u128 << width };
        for _ in 0..n_cases {
            let v = self.rng.gen_range(0..span);
            if !values.contains(&v) {
                values.push(v);
            }
        }
        let n_arms = self
            .rng
            .gen_range(1..=values.len() + 1)
            .min(self.blocks_left.max(1));
        let arms: Vec<Block> = (0..n_arms).map(|_| self.new_block("case")).collect();
        let join = self.new_block("endsw");
        // Successor k (0 = default) goes to arm k while arms last, then anywhere.
        let mut targets = Vec::with_capacity(values.len() + 1);
        for k in 0..=values.len() {
            let arm = if k < arms.len() {
                arms[k]
            } else {
                arms[self.rng.gen_range(0..arms.len())]
            };
            targets.push(arm);
        }
        let cases = values
            .iter()
            .zip(&targets[1..])
            .map(|(&v, &b)| (BigUint::from(v), b))
            .collect();
        self.terminate(Terminator::Switch {
            ty,
            cond: scrutinee,
            default: targets[0],
            cases,
        });
        self.stats.switches += 1;
        let mut edges = Vec::new();
        for arm in arms {
            self.place(arm);
            let edge = self.gen_arm(nesting);
            self.terminate(Terminator::Br(join));
            edges.push(edge);
        }
        self.gen_join(join, &edges, &dominating);
    }

    /// `%i.next = add %i, 1; %c = icmp ult %i.next, %k` at the end of the current
    /// block: the counter test that bounds every cycle.
    fn counter_step(&mut self, counter: Value, bound: Value) -> (Value, Value) {
        let one = self.const_int(TypeTable::I32, 1);
        let next = self.binary(BinOp::Add, TypeTable::I32, counter, one, "inc", false);
        let go_on = self.icmp(ICmpPred::Ult, next, bound, false);
        (next, go_on)
    }

    /// A natural loop: preheader (the current block) → header with the counter phi
    /// and carried phis (some with shadow operands) → body statements (which may
    /// `break` to the exit) → latch with the counter test → exit with phis over
    /// every exiting edge. The header's phis stay available after the loop (the
    /// header dominates the exit).
    fn gen_loop(&mut self, nesting: usize) {
        let bound = self.trip_bound();
        let pre = self.cur;
        let pre_avail = self.snapshot();
        let header = self.new_block("loop");
        let exit = self.new_block("exit");
        self.terminate(Terminator::Br(header));
        self.stats.loops += 1;
        if self.cycle_depth > 0 {
            self.stats.nested_loops += 1;
        }
        self.place(header);
        self.scopes.push(Vec::new());
        let zero = self.const_int(TypeTable::I32, 0);
        let (counter_phi, counter) = self.phi(header, TypeTable::I32, vec![(zero, pre)], None, "i");
        self.offer(counter);
        let mut carried = Vec::new();
        for _ in 0..self.rng.gen_range(0..=2) {
            let ty = self.random_ty();
            let init = self.pick_existing(ty, &pre_avail);
            let shadow = self.maybe_shadow(ty, &pre_avail);
            let (inst, v) = self.phi(header, ty, vec![(init, pre)], shadow, "acc");
            self.offer(v);
            carried.push((inst, ty));
        }
        self.counters.push(counter);
        self.exits.push(ExitCtx {
            block: exit,
            edges: Vec::new(),
        });
        self.cycle_depth += 1;

        self.scopes.push(Vec::new());
        self.gen_straight();
        let n = self.rng.gen_range(1..=3);
        self.gen_seq(n, nesting + 1);
        let latch = self.cur;
        let (next, go_on) = self.counter_step(counter, bound);
        let latch_avail = self.snapshot();
        self.terminate(Terminator::CondBr {
            cond: go_on,
            if_true: header,
            if_false: exit,
        });
        self.add_incoming(counter_phi, next, latch);
        for (inst, ty) in carried {
            let v = self.pick_existing(ty, &latch_avail);
            self.add_incoming(inst, v, latch);
        }
        self.scopes.pop();

        self.cycle_depth -= 1;
        self.counters.pop();
        let mut ctx = self.exits.pop().unwrap_or(ExitCtx {
            block: exit,
            edges: Vec::new(),
        });
        ctx.edges.push(Edge {
            from: latch,
            avail: latch_avail,
        });
        if ctx.edges.len() > 1 {
            self.stats.multi_exit_loops += 1;
        }
        // The header dominates the exit: its values stay, everything else goes.
        let header_values = self.scopes.pop().unwrap_or_default();
        let dominating: Vec<Value> = self
            .snapshot()
            .into_iter()
            .chain(
                header_values
                    .iter()
                    .copied()
                    .filter(|&v| !self.facts[v].local),
            )
            .collect();
        for v in header_values {
            self.offer(v);
        }
        self.gen_join(exit, &ctx.edges, &dominating);
    }

    /// An irreducible two-entry cycle (thesis §2.4): the current block branches to
    /// `A` or `B`; `A` ends in `br (i.next < k), B, exit` and `B` in
    /// `br (i.next < k), A, exit`, where each of `A` and `B` has a counter phi taking
    /// 0 from the entry and the other's `i.next` from the cross edge, so every lane
    /// crosses at most `k` times. Both parts may contain statements and `break`s.
    fn gen_irreducible(&mut self, nesting: usize) {
        let bound = self.trip_bound();
        let cond = self.make_cond();
        let entry = self.cur;
        let entry_avail = self.snapshot();
        let a = self.new_block("irr.a");
        let b = self.new_block("irr.b");
        let exit = self.new_block("irr.exit");
        self.terminate(Terminator::CondBr {
            cond,
            if_true: a,
            if_false: b,
        });
        self.stats.irreducible += 1;
        self.exits.push(ExitCtx {
            block: exit,
            edges: Vec::new(),
        });
        self.cycle_depth += 1;
        let zero = self.const_int(TypeTable::I32, 0);

        // Part A.
        self.place(a);
        self.scopes.push(Vec::new());
        let (a_counter_phi, a_counter) =
            self.phi(a, TypeTable::I32, vec![(zero, entry)], None, "i");
        self.offer(a_counter);
        let a_carried = self.carried_phis(a, entry, &entry_avail);
        self.counters.push(a_counter);
        self.gen_straight();
        let n = self.rng.gen_range(0..=2);
        self.gen_seq(n, nesting + 1);
        let a_end = self.cur;
        let (a_next, a_go_on) = self.counter_step(a_counter, bound);
        let a_avail = self.snapshot();
        self.terminate(Terminator::CondBr {
            cond: a_go_on,
            if_true: b,
            if_false: exit,
        });
        self.counters.pop();
        self.scopes.pop();

        // Part B.
        self.place(b);
        self.scopes.push(Vec::new());
        let (_, b_counter) = self.phi(
            b,
            TypeTable::I32,
            vec![(zero, entry), (a_next, a_end)],
            None,
            "i",
        );
        self.offer(b_counter);
        let b_carried = self.carried_phis(b, entry, &entry_avail);
        for &(inst, ty) in &b_carried {
            let v = self.pick_existing(ty, &a_avail);
            self.add_incoming(inst, v, a_end);
        }
        self.counters.push(b_counter);
        self.gen_straight();
        let n = self.rng.gen_range(0..=2);
        self.gen_seq(n, nesting + 1);
        let b_end = self.cur;
        let (b_next, b_go_on) = self.counter_step(b_counter, bound);
        let b_avail = self.snapshot();
        self.terminate(Terminator::CondBr {
            cond: b_go_on,
            if_true: a,
            if_false: exit,
        });
        self.add_incoming(a_counter_phi, b_next, b_end);
        for (inst, ty) in a_carried {
            let v = self.pick_existing(ty, &b_avail);
            self.add_incoming(inst, v, b_end);
        }
        self.counters.pop();
        self.scopes.pop();

        self.cycle_depth -= 1;
        let mut ctx = self.exits.pop().unwrap_or(ExitCtx {
            block: exit,
            edges: Vec::new(),
        });
        ctx.edges.push(Edge {
            from: a_end,
            avail: a_avail,
        });
        ctx.edges.push(Edge {
            from: b_end,
            avail: b_avail,
        });
        self.gen_join(exit, &ctx.edges, &entry_avail);
    }

    /// Up to two carried phis at the head of a cycle part, with their entry value
    /// (and maybe a shadow operand) from `entry_avail`; the cross edge is added later.
    fn carried_phis(
        &mut self,
        block: Block,
        entry: Block,
        entry_avail: &[Value],
    ) -> Vec<(pllvm_semantics::ir::Inst, Ty)> {
        let mut carried = Vec::new();
        for _ in 0..self.rng.gen_range(0..=2) {
            let ty = self.random_ty();
            let init = self.pick_existing(ty, entry_avail);
            let shadow = self.maybe_shadow(ty, entry_avail);
            let (inst, v) = self.phi(block, ty, vec![(init, entry)], shadow, "acc");
            self.offer(v);
            carried.push((inst, ty));
        }
        carried
    }

    /// A block with a predicate (Def. 7): either an `i1` of the pool (defined in a
    /// dominating block) or a `total` compare at the head of the block itself
    /// (Def. 11.1). Its non-total values are usable only inside it (a lane with a
    /// false predicate leaves them undefined), and it ends in an unconditional `br`
    /// so that a lane with a false predicate has one successor to take.
    fn gen_predicated(&mut self) {
        let inside = self.cfg.self_predicates && self.rng.gen_bool(0.5);
        let outer = if inside {
            None
        } else {
            let bools: Vec<Value> = self
                .pool_of(TypeTable::I1)
                .into_iter()
                .filter(|&v| !self.facts[v].local)
                .collect();
            Some(if !bools.is_empty() && self.rng.gen_bool(0.7) {
                bools[self.rng.gen_range(0..bools.len())]
            } else {
                self.make_cond()
            })
        };
        let block = self.new_block("pred");
        self.terminate(Terminator::Br(block));
        self.place(block);
        self.predicated[block] = true;
        let predicate = match outer {
            Some(p) => p,
            None => self.total_compare(),
        };
        self.body.blocks[block].predicate = Some(predicate);
        self.gen_straight();
        if self.cfg.predicated_branches && self.rng.gen_bool(0.5) {
            return self.gen_predicated_branch();
        }
        let next = self.new_block("bb");
        self.terminate(Terminator::Br(next));
        self.place(next);
    }

    /// The end of a predicated block (the current one) as an if-then: `br c,
    /// %then, %join` and `%then -> %join`. `c` is computed here, so every lane
    /// that evaluates the branch (an active one) defines it; a lane whose
    /// predicate is false takes ⊤ ([PC-ND-BRANCH]) and accepts both successors.
    /// `%then` is unpredicated and runs straight-line code; the join's phis take
    /// the values available on each edge (the block's own values are local to it
    /// and not among them).
    fn gen_predicated_branch(&mut self) {
        let cond = self.make_cond();
        let header = self.cur;
        let dominating = self.snapshot();
        let then_block = self.new_block("then");
        let join = self.new_block("join");
        self.terminate(Terminator::CondBr {
            cond,
            if_true: then_block,
            if_false: join,
        });
        let mut edges = vec![Edge {
            from: header,
            avail: dominating.clone(),
        }];
        self.place(then_block);
        self.scopes.push(Vec::new());
        self.gen_straight();
        edges.push(Edge {
            from: self.cur,
            avail: self.snapshot(),
        });
        self.scopes.pop();
        self.terminate(Terminator::Br(join));
        self.gen_join(join, &edges, &dominating);
    }

    /// `br c, %exit, %cont` to the exit of the innermost (sometimes an outer)
    /// enclosing cycle: one more exiting edge.
    fn gen_break(&mut self) {
        let depth = self.exits.len();
        let level = if depth > 1 && self.rng.gen_bool(0.3) {
            self.rng.gen_range(0..depth)
        } else {
            depth - 1
        };
        // Two conditions and-ed: a break is taken less often than not, so the code
        // after it runs too.
        let first = self.make_cond();
        let second = self.make_cond();
        let cond = self.binary(BinOp::And, TypeTable::I1, first, second, "brk", false);
        let cont = self.new_block("bb");
        let exit = self.exits[level].block;
        let from = self.cur;
        let avail = self.snapshot();
        self.exits[level].edges.push(Edge { from, avail });
        self.stats.breaks += 1;
        self.terminate(Terminator::CondBr {
            cond,
            if_true: exit,
            if_false: cont,
        });
        self.place(cont);
    }
}
