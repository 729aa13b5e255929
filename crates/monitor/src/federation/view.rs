//! What `trellis federation` shows, built from the MOM's raw attribute values as a tool
//! receives them: decoding (`trellis_core::federate::mom::decode`), the lag, and the text
//! and JSON forms. No I/O here, so it is tested on values alone.

use serde::Serialize;
use std::collections::BTreeMap;
use trellis_core::federate::mom::decode::{self, DecodeError};
use trellis_core::federate::TimeRepresentation;

/// The raw values of one MOM instance, by attribute name, as last reflected.
pub type Values = BTreeMap<String, Vec<u8>>;

/// A logical time or interval in the federation's representation.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Time {
    Integer(i64),
    Float(f64),
}

impl Time {
    fn from_bytes(representation: TimeRepresentation, bytes: [u8; 8]) -> Time {
        match representation {
            TimeRepresentation::Integer64 => Time::Integer(i64::from_be_bytes(bytes)),
            TimeRepresentation::Float64 => Time::Float(f64::from_be_bytes(bytes)),
        }
    }

    /// `self − earlier`, in the same representation (mixed ones cannot occur: one
    /// federation has one time implementation).
    fn since(self, earlier: Time) -> Option<Time> {
        match (self, earlier) {
            (Time::Integer(a), Time::Integer(b)) => a.checked_sub(b).map(Time::Integer),
            (Time::Float(a), Time::Float(b)) => Some(Time::Float(a - b)),
            _ => None,
        }
    }
}

impl std::fmt::Display for Time {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Time::Integer(v) => write!(f, "{v}"),
            Time::Float(v) => write!(f, "{v}"),
        }
    }
}

/// One federate's time state, as its MOM reports it.
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct TimeState {
    pub regulating: Option<bool>,
    pub constrained: Option<bool>,
    pub logical_time: Option<Time>,
    pub lookahead: Option<Time>,
    pub galt: Option<Time>,
    /// GALT − logical time: how far the federate could advance now without waiting for
    /// anyone (absent when GALT is undefined: no other federate regulates).
    pub lag: Option<Time>,
}

/// One federate's counts, as its MOM reports them.
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct Counts {
    pub updates_sent: Option<u64>,
    pub reflections_received: Option<u64>,
    pub interactions_sent: Option<u64>,
    pub interactions_received: Option<u64>,
    pub instances_registered: Option<u64>,
    pub instances_discovered: Option<u64>,
}

#[derive(Debug, PartialEq, Serialize)]
pub struct FederateReport {
    pub handle: u32,
    pub name: Option<String>,
    #[serde(rename = "type")]
    pub federate_type: Option<String>,
    pub host: Option<String>,
    pub rti_version: Option<String>,
    pub time: TimeState,
    pub counts: Counts,
}

#[derive(Debug, PartialEq, Serialize)]
pub struct FederationReport {
    pub federation: String,
    pub time_implementation: Option<String>,
    pub rti_version: Option<String>,
    pub mim_designator: Option<String>,
    pub fom_modules: Option<Vec<String>>,
    /// The members other than this view.
    pub federates: Vec<FederateReport>,
    /// Members the federation lists that did not answer in time.
    pub not_answering: Vec<u32>,
    /// The pending synchronization points; `None` when the federation did not say.
    pub synchronization_points: Option<Vec<SyncPointReport>>,
    pub save: SaveState,
    /// Instances per class, summed over the members' reports; `None` when not asked.
    pub objects_per_class: Option<Vec<ClassCount>>,
}

/// How many instances of a class the federation holds (`object_counts`).
#[derive(Debug, PartialEq, Serialize)]
pub struct ClassCount {
    /// Dotted from below HLAobjectRoot.
    pub class: String,
    pub objects: u64,
}

/// A pending synchronization point: the members (other than the view) that achieved it
/// and those it waits for.
#[derive(Debug, PartialEq, Serialize)]
pub struct SyncPointReport {
    pub label: String,
    pub achieved: Vec<u32>,
    pub waiting_for: Vec<u32>,
}

