//! Latest-value caching (issue 12, item 2), sans-IO in the simulator: keep-latest frames
//! are replaced, not appended, in the queue of a subscriber that falls behind; a subscriber
//! that comes late gets the newest value of every instance in its interest from the routers'
//! caches, before any newer update; the caches stay within their bounds. Reliable streams
//! still report every loss and nothing twice (`Sim::check_losses_reported`,
//! `Sim::check_no_duplicates`) with keep-latest traffic mixed in.

use roaring::RoaringBitmap;
use rustc_hash::FxHashMap;
use std::time::Duration;
use trellis_core::router::{RouterConfig, ENTRY_OVERHEAD_BYTES};
use trellis_core::sim::{NodeIndex, Sim, SimConfig};
use trellis_core::wire::{DataFrame, LatestKey, NodeId, TransportClass};

const FED: &str = "Latest";
/// Two attribute groups per instance: one reliable, one best effort.
const RELIABLE_MASK: u64 = 0b011;
const BEST_EFFORT_MASK: u64 = 0b100;
const QUIET: Duration = Duration::from_secs(30);

fn ids(range: std::ops::RangeInclusive<u32>) -> RoaringBitmap {
    range.collect()
}

/// The interest id an instance's updates carry (its cell).
fn cell(instance: u64) -> u32 {
    10 + (instance % 4) as u32
}

/// Publish one keep-latest update of `instance` carrying `mask` from `node`; returns its
/// sequence number.
fn update(sim: &mut Sim, node: NodeIndex, instance: u64, mask: u64, round: u32) -> u64 {
    let class = if mask == BEST_EFFORT_MASK {
        TransportClass::BestEffort
    } else {
        TransportClass::Reliable
    };
    let key = LatestKey {
        key: instance,
        attributes: mask,
    };
    let now = sim.now();
    let payload = format!("instance {instance} round {round}");
    sim.nodes[node]
        .router
        .publish_with(
            now,
            &[cell(instance)],
            class,
            3,
            Some(key),
            payload.as_bytes(),
        )
        .expect("publish")
}

/// What `node`'s application received of `source`'s keep-latest traffic: per (instance,
/// mask), the sequence numbers in delivery order. Frames without a key are skipped.
fn received_latest(sim: &Sim, node: NodeIndex, source: NodeId) -> FxHashMap<(u64, u64), Vec<u64>> {
    let mut out: FxHashMap<(u64, u64), Vec<u64>> = FxHashMap::default();
    for r in sim.nodes[node]
        .received
        .iter()
        .filter(|r| r.source == source)
    {
        let text = std::str::from_utf8(&r.payload).unwrap_or("");
        let Some(instance) = text
            .strip_prefix("instance ")
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
        else {
            continue;
        };
        let mask = if r.class == TransportClass::BestEffort {
            BEST_EFFORT_MASK
        } else {
            RELIABLE_MASK
        };
        out.entry((instance, mask)).or_default().push(r.seq);
    }
    out
}

fn check_streams(sim: &Sim) {
    sim.check_losses_reported().unwrap();
    sim.check_no_duplicates().unwrap();
}

