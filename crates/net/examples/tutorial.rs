//! The tutorial federate of `cpp/examples/tutorial/tutorial.cpp`, in Rust on
//! `trellis_net::rti`: the same roles, messages and checks, so a C++ federate and a Rust
//! federate run in one federation either way round.
//!
//!     cargo run -p trellis-net --example tutorial -- --role consumer [--rti tcp://HOST:PORT]
//!         [--steps N] [--federation NAME] [--fom FILE]
//!
//! Values are encoded as the demo object model says (Position2D: two HLAinteger32LE,
//! Velocity2D: two HLAfloat32LE, Radio.Text: HLAunicodeString), as the C++ side encodes them
//! with the standard's encoding helpers.

use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{Callback, Interval, LogicalTime, ObjectId, OwnershipCallback, Range};
use trellis_core::fom::{AttributeHandle, ObjectModel, Order};
use trellis_net::rti::{ResignAction, RtiAmbassador, RtiConfig, RtiError};
use trellis_net::NodeConfig;

struct Settings {
    producer: bool,
    steps: i64,
    federation: String,
    rti: String,
    fom: String,
}

fn settings() -> Result<Settings, String> {
    let mut s = Settings {
        producer: true,
        steps: 20,
        federation: "Tutorial".into(),
        rti: std::env::var("TRELLIS_RTI_ADDRESS").unwrap_or_else(|_| "tcp://127.0.0.1:7000".into()),
        fom: concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/trellis-demo.xml").into(),
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value"));
        match arg.as_str() {
            "--role" => s.producer = value()? == "producer",
            "--steps" => s.steps = value()?.parse().map_err(|e| format!("--steps: {e}"))?,
            "--federation" => s.federation = value()?,
            "--rti" => s.rti = value()?,
            "--fom" => s.fom = value()?,
            other => return Err(format!("unknown argument {other}")),
        }
    }
    Ok(s)
}

fn position(x: i32, y: i32) -> Vec<u8> {
    [x.to_le_bytes(), y.to_le_bytes()].concat()
}

fn velocity(x: f32) -> Vec<u8> {
    [x.to_le_bytes(), 0f32.to_le_bytes()].concat()
}

/// HLAunicodeString: an HLAinteger32BE count of UTF-16BE code units, then the units.
fn unicode_string(text: &str) -> Vec<u8> {
    let units: Vec<u16> = text.encode_utf16().collect();
    let mut out = (units.len() as u32).to_be_bytes().to_vec();
    for unit in units {
        out.extend_from_slice(&unit.to_be_bytes());
    }
    out
}

#[derive(Default)]
struct State {
    announced: bool,
    synchronized: bool,
    regulating: bool,
    constrained: bool,
    granted: i64,
    last_reflect: i64,
    reflects: i64,
    radios: i64,
    failures: u32,
    acquired: bool,
    confirm_requested: bool,
    car: Option<ObjectId>,
}

struct Tutorial {
    s: Settings,
    rti: RtiAmbassador,
    state: State,
    position: AttributeHandle,
    velocity: AttributeHandle,
}

impl Tutorial {
    fn expect(&mut self, condition: bool, what: &str) {
        if !condition {
            self.state.failures += 1;
            eprintln!("check failed: {what}");
        }
    }

    /// Deliver callbacks until `done` holds, at most 30 s.
    fn await_until(
        &mut self,
        what: &str,
        done: impl Fn(&State) -> bool,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let deadline = Instant::now() + Duration::from_secs(30);
        while !done(&self.state) {
            if Instant::now() > deadline {
                return Err(format!("timed out waiting for {what}").into());
            }
            if let Some(callback) = self.rti.evoke_callback(Duration::from_millis(100))? {
                self.on(callback)?;
            }
        }
        Ok(())
    }

