//! The federation's pending synchronization points as the view reads them from the MOM:
//! `HLArequestSynchronizationPoints` for the labels, `HLArequestSynchronizationPointStatus`
//! for each point's members and whether they achieved it (one report per point), both
//! answered by the member that speaks for the federation.

use super::view::SyncPointReport;
use std::collections::BTreeMap;
use trellis_core::federate::mom::decode;
use trellis_core::fom::{InteractionClassHandle, ObjectModel, ParameterHandle};
use trellis_net::rti::{RtiAmbassador, RtiError};

/// HLAsynchPointStatus of a member that achieved the point (WaitingForRestOfFederation).
const WAITING_FOR_REST_OF_FEDERATION: i32 = 3;

pub struct SyncPointsQuery {
    request_points: InteractionClassHandle,
    request_status: InteractionClassHandle,
    points: InteractionClassHandle,
    point_list: ParameterHandle,
    status: InteractionClassHandle,
    point_name: ParameterHandle,
    point_federates: ParameterHandle,
    /// The labels of the latest HLAreportSynchronizationPoints; `None` before one came.
    labels: Option<Vec<String>>,
    /// Each point's latest (federate, HLAsynchPointStatus) list, by label.
    members: BTreeMap<String, Vec<(u64, i32)>>,
}

impl SyncPointsQuery {
    /// `None` when the federation's MIM lacks the classes (not the standard MIM).
    pub fn find(model: &ObjectModel) -> Option<SyncPointsQuery> {
        let class =
            |name: &str| model.find_interaction_class(&format!("HLAmanager.HLAfederation.{name}"));
        let points = class("HLAreport.HLAreportSynchronizationPoints")?;
        let status = class("HLAreport.HLAreportSynchronizationPointStatus")?;
        Some(SyncPointsQuery {
            request_points: class("HLArequest.HLArequestSynchronizationPoints")?,
            request_status: class("HLArequest.HLArequestSynchronizationPointStatus")?,
            points,
            point_list: model.find_parameter(points, "HLAsyncPoints")?,
            status,
            point_name: model.find_parameter(status, "HLAsyncPointName")?,
            point_federates: model.find_parameter(status, "HLAsyncPointFederates")?,
            labels: None,
            members: BTreeMap::new(),
        })
    }

    /// Publish the requests and subscribe to the reports.
    pub fn declare(&self, rti: &mut RtiAmbassador) -> Result<(), RtiError> {
        for request in [self.request_points, self.request_status] {
            rti.publish_interaction_class(request)?;
        }
        for report in [self.points, self.status] {
            rti.subscribe_interaction_class(report)?;
        }
        Ok(())
    }

    /// Ask for the labels and every point's members.
    pub fn ask(&self, rti: &mut RtiAmbassador) -> Result<(), RtiError> {
        let none: [(ParameterHandle, &[u8]); 0] = [];
        rti.send_interaction(self.request_points, &none, b"")?;
        rti.send_interaction(self.request_status, &none, b"")
    }

    /// Take a report; false when `class` is not one. One that does not decode is logged
    /// and left out.
    pub fn on_interaction(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, impl AsRef<[u8]>)],
    ) -> bool {
        let value = |p: ParameterHandle| {
            (parameters.iter().find(|(h, _)| *h == p)).map(|(_, v)| v.as_ref())
        };
        if class == self.points {
            match value(self.point_list).map(decode::string_list) {
                Some(Ok(labels)) => {
                    self.members.retain(|label, _| labels.contains(label));
                    self.labels = Some(labels);
                }
                other => tracing::warn!(
                    "HLAreportSynchronizationPoints without a readable HLAsyncPoints: {other:?}"
                ),
            }
            return true;
        }
        if class != self.status {
            return false;
        }
        let name = value(self.point_name).map(decode::unicode_string);
        let federates = value(self.point_federates).map(decode::handle_int32_list);
        match (name, federates) {
            (Some(Ok(name)), Some(Ok(federates))) => {
                self.members.insert(name, federates);
            }
            other => tracing::warn!(
                "HLAreportSynchronizationPointStatus without a readable name and list: {other:?}"
            ),
        }
        true
    }

    /// Whether the labels are in and every labelled point's members too.
    pub fn complete(&self) -> bool {
        (self.labels.as_ref()).is_some_and(|l| l.iter().all(|l| self.members.contains_key(l)))
    }

    /// The points as the view shows them, leaving the view (`own`) out; `None` before the
    /// labels came.
    pub fn report(&self, own: u32) -> Option<Vec<SyncPointReport>> {
        let labels = self.labels.as_ref()?;
        let point = |label: &String| {
            let members = self
                .members
                .get(label)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let others = members.iter().filter(|(h, _)| *h != u64::from(own));
            let (achieved, waiting_for): (Vec<_>, Vec<_>) =
                others.partition(|(_, status)| *status == WAITING_FOR_REST_OF_FEDERATION);
            let handles = |list: Vec<&(u64, i32)>| {
                list.into_iter()
                    .filter_map(|(h, _)| u32::try_from(*h).ok())
                    .collect()
            };
            SyncPointReport {
                label: label.clone(),
                achieved: handles(achieved),
                waiting_for: handles(waiting_for),
            }
        };
        Some(labels.iter().map(point).collect())
    }
}
