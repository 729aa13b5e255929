//! The HLA encodings of IEEE 1516.2-2010 §4.12: bytes in, bytes out, with the standard's
//! alignment. Three layers:
//!
//! - [`Encoder`] and [`Decoder`]: numbers in either byte order at an octet boundary.
//!   Simple enough to back the C++ `RTI/encoding` classes.
//! - [`typed`]: Rust types for the standard's encodings ([`typed::HlaInteger32Be`],
//!   `Vec<T>` as a variable array, tuples as fixed records, ...).
//! - [`value`]: any type of a loaded object model, to and from a [`value::DataValue`]
//!   that prints as text.
//!
//! Alignment (§4.12.7.1): every value starts at a multiple of its octet boundary, counted
//! from the start of the buffer, with zero padding before it. Containers start at the
//! largest boundary of their parts, so the parts' offsets within them never depend on
//! where the container itself lies. Nothing pads the end of a value.
//!
//! Decoding reads bytes from the network: every length is checked, every count is capped
//! by the bytes left, nesting is bounded, and nothing panics.

pub mod typed;
pub mod value;

pub use value::{decode_value, encode_value, DataValue, EncodeError};

use thiserror::Error;

/// Why bytes did not decode. Offsets count from the start of the buffer.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DecodeError {
    /// The buffer ends before the value does.
    #[error("at offset {at}: needs {needed} more bytes, has {available}")]
    Truncated {
        /// Offset where the read started.
        at: usize,
        /// Bytes the read needed.
        needed: usize,
        /// Bytes left in the buffer.
        available: usize,
    },
    /// A whole-buffer decode finished with bytes unread.
    #[error("at offset {at}: {extra} bytes left over after the value")]
    TrailingBytes {
        /// Offset where the value ended.
        at: usize,
        /// Bytes after it.
        extra: usize,
    },
    /// An array's element count is negative or needs more bytes than are left.
    #[error("at offset {at}: element count {count} does not fit in the {remaining} bytes left")]
    BadCount {
        /// Offset of the count.
        at: usize,
        /// The count as encoded.
        count: i64,
        /// Bytes left after the count.
        remaining: usize,
    },
    /// The bytes are well-formed but not a value of the type (e.g. an HLAboolean of 2).
    #[error("at offset {at}: {message}")]
    Invalid {
        /// Offset of the bad value.
        at: usize,
        /// What is wrong with it.
        message: String,
    },
    /// The object model declares no data type of this name.
    #[error("data type {0} is not in the object model")]
    UnknownType(String),
    /// The data type uses a feature the codec does not handle.
    #[error("data type {type_name}: {what} is not supported")]
    Unsupported {
        /// The data type's name in the object model.
        type_name: String,
        /// The feature, e.g. an encoding name.
        what: String,
    },
    /// Values nest deeper than [`value::MAX_VALUE_DEPTH`]; holds that limit.
    #[error("values nest deeper than {0} levels")]
    TooDeep(usize),
}

/// Zero bytes that bring `offset` up to a multiple of `boundary`.
pub fn padding(offset: usize, boundary: usize) -> usize {
    debug_assert!(boundary > 0, "octet boundaries are at least 1");
    let boundary = boundary.max(1);
    (boundary - offset % boundary) % boundary
}

/// Builds an encoded buffer. Offsets for alignment count from its start.
#[derive(Clone, Debug, Default)]
pub struct Encoder {
    bytes: Vec<u8>,
}

macro_rules! put {
    ($($name:ident: $t:ty => $to:ident;)*) => {
        $(
            /// Appends `value` in the byte order its name gives (`be` big-endian, `le`
            /// little-endian), without padding: [`Encoder::align`] first where the encoding needs
            /// it.
            pub fn $name(&mut self, value: $t) {
                self.bytes.extend_from_slice(&value.$to());
            }
        )*
    };
}

impl Encoder {
    /// An empty buffer.
    pub fn new() -> Encoder {
        Encoder::default()
    }

    /// The bytes so far: also the offset the next value starts from.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// True before anything is written.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    /// The bytes written so far.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// The encoded buffer, given up without a copy.
    pub fn into_bytes(self) -> Vec<u8> {
        self.bytes
    }

    /// Pad with zeros to the next multiple of `boundary`.
    pub fn align(&mut self, boundary: usize) {
        let pad = padding(self.bytes.len(), boundary);
        self.bytes.resize(self.bytes.len() + pad, 0);
    }

    /// Appends one octet (no alignment needed).
    pub fn put_octet(&mut self, value: u8) {
        self.bytes.push(value);
    }

    /// Appends `value` as is, unaligned: the payload of an opaque or fixed array of octets.
    pub fn put_bytes(&mut self, value: &[u8]) {
        self.bytes.extend_from_slice(value);
    }

    put! {
        put_i16_be: i16 => to_be_bytes;
        put_i16_le: i16 => to_le_bytes;
        put_u16_be: u16 => to_be_bytes;
        put_u16_le: u16 => to_le_bytes;
        put_i32_be: i32 => to_be_bytes;
        put_i32_le: i32 => to_le_bytes;
        put_u32_be: u32 => to_be_bytes;
        put_i64_be: i64 => to_be_bytes;
        put_i64_le: i64 => to_le_bytes;
        put_f32_be: f32 => to_be_bytes;
        put_f32_le: f32 => to_le_bytes;
        put_f64_be: f64 => to_be_bytes;
        put_f64_le: f64 => to_le_bytes;
    }