/// Reads named values, collecting what does not decode (reported, never shown as data).
pub struct Reader<'a> {
    values: &'a Values,
    what: String,
    problems: &'a mut Vec<String>,
}

impl<'a> Reader<'a> {
    pub fn new(values: &'a Values, what: String, problems: &'a mut Vec<String>) -> Reader<'a> {
        Reader {
            values,
            what,
            problems,
        }
    }

    fn get<T>(&mut self, name: &str, read: fn(&[u8]) -> Result<T, DecodeError>) -> Option<T> {
        let bytes = self.values.get(name)?;
        match read(bytes) {
            Ok(value) => Some(value),
            Err(e) => {
                self.problems
                    .push(format!("{}: {name} does not decode: {e}", self.what));
                None
            }
        }
    }

    fn time(&mut self, name: &str, representation: TimeRepresentation) -> Option<Time> {
        let bytes = self.get(name, decode::opaque_time)??;
        Some(Time::from_bytes(representation, bytes))
    }
}

/// One member's report from its `HLAmanager.HLAfederate` values.
pub fn federate_report(
    handle: u32,
    values: &Values,
    representation: TimeRepresentation,
    problems: &mut Vec<String>,
) -> FederateReport {
    let mut r = Reader::new(values, format!("federate {handle}"), problems);
    let logical_time = r.time("HLAlogicalTime", representation);
    let galt = r.time("HLAGALT", representation);
    let time = TimeState {
        regulating: r.get("HLAtimeRegulating", decode::boolean),
        constrained: r.get("HLAtimeConstrained", decode::boolean),
        logical_time,
        lookahead: r.time("HLAlookahead", representation),
        galt,
        lag: galt.zip(logical_time).and_then(|(g, t)| g.since(t)),
    };
    let counts = Counts {
        updates_sent: r.get("HLAupdatesSent", decode::count),
        reflections_received: r.get("HLAreflectionsReceived", decode::count),
        interactions_sent: r.get("HLAinteractionsSent", decode::count),
        interactions_received: r.get("HLAinteractionsReceived", decode::count),
        instances_registered: r.get("HLAobjectInstancesRegistered", decode::count),
        instances_discovered: r.get("HLAobjectInstancesDiscovered", decode::count),
    };
    FederateReport {
        handle,
        name: r.get("HLAfederateName", decode::unicode_string),
        federate_type: r.get("HLAfederateType", decode::unicode_string),
        host: r.get("HLAfederateHost", decode::unicode_string),
        rti_version: r.get("HLARTIversion", decode::unicode_string),
        time,
        counts,
    }
}

/// The federation's own attributes (`HLAmanager.HLAfederation`) that the report shows.
pub struct FederationFacts {
    pub time_implementation: Option<String>,
    pub rti_version: Option<String>,
    pub mim_designator: Option<String>,
    pub fom_modules: Option<Vec<String>>,
    pub save: SaveState,
}

/// The federation's saves as its MOM says (empty names: none).
#[derive(Debug, Default, PartialEq, Serialize)]
pub struct SaveState {
    /// HLAlastSaveName: the last save the speaking member took part in.
    pub last: Option<String>,
    /// HLAnextSaveName and HLAnextSaveTime: a timed save ordered and not begun.
    pub next: Option<String>,
    pub next_time: Option<Time>,
}

pub fn federation_facts(
    values: &Values,
    time: TimeRepresentation,
    problems: &mut Vec<String>,
) -> FederationFacts {
    let mut r = Reader::new(values, "the federation".to_owned(), problems);
    let named = |name: Option<String>| name.filter(|n| !n.is_empty());
    FederationFacts {
        time_implementation: r.get("HLAtimeImplementationName", decode::unicode_string),
        rti_version: r.get("HLARTIversion", decode::unicode_string),
        mim_designator: r.get("HLAMIMdesignator", decode::unicode_string),
        fom_modules: r.get("HLAFOMmoduleDesignatorList", decode::string_list),
        save: SaveState {
            last: named(r.get("HLAlastSaveName", decode::unicode_string)),
            next: named(r.get("HLAnextSaveName", decode::unicode_string)),
            next_time: r.time("HLAnextSaveTime", time),
        },
    }
}

