//! The `HLAmanager.HLAfederate` interactions a federate's MOM answers when they name it
//! (their HLAfederate parameter): `HLAadjust` (HLAsetTiming, HLAsetSwitches, and the
//! reporting switches [`invocations`](super::invocations) acts on) and
//! `HLArequest` (publications, subscriptions, and the counts and instance information that
//! [`reports`](super::reports) gives) with the matching `HLAreport`, and `HLAservice`
//! ([`service`](super::service)). Every subclass is also delivered to its subscribers as
//! any interaction.

use super::reports::CountsReport;
use super::service::Service;
use super::{decode, encode, report_period_nanos, Federate};
use crate::federate::Action;
use crate::fom::{InteractionClassHandle, ParameterHandle};
use crate::registry::Request;
use bytes::Bytes;

/// The HLAservice interaction the sending federate's MOM carries out through the registry.
const RESIGN_SERVICE: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAservice.HLAresignFederationExecution";

/// What a control interaction asks of the MOM it names.
enum Control {
    SetTiming,
    SetSwitches,
    SetServiceReporting,
    SetExceptionReporting,
    RequestPublications,
    RequestSubscriptions,
    RequestDeletable,
    RequestCounts(CountsReport),
    RequestInstanceInformation,
    RequestFomModuleData,
}

impl Control {
    fn of(qualified_name: &str) -> Option<Control> {
        let name = qualified_name.strip_prefix("HLAinteractionRoot.HLAmanager.HLAfederate.")?;
        Some(match name {
            "HLAadjust.HLAsetTiming" => Control::SetTiming,
            "HLAadjust.HLAsetSwitches" => Control::SetSwitches,
            "HLAadjust.HLAsetServiceReporting" => Control::SetServiceReporting,
            "HLAadjust.HLAsetExceptionReporting" => Control::SetExceptionReporting,
            "HLArequest.HLArequestPublications" => Control::RequestPublications,
            "HLArequest.HLArequestSubscriptions" => Control::RequestSubscriptions,
            "HLArequest.HLArequestObjectInstancesThatCanBeDeleted" => Control::RequestDeletable,
            "HLArequest.HLArequestUpdatesSent" => Control::RequestCounts(CountsReport::UpdatesSent),
            "HLArequest.HLArequestReflectionsReceived" => {
                Control::RequestCounts(CountsReport::ReflectionsReceived)
            }
            "HLArequest.HLArequestInteractionsSent" => {
                Control::RequestCounts(CountsReport::InteractionsSent)
            }
            "HLArequest.HLArequestInteractionsReceived" => {
                Control::RequestCounts(CountsReport::InteractionsReceived)
            }
            "HLArequest.HLArequestObjectInstanceInformation" => Control::RequestInstanceInformation,
            "HLArequest.HLArequestFOMmoduleData" => Control::RequestFomModuleData,
            _ => return None,
        })
    }
}

impl Federate {
    /// An interaction of `class` arrived (or was sent here): if it is a control interaction
    /// naming this federate, act on it. Malformed ones are counted and ignored.
    pub(in crate::federate) fn mom_on_interaction(
        &mut self,
        class: InteractionClassHandle,
        values: &[(u32, Bytes)],
    ) {
        let Some(mom) = &self.mom else { return };
        if !self
            .model
            .is_interaction_subclass(class, mom.handles.manager_federate)
        {
            if mom.handles.federation_requests.contains(class) {
                let borrowed: Vec<(u32, &[u8])> =
                    values.iter().map(|(p, v)| (*p, v.as_ref())).collect();
                self.mom_on_federation_request(class, &borrowed);
            }
            return;
        }
        let federate = mom.handles.federate_parameter.0;
        let addressed =
            (values.iter().find(|(p, _)| *p == federate)).and_then(|(_, v)| encode::read_handle(v));
        if addressed != Some(u64::from(self.handle)) {
            return;
        }
        let qualified_name = &self.model.interaction_class(class).qualified_name;
        let Some(control) = Control::of(qualified_name) else {
            if let Some((service, name)) = Service::of(qualified_name) {
                let name = name.to_owned();
                self.mom_service(service, &name, class, values);
            }
            return;
        };
        if self.apply_control(control, class, values).is_none() {
            self.stats.malformed += 1;
        }
    }

