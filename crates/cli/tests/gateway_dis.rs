//! `trellis gateway dis` between a third-party DIS implementation (the Python `opendis`
//! package, in target/python: `scripts/python-env`) and an HLA federate (the Rust API) on a
//! real router over TCP, with real UDP on 127.0.0.1. Values are checked on the HLA side with
//! the object model's own typed decoder, on the DIS side with opendis's.

mod common;

use common::router::RouterProcess;
use common::spawn_lines;
use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::net::UdpSocket;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
use std::time::{Duration, Instant};
use trellis_core::encoding::decode_value;
use trellis_core::federate::{Callback, ObjectId};
use trellis_core::fom::{AttributeHandle, ObjectModel, ParameterHandle};
use trellis_net::rti::{RtiAmbassador, RtiConfig, RtiError};
use trellis_net::{Endpoint, NodeConfig};

/// Bound on every wait (generous: the machine may be loaded by builds).
const WAIT: Duration = Duration::from_secs(30);
const EXERCISE: &str = "3";

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn python() -> PathBuf {
    let python = repo_root().join("target/python/bin/python");
    assert!(
        python.exists(),
        "{} is missing: run scripts/python-env (it installs opendis, the third-party DIS \
         implementation these tests use)",
        python.display()
    );
    python
}

fn script(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/dis")
        .join(name)
}

fn rpr_dir() -> PathBuf {
    let dir = repo_root().join("../shared/fom/rpr-2.0");
    assert!(
        dir.is_dir(),
        "the RPR FOM 2.0 modules must be in {}",
        dir.display()
    );
    dir
}

fn rpr_model() -> Arc<ObjectModel> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(rpr_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "xml"))
        .collect();
    paths.sort();
    Arc::new(ObjectModel::load(&paths, &|path| std::fs::read(path)).unwrap())
}

/// `opendis` sends one PDU (`what`: entity, fire, detonation, remove, echo) to `port`.
fn send_pdu(port: u16, what: &str) {
    let status = Command::new(python())
        .arg(script("send.py"))
        .args(["127.0.0.1", &port.to_string(), what, EXERCISE])
        .status()
        .unwrap();
    assert!(status.success(), "send.py {what}: {status}");
}

/// The gateway as a child process and its output lines.
struct GatewayProcess {
    child: Child,
    lines: Receiver<String>,
    port: u16,
}

impl GatewayProcess {
    fn start(router: &Endpoint, federation: &str, extra: &[&str]) -> GatewayProcess {
        let fom = rpr_dir();
        let router = router.to_string();
        let mut args = vec![
            "gateway",
            "dis",
            "--fom",
            fom.to_str().unwrap(),
            "--rti",
            &router,
            "--federation",
            federation,
            "--listen",
            "127.0.0.1:0",
            "--exercise",
            EXERCISE,
            "--site",
            "5",
            "--application",
            "6",
            "--summary",
            "0.1",
        ];
        args.extend_from_slice(extra);
        let (child, lines) = spawn_lines(&args);
        let mut gateway = GatewayProcess {
            child,
            lines,
            port: 0,
        };
        let line = gateway.wait_for(|l| l.starts_with("dis gateway: listening on "));
        let address = line
            .strip_prefix("dis gateway: listening on ")
            .and_then(|rest| rest.split(',').next())
            .unwrap();
        gateway.port = address.rsplit(':').next().unwrap().parse().unwrap();
        gateway
    }

    fn wait_for(&mut self, mut want: impl FnMut(&str) -> bool) -> String {
        let deadline = Instant::now() + WAIT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) if want(&line) => return line,
                Ok(_) => {}
                Err(_) => panic!("the gateway printed no such line in time"),
            }
        }
    }

    /// The next summary line whose counts satisfy `want`.
    fn wait_for_counts(&mut self, mut want: impl FnMut(&HashMap<String, u64>) -> bool) {
        self.wait_for(|line| {
            line.strip_prefix("dis gateway: ")
                .filter(|rest| rest.starts_with("datagrams="))
                .is_some_and(|rest| want(&counts(rest)))
        });
    }

    /// SIGTERM: it resigns, prints its last counts and exits 0.
    fn stop(mut self) {
        let pid = self.child.id().to_string();
        assert!(Command::new("kill")
            .args(["-TERM", &pid])
            .status()
            .unwrap()
            .success());
        let deadline = Instant::now() + WAIT;
        let status = loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                break status;
            }
            assert!(Instant::now() < deadline, "the gateway did not stop");
            let _ = self.lines.recv_timeout(Duration::from_millis(50));
        };
        assert!(status.success(), "{status}");
    }
}

