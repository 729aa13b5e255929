//! Checking a topology file and building the [`Topology`] it describes.
//!
//! Every problem found is reported, not just the first. The checks of the graph's shape
//! (cycles, blocks, connectivity, who can be dialed) run only once every name resolves and
//! every clique is big enough: a typo in one name should read as one problem, not as the
//! cascade of "unattached" and "disconnected" it would otherwise cause.

use super::address::{ListenAddress, Scheme};
use super::blocks::blocks;
use super::file::TopologyFile;
use super::link::{LinkOptions, LinkOverrides, Pipe, MAX_BUNDLING_DELAY_MS, MAX_QUEUE_LIMIT_BYTES};
use super::model::{Clique, DialTarget, Link, LinkKind, Node, NodeKind, ParentLink, Topology};
use super::problem::Problem;
use rustc_hash::{FxHashMap, FxHashSet};
use std::collections::hash_map::Entry;
use std::collections::BTreeMap;

/// Names end up in logs, file names and `mem://` addresses; keep them plain and short.
pub(super) const MAX_NAME_LEN: usize = 100;

/// Most routers and federates in one topology, federate groups counted member by member.
pub const MAX_NODES: usize = 100_000;

/// Most links in one topology. A clique of k members has k(k-1)/2 of them; this bound keeps
/// a large clique from costing unbounded memory.
pub const MAX_LINKS: u64 = 1 << 20;

/// A node as declared, before its parent is resolved.
struct Declared<'f> {
    name: String,
    kind: NodeKind,
    /// How problems name the declaring entry: `router "hub"`, `federate group "tank"`.
    entry: String,
    listen: Vec<ListenAddress>,
    /// A listen address was refused, so a missing one has already been reported.
    listen_broken: bool,
    parent: Option<&'f str>,
    link: &'f LinkOverrides,
}

/// Where a link comes from in the file: what split horizon keys its block by.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Declaration {
    ParentOf(usize),
    Clique(usize),
}

struct Checker {
    problems: Vec<Problem>,
    /// False once a name does not resolve or a clique is too small to link anything.
    shape_known: bool,
}

pub(super) fn validate(file: &TopologyFile) -> Result<Topology, Vec<Problem>> {
    let mut check = Checker {
        problems: Vec::new(),
        shape_known: true,
    };
    if file.routers.is_empty() && file.federates.is_empty() {
        check.report(Problem::Empty);
    }
    check.link_options("[defaults]", &file.defaults);
    let declared = check.declare(file);
    check.shared_listen(&declared);
    let (metrics, metrics_problems) = super::metrics::metrics_addresses(file);
    let (tls, tls_problems) = super::tls::router_tls(file);
    for problem in metrics_problems.into_iter().chain(tls_problems) {
        check.report(problem);
    }
    let by_name = check.index(&declared);
    let groups: FxHashMap<&str, u32> = file
        .federates
        .iter()
        .filter_map(|entry| Some((entry.name.as_str(), entry.count?)))
        .collect();
    let parents = check.resolve_parents(&declared, &by_name, &groups);
    let cliques = check.resolve_cliques(file, &by_name, &groups);
    if !check.shape_known {
        return Err(check.problems);
    }
    let links = check.shape(&declared, &parents, &cliques, &file.defaults);
    let topology = match links {
        Some(links) if check.problems.is_empty() => Topology {
            defaults: file.defaults.clone(),
            nodes: declared
                .into_iter()
                .zip(parents)
                .enumerate()
                .map(|(index, (node, parent))| Node {
                    // Routers come first in `declared`, in the file's order.
                    metrics: metrics.get(index).copied().flatten(),
                    tls: tls.get(index).cloned().flatten(),
                    name: node.name,
                    kind: node.kind,
                    listen: node.listen,
                    parent: parent.map(|parent| ParentLink {
                        node: parent,
                        link: node.link.clone(),
                    }),
                    alternates: Vec::new(),
                })
                .collect(),
            cliques,
            links,
            by_name,
        },
        _ => return Err(check.problems),
    };
    let problems = super::tls::dialers_without_ca(&topology);
    if !problems.is_empty() {
        return Err(problems);
    }
    with_alternates(file, topology)
}

