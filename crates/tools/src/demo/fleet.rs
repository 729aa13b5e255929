//! One vehicle simulator's vehicles: registered, moved on circles, and their radio call,
//! sent in receive order or time-stamped.

use super::{encode_position, DemoError};
use trellis_core::federate::{LogicalTime, ObjectId, Range, Region};
use trellis_core::fom::{
    AttributeHandle, DimensionHandle, InteractionClassHandle, ParameterHandle,
};
use trellis_net::rti::{RtiAmbassador, SendOptions};

pub(super) struct Fleet {
    kind: String,
    vehicles: Vec<ObjectId>,
    position: AttributeHandle,
    x: DimensionHandle,
    y: DimensionHandle,
    radio: InteractionClassHandle,
    text: ParameterHandle,
}

impl Fleet {
    /// Publish and register `count` vehicles of the simulator `kind`, each with its name.
    pub(super) fn register(
        rti: &mut RtiAmbassador,
        kind: &str,
        count: usize,
    ) -> Result<Fleet, DemoError> {
        let class_name = if kind == "ground-sim" {
            "GroundVehicle"
        } else {
            "Aircraft"
        };
        let class = rti.object_class_handle(class_name)?;
        let name = rti.attribute_handle(class, "Name")?;
        let position = rti.attribute_handle(class, "Position")?;
        let radio = rti.interaction_class_handle("Radio")?;
        let text = rti.parameter_handle(radio, "Text")?;
        rti.publish_object_class_attributes(class, &[name, position])?;
        rti.publish_interaction_class(radio)?;
        let mut vehicles = Vec::new();
        for i in 0..count {
            let label = format!("{class_name}-{i}");
            rti.reserve_object_instance_name(&label)?;
            let object = rti.register_object_instance_with_name(class, &label)?;
            rti.update_attribute_values(object, &[(name, label.as_bytes())], b"")?;
            vehicles.push(object);
        }
        Ok(Fleet {
            kind: kind.to_owned(),
            vehicles,
            position,
            x: rti.dimension_handle("X")?,
            y: rti.dimension_handle("Y")?,
            radio,
            text,
        })
    }

    /// Every vehicle's position `seconds` into the drive, with its position as update
    /// region; time-stamped at `stamp` if given.
    pub(super) fn move_to(
        &self,
        rti: &mut RtiAmbassador,
        seconds: f64,
        stamp: Option<LogicalTime>,
    ) -> Result<(), DemoError> {
        for (i, &object) in self.vehicles.iter().enumerate() {
            let (px, py) = position(i, seconds);
            // Aircraft fly the mirror image of the ground vehicles' circles, so the plan
            // view shows them apart.
            let px = if self.kind == "ground-sim" {
                px
            } else {
                999 - px
            };
            let region = Region::new()
                .with(self.x.0, Range::new(px, px + 1))
                .with(self.y.0, Range::new(py, py + 1));
            let value = [(self.position, encode_position(px, py))];
            match stamp {
                Some(time) => {
                    // The demo never retracts: the handle is not kept.
                    rti.update_attribute_values_at(object, &value, b"", time, Some(&region))?;
                }
                None => {
                    let options = SendOptions {
                        region: Some(&region),
                        ..Default::default()
                    };
                    rti.update_attribute_values_with(object, &value, b"", &options)?
                }
            }
        }
        Ok(())
    }

    /// The simulator's radio call; time-stamped at `stamp` if given.
    pub(super) fn radio(
        &self,
        rti: &mut RtiAmbassador,
        stamp: Option<LogicalTime>,
    ) -> Result<(), DemoError> {
        let call = format!(
            "{}: all {} vehicles report in",
            self.kind,
            self.vehicles.len()
        );
        let parameters = [(self.text, call.as_bytes())];
        match stamp {
            Some(time) => {
                rti.send_interaction_at(self.radio, &parameters, b"", time, None)?;
            }
            None => rti.send_interaction(self.radio, &parameters, b"")?,
        }
        Ok(())
    }
}

/// Vehicle `i` drives a circle of its own around one of four centres, some crossing the
/// watcher's quarter.
fn position(i: usize, seconds: f64) -> (u64, u64) {
    let phase = seconds * (0.3 + 0.1 * i as f64) + i as f64;
    let cx = 250.0 + 500.0 * ((i % 2) as f64);
    let cy = 250.0 + 500.0 * (((i / 2) % 2) as f64);
    let px = (cx + 200.0 * phase.cos()).clamp(0.0, 999.0) as u64;
    let py = (cy + 200.0 * phase.sin()).clamp(0.0, 999.0) as u64;
    (px, py)
}
