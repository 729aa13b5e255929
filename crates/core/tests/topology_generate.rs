//! Generated topologies: their structure, addresses, limits, and their TOML round trip.

use trellis_core::topology::{
    generate, GenerateError, GenerateOptions, Pipe, Problem, Shape, Topology, TopologyError,
};

fn every_shape() -> Vec<Shape> {
    vec![
        Shape::Centralized { federates: 5 },
        Shape::Collocated { federates: 4 },
        Shape::Tree {
            fanout: 3,
            levels: 3,
            federates: 2,
        },
        Shape::Mesh {
            routers: 4,
            federates: 2,
        },
        Shape::Hierarchical {
            segments: 3,
            federates: 3,
        },
        Shape::DistributorPerFederate { federates: 4 },
        Shape::MeshOfTrees {
            roots: 3,
            fanout: 2,
            levels: 3,
            federates: 1,
        },
        Shape::TreeOfMeshes {
            routers: 4,
            fanout: 2,
            levels: 3,
            federates: 2,
        },
    ]
}

fn names(topology: &Topology) -> Vec<&str> {
    topology.nodes().iter().map(|n| n.name.as_str()).collect()
}

#[test]
fn every_shape_reads_back_from_the_toml_it_writes() {
    for pipe in [Pipe::Tcp, Pipe::Udp, Pipe::Memory] {
        let options = GenerateOptions {
            pipe,
            bundling_delay_ms: Some(5),
            ..GenerateOptions::default()
        };
        for shape in every_shape() {
            let topology = generate(&shape, &options).unwrap_or_else(|e| panic!("{e}"));
            let text = topology.to_toml().unwrap();
            let back = Topology::from_toml(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
            assert_eq!(back, topology, "{} over {pipe}", shape.name());
        }
    }
}

#[test]
fn sizes_of_each_shape() {
    let count = |shape: Shape| {
        let topology = generate(&shape, &GenerateOptions::default()).unwrap();
        let summary = topology.summary();
        (summary.routers, summary.federates, summary.cliques)
    };
    let shapes = every_shape();
    let expected = [
        (1, 5, 0),
        (0, 4, 1),
        (1 + 3 + 9, 9 * 2, 0),
        (4, 8, 1),
        (3, 9, 4),
        (4, 4, 1),
        (3 * 7, 3 * 4, 1),
        // Top mesh r1-r4; r1 and r2 head meshes of 3 new routers each, whose first two
        // routers head meshes of 3 more: 4 + 2*3 + 4*3 routers, 1 + 2 + 4 cliques.
        // Federates on the routers heading nothing: r3, r4, one per second-level mesh,
        // and all 12 of the third level: 2 * (2 + 2 + 12).
        (22, 32, 7),
    ];
    for (shape, expected) in shapes.into_iter().zip(expected) {
        let name = shape.name();
        assert_eq!(count(shape), expected, "{name}");
    }
}

#[test]
fn names_follow_the_structure() {
    let tree = generate(
        &Shape::Tree {
            fanout: 2,
            levels: 3,
            federates: 1,
        },
        &GenerateOptions::default(),
    )
    .unwrap();
    assert_eq!(
        names(&tree),
        [
            "root", "root.1", "root.2", "root.1.1", "root.1.2", "root.2.1", "root.2.2", "fed-1",
            "fed-2", "fed-3", "fed-4"
        ]
    );
    let parent = |name: &str| {
        let node = tree.node(name).unwrap();
        tree.nodes()[node.parent.as_ref().unwrap().node]
            .name
            .clone()
    };
    assert_eq!(parent("root.2.1"), "root.2");
    assert_eq!(parent("fed-3"), "root.2.1");

    let meshes = generate(
        &Shape::TreeOfMeshes {
            routers: 3,
            fanout: 1,
            levels: 2,
            federates: 1,
        },
        &GenerateOptions::default(),
    )
    .unwrap();
    let cliques: Vec<(&str, Vec<&str>)> = meshes
        .cliques()
        .iter()
        .map(|clique| {
            let members = clique.members.iter().map(|&m| names(&meshes)[m]).collect();
            (clique.name.as_str(), members)
        })
        .collect();
    assert_eq!(
        cliques,
        [
            ("mesh", vec!["r1", "r2", "r3"]),
            ("mesh-r1", vec!["r1", "r1.1", "r1.2"])
        ]
    );
}

#[test]
fn routers_and_dialed_federates_get_ports_from_the_base() {
    let options = GenerateOptions {
        base_port: 9000,
        pipe: Pipe::Udp,
        ..GenerateOptions::default()
    };
    let segments = generate(
        &Shape::Hierarchical {
            segments: 2,
            federates: 1,
        },
        &options,
    )
    .unwrap();
    let listen: Vec<(&str, Vec<String>)> = segments
        .nodes()
        .iter()
        .map(|node| {
            let addresses = node.listen.iter().map(ToString::to_string).collect();
            (node.name.as_str(), addresses)
        })
        .collect();
    let both = |port: u16| {
        vec![
            format!("tcp://127.0.0.1:{port}"),
            format!("udp://127.0.0.1:{port}"),
        ]
    };
    // d1 sorts before fed-1, so it dials and fed-1 must listen.
    assert_eq!(
        listen,
        [
            ("d1", both(9000)),
            ("d2", both(9001)),
            ("fed-1", both(9002)),
            ("fed-2", both(9003)),
        ]
    );

    // Children of a router are never dialed: they get no address.
    let star = generate(
        &Shape::Centralized { federates: 2 },
        &GenerateOptions::default(),
    )
    .unwrap();
    assert!(star.federates().all(|federate| federate.listen.is_empty()));
    assert_eq!(
        star.nodes()[0].listen[0].to_string(),
        "tcp://127.0.0.1:7000"
    );
}

#[test]
fn one_level_of_meshes_is_a_mesh_and_one_segment_needs_no_top_clique() {
    let mesh = |shape| generate(&shape, &GenerateOptions::default()).unwrap();
    assert_eq!(
        mesh(Shape::TreeOfMeshes {
            routers: 3,
            fanout: 0,
            levels: 1,
            federates: 2
        }),
        mesh(Shape::Mesh {
            routers: 3,
            federates: 2
        })
    );
    let one_segment = mesh(Shape::Hierarchical {
        segments: 1,
        federates: 3,
    });
    assert_eq!(one_segment.cliques().len(), 1);
}

#[test]
fn sizes_too_small_say_what_is_missing() {
    let cases = [
        (
            Shape::Collocated { federates: 1 },
            "collocated: federates must be at least 2, got 1",
        ),
        (
            Shape::Mesh {
                routers: 1,
                federates: 4,
            },
            "mesh: routers must be at least 2, got 1",
        ),
        (
            Shape::Tree {
                fanout: 0,
                levels: 3,
                federates: 1,
            },
            "tree: fanout must be at least 1, got 0",
        ),
        (
            Shape::Hierarchical {
                segments: 2,
                federates: 0,
            },
            "hierarchical: federates must be at least 1, got 0",
        ),
        (
            Shape::DistributorPerFederate { federates: 1 },
            "distributor-per-federate: federates must be at least 2, got 1",
        ),
        (
            Shape::MeshOfTrees {
                roots: 1,
                fanout: 2,
                levels: 2,
                federates: 1,
            },
            "mesh-of-trees: roots must be at least 2, got 1",
        ),
        (
            Shape::TreeOfMeshes {
                routers: 3,
                fanout: 3,
                levels: 2,
                federates: 1,
            },
            "tree-of-meshes: a fanout of 3 needs meshes of at least 4 routers, got 3",
        ),
    ];
    for (shape, message) in cases {
        let err = generate(&shape, &GenerateOptions::default()).unwrap_err();
        assert_eq!(err.to_string(), message);
    }
}

#[test]
fn shapes_too_large_stop_early() {
    let err = generate(
        &Shape::Tree {
            fanout: 1000,
            levels: 1000,
            federates: 1000,
        },
        &GenerateOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(err, GenerateError::TooLarge { .. }));
    assert_eq!(
        err.to_string(),
        "tree would have more than 100000 routers and federates"
    );
}

#[test]
fn ports_past_65535_are_refused() {
    let options = GenerateOptions {
        base_port: 65530,
        ..GenerateOptions::default()
    };
    let shape = Shape::Mesh {
        routers: 10,
        federates: 1,
    };
    assert_eq!(
        generate(&shape, &options).unwrap_err().to_string(),
        "10 listening processes need ports 65530 to 65539, past 65535"
    );
    // The memory pipe needs no ports.
    let memory = GenerateOptions {
        pipe: Pipe::Memory,
        ..options
    };
    assert!(generate(&shape, &memory).is_ok());
}

#[test]
fn options_out_of_range_are_refused_by_validation() {
    let options = GenerateOptions {
        bundling_delay_ms: Some(60_000),
        ..GenerateOptions::default()
    };
    let err = generate(&Shape::Centralized { federates: 2 }, &options).unwrap_err();
    let GenerateError::Invalid(TopologyError::Invalid(problems)) = &err else {
        panic!("{err}");
    };
    assert!(matches!(
        problems.as_slice(),
        [Problem::OptionOutOfRange { value: 60_000, .. }]
    ));
}
