//! Natural loops and the loop tree (thesis §2.4, Fig. 2.2).
//!
//! In a reducible CFG every retreating edge `x → y` of a DFS is a back edge: `y`
//! dominates `x`. `x` is a latch and `y` a loop header. The natural loop of a back
//! edge holds `x`, `y` and every block that reaches `x` without going through `y`.
//! The thesis requires one back edge per header (a unique latch, §2.4); before
//! the `normalize` module establishes that, back edges sharing a header are merged
//! into one loop with several latches (as LLVM's `LoopInfo` does), so loops and
//! headers correspond one to one and the loops nest: two loops are disjoint or one
//! contains the other, which gives the loop tree.
//!
//! Only blocks the entry reaches belong to loops. An irreducible CFG has no natural
//! loops in this sense, and [`LoopInfo::compute`] returns [`Irreducible`].

use pllvm_semantics::cfg::Cfg;
use pllvm_semantics::ir::{Block, Body};

/// A loop of a [`LoopInfo`], numbered in the reverse postorder of its header.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LoopId(pub u32);

/// A CFG that is not reducible (§2.4): some retreating edge of the documented DFS
/// enters a cycle at a block that does not dominate its source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Irreducible {
    /// The function's name without `@`, when known.
    pub function: Option<String>,
    /// Targets of retreating edges that do not dominate their source: entries of
    /// cycles with more than one entry, ascending.
    pub header_candidates: Vec<Block>,
    /// The names of `header_candidates`, in the same order.
    pub candidate_names: Vec<String>,
}

impl Irreducible {
    /// The same error, naming `function`.
    pub fn in_function(mut self, function: &str) -> Self {
        self.function = Some(function.to_string());
        self
    }
}

impl std::fmt::Display for Irreducible {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.function {
            Some(name) => write!(f, "function @{name} has irreducible control flow")?,
            None => write!(f, "irreducible control flow")?,
        }
        let list: Vec<String> = self
            .candidate_names
            .iter()
            .map(|n| format!("%{n}"))
            .collect();
        write!(
            f,
            ": a cycle is entered at {} without being dominated by it (thesis §2.4 assumes reducible CFGs)",
            list.join(", ")
        )
    }
}

impl std::error::Error for Irreducible {}

/// One natural loop.
#[derive(Clone, Debug, PartialEq, Eq)]
struct LoopData {
    header: Block,
    latches: Vec<Block>,
    exits: Vec<Block>,
    exiting: Vec<Block>,
    preheader: Option<Block>,
    parent: Option<LoopId>,
    children: Vec<LoopId>,
    depth: u32,
    /// The loop's interval in a preorder of the loop tree: `l` contains `m` iff
    /// `first(l) <= first(m) <= last(l)`, so [`LoopInfo::contains`] costs O(1)
    /// however deep the nest (a walk up the tree made the analyses cubic on
    /// nested loops).
    first: u32,
    /// The largest preorder number among `l` and its descendants.
    last: u32,
    /// The loop's blocks are `LoopInfo::blocks[start..end]`; its own blocks (those
    /// of no inner loop) are `start..own_end`.
    start: u32,
    own_end: u32,
    end: u32,
}

/// Numbers the loop tree in preorder: each loop's `first` is its own number and
/// `last` the largest number in its subtree. Iterative, so a nest of any depth
/// costs the number of loops and no stack. Returns the loops in preorder.
fn number_loop_tree(loops: &mut [LoopData]) -> Vec<usize> {
    let mut next = 0u32;
    let mut preorder = Vec::with_capacity(loops.len());
    let mut stack: Vec<(usize, bool)> = (0..loops.len())
        .rev()
        .filter(|&k| loops[k].parent.is_none())
        .map(|k| (k, false))
        .collect();
    while let Some((k, done)) = stack.pop() {
        if done {
            loops[k].last = next - 1;
            continue;
        }
        loops[k].first = next;
        preorder.push(k);
        next += 1;
        stack.push((k, true));
        stack.extend(
            loops[k]
                .children
                .iter()
                .rev()
                .map(|c| (c.0 as usize, false)),
        );
    }
    preorder
}

