//! Topology plans (`trellis_core::topology`) into host configurations: how a router
//! process, or a federate, opens and accepts the links the topology gives it.

use crate::endpoint::Endpoint;
use crate::error::NetError;
use crate::node::{Attachment, NodeConfig};
use crate::runtime::{DialConfig, Host, HostConfig, Runtime, DEFAULT_MAX_ATTEMPTS};
use std::time::Duration;
use trellis_core::router::{LinkConfig, RouterConfig};
use trellis_core::topology::{
    Dial, LinkOptions, LinkRole, ListenAddress, NodeKind, NodePlan, Pipe, Topology,
};
use trellis_core::wire::Role;

fn endpoint(address: &ListenAddress) -> Result<Endpoint, NetError> {
    address
        .to_string()
        .parse()
        .map_err(|e: crate::EndpointError| NetError::Plan(e.to_string()))
}

/// A topology link's options over the router's defaults.
pub fn link_config(options: &LinkOptions) -> LinkConfig {
    LinkConfig {
        bundling_delay: Duration::from_millis(options.bundling_delay_ms),
        queue_limit_bytes: options.queue_limit_bytes as usize,
        ..LinkConfig::default()
    }
}

/// How to open one dialed link. `federation` is empty for a router (its links carry
/// every federation).
pub fn dial_config(dial: &Dial, federation: &str) -> Result<DialConfig, NetError> {
    let far_role = match dial.role {
        LinkRole::Parent => Role::Parent,
        LinkRole::Peer => Role::Peer,
        LinkRole::Child => {
            return Err(NetError::Plan(format!(
                "a plan never dials a child ({})",
                dial.far
            )))
        }
    };
    Ok(DialConfig {
        endpoint: endpoint(&dial.address)?,
        far_role,
        federation: federation.to_owned(),
        clique: dial.clique.clone().unwrap_or_default(),
        udp: dial.options.pipe == Pipe::Udp,
        // A link the topology leaves at the defaults takes the host's own defaults.
        link: (dial.options != LinkOptions::default()).then(|| link_config(&dial.options)),
        persistent: true,
        max_attempts: DEFAULT_MAX_ATTEMPTS,
        alternates: dial
            .alternates
            .iter()
            .map(|a| endpoint(&a.address))
            .collect::<Result<_, _>>()?,
    })
}

/// A plan's TLS files as the host reads them.
pub fn tls_config(files: &trellis_core::topology::TlsFiles) -> crate::tls::TlsConfig {
    crate::tls::TlsConfig {
        cert_chain_pem: files.cert.as_ref().map(Into::into),
        key_pem: files.key.as_ref().map(Into::into),
        trusted_ca_pem: files.ca.clone().into(),
        require_client_cert: files.mtls,
    }
}

/// Listen, dial and accept as `plan` says.
pub fn host_config(
    plan: &NodePlan,
    mut router: RouterConfig,
    federation: &str,
) -> Result<HostConfig, NetError> {
    router.hosts_registry = plan.hosts_registry;
    let mut host = HostConfig::new(router);
    host.tls = plan.tls.as_ref().map(tls_config);
    host.listen = plan.listen.iter().map(endpoint).collect::<Result<_, _>>()?;
    host.dial = plan
        .dial
        .iter()
        .map(|d| dial_config(d, federation))
        .collect::<Result<_, _>>()?;
    host.accept = plan
        .accept
        .iter()
        .filter(|a| a.options != LinkOptions::default())
        .map(|a| (a.far.clone(), link_config(&a.options)))
        .collect();
    Ok(host)
}

impl NodeConfig {
    /// A federate placed in a topology: it listens, dials and accepts as its plan says.
    pub fn from_plan(
        plan: &NodePlan,
        federation: impl Into<String>,
    ) -> Result<NodeConfig, NetError> {
        let federation = federation.into();
        let dial = plan
            .dial
            .iter()
            .map(|d| dial_config(d, &federation))
            .collect::<Result<Vec<_>, _>>()?;
        let mut config = NodeConfig::new(
            plan.name.clone(),
            federation,
            Attachment::Plan {
                plan: Box::new(plan.clone()),
            },
        );
        config.udp = dial.iter().any(|d| d.udp);
        Ok(config)
    }
}

/// Links of `plan` to other routers: the ones that come up once every router runs.
pub fn router_links(topology: &Topology, plan: &NodePlan) -> usize {
    let is_router = |name: &str| {
        topology
            .node(name)
            .is_some_and(|n| n.kind == NodeKind::Router)
    };
    plan.dial.iter().filter(|d| is_router(&d.far)).count()
        + plan
            .accept
            .iter()
            .filter(|a| is_router(&a.far) && !a.standby)
            .count()
}

/// Start every router of `topology` as a host of `runtime` (`router` gives each its
/// settings by name) and wait until all router links are up.
pub fn start_routers(
    runtime: &Runtime,
    topology: &Topology,
    router: impl Fn(&str) -> RouterConfig,
    timeout: Duration,
) -> Result<Vec<Host>, NetError> {
    let mut hosts = Vec::new();
    for node in topology.routers() {
        let plan = topology
            .plan(&node.name)
            .map_err(|e| NetError::Plan(e.to_string()))?;
        let host = runtime.add_host(host_config(&plan, router(&node.name), "")?)?;
        hosts.push((host, router_links(topology, &plan)));
    }
    for (host, links) in &hosts {
        host.wait_for_links(*links, timeout)?;
    }
    Ok(hosts.into_iter().map(|(host, _)| host).collect())
}

impl NodeConfig {
    /// A federate program's way in: its attachment point `name` in the topology `file`.
    pub fn from_topology(
        file: &std::path::Path,
        name: &str,
        federation: impl Into<String>,
    ) -> Result<NodeConfig, NetError> {
        let text = std::fs::read_to_string(file)
            .map_err(|e| NetError::Plan(format!("{}: {e}", file.display())))?;
        let topology = Topology::from_toml(&text)
            .map_err(|e| NetError::Plan(format!("{}: {e}", file.display())))?;
        let plan = topology
            .plan(name)
            .map_err(|e| NetError::Plan(format!("{}: {e}", file.display())))?;
        NodeConfig::from_plan(&plan, federation)
    }
}
