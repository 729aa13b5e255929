//! The coordinator's side: start one agent process per name (here, as Slurm job steps,
//! or on the hosts of a hosts file), accept their control connections on the control
//! address (127.0.0.1 unless told otherwise), measure their clocks, and wait for their answers. Every wait
//! is bounded; an agent that dies or fails is reported by name at once, and every agent
//! still running when the coordinator is dropped is killed.

use super::super::oneway::Clock;
use super::super::BenchError;
use super::clock::{self, ClockOffset, Probe};
use super::hosts::{self, Host, HostsFile};
use super::protocol::{self, FromAgent, ToAgent};
use serde::Serialize;
use std::collections::VecDeque;
use std::io::BufReader;
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long agents get to start and say hello.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(20);
/// Messages an agent may send ahead of what the coordinator waits for.
const MAX_INBOX: usize = 64;
/// Events (messages, losses) in flight from all agents' reader threads together.
const EVENT_QUEUE: usize = 1024;
/// Agents one run may start: each is a process with a connection and a reader thread.
pub const MAX_AGENTS: usize = 256;

/// How agents are started.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The `trellis` binary agents run (`trellis bench agent ...`).
    pub program: PathBuf,
    pub via: Via,
    /// Where the coordinator listens for agents' control connections; agents connect to
    /// this address, so it must be one they can reach ([`hosts::DEFAULT_CONTROL`]: this
    /// machine only).
    pub control: SocketAddr,
    /// Agents placed on the hosts of this file (overrides `via`).
    pub hosts: Option<HostsFile>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// Child processes of the coordinator.
    Local,
    /// One job step each (`srun`) in the Slurm allocation the coordinator runs in; they
    /// reach the coordinator at the control address.
    SlurmSteps,
}

impl Via {
    fn label(self) -> &'static str {
        match self {
            Via::Local => "local",
            Via::SlurmSteps => "slurm job steps",
        }
    }
}

impl Launch {
    /// Agents on this machine, connecting back to 127.0.0.1.
    pub fn local(program: PathBuf, via: Via) -> Launch {
        Launch {
            program,
            via,
            control: hosts::DEFAULT_CONTROL,
            hosts: None,
        }
    }

    /// How the results name where agents ran.
    fn placement(&self) -> String {
        match &self.hosts {
            Some(file) => format!("hosts file {}", file.path.display()),
            None => self.via.label().to_owned(),
        }
    }

    /// The command that starts agent `name` on `host` (or as `via` says without a hosts
    /// file), connecting back to `coordinator`.
    fn command(
        &self,
        coordinator: &str,
        name: &str,
        host: Option<&Host>,
    ) -> Result<Command, BenchError> {
        let agent_args = [
            "bench",
            "agent",
            "--coordinator",
            coordinator,
            "--name",
            name,
        ];
        let mut command = match (host, self.via) {
            (Some(host), _) => host.command(&self.program, &agent_args, false),
            (None, Via::Local) => {
                let mut command = Command::new(&self.program);
                command.args(agent_args);
                command
            }
            (None, Via::SlurmSteps) => {
                if std::env::var_os("SLURM_JOB_ID").is_none() {
                    return Err(BenchError::Failed(
                        "agents as Slurm job steps run inside an allocation (sbatch, salloc): \
                         SLURM_JOB_ID is not set"
                            .into(),
                    ));
                }
                let mut srun = Command::new("srun");
                // --overlap: an agent shares CPUs with the coordinator's own step, as the
                // routers' steps do; one task on one node, named after the agent.
                srun.args(["--overlap", "--ntasks=1", "--nodes=1", "--job-name"])
                    .arg(format!("agent-{name}"))
                    .arg(&self.program)
                    .args(agent_args);
                srun
            }
        };
        command.stdin(Stdio::null()).stdout(Stdio::null());
        Ok(command)
    }
}

struct Agent {
    name: String,
    role: String,
    host: Option<String>,
    pid: u32,
    child: Child,
    stream: TcpStream,
    inbox: VecDeque<FromAgent>,
    clock: Option<ClockOffset>,
    offset_nanos: i64,
    /// It said finished: its connection closing after that is its ordinary exit.
    finished: bool,
}

type Event = (usize, Result<FromAgent, String>);

pub struct Agents {
    agents: Vec<Agent>,
    events: Receiver<Event>,
    placement: String,
    control: SocketAddr,
    /// The coordinator's wall clock when the agents started: the run's clock counts from here.
    began_unix_nanos: u64,
}

/// One agent as the results describe it.
#[derive(Clone, Debug, Serialize)]
pub struct AgentRecord {
    pub name: String,
    pub role: String,
    /// The hosts file's host it ran on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
    pub pid: u32,
    pub clock: Option<ClockOffset>,
}