/// The loop that `l` has been merged into so far (union-find with path halving).
fn outermost_found(outer: &mut [u32], mut l: u32) -> u32 {
    while outer[l as usize] != l {
        let up = outer[outer[l as usize] as usize];
        outer[l as usize] = up;
        l = up;
    }
    l
}

/// The natural loops of a reducible body and their tree (§2.4).
///
/// Latches, exits and exiting blocks are listed in the reverse postorder of the
/// documented DFS. The blocks of all loops live in one array ordered by the
/// loop-tree preorder of each block's innermost loop (ties by reverse
/// postorder), so every loop's blocks are one range of it: [`LoopInfo::blocks`]
/// lists the header first, then the loop's other own blocks in reverse
/// postorder, then the blocks of each child loop's subtree, children in order.
/// A nest of depth d holds its 2d + 3 blocks once, not d^2 entries (3.5 GB at
/// depth 10,000).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LoopInfo {
    loops: Vec<LoopData>,
    /// Innermost loop per block (arena index).
    innermost: Vec<Option<LoopId>>,
    back_edges: Vec<(Block, Block)>,
    /// Every block in some loop, each loop's blocks contiguous (see above).
    blocks: Vec<Block>,
    /// Reverse-postorder number per block (`u32::MAX` when unreachable).
    rpo_number: Vec<u32>,
}