/// The primary topology is valid: check and resolve the alternate parents, if any.
fn with_alternates(file: &TopologyFile, mut topology: Topology) -> Result<Topology, Vec<Problem>> {
    let any = file.routers.iter().any(|r| !r.alternates.is_empty())
        || file.federates.iter().any(|f| !f.alternates.is_empty());
    if !any {
        return Ok(topology);
    }
    let alternates = super::failover::resolve(file, &topology)?;
    for (node, list) in topology.nodes.iter_mut().zip(alternates) {
        node.alternates = list;
    }
    Ok(topology)
}

fn hint_for(name: &str, groups: &FxHashMap<&str, u32>) -> String {
    match groups.get(name) {
        Some(count) => format!(
            " (the federates of group {name:?} are named \"{name}-1\" … \"{name}-{count}\")"
        ),
        None => String::new(),
    }
}

impl Checker {
    fn report(&mut self, problem: Problem) {
        // The members of a federate group share their entry's problems: say each once.
        if self.problems.last() != Some(&problem) {
            self.problems.push(problem);
        }
    }

    fn name(&mut self, what: &'static str, name: &str) -> bool {
        let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.');
        let good = !name.is_empty() && name.len() <= MAX_NAME_LEN && name.chars().all(plain);
        if !good {
            self.report(Problem::BadName {
                what,
                name: name.to_owned(),
            });
        }
        good
    }

    fn link_options(&mut self, entry: &str, link: &LinkOverrides) {
        if let Some(value) = link
            .bundling_delay_ms
            .filter(|&v| v > MAX_BUNDLING_DELAY_MS)
        {
            self.report(Problem::OptionOutOfRange {
                entry: entry.to_owned(),
                option: "bundling_delay_ms",
                value,
                allowed: format!("0 to {MAX_BUNDLING_DELAY_MS}"),
            });
        }
        let queue_limit = link.queue_limit_bytes;
        if let Some(value) = queue_limit.filter(|&v| v == 0 || v > MAX_QUEUE_LIMIT_BYTES) {
            self.report(Problem::OptionOutOfRange {
                entry: entry.to_owned(),
                option: "queue_limit_bytes",
                value,
                allowed: format!("1 to {MAX_QUEUE_LIMIT_BYTES}"),
            });
        }
    }

    fn listen(&mut self, entry: &str, texts: &[String]) -> (Vec<ListenAddress>, bool) {
        let mut listen: Vec<ListenAddress> = Vec::new();
        let mut broken = false;
        for text in texts {
            match text.parse::<ListenAddress>() {
                Ok(address) => match listen.iter().find(|a| a.scheme() == address.scheme()) {
                    Some(first) => {
                        broken = true;
                        self.report(Problem::TwoAddressesOneScheme {
                            entry: entry.to_owned(),
                            scheme: address.scheme(),
                            first: first.to_string(),
                            second: address.to_string(),
                        });
                    }
                    None => listen.push(address),
                },
                Err(error) => {
                    broken = true;
                    self.report(Problem::BadAddress {
                        entry: entry.to_owned(),
                        error,
                    });
                }
            }
        }
        (listen, broken)
    }

