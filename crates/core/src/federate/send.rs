//! Sending: encoding a message into the federate's arena and queueing it for the node,
//! stamped for time-stamp or receive order.

use super::message::{Header, Outgoing};
use super::{Action, Federate, LogicalTime};
use crate::wire::{LatestKey, TransportClass};
use bytes::{Bytes, BytesMut};

impl Federate {
    /// Encode into `buf`, an arena split per message: one allocation per 64 KiB of messages.
    pub(super) fn encode<V: AsRef<[u8]>>(
        buf: &mut BytesMut,
        header: &Header<'_>,
        outgoing: &Outgoing<'_, V>,
    ) -> Bytes {
        let len = outgoing.max_encoded_len(header);
        if buf.capacity() < len {
            buf.reserve(len.max(64 << 10));
        }
        outgoing.encode(header, buf);
        buf.split().freeze()
    }

    pub(super) fn send<V: AsRef<[u8]>>(
        &mut self,
        ids: Vec<u32>,
        class: TransportClass,
        fom_class: u32,
        time: u64,
        tag: &[u8],
        outgoing: Outgoing<'_, V>,
    ) {
        self.send_keyed(ids, class, fom_class, time, tag, outgoing, None)
    }

    /// [`Federate::send`] as a keep-latest frame with `latest`: never a time-stamped
    /// update (queues would reorder it), though a time-stamped removal keeps its key so
    /// caches forget the instance.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn send_keyed<V: AsRef<[u8]>>(
        &mut self,
        ids: Vec<u32>,
        class: TransportClass,
        fom_class: u32,
        time: u64,
        tag: &[u8],
        outgoing: Outgoing<'_, V>,
        latest: Option<LatestKey>,
    ) {
        let stamp = Stamping::of(
            self.sending_time_stamp,
            self.sending_serial,
            time,
            class,
            latest,
        );
        let header = stamp.header(self.handle, fom_class, tag);
        let payload = Self::encode(&mut self.encode_buf, &header, &outgoing);
        self.actions.push_back(stamp.publish(ids, payload));
    }
}

/// How a message goes out: a time-stamped message always travels reliably (a lost one
/// would leave a hole in time-stamp order, and a best-effort one could overtake its
/// sender's bound), and keeps a keep-latest key only to remove an instance (queues would
/// reorder a keyed update).
pub(super) struct Stamping {
    time: u64,
    time_stamped: bool,
    /// The retraction serial, carried only in time-stamp order.
    serial: Option<u32>,
    class: TransportClass,
    latest: Option<LatestKey>,
}

impl Stamping {
    pub(super) fn of(
        sending: Option<LogicalTime>,
        serial: Option<u32>,
        time: u64,
        class: TransportClass,
        latest: Option<LatestKey>,
    ) -> Stamping {
        let (time, time_stamped, class) = match sending {
            Some(stamp) => (stamp.key(), true, TransportClass::Reliable),
            None => (time, false, class),
        };
        let latest = latest.filter(|l| !time_stamped || l.is_removal());
        Stamping {
            time,
            time_stamped,
            serial: serial.filter(|_| time_stamped),
            class,
            latest,
        }
    }

    pub(super) fn header<'a>(&self, sender: u32, fom_class: u32, tag: &'a [u8]) -> Header<'a> {
        Header {
            sender,
            class: fom_class,
            time: self.time,
            time_stamped: self.time_stamped,
            serial: self.serial,
            tag,
        }
    }

    pub(super) fn publish(self, ids: Vec<u32>, payload: Bytes) -> Action {
        Action::Publish {
            ids,
            class: self.class,
            payload,
            latest: self.latest,
        }
    }
}