impl Drop for GatewayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn counts(line: &str) -> HashMap<String, u64> {
    line.split_whitespace()
        .filter_map(|pair| pair.split_once('='))
        .filter_map(|(k, v)| Some((k.to_owned(), v.parse().ok()?)))
        .collect()
}

/// `recv.py`: opendis decoding what arrives at its port, one JSON object per line.
struct DisReceiver {
    child: Child,
    _stdin: ChildStdin,
    lines: Receiver<serde_json::Value>,
    port: u16,
    seen: Vec<serde_json::Value>,
}

impl DisReceiver {
    fn start() -> DisReceiver {
        let mut child = Command::new(python())
            .arg(script("recv.py"))
            .args(["127.0.0.1", "0"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = stdout.next().unwrap().unwrap();
        let port = ready.strip_prefix("ready ").unwrap().parse().unwrap();
        let (sender, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.map_while(Result::ok) {
                let _ = sender.send(serde_json::from_str(&line).unwrap());
            }
        });
        DisReceiver {
            child,
            _stdin: stdin,
            lines,
            port,
            seen: Vec::new(),
        }
    }

    /// A PDU decoded since the last call, if one satisfies `want`, waiting at most `wait`.
    fn next_matching(
        &mut self,
        wait: Duration,
        want: impl Fn(&serde_json::Value) -> bool,
    ) -> Option<serde_json::Value> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let pdu = self.lines.recv_timeout(left).ok()?;
            self.seen.push(pdu.clone());
            if want(&pdu) {
                return Some(pdu);
            }
        }
    }
}

impl Drop for DisReceiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The test's HLA federate: subscribed to what the gateway publishes, publishing a ground
/// vehicle and both interactions.
struct Federate {
    rti: RtiAmbassador,
    model: Arc<ObjectModel>,
}

const ATTRIBUTES: [&str; 9] = [
    "EntityType",
    "EntityIdentifier",
    "Spatial",
    "Marking",
    "ForceIdentifier",
    "DamageState",
    "FlamesPresent",
    "PowerPlantOn",
    "Immobilized",
];
const VEHICLE: &str = "BaseEntity.PhysicalEntity.Platform.GroundVehicle";

impl Federate {
    fn join(router: &Endpoint, federation: &str) -> Federate {
        let model = rpr_model();
        let node = NodeConfig::child_of("hla-side", federation, router.clone());
        let mut rti = RtiAmbassador::connect(RtiConfig::new(node)).unwrap();
        match rti.create_federation_execution(&model) {
            Ok(()) | Err(RtiError::FederationExecutionAlreadyExists(_)) => {}
            Err(e) => panic!("create: {e}"),
        }
        rti.join_federation_execution("hla-side", "test", model.clone())
            .unwrap();
        let mut federate = Federate { rti, model };
        let all = federate.attributes(VEHICLE);
        for class in ["BaseEntity.PhysicalEntity", VEHICLE] {
            let handle = federate.rti.object_class_handle(class).unwrap();
            federate
                .rti
                .subscribe_object_class_attributes(handle, &all)
                .unwrap();
        }
        let vehicle = federate.rti.object_class_handle(VEHICLE).unwrap();
        federate
            .rti
            .publish_object_class_attributes(vehicle, &all)
            .unwrap();
        for class in ["WeaponFire", "MunitionDetonation"] {
            let handle = federate.rti.interaction_class_handle(class).unwrap();
            federate.rti.subscribe_interaction_class(handle).unwrap();
            federate.rti.publish_interaction_class(handle).unwrap();
        }
        federate
    }

    fn attributes(&self, class: &str) -> Vec<AttributeHandle> {
        let class = self.rti.object_class_handle(class).unwrap();
        (ATTRIBUTES.iter())
            .map(|name| self.rti.attribute_handle(class, name).unwrap())
            .collect()
    }

