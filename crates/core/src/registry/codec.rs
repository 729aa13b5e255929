//! The bodies of manage frames: registry requests and responses, bounds-checked both ways.

use crate::wire::reader::Reader;
use crate::wire::{NodeId, WireError};
use bytes::{BufMut, Bytes, BytesMut};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Request {
    Create {
        federation: String,
        fingerprint: u64,
        /// The object model's modules, for messages that name them.
        modules: Vec<String>,
    },
    Destroy {
        federation: String,
    },
    Join {
        federation: String,
        federate_name: String,
        federate_type: String,
        fingerprint: u64,
    },
    Resign {
        federation: String,
        federate: u32,
    },
    ReserveName {
        federation: String,
        federate: u32,
        name: String,
    },
    ReleaseName {
        federation: String,
        federate: u32,
        name: String,
    },
    /// Sent by a router when a federate's link to it failed.
    NodeGone {
        node: NodeId,
    },
    Federates {
        federation: String,
    },
}

#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    FederationExists,
    FederationUnknown,
    FederatesJoined,
    InconsistentFom,
    FederateNameInUse,
    FederateUnknown,
    LimitReached,
    /// No registry is reachable from the asking node.
    NoRegistry,
    /// The request did not decode.
    Malformed,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Response {
    Created,
    Destroyed,
    Joined { federate: u32 },
    Resigned,
    NameReserved { name: String },
    NameRefused { name: String },
    Ack,
    Federates(Vec<(u32, String, String)>),
    Error { kind: ErrorKind, message: String },
}

fn put_str(out: &mut BytesMut, text: &str) {
    let text = crate::wire::control_clip(text, u16::MAX as usize);
    out.put_u16_le(text.len() as u16);
    out.put_slice(text.as_bytes());
}

impl Request {
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::new();
        match self {
            Request::Create {
                federation,
                fingerprint,
                modules,
            } => {
                out.put_u8(1);
                put_str(&mut out, federation);
                out.put_u64_le(*fingerprint);
                out.put_u16_le(modules.len().min(u16::MAX as usize) as u16);
                for module in modules.iter().take(u16::MAX as usize) {
                    put_str(&mut out, module);
                }
            }
            Request::Destroy { federation } => {
                out.put_u8(2);
                put_str(&mut out, federation);
            }
            Request::Join {
                federation,
                federate_name,
                federate_type,
                fingerprint,
            } => {
                out.put_u8(3);
                put_str(&mut out, federation);
                put_str(&mut out, federate_name);
                put_str(&mut out, federate_type);
                out.put_u64_le(*fingerprint);
            }
            Request::Resign {
                federation,
                federate,
            } => {
                out.put_u8(4);
                put_str(&mut out, federation);
                out.put_u32_le(*federate);
            }
            Request::ReserveName {
                federation,
                federate,
                name,
            } => {
                out.put_u8(5);
                put_str(&mut out, federation);
                out.put_u32_le(*federate);
                put_str(&mut out, name);
            }
            Request::ReleaseName {
                federation,
                federate,
                name,
            } => {
                out.put_u8(6);
                put_str(&mut out, federation);
                out.put_u32_le(*federate);
                put_str(&mut out, name);
            }
            Request::NodeGone { node } => {
                out.put_u8(7);
                out.put_u64_le(node.0);
            }
            Request::Federates { federation } => {
                out.put_u8(8);
                put_str(&mut out, federation);
            }
        }
        out.freeze()
    }

    pub fn decode(body: &[u8]) -> Result<Request, WireError> {
        let mut r = Reader::new(body, "registry request");
        let request = match r.u8("request kind")? {
            1 => {
                let federation = r.long_str("federation")?;
                let fingerprint = r.u64("fingerprint")?;
                let count = r.u16("module count")?;
                let mut modules = Vec::new();
                for _ in 0..count {
                    modules.push(r.long_str("module")?);
                }
                Request::Create {
                    federation,
                    fingerprint,
                    modules,
                }
            }
            2 => Request::Destroy {
                federation: r.long_str("federation")?,
            },
            3 => Request::Join {
                federation: r.long_str("federation")?,
                federate_name: r.long_str("federate name")?,
                federate_type: r.long_str("federate type")?,
                fingerprint: r.u64("fingerprint")?,
            },
            4 => Request::Resign {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
            },
            5 => Request::ReserveName {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
                name: r.long_str("name")?,
            },
            6 => Request::ReleaseName {
                federation: r.long_str("federation")?,
                federate: r.u32("federate")?,
                name: r.long_str("name")?,
            },
            7 => Request::NodeGone {
                node: NodeId(r.u64("node")?),
            },
            8 => Request::Federates {
                federation: r.long_str("federation")?,
            },
            _ => return Err(r.malformed("unknown request kind")),
        };
        r.finish()?;
        Ok(request)
    }
}