/// What `agents.json` holds: how times from different agents were compared, and who ran.
#[derive(Clone, Debug, Serialize)]
pub struct AgentsReport {
    pub placement: String,
    /// Where the coordinator listened for the agents.
    pub control: String,
    pub clock_method: String,
    pub agents: Vec<AgentRecord>,
}

impl Agents {
    /// Start one agent per `(name, role)` and wait until each has said hello.
    pub fn start(launch: &Launch, names: &[(String, String)]) -> Result<Agents, BenchError> {
        if names.len() > MAX_AGENTS {
            return Err(BenchError::Failed(format!(
                "{} agents asked for; at most {MAX_AGENTS}",
                names.len()
            )));
        }
        for (i, (name, _)) in names.iter().enumerate() {
            if names[..i].iter().any(|(n, _)| n == name) {
                return Err(BenchError::Failed(format!(
                    "{name} is placed twice: every federate needs an attachment point of its own"
                )));
            }
        }
        let federates: Vec<String> = names.iter().map(|(n, _)| n.clone()).collect();
        let placed: Vec<Option<&Host>> = match &launch.hosts {
            Some(file) => file.placement(&federates)?.into_iter().map(Some).collect(),
            None => vec![None; names.len()],
        };
        let listener = TcpListener::bind(launch.control).map_err(|e| {
            BenchError::Failed(format!(
                "the agents' control address {}: {e}",
                launch.control
            ))
        })?;
        let address = listener.local_addr()?;
        let mut children = Vec::new();
        for ((name, _), host) in names.iter().zip(&placed) {
            let mut command = launch.command(&address.to_string(), name, *host)?;
            let child = command.spawn().map_err(|e| {
                BenchError::Failed(format!(
                    "starting agent {name} ({:?}): {e}",
                    command.get_program()
                ))
            })?;
            children.push(Some(child));
        }
        let mut guard = ChildGuard(children);
        let streams = accept_all(&listener, names, &mut guard.0)?;
        let (events_tx, events) = mpsc::sync_channel(EVENT_QUEUE);
        let mut agents = Vec::new();
        for (index, ((stream, pid), (name, role))) in streams.into_iter().zip(names).enumerate() {
            let mut reader = BufReader::new(stream.try_clone()?);
            let (tx, peer) = (events_tx.clone(), format!("agent {name}"));
            std::thread::Builder::new()
                .name(format!("agent-{index}"))
                .spawn(move || loop {
                    let event = match protocol::receive::<FromAgent>(&mut reader, &peer) {
                        Ok(Some(message)) => Ok(message),
                        Ok(None) => Err("closed its control connection".to_owned()),
                        Err(e) => Err(e.to_string()),
                    };
                    let last = event.is_err();
                    if tx.send((index, event)).is_err() || last {
                        return;
                    }
                })?;
            let child = guard.0[index]
                .take()
                .expect("each agent's child is taken once");
            agents.push(Agent {
                name: name.clone(),
                role: role.clone(),
                host: placed[index].map(|h| h.name.clone()),
                pid,
                child,
                stream,
                inbox: VecDeque::new(),
                clock: None,
                offset_nanos: 0,
                finished: false,
            });
        }
        for agent in &agents {
            tracing::info!(agent = %agent.name, pid = agent.pid, role = %agent.role, "agent connected");
        }
        Ok(Agents {
            agents,
            events,
            placement: launch.placement(),
            control: address,
            began_unix_nanos: protocol::unix_nanos(),
        })
    }

    pub fn len(&self) -> usize {
        self.agents.len()
    }

    pub fn is_empty(&self) -> bool {
        self.agents.is_empty()
    }

    pub fn name(&self, agent: usize) -> &str {
        &self.agents[agent].name
    }

    /// The run's clock as the coordinator reads it; agents read the same clock through
    /// their measured offsets.
    pub(crate) fn clock(&self) -> Clock {
        Clock::shifted(0, self.began_unix_nanos)
    }

    /// What agent `agent`'s probes found (`None` before measuring).
    pub fn clock_offset(&self, agent: usize) -> Option<&ClockOffset> {
        self.agents[agent].clock.as_ref()
    }

    /// Agent `agent`'s clock minus the coordinator's, nanoseconds (0 before measuring).
    pub fn offset_nanos(&self, agent: usize) -> i64 {
        self.agents[agent].offset_nanos
    }

    pub fn send(&mut self, agent: usize, message: &ToAgent) -> Result<(), BenchError> {
        let agent = &mut self.agents[agent];
        protocol::send(&mut agent.stream, message).map_err(|e| {
            BenchError::Failed(format!("agent {} (pid {}): {e}", agent.name, agent.pid))
        })
    }