    fn attribute(&self, name: &str) -> AttributeHandle {
        let class = self.rti.object_class_handle(VEHICLE).unwrap();
        self.rti.attribute_handle(class, name).unwrap()
    }

    /// Evoke for at most `wait`, until `want` takes a callback.
    fn evoke_until<T>(
        &mut self,
        wait: Duration,
        mut want: impl FnMut(Callback) -> Option<T>,
    ) -> Option<T> {
        let deadline = Instant::now() + wait;
        while Instant::now() < deadline {
            if let Some(callback) = self.rti.evoke_callback(Duration::from_millis(10)).unwrap() {
                if let Some(found) = want(callback) {
                    return Some(found);
                }
            }
        }
        None
    }

    /// `bytes` as the FOM's `type_name`, printed.
    fn text(&self, type_name: &str, bytes: &[u8]) -> String {
        decode_value(self.model.data_types(), type_name, bytes)
            .unwrap_or_else(|e| panic!("{type_name}: {e}"))
            .to_string()
    }

    /// Parameters by name.
    fn named<B: AsRef<[u8]>>(
        &self,
        class: &str,
        parameters: &[(ParameterHandle, B)],
    ) -> HashMap<String, Vec<u8>> {
        let class = self.rti.interaction_class_handle(class).unwrap();
        let names: HashMap<ParameterHandle, &str> = [
            "EventIdentifier",
            "FireControlSolutionRange",
            "FireMissionIndex",
            "FiringLocation",
            "FiringObjectIdentifier",
            "FuseType",
            "InitialVelocityVector",
            "MunitionObjectIdentifier",
            "MunitionType",
            "QuantityFired",
            "RateOfFire",
            "TargetObjectIdentifier",
            "WarheadType",
            "DetonationLocation",
            "DetonationResultCode",
            "FinalVelocityVector",
            "RelativeDetonationLocation",
        ]
        .into_iter()
        .filter_map(|n| Some((self.rti.parameter_handle(class, n).ok()?, n)))
        .collect();
        (parameters.iter())
            .filter_map(|(h, v)| Some((names.get(h)?.to_string(), v.as_ref().to_vec())))
            .collect()
    }
}

/// Repeat `attempt` (a send) until `check` finds its effect, within the bound: the first
/// sends may go before interest has crossed the router.
fn until<T>(mut attempt: impl FnMut(), mut check: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + WAIT;
    loop {
        attempt();
        if let Some(found) = check() {
            return found;
        }
        assert!(Instant::now() < deadline, "no effect within {WAIT:?}");
    }
}

/// DIS → HLA: an Entity State from opendis is discovered as a GroundVehicle with every
/// mapped value; Fire and Detonation arrive as interactions naming it.
fn dis_to_hla(gateway: &GatewayProcess, federate: &mut Federate) -> (ObjectId, String) {
    let vehicle = federate.rti.object_class_handle(VEHICLE).unwrap();
    let id_attribute = federate.attribute("EntityIdentifier");
    let (object, name, values) = until(
        || send_pdu(gateway.port, "entity"),
        || {
            federate.evoke_until(Duration::from_millis(500), |c| match c {
                Callback::DiscoverObjectInstance {
                    object,
                    class,
                    name,
                } => {
                    assert_eq!(class, vehicle, "a land platform is a GroundVehicle");
                    Some((object, name.to_string(), None))
                }
                Callback::ReflectAttributeValues { object, values, .. }
                    if values.iter().any(|(h, _)| *h == id_attribute) =>
                {
                    Some((object, String::new(), Some(values)))
                }
                _ => None,
            })
        },
    );
    let (name, values) = match values {
        Some(values) => (name, values),
        None => {
            let values = federate
                .evoke_until(WAIT, |c| match c {
                    Callback::ReflectAttributeValues {
                        object: o, values, ..
                    } if o == object => Some(values),
                    _ => None,
                })
                .expect("the discovered tank is reflected");
            (name, values)
        }
    };
    check_tank_values(federate, &values);
    let name = if name.is_empty() {
        federate
            .rti
            .object_instance_name(object)
            .unwrap()
            .to_string()
    } else {
        name
    };
    (object, name)
}

