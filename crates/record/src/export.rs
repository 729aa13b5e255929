//! `trellis record inspect`: a recording's summary, and its records as rows of CSV and
//! Parquet, one row per attribute or parameter value (and one per record without values).

use crate::format::{Dictionary, Record, Sent};
use crate::reader::Recording;
use crate::RecordError;
use arrow_array::builder::{
    BinaryBuilder, Float64Builder, Int64Builder, StringBuilder, UInt32Builder, UInt64Builder,
};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_schema::{DataType, Field, Schema};
use parquet::arrow::ArrowWriter;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;
use std::sync::Arc;
use trellis_core::federate::{LogicalTime, TimeRepresentation};

/// Instance names remembered for the rows' `instance` column; past it the column is empty
/// for new instances (and a warning says so).
pub const MAX_NAMES: usize = 1_000_000;
/// Gaps listed in the summary; more are counted.
pub const MAX_LISTED_GAPS: usize = 1_000;
/// Rows per Parquet record batch (and row group), the exporter's buffer.
pub const BATCH_ROWS: usize = 65_536;

#[derive(Clone, Debug, Default)]
pub struct ClassCounts {
    pub discovered: u64,
    pub updates: u64,
    pub interactions: u64,
    pub removed: u64,
}

#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub federation: String,
    pub sources: Vec<String>,
    pub file_len: u64,
    pub ignored_bytes: u64,
    pub closed_cleanly: bool,
    pub chunks: usize,
    pub damaged_chunks: Vec<String>,
    pub records: BTreeMap<&'static str, u64>,
    pub classes: BTreeMap<String, ClassCounts>,
    pub first_wall: Option<u64>,
    pub last_wall: Option<u64>,
    /// The recorded federation's time representation, which the times below are in
    /// (`TimeRepresentation::display` prints them).
    pub time_representation: TimeRepresentation,
    pub first_time: Option<LogicalTime>,
    pub last_time: Option<LogicalTime>,
    /// (wall ns, source, cause, lost, detail)
    pub gaps: Vec<(u64, u32, &'static str, u64, String)>,
    pub gap_count: u64,
    pub rows: u64,
}

/// One output row.
struct Row<'a> {
    wall_ns: u64,
    source: u32,
    kind: &'static str,
    class: Option<&'a str>,
    object: Option<u64>,
    instance: Option<&'a str>,
    member: Option<&'a str>,
    value: Option<&'a [u8]>,
    logical_time: Option<LogicalTime>,
    order: Option<&'static str>,
    sender: Option<u32>,
    detail: Option<&'a str>,
}

pub const COLUMNS: [&str; 12] = [
    "wall_ns",
    "source",
    "kind",
    "class",
    "object",
    "instance",
    "member",
    "value",
    "logical_time",
    "order",
    "sender",
    "detail",
];

/// Handle → name for the rows, from the header's dictionary, and the instances seen.
struct Names {
    classes: HashMap<u32, String>,
    interactions: HashMap<u32, String>,
    attributes: HashMap<u32, String>,
    parameters: HashMap<u32, String>,
    /// (source, object) → (name, class), at most `MAX_NAMES`.
    instances: HashMap<(u32, u64), (String, u32)>,
    full: bool,
}

impl Names {
    fn new(d: &Dictionary) -> Names {
        let classes = |list: &[(u32, String)]| list.iter().cloned().collect();
        let members =
            |list: &[(u32, u32, String)]| list.iter().map(|(h, _, n)| (*h, n.clone())).collect();
        Names {
            classes: classes(&d.object_classes),
            interactions: classes(&d.interaction_classes),
            attributes: members(&d.attributes),
            parameters: members(&d.parameters),
            instances: HashMap::new(),
            full: false,
        }
    }

    fn remember(&mut self, source: u32, object: u64, name: &str, class: u32) {
        if self.instances.len() < MAX_NAMES {
            self.instances
                .insert((source, object), (name.to_owned(), class));
        } else if !self.full {
            self.full = true;
            tracing::warn!("more than {MAX_NAMES} instances: later ones have no name in the rows");
        }
    }