    pub fn send_all(&mut self, message: &ToAgent) -> Result<(), BenchError> {
        (0..self.agents.len()).try_for_each(|agent| self.send(agent, message))
    }

    /// The next message of each agent in `from`, within `timeout`. An agent that failed,
    /// died or closed its connection meanwhile, any of them, ends the wait with an error
    /// naming it; so does a timeout, naming those that did not answer.
    pub fn collect(
        &mut self,
        from: &[usize],
        timeout: Duration,
        what: &str,
    ) -> Result<Vec<FromAgent>, BenchError> {
        let deadline = Instant::now() + timeout;
        loop {
            if let Some(failed) = self.agents.iter().find_map(|a| match a.inbox.front() {
                Some(FromAgent::Failed { message }) => Some(format!(
                    "agent {} (pid {}) failed: {message}",
                    a.name, a.pid
                )),
                _ => None,
            }) {
                return Err(BenchError::Failed(failed));
            }
            if from.iter().all(|&a| !self.agents[a].inbox.is_empty()) {
                return Ok(from
                    .iter()
                    .filter_map(|&a| self.agents[a].inbox.pop_front())
                    .collect());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            match self.events.recv_timeout(left) {
                Ok((agent, Ok(message))) => {
                    let inbox = &mut self.agents[agent].inbox;
                    if inbox.len() >= MAX_INBOX {
                        return Err(BenchError::Failed(format!(
                            "agent {} sent more than {MAX_INBOX} messages nobody asked for",
                            self.agents[agent].name
                        )));
                    }
                    self.agents[agent].finished |= matches!(message, Finished { .. });
                    self.agents[agent].inbox.push_back(message);
                }
                Ok((agent, Err(_))) if self.agents[agent].finished => {}
                Ok((agent, Err(why))) => return Err(self.lost(agent, &why)),
                Err(RecvTimeoutError::Timeout) => {
                    let silent: Vec<&str> = from
                        .iter()
                        .filter(|&&a| self.agents[a].inbox.is_empty())
                        .map(|&a| self.agents[a].name.as_str())
                        .collect();
                    return Err(BenchError::Failed(format!(
                        "no {what} from agent(s) {} within {:.0} s",
                        silent.join(", "),
                        timeout.as_secs_f64()
                    )));
                }
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(BenchError::Failed("every agent connection closed".into()))
                }
            }
        }
    }

    /// The error for an agent whose connection ended: with its exit status if it exited.
    fn lost(&mut self, agent: usize, why: &str) -> BenchError {
        let agent = &mut self.agents[agent];
        // A killed process closes its socket as it dies: its status follows within moments.
        let deadline = Instant::now() + Duration::from_secs(2);
        let status = loop {
            match agent.child.try_wait() {
                Ok(Some(status)) => break format!("; it exited ({status})"),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(10))
                }
                Ok(None) => break "; it still runs".to_owned(),
                Err(e) => break format!("; its status is unknown ({e})"),
            }
        };
        BenchError::Failed(format!(
            "agent {} (pid {}) lost: {why}{status}",
            agent.name, agent.pid
        ))
    }

    /// Measure every agent's clock offset by [`clock::PROBES`] probes each, and tell each
    /// agent its own, so that it can read the run's clock.
    pub fn probe_clocks(&mut self) -> Result<(), BenchError> {
        for agent in 0..self.agents.len() {
            let mut probes = Vec::with_capacity(clock::PROBES);
            for _ in 0..clock::PROBES {
                let t0 = protocol::unix_nanos();
                self.send(agent, &ToAgent::ClockProbe)?;
                let answer = self.collect(&[agent], Duration::from_secs(5), "clock answer")?;
                let t3 = protocol::unix_nanos();
                match answer.first() {
                    Some(FromAgent::Clock { unix_nanos }) => probes.push(Probe {
                        t0,
                        t1: *unix_nanos,
                        t2: *unix_nanos,
                        t3,
                    }),
                    other => return Err(self.unexpected(agent, other, "a clock answer")),
                }
            }
            let best = probes.iter().min_by_key(|p| p.rtt_nanos());
            let offset_nanos = best.map_or(0, Probe::offset_nanos);
            self.agents[agent].offset_nanos = offset_nanos;
            self.agents[agent].clock = clock::estimate(&probes);
            let began_unix_nanos = self.began_unix_nanos;
            self.send(
                agent,
                &ToAgent::ClockOffset {
                    offset_nanos,
                    began_unix_nanos,
                },
            )?;
        }
        Ok(())
    }

    /// The error for an answer that is not the one the protocol expects now.
    pub fn unexpected(&self, agent: usize, got: Option<&FromAgent>, wanted: &str) -> BenchError {
        BenchError::Failed(format!(
            "agent {} answered {got:?}, not {wanted}",
            self.agents[agent].name
        ))
    }

    /// Every agent resigns and exits; the faults they met after measuring, by name.
    pub fn finish(&mut self, timeout: Duration) -> Result<Vec<(String, String)>, BenchError> {
        self.send_all(&ToAgent::Finish)?;
        let everyone: Vec<usize> = (0..self.agents.len()).collect();
        let answers = self.collect(&everyone, timeout, "finish")?;
        let mut faults = Vec::new();
        for (agent, answer) in answers.iter().enumerate() {
            match answer {
                Finished { fault: Some(fault) } => {
                    faults.push((self.agents[agent].name.clone(), fault.clone()))
                }
                Finished { fault: None } => {}
                other => return Err(self.unexpected(agent, Some(other), "finished")),
            }
        }
        Ok(faults)
    }

    pub fn report(&self) -> AgentsReport {
        let offsets: Vec<ClockOffset> =
            self.agents.iter().filter_map(|a| a.clock.clone()).collect();
        let method = if offsets.len() == self.agents.len() {
            clock::method(&offsets)
        } else {
            "round-trip halves".to_owned()
        };
        AgentsReport {
            placement: self.placement.clone(),
            control: self.control.to_string(),
            clock_method: method,
            agents: self
                .agents
                .iter()
                .map(|a| AgentRecord {
                    name: a.name.clone(),
                    role: a.role.clone(),
                    host: a.host.clone(),
                    pid: a.pid,
                    clock: a.clock.clone(),
                })
                .collect(),
        }
    }
}

