//! Biconnected components (blocks) of an undirected simple graph, by Hopcroft–Tarjan.
//!
//! Iterative rather than recursive: a topology file may describe a chain of many thousand
//! routers, and recursion that deep would overflow the stack.

/// The blocks of the graph on `node_count` nodes with these edges, each block as the indices
/// of its edges. Every edge lies in exactly one block; isolated nodes lie in none.
pub(super) fn blocks(node_count: usize, edges: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut adjacent: Vec<Vec<(usize, usize)>> = vec![Vec::new(); node_count];
    for (edge, &(a, b)) in edges.iter().enumerate() {
        adjacent[a].push((b, edge));
        adjacent[b].push((a, edge));
    }
    const UNSEEN: usize = usize::MAX;
    let mut discovered = vec![UNSEEN; node_count];
    let mut low = vec![0; node_count];
    let mut clock = 0;
    let mut edge_stack: Vec<usize> = Vec::new();
    let mut found = Vec::new();

    struct Frame {
        node: usize,
        /// The tree edge we arrived by; not to be taken back as a back edge.
        via: Option<usize>,
        next: usize,
    }

    for root in 0..node_count {
        if discovered[root] != UNSEEN {
            continue;
        }
        discovered[root] = clock;
        low[root] = clock;
        clock += 1;
        let mut path = vec![Frame {
            node: root,
            via: None,
            next: 0,
        }];
        while let Some(frame) = path.last_mut() {
            let node = frame.node;
            if let Some(&(far, edge)) = adjacent[node].get(frame.next) {
                frame.next += 1;
                if Some(edge) == frame.via {
                    continue;
                }
                if discovered[far] == UNSEEN {
                    edge_stack.push(edge);
                    discovered[far] = clock;
                    low[far] = clock;
                    clock += 1;
                    path.push(Frame {
                        node: far,
                        via: Some(edge),
                        next: 0,
                    });
                } else if discovered[far] < discovered[node] {
                    // A back edge to an ancestor; seen from the ancestor's side it is skipped
                    // below, so each edge is stacked once.
                    edge_stack.push(edge);
                    low[node] = low[node].min(discovered[far]);
                }
                continue;
            }
            let via = frame.via;
            path.pop();
            let (Some(parent), Some(via)) = (path.last().map(|frame| frame.node), via) else {
                continue;
            };
            low[parent] = low[parent].min(low[node]);
            if low[node] >= discovered[parent] {
                // `parent` separates everything stacked since `via` from the rest.
                let mut block = Vec::new();
                while let Some(edge) = edge_stack.pop() {
                    block.push(edge);
                    if edge == via {
                        break;
                    }
                }
                found.push(block);
            }
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sorted(mut found: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
        for block in &mut found {
            block.sort_unstable();
        }
        found.sort();
        found
    }

    #[test]
    fn a_path_is_one_block_per_edge() {
        let edges = [(0, 1), (1, 2), (2, 3)];
        assert_eq!(sorted(blocks(4, &edges)), vec![vec![0], vec![1], vec![2]]);
    }

    #[test]
    fn two_triangles_sharing_a_node_are_two_blocks() {
        let edges = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2)];
        assert_eq!(
            sorted(blocks(5, &edges)),
            vec![vec![0, 1, 2], vec![3, 4, 5]]
        );
    }

    #[test]
    fn a_square_with_a_tail_and_an_isolated_node() {
        let edges = [(0, 1), (1, 2), (2, 3), (3, 0), (3, 4)];
        assert_eq!(sorted(blocks(6, &edges)), vec![vec![0, 1, 2, 3], vec![4]]);
    }

    #[test]
    fn a_long_chain_does_not_overflow_the_stack() {
        let edges: Vec<(usize, usize)> = (0..200_000).map(|i| (i, i + 1)).collect();
        assert_eq!(blocks(200_001, &edges).len(), 200_000);
    }
}
