//! Placing a topology file's processes in a lab's sites: each router in the site `[place]`
//! names (else the lab's router site), every federate in the federate site, where the
//! benchmark process runs them. The file's loopback addresses become the sites' addresses,
//! so the routers' links, and the federates' links to them, cross the site links.

use crate::{Lab, LabError};
use std::net::{Ipv4Addr, SocketAddrV4};
use std::path::Path;
use toml::{Table, Value};

/// A topology rewritten for a lab.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedTopology {
    /// The topology file's text with site addresses.
    pub text: String,
    pub routers: Vec<PlacedRouter>,
}

/// A router of the topology and where it runs.
#[derive(Debug, Clone, PartialEq)]
pub struct PlacedRouter {
    pub name: String,
    pub site: usize,
    /// Its TCP listening addresses (to wait for before the benchmark starts).
    pub tcp: Vec<SocketAddrV4>,
}

/// Rewrite topology `text` (read from `path`) for `lab`.
pub fn place(text: &str, path: &Path, lab: &Lab) -> Result<PlacedTopology, LabError> {
    let spec = lab.spec();
    let problem = |message: String| LabError::Config {
        file: path.display().to_string(),
        line: None,
        message,
    };
    let mut table: Table = text
        .parse()
        .map_err(|e: toml::de::Error| LabError::Config {
            file: path.display().to_string(),
            line: e.span().map(|s| crate::config::line_of(text, s.start)),
            message: e.message().to_owned(),
        })?;
    let mut routers = Vec::new();
    for entry in entries(&mut table, "router") {
        let name = entry_name(entry).map_err(&problem)?;
        let site = spec
            .placement
            .iter()
            .find(|(router, _)| *router == name)
            .map_or(spec.router_site, |(_, site)| *site);
        let tcp = readdress(entry, lab.site_address(site), &name).map_err(&problem)?;
        routers.push(PlacedRouter { name, site, tcp });
    }
    for (router, _) in &spec.placement {
        if !routers.iter().any(|r| r.name == *router) {
            return Err(problem(format!(
                "the lab file places router {router:?}, which this topology does not have"
            )));
        }
    }
    let federate_address = lab.site_address(spec.federate_site);
    for entry in entries(&mut table, "federate") {
        let name = entry_name(entry).map_err(&problem)?;
        readdress(entry, federate_address, &name).map_err(&problem)?;
    }
    let text = toml::to_string(&table).map_err(|e| problem(e.to_string()))?;
    Ok(PlacedTopology { text, routers })
}

/// The tables of array `key` (`[[router]]`, `[[federate]]`).
fn entries<'a>(table: &'a mut Table, key: &str) -> impl Iterator<Item = &'a mut Table> {
    table
        .get_mut(key)
        .and_then(Value::as_array_mut)
        .into_iter()
        .flatten()
        .filter_map(Value::as_table_mut)
}

fn entry_name(entry: &Table) -> Result<String, String> {
    entry
        .get("name")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| "an entry without a name".to_owned())
}

/// Move an entry's `listen` and `metrics` addresses to `ip`; returns its TCP listeners.
fn readdress(entry: &mut Table, ip: Ipv4Addr, name: &str) -> Result<Vec<SocketAddrV4>, String> {
    let mut tcp = Vec::new();
    if let Some(listen) = entry.get_mut("listen").and_then(Value::as_array_mut) {
        for value in listen.iter_mut() {
            let Some(url) = value.as_str() else { continue };
            let (scheme, port) =
                split_url(url).map_err(|e| format!("{name}: listen {url:?}: {e}"))?;
            if scheme == "tcp" {
                tcp.push(SocketAddrV4::new(ip, port));
            }
            *value = Value::String(format!("{scheme}://{ip}:{port}"));
        }
    }
    if let Some(metrics) = entry.get_mut("metrics") {
        if let Some(address) = metrics.as_str() {
            let port =
                loopback_port(address).map_err(|e| format!("{name}: metrics {address:?}: {e}"))?;
            *metrics = Value::String(format!("{ip}:{port}"));
        }
    }
    Ok(tcp)
}

/// `tcp://127.0.0.1:7000` → ("tcp", 7000); memory pipes and other hosts are refused.
fn split_url(url: &str) -> Result<(&str, u16), String> {
    let (scheme, rest) = url.split_once("://").ok_or("not SCHEME://HOST:PORT")?;
    if scheme == "mem" {
        return Err("memory pipes join one process; the lab places processes".into());
    }
    Ok((scheme, loopback_port(rest)?))
}

fn loopback_port(address: &str) -> Result<u16, String> {
    let (host, port) = address.rsplit_once(':').ok_or("no port")?;
    if host != "127.0.0.1" && host != "localhost" {
        return Err(
            "the lab moves loopback addresses (127.0.0.1) into the sites; this is another host"
                .into(),
        );
    }
    port.parse().map_err(|_| format!("bad port {port:?}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_urls_keep_scheme_and_port() {
        assert_eq!(split_url("tcp://127.0.0.1:7000"), Ok(("tcp", 7000)));
        assert_eq!(split_url("udp://localhost:7001"), Ok(("udp", 7001)));
        assert!(split_url("mem://hub").unwrap_err().contains("memory pipes"));
        assert!(split_url("tcp://10.0.0.5:7000")
            .unwrap_err()
            .contains("another host"));
    }

    #[test]
    fn an_entry_moves_to_its_site() {
        let mut entry: Table = "name = \"top\"\nlisten = [\"tcp://127.0.0.1:7100\", \"udp://127.0.0.1:7100\"]\nmetrics = \"127.0.0.1:9100\"\n"
            .parse()
            .unwrap();
        let ip = Ipv4Addr::new(10, 200, 2, 2);
        let tcp = readdress(&mut entry, ip, "top").unwrap();
        assert_eq!(tcp, [SocketAddrV4::new(ip, 7100)]);
        assert_eq!(
            entry["listen"].as_array().unwrap(),
            &[
                Value::from("tcp://10.200.2.2:7100"),
                Value::from("udp://10.200.2.2:7100")
            ]
        );
        assert_eq!(entry["metrics"].as_str(), Some("10.200.2.2:9100"));
    }
}
