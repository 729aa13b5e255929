//! `trellis.RtiAmbassador`: one federate's connection (IEEE 1516.1-2010 §4.2 connect) and
//! every service of the joined federate, by the object model's names. Python's `Federate`
//! (trellis/federate.py) subclasses it with callback dispatch and event iteration.
//!
//! Calls that wait for the network (connect, federation management, evoke) release the GIL.
//! Threads may share an ambassador: a service called while another thread evokes breaks
//! that wait and is served first (`SharedSession`).

use crate::errors::{raise, IntoPyResult};
use crate::events::Context;
use crate::model::{encoder_error, PyObjectModel};
use crate::times::{interval_from_py, interval_to_py, time_from_py, time_to_py};
use crate::values;
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes, PyDict, PyMemoryView};
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::federate::{
    AdvanceKind, LogicalTime, MessageRetractionHandle, ObjectId, Range, RegionHandle, ResignAction,
    TimeRepresentation,
};
use trellis_core::fom::{
    AttributeHandle, InteractionClassHandle, ObjectClassHandle, ObjectModel, ParameterHandle,
};
use trellis_net::rti::{LocalSettings, RtiAmbassador, Session, SessionGuard, SharedSession};

#[pyclass(name = "RtiAmbassador", module = "trellis", subclass)]
pub struct PyRtiAmbassador {
    /// Shared by the Python threads of one federate: a thread that evokes in a loop while
    /// another calls services (a service breaks the evoke's wait and runs first).
    shared: SharedSession<Federate>,
    /// Decode reflected and received values by their data types.
    decode: bool,
}

/// What the ambassador's calls change, behind the session's lock.
struct Federate {
    session: Session,
    /// The model and time of the federation last joined: callbacks that come after the
    /// membership ended (connectionLost) still name their classes.
    last_context: Option<(Arc<ObjectModel>, TimeRepresentation)>,
}

/// Raw bytes given for a value: sent as they are, already encoded.
fn raw_bytes(value: &Bound<'_, PyAny>) -> Option<Vec<u8>> {
    if let Ok(b) = value.cast::<PyBytes>() {
        return Some(b.as_bytes().to_vec());
    }
    if value.is_instance_of::<PyByteArray>() || value.is_instance_of::<PyMemoryView>() {
        return value
            .call_method0("tobytes")
            .or_else(|_| value.call_method0("__bytes__"))
            .ok()?
            .extract()
            .ok();
    }
    None
}

/// Each value encoded by the data type `data_type` gives its handle (bytes as given); a
/// mismatch names the member (`what` `name` of `owner`), the type and the field.
fn encode_named<'m, H: Copy>(
    model: &'m ObjectModel,
    what: &str,
    owner: &str,
    named: Vec<(H, String, Bound<'_, PyAny>)>,
    data_type: impl Fn(H) -> &'m str,
) -> PyResult<Vec<(H, Vec<u8>)>> {
    (named.into_iter())
        .map(|(handle, name, value)| {
            let bytes = match raw_bytes(&value) {
                Some(bytes) => bytes,
                None => values::encode(model.data_types(), data_type(handle), &value).map_err(
                    |values::Mismatch(m)| {
                        encoder_error(values::Mismatch(format!("{what} {name} of {owner}: {m}")))
                    },
                )?,
            };
            Ok((handle, bytes))
        })
        .collect()
}

fn resign_action(name: &str) -> PyResult<ResignAction> {
    Ok(match name {
        "unconditionally_divest_attributes" => ResignAction::UnconditionallyDivestAttributes,
        "delete_objects" => ResignAction::DeleteObjects,
        "cancel_pending_ownership_acquisitions" => ResignAction::CancelPendingOwnershipAcquisitions,
        "delete_objects_then_divest" => ResignAction::DeleteObjectsThenDivest,
        "cancel_then_delete_then_divest" => ResignAction::CancelThenDeleteThenDivest,
        "no_action" => ResignAction::NoAction,
        other => return Err(raise("InvalidResignAction", format!("resign action {other:?}: one of unconditionally_divest_attributes, delete_objects, cancel_pending_ownership_acquisitions, delete_objects_then_divest, cancel_then_delete_then_divest, no_action"))),
    })
}