    fn class(&self, class: &u32) -> Option<&str> {
        self.classes.get(class).map(String::as_str)
    }

    fn instance(&self, source: u32, object: u64) -> Option<&str> {
        self.instances
            .get(&(source, object))
            .map(|(n, _)| n.as_str())
    }
}

/// Where rows go.
struct Sinks {
    csv: Option<CsvSink>,
    parquet: Option<ParquetSink>,
    rows: u64,
}

impl Sinks {
    fn emit(&mut self, row: Row<'_>) -> Result<(), RecordError> {
        self.rows += 1;
        if let Some(sink) = self.csv.as_mut() {
            sink.row(&row)?;
        }
        if let Some(sink) = self.parquet.as_mut() {
            sink.row(&row)?;
        }
        Ok(())
    }

    fn finish(self) -> Result<(), RecordError> {
        if let Some(sink) = self.csv {
            sink.finish()?;
        }
        if let Some(sink) = self.parquet {
            sink.finish()?;
        }
        Ok(())
    }
}

/// Summarise `path`, writing CSV and Parquet rows where asked.
pub fn inspect(
    path: &Path,
    csv: Option<&Path>,
    parquet: Option<&Path>,
) -> Result<Summary, RecordError> {
    let mut recording = Recording::open(path)?;
    let mut summary = Summary {
        federation: recording.header.federation.clone(),
        sources: recording.header.sources.clone(),
        file_len: recording.file_len,
        ignored_bytes: recording.trailing_bytes(),
        closed_cleanly: recording.closed_cleanly,
        chunks: recording.chunks.len(),
        time_representation: recording.header.time_representation,
        ..Default::default()
    };
    let representation = recording.header.time_representation;
    let mut names = Names::new(&recording.header.dictionary);
    let mut sinks = Sinks {
        csv: csv
            .map(|path| CsvSink::create(path, representation))
            .transpose()?,
        parquet: parquet
            .map(|path| ParquetSink::create(path, representation))
            .transpose()?,
        rows: 0,
    };
    let damaged = recording.for_each_record(|_, record| {
        summary.count(&record, &names);
        if let Record::Discover {
            source,
            object,
            class,
            name,
            ..
        } = &record
        {
            names.remember(*source, *object, name, *class);
        }
        match record {
            Record::Discover { .. } | Record::Reflect { .. } | Record::Remove { .. } => {
                object_rows(&record, &mut names, &mut sinks)
            }
            _ => other_rows(&record, &names, &mut sinks),
        }
    })?;
    summary.damaged_chunks = damaged.iter().map(|e| e.to_string()).collect();
    summary.rows = sinks.rows;
    sinks.finish()?;
    Ok(summary)
}

/// The rows of a discovery, an update (one per attribute) or a deletion.
fn object_rows(record: &Record, names: &mut Names, sinks: &mut Sinks) -> Result<(), RecordError> {
    let (wall_ns, source) = (record.wall_ns(), record.source());
    match record {
        Record::Discover {
            object,
            class,
            name,
            ..
        } => sinks.emit(Row {
            wall_ns,
            source,
            kind: "discover",
            class: names.class(class),
            object: Some(*object),
            instance: Some(name),
            ..Row::empty()
        }),
        Record::Reflect {
            object,
            class,
            sent,
            sender,
            values,
            ..
        } => {
            for (attribute, value) in values {
                sinks.emit(Row {
                    wall_ns,
                    source,
                    kind: "reflect",
                    class: names.class(class),
                    object: Some(*object),
                    instance: names.instance(source, *object),
                    member: names.attributes.get(attribute).map(String::as_str),
                    value: Some(value),
                    logical_time: sent.time().map(LogicalTime::from_key),
                    order: Some(order_of(*sent)),
                    sender: Some(*sender),
                    detail: None,
                })?;
            }
            Ok(())
        }
        Record::Remove {
            object,
            sent,
            sender,
            ..
        } => {
            let known = names.instances.remove(&(source, *object));
            sinks.emit(Row {
                wall_ns,
                source,
                kind: "remove",
                class: known.as_ref().and_then(|(_, c)| names.class(c)),
                object: Some(*object),
                instance: known.as_ref().map(|(n, _)| n.as_str()),
                logical_time: sent.time().map(LogicalTime::from_key),
                order: Some(order_of(*sent)),
                sender: Some(*sender),
                ..Row::empty()
            })
        }
        _ => Ok(()),
    }
}

