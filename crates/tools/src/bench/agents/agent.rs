//! An agent process (`trellis bench agent`): it connects to its coordinator, answers clock
//! probes, runs the federates it is told to, and reports what they measured. It exits when
//! told to finish, when its work fails (after saying why) or when the coordinator goes.

use super::super::network::{Federation, Network};
use super::super::oneway::Clock;
use super::super::{BenchError, Bundling, Setup};
use super::protocol::{self, AgentSetup, FromAgent, Target, ToAgent};
use std::io::BufReader;
use std::net::{SocketAddr, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::Arc;
use std::time::Duration;

/// Commands read ahead of the work that consumes them.
const COMMAND_QUEUE: usize = 64;

/// The agent's side of its control connection.
pub(crate) struct Session {
    out: TcpStream,
    commands: Receiver<Result<ToAgent, String>>,
    setup: Option<AgentSetup>,
    /// The run's clock as the coordinator's probes found this agent's (see
    /// [`ToAgent::ClockOffset`]).
    clock: Option<Clock>,
}

impl Session {
    pub(crate) fn say(&mut self, message: &FromAgent) -> Result<(), BenchError> {
        protocol::send(&mut self.out, message)
    }

    /// The next command, clock probes answered on the way; within `timeout` if given.
    /// `Ok(None)` only on a timeout.
    pub(crate) fn next(
        &mut self,
        timeout: Option<Duration>,
    ) -> Result<Option<ToAgent>, BenchError> {
        loop {
            let command = match timeout {
                None => self
                    .commands
                    .recv()
                    .map_err(|_| RecvTimeoutError::Disconnected),
                Some(t) => self.commands.recv_timeout(t),
            };
            match command {
                Ok(Ok(ToAgent::ClockProbe)) => {
                    let unix_nanos = protocol::unix_nanos();
                    self.say(&FromAgent::Clock { unix_nanos })?;
                }
                Ok(Ok(ToAgent::ClockOffset {
                    offset_nanos,
                    began_unix_nanos,
                })) => self.clock = Some(Clock::shifted(offset_nanos, began_unix_nanos)),
                Ok(Ok(command)) => return Ok(Some(command)),
                Ok(Err(why)) => return Err(BenchError::Failed(why)),
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(BenchError::Failed("the coordinator went away".into()))
                }
            }
        }
    }

    /// Wait for exactly `wanted` (named for the error).
    pub(crate) fn expect(
        &mut self,
        wanted: &str,
        is: impl Fn(&ToAgent) -> bool,
    ) -> Result<ToAgent, BenchError> {
        match self.next(None)? {
            Some(command) if is(&command) => Ok(command),
            other => Err(BenchError::Failed(format!(
                "expected {wanted} from the coordinator, got {other:?}"
            ))),
        }
    }

    /// Run `work` on a thread of its own until the coordinator says finish, then stop it
    /// through the flag it is given (an echoing end, which answers until told to stop).
    pub(crate) fn run_until_finish(
        &mut self,
        work: impl FnOnce(&AtomicBool) -> Result<(), BenchError> + Send + 'static,
    ) -> Result<(), BenchError> {
        let stop = Arc::new(AtomicBool::new(false));
        let worker = {
            let stop = stop.clone();
            std::thread::spawn(move || work(&stop))
        };
        let finish = self.expect("finish", |c| matches!(c, ToAgent::Finish));
        stop.store(true, Ordering::SeqCst);
        let worked = worker
            .join()
            .map_err(|_| BenchError::Failed("an agent's worker thread panicked".into()))?;
        finish?;
        worked
    }

    /// The run's clock (the coordinator's, through this agent's measured offset).
    pub(crate) fn clock(&self) -> Result<Clock, BenchError> {
        self.clock
            .ok_or_else(|| BenchError::Failed("no clock offset from the coordinator".into()))
    }

    /// The network and federation the coordinator's setup names.
    pub(crate) fn network(&self) -> Result<(Network, Option<Federation>, Setup), BenchError> {
        let given = self
            .setup
            .as_ref()
            .ok_or_else(|| BenchError::Failed("a role came before the setup".into()))?;
        let mut setup = Setup {
            transport: given.transport,
            bundling: given
                .bundling
                .parse::<Bundling>()
                .map_err(BenchError::Failed)?,
            api: given.api,
            spin: Duration::from_micros(given.spin_us),
            ..Setup::default()
        };
        match &given.target {
            Target::Router(url) => {
                setup.router = Some(url.parse().map_err(|e| {
                    BenchError::Failed(format!("router address {url:?} from the coordinator: {e}"))
                })?)
            }
            Target::Topology(file) => {
                setup.topology = Some(file.clone());
                setup.routers_running = true;
            }
        }
        let network = Network::start(&setup)?;
        let federation = given
            .federation
            .as_deref()
            .map(|name| network.existing_federation(name))
            .transpose()?;
        Ok((network, federation, setup))
    }
}

/// Run agent `name` for the coordinator at `coordinator` until it is done.
pub fn main(coordinator: SocketAddr, name: &str) -> Result<(), BenchError> {
    protocol::skew_for_test(name);
    let stream = TcpStream::connect_timeout(&coordinator, Duration::from_secs(10))
        .map_err(|e| BenchError::Failed(format!("agent {name}: coordinator {coordinator}: {e}")))?;
    stream.set_nodelay(true)?;
    let mut reader = BufReader::new(stream.try_clone()?);
    let (tx, commands) = mpsc::sync_channel(COMMAND_QUEUE);
    std::thread::spawn(move || loop {
        let command = match protocol::receive::<ToAgent>(&mut reader, "the coordinator") {
            Ok(Some(command)) => Ok(command),
            // The coordinator closed: the channel's end says so.
            Ok(None) => return,
            Err(e) => Err(e.to_string()),
        };
        let last = command.is_err();
        if tx.send(command).is_err() || last {
            return;
        }
    });
    let mut session = Session {
        out: stream,
        commands,
        setup: None,
        clock: None,
    };
    session.say(&FromAgent::Hello {
        name: name.to_owned(),
        pid: std::process::id(),
    })?;
    let outcome = serve(&mut session);
    if let Err(e) = &outcome {
        tracing::error!(agent = name, "{e}");
        // The coordinator may be gone already; the error is returned either way.
        let _ = session.say(&FromAgent::Failed {
            message: e.to_string(),
        });
    }
    outcome
}

fn serve(session: &mut Session) -> Result<(), BenchError> {
    loop {
        match session.next(None)? {
            Some(ToAgent::Setup(setup)) => session.setup = Some(setup),
            Some(ToAgent::PingMaster { at, pair }) => {
                return super::pingpong::master(session, &at, pair)
            }
            Some(ToAgent::PingSlave { at, pair }) => {
                return super::pingpong::slave(session, &at, pair)
            }
            Some(ToAgent::Receive { at }) => return super::throughput::receiver(session, &at),
            Some(ToAgent::Party { at, task }) => return super::parties::party(session, &at, task),
            Some(ToAgent::Send { at, size }) => {
                return super::throughput::sender(session, &at, size)
            }
            Some(other) => {
                return Err(BenchError::Failed(format!(
                    "{other:?} before a role was given"
                )))
            }
            None => {}
        }
    }
}
