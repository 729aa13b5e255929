//! The data types IEEE 1516.2-2010 predefines (§4.12.3 basic representations, the simple,
//! enumerated and array types of table 4.12): every model has them without declaring them.

use super::{
    ArrayEncoding, BasicData, BasicKind, Cardinality, DataType, DataTypeKind, Endian, Enumerator,
    PREDEFINED_FILE,
};

fn basic(size_bits: u32, endian: Endian, kind: BasicKind) -> DataTypeKind {
    DataTypeKind::Basic(BasicData {
        size_bits,
        endian,
        kind,
    })
}

fn simple(representation: &str) -> DataTypeKind {
    DataTypeKind::Simple {
        representation: representation.into(),
    }
}

fn variable_array(element: &str) -> DataTypeKind {
    DataTypeKind::Array {
        element: element.into(),
        cardinality: Cardinality::Dynamic,
        encoding: ArrayEncoding::Variable,
    }
}

/// The basic kind of a predefined basic representation, by name.
pub(super) fn basic_kind(name: &str) -> Option<BasicKind> {
    predefined().into_iter().find_map(|t| match t.kind {
        DataTypeKind::Basic(b) if t.name == name => Some(b.kind),
        _ => None,
    })
}

pub(super) fn predefined() -> Vec<DataType> {
    use BasicKind::{Float, Signed, Unsigned};
    use Endian::{Big, Little};
    let kinds = [
        ("HLAinteger16BE", basic(16, Big, Signed)),
        ("HLAinteger16LE", basic(16, Little, Signed)),
        ("HLAinteger32BE", basic(32, Big, Signed)),
        ("HLAinteger32LE", basic(32, Little, Signed)),
        ("HLAinteger64BE", basic(64, Big, Signed)),
        ("HLAinteger64LE", basic(64, Little, Signed)),
        ("HLAfloat32BE", basic(32, Big, Float)),
        ("HLAfloat32LE", basic(32, Little, Float)),
        ("HLAfloat64BE", basic(64, Big, Float)),
        ("HLAfloat64LE", basic(64, Little, Float)),
        ("HLAoctetPairBE", basic(16, Big, Unsigned)),
        ("HLAoctetPairLE", basic(16, Little, Unsigned)),
        ("HLAoctet", basic(8, Big, Unsigned)),
        ("HLAASCIIchar", simple("HLAoctet")),
        ("HLAunicodeChar", simple("HLAoctetPairBE")),
        ("HLAbyte", simple("HLAoctet")),
        (
            "HLAboolean",
            DataTypeKind::Enumerated {
                representation: "HLAinteger32BE".into(),
                enumerators: vec![
                    Enumerator {
                        name: "HLAfalse".into(),
                        values: vec![0],
                    },
                    Enumerator {
                        name: "HLAtrue".into(),
                        values: vec![1],
                    },
                ],
            },
        ),
        ("HLAASCIIstring", variable_array("HLAASCIIchar")),
        ("HLAunicodeString", variable_array("HLAunicodeChar")),
        ("HLAopaqueData", variable_array("HLAbyte")),
    ];
    kinds
        .into_iter()
        .map(|(name, kind)| DataType {
            name: name.into(),
            kind,
            file: PREDEFINED_FILE.into(),
            line: 0,
        })
        .collect()
}
