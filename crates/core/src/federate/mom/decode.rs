//! Reading the MIM's encodings back: what a tool federate needs to read the MOM's
//! `HLAmanager` attributes and parameters. It mirrors the MOM's own encoder (IEEE
//! 1516.2-2010 §4.13: basic types big-endian, variable arrays as an HLAinteger32BE count
//! then the elements, each element after the first padded to its octet boundary).
//!
//! Strict about what changes meaning (a count longer than the bytes, a handle that is not 8
//! bytes, invalid UTF-16); trailing bytes after a complete value are an error too, as they
//! mean the value is not of the type the reader thinks.

use thiserror::Error;

/// A MOM value that is not the encoding its type says.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{type_name}: {why}")]
pub struct DecodeError {
    /// The MIM data type being read (HLAunicodeString, HLAhandle...).
    pub type_name: &'static str,
    /// What is wrong with the bytes, for the error message.
    pub why: String,
}

fn error(type_name: &'static str, why: impl Into<String>) -> DecodeError {
    DecodeError {
        type_name,
        why: why.into(),
    }
}

/// A cursor over one value's bytes.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    type_name: &'static str,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8], type_name: &'static str) -> Reader<'a> {
        Reader {
            bytes,
            at: 0,
            type_name,
        }
    }

    fn take(&mut self, count: usize, what: &str) -> Result<&'a [u8], DecodeError> {
        let end = self
            .at
            .checked_add(count)
            .filter(|&e| e <= self.bytes.len());
        let Some(end) = end else {
            return Err(error(
                self.type_name,
                format!(
                    "{what} needs {count} bytes at offset {}, but the value has {}",
                    self.at,
                    self.bytes.len()
                ),
            ));
        };
        let taken = &self.bytes[self.at..end];
        self.at = end;
        Ok(taken)
    }

    fn i32(&mut self, what: &str) -> Result<i32, DecodeError> {
        let bytes = self.take(4, what)?;
        Ok(i32::from_be_bytes(bytes.try_into().expect("took 4 bytes")))
    }

    /// An array's element count: HLAinteger32BE, never negative.
    fn count(&mut self, what: &str) -> Result<usize, DecodeError> {
        let count = self.i32(what)?;
        usize::try_from(count).map_err(|_| error(self.type_name, format!("{what} is {count}")))
    }

    /// Skip the padding up to the next multiple of 4 (elements after the first).
    fn align_to_4(&mut self) -> Result<(), DecodeError> {
        let padding = (4 - self.at % 4) % 4;
        self.take(padding, "padding").map(|_| ())
    }

    fn unicode_string(&mut self) -> Result<String, DecodeError> {
        let units = self.count("the count of UTF-16 code units")?;
        let bytes = self.take(units.saturating_mul(2), "the UTF-16 code units")?;
        let units: Vec<u16> = (bytes.chunks_exact(2))
            .map(|pair| u16::from_be_bytes([pair[0], pair[1]]))
            .collect();
        String::from_utf16(&units).map_err(|e| error(self.type_name, e.to_string()))
    }

    fn handle(&mut self) -> Result<u64, DecodeError> {
        let length = self.count("the handle's byte count")?;
        if length != 8 {
            return Err(error(
                self.type_name,
                format!("a handle of {length} bytes; Trellis's handles are 8"),
            ));
        }
        let bytes = self.take(8, "the handle")?;
        Ok(u64::from_be_bytes(bytes.try_into().expect("took 8 bytes")))
    }

    /// The value is read: nothing may follow.
    fn end<T>(self, value: T) -> Result<T, DecodeError> {
        if self.at == self.bytes.len() {
            Ok(value)
        } else {
            Err(error(
                self.type_name,
                format!(
                    "{} bytes after the value's end at offset {}",
                    self.bytes.len() - self.at,
                    self.at
                ),
            ))
        }
    }
}

/// HLAinteger32BE, and the MIM's enumerations and counts over it (HLAfederateState,
/// HLAtimeState, HLAmsec, HLAseconds).
pub fn int32(bytes: &[u8]) -> Result<i32, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAinteger32BE");
    let value = reader.i32("the value")?;
    reader.end(value)
}

/// HLAcount: an HLAinteger32BE that is never negative.
pub fn count(bytes: &[u8]) -> Result<u64, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAcount");
    let value = reader.count("the count")?;
    reader.end(value as u64)
}

