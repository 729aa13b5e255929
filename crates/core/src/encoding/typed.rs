//! The standard's encodings as Rust types: each knows its octet boundary and aligns
//! itself, so composing them (tuples as fixed records, `[T; N]` as fixed arrays, `Vec<T>`
//! as variable arrays, [`VariantRecord`]) gets the padding right.

use super::{DecodeError, Decoder, Encoder};

/// A value with an HLA encoding.
pub trait HlaEncoding: Sized {
    /// Every value starts at a multiple of this many octets (§4.12.7.1).
    const OCTET_BOUNDARY: usize;

    /// Append the value, after the padding that aligns it.
    fn encode_into(&self, encoder: &mut Encoder);

    /// Read a value, after skipping the padding that aligns it.
    fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError>;

    /// The value alone in a new buffer, with its padding counted from that buffer's start.
    fn encode(&self) -> Vec<u8> {
        let mut encoder = Encoder::new();
        self.encode_into(&mut encoder);
        encoder.into_bytes()
    }

    /// A whole buffer as one value: bytes left over are an error.
    fn decode(bytes: &[u8]) -> Result<Self, DecodeError> {
        let mut decoder = Decoder::new(bytes);
        let value = Self::decode_from(&mut decoder)?;
        decoder.finish()?;
        Ok(value)
    }

    /// The octets [`encode`](Self::encode) produces: the value's own padding included,
    /// none after it.
    fn encoded_len(&self) -> usize {
        self.encode().len()
    }
}

const fn max(a: usize, b: usize) -> usize {
    if a > b {
        a
    } else {
        b
    }
}

macro_rules! basic {
    ($($(#[$doc:meta])* $name:ident($t:ty), $size:expr, $put:ident, $get:ident;)*) => {
        $(
            $(#[$doc])*
            #[derive(Copy, Clone, Debug, Default, PartialEq, PartialOrd)]
            pub struct $name(pub $t);

            impl HlaEncoding for $name {
                const OCTET_BOUNDARY: usize = $size;

                fn encode_into(&self, encoder: &mut Encoder) {
                    encoder.align($size);
                    encoder.$put(self.0);
                }

                fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
                    decoder.align($size)?;
                    decoder.$get().map($name)
                }

                fn encoded_len(&self) -> usize {
                    $size
                }
            }
        )*
    };
}

basic! {
    /// HLAinteger16BE: a two's-complement 16-bit integer, big-endian.
    HlaInteger16Be(i16), 2, put_i16_be, get_i16_be;
    /// HLAinteger16LE: a two's-complement 16-bit integer, little-endian.
    HlaInteger16Le(i16), 2, put_i16_le, get_i16_le;
    /// HLAinteger32BE: a two's-complement 32-bit integer, big-endian.
    HlaInteger32Be(i32), 4, put_i32_be, get_i32_be;
    /// HLAinteger32LE: a two's-complement 32-bit integer, little-endian.
    HlaInteger32Le(i32), 4, put_i32_le, get_i32_le;
    /// HLAinteger64BE: a two's-complement 64-bit integer, big-endian.
    HlaInteger64Be(i64), 8, put_i64_be, get_i64_be;
    /// HLAinteger64LE: a two's-complement 64-bit integer, little-endian.
    HlaInteger64Le(i64), 8, put_i64_le, get_i64_le;
    /// HLAfloat32BE: an IEEE 754 single, big-endian.
    HlaFloat32Be(f32), 4, put_f32_be, get_f32_be;
    /// HLAfloat32LE: an IEEE 754 single, little-endian.
    HlaFloat32Le(f32), 4, put_f32_le, get_f32_le;
    /// HLAfloat64BE: an IEEE 754 double, big-endian.
    HlaFloat64Be(f64), 8, put_f64_be, get_f64_be;
    /// HLAfloat64LE: an IEEE 754 double, little-endian.
    HlaFloat64Le(f64), 8, put_f64_le, get_f64_le;
    /// HLAoctetPairBE: two octets read as one big-endian number.
    HlaOctetPairBe(u16), 2, put_u16_be, get_u16_be;
    /// HLAoctetPairLE: two octets read as one little-endian number.
    HlaOctetPairLe(u16), 2, put_u16_le, get_u16_le;
    /// HLAoctet: one octet of no particular meaning.
    HlaOctet(u8), 1, put_octet, get_octet;
    /// HLAbyte: an octet that means a byte of opaque data.
    HlaByte(u8), 1, put_octet, get_octet;
    /// HLAASCIIchar: an octet.
    HlaAsciiChar(u8), 1, put_octet, get_octet;
    /// HLAunicodeChar: one UTF-16 code unit, big-endian.
    HlaUnicodeChar(u16), 2, put_u16_be, get_u16_be;
}

/// HLAboolean: an enumeration on HLAinteger32BE, HLAfalse = 0 and HLAtrue = 1.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct HlaBoolean(pub bool);

impl HlaEncoding for HlaBoolean {
    const OCTET_BOUNDARY: usize = 4;

    fn encode_into(&self, encoder: &mut Encoder) {
        HlaInteger32Be(i32::from(self.0)).encode_into(encoder);
    }

    fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let at = decoder.position();
        match HlaInteger32Be::decode_from(decoder)?.0 {
            0 => Ok(HlaBoolean(false)),
            1 => Ok(HlaBoolean(true)),
            other => Err(DecodeError::Invalid {
                at: at + super::padding(at, 4),
                message: format!("HLAboolean is 0 or 1, not {other}"),
            }),
        }
    }

    fn encoded_len(&self) -> usize {
        4
    }
}

/// A variable array of octet-sized elements: count, then the octets.
fn encode_octets(octets: impl ExactSizeIterator<Item = u8>, encoder: &mut Encoder) {
    encoder.put_count(octets.len());
    for octet in octets {
        encoder.put_octet(octet);
    }
}

fn decode_octets<'a>(decoder: &mut Decoder<'a>) -> Result<&'a [u8], DecodeError> {
    let count = decoder.get_count(1)?;
    decoder.get_bytes(count)
}

