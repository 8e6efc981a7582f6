//! Forming segments: the maximal connected groups of ops placed on one target whose contraction
//! keeps the graph acyclic.
//!
//! The graph's nodes are numbered in a topological order (a function's block order); every
//! node has a colour (its target). Segments start as single nodes and merge along edges whose
//! ends have the same colour, as long as no path leads from one to the other through a third
//! segment: merging two segments with such a path between them would put a cycle in the
//! contracted graph (the third segment would need the first one's results and feed the
//! second). The check runs on the contracted graph itself, not on nodes, because a segment
//! is connected but not convex: a path may enter a segment at one node and leave it from
//! another.
//!
//! Sweeps over every same-coloured edge repeat until one merges nothing, so at the end no
//! two adjacent segments of one colour can merge (a merge refused early can become possible
//! once a segment in between has merged into one of the two ends). Each merge check is a
//! depth-first search of the contracted graph: O(segments + edges) per check.

use std::collections::BTreeSet;

/// A directed acyclic graph whose nodes are numbered in topological order.
#[derive(Clone, Debug, Default)]
pub struct Dag {
    /// The predecessors of each node (each smaller than the node).
    pub preds: Vec<Vec<usize>>,
}

impl Dag {
    /// The number of nodes.
    pub fn len(&self) -> usize {
        self.preds.len()
    }

    /// Whether there are no nodes.
    pub fn is_empty(&self) -> bool {
        self.preds.is_empty()
    }

    /// The successors of each node.
    pub fn succs(&self) -> Vec<Vec<usize>> {
        let mut succs = vec![Vec::new(); self.len()];
        for (v, ps) in self.preds.iter().enumerate() {
            for &p in ps {
                succs[p].push(v);
            }
        }
        succs
    }
}

/// The contracted graph while segments merge: union-find over nodes, with the edges between
/// current segments kept at each segment's representative.
struct Contraction {
    parent: Vec<usize>,
    succs: Vec<BTreeSet<usize>>,
    preds: Vec<BTreeSet<usize>>,
    seen: Vec<u32>,
    stamp: u32,
}

impl Contraction {
    fn new(dag: &Dag) -> Contraction {
        let n = dag.len();
        let mut succs = vec![BTreeSet::new(); n];
        let mut preds = vec![BTreeSet::new(); n];
        for (v, ps) in dag.preds.iter().enumerate() {
            for &p in ps {
                succs[p].insert(v);
                preds[v].insert(p);
            }
        }
        Contraction {
            parent: (0..n).collect(),
            succs,
            preds,
            seen: vec![0; n],
            stamp: 0,
        }
    }

    fn find(&mut self, mut v: usize) -> usize {
        while self.parent[v] != v {
            self.parent[v] = self.parent[self.parent[v]];
            v = self.parent[v];
        }
        v
    }

    /// The current segments directly after segment `a`.
    fn succ_segments(&mut self, a: usize) -> Vec<usize> {
        let raw: Vec<usize> = self.succs[a].iter().copied().collect();
        let mut out: Vec<usize> = raw.into_iter().map(|s| self.find(s)).collect();
        out.sort_unstable();
        out.dedup();
        out.retain(|&s| s != a);
        out
    }

    /// Whether a path of two or more edges leads from segment `from` to segment `to`.
    fn long_path(&mut self, from: usize, to: usize) -> bool {
        self.stamp += 1;
        let stamp = self.stamp;
        let mut stack: Vec<usize> = self
            .succ_segments(from)
            .into_iter()
            .filter(|&s| s != to)
            .collect();
        while let Some(s) = stack.pop() {
            if self.seen[s] == stamp {
                continue;
            }
            self.seen[s] = stamp;
            for t in self.succ_segments(s) {
                if t == to {
                    return true;
                }
                if self.seen[t] != stamp {
                    stack.push(t);
                }
            }
        }
        false
    }

    /// Merges segments `a` and `b` unless that would make the contracted graph cyclic.
    fn try_merge(&mut self, a: usize, b: usize) -> bool {
        if a == b || self.long_path(a, b) || self.long_path(b, a) {
            return false;
        }
        let (keep, gone) = if a < b { (a, b) } else { (b, a) };
        self.parent[gone] = keep;
        let succs = std::mem::take(&mut self.succs[gone]);
        let preds = std::mem::take(&mut self.preds[gone]);
        self.succs[keep].extend(succs);
        self.preds[keep].extend(preds);
        true
    }
}