/// A subscriber whose link stops draining (a partition toward it: the bytes wait, as when
/// its process stops reading) while the publisher sends 40 rounds of updates of 30
/// instances, each round with a reliable and a best-effort attribute group. When it drains
/// again it gets exactly one frame per instance and group, the newest; its router's queue
/// toward it never held more than one frame per instance and group; everything else is
/// counted as replaced, not lost.
#[test]
fn a_stalled_subscriber_that_resumes_gets_exactly_the_newest_value_per_instance_and_attribute() {
    // One frame per batch and a window of one byte: at most one frame is in flight when the
    // stall begins, and the test puts a marker there, so every update waits in the queue.
    let mut sim = Sim::new(
        1,
        SimConfig {
            window: 1,
            ..SimConfig::default()
        },
    );
    let router = sim.add_router("router");
    let publisher = sim.add_federate("publisher", FED);
    let mut config = RouterConfig::federate("subscriber", NodeId(0x5b), FED);
    config.link_defaults.batch_limit_bytes = 1;
    let subscriber = sim.add_node(config);
    sim.connect_parent(publisher, router, FED);
    let stalled = sim.connect_parent(subscriber, router, FED);
    sim.subscribe(subscriber, &ids(10..=13));
    sim.run_until_quiet(QUIET).unwrap();

    sim.partition(stalled, true, false);
    let marker = sim
        .publish(publisher, &[10], TransportClass::Reliable, b"marker")
        .unwrap();
    sim.run_for(Duration::from_millis(20));
    let (instances, rounds) = (30u64, 40u32);
    let mut newest: FxHashMap<(u64, u64), u64> = FxHashMap::default();
    for round in 0..rounds {
        for instance in 0..instances {
            for mask in [RELIABLE_MASK, BEST_EFFORT_MASK] {
                let seq = update(&mut sim, publisher, instance, mask, round);
                newest.insert((instance, mask), seq);
            }
        }
        sim.run_for(Duration::from_millis(5));
        let r = &sim.nodes[router].router;
        let toward = r
            .link_ids()
            .into_iter()
            .filter_map(|id| r.link_info(id))
            .find(|info| {
                info.peer
                    .as_ref()
                    .is_some_and(|p| p.node_name == "subscriber")
            })
            .expect("the router's link to the subscriber");
        let one_frame = DataFrame::encoded_len_with(1, 40, true);
        assert!(
            toward.reliable_queued <= instances as usize * one_frame,
            "round {round}: {} bytes of reliable frames queued toward the stalled subscriber; \
             one frame per instance is at most {}",
            toward.reliable_queued,
            instances as usize * one_frame
        );
    }
    sim.heal(stalled);
    sim.run_until_quiet(QUIET).unwrap();

    let source = sim.node_id(publisher);
    let got = received_latest(&sim, subscriber, source);
    assert_eq!(got.len(), newest.len(), "every instance and group arrived");
    for (key, seqs) in &got {
        assert_eq!(
            seqs,
            &vec![newest[key]],
            "instance {} mask {:#b}: exactly one value, the newest",
            key.0,
            key.1
        );
    }
    let received = &sim.nodes[subscriber].received;
    assert_eq!(
        received[0].seq, marker,
        "the frame in flight at the stall came first"
    );
    assert_eq!(received.len(), 1 + newest.len());
    let published = u64::from(rounds) * instances * 2;
    let replaced = sim.nodes[router].router.stats().latest.replaced;
    assert_eq!(
        replaced,
        published - newest.len() as u64,
        "every update that did not arrive was counted as replaced"
    );
    assert_eq!(sim.nodes[router].router.stats().drops.total(), 0);
    check_streams(&sim);
}

/// root over `left` and `right`; the publisher under `left`, an early subscriber under
/// `right`. The publisher updates instances of two groups: cells 10-11, which the early
/// subscriber holds (so `left`, `root` and `right` route and cache them), and cells 12-13,
/// which nobody holds yet (only the publisher's own node caches them). Then late joiners
/// subscribe to everything, under `right` (its cache serves), under `root` (root's) and
/// under `left`, and in the same instant the publisher sends a newer round. Each late
/// joiner gets, per instance and group, the value current when it subscribed (or one newer)
/// before any newer update, and ends with the newest: nothing older, nothing twice.
#[test]
fn late_joiners_get_every_instances_latest_values_before_any_newer_update() {
    for seed in 1..=20 {
        late_joiners(seed);
    }
}