fn or_dash<T: std::fmt::Display>(value: &Option<T>) -> String {
    value.as_ref().map_or_else(|| "-".to_owned(), T::to_string)
}

fn yes_no(value: Option<bool>) -> String {
    match value {
        Some(true) => "yes".to_owned(),
        Some(false) => "no".to_owned(),
        None => "-".to_owned(),
    }
}

const COLUMNS: [&str; 16] = [
    "HANDLE",
    "NAME",
    "TYPE",
    "HOST",
    "REG",
    "CON",
    "TIME",
    "LOOKAHEAD",
    "GALT",
    "LAG",
    "UPD-SENT",
    "REFL-RCVD",
    "INT-SENT",
    "INT-RCVD",
    "REGISTERED",
    "DISCOVERED",
];

fn row(federate: &FederateReport) -> Vec<String> {
    let (t, c) = (&federate.time, &federate.counts);
    vec![
        federate.handle.to_string(),
        or_dash(&federate.name),
        or_dash(&federate.federate_type),
        or_dash(&federate.host),
        yes_no(t.regulating),
        yes_no(t.constrained),
        or_dash(&t.logical_time),
        or_dash(&t.lookahead),
        or_dash(&t.galt),
        or_dash(&t.lag),
        or_dash(&c.updates_sent),
        or_dash(&c.reflections_received),
        or_dash(&c.interactions_sent),
        or_dash(&c.interactions_received),
        or_dash(&c.instances_registered),
        or_dash(&c.instances_discovered),
    ]
}