/// HLAboolean: HLAinteger32BE 1 (true) or 0 (false); anything else is not a boolean.
pub fn boolean(bytes: &[u8]) -> Result<bool, DecodeError> {
    match int32(bytes).map_err(|e| error("HLAboolean", e.why))? {
        0 => Ok(false),
        1 => Ok(true),
        other => Err(error("HLAboolean", format!("{other} is neither 0 nor 1"))),
    }
}

/// HLAunicodeString: the count of UTF-16 code units, then each big-endian.
pub fn unicode_string(bytes: &[u8]) -> Result<String, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAunicodeString");
    let text = reader.unicode_string()?;
    reader.end(text)
}

/// HLAhandle: a byte array holding the handle's 64-bit value in 8 big-endian bytes.
pub fn handle(bytes: &[u8]) -> Result<u64, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAhandle");
    let value = reader.handle()?;
    reader.end(value)
}

/// HLAhandleList: a variable array of HLAhandle.
pub fn handle_list(bytes: &[u8]) -> Result<Vec<u64>, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAhandleList");
    let count = reader.count("the element count")?;
    // Each element takes at least 12 bytes: a count larger than that cannot be true.
    let mut handles = Vec::with_capacity(count.min(bytes.len() / 12));
    for _ in 0..count {
        handles.push(reader.handle()?);
    }
    reader.end(handles)
}

/// A variable array of (HLAhandle, HLAinteger32BE-based) records, 16 bytes each (no padding
/// between them): HLAsynchPointFederateList, HLAobjectClassBasedCounts and the like.
pub fn handle_int32_list(bytes: &[u8]) -> Result<Vec<(u64, i32)>, DecodeError> {
    let mut reader = Reader::new(bytes, "a list of (HLAhandle, HLAinteger32BE) records");
    let count = reader.count("the element count")?;
    let mut records = Vec::with_capacity(count.min(bytes.len() / 16));
    for _ in 0..count {
        records.push((reader.handle()?, reader.i32("a federate's status")?));
    }
    reader.end(records)
}

/// A variable array of HLAunicodeString (HLAmoduleDesignatorList): each element after the
/// first starts on a 4-byte boundary.
pub fn string_list(bytes: &[u8]) -> Result<Vec<String>, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAunicodeString list");
    let count = reader.count("the element count")?;
    let mut texts = Vec::with_capacity(count.min(bytes.len() / 4));
    for i in 0..count {
        if i > 0 {
            reader.align_to_4()?;
        }
        texts.push(reader.unicode_string()?);
    }
    reader.end(texts)
}

/// HLAopaqueData (a tag, for one): a variable array of HLAbyte.
pub fn opaque_data(bytes: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAopaqueData");
    let count = reader.count("the byte count")?;
    let data = reader.take(count, "the bytes")?.to_vec();
    reader.end(data)
}

/// HLAlogicalTime and HLAtimeInterval: the time's 8 bytes as the time implementation
/// encodes them (HLAinteger64Time and HLAfloat64Time: big-endian), or `None` when the
/// array is empty (undefined, e.g. no GALT).
pub fn opaque_time(bytes: &[u8]) -> Result<Option<[u8; 8]>, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAlogicalTime");
    let value = match reader.count("the byte count")? {
        0 => None,
        8 => Some(
            reader
                .take(8, "the time")?
                .try_into()
                .expect("took 8 bytes"),
        ),
        other => {
            return Err(error(
                "HLAlogicalTime",
                format!("{other} bytes; HLAinteger64Time and HLAfloat64Time take 8"),
            ))
        }
    };
    reader.end(value)
}

/// A variable array of (HLAhandle, HLAboolean) records (HLAinteractionSubscription and
/// the like).
pub fn handle_boolean_list(bytes: &[u8]) -> Result<Vec<(u64, bool)>, DecodeError> {
    let mut reader = Reader::new(bytes, "handle and boolean list");
    let count = reader.count("the element count")?;
    let mut records = Vec::with_capacity(count.min(bytes.len() / 16));
    for _ in 0..count {
        let handle = reader.handle()?;
        let flag = match reader.i32("the boolean")? {
            0 => false,
            1 => true,
            other => return Err(error("HLAboolean", format!("{other} is neither 0 nor 1"))),
        };
        records.push((handle, flag));
    }
    reader.end(records)
}