    /// Act on a control interaction addressed to this federate; `None` when a parameter is
    /// missing or not of its MIM type.
    fn apply_control(
        &mut self,
        control: Control,
        class: InteractionClassHandle,
        values: &[(u32, Bytes)],
    ) -> Option<()> {
        let parameter = |name: &str| {
            let handle = self.model.find_parameter(class, name)?;
            values
                .iter()
                .find(|(p, _)| *p == handle.0)
                .map(|(_, v)| v.as_ref())
        };
        match control {
            Control::SetTiming => {
                let seconds = parameter("HLAreportPeriod").and_then(encode::read_int32);
                seconds
                    .and_then(report_period_nanos)
                    .map(|p| self.set_report_period(p))
            }
            Control::SetSwitches => {
                let regions =
                    parameter("HLAconveyRegionDesignatorSets").and_then(encode::read_int32);
                let producer = parameter("HLAconveyProducingFederate").and_then(encode::read_int32);
                self.set_mom_switches(regions, producer)
            }
            Control::SetServiceReporting => {
                let on = parameter("HLAreportingState").and_then(|v| decode::boolean(v).ok());
                on.map(|on| {
                    if let Err(why) = self.set_service_reporting(on) {
                        let handle = self.handle;
                        self.report_mom_exception(handle, "HLAsetServiceReporting", why, false);
                    }
                })
            }
            Control::SetExceptionReporting => {
                let on = parameter("HLAreportingState").and_then(|v| decode::boolean(v).ok());
                on.map(|on| self.set_exception_reporting(on))
            }
            Control::RequestPublications => {
                self.report_publications(0);
                Some(())
            }
            Control::RequestSubscriptions => {
                self.report_subscriptions(0);
                Some(())
            }
            Control::RequestDeletable => {
                self.report_deletable_instances(0);
                Some(())
            }
            Control::RequestCounts(which) => {
                self.report_counts(which, 0);
                Some(())
            }
            Control::RequestInstanceInformation => {
                // An unreadable handle is answered as an unknown instance, and counted.
                let object = parameter("HLAobjectInstance").and_then(encode::read_handle);
                self.report_instance_information(object, 0);
                object.map(|_| ())
            }
            Control::RequestFomModuleData => {
                let index = parameter("HLAFOMmoduleIndicator").and_then(encode::read_int32);
                index.map(|index| self.report_fom_module_data(index))
            }
        }
    }

    /// [`Federate::mom_on_interaction`] for one this federate sent: the network does not
    /// loop it back, and a tool may ask its own MOM.
    pub(in crate::federate) fn mom_on_sent_interaction<V: AsRef<[u8]>>(
        &mut self,
        class: InteractionClassHandle,
        parameters: &[(ParameterHandle, V)],
    ) {
        let is_control = (self.mom.as_ref()).is_some_and(|m| {
            self.model
                .is_interaction_subclass(class, m.handles.manager_federate)
        });
        if !is_control {
            let is_federation_request =
                (self.mom.as_ref()).is_some_and(|m| m.handles.federation_requests.contains(class));
            if is_federation_request {
                let borrowed: Vec<(u32, &[u8])> =
                    parameters.iter().map(|(p, v)| (p.0, v.as_ref())).collect();
                self.mom_on_federation_request(class, &borrowed);
            }
            return;
        }
        let values: Vec<(u32, Bytes)> = (parameters.iter())
            .map(|(p, v)| (p.0, Bytes::copy_from_slice(v.as_ref())))
            .collect();
        if self.model.interaction_class(class).qualified_name == RESIGN_SERVICE {
            return self.resign_on_behalf(&values);
        }
        self.mom_on_interaction(class, &values);
    }

