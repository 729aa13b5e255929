//! [`DataValue`]s into bytes, driven by their data type.

use super::{
    choose, first_value, DataValue, ElementText, EncodeError, Variant, Walk, LENGTHLESS,
    MAX_VALUE_DEPTH, NULL_TERMINATED,
};
use crate::encoding::Encoder;
use crate::fom::{
    ArrayEncoding, BasicData, BasicKind, Cardinality, DataTypeKind, Endian, Enumerator, Field,
};

fn mismatch(name: &str, message: impl Into<String>) -> EncodeError {
    EncodeError {
        type_name: name.to_owned(),
        message: message.into(),
    }
}

impl Walk<'_> {
    pub(super) fn encode(
        &self,
        name: &str,
        value: &DataValue,
        encoder: &mut Encoder,
        depth: usize,
    ) -> Result<(), EncodeError> {
        if depth > MAX_VALUE_DEPTH {
            return Err(mismatch(
                name,
                format!("nests deeper than {MAX_VALUE_DEPTH} levels"),
            ));
        }
        let data_type = self
            .types
            .get(name)
            .ok_or_else(|| mismatch(name, "is not in the object model"))?;
        encoder.align(self.types.octet_boundary(name));
        match &data_type.kind {
            DataTypeKind::Basic(basic) => encode_basic(name, basic, value, encoder),
            DataTypeKind::Simple { representation } => {
                self.encode(representation, value, encoder, depth + 1)
            }
            DataTypeKind::Enumerated {
                representation,
                enumerators,
            } => self.encode_enumerated(name, representation, enumerators, value, encoder, depth),
            DataTypeKind::Array {
                element,
                cardinality,
                encoding,
            } => self.encode_array(name, element, *cardinality, encoding, value, encoder, depth),
            DataTypeKind::FixedRecord { fields, encoding } => {
                if encoding != "HLAfixedRecord" {
                    return Err(mismatch(
                        name,
                        format!("record encoding {encoding} is not supported"),
                    ));
                }
                self.encode_fixed_record(name, fields, value, encoder, depth)
            }
            DataTypeKind::VariantRecord {
                discriminant,
                discriminant_type,
                alternatives,
                encoding,
            } => {
                let variant = Variant::new(
                    name,
                    discriminant,
                    discriminant_type,
                    alternatives,
                    encoding,
                )
                .map_err(|what| mismatch(name, format!("{what} is not supported")))?;
                self.encode_variant(&variant, value, encoder, depth)
            }
        }
    }

    /// An enumerator by name or number, written as its representation's integer.
    fn encode_enumerated(
        &self,
        name: &str,
        representation: &str,
        enumerators: &[Enumerator],
        value: &DataValue,
        encoder: &mut Encoder,
        depth: usize,
    ) -> Result<(), EncodeError> {
        let number = match value {
            DataValue::Enumerator { name: Some(n), .. } => first_value(enumerators, n)
                .ok_or_else(|| mismatch(name, format!("has no enumerator {n}")))?,
            DataValue::Enumerator { name: None, value } | DataValue::Signed(value) => *value,
            DataValue::Unsigned(v) => i64::try_from(*v)
                .map_err(|_| mismatch(name, format!("value {v} is out of range")))?,
            other => {
                return Err(mismatch(
                    name,
                    format!("expects an enumerator, not {other}"),
                ))
            }
        };
        self.encode(
            representation,
            &DataValue::Signed(number),
            encoder,
            depth + 1,
        )
    }

    /// A record's fields in the type's order, each under the name the type gives it.
    fn encode_fixed_record(
        &self,
        name: &str,
        fields: &[Field],
        value: &DataValue,
        encoder: &mut Encoder,
        depth: usize,
    ) -> Result<(), EncodeError> {
        let DataValue::Record(values) = value else {
            return Err(mismatch(name, format!("expects a record, not {value}")));
        };
        if values.len() != fields.len() {
            return Err(mismatch(
                name,
                format!("has {} fields, the value {}", fields.len(), values.len()),
            ));
        }
        for (i, (field, (field_name, field_value))) in fields.iter().zip(values).enumerate() {
            if *field_name != field.name {
                return Err(mismatch(
                    name,
                    format!(
                        "expects field {} where the value has {field_name}",
                        field.name
                    ),
                ));
            }
            self.check_rule(name, field, &values[..i], field_value)?;
            self.encode(&field.data_type, field_value, encoder, depth + 1)?;
        }
        Ok(())
    }

    /// A lengthless array field with a length rule must hold the count the earlier fields
    /// give: a decoder reads that many elements and takes the rest for the next field.
    fn check_rule(
        &self,
        name: &str,
        field: &Field,
        earlier: &[(String, DataValue)],
        value: &DataValue,
    ) -> Result<(), EncodeError> {
        let (Some(rule), Some(element)) =
            (&field.length, self.lengthless_element(&field.data_type))
        else {
            return Ok(());
        };
        let count = Self::rule_count(field, rule, earlier).map_err(|why| mismatch(name, why))?;
        let held = self.elements(&field.data_type, element, value)?.len();
        if held as u64 != count {
            return Err(mismatch(
                name,
                format!(
                    "field {} holds {held} elements, but {rule} gives {count}",
                    field.name
                ),
            ));
        }
        Ok(())
    }

    /// The discriminant, then the alternative it chooses, which must be the value's; for an
    /// extended record, the alternative's extent in octets between the two.
    fn encode_variant(
        &self,
        variant: &Variant<'_>,
        value: &DataValue,
        encoder: &mut Encoder,
        depth: usize,
    ) -> Result<(), EncodeError> {
        let (name, discriminant_type) = (variant.name, variant.discriminant_type);
        let DataValue::Variant {
            discriminant,
            alternative,
            ..
        } = value
        else {
            return Err(mismatch(
                name,
                format!("expects a variant record, not {value}"),
            ));
        };
        self.encode(discriminant_type, discriminant, encoder, depth + 1)?;
        let extent_at = variant.extended.then(|| {
            encoder.align(4);
            encoder.put_u32_be(0);
            encoder.len()
        });
        self.encode_alternative(variant, discriminant, alternative, encoder, depth)?;
        if let Some(start) = extent_at {
            let extent = u32::try_from(encoder.len() - start)
                .map_err(|_| mismatch(name, "the alternative is longer than 4 GiB"))?;
            encoder.set_u32_be_at(start - 4, extent);
        }
        Ok(())
    }

    /// The alternative the discriminant chooses, which must be the value's.
    fn encode_alternative(
        &self,
        variant: &Variant<'_>,
        discriminant: &DataValue,
        alternative: &Option<(String, Box<DataValue>)>,
        encoder: &mut Encoder,
        depth: usize,
    ) -> Result<(), EncodeError> {
        let (name, alternatives) = (variant.name, variant.alternatives);
        let Some(DataTypeKind::Enumerated { enumerators, .. }) =
            self.types.get(variant.discriminant_type).map(|t| &t.kind)
        else {
            return Err(mismatch(name, "the discriminant is not enumerated"));
        };
        let number = match discriminant {
            DataValue::Enumerator { name: Some(n), .. } => first_value(enumerators, n),
            DataValue::Enumerator { value, .. } | DataValue::Signed(value) => Some(*value),
            _ => None,
        };
        let chosen = number.and_then(|v| choose(alternatives, enumerators, v));
        let expected =
            chosen.and_then(|i| Some((&alternatives[i].name, alternatives[i].data_type.as_ref()?)));
        match (expected, alternative) {
            (None, None) => Ok(()),
            (Some((alt_name, alt_type)), Some((given, alt_value))) if given == alt_name => {
                self.encode(alt_type, alt_value, encoder, depth + 1)
            }
            (Some((alt_name, _)), _) => Err(mismatch(
                name,
                format!("the discriminant {discriminant} chooses alternative {alt_name}"),
            )),
            (None, Some((given, _))) => Err(mismatch(
                name,
                format!(
                    "the discriminant {discriminant} chooses no data, yet the value has {given}"
                ),
            )),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn encode_array(
        &self,
        name: &str,
        element: &str,
        cardinality: Cardinality,
        encoding: &ArrayEncoding,
        value: &DataValue,
        encoder: &mut Encoder,
        depth: usize,
    ) -> Result<(), EncodeError> {
        if let Some(boundary) = encoding.padding_boundary() {
            encoder.align(boundary);
            return Ok(());
        }
        let elements = self.elements(name, element, value)?;
        match encoding {
            ArrayEncoding::Fixed => {
                if let Cardinality::Fixed(n) = cardinality {
                    if elements.len() != n as usize {
                        return Err(mismatch(
                            name,
                            format!("holds {n} elements, the value {}", elements.len()),
                        ));
                    }
                }
            }
            ArrayEncoding::Variable => {
                if i32::try_from(elements.len()).is_err() {
                    return Err(mismatch(name, "has more elements than a count can say"));
                }
                encoder.put_count(elements.len());
            }
            ArrayEncoding::Other(e) if e == LENGTHLESS || e == NULL_TERMINATED => {}
            ArrayEncoding::Other(e) => {
                return Err(mismatch(
                    name,
                    format!("array encoding {e} is not supported"),
                ));
            }
        }
        for e in &elements {
            self.encode(element, e, encoder, depth + 1)?;
        }
        if *encoding == ArrayEncoding::Other(NULL_TERMINATED.into()) {
            // The terminator: an element of zero octets, as the decoder looks for.
            let len = self.types.min_encoded_len(element);
            if len == 0 {
                return Err(mismatch(name, "null-terminated elements must not be empty"));
            }
            encoder.align(self.types.octet_boundary(element));
            encoder.put_bytes(&vec![0; len]);
        }
        Ok(())
    }

    /// The elements of an array value: text and bytes spelled out per element.
    fn elements(
        &self,
        name: &str,
        element: &str,
        value: &DataValue,
    ) -> Result<Vec<DataValue>, EncodeError> {
        let text = self.element_text(element);
        Ok(match (value, text) {
            (DataValue::Array(elements), _) => elements.clone(),
            (DataValue::Text(s), ElementText::Latin1) => s
                .chars()
                .map(|c| DataValue::Unsigned(u64::from(u8::try_from(c).unwrap_or(b'?'))))
                .collect(),
            (DataValue::Text(s), ElementText::Utf16) => s
                .encode_utf16()
                .map(|u| DataValue::Unsigned(u64::from(u)))
                .collect(),
            (DataValue::Bytes(b), ElementText::Octets | ElementText::Latin1) => b
                .iter()
                .map(|&o| DataValue::Unsigned(u64::from(o)))
                .collect(),
            (other, _) => return Err(mismatch(name, format!("expects an array, not {other}"))),
        })
    }
}

fn encode_basic(
    name: &str,
    basic: &BasicData,
    value: &DataValue,
    encoder: &mut Encoder,
) -> Result<(), EncodeError> {
    let bits = basic.size_bits;
    if !matches!(bits, 8 | 16 | 32 | 64) {
        return Err(mismatch(
            name,
            format!("a basic type of {bits} bits is not supported"),
        ));
    }
    let out_of_range = || mismatch(name, format!("{value} does not fit in {bits} bits"));
    let raw: u64 = match (basic.kind, value) {
        (BasicKind::Float, DataValue::Float(v)) if bits == 32 => u64::from((*v as f32).to_bits()),
        (BasicKind::Float, DataValue::Float(v)) if bits == 64 => v.to_bits(),
        (BasicKind::Signed | BasicKind::Unsigned, DataValue::Signed(v)) => {
            let fits = match basic.kind {
                BasicKind::Signed => {
                    bits == 64 || (*v >= -(1 << (bits - 1)) && *v < (1 << (bits - 1)))
                }
                _ => *v >= 0 && (bits == 64 || *v < (1 << bits)),
            };
            if !fits {
                return Err(out_of_range());
            }
            *v as u64
        }
        (BasicKind::Signed | BasicKind::Unsigned, DataValue::Unsigned(v)) => {
            let limit_bits = if basic.kind == BasicKind::Signed {
                bits - 1
            } else {
                bits
            };
            if limit_bits < 64 && *v >= (1 << limit_bits) {
                return Err(out_of_range());
            }
            *v
        }
        (_, other) => return Err(mismatch(name, format!("expects a number, not {other}"))),
    };
    let octets = bits as usize / 8;
    match basic.endian {
        Endian::Big => encoder.put_bytes(&raw.to_be_bytes()[8 - octets..]),
        Endian::Little => encoder.put_bytes(&raw.to_le_bytes()[..octets]),
    }
    Ok(())
}
