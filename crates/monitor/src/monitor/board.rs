//! What the monitor knows of every node and link now, and what it last sent the pages.
//!
//! Scrapes land here as [`Reading`]s ([`Board::apply`]); every [`COMPOSE_PERIOD`] the
//! server asks for a [`Frame`]: the rows that changed since the last frame, so a page of
//! 300 processes gets a few kilobytes a second, and a full snapshot for pages that connect
//! or fell behind.
//!
//! # Rows
//!
//! A node row is `[index, status, cpu_user_%, cpu_system_%, memory_bytes, in_per_s,
//! out_per_s, queue, cut_federates, cut_objects, silent_since_unix_ms,
//! host_network_in_bytes_per_s, host_network_out_bytes_per_s, objects_owned, objects_known]`
//! (objects: of the federates the process runs); a link row is
//! `[index, a_to_b_per_s, b_to_a_per_s, queue_at_a, queue_at_b, up]` (`a` dials `b`). A
//! figure nobody reports is `null`. Status: 0 waiting (no answer yet, first 3 s), 1 live,
//! 2 stale (silent for [`STALE_AFTER`]), 3 absent (a node with no figures of its own that
//! no neighbour has seen yet: a federate not attached).
//!
//! A node with its own source (a `/metrics` address) reports when a scrape succeeds. A node
//! without one (a federate process without metrics) reports through its neighbours: each
//! scrape of a neighbour showing a live link to it counts as a report, and its rates are
//! the neighbours' rates toward it, turned round.

use super::graph::Graph;
use super::history::{History, Sample};
use super::rates::{figures, Figures, PeerFigures};
use super::reading::Reading;
use std::collections::HashMap;
use std::fmt::Write;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// A node silent this long is stale.
pub const STALE_AFTER: Duration = Duration::from_secs(3);
/// How often frames are composed: the delay added to a stale mark at most.
pub const COMPOSE_PERIOD: Duration = Duration::from_millis(100);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    Waiting = 0,
    Live = 1,
    Stale = 2,
    Absent = 3,
}

#[derive(Default)]
struct NodeState {
    has_source: bool,
    last_report: Option<(Instant, u64)>,
    last_reading: Option<(Instant, Reading)>,
    figures: Option<Figures>,
    history: History,
}

/// The JSON text of one frame for the pages.
#[derive(Clone, Debug)]
pub struct Frame {
    pub json: Arc<str>,
    /// Rows in it (0: nothing changed, not worth sending).
    pub rows: usize,
}

type Row = Vec<Option<f64>>;

pub struct Board {
    graph: Arc<Graph>,
    started: Instant,
    nodes: Vec<NodeState>,
    /// The latest objects owned by each federate that reported figures, by federate name.
    owned_objects: HashMap<String, f64>,
    sent_nodes: Vec<Row>,
    sent_links: Vec<Row>,
}

pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

impl Board {
    /// A board for `graph`; `sources` are the nodes with figures of their own.
    pub fn new(graph: Arc<Graph>, sources: &[usize]) -> Board {
        let mut nodes: Vec<NodeState> = (0..graph.nodes.len())
            .map(|_| NodeState::default())
            .collect();
        for &node in sources {
            nodes[node].has_source = true;
        }
        Board {
            sent_nodes: vec![Vec::new(); graph.nodes.len()],
            sent_links: vec![Vec::new(); graph.links.len()],
            graph,
            started: Instant::now(),
            nodes,
            owned_objects: HashMap::new(),
        }
    }

    pub fn graph(&self) -> &Arc<Graph> {
        &self.graph
    }

    /// A successful scrape of `node` taken at `at`.
    pub fn apply(&mut self, node: usize, at: Instant, reading: Reading) {
        // The wall-clock time of `at` itself, not of this later moment (the scrape's answer
        // took a while): staleness counts from `at`, and the page shows how long a node was
        // silent from this. Rounded down, so that never reads as less than it was.
        let since_at = Instant::now().duration_since(at);
        let at_ms = unix_ms().saturating_sub(since_at.as_millis() as u64 + 1);
        let state = &mut self.nodes[node];
        let before = state.last_reading.as_ref();
        let seconds = before.map_or(0.0, |(t, _)| at.duration_since(*t).as_secs_f64());
        let figures = figures(before.map(|(_, r)| r), &reading, seconds);
        state.last_report = Some((at, at_ms));
        state.last_reading = Some((at, reading));
        for (name, federate) in &figures.federates {
            self.owned_objects.insert(name.clone(), federate.owned);
        }
        for (peer, link) in &figures.peers {
            let Some(peer) = self.graph.node_index(peer) else {
                continue;
            };
            let peer_state = &mut self.nodes[peer];
            if link.up && !peer_state.has_source && self.graph.link_between(node, peer).is_some() {
                peer_state.last_report = Some((at, at_ms));
            }
        }
        self.nodes[node].figures = Some(figures);
    }

