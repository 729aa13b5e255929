//! `trellis record`, `trellis record inspect` and `trellis replay`: thin glue over the
//! trellis-record crate (file format in docs/recorder.md).

use crate::output::outln;
use crate::UsageError;
use anyhow::{Context, Result};
use clap::{Args, Subcommand};
use signal_hook::consts::{SIGINT, SIGTERM};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;
use trellis_net::rti::LocalSettings;
use trellis_record::export::{self, Summary};
use trellis_record::recorder::{self, RecorderOptions};
use trellis_record::replay::{self, From, Pace, ReplayOptions, MAX_INSTANCES};
use trellis_record::WriterLimits;

const RTI_HELP: &str =
    "The router to attach to: tcp://HOST:PORT, tls://HOST:PORT or HOST:PORT [default: \
TRELLIS_RTI_ADDRESS, else tcp://127.0.0.1:7000]";

pub(crate) const RECORD_HELP: &str = "\
Every record carries its wall time (ns since 1970) and, when sent time-stamped, its logical
time. A lost connection is written to the file as a gap (connection-lost ... rejoined), and
messages the RTI reports lost as a messages-lost gap. With several --rti the records of all
routers go to one file, each with its router's number (the 'source' column, in --rti order).
Ctrl-C or SIGTERM ends the recording and writes the index.

Examples:
  trellis record --rti tcp://127.0.0.1:7000 --federation TrellisDemo --fom foms/trellis-demo.xml -o demo.trec
  trellis record --federation Exercise --fom rpr.xml --class BaseEntity.PhysicalEntity -o run.trec
  trellis record inspect demo.trec --csv demo.csv --parquet demo.parquet";

#[derive(Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct RecordArgs {
    #[command(subcommand)]
    command: Option<RecordCommand>,
    /// Router to record from; repeat for several routers (one file, a source column).
    #[arg(long, value_name = "ADDR", help = RTI_HELP)]
    rti: Vec<String>,
    /// The federation execution to record (it must exist; the recorder waits for it).
    #[arg(long)]
    federation: Option<String>,
    /// The federation's object model modules (repeatable).
    #[arg(long, value_name = "FILE")]
    fom: Vec<PathBuf>,
    /// Record only this object or interaction class and its subclasses (repeatable)
    /// [default: every class outside the MOM].
    #[arg(long = "class", value_name = "NAME")]
    classes: Vec<String>,
    /// The recording to write (replaced if it exists).
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// Be time-constrained: time-stamped messages in time-stamp order, and a time-grant
    /// record at each advance (to GALT: the recorder holds no one back).
    #[arg(long)]
    time_constrained: bool,
    /// A chunk is written when its records reach this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = 1 << 20)]
    chunk_bytes: usize,
    /// A chunk is also written when its first record is this old (readers' lag).
    #[arg(long, value_name = "MS", default_value_t = 1000)]
    flush_ms: u64,
    /// Stop by itself after this many seconds [default: until Ctrl-C or SIGTERM].
    #[arg(long, value_name = "SECONDS")]
    seconds: Option<u64>,
    /// Routing bins per dimension, as the federation's federates are configured
    /// (`RtiConfig::bins`; `trellis bench clutter` uses 1000): every member must use the same.
    #[arg(long, value_name = "N", default_value_t = trellis_core::federate::DEFAULT_BINS)]
    bins: u32,
}

#[derive(Subcommand)]
enum RecordCommand {
    /// Summarise a recording (counts per class, time span, gaps, chunks), optionally
    /// exporting its records as CSV and Parquet rows.
    #[command(
        after_help = "Rows: one per attribute or parameter value, one per discovery, deletion,
time grant and gap. Columns: wall_ns, source, kind, class, object, instance, member,
value (bytes; hexadecimal in CSV), logical_time, order, sender, detail.

Examples:
  trellis record inspect demo.trec
  trellis record inspect demo.trec --csv demo.csv --parquet demo.parquet"
    )]
    Inspect(InspectArgs),
}

#[derive(Args)]
struct InspectArgs {
    /// The recording.
    file: PathBuf,
    /// Write every record as CSV rows here.
    #[arg(long, value_name = "OUT")]
    csv: Option<PathBuf>,
    /// Write every record as Parquet rows here.
    #[arg(long, value_name = "OUT")]
    parquet: Option<PathBuf>,
}

