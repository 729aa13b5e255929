//! `trellis router --policy`: the real binary refuses what its access policy does not allow,
//! with the rule named to the federate, and serves what it allows.

mod common;

use common::router::RouterProcess;
use common::{demo_model, TempDir};
use std::process::Command;
use trellis_core::federate::ResignAction;
use trellis_net::rti::{RtiAmbassador, RtiConfig, RtiError};
use trellis_net::{Endpoint, NodeConfig};

const POLICY: &str = r#"
# Anyone may use the sandbox; nobody may create anything else.
[[allow]]
identities = ["*"]
federations = ["Sandbox*"]
actions = ["create", "join", "destroy"]
"#;

fn start(policy: &std::path::Path) -> (RouterProcess, Endpoint) {
    let policy = policy.to_str().expect("a UTF-8 path");
    let router = RouterProcess::start(&["--listen", "127.0.0.1:0", "--policy", policy]);
    let at = router.endpoint();
    (router, at)
}

fn connect(at: &Endpoint, federation: &str) -> RtiAmbassador {
    let config = RtiConfig::new(NodeConfig::child_of("f", federation, at.clone()));
    RtiAmbassador::connect(config).expect("connect")
}

#[test]
fn a_federation_the_policy_does_not_allow_is_refused_naming_the_policy() {
    let dir = TempDir::new("policy");
    let file = dir.path("policy.toml");
    std::fs::write(&file, POLICY).expect("policy written");
    let (_router, at) = start(&file);
    let model = demo_model();
    let mut outsider = connect(&at, "Exercise");
    let refused = outsider.create_federation_execution(&model);
    let Err(RtiError::Registry(why)) = &refused else {
        panic!("create Exercise: {refused:?}")
    };
    assert!(
        why.contains("access policy") && why.contains("Exercise"),
        "{why}"
    );
    let mut allowed = connect(&at, "Sandbox-1");
    allowed.create_federation_execution(&model).expect("create");
    allowed
        .join_federation_execution("f", "sim", model)
        .expect("join");
    allowed
        .resign_federation_execution(ResignAction::default())
        .expect("resign");
    allowed.destroy_federation_execution().expect("destroy");
}

#[test]
fn the_object_model_of_class_rules_is_read_at_start_and_a_missing_one_named() {
    let dir = TempDir::new("policy-model");
    let file = dir.path("policy.toml");
    let demo = concat!(env!("CARGO_MANIFEST_DIR"), "/../../foms/trellis-demo.xml");
    let rules = "[[allow]]\nidentities = [\"tank-*\"]\nfederations = [\"Sandbox*\"]\n\
                 actions = [\"create\", \"join\"]\npublish = [\"Vehicle.*\"]\n";
    std::fs::write(
        &file,
        format!("[[model]]\nfederations = [\"Sandbox*\"]\nmodules = [\"{demo}\"]\n\n{rules}"),
    )
    .expect("policy written");
    let (_router, _at) = start(&file);
    std::fs::write(
        &file,
        format!("[[model]]\nfederations = [\"Sandbox*\"]\nmodules = [\"nosuch.xml\"]\n\n{rules}"),
    )
    .expect("policy written");
    let out = Command::new(env!("CARGO_BIN_EXE_trellis"))
        .args(["router", "--listen", "127.0.0.1:0", "--policy"])
        .arg(&file)
        .output()
        .expect("trellis runs");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("model 1") && stderr.contains("nosuch.xml"),
        "{stderr}"
    );
}
