//! A federate child's link on a bare router, its hello already handled: what the tests and
//! examples that drive one router with frames start from.

use bytes::BytesMut;
use trellis_core::router::{LinkId, LinkSpec, Router};
use trellis_core::wire::{Hello, LinkFlags, NodeId, Role};
use trellis_core::Time;

/// Accept a link from node `node` named `name` in `federation`, as a federate child that
/// publishes and subscribes.
pub fn accept_child(router: &mut Router, name: &str, node: u64, federation: &str) -> LinkId {
    let link = router.add_link(Time::ZERO, LinkSpec::accepted(name));
    let mut buf = BytesMut::new();
    Hello {
        node_id: NodeId(node),
        node_name: name.into(),
        role: Role::Child,
        flags: LinkFlags::source_sink(),
        federation: federation.into(),
        clique: String::new(),
        udp: None,
    }
    .encode(&mut buf);
    router.handle_bytes(Time::ZERO, link, &buf);
    link
}