    fn on(&mut self, callback: Callback) -> Result<(), RtiError> {
        match callback {
            Callback::AnnounceSynchronizationPoint { label, .. } => {
                self.state.announced |= label == "ReadyToRun"
            }
            Callback::FederationSynchronized { label, .. } => {
                self.state.synchronized |= label == "ReadyToRun"
            }
            Callback::TimeRegulationEnabled { .. } => self.state.regulating = true,
            Callback::TimeConstrainedEnabled { .. } => self.state.constrained = true,
            Callback::TimeAdvanceGrant { time } => self.state.granted = time.as_i64(),
            Callback::DiscoverObjectInstance { object, .. } => self.state.car = Some(object),
            Callback::ReflectAttributeValues {
                values,
                time,
                received_order,
                ..
            } => {
                let t = LogicalTime::from_key(time).as_i64();
                self.expect(
                    received_order == Order::TimeStamp,
                    "an update arrived in receive order",
                );
                self.expect(
                    t >= self.state.last_reflect,
                    "updates arrived out of time-stamp order",
                );
                self.expect(
                    t > self.state.granted,
                    "an update arrived at or before the granted time",
                );
                self.state.last_reflect = t;
                if let Some((_, value)) = values.iter().find(|(a, _)| *a == self.position) {
                    let sent = value.len() == 8 && value[..4] == (10 * t as i32).to_le_bytes();
                    self.expect(sent, "the position is not the one sent");
                    self.state.reflects += 1;
                }
            }
            Callback::ReceiveInteraction { parameters, .. } => {
                let beep = parameters
                    .iter()
                    .any(|(_, v)| v[..] == unicode_string("beep")[..]);
                self.expect(beep, "the radio text is not the one sent");
                self.state.radios += 1;
            }
            Callback::Ownership(OwnershipCallback::RequestAttributeOwnershipAssumption {
                object,
                attributes,
                ..
            }) => {
                self.rti
                    .attribute_ownership_acquisition(object, &attributes, b"take")?;
            }
            Callback::Ownership(OwnershipCallback::RequestDivestitureConfirmation { .. }) => {
                self.state.confirm_requested = true;
            }
            Callback::Ownership(OwnershipCallback::AttributeOwnershipAcquisitionNotification {
                ..
            }) => {
                self.state.acquired = true;
            }
            _ => {}
        }
        Ok(())
    }

    fn run(s: Settings) -> Result<u32, Box<dyn std::error::Error>> {
        let model = Arc::new(ObjectModel::load(&[&s.fom], &|path| std::fs::read(path))?);
        let me = if s.producer { "producer" } else { "consumer" };
        let node = NodeConfig::child_of(me, s.federation.as_str(), s.rti.parse()?);
        let mut rti = RtiAmbassador::connect(RtiConfig::new(node))?;
        match rti.create_federation_execution(&model) {
            Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
            Err(e) => return Err(e.into()),
        }
        rti.join_federation_execution(me, "tutorial", model)?;
        let vehicle = rti.object_class_handle("Vehicle")?;
        let position = rti.attribute_handle(vehicle, "Position")?;
        let velocity_attribute = rti.attribute_handle(vehicle, "Velocity")?;
        let mut t = Tutorial {
            s,
            rti,
            state: State::default(),
            position,
            velocity: velocity_attribute,
        };
        t.declare(vehicle)?;
        t.rti.enable_time_regulation(Interval::Integer(1))?;
        t.await_until("time regulation", |s| s.regulating)?;
        t.rti.enable_time_constrained()?;
        t.await_until("time constraint", |s| s.constrained)?;
        t.meet_at_ready_to_run()?;
        for step in 0..t.s.steps {
            t.step(step)?;
        }
        t.finish()?;
        println!(
            "{me} (Rust): {} steps, {} reflects, {} radios, {} failed checks",
            t.s.steps, t.state.reflects, t.state.radios, t.state.failures
        );
        Ok(t.state.failures)
    }

    fn declare(&mut self, vehicle: trellis_core::fom::ObjectClassHandle) -> Result<(), RtiError> {
        let radio = self.rti.interaction_class_handle("Radio")?;
        let both = [self.position, self.velocity];
        if self.s.producer {
            self.rti.publish_object_class_attributes(vehicle, &both)?;
            self.rti.publish_interaction_class(radio)?;
            self.state.car = Some(self.rti.register_object_instance(vehicle)?);
            return Ok(());
        }
        let (x, y) = (
            self.rti.dimension_handle("X")?,
            self.rti.dimension_handle("Y")?,
        );
        let region = self.rti.create_region(&[x, y])?;
        self.rti.set_range_bounds(region, x, Range::new(0, 1000))?;
        self.rti.set_range_bounds(region, y, Range::new(0, 100))?;
        self.rti.commit_region_modifications(&[region])?;
        self.rti
            .subscribe_object_class_attributes_with_region_handles(
                vehicle,
                &[(both.to_vec(), vec![region])],
            )?;
        self.rti.subscribe_interaction_class(radio)?;
        self.rti
            .publish_object_class_attributes(vehicle, &[self.velocity])
    }