/// The report as text: a heading line, then one aligned row per federate.
pub fn text(report: &FederationReport) -> String {
    let mut out = format!(
        "federation {}: {}, {} federate{}",
        report.federation,
        report
            .time_implementation
            .as_deref()
            .unwrap_or("time implementation unknown"),
        report.federates.len(),
        if report.federates.len() == 1 { "" } else { "s" }
    );
    if let Some(version) = &report.rti_version {
        out += &format!(", {version}");
    }
    out.push('\n');
    let rows: Vec<Vec<String>> = std::iter::once(COLUMNS.map(str::to_owned).to_vec())
        .chain(report.federates.iter().map(row))
        .collect();
    let widths: Vec<usize> = (0..COLUMNS.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for cells in &rows {
        let line: Vec<String> = (cells.iter().zip(&widths))
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        out += line.join("  ").trim_end();
        out.push('\n');
    }
    if !report.not_answering.is_empty() {
        out += &format!(
            "not answering: federates {}\n",
            handles(&report.not_answering)
        );
    }
    if let Some(classes) = report.objects_per_class.as_ref().filter(|c| !c.is_empty()) {
        let counts: Vec<String> = (classes.iter())
            .map(|c| format!("{} {}", c.class, c.objects))
            .collect();
        out += &format!("objects: {}\n", counts.join(", "));
    }
    if let Some(last) = &report.save.last {
        out += &format!("last save: {last:?}\n");
    }
    if let Some(next) = &report.save.next {
        let at = report
            .save
            .next_time
            .as_ref()
            .map(|t| format!(" at time {t}"));
        out += &format!("next save: {next:?}{}\n", at.unwrap_or_default());
    }
    for point in report.synchronization_points.iter().flatten() {
        out += &format!(
            "synchronization point {:?}: achieved by {}; waiting for {}\n",
            point.label,
            handles_or_none(&point.achieved),
            handles_or_none(&point.waiting_for)
        );
    }
    out
}

fn handles(list: &[u32]) -> String {
    let handles: Vec<String> = list.iter().map(u32::to_string).collect();
    handles.join(", ")
}

fn handles_or_none(list: &[u32]) -> String {
    if list.is_empty() {
        "none".into()
    } else {
        handles(list)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int32(v: i32) -> Vec<u8> {
        v.to_be_bytes().to_vec()
    }

    fn time(v: i64) -> Vec<u8> {
        let mut out = int32(8);
        out.extend_from_slice(&v.to_be_bytes());
        out
    }

    fn text_value(s: &str) -> Vec<u8> {
        let mut out = int32(s.encode_utf16().count() as i32);
        for unit in s.encode_utf16() {
            out.extend_from_slice(&unit.to_be_bytes());
        }
        out
    }

    fn member() -> Values {
        Values::from([
            ("HLAfederateName".into(), text_value("stepper")),
            ("HLAtimeRegulating".into(), int32(1)),
            ("HLAtimeConstrained".into(), int32(0)),
            ("HLAlogicalTime".into(), time(7)),
            ("HLAlookahead".into(), time(1)),
            ("HLAGALT".into(), time(10)),
            ("HLAupdatesSent".into(), int32(3)),
        ])
    }

    #[test]
    fn the_lag_is_galt_minus_logical_time_and_absent_without_galt() {
        let mut problems = Vec::new();
        let report = federate_report(2, &member(), TimeRepresentation::Integer64, &mut problems);
        assert_eq!(report.time.lag, Some(Time::Integer(3)));
        assert_eq!(report.time.regulating, Some(true));
        assert_eq!(report.counts.updates_sent, Some(3));
        assert_eq!(report.counts.reflections_received, None, "absent, not zero");
        let mut values = member();
        values.insert("HLAGALT".into(), int32(0));
        let report = federate_report(2, &values, TimeRepresentation::Integer64, &mut problems);
        assert_eq!((report.time.galt, report.time.lag), (None, None));
        assert!(problems.is_empty(), "{problems:?}");
    }

    #[test]
    fn a_value_that_does_not_decode_is_reported_and_left_out() {
        let mut values = member();
        values.insert("HLAtimeRegulating".into(), int32(5));
        let mut problems = Vec::new();
        let report = federate_report(4, &values, TimeRepresentation::Integer64, &mut problems);
        assert_eq!(report.time.regulating, None);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0].contains("federate 4: HLAtimeRegulating"),
            "{problems:?}"
        );
    }

    #[test]
    fn text_aligns_columns_and_dashes_what_is_absent() {
        let mut problems = Vec::new();
        let report = FederationReport {
            federation: "F".into(),
            time_implementation: Some("HLAinteger64Time".into()),
            rti_version: None,
            mim_designator: None,
            fom_modules: None,
            federates: vec![federate_report(
                2,
                &member(),
                TimeRepresentation::Integer64,
                &mut problems,
            )],
            not_answering: vec![5],
            synchronization_points: Some(vec![SyncPointReport {
                label: "Ready".into(),
                achieved: Vec::new(),
                waiting_for: vec![2, 3],
            }]),
            save: SaveState {
                last: Some("s1".into()),
                next: Some("s2".into()),
                next_time: Some(Time::Integer(20)),
            },
            objects_per_class: Some(vec![ClassCount {
                class: "Vehicle".into(),
                objects: 6,
            }]),
        };
        let shown = text(&report);
        let lines: Vec<&str> = shown.lines().collect();
        assert_eq!(lines[0], "federation F: HLAinteger64Time, 1 federate");
        assert!(lines[1].starts_with("HANDLE  NAME     TYPE  HOST  REG  CON  TIME"));
        assert!(lines[2].starts_with("2       stepper  -     -     yes  no   7"));
        assert_eq!(lines[3], "not answering: federates 5");
        assert_eq!(lines[4], "objects: Vehicle 6");
        assert_eq!(lines[5], "last save: \"s1\"");
        assert_eq!(lines[6], "next save: \"s2\" at time 20");
        let point = "synchronization point \"Ready\": achieved by none; waiting for 2, 3";
        assert_eq!(lines[7], point);
    }
}
