//! Appending records to a recording: one chunk buffered at a time, written whole (header and
//! payload in one write) so a reader sees either all of a chunk or a cut end it ignores.

use crate::format::{
    chunk_header, ChunkInfo, Header, Record, DATA_MAGIC, INDEX_MAGIC, NO_TIME, TRAILER_MAGIC,
};
use crate::RecordError;
use std::fs::File;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// The writer's bounds: its memory is one chunk buffer plus one index block.
#[derive(Clone, Copy, Debug)]
pub struct WriterLimits {
    /// A chunk is written once its records reach this many bytes (a single larger record
    /// makes one chunk of its own).
    pub chunk_bytes: usize,
    /// A chunk is also written once its first record is this old, so readers of a file still
    /// being written lag by at most this.
    pub flush_after: Duration,
    /// Data chunks per index block: the index entries held in memory at most.
    pub index_block: usize,
}

impl Default for WriterLimits {
    fn default() -> Self {
        WriterLimits {
            chunk_bytes: 1 << 20,
            flush_after: Duration::from_secs(1),
            index_block: 4096,
        }
    }
}

pub struct RecordWriter {
    file: File,
    limits: WriterLimits,
    /// Bytes written so far: the next chunk's offset.
    offset: u64,
    payload: Vec<u8>,
    current: ChunkInfo,
    /// When the buffered chunk got its first record.
    opened: Option<Instant>,
    /// The wall time of the buffered chunk's last record: the next one's is stored as the
    /// difference (small: records come microseconds to milliseconds apart).
    previous_wall: Option<u64>,
    index: Vec<ChunkInfo>,
    last_index_offset: u64,
    /// Totals, for the closing summary.
    pub records_written: u64,
    pub chunks_written: u64,
}

fn empty_chunk() -> ChunkInfo {
    ChunkInfo {
        offset: 0,
        payload_len: 0,
        records: 0,
        first_wall: 0,
        last_wall: 0,
        min_time: NO_TIME,
        max_time: 0,
    }
}

impl RecordWriter {
    /// Create (or truncate) `path` and write its header.
    pub fn create(
        path: &Path,
        header: &Header,
        limits: WriterLimits,
    ) -> Result<RecordWriter, RecordError> {
        let io = |e| RecordError::Io(path.display().to_string(), e);
        let mut file = File::create(path).map_err(io)?;
        let bytes = header.encode();
        file.write_all(&bytes).map_err(io)?;
        file.flush().map_err(io)?;
        Ok(RecordWriter {
            file,
            limits,
            offset: bytes.len() as u64,
            payload: Vec::with_capacity(limits.chunk_bytes.min(1 << 20)),
            current: empty_chunk(),
            opened: None,
            previous_wall: None,
            index: Vec::new(),
            last_index_offset: 0,
            records_written: 0,
            chunks_written: 0,
        })
    }

    pub fn bytes_written(&self) -> u64 {
        self.offset
    }

    pub fn append(&mut self, record: &Record) -> Result<(), RecordError> {
        if self.current.records == 0 {
            self.current.first_wall = record.wall_ns();
            self.opened = Some(Instant::now());
        }
        let previous = self.previous_wall.unwrap_or(self.current.first_wall);
        record.encode(previous, &mut self.payload);
        self.previous_wall = Some(record.wall_ns());
        self.current.records += 1;
        self.current.last_wall = self.current.last_wall.max(record.wall_ns());
        if let Some(time) = record.logical_time() {
            self.current.min_time = self.current.min_time.min(time);
            self.current.max_time = self.current.max_time.max(time);
        }
        self.records_written += 1;
        if self.payload.len() >= self.limits.chunk_bytes {
            self.write_chunk()?;
        }
        Ok(())
    }

    /// Write the buffered chunk if it has waited `flush_after`.
    pub fn flush_if_due(&mut self) -> Result<(), RecordError> {
        match self.opened {
            Some(opened) if opened.elapsed() >= self.limits.flush_after => self.write_chunk(),
            _ => Ok(()),
        }
    }

    /// Write whatever is buffered as a chunk now.
    pub fn write_chunk(&mut self) -> Result<(), RecordError> {
        if self.current.records == 0 {
            return Ok(());
        }
        let mut info = std::mem::replace(&mut self.current, empty_chunk());
        info.offset = self.offset;
        info.payload_len = u32::try_from(self.payload.len())
            .map_err(|_| RecordError::TooLarge(self.payload.len()))?;
        self.write_raw(DATA_MAGIC, &info)?;
        self.payload.clear();
        self.opened = None;
        self.previous_wall = None;
        self.chunks_written += 1;
        self.index.push(info);
        if self.index.len() >= self.limits.index_block {
            self.write_index_block()?;
        }
        Ok(())
    }

    fn write_raw(&mut self, kind: &[u8; 4], info: &ChunkInfo) -> Result<(), RecordError> {
        let mut bytes = chunk_header(kind, info, &self.payload).to_vec();
        bytes.extend_from_slice(&self.payload);
        // One write of the whole chunk: a concurrent reader sees it whole or cut.
        self.file
            .write_all(&bytes)
            .map_err(|e| RecordError::Io("the recording".into(), e))?;
        self.offset += bytes.len() as u64;
        Ok(())
    }

    /// The index entries of the chunks since the last block, and a link to that block.
    fn write_index_block(&mut self) -> Result<(), RecordError> {
        if self.index.is_empty() {
            return Ok(());
        }
        self.payload.clear();
        self.payload
            .extend_from_slice(&self.last_index_offset.to_le_bytes());
        for entry in &self.index {
            entry.encode_entry(&mut self.payload);
        }
        let info = ChunkInfo {
            offset: self.offset,
            payload_len: self.payload.len() as u32,
            records: self.index.len() as u32,
            first_wall: self.index.first().map_or(0, |e| e.first_wall),
            last_wall: self.index.iter().map(|e| e.last_wall).max().unwrap_or(0),
            min_time: self
                .index
                .iter()
                .map(|e| e.min_time)
                .min()
                .unwrap_or(NO_TIME),
            max_time: self.index.iter().map(|e| e.max_time).max().unwrap_or(0),
        };
        self.write_raw(INDEX_MAGIC, &info)?;
        self.payload.clear();
        self.last_index_offset = info.offset;
        self.index.clear();
        Ok(())
    }

    /// Write the last chunk, the last index block and the trailer that points at it.
    pub fn finish(mut self) -> Result<u64, RecordError> {
        self.write_chunk()?;
        self.write_index_block()?;
        let mut trailer = TRAILER_MAGIC.to_vec();
        trailer.extend_from_slice(&self.last_index_offset.to_le_bytes());
        let crc = crc32fast::hash(&trailer);
        trailer.extend_from_slice(&crc.to_le_bytes());
        let io = |e| RecordError::Io("the recording".into(), e);
        self.file.write_all(&trailer).map_err(io)?;
        self.file.sync_all().map_err(io)?;
        Ok(self.offset + trailer.len() as u64)
    }
}