    pub fn status(&self, node: usize, now: Instant) -> Status {
        let state = &self.nodes[node];
        match state.last_report {
            Some((at, _)) if now.duration_since(at) < STALE_AFTER => Status::Live,
            Some(_) => Status::Stale,
            None if !state.has_source => Status::Absent,
            None if now.duration_since(self.started) < STALE_AFTER => Status::Waiting,
            None => Status::Stale,
        }
    }

    /// Objects owned by the federates `node`'s failure cuts off; `None` if none of them
    /// reported figures.
    pub fn cut_off_objects(&self, node: usize) -> Option<f64> {
        let owned: Vec<f64> = self.graph.cut_off[node]
            .iter()
            .filter_map(|&f| self.owned_objects.get(&self.graph.nodes[f].name).copied())
            .collect();
        (!owned.is_empty()).then(|| owned.iter().sum())
    }

    /// `node`'s own figures toward `peer`, if `node` is live and reports them.
    fn peer_figures(&self, node: usize, peer: usize, now: Instant) -> Option<&PeerFigures> {
        if self.status(node, now) != Status::Live {
            return None;
        }
        let figures = self.nodes[node].figures.as_ref()?;
        figures.peers.get(&self.graph.nodes[peer].name)
    }

    fn link_row(&self, link: usize, now: Instant) -> Row {
        let (a, b) = (self.graph.links[link].a, self.graph.links[link].b);
        let from_a = self.peer_figures(a, b, now);
        let from_b = self.peer_figures(b, a, now);
        let a_to_b = from_a
            .and_then(|f| f.rate_out)
            .or(from_b.and_then(|f| f.rate_in));
        let b_to_a = from_b
            .and_then(|f| f.rate_out)
            .or(from_a.and_then(|f| f.rate_in));
        let up = match (from_a, from_b) {
            (None, None) => None,
            (a, b) => Some(f64::from(u8::from(
                a.is_some_and(|f| f.up) || b.is_some_and(|f| f.up),
            ))),
        };
        vec![
            Some(link as f64),
            a_to_b,
            b_to_a,
            from_a.map(|f| f.queue),
            from_b.map(|f| f.queue),
            up,
        ]
    }

    /// Rates in and out of `node` and what is queued toward it or by it: its own figures
    /// when it has them, else its neighbours' toward it, turned round.
    fn traffic(&self, node: usize, now: Instant) -> (Option<f64>, Option<f64>, Option<f64>) {
        // A source without links of its own (federates of an in-process demo, publishing
        // only their federate figures) is seen through its neighbours too.
        let own = self.nodes[node]
            .figures
            .as_ref()
            .filter(|f| self.nodes[node].has_source && !f.peers.is_empty());
        let mut sums = (None, None, None);
        let add = |sum: &mut Option<f64>, value: Option<f64>| {
            if let Some(value) = value {
                *sum = Some(sum.unwrap_or(0.0) + value);
            }
        };
        match own {
            Some(figures) => {
                for peer in figures.peers.values() {
                    add(&mut sums.0, peer.rate_in);
                    add(&mut sums.1, peer.rate_out);
                    add(&mut sums.2, Some(peer.queue));
                }
            }
            None => {
                for &other in &self.graph.neighbours[node] {
                    if let Some(toward) = self.peer_figures(other, node, now) {
                        add(&mut sums.0, toward.rate_out);
                        add(&mut sums.1, toward.rate_in);
                        add(&mut sums.2, Some(toward.queue));
                    }
                }
            }
        }
        sums
    }

    fn node_sample(&self, node: usize, now: Instant) -> Sample {
        let own = self.nodes[node]
            .figures
            .as_ref()
            .filter(|_| self.nodes[node].has_source);
        let (rate_in, rate_out, queue) = self.traffic(node, now);
        Sample {
            t: unix_ms(),
            cpu_user: own.and_then(|f| f.cpu_user),
            cpu_system: own.and_then(|f| f.cpu_system),
            memory_bytes: own.and_then(|f| f.memory_bytes),
            rate_in,
            rate_out,
            queue,
        }
    }