    /// HLAservice.HLAresignFederationExecution, sent by this federate as a manager: the
    /// registry resigns the federate it names, whether or not that federate still answers
    /// (a hung one cannot act on the interaction itself). Its objects are left as a died
    /// federate's are (HLAresignAction cannot be carried out without it). A refusal comes
    /// back as HLAreportMOMexception.
    fn resign_on_behalf(&mut self, values: &[(u32, Bytes)]) {
        let Some(mom) = &self.mom else { return };
        let federate = mom.handles.federate_parameter.0;
        let target = (values.iter().find(|(p, _)| *p == federate))
            .and_then(|(_, v)| encode::read_handle(v))
            .and_then(|h| u32::try_from(h).ok());
        let Some(target) = target else {
            self.stats.malformed += 1;
            return;
        };
        self.actions.push_back(Action::Ask(Request::ResignFederate {
            federation: self.view.name.clone(),
            manager: self.handle,
            federate: target,
        }));
    }

    /// The registry refused a service the MOM asked for: HLAreportMOMexception, naming the
    /// federate it was for, the service and why.
    pub(in crate::federate) fn report_mom_exception(
        &mut self,
        federate: u32,
        service: &str,
        why: &str,
        parameter_error: bool,
    ) {
        let parameters = [
            "HLAfederate",
            "HLAservice",
            "HLAexception",
            "HLAparameterError",
        ];
        let Some((class, [target, named, exception, parameter_error_handle])) =
            self.report_class("HLAreportMOMexception", parameters)
        else {
            return;
        };
        let values = [
            (target, encode::handle(u64::from(federate))),
            (named, encode::unicode_string(service)),
            (exception, encode::unicode_string(why)),
            (parameter_error_handle, encode::boolean(parameter_error)),
        ];
        self.mom_interaction(class, &values, 0);
    }

    /// HLAsetTiming: the first periodic update is due at once (the host's next
    /// `handle_mom_timeout`), the next ones every `period`.
    fn set_report_period(&mut self, period: u64) {
        if let Some(mom) = &mut self.mom {
            mom.report_period = period;
            mom.next_report = (period > 0).then_some(0);
        }
    }

    /// HLAsetSwitches: each switch is HLAswitch (1 Enabled, 0 Disabled); a missing one is
    /// left as it is.
    fn set_mom_switches(&mut self, regions: Option<i32>, producer: Option<i32>) -> Option<()> {
        let mom = self.mom.as_mut()?;
        let valid = |v: Option<i32>| v.is_none_or(|v| v == 0 || v == 1);
        if !valid(regions) || !valid(producer) {
            return None;
        }
        if let Some(v) = regions {
            mom.convey_regions = v == 1;
        }
        if let Some(v) = producer {
            mom.convey_producer = v == 1;
        }
        Some(())
    }

    /// The report class `name` (below HLAmanager.HLAfederate.HLAreport) and the handles of
    /// its `parameters`, inherited ones included; `None` if the MIM lacks one.
    pub(super) fn report_class<const N: usize>(
        &self,
        name: &str,
        parameters: [&str; N],
    ) -> Option<(InteractionClassHandle, [u32; N])> {
        self.interaction_with(
            &format!("HLAmanager.HLAfederate.HLAreport.{name}"),
            parameters,
        )
    }

    /// As [`Federate::report_class`], for HLAmanager.HLAfederation.HLAreport.`name`.
    pub(super) fn federation_report_class<const N: usize>(
        &self,
        name: &str,
        parameters: [&str; N],
    ) -> Option<(InteractionClassHandle, [u32; N])> {
        self.interaction_with(
            &format!("HLAmanager.HLAfederation.HLAreport.{name}"),
            parameters,
        )
    }

    /// The interaction class `qualified` and its `parameters`' handles, if the MIM has them all.
    fn interaction_with<const N: usize>(
        &self,
        qualified: &str,
        parameters: [&str; N],
    ) -> Option<(InteractionClassHandle, [u32; N])> {
        let class = self.model.find_interaction_class(qualified)?;
        let mut handles = [0; N];
        for (handle, name) in handles.iter_mut().zip(parameters) {
            *handle = self.model.find_parameter(class, name)?.0;
        }
        Some((class, handles))
    }