fn late_joiners(seed: u64) {
    let mut sim = Sim::new(seed, SimConfig::default());
    let root = sim.add_router("root");
    let left = sim.add_router("left");
    let right = sim.add_router("right");
    sim.connect_parent(left, root, "");
    sim.connect_parent(right, root, "");
    let publisher = sim.add_federate("publisher", FED);
    sim.connect_parent(publisher, left, FED);
    let early = sim.add_federate("early", FED);
    sim.connect_parent(early, right, FED);
    let late: Vec<NodeIndex> = [
        ("late-right", right),
        ("late-root", root),
        ("late-left", left),
    ]
    .into_iter()
    .map(|(name, parent)| {
        let node = sim.add_federate(name, FED);
        sim.connect_parent(node, parent, FED);
        node
    })
    .collect();
    sim.subscribe(early, &ids(10..=11));
    sim.run_until_quiet(QUIET).unwrap();

    let instances = 16u64;
    let mut current: FxHashMap<(u64, u64), u64> = FxHashMap::default();
    for round in 0..5 {
        for instance in 0..instances {
            for mask in [RELIABLE_MASK, BEST_EFFORT_MASK] {
                current.insert(
                    (instance, mask),
                    update(&mut sim, publisher, instance, mask, round),
                );
            }
        }
        // Plain reliable traffic beside: its streams must still add up.
        sim.publish(publisher, &[10, 12], TransportClass::Reliable, b"plain")
            .unwrap();
        sim.run_for(Duration::from_millis(3));
    }
    sim.run_until_quiet(QUIET).unwrap();

    for &node in &late {
        sim.subscribe(node, &ids(10..=13));
    }
    let mut newer: FxHashMap<(u64, u64), u64> = FxHashMap::default();
    for instance in 0..instances {
        newer.insert(
            (instance, RELIABLE_MASK),
            update(&mut sim, publisher, instance, RELIABLE_MASK, 5),
        );
    }
    sim.run_until_quiet(QUIET).unwrap();

    let source = sim.node_id(publisher);
    for &node in &late {
        let name = &sim.nodes[node].name;
        let got = received_latest(&sim, node, source);
        assert_eq!(
            got.len(),
            current.len(),
            "seed {seed}: {name} got every instance"
        );
        for (key, seqs) in &got {
            let at_subscribe = current[key];
            let last = newer.get(key).copied().unwrap_or(at_subscribe);
            assert!(
                seqs.windows(2).all(|w| w[0] < w[1]),
                "seed {seed}: {name}: instance {} mask {:#b} went back in time: {seqs:?}",
                key.0,
                key.1
            );
            assert!(
                seqs[0] >= at_subscribe,
                "seed {seed}: {name}: instance {} mask {:#b} began with a value older than \
                 the latest at subscription ({} < {at_subscribe})",
                key.0,
                key.1,
                seqs[0]
            );
            assert_eq!(
                *seqs.last().unwrap(),
                last,
                "seed {seed}: {name}: instance {} ends with the newest",
                key.0
            );
            assert!(seqs.len() <= 2, "seed {seed}: {name}: {seqs:?}");
        }
    }
    // The early subscriber, untouched by the replays: every update of its cells, once.
    let early_got = received_latest(&sim, early, source);
    for (key, seqs) in &early_got {
        assert!(key.0 % 4 < 2, "the early subscriber got only its own cells");
        assert!(seqs.windows(2).all(|w| w[0] < w[1]));
    }
    let replayed: u64 = sim
        .nodes
        .iter()
        .map(|n| n.router.stats().latest.replayed)
        .sum();
    assert!(
        replayed > 0,
        "seed {seed}: the caches served the late joiners"
    );
    check_streams(&sim);
}

/// Caches hold within `latest_cache_bytes`: 2,000 instances through a router whose cache
/// holds about 100 frames. It keeps the most recently updated, counts every eviction, and
/// a late joiner gets exactly what the caches on its way still hold.
#[test]
fn cache_bounds_hold_and_evictions_are_counted() {
    let mut sim = Sim::new(7, SimConfig::default());
    let frame_len = DataFrame::encoded_len_with(1, "instance 1999 round 0".len(), true);
    let budget = 100 * (frame_len + ENTRY_OVERHEAD_BYTES);
    let mut router_config = RouterConfig::new("router", NodeId(0x77));
    router_config.latest_cache_bytes = budget;
    let router = sim.add_node(router_config);
    let mut publisher_config = RouterConfig::federate("publisher", NodeId(0x78), FED);
    publisher_config.latest_cache_bytes = budget / 2;
    let publisher = sim.add_node(publisher_config);
    let early = sim.add_federate("early", FED);
    let late = sim.add_federate("late", FED);
    for node in [publisher, early, late] {
        sim.connect_parent(node, router, FED);
    }
    sim.subscribe(early, &ids(10..=13));
    sim.run_until_quiet(QUIET).unwrap();
    for instance in 1000..3000u64 {
        update(&mut sim, publisher, instance, RELIABLE_MASK, 0);
        if instance % 50 == 0 {
            sim.run_for(Duration::from_millis(1));
        }
    }
    sim.run_until_quiet(QUIET).unwrap();
    let stats = sim.nodes[router].router.stats().latest;
    assert!(stats.cached_bytes as usize <= budget, "{stats:?}");
    assert_eq!(stats.cached_entries, 100, "{stats:?}");
    assert_eq!(stats.evicted, 2000 - 100, "{stats:?}");
    let publisher_stats = sim.nodes[publisher].router.stats().latest;
    assert!(publisher_stats.cached_bytes as usize <= budget / 2);
    assert_eq!(publisher_stats.evicted, 2000 - 50);

    sim.subscribe(late, &ids(10..=13));
    sim.run_until_quiet(QUIET).unwrap();
    let got = received_latest(&sim, late, sim.node_id(publisher));
    let mut instances: Vec<u64> = got.keys().map(|k| k.0).collect();
    instances.sort_unstable();
    assert_eq!(
        instances,
        (2900..3000).collect::<Vec<_>>(),
        "the late joiner got the 100 most recently updated instances the router kept"
    );
    check_streams(&sim);
}

