//! Time management state machines wired by hand: the registry's order and the broadcast
//! channel are a loop here, so each rule of §8 can be driven one step at a time.

use super::*;
use crate::fom::InteractionClassHandle;
use bytes::Bytes;

fn t(v: i64) -> LogicalTime {
    LogicalTime::from_i64(v)
}

/// Managers plus the registry's sequence: outputs go around until nothing moves.
struct Bus {
    managers: Vec<TimeManager>,
    seq: u64,
    delivered: Vec<Vec<Callback>>,
}

impl Bus {
    fn new(count: u32) -> Bus {
        Bus {
            managers: (1..=count)
                .map(|h| TimeManager::new(TimeRepresentation::Integer64, h))
                .collect(),
            seq: 0,
            delivered: vec![Vec::new(); count as usize],
        }
    }

    fn settle(&mut self) {
        loop {
            let mut moved = false;
            for i in 0..self.managers.len() {
                while let Some(output) = self.managers[i].poll_output() {
                    moved = true;
                    match output {
                        TimeOutput::Deliver(callback) => self.delivered[i].push(callback),
                        TimeOutput::Send(message) => {
                            for (j, m) in self.managers.iter_mut().enumerate() {
                                if j != i {
                                    m.on_message(message);
                                }
                            }
                        }
                        TimeOutput::Ask(switch) => {
                            self.seq += 1;
                            for m in &mut self.managers {
                                m.on_switch(self.seq, i as u32 + 1, switch);
                            }
                        }
                    }
                }
            }
            if !moved {
                return;
            }
        }
    }

    fn take(&mut self, i: usize) -> Vec<Callback> {
        std::mem::take(&mut self.delivered[i])
    }
}

fn interaction(tag: &'static str, time: LogicalTime) -> Callback {
    Callback::ReceiveInteraction {
        class: InteractionClassHandle(0),
        parameters: vec![],
        tag: Bytes::from_static(tag.as_bytes()),
        time: time.key(),
        sender: 1,
        transport: crate::wire::TransportClass::Reliable,
        region: None,
        sent_order: crate::fom::Order::TimeStamp,
        received_order: crate::fom::Order::TimeStamp,
        retraction: None,
    }
}

#[test]
fn each_misuse_is_its_own_error() {
    let mut m = TimeManager::new(TimeRepresentation::Integer64, 1);
    assert_eq!(
        m.disable_regulation(),
        Err(TimeError::TimeRegulationIsNotEnabled)
    );
    assert_eq!(
        m.disable_constrained(),
        Err(TimeError::TimeConstrainedIsNotEnabled)
    );
    assert_eq!(m.lookahead(), Err(TimeError::TimeRegulationIsNotEnabled));
    assert!(matches!(
        m.enable_regulation(Interval::Integer(-1)),
        Err(TimeError::InvalidLookahead(_))
    ));
    assert!(matches!(
        m.enable_regulation(Interval::Float(1.0)),
        Err(TimeError::InvalidLookahead(_))
    ));
    m.enable_regulation(Interval::Integer(1)).unwrap();
    assert_eq!(
        m.enable_constrained(),
        Err(TimeError::RequestForTimeRegulationPending)
    );
    assert_eq!(
        m.request_advance(AdvanceKind::Tar, t(5)),
        Err(TimeError::RequestForTimeRegulationPending)
    );
    let mut bus = Bus {
        managers: vec![m],
        seq: 0,
        delivered: vec![Vec::new()],
    };
    bus.settle();
    assert_eq!(
        bus.take(0),
        vec![Callback::TimeRegulationEnabled { time: t(0) }]
    );
    let m = &mut bus.managers[0];
    assert_eq!(
        m.enable_regulation(Interval::Integer(1)),
        Err(TimeError::TimeRegulationAlreadyEnabled)
    );
    m.request_advance(AdvanceKind::Tar, t(5)).unwrap();
    bus.settle();
    let m = &mut bus.managers[0];
    assert_eq!(m.logical_time(), t(5));
    assert!(matches!(
        m.request_advance(AdvanceKind::Tar, t(4)),
        Err(TimeError::LogicalTimeAlreadyPassed(_))
    ));
    // Granted at once: nobody constrains it. Lookahead 1: the earliest stamp is 10.
    m.request_advance(AdvanceKind::Tar, t(9)).unwrap();
    bus.settle();
    let m = &bus.managers[0];
    assert!(matches!(
        m.check_send(t(9)),
        Err(TimeError::InvalidLogicalTime(_))
    ));
    assert_eq!(m.check_send(t(10)), Ok(true));
}

