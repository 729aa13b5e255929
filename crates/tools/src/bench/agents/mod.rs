//! Benchmarks whose federates run as separate processes: a coordinator (the `trellis
//! bench` process, which starts the routers and creates the federation) and agents
//! (`trellis bench agent`, one per federate) that it starts, measures the clocks of,
//! starts at one barrier and collects counts and round trips from. Agents run as child
//! processes, as Slurm job steps, or on the hosts a hosts file names (a child process
//! there, or over ssh); the control protocol is TCP, on an address the agents can reach.

pub mod agent;
pub mod clock;
pub mod coordinator;
pub use crate::hosts;
pub mod matrix;
pub mod oneway;
pub mod parties;
pub mod pingpong;
pub mod protocol;
pub mod team;
pub mod testfed;
pub mod throughput;

pub use coordinator::{Launch, Via};
pub use hosts::HostsFile;

use super::network::{Federation, Network, SETUP_TIMEOUT};
use super::{BenchError, Setup};
use coordinator::Agents;
use protocol::{AgentSetup, FromAgent, Target};

/// Where agents find the benchmark's network and federation.
fn agent_setup(
    network: &Network,
    setup: &Setup,
    federation: Option<&Federation>,
) -> Result<AgentSetup, BenchError> {
    let target = match (&setup.topology, network.router_endpoint()) {
        (Some(file), _) => Target::Topology(std::path::absolute(file)?),
        (None, Some(endpoint)) => Target::Router(endpoint.to_string()),
        (None, None) => {
            return Err(BenchError::Failed(
                "the benchmark's network has no address agents can reach".into(),
            ))
        }
    };
    Ok(AgentSetup {
        target,
        transport: setup.transport,
        bundling: setup.bundling.label(),
        api: setup.api,
        spin_us: setup.spin.as_micros() as u64,
        federation: federation.map(|f| f.name().to_owned()),
    })
}

/// Wait until every agent joined and subscribed as told.
fn all_ready(agents: &mut Agents) -> Result<(), BenchError> {
    let everyone: Vec<usize> = (0..agents.len()).collect();
    let answers = agents.collect(&everyone, SETUP_TIMEOUT, "ready")?;
    for (agent, answer) in answers.iter().enumerate() {
        if !matches!(answer, FromAgent::Ready) {
            return Err(agents.unexpected(agent, Some(answer), "ready"));
        }
    }
    Ok(())
}
