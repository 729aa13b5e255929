//! Per-process plans: who dials whom, where, with which options.

use trellis_core::topology::{
    generate, Accept, Dial, GenerateOptions, LinkOptions, LinkRole, NodeKind, NodePlan, Pipe,
    Shape, Topology, UnknownNode,
};

fn tcp(port: u16) -> trellis_core::topology::ListenAddress {
    format!("tcp://127.0.0.1:{port}").parse().unwrap()
}

fn default_options() -> LinkOptions {
    LinkOptions {
        pipe: Pipe::Tcp,
        bundling_delay_ms: 0,
        queue_limit_bytes: 4 << 20,
    }
}

fn tree() -> Topology {
    generate(
        &Shape::Tree {
            fanout: 2,
            levels: 2,
            federates: 2,
        },
        &GenerateOptions::default(),
    )
    .unwrap()
}

#[test]
fn a_federate_dials_its_router() {
    // Routers root, root.1, root.2 listen on 7000-7002; fed-1 and fed-2 hang off root.1.
    assert_eq!(
        tree().attachment("fed-2").unwrap(),
        vec![Dial {
            far: "root.1".into(),
            role: LinkRole::Parent,
            clique: None,
            address: tcp(7001),
            udp: None,
            options: default_options(),
            alternates: vec![],
        }]
    );
}

#[test]
fn a_router_dials_its_parent_and_accepts_its_children() {
    let accept = |far: &str| Accept {
        far: far.into(),
        role: LinkRole::Child,
        clique: None,
        options: default_options(),
        standby: false,
    };
    assert_eq!(
        tree().plan("root.2").unwrap(),
        NodePlan {
            name: "root.2".into(),
            kind: NodeKind::Router,
            listen: vec![tcp(7002)],
            dial: vec![Dial {
                far: "root".into(),
                role: LinkRole::Parent,
                clique: None,
                address: tcp(7000),
                udp: None,
                options: default_options(),
                alternates: vec![],
            }],
            accept: vec![accept("fed-3"), accept("fed-4")],
            hosts_registry: false,
            metrics: None,
            tls: None,
        }
    );
    assert!(
        tree().plan("root").unwrap().hosts_registry,
        "the root holds the registry"
    );
}

#[test]
fn of_two_peers_the_name_sorting_first_dials() {
    let mesh = generate(
        &Shape::Mesh {
            routers: 3,
            federates: 0,
        },
        &GenerateOptions::default(),
    )
    .unwrap();
    fn peers(plan: &NodePlan) -> (Vec<&str>, Vec<&str>) {
        let dialed = plan.dial.iter().map(|d| d.far.as_str()).collect();
        let accepted = plan.accept.iter().map(|a| a.far.as_str()).collect();
        (dialed, accepted)
    }
    let plans = mesh.plans();
    assert_eq!(peers(&plans[0]), (vec!["r2", "r3"], vec![]));
    assert_eq!(peers(&plans[1]), (vec!["r3"], vec!["r1"]));
    assert_eq!(peers(&plans[2]), (vec![], vec!["r1", "r2"]));
    let holders: Vec<&str> = plans
        .iter()
        .filter(|p| p.hosts_registry)
        .map(|p| p.name.as_str())
        .collect();
    assert_eq!(
        holders,
        vec!["r1"],
        "exactly one router of the mesh holds the registry"
    );
    for dial in plans.iter().flat_map(|plan| &plan.dial) {
        assert_eq!(dial.role, LinkRole::Peer);
        assert_eq!(dial.clique.as_deref(), Some("mesh"));
    }
}

#[test]
fn a_collocated_federate_may_dial_nobody() {
    let collocated = generate(
        &Shape::Collocated { federates: 3 },
        &GenerateOptions::default(),
    )
    .unwrap();
    assert_eq!(collocated.attachment("fed-1").unwrap().len(), 2);
    assert!(collocated.attachment("fed-3").unwrap().is_empty());
    let last = collocated.plan("fed-3").unwrap();
    assert_eq!(last.listen, vec![tcp(7001)]);
    assert_eq!(last.accept.len(), 2);
}