impl PyRtiAmbassador {
    /// The session, for one call. A thread may hold it with the GIL released (an evoke's
    /// wait; a call's network wait, which needs the GIL back before it lets the session go):
    /// so a thread holding the GIL never blocks on it. Free, it is taken at once; else the
    /// GIL is released while this call waits (`lock` breaks an evoke's wait, and lets this
    /// call in first).
    fn federate(&self, py: Python<'_>) -> SessionGuard<'_, Federate> {
        if let Some(held) = self.shared.try_lock() {
            return held;
        }
        py.detach(|| self.shared.lock())
    }
}

/// An evoke's deadline, `wait` from `now`: one past what the clock counts is a century
/// away (as good as never).
fn deadline(now: Instant, wait: Duration) -> Instant {
    const CENTURY: Duration = Duration::from_secs(100 * 365 * 24 * 60 * 60);
    (now.checked_add(wait))
        .or_else(|| now.checked_add(CENTURY))
        .unwrap_or(now)
}

impl Federate {
    fn rti(&mut self) -> PyResult<&mut RtiAmbassador> {
        self.session.joined().py()
    }

    fn model(&mut self) -> PyResult<Arc<ObjectModel>> {
        Ok(self.rti()?.federate().py()?.model().clone())
    }

    fn times(&mut self) -> PyResult<TimeRepresentation> {
        Ok(self.rti()?.federate().py()?.time_representation())
    }

    fn object_class(&mut self, name: &str) -> PyResult<ObjectClassHandle> {
        self.rti()?.object_class_handle(name).py()
    }

    fn interaction_class(&mut self, name: &str) -> PyResult<InteractionClassHandle> {
        self.rti()?.interaction_class_handle(name).py()
    }

    fn attributes(
        &mut self,
        class: ObjectClassHandle,
        names: &[String],
    ) -> PyResult<Vec<AttributeHandle>> {
        let rti = self.rti()?;
        names
            .iter()
            .map(|n| rti.attribute_handle(class, n).py())
            .collect()
    }

    fn known_class(&mut self, object: u64) -> PyResult<ObjectClassHandle> {
        self.rti()?
            .federate()
            .py()?
            .known_object_class(ObjectId(object))
            .ok_or_else(|| {
                raise(
                    "ObjectInstanceNotKnown",
                    format!("object instance {object} is not known to this federate"),
                )
            })
    }

    /// Attribute values by name, encoded by their declared data types (bytes as given).
    fn encode_attributes(
        &mut self,
        class: ObjectClassHandle,
        values: &Bound<'_, PyDict>,
    ) -> PyResult<Vec<(AttributeHandle, Vec<u8>)>> {
        let model = self.model()?;
        let owner = format!("object class {}", model.object_class(class).name);
        let mut named = Vec::with_capacity(values.len());
        for (key, value) in values.iter() {
            let name: String = key.extract()?;
            let handle = self.rti()?.attribute_handle(class, &name).py()?;
            named.push((handle, name, value));
        }
        let data_type = |h: AttributeHandle| model.attribute(h).data_type.as_str();
        encode_named(&model, "attribute", &owner, named, data_type)
    }

    /// Parameter values by name, encoded by their declared data types (bytes as given).
    fn encode_parameters(
        &mut self,
        class: InteractionClassHandle,
        values: &Bound<'_, PyDict>,
    ) -> PyResult<Vec<(ParameterHandle, Vec<u8>)>> {
        let model = self.model()?;
        let owner = format!("interaction class {}", model.interaction_class(class).name);
        let mut named = Vec::with_capacity(values.len());
        for (key, value) in values.iter() {
            let name: String = key.extract()?;
            let handle = self.rti()?.parameter_handle(class, &name).py()?;
            named.push((handle, name, value));
        }
        let data_type = |h: ParameterHandle| model.parameter(h).data_type.as_str();
        encode_named(&model, "parameter", &owner, named, data_type)
    }

    fn time_arg(&mut self, time: &Bound<'_, PyAny>) -> PyResult<LogicalTime> {
        let times = self.times()?;
        time_from_py(times, time)
    }