/// Groups the nodes of `dag` into segments: each node's segment number, numbering segments in
/// a topological order of the contracted graph (ties broken by their smallest node).
///
/// `colour[v]` is node `v`'s colour; only nodes of one colour share a segment.
pub fn form_segments(dag: &Dag, colour: &[usize]) -> Vec<usize> {
    let n = dag.len();
    let mut c = Contraction::new(dag);
    loop {
        let mut merged = false;
        for v in 0..n {
            for &p in &dag.preds[v] {
                if colour[p] != colour[v] {
                    continue;
                }
                let (a, b) = (c.find(p), c.find(v));
                if a != b && c.try_merge(a, b) {
                    merged = true;
                }
            }
        }
        if !merged {
            break;
        }
    }
    // Number the segments in topological order (Kahn's algorithm, smallest representative
    // first; a representative is its segment's smallest node).
    let roots: Vec<usize> = (0..n).map(|v| c.find(v)).collect();
    let mut indegree = vec![0usize; n];
    let mut succ_of = vec![Vec::new(); n];
    for v in 0..n {
        if roots[v] == v {
            let succs = c.succ_segments(v);
            for &s in &succs {
                indegree[s] += 1;
            }
            succ_of[v] = succs;
        }
    }
    let mut ready: BTreeSet<usize> = (0..n)
        .filter(|&v| roots[v] == v && indegree[v] == 0)
        .collect();
    let mut number = vec![usize::MAX; n];
    let mut next = 0;
    while let Some(r) = ready.pop_first() {
        number[r] = next;
        next += 1;
        for &s in &succ_of[r] {
            indegree[s] -= 1;
            if indegree[s] == 0 {
                ready.insert(s);
            }
        }
    }
    roots
        .iter()
        .map(|&r| {
            debug_assert!(
                number[r] != usize::MAX,
                "invariant: the contracted graph is acyclic"
            );
            number[r]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dag(edges: &[(usize, usize)], n: usize) -> Dag {
        let mut preds = vec![Vec::new(); n];
        for &(a, b) in edges {
            preds[b].push(a);
        }
        Dag { preds }
    }

    #[test]
    fn a_chain_of_one_colour_is_one_segment() {
        let d = dag(&[(0, 1), (1, 2)], 3);
        assert_eq!(form_segments(&d, &[0, 0, 0]), [0, 0, 0]);
    }

    #[test]
    fn an_op_in_between_keeps_its_ends_apart() {
        // 0 -> 1 -> 2 and 0 -> 2, with 1 elsewhere: 0 and 2 cannot merge.
        let d = dag(&[(0, 1), (1, 2), (0, 2)], 3);
        assert_eq!(form_segments(&d, &[0, 1, 0]), [0, 1, 2]);
    }

    #[test]
    fn paths_through_a_non_convex_segment_count() {
        // Segment X = {1, 2, 3} is connected through 3 (1 -> 3 <- 2) but 1 does not reach 2.
        // Node 0 feeds 2 and node 1 feeds 4; merging 0 and 4 (same colour, edge 0 -> 4) would
        // make 0+4 -> X -> 0+4 a cycle although no node path leaves 0+4 and comes back.
        let d = dag(&[(0, 2), (1, 3), (2, 3), (1, 4), (0, 4)], 5);
        let seg = form_segments(&d, &[0, 1, 1, 1, 0]);
        assert_eq!(seg[1], seg[2]);
        assert_eq!(seg[2], seg[3]);
        assert_ne!(seg[0], seg[4]);
    }

    #[test]
    fn ends_of_a_detour_stay_apart() {
        // 0 -> 1 -> 2 -> 3 and 0 -> 3, colours a b a a: 2 and 3 merge; 0 cannot join them, since
        // 1 lies on a path between.
        let d = dag(&[(0, 1), (1, 2), (2, 3), (0, 3)], 4);
        assert_eq!(form_segments(&d, &[0, 1, 0, 0]), [0, 1, 2, 2]);
    }

    #[test]
    fn segments_are_numbered_in_topological_order() {
        // Two independent chains of different colours, then a join.
        let d = dag(&[(0, 2), (1, 3), (2, 4), (3, 4)], 5);
        let seg = form_segments(&d, &[1, 0, 1, 0, 2]);
        assert_eq!(seg, [0, 1, 0, 1, 2]);
    }
}
