//! Any bytes from a peer, split at an arbitrary point, into a router: it closes the link
//! or carries on, and never panics. The same bytes as a datagram, too.
#![no_main]

use libfuzzer_sys::fuzz_target;
use trellis_core::router::{LinkSpec, Router, RouterConfig};
use trellis_core::wire::NodeId;
use trellis_core::Time;

fuzz_target!(|data: &[u8]| {
    let mut router = Router::new(RouterConfig::new("fuzz", NodeId(1)), Time::ZERO);
    let link = router.add_link(Time::ZERO, LinkSpec::accepted("fuzz"));
    let split = data.first().map_or(0, |&b| b as usize).min(data.len());
    router.handle_bytes(Time::ZERO, link, &data[..split]);
    router.handle_bytes(Time::ZERO, link, &data[split..]);
    router.handle_datagram(Time::ZERO, data);
    let mut out = Vec::new();
    while router.poll_transmit(Time::ZERO, link, &mut out) > 0 {}
    while router.poll_event().is_some() {}
    router.handle_eof(Time::ZERO, link);
});
