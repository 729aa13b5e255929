//! Object-model loading at scale: generated modules of 2,000, 16,000 and 64,000 trivial
//! object classes (each with one attribute, all under HLAobjectRoot, as `trellis fom check`
//! was probed with), parsed and merged after the standard MIM. Each figure is the fastest
//! of `FOM_LOAD_RUNS` runs, in wall time and (on Linux) in the thread's CPU time, which
//! other processes on a busy machine do not inflate. Models of more classes than a federation can hold are refused
//! after the whole module is read and merged (the refusal counts them), so their time is
//! still the cost of loading them.
//!
//!   cargo run --release -p trellis-core --example fom_load
//!
//! `FOM_LOAD_CLASSES` (default "2000,16000,64000") picks the sizes, `FOM_LOAD_RUNS` (3) the
//! runs, `FOM_LOAD_ATTRIBUTES` (1) the attributes per class, and `FOM_LOAD_WRITE=DIR` also
//! writes each module as DIR/classes-N.xml (for `trellis fom check`).

use std::fmt::Write as _;
use std::time::{Duration, Instant};
use trellis_core::fom::ObjectModel;

fn from_env(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// One module of `classes` object classes under HLAobjectRoot, each with `attributes`
/// attributes of its own.
fn generated_module(classes: usize, attributes: usize) -> String {
    let mut xml = String::with_capacity(classes * (120 + attributes * 260) + 1024);
    xml.push_str(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
         <objectModel xmlns=\"http://standards.ieee.org/IEEE1516-2010\">\n\
         <modelIdentification><name>generated</name><type>FOM</type><version>1</version></modelIdentification>\n\
         <objects>\n<objectClass>\n<name>HLAobjectRoot</name>\n",
    );
    for class in 0..classes {
        let _ = writeln!(
            xml,
            "<objectClass>\n<name>Class{class}</name>\n<sharing>PublishSubscribe</sharing>"
        );
        for attribute in 0..attributes {
            let _ = writeln!(
                xml,
                "<attribute>\n<name>Value{attribute}</name>\n<dataType>HLAinteger32BE</dataType>\n\
                 <updateType>Conditional</updateType>\n<updateCondition>on change</updateCondition>\n\
                 <ownership>NoTransfer</ownership>\n<sharing>PublishSubscribe</sharing>\n\
                 <transportation>HLAreliable</transportation>\n<order>Receive</order>\n</attribute>"
            );
        }
        xml.push_str("</objectClass>\n");
    }
    xml.push_str("</objectClass>\n</objects>\n</objectModel>\n");
    xml
}

/// The time this thread has run on a CPU (Linux: the first field of its schedstat).
fn thread_cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// The fastest of `runs` loads of `xml` in wall and CPU time, and what the last one said.
fn fastest_load(xml: &str, runs: usize) -> (Duration, Option<Duration>, String) {
    let mut best = Duration::MAX;
    let mut best_cpu: Option<Duration> = None;
    let mut outcome = String::new();
    for _ in 0..runs.max(1) {
        let cpu_started = thread_cpu_time();
        let started = Instant::now();
        let result = ObjectModel::from_sources(&[("generated.xml", xml)]).map(|model| {
            // What `trellis fom check` asks of a loaded model too.
            let unresolved = model.data_types().unresolved().len();
            (model.counts(), unresolved)
        });
        best = best.min(started.elapsed());
        if let (Some(before), Some(after)) = (cpu_started, thread_cpu_time()) {
            let cpu = after.saturating_sub(before);
            best_cpu = Some(best_cpu.map_or(cpu, |b| b.min(cpu)));
        }
        outcome = match result {
            Ok((counts, 0)) => format!("loaded: {counts}"),
            Ok((_, n)) => format!("loaded with {n} unresolved data types"),
            Err(errors) => format!(
                "refused: {}",
                errors
                    .0
                    .first()
                    .map(ToString::to_string)
                    .unwrap_or_default()
            ),
        };
    }
    (best, best_cpu, outcome)
}

fn main() -> std::io::Result<()> {
    let sizes: Vec<usize> = std::env::var("FOM_LOAD_CLASSES")
        .unwrap_or_else(|_| "2000,16000,64000".into())
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    let runs = from_env("FOM_LOAD_RUNS", 3);
    let attributes = from_env("FOM_LOAD_ATTRIBUTES", 1);
    let write_to = std::env::var_os("FOM_LOAD_WRITE").map(std::path::PathBuf::from);
    println!("classes  attributes/class  MB      wall ms   CPU ms  outcome");
    for classes in sizes {
        let xml = generated_module(classes, attributes);
        if let Some(dir) = &write_to {
            std::fs::write(dir.join(format!("classes-{classes}.xml")), &xml)?;
        }
        let (time, cpu, outcome) = fastest_load(&xml, runs);
        let cpu = cpu.map_or_else(|| "-".into(), |c| format!("{:.1}", c.as_secs_f64() * 1e3));
        println!(
            "{classes:>7}  {attributes:>16}  {:>6.1}  {:>7.1}  {cpu:>7}  {outcome}",
            xml.len() as f64 / 1e6,
            time.as_secs_f64() * 1e3
        );
    }
    Ok(())
}
