//! Greedy, DAG-aware extraction.
//!
//! Tree-cost extraction (egg's `Extractor`) counts a shared sub-term once per use, so it can
//! never prefer one merged MatMul feeding a Split over two MatMuls. Here every e-class keeps,
//! for its best e-node, the set of e-classes its term uses with each one's own price, and a
//! node's cost is its own price plus the sum over the union of its children's sets: a shared
//! class counts once. Classes are visited in id order and e-nodes in the e-class's (sorted)
//! order, and a node replaces the best only when strictly cheaper, so the same e-graph always
//! gives the same choice. No ILP: this is a heuristic that runs to a fixpoint (or a bound on
//! sweeps).

use std::collections::BTreeMap;
use std::rc::Rc;

use egg::Id;
use nart_ir::Context;

use crate::cost::{classes_sorted, Pricer};
use crate::lang::{GNode, Graph};

/// The choice for one e-class.
#[derive(Clone, Debug)]
struct Best {
    cost: f64,
    node: usize,
    used: Rc<BTreeMap<Id, f64>>,
}

/// What extraction chose.
pub struct Extraction {
    /// The chosen e-node of each e-class that has one.
    pub choice: BTreeMap<Id, GNode>,
    /// The cost of the DAG that computes all roots; `None` when the choices do not form one
    /// (a cycle, or a root without a choice).
    pub cost: Option<f64>,
}

/// Bound on sweeps over the e-graph.
const MAX_SWEEPS: usize = 64;

/// Chooses an e-node per e-class, and prices the DAG that computes `roots`.
pub fn extract(ctx: &mut Context, g: &Graph, pricer: &mut Pricer<'_>, roots: &[Id]) -> Extraction {
    let ids = classes_sorted(g);
    // Own price of every node, once.
    let mut own: BTreeMap<Id, Vec<f64>> = BTreeMap::new();
    for &id in &ids {
        let prices = g[id].nodes.iter().map(|n| pricer.node(ctx, g, n)).collect();
        own.insert(id, prices);
    }
    let mut best: BTreeMap<Id, Best> = BTreeMap::new();
    for _ in 0..MAX_SWEEPS {
        let mut changed = false;
        for &id in &ids {
            for (i, node) in g[id].nodes.iter().enumerate() {
                let Some(cand) = candidate(g, &best, id, node, own[&id][i], i) else {
                    continue;
                };
                let better = match best.get(&id) {
                    None => true,
                    Some(b) => cand.cost < b.cost * (1.0 - 1e-12) - 1e-12,
                };
                if better {
                    best.insert(id, cand);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut choice: BTreeMap<Id, (GNode, f64)> = best
        .into_iter()
        .map(|(id, b)| (id, (g[id].nodes[b.node].clone(), own[&id][b.node])))
        .collect();
    share_results(g, &ids, &own, roots, &mut choice);
    Extraction {
        cost: dag_cost(g, &choice, roots),
        choice: choice.into_iter().map(|(id, (n, _))| (id, n)).collect(),
    }
}

/// The cost of what `choice` computes for `roots`, each class once, walked from the roots (a
/// choice made early may rest on a child whose choice changed later, so the greedy sets are
/// estimates); `None` on a cycle or a class without a choice.
fn dag_cost(g: &Graph, choice: &BTreeMap<Id, (GNode, f64)>, roots: &[Id]) -> Option<f64> {
    let mut state: BTreeMap<Id, bool> = BTreeMap::new(); // false: on the stack, true: done
    let mut cost = 0.0;
    for &r in roots {
        if !walk(g, choice, g.find(r), &mut state, &mut cost) {
            return None;
        }
    }
    Some(cost)
}

/// Bound on the sweeps of [`share_results`].
const MAX_SHARE_SWEEPS: usize = 4;

/// The move greedy extraction cannot make: a multi-result op (a Split after merged MatMuls)
/// pays only when *every* class that can be one of its results takes it, while each class
/// alone sees no gain. For each multi-result class, in id order, switch all classes that hold
/// a projection of it to that projection together, and keep the switch when the whole DAG
/// gets strictly cheaper.
fn share_results(
    g: &Graph,
    ids: &[Id],
    own: &BTreeMap<Id, Vec<f64>>,
    roots: &[Id],
    choice: &mut BTreeMap<Id, (GNode, f64)>,
) {
    // Multi-result class -> the (class, node index) of its projections.
    let mut users: BTreeMap<Id, Vec<(Id, usize)>> = BTreeMap::new();
    for &id in ids {
        for (i, n) in g[id].nodes.iter().enumerate() {
            if let crate::lang::Kind::Proj(_) = n.kind {
                users
                    .entry(g.find(n.children[0]))
                    .or_default()
                    .push((id, i));
            }
        }
    }
    let Some(mut base) = dag_cost(g, choice, roots) else {
        return;
    };
    for _ in 0..MAX_SHARE_SWEEPS {
        let mut improved = false;
        for (t, list) in &users {
            if !choice.contains_key(t) {
                continue;
            }
            let saved: Vec<(Id, Option<(GNode, f64)>)> = list
                .iter()
                .map(|&(id, _)| (id, choice.get(&id).cloned()))
                .collect();
            for &(id, i) in list {
                choice.insert(id, (g[id].nodes[i].clone(), own[&id][i]));
            }
            match dag_cost(g, choice, roots) {
                Some(c) if c < base * (1.0 - 1e-12) - 1e-12 => {
                    base = c;
                    improved = true;
                }
                _ => {
                    for (id, old) in saved {
                        match old {
                            Some(o) => choice.insert(id, o),
                            None => choice.remove(&id),
                        };
                    }
                }
            }
        }
        if !improved {
            break;
        }
    }
}

/// Adds the price of every class `id`'s term uses, once each; false on a cycle or a class
/// without a choice.
fn walk(
    g: &Graph,
    choice: &BTreeMap<Id, (GNode, f64)>,
    id: Id,
    state: &mut BTreeMap<Id, bool>,
    cost: &mut f64,
) -> bool {
    match state.get(&id) {
        Some(true) => return true,
        Some(false) => return false,
        None => {}
    }
    let Some((node, price)) = choice.get(&id) else {
        return false;
    };
    state.insert(id, false);
    for &c in &node.children {
        if !walk(g, choice, g.find(c), state, cost) {
            return false;
        }
    }
    state.insert(id, true);
    *cost += price;
    true
}

fn candidate(
    g: &Graph,
    best: &BTreeMap<Id, Best>,
    id: Id,
    node: &GNode,
    own: f64,
    index: usize,
) -> Option<Best> {
    let mut used: BTreeMap<Id, f64> = BTreeMap::new();
    for &c in &node.children {
        let b = best.get(&g.find(c))?;
        if b.used.contains_key(&id) {
            return None;
        }
        if used.is_empty() {
            used = (*b.used).clone();
        } else {
            for (k, v) in b.used.iter() {
                used.entry(*k).or_insert(*v);
            }
        }
    }
    used.insert(id, own);
    let cost = used.values().sum();
    Some(Best {
        cost,
        node: index,
        used: Rc::new(used),
    })
}
