//! The built-in MIM is the standard's: the values below are transcribed from the
//! HLAstandardMIM.xml published with IEEE 1516.1-2010 (the MOM tables of clause 11), not
//! generated from our file. And a federation's own MIM (createFederationExecutionWithMIM)
//! is opened, checked to hold the standard MIM's classes, and merged first.

use std::path::PathBuf;
use trellis_core::fom::{
    FddErrorKind, MimError, MimErrorKind, ObjectModel, Order, STANDARD_MIM_MODEL_NAME,
    STANDARD_MIM_XML,
};

fn standard() -> ObjectModel {
    ObjectModel::from_sources(&[("HLAstandardMIM.xml", STANDARD_MIM_XML)])
        .unwrap_or_else(|e| panic!("{e}"))
}

/// HLAobjectRoot.HLAmanager.HLAfederate, in the standard's order: every attribute is
/// NoTransfer, Publish, HLAreliable, Receive, in the HLAfederate dimension.
const FEDERATE_ATTRIBUTES: [(&str, &str); 32] = [
    ("HLAfederateHandle", "HLAhandle"),
    ("HLAfederateName", "HLAunicodeString"),
    ("HLAfederateType", "HLAunicodeString"),
    ("HLAfederateHost", "HLAunicodeString"),
    ("HLARTIversion", "HLAunicodeString"),
    ("HLAFOMmoduleDesignatorList", "HLAmoduleDesignatorList"),
    ("HLAtimeConstrained", "HLAboolean"),
    ("HLAtimeRegulating", "HLAboolean"),
    ("HLAasynchronousDelivery", "HLAboolean"),
    ("HLAfederateState", "HLAfederateState"),
    ("HLAtimeManagerState", "HLAtimeState"),
    ("HLAlogicalTime", "HLAlogicalTime"),
    ("HLAlookahead", "HLAtimeInterval"),
    ("HLAGALT", "HLAlogicalTime"),
    ("HLALITS", "HLAlogicalTime"),
    ("HLAROlength", "HLAcount"),
    ("HLATSOlength", "HLAcount"),
    ("HLAreflectionsReceived", "HLAcount"),
    ("HLAupdatesSent", "HLAcount"),
    ("HLAinteractionsReceived", "HLAcount"),
    ("HLAinteractionsSent", "HLAcount"),
    ("HLAobjectInstancesThatCanBeDeleted", "HLAcount"),
    ("HLAobjectInstancesUpdated", "HLAcount"),
    ("HLAobjectInstancesReflected", "HLAcount"),
    ("HLAobjectInstancesDeleted", "HLAcount"),
    ("HLAobjectInstancesRemoved", "HLAcount"),
    ("HLAobjectInstancesRegistered", "HLAcount"),
    ("HLAobjectInstancesDiscovered", "HLAcount"),
    ("HLAtimeGrantedTime", "HLAmsec"),
    ("HLAtimeAdvancingTime", "HLAmsec"),
    ("HLAconveyRegionDesignatorSets", "HLAswitch"),
    ("HLAconveyProducingFederate", "HLAswitch"),
];

/// HLAobjectRoot.HLAmanager.HLAfederation: NoTransfer, Publish, HLAreliable, Receive, and
/// no dimensions.
const FEDERATION_ATTRIBUTES: [(&str, &str); 12] = [
    ("HLAfederationName", "HLAunicodeString"),
    ("HLAfederatesInFederation", "HLAhandleList"),
    ("HLARTIversion", "HLAunicodeString"),
    ("HLAMIMdesignator", "HLAunicodeString"),
    ("HLAFOMmoduleDesignatorList", "HLAmoduleDesignatorList"),
    ("HLAcurrentFDD", "HLAunicodeString"),
    ("HLAtimeImplementationName", "HLAunicodeString"),
    ("HLAlastSaveName", "HLAunicodeString"),
    ("HLAlastSaveTime", "HLAlogicalTime"),
    ("HLAnextSaveName", "HLAunicodeString"),
    ("HLAnextSaveTime", "HLAlogicalTime"),
    ("HLAautoProvide", "HLAswitch"),
];