/// The rows of an interaction (one per parameter), a time grant or a gap.
fn other_rows(record: &Record, names: &Names, sinks: &mut Sinks) -> Result<(), RecordError> {
    let (wall_ns, source) = (record.wall_ns(), record.source());
    match record {
        Record::Interaction {
            class,
            sent,
            sender,
            parameters,
            ..
        } => {
            for (parameter, value) in parameters {
                sinks.emit(Row {
                    wall_ns,
                    source,
                    kind: "interaction",
                    class: names.interactions.get(class).map(String::as_str),
                    member: names.parameters.get(parameter).map(String::as_str),
                    value: Some(value),
                    logical_time: sent.time().map(LogicalTime::from_key),
                    order: Some(order_of(*sent)),
                    sender: Some(*sender),
                    ..Row::empty()
                })?;
            }
            Ok(())
        }
        Record::TimeGrant { time, .. } => sinks.emit(Row {
            wall_ns,
            source,
            kind: "time-grant",
            logical_time: Some(LogicalTime::from_key(*time)),
            ..Row::empty()
        }),
        Record::Gap {
            cause,
            lost,
            detail,
            ..
        } => {
            let text = format!("{}: {lost} lost: {detail}", cause.name());
            sinks.emit(Row {
                wall_ns,
                source,
                kind: "gap",
                detail: Some(&text),
                ..Row::empty()
            })
        }
        _ => Ok(()),
    }
}

fn order_of(sent: Sent) -> &'static str {
    match sent {
        Sent::ReceiveOrder => "receive",
        Sent::TimeStamp(_) => "timestamp",
    }
}

impl Row<'_> {
    fn empty() -> Row<'static> {
        Row {
            wall_ns: 0,
            source: 0,
            kind: "",
            class: None,
            object: None,
            instance: None,
            member: None,
            value: None,
            logical_time: None,
            order: None,
            sender: None,
            detail: None,
        }
    }
}

impl Summary {
    fn count(&mut self, record: &Record, names: &Names) {
        *self.records.entry(record.kind_name()).or_default() += 1;
        let wall = record.wall_ns();
        self.first_wall = Some(self.first_wall.map_or(wall, |w| w.min(wall)));
        self.last_wall = Some(self.last_wall.map_or(wall, |w| w.max(wall)));
        if let Some(key) = record.logical_time() {
            // Keys order as the times do, in either representation.
            let t = LogicalTime::from_key(key);
            self.first_time = Some(self.first_time.map_or(t, |f| f.min(t)));
            self.last_time = Some(self.last_time.map_or(t, |l| l.max(t)));
        }
        let name = |map: &HashMap<u32, String>, h: &u32| {
            map.get(h)
                .map_or_else(|| format!("#{h}"), |n| n.to_string())
        };
        fn entry(s: &mut Summary, class: String) -> &mut ClassCounts {
            s.classes.entry(class).or_default()
        }
        match record {
            Record::Discover { class, .. } => {
                entry(self, name(&names.classes, class)).discovered += 1
            }
            Record::Reflect { class, .. } => entry(self, name(&names.classes, class)).updates += 1,
            Record::Interaction { class, .. } => {
                entry(self, name(&names.interactions, class)).interactions += 1
            }
            Record::Remove { source, object, .. } => {
                if let Some((_, class)) = names.instances.get(&(*source, *object)) {
                    entry(self, name(&names.classes, class)).removed += 1;
                }
            }
            Record::Gap {
                wall_ns,
                source,
                cause,
                lost,
                detail,
            } => {
                self.gap_count += 1;
                if self.gaps.len() < MAX_LISTED_GAPS {
                    self.gaps
                        .push((*wall_ns, *source, cause.name(), *lost, detail.clone()));
                }
            }
            Record::TimeGrant { .. } => {}
        }
    }
}