/// The tank opendis sent, as reflected: every mapped value through the FOM's decoder.
fn check_tank_values<B: AsRef<[u8]>>(federate: &Federate, values: &[(AttributeHandle, B)]) {
    let value = |attribute: &str| {
        let handle = federate.attribute(attribute);
        let bytes = &values.iter().find(|(h, _)| *h == handle).unwrap().1;
        bytes.as_ref().to_vec()
    };
    let text = |type_name: &str, attribute: &str| federate.text(type_name, &value(attribute));
    assert_eq!(
        text("EntityTypeStruct", "EntityType"),
        "{EntityKind: 1, Domain: 1, CountryCode: 225, Category: 1, Subcategory: 2, Specific: 3, Extra: 4}"
    );
    assert_eq!(
        text("EntityIdentifierStruct", "EntityIdentifier"),
        "{FederateIdentifier: {SiteID: 11, ApplicationID: 22}, EntityNumber: 33}"
    );
    assert_eq!(
        text("SpatialVariantStruct", "Spatial"),
        "{DeadReckoningAlgorithm: DRM_RVW, SpatialRVW: {WorldLocation: {X: 4000000.5, Y: 3000000.25, Z: -1000.75}, \
         IsFrozen: False, Orientation: {Psi: 0.5, Theta: -0.25, Phi: 1}, \
         VelocityVector: {XVelocity: 1.5, YVelocity: -2.5, ZVelocity: 0.25}, \
         AccelerationVector: {XAcceleration: 0.5, YAcceleration: 0, ZAcceleration: -0.5}, \
         AngularVelocity: {XAngularVelocity: 0, YAngularVelocity: 0.125, ZAngularVelocity: 0}}}"
    );
    let marking = value("Marking");
    assert_eq!(marking[0], 1, "ASCII");
    assert_eq!(&marking[1..], b"T72-RED\0\0\0\0");
    assert_eq!(text("ForceIdentifierEnum8", "ForceIdentifier"), "Opposing");
    assert_eq!(text("DamageStatusEnum32", "DamageState"), "ModerateDamage");
    assert_eq!(text("RPRboolean", "FlamesPresent"), "True");
    assert_eq!(text("RPRboolean", "PowerPlantOn"), "True");
    assert_eq!(text("RPRboolean", "Immobilized"), "False");
}

fn interaction(federate: &mut Federate, class: &str) -> Option<HashMap<String, Vec<u8>>> {
    let handle = federate.rti.interaction_class_handle(class).unwrap();
    let parameters = federate.evoke_until(Duration::from_millis(500), |c| match c {
        Callback::ReceiveInteraction {
            class, parameters, ..
        } if class == handle => Some(parameters),
        _ => None,
    })?;
    Some(federate.named(class, &parameters))
}

fn check_fire(gateway: &GatewayProcess, federate: &mut Federate, tank: &str) {
    let fire = until(
        || send_pdu(gateway.port, "fire"),
        || interaction(federate, "WeaponFire"),
    );
    let text = |federate: &Federate, type_name: &str, bytes: &[u8]| federate.text(type_name, bytes);
    assert_eq!(
        text(federate, "EventIdentifierStruct", &fire["EventIdentifier"]),
        format!("{{EventCount: 7, IssuingObjectIdentifier: {tank:?}}}")
    );
    assert_eq!(
        text(federate, "RTIobjectId", &fire["FiringObjectIdentifier"]),
        format!("{tank:?}")
    );
    assert_eq!(
        text(federate, "RTIobjectId", &fire["TargetObjectIdentifier"]),
        "\"\"",
        "unknown target"
    );
    assert_eq!(
        text(federate, "WorldLocationStruct", &fire["FiringLocation"]),
        "{X: 1, Y: 2, Z: 3}"
    );
    assert_eq!(
        text(
            federate,
            "VelocityVectorStruct",
            &fire["InitialVelocityVector"]
        ),
        "{XVelocity: 100, YVelocity: 0, ZVelocity: 50}"
    );
    assert_eq!(
        text(federate, "EntityTypeStruct", &fire["MunitionType"]),
        "{EntityKind: 2, Domain: 9, CountryCode: 225, Category: 2, Subcategory: 1, Specific: 0, Extra: 0}"
    );
    assert_eq!(fire["FireControlSolutionRange"], 1500f32.to_be_bytes());
    assert_eq!(fire["FireMissionIndex"], 3u32.to_be_bytes());
    assert_eq!(fire["QuantityFired"], 2u16.to_be_bytes());
    assert_eq!(fire["RateOfFire"], 60u16.to_be_bytes());
    assert_eq!(fire["WarheadType"], 1000u16.to_be_bytes());
    assert_eq!(fire["FuseType"], 100u16.to_be_bytes());
}

