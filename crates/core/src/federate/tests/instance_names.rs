//! getObjectInstanceHandle and getObjectInstanceName (IEEE 1516.1-2010 §10.9, §10.10): the
//! federate finds the instances it registered or discovered by name and names them, with
//! given names and the RTI's default ones (`HLAobject_F_N`); an instance it no longer knows
//! is not found. These lived in the C ABI only, so a Rust federate could not look names up.

use super::*;

#[test]
fn registered_and_discovered_instances_are_found_by_name_both_ways() {
    let mut w = World::new(32, 2);
    let (vehicle, _, _) = vehicles_published_and_subscribed(&mut w);
    w.feds[0].name_reserved("Tank-1");
    let tank = (w.feds[0].register_object_instance(vehicle, Some("Tank-1"), 0)).unwrap();
    let car = (w.feds[0].register_object_instance(vehicle, None, 0)).unwrap();
    w.pump();
    assert_eq!(w.callbacks(1).len(), 2, "both discovered");
    let car_name = format!("HLAobject_{}_{}", car.federate(), car.number());
    for fed in &w.feds {
        assert_eq!(fed.object_instance_handle("Tank-1").unwrap(), tank);
        assert_eq!(
            fed.object_instance_name(tank).unwrap().to_string(),
            "Tank-1"
        );
        assert_eq!(fed.object_instance_handle(&car_name).unwrap(), car);
        assert_eq!(fed.object_instance_name(car).unwrap().to_string(), car_name);
        // A default name answers only for the instance that has it.
        let tank_default = format!("HLAobject_{}_{}", tank.federate(), tank.number());
        assert!(matches!(
            fed.object_instance_handle(&tank_default),
            Err(FederateError::ObjectInstanceNameNotKnown(n)) if n == tank_default
        ));
        assert!(fed.object_instance_handle("Tank-2").is_err());
    }
    w.feds[0].delete_object_instance(tank, b"", 0).unwrap();
    w.pump();
    for fed in &w.feds {
        assert!(matches!(
            fed.object_instance_handle("Tank-1"),
            Err(FederateError::ObjectInstanceNameNotKnown(_))
        ));
        assert!(matches!(
            fed.object_instance_name(tank),
            Err(FederateError::ObjectInstanceNotKnown(o)) if o == tank
        ));
    }
    w.feds[1].local_delete_object_instance(car).unwrap();
    assert!(w.feds[1].object_instance_handle(&car_name).is_err());
    assert_eq!(w.feds[0].object_instance_handle(&car_name).unwrap(), car);
}
