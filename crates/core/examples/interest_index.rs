//! The interest index on its own (as NATS benchmarks its sublist): what declaring ids costs,
//! what a lookup costs when it repeats, hits at random or misses, what moving a region
//! costs where many links' regions overlap, and the bytes per id held. Each figure is the
//! fastest of `INTEREST_INDEX_RUNS` runs (other processes only ever slow a run down); the
//! index's own counts ([`IndexStats`]) follow each case.
//!
//!   cargo run --release -p trellis-core --example interest_index
//!
//! `INTEREST_INDEX_LOOKUPS` (default 4,000,000 per run) and `INTEREST_INDEX_RUNS` (5)
//! shrink it.

#[path = "../tests/common/counting_alloc.rs"]
mod counting_alloc;

use roaring::RoaringBitmap;
use std::hint::black_box;
use std::sync::atomic::Ordering;
use std::time::Instant;
use trellis_core::router::{IndexStats, InterestIndex};
use trellis_core::sim::Rng;

#[global_allocator]
static ALLOCATOR: counting_alloc::Counting = counting_alloc::Counting;

/// Cells of the overlapping-regions case: a 256 × 256 map, one id per cell.
const MAP_SIDE: u32 = 256;
/// Links whose windows overlap on that map (the clutter benchmark's simulators and viewers).
const WINDOW_LINKS: u32 = 16;
const WINDOW_SIDE: u32 = 96;

fn from_env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Random ids below `bound` from the simulator's seeded generator: the same sequence every
/// run.
fn below(rng: &mut Rng, bound: u32) -> u32 {
    rng.below(u64::from(bound)) as u32
}

/// The fastest of `runs` runs of `one`, which returns nanoseconds per operation.
fn fastest(runs: usize, mut one: impl FnMut() -> f64) -> f64 {
    (0..runs).map(|_| one()).fold(f64::INFINITY, f64::min)
}

/// Nanoseconds per lookup of `count` ids drawn by `next` (drawn before the clock starts).
fn per_lookup(index: &InterestIndex, count: usize, mut next: impl FnMut() -> u32) -> f64 {
    let ids: Vec<u32> = (0..count).map(|_| next()).collect();
    let started = Instant::now();
    let mut found = 0usize;
    for &id in &ids {
        found += index.links(black_box(id)).len();
    }
    black_box(found);
    started.elapsed().as_nanos() as f64 / count as f64
}

/// The window of link `link` on the map, `shift` columns to the right of its home.
fn window(link: u32, shift: u32) -> RoaringBitmap {
    let (row0, col0) = ((link / 4) * 48, (link % 4) * 48 + shift);
    let mut cells = RoaringBitmap::new();
    for row in row0..(row0 + WINDOW_SIDE).min(MAP_SIDE) {
        let start = row * MAP_SIDE + col0.min(MAP_SIDE);
        let end = row * MAP_SIDE + (col0 + WINDOW_SIDE).min(MAP_SIDE);
        cells.insert_range(start..end);
    }
    cells
}

fn print_stats(stats: &IndexStats) {
    println!(
        "  index: {} ids, {} link sets, {} chunks ({} mapped); {} lookups ({} repeated), {} updates",
        stats.ids,
        stats.link_sets,
        stats.chunks,
        stats.mapped_chunks,
        stats.lookups,
        stats.repeated_lookups,
        stats.updates
    );
}

/// One link declaring a million ids in a thousand runs (one simulator's cells and
/// instances, as `tests/interest_memory.rs` bounds).
fn one_link_a_million_ids(runs: usize, lookups: usize) {
    const RUNS_OF_IDS: u32 = 1000;
    const RUN_LEN: u32 = 1000;
    let declared: RoaringBitmap = (0..RUNS_OF_IDS)
        .flat_map(|r| r * 4 * RUN_LEN..r * 4 * RUN_LEN + RUN_LEN)
        .collect();
    let span = RUNS_OF_IDS * 4 * RUN_LEN;
    let mut index = InterestIndex::default();
    let mut bytes = 0;
    let add_ns = fastest(runs, || {
        index = InterestIndex::default();
        let before = counting_alloc::LIVE_BYTES.load(Ordering::Relaxed);
        let started = Instant::now();
        index.add(&declared, 1);
        let elapsed = started.elapsed().as_nanos() as f64;
        bytes = counting_alloc::LIVE_BYTES.load(Ordering::Relaxed) - before;
        elapsed / declared.len() as f64
    });
    let mut ids = Rng::new(1);
    let repeat = fastest(runs, || per_lookup(&index, lookups, || 7));
    let hit = fastest(runs, || {
        per_lookup(&index, lookups, || {
            let r = below(&mut ids, RUNS_OF_IDS);
            r * 4 * RUN_LEN + below(&mut ids, RUN_LEN)
        })
    });
    let miss = fastest(runs, || {
        per_lookup(&index, lookups, || span + below(&mut ids, span))
    });
    println!(
        "1 link, {} ids in {RUNS_OF_IDS} runs: declaring {add_ns:.1} ns/id, {:.3} B/id held \
         ({bytes} B); lookup: repeated {repeat:.1} ns, random hit {hit:.1} ns, miss {miss:.1} ns",
        declared.len(),
        bytes as f64 / declared.len() as f64
    );
    print_stats(&index.stats());
}

/// Links whose windows overlap on one map of cells: ids shared by up to four links, many
/// link sets in one chunk (so the chunk keeps a map of each id), and regions that move.
fn overlapping_windows(runs: usize, lookups: usize) {
    let mut index = InterestIndex::default();
    for link in 0..WINDOW_LINKS {
        index.add(&window(link, 0), link);
    }
    let mut ids = Rng::new(2);
    let cells = MAP_SIDE * MAP_SIDE;
    let hit = fastest(runs, || {
        per_lookup(&index, lookups, || below(&mut ids, cells))
    });
    // A moving region: one link's window steps a column right and back, as a simulator's
    // interest follows its entities (a removal and an addition each step).
    const MOVES: u32 = 200;
    let move_ns = fastest(runs, || {
        let started = Instant::now();
        for step in 0..MOVES {
            let (from, to) = if step % 2 == 0 { (0, 1) } else { (1, 0) };
            index.remove(&window(5, from), 5);
            index.add(&window(5, to), 5);
        }
        started.elapsed().as_nanos() as f64 / f64::from(MOVES)
    });
    println!(
        "{WINDOW_LINKS} links, {WINDOW_SIDE}x{WINDOW_SIDE} windows overlapping on a \
         {MAP_SIDE}x{MAP_SIDE} map: lookup random cell {hit:.1} ns; moving one window a \
         column {:.1} us",
        move_ns / 1000.0
    );
    print_stats(&index.stats());
}

fn main() {
    let runs = from_env("INTEREST_INDEX_RUNS", 5).max(1);
    let lookups = from_env("INTEREST_INDEX_LOOKUPS", 4_000_000).max(1);
    one_link_a_million_ids(runs, lookups);
    overlapping_windows(runs, lookups);
}