fn check_detonation(gateway: &GatewayProcess, federate: &mut Federate, tank: &str) {
    let text = |federate: &Federate, type_name: &str, bytes: &[u8]| federate.text(type_name, bytes);
    let det = until(
        || send_pdu(gateway.port, "detonation"),
        || interaction(federate, "MunitionDetonation"),
    );
    assert_eq!(
        text(federate, "WorldLocationStruct", &det["DetonationLocation"]),
        "{X: 5, Y: 6, Z: 7}"
    );
    assert_eq!(det["DetonationResultCode"], [5]);
    assert_eq!(
        text(
            federate,
            "VelocityVectorStruct",
            &det["FinalVelocityVector"]
        ),
        "{XVelocity: 90, YVelocity: 0, ZVelocity: -10}"
    );
    assert_eq!(
        text(
            federate,
            "RelativePositionStruct",
            &det["RelativeDetonationLocation"]
        ),
        "{BodyXDistance: 0.5, BodyYDistance: 0, BodyZDistance: 1.5}"
    );
    assert_eq!(
        text(federate, "RTIobjectId", &det["FiringObjectIdentifier"]),
        format!("{tank:?}")
    );
}

fn f64s(values: [f64; 3]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

fn f32s(values: [f32; 3]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_be_bytes()).collect()
}

/// The HLA vehicle's values, encoded by hand from the RPR data types (and checked against
/// the FOM's decoder below).
fn vehicle_values(federate: &Federate) -> Vec<(AttributeHandle, Vec<u8>)> {
    let mut spatial = vec![2u8, 0, 0, 0, 0, 0, 0, 0]; // DRM_FPW, padded to 8
    spatial.extend(f64s([100.5, 200.25, 300.0]));
    spatial.extend([0, 0, 0, 0]); // IsFrozen False, padded to 4
    spatial.extend(f32s([0.25, 0.5, 0.75]));
    spatial.extend(f32s([2.0, 0.0, 0.0]));
    assert_eq!(
        federate.text("SpatialVariantStruct", &spatial),
        "{DeadReckoningAlgorithm: DRM_FPW, SpatialFPW: {WorldLocation: {X: 100.5, Y: 200.25, Z: 300}, \
         IsFrozen: False, Orientation: {Psi: 0.25, Theta: 0.5, Phi: 0.75}, \
         VelocityVector: {XVelocity: 2, YVelocity: 0, ZVelocity: 0}}}"
    );
    let mut marking = vec![1u8];
    marking.extend(b"HLA-TANK\0\0\0");
    vec![
        (
            federate.attribute("EntityIdentifier"),
            vec![0, 7, 0, 8, 0, 9],
        ),
        (
            federate.attribute("EntityType"),
            vec![1, 1, 0, 225, 1, 1, 1, 0],
        ),
        (federate.attribute("Spatial"), spatial),
        (federate.attribute("Marking"), marking),
        (federate.attribute("ForceIdentifier"), vec![1]),
        (
            federate.attribute("DamageState"),
            3u32.to_be_bytes().to_vec(),
        ),
    ]
}

fn close(a: &serde_json::Value, b: [f64; 3], tolerance: f64) -> bool {
    (0..3).all(|i| (a[i].as_f64().unwrap() - b[i]).abs() <= tolerance)
}

