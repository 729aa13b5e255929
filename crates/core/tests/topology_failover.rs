//! Alternate parents (N+1 failover): what a file may say, what the plans give each
//! process, and the combinations of attachments that validation refuses.

use trellis_core::topology::{
    generate, GenerateOptions, LinkRole, Problem, Shape, Topology, TopologyError,
};

/// root with two mid routers; a leaf router under each; a federate under each leaf.
fn file(extra: &str) -> String {
    format!(
        r#"
[[router]]
name = "root"
listen = ["tcp://127.0.0.1:7000"]

[[router]]
name = "m1"
parent = "root"
listen = ["tcp://127.0.0.1:7001"]

[[router]]
name = "m2"
parent = "root"
listen = ["tcp://127.0.0.1:7002"]
{extra}
[[router]]
name = "l1"
parent = "m1"
alternates = ["m2"]
listen = ["tcp://127.0.0.1:7003"]

[[router]]
name = "l2"
parent = "m2"
alternates = ["m1"]
listen = ["tcp://127.0.0.1:7004"]

[[federate]]
name = "f1"
parent = "l1"
alternates = ["l2"]

[[federate]]
name = "f2"
parent = "l2"
"#
    )
}

fn problems(text: &str) -> Vec<Problem> {
    match Topology::from_toml(text) {
        Err(TopologyError::Invalid(problems)) => problems,
        other => panic!("expected an invalid topology, got {other:?}"),
    }
}

#[test]
fn a_child_dials_its_alternates_in_turn_and_they_accept_it() {
    let topology = Topology::from_toml(&file("")).unwrap();
    let dial = &topology.plan("l1").unwrap().dial[0];
    assert_eq!(dial.far, "m1");
    let alternates: Vec<(&str, String)> = dial
        .alternates
        .iter()
        .map(|a| (a.far.as_str(), a.address.to_string()))
        .collect();
    assert_eq!(alternates, vec![("m2", "tcp://127.0.0.1:7002".to_owned())]);
    let m2 = topology.plan("m2").unwrap();
    assert!(m2
        .accept
        .iter()
        .any(|a| a.far == "l1" && a.role == LinkRole::Child && a.standby));
    assert_eq!(topology.plan("f1").unwrap().dial[0].alternates[0].far, "l2");
    // The file reads back with its alternates.
    let again = Topology::from_toml(&topology.to_toml().unwrap()).unwrap();
    assert_eq!(again, topology);
}

#[test]
fn alternates_naming_nothing_the_parent_or_the_node_itself_are_refused() {
    let text = file("").replace(
        "alternates = [\"m2\"]",
        "alternates = [\"m9\", \"m1\", \"l1\", \"root\", \"root\"]",
    );
    let found: Vec<String> = problems(&text).iter().map(ToString::to_string).collect();
    for expected in [
        "router \"l1\": alternate \"m9\" is not a declared router or federate",
        "router \"l1\": alternate \"m1\" is already its parent",
        "router \"l1\": alternate \"l1\" is the node itself",
        "router \"l1\": alternate \"root\" is listed twice",
    ] {
        assert!(
            found.iter().any(|p| p == expected),
            "{expected} not in {found:#?}"
        );
    }
}

#[test]
fn an_alternate_into_the_nodes_own_subtree_is_refused() {
    // m1 failing over to l1, its own child, closes a cycle m1 → l1 → m1.
    let text = file("").replace(
        "parent = \"root\"\nlisten = [\"tcp://127.0.0.1:7001\"]",
        "parent = \"root\"\nalternates = [\"l1\"]\nlisten = [\"tcp://127.0.0.1:7001\"]",
    );
    let found = problems(&text);
    assert!(
        found
            .iter()
            .any(|p| matches!(p, Problem::FailoverInvalid { attachments, .. }
            if attachments == "\"m1\" attached to \"l1\"")),
        "{found:#?}"
    );
}

#[test]
fn two_routers_failing_over_into_each_others_subtrees_are_refused_though_each_alone_is_fine() {
    // m1 may fail over to l2 (under m2) and m2 to l1 (under m1): each alone keeps a tree;
    // both at once, with the leaves on their primaries, close m1 → l2 → m2 → l1 → m1.
    let text = file("")
        .replace(
            "parent = \"root\"\nlisten = [\"tcp://127.0.0.1:7001\"]",
            "parent = \"root\"\nalternates = [\"l2\"]\nlisten = [\"tcp://127.0.0.1:7001\"]",
        )
        .replace(
            "parent = \"root\"\nlisten = [\"tcp://127.0.0.1:7002\"]",
            "parent = \"root\"\nalternates = [\"l1\"]\nlisten = [\"tcp://127.0.0.1:7002\"]",
        );
    let found = problems(&text);
    let combined = found.iter().find_map(|p| match p {
        Problem::FailoverInvalid {
            attachments,
            problems,
        } => Some((attachments.clone(), problems.join("; "))),
        _ => None,
    });
    let (attachments, why) = combined.expect("a failing combination");
    assert!(
        attachments.contains("\"m1\" attached to \"l2\""),
        "{attachments}"
    );
    assert!(
        attachments.contains("\"m2\" attached to \"l1\""),
        "{attachments}"
    );
    assert!(why.contains("cycle"), "{why}");
}

#[test]
fn an_alternate_that_does_not_listen_for_the_pipe_is_refused() {
    // f2 listens nowhere: f1 could not dial it.
    let text = file("").replace("alternates = [\"l2\"]", "alternates = [\"f2\"]");
    let found: Vec<String> = problems(&text).iter().map(ToString::to_string).collect();
    assert!(
        found
            .iter()
            .any(|p| p.contains("\"f1\" attached to \"f2\"") && p.contains("tcp://")),
        "{found:#?}"
    );
}

#[test]
fn generated_trees_and_meshes_with_alternates_are_valid_and_fail_over_sideways() {
    let options = GenerateOptions {
        alternates: true,
        ..GenerateOptions::default()
    };
    let tree = generate(
        &Shape::Tree {
            fanout: 2,
            levels: 3,
            federates: 1,
        },
        &options,
    )
    .unwrap();
    let leaf = tree.plan("root.1.1").unwrap();
    assert_eq!(leaf.dial[0].far, "root.1");
    assert_eq!(leaf.dial[0].alternates[0].far, "root.2");
    let federate = tree.plan("fed-1").unwrap();
    assert_eq!(federate.dial[0].far, "root.1.1");
    assert_eq!(federate.dial[0].alternates[0].far, "root.1.2");
    let mesh = generate(
        &Shape::Mesh {
            routers: 3,
            federates: 2,
        },
        &options,
    )
    .unwrap();
    let federate = mesh.plan("fed-1").unwrap();
    assert_eq!(federate.dial[0].far, "r1");
    assert_eq!(federate.dial[0].alternates[0].far, "r2");
    // A tree too big to check every combination of its routers still generates: routers
    // take alternates only while the combinations stay checkable.
    let big = generate(
        &Shape::Tree {
            fanout: 4,
            levels: 4,
            federates: 1,
        },
        &options,
    )
    .unwrap();
    let with = big.routers().filter(|r| !r.alternates.is_empty()).count();
    assert!((1..=10).contains(&with), "{with} routers with alternates");
    assert!(big.federates().all(|f| !f.alternates.is_empty()));
}
