//! One chaos federate: joins at its attachment point, publishes a reliable serial (Vehicle
//! Name) and a best-effort serial (Vehicle Position) at a fixed rate, reflects everyone
//! else's, and reports everything it sees to the coordinator as [`Observation`]s. When its
//! membership is lost it joins again under a fresh name (a new epoch) and carries on: the
//! chaos run measures that outcome instead of stopping at it.

use super::super::BenchError;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::Sender;
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::{AttributeHandle, ObjectModel};
use trellis_core::topology::NodePlan;
use trellis_net::rti::{RtiAmbassador, RtiConfig, RtiError};
use trellis_net::NodeConfig;

/// What a federate saw, stamped with the run's clock (time since the run started).
#[derive(Clone, Debug)]
pub(crate) enum Observation {
    /// Joined (again), in a new epoch.
    Joined { federate: usize, at: Duration },
    Sent {
        publisher: usize,
        epoch: u32,
        serial: u64,
        reliable: bool,
        at: Duration,
    },
    Reflected {
        receiver: usize,
        receiver_epoch: u32,
        publisher: usize,
        publisher_epoch: u32,
        serial: u64,
        reliable: bool,
        sent_at: Duration,
        at: Duration,
    },
    /// `ReliableMessagesLost`; `publisher` when the sender could be named.
    Lost {
        receiver: usize,
        receiver_epoch: u32,
        publisher: Option<usize>,
        count: u64,
        at: Duration,
    },
    /// The membership ended: `connectionLost`, or a service that failed so that the
    /// federate had to join again.
    MembershipLost {
        federate: usize,
        epoch: u32,
        why: String,
        at: Duration,
    },
}

impl Observation {
    pub(crate) fn at(&self) -> Duration {
        match self {
            Observation::Joined { at, .. }
            | Observation::Sent { at, .. }
            | Observation::Reflected { at, .. }
            | Observation::Lost { at, .. }
            | Observation::MembershipLost { at, .. } => *at,
        }
    }
}

/// What every federate of the run shares.
#[derive(Clone)]
pub(crate) struct Shared {
    pub federation: String,
    pub model: Arc<ObjectModel>,
    /// The attachment points of all federates, by index.
    pub names: Arc<Vec<String>>,
    pub clock: Instant,
    pub period: Duration,
    /// Cleared at the end so the last updates can drain before the federates stop.
    pub sending: Arc<AtomicBool>,
    pub stop: Arc<AtomicBool>,
    pub events: Sender<Observation>,
}

impl Shared {
    fn now(&self) -> Duration {
        self.clock.elapsed()
    }

    fn emit(&self, observation: Observation) {
        // The coordinator gone means the run is over; nothing left to tell.
        let _ = self.events.send(observation);
    }

    fn stopped(&self) -> bool {
        self.stop.load(Ordering::SeqCst)
    }
}

/// How long a federate waits before it tries to join again after a failed attempt: the
/// registry's router may still be coming back.
const REJOIN_BACKOFF: Duration = Duration::from_millis(200);

/// Run federate `index` at `plan` until the run stops: join, exchange, join again on loss.
pub(crate) fn run(index: usize, plan: NodePlan, shared: Shared) {
    let mut epoch = 0;
    while !shared.stopped() {
        epoch += 1;
        let mut session = match Session::join(index, epoch, &plan, &shared) {
            Ok(session) => session,
            Err(_) => {
                std::thread::sleep(REJOIN_BACKOFF);
                continue;
            }
        };
        shared.emit(Observation::Joined {
            federate: index,
            at: shared.now(),
        });
        if let Err(why) = session.exchange(&shared) {
            shared.emit(Observation::MembershipLost {
                federate: index,
                epoch,
                why,
                at: shared.now(),
            });
        }
    }
}

/// The value of an update: who sent it, in which membership, its serial and send time.
fn encode(publisher: usize, epoch: u32, serial: u64, sent_at: Duration) -> String {
    format!("{publisher} {epoch} {serial} {}", sent_at.as_nanos())
}

/// (publisher, epoch, serial, sent_at) of a value `encode` wrote; `None` for anything else.
fn decode(value: &[u8]) -> Option<(usize, u32, u64, Duration)> {
    let text = std::str::from_utf8(value).ok()?;
    let mut fields = text.split(' ');
    let publisher = fields.next()?.parse().ok()?;
    let epoch = fields.next()?.parse().ok()?;
    let serial = fields.next()?.parse().ok()?;
    let nanos: u64 = fields.next()?.parse().ok()?;
    Some((publisher, epoch, serial, Duration::from_nanos(nanos)))
}

/// One membership of one federate.
struct Session {
    index: usize,
    epoch: u32,
    rti: RtiAmbassador,
    object: ObjectId,
    name: AttributeHandle,
    position: AttributeHandle,
    reliable_serial: u64,
    best_effort_serial: u64,
}

