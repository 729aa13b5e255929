//! The `HLAmanager.HLAfederation` requests about the whole federation, answered by the
//! member that speaks for the federation (the lowest handle, see the module above):
//! `HLArequestSynchronizationPoints` and `HLArequestSynchronizationPointStatus`, and
//! `HLArequestFOMmoduleData` and `HLArequestMIMdata` (`module_data`).
//!
//! Who has achieved a point only the registry knows (members hear of announcements and of
//! synchronizations, not of each other's achievements), so the speaker asks the registry
//! (`Request::SyncPoints`, whose `members` flag says which report the answer is for) and
//! reports when the answer comes. The standard MIM's
//! HLArequestSynchronizationPointStatus names no point, so it is answered with one
//! HLAreportSynchronizationPointStatus per pending point (none when none is pending).

use super::{encode, Federate};
use crate::federate::Action;
use crate::fom::{InteractionClassHandle, ObjectModel};
use crate::registry::{Request, Response, SyncPointStatus};

/// HLAsynchPointStatus (the MIM's enumeration) of a member that has not achieved the point.
const MOVING_TO_SYNCH_POINT: i32 = 2;
/// HLAsynchPointStatus of a member that achieved it and waits for the others.
const WAITING_FOR_REST_OF_FEDERATION: i32 = 3;

/// A federation-level request the speaker answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FederationRequest {
    Sync(SyncQuestion),
    FomModuleData,
    MimData,
}

/// The federation-level request classes the MIM has, looked up once.
pub(super) struct FederationRequests(Vec<(InteractionClassHandle, FederationRequest)>);

impl FederationRequests {
    pub(super) fn find(model: &ObjectModel) -> FederationRequests {
        let requests = [
            (
                "HLArequestSynchronizationPoints",
                FederationRequest::Sync(SyncQuestion::Points),
            ),
            (
                "HLArequestSynchronizationPointStatus",
                FederationRequest::Sync(SyncQuestion::Status),
            ),
            ("HLArequestFOMmoduleData", FederationRequest::FomModuleData),
            ("HLArequestMIMdata", FederationRequest::MimData),
        ];
        let found = requests.into_iter().filter_map(|(name, request)| {
            let qualified = format!("HLAmanager.HLAfederation.HLArequest.{name}");
            Some((model.find_interaction_class(&qualified)?, request))
        });
        FederationRequests(found.collect())
    }

    /// The request classes, which every member listens on (the speaker changes when the
    /// lowest handle leaves).
    pub(super) fn classes(&self) -> impl Iterator<Item = InteractionClassHandle> + '_ {
        self.0.iter().map(|(class, _)| *class)
    }

    fn of(&self, class: InteractionClassHandle) -> Option<FederationRequest> {
        self.0.iter().find(|(c, _)| *c == class).map(|(_, r)| *r)
    }

    /// Whether `class` is one of them.
    pub(super) fn contains(&self, class: InteractionClassHandle) -> bool {
        self.of(class).is_some()
    }
}

/// Which synchronization report a federation-level request asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SyncQuestion {
    /// HLAreportSynchronizationPoints: the labels of the pending points.
    Points,
    /// HLAreportSynchronizationPointStatus: each pending point's members and their status.
    Status,
}

impl SyncQuestion {
    /// The MIM name of the request, for HLAreportMOMexception.
    fn service(self) -> &'static str {
        match self {
            SyncQuestion::Points => "HLArequestSynchronizationPoints",
            SyncQuestion::Status => "HLArequestSynchronizationPointStatus",
        }
    }
}

impl Federate {
    /// A federation-level request of `class` with `values` arrived or was sent here: the
    /// speaker answers it (asking the registry for the synchronization points).
    pub(in crate::federate) fn mom_on_federation_request(
        &mut self,
        class: InteractionClassHandle,
        values: &[(u32, &[u8])],
    ) {
        let Some(mom) = &self.mom else { return };
        let Some(request) = mom.handles.federation_requests.of(class) else {
            return;
        };
        if !self.speaks_for_federation() {
            return;
        }
        let indicator = || {
            let handle = self.model.find_parameter(class, "HLAFOMmoduleIndicator")?;
            let (_, value) = values.iter().find(|(p, _)| *p == handle.0)?;
            encode::read_int32(value)
        };
        match request {
            FederationRequest::Sync(question) => self.ask_sync_points(question),
            FederationRequest::FomModuleData => match indicator() {
                Some(index) => self.report_federation_module_data(index),
                None => self.stats.malformed += 1,
            },
            FederationRequest::MimData => self.report_mim_data(),
        }
    }

    fn ask_sync_points(&mut self, question: SyncQuestion) {
        self.actions.push_back(Action::Ask(Request::SyncPoints {
            federation: self.view.name.clone(),
            members: question == SyncQuestion::Status,
        }));
    }

    /// The registry answered [`Request::SyncPoints`] (`members`: for the status report):
    /// report. An error (no registry) is reported as HLAreportMOMexception naming this
    /// federate.
    pub(in crate::federate) fn on_sync_points_reply(&mut self, members: bool, response: Response) {
        if self.mom.is_none() {
            return;
        }
        let question = if members {
            SyncQuestion::Status
        } else {
            SyncQuestion::Points
        };
        let points = match response {
            Response::SyncPoints(points) => points,
            other => {
                self.stats.registry_refusals += 1;
                let why = match other {
                    Response::Error { message, .. } => message,
                    other => format!("unexpected answer {other:?}"),
                };
                let (handle, service) = (self.handle, question.service());
                return self.report_mom_exception(handle, service, &why, false);
            }
        };
        match question {
            SyncQuestion::Points => self.report_sync_points(&points),
            SyncQuestion::Status => {
                for point in &points {
                    self.report_sync_point_status(point);
                }
            }
        }
    }

    /// HLAreportSynchronizationPoints: HLAsyncPoints, the labels (HLAsynchPointList).
    fn report_sync_points(&mut self, points: &[SyncPointStatus]) {
        let Some((class, [list])) =
            self.federation_report_class("HLAreportSynchronizationPoints", ["HLAsyncPoints"])
        else {
            return;
        };
        let labels = encode::string_list(points.iter().map(|p| p.label.as_str()));
        self.mom_interaction(class, &[(list, labels)], 0);
    }

    /// HLAreportSynchronizationPointStatus of one point: HLAsyncPointName and
    /// HLAsyncPointFederates (HLAsynchPointFederateList).
    fn report_sync_point_status(&mut self, point: &SyncPointStatus) {
        let parameters = ["HLAsyncPointName", "HLAsyncPointFederates"];
        let Some((class, [name, federates])) =
            self.federation_report_class("HLAreportSynchronizationPointStatus", parameters)
        else {
            return;
        };
        let members = point.members.iter().map(|&(handle, achieved)| {
            let status = if achieved {
                WAITING_FOR_REST_OF_FEDERATION
            } else {
                MOVING_TO_SYNCH_POINT
            };
            (u64::from(handle), status)
        });
        let values = [
            (name, encode::unicode_string(&point.label)),
            (federates, encode::handle_int32_list(members)),
        ];
        self.mom_interaction(class, &values, 0);
    }
}
