//! The few IEEE 1516.2-2010 encodings the MIM's data types need (§4.13 of 1516.2: the
//! basic types big-endian, variable arrays as an HLAinteger32BE count then the elements,
//! each element after the first padded to its octet boundary).

/// HLAinteger32BE, and the MIM's enumerations and counts over it (HLAboolean, HLAswitch,
/// HLAcount, HLAmsec, HLAseconds, HLAfederateState, HLAtimeState).
pub fn int32(value: i32) -> Vec<u8> {
    value.to_be_bytes().to_vec()
}

/// A count that may exceed the MIM's HLAcount (HLAinteger32BE): saturated, not wrapped.
pub fn count(value: u64) -> Vec<u8> {
    int32(i32::try_from(value).unwrap_or(i32::MAX))
}

/// HLAboolean: HLAinteger32BE 1 (true) or 0 (false).
pub fn boolean(value: bool) -> Vec<u8> {
    int32(i32::from(value))
}

/// HLAunicodeString: the count of UTF-16 code units, then each big-endian.
pub fn unicode_string(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(4 + 2 * text.len());
    put_unicode_string(&mut out, text);
    out
}

fn put_unicode_string(out: &mut Vec<u8>, text: &str) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    let mut units = 0u32;
    for unit in text.encode_utf16() {
        out.extend_from_slice(&unit.to_be_bytes());
        units += 1;
    }
    out[start..start + 4].copy_from_slice(&units.to_be_bytes());
}

/// HLAhandle: a variable array of HLAbyte holding the handle as the C++ API encodes it
/// (`FederateHandle::encode` and the others: the 64-bit value in 8 big-endian bytes), so a
/// tool decodes it with the RTI's own `decode…Handle`.
pub fn handle(value: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(12);
    put_handle(&mut out, value);
    out
}

fn put_handle(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&8u32.to_be_bytes());
    out.extend_from_slice(&value.to_be_bytes());
}

/// HLAhandleList: a variable array of HLAhandle. Every element is 12 bytes, a multiple of
/// the element's 4-byte boundary, so no padding falls between them.
pub fn handle_list(values: impl IntoIterator<Item = u64>) -> Vec<u8> {
    let mut out = vec![0; 4];
    let mut count = 0u32;
    for value in values {
        put_handle(&mut out, value);
        count += 1;
    }
    out[..4].copy_from_slice(&count.to_be_bytes());
    out
}

/// A variable array of HLAunicodeString (HLAmoduleDesignatorList): each element after the
/// first starts on a 4-byte boundary.
pub fn string_list<'a>(texts: impl IntoIterator<Item = &'a str>) -> Vec<u8> {
    let mut out = vec![0; 4];
    let mut count = 0u32;
    for text in texts {
        pad_to_4(&mut out);
        put_unicode_string(&mut out, text);
        count += 1;
    }
    out[..4].copy_from_slice(&count.to_be_bytes());
    out
}

/// HLAlogicalTime and HLAtimeInterval: a variable array of HLAbyte holding the time as the
/// time implementation encodes it (HLAinteger64Time and HLAfloat64Time: 8 bytes,
/// big-endian); empty when undefined.
pub fn opaque_time(encoded: Option<[u8; 8]>) -> Vec<u8> {
    match encoded {
        Some(bytes) => {
            let mut out = 8u32.to_be_bytes().to_vec();
            out.extend_from_slice(&bytes);
            out
        }
        None => 0u32.to_be_bytes().to_vec(),
    }
}

fn pad_to_4(out: &mut Vec<u8>) {
    while out.len() % 4 != 0 {
        out.push(0);
    }
}

/// A variable array of (HLAhandle, HLAinteger32BE-based) fixed records: 16 bytes each, a
/// multiple of their 4-byte boundary, so no padding. HLAinteractionSubscription and the
/// like end in an HLAboolean, HLAsynchPointFederate in an HLAsynchPointStatus.
pub fn handle_int32_list(values: impl IntoIterator<Item = (u64, i32)>) -> Vec<u8> {
    let mut out = vec![0; 4];
    let mut records = 0u32;
    for (value, number) in values {
        put_handle(&mut out, value);
        out.extend_from_slice(&number.to_be_bytes());
        records += 1;
    }
    out[..4].copy_from_slice(&records.to_be_bytes());
    out
}

/// [`handle_int32_list`] of records ending in an HLAboolean.
pub fn handle_boolean_list(values: impl IntoIterator<Item = (u64, bool)>) -> Vec<u8> {
    handle_int32_list(values.into_iter().map(|(v, flag)| (v, i32::from(flag))))
}

/// HLAobjectClassBasedCounts and HLAinteractionCounts: [`handle_int32_list`] of (HLAhandle,
/// HLAcount) records, each count saturated.
pub fn handle_count_list(values: impl IntoIterator<Item = (u64, u64)>) -> Vec<u8> {
    let saturated = |n: u64| i32::try_from(n).unwrap_or(i32::MAX);
    handle_int32_list(values.into_iter().map(|(v, n)| (v, saturated(n))))
}

/// Read an HLAinteger32BE (a parameter such as HLAreportPeriod or HLAboolean).
pub fn read_int32(bytes: &[u8]) -> Option<i32> {
    Some(i32::from_be_bytes(bytes.try_into().ok()?))
}

/// Read an HLAhandle: the handle's 64-bit value.
pub fn read_handle(bytes: &[u8]) -> Option<u64> {
    let (count, value) = bytes.split_first_chunk::<4>()?;
    if u32::from_be_bytes(*count) != 8 {
        return None;
    }
    Some(u64::from_be_bytes(value.try_into().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_count_utf16_code_units_and_lists_pad_to_four() {
        assert_eq!(unicode_string("aé"), [0, 0, 0, 2, 0, b'a', 0, 0xe9]);
        // "a" takes 6 bytes: the second element starts after 2 bytes of padding.
        let list = string_list(["a", "b"]);
        assert_eq!(
            list,
            [0, 0, 0, 2, 0, 0, 0, 1, 0, b'a', 0, 0, 0, 0, 0, 1, 0, b'b']
        );
    }

    #[test]
    fn handles_are_eight_big_endian_bytes_in_a_byte_array_and_read_back() {
        let encoded = handle(0x0102);
        assert_eq!(encoded, [0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 1, 2]);
        assert_eq!(read_handle(&encoded), Some(0x0102));
        assert_eq!(read_handle(&encoded[..11]), None, "short");
        let list = handle_list([1, 2]);
        assert_eq!(&list[..4], &[0, 0, 0, 2]);
        assert_eq!(read_handle(&list[16..]), Some(2));
    }

    #[test]
    fn counts_saturate_and_times_may_be_undefined() {
        assert_eq!(count(u64::MAX), i32::MAX.to_be_bytes());
        assert_eq!(opaque_time(None), [0, 0, 0, 0]);
        assert_eq!(opaque_time(Some([1; 8])).len(), 12);
        assert_eq!(read_int32(&boolean(true)), Some(1));
    }
}