    /// HLAreportObjectClassPublication, one per published class (one with no class when
    /// none: the standard's "NULL response"), then HLAreportInteractionPublication.
    fn report_publications(&mut self, time: u64) {
        let me = encode::handle(u64::from(self.handle));
        let parameters = [
            "HLAfederate",
            "HLAnumberOfClasses",
            "HLAobjectClass",
            "HLAattributeList",
        ];
        if let Some((class, [federate, number, object_class, list])) =
            self.report_class("HLAreportObjectClassPublication", parameters)
        {
            let published: Vec<(u64, Vec<u64>)> = (self.published_objects.iter())
                .filter(|(_, attributes)| !attributes.is_empty())
                .map(|(c, attributes)| {
                    (
                        u64::from(c.0),
                        attributes.iter().map(|a| u64::from(a.0)).collect(),
                    )
                })
                .collect();
            let count = encode::count(published.len() as u64);
            if published.is_empty() {
                self.mom_interaction(
                    class,
                    &[(federate, me.clone()), (number, count.clone())],
                    time,
                );
            }
            for (c, attributes) in published {
                let values = [
                    (federate, me.clone()),
                    (number, count.clone()),
                    (object_class, encode::handle(c)),
                    (list, encode::handle_list(attributes)),
                ];
                self.mom_interaction(class, &values, time);
            }
        }
        let parameters = ["HLAfederate", "HLAinteractionClassList"];
        if let Some((class, [federate, list])) =
            self.report_class("HLAreportInteractionPublication", parameters)
        {
            let classes = self.published_interactions.iter().map(|c| u64::from(c.0));
            let values = [(federate, me), (list, encode::handle_list(classes))];
            self.mom_interaction(class, &values, time);
        }
    }

    /// HLAreportObjectClassSubscription, one per subscribed class (a NULL response when
    /// none), then HLAreportInteractionSubscription.
    fn report_subscriptions(&mut self, time: u64) {
        let me = encode::handle(u64::from(self.handle));
        let parameters = [
            "HLAfederate",
            "HLAnumberOfClasses",
            "HLAobjectClass",
            "HLAactive",
            "HLAmaxUpdateRate",
            "HLAattributeList",
        ];
        if let Some((class, [federate, number, object_class, active, rate, list])) =
            self.report_class("HLAreportObjectClassSubscription", parameters)
        {
            let subscribed: Vec<(u64, bool, String, Vec<u64>)> = (self.object_subscriptions.iter())
                .map(|(c, s)| {
                    let rate = self
                        .object_class_update_rate(*c)
                        .map_or(String::new(), |(n, _)| n.to_owned());
                    let attributes = s.attributes.iter().map(|a| u64::from(a.0)).collect();
                    (
                        u64::from(c.0),
                        !self.passive.object_is_passive(*c),
                        rate,
                        attributes,
                    )
                })
                .collect();
            let count = encode::count(subscribed.len() as u64);
            if subscribed.is_empty() {
                self.mom_interaction(
                    class,
                    &[(federate, me.clone()), (number, count.clone())],
                    time,
                );
            }
            for (c, is_active, rate_name, attributes) in subscribed {
                let values = [
                    (federate, me.clone()),
                    (number, count.clone()),
                    (object_class, encode::handle(c)),
                    (active, encode::boolean(is_active)),
                    (rate, encode::unicode_string(&rate_name)),
                    (list, encode::handle_list(attributes)),
                ];
                self.mom_interaction(class, &values, time);
            }
        }
        let parameters = ["HLAfederate", "HLAinteractionClassList"];
        if let Some((class, [federate, list])) =
            self.report_class("HLAreportInteractionSubscription", parameters)
        {
            let classes = (self.interaction_subscriptions.keys())
                .map(|c| (u64::from(c.0), !self.passive.interaction_is_passive(*c)));
            let values = [(federate, me), (list, encode::handle_boolean_list(classes))];
            self.mom_interaction(class, &values, time);
        }
    }
}