struct CsvSink {
    out: BufWriter<File>,
    path: String,
    /// How the logical_time column is written.
    representation: TimeRepresentation,
}

fn csv_field(out: &mut String, text: &str) {
    if text.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&text.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(text);
    }
}

impl CsvSink {
    fn create(path: &Path, representation: TimeRepresentation) -> Result<CsvSink, RecordError> {
        let name = path.display().to_string();
        let file = File::create(path).map_err(|e| RecordError::Io(name.clone(), e))?;
        let mut sink = CsvSink {
            out: BufWriter::new(file),
            path: name,
            representation,
        };
        sink.write(&format!("{}\n", COLUMNS.join(",")))?;
        Ok(sink)
    }

    fn write(&mut self, text: &str) -> Result<(), RecordError> {
        self.out
            .write_all(text.as_bytes())
            .map_err(|e| RecordError::Io(self.path.clone(), e))
    }

    /// The value column is hexadecimal: values are the federation's encoded bytes.
    fn row(&mut self, row: &Row<'_>) -> Result<(), RecordError> {
        let opt = |v: Option<String>| v.unwrap_or_default();
        let mut line = format!("{},{},{},", row.wall_ns, row.source, row.kind);
        csv_field(&mut line, row.class.unwrap_or(""));
        line.push(',');
        line.push_str(&opt(row.object.map(|o| o.to_string())));
        line.push(',');
        csv_field(&mut line, row.instance.unwrap_or(""));
        line.push(',');
        csv_field(&mut line, row.member.unwrap_or(""));
        line.push(',');
        for byte in row.value.unwrap_or_default() {
            line.push_str(&format!("{byte:02x}"));
        }
        line.push(',');
        let time = row.logical_time;
        line.push_str(&opt(
            time.map(|t| self.representation.display(t).to_string())
        ));
        line.push(',');
        line.push_str(row.order.unwrap_or(""));
        line.push(',');
        line.push_str(&opt(row.sender.map(|s| s.to_string())));
        line.push(',');
        csv_field(&mut line, row.detail.unwrap_or(""));
        line.push('\n');
        self.write(&line)
    }

    fn finish(mut self) -> Result<(), RecordError> {
        self.out
            .flush()
            .map_err(|e| RecordError::Io(self.path.clone(), e))
    }
}

struct Columns {
    wall_ns: UInt64Builder,
    source: UInt32Builder,
    kind: StringBuilder,
    class: StringBuilder,
    object: UInt64Builder,
    instance: StringBuilder,
    member: StringBuilder,
    value: BinaryBuilder,
    logical_time: TimeColumn,
    order: StringBuilder,
    sender: UInt32Builder,
    detail: StringBuilder,
}

struct ParquetSink {
    writer: ArrowWriter<File>,
    schema: Arc<Schema>,
    columns: Columns,
    rows: usize,
}

/// The logical_time column: Int64 for an HLAinteger64Time federation, Float64 for
/// HLAfloat64Time.
enum TimeColumn {
    Integer(Int64Builder),
    Float(Float64Builder),
}

impl TimeColumn {
    fn append(&mut self, time: Option<LogicalTime>) {
        match self {
            TimeColumn::Integer(b) => b.append_option(time.map(LogicalTime::as_i64)),
            TimeColumn::Float(b) => b.append_option(time.map(LogicalTime::as_f64)),
        }
    }

    fn finish(&mut self) -> ArrayRef {
        match self {
            TimeColumn::Integer(b) => Arc::new(b.finish()),
            TimeColumn::Float(b) => Arc::new(b.finish()),
        }
    }
}

fn time_type(representation: TimeRepresentation) -> DataType {
    match representation {
        TimeRepresentation::Integer64 => DataType::Int64,
        TimeRepresentation::Float64 => DataType::Float64,
    }
}

