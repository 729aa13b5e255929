//! The fuzzers' seed sessions are what this build's encoders write: a hello of the current
//! protocol version, interest, data of both classes, a heartbeat and a goodbye. A seed from
//! an older protocol is refused at its hello, and the fuzzer then reaches nothing past the
//! handshake unless a mutation happens to fix the version byte: the committed corpus carried
//! version 1 through three version bumps. This test fails when the seeds fall behind, and
//! writes them anew with `TRELLIS_WRITE_SEEDS=1`.

use bytes::BytesMut;
use std::path::PathBuf;
use trellis_core::router::{Event, LinkSpec, Router, RouterConfig};
use trellis_core::wire::{
    encode_heartbeat, DataFrame, DataHeader, FederationId, Goodbye, Hello, InterestFrame,
    InterestOp, LinkFlags, NodeId, Role, TransportClass, PROTOCOL_VERSION,
};
use trellis_core::Time;

const FEDERATION: &str = "Seed";
const SEED_FILE: &str = "seed-session";
/// The corpus directories of the fuzz targets that take a peer's bytes.
const TARGETS: [&str; 2] = ["decode_frame", "router_input"];

/// A child's whole session, as its node would write it.
fn session() -> Vec<u8> {
    let mut out = BytesMut::new();
    Hello {
        node_id: NodeId(7),
        node_name: "seed".into(),
        role: Role::Child,
        flags: LinkFlags::source_sink(),
        federation: FEDERATION.into(),
        clique: String::new(),
        udp: None,
    }
    .encode(&mut out);
    let federation = FederationId::of(FEDERATION);
    InterestFrame::encode(&mut out, federation, InterestOp::Add, &[(5, 9)], 1 << 16);
    for (seq, class) in [TransportClass::Reliable, TransportClass::BestEffort]
        .into_iter()
        .enumerate()
    {
        let header = DataHeader {
            federation,
            source: NodeId(7),
            seq: seq as u64,
            priority: 4,
            class,
        };
        DataFrame::encode(&mut out, &header, &[5, 6], b"seed payload");
    }
    encode_heartbeat(&mut out);
    Goodbye::encode("seed session ends", &mut out);
    out.to_vec()
}

fn seed_path(target: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../fuzz/corpus")
        .join(target)
        .join(SEED_FILE)
}

#[test]
fn the_seed_session_gets_past_the_handshake() {
    let mut router = Router::new(RouterConfig::new("r", NodeId(1)), Time::ZERO);
    let link = router.add_link(Time::ZERO, LinkSpec::accepted("seed"));
    router.handle_bytes(Time::ZERO, link, &session());
    let mut events = Vec::new();
    while let Some(event) = router.poll_event() {
        events.push(event);
    }
    assert!(
        matches!(events.first(), Some(Event::LinkUp { .. })),
        "the hello is accepted: {events:?}"
    );
    assert_eq!(
        router.stats().data_received,
        2,
        "both data frames were read"
    );
    assert!(
        matches!(events.last(), Some(Event::LinkClosed { .. })),
        "the goodbye closes the link: {events:?}"
    );
}

#[test]
fn the_fuzz_seeds_speak_the_current_protocol() {
    let session = session();
    for target in TARGETS {
        let path = seed_path(target);
        if std::env::var_os("TRELLIS_WRITE_SEEDS").is_some() {
            std::fs::write(&path, &session).unwrap();
        }
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(
            committed == session,
            "{} is not what protocol version {PROTOCOL_VERSION} writes; write it anew with \
             TRELLIS_WRITE_SEEDS=1 cargo test -p trellis-core --test fuzz_seeds",
            path.display()
        );
    }
}