    /// Overwrites the four octets at `at`, written earlier, with `value` big-endian: a
    /// length that is known only once what it measures is written.
    pub fn set_u32_be_at(&mut self, at: usize, value: u32) {
        self.bytes[at..at + 4].copy_from_slice(&value.to_be_bytes());
    }

    /// The count of a variable array (§4.12.7.3): HLAinteger32BE at a 4-octet boundary.
    pub fn put_count(&mut self, count: usize) {
        self.align(4);
        let count = i32::try_from(count).expect("arrays hold at most i32::MAX elements");
        self.put_i32_be(count);
    }
}

/// Reads an encoded buffer from the front, checking every length.
#[derive(Clone, Debug)]
pub struct Decoder<'a> {
    bytes: &'a [u8],
    position: usize,
}

macro_rules! get {
    ($($name:ident: $t:ty => $from:ident;)*) => {
        $(
            /// Reads a number in the byte order its name gives (`be` big-endian, `le`
            /// little-endian), without skipping padding: [`Decoder::align`] first where the
            /// encoding needs it.
            pub fn $name(&mut self) -> Result<$t, DecodeError> {
                let bytes = self.get_bytes(std::mem::size_of::<$t>())?;
                let mut array = [0u8; std::mem::size_of::<$t>()];
                array.copy_from_slice(bytes);
                Ok(<$t>::$from(array))
            }
        )*
    };
}

impl<'a> Decoder<'a> {
    /// A decoder at offset 0 of `bytes`.
    pub fn new(bytes: &'a [u8]) -> Decoder<'a> {
        Decoder { bytes, position: 0 }
    }

    /// The offset of the next byte from the start of the buffer.
    pub fn position(&self) -> usize {
        self.position
    }

    /// Bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len() - self.position
    }

    /// Skip the padding up to the next multiple of `boundary`.
    pub fn align(&mut self, boundary: usize) -> Result<(), DecodeError> {
        let pad = padding(self.position, boundary);
        self.get_bytes(pad).map(|_| ())
    }

    /// The next `count` bytes, borrowed from the buffer; [`DecodeError::Truncated`] if fewer are
    /// left.
    pub fn get_bytes(&mut self, count: usize) -> Result<&'a [u8], DecodeError> {
        if count > self.remaining() {
            return Err(DecodeError::Truncated {
                at: self.position,
                needed: count,
                available: self.remaining(),
            });
        }
        let bytes = &self.bytes[self.position..self.position + count];
        self.position += count;
        Ok(bytes)
    }

    /// A decoder of the next `len` bytes only, at the same offset (alignment is counted from
    /// the buffer's start); [`DecodeError::Truncated`] if fewer are left. This decoder does
    /// not move: skip the `len` bytes when done.
    pub fn bounded(&self, len: usize) -> Result<Decoder<'a>, DecodeError> {
        if len > self.remaining() {
            return Err(DecodeError::Truncated {
                at: self.position,
                needed: len,
                available: self.remaining(),
            });
        }
        Ok(Decoder {
            bytes: &self.bytes[..self.position + len],
            position: self.position,
        })
    }

    /// The bytes read since offset `start` (clamped to what was read).
    pub fn read_since(&self, start: usize) -> &'a [u8] {
        &self.bytes[start.min(self.position)..self.position]
    }

    /// The next octet.
    pub fn get_octet(&mut self) -> Result<u8, DecodeError> {
        Ok(self.get_bytes(1)?[0])
    }

    get! {
        get_i16_be: i16 => from_be_bytes;
        get_i16_le: i16 => from_le_bytes;
        get_u16_be: u16 => from_be_bytes;
        get_u16_le: u16 => from_le_bytes;
        get_i32_be: i32 => from_be_bytes;
        get_i32_le: i32 => from_le_bytes;
        get_u32_be: u32 => from_be_bytes;
        get_i64_be: i64 => from_be_bytes;
        get_i64_le: i64 => from_le_bytes;
        get_f32_be: f32 => from_be_bytes;
        get_f32_le: f32 => from_le_bytes;
        get_f64_be: f64 => from_be_bytes;
        get_f64_le: f64 => from_le_bytes;
    }

    /// The count of a variable array, checked against the bytes left: each element takes
    /// at least `min_element_len` bytes (elements that may take none are capped by
    /// [`MAX_EMPTY_ELEMENTS`]).
    pub fn get_count(&mut self, min_element_len: usize) -> Result<usize, DecodeError> {
        self.align(4)?;
        let at = self.position;
        let count = self.get_i32_be()?;
        self.check_count(at, i64::from(count), min_element_len)
    }

    /// `count` elements of at least `min_element_len` bytes each must fit in what is left.
    pub fn check_count(
        &self,
        at: usize,
        count: i64,
        min_element_len: usize,
    ) -> Result<usize, DecodeError> {
        let bad = || DecodeError::BadCount {
            at,
            count,
            remaining: self.remaining(),
        };
        let count = usize::try_from(count).map_err(|_| bad())?;
        let fits = match self.remaining().checked_div(min_element_len) {
            Some(room) => count <= room,
            None => count <= MAX_EMPTY_ELEMENTS,
        };
        fits.then_some(count).ok_or_else(bad)
    }

    /// Every byte was used.
    pub fn finish(&self) -> Result<(), DecodeError> {
        match self.remaining() {
            0 => Ok(()),
            extra => Err(DecodeError::TrailingBytes {
                at: self.position,
                extra,
            }),
        }
    }
}

/// How many elements that may encode in zero bytes one array may claim to hold.
pub const MAX_EMPTY_ELEMENTS: usize = 1 << 16;

#[cfg(test)]
mod tests;