/// HLA → DIS: the vehicle's updates decoded by opendis with the values sent.
fn hla_to_dis(federate: &mut Federate, receiver: &mut DisReceiver) -> ObjectId {
    let vehicle = federate.rti.object_class_handle(VEHICLE).unwrap();
    let object = federate.rti.register_object_instance(vehicle).unwrap();
    let values = vehicle_values(federate);
    let es = until(
        || {
            let rti = &mut federate.rti;
            rti.update_attribute_values(object, &values, b"").unwrap();
            // Serve the gateway's request for values, and anything else queued.
            while rti.evoke_callback(Duration::ZERO).unwrap().is_some() {}
        },
        || {
            receiver.next_matching(Duration::from_millis(300), |p| {
                p["type"] == 1 && p["id"] == serde_json::json!([7, 8, 9])
            })
        },
    );
    assert_eq!(es["version"], 7);
    assert_eq!(es["exercise"], 3);
    assert_eq!(es["length"], 144);
    assert_eq!(es["size"], 144);
    assert_eq!(
        es["entity_type"],
        serde_json::json!([1, 1, 225, 1, 1, 1, 0])
    );
    assert!(close(&es["location"], [100.5, 200.25, 300.0], 0.5), "{es}");
    assert!(close(&es["orientation"], [0.25, 0.5, 0.75], 1e-6), "{es}");
    assert!(close(&es["velocity"], [2.0, 0.0, 0.0], 1e-6), "{es}");
    assert_eq!(es["dr_algorithm"], 2);
    assert_eq!(es["marking"], "HLA-TANK");
    assert_eq!(es["marking_set"], 1);
    assert_eq!(es["force"], 1);
    assert_eq!(es["appearance"].as_u64().unwrap() & 0x18, 0x18, "destroyed");
    object
}

/// HLA → DIS: a WeaponFire and a MunitionDetonation from the vehicle `my_name` at the DIS
/// tank, decoded by opendis with the values sent.
fn hla_interactions_to_dis(
    federate: &mut Federate,
    receiver: &mut DisReceiver,
    my_name: &str,
    dis_tank: &str,
) {
    let fire_class = federate.rti.interaction_class_handle("WeaponFire").unwrap();
    let p = |name: &str| federate.rti.parameter_handle(fire_class, name).unwrap();
    let mut event = 42u16.to_be_bytes().to_vec();
    event.extend(my_name.as_bytes());
    event.push(0);
    let object_id = |name: &str| {
        let mut bytes = name.as_bytes().to_vec();
        bytes.push(0);
        bytes
    };
    let fire = vec![
        (p("EventIdentifier"), event.clone()),
        (p("FiringObjectIdentifier"), object_id(my_name)),
        (p("TargetObjectIdentifier"), object_id(dis_tank)),
        (p("FiringLocation"), f64s([9.0, 8.0, 7.0])),
        (p("InitialVelocityVector"), f32s([1.0, 2.0, 3.0])),
        (p("MunitionType"), vec![2, 1, 0, 225, 2, 3, 0, 0]),
        (p("QuantityFired"), 4u16.to_be_bytes().to_vec()),
        (p("WarheadType"), 5000u16.to_be_bytes().to_vec()),
        (p("FuseType"), 1000u16.to_be_bytes().to_vec()),
        (p("FireMissionIndex"), 12u32.to_be_bytes().to_vec()),
        (p("FireControlSolutionRange"), 250f32.to_be_bytes().to_vec()),
    ];
    let pdu = until(
        || {
            federate
                .rti
                .send_interaction(fire_class, &fire, b"")
                .unwrap()
        },
        || receiver.next_matching(Duration::from_millis(300), |p| p["type"] == 2),
    );
    assert_eq!(pdu["firing"], serde_json::json!([7, 8, 9]));
    assert_eq!(
        pdu["target"],
        serde_json::json!([11, 22, 33]),
        "the DIS tank by its instance name"
    );
    assert_eq!(pdu["event"], serde_json::json!([7, 8, 42]));
    assert_eq!(pdu["location"], serde_json::json!([9.0, 8.0, 7.0]));
    assert_eq!(pdu["velocity"], serde_json::json!([1.0, 2.0, 3.0]));
    assert_eq!(
        pdu["burst"],
        serde_json::json!({"munition": [2, 1, 225, 2, 3, 0, 0], "warhead": 5000, "fuse": 1000, "quantity": 4, "rate": 0})
    );
    assert_eq!(pdu["mission"], 12);
    assert_eq!(pdu["range"], 250.0);

    let det_class = federate
        .rti
        .interaction_class_handle("MunitionDetonation")
        .unwrap();
    let p = |name: &str| federate.rti.parameter_handle(det_class, name).unwrap();
    let det = vec![
        (p("EventIdentifier"), event),
        (p("FiringObjectIdentifier"), object_id(my_name)),
        (p("DetonationLocation"), f64s([4.0, 5.0, 6.0])),
        (p("FinalVelocityVector"), f32s([0.5, 0.25, 0.0])),
        (p("RelativeDetonationLocation"), f32s([1.0, 0.0, -1.0])),
        (p("DetonationResultCode"), vec![1]),
    ];
    let pdu = until(
        || federate.rti.send_interaction(det_class, &det, b"").unwrap(),
        || receiver.next_matching(Duration::from_millis(300), |p| p["type"] == 3),
    );
    assert_eq!(pdu["firing"], serde_json::json!([7, 8, 9]));
    assert_eq!(pdu["location"], serde_json::json!([4.0, 5.0, 6.0]));
    assert_eq!(pdu["velocity"], serde_json::json!([0.5, 0.25, 0.0]));
    assert_eq!(pdu["relative"], serde_json::json!([1.0, 0.0, -1.0]));
    assert_eq!(pdu["result"], 1);
}