    fn advance(&mut self, kind: AdvanceKind, time: &Bound<'_, PyAny>) -> PyResult<()> {
        let time = self.time_arg(time)?;
        self.rti()?.request_time_advance(kind, time).py()
    }

    /// What events are made with: the joined federate's model and time, or the last ones.
    fn callback_context(&mut self) -> PyResult<(Arc<ObjectModel>, TimeRepresentation)> {
        if let Ok(rti) = self.session.joined() {
            if let Ok(federate) = rti.federate() {
                self.last_context =
                    Some((federate.model().clone(), federate.time_representation()));
            }
        }
        if self.last_context.is_none() {
            let mim_only = ObjectModel::from_sources(&[])
                .map_err(|e| raise("RTIinternalError", e.to_string()))?;
            self.last_context = Some((Arc::new(mim_only), TimeRepresentation::Integer64));
        }
        self.last_context
            .clone()
            .ok_or_else(|| raise("RTIinternalError", "no object model"))
    }

    fn object_attributes(
        &mut self,
        object: u64,
        attributes: &[String],
    ) -> PyResult<(ObjectId, Vec<AttributeHandle>)> {
        let class = self.known_class(object)?;
        Ok((ObjectId(object), self.attributes(class, attributes)?))
    }
}

#[pymethods]
impl PyRtiAmbassador {
    /// connect: `address` is the local settings designator (`tcp://HOST:PORT`,
    /// `HOST:PORT`, `rti://HOST`); None: `$TRELLIS_RTI_ADDRESS`, else tcp://127.0.0.1:7000.
    #[new]
    #[pyo3(signature = (address = None, *, decode = true))]
    fn new(py: Python<'_>, address: Option<String>, decode: bool) -> PyResult<Self> {
        let session = py
            .detach(|| LocalSettings::parse(address.as_deref()).and_then(Session::connect))
            .py()?;
        let evoke_breaker = session.evoke_breaker();
        let federate = Federate {
            session,
            last_context: None,
        };
        Ok(PyRtiAmbassador {
            shared: SharedSession::new(federate, evoke_breaker),
            decode,
        })
    }

    fn disconnect(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.session.disconnect().py()
    }

    /// Resign (by the automatic resign directive) if joined, and disconnect.
    fn close(&self, py: Python<'_>) {
        let mut fed = self.federate(py);
        let session = &mut fed.session;
        py.detach(|| session.close());
    }

    #[getter]
    fn joined(&self, py: Python<'_>) -> bool {
        self.federate(py).session.is_joined()
    }

    // ---- federation management ----------------------------------------------------------

    #[pyo3(signature = (federation, fom_modules, time_implementation = None, mim = None))]
    fn create_federation_execution(
        &self,
        py: Python<'_>,
        federation: &str,
        fom_modules: Vec<String>,
        time_implementation: Option<String>,
        mim: Option<String>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let session = &mut fed.session;
        py.detach(|| {
            session.create_federation_execution(
                federation,
                &fom_modules,
                mim.as_deref(),
                time_implementation.as_deref(),
            )
        })
        .py()
    }

    fn destroy_federation_execution(&self, py: Python<'_>, federation: &str) -> PyResult<()> {
        let mut fed = self.federate(py);
        let session = &mut fed.session;
        py.detach(|| session.destroy_federation_execution(federation))
            .py()
    }

    fn list_federation_executions(&self, py: Python<'_>) -> PyResult<Vec<(String, String)>> {
        let mut fed = self.federate(py);
        let session = &mut fed.session;
        py.detach(|| session.list_federation_executions()).py()
    }

    /// Join `federation` as `federate_name` (None: the RTI names it); `fom_modules` are
    /// additional modules, which extend the federation's model. Returns the federate handle.
    #[pyo3(signature = (federate_name, federate_type, federation, fom_modules = Vec::new()))]
    fn join_federation_execution(
        &self,
        py: Python<'_>,
        federate_name: Option<String>,
        federate_type: &str,
        federation: &str,
        fom_modules: Vec<String>,
    ) -> PyResult<u32> {
        let mut fed = self.federate(py);
        let session = &mut fed.session;
        py.detach(|| {
            session.join_federation_execution(
                federate_name.as_deref(),
                federate_type,
                federation,
                &fom_modules,
            )
        })
        .py()
    }