// ---- the federate library over the same routers ------------------------------------------

mod federates {
    use super::*;
    use std::sync::Arc;
    use trellis_core::federate::{Action, Callback, Federate, ObjectId, DEFAULT_BINS};
    use trellis_core::fom::ObjectModel;

    const DEMO: &str = include_str!("../../../foms/trellis-demo.xml");

    /// The demo object model with Vehicle.Position marked keep-latest by the Trellis
    /// extension element (in its own namespace, as the OMT schema allows).
    fn model() -> Arc<ObjectModel> {
        let marked = DEMO.replacen(
            "<name>Position</name>",
            "<name>Position</name>\n<trellis:keepLatest xmlns:trellis=\"urn:trellis:omt\">true</trellis:keepLatest>",
            1,
        );
        assert_ne!(marked, DEMO);
        Arc::new(ObjectModel::from_sources(&[("demo-keep-latest.xml", &marked)]).unwrap())
    }

    struct World {
        sim: Sim,
        nodes: Vec<NodeIndex>,
        feds: Vec<Federate>,
        seen: Vec<usize>,
    }

    impl World {
        fn new(count: usize) -> World {
            let mut sim = Sim::new(3, SimConfig::default());
            let router = sim.add_router("router");
            let model = model();
            let mut nodes = Vec::new();
            let mut feds = Vec::new();
            for i in 0..count {
                let node = sim.add_federate(&format!("f{i}"), FED);
                sim.connect_parent(node, router, FED);
                nodes.push(node);
                feds.push(Federate::new(model.clone(), i as u32 + 1, DEFAULT_BINS).unwrap());
            }
            World {
                sim,
                nodes,
                feds,
                seen: vec![0; count],
            }
        }

        /// Hand the federates' actions to their nodes, let the network settle, and hand
        /// what arrived to the federates, keep-latest headers included.
        fn pump(&mut self) {
            for (i, fed) in self.feds.iter_mut().enumerate() {
                while let Some(action) = fed.poll_action() {
                    let now = self.sim.now();
                    let router = &mut self.sim.nodes[self.nodes[i]].router;
                    match action {
                        Action::SetInterest(ids) => router.set_interest(now, &ids),
                        Action::Publish {
                            ids,
                            class,
                            payload,
                            latest,
                        } => {
                            router
                                .publish_with(now, &ids, class, 0, latest, &payload)
                                .unwrap();
                        }
                        Action::PublishFrame(mut frame) => {
                            frame.set_federation(trellis_core::wire::FederationId::of(FED));
                            router.publish_encoded(now, frame.into_bytes()).unwrap();
                        }
                        Action::Ask(request) => panic!("no registry here, got {request:?}"),
                        Action::ExtendModel { modules, .. } => {
                            panic!("no modules are added here, got {modules:?}")
                        }
                    }
                }
            }
            self.sim.run_until_quiet(QUIET).unwrap();
            for (i, fed) in self.feds.iter_mut().enumerate() {
                let received = &self.sim.nodes[self.nodes[i]].received;
                for r in &received[self.seen[i]..] {
                    let keyed = r.latest.map(|_| (r.source, r.seq));
                    fed.handle_message_from(&r.payload, r.class, keyed);
                }
                self.seen[i] = received.len();
            }
        }

        fn callbacks(&mut self, fed: usize) -> Vec<Callback> {
            std::iter::from_fn(|| self.feds[fed].poll_callback()).collect()
        }
    }