impl ErrorKind {
    fn to_byte(self) -> u8 {
        match self {
            ErrorKind::FederationExists => 1,
            ErrorKind::FederationUnknown => 2,
            ErrorKind::FederatesJoined => 3,
            ErrorKind::InconsistentFom => 4,
            ErrorKind::FederateNameInUse => 5,
            ErrorKind::FederateUnknown => 6,
            ErrorKind::LimitReached => 7,
            ErrorKind::NoRegistry => 8,
            ErrorKind::Malformed => 9,
        }
    }

    fn from_byte(byte: u8) -> Option<ErrorKind> {
        Some(match byte {
            1 => ErrorKind::FederationExists,
            2 => ErrorKind::FederationUnknown,
            3 => ErrorKind::FederatesJoined,
            4 => ErrorKind::InconsistentFom,
            5 => ErrorKind::FederateNameInUse,
            6 => ErrorKind::FederateUnknown,
            7 => ErrorKind::LimitReached,
            8 => ErrorKind::NoRegistry,
            9 => ErrorKind::Malformed,
            _ => return None,
        })
    }
}

impl Response {
    pub fn encode(&self) -> Bytes {
        let mut out = BytesMut::new();
        match self {
            Response::Created => out.put_u8(1),
            Response::Destroyed => out.put_u8(2),
            Response::Joined { federate } => {
                out.put_u8(3);
                out.put_u32_le(*federate);
            }
            Response::Resigned => out.put_u8(4),
            Response::NameReserved { name } => {
                out.put_u8(5);
                put_str(&mut out, name);
            }
            Response::NameRefused { name } => {
                out.put_u8(6);
                put_str(&mut out, name);
            }
            Response::Ack => out.put_u8(7),
            Response::Federates(list) => {
                out.put_u8(8);
                out.put_u32_le(list.len() as u32);
                for (handle, name, kind) in list {
                    out.put_u32_le(*handle);
                    put_str(&mut out, name);
                    put_str(&mut out, kind);
                }
            }
            Response::Error { kind, message } => {
                out.put_u8(9);
                out.put_u8(kind.to_byte());
                put_str(&mut out, message);
            }
        }
        out.freeze()
    }

    pub fn decode(body: &[u8]) -> Result<Response, WireError> {
        let mut r = Reader::new(body, "registry response");
        let response = match r.u8("response kind")? {
            1 => Response::Created,
            2 => Response::Destroyed,
            3 => Response::Joined {
                federate: r.u32("federate")?,
            },
            4 => Response::Resigned,
            5 => Response::NameReserved {
                name: r.long_str("name")?,
            },
            6 => Response::NameRefused {
                name: r.long_str("name")?,
            },
            7 => Response::Ack,
            8 => {
                let count = r.u32("federate count")? as usize;
                // Each entry takes at least 8 bytes: a lying count cannot reserve memory.
                if count > r.remaining() / 8 {
                    return Err(r.malformed("federate count runs past the end"));
                }
                let mut list = Vec::with_capacity(count);
                for _ in 0..count {
                    list.push((r.u32("handle")?, r.long_str("name")?, r.long_str("type")?));
                }
                Response::Federates(list)
            }
            9 => Response::Error {
                kind: ErrorKind::from_byte(r.u8("error kind")?)
                    .ok_or(r.malformed("unknown error kind"))?,
                message: r.long_str("message")?,
            },
            _ => return Err(r.malformed("unknown response kind")),
        };
        r.finish()?;
        Ok(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_and_responses_round_trip() {
        let requests = [
            Request::Create {
                federation: "F".into(),
                fingerprint: 9,
                modules: vec!["a.xml".into(), "b.xml".into()],
            },
            Request::Join {
                federation: "F".into(),
                federate_name: "tank".into(),
                federate_type: "sim".into(),
                fingerprint: 9,
            },
            Request::NodeGone { node: NodeId(77) },
        ];
        for request in requests {
            assert_eq!(Request::decode(&request.encode()).unwrap(), request);
        }
        let responses = [
            Response::Joined { federate: 3 },
            Response::Federates(vec![(1, "a".into(), "t".into())]),
            Response::Error {
                kind: ErrorKind::InconsistentFom,
                message: "different".into(),
            },
        ];
        for response in responses {
            assert_eq!(Response::decode(&response.encode()).unwrap(), response);
        }
        assert!(Request::decode(&[99]).is_err());
        assert!(Response::decode(&[8, 255, 255, 255, 255]).is_err());
    }
}