fn schema(representation: TimeRepresentation) -> Schema {
    let field =
        |name: &str, data_type: DataType, nullable: bool| Field::new(name, data_type, nullable);
    Schema::new(vec![
        field("wall_ns", DataType::UInt64, false),
        field("source", DataType::UInt32, false),
        field("kind", DataType::Utf8, false),
        field("class", DataType::Utf8, true),
        field("object", DataType::UInt64, true),
        field("instance", DataType::Utf8, true),
        field("member", DataType::Utf8, true),
        field("value", DataType::Binary, true),
        field("logical_time", time_type(representation), true),
        field("order", DataType::Utf8, true),
        field("sender", DataType::UInt32, true),
        field("detail", DataType::Utf8, true),
    ])
}

impl Columns {
    fn new(representation: TimeRepresentation) -> Columns {
        Columns {
            wall_ns: UInt64Builder::new(),
            source: UInt32Builder::new(),
            kind: StringBuilder::new(),
            class: StringBuilder::new(),
            object: UInt64Builder::new(),
            instance: StringBuilder::new(),
            member: StringBuilder::new(),
            value: BinaryBuilder::new(),
            logical_time: match representation {
                TimeRepresentation::Integer64 => TimeColumn::Integer(Int64Builder::new()),
                TimeRepresentation::Float64 => TimeColumn::Float(Float64Builder::new()),
            },
            order: StringBuilder::new(),
            sender: UInt32Builder::new(),
            detail: StringBuilder::new(),
        }
    }

    fn push(&mut self, row: &Row<'_>) {
        self.wall_ns.append_value(row.wall_ns);
        self.source.append_value(row.source);
        self.kind.append_value(row.kind);
        self.class.append_option(row.class);
        self.object.append_option(row.object);
        self.instance.append_option(row.instance);
        self.member.append_option(row.member);
        self.value.append_option(row.value);
        self.logical_time.append(row.logical_time);
        self.order.append_option(row.order);
        self.sender.append_option(row.sender);
        self.detail.append_option(row.detail);
    }

    fn finish(&mut self) -> Vec<ArrayRef> {
        vec![
            Arc::new(self.wall_ns.finish()),
            Arc::new(self.source.finish()),
            Arc::new(self.kind.finish()),
            Arc::new(self.class.finish()),
            Arc::new(self.object.finish()),
            Arc::new(self.instance.finish()),
            Arc::new(self.member.finish()),
            Arc::new(self.value.finish()),
            self.logical_time.finish(),
            Arc::new(self.order.finish()),
            Arc::new(self.sender.finish()),
            Arc::new(self.detail.finish()),
        ]
    }
}

impl ParquetSink {
    fn create(path: &Path, representation: TimeRepresentation) -> Result<ParquetSink, RecordError> {
        let file =
            File::create(path).map_err(|e| RecordError::Io(path.display().to_string(), e))?;
        let schema = Arc::new(schema(representation));
        let writer = ArrowWriter::try_new(file, schema.clone(), None)
            .map_err(|e| RecordError::Export(e.to_string()))?;
        Ok(ParquetSink {
            writer,
            schema,
            columns: Columns::new(representation),
            rows: 0,
        })
    }

    fn row(&mut self, row: &Row<'_>) -> Result<(), RecordError> {
        self.columns.push(row);
        self.rows += 1;
        if self.rows >= BATCH_ROWS {
            self.flush()?;
        }
        Ok(())
    }

    fn flush(&mut self) -> Result<(), RecordError> {
        if self.rows == 0 {
            return Ok(());
        }
        let batch = RecordBatch::try_new(self.schema.clone(), self.columns.finish())
            .map_err(|e| RecordError::Export(e.to_string()))?;
        self.writer
            .write(&batch)
            .map_err(|e| RecordError::Export(e.to_string()))?;
        self.rows = 0;
        Ok(())
    }

    fn finish(mut self) -> Result<(), RecordError> {
        self.flush()?;
        self.writer
            .close()
            .map_err(|e| RecordError::Export(e.to_string()))?;
        Ok(())
    }
}
