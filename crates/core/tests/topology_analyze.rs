//! What `trellis topology check` reports, against counts worked out by hand and the JESPP
//! paper's Table 1 (tree 2/6/8 links, mesh 2/3/3).

use std::collections::BTreeMap;
use trellis_core::topology::{generate, GenerateOptions, Shape, Summary, Topology};

fn summary(shape: Shape) -> Summary {
    generate(&shape, &GenerateOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .summary()
}

fn histogram(pairs: &[(usize, u64)]) -> BTreeMap<usize, u64> {
    pairs.iter().copied().collect()
}

#[test]
fn a_small_tree_counted_by_hand() {
    // root over leaf routers root.1 and root.2, two federates under each. Under one leaf
    // router: 1 pair per leaf, 2 links (up, down). Across: 2 x 2 pairs, 4 links.
    let summary = summary(Shape::Tree {
        fanout: 2,
        levels: 2,
        federates: 2,
    });
    assert_eq!(summary.routers, 3);
    assert_eq!(summary.federates, 4);
    assert_eq!(summary.cliques, 0);
    assert_eq!(summary.links, 6);
    assert_eq!(summary.depth, 2);
    assert_eq!(summary.links_histogram, histogram(&[(2, 2), (4, 4)]));
}

#[test]
fn the_jespp_tree_has_2_6_and_8_link_paths() {
    // Levels 4: three router levels above the 8 leaf routers, 2 federates on each.
    // h = 0: 8 leaves x 1 pair; h = 1: 4 routers join 2 x 2; h = 2: 2 routers join 4 x 4;
    // h = 3: the root joins 8 x 8. A message crosses 2 + 2h links.
    let summary = summary(Shape::Tree {
        fanout: 2,
        levels: 4,
        federates: 2,
    });
    assert_eq!(summary.routers, 15);
    assert_eq!(summary.federates, 16);
    assert_eq!(summary.depth, 4);
    assert_eq!(
        summary.links_histogram,
        histogram(&[(2, 8), (4, 16), (6, 32), (8, 64)])
    );
    // Table 1's tree row: 0-hop 2, 2-hop 6, 3-hop 8.
    for (hops, links) in [(0, 2), (2, 6), (3, 8)] {
        assert_eq!(2 + 2 * hops, links);
        assert!(summary.links_histogram.contains_key(&links));
    }
}

#[test]
fn trees_follow_two_plus_two_h() {
    for (fanout, levels, federates) in [(3, 3, 2), (2, 5, 1), (4, 2, 3), (1, 4, 2)] {
        let summary = summary(Shape::Tree {
            fanout,
            levels,
            federates,
        });
        let leaves = fanout.pow(levels as u32 - 1) as u64;
        let (fanout, federates) = (fanout as u64, federates as u64);
        let mut expected = BTreeMap::new();
        expected.insert(2, leaves * federates * (federates - 1) / 2);
        for h in 1..levels as u32 {
            let ancestors = fanout.pow(levels as u32 - 1 - h);
            let per_subtree = fanout.pow(h - 1) * federates;
            let pairs = ancestors * fanout * (fanout - 1) / 2 * per_subtree * per_subtree;
            expected.insert(2 + 2 * h as usize, pairs);
        }
        expected.retain(|_, pairs| *pairs > 0);
        assert_eq!(
            summary.links_histogram, expected,
            "fanout {fanout} levels {levels}"
        );
        assert_eq!(summary.depth, levels);
    }
}

#[test]
fn the_jespp_mesh_has_2_and_3_link_paths() {
    // 3 routers x 2 federates: 3 pairs under one router (2 links), 12 across (3 links).
    let summary = summary(Shape::Mesh {
        routers: 3,
        federates: 2,
    });
    assert_eq!(summary.routers, 3);
    assert_eq!(summary.cliques, 1);
    assert_eq!(summary.links, 3 + 6);
    assert_eq!(summary.depth, 1);
    assert_eq!(summary.links_histogram, histogram(&[(2, 3), (3, 12)]));
}

#[test]
fn the_papers_other_shapes_counted_by_hand() {
    let cases = [
        // Every pair through the hub.
        (Shape::Centralized { federates: 4 }, vec![(2, 6)], 1),
        // Every pair linked directly.
        (Shape::Collocated { federates: 4 }, vec![(1, 6)], 0),
        // Within a segment 1 link (2 pairs); across, federate-distributor-distributor-
        // federate, 3 links (2 x 2 pairs).
        (
            Shape::Hierarchical {
                segments: 2,
                federates: 2,
            },
            vec![(1, 2), (3, 4)],
            1,
        ),
        // Federate, its distributor, the other's distributor, the other federate.
        (
            Shape::DistributorPerFederate { federates: 3 },
            vec![(3, 3)],
            1,
        ),
        // Two trees of root + 2 leaves, 1 federate per leaf: in one tree 4 links (2
        // pairs), across trees leaf-root-root-leaf plus the two federate links, 5 (4 pairs).
        (
            Shape::MeshOfTrees {
                roots: 2,
                fanout: 2,
                levels: 2,
                federates: 1,
            },
            vec![(4, 2), (5, 4)],
            2,
        ),
        // Mesh r1 r2 r3; r1 heads mesh r1 r1.1 r1.2. Federates on r2, r3, r1.1, r1.2: within
        // a mesh 3 links (2 pairs), between meshes through r1, 4 links (4 pairs).
        (
            Shape::TreeOfMeshes {
                routers: 3,
                fanout: 1,
                levels: 2,
                federates: 1,
            },
            vec![(3, 2), (4, 4)],
            1,
        ),
    ];
    for (shape, expected, depth) in cases {
        let name = shape.name();
        let summary = summary(shape);
        assert_eq!(summary.links_histogram, histogram(&expected), "{name}");
        assert_eq!(summary.depth, depth, "{name}");
    }
}

#[test]
fn federates_below_federates_and_in_cliques_are_counted() {
    // boss is a child of r and the parent of minion; solo is a child of r; peer shares a
    // clique with r and boss.
    let text = r#"
        [[router]]
        name = "r"
        listen = ["tcp://127.0.0.1:7000"]
        [[federate]]
        name = "boss"
        parent = "r"
        listen = ["tcp://127.0.0.1:7001"]
        [[federate]]
        name = "minion"
        parent = "boss"
        [[federate]]
        name = "solo"
        parent = "r"
        [[federate]]
        name = "peer"
        listen = ["tcp://127.0.0.1:7002"]
        [[clique]]
        name = "side"
        members = ["r", "peer"]
    "#;
    let summary = Topology::from_toml(text).unwrap().summary();
    // boss-minion 1; boss-solo 2, boss-peer 2, solo-peer 2; minion-solo 3, minion-peer 3.
    assert_eq!(
        summary.links_histogram,
        histogram(&[(1, 1), (2, 3), (3, 2)])
    );
    assert_eq!(summary.depth, 1);
}

#[test]
fn one_federate_has_no_pairs() {
    let summary = summary(Shape::Centralized { federates: 1 });
    assert!(summary.links_histogram.is_empty());
    assert!(summary
        .to_string()
        .ends_with("no two federates to send between\n"));
}

#[test]
fn the_summary_reads_as_text() {
    let summary = summary(Shape::Hierarchical {
        segments: 2,
        federates: 2,
    });
    assert_eq!(
        summary.to_string(),
        "routers    2\n\
         federates  4\n\
         cliques    3\n\
         links      7\n\
         depth      1 (routers on the longest chain of parent links)\n\
         links a message crosses between two federates:\n    \
         1 link          2 pairs\n    \
         3 links         4 pairs\n"
    );
}

#[test]
fn the_histogram_serialises_with_string_keys_in_numeric_order() {
    let summary = summary(Shape::Tree {
        fanout: 2,
        levels: 5,
        federates: 1,
    });
    let text = toml::to_string(&summary).unwrap();
    let table: toml::Table = toml::from_str(&text).unwrap();
    let histogram = table["links_histogram"].as_table().unwrap();
    assert_eq!(histogram["4"].as_integer(), Some(8));
    assert_eq!(histogram["10"].as_integer(), Some(64));
    let position = |key: &str| text.find(&format!("\n{key} = ")).unwrap();
    assert!(position("8") < position("10"), "{text}");
    assert_eq!(table["depth"].as_integer(), Some(5));
}