impl LoopInfo {
    /// The loops of `body`, or [`Irreducible`] if its CFG is not reducible.
    ///
    /// Loops are found inner first (headers in decreasing reverse postorder,
    /// after LLVM's `LoopInfoBase::analyze`): the natural loop of a header is
    /// walked back from its latches, and a block already in an inner loop
    /// stands for that whole loop, which continues at its header's
    /// predecessors. Each block and edge is walked once, so the construction
    /// costs O(V + E) (with a union-find), not the sum of the loop sizes.
    pub fn compute(body: &Body) -> Result<Self, Irreducible> {
        let cfg = Cfg::new(body);
        let dom = cfg.dominators();
        let len = cfg.len();
        let back_edges = cfg.retreating_edges();
        let mut candidates: Vec<Block> = back_edges
            .iter()
            .filter(|&&(x, y)| !dom.dominates(y, x))
            .map(|&(_, y)| y)
            .collect();
        if !candidates.is_empty() {
            candidates.sort_unstable();
            candidates.dedup();
            let candidate_names = candidates
                .iter()
                .map(|&b| body.blocks[b].name.clone())
                .collect();
            return Err(Irreducible {
                function: None,
                header_candidates: candidates,
                candidate_names,
            });
        }
        let rpo = cfg.reverse_postorder();
        let mut rpo_number = vec![u32::MAX; len];
        for (position, &b) in rpo.iter().enumerate() {
            rpo_number[b.as_u32() as usize] = position as u32;
        }
        let by_rpo = |list: &mut Vec<Block>| {
            list.sort_unstable_by_key(|b| rpo_number[b.as_u32() as usize]);
            list.dedup();
        };
        // One loop per header, numbered in the reverse postorder of the headers
        // (an outer header dominates an inner one, so it comes first).
        let mut headers: Vec<Block> = back_edges.iter().map(|&(_, y)| y).collect();
        by_rpo(&mut headers);
        let mut latches_of: Vec<Vec<Block>> = vec![Vec::new(); len];
        for &(x, y) in &back_edges {
            latches_of[y.as_u32() as usize].push(x);
        }
        let count = headers.len();
        let mut innermost: Vec<Option<LoopId>> = vec![None; len];
        let mut parent: Vec<Option<LoopId>> = vec![None; count];
        let mut outer: Vec<u32> = (0..count as u32).collect();
        let mut all_latches: Vec<Vec<Block>> = Vec::with_capacity(count);
        for &header in &headers {
            let mut latches = std::mem::take(&mut latches_of[header.as_u32() as usize]);
            by_rpo(&mut latches);
            all_latches.push(latches);
        }
        // Inner loops first: every loop nested in `id` has a later header.
        for id in (0..count as u32).rev() {
            let header = headers[id as usize];
            innermost[header.as_u32() as usize] = Some(LoopId(id));
            let mut work: Vec<Block> = all_latches[id as usize].clone();
            while let Some(b) = work.pop() {
                if b == header || !cfg.reachable(b) {
                    continue;
                }
                match innermost[b.as_u32() as usize] {
                    None => {
                        innermost[b.as_u32() as usize] = Some(LoopId(id));
                        work.extend(cfg.preds(b).iter().copied());
                    }
                    Some(inner) => {
                        // An inner loop (or a block already taken): continue
                        // from the header of the largest loop found around it.
                        let top = outermost_found(&mut outer, inner.0);
                        if top != id {
                            outer[top as usize] = id;
                            parent[top as usize] = Some(LoopId(id));
                            work.extend(cfg.preds(headers[top as usize]).iter().copied());
                        }
                    }
                }
            }
        }
        let mut loops: Vec<LoopData> = Vec::with_capacity(count);
        for id in 0..count {
            let parent = parent[id];
            let depth = parent.map_or(1, |p| loops[p.0 as usize].depth + 1);
            if let Some(p) = parent {
                loops[p.0 as usize].children.push(LoopId(id as u32));
            }
            loops.push(LoopData {
                header: headers[id],
                latches: std::mem::take(&mut all_latches[id]),
                exits: Vec::new(),
                exiting: Vec::new(),
                preheader: None,
                parent,
                children: Vec::new(),
                depth,
                first: 0,
                last: 0,
                start: 0,
                own_end: 0,
                end: 0,
            });
        }
        let preorder = number_loop_tree(&mut loops);
        // The blocks of all loops in one array: by the preorder of the innermost
        // loop, then reverse postorder.
        let mut own: Vec<Vec<Block>> = vec![Vec::new(); count];
        for &b in &rpo {
            if let Some(l) = innermost[b.as_u32() as usize] {
                own[l.0 as usize].push(b);
            }
        }
        let mut blocks: Vec<Block> = Vec::new();
        for &k in &preorder {
            loops[k].start = blocks.len() as u32;
            blocks.append(&mut own[k]);
            loops[k].own_end = blocks.len() as u32;
        }
        // A subtree ends where the next loop after it in preorder starts.
        for &k in &preorder {
            let after = loops[k].last as usize + 1;
            loops[k].end = preorder
                .get(after)
                .map_or(blocks.len() as u32, |&m| loops[m].start);
        }
        let mut info = LoopInfo {
            loops,
            innermost,
            back_edges,
            blocks,
            rpo_number: rpo_number.clone(),
        };
        // Exits: an edge u → s leaves the loops around u up to the innermost
        // one that also holds s, so the work is the size of the exit lists.
        let mut exits: Vec<Vec<Block>> = vec![Vec::new(); count];
        let mut exiting: Vec<Vec<Block>> = vec![Vec::new(); count];
        for &u in &rpo {
            let Some(m) = info.loop_of(u) else { continue };
            for &s in cfg.succs(u) {
                let mut around = Some(m);
                while let Some(l) = around {
                    if info.contains(l, s) {
                        break;
                    }
                    exits[l.0 as usize].push(s);
                    exiting[l.0 as usize].push(u);
                    around = info.parent(l);
                }
            }
        }
        for id in 0..count {
            let l = LoopId(id as u32);
            let mut e = std::mem::take(&mut exits[id]);
            let mut x = std::mem::take(&mut exiting[id]);
            by_rpo(&mut e);
            by_rpo(&mut x);
            let header = info.header(l);
            let mut outside_preds: Vec<Block> = cfg
                .preds(header)
                .iter()
                .copied()
                .filter(|&p| cfg.reachable(p) && !info.contains(l, p))
                .collect();
            outside_preds.sort_unstable();
            outside_preds.dedup();
            let data = &mut info.loops[id];
            data.exits = e;
            data.exiting = x;
            data.preheader = match outside_preds.as_slice() {
                [only] => Some(*only),
                _ => None,
            };
        }
        Ok(info)
    }

    /// `lp B`: the innermost loop containing `block`, if any.
    pub fn loop_of(&self, block: Block) -> Option<LoopId> {
        self.innermost
            .get(block.as_u32() as usize)
            .copied()
            .flatten()
    }

    /// `lp head L`: the header of loop `l`.
    pub fn header(&self, l: LoopId) -> Block {
        self.data(l).header
    }

