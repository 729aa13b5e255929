//! The one hosts file of Trellis, for `trellis bench ... --hosts FILE`, `trellis plan FILE
//! --hosts FILE` and `trellis topology gen ... --hosts FILE`: which hosts there are, how a process is started on each (a child
//! process, or over ssh), which federates (benchmarks) and routers (plans) go where, and the
//! address a benchmark's coordinator listens on for its agents.
//!
//! ```toml
//! control = "10.0.0.1"          # optional: IP or IP:PORT agents connect back to (127.0.0.1)
//!
//! [[host]]
//! name = "here"
//! address = "127.0.0.1"
//! start = "local"               # a child process of the coordinator
//!
//! [[host]]
//! name = "lab-2"
//! address = "10.0.0.2"
//! start = "ssh"                 # ssh [-l user] [-p port] [-i identity] address trellis bench agent ...
//! user = "bench"                # optional, ssh's default otherwise
//! port = 22                     # optional
//! identity = "keys/id_ed25519"  # optional, relative to this file
//! known_hosts = "known_hosts"   # optional, relative to this file: checked strictly
//! program = "/usr/local/bin/trellis"  # optional: trellis there (default: this one's path)
//! federates = ["fed-2", "fed-4"]      # optional: a benchmark's federates placed here
//! routers = ["root", "root.1"]        # optional: a plan's (or generated topology's) routers placed here
//! ```
//!
//! Federates and routers no host names are dealt round-robin over all hosts in file order.
//! Every problem is an error naming the file, the line and the field. The plan's old form
//! (`default = "host"` and a `[nodes]` table) is refused with how to write it now.