use FromAgent::Finished;

impl Drop for Agents {
    fn drop(&mut self) {
        // Agents see their connection close and exit; one that finished does anyway. All
        // share one grace period, then anything still running is killed, not left behind.
        for agent in &mut self.agents {
            let _ = agent.stream.shutdown(Shutdown::Both);
        }
        let deadline = Instant::now() + Duration::from_secs(2);
        for agent in &mut self.agents {
            while matches!(agent.child.try_wait(), Ok(None)) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
            let _ = agent.child.kill();
            let _ = agent.child.wait();
        }
    }
}

/// Children not yet handed to an [`Agent`]: killed if starting fails half-way.
struct ChildGuard(Vec<Option<Child>>);

impl Drop for ChildGuard {
    fn drop(&mut self) {
        for child in self.0.iter_mut().flatten() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// Accept every agent's connection and read its hello, within [`CONNECT_TIMEOUT`]; an
/// agent that exits first is named. Streams come back in the order of `names`.
fn accept_all(
    listener: &TcpListener,
    names: &[(String, String)],
    children: &mut [Option<Child>],
) -> Result<Vec<(TcpStream, u32)>, BenchError> {
    listener.set_nonblocking(true)?;
    let deadline = Instant::now() + CONNECT_TIMEOUT;
    let mut streams: Vec<Option<(TcpStream, u32)>> = names.iter().map(|_| None).collect();
    while streams.iter().any(Option::is_none) {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false)?;
                stream.set_nodelay(true)?;
                stream.set_read_timeout(Some(Duration::from_secs(5)))?;
                let mut reader = BufReader::new(stream.try_clone()?);
                let hello = protocol::receive::<FromAgent>(&mut reader, "a new agent")?;
                // Nothing may sit in the buffer: the agent says nothing more unasked.
                stream.set_read_timeout(None)?;
                match hello {
                    Some(FromAgent::Hello { name, pid }) => {
                        let index =
                            names.iter().position(|(n, _)| *n == name).ok_or_else(|| {
                                BenchError::Failed(format!(
                                    "an agent named {name:?} was not started"
                                ))
                            })?;
                        if streams[index].is_some() {
                            return Err(BenchError::Failed(format!(
                                "agent {name} connected twice"
                            )));
                        }
                        streams[index] = Some((stream, pid));
                    }
                    other => {
                        return Err(BenchError::Failed(format!(
                            "a new agent said {other:?} instead of hello"
                        )))
                    }
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                for (i, child) in children.iter_mut().enumerate() {
                    if let Some(status) = child.as_mut().and_then(|c| c.try_wait().ok().flatten()) {
                        return Err(BenchError::Failed(format!(
                            "agent {} exited before connecting ({status})",
                            names[i].0
                        )));
                    }
                }
                if Instant::now() > deadline {
                    let missing: Vec<&str> = streams
                        .iter()
                        .zip(names)
                        .filter(|(s, _)| s.is_none())
                        .map(|(_, (n, _))| n.as_str())
                        .collect();
                    return Err(BenchError::Failed(format!(
                        "agent(s) {} did not connect within {} s",
                        missing.join(", "),
                        CONNECT_TIMEOUT.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(e.into()),
        }
    }
    Ok(streams.into_iter().flatten().collect())
}