    #[pyo3(signature = (action = "cancel_then_delete_then_divest"))]
    fn resign_federation_execution(&self, py: Python<'_>, action: &str) -> PyResult<()> {
        let action = resign_action(action)?;
        let mut fed = self.federate(py);
        let session = &mut fed.session;
        py.detach(|| session.resign_federation_execution(action))
            .py()
    }

    /// The joined federation's object model.
    #[getter]
    fn object_model(&self, py: Python<'_>) -> PyResult<PyObjectModel> {
        let mut fed = self.federate(py);
        Ok(PyObjectModel {
            model: fed.model()?,
        })
    }

    /// "HLAinteger64Time" or "HLAfloat64Time".
    #[getter]
    fn time_implementation(&self, py: Python<'_>) -> PyResult<&'static str> {
        let mut fed = self.federate(py);
        Ok(fed.times()?.name())
    }

    /// This federate's handle.
    #[getter(federate_handle)]
    fn own_handle(&self, py: Python<'_>) -> PyResult<u32> {
        let mut fed = self.federate(py);
        Ok(fed.rti()?.federate().py()?.handle())
    }

    fn get_federate_handle(&self, py: Python<'_>, name: &str) -> PyResult<u32> {
        let mut fed = self.federate(py);
        fed.rti()?.federate_handle(name).py()
    }

    fn get_federate_name(&self, py: Python<'_>, handle: u32) -> PyResult<String> {
        let mut fed = self.federate(py);
        fed.rti()?.federate_name_of(handle).py()
    }

    // ---- declaration management ----------------------------------------------------------

    fn publish_object_class_attributes(
        &self,
        py: Python<'_>,
        object_class: &str,
        attributes: Vec<String>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.object_class(object_class)?;
        let attributes = fed.attributes(class, &attributes)?;
        fed.rti()?
            .publish_object_class_attributes(class, &attributes)
            .py()
    }

    fn unpublish_object_class(&self, py: Python<'_>, object_class: &str) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.object_class(object_class)?;
        fed.rti()?.unpublish_object_class(class).py()
    }

    /// Subscribe to attributes of a class; with `regions` (handles from create_region),
    /// only to updates in those regions.
    #[pyo3(signature = (object_class, attributes, regions = None))]
    fn subscribe_object_class_attributes(
        &self,
        py: Python<'_>,
        object_class: &str,
        attributes: Vec<String>,
        regions: Option<Vec<u64>>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.object_class(object_class)?;
        let attributes = fed.attributes(class, &attributes)?;
        match regions {
            None => fed
                .rti()?
                .subscribe_object_class_attributes(class, &attributes)
                .py(),
            Some(regions) => {
                let pairs = [(attributes, regions.into_iter().map(RegionHandle).collect())];
                fed.rti()?
                    .subscribe_object_class_attributes_with_region_handles(class, &pairs)
                    .py()
            }
        }
    }

    fn unsubscribe_object_class(&self, py: Python<'_>, object_class: &str) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.object_class(object_class)?;
        fed.rti()?.unsubscribe_object_class(class).py()
    }

    fn publish_interaction_class(&self, py: Python<'_>, interaction_class: &str) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.interaction_class(interaction_class)?;
        fed.rti()?.publish_interaction_class(class).py()
    }

    fn unpublish_interaction_class(&self, py: Python<'_>, interaction_class: &str) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.interaction_class(interaction_class)?;
        fed.rti()?.unpublish_interaction_class(class).py()
    }

    #[pyo3(signature = (interaction_class, regions = None))]
    fn subscribe_interaction_class(
        &self,
        py: Python<'_>,
        interaction_class: &str,
        regions: Option<Vec<u64>>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.interaction_class(interaction_class)?;
        match regions {
            None => fed.rti()?.subscribe_interaction_class(class).py(),
            Some(regions) => {
                let regions: Vec<RegionHandle> = regions.into_iter().map(RegionHandle).collect();
                fed.rti()?
                    .subscribe_interaction_class_with_region_handles(class, &regions)
                    .py()
            }
        }
    }

    fn unsubscribe_interaction_class(
        &self,
        py: Python<'_>,
        interaction_class: &str,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.interaction_class(interaction_class)?;
        fed.rti()?.unsubscribe_interaction_class(class).py()
    }

    // ---- object management ---------------------------------------------------------------

    fn reserve_object_instance_name(&self, py: Python<'_>, name: &str) -> PyResult<()> {
        let mut fed = self.federate(py);
        let rti = fed.rti()?;
        py.detach(|| rti.reserve_object_instance_name(name)).py()
    }

    /// Register an instance (with a name reserved before, if given); returns its handle.
    #[pyo3(signature = (object_class, name = None))]
    fn register_object_instance(
        &self,
        py: Python<'_>,
        object_class: &str,
        name: Option<&str>,
    ) -> PyResult<u64> {
        let mut fed = self.federate(py);
        let class = fed.object_class(object_class)?;
        let rti = fed.rti()?;
        let object = match name {
            None => rti.register_object_instance(class),
            Some(name) => rti.register_object_instance_with_name(class, name),
        };
        Ok(object.py()?.0)
    }

    /// updateAttributeValues: `values` by attribute name, encoded by their data types
    /// (bytes are sent as they are). With `time`, a time-stamped update; returns its
    /// retraction handle when it goes in time-stamp order.
    #[pyo3(signature = (object, values, tag = b"".to_vec(), time = None))]
    fn update_attribute_values(
        &self,
        py: Python<'_>,
        object: u64,
        values: &Bound<'_, PyDict>,
        tag: Vec<u8>,
        time: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<u64>> {
        let mut fed = self.federate(py);
        let class = fed.known_class(object)?;
        let encoded = fed.encode_attributes(class, values)?;
        match time {
            None => fed
                .rti()?
                .update_attribute_values(ObjectId(object), &encoded, &tag)
                .py()
                .map(|()| None),
            Some(time) => {
                let time = fed.time_arg(time)?;
                let handle = fed
                    .rti()?
                    .update_attribute_values_at(ObjectId(object), &encoded, &tag, time, None)
                    .py()?;
                Ok(handle.map(MessageRetractionHandle::to_u64))
            }
        }
    }

    /// sendInteraction: `parameters` by name, encoded by their data types.
    #[pyo3(signature = (interaction_class, parameters, tag = b"".to_vec(), time = None))]
    fn send_interaction(
        &self,
        py: Python<'_>,
        interaction_class: &str,
        parameters: &Bound<'_, PyDict>,
        tag: Vec<u8>,
        time: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<u64>> {
        let mut fed = self.federate(py);
        let class = fed.interaction_class(interaction_class)?;
        let encoded = fed.encode_parameters(class, parameters)?;
        match time {
            None => fed
                .rti()?
                .send_interaction(class, &encoded, &tag)
                .py()
                .map(|()| None),
            Some(time) => {
                let time = fed.time_arg(time)?;
                let handle = fed
                    .rti()?
                    .send_interaction_at(class, &encoded, &tag, time, None)
                    .py()?;
                Ok(handle.map(MessageRetractionHandle::to_u64))
            }
        }
    }

    #[pyo3(signature = (object, tag = b"".to_vec(), time = None))]
    fn delete_object_instance(
        &self,
        py: Python<'_>,
        object: u64,
        tag: Vec<u8>,
        time: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Option<u64>> {
        let mut fed = self.federate(py);
        match time {
            None => fed
                .rti()?
                .delete_object_instance(ObjectId(object), &tag)
                .py()
                .map(|()| None),
            Some(time) => {
                let time = fed.time_arg(time)?;
                let handle = fed
                    .rti()?
                    .delete_object_instance_at(ObjectId(object), &tag, time)
                    .py()?;
                Ok(handle.map(MessageRetractionHandle::to_u64))
            }
        }
    }

    #[pyo3(signature = (object, attributes, tag = b"".to_vec()))]
    fn request_attribute_value_update(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
        tag: Vec<u8>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .request_attribute_value_update(object, &attributes, &tag)
            .py()
    }

    #[pyo3(signature = (object_class, attributes, tag = b"".to_vec()))]
    fn request_class_attribute_value_update(
        &self,
        py: Python<'_>,
        object_class: &str,
        attributes: Vec<String>,
        tag: Vec<u8>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let class = fed.object_class(object_class)?;
        let attributes = fed.attributes(class, &attributes)?;
        fed.rti()?
            .request_class_attribute_value_update(class, &attributes, &tag)
            .py()
    }

    fn get_object_instance_name(&self, py: Python<'_>, object: u64) -> PyResult<String> {
        let mut fed = self.federate(py);
        Ok(fed
            .rti()?
            .object_instance_name(ObjectId(object))
            .py()?
            .to_string())
    }

    fn get_object_instance_handle(&self, py: Python<'_>, name: &str) -> PyResult<u64> {
        let mut fed = self.federate(py);
        Ok(fed.rti()?.object_instance_handle(name).py()?.0)
    }

    /// The class an instance is known as here (qualified, without HLAobjectRoot).
    fn get_known_object_class(&self, py: Python<'_>, object: u64) -> PyResult<String> {
        let mut fed = self.federate(py);
        let class = fed.known_class(object)?;
        let model = fed.model()?;
        Ok(crate::model::short_name(&model.object_class(class).qualified_name).to_owned())
    }

    // ---- synchronization points ------------------------------------------------------------

    /// registerFederationSynchronizationPoint; `federates` (handles) None: everyone.
    #[pyo3(signature = (label, tag = b"".to_vec(), federates = None))]
    fn register_federation_synchronization_point(
        &self,
        py: Python<'_>,
        label: &str,
        tag: Vec<u8>,
        federates: Option<Vec<u32>>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let members = federates.unwrap_or_default();
        fed.rti()?
            .register_federation_synchronization_point(label, &tag, &members)
            .py()
    }

    #[pyo3(signature = (label, success = true))]
    fn synchronization_point_achieved(
        &self,
        py: Python<'_>,
        label: &str,
        success: bool,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?
            .synchronization_point_achieved(label, success)
            .py()
    }

    // ---- save and restore ------------------------------------------------------------------

    /// requestFederationSave: now, or (`time`) when each time-constrained federate's
    /// logical time reaches it.
    #[pyo3(signature = (label, time = None))]
    fn request_federation_save(
        &self,
        py: Python<'_>,
        label: &str,
        time: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let time = time.map(|t| fed.time_arg(t)).transpose()?;
        fed.rti()?.request_federation_save(label, time).py()
    }

    fn federate_save_begun(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.federate_save_begun().py()
    }

    fn federate_save_complete(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.federate_save_complete(true).py()
    }

    fn federate_save_not_complete(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.federate_save_complete(false).py()
    }

    fn abort_federation_save(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.abort_federation_save().py()
    }

    fn query_federation_save_status(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.query_federation_save_status().py()
    }

    fn request_federation_restore(&self, py: Python<'_>, label: &str) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.request_federation_restore(label).py()
    }

    fn federate_restore_complete(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.federate_restore_complete(true).py()
    }

    fn federate_restore_not_complete(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.federate_restore_complete(false).py()
    }

    fn abort_federation_restore(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.abort_federation_restore().py()
    }

    fn query_federation_restore_status(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.query_federation_restore_status().py()
    }

    // ---- time management -------------------------------------------------------------------

    fn enable_time_regulation(&self, py: Python<'_>, lookahead: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut fed = self.federate(py);
        let lookahead = interval_from_py(fed.times()?, lookahead)?;
        fed.rti()?.enable_time_regulation(lookahead).py()
    }

    fn disable_time_regulation(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.disable_time_regulation().py()
    }

    fn enable_time_constrained(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.enable_time_constrained().py()
    }

    fn disable_time_constrained(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.disable_time_constrained().py()
    }

    fn enable_asynchronous_delivery(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.enable_asynchronous_delivery().py()
    }

    fn disable_asynchronous_delivery(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.disable_asynchronous_delivery().py()
    }

    fn time_advance_request(&self, py: Python<'_>, time: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.advance(AdvanceKind::Tar, time)
    }

    fn time_advance_request_available(
        &self,
        py: Python<'_>,
        time: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.advance(AdvanceKind::Tara, time)
    }

    fn next_message_request(&self, py: Python<'_>, time: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.advance(AdvanceKind::Nmr, time)
    }

    fn next_message_request_available(
        &self,
        py: Python<'_>,
        time: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.advance(AdvanceKind::Nmra, time)
    }

    fn flush_queue_request(&self, py: Python<'_>, time: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.advance(AdvanceKind::Flush, time)
    }

    fn modify_lookahead(&self, py: Python<'_>, lookahead: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut fed = self.federate(py);
        let lookahead = interval_from_py(fed.times()?, lookahead)?;
        fed.rti()?.modify_lookahead(lookahead).py()
    }

    fn query_lookahead(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut fed = self.federate(py);
        interval_to_py(py, fed.rti()?.query_lookahead().py()?)
    }

    fn query_logical_time(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let mut fed = self.federate(py);
        let times = fed.times()?;
        time_to_py(py, times, fed.rti()?.query_logical_time().py()?)
    }

    /// queryGALT: None when undefined.
    fn query_galt(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let mut fed = self.federate(py);
        let times = fed.times()?;
        fed.rti()?
            .query_galt()
            .py()?
            .map(|t| time_to_py(py, times, t))
            .transpose()
    }

    fn query_lits(&self, py: Python<'_>) -> PyResult<Option<Py<PyAny>>> {
        let mut fed = self.federate(py);
        let times = fed.times()?;
        fed.rti()?
            .query_lits()
            .py()?
            .map(|t| time_to_py(py, times, t))
            .transpose()
    }

    /// retract a time-stamp-order message by the handle its send returned.
    fn retract(&self, py: Python<'_>, retraction: u64) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?
            .retract(MessageRetractionHandle::from_u64(retraction))
            .py()
    }

    // ---- ownership management --------------------------------------------------------------

    fn unconditional_attribute_ownership_divestiture(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .unconditional_attribute_ownership_divestiture(object, &attributes)
            .py()
    }

    #[pyo3(signature = (object, attributes, tag = b"".to_vec()))]
    fn negotiated_attribute_ownership_divestiture(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
        tag: Vec<u8>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .negotiated_attribute_ownership_divestiture(object, &attributes, &tag)
            .py()
    }

    #[pyo3(signature = (object, attributes, tag = b"".to_vec()))]
    fn confirm_divestiture(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
        tag: Vec<u8>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .confirm_divestiture(object, &attributes, &tag)
            .py()
    }

    fn cancel_negotiated_attribute_ownership_divestiture(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .cancel_negotiated_attribute_ownership_divestiture(object, &attributes)
            .py()
    }

    #[pyo3(signature = (object, attributes, tag = b"".to_vec()))]
    fn attribute_ownership_acquisition(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
        tag: Vec<u8>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .attribute_ownership_acquisition(object, &attributes, &tag)
            .py()
    }

    fn attribute_ownership_acquisition_if_available(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .attribute_ownership_acquisition_if_available(object, &attributes)
            .py()
    }

    fn attribute_ownership_release_denied(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .attribute_ownership_release_denied(object, &attributes)
            .py()
    }

    /// Returns the names of the attributes divested.
    fn attribute_ownership_divestiture_if_wanted(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
    ) -> PyResult<Vec<String>> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        let divested = fed
            .rti()?
            .attribute_ownership_divestiture_if_wanted(object, &attributes)
            .py()?;
        let model = fed.model()?;
        Ok(divested
            .into_iter()
            .map(|a| model.attribute(a).name.clone())
            .collect())
    }

    fn cancel_attribute_ownership_acquisition(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        fed.rti()?
            .cancel_attribute_ownership_acquisition(object, &attributes)
            .py()
    }

    fn query_attribute_ownership(
        &self,
        py: Python<'_>,
        object: u64,
        attribute: String,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &[attribute])?;
        fed.rti()?
            .query_attribute_ownership(object, attributes[0])
            .py()
    }

    fn is_attribute_owned_by_federate(
        &self,
        py: Python<'_>,
        object: u64,
        attribute: String,
    ) -> PyResult<bool> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &[attribute])?;
        fed.rti()?
            .is_attribute_owned_by_federate(object, attributes[0])
            .py()
    }