/// HLAASCIIstring: a variable array of HLAASCIIchar. Each char holds one octet: chars
/// past U+00FF encode as '?', and octets decode as Latin-1 so every byte round-trips.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HlaAsciiString(pub String);

impl HlaEncoding for HlaAsciiString {
    const OCTET_BOUNDARY: usize = 4;

    fn encode_into(&self, encoder: &mut Encoder) {
        let octets: Vec<u8> = self
            .0
            .chars()
            .map(|c| u8::try_from(c).unwrap_or(b'?'))
            .collect();
        encode_octets(octets.into_iter(), encoder);
    }

    fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let octets = decode_octets(decoder)?;
        Ok(HlaAsciiString(
            octets.iter().map(|&b| char::from(b)).collect(),
        ))
    }
}

/// HLAunicodeString: a variable array of HLAunicodeChar (UTF-16BE code units, counted).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HlaUnicodeString(pub String);

impl HlaEncoding for HlaUnicodeString {
    const OCTET_BOUNDARY: usize = 4;

    fn encode_into(&self, encoder: &mut Encoder) {
        let units: Vec<u16> = self.0.encode_utf16().collect();
        encoder.put_count(units.len());
        for unit in units {
            encoder.put_u16_be(unit);
        }
    }

    fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        let count = decoder.get_count(2)?;
        let at = decoder.position();
        let units = (0..count)
            .map(|_| decoder.get_u16_be())
            .collect::<Result<Vec<u16>, _>>()?;
        String::from_utf16(&units)
            .map(HlaUnicodeString)
            .map_err(|_| DecodeError::Invalid {
                at,
                message: "HLAunicodeString holds an unpaired UTF-16 surrogate".into(),
            })
    }
}

/// HLAopaqueData: a variable array of HLAbyte.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HlaOpaqueData(pub Vec<u8>);

impl HlaEncoding for HlaOpaqueData {
    const OCTET_BOUNDARY: usize = 4;

    fn encode_into(&self, encoder: &mut Encoder) {
        encode_octets(self.0.iter().copied(), encoder);
    }

    fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        decode_octets(decoder).map(|octets| HlaOpaqueData(octets.to_vec()))
    }
}

/// HLAvariableArray: an HLAinteger32BE count, then the elements, each at its boundary.
impl<T: HlaEncoding> HlaEncoding for Vec<T> {
    const OCTET_BOUNDARY: usize = max(4, T::OCTET_BOUNDARY);

    fn encode_into(&self, encoder: &mut Encoder) {
        encoder.align(Self::OCTET_BOUNDARY);
        encoder.put_count(self.len());
        for element in self {
            element.encode_into(encoder);
        }
    }

    fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        decoder.align(Self::OCTET_BOUNDARY)?;
        // Every typed element takes at least one octet except an empty tuple.
        let count = decoder.get_count(usize::from(size_of::<T>() > 0))?;
        (0..count).map(|_| T::decode_from(decoder)).collect()
    }
}

/// HLAfixedArray: the elements only, each at its boundary.
impl<T: HlaEncoding, const N: usize> HlaEncoding for [T; N] {
    const OCTET_BOUNDARY: usize = T::OCTET_BOUNDARY;

    fn encode_into(&self, encoder: &mut Encoder) {
        encoder.align(Self::OCTET_BOUNDARY);
        for element in self {
            element.encode_into(encoder);
        }
    }

    fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        decoder.align(Self::OCTET_BOUNDARY)?;
        let elements = (0..N)
            .map(|_| T::decode_from(decoder))
            .collect::<Result<Vec<T>, _>>()?;
        match elements.try_into() {
            Ok(array) => Ok(array),
            Err(_) => unreachable!("exactly N elements were decoded"),
        }
    }
}

/// HLAfixedRecord: the fields in order, each at its boundary; the record starts at the
/// largest of them.
macro_rules! record {
    ($($t:ident $i:tt),+) => {
        impl<$($t: HlaEncoding),+> HlaEncoding for ($($t,)+) {
            const OCTET_BOUNDARY: usize = {
                let mut boundary = 1;
                $(boundary = max(boundary, $t::OCTET_BOUNDARY);)+
                boundary
            };

            fn encode_into(&self, encoder: &mut Encoder) {
                encoder.align(Self::OCTET_BOUNDARY);
                $(self.$i.encode_into(encoder);)+
            }

            fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
                decoder.align(Self::OCTET_BOUNDARY)?;
                Ok(($($t::decode_from(decoder)?,)+))
            }
        }
    };
}

record!(A 0);
record!(A 0, B 1);
record!(A 0, B 1, C 2);
record!(A 0, B 1, C 2, D 3);
record!(A 0, B 1, C 2, D 3, E 4);
record!(A 0, B 1, C 2, D 3, E 4, F 5);
record!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
record!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);

/// An HLAvariantRecord: a discriminant, then the alternative it chooses at that
/// alternative's boundary. Implement this; [`encode_variant`] and [`decode_variant`] do
/// the alignment (or wrap the type with [`Variant`] to get [`HlaEncoding`]).
pub trait VariantRecord: Sized {
    /// The type of the discriminant field, usually an enumeration.
    type Discriminant: HlaEncoding;
    /// The largest boundary of the discriminant and of every alternative.
    const OCTET_BOUNDARY: usize;
    /// The discriminant that selects this value's alternative.
    fn discriminant(&self) -> Self::Discriminant;
    /// Encode the chosen alternative's value (itself an [`HlaEncoding`]), if it has one.
    fn encode_alternative(&self, encoder: &mut Encoder);
    /// Reads the alternative that `discriminant` selects (after the discriminant itself was read).
    fn decode_alternative(
        discriminant: Self::Discriminant,
        decoder: &mut Decoder<'_>,
    ) -> Result<Self, DecodeError>;
}

/// Appends an HLAvariantRecord: padding to its boundary, the discriminant, then the alternative.
pub fn encode_variant<V: VariantRecord>(value: &V, encoder: &mut Encoder) {
    encoder.align(V::OCTET_BOUNDARY);
    value.discriminant().encode_into(encoder);
    value.encode_alternative(encoder);
}

/// Reads an HLAvariantRecord written by [`encode_variant`].
pub fn decode_variant<V: VariantRecord>(decoder: &mut Decoder<'_>) -> Result<V, DecodeError> {
    decoder.align(V::OCTET_BOUNDARY)?;
    let discriminant = V::Discriminant::decode_from(decoder)?;
    V::decode_alternative(discriminant, decoder)
}

/// A [`VariantRecord`] as an [`HlaEncoding`], to nest it in records and arrays.
#[derive(Clone, Debug, PartialEq)]
pub struct Variant<V>(pub V);

impl<V: VariantRecord> HlaEncoding for Variant<V> {
    const OCTET_BOUNDARY: usize = V::OCTET_BOUNDARY;

    fn encode_into(&self, encoder: &mut Encoder) {
        encode_variant(&self.0, encoder);
    }

    fn decode_from(decoder: &mut Decoder<'_>) -> Result<Self, DecodeError> {
        decode_variant(decoder).map(Variant)
    }
}