    /// Every router and federate, groups expanded, with their entry-level checks done.
    fn declare<'f>(&mut self, file: &'f TopologyFile) -> Vec<Declared<'f>> {
        let mut declared = Vec::new();
        let too_many = || Problem::TooManyNodes { limit: MAX_NODES };
        for router in &file.routers {
            let entry = format!("router {:?}", router.name);
            self.name("router", &router.name);
            self.parent_options(&entry, router.parent.as_deref(), &router.link);
            let (listen, listen_broken) = self.listen(&entry, &router.listen);
            declared.push(Declared {
                name: router.name.clone(),
                kind: NodeKind::Router,
                entry,
                listen,
                listen_broken,
                parent: router.parent.as_deref(),
                link: &router.link,
            });
        }
        for federate in &file.federates {
            let (entry, names) = match federate.count {
                None => {
                    self.name("federate", &federate.name);
                    let names = vec![federate.name.clone()];
                    (format!("federate {:?}", federate.name), names)
                }
                Some(0) => {
                    self.report(Problem::ZeroCount {
                        name: federate.name.clone(),
                    });
                    continue;
                }
                Some(count) => {
                    if self.name("federate", &federate.name) {
                        self.name("federate", &format!("{}-{count}", federate.name));
                    }
                    if !federate.listen.is_empty() {
                        self.report(Problem::CountWithListen {
                            name: federate.name.clone(),
                        });
                    }
                    if declared.len().saturating_add(count as usize) > MAX_NODES {
                        self.shape_known = false;
                        self.report(too_many());
                        break;
                    }
                    let names = (1..=count)
                        .map(|i| format!("{}-{i}", federate.name))
                        .collect();
                    (format!("federate group {:?}", federate.name), names)
                }
            };
            if declared.len() + names.len() > MAX_NODES {
                self.shape_known = false;
                self.report(too_many());
                break;
            }
            self.parent_options(&entry, federate.parent.as_deref(), &federate.link);
            let (listen, listen_broken) = self.listen(&entry, &federate.listen);
            for name in names {
                declared.push(Declared {
                    name,
                    kind: NodeKind::Federate,
                    entry: entry.clone(),
                    listen: listen.clone(),
                    listen_broken,
                    parent: federate.parent.as_deref(),
                    link: &federate.link,
                });
            }
        }
        declared
    }

    fn parent_options(&mut self, entry: &str, parent: Option<&str>, link: &LinkOverrides) {
        self.link_options(entry, link);
        if parent.is_none() && !link.is_empty() {
            self.report(Problem::LinkWithoutParent {
                entry: entry.to_owned(),
            });
        }
    }

    /// Two listeners on one socket (as written; the core resolves no names): the second
    /// process could not start. (The members of a group with listen addresses are told
    /// once, by `CountWithListen`.)
    fn shared_listen(&mut self, declared: &[Declared]) {
        let mut bound: FxHashMap<(&str, &str), (&str, &ListenAddress)> = FxHashMap::default();
        for node in declared {
            for address in &node.listen {
                match bound.entry(address.binds()) {
                    Entry::Occupied(first) if first.get().0 == node.entry => {}
                    Entry::Occupied(first) => {
                        let (first, first_address) = *first.get();
                        self.report(Problem::SharedListenAddress {
                            first: first.to_owned(),
                            first_address: first_address.to_string(),
                            second: node.entry.clone(),
                            second_address: address.to_string(),
                        });
                    }
                    Entry::Vacant(slot) => {
                        slot.insert((&node.entry, address));
                    }
                }
            }
        }
    }

    fn index(&mut self, declared: &[Declared]) -> FxHashMap<String, usize> {
        let mut by_name: FxHashMap<String, usize> = FxHashMap::default();
        for (index, node) in declared.iter().enumerate() {
            match by_name.entry(node.name.clone()) {
                Entry::Occupied(first) => {
                    self.shape_known = false;
                    self.report(Problem::DuplicateName {
                        name: node.name.clone(),
                        first: declared[*first.get()].kind,
                        second: node.kind,
                    });
                }
                Entry::Vacant(slot) => {
                    slot.insert(index);
                }
            }
        }
        by_name
    }

    fn resolve_parents(
        &mut self,
        declared: &[Declared],
        by_name: &FxHashMap<String, usize>,
        groups: &FxHashMap<&str, u32>,
    ) -> Vec<Option<usize>> {
        let mut parents = Vec::with_capacity(declared.len());
        for node in declared {
            let parent = node.parent.and_then(|name| {
                let found = by_name.get(name).copied();
                if found.is_none() {
                    self.shape_known = false;
                    self.report(Problem::UnknownName {
                        entry: node.entry.clone(),
                        field: "parent",
                        name: name.to_owned(),
                        hint: hint_for(name, groups),
                    });
                }
                found
            });
            parents.push(parent);
        }
        parents
    }

    fn resolve_cliques(
        &mut self,
        file: &TopologyFile,
        by_name: &FxHashMap<String, usize>,
        groups: &FxHashMap<&str, u32>,
    ) -> Vec<Clique> {
        let mut clique_names = FxHashSet::default();
        let mut cliques = Vec::with_capacity(file.cliques.len());
        for clique in &file.cliques {
            let entry = format!("clique {:?}", clique.name);
            self.name("clique", &clique.name);
            if !clique_names.insert(clique.name.as_str()) {
                self.report(Problem::DuplicateClique {
                    name: clique.name.clone(),
                });
            }
            self.link_options(&entry, &clique.link);
            let mut listed = FxHashSet::default();
            let mut members = Vec::with_capacity(clique.members.len());
            for member in &clique.members {
                if !listed.insert(member.as_str()) {
                    self.report(Problem::RepeatedMember {
                        clique: clique.name.clone(),
                        member: member.clone(),
                    });
                    continue;
                }
                match by_name.get(member) {
                    Some(&index) => members.push(index),
                    None => {
                        self.shape_known = false;
                        self.report(Problem::UnknownName {
                            entry: entry.clone(),
                            field: "member",
                            name: member.clone(),
                            hint: hint_for(member, groups),
                        });
                    }
                }
            }
            if listed.len() < 2 {
                self.shape_known = false;
                self.report(Problem::SmallClique {
                    clique: clique.name.clone(),
                    members: listed.len(),
                });
            }
            cliques.push(Clique {
                name: clique.name.clone(),
                members,
                link: clique.link.clone(),
            });
        }
        cliques
    }

    /// The checks of the graph as a whole; the links, if they could all be built.
    fn shape(
        &mut self,
        declared: &[Declared],
        parents: &[Option<usize>],
        cliques: &[Clique],
        defaults: &LinkOverrides,
    ) -> Option<Vec<Link>> {
        let on_cycle = self.parent_cycles(declared, parents);
        let declared_links = parents.iter().flatten().count() as u64
            + cliques
                .iter()
                .map(|clique| {
                    let size = clique.members.len() as u64;
                    size * size.saturating_sub(1) / 2
                })
                .sum::<u64>();
        if declared_links > MAX_LINKS {
            self.report(Problem::TooManyLinks {
                links: declared_links,
                limit: MAX_LINKS,
            });
            return None;
        }
        let describe = |declaration: Declaration| match declaration {
            Declaration::ParentOf(child) => {
                format!("the parent link of {:?}", declared[child].name)
            }
            Declaration::Clique(clique) => format!("clique {:?}", cliques[clique].name),
        };

        let mut edges = Vec::new();
        let mut declarations = Vec::new();
        let mut first_declared = FxHashMap::default();
        let parent_links = parents
            .iter()
            .enumerate()
            .filter_map(|(child, parent)| Some((child, (*parent)?)))
            .filter(|(child, parent)| child != parent)
            .map(|(child, parent)| (child, parent, Declaration::ParentOf(child)));
        let peer_links = cliques.iter().enumerate().flat_map(|(index, clique)| {
            let members = &clique.members;
            members.iter().enumerate().flat_map(move |(i, &a)| {
                members[i + 1..]
                    .iter()
                    .map(move |&b| (a, b, Declaration::Clique(index)))
            })
        });
        for (a, b, declaration) in parent_links.chain(peer_links) {
            match first_declared.entry((a.min(b), a.max(b))) {
                Entry::Occupied(first) => {
                    let first: Declaration = *first.get();
                    // Two parents naming each other are one cycle, already reported.
                    let mutual = matches!(first, Declaration::ParentOf(_))
                        && matches!(declaration, Declaration::ParentOf(_))
                        && on_cycle[a]
                        && on_cycle[b];
                    if !mutual {
                        let mut pair = [&declared[a].name, &declared[b].name];
                        pair.sort();
                        self.report(Problem::DuplicateLink {
                            a: pair[0].clone(),
                            b: pair[1].clone(),
                            first: describe(first),
                            second: describe(declaration),
                        });
                    }
                }
                Entry::Vacant(slot) => {
                    slot.insert(declaration);
                    edges.push((a, b));
                    declarations.push(declaration);
                }
            }
        }

        self.attachment_and_reach(declared, &edges, &on_cycle);
        self.blocks_are_cliques(declared, &edges, &declarations, &on_cycle, describe);
        self.links(declared, cliques, defaults, &edges, &declarations, describe)
    }

    /// Reports every cycle of parent links once; returns which nodes lie on one.
    fn parent_cycles(&mut self, declared: &[Declared], parents: &[Option<usize>]) -> Vec<bool> {
        const UNSEEN: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![UNSEEN; parents.len()];
        let mut on_cycle = vec![false; parents.len()];
        for start in 0..parents.len() {
            let mut path = Vec::new();
            let mut next = Some(start);
            while let Some(node) = next.filter(|&node| state[node] == UNSEEN) {
                state[node] = ON_PATH;
                path.push(node);
                next = parents[node];
            }
            if let Some(repeat) = next.filter(|&node| state[node] == ON_PATH) {
                let from = path.iter().position(|&node| node == repeat).unwrap_or(0);
                let mut cycle: Vec<usize> = path[from..].to_vec();
                for &node in &cycle {
                    on_cycle[node] = true;
                }
                // Start at the least name, so the same cycle always reads the same.
                let least = (0..cycle.len())
                    .min_by_key(|&i| &declared[cycle[i]].name)
                    .unwrap_or(0);
                cycle.rotate_left(least);
                self.report(Problem::ParentCycle {
                    cycle: cycle
                        .iter()
                        .map(|&node| declared[node].name.clone())
                        .collect(),
                });
            }
            for node in path {
                state[node] = DONE;
            }
        }
        on_cycle
    }

    fn attachment_and_reach(
        &mut self,
        declared: &[Declared],
        edges: &[(usize, usize)],
        on_cycle: &[bool],
    ) {
        let mut adjacent = vec![Vec::new(); declared.len()];
        for &(a, b) in edges {
            adjacent[a].push(b);
            adjacent[b].push(a);
        }
        let mut lonely = vec![false; declared.len()];
        for (index, node) in declared.iter().enumerate() {
            if node.kind == NodeKind::Federate && adjacent[index].is_empty() {
                lonely[index] = true;
                if !on_cycle[index] {
                    self.report(Problem::Unattached {
                        federate: node.name.clone(),
                    });
                }
            }
        }
        let mut reached = lonely;
        let mut parts = Vec::new();
        for start in 0..declared.len() {
            if reached[start] {
                continue;
            }
            reached[start] = true;
            let mut part = vec![start];
            let mut next = 0;
            while let Some(&node) = part.get(next) {
                next += 1;
                for &far in &adjacent[node] {
                    if !reached[far] {
                        reached[far] = true;
                        part.push(far);
                    }
                }
            }
            parts.push(sorted_names(declared, &part));
        }
        if parts.len() > 1 {
            self.report(Problem::Disconnected { parts });
        }
    }

    /// DESIGN.md §2: every block must be a clique. Routers keep split horizon per declared
    /// clique (a parent link is a block of its own), so a block must also be declared as
    /// one: three parent and clique links closing a triangle are a clique of the graph, yet
    /// each router would forward around it.
    fn blocks_are_cliques(
        &mut self,
        declared: &[Declared],
        edges: &[(usize, usize)],
        declarations: &[Declaration],
        on_cycle: &[bool],
        describe: impl Fn(Declaration) -> String,
    ) {
        for block in blocks(declared.len(), edges) {
            let mut nodes: Vec<usize> = block
                .iter()
                .flat_map(|&edge| [edges[edge].0, edges[edge].1])
                .collect();
            nodes.sort_unstable();
            nodes.dedup();
            // A cycle of parent links is reported as such; a block of two is a clique.
            if nodes.len() < 3 || nodes.iter().all(|&node| on_cycle[node]) {
                continue;
            }
            nodes.sort_by(|&a, &b| declared[a].name.cmp(&declared[b].name));
            let component = nodes.iter().map(|&n| declared[n].name.clone()).collect();
            let pairs = nodes.len() * (nodes.len() - 1) / 2;
            if block.len() < pairs {
                let linked: FxHashSet<(usize, usize)> = block
                    .iter()
                    .map(|&edge| {
                        let (a, b) = edges[edge];
                        (a.min(b), a.max(b))
                    })
                    .collect();
                let missing = nodes.iter().enumerate().find_map(|(i, &a)| {
                    let b = *nodes[i + 1..]
                        .iter()
                        .find(|&&b| !linked.contains(&(a.min(b), a.max(b))))?;
                    Some((declared[a].name.clone(), declared[b].name.clone()))
                });
                if let Some(missing) = missing {
                    self.report(Problem::NotAClique { component, missing });
                }
                continue;
            }
            let mut sources: Vec<Declaration> = block.iter().map(|&e| declarations[e]).collect();
            sources.sort_unstable();
            sources.dedup();
            if sources.len() > 1 {
                self.report(Problem::SplitClique {
                    component,
                    declarations: sources.into_iter().map(&describe).collect(),
                });
            }
        }
    }

    /// Decides who dials whom over what; reports any node dialed over a scheme it does not
    /// listen on.
    fn links(
        &mut self,
        declared: &[Declared],
        cliques: &[Clique],
        defaults: &LinkOverrides,
        edges: &[(usize, usize)],
        declarations: &[Declaration],
        describe: impl Fn(Declaration) -> String,
    ) -> Option<Vec<Link>> {
        let mut links = Vec::with_capacity(edges.len());
        let mut missing: BTreeMap<(usize, Scheme), (usize, String)> = BTreeMap::new();
        for (&(a, b), &declaration) in edges.iter().zip(declarations) {
            let (dialer, listener, kind, options) =
                link_ends(declared, cliques, defaults, (a, b), declaration);
            let far = &declared[listener];
            let (address, udp) = dial_addresses(far, options.pipe);
            let mut complete = true;
            for (found, scheme) in std::iter::once(&address).chain(udp.as_ref()) {
                if found.is_none() {
                    complete = false;
                    if !far.listen_broken {
                        let example = match kind {
                            LinkKind::Parent => describe(declaration),
                            LinkKind::Peer { .. } => format!(
                                "the link from {:?} in {}",
                                declared[dialer].name,
                                describe(declaration)
                            ),
                        };
                        missing.entry((listener, *scheme)).or_insert((0, example)).0 += 1;
                    }
                }
            }
            if let (Some(address), true) = (address.0, complete) {
                links.push(Link {
                    dialer,
                    listener,
                    kind,
                    options,
                    target: DialTarget {
                        address,
                        udp: udp.and_then(|(found, _)| found),
                    },
                });
            }
        }
        for ((listener, scheme), (count, example)) in missing {
            self.report(Problem::MissingListen {
                entry: declared[listener].entry.clone(),
                scheme,
                links: count,
                example,
            });
        }
        (links.len() == edges.len()).then_some(links)
    }
}