#[test]
fn a_time_stamped_message_waits_for_the_grant_that_covers_it() {
    let mut bus = Bus::new(2);
    bus.managers[0]
        .enable_regulation(Interval::Integer(2))
        .unwrap();
    bus.settle();
    bus.managers[1].enable_constrained().unwrap();
    bus.settle();
    assert_eq!(
        bus.take(1),
        vec![Callback::TimeConstrainedEnabled { time: t(0) }]
    );
    // The regulator is at 0 with lookahead 2: the constrained one may reach 1, not 2.
    assert_eq!(bus.managers[1].galt(), Some(t(2)));
    bus.managers[1].on_time_stamped(t(3), interaction("m3", t(3)));
    bus.managers[1]
        .request_advance(AdvanceKind::Tar, t(5))
        .unwrap();
    bus.settle();
    assert!(bus.take(1).is_empty(), "GALT 2 does not allow 5");
    let waiting = &mut bus.managers[1];
    assert_eq!(
        waiting.request_advance(AdvanceKind::Tar, t(6)),
        Err(TimeError::InTimeAdvancingState)
    );
    assert_eq!(
        waiting.enable_regulation(Interval::Integer(1)),
        Err(TimeError::InTimeAdvancingState)
    );
    bus.managers[0]
        .request_advance(AdvanceKind::Tar, t(4))
        .unwrap();
    bus.settle();
    assert_eq!(bus.managers[1].galt(), Some(t(6)));
    assert_eq!(
        bus.take(1),
        vec![
            interaction("m3", t(3)),
            Callback::TimeAdvanceGrant { time: t(5) }
        ]
    );
}

#[test]
fn zero_lookahead_advances_by_tar_and_by_tara() {
    let mut bus = Bus::new(2);
    for m in &mut bus.managers {
        m.enable_regulation(Interval::Integer(0)).unwrap();
    }
    bus.settle();
    for m in &mut bus.managers {
        m.enable_constrained().unwrap();
    }
    bus.settle();
    for step in 1..=3 {
        for m in &mut bus.managers {
            m.request_advance(AdvanceKind::Tar, t(step)).unwrap();
        }
        bus.settle();
        for m in &bus.managers {
            assert_eq!(m.logical_time(), t(step));
        }
    }
    // After a TAR grant with zero lookahead a federate may not send at its own time...
    assert!(bus.managers[0].check_send(t(3)).is_err());
    for m in &mut bus.managers {
        m.request_advance(AdvanceKind::Tara, t(4)).unwrap();
    }
    bus.settle();
    // ...after a TARA grant it may.
    assert_eq!(bus.managers[0].logical_time(), t(4));
    assert_eq!(bus.managers[0].check_send(t(4)), Ok(true));
}

#[test]
fn a_new_regulator_starts_no_earlier_than_the_constrained_federates() {
    let mut bus = Bus::new(2);
    bus.managers[1].enable_constrained().unwrap();
    bus.settle();
    bus.managers[1]
        .request_advance(AdvanceKind::Tar, t(50))
        .unwrap();
    bus.settle();
    assert_eq!(bus.managers[1].logical_time(), t(50));
    bus.managers[0]
        .enable_regulation(Interval::Integer(1))
        .unwrap();
    bus.settle();
    assert!(bus
        .take(0)
        .contains(&Callback::TimeRegulationEnabled { time: t(50) }));
    assert!(bus.managers[0].check_send(t(50)).is_err());
    assert_eq!(bus.managers[0].check_send(t(51)), Ok(true));
}

#[test]
fn a_departing_regulator_releases_the_others() {
    let mut bus = Bus::new(2);
    bus.managers[0]
        .enable_regulation(Interval::Integer(1))
        .unwrap();
    bus.settle();
    bus.managers[1].enable_constrained().unwrap();
    bus.settle();
    bus.take(1);
    bus.managers[1]
        .request_advance(AdvanceKind::Tar, t(100))
        .unwrap();
    bus.settle();
    assert!(bus.take(1).is_empty());
    bus.managers[0].depart();
    bus.settle();
    assert_eq!(
        bus.take(1),
        vec![Callback::TimeAdvanceGrant { time: t(100) }]
    );
}