#[derive(Args)]
pub(crate) struct ReplayArgs {
    /// The recording to replay (one cut short replays up to its last whole chunk).
    file: PathBuf,
    #[arg(long, value_name = "ADDR", help = RTI_HELP)]
    rti: Option<String>,
    /// The federation to replay into (created if it does not exist).
    #[arg(long)]
    federation: String,
    /// Object model modules [default: those the recording names].
    #[arg(long, value_name = "FILE")]
    fom: Vec<PathBuf>,
    /// Replay N times as fast as recorded (0.5: half speed) [default: 1].
    #[arg(long, value_name = "N", conflicts_with_all = ["as_fast_as_possible", "time_step"])]
    speed: Option<f64>,
    /// Send everything as fast as the federation takes it.
    #[arg(long, conflicts_with = "time_step")]
    as_fast_as_possible: bool,
    /// Regulating: send each time-stamped message at its recorded logical time, advancing
    /// from one recorded time to the next (in the recording's time representation).
    #[arg(long)]
    time_step: bool,
    /// The lookahead in --time-step (a whole number for an HLAinteger64Time recording).
    #[arg(long, value_name = "N", default_value_t = 1.0)]
    lookahead: f64,
    /// Start at this many seconds after the recording started, or with `t=` at this
    /// logical time (t=100); instances recorded earlier are registered all the same.
    #[arg(long, value_name = "SECONDS|t=TIME")]
    from: Option<String>,
    /// Replay only what came through this router of the recording (0: the first --rti).
    #[arg(long, value_name = "N")]
    source: Option<u32>,
    /// The most instances held at once.
    #[arg(long, value_name = "N", default_value_t = MAX_INSTANCES)]
    max_instances: usize,
    /// After publishing, wait up to this long for subscribers to be known.
    #[arg(long, value_name = "SECONDS", default_value_t = 2.0)]
    wait_subscribers: f64,
}

/// An --rti address with its TLS settings (tls://: TRELLIS_TLS_CA and friends).
fn endpoint(address: Option<&str>) -> Result<LocalSettings> {
    LocalSettings::parse(address).with_context(|| format!("--rti {}", address.unwrap_or("")))
}

fn stop_on_signals() -> Result<Arc<AtomicBool>> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        signal_hook::flag::register(signal, stop.clone())?;
    }
    Ok(stop)
}

fn say(line: String) {
    // Progress goes to stderr: stdout is the summary's.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("{line}\n").as_bytes());
}

pub(crate) fn run_record(args: RecordArgs) -> Result<()> {
    if let Some(RecordCommand::Inspect(inspect)) = args.command {
        return run_inspect(inspect);
    }
    let usage = |what: &str| anyhow::Error::new(UsageError(format!("trellis record: {what}")));
    let output = args.output.ok_or_else(|| usage("-o FILE is required"))?;
    let federation = args
        .federation
        .ok_or_else(|| usage("--federation NAME is required"))?;
    if args.fom.is_empty() {
        return Err(usage(
            "--fom FILE is required (the federation's object model modules)",
        ));
    }
    let routers = if args.rti.is_empty() {
        vec![endpoint(None)?]
    } else {
        args.rti
            .iter()
            .map(|a| endpoint(Some(a)))
            .collect::<Result<_>>()?
    };
    let options = RecorderOptions {
        routers,
        federation,
        fom: args.fom,
        classes: args.classes,
        output: output.clone(),
        federate_name: format!("trellis-record-{}", std::process::id()),
        limits: WriterLimits {
            chunk_bytes: args.chunk_bytes.max(1),
            flush_after: Duration::from_millis(args.flush_ms),
            ..WriterLimits::default()
        },
        time_constrained: args.time_constrained,
        bins: args.bins,
    };
    let stop = stop_on_signals()?;
    if let Some(seconds) = args.seconds {
        let stop = stop.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(seconds));
            stop.store(true, std::sync::atomic::Ordering::SeqCst);
        });
    }
    let report = recorder::record(&options, stop, Arc::new(say))?;
    let per_update = if report.updates > 0 {
        report.bytes as f64 / report.updates as f64
    } else {
        0.0
    };
    outln!(
        "recorded {} records ({} updates, {} gaps) in {} chunks to {}: {} bytes, {per_update:.1} bytes per update",
        report.records, report.updates, report.gaps, report.chunks, output.display(), report.bytes
    );
    Ok(())
}