    // ---- data distribution management ------------------------------------------------------

    /// createRegion over dimensions (names) with `bounds` {dimension: (lower, upper)},
    /// committed at once. Returns the region handle.
    fn create_region(&self, py: Python<'_>, bounds: &Bound<'_, PyDict>) -> PyResult<u64> {
        let mut fed = self.federate(py);
        let mut ranges = Vec::new();
        for (name, range) in bounds.iter() {
            let name: String = name.extract()?;
            let (lower, upper): (u64, u64) = range.extract()?;
            ranges.push((
                fed.rti()?.dimension_handle(&name).py()?,
                Range::new(lower, upper),
            ));
        }
        let rti = fed.rti()?;
        let dimensions: Vec<_> = ranges.iter().map(|(d, _)| *d).collect();
        let region = rti.create_region(&dimensions).py()?;
        for (dimension, range) in ranges {
            rti.set_range_bounds(region, dimension, range).py()?;
        }
        rti.commit_region_modifications(&[region]).py()?;
        Ok(region.0)
    }

    /// setRangeBounds and commitRegionModifications of one dimension.
    fn set_range_bounds(
        &self,
        py: Python<'_>,
        region: u64,
        dimension: &str,
        lower: u64,
        upper: u64,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let rti = fed.rti()?;
        let dimension = rti.dimension_handle(dimension).py()?;
        rti.set_range_bounds(RegionHandle(region), dimension, Range::new(lower, upper))
            .py()?;
        rti.commit_region_modifications(&[RegionHandle(region)])
            .py()
    }

