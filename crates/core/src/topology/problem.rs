//! What can be wrong with a topology, each worded so the reader can find and fix it.

use super::address::{AddressError, Scheme};
use super::model::NodeKind;
use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum Problem {
    #[error("the topology declares no routers and no federates")]
    Empty,

    #[error(
        "{what} name {name:?} is not allowed: use 1 to {max} letters, digits, '-', '_' or '.'",
        max = super::validate::MAX_NAME_LEN
    )]
    BadName { what: &'static str, name: String },

    #[error("the name {name:?} is declared twice: as a {first} and as a {second}")]
    DuplicateName {
        name: String,
        first: NodeKind,
        second: NodeKind,
    },

    #[error("two cliques are named {name:?}")]
    DuplicateClique { name: String },

    #[error("{entry}: {field} {name:?} is not a declared router or federate{hint}")]
    UnknownName {
        entry: String,
        field: &'static str,
        name: String,
        /// Set when the name is that of a federate group, whose members carry a suffix.
        hint: String,
    },

    #[error("{entry}: {option} = {value} is out of range (allowed: {allowed})")]
    OptionOutOfRange {
        entry: String,
        option: &'static str,
        value: u64,
        allowed: String,
    },

    #[error("federate {name:?}: count must be at least 1")]
    ZeroCount { name: String },

    #[error(
        "federate {name:?}: a group declared with count cannot have listen addresses \
         (every member would claim the same ones); declare these federates one by one"
    )]
    CountWithListen { name: String },

    #[error("the topology declares more than {limit} routers and federates")]
    TooManyNodes { limit: usize },

    #[error("the topology declares {links} links; the limit is {limit}")]
    TooManyLinks { links: u64, limit: u64 },

    #[error("{entry}: {error}")]
    BadAddress { entry: String, error: AddressError },

    #[error(
        "{entry} listens on two {scheme}:// addresses, {first} and {second}; \
         a process dialing it could not tell which to use"
    )]
    TwoAddressesOneScheme {
        entry: String,
        scheme: Scheme,
        first: String,
        second: String,
    },

    #[error(
        "{second} listens on {second_address}, where {first} listens already \
         ({first_address}): two listeners cannot share one port"
    )]
    SharedListenAddress {
        first: String,
        first_address: String,
        second: String,
        second_address: String,
    },

    #[error("router {router:?}: metrics = {value:?} is not a metrics address: {why}")]
    BadMetricsAddress {
        router: String,
        value: String,
        why: String,
    },

    #[error("router {router:?}: metrics = \"{address}\" takes the port of {other}")]
    DuplicateMetricsPort {
        router: String,
        address: std::net::SocketAddr,
        other: String,
    },

    #[error(
        "{entry} sets link options but has no parent (link sets the options of the link \
         to the parent)"
    )]
    LinkWithoutParent { entry: String },

    #[error("clique {clique:?} has {members} member(s); a clique needs at least 2")]
    SmallClique { clique: String, members: usize },

    #[error("clique {clique:?} lists {member:?} more than once")]
    RepeatedMember { clique: String, member: String },

    #[error("parent links form a cycle: {}", cycle_text(.cycle))]
    ParentCycle { cycle: Vec<String> },

    #[error(
        "{a:?} and {b:?} are linked twice, by {first} and by {second}; a second link between \
         one pair would carry every message twice"
    )]
    DuplicateLink {
        a: String,
        b: String,
        first: String,
        second: String,
    },

    #[error(
        "federate {federate:?} has no attachment: give it a parent or make it a member of \
         a clique"
    )]
    Unattached { federate: String },

    #[error(
        "the topology falls apart into {} parts that cannot reach each other: {}",
        .parts.len(),
        parts_text(.parts)
    )]
    Disconnected { parts: Vec<Vec<String>> },

    #[error(
        "{} form a biconnected component that is not a clique: {:?} and {:?} are not \
         linked (every biconnected component must be a clique, DESIGN.md §2)",
        names_text(.component),
        .missing.0,
        .missing.1
    )]
    NotAClique {
        component: Vec<String>,
        missing: (String, String),
    },

    #[error(
        "{} are all linked to each other, but by {} separate declarations ({}); routers \
         keep split horizon per declared clique, so messages would loop among them: \
         declare them as one clique",
        names_text(.component),
        .declarations.len(),
        .declarations.join(", ")
    )]
    SplitClique {
        component: Vec<String>,
        declarations: Vec<String>,
    },

    #[error(
        "{entry} has no {scheme}:// listen address, yet {links} link(s) dial it over \
         {scheme}://, e.g. {example}"
    )]
    MissingListen {
        entry: String,
        scheme: Scheme,
        links: usize,
        example: String,
    },

    #[error("router {router:?}: {why}")]
    IncompleteTls { router: String, why: String },

    #[error("{entry} lists alternates but has no parent (alternates replace the parent when its link fails)")]
    AlternatesWithoutParent { entry: String },

    #[error("{entry}: alternate {alternate:?} {why}")]
    BadAlternate {
        entry: String,
        alternate: String,
        why: &'static str,
    },

    #[error(
        "with {attachments}, the topology in force would be invalid:{}",
        .problems.iter().map(|p| format!(" {p};")).collect::<String>()
    )]
    FailoverInvalid {
        attachments: String,
        problems: Vec<String>,
    },

    #[error(
        "the alternates allow {combinations} combinations of attachments among routers; at          most {limit} are checked: give fewer alternates"
    )]
    TooManyFailoverCombinations { combinations: u64, limit: u64 },
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
