//! The example files in `topologies/`: each is valid, reads back from the TOML it writes, and
//! the generated ones still match what the generator writes today.

use std::path::PathBuf;
use trellis_core::topology::{generate, GenerateOptions, NodeKind, Shape, Topology};

fn read(name: &str) -> Topology {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), "..", "..", "topologies", name]
        .iter()
        .collect();
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    Topology::from_toml(&text).unwrap_or_else(|e| panic!("{path:?}: {e}"))
}

#[test]
fn generated_examples_match_the_generator() {
    let files = [
        (
            "tree.toml",
            Shape::Tree {
                fanout: 2,
                levels: 3,
                federates: 2,
            },
        ),
        (
            "mesh.toml",
            Shape::Mesh {
                routers: 3,
                federates: 2,
            },
        ),
        ("centralized.toml", Shape::Centralized { federates: 4 }),
        ("collocated.toml", Shape::Collocated { federates: 4 }),
        (
            "hierarchical.toml",
            Shape::Hierarchical {
                segments: 3,
                federates: 2,
            },
        ),
    ];
    for (file, shape) in files {
        let generated = generate(&shape, &GenerateOptions::default()).unwrap();
        assert_eq!(read(file), generated, "{file}");
    }
}

#[test]
fn the_hand_written_example_reads_as_documented() {
    let example = read("example.toml");
    let kinds: Vec<(&str, NodeKind)> = example
        .nodes()
        .iter()
        .map(|node| (node.name.as_str(), node.kind))
        .collect();
    assert_eq!(
        kinds,
        [
            ("east", NodeKind::Router),
            ("west", NodeKind::Router),
            ("radar", NodeKind::Federate),
            ("tank-1", NodeKind::Federate),
            ("tank-2", NodeKind::Federate),
            ("tank-3", NodeKind::Federate),
        ]
    );
    assert_eq!(example.links().len(), 5);
    let back = Topology::from_toml(&example.to_toml().unwrap()).unwrap();
    assert_eq!(back, example);
}