fn run_inspect(args: InspectArgs) -> Result<()> {
    let summary = export::inspect(&args.file, args.csv.as_deref(), args.parquet.as_deref())
        .with_context(|| format!("inspecting {}", args.file.display()))?;
    print_summary(&args.file, &summary)?;
    if let Some(csv) = &args.csv {
        outln!("csv: {} rows to {}", summary.rows, csv.display());
    }
    if let Some(parquet) = &args.parquet {
        outln!("parquet: {} rows to {}", summary.rows, parquet.display());
    }
    Ok(())
}

fn print_summary(file: &std::path::Path, s: &Summary) -> Result<()> {
    outln!(
        "recording {}: federation {}, {} bytes",
        file.display(),
        s.federation,
        s.file_len
    );
    for (i, source) in s.sources.iter().enumerate() {
        outln!("source {i}: {source}");
    }
    let state = if s.closed_cleanly {
        "closed cleanly, with its index"
    } else {
        "no index (cut short or still being written): chunks found by walking"
    };
    outln!(
        "chunks: {} whole; {state}; {} bytes after the last whole chunk ignored",
        s.chunks,
        s.ignored_bytes
    );
    for damaged in &s.damaged_chunks {
        outln!("damaged chunk skipped: {damaged}");
    }
    let records: Vec<String> = s.records.iter().map(|(k, n)| format!("{n} {k}")).collect();
    outln!(
        "records: {}",
        if records.is_empty() {
            "none".into()
        } else {
            records.join(", ")
        }
    );
    if let (Some(first), Some(last)) = (s.first_wall, s.last_wall) {
        outln!(
            "wall time: {:.3} s ({first} .. {last} ns since 1970)",
            (last - first) as f64 / 1e9
        );
    }
    if let (Some(first), Some(last)) = (s.first_time, s.last_time) {
        let shown = |t| s.time_representation.display(t);
        outln!("logical time: {} .. {}", shown(first), shown(last));
    }
    outln!(
        "{:<48} {:>10} {:>10} {:>12} {:>8}",
        "CLASS",
        "DISCOVERED",
        "UPDATES",
        "INTERACTIONS",
        "REMOVED"
    );
    for (class, c) in &s.classes {
        outln!(
            "{class:<48} {:>10} {:>10} {:>12} {:>8}",
            c.discovered,
            c.updates,
            c.interactions,
            c.removed
        );
    }
    outln!("gaps: {}", s.gap_count);
    for (wall, source, cause, lost, detail) in &s.gaps {
        outln!("  gap at {wall} ns, source {source}: {cause} ({lost} lost) {detail}");
    }
    Ok(())
}

pub(crate) fn run_replay(args: ReplayArgs) -> Result<()> {
    let usage = |what: String| anyhow::Error::new(UsageError(format!("trellis replay: {what}")));
    let pace = if args.time_step {
        Pace::TimeStep {
            lookahead: args.lookahead,
        }
    } else if args.as_fast_as_possible {
        Pace::AsFastAsPossible
    } else {
        let speed = args.speed.unwrap_or(1.0);
        if !(speed > 0.0 && speed.is_finite()) {
            return Err(usage(format!("--speed {speed}: must be a positive number")));
        }
        Pace::Speed(speed)
    };
    let from = match args.from.as_deref() {
        None => From::Start,
        Some(text) => match text.strip_prefix("t=") {
            Some(time) => From::LogicalTime(time.parse().map_err(|_| {
                usage(format!("--from {text}: t= needs a logical time (a number)"))
            })?),
            None => From::Seconds(
                text.parse()
                    .map_err(|_| usage(format!("--from {text}: seconds, or t=TIME")))?,
            ),
        },
    };
    let options = ReplayOptions {
        file: args.file,
        router: endpoint(args.rti.as_deref())?,
        federation: args.federation,
        fom: args.fom,
        pace,
        from,
        source: args.source,
        federate_name: format!("trellis-replay-{}", std::process::id()),
        max_instances: args.max_instances,
        wait_for_subscribers: Duration::from_secs_f64(args.wait_subscribers.max(0.0)),
    };
    let stop = stop_on_signals()?;
    let report = replay::replay(&options, stop, &say)?;
    if report.ignored_bytes > 0 {
        outln!("the recording ends in {} bytes that are not a whole chunk (cut short): replayed up to its last whole chunk", report.ignored_bytes);
    }
    outln!(
        "replayed {} updates and {} interactions of {} instances ({} removed; {} records unknown to the object model; {} gaps; {} damaged chunks skipped)",
        report.updates, report.interactions, report.registered, report.removed, report.unknown, report.gaps, report.damaged_chunks
    );
    Ok(())
}
