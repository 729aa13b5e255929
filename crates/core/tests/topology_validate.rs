//! Topology validation: every problem is found, reported once, and worded to name what it
//! concerns.

use trellis_core::topology::{NodeKind, Problem, Scheme, Topology, TopologyError};

fn problems(text: &str) -> Vec<Problem> {
    match Topology::from_toml(text) {
        Ok(_) => panic!("accepted:\n{text}"),
        Err(TopologyError::Invalid(problems)) => problems,
        Err(parse) => panic!("did not parse: {parse}"),
    }
}

fn messages(text: &str) -> Vec<String> {
    problems(text).iter().map(ToString::to_string).collect()
}

fn valid(text: &str) -> Topology {
    Topology::from_toml(text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn strings(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| name.to_string()).collect()
}

#[test]
fn an_empty_topology_is_refused() {
    assert_eq!(problems(""), vec![Problem::Empty]);
    assert_eq!(
        Topology::from_toml("").unwrap_err().to_string(),
        "invalid topology:\n  - the topology declares no routers and no federates"
    );
}

#[test]
fn a_lone_router_is_a_topology() {
    let topology = valid("[[router]]\nname = \"hub\"\n");
    assert_eq!(topology.nodes().len(), 1);
    assert!(topology.links().is_empty());
}

#[test]
fn an_unknown_parent_is_named_with_its_child() {
    let text = r#"
        [[router]]
        name = "hub"
        listen = ["tcp://127.0.0.1:7000"]

        [[federate]]
        name = "a"
        parent = "hbu"
    "#;
    assert_eq!(
        messages(text),
        [r#"federate "a": parent "hbu" is not a declared router or federate"#]
    );
}

#[test]
fn an_unknown_member_of_a_group_name_gets_a_hint() {
    let text = r#"
        [[federate]]
        name = "tank"
        count = 2

        [[clique]]
        name = "platoon"
        members = ["tank", "tank-2"]
    "#;
    assert_eq!(
        messages(text),
        [concat!(
            r#"clique "platoon": member "tank" is not a declared router or federate "#,
            r#"(the federates of group "tank" are named "tank-1" … "tank-2")"#
        )]
    );
}

#[test]
fn a_name_declared_twice_is_refused() {
    let text = r#"
        [[router]]
        name = "x"
        [[federate]]
        name = "x"
        parent = "x"
        [[federate]]
        name = "tank-2"
        parent = "x"
        [[federate]]
        name = "tank"
        count = 2
        parent = "x"
    "#;
    assert_eq!(
        problems(text),
        vec![
            Problem::DuplicateName {
                name: "x".into(),
                first: NodeKind::Router,
                second: NodeKind::Federate,
            },
            Problem::DuplicateName {
                name: "tank-2".into(),
                first: NodeKind::Federate,
                second: NodeKind::Federate,
            },
        ]
    );
    assert_eq!(
        problems(text)[0].to_string(),
        r#"the name "x" is declared twice: as a router and as a federate"#
    );
}

#[test]
fn two_parents_cannot_be_written() {
    // A node names its parent in one key; a second is a TOML error with its line.
    let text = "[[router]]\nname = \"a\"\nparent = \"b\"\nparent = \"c\"\n";
    let err = Topology::from_toml(text).unwrap_err();
    assert!(matches!(err, TopologyError::Parse(_)), "{err}");
    let message = err.to_string();
    assert!(message.contains("line 4"), "{message}");
    assert!(message.contains("duplicate key"), "{message}");
}

#[test]
fn an_unknown_key_in_a_link_table_is_named_with_its_line() {
    let text = "[[clique]]\nname = \"c\"\nmembers = [\"a\", \"b\"]\nlink = { pipe = \"tcp\", bundle = 5 }\n";
    let err = Topology::from_toml(text).unwrap_err().to_string();
    assert!(err.contains("line 4"), "{err}");
    assert!(err.contains("bundle"), "{err}");
}

#[test]
fn a_cycle_of_parent_links_is_refused_once() {
    let text = r#"
        [[router]]
        name = "b"
        listen = ["tcp://127.0.0.1:7001"]
        parent = "c"
        [[router]]
        name = "a"
        listen = ["tcp://127.0.0.1:7000"]
        parent = "b"
        [[router]]
        name = "c"
        listen = ["tcp://127.0.0.1:7002"]
        parent = "a"
    "#;
    assert_eq!(messages(text), ["parent links form a cycle: a → b → c → a"]);
}

#[test]
fn a_node_that_is_its_own_parent_is_a_cycle() {
    let text = "[[router]]\nname = \"a\"\nlisten = [\"tcp://127.0.0.1:7000\"]\nparent = \"a\"\n";
    assert_eq!(messages(text), ["parent links form a cycle: a → a"]);
}

#[test]
fn two_nodes_naming_each_other_as_parent_are_one_cycle() {
    let text = r#"
        [[router]]
        name = "a"
        listen = ["tcp://127.0.0.1:7000"]
        parent = "b"
        [[router]]
        name = "b"
        listen = ["tcp://127.0.0.1:7001"]
        parent = "a"
    "#;
    assert_eq!(messages(text), ["parent links form a cycle: a → b → a"]);
}

/// Federates a and b in a clique; a below router r, b below router s; r and s in a clique.
/// The four links close a square, a biconnected component without the diagonals.
const SQUARE: &str = r#"
    [[router]]
    name = "r"
    listen = ["tcp://127.0.0.1:7000"]
    [[router]]
    name = "s"
    listen = ["tcp://127.0.0.1:7001"]
    [[federate]]
    name = "a"
    parent = "r"
    [[federate]]
    name = "b"
    parent = "s"
    listen = ["tcp://127.0.0.1:7002"]
    [[clique]]
    name = "ab"
    members = ["a", "b"]
    [[clique]]
    name = "rs"
    members = ["r", "s"]
"#;

#[test]
fn a_component_that_is_not_a_clique_is_refused_with_a_missing_link() {
    assert_eq!(
        problems(SQUARE),
        vec![Problem::NotAClique {
            component: strings(&["a", "b", "r", "s"]),
            missing: ("a".into(), "s".into()),
        }]
    );
    assert_eq!(
        messages(SQUARE),
        [concat!(
            r#""a", "b", "r", "s" form a biconnected component that is not a clique: "#,
            r#""a" and "s" are not linked (every biconnected component must be a clique, "#,
            "DESIGN.md §2)"
        )]
    );
}

#[test]
fn the_square_without_one_side_is_valid() {
    valid(&SQUARE.replace("parent = \"s\"", ""));
}

/// a and b in a clique, both children of r: the graph's block {a, b, r} is a triangle, a
/// clique of the graph, but declared as three separate blocks. Router r would forward what
/// a sends to b, which already had it from a directly; b would forward what r sends it back
/// to a: messages loop. So it is refused, with the fix in the message.
const TRIANGLE_OF_THREE_DECLARATIONS: &str = r#"
    [[router]]
    name = "r"
    listen = ["tcp://127.0.0.1:7000"]
    [[federate]]
    name = "a"
    parent = "r"
    [[federate]]
    name = "b"
    parent = "r"
    listen = ["tcp://127.0.0.1:7001"]
    [[clique]]
    name = "ab"
    members = ["a", "b"]
"#;

#[test]
fn a_clique_assembled_from_separate_declarations_is_refused() {
    assert_eq!(
        problems(TRIANGLE_OF_THREE_DECLARATIONS),
        vec![Problem::SplitClique {
            component: strings(&["a", "b", "r"]),
            declarations: strings(&[
                r#"the parent link of "a""#,
                r#"the parent link of "b""#,
                r#"clique "ab""#,
            ]),
        }]
    );
    assert_eq!(
        messages(TRIANGLE_OF_THREE_DECLARATIONS),
        [concat!(
            r#""a", "b", "r" are all linked to each other, but by 3 separate declarations "#,
            r#"(the parent link of "a", the parent link of "b", clique "ab"); routers keep "#,
            "split horizon per declared clique, so messages would loop among them: declare \
             them as one clique"
        )]
    );
}

#[test]
fn the_same_triangle_declared_as_one_clique_is_valid() {
    let text = r#"
        [[router]]
        name = "r"
        listen = ["tcp://127.0.0.1:7000"]
        [[federate]]
        name = "a"
        [[federate]]
        name = "b"
        listen = ["tcp://127.0.0.1:7001"]
        [[clique]]
        name = "abr"
        members = ["a", "b", "r"]
    "#;
    let topology = valid(text);
    assert_eq!(topology.links().len(), 3);
}

/// Clique "one" and clique "two" share hub; z hangs below y of "two", f below z.
const BLOCKS_MEETING_AT_SHARED_NODES: &str = r#"
    [[router]]
    name = "hub"
    listen = ["tcp://127.0.0.1:7000"]
    [[router]]
    name = "x"
    listen = ["tcp://127.0.0.1:7001"]
    [[router]]
    name = "y"
    listen = ["tcp://127.0.0.1:7002"]
    [[router]]
    name = "z"
    listen = ["tcp://127.0.0.1:7003"]
    parent = "y"
    [[federate]]
    name = "w"
    listen = ["tcp://127.0.0.1:7004"]
    [[federate]]
    name = "f"
    parent = "z"
    [[clique]]
    name = "one"
    members = ["hub", "x"]
    [[clique]]
    name = "two"
    members = ["hub", "y", "w"]
"#;

#[test]
fn cliques_sharing_one_member_and_parent_links_form_a_valid_block_graph() {
    valid(BLOCKS_MEETING_AT_SHARED_NODES);
}

#[test]
fn joining_two_blocks_through_a_third_path_is_refused() {
    // f also joins clique "one": f, hub, y, z close a cycle, which pulls in x and w.
    let text = BLOCKS_MEETING_AT_SHARED_NODES.replace(r#"["hub", "x"]"#, r#"["hub", "x", "f"]"#);
    assert_eq!(
        problems(&text),
        vec![Problem::NotAClique {
            component: strings(&["f", "hub", "w", "x", "y", "z"]),
            missing: ("f".into(), "w".into()),
        }]
    );
}

#[test]
fn a_pair_linked_twice_is_refused() {
    let text = r#"
        [[router]]
        name = "r"
        listen = ["tcp://127.0.0.1:7000"]
        [[federate]]
        name = "a"
        parent = "r"
        [[clique]]
        name = "ar"
        members = ["a", "r"]
    "#;
    assert_eq!(
        messages(text),
        [concat!(
            r#""a" and "r" are linked twice, by the parent link of "a" and by clique "ar"; "#,
            "a second link between one pair would carry every message twice"
        )]
    );
}

#[test]
fn a_clique_needs_two_distinct_members() {
    let text = r#"
        [[federate]]
        name = "a"
        [[clique]]
        name = "alone"
        members = ["a", "a"]
    "#;
    assert_eq!(
        messages(text),
        [
            r#"clique "alone" lists "a" more than once"#,
            r#"clique "alone" has 1 member(s); a clique needs at least 2"#,
        ]
    );
}

#[test]
fn a_federate_with_no_attachment_is_named() {
    let text = r#"
        [[router]]
        name = "hub"
        listen = ["tcp://127.0.0.1:7000"]
        [[federate]]
        name = "a"
        parent = "hub"
        [[federate]]
        name = "lost"
    "#;
    assert_eq!(
        messages(text),
        [r#"federate "lost" has no attachment: give it a parent or make it a member of a clique"#]
    );
}

#[test]
fn a_topology_in_pieces_is_refused_with_the_pieces() {
    let text = r#"
        [[router]]
        name = "r1"
        listen = ["tcp://127.0.0.1:7000"]
        [[router]]
        name = "r2"
        listen = ["tcp://127.0.0.1:7001"]
        [[federate]]
        name = "b"
        parent = "r2"
        [[federate]]
        name = "a"
        parent = "r1"
    "#;
    assert_eq!(
        messages(text),
        [
            r#"the topology falls apart into 2 parts that cannot reach each other: ["a", "r1"], ["b", "r2"]"#
        ]
    );
}

#[test]
fn bad_listen_addresses_are_all_reported() {
    let text = r#"
        [[router]]
        name = "hub"
        listen = ["tcp://127.0.0.1", "memory://hub", "udp://127.0.0.1:7000", "udp://127.0.0.1:7001"]
        [[federate]]
        name = "a"
        parent = "hub"
        listen = ["127.0.0.1:7002"]
    "#;
    assert_eq!(
        messages(text),
        [
            r#"router "hub": "tcp://127.0.0.1" is not a listen address: missing :port"#,
            concat!(
                r#"router "hub": "memory://hub" is not a listen address: unknown scheme "#,
                r#""memory" (use tcp://, tls://, udp:// or mem://)"#
            ),
            concat!(
                r#"router "hub" listens on two udp:// addresses, udp://127.0.0.1:7000 and "#,
                "udp://127.0.0.1:7001; a process dialing it could not tell which to use"
            ),
            concat!(
                r#"federate "a": "127.0.0.1:7002" is not a listen address: expected "#,
                "scheme://address, e.g. tcp://127.0.0.1:7000"
            ),
        ]
    );
}

#[test]
fn a_dialed_node_must_listen_on_the_scheme_of_the_pipe() {
    let text = r#"
        [[router]]
        name = "hub"
        listen = ["tcp://127.0.0.1:7000"]
        [[router]]
        name = "quiet"
        parent = "hub"
        [[federate]]
        name = "a"
        parent = "hub"
        link = { pipe = "udp" }
        [[federate]]
        name = "tank"
        count = 3
        parent = "quiet"
    "#;
    assert_eq!(
        problems(text),
        vec![
            Problem::MissingListen {
                entry: r#"router "hub""#.into(),
                scheme: Scheme::Udp,
                links: 1,
                example: r#"the parent link of "a""#.into(),
            },
            Problem::MissingListen {
                entry: r#"router "quiet""#.into(),
                scheme: Scheme::Tcp,
                links: 3,
                example: r#"the parent link of "tank-1""#.into(),
            },
        ]
    );
    assert_eq!(
        problems(text)[1].to_string(),
        concat!(
            r#"router "quiet" has no tcp:// listen address, yet 3 link(s) dial it over tcp://, "#,
            r#"e.g. the parent link of "tank-1""#
        )
    );
}

#[test]
fn the_peer_whose_name_sorts_last_must_listen() {
    let text = r#"
        [[federate]]
        name = "b"
        [[federate]]
        name = "a"
        [[clique]]
        name = "pair"
        members = ["b", "a"]
    "#;
    assert_eq!(
        messages(text),
        [concat!(
            r#"federate "b" has no tcp:// listen address, yet 1 link(s) dial it over tcp://, "#,
            r#"e.g. the link from "a" in clique "pair""#
        )]
    );
}

#[test]
fn options_out_of_range_and_misplaced_are_refused() {
    let text = r#"
        [defaults]
        queue_limit_bytes = 0
        [[router]]
        name = "hub"
        listen = ["tcp://127.0.0.1:7000"]
        link = { bundling_delay_ms = 5 }
        [[federate]]
        name = "a"
        parent = "hub"
        link = { bundling_delay_ms = 20000, queue_limit_bytes = 2000000000 }
    "#;
    assert_eq!(
        messages(text),
        [
            "[defaults]: queue_limit_bytes = 0 is out of range (allowed: 1 to 1073741824)",
            concat!(
                r#"router "hub" sets link options but has no parent (link sets the options "#,
                "of the link to the parent)"
            ),
            r#"federate "a": bundling_delay_ms = 20000 is out of range (allowed: 0 to 10000)"#,
            concat!(
                r#"federate "a": queue_limit_bytes = 2000000000 is out of range "#,
                "(allowed: 1 to 1073741824)"
            ),
        ]
    );
}

#[test]
fn federate_groups_are_checked_once_per_group() {
    let text = r#"
        [[router]]
        name = "hub"
        listen = ["tcp://127.0.0.1:7000"]
        [[federate]]
        name = "none"
        count = 0
        parent = "hub"
        [[federate]]
        name = "tank"
        count = 4
        parent = "hbu"
        listen = ["tcp://127.0.0.1:7001"]
    "#;
    assert_eq!(
        messages(text),
        [
            r#"federate "none": count must be at least 1"#,
            concat!(
                r#"federate "tank": a group declared with count cannot have listen addresses "#,
                "(every member would claim the same ones); declare these federates one by one"
            ),
            r#"federate group "tank": parent "hbu" is not a declared router or federate"#,
        ]
    );
}

#[test]
fn bad_names_are_refused() {
    let text = r#"
        [[router]]
        name = "east hub"
        listen = ["tcp://127.0.0.1:7000"]
        [[federate]]
        name = ""
        parent = "east hub"
        [[federate]]
        name = "c"
        [[federate]]
        name = "d"
        listen = ["tcp://127.0.0.1:7001"]
        [[clique]]
        name = "a/b"
        members = ["east hub", "c"]
        [[clique]]
        name = "a/b"
        members = ["c", "d"]
    "#;
    let rule = "is not allowed: use 1 to 100 letters, digits, '-', '_' or '.'";
    assert_eq!(
        messages(text),
        [
            format!(r#"router name "east hub" {rule}"#),
            format!(r#"federate name "" {rule}"#),
            // Said once, though both cliques carry the name.
            format!(r#"clique name "a/b" {rule}"#),
            r#"two cliques are named "a/b""#.to_owned(),
        ]
    );
}

#[test]
fn unrelated_problems_are_all_reported_together() {
    let text = r#"
        [defaults]
        bundling_delay_ms = 99999
        [[router]]
        name = "r"
        listen = ["tcp://127.0.0.1:7000"]
        [[router]]
        name = "s"
        listen = ["tcp://127.0.0.1:7001", "http://x:1"]
        [[federate]]
        name = "a"
        parent = "r"
        [[federate]]
        name = "b"
        parent = "s"
        listen = ["tcp://127.0.0.1:7002"]
        [[federate]]
        name = "lost"
        [[clique]]
        name = "ab"
        members = ["a", "b"]
        [[clique]]
        name = "rs"
        members = ["r", "s"]
    "#;
    let found = problems(text);
    assert_eq!(found.len(), 4, "{found:#?}");
    assert!(matches!(found[0], Problem::OptionOutOfRange { .. }));
    assert!(matches!(found[1], Problem::BadAddress { .. }));
    assert_eq!(
        found[2],
        Problem::Unattached {
            federate: "lost".into()
        }
    );
    assert!(matches!(found[3], Problem::NotAClique { .. }));
}

#[test]
fn sizes_are_bounded() {
    let text = "[[federate]]\nname = \"swarm\"\ncount = 100001\n";
    assert_eq!(
        messages(text),
        ["the topology declares more than 100000 routers and federates"]
    );
    let members: Vec<String> = (1..=1500).map(|i| format!("\"f-{i}\"")).collect();
    let text = format!(
        "[[federate]]\nname = \"f\"\ncount = 1500\n[[clique]]\nname = \"all\"\nmembers = [{}]\n",
        members.join(", ")
    );
    assert_eq!(
        messages(&text),
        ["the topology declares 1124250 links; the limit is 1048576"]
    );
}

#[test]
fn two_listeners_on_one_port_are_refused_naming_both() {
    let text = r#"
        [[router]]
        name = "hub"
        listen = ["tcp://127.0.0.1:7000", "udp://127.0.0.1:7000"]
        [[router]]
        name = "edge"
        parent = "hub"
        listen = ["tls://127.0.0.1:7000"]
        tls_cert = "edge.pem"
        tls_key = "edge.key"
        tls_ca = "ca.pem"
        [[federate]]
        name = "a"
        parent = "hub"
        listen = ["udp://127.0.0.1:7000"]
    "#;
    assert_eq!(
        messages(text),
        [
            concat!(
                r#"router "edge" listens on tls://127.0.0.1:7000, where router "hub" listens "#,
                "already (tcp://127.0.0.1:7000): two listeners cannot share one port"
            ),
            concat!(
                r#"federate "a" listens on udp://127.0.0.1:7000, where router "hub" listens "#,
                "already (udp://127.0.0.1:7000): two listeners cannot share one port"
            ),
        ]
    );
}