impl Session {
    /// Connect, create the federation if nobody has (again), join under a name unique to
    /// this epoch (the registry may still hold the last one until its lease runs out),
    /// publish and subscribe Name and Position, register one vehicle.
    fn join(
        index: usize,
        epoch: u32,
        plan: &NodePlan,
        shared: &Shared,
    ) -> Result<Session, RtiError> {
        let node = NodeConfig::from_plan(plan, shared.federation.clone())?;
        let mut rti = RtiAmbassador::connect(RtiConfig::new(node))?;
        match rti.create_federation_execution(&shared.model) {
            Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
            Err(e) => return Err(e),
        }
        let federate_name = format!("{}#{epoch}", shared.names[index]);
        rti.join_federation_execution(&federate_name, "chaos", shared.model.clone())?;
        let vehicle = rti.object_class_handle("Vehicle")?;
        let name = rti.attribute_handle(vehicle, "Name")?;
        let position = rti.attribute_handle(vehicle, "Position")?;
        rti.publish_object_class_attributes(vehicle, &[name, position])?;
        rti.subscribe_object_class_attributes(vehicle, &[name, position])?;
        let object = rti.register_object_instance(vehicle)?;
        Ok(Session {
            index,
            epoch,
            rti,
            object,
            name,
            position,
            reliable_serial: 0,
            best_effort_serial: 0,
        })
    }

    /// Send at the rate and reflect in between until the run stops (`Ok`) or the
    /// membership ends (`Err` with why).
    fn exchange(&mut self, shared: &Shared) -> Result<(), String> {
        let mut next_send = Instant::now();
        while !shared.stopped() {
            if shared.sending.load(Ordering::SeqCst) && Instant::now() >= next_send {
                self.send(shared)
                    .map_err(|e| format!("update failed: {e}"))?;
                next_send += shared.period;
                // After a stall (a blocked update), keep the rate instead of bursting.
                next_send = next_send.max(Instant::now());
            }
            let wait = next_send
                .saturating_duration_since(Instant::now())
                .clamp(Duration::from_millis(1), Duration::from_millis(20));
            let callbacks = self
                .rti
                .evoke_multiple_callbacks(wait, 256)
                .map_err(|e| format!("evoke failed: {e}"))?;
            for callback in callbacks {
                self.take(callback, shared)?;
            }
        }
        Ok(())
    }

    fn send(&mut self, shared: &Shared) -> Result<(), RtiError> {
        self.reliable_serial += 1;
        let at = shared.now();
        let value = encode(self.index, self.epoch, self.reliable_serial, at);
        self.rti
            .update_attribute_values(self.object, &[(self.name, value.as_bytes())], b"")?;
        self.sent(shared, self.reliable_serial, true, at);
        self.best_effort_serial += 1;
        let at = shared.now();
        let value = encode(self.index, self.epoch, self.best_effort_serial, at);
        self.rti
            .update_attribute_values(self.object, &[(self.position, value.as_bytes())], b"")?;
        self.sent(shared, self.best_effort_serial, false, at);
        Ok(())
    }

    fn sent(&self, shared: &Shared, serial: u64, reliable: bool, at: Duration) {
        shared.emit(Observation::Sent {
            publisher: self.index,
            epoch: self.epoch,
            serial,
            reliable,
            at,
        });
    }

    /// Pass one callback on to the coordinator; `Err` when it ends the membership.
    fn take(&mut self, callback: Callback, shared: &Shared) -> Result<(), String> {
        match callback {
            Callback::ReflectAttributeValues { values, .. } => {
                let at = shared.now();
                for (attribute, value) in values {
                    self.reflected(shared, attribute, &value, at);
                }
            }
            Callback::ReliableMessagesLost { sender, count, .. } => {
                let publisher = sender.and_then(|handle| self.publisher_of(handle, shared));
                shared.emit(Observation::Lost {
                    receiver: self.index,
                    receiver_epoch: self.epoch,
                    publisher,
                    count,
                    at: shared.now(),
                });
            }
            Callback::ConnectionLost { fault } => return Err(format!("connectionLost: {fault}")),
            _ => {}
        }
        Ok(())
    }

    fn reflected(&self, shared: &Shared, attribute: AttributeHandle, value: &[u8], at: Duration) {
        // A value this run did not write (none should arrive) is not counted.
        let Some((publisher, publisher_epoch, serial, sent_at)) = decode(value) else {
            return;
        };
        shared.emit(Observation::Reflected {
            receiver: self.index,
            receiver_epoch: self.epoch,
            publisher,
            publisher_epoch,
            serial,
            reliable: attribute == self.name,
            sent_at,
            at,
        });
    }

    /// The federate index behind a federate handle: its name is "<attachment>#<epoch>".
    fn publisher_of(&self, handle: u32, shared: &Shared) -> Option<usize> {
        let name = self.rti.federate_name_of(handle).ok()?;
        let seat = name
            .rsplit_once('#')
            .map_or(name.as_str(), |(seat, _)| seat);
        shared.names.iter().position(|n| n == seat)
    }
}

/// Start federate threads, one per attachment point.
pub(crate) fn spawn_all(
    plans: Vec<NodePlan>,
    shared: &Shared,
) -> Result<Vec<std::thread::JoinHandle<()>>, BenchError> {
    plans
        .into_iter()
        .enumerate()
        .map(|(index, plan)| {
            let shared = shared.clone();
            std::thread::Builder::new()
                .name(format!("chaos-{}", shared.names[index]))
                .spawn(move || run(index, plan, shared))
                .map_err(BenchError::Io)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_carry_publisher_epoch_serial_and_send_time() {
        let value = encode(3, 2, 41, Duration::from_millis(1500));
        assert_eq!(
            decode(value.as_bytes()),
            Some((3, 2, 41, Duration::from_millis(1500)))
        );
        assert_eq!(decode(b"not a chaos value"), None);
        assert_eq!(decode(&[0xff, 0xfe]), None);
    }
}
