//! Reading a recording, also one still being written or cut short: whole chunks whose
//! CRCs match are read; what follows the last whole chunk is reported, not read.

use crate::format::{
    parse_chunk_header, ChunkInfo, Cursor, Header, Record, CHUNK_HEADER_LEN, DATA_MAGIC,
    FILE_MAGIC, INDEX_ENTRY_LEN, INDEX_MAGIC, MAX_PAYLOAD, TRAILER_LEN, TRAILER_MAGIC,
};
use crate::RecordError;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// An open recording: its header and where its whole data chunks are.
pub struct Recording {
    path: PathBuf,
    file: File,
    pub header: Header,
    /// The data chunks, in file order.
    pub chunks: Vec<ChunkInfo>,
    /// The file's length when opened.
    pub file_len: u64,
    /// Where the last whole chunk (or the trailer) ends.
    pub valid_end: u64,
    /// The trailer was found: the recorder closed the file cleanly, and the chunk list
    /// came from the index.
    pub closed_cleanly: bool,
}

impl Recording {
    pub fn open(path: &Path) -> Result<Recording, RecordError> {
        let io = |e| RecordError::Io(path.display().to_string(), e);
        let mut file = File::open(path).map_err(io)?;
        let file_len = file.metadata().map_err(io)?.len();
        let mut start = [0u8; 16];
        file.read_exact(&mut start)
            .map_err(|_| RecordError::NotARecording(path.display().to_string()))?;
        if &start[..8] != FILE_MAGIC {
            return Err(RecordError::NotARecording(path.display().to_string()));
        }
        let body_len = u32::from_le_bytes([start[8], start[9], start[10], start[11]]);
        let crc = u32::from_le_bytes([start[12], start[13], start[14], start[15]]);
        let mut body = vec![0u8; body_len as usize];
        file.read_exact(&mut body).map_err(io)?;
        if crc32fast::hash(&body) != crc {
            return Err(RecordError::Corrupt {
                offset: 16,
                what: "the header's checksum does not match".into(),
            });
        }
        let header = Header::decode(&body)?;
        let data_start = 16 + u64::from(body_len);
        let mut recording = Recording {
            path: path.to_owned(),
            file,
            header,
            chunks: Vec::new(),
            file_len,
            valid_end: data_start,
            closed_cleanly: false,
        };
        if !recording.load_index(data_start) {
            recording.chunks.clear();
            recording.walk(data_start)?;
        }
        Ok(recording)
    }

    /// The bytes after the last whole chunk: a cut or still-growing end.
    pub fn trailing_bytes(&self) -> u64 {
        self.file_len.saturating_sub(self.valid_end)
    }

    fn read_at(&mut self, offset: u64, out: &mut [u8]) -> Result<(), RecordError> {
        let io = |e| RecordError::Io(self.path.display().to_string(), e);
        self.file.seek(SeekFrom::Start(offset)).map_err(io)?;
        self.file.read_exact(out).map_err(io)
    }

    /// The chunk header at `offset`, if whole, intact and followed by its whole payload.
    fn header_at(&mut self, offset: u64) -> Option<([u8; 4], ChunkInfo, u32)> {
        if offset + CHUNK_HEADER_LEN as u64 > self.file_len {
            return None;
        }
        let mut bytes = [0u8; CHUNK_HEADER_LEN];
        self.read_at(offset, &mut bytes).ok()?;
        let (kind, info, crc) = parse_chunk_header(offset, &bytes)?;
        let end = offset + CHUNK_HEADER_LEN as u64 + u64::from(info.payload_len);
        (info.payload_len <= MAX_PAYLOAD && end <= self.file_len).then_some((kind, info, crc))
    }