use serde::Deserialize;
use std::net::{IpAddr, Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::Command;
use toml::Spanned;
use trellis_core::topology::{FederateEntry, TopologyFile};

/// The coordinator's control address when none is given: agents on this machine only.
pub const DEFAULT_CONTROL: SocketAddr = SocketAddr::new(IpAddr::V4(Ipv4Addr::LOCALHOST), 0);

/// A hosts file that cannot be used: the message names the file, the line and the field.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct HostsError(pub String);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileText {
    control: Option<Spanned<String>>,
    #[serde(rename = "host", default)]
    hosts: Vec<Spanned<HostText>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct HostText {
    name: Spanned<String>,
    address: Spanned<String>,
    start: Spanned<StartKind>,
    user: Option<Spanned<String>>,
    port: Option<Spanned<u16>>,
    identity: Option<Spanned<PathBuf>>,
    known_hosts: Option<Spanned<PathBuf>>,
    program: Option<PathBuf>,
    #[serde(default)]
    federates: Vec<Spanned<String>>,
    #[serde(default)]
    routers: Vec<Spanned<String>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
enum StartKind {
    Local,
    Ssh,
}

/// How an agent is started on a host.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Start {
    /// A child process of the coordinator.
    Local,
    /// `ssh` to the host's address, which runs the agent there.
    Ssh {
        user: Option<String>,
        port: Option<u16>,
        identity: Option<PathBuf>,
        known_hosts: Option<PathBuf>,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Host {
    pub name: String,
    pub address: String,
    pub start: Start,
    /// The trellis binary on that host; `None`: the coordinator's own path.
    pub program: Option<PathBuf>,
    pub federates: Vec<String>,
    pub routers: Vec<String>,
}

impl Host {
    /// The command that runs `trellis ARGS` on this host: a child process, or ssh to the
    /// host (no prompts, so a run fails at once rather than waiting for a password).
    /// `stdin`: the process reads its standard input (ssh then forwards it).
    pub fn command(&self, default_program: &Path, args: &[&str], stdin: bool) -> Command {
        let program = self.program.as_deref().unwrap_or(default_program);
        match &self.start {
            Start::Local => {
                let mut command = Command::new(program);
                command.args(args);
                command
            }
            Start::Ssh {
                user,
                port,
                identity,
                known_hosts,
            } => {
                let mut ssh = Command::new("ssh");
                if !stdin {
                    ssh.arg("-n");
                }
                ssh.args(["-o", "BatchMode=yes", "-o", "ConnectTimeout=10"]);
                if let Some(user) = user {
                    ssh.args(["-l", user]);
                }
                if let Some(port) = port {
                    ssh.args(["-p", &port.to_string()]);
                }
                if let Some(identity) = identity {
                    ssh.arg("-i")
                        .arg(identity)
                        .args(["-o", "IdentitiesOnly=yes"]);
                }
                if let Some(known) = known_hosts {
                    ssh.arg("-o")
                        .arg(format!("UserKnownHostsFile={}", known.display()))
                        .args(["-o", "StrictHostKeyChecking=yes"]);
                }
                // ssh joins the words into one remote shell command.
                let mut remote = vec![shell_quote(&program.to_string_lossy())];
                remote.extend(args.iter().map(|w| shell_quote(w)));
                ssh.arg("--").arg(&self.address).arg(remote.join(" "));
                ssh
            }
        }
    }
}

/// A word safe to hand to the remote shell ssh runs the command in.
fn shell_quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostsFile {
    pub path: PathBuf,
    /// Where the coordinator listens for agents, if the file says.
    pub control: Option<SocketAddr>,
    pub hosts: Vec<Host>,
}

/// An IP or IP:PORT (port 0: any free one) a coordinator can listen on and agents can
/// connect to: not the unspecified address, which names no host to connect to.
pub fn parse_control(text: &str) -> Result<SocketAddr, String> {
    let address = text
        .parse::<SocketAddr>()
        .or_else(|_| text.parse::<IpAddr>().map(|ip| SocketAddr::new(ip, 0)))
        .map_err(|_| format!("{text:?} is not an IP address or IP:PORT"))?;
    if address.ip().is_unspecified() {
        return Err(format!(
            "{text:?}: agents connect to this address, so it must name one interface, not all"
        ));
    }
    Ok(address)
}

impl HostsFile {
    /// Read and check a hosts file.
    pub fn load(path: &Path) -> Result<HostsFile, HostsError> {
        let text = std::fs::read_to_string(path)
            .map_err(|e| HostsError(format!("{}: {e}", path.display())))?;
        HostsFile::parse(path, &text).map_err(HostsError)
    }

    /// Parse `text` as the hosts file `path` (relative paths in it are against its folder).
    pub fn parse(path: &Path, text: &str) -> Result<HostsFile, String> {
        let file = path.display();
        let at = Locator { path, text };
        refuse_old_plan_form(path, text)?;
        let parsed: FileText = toml::from_str(text).map_err(|e| {
            let line = e.span().map_or(0, |s| at.line(s.start));
            format!("{file}:{line}: {}", e.message().trim())
        })?;
        let control = parsed
            .control
            .as_ref()
            .map(|c| parse_control(c.get_ref()).map_err(|e| at.error(c.span(), "control", e)))
            .transpose()?;
        if parsed.hosts.is_empty() {
            return Err(format!("{file}: no [[host]]: name at least one host"));
        }
        let folder = path.parent().unwrap_or(Path::new("."));
        let mut hosts: Vec<Host> = Vec::new();
        for spanned in &parsed.hosts {
            let host = at.host(spanned.get_ref(), folder, &hosts)?;
            hosts.push(host);
        }
        Ok(HostsFile {
            path: path.to_owned(),
            control,
            hosts,
        })
    }

    /// The host of each federate in `names` (in order): named ones where named, the rest
    /// round-robin over all hosts.
    pub fn place(&self, names: &[String]) -> Vec<&Host> {
        let mut next = 0;
        names
            .iter()
            .map(|name| {
                self.hosts
                    .iter()
                    .find(|h| h.federates.contains(name))
                    .unwrap_or_else(|| {
                        let host = &self.hosts[next % self.hosts.len()];
                        next += 1;
                        host
                    })
            })
            .collect()
    }

    /// The host of each of `names` (as [`HostsFile::place`]), refusing a file that places
    /// a name the run does not have: a typo, most likely.
    pub fn placement(&self, names: &[String]) -> Result<Vec<&Host>, HostsError> {
        let unknown = self.unknown_federates(names);
        if !unknown.is_empty() {
            return Err(HostsError(format!(
                "{}: federates {} are placed but this run has none of that name (it has {})",
                self.path.display(),
                unknown.join(", "),
                names.join(", ")
            )));
        }
        Ok(self.place(names))
    }

    /// Federates the file places that a run does not have: a typo, most likely.
    pub fn unknown_federates<'a>(&'a self, names: &[String]) -> Vec<&'a str> {
        self.hosts
            .iter()
            .flat_map(|h| h.federates.iter())
            .filter(|f| !names.contains(f))
            .map(String::as_str)
            .collect()
    }
}

/// The plan's hosts file before there was one form (`default = "host"`, `[nodes]`): refused
/// with how to write it now, rather than with "unknown field".
fn refuse_old_plan_form(path: &Path, text: &str) -> Result<(), String> {
    let Ok(table) = text.parse::<toml::Table>() else {
        return Ok(()); // the typed parse names the syntax error
    };
    if table.contains_key("default") || table.contains_key("nodes") {
        return Err(format!(
            "{}: `default` and `[nodes]` are the old form of a plan's hosts file; write one \
             [[host]] per host instead (name, address, start = \"ssh\" or \"local\") and list \
             each host's routers in routers = [...] (routers listed nowhere are dealt over the \
             hosts in file order)",
            path.display()
        ));
    }
    Ok(())
}

impl HostsFile {
    /// The host of each router in `names` (in order), as [`HostsFile::place`] places
    /// federates: named ones where named, the rest round-robin. Refuses a file that places a
    /// router `names` lacks.
    pub fn place_routers(&self, names: &[String]) -> Result<Vec<&Host>, HostsError> {
        let unknown: Vec<&str> = (self.hosts.iter())
            .flat_map(|h| h.routers.iter())
            .filter(|r| !names.contains(r))
            .map(String::as_str)
            .collect();
        if !unknown.is_empty() {
            return Err(HostsError(format!(
                "{}: routers {} are placed but the topology has none of that name (it has {})",
                self.path.display(),
                unknown.join(", "),
                names.join(", ")
            )));
        }
        let mut next = 0;
        Ok((names.iter())
            .map(|name| {
                (self.hosts.iter())
                    .find(|h| h.routers.contains(name))
                    .unwrap_or_else(|| {
                        let host = &self.hosts[next % self.hosts.len()];
                        next += 1;
                        host
                    })
            })
            .collect())
    }
}

/// What [`HostsFile::spread`] gives each host: its own ports, counted up from a base.
#[derive(Clone, Copy, Debug)]
pub struct SpreadPorts {
    /// The first listen port on every host.
    pub base: u16,
    /// With `Some`: each router's metrics address on its host, ports counted up from this.
    pub metrics: Option<u16>,
}

impl HostsFile {
    /// `file` with its processes spread over these hosts: each router where
    /// [`HostsFile::place_routers`] puts it; each federate that listens on the host that
    /// names it, else on its parent router's host, else dealt as [`HostsFile::place`] deals.
    /// Every listen address (and, with `ports.metrics`, every router's metrics address) is
    /// rewritten to its host's address, each host counting its own ports up from the base,
    /// routers first, in file order. A `mem://` address has no host and is refused.
    pub fn spread(
        &self,
        file: &TopologyFile,
        ports: SpreadPorts,
    ) -> Result<TopologyFile, HostsError> {
        let names: Vec<String> = file.routers.iter().map(|r| r.name.clone()).collect();
        let router_hosts = self.place_routers(&names)?;
        let host_of_router = |name: &str| {
            let index = names.iter().position(|n| n == name)?;
            Some(router_hosts[index])
        };
        let listening: Vec<&FederateEntry> = (file.federates.iter())
            .filter(|f| !f.listen.is_empty())
            .collect();
        // Beside its parent router, unless the hosts file names it; `None`: dealt.
        let beside_parent: Vec<Option<&Host>> = (listening.iter())
            .map(|f| {
                let named = self.hosts.iter().any(|h| h.federates.contains(&f.name));
                (!named).then(|| f.parent.as_deref().and_then(host_of_router))?
            })
            .collect();
        let dealt_names: Vec<String> = (listening.iter().zip(&beside_parent))
            .filter(|(_, host)| host.is_none())
            .map(|(f, _)| f.name.clone())
            .collect();
        let mut dealt = self.place(&dealt_names).into_iter();
        let federate_hosts: Vec<&Host> = (beside_parent.into_iter())
            .filter_map(|host| host.or_else(|| dealt.next()))
            .collect();
        let mut out = file.clone();
        let mut listen_ports = PortCounter::new(ports.base);
        for (router, host) in out.routers.iter_mut().zip(&router_hosts) {
            let port = listen_ports.next(host)?;
            router.listen = self.moved(&router.name, &router.listen, host, port)?;
        }
        let listening = out.federates.iter_mut().filter(|f| !f.listen.is_empty());
        for (federate, host) in listening.zip(federate_hosts) {
            let port = listen_ports.next(host)?;
            federate.listen = self.moved(&federate.name, &federate.listen, host, port)?;
        }
        if let Some(base) = ports.metrics {
            let mut metrics_ports = PortCounter::new(base);
            for (router, host) in out.routers.iter_mut().zip(&router_hosts) {
                let ip = self.ip_of(host, "a metrics address")?;
                let port = metrics_ports.next(host)?;
                router.metrics = Some(SocketAddr::new(ip, port).to_string());
            }
        }
        Ok(out)
    }

    /// `listen` moved to `host` and `port`, each address keeping its scheme.
    fn moved(
        &self,
        process: &str,
        listen: &[String],
        host: &Host,
        port: u16,
    ) -> Result<Vec<String>, HostsError> {
        let at = match host.address.parse::<IpAddr>() {
            Ok(IpAddr::V6(ip)) => format!("[{ip}]:{port}"),
            _ => format!("{}:{port}", host.address),
        };
        (listen.iter())
            .map(|address| match address.split_once("://") {
                Some((scheme, _)) if scheme != "mem" => Ok(format!("{scheme}://{at}")),
                _ => Err(HostsError(format!(
                    "{}: {process} listens on {address}, which is on no host: hosts place \
                     processes that listen on tcp://, tls:// or udp://",
                    self.path.display()
                ))),
            })
            .collect()
    }

    /// The IP address of `host`, for `what` (which must be an IP, not a name).
    fn ip_of(&self, host: &Host, what: &str) -> Result<IpAddr, HostsError> {
        host.address.parse().map_err(|_| {
            HostsError(format!(
                "{}: host {:?}: {what} is IP:PORT, and its address {:?} is a name; give the \
                 host's IP address",
                self.path.display(),
                host.name,
                host.address
            ))
        })
    }
}

/// The next free port of each host, counted up from one base.
struct PortCounter {
    base: u16,
    next: std::collections::HashMap<String, u32>,
}

impl PortCounter {
    fn new(base: u16) -> PortCounter {
        PortCounter {
            base,
            next: Default::default(),
        }
    }

    fn next(&mut self, host: &Host) -> Result<u16, HostsError> {
        let next = self
            .next
            .entry(host.name.clone())
            .or_insert(self.base.into());
        let port = u16::try_from(*next).map_err(|_| {
            HostsError(format!(
                "host {:?}: its processes need ports {} to {}, past 65535: give a lower \
                 base port",
                host.name, self.base, next
            ))
        })?;
        *next += 1;
        Ok(port)
    }
}

/// Where in a hosts file a field is, for errors that name the file, line and field.
struct Locator<'a> {
    path: &'a Path,
    text: &'a str,
}

