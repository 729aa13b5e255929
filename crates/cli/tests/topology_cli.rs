//! `trellis topology gen | check`, invalid files, `trellis plan`, and `trellis up` with real
//! router processes and federates at different leaves.

mod common;

use common::*;
use std::path::Path;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::Callback;
use trellis_core::fom::ObjectModel;
use trellis_core::topology::Topology;
use trellis_net::rti::RtiAmbassador;

const WAIT: Duration = Duration::from_secs(20);

fn histogram(file: &Path) -> serde_json::Value {
    let out = trellis(&["topology", "check", "--json", file.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    json["links_histogram"].clone()
}

#[test]
fn generated_tree_and_mesh_show_the_jespp_link_counts() {
    let dir = TempDir::new("jespp");
    let tree = dir.path("tree.toml");
    let out = trellis(&[
        "topology",
        "gen",
        "tree",
        "--levels",
        "4",
        "--fanout",
        "2",
        "--federates",
        "2",
        "-o",
        tree.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    // 0-, 1-, 2- and 3-hop pairs: the paper's 2 / 6 / 8 for 0, 2 and 3 hops.
    assert_eq!(
        histogram(&tree),
        serde_json::json!({"2": 8, "4": 16, "6": 32, "8": 64})
    );
    let mesh = dir.path("mesh.toml");
    let out = trellis(&[
        "topology",
        "gen",
        "mesh",
        "--routers",
        "4",
        "--federates",
        "2",
        "-o",
        mesh.to_str().unwrap(),
    ]);
    assert!(out.status.success());
    // Same router: 2 links; across the mesh: 3, whatever the distance.
    assert_eq!(histogram(&mesh), serde_json::json!({"2": 4, "3": 24}));
    let text = trellis(&["topology", "check", tree.to_str().unwrap()]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains("routers    15") && text.contains("depth      4"),
        "{text}"
    );
}

#[test]
fn invalid_files_are_refused_naming_the_problem() {
    let dir = TempDir::new("invalid");
    let cases = [
        (
            // r1 and r2 are a clique; both hang below r3 and r4 is linked to both through
            // separate parents: the biconnected component {r1, r2, r3, r4} is no clique.
            "[[router]]\nname = \"r1\"\nlisten = [\"tcp://127.0.0.1:1\"]\nparent = \"r3\"\n\
             [[router]]\nname = \"r2\"\nlisten = [\"tcp://127.0.0.1:2\"]\nparent = \"r4\"\n\
             [[router]]\nname = \"r3\"\nlisten = [\"tcp://127.0.0.1:3\"]\n\
             [[router]]\nname = \"r4\"\nlisten = [\"tcp://127.0.0.1:4\"]\n\
             [[clique]]\nname = \"top\"\nmembers = [\"r3\", \"r4\"]\n\
             [[clique]]\nname = \"low\"\nmembers = [\"r1\", \"r2\"]\n",
            "not a clique",
        ),
        (
            "[[router]]\nname = \"a\"\nlisten = [\"tcp://127.0.0.1:1\"]\nparent = \"b\"\n\
             [[router]]\nname = \"b\"\nlisten = [\"tcp://127.0.0.1:2\"]\nparent = \"a\"\n",
            "cycle",
        ),
        (
            "[[router]]\nname = \"a\"\nlisten = [\"tcp://127.0.0.1:1\"]\n\
             [[federate]]\nname = \"f\"\nparent = \"nowhere\"\n",
            "\"nowhere\"",
        ),
        (
            "[[router]]\nname = \"a\"\nlisten = [\"tcp://127.0.0.1:1\"]\ncolour = \"red\"\n",
            "unknown field `colour`",
        ),
        (
            // Two routers on one listen address: the second could not start.
            "[[router]]\nname = \"a\"\nlisten = [\"tcp://127.0.0.1:7000\"]\n\
             [[router]]\nname = \"b\"\nlisten = [\"tcp://127.0.0.1:7000\"]\nparent = \"a\"\n",
            "router \"b\" listens on tcp://127.0.0.1:7000, where router \"a\" listens already",
        ),
    ];
    for (i, (text, expected)) in cases.iter().enumerate() {
        let file = dir.path(&format!("bad-{i}.toml"));
        std::fs::write(&file, text).unwrap();
        let out = trellis(&["topology", "check", file.to_str().unwrap()]);
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "case {i}: {stderr}");
        assert!(
            stderr.contains(expected),
            "case {i}: expected {expected:?} in {stderr}"
        );
    }
}

#[test]
fn plan_writes_process_configurations_and_launch_scripts() {
    let dir = TempDir::new("plan");
    let tree = dir.path("tree.toml");
    trellis(&[
        "topology",
        "gen",
        "tree",
        "--levels",
        "2",
        "--fanout",
        "2",
        "--federates",
        "1",
        "-o",
        tree.to_str().unwrap(),
    ]);
    let hosts = dir.path("hosts.toml");
    // The one hosts file form (benchmarks read it too): root.2 placed on "other", the
    // other routers dealt over both hosts in file order (root, root.1 on localhost and
    // other).
    std::fs::write(
        &hosts,
        "[[host]]\nname = \"here\"\naddress = \"localhost\"\nstart = \"local\"\n\n\
         [[host]]\nname = \"there\"\naddress = \"other\"\nstart = \"ssh\"\nrouters = [\"root.2\"]\n",
    )
    .unwrap();
    for (format, script) in [
        ("script", "launch-localhost.sh"),
        ("ssh", "launch.sh"),
        ("slurm", "launch.sbatch"),
    ] {
        let out_dir = dir.path(format);
        let out = trellis(&[
            "plan",
            tree.to_str().unwrap(),
            "--hosts",
            hosts.to_str().unwrap(),
            "--format",
            format,
            "-o",
            out_dir.to_str().unwrap(),
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = std::fs::read_to_string(out_dir.join(script)).unwrap();
        assert!(
            text.contains("trellis router --plan 'root.toml'"),
            "{format}: {text}"
        );
        let plan: trellis_core::topology::NodePlan =
            toml::from_str(&std::fs::read_to_string(out_dir.join("root.2.toml")).unwrap()).unwrap();
        assert_eq!(plan.dial[0].far, "root");
    }
    let slurm = std::fs::read_to_string(dir.path("slurm").join("launch.sbatch")).unwrap();
    assert!(slurm.contains("--nodelist=localhost,other"), "{slurm}");
    // The hosts files `plan` refuses, and what it says: the old form, saying how to write
    // it now; a router the topology lacks, placed by a typo, named.
    let refused = |text: &str| {
        std::fs::write(&hosts, text).unwrap();
        let out = trellis(&[
            "plan",
            tree.to_str().unwrap(),
            "--hosts",
            hosts.to_str().unwrap(),
        ]);
        assert!(!out.status.success(), "taken: {text}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let old = refused("default = \"localhost\"\n[nodes]\n\"root.2\" = \"other\"\n");
    assert!(
        old.contains("old form") && old.contains("[[host]]"),
        "{old}"
    );
    let typo = refused(
        "[[host]]\nname = \"here\"\naddress = \"localhost\"\nstart = \"local\"\nrouters = [\"rot.2\"]\n",
    );
    assert!(typo.contains("rot.2"), "{typo}");
}

/// Two federates at the given attachment points exchange an update through the routers.
fn exchange(topology: &Topology, a: &str, b: &str) {
    let model = demo_model();
    let federation = format!("Up{}", std::process::id());
    let connect = |name: &str| connect_at(topology, &federation, name);
    let mut sender = connect(a);
    sender.create_federation_execution(&model).unwrap();
    sender
        .join_federation_execution(a, "sender", model.clone())
        .unwrap();
    let mut receiver = connect(b);
    receiver
        .join_federation_execution(b, "receiver", model)
        .unwrap();
    let vehicle = sender.object_class_handle("Vehicle").unwrap();
    let name = sender.attribute_handle(vehicle, "Name").unwrap();
    sender
        .publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    receiver
        .subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    let object = sender.register_object_instance(vehicle).unwrap();
    let deadline = Instant::now() + WAIT;
    loop {
        assert!(Instant::now() < deadline, "no update from {a} reached {b}");
        sender
            .update_attribute_values(object, &[(name, b"across".as_slice())], b"")
            .unwrap();
        let got = receiver
            .evoke_multiple_callbacks(Duration::from_millis(100), 10)
            .unwrap();
        if got.iter().any(|c| matches!(c, Callback::ReflectAttributeValues { values, .. } if &values[0].1[..] == b"across")) {
            break;
        }
    }
    sender
        .resign_federation_execution(trellis_net::rti::ResignAction::default())
        .unwrap();
    receiver
        .resign_federation_execution(trellis_net::rti::ResignAction::default())
        .unwrap();
    sender.destroy_federation_execution().unwrap();
}

#[test]
fn up_runs_a_three_level_tree_of_processes_and_stops_them_all() {
    let dir = TempDir::new("up-tree");
    let (file, topology) = gen(
        &dir,
        "tree.toml",
        &["tree", "--levels", "3", "--fanout", "2", "--federates", "1"],
        7,
    );
    let up = Up::start(&file);
    // fed-1 under root.1.1, fed-4 under root.2.2: the message crosses the root.
    exchange(&topology, "fed-1", "fed-4");
    up.stop();
}

#[test]
fn up_runs_a_four_router_mesh_of_processes_and_stops_them_all() {
    let dir = TempDir::new("up-mesh");
    let (file, topology) = gen(
        &dir,
        "mesh.toml",
        &["mesh", "--routers", "4", "--federates", "1"],
        4,
    );
    let up = Up::start(&file);
    exchange(&topology, "fed-1", "fed-3");
    up.stop();
}

#[test]
fn up_restarts_a_killed_router_and_traffic_crosses_it_again() {
    let dir = TempDir::new("up-restart");
    let (file, topology) = gen(
        &dir,
        "tree.toml",
        &["tree", "--levels", "2", "--fanout", "2", "--federates", "1"],
        3,
    );
    let mut up = Up::start(&file);
    let leaf = topology
        .routers()
        .map(|r| r.name.clone())
        .find(|n| n != "root")
        .unwrap();
    let (pid, restarted) = up.kill_router(&leaf);
    assert!(
        restarted.contains("restarted it (restart 1 of at most 5 a minute)"),
        "{restarted}"
    );
    up.wait_for_line(&format!("router {leaf} is back"));
    assert_ne!(up.router_pid(&leaf), pid);
    exchange(&topology, "fed-1", "fed-2");
    up.stop();
}

/// One federate of `federation` at attachment point `at`, joined.
fn joined(
    topology: &Topology,
    federation: &str,
    at: &str,
    model: &Arc<ObjectModel>,
) -> RtiAmbassador {
    let mut rti = connect_at(topology, federation, at);
    let _ = rti.create_federation_execution(model);
    rti.join_federation_execution(at, "sim", model.clone())
        .unwrap();
    rti
}

#[test]
fn a_mid_router_killed_and_restarted_under_trellis_up_costs_its_subtree_no_membership() {
    let dir = TempDir::new("up-mid");
    let (file, topology) = gen(
        &dir,
        "tree.toml",
        &["tree", "--levels", "3", "--fanout", "2", "--federates", "1"],
        7,
    );
    let mut up = Up::start(&file);
    let model = demo_model();
    let federation = format!("Mid{}", std::process::id());
    // fed-1 sits under root.1.1, below the mid router root.1; fed-3 under root.2.1.
    let mut sender = joined(&topology, &federation, "fed-1", &model);
    let mut receiver = joined(&topology, &federation, "fed-3", &model);
    let vehicle = sender.object_class_handle("Vehicle").unwrap();
    let name = sender.attribute_handle(vehicle, "Name").unwrap();
    sender
        .publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    receiver
        .subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    let object = sender.register_object_instance(vehicle).unwrap();
    // Send until `receiver` reflects something sent after `from`; returns when it did.
    // Every value reflected and every reliable loss reported is kept.
    let counter = std::cell::Cell::new(0u64);
    let reflected = std::cell::RefCell::new(Vec::<u64>::new());
    let reported_lost = std::cell::Cell::new(0u64);
    let resume_after = |sender: &mut RtiAmbassador,
                        receiver: &mut RtiAmbassador,
                        from: u64|
     -> Result<Instant, String> {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if Instant::now() > deadline {
                return Err(format!("nothing sent after update {from} arrived"));
            }
            counter.set(counter.get() + 1);
            let value = counter.get().to_string();
            sender
                .update_attribute_values(object, &[(name, value.as_bytes())], b"")
                .map_err(|e| format!("update: {e}"))?;
            let mut arrived = false;
            for callback in receiver
                .evoke_multiple_callbacks(Duration::from_millis(10), 100)
                .map_err(|e| format!("evoke: {e}"))?
            {
                match callback {
                    Callback::ReflectAttributeValues { values, .. } => {
                        let n: u64 = std::str::from_utf8(&values[0].1).unwrap().parse().unwrap();
                        reflected.borrow_mut().push(n);
                        arrived |= n > from;
                    }
                    Callback::ReliableMessagesLost { count, .. } => {
                        reported_lost.set(reported_lost.get() + count)
                    }
                    Callback::ConnectionLost { fault } => {
                        return Err(format!("the receiver lost its connection: {fault}"))
                    }
                    _ => {}
                }
            }
            if arrived {
                return Ok(Instant::now());
            }
            sender
                .evoke_callback(Duration::ZERO)
                .map_err(|e| format!("{e}"))?;
        }
    };
    resume_after(&mut sender, &mut receiver, 0).unwrap();
    let killed_at = Instant::now();
    let pid = up.router_pid("root.1");
    assert!(Command::new("kill")
        .args(["-KILL", &pid.to_string()])
        .status()
        .unwrap()
        .success());
    // A burst while the router is down: its leaf needs a redial (at least 25 ms of
    // backoff) and a new handshake before anything crosses again, so these are lost.
    for _ in 0..20 {
        counter.set(counter.get() + 1);
        let value = counter.get().to_string();
        sender
            .update_attribute_values(object, &[(name, value.as_bytes())], b"")
            .unwrap();
    }
    up.wait_for_line("router root.1 exited");
    let sent_before_restart = counter.get();
    let resumed = resume_after(&mut sender, &mut receiver, sent_before_restart).unwrap();
    println!(
        "traffic across the restarted mid router resumed {:?} after the kill",
        resumed - killed_at
    );
    // Every update sent while the router was down was lost, and none in silence: the
    // values missing between the first and the last reflected add up to the reported loss.
    // (A loss can be heard just before the reflection that revealed it: take both until
    // they agree.)
    let mut reflected = reflected.into_inner();
    let sender_handle = receiver.federate_handle("fed-1").unwrap();
    let missing = |reflected: &[u64]| {
        let distinct: std::collections::BTreeSet<u64> = reflected.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            reflected.len(),
            "an update was reflected twice"
        );
        let (first, last) = (distinct.first().unwrap(), distinct.last().unwrap());
        last - first + 1 - distinct.len() as u64
    };
    let deadline = Instant::now() + WAIT;
    while reported_lost.get() != missing(&reflected) && Instant::now() < deadline {
        for callback in receiver
            .evoke_multiple_callbacks(Duration::from_millis(50), 100)
            .unwrap()
        {
            match callback {
                Callback::ReflectAttributeValues { values, .. } => {
                    reflected.push(std::str::from_utf8(&values[0].1).unwrap().parse().unwrap())
                }
                Callback::ReliableMessagesLost { count, sender, .. } => {
                    assert_eq!(sender, Some(sender_handle), "the loss names its sender");
                    reported_lost.set(reported_lost.get() + count);
                }
                _ => {}
            }
        }
    }
    let missing = missing(&reflected);
    assert!(
        missing > 0,
        "updates sent during the outage cannot have arrived"
    );
    assert_eq!(
        reported_lost.get(),
        missing,
        "the receiver was told of {} lost updates; {missing} are missing",
        reported_lost.get()
    );
    println!("{missing} updates sent during the outage were lost, and reported");
    // Both federates are still members: the registry kept them through the outage.
    sender
        .resign_federation_execution(trellis_net::rti::ResignAction::default())
        .unwrap();
    receiver
        .resign_federation_execution(trellis_net::rti::ResignAction::default())
        .unwrap();
    up.stop();
}

/// Send updates from `sender` until `receiver` reflects one; returns how long it took.
fn until_reflected(
    sender: &mut RtiAmbassador,
    receiver: &mut RtiAmbassador,
    object: trellis_core::federate::ObjectId,
    name: trellis_core::fom::AttributeHandle,
) -> Duration {
    let start = Instant::now();
    let deadline = start + WAIT;
    loop {
        assert!(
            Instant::now() < deadline,
            "no update reached the receiver in time"
        );
        sender
            .update_attribute_values(object, &[(name, b"x".as_slice())], b"")
            .unwrap();
        sender.evoke_callback(Duration::ZERO).unwrap();
        for callback in receiver
            .evoke_multiple_callbacks(Duration::from_millis(10), 100)
            .unwrap()
        {
            match callback {
                Callback::ReflectAttributeValues { .. } => return start.elapsed(),
                Callback::ConnectionLost { fault } => panic!("the receiver lost: {fault}"),
                _ => {}
            }
        }
    }
}

#[test]
fn routers_and_federates_fail_over_to_their_alternates_when_a_router_dies_for_good() {
    let dir = TempDir::new("up-failover");
    let (file, topology) = gen(
        &dir,
        "tree.toml",
        &[
            "tree",
            "--levels",
            "3",
            "--fanout",
            "2",
            "--federates",
            "1",
            "--alternates",
        ],
        7,
    );
    // No restarts: the network must heal through the alternates alone.
    let mut up = Up::start_with(&file, &["--max-restarts-per-minute", "0"]);
    let model = demo_model();
    let federation = format!("Failover{}", std::process::id());
    // fed-1 under root.1.1 (alternate root.1.2), which is under root.1 (alternate root.2);
    // fed-3 under root.2.1.
    let mut sender = joined(&topology, &federation, "fed-1", &model);
    let mut receiver = joined(&topology, &federation, "fed-3", &model);
    let vehicle = sender.object_class_handle("Vehicle").unwrap();
    let name = sender.attribute_handle(vehicle, "Name").unwrap();
    sender
        .publish_object_class_attributes(vehicle, &[name])
        .unwrap();
    receiver
        .subscribe_object_class_attributes(vehicle, &[name])
        .unwrap();
    let object = sender.register_object_instance(vehicle).unwrap();
    until_reflected(&mut sender, &mut receiver, object, name);
    for router in ["root.1", "root.1.1"] {
        let killed = Instant::now();
        up.kill_router(router);
        until_reflected(&mut sender, &mut receiver, object, name);
        println!(
            "{router} killed for good: traffic resumed through alternates {:?} after the kill",
            killed.elapsed()
        );
    }
    // Both federates are still members after the failovers.
    sender
        .resign_federation_execution(trellis_net::rti::ResignAction::default())
        .unwrap();
    receiver
        .resign_federation_execution(trellis_net::rti::ResignAction::default())
        .unwrap();
    up.stop();
}

/// The listen addresses (as written) and metrics address of `name` in `topology`.
fn addresses_of(topology: &Topology, name: &str) -> (Vec<String>, Option<String>) {
    let node = topology.node(name).unwrap();
    let listen = node.listen.iter().map(|a| a.to_string()).collect();
    (listen, node.metrics.map(|m| m.to_string()))
}

#[test]
fn gen_with_hosts_places_routers_where_the_hosts_file_says_and_check_accepts_it() {
    let dir = TempDir::new("gen-hosts");
    let hosts = dir.path("hosts.toml");
    // root.2 named on "b"; root and root.1 dealt over a, b in file order.
    std::fs::write(
        &hosts,
        "[[host]]\nname = \"a\"\naddress = \"10.0.0.1\"\nstart = \"local\"\n\n\
         [[host]]\nname = \"b\"\naddress = \"10.0.0.2\"\nstart = \"ssh\"\nrouters = [\"root.2\"]\n",
    )
    .unwrap();
    let tree = dir.path("tree.toml");
    let gen = |extra: &[&str]| {
        let mut args = vec![
            "topology",
            "gen",
            "tree",
            "--levels",
            "2",
            "--federates",
            "1",
            "--hosts",
            hosts.to_str().unwrap(),
            "-o",
            tree.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        trellis(&args)
    };
    let out = gen(&["--base-port", "7100", "--metrics-from", "9100"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let topology = Topology::from_toml(&std::fs::read_to_string(&tree).unwrap()).unwrap();
    // Each host counts its own ports: a has root (7100), b has root.1 and root.2.
    let expected = [
        ("root", "tcp://10.0.0.1:7100", "10.0.0.1:9100"),
        ("root.1", "tcp://10.0.0.2:7100", "10.0.0.2:9100"),
        ("root.2", "tcp://10.0.0.2:7101", "10.0.0.2:9101"),
    ];
    for (router, listen, metrics) in expected {
        assert_eq!(
            addresses_of(&topology, router),
            (vec![listen.to_owned()], Some(metrics.to_owned())),
            "{router}"
        );
    }
    let check = trellis(&["topology", "check", tree.to_str().unwrap()]);
    assert!(
        check.status.success(),
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );

    // Federates that listen (a collocated clique, no router) are dealt over the hosts; the
    // udp pipe's second address keeps its process's port. (This file names no router: one
    // the topology lacks is refused, as `plan` refuses it.)
    let refused = gen_collocated(&hosts, &tree);
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(!refused.status.success());
    assert!(said.contains("root.2"), "{said}");
    let hosts = dir.path("two.toml");
    std::fs::write(
        &hosts,
        "[[host]]\nname = \"a\"\naddress = \"10.0.0.1\"\nstart = \"local\"\n\n\
         [[host]]\nname = \"b\"\naddress = \"10.0.0.2\"\nstart = \"local\"\n",
    )
    .unwrap();
    let out = gen_collocated(&hosts, &tree);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let topology = Topology::from_toml(&std::fs::read_to_string(&tree).unwrap()).unwrap();
    let listening: Vec<Vec<String>> = ["fed-2", "fed-3"]
        .iter()
        .map(|f| addresses_of(&topology, f).0)
        .collect();
    assert_eq!(
        listening,
        [
            ["tcp://10.0.0.1:7000", "udp://10.0.0.1:7000"],
            ["tcp://10.0.0.2:7000", "udp://10.0.0.2:7000"],
        ]
    );

    // --host and --hosts together: refused, naming both (gen uses the first hosts file).
    let both = gen(&["--host", "10.0.0.9"]);
    let said = String::from_utf8_lossy(&both.stderr);
    assert!(!both.status.success());
    assert!(
        said.contains("--host ") && said.contains("--hosts"),
        "{said}"
    );
    // Metrics ports inside a host's listen ports: refused by the topology's own check.
    let clash = gen(&["--base-port", "7100", "--metrics-from", "7101"]);
    let said = String::from_utf8_lossy(&clash.stderr);
    assert!(!clash.status.success());
    assert!(said.contains("takes the port of"), "{said}");
}

fn gen_collocated(hosts: &Path, out: &Path) -> std::process::Output {
    trellis(&[
        "topology",
        "gen",
        "collocated",
        "--federates",
        "3",
        "--pipe",
        "udp",
        "--hosts",
        hosts.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
    ])
}

/// The body of `GET /metrics` at `address`, once it answers 200 (none: it did not).
fn scrape(address: std::net::SocketAddr) -> Option<String> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect_timeout(&address, Duration::from_secs(2)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    let request = format!("GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n");
    stream.write_all(request.as_bytes()).ok()?;
    let mut answer = String::new();
    stream.read_to_string(&mut answer).ok()?;
    let (head, body) = answer.split_once("\r\n\r\n")?;
    head.starts_with("HTTP/1.1 200").then(|| body.to_owned())
}

#[test]
fn up_with_metrics_from_serves_prometheus_text_for_routers_the_file_gave_none() {
    let dir = TempDir::new("up-metrics");
    let (file, topology) = gen(
        &dir,
        "tree.toml",
        &["tree", "--levels", "2", "--fanout", "2", "--federates", "1"],
        3,
    );
    assert!(topology.routers().all(|r| r.metrics.is_none()));
    let base = free_ports(3);
    let mut up = Up::start_with(&file, &["--metrics-from", &base.to_string()]);
    // Routers in file order take the ports from the base, on their listen host.
    for (i, router) in topology.routers().enumerate() {
        let address: std::net::SocketAddr =
            format!("127.0.0.1:{}", base + i as u16).parse().unwrap();
        up.wait_for_line(&format!(
            "{} metrics on http://{address}/metrics",
            router.name
        ));
        let deadline = Instant::now() + WAIT;
        let body = loop {
            if let Some(body) = scrape(address) {
                break body;
            }
            assert!(Instant::now() < deadline, "{address} served no metrics");
            std::thread::sleep(Duration::from_millis(50));
        };
        assert!(body.contains("# TYPE "), "{address}: {body}");
        assert!(
            body.contains(&format!("\"{}\"", router.name)),
            "{address} should be router {}: {body}",
            router.name
        );
    }
    up.stop();
}