    /// Follow the trailer and the index blocks back; false if any of it is missing or bad.
    fn load_index(&mut self, data_start: u64) -> bool {
        if self.file_len < data_start + TRAILER_LEN as u64 {
            return false;
        }
        let mut trailer = [0u8; TRAILER_LEN];
        let trailer_at = self.file_len - TRAILER_LEN as u64;
        if self.read_at(trailer_at, &mut trailer).is_err()
            || &trailer[..8] != TRAILER_MAGIC
            || crc32fast::hash(&trailer[..16]).to_le_bytes() != trailer[16..20]
        {
            return false;
        }
        let mut at = u64::from_le_bytes(trailer[8..16].try_into().unwrap_or_default());
        let mut blocks = Vec::new();
        while at != 0 {
            let Some(payload) = self.index_payload(at) else {
                return false;
            };
            let previous = u64::from_le_bytes(payload[..8].try_into().unwrap_or_default());
            let entries: Option<Vec<ChunkInfo>> = payload[8..]
                .chunks(INDEX_ENTRY_LEN)
                .map(ChunkInfo::decode_entry)
                .collect();
            let Some(entries) = entries else {
                return false;
            };
            blocks.push(entries);
            if previous >= at {
                return false;
            }
            at = previous;
        }
        self.chunks = blocks.into_iter().rev().flatten().collect();
        self.valid_end = self.file_len;
        self.closed_cleanly = true;
        true
    }

    fn index_payload(&mut self, offset: u64) -> Option<Vec<u8>> {
        let (kind, info, crc) = self.header_at(offset)?;
        if &kind != INDEX_MAGIC || info.payload_len < 8 {
            return None;
        }
        let mut payload = vec![0u8; info.payload_len as usize];
        self.read_at(offset + CHUNK_HEADER_LEN as u64, &mut payload)
            .ok()?;
        (crc32fast::hash(&payload) == crc).then_some(payload)
    }

    /// No usable index (cut, or still being written): hop from chunk header to chunk header.
    fn walk(&mut self, data_start: u64) -> Result<(), RecordError> {
        let mut at = data_start;
        while let Some((kind, info, _)) = self.header_at(at) {
            if &kind == DATA_MAGIC {
                self.chunks.push(info);
            } else if &kind != INDEX_MAGIC {
                break;
            }
            at += CHUNK_HEADER_LEN as u64 + u64::from(info.payload_len);
        }
        self.valid_end = at;
        Ok(())
    }

    /// The records of one data chunk, its payload checksum verified.
    pub fn read_chunk(&mut self, chunk: &ChunkInfo) -> Result<Vec<Record>, RecordError> {
        let (kind, info, crc) = self.header_at(chunk.offset).ok_or(RecordError::Corrupt {
            offset: chunk.offset,
            what: "the chunk header is damaged or cut".into(),
        })?;
        if &kind != DATA_MAGIC {
            return Err(RecordError::Corrupt {
                offset: chunk.offset,
                what: "the index points at something that is not a data chunk".into(),
            });
        }
        let mut payload = vec![0u8; info.payload_len as usize];
        self.read_at(chunk.offset + CHUNK_HEADER_LEN as u64, &mut payload)?;
        if crc32fast::hash(&payload) != crc {
            return Err(RecordError::Corrupt {
                offset: chunk.offset,
                what: "the chunk's checksum does not match its records".into(),
            });
        }
        let origin = chunk.offset + CHUNK_HEADER_LEN as u64;
        let mut cursor = Cursor::new(&payload, origin);
        let mut records = Vec::with_capacity(info.records as usize);
        let mut previous_wall = info.first_wall;
        while !cursor.is_empty() {
            let record = Record::decode(&mut cursor, previous_wall)?;
            previous_wall = record.wall_ns();
            records.push(record);
        }
        Ok(records)
    }

    /// Every record of every whole chunk, in order, with `each`; a damaged chunk is skipped
    /// and counted (returned), never read as data.
    pub fn for_each_record(
        &mut self,
        mut each: impl FnMut(&ChunkInfo, Record) -> Result<(), RecordError>,
    ) -> Result<Vec<RecordError>, RecordError> {
        let mut damaged = Vec::new();
        for chunk in self.chunks.clone() {
            match self.read_chunk(&chunk) {
                Ok(records) => {
                    for record in records {
                        each(&chunk, record)?;
                    }
                }
                Err(e @ RecordError::Corrupt { .. }) => damaged.push(e),
                Err(e) => return Err(e),
            }
        }
        Ok(damaged)
    }
}