#[test]
fn opendis_and_an_hla_federate_exchange_entities_fire_and_detonation() {
    let _ = python();
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let mut receiver = DisReceiver::start();
    let send = format!("127.0.0.1:{}", receiver.port);
    let mut gateway = GatewayProcess::start(&router.endpoint(), "DisExchange", &["--send", &send]);
    let mut federate = Federate::join(&router.endpoint(), "DisExchange");

    let (dis_object, dis_name) = dis_to_hla(&gateway, &mut federate);
    check_fire(&gateway, &mut federate, &dis_name);
    check_detonation(&gateway, &mut federate, &dis_name);
    let hla_object = hla_to_dis(&mut federate, &mut receiver);
    let my_name = federate
        .rti
        .object_instance_name(hla_object)
        .unwrap()
        .to_string();
    hla_interactions_to_dis(&mut federate, &mut receiver, &my_name, &dis_name);

    // An Entity State for the HLA vehicle's id coming back from DIS is an echo: dropped.
    send_pdu(gateway.port, "echo");
    gateway.wait_for_counts(|c| c["echoes"] >= 1 && c["es_in"] >= 2);
    // Nothing that came from DIS went back out to DIS.
    receiver.next_matching(Duration::from_millis(200), |_| false);
    assert!(
        receiver
            .seen
            .iter()
            .all(|p| p.get("id") != Some(&serde_json::json!([11, 22, 33]))),
        "the DIS tank was echoed: {:?}",
        receiver.seen
    );

    // Remove Entity from DIS deletes the instance; deleting the HLA vehicle sends a
    // deactivated Entity State and a Remove Entity.
    let removed = until(
        || send_pdu(gateway.port, "remove"),
        || {
            federate.evoke_until(Duration::from_millis(500), |c| match c {
                Callback::RemoveObjectInstance { object, .. } => Some(object),
                _ => None,
            })
        },
    );
    assert_eq!(removed, dis_object);
    federate
        .rti
        .delete_object_instance(hla_object, b"")
        .unwrap();
    let remove = receiver
        .next_matching(WAIT, |p| p["type"] == 12)
        .expect("a Remove Entity PDU");
    assert_eq!(remove["receiving"], serde_json::json!([7, 8, 9]));
    assert_eq!(remove["originating"], serde_json::json!([5, 6, 0]));
    assert!(
        receiver.seen.iter().any(|p| p["type"] == 1
            && p["id"] == serde_json::json!([7, 8, 9])
            && p["appearance"].as_u64().unwrap() & (1 << 23) != 0),
        "a deactivated Entity State before the removal"
    );
    gateway.stop();
}

