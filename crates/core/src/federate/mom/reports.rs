//! The `HLAreport` interactions that give counts and instance information (IEEE 1516.1-2010
//! §11, the standard MIM's HLAreport classes): instances that can be deleted, instances
//! updated and reflected, updates, reflections and interactions per class and
//! transportation type, and one instance's information. Each goes out as any MOM
//! interaction: only where someone subscribes.

use super::counts::{PerClass, TRANSPORTATION_NAMES};
use super::{encode, Federate, ObjectId};
use crate::fom::AttributeHandle;
use std::collections::BTreeMap;

/// Which per-class counts a report gives, per transportation type.
#[derive(Clone, Copy)]
pub(super) enum CountsReport {
    UpdatesSent,
    ReflectionsReceived,
    InteractionsSent,
    InteractionsReceived,
}

impl CountsReport {
    /// The report class and its counts parameter.
    fn names(self) -> (&'static str, &'static str) {
        match self {
            CountsReport::UpdatesSent => ("HLAreportUpdatesSent", "HLAupdateCounts"),
            CountsReport::ReflectionsReceived => {
                ("HLAreportReflectionsReceived", "HLAreflectCounts")
            }
            CountsReport::InteractionsSent => ("HLAreportInteractionsSent", "HLAinteractionCounts"),
            CountsReport::InteractionsReceived => {
                ("HLAreportInteractionsReceived", "HLAinteractionCounts")
            }
        }
    }
}

impl Federate {
    /// HLAreportObjectInstancesThatCanBeDeleted: per registered class, the instances whose
    /// privilege to delete this federate holds (an empty list when none).
    pub(super) fn report_deletable_instances(&mut self, time: u64) {
        let mut per_class: BTreeMap<u64, u64> = BTreeMap::new();
        for (object, instance) in self.instances.iter() {
            if self.check_delete_privilege(object).is_ok() {
                *per_class.entry(u64::from(instance.class.0)).or_default() += 1;
            }
        }
        let counts = encode::handle_count_list(per_class);
        self.send_instance_counts("HLAreportObjectInstancesThatCanBeDeleted", counts, time);
    }

    /// One report of class `name` carrying HLAfederate and HLAobjectInstanceCounts.
    fn send_instance_counts(&mut self, name: &str, counts: Vec<u8>, time: u64) {
        let parameters = ["HLAfederate", "HLAobjectInstanceCounts"];
        let Some((class, [federate, list])) = self.report_class(name, parameters) else {
            return;
        };
        let values = [
            (federate, encode::handle(u64::from(self.handle))),
            (list, counts),
        ];
        self.mom_interaction(class, &values, time);
    }

    /// HLAreportUpdatesSent and the other per-class counts: one report per transportation
    /// type, its list empty (the standard's NULL response) when nothing went by it.
    pub(super) fn report_counts(&mut self, which: CountsReport, time: u64) {
        let Some(mom) = &self.mom else { return };
        let counts = &mom.counts;
        let per_transport: &[PerClass; 2] = match which {
            CountsReport::UpdatesSent => &counts.updates_sent,
            CountsReport::ReflectionsReceived => &counts.reflections_received,
            CountsReport::InteractionsSent => &counts.interactions_sent,
            CountsReport::InteractionsReceived => &counts.interactions_received,
        };
        let lists: Vec<Vec<u8>> = (per_transport.iter())
            .map(|c| encode::handle_count_list(c.positive()))
            .collect();
        let (name, counts_parameter) = which.names();
        let parameters = ["HLAfederate", "HLAtransportation", counts_parameter];
        let Some((class, [federate, transportation, list])) = self.report_class(name, parameters)
        else {
            return;
        };
        let me = encode::handle(u64::from(self.handle));
        for (transport, counts) in TRANSPORTATION_NAMES.iter().zip(lists) {
            let values = [
                (federate, me.clone()),
                (transportation, encode::unicode_string(transport)),
                (list, counts),
            ];
            self.mom_interaction(class, &values, time);
        }
    }

    /// HLAreportObjectInstanceInformation for `object`: the attributes this federate owns,
    /// the registered class and the class known here. For an instance this federate does
    /// not know (or an unreadable handle): the NULL response, an empty attribute list and
    /// no classes.
    pub(super) fn report_instance_information(&mut self, object: Option<u64>, time: u64) {
        let parameters = [
            "HLAfederate",
            "HLAobjectInstance",
            "HLAownedInstanceAttributeList",
            "HLAregisteredClass",
            "HLAknownClass",
        ];
        let Some((class, [federate, instance, owned, registered, known])) =
            self.report_class("HLAreportObjectInstanceInformation", parameters)
        else {
            return;
        };
        let mut values = vec![(federate, encode::handle(u64::from(self.handle)))];
        if let Some(handle) = object {
            values.push((instance, encode::handle(handle)));
        }
        match object.and_then(|o| self.instance_information(ObjectId(o))) {
            Some((attributes, registered_class, known_class)) => {
                values.push((owned, encode::handle_list(attributes)));
                values.push((registered, encode::handle(registered_class)));
                values.push((known, encode::handle(known_class)));
            }
            None => values.push((owned, encode::handle_list([]))),
        }
        self.mom_interaction(class, &values, time);
    }

    /// The attributes of `object` this federate owns, its registered class and its known
    /// class here; `None` unless this federate registered or discovered it.
    fn instance_information(&self, object: ObjectId) -> Option<(Vec<u64>, u64, u64)> {
        let instance = self.instances.get(object)?;
        let registered_here = object.federate() == self.handle;
        let known = match instance.known {
            Some(known) => known,
            None if registered_here => instance.class,
            None => return None,
        };
        let owned = (self.model.available_attributes(instance.class).iter())
            .filter(|&&a| self.owns(object, a))
            .map(|&AttributeHandle(a)| u64::from(a))
            .collect();
        Some((owned, u64::from(instance.class.0), u64::from(known.0)))
    }
}
