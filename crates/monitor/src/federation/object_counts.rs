//! The federation's objects per class as the view reads them from the MOM: each member's
//! `HLAreportObjectInstancesThatCanBeDeleted` (per registered class, the instances whose
//! privilege to delete it holds), summed. Every instance has at most one such owner, so the
//! sum counts the federation's instances per class (one whose privilege no one holds,
//! divested and not acquired, is not counted).

use super::view::ClassCount;
use std::collections::BTreeMap;
use trellis_core::federate::mom::{decode, encode};
use trellis_core::fom::{InteractionClassHandle, ObjectModel, ParameterHandle};
use trellis_net::rti::{RtiAmbassador, RtiError};

pub struct ObjectCountsQuery {
    request: InteractionClassHandle,
    request_federate: ParameterHandle,
    report: InteractionClassHandle,
    report_federate: ParameterHandle,
    report_counts: ParameterHandle,
    /// Each member's latest counts: (class handle, instances).
    counts: BTreeMap<u32, Vec<(u64, i32)>>,
}

impl ObjectCountsQuery {
    /// `None` when the federation's MIM lacks the classes (not the standard MIM).
    pub fn find(model: &ObjectModel) -> Option<ObjectCountsQuery> {
        let class =
            |name: &str| model.find_interaction_class(&format!("HLAmanager.HLAfederate.{name}"));
        let request = class("HLArequest.HLArequestObjectInstancesThatCanBeDeleted")?;
        let report = class("HLAreport.HLAreportObjectInstancesThatCanBeDeleted")?;
        Some(ObjectCountsQuery {
            request,
            request_federate: model.find_parameter(request, "HLAfederate")?,
            report,
            report_federate: model.find_parameter(report, "HLAfederate")?,
            report_counts: model.find_parameter(report, "HLAobjectInstanceCounts")?,
            counts: BTreeMap::new(),
        })
    }

    /// Publish the request and subscribe to the report.
    pub fn declare(&self, rti: &mut RtiAmbassador) -> Result<(), RtiError> {
        rti.publish_interaction_class(self.request)?;
        rti.subscribe_interaction_class(self.report)
    }

    /// Ask `member` for its counts.
    pub fn ask(&self, rti: &mut RtiAmbassador, member: u32) -> Result<(), RtiError> {
        let target = encode::handle(u64::from(member));
        rti.send_interaction(self.request, &[(self.request_federate, target)], b"")
    }

    /// Take a report; false when `class` is not one. One that does not decode is logged
    /// and left out.
    pub fn on_interaction(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, impl AsRef<[u8]>)],
    ) -> bool {
        if class != self.report {
            return false;
        }
        let value = |p: ParameterHandle| {
            (parameters.iter().find(|(h, _)| *h == p)).map(|(_, v)| v.as_ref())
        };
        let member = value(self.report_federate).map(decode::handle);
        let counts = value(self.report_counts).map(decode::handle_int32_list);
        match (member, counts) {
            (Some(Ok(member)), Some(Ok(counts))) => {
                if let Ok(member) = u32::try_from(member) {
                    self.counts.insert(member, counts);
                }
            }
            other => tracing::warn!(
                "HLAreportObjectInstancesThatCanBeDeleted without a readable federate and counts: {other:?}"
            ),
        }
        true
    }

    /// Whether `member` has reported.
    pub fn has(&self, member: u32) -> bool {
        self.counts.contains_key(&member)
    }

    /// Forget a member that left.
    pub fn forget(&mut self, member: u32) {
        self.counts.remove(&member);
    }

    /// The instances per class over `members`, by class name, classes without instances
    /// left out.
    pub fn report(
        &self,
        model: &ObjectModel,
        members: impl Iterator<Item = u32>,
    ) -> Vec<ClassCount> {
        let mut per_class: BTreeMap<u64, u64> = BTreeMap::new();
        for member in members {
            for &(class, count) in self.counts.get(&member).into_iter().flatten() {
                *per_class.entry(class).or_default() += u64::try_from(count).unwrap_or(0);
            }
        }
        (per_class.into_iter())
            .filter(|(_, objects)| *objects > 0)
            .map(|(class, objects)| ClassCount {
                class: u32::try_from(class)
                    .ok()
                    .and_then(|c| model.object_class_checked(c))
                    .map(|c| &model.object_class(c).qualified_name)
                    .map_or_else(
                        || format!("class {class}"),
                        |q| q.strip_prefix("HLAobjectRoot.").unwrap_or(q).to_owned(),
                    ),
                objects,
            })
            .collect()
    }
}