/// HLAobjectClassBasedCounts and HLAinteractionCounts: a variable array of (HLAhandle,
/// HLAcount) records.
pub fn handle_count_list(bytes: &[u8]) -> Result<Vec<(u64, u64)>, DecodeError> {
    let mut reader = Reader::new(bytes, "HLAobjectClassBasedCounts");
    let count = reader.count("the element count")?;
    let mut records = Vec::with_capacity(count.min(bytes.len() / 16));
    for _ in 0..count {
        let handle = reader.handle()?;
        let number = reader.count("the HLAcount")?;
        records.push((handle, number as u64));
    }
    reader.end(records)
}

#[cfg(test)]
mod tests {
    use super::super::encode;
    use super::*;

    #[test]
    fn what_encode_writes_reads_back() {
        assert_eq!(int32(&encode::int32(-7)), Ok(-7));
        assert_eq!(count(&encode::count(42)), Ok(42));
        assert_eq!(count(&encode::count(u64::MAX)), Ok(i32::MAX as u64));
        assert_eq!(boolean(&encode::boolean(true)), Ok(true));
        assert_eq!(boolean(&encode::boolean(false)), Ok(false));
        assert_eq!(
            unicode_string(&encode::unicode_string("aé😀")).unwrap(),
            "aé😀"
        );
        assert_eq!(
            handle(&encode::handle(0x0102_0304_0506)),
            Ok(0x0102_0304_0506)
        );
        assert_eq!(
            handle_list(&encode::handle_list([3, 1, 2])),
            Ok(vec![3, 1, 2])
        );
        assert_eq!(handle_list(&encode::handle_list([])), Ok(vec![]));
        let modules = ["a", "bc", "", "défg"];
        assert_eq!(
            string_list(&encode::string_list(modules)).unwrap(),
            modules.map(String::from)
        );
        assert_eq!(opaque_time(&encode::opaque_time(None)), Ok(None));
        let time = 12.5f64.to_be_bytes();
        assert_eq!(
            opaque_time(&encode::opaque_time(Some(time))),
            Ok(Some(time))
        );
        let counts = [(3, 2), (5, i32::MAX as u64)];
        assert_eq!(
            handle_count_list(&encode::handle_count_list(counts)),
            Ok(counts.to_vec())
        );
        assert_eq!(
            handle_count_list(&encode::handle_count_list([])),
            Ok(vec![])
        );
        let records = [(1, true), (9, false)];
        assert_eq!(
            handle_boolean_list(&encode::handle_boolean_list(records)),
            Ok(records.to_vec())
        );
    }

    #[test]
    fn short_values_and_counts_longer_than_the_bytes_are_refused_naming_the_type() {
        let short = int32(&[0, 0, 1]).unwrap_err();
        assert_eq!(short.type_name, "HLAinteger32BE");
        assert!(short.why.contains("needs 4 bytes"), "{short}");
        let string = unicode_string(&[0, 0, 0, 3, 0, b'a']).unwrap_err();
        assert!(
            string.to_string().starts_with("HLAunicodeString:"),
            "{string}"
        );
        assert!(
            handle_list(&[0x7f, 0xff, 0xff, 0xff]).is_err(),
            "a huge count"
        );
        assert!(count(&(-1i32).to_be_bytes()).is_err(), "a negative count");
    }

    #[test]
    fn values_that_are_not_their_type_are_refused() {
        assert!(boolean(&encode::int32(2)).is_err());
        let handle_of_four = [0, 0, 0, 4, 0, 0, 0, 1];
        assert!(handle(&handle_of_four).unwrap_err().why.contains("4 bytes"));
        let time_of_four = [0, 0, 0, 4, 0, 0, 0, 1];
        assert!(opaque_time(&time_of_four).is_err());
        let mut trailing = encode::unicode_string("a");
        trailing.push(0);
        assert!(unicode_string(&trailing).unwrap_err().why.contains("after"));
        // An unpaired surrogate is not text.
        assert!(unicode_string(&[0, 0, 0, 1, 0xd8, 0x00]).is_err());
    }

    #[test]
    fn list_elements_after_the_first_skip_their_padding() {
        // "a" takes 6 bytes: the second element starts after 2 bytes of padding.
        let list = [0, 0, 0, 2, 0, 0, 0, 1, 0, b'a', 0, 0, 0, 0, 0, 1, 0, b'b'];
        assert_eq!(string_list(&list).unwrap(), ["a", "b"]);
        // The padding is part of the array: cut, it is refused.
        assert!(string_list(&list[..11]).is_err());
    }
}