    /// What a late joiner's callbacks say per instance: discovered at which position, and
    /// the Position values reflected, in order.
    fn per_instance(callbacks: &[Callback]) -> FxHashMap<ObjectId, (usize, Vec<Vec<u8>>)> {
        let mut out: FxHashMap<ObjectId, (usize, Vec<Vec<u8>>)> = FxHashMap::default();
        for (at, callback) in callbacks.iter().enumerate() {
            match callback {
                Callback::DiscoverObjectInstance { object, .. } => {
                    assert!(
                        out.insert(*object, (at, Vec::new())).is_none(),
                        "discovered twice"
                    );
                }
                Callback::ReflectAttributeValues { object, values, .. } => {
                    let entry = out.get_mut(object).expect("reflected before discovered");
                    entry.1.extend(values.iter().map(|(_, v)| v.to_vec()));
                }
                _ => {}
            }
        }
        out
    }

    /// A small module marks a class of another keep-latest by repeating it as scaffolding:
    /// every attribute of its instances and its subclasses' instances is keep-latest, other
    /// classes are untouched, the demo model's fingerprint changes only with the mark, and
    /// two modules that disagree (or a value that is not true or false) are refused with
    /// the place named.
    #[test]
    fn a_module_marks_a_class_keep_latest_and_disagreement_is_an_error() {
        let mark = |value: &str| {
            format!(
                "<objectModel><objects><objectClass><name>HLAobjectRoot</name>\
                 <objectClass><name>Vehicle</name>\
                 <keepLatest xmlns=\"urn:trellis:omt\">{value}</keepLatest>\
                 </objectClass></objectClass></objects></objectModel>"
            )
        };
        let plain = ObjectModel::from_sources(&[("demo.xml", DEMO)]).unwrap();
        let marked =
            ObjectModel::from_sources(&[("demo.xml", DEMO), ("mark.xml", &mark("true"))]).unwrap();
        let ground = marked.find_object_class("Vehicle.GroundVehicle").unwrap();
        let vehicle = marked.find_object_class("Vehicle").unwrap();
        let fuel = marked.find_attribute(ground, "Fuel").unwrap();
        let name = marked.find_attribute(vehicle, "Name").unwrap();
        assert!(
            marked.is_keep_latest(ground, fuel),
            "a subclass's own attribute"
        );
        assert!(
            marked.is_keep_latest(ground, name),
            "an inherited attribute"
        );
        assert!(!plain.is_keep_latest(ground, name));
        assert_ne!(plain.fingerprint(), marked.fingerprint());
        let unmarked = ObjectModel::from_sources(&[("demo.xml", DEMO)]).unwrap();
        assert_eq!(plain.fingerprint(), unmarked.fingerprint());

        let errors = ObjectModel::from_sources(&[
            ("demo.xml", DEMO),
            ("mark.xml", &mark("true")),
            ("unmark.xml", &mark("false")),
        ])
        .unwrap_err()
        .0;
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains("keepLatest false conflicts with true")),
            "{errors:#?}"
        );
        let errors = ObjectModel::from_sources(&[("demo.xml", DEMO), ("bad.xml", &mark("often"))])
            .unwrap_err()
            .0;
        assert!(
            errors
                .iter()
                .any(|e| e.message.contains("neither true nor false")),
            "{errors:#?}"
        );
    }

    /// A federate that subscribes after five instances were updated ten times each hears,
    /// for each instance, discoverObjectInstance and then one reflectAttributeValues with
    /// the newest Position, from the routers' caches (the owner is not asked: the only
    /// thing it answers, the registration request, finds the instances known). An instance
    /// deleted before a second late joiner subscribes is not discovered by it: the keyed
    /// removal emptied the caches.
    #[test]
    fn a_late_joiner_discovers_each_instance_then_reflects_its_newest_values() {
        let mut w = World::new(3);
        let vehicle = w.feds[0].object_class("Vehicle").unwrap();
        let name = w.feds[0].attribute(vehicle, "Name").unwrap();
        let position = w.feds[0].attribute(vehicle, "Position").unwrap();
        assert!(w.feds[0].is_keep_latest(vehicle, position));
        assert!(!w.feds[0].is_keep_latest(vehicle, name));
        w.feds[0]
            .publish_object_class_attributes(vehicle, &[name, position])
            .unwrap();
        w.pump();
        let objects: Vec<ObjectId> = (0..5)
            .map(|_| {
                w.feds[0]
                    .register_object_instance(vehicle, None, 0)
                    .unwrap()
            })
            .collect();
        for round in 0..10u8 {
            for (i, &object) in objects.iter().enumerate() {
                let value = vec![i as u8, round];
                w.feds[0]
                    .update_attribute_values(object, &[(position, value)], b"", 0, None, None)
                    .unwrap();
            }
            w.pump();
        }

        w.feds[1]
            .subscribe_object_class_attributes(vehicle, &[name, position], &[])
            .unwrap();
        w.pump();
        w.pump();
        let callbacks = w.callbacks(1);
        let seen = per_instance(&callbacks);
        assert_eq!(seen.len(), objects.len(), "{callbacks:#?}");
        for (i, object) in objects.iter().enumerate() {
            let (discovered_at, positions) = &seen[object];
            assert_eq!(
                positions,
                &vec![vec![i as u8, 9]],
                "instance {i}: the newest, once"
            );
            assert!(callbacks[*discovered_at + 1..].iter().any(|c| matches!(
                c,
                Callback::ReflectAttributeValues { object: o, .. } if o == object
            )));
        }
        assert!(
            !callbacks
                .iter()
                .any(|c| matches!(c, Callback::ProvideAttributeValueUpdate { .. })),
            "nobody asked the owner for values"
        );
        assert!(
            w.callbacks(0).is_empty(),
            "the owner was not asked for values"
        );

        w.feds[0]
            .delete_object_instance(objects[0], b"", 0)
            .unwrap();
        w.pump();
        w.feds[2]
            .subscribe_object_class_attributes(vehicle, &[position], &[])
            .unwrap();
        w.pump();
        w.pump();
        let callbacks = w.callbacks(2);
        let seen = per_instance(&callbacks);
        assert_eq!(seen.len(), objects.len() - 1, "{callbacks:#?}");
        assert!(
            !seen.contains_key(&objects[0]),
            "the deleted instance stays gone"
        );
        let router = &w.sim.nodes[0].router;
        assert_eq!(router.stats().latest.cached_entries, 4);
    }
}

