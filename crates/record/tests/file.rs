//! The file round trip: what the writer appends, the reader gives back, by the index when
//! the file was closed cleanly and by walking the chunks when it was cut.

use std::path::Path;
use std::time::Duration;
use trellis_core::federate::{LogicalTime, TimeRepresentation};
use trellis_record::export::inspect;
use trellis_record::format::{Dictionary, Header, Record, Sent};
use trellis_record::{RecordWriter, Recording, WriterLimits};

fn update(i: u64) -> Record {
    Record::Reflect {
        wall_ns: 1_000_000 + i * 10,
        source: 0,
        object: 7,
        class: 3,
        sent: Sent::TimeStamp(i),
        sender: 1,
        tag: Vec::new(),
        values: vec![(4, (i as u32).to_le_bytes().to_vec())],
    }
}

fn header(time_representation: TimeRepresentation) -> Header {
    Header {
        started_wall_ns: 1,
        federation: "F".into(),
        sources: vec!["tcp://127.0.0.1:1".into()],
        fom_modules: Vec::new(),
        dictionary: Dictionary::default(),
        time_representation,
    }
}

fn write(path: &Path, count: u64, finish: bool) -> Vec<Record> {
    let header = header(TimeRepresentation::Integer64);
    let limits = WriterLimits {
        chunk_bytes: 64,
        flush_after: Duration::from_secs(3600),
        index_block: 3,
    };
    let mut writer = RecordWriter::create(path, &header, limits).unwrap();
    let records: Vec<Record> = (0..count).map(update).collect();
    for record in &records {
        writer.append(record).unwrap();
    }
    if finish {
        writer.finish().unwrap();
    } else {
        writer.write_chunk().unwrap();
    }
    records
}

fn read_all(path: &Path) -> (Recording, Vec<Record>) {
    let mut recording = Recording::open(path).unwrap();
    let mut records = Vec::new();
    let damaged = recording
        .for_each_record(|_, r| {
            records.push(r);
            Ok(())
        })
        .unwrap();
    assert!(damaged.is_empty(), "{damaged:?}");
    (recording, records)
}

#[test]
fn a_cleanly_closed_file_is_read_through_its_index_blocks() {
    let dir = tempdir();
    let path = dir.join("clean.trec");
    let written = write(&path, 100, true);
    let (recording, read) = read_all(&path);
    assert!(recording.closed_cleanly);
    assert!(
        recording.chunks.len() > 6,
        "several index blocks: {}",
        recording.chunks.len()
    );
    assert_eq!(read, written);
    // The index's times match the records: chunk by chunk, min..max of logical time.
    assert!(recording
        .chunks
        .windows(2)
        .all(|w| w[0].max_time < w[1].min_time));
    // Without its trailer the file is walked chunk by chunk: the same chunks, entry for entry.
    let bytes = std::fs::read(&path).unwrap();
    let walked_path = dir.join("no-trailer.trec");
    std::fs::write(&walked_path, &bytes[..bytes.len() - 20]).unwrap();
    let (walked, read_walking) = read_all(&walked_path);
    assert!(!walked.closed_cleanly);
    assert_eq!(walked.chunks, recording.chunks);
    assert_eq!(read_walking, written);
}

#[test]
fn a_file_cut_anywhere_reads_every_whole_chunk_before_the_cut_and_nothing_else() {
    let dir = tempdir();
    let path = dir.join("whole.trec");
    let written = write(&path, 60, false);
    let bytes = std::fs::read(&path).unwrap();
    let (whole, _) = read_all(&path);
    let ends: Vec<u64> = whole
        .chunks
        .iter()
        .map(|c| c.offset + 52 + u64::from(c.payload_len))
        .collect();
    let cut_path = dir.join("cut.trec");
    let header_len = whole.chunks[0].offset as usize;
    for cut in header_len..bytes.len() {
        std::fs::write(&cut_path, &bytes[..cut]).unwrap();
        let (recording, read) = read_all(&cut_path);
        let whole_chunks = ends.iter().filter(|end| **end <= cut as u64).count();
        assert_eq!(recording.chunks.len(), whole_chunks, "cut at {cut}");
        let expected: usize = whole.chunks[..whole_chunks]
            .iter()
            .map(|c| c.records as usize)
            .sum();
        assert_eq!(read, written[..expected], "cut at {cut}");
        assert!(!recording.closed_cleanly);
    }
}

