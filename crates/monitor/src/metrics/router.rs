//! Figures of a router host: the router's counters and, per link, traffic, queues, drops,
//! interest and state. Taken from [`trellis_net::HostStats`], which the event loop answers
//! once per scrape from the router's own counters; nothing more is counted for them.

use super::render::{Exposition, Kind};
use trellis_core::router::{Drops, IndexStats, LinkInfo, RouterStats};
use trellis_core::wire::Role;
use trellis_net::{AcceptRefusals, HostStats};

/// Each drop reason with its count, named as the fields of [`Drops`].
pub fn drop_reasons(drops: &Drops) -> [(&'static str, u64); 10] {
    [
        ("queue_full", drops.queue_full),
        ("evicted", drops.evicted),
        ("link_closed", drops.link_closed),
        ("unknown_session", drops.unknown_session),
        ("bad_datagram", drops.bad_datagram),
        ("reassembly_expired", drops.reassembly_expired),
        ("duplicate_datagram", drops.duplicate_datagram),
        ("duplicate_reliable", drops.duplicate_reliable),
        ("duplicate_best_effort", drops.duplicate_best_effort),
        ("not_permitted", drops.not_permitted),
    ]
}

/// Add the router and link families of one host to `out`.
pub fn write_host(out: &mut Exposition, stats: &HostStats) {
    write_router(out, &stats.router);
    write_refusals(out, &stats.refused);
    write_interest(out, &stats.interest);
    for link in &stats.links {
        if link.role == Some(Role::Application) {
            continue; // the process's own federate, not an edge of the topology
        }
        write_link(out, link, stats);
    }
}

fn write_router(out: &mut Exposition, router: &RouterStats) {
    let counters: [(&'static str, &'static str, u64); 9] = [
        (
            "trellis_router_data_received_total",
            "Data frames received from links or published here.",
            router.data_received,
        ),
        (
            "trellis_router_data_forwarded_total",
            "Copies of data frames queued toward links.",
            router.data_forwarded,
        ),
        (
            "trellis_router_data_delivered_total",
            "Data frames handed to the local application.",
            router.data_delivered,
        ),
        (
            "trellis_router_data_unrouted_total",
            "Data frames that matched no link's interest.",
            router.data_unrouted,
        ),
        (
            "trellis_router_links_opened_total",
            "Links opened, including those since closed.",
            router.links_opened,
        ),
        (
            "trellis_router_links_closed_total",
            "Links closed.",
            router.links_closed,
        ),
        (
            "trellis_router_reliable_lost_total",
            "Reliable messages the local application should have received and did not.",
            router.reliable_lost,
        ),
        (
            "trellis_router_requests_refused_total",
            "Registry requests refused: a link asking for another node, or a node acting for \
             a federate of another.",
            router.requests_refused,
        ),
        (
            "trellis_router_declarations_refused_total",
            "Interest declarations the access policy cut down: classes the link may not \
             subscribe to were left out.",
            router.declarations_refused,
        ),
    ];
    for (name, help, value) in counters {
        out.sample(name, Kind::Counter, help, &[], value as f64);
    }
    for (reason, count) in drop_reasons(&router.drops) {
        out.sample(
            "trellis_router_drops_total",
            Kind::Counter,
            "Frames the router dropped, by reason (links since closed included).",
            &[("reason", reason)],
            count as f64,
        );
    }
}

/// Connections the host refused for its link budget, by reason (`AcceptRefusals`).
fn write_refusals(out: &mut Exposition, refused: &AcceptRefusals) {
    let reasons = [
        ("full", refused.full),
        ("per_address", refused.per_address),
        ("per_identity", refused.per_identity),
        ("reserved_for_routers", refused.reserved_for_routers),
    ];
    for (reason, count) in reasons {
        out.sample(
            "trellis_router_connections_refused_total",
            Kind::Counter,
            "Connections refused for the link budget: every slot taken (full), the source \
             address at its limit (per_address), the certificate name at its limit \
             (per_identity), or a federate when only the slots kept for routers were left \
             (reserved_for_routers).",
            &[("reason", reason)],
            count as f64,
        );
    }
}

fn write_interest(out: &mut Exposition, index: &IndexStats) {
    let families: [(&'static str, Kind, &'static str, u64); 6] = [
        (
            "trellis_interest_ids",
            Kind::Gauge,
            "Interest ids some link declared, over every federation's index.",
            index.ids,
        ),
        (
            "trellis_interest_link_sets",
            Kind::Gauge,
            "Distinct sets of links that interest ids route to.",
            index.link_sets,
        ),
        (
            "trellis_interest_chunks",
            Kind::Gauge,
            "Chunks of 65,536 ids holding any.",
            index.chunks,
        ),
        (
            "trellis_interest_lookups_total",
            Kind::Counter,
            "Lookups of one id while forwarding.",
            index.lookups,
        ),
        (
            "trellis_interest_repeated_lookups_total",
            Kind::Counter,
            "Lookups answered by the memo of the previous one (the same id again).",
            index.repeated_lookups,
        ),
        (
            "trellis_interest_updates_total",
            Kind::Counter,
            "Declarations and withdrawals applied to the index.",
            index.updates,
        ),
    ];
    for (name, kind, help, value) in families {
        out.sample(name, kind, help, &[], value as f64);
    }
}

/// What the far side is to us, as the contract names it: a federate's link is `federate`
/// whatever its tree role; a link still in handshake has no role yet.
fn role_name(link: &LinkInfo) -> &'static str {
    let federate = link.peer.as_ref().is_some_and(|p| !p.federation.is_empty());
    match link.role {
        _ if federate => "federate",
        Some(Role::Parent) => "parent",
        Some(Role::Child) => "child",
        Some(Role::Peer) => "peer",
        Some(Role::Application) => "application",
        None => "",
    }
}