/// The keep-latest header changed the frame format (version 3), then the federate messages
/// inside data frames (version 4), then registry requests and events and time-stamped
/// messages (version 5, retraction serials), then manage frames (version 6, the asker its
/// first router proved), then the registry's requests and events again (version 7, the MOM's
/// manager resign), then again (version 8, save and restore): a peer speaking an older version is refused on its first frame with an
/// error naming its version, never read as garbage.
#[test]
fn an_older_peer_is_refused_with_a_clear_error() {
    assert_eq!(trellis_core::wire::PROTOCOL_VERSION, 8);
    for old in [2u8, 3, 4, 5, 6, 7] {
        refuse(old);
    }
}

/// A router refuses a first frame of version `old`, saying why in its goodbye.
fn refuse(old: u8) {
    use trellis_core::router::{CloseReason, Event, LinkSpec, Router};
    use trellis_core::wire::WireError;
    use trellis_core::Time;
    let mut router = Router::new(RouterConfig::new("r", NodeId(1)), Time::ZERO);
    let link = router.add_link(Time::ZERO, LinkSpec::accepted("old peer"));
    // A heartbeat of the old version: length 2, version, kind 4.
    router.handle_bytes(Time::ZERO, link, &[2, 0, 0, 0, old, 4]);
    let mut goodbye = Vec::new();
    while router.poll_transmit(Time::ZERO, link, &mut goodbye) > 0 {}
    let text = String::from_utf8_lossy(&goodbye).into_owned();
    assert!(
        text.contains(&format!(
            "unsupported protocol version {old} (this node speaks version 8)"
        )),
        "the goodbye says why: {text:?}"
    );
    router.handle_eof(Time::ZERO, link);
    let reason = std::iter::from_fn(|| router.poll_event())
        .find_map(|e| match e {
            Event::LinkClosed { reason, .. } => Some(reason),
            _ => None,
        })
        .expect("the link closed");
    assert_eq!(
        reason,
        CloseReason::Protocol(WireError::UnsupportedVersion { got: old })
    );
}