#[test]
fn the_object_classes_have_the_standards_attributes() {
    let model = standard();
    let root = model.find_object_class("HLAobjectRoot").unwrap();
    let privilege = model
        .find_attribute(root, "HLAprivilegeToDeleteObject")
        .unwrap();
    let privilege = model.attribute(privilege);
    assert_eq!(privilege.data_type, "HLAtoken");
    assert_eq!(privilege.order, Order::TimeStamp);
    assert_eq!(privilege.transportation.name, "HLAreliable");
    assert!(privilege.dimensions.is_empty());

    let classes = [
        (
            "HLAobjectRoot.HLAmanager.HLAfederate",
            &FEDERATE_ATTRIBUTES[..],
            &["HLAfederate"][..],
        ),
        (
            "HLAobjectRoot.HLAmanager.HLAfederation",
            &FEDERATION_ATTRIBUTES[..],
            &[][..],
        ),
    ];
    for (class_name, table, dimensions) in classes {
        let class = model.find_object_class(class_name).unwrap();
        let declared: Vec<(String, String)> = model
            .object_class(class)
            .attributes
            .iter()
            .map(|&a| model.attribute(a))
            .map(|a| (a.name.clone(), a.data_type.clone()))
            .collect();
        let expected: Vec<(String, String)> = table
            .iter()
            .map(|(n, t)| (n.to_string(), t.to_string()))
            .collect();
        let mut sorted = expected.clone();
        sorted.sort();
        let mut got = declared.clone();
        got.sort();
        assert_eq!(got, sorted, "{class_name}: attributes and data types");
        for &a in &model.object_class(class).attributes {
            let attribute = model.attribute(a);
            let what = format!("{class_name}.{}", attribute.name);
            assert_eq!(attribute.order, Order::Receive, "{what}");
            assert_eq!(attribute.transportation.name, "HLAreliable", "{what}");
            assert!(attribute.transportation.reliable, "{what}");
            let names: Vec<&str> = model
                .attribute_dimensions(a)
                .map(|d| d.name.as_str())
                .collect();
            assert_eq!(names, dimensions, "{what}");
        }
    }
    let manager = model.find_object_class("HLAobjectRoot.HLAmanager").unwrap();
    assert!(model.object_class(manager).attributes.is_empty());
    assert_eq!(model.object_classes().len(), 4);
}

/// Every MOM interaction class: (qualified name without HLAinteractionRoot.HLAmanager,
/// dimensions, its own parameters with their data types). All are HLAreliable, Receive.
/// (qualified name below HLAmanager, dimensions, own parameters as (name, data type)).
type InteractionRow = (
    &'static str,
    &'static [&'static str],
    &'static [(&'static str, &'static str)],
);