    fn delete_region(&self, py: Python<'_>, region: u64) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.delete_region(RegionHandle(region)).py()
    }

    /// associateRegionsForUpdates: updates of `attributes` of `object` go out in `regions`.
    fn associate_regions_for_updates(
        &self,
        py: Python<'_>,
        object: u64,
        attributes: Vec<String>,
        regions: Vec<u64>,
    ) -> PyResult<()> {
        let mut fed = self.federate(py);
        let (object, attributes) = fed.object_attributes(object, &attributes)?;
        let pairs = [(attributes, regions.into_iter().map(RegionHandle).collect())];
        fed.rti()?
            .associate_regions_for_updates(object, &pairs)
            .py()
    }

    // ---- support services ------------------------------------------------------------------

    fn enable_object_class_relevance_advisory_switch(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?
            .enable_object_class_relevance_advisory_switch()
            .py()
    }

    fn enable_interaction_relevance_advisory_switch(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?
            .enable_interaction_relevance_advisory_switch()
            .py()
    }

    fn enable_attribute_relevance_advisory_switch(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.enable_attribute_relevance_advisory_switch().py()
    }

    fn enable_attribute_scope_advisory_switch(&self, py: Python<'_>) -> PyResult<()> {
        let mut fed = self.federate(py);
        fed.rti()?.enable_attribute_scope_advisory_switch().py()
    }

    // ---- callbacks -------------------------------------------------------------------------

    /// evokeCallback: the next callback within `timeout` seconds as (kind, arguments), or
    /// None. The GIL is released while waiting.
    #[pyo3(signature = (timeout = 0.0))]
    fn evoke_callback<'py>(
        &self,
        py: Python<'py>,
        timeout: f64,
    ) -> PyResult<Option<(&'static str, Bound<'py, PyDict>)>> {
        let wait = Duration::try_from_secs_f64(timeout.max(0.0)).unwrap_or(Duration::MAX);
        let until = deadline(Instant::now(), wait);
        // Without the session between waits: a service from another thread breaks the
        // wait and runs first (`SharedSession::evoke`).
        let taken = py.detach(|| {
            self.shared.evoke(
                until,
                |fed| fed.session.is_idle(),
                |fed, left| fed.session.evoke_callback(left),
            )
        });
        let Some(callback) = taken.py()? else {
            return Ok(None);
        };
        let (model, times) = self.federate(py).callback_context()?;
        let context = Context {
            model: &model,
            times,
            decode: self.decode,
        };
        context.event(py, callback).map(Some)
    }
}