#[test]
fn malformed_pdus_are_counted_and_ignored() {
    let _ = python();
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let mut gateway = GatewayProcess::start(&router.endpoint(), "DisMalformed", &[]);
    let mut federate = Federate::join(&router.endpoint(), "DisMalformed");
    let socket = UdpSocket::bind("127.0.0.1:0").unwrap();
    let to = ("127.0.0.1", gateway.port);
    // An Entity State header: version 7, exercise 3, type 1, family 1, length 144.
    let header = |version: u8, exercise: u8, length: u16| {
        let mut h = vec![version, exercise, 1, 1, 0, 0, 0, 0];
        h.extend(length.to_be_bytes());
        h.extend([0, 0]);
        h
    };
    let mut whole = header(7, 3, 144);
    whole.resize(144, 0);
    let mut cut = header(7, 3, 144);
    cut.resize(60, 0);
    let mut parameters = whole.clone();
    parameters[19] = 9; // nine variable parameters in a PDU with room for none
    let mut old = whole.clone();
    old[0] = 5; // DIS 1995: not read
    let mut elsewhere = whole.clone();
    elsewhere[1] = 4; // another exercise
    for datagram in [&b"\x07\x03"[..], &cut, &parameters, &old, &elsewhere] {
        socket.send_to(datagram, to).unwrap();
    }
    gateway.wait_for_counts(|c| {
        c["malformed"] == 3 && c["unsupported"] == 1 && c["other_exercise"] == 1
    });
    // The gateway goes on: a good Entity State after them is discovered.
    until(
        || send_pdu(gateway.port, "entity"),
        || {
            federate.evoke_until(Duration::from_millis(500), |c| {
                matches!(c, Callback::DiscoverObjectInstance { .. }).then_some(())
            })
        },
    );
    gateway.wait_for_counts(|c| c["malformed"] == 3 && c["es_in"] >= 1 && c["dis_entities"] == 1);
    gateway.stop();
}

/// A DIS entity unheard for the time-out is deleted; an HLA entity silent for the heartbeat
/// is sent again, dead-reckoned; the entity table holds no more than --max-entities.
#[test]
fn time_outs_heartbeats_and_the_table_limit() {
    let _ = python();
    let router = RouterProcess::start(&["--listen", "tcp://127.0.0.1:0"]);
    let mut receiver = DisReceiver::start();
    let send = format!("127.0.0.1:{}", receiver.port);
    let options = [
        "--send",
        &send,
        "--timeout",
        "0.5",
        "--heartbeat",
        "0.3",
        "--max-entities",
        "1",
    ];
    let mut gateway = GatewayProcess::start(&router.endpoint(), "DisTimers", &options);
    let mut federate = Federate::join(&router.endpoint(), "DisTimers");

    let discovered = until(
        || send_pdu(gateway.port, "entity"),
        || {
            federate.evoke_until(Duration::from_millis(500), |c| match c {
                Callback::DiscoverObjectInstance { object, .. } => Some(object),
                _ => None,
            })
        },
    );
    // A second DIS entity does not fit in a table of one.
    send_pdu(gateway.port, "echo");
    gateway.wait_for_counts(|c| c["table_full"] >= 1 && c["dis_entities"] == 1);
    // Silence: deleted after the time-out, without a Remove Entity PDU.
    let removed = federate
        .evoke_until(WAIT, |c| match c {
            Callback::RemoveObjectInstance { object, .. } => Some(object),
            _ => None,
        })
        .expect("the silent DIS entity is deleted");
    assert_eq!(removed, discovered);
    gateway.wait_for_counts(|c| c["timed_out"] == 1 && c["remove_in"] == 0);

    // The HLA vehicle moves at 2 m/s along x (DRM_FPW): later heartbeats are further on.
    let vehicle = federate.rti.object_class_handle(VEHICLE).unwrap();
    let object = federate.rti.register_object_instance(vehicle).unwrap();
    let values = vehicle_values(&federate);
    let first = until(
        || {
            let rti = &mut federate.rti;
            rti.update_attribute_values(object, &values, b"").unwrap();
            while rti.evoke_callback(Duration::ZERO).unwrap().is_some() {}
        },
        || receiver.next_matching(Duration::from_millis(300), |p| p["type"] == 1),
    );
    let x = |pdu: &serde_json::Value| pdu["location"][0].as_f64().unwrap();
    let start = Instant::now();
    let later = receiver
        .next_matching(WAIT, |p| p["type"] == 1 && x(p) > x(&first) + 0.3)
        .expect("a heartbeat dead-reckoned further along x");
    // At most 2 m/s for the time gone (and a heartbeat's margin): reckoned, not invented.
    let bound = 2.0 * (start.elapsed().as_secs_f64() + 1.0);
    assert!(x(&later) - x(&first) <= bound, "{first} then {later}");
    assert_eq!(
        later["location"][1], first["location"][1],
        "y does not move"
    );
    gateway.stop();
}
