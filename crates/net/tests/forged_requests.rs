//! Issue 33's forged requests over a real socket: a raw client that is not the victim's
//! node asks to resign the victim and destroy its federation. Both are refused with the
//! reason, and the victim stays joined.

mod common;

use bytes::BytesMut;
use common::*;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};
use trellis_core::federate::ResignAction;
use trellis_core::registry::{ErrorKind, Request, Response};
use trellis_core::wire::{
    decode_frame, Frame, Hello, LinkFlags, ManageDirection, ManageFrame, NodeId, Role,
};
use trellis_net::rti::Driver;
use trellis_net::Endpoint;

const FEDERATION: &str = "Victims";

/// A hand-written client: a hello as a federate node of `FEDERATION`, then requests.
struct RawClient {
    stream: TcpStream,
    inbox: BytesMut,
    next_request: u64,
}

impl RawClient {
    fn connect(at: &Endpoint) -> RawClient {
        let Endpoint::Tcp(addr) = at else {
            panic!("a TCP router")
        };
        let stream = TcpStream::connect(addr).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_millis(200)))
            .unwrap();
        let mut client = RawClient {
            stream,
            inbox: BytesMut::new(),
            next_request: 1,
        };
        let mut hello = BytesMut::new();
        Hello {
            node_id: NodeId(0xbad),
            node_name: "attacker".into(),
            role: Role::Child,
            flags: LinkFlags::source_sink(),
            federation: FEDERATION.into(),
            clique: String::new(),
            udp: None,
        }
        .encode(&mut hello);
        client.stream.write_all(&hello).unwrap();
        client
    }

    /// Send `request` as node 0xbad and wait (bounded) for the registry's answer.
    fn ask(&mut self, request: &Request) -> Response {
        let mut out = BytesMut::new();
        let id = self.next_request;
        self.next_request += 1;
        ManageFrame {
            direction: ManageDirection::Request,
            origin: NodeId(0xbad),
            request: id,
            asker: None,
            body: request.encode(),
        }
        .encode(&mut out);
        self.stream.write_all(&out).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            while let Some(frame) = decode_frame(&mut self.inbox, 1 << 20).unwrap() {
                if let Frame::Manage(reply) = frame {
                    if reply.request == id && reply.direction == ManageDirection::Reply {
                        return Response::decode(&reply.body).unwrap();
                    }
                }
            }
            let mut buf = [0u8; 4096];
            match self.stream.read(&mut buf) {
                Ok(0) => panic!("the router closed the connection"),
                Ok(n) => self.inbox.extend_from_slice(&buf[..n]),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(e) => panic!("{e}"),
            }
        }
        panic!("no answer to {request:?} within 10 s")
    }
}

fn refused(response: Response) -> (ErrorKind, String) {
    match response {
        Response::Error { kind, message } => (kind, message),
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_raw_client_can_neither_resign_the_victim_nor_destroy_its_federation() {
    let (_router, at) = registry_router();
    let model = model();
    let mut victim = connect(&at, FEDERATION, "victim", Driver::Direct);
    victim.create_federation_execution(&model).unwrap();
    let handle = victim
        .join_federation_execution("victim", "sim", model)
        .unwrap();
    let mut attacker = RawClient::connect(&at);
    let resign = Request::Resign {
        federation: FEDERATION.into(),
        federate: handle,
    };
    let (kind, why) = refused(attacker.ask(&resign));
    assert_eq!(kind, ErrorKind::NotPermitted, "{why}");
    assert!(
        why.contains("\"victim\"") && why.contains("own node"),
        "{why}"
    );
    let destroy = Request::Destroy {
        federation: FEDERATION.into(),
    };
    let (kind, why) = refused(attacker.ask(&destroy));
    assert_eq!(kind, ErrorKind::FederatesJoined, "{why}");
    // The victim is still a member: it can do what only members can, and leave itself.
    let vehicle = victim.object_class_handle("Vehicle").unwrap();
    victim
        .subscribe_object_class_attributes(vehicle, &[])
        .unwrap();
    victim
        .resign_federation_execution(ResignAction::default())
        .unwrap();
}