#[test]
fn a_damaged_chunk_is_skipped_and_reported_and_the_rest_is_read() {
    let dir = tempdir();
    let path = dir.join("damaged.trec");
    write(&path, 60, true);
    let (clean, all) = read_all(&path);
    let mut bytes = std::fs::read(&path).unwrap();
    let second = clean.chunks[1];
    bytes[second.offset as usize + 52 + 2] ^= 0xff;
    std::fs::write(&path, &bytes).unwrap();
    let mut recording = Recording::open(&path).unwrap();
    let mut read = 0;
    let damaged = recording.for_each_record(|_, _| {
        read += 1;
        Ok(())
    });
    let damaged = damaged.unwrap();
    assert_eq!(damaged.len(), 1);
    assert!(
        damaged[0].to_string().contains("checksum"),
        "{}",
        damaged[0]
    );
    assert_eq!(read, all.len() - second.records as usize);
}

#[test]
fn a_file_that_is_not_a_recording_is_refused_by_name() {
    let dir = tempdir();
    let path = dir.join("other.txt");
    std::fs::write(&path, b"hello, this is not a recording").unwrap();
    let error = Recording::open(&path).err().unwrap().to_string();
    assert!(
        error.contains("other.txt") && error.contains("not a Trellis recording"),
        "{error}"
    );
}

/// A folder of the test's own, removed when the test ends: CI runs these tests on every
/// run, and the folders stayed behind before.
struct TempDir(std::path::PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn tempdir() -> TempDir {
    let dir = std::env::temp_dir().join(format!(
        "trellis-record-file-{}-{:?}",
        std::process::id(),
        std::thread::current().id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    TempDir(dir)
}

/// An HLAfloat64Time recording: the header says so, and inspect gives its times as floats,
/// in the summary and in a Float64 Parquet column.
#[test]
fn a_float_time_recording_is_inspected_in_floats() {
    let dir = tempdir();
    let path = dir.join("float.trec");
    let header = header(TimeRepresentation::Float64);
    let mut writer = RecordWriter::create(&path, &header, WriterLimits::default()).unwrap();
    for (i, t) in [0.5, 1.25].into_iter().enumerate() {
        let Record::Reflect { values, .. } = update(i as u64) else {
            unreachable!("update makes reflects")
        };
        let key = LogicalTime::from_f64(t).unwrap().key();
        writer
            .append(&Record::Reflect {
                wall_ns: 10 + i as u64,
                source: 0,
                object: 7,
                class: 3,
                sent: Sent::TimeStamp(key),
                sender: 1,
                tag: Vec::new(),
                values,
            })
            .unwrap();
    }
    writer.finish().unwrap();
    let (recording, _) = read_all(&path);
    assert_eq!(
        recording.header.time_representation,
        TimeRepresentation::Float64
    );
    let parquet = dir.join("float.parquet");
    let summary = inspect(&path, None, Some(&parquet)).unwrap();
    assert_eq!(summary.first_time, LogicalTime::from_f64(0.5));
    assert_eq!(summary.last_time, LogicalTime::from_f64(1.25));
    let reader = parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder::try_new(
        std::fs::File::open(&parquet).unwrap(),
    )
    .unwrap()
    .build()
    .unwrap();
    let mut times = Vec::new();
    for batch in reader {
        let batch = batch.unwrap();
        let column = batch
            .column_by_name("logical_time")
            .unwrap()
            .as_any()
            .downcast_ref::<arrow_array::Float64Array>()
            .expect("a Float64 logical_time column")
            .clone();
        times.extend(column.iter().flatten());
    }
    assert_eq!(times, [0.5, 1.25]);
}