impl Locator<'_> {
    /// The 1-based line of byte `offset` (counted in bytes: any offset is safe).
    fn line(&self, offset: usize) -> usize {
        let before = &self.text.as_bytes()[..offset.min(self.text.len())];
        before.iter().filter(|&&b| b == b'\n').count() + 1
    }

    fn error(&self, span: std::ops::Range<usize>, field: &str, message: String) -> String {
        let line = self.line(span.start);
        format!("{}:{line}: {field}: {message}", self.path.display())
    }

    /// One `[[host]]`, checked against the hosts before it.
    fn host(&self, host: &HostText, folder: &Path, before: &[Host]) -> Result<Host, String> {
        let name = host.name.get_ref();
        if name.trim().is_empty() {
            return Err(self.error(host.name.span(), "name", "is empty".into()));
        }
        if before.iter().any(|h| h.name == *name) {
            return Err(self.error(
                host.name.span(),
                "name",
                format!("a second host named {name:?}"),
            ));
        }
        let address = host.address.get_ref();
        if address.trim().is_empty() || address.starts_with('-') || address.contains(' ') {
            return Err(self.error(
                host.address.span(),
                "address",
                format!("host {name:?}: {address:?} is not a host name or IP address"),
            ));
        }
        let start = match host.start.get_ref() {
            StartKind::Local => self.local_start(host)?,
            StartKind::Ssh => self.ssh_start(host, folder)?,
        };
        Ok(Host {
            name: name.clone(),
            address: address.clone(),
            start,
            program: host.program.clone(),
            federates: self.placed(host, "federates", &host.federates, |h| &h.federates, before)?,
            routers: self.placed(host, "routers", &host.routers, |h| &h.routers, before)?,
        })
    }

    /// A local host takes none of the ssh fields.
    fn local_start(&self, host: &HostText) -> Result<Start, String> {
        let ssh_only = [
            host.user.as_ref().map(|v| ("user", v.span())),
            host.port.as_ref().map(|v| ("port", v.span())),
            host.identity.as_ref().map(|v| ("identity", v.span())),
            host.known_hosts.as_ref().map(|v| ("known_hosts", v.span())),
        ];
        if let Some((field, span)) = ssh_only.into_iter().flatten().next() {
            let name = host.name.get_ref();
            return Err(self.error(
                span,
                field,
                format!("host {name:?} starts agents locally; {field} is for start = \"ssh\""),
            ));
        }
        Ok(Start::Local)
    }

    /// An ssh host: a usable port and user, and key files that exist (relative to `folder`).
    fn ssh_start(&self, host: &HostText, folder: &Path) -> Result<Start, String> {
        let name = host.name.get_ref();
        if let Some(port) = &host.port {
            if *port.get_ref() == 0 {
                return Err(self.error(port.span(), "port", format!("host {name:?}: ssh port 0")));
            }
        }
        if let Some(user) = &host.user {
            let u = user.get_ref();
            if u.is_empty() || u.starts_with('-') || u.contains(['@', ' ']) {
                return Err(self.error(
                    user.span(),
                    "user",
                    format!("host {name:?}: {u:?} is not a user name"),
                ));
            }
        }
        let file_in = |p: &Option<Spanned<PathBuf>>, field: &str| {
            p.as_ref()
                .map(|p| {
                    let full = folder.join(p.get_ref());
                    if full.is_file() {
                        Ok(full)
                    } else {
                        Err(self.error(
                            p.span(),
                            field,
                            format!("host {name:?}: no file {}", full.display()),
                        ))
                    }
                })
                .transpose()
        };
        Ok(Start::Ssh {
            user: host.user.as_ref().map(|u| u.get_ref().clone()),
            port: host.port.as_ref().map(|p| *p.get_ref()),
            identity: file_in(&host.identity, "identity")?,
            known_hosts: file_in(&host.known_hosts, "known_hosts")?,
        })
    }

    /// The host's federates: each placed once, on one host.
    /// The processes of one kind (`field`: "federates" or "routers") a host lists, each on
    /// one host only and once.
    fn placed(
        &self,
        host: &HostText,
        field: &str,
        listed: &[Spanned<String>],
        on: impl Fn(&Host) -> &[String],
        before: &[Host],
    ) -> Result<Vec<String>, String> {
        let name = host.name.get_ref();
        let mut placed = Vec::new();
        for process in listed {
            let p = process.get_ref();
            if let Some(other) = before.iter().find(|h| on(h).contains(p)) {
                return Err(self.error(
                    process.span(),
                    field,
                    format!("{p:?} is placed on host {:?} already", other.name),
                ));
            }
            if placed.contains(p) {
                return Err(self.error(
                    process.span(),
                    field,
                    format!("{p:?} twice on host {name:?}"),
                ));
            }
            placed.push(p.clone());
        }
        Ok(placed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<HostsFile, String> {
        HostsFile::parse(Path::new("/nonexistent/hosts.toml"), text)
    }

    #[test]
    fn a_good_file_places_named_federates_and_deals_the_rest() {
        let file = parse(
            "control = \"127.0.0.1:7400\"\n\
             [[host]]\nname = \"a\"\naddress = \"127.0.0.1\"\nstart = \"local\"\n\
             [[host]]\nname = \"b\"\naddress = \"127.0.0.1\"\nstart = \"ssh\"\nuser = \"bench\"\nport = 2222\nfederates = [\"fed-3\"]\n",
        )
        .unwrap();
        assert_eq!(file.control, Some("127.0.0.1:7400".parse().unwrap()));
        let names: Vec<String> = (1..=4).map(|i| format!("fed-{i}")).collect();
        let placed: Vec<&str> = file.place(&names).iter().map(|h| h.name.as_str()).collect();
        assert_eq!(placed, ["a", "b", "b", "a"]);
        assert!(file.unknown_federates(&names).is_empty());
        assert_eq!(file.unknown_federates(&names[..2]), ["fed-3"]);
    }

    #[test]
    fn bad_files_are_refused_naming_file_line_and_field() {
        let cases = [
            // An unknown field.
            (
                "[[host]]\nname = \"a\"\naddress = \"x\"\nstart = \"local\"\ncolour = 1\n",
                ":5:",
                "colour",
            ),
            // A start that is not one.
            (
                "[[host]]\nname = \"a\"\naddress = \"x\"\nstart = \"telnet\"\n",
                ":4:",
                "telnet",
            ),
            // Missing address.
            ("[[host]]\nname = \"a\"\nstart = \"local\"\n", ":1:", "address"),
            // Two hosts of one name.
            (
                "[[host]]\nname = \"a\"\naddress = \"x\"\nstart = \"local\"\n[[host]]\nname = \"a\"\naddress = \"y\"\nstart = \"local\"\n",
                ":6: name:",
                "second host",
            ),
            // An ssh field on a local host.
            (
                "[[host]]\nname = \"a\"\naddress = \"x\"\nstart = \"local\"\nport = 22\n",
                ":5: port:",
                "start = \"ssh\"",
            ),
            // A federate on two hosts.
            (
                "[[host]]\nname = \"a\"\naddress = \"x\"\nstart = \"local\"\nfederates = [\"f\"]\n[[host]]\nname = \"b\"\naddress = \"y\"\nstart = \"local\"\nfederates = [\"f\"]\n",
                ":10: federates:",
                "already",
            ),
            // A control address that names no host.
            (
                "control = \"0.0.0.0\"\n[[host]]\nname = \"a\"\naddress = \"x\"\nstart = \"local\"\n",
                ":1: control:",
                "one interface",
            ),
            // A key file that is not there.
            (
                "[[host]]\nname = \"a\"\naddress = \"x\"\nstart = \"ssh\"\nidentity = \"nokey\"\n",
                ":5: identity:",
                "no file",
            ),
            // An option smuggled in as an address.
            (
                "[[host]]\nname = \"a\"\naddress = \"-oProxyCommand=x\"\nstart = \"ssh\"\n",
                ":3: address:",
                "not a host name",
            ),
            ("", "hosts.toml:", "no [[host]]"),
        ];
        for (text, place, words) in cases {
            let error = parse(text).unwrap_err();
            assert!(
                error.starts_with("/nonexistent/hosts.toml:"),
                "{error} should name the file"
            );
            assert!(error.contains(place), "{error} should contain {place:?}");
            assert!(error.contains(words), "{error} should contain {words:?}");
        }
    }

    #[test]
    fn spreading_refuses_what_no_host_can_take() {
        use trellis_core::topology::{generate, GenerateOptions, Pipe, Shape};
        let hosts =
            parse("[[host]]\nname = \"a\"\naddress = \"node-a\"\nstart = \"local\"\n").unwrap();
        let mesh = |pipe| {
            let options = GenerateOptions {
                pipe,
                ..GenerateOptions::default()
            };
            let shape = Shape::Mesh {
                routers: 2,
                federates: 1,
            };
            generate(&shape, &options).unwrap().to_file()
        };
        let ports = |base, metrics| SpreadPorts { base, metrics };
        let error = |file, ports| hosts.spread(&file, ports).unwrap_err().to_string();
        // A host name is a listen address, not a metrics address.
        let named = hosts.spread(&mesh(Pipe::Tcp), ports(7000, None)).unwrap();
        assert_eq!(named.routers[1].listen, ["tcp://node-a:7001"]);
        let metrics = error(mesh(Pipe::Tcp), ports(7000, Some(9100)));
        assert!(metrics.contains("\"node-a\" is a name"), "{metrics}");
        // Two routers on one host from port 65535: the second has none.
        let past = error(mesh(Pipe::Tcp), ports(65535, None));
        assert!(past.contains("past 65535"), "{past}");
        // In-process memory pipes are on no host.
        assert!(error(mesh(Pipe::Memory), ports(7000, None)).contains("mem://"));
    }
}