    fn meet_at_ready_to_run(&mut self) -> Result<(), Box<dyn std::error::Error>> {
        if self.s.producer {
            let deadline = Instant::now() + Duration::from_secs(30);
            while self.rti.federate_handle("consumer").is_err() {
                if Instant::now() > deadline {
                    return Err("the consumer did not join within 30 s".into());
                }
                if let Some(callback) = self.rti.evoke_callback(Duration::from_millis(100))? {
                    self.on(callback)?;
                }
            }
            self.rti
                .register_federation_synchronization_point("ReadyToRun", b"", &[])?;
        }
        self.await_until("the announcement of ReadyToRun", |s| s.announced)?;
        self.rti
            .synchronization_point_achieved("ReadyToRun", true)?;
        self.await_until("the federation to synchronize", |s| s.synchronized)
    }

    fn step(&mut self, step: i64) -> Result<(), Box<dyn std::error::Error>> {
        let stamp = LogicalTime::from_i64(step + 1);
        if self.s.producer {
            let car = self.state.car.ok_or("no vehicle registered")?;
            let mut values = vec![(self.position, position(10 * (step + 1) as i32, 50))];
            if self
                .rti
                .is_attribute_owned_by_federate(car, self.velocity)?
            {
                values.push((self.velocity, velocity(1.0)));
            }
            self.rti
                .update_attribute_values_at(car, &values, b"", stamp, None)?;
            if step % 5 == 0 {
                let radio = self.rti.interaction_class_handle("Radio")?;
                let text = self.rti.parameter_handle(radio, "Text")?;
                self.rti.send_interaction_at(
                    radio,
                    &[(text, unicode_string("beep"))],
                    b"",
                    stamp,
                    None,
                )?;
            }
            if step == self.s.steps / 2 {
                self.rti.negotiated_attribute_ownership_divestiture(
                    car,
                    &[self.velocity],
                    b"offer",
                )?;
            }
            if std::mem::take(&mut self.state.confirm_requested) {
                self.rti.confirm_divestiture(car, &[self.velocity], b"")?;
            }
        } else if self.state.acquired {
            let car = self
                .state
                .car
                .ok_or("Velocity acquired for an undiscovered vehicle")?;
            self.rti.update_attribute_values_at(
                car,
                &[(self.velocity, velocity(2.0))],
                b"",
                stamp,
                None,
            )?;
        }
        self.rti.time_advance_request(stamp)?;
        self.await_until("a time advance grant", |s| s.granted > step)
    }

    fn finish(&mut self) -> Result<(), Box<dyn std::error::Error>> {
        if !self.s.producer {
            let (reflects, radios, steps) = (self.state.reflects, self.state.radios, self.s.steps);
            self.expect(reflects == steps, "not every update was reflected");
            self.expect(
                radios == (steps + 4) / 5,
                "not every radio call was received",
            );
            let acquired = self.state.acquired;
            self.expect(acquired, "Velocity was not acquired");
        }
        self.rti
            .resign_federation_execution(ResignAction::CancelThenDeleteThenDivest)?;
        match self.rti.destroy_federation_execution() {
            Ok(())
            | Err(RtiError::FederatesCurrentlyJoined(_))
            | Err(RtiError::FederationExecutionDoesNotExist(_)) => Ok(()),
            Err(e) => Err(e.into()),
        }
    }
}

fn main() {
    let outcome = settings().map_err(Into::into).and_then(Tutorial::run);
    std::process::exit(match outcome {
        Ok(0) => 0,
        Ok(_) => 1,
        Err(e) => {
            eprintln!("tutorial: {e}");
            1
        }
    });
}