const INTERACTIONS: &[InteractionRow] = &[
    ("HLAfederate", &[], &[("HLAfederate", "HLAhandle")]),
    ("HLAfederate.HLAadjust", &[], &[]),
    (
        "HLAfederate.HLAadjust.HLAsetTiming",
        &[],
        &[("HLAreportPeriod", "HLAseconds")],
    ),
    (
        "HLAfederate.HLAadjust.HLAmodifyAttributeState",
        &[],
        &[
            ("HLAobjectInstance", "HLAhandle"),
            ("HLAattribute", "HLAhandle"),
            ("HLAattributeState", "HLAownership"),
        ],
    ),
    (
        "HLAfederate.HLAadjust.HLAsetServiceReporting",
        &[],
        &[("HLAreportingState", "HLAboolean")],
    ),
    (
        "HLAfederate.HLAadjust.HLAsetExceptionReporting",
        &[],
        &[("HLAreportingState", "HLAboolean")],
    ),
    (
        "HLAfederate.HLAadjust.HLAsetSwitches",
        &[],
        &[
            ("HLAconveyRegionDesignatorSets", "HLAswitch"),
            ("HLAconveyProducingFederate", "HLAswitch"),
        ],
    ),
    ("HLAfederate.HLArequest", &[], &[]),
    ("HLAfederate.HLArequest.HLArequestPublications", &[], &[]),
    ("HLAfederate.HLArequest.HLArequestSubscriptions", &[], &[]),
    (
        "HLAfederate.HLArequest.HLArequestObjectInstancesThatCanBeDeleted",
        &[],
        &[],
    ),
    (
        "HLAfederate.HLArequest.HLArequestObjectInstancesUpdated",
        &[],
        &[],
    ),
    (
        "HLAfederate.HLArequest.HLArequestObjectInstancesReflected",
        &[],
        &[],
    ),
    ("HLAfederate.HLArequest.HLArequestUpdatesSent", &[], &[]),
    (
        "HLAfederate.HLArequest.HLArequestInteractionsSent",
        &[],
        &[],
    ),
    (
        "HLAfederate.HLArequest.HLArequestReflectionsReceived",
        &[],
        &[],
    ),
    (
        "HLAfederate.HLArequest.HLArequestInteractionsReceived",
        &[],
        &[],
    ),
    (
        "HLAfederate.HLArequest.HLArequestObjectInstanceInformation",
        &[],
        &[("HLAobjectInstance", "HLAhandle")],
    ),
    (
        "HLAfederate.HLArequest.HLArequestFOMmoduleData",
        &[],
        &[("HLAFOMmoduleIndicator", "HLAindex")],
    ),
    ("HLAfederate.HLAreport", &[], &[]),
    (
        "HLAfederate.HLAreport.HLAreportObjectClassPublication",
        &["HLAfederate"],
        &[
            ("HLAnumberOfClasses", "HLAcount"),
            ("HLAobjectClass", "HLAhandle"),
            ("HLAattributeList", "HLAhandleList"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportInteractionPublication",
        &["HLAfederate"],
        &[("HLAinteractionClassList", "HLAhandleList")],
    ),
    (
        "HLAfederate.HLAreport.HLAreportObjectClassSubscription",
        &["HLAfederate"],
        &[
            ("HLAnumberOfClasses", "HLAcount"),
            ("HLAobjectClass", "HLAhandle"),
            ("HLAactive", "HLAboolean"),
            ("HLAmaxUpdateRate", "HLAupdateRateName"),
            ("HLAattributeList", "HLAhandleList"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportInteractionSubscription",
        &["HLAfederate"],
        &[("HLAinteractionClassList", "HLAinteractionSubList")],
    ),
    (
        "HLAfederate.HLAreport.HLAreportObjectInstancesThatCanBeDeleted",
        &["HLAfederate"],
        &[("HLAobjectInstanceCounts", "HLAobjectClassBasedCounts")],
    ),
    (
        "HLAfederate.HLAreport.HLAreportObjectInstancesUpdated",
        &["HLAfederate"],
        &[("HLAobjectInstanceCounts", "HLAobjectClassBasedCounts")],
    ),
    (
        "HLAfederate.HLAreport.HLAreportObjectInstancesReflected",
        &["HLAfederate"],
        &[("HLAobjectInstanceCounts", "HLAobjectClassBasedCounts")],
    ),
    (
        "HLAfederate.HLAreport.HLAreportUpdatesSent",
        &["HLAfederate"],
        &[
            ("HLAtransportation", "HLAtransportationName"),
            ("HLAupdateCounts", "HLAobjectClassBasedCounts"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportReflectionsReceived",
        &["HLAfederate"],
        &[
            ("HLAtransportation", "HLAtransportationName"),
            ("HLAreflectCounts", "HLAobjectClassBasedCounts"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportInteractionsSent",
        &["HLAfederate"],
        &[
            ("HLAtransportation", "HLAtransportationName"),
            ("HLAinteractionCounts", "HLAinteractionCounts"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportInteractionsReceived",
        &["HLAfederate"],
        &[
            ("HLAtransportation", "HLAtransportationName"),
            ("HLAinteractionCounts", "HLAinteractionCounts"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportObjectInstanceInformation",
        &["HLAfederate"],
        &[
            ("HLAobjectInstance", "HLAhandle"),
            ("HLAownedInstanceAttributeList", "HLAhandleList"),
            ("HLAregisteredClass", "HLAhandle"),
            ("HLAknownClass", "HLAhandle"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportException",
        &["HLAfederate"],
        &[
            ("HLAservice", "HLAunicodeString"),
            ("HLAexception", "HLAunicodeString"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportServiceInvocation",
        &["HLAfederate", "HLAserviceGroup"],
        &[
            ("HLAservice", "HLAunicodeString"),
            ("HLAsuccessIndicator", "HLAboolean"),
            ("HLAsuppliedArguments", "HLAargumentList"),
            ("HLAreturnedArguments", "HLAargumentList"),
            ("HLAexception", "HLAunicodeString"),
            ("HLAserialNumber", "HLAcount"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportMOMexception",
        &["HLAfederate"],
        &[
            ("HLAservice", "HLAunicodeString"),
            ("HLAexception", "HLAunicodeString"),
            ("HLAparameterError", "HLAboolean"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportFederateLost",
        &["HLAfederate"],
        &[
            ("HLAfederateName", "HLAunicodeString"),
            ("HLAtimeStamp", "HLAlogicalTime"),
            ("HLAfaultDescription", "HLAunicodeString"),
        ],
    ),
    (
        "HLAfederate.HLAreport.HLAreportFOMmoduleData",
        &["HLAfederate"],
        &[
            ("HLAFOMmoduleIndicator", "HLAindex"),
            ("HLAFOMmoduleData", "HLAunicodeString"),
        ],
    ),
    ("HLAfederate.HLAservice", &[], &[]),
    (
        "HLAfederate.HLAservice.HLAresignFederationExecution",
        &[],
        &[("HLAresignAction", "HLAresignAction")],
    ),
    (
        "HLAfederate.HLAservice.HLAsynchronizationPointAchieved",
        &[],
        &[("HLAlabel", "HLAunicodeString")],
    ),
    ("HLAfederate.HLAservice.HLAfederateSaveBegun", &[], &[]),
    (
        "HLAfederate.HLAservice.HLAfederateSaveComplete",
        &[],
        &[("HLAsuccessIndicator", "HLAboolean")],
    ),
    (
        "HLAfederate.HLAservice.HLAfederateRestoreComplete",
        &[],
        &[("HLAsuccessIndicator", "HLAboolean")],
    ),
    (
        "HLAfederate.HLAservice.HLApublishObjectClassAttributes",
        &[],
        &[
            ("HLAobjectClass", "HLAhandle"),
            ("HLAattributeList", "HLAhandleList"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLAunpublishObjectClassAttributes",
        &[],
        &[
            ("HLAobjectClass", "HLAhandle"),
            ("HLAattributeList", "HLAhandleList"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLApublishInteractionClass",
        &[],
        &[("HLAinteractionClass", "HLAhandle")],
    ),
    (
        "HLAfederate.HLAservice.HLAunpublishInteractionClass",
        &[],
        &[("HLAinteractionClass", "HLAhandle")],
    ),
    (
        "HLAfederate.HLAservice.HLAsubscribeObjectClassAttributes",
        &[],
        &[
            ("HLAobjectClass", "HLAhandle"),
            ("HLAattributeList", "HLAhandleList"),
            ("HLAactive", "HLAboolean"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLAunsubscribeObjectClassAttributes",
        &[],
        &[
            ("HLAobjectClass", "HLAhandle"),
            ("HLAattributeList", "HLAhandleList"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLAsubscribeInteractionClass",
        &[],
        &[
            ("HLAinteractionClass", "HLAhandle"),
            ("HLAactive", "HLAboolean"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLAunsubscribeInteractionClass",
        &[],
        &[("HLAinteractionClass", "HLAhandle")],
    ),
    (
        "HLAfederate.HLAservice.HLAdeleteObjectInstance",
        &[],
        &[
            ("HLAobjectInstance", "HLAhandle"),
            ("HLAtag", "HLAopaqueData"),
            ("HLAtimeStamp", "HLAlogicalTime"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLAlocalDeleteObjectInstance",
        &[],
        &[("HLAobjectInstance", "HLAhandle")],
    ),
    (
        "HLAfederate.HLAservice.HLArequestAttributeTransportationTypeChange",
        &[],
        &[
            ("HLAobjectInstance", "HLAhandle"),
            ("HLAattributeList", "HLAhandleList"),
            ("HLAtransportation", "HLAtransportationName"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLArequestInteractionTransportationTypeChange",
        &[],
        &[
            ("HLAinteractionClass", "HLAhandle"),
            ("HLAtransportation", "HLAtransportationName"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLAunconditionalAttributeOwnershipDivestiture",
        &[],
        &[
            ("HLAobjectInstance", "HLAhandle"),
            ("HLAattributeList", "HLAhandleList"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLAenableTimeRegulation",
        &[],
        &[("HLAlookahead", "HLAtimeInterval")],
    ),
    ("HLAfederate.HLAservice.HLAdisableTimeRegulation", &[], &[]),
    ("HLAfederate.HLAservice.HLAenableTimeConstrained", &[], &[]),
    ("HLAfederate.HLAservice.HLAdisableTimeConstrained", &[], &[]),
    (
        "HLAfederate.HLAservice.HLAtimeAdvanceRequest",
        &[],
        &[("HLAtimeStamp", "HLAlogicalTime")],
    ),
    (
        "HLAfederate.HLAservice.HLAtimeAdvanceRequestAvailable",
        &[],
        &[("HLAtimeStamp", "HLAlogicalTime")],
    ),
    (
        "HLAfederate.HLAservice.HLAnextMessageRequest",
        &[],
        &[("HLAtimeStamp", "HLAlogicalTime")],
    ),
    (
        "HLAfederate.HLAservice.HLAnextMessageRequestAvailable",
        &[],
        &[("HLAtimeStamp", "HLAlogicalTime")],
    ),
    (
        "HLAfederate.HLAservice.HLAflushQueueRequest",
        &[],
        &[("HLAtimeStamp", "HLAlogicalTime")],
    ),
    (
        "HLAfederate.HLAservice.HLAenableAsynchronousDelivery",
        &[],
        &[],
    ),
    (
        "HLAfederate.HLAservice.HLAdisableAsynchronousDelivery",
        &[],
        &[],
    ),
    (
        "HLAfederate.HLAservice.HLAmodifyLookahead",
        &[],
        &[("HLAlookahead", "HLAtimeInterval")],
    ),
    (
        "HLAfederate.HLAservice.HLAchangeAttributeOrderType",
        &[],
        &[
            ("HLAobjectInstance", "HLAhandle"),
            ("HLAattributeList", "HLAhandleList"),
            ("HLAsendOrder", "HLAorderType"),
        ],
    ),
    (
        "HLAfederate.HLAservice.HLAchangeInteractionOrderType",
        &[],
        &[
            ("HLAinteractionClass", "HLAhandle"),
            ("HLAsendOrder", "HLAorderType"),
        ],
    ),
    ("HLAfederation", &[], &[]),
    ("HLAfederation.HLAadjust", &[], &[]),
    (
        "HLAfederation.HLAadjust.HLAsetSwitches",
        &[],
        &[("HLAautoProvide", "HLAswitch")],
    ),
    ("HLAfederation.HLArequest", &[], &[]),
    (
        "HLAfederation.HLArequest.HLArequestSynchronizationPoints",
        &[],
        &[],
    ),
    (
        "HLAfederation.HLArequest.HLArequestSynchronizationPointStatus",
        &[],
        &[],
    ),
    (
        "HLAfederation.HLArequest.HLArequestFOMmoduleData",
        &[],
        &[("HLAFOMmoduleIndicator", "HLAindex")],
    ),
    ("HLAfederation.HLArequest.HLArequestMIMdata", &[], &[]),
    ("HLAfederation.HLAreport", &[], &[]),
    (
        "HLAfederation.HLAreport.HLAreportSynchronizationPoints",
        &[],
        &[("HLAsyncPoints", "HLAsynchPointList")],
    ),
    (
        "HLAfederation.HLAreport.HLAreportSynchronizationPointStatus",
        &[],
        &[
            ("HLAsyncPointName", "HLAunicodeString"),
            ("HLAsyncPointFederates", "HLAsynchPointFederateList"),
        ],
    ),
    (
        "HLAfederation.HLAreport.HLAreportFOMmoduleData",
        &[],
        &[
            ("HLAFOMmoduleIndicator", "HLAindex"),
            ("HLAFOMmoduleData", "HLAunicodeString"),
        ],
    ),
    (
        "HLAfederation.HLAreport.HLAreportMIMdata",
        &[],
        &[("HLAMIMdata", "HLAunicodeString")],
    ),
];

#[test]
fn the_interaction_classes_have_the_standards_parameters_and_dimensions() {
    let model = standard();
    let root = model.find_interaction_class("HLAinteractionRoot").unwrap();
    assert_eq!(model.interaction_class(root).order, Order::TimeStamp);
    assert!(model.interaction_class(root).parameters.is_empty());
    let manager = model
        .find_interaction_class("HLAinteractionRoot.HLAmanager")
        .unwrap();
    assert_eq!(model.interaction_class(manager).order, Order::Receive);
    for &(name, dimensions, parameters) in INTERACTIONS {
        let qualified = format!("HLAinteractionRoot.HLAmanager.{name}");
        let class = model
            .find_interaction_class(&qualified)
            .unwrap_or_else(|| panic!("{qualified} missing"));
        let class = model.interaction_class(class);
        assert_eq!(class.qualified_name, qualified);
        assert_eq!(class.order, Order::Receive, "{qualified}");
        assert_eq!(class.transportation.name, "HLAreliable", "{qualified}");
        let dims: Vec<&str> = model
            .interaction_dimensions(class.handle)
            .map(|d| d.name.as_str())
            .collect();
        assert_eq!(dims, dimensions, "{qualified}: dimensions");
        let mut own: Vec<(&str, &str)> = class
            .parameters
            .iter()
            .map(|&p| model.parameter(p))
            .map(|p| (p.name.as_str(), p.data_type.as_str()))
            .collect();
        own.sort();
        let mut expected = parameters.to_vec();
        expected.sort();
        assert_eq!(own, expected, "{qualified}: parameters");
    }
    // Root, HLAmanager and the table: nothing more, nothing less.
    assert_eq!(model.interaction_classes().len(), INTERACTIONS.len() + 2);
}

#[test]
fn the_dimensions_transportations_and_data_types_are_the_standards() {
    let model = standard();
    let federate = model.dimension(model.find_dimension("HLAfederate").unwrap());
    assert_eq!(federate.data_type, "HLAnormalizedFederateHandle");
    let group = model.dimension(model.find_dimension("HLAserviceGroup").unwrap());
    assert_eq!(
        (group.data_type.as_str(), group.upper_bound),
        ("HLAnormalizedServiceGroup", 7)
    );
    assert_eq!(model.dimensions().len(), 2);

    let types = model.data_types();
    for name in [
        "HLAnormalizedFederateHandle",
        "HLAindex",
        "HLAinteger64Time",
        "HLAfloat64Time",
        "HLAupdateRateName",
        "HLAmoduleDesignatorList",
        "HLAinteractionSubscription",
        "HLAobjectClassBasedCount",
        "HLAinteractionCount",
        "HLAsynchPointFederate",
    ] {
        assert!(types.get(name).is_some(), "{name}");
    }
    // HLAtoken is a fixed array of no bytes; HLAswitch and HLAsynchPointStatus carry the
    // standard's enumerators.
    assert_eq!(types.min_encoded_len("HLAtoken"), 0);
    let status = format!("{:?}", types.get("HLAsynchPointStatus").unwrap().kind);
    for enumerator in [
        "NoActivity",
        "AttemptingToRegisterSynchPoint",
        "MovingToSynchPoint",
        "WaitingForRestOfFederation",
    ] {
        assert!(status.contains(enumerator), "{enumerator} in {status}");
    }
    assert!(types.unresolved().is_empty());
    // The model identification is the standard's, so a copy given as a module under any
    // file name stands in for the built-in MIM.
    assert!(STANDARD_MIM_XML.contains(STANDARD_MIM_MODEL_NAME));
}

// ---- A federation's own MIM -------------------------------------------------------------

const DEMO: &str = include_str!("../../../foms/trellis-demo.xml");

/// A directory of its own under the system's temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(test: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("trellis-mim-{}-{test}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, text: &str) -> String {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The standard MIM with the element `<tag><name>{name}</name>...</tag>` cut out.
fn without(tag: &str, name: &str) -> String {
    let doc = roxmltree::Document::parse(STANDARD_MIM_XML).unwrap();
    let node = doc
        .descendants()
        .find(|n| {
            n.has_tag_name(tag)
                && n.children()
                    .any(|c| c.has_tag_name("name") && c.text() == Some(name))
        })
        .unwrap_or_else(|| panic!("{tag} {name}"));
    let range = node.range();
    format!(
        "{}{}",
        &STANDARD_MIM_XML[..range.start],
        &STANDARD_MIM_XML[range.end..]
    )
}

/// The standard MIM with an object class `TrellisSite` (one attribute) under HLAobjectRoot.
fn with_extra_class() -> String {
    let anchor = "<objectClass>\n            <name>HLAmanager</name>";
    assert_eq!(STANDARD_MIM_XML.matches(anchor).count(), 1);
    STANDARD_MIM_XML.replace(
        anchor,
        &format!(
            "<objectClass><name>TrellisSite</name><sharing>PublishSubscribe</sharing>\
             <attribute><name>Label</name><dataType>HLAunicodeString</dataType>\
             <updateType>Static</updateType><updateCondition>NA</updateCondition>\
             <ownership>NoTransfer</ownership><sharing>PublishSubscribe</sharing>\
             <transportation>HLAreliable</transportation><order>Receive</order></attribute>\
             </objectClass>\n         {anchor}"
        ),
    )
}

#[test]
fn the_standard_mim_under_another_name_is_a_mim() {
    let scratch = Scratch::new("copy");
    let mim = scratch.file("my-mim.xml", STANDARD_MIM_XML);
    let demo = scratch.file("trellis-demo.xml", DEMO);
    let model = ObjectModel::load_with_mim(&mim, &[&demo], &|path| std::fs::read(path))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(model.modules(), [mim.as_str(), demo.as_str()]);
    let builtin = ObjectModel::load(&[&demo], &|path| std::fs::read(path)).unwrap();
    assert_eq!(model.fingerprint(), builtin.fingerprint());
    // "HLAstandardMIM" is the built-in one, whatever the working directory holds.
    let named = ObjectModel::load_with_mim("HLAstandardMIM", &[&demo], &|path| std::fs::read(path))
        .unwrap();
    assert_eq!(named.fingerprint(), builtin.fingerprint());
}

#[test]
fn a_mim_may_add_a_class_that_federates_then_use() {
    let scratch = Scratch::new("extra");
    let mim = scratch.file("site-mim.xml", &with_extra_class());
    let demo = scratch.file("trellis-demo.xml", DEMO);
    // A module list naming the standard MIM (absent here) keeps working: the MIM holds it.
    let modules = [demo.as_str(), "HLAstandardMIM.xml"];
    let model = ObjectModel::load_with_mim(&mim, &modules, &|path| std::fs::read(path))
        .unwrap_or_else(|e| panic!("{e}"));
    let site = model
        .find_object_class("HLAobjectRoot.TrellisSite")
        .unwrap();
    let label = model.find_attribute(site, "Label").unwrap();
    assert_eq!(model.attribute(label).data_type, "HLAunicodeString");
    assert!(model
        .find_attribute(site, "HLAprivilegeToDeleteObject")
        .is_some());
    assert!(model.find_object_class("Vehicle").is_some());
    assert_eq!(model.modules(), [mim.as_str(), demo.as_str()]);
    // Without the MIM the class does not exist.
    assert!(ObjectModel::load(&[&demo], &|path| std::fs::read(path))
        .unwrap()
        .find_object_class("TrellisSite")
        .is_none());
}

#[test]
fn a_mim_without_a_standard_class_is_refused_naming_it() {
    for (tag, name, missing) in [
        (
            "objectClass",
            "HLAfederation",
            "object class HLAobjectRoot.HLAmanager.HLAfederation",
        ),
        (
            "interactionClass",
            "HLAreportMIMdata",
            "interaction class HLAinteractionRoot.HLAmanager.HLAfederation.HLAreport.HLAreportMIMdata",
        ),
        (
            "attribute",
            "HLAGALT",
            "attribute HLAobjectRoot.HLAmanager.HLAfederate.HLAGALT",
        ),
    ] {
        let text = without(tag, name);
        let error = ObjectModel::from_sources_with_custom_mim(("small-mim.xml", &text), &[("trellis-demo.xml", DEMO)])
            .unwrap_err();
        assert_eq!(error.kind(), MimErrorKind::ErrorReadingMim, "{error}");
        let MimError::NotStandard { missing: listed, .. } = &error else {
            panic!("{error}")
        };
        assert!(listed.iter().any(|m| m == missing), "{listed:?}");
        let message = error.to_string();
        assert!(message.contains("small-mim.xml") && message.contains(missing), "{message}");
    }
}

#[test]
fn a_mim_that_cannot_be_read_or_is_no_object_model_is_refused() {
    let scratch = Scratch::new("bad");
    let demo = scratch.file("trellis-demo.xml", DEMO);
    let absent = scratch.0.join("absent-mim.xml").display().to_string();
    let error =
        ObjectModel::load_with_mim(&absent, &[&demo], &|path| std::fs::read(path)).unwrap_err();
    assert_eq!(error.kind(), MimErrorKind::CouldNotOpenMim, "{error}");
    assert!(error.to_string().contains("absent-mim.xml"), "{error}");
    // A path whose file name is HLAstandardMIM.xml is opened too when it is the MIM.
    let named_standard = scratch.0.join("HLAstandardMIM.xml").display().to_string();
    let error = ObjectModel::load_with_mim(&named_standard, &[&demo], &|path| std::fs::read(path))
        .unwrap_err();
    assert_eq!(error.kind(), MimErrorKind::CouldNotOpenMim, "{error}");

    let text = scratch.file("notes.txt", "these are not XML <objectModel");
    let error =
        ObjectModel::load_with_mim(&text, &[&demo], &|path| std::fs::read(path)).unwrap_err();
    assert_eq!(error.kind(), MimErrorKind::ErrorReadingMim, "{error}");
    assert!(matches!(error, MimError::Invalid { .. }), "{error}");
    assert!(error.to_string().contains("notes.txt"), "{error}");
}

#[test]
fn a_module_problem_with_a_mim_is_the_modules() {
    let scratch = Scratch::new("modules");
    let mim = scratch.file("my-mim.xml", STANDARD_MIM_XML);
    let absent = scratch.0.join("absent.xml").display().to_string();
    let error =
        ObjectModel::load_with_mim(&mim, &[&absent], &|path| std::fs::read(path)).unwrap_err();
    assert_eq!(
        error.kind(),
        MimErrorKind::Fdd(FddErrorKind::CouldNotOpen),
        "{error}"
    );
    // Restating the MIM's HLAprivilegeToDeleteObject with another order conflicts with it.
    let restated = "<objectModel xmlns=\"http://standards.ieee.org/IEEE1516-2010\"><objects>\
        <objectClass><name>HLAobjectRoot</name><attribute><name>HLAprivilegeToDeleteObject</name>\
        <dataType>HLAtoken</dataType><updateType>Static</updateType><updateCondition>NA</updateCondition>\
        <ownership>DivestAcquire</ownership><sharing>PublishSubscribe</sharing>\
        <transportation>HLAreliable</transportation><order>Receive</order></attribute>\
        </objectClass></objects></objectModel>";
    let error = ObjectModel::from_sources_with_custom_mim(
        ("my-mim.xml", STANDARD_MIM_XML),
        &[("restated.xml", restated)],
    )
    .unwrap_err();
    assert_eq!(
        error.kind(),
        MimErrorKind::Fdd(FddErrorKind::Inconsistent),
        "{error}"
    );
    assert!(matches!(error, MimError::Modules(_)), "{error}");
    assert!(error.to_string().contains("restated.xml"), "{error}");
}
