//! Bounds-checked reading of little-endian fields from an untrusted frame body.

use super::WireError;

pub(crate) struct Reader<'a> {
    buf: &'a [u8],
    pos: usize,
    kind: &'static str,
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8], kind: &'static str) -> Reader<'a> {
        Reader { buf, pos: 0, kind }
    }

    pub(crate) fn malformed(&self, what: &'static str) -> WireError {
        WireError::Malformed {
            kind: self.kind,
            what,
        }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.buf.len() - self.pos
    }

    pub(crate) fn bytes(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], WireError> {
        if self.remaining() < n {
            return Err(self.malformed(what));
        }
        let out = &self.buf[self.pos..self.pos + n];
        self.pos += n;
        Ok(out)
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, WireError> {
        Ok(self.bytes(1, what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16, WireError> {
        let b = self.bytes(2, what)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, WireError> {
        let b = self.bytes(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64, WireError> {
        let b = self.bytes(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_le_bytes(a))
    }

    /// An unsigned LEB128 integer: seven bits a byte, low bits first, the high bit set on
    /// every byte but the last. At most ten bytes, and nothing past 64 bits.
    #[inline]
    pub(crate) fn varint(&mut self, what: &'static str) -> Result<u64, WireError> {
        // Most are one byte: handles, small lengths, the default-name mark.
        match self.buf.get(self.pos) {
            Some(&byte) if byte < 0x80 => {
                self.pos += 1;
                Ok(u64::from(byte))
            }
            _ => self.long_varint(what),
        }
    }

    fn long_varint(&mut self, what: &'static str) -> Result<u64, WireError> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let byte = self.u8(what)?;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                return Err(self.malformed("varint past 64 bits"));
            }
            value |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(value);
            }
        }
        Err(self.malformed("varint longer than ten bytes"))
    }

    /// A varint that must fit 32 bits.
    #[inline]
    pub(crate) fn varint_u32(&mut self, what: &'static str) -> Result<u32, WireError> {
        u32::try_from(self.varint(what)?).map_err(|_| self.malformed(what))
    }

    /// A string with a one-byte length.
    pub(crate) fn short_str(&mut self, what: &'static str) -> Result<String, WireError> {
        let len = self.u8(what)? as usize;
        self.utf8(len, what)
    }

    /// A string with a two-byte length.
    pub(crate) fn long_str(&mut self, what: &'static str) -> Result<String, WireError> {
        let len = self.u16(what)? as usize;
        self.utf8(len, what)
    }

    fn utf8(&mut self, len: usize, what: &'static str) -> Result<String, WireError> {
        let raw = self.bytes(len, what)?;
        std::str::from_utf8(raw)
            .map(str::to_owned)
            .map_err(|_| self.malformed("text field is not UTF-8"))
    }

    /// Every byte of the body must have been consumed.
    pub(crate) fn finish(&self) -> Result<(), WireError> {
        if self.remaining() != 0 {
            return Err(self.malformed("trailing bytes after the last field"));
        }
        Ok(())
    }
}