#[test]
fn link_options_resolve_link_then_file_then_built_in() {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../topologies/example.toml"
    ))
    .unwrap();
    let example = Topology::from_toml(&text).unwrap();
    let udp = |port: u16| format!("udp://127.0.0.1:{port}").parse().unwrap();

    let radar = example.attachment("radar").unwrap();
    assert_eq!(radar[0].address, tcp(7001));
    assert_eq!(radar[0].udp, Some(udp(7001)));
    assert_eq!(radar[0].options.pipe, Pipe::Udp);
    assert_eq!(radar[0].options.bundling_delay_ms, 0);

    let east = example.plan("east").unwrap();
    assert_eq!(east.dial.len(), 1);
    assert_eq!(east.dial[0].far, "west");
    assert_eq!(east.dial[0].clique.as_deref(), Some("core"));
    assert_eq!(
        east.dial[0].options,
        LinkOptions {
            pipe: Pipe::Tcp,
            bundling_delay_ms: 5,
            queue_limit_bytes: 4194304,
        }
    );
    // The accepting side sees the same options for the same link.
    let west = example.plan("west").unwrap();
    let from_east = west.accept.iter().find(|a| a.far == "east").unwrap();
    assert_eq!(from_east.options, east.dial[0].options);
    assert_eq!(from_east.role, LinkRole::Peer);
    let tanks: Vec<&str> = west
        .accept
        .iter()
        .filter(|a| a.role == LinkRole::Child)
        .map(|a| a.far.as_str())
        .collect();
    assert_eq!(tanks, ["tank-1", "tank-2", "tank-3"]);
}

#[test]
fn memory_pipes_dial_mem_addresses() {
    let options = GenerateOptions {
        pipe: Pipe::Memory,
        ..GenerateOptions::default()
    };
    let star = generate(&Shape::Centralized { federates: 2 }, &options).unwrap();
    let dial = &star.attachment("fed-1").unwrap()[0];
    assert_eq!(dial.address.to_string(), "mem://hub");
    assert_eq!(dial.options.pipe, Pipe::Memory);
}

#[test]
fn an_unknown_name_has_no_plan() {
    let err = tree().attachment("fed-9").unwrap_err();
    assert_eq!(err, UnknownNode("fed-9".into()));
    assert_eq!(
        err.to_string(),
        "the topology has no router or federate named \"fed-9\""
    );
}

#[test]
fn plans_cover_every_node_and_agree_with_single_plans() {
    let topology = generate(
        &Shape::MeshOfTrees {
            roots: 3,
            fanout: 2,
            levels: 2,
            federates: 2,
        },
        &GenerateOptions::default(),
    )
    .unwrap();
    let plans = topology.plans();
    assert_eq!(plans.len(), topology.nodes().len());
    for plan in &plans {
        assert_eq!(plan, &topology.plan(&plan.name).unwrap());
    }
    // Each link appears once as a dial and once as an accept.
    let dials: usize = plans.iter().map(|plan| plan.dial.len()).sum();
    let accepts: usize = plans.iter().map(|plan| plan.accept.len()).sum();
    assert_eq!(dials, topology.links().len());
    assert_eq!(accepts, topology.links().len());
}

#[test]
fn a_plan_reads_back_from_the_toml_it_writes() {
    let options = GenerateOptions {
        pipe: Pipe::Udp,
        ..GenerateOptions::default()
    };
    let topology = generate(
        &Shape::Hierarchical {
            segments: 2,
            federates: 2,
        },
        &options,
    )
    .unwrap();
    for plan in topology.plans() {
        let text = toml::to_string(&plan).unwrap();
        let back: NodePlan = toml::from_str(&text).unwrap();
        assert_eq!(back, plan, "{text}");
    }
}

/// `trellis topology gen --metrics-from PORT`: every router gets a metrics address on the
/// host, one port each, so `trellis monitor` and Prometheus find them without hand-editing;
/// a range that runs into the listen ports is refused by the file's own check.
#[test]
fn generated_routers_get_metrics_addresses_when_asked() {
    let options = GenerateOptions {
        metrics_base_port: Some(9100),
        ..GenerateOptions::default()
    };
    let shape = Shape::Tree {
        fanout: 2,
        levels: 2,
        federates: 1,
    };
    let tree = generate(&shape, &options).unwrap();
    let metrics: Vec<String> = (tree.routers())
        .map(|r| r.metrics.expect("a metrics address").to_string())
        .collect();
    assert_eq!(
        metrics,
        ["127.0.0.1:9100", "127.0.0.1:9101", "127.0.0.1:9102"]
    );
    assert!(tree.federates().all(|f| f.metrics.is_none()));
    let clashing = GenerateOptions {
        metrics_base_port: Some(7001), // the second router listens there
        ..GenerateOptions::default()
    };
    let refused = generate(&shape, &clashing).unwrap_err().to_string();
    assert!(refused.contains("7001"), "{refused}");
    let none = generate(&shape, &GenerateOptions::default()).unwrap();
    assert!(none.routers().all(|r| r.metrics.is_none()));
}
