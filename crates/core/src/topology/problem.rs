//! What can be wrong with a topology, each worded so the reader can find and fix it.

use super::address::{AddressError, Scheme};
use super::model::NodeKind;
use thiserror::Error;

/// One reason a topology file is refused; validation collects them all so one run reports every
/// fault.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Problem {
    /// The file declares neither routers nor federates.
    #[error("the topology declares no routers and no federates")]
    Empty,

    /// A router, federate or clique name has characters or a length outside the allowed set.
    #[error(
        "{what} name {name:?} is not allowed: use 1 to {max} letters, digits, '-', '_' or '.'",
        max = super::validate::MAX_NAME_LEN
    )]
    BadName {
        /// Which kind of entry carries the name: "router", "federate" or "clique".
        what: &'static str,
        /// The name as written in the file.
        name: String,
    },

    /// One name is used by two entries, e.g. a router and a federate.
    #[error("the name {name:?} is declared twice: as a {first} and as a {second}")]
    DuplicateName {
        /// The name declared twice.
        name: String,
        /// Kind of the entry that declared it first.
        first: NodeKind,
        /// Kind of the entry that declared it again.
        second: NodeKind,
    },

    /// Two cliques share one name.
    #[error("two cliques are named {name:?}")]
    DuplicateClique {
        /// The clique name declared twice.
        name: String,
    },

    /// A parent, clique member or alternate names no declared router or federate.
    #[error("{entry}: {field} {name:?} is not a declared router or federate{hint}")]
    UnknownName {
        /// The declaring entry as problems name it, e.g. `router "hub"`.
        entry: String,
        /// The field that holds the name, e.g. "parent" or "members".
        field: &'static str,
        /// The name that matches no entry.
        name: String,
        /// Set when the name is that of a federate group, whose members carry a suffix.
        hint: String,
    },

    /// A link option (bundling delay, queue limit) lies outside its allowed range.
    #[error("{entry}: {option} = {value} is out of range (allowed: {allowed})")]
    OptionOutOfRange {
        /// The declaring entry as problems name it, e.g. `router "hub"`.
        entry: String,
        /// The option's key in the file, e.g. "queue_limit_bytes".
        option: &'static str,
        /// The value given.
        value: u64,
        /// The allowed range as text, e.g. "1 to 1073741824".
        allowed: String,
    },

    /// A federate group declares `count = 0`.
    #[error("federate {name:?}: count must be at least 1")]
    ZeroCount {
        /// The federate group's name.
        name: String,
    },

    /// A federate group with `count` also declares listen addresses, which all members would claim.
    #[error(
        "federate {name:?}: a group declared with count cannot have listen addresses \
         (every member would claim the same ones); declare these federates one by one"
    )]
    CountWithListen {
        /// The federate group's name.
        name: String,
    },

    /// More routers and federates (groups expanded) than validation accepts.
    #[error("the topology declares more than {limit} routers and federates")]
    TooManyNodes {
        /// The most nodes one topology may declare.
        limit: usize,
    },

    /// Cliques and parents would make more links than validation accepts.
    #[error("the topology declares {links} links; the limit is {limit}")]
    TooManyLinks {
        /// Links the topology would make.
        links: u64,
        /// The most links one topology may make.
        limit: u64,
    },

    /// A listen address does not parse.
    #[error("{entry}: {error}")]
    BadAddress {
        /// The declaring entry as problems name it, e.g. `router "hub"`.
        entry: String,
        /// What is wrong with the address.
        error: AddressError,
    },

    /// One entry lists two listen addresses of the same scheme, so a dialer could not choose.
    #[error(
        "{entry} listens on two {scheme}:// addresses, {first} and {second}; \
         a process dialing it could not tell which to use"
    )]
    TwoAddressesOneScheme {
        /// The declaring entry as problems name it, e.g. `router "hub"`.
        entry: String,
        /// The scheme both addresses use.
        scheme: Scheme,
        /// The first address as written.
        first: String,
        /// The second address as written.
        second: String,
    },

    /// Two entries listen on the same address and port.
    #[error(
        "{second} listens on {second_address}, where {first} listens already \
         ({first_address}): two listeners cannot share one port"
    )]
    SharedListenAddress {
        /// The entry that declared the address first.
        first: String,
        /// The address as the first entry wrote it.
        first_address: String,
        /// The entry that declared it again.
        second: String,
        /// The address as the second entry wrote it.
        second_address: String,
    },

    /// A router's `metrics` value is not a socket address.
    #[error("router {router:?}: metrics = {value:?} is not a metrics address: {why}")]
    BadMetricsAddress {
        /// The router's name.
        router: String,
        /// The value as written.
        value: String,
        /// Why it does not parse.
        why: String,
    },

    /// A router's metrics endpoint takes a port already used by another listener or metrics
    /// endpoint.
    #[error("router {router:?}: metrics = \"{address}\" takes the port of {other}")]
    DuplicateMetricsPort {
        /// The router's name.
        router: String,
        /// The metrics address it asked for.
        address: std::net::SocketAddr,
        /// Who holds that port already, as problems name entries.
        other: String,
    },

    /// An entry sets `link` options but has no parent link for them to apply to.
    #[error(
        "{entry} sets link options but has no parent (link sets the options of the link \
         to the parent)"
    )]
    LinkWithoutParent {
        /// The declaring entry as problems name it, e.g. `router "hub"`.
        entry: String,
    },

    /// A clique lists fewer than two members.
    #[error("clique {clique:?} has {members} member(s); a clique needs at least 2")]
    SmallClique {
        /// The clique's name.
        clique: String,
        /// How many members it lists.
        members: usize,
    },

    /// A clique lists one member twice.
    #[error("clique {clique:?} lists {member:?} more than once")]
    RepeatedMember {
        /// The clique's name.
        clique: String,
        /// The member listed more than once.
        member: String,
    },

    /// Parent links form a cycle, so the tree has no root.
    #[error("parent links form a cycle: {}", cycle_text(.cycle))]
    ParentCycle {
        /// The nodes on the cycle, in parent order.
        cycle: Vec<String>,
    },

    /// Two declarations link the same pair of nodes, which would deliver every message twice.
    #[error(
        "{a:?} and {b:?} are linked twice, by {first} and by {second}; a second link between \
         one pair would carry every message twice"
    )]
    DuplicateLink {
        /// One end of the doubled link.
        a: String,
        /// The other end.
        b: String,
        /// The first declaration making the link, e.g. a parent or a clique.
        first: String,
        /// The second declaration making it.
        second: String,
    },

    /// A federate has neither a parent nor a clique, so nothing can reach it.
    #[error(
        "federate {federate:?} has no attachment: give it a parent or make it a member of \
         a clique"
    )]
    Unattached {
        /// The federate's name.
        federate: String,
    },

    /// The nodes fall into parts with no links between them.
    #[error(
        "the topology falls apart into {} parts that cannot reach each other: {}",
        .parts.len(),
        parts_text(.parts)
    )]
    Disconnected {
        /// The node names of each part that cannot reach the others.
        parts: Vec<Vec<String>>,
    },

    /// A biconnected component is not fully meshed, which routing requires (DESIGN.md §2).
    #[error(
        "{} form a biconnected component that is not a clique: {:?} and {:?} are not \
         linked (every biconnected component must be a clique, DESIGN.md §2)",
        names_text(.component),
        .missing.0,
        .missing.1
    )]
    NotAClique {
        /// The node names of the component.
        component: Vec<String>,
        /// A pair in the component that has no direct link.
        missing: (String, String),
    },

    /// Nodes fully linked to each other by several clique declarations; split horizon per clique
    /// would loop messages.
    #[error(
        "{} are all linked to each other, but by {} separate declarations ({}); routers \
         keep split horizon per declared clique, so messages would loop among them: \
         declare them as one clique",
        names_text(.component),
        .declarations.len(),
        .declarations.join(", ")
    )]
    SplitClique {
        /// The node names of the component.
        component: Vec<String>,
        /// The declarations that together link it, as problems name them.
        declarations: Vec<String>,
    },

    /// Links dial an entry over a scheme it does not listen on.
    #[error(
        "{entry} has no {scheme}:// listen address, yet {links} link(s) dial it over \
         {scheme}://, e.g. {example}"
    )]
    MissingListen {
        /// The declaring entry as problems name it, e.g. `router "hub"`.
        entry: String,
        /// The scheme the dialers need.
        scheme: Scheme,
        /// How many links dial it over that scheme.
        links: usize,
        /// One dialer, to help find them.
        example: String,
    },

    /// A router's TLS settings are partial (e.g. a certificate without its key).
    #[error("router {router:?}: {why}")]
    IncompleteTls {
        /// The router's name.
        router: String,
        /// Which setting is missing or contradicts another.
        why: String,
    },

    /// An entry lists alternates but has no parent for them to replace.
    #[error("{entry} lists alternates but has no parent (alternates replace the parent when its link fails)")]
    AlternatesWithoutParent {
        /// The declaring entry as problems name it, e.g. `router "hub"`.
        entry: String,
    },

    /// An alternate parent cannot be used (unknown, the entry itself, its parent, or listed twice).
    #[error("{entry}: alternate {alternate:?} {why}")]
    BadAlternate {
        /// The declaring entry as problems name it, e.g. `router "hub"`.
        entry: String,
        /// The alternate's name as written.
        alternate: String,
        /// Why it cannot be used.
        why: &'static str,
    },

    /// Some failover to alternates would leave an invalid topology.
    #[error(
        "with {attachments}, the topology in force would be invalid:{}",
        .problems.iter().map(|p| format!(" {p};")).collect::<String>()
    )]
    FailoverInvalid {
        /// The attachments in force in that combination, as text.
        attachments: String,
        /// The problems that topology would have.
        problems: Vec<String>,
    },

    /// The alternates allow more combinations than failover validation checks.
    #[error(
        "the alternates allow {combinations} combinations of attachments among routers; at most {limit} are checked: give fewer alternates"
    )]
    TooManyFailoverCombinations {
        /// Combinations of attachments the alternates allow.
        combinations: u64,
        /// The most combinations checked.
        limit: u64,
    },
}

/// Long lists are cut short: the first names locate the problem, the count sizes it.
const NAMES_SHOWN: usize = 12;

pub(super) fn names_text(names: &[String]) -> String {
    let shown: Vec<String> = names
        .iter()
        .take(NAMES_SHOWN)
        .map(|name| format!("{name:?}"))
        .collect();
    let mut text = shown.join(", ");
    if names.len() > NAMES_SHOWN {
        text.push_str(&format!(" and {} more", names.len() - NAMES_SHOWN));
    }
    text
}

fn parts_text(parts: &[Vec<String>]) -> String {
    let shown: Vec<String> = parts
        .iter()
        .map(|part| format!("[{}]", names_text(part)))
        .collect();
    shown.join(", ")
}

fn cycle_text(cycle: &[String]) -> String {
    let mut text: Vec<&str> = cycle.iter().map(String::as_str).collect();
    if let Some(first) = cycle.first() {
        text.push(first);
    }
    text.join(" → ")
}

/// One problem a line, for the message of [`super::TopologyError::Invalid`].
pub(super) fn list_text(problems: &[Problem]) -> String {
    let lines: Vec<String> = problems
        .iter()
        .map(|problem| format!("\n  - {problem}"))
        .collect();
    lines.concat()
}