/// Who dials whom over an edge, as what kind of link, with which options: a child dials
/// its parent, and of two clique members the one whose name sorts first dials.
fn link_ends(
    declared: &[Declared],
    cliques: &[Clique],
    defaults: &LinkOverrides,
    (a, b): (usize, usize),
    declaration: Declaration,
) -> (usize, usize, LinkKind, LinkOptions) {
    match declaration {
        Declaration::ParentOf(child) => {
            let parent = if child == a { b } else { a };
            let options = declared[child].link.resolve(defaults);
            (child, parent, LinkKind::Parent, options)
        }
        Declaration::Clique(clique) => {
            let (first, second) = if declared[a].name < declared[b].name {
                (a, b)
            } else {
                (b, a)
            };
            let options = cliques[clique].link.resolve(defaults);
            (first, second, LinkKind::Peer { clique }, options)
        }
    }
}

/// An address `far` listens on, if any, and the scheme it was looked for under.
type Found = (Option<ListenAddress>, Scheme);

/// The addresses of `far` a link over `pipe` dials: the stream's, and for the udp pipe
/// the datagrams'.
fn dial_addresses(far: &Declared, pipe: Pipe) -> (Found, Option<Found>) {
    let address_for = |scheme: Scheme| {
        let found = far.listen.iter().find(|a| a.scheme() == scheme).cloned();
        (found, scheme)
    };
    // A node that listens on tls:// is dialed there: its plain tcp://, if it has
    // one too, is for those outside the topology (a loopback demo, a benchmark).
    let stream = || match address_for(Scheme::Tls) {
        (Some(found), scheme) => (Some(found), scheme),
        (None, _) => address_for(Scheme::Tcp),
    };
    match pipe {
        Pipe::Tcp => (stream(), None),
        Pipe::Udp => (stream(), Some(address_for(Scheme::Udp))),
        Pipe::Memory => (address_for(Scheme::Memory), None),
    }
}

fn sorted_names(declared: &[Declared], nodes: &[usize]) -> Vec<String> {
    let mut names: Vec<String> = nodes.iter().map(|&n| declared[n].name.clone()).collect();
    names.sort();
    names
}