    fn node_row(&self, node: usize, now: Instant) -> Row {
        let status = self.status(node, now);
        let live = status == Status::Live;
        let sample = self.node_sample(node, now);
        let shown = |value: Option<f64>| value.filter(|_| live);
        let own = self.nodes[node]
            .figures
            .as_ref()
            .filter(|_| self.nodes[node].has_source);
        let silent_since = match status {
            Status::Stale => self.nodes[node].last_report.map(|(_, ms)| ms as f64),
            _ => None,
        };
        vec![
            Some(node as f64),
            Some(status as u8 as f64),
            shown(sample.cpu_user),
            shown(sample.cpu_system),
            shown(sample.memory_bytes),
            shown(sample.rate_in),
            shown(sample.rate_out),
            shown(sample.queue),
            Some(self.graph.cut_off[node].len() as f64),
            self.cut_off_objects(node),
            silent_since,
            shown(own.and_then(|f| f.network_in)),
            shown(own.and_then(|f| f.network_out)),
            shown(
                own.filter(|f| !f.federates.is_empty())
                    .map(|f| f.federates.values().map(|x| x.owned).sum()),
            ),
            shown(
                own.filter(|f| !f.federates.is_empty())
                    .map(|f| f.federates.values().map(|x| x.known).sum()),
            ),
        ]
    }

    /// Every row that changed since the last frame (all of them the first time).
    pub fn compose(&mut self, now: Instant) -> Frame {
        let nodes: Vec<Row> = (0..self.nodes.len())
            .map(|n| self.node_row(n, now))
            .collect();
        let links: Vec<Row> = (0..self.graph.links.len())
            .map(|l| self.link_row(l, now))
            .collect();
        let changed_nodes: Vec<&Row> = nodes
            .iter()
            .zip(&self.sent_nodes)
            .filter(|(row, sent)| row != sent)
            .map(|(row, _)| row)
            .collect();
        let changed_links: Vec<&Row> = links
            .iter()
            .zip(&self.sent_links)
            .filter(|(row, sent)| row != sent)
            .map(|(row, _)| row)
            .collect();
        let frame = frame_json(&changed_nodes, &changed_links);
        self.sent_nodes = nodes;
        self.sent_links = links;
        frame
    }

    /// Every row as last composed: what a page that connects now starts from.
    pub fn snapshot(&self) -> Frame {
        let nodes: Vec<&Row> = self.sent_nodes.iter().filter(|r| !r.is_empty()).collect();
        let links: Vec<&Row> = self.sent_links.iter().filter(|r| !r.is_empty()).collect();
        frame_json(&nodes, &links)
    }

    /// Once a second: each node's figures into its history (stale and absent nodes get a
    /// gap).
    pub fn record_history(&mut self, now: Instant) {
        for node in 0..self.nodes.len() {
            if self.status(node, now) == Status::Live {
                let sample = self.node_sample(node, now);
                self.nodes[node].history.push(sample);
            }
        }
    }

    pub fn history(&self, node: usize) -> Option<&History> {
        self.nodes.get(node).map(|n| &n.history)
    }
}

fn write_number(out: &mut String, value: Option<f64>) {
    match value {
        Some(v) if v.is_finite() && v.fract() == 0.0 && v.abs() < 9e15 => {
            let _ = write!(out, "{}", v as i64);
        }
        Some(v) if v.is_finite() => {
            let _ = write!(out, "{:.1}", v);
        }
        _ => out.push_str("null"),
    }
}

fn write_rows(out: &mut String, rows: &[&Row]) {
    out.push('[');
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push('[');
        for (j, value) in row.iter().enumerate() {
            if j > 0 {
                out.push(',');
            }
            write_number(out, *value);
        }
        out.push(']');
    }
    out.push(']');
}

fn frame_json(nodes: &[&Row], links: &[&Row]) -> Frame {
    let mut json = String::with_capacity(64 + 48 * (nodes.len() + links.len()));
    let _ = write!(json, "{{\"t\":{},\"n\":", unix_ms());
    write_rows(&mut json, nodes);
    json.push_str(",\"l\":");
    write_rows(&mut json, links);
    json.push('}');
    Frame {
        json: json.into(),
        rows: nodes.len() + links.len(),
    }
}