    /// The latches of `l` (sources of its back edges), in reverse postorder.
    pub fn latches(&self, l: LoopId) -> &[Block] {
        &self.data(l).latches
    }

    /// `lp latch L`: the unique latch of `l`, `None` if it has several.
    pub fn latch(&self, l: LoopId) -> Option<Block> {
        match self.data(l).latches.as_slice() {
            [only] => Some(*only),
            _ => None,
        }
    }

    /// The blocks of `l`: the header first, then `l`'s other own blocks in
    /// reverse postorder, then the blocks of its child loops, each child's
    /// subtree contiguous (see [`LoopInfo`]). Not in reverse postorder across
    /// children: [`LoopInfo::blocks_in_rpo`] sorts them.
    pub fn blocks(&self, l: LoopId) -> &[Block] {
        let data = self.data(l);
        &self.blocks[data.start as usize..data.end as usize]
    }

    /// The blocks of `l` in no inner loop, header first, in reverse postorder.
    pub fn own_blocks(&self, l: LoopId) -> &[Block] {
        let data = self.data(l);
        &self.blocks[data.start as usize..data.own_end as usize]
    }

    /// The blocks of `l` in reverse postorder (a sorted copy of
    /// [`LoopInfo::blocks`]).
    pub fn blocks_in_rpo(&self, l: LoopId) -> Vec<Block> {
        let mut blocks = self.blocks(l).to_vec();
        blocks.sort_unstable_by_key(|b| self.rpo_number(*b));
        blocks
    }

    /// The position of `block` in the reverse postorder of the documented DFS
    /// (`u32::MAX` when the entry does not reach it).
    pub fn rpo_number(&self, block: Block) -> u32 {
        self.rpo_number
            .get(block.as_u32() as usize)
            .copied()
            .unwrap_or(u32::MAX)
    }

    /// The loop at nesting depth `depth` around `l` (`l` itself at its own depth;
    /// `None` when `depth` is 0 or deeper than `l`). Walks up the tree.
    pub fn ancestor_at_depth(&self, l: LoopId, depth: u32) -> Option<LoopId> {
        if depth == 0 || depth > self.loop_depth(l) {
            return None;
        }
        let mut current = l;
        while self.loop_depth(current) > depth {
            current = self.parent(current)?;
        }
        Some(current)
    }

    /// Whether `block` belongs to loop `l`.
    pub fn contains(&self, l: LoopId, block: Block) -> bool {
        // `l` is `block`'s innermost loop or one of its ancestors (loops nest):
        // an interval test on the loop tree's preorder.
        let (Some(target), Some(m)) = (self.loops.get(l.0 as usize), self.loop_of(block)) else {
            return false;
        };
        let first = self.data(m).first;
        target.first <= first && first <= target.last
    }

    /// `lp exits L`: the blocks outside `l` with a predecessor in `l`.
    pub fn exits(&self, l: LoopId) -> &[Block] {
        &self.data(l).exits
    }

    /// The exiting blocks of `l`: blocks in `l` with a successor outside.
    pub fn exiting(&self, l: LoopId) -> &[Block] {
        &self.data(l).exiting
    }

    /// The preheader of `l` (§2.4): its header's only predecessor outside the loop,
    /// if there is exactly one (that block may have other successors too).
    pub fn preheader(&self, l: LoopId) -> Option<Block> {
        self.data(l).preheader
    }

    /// The parent of `l` in the loop tree (`None` for outermost loops).
    pub fn parent(&self, l: LoopId) -> Option<LoopId> {
        self.data(l).parent
    }

    /// The children of `l` in the loop tree, ascending.
    pub fn children(&self, l: LoopId) -> &[LoopId] {
        &self.data(l).children
    }