/// `3.1` for link slot 3, generation 1: unique among the host's links over time.
fn link_id(link: &LinkInfo) -> String {
    let text = link.id.to_string();
    text.strip_prefix("link ").unwrap_or(&text).to_owned()
}

/// A family whose two samples differ in one label: name, kind, help, the label, and each
/// of its values with the figure.
type SplitFamily = (
    &'static str,
    Kind,
    &'static str,
    &'static str,
    [(&'static str, u64); 2],
);

fn write_link(out: &mut Exposition, link: &LinkInfo, host: &HostStats) {
    let id = link_id(link);
    let (peer, federation) = link
        .peer
        .as_ref()
        .map_or(("", ""), |p| (p.node_name.as_str(), p.federation.as_str()));
    let base = [
        ("link", id.as_str()),
        ("peer", peer),
        ("role", role_name(link)),
        ("federation", federation),
    ];
    let with = |extra: (&'static str, &'static str)| {
        let mut labels = base.to_vec();
        labels.push(extra);
        labels
    };
    let s = &link.stats;
    let split: [SplitFamily; 5] = [
        (
            "trellis_link_messages_total",
            Kind::Counter,
            "Data frames over the link, by direction.",
            "direction",
            [("in", s.data_in), ("out", s.data_out)],
        ),
        (
            "trellis_link_bytes_total",
            Kind::Counter,
            "Bytes over the link, by direction.",
            "direction",
            [("in", s.bytes_in), ("out", s.bytes_out)],
        ),
        (
            "trellis_link_queue_depth",
            Kind::Gauge,
            "Frames queued toward the link now, by class.",
            "class",
            [
                ("reliable", link.reliable_frames as u64),
                ("best_effort", link.best_effort_frames as u64),
            ],
        ),
        (
            "trellis_link_queue_bytes",
            Kind::Gauge,
            "Bytes queued toward the link now, by class.",
            "class",
            [
                ("reliable", link.reliable_queued as u64),
                ("best_effort", link.best_effort_queued as u64),
            ],
        ),
        (
            "trellis_link_interest_ids",
            Kind::Gauge,
            "Interest ids declared on the link: in, by the peer to us; out, by us to it.",
            "direction",
            [("in", link.interest_in), ("out", link.interest_out)],
        ),
    ];
    for (name, kind, help, label, figures) in split {
        for (value, figure) in figures {
            out.sample(name, kind, help, &with((label, value)), figure as f64);
        }
    }
    for (reason, count) in drop_reasons(&s.drops) {
        out.sample(
            "trellis_link_drops_total",
            Kind::Counter,
            "Frames dropped on the link, by reason.",
            &with(("reason", reason)),
            count as f64,
        );
    }
    let up = link.up && !link.closing;
    let age = host.now.as_nanos().saturating_sub(link.opened.as_nanos()) as f64 / 1e9;
    let whole: [(&str, Kind, &str, f64); 4] = [
        (
            "trellis_link_pauses_total",
            Kind::Counter,
            "Times a reliable frame from the link waited for room downstream.",
            s.paused as f64,
        ),
        (
            "trellis_link_latest_replaced_total",
            Kind::Counter,
            "Keep-latest frames queued toward the link that a newer one replaced.",
            s.latest_replaced as f64,
        ),
        (
            "trellis_link_up",
            Kind::Gauge,
            "1 while the link is up, 0 in handshake or closing.",
            f64::from(u8::from(up)),
        ),
        (
            "trellis_link_age_seconds",
            Kind::Gauge,
            "Time since the link was opened.",
            age,
        ),
    ];
    for (name, kind, help, figure) in whole {
        out.sample(name, kind, help, &base, figure);
    }
}