    /// Every loop, outer loops before inner ones (headers in reverse postorder).
    pub fn loops(&self) -> impl Iterator<Item = LoopId> + '_ {
        (0..self.loops.len() as u32).map(LoopId)
    }

    /// The number of loops.
    pub fn len(&self) -> usize {
        self.loops.len()
    }

    /// Whether there are no loops.
    pub fn is_empty(&self) -> bool {
        self.loops.is_empty()
    }

    /// The number of loops containing `block` (0 outside every loop).
    pub fn depth(&self, block: Block) -> u32 {
        self.loop_of(block).map_or(0, |l| self.data(l).depth)
    }

    /// The nesting depth of loop `l` (1 for an outermost loop).
    pub fn loop_depth(&self, l: LoopId) -> u32 {
        self.data(l).depth
    }

    /// Whether `block` is a loop header.
    pub fn is_header(&self, block: Block) -> bool {
        self.loop_of(block).is_some_and(|l| self.header(l) == block)
    }

    /// The loop headed by `block`, if it is a header.
    pub fn loop_with_header(&self, block: Block) -> Option<LoopId> {
        self.loop_of(block).filter(|&l| self.header(l) == block)
    }

    /// `Backedges` (§2.4): every back edge `latch → header`, each pair once, sorted.
    pub fn back_edges(&self) -> &[(Block, Block)] {
        &self.back_edges
    }

    /// Whether `from → to` is a back edge.
    pub fn is_back_edge(&self, from: Block, to: Block) -> bool {
        self.back_edges.binary_search(&(from, to)).is_ok()
    }

    /// The loops containing `block`, innermost first.
    pub fn ancestors(&self, block: Block) -> Vec<LoopId> {
        let mut chain = Vec::new();
        let mut current = self.loop_of(block);
        while let Some(l) = current {
            chain.push(l);
            current = self.parent(l);
        }
        chain
    }

    /// The loop's interval in a preorder of the loop tree, `(first, last)`: `l`
    /// contains `m` (or is `m`) iff `first(l) <= first(m) <= last(l)`.
    pub fn preorder(&self, l: LoopId) -> (u32, u32) {
        let data = self.data(l);
        (data.first, data.last)
    }

    /// Where [`LoopInfo::blocks`] of `l` lie in [`LoopInfo::all_blocks`].
    pub fn block_range(&self, l: LoopId) -> std::ops::Range<usize> {
        let data = self.data(l);
        data.start as usize..data.end as usize
    }

    /// Every block in some loop, each loop's blocks one range of it
    /// ([`LoopInfo::block_range`]).
    pub fn all_blocks(&self) -> &[Block] {
        &self.blocks
    }

    fn data(&self, l: LoopId) -> &LoopData {
        &self.loops[l.0 as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_util::{blk, graph_body, names};

    /// Loop facts as names: (header, latches, blocks, exits, exiting, preheader, depth).
    fn describe(body: &Body, info: &LoopInfo, l: LoopId) -> String {
        format!(
            "{} latches={:?} blocks={:?} exits={:?} exiting={:?} pre={:?} depth={}",
            body.blocks[info.header(l)].name,
            names(body, info.latches(l).iter().copied()),
            names(body, info.blocks(l).iter().copied()),
            names(body, info.exits(l).iter().copied()),
            names(body, info.exiting(l).iter().copied()),
            info.preheader(l).map(|b| body.blocks[b].name.clone()),
            info.loop_depth(l),
        )
    }

    fn check(spec: &str, expect: &[&str]) -> (Body, LoopInfo) {
        let body = graph_body(spec);
        let info = match LoopInfo::compute(&body) {
            Ok(info) => info,
            Err(e) => panic!("{spec}: {e}"),
        };
        let got: Vec<String> = info.loops().map(|l| describe(&body, &info, l)).collect();
        assert_eq!(got, expect, "{spec}");
        (body, info)
    }

    #[test]
    fn no_loops() {
        let (body, info) = check("A: B C; B: D; C: D; D:", &[]);
        assert_eq!(info.depth(blk(&body, "B")), 0);
        assert!(info.back_edges().is_empty());
    }

    #[test]
    fn nested_loops() {
        let (body, info) = check(
            "E: H; H: I; I: J; J: I K; K: H X; X:",
            &[
                r#"H latches=["K"] blocks=["H", "K", "I", "J"] exits=["X"] exiting=["K"] pre=Some("E") depth=1"#,
                r#"I latches=["J"] blocks=["I", "J"] exits=["K"] exiting=["J"] pre=Some("H") depth=2"#,
            ],
        );
        let (outer, inner) = (LoopId(0), LoopId(1));
        assert_eq!(info.parent(inner), Some(outer));
        assert_eq!(info.children(outer), &[inner]);
        assert_eq!(info.loop_of(blk(&body, "J")), Some(inner));
        assert_eq!(info.loop_of(blk(&body, "K")), Some(outer));
        assert_eq!(info.depth(blk(&body, "J")), 2);
        assert_eq!(info.depth(blk(&body, "X")), 0);
        assert_eq!(info.ancestors(blk(&body, "J")), vec![inner, outer]);
        assert!(info.is_back_edge(blk(&body, "K"), blk(&body, "H")));
        assert!(info.contains(outer, blk(&body, "J")));
        assert!(!info.contains(inner, blk(&body, "K")));
    }

    #[test]
    fn several_exits_and_latches() {
        // H → {A, X}, A → {H, B}, B → {H, Y}: two latches A and B, two exits.
        check(
            "P: H; H: A X; A: H B; B: H Y; X:; Y:",
            &[
                r#"H latches=["A", "B"] blocks=["H", "A", "B"] exits=["X", "Y"] exiting=["H", "B"] pre=Some("P") depth=1"#,
            ],
        );
        // The header has two outside predecessors: no preheader.
        check(
            "S: P Q; P: H; Q: H; H: H X; X:",
            &[r#"H latches=["H"] blocks=["H"] exits=["X"] exiting=["H"] pre=None depth=1"#],
        );
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]
        /// On random reducible CFGs every loop is its natural loop as §2.4 defines
        /// it (the header and the blocks reaching a latch without passing the
        /// header, walked per loop), with the exits and exiting blocks of that
        /// set in reverse postorder, the innermost enclosing loop as parent, the
        /// header first and the own blocks (those of no inner loop) next.
        #[test]
        fn loops_are_the_natural_loops_of_generated_cfgs(succs in crate::test_util::arb_cfg()) {
            let body = graph_body(&crate::test_util::spec_of(&succs));
            let Ok(info) = LoopInfo::compute(&body) else {
                return Ok(());
            };
            let cfg = Cfg::new(&body);
            let rpo = |list: &mut Vec<Block>| {
                list.sort_unstable_by_key(|&b| info.rpo_number(b));
                list.dedup();
            };
            for l in info.loops() {
                let header = info.header(l);
                let mut natural = vec![header];
                let mut work: Vec<Block> = info.latches(l).to_vec();
                while let Some(b) = work.pop() {
                    if natural.contains(&b) || !cfg.reachable(b) {
                        continue;
                    }
                    natural.push(b);
                    work.extend(cfg.preds(b).iter().copied());
                }
                rpo(&mut natural);
                proptest::prop_assert_eq!(info.blocks_in_rpo(l), natural.clone());
                proptest::prop_assert_eq!(info.blocks(l)[0], header);
                let mut exits = Vec::new();
                let mut exiting = Vec::new();
                for &b in &natural {
                    for &s in cfg.succs(b) {
                        if !natural.contains(&s) {
                            exits.push(s);
                            exiting.push(b);
                        }
                    }
                }
                rpo(&mut exits);
                rpo(&mut exiting);
                proptest::prop_assert_eq!(info.exits(l), exits.as_slice());
                proptest::prop_assert_eq!(info.exiting(l), exiting.as_slice());
                let own: Vec<Block> =
                    natural.iter().copied().filter(|&b| info.loop_of(b) == Some(l)).collect();
                proptest::prop_assert_eq!(info.own_blocks(l), own.as_slice());
                let parent = info
                    .loops()
                    .filter(|&m| m != l && info.blocks(m).contains(&header))
                    .max_by_key(|&m| info.loop_depth(m));
                proptest::prop_assert_eq!(info.parent(l), parent);
                for &b in &natural {
                    proptest::prop_assert!(info.contains(l, b));
                }
            }
        }
    }

    #[test]
    fn irreducible_is_an_error() {
        let body = graph_body("A: B C; B: C; C: B D; D:");
        let err = LoopInfo::compute(&body)
            .map(|_| ())
            .unwrap_err()
            .in_function("f");
        assert_eq!(err.candidate_names, ["B"]);
        assert_eq!(
            err.to_string(),
            "function @f has irreducible control flow: a cycle is entered at %B without being dominated by it (thesis §2.4 assumes reducible CFGs)"
        );
    }
}
