//! The lab file (`labs/*.toml`): sites, and the site links between them with their delay,
//! loss and bandwidth. Every mistake is reported with the file, the line and the field.

use crate::LabError;
use serde::Deserialize;
use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;
use toml::Spanned;

/// Most sites a lab holds: site `i` gets the subnet `10.200.i.0/24`.
pub const MAX_SITES: usize = 250;
/// A site name becomes part of interface names (`to-NAME`, at most 15 bytes).
pub const MAX_SITE_NAME: usize = 12;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLab {
    #[serde(default = "default_seed")]
    seed: u64,
    #[serde(default)]
    site: Vec<RawSite>,
    #[serde(default)]
    link: Vec<RawLink>,
    #[serde(default)]
    relay: RelayLimits,
    #[serde(default)]
    bench: Option<RawBench>,
    #[serde(default)]
    place: std::collections::BTreeMap<String, Spanned<String>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSite {
    name: Spanned<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawLink {
    sites: Spanned<Vec<String>>,
    #[serde(default)]
    delay_ms: Option<Spanned<f64>>,
    #[serde(default)]
    loss_percent: Option<Spanned<f64>>,
    #[serde(default)]
    bandwidth_mbit: Option<Spanned<f64>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawBench {
    router_site: Option<Spanned<String>>,
    federate_site: Option<Spanned<String>>,
}

/// Bounds of the delay relay's queue: a packet that would pass either is dropped and counted.
#[derive(Debug, Clone, Copy, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct RelayLimits {
    #[serde(default = "default_queue_packets")]
    pub queue_packets: usize,
    #[serde(default = "default_queue_bytes")]
    pub queue_bytes: usize,
}

impl Default for RelayLimits {
    fn default() -> Self {
        RelayLimits {
            queue_packets: default_queue_packets(),
            queue_bytes: default_queue_bytes(),
        }
    }
}

fn default_seed() -> u64 {
    1
}
fn default_queue_packets() -> usize {
    65_536
}
fn default_queue_bytes() -> usize {
    64 << 20
}

/// A checked lab.
#[derive(Debug, Clone, PartialEq)]
pub struct LabSpec {
    /// Seeds the relay's loss decisions, so a run's losses repeat.
    pub seed: u64,
    pub sites: Vec<String>,
    pub links: Vec<SiteLink>,
    pub relay: RelayLimits,
    /// Where `--bench` puts the router (index into `sites`).
    pub router_site: usize,
    /// Where `--bench` puts the benchmark's federates.
    pub federate_site: usize,
    /// `[place]`: a topology's routers by name and their sites; the others go to
    /// `router_site`.
    pub placement: Vec<(String, usize)>,
}

/// A site link, the same both ways: one-way delay, loss, and optionally a rate limit.
#[derive(Debug, Clone, PartialEq)]
pub struct SiteLink {
    /// Indices into [`LabSpec::sites`], the first the smaller.
    pub sites: (usize, usize),
    pub delay: Duration,
    /// Probability in 0..=1 that a packet is lost, each way.
    pub loss: f64,
    /// Bits per second, each way; `None`: as fast as the machine goes.
    pub bandwidth_bps: Option<u64>,
}

impl LabSpec {
    /// Read and check a lab file.
    pub fn load(path: &Path) -> Result<LabSpec, LabError> {
        let text = std::fs::read_to_string(path).map_err(|source| LabError::Io {
            what: format!("reading lab file {}", path.display()),
            source,
        })?;
        LabSpec::parse(&text, path)
    }

    /// Check the text of a lab file; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<LabSpec, LabError> {
        let at = |span: Option<std::ops::Range<usize>>, message: String| LabError::Config {
            file: path.display().to_string(),
            line: span.map(|s| line_of(text, s.start)),
            message,
        };
        let raw: RawLab = toml::from_str(text).map_err(|e| at(e.span(), e.message().into()))?;
        let sites = check_sites(&raw.site).map_err(|(span, m)| at(span, m))?;
        let links = check_links(&raw.link, &sites).map_err(|(span, m)| at(span, m))?;
        if raw.relay.queue_packets == 0 || raw.relay.queue_bytes < 65_536 {
            return Err(at(
                None,
                "relay: queue_packets must be at least 1 and queue_bytes at least 65536".into(),
            ));
        }
        let bench = raw.bench.as_ref();
        let index = |name: Option<&Spanned<String>>, field: &str, default: usize| match name {
            None => Ok(default),
            Some(name) => site_index(&sites, name.get_ref()).ok_or_else(|| {
                at(
                    Some(name.span()),
                    format!("bench.{field}: no site named {:?}", name.get_ref()),
                )
            }),
        };
        let router_site = index(bench.and_then(|b| b.router_site.as_ref()), "router_site", 0)?;
        let federate_site = index(
            bench.and_then(|b| b.federate_site.as_ref()),
            "federate_site",
            usize::from(sites.len() > 1),
        )?;
        let placement = raw
            .place
            .iter()
            .map(|(router, site)| {
                site_index(&sites, site.get_ref())
                    .map(|index| (router.clone(), index))
                    .ok_or_else(|| {
                        at(
                            Some(site.span()),
                            format!("place.{router}: no site named {:?}", site.get_ref()),
                        )
                    })
            })
            .collect::<Result<_, _>>()?;
        Ok(LabSpec {
            seed: raw.seed,
            placement,
            sites,
            links,
            relay: raw.relay,
            router_site,
            federate_site,
        })
    }

    /// The index of the site called `name`.
    pub fn site(&self, name: &str) -> Result<usize, LabError> {
        site_index(&self.sites, name).ok_or_else(|| LabError::NoSuchSite {
            name: name.into(),
            known: self.sites.join(", "),
        })
    }
}

type Problem = (Option<std::ops::Range<usize>>, String);

fn site_index(sites: &[String], name: &str) -> Option<usize> {
    sites.iter().position(|s| s == name)
}

fn check_sites(raw: &[RawSite]) -> Result<Vec<String>, Problem> {
    if raw.is_empty() {
        return Err((None, "site: a lab needs at least one [[site]]".into()));
    }
    if raw.len() > MAX_SITES {
        return Err((None, format!("site: at most {MAX_SITES} sites")));
    }
    let mut seen = HashSet::new();
    for site in raw {
        let name = site.name.get_ref();
        let valid = !name.is_empty()
            && name.len() <= MAX_SITE_NAME
            && name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
            && name != "wan";
        if !valid {
            return Err((
                Some(site.name.span()),
                format!(
                    "site.name {name:?}: 1 to {MAX_SITE_NAME} of a-z, 0-9 and '-', not \"wan\""
                ),
            ));
        }
        if !seen.insert(name.as_str()) {
            return Err((
                Some(site.name.span()),
                format!("site.name {name:?}: named twice"),
            ));
        }
    }
    Ok(raw.iter().map(|s| s.name.get_ref().clone()).collect())
}

fn check_links(raw: &[RawLink], sites: &[String]) -> Result<Vec<SiteLink>, Problem> {
    let mut seen = HashSet::new();
    let mut links = Vec::new();
    for link in raw {
        let span = Some(link.sites.span());
        let [a, b] = link.sites.get_ref().as_slice() else {
            return Err((span, "link.sites: name exactly two sites".into()));
        };
        let find = |name: &String| {
            site_index(sites, name)
                .ok_or_else(|| (span.clone(), format!("link.sites: no site named {name:?}")))
        };
        let (a, b) = (find(a)?, find(b)?);
        if a == b {
            return Err((span, "link.sites: a link joins two different sites".into()));
        }
        let pair = (a.min(b), a.max(b));
        if !seen.insert(pair) {
            return Err((span, "link.sites: these two sites are linked twice".into()));
        }
        links.push(SiteLink {
            sites: pair,
            delay: link
                .delay_ms
                .as_ref()
                .map(check_delay)
                .transpose()?
                .unwrap_or_default(),
            loss: link
                .loss_percent
                .as_ref()
                .map(check_loss)
                .transpose()?
                .unwrap_or(0.0),
            bandwidth_bps: link
                .bandwidth_mbit
                .as_ref()
                .map(check_bandwidth)
                .transpose()?,
        });
    }
    Ok(links)
}

fn check_delay(delay: &Spanned<f64>) -> Result<Duration, Problem> {
    let ms = *delay.get_ref();
    if !(0.0..=10_000.0).contains(&ms) {
        return Err((
            Some(delay.span()),
            format!("link.delay_ms {ms}: from 0 to 10000"),
        ));
    }
    Ok(Duration::from_secs_f64(ms / 1000.0))
}

fn check_loss(loss: &Spanned<f64>) -> Result<f64, Problem> {
    let percent = *loss.get_ref();
    if !(0.0..=100.0).contains(&percent) {
        return Err((
            Some(loss.span()),
            format!("link.loss_percent {percent}: from 0 to 100"),
        ));
    }
    Ok(percent / 100.0)
}

fn check_bandwidth(bandwidth: &Spanned<f64>) -> Result<u64, Problem> {
    let mbit = *bandwidth.get_ref();
    if !(0.01..=100_000.0).contains(&mbit) {
        return Err((
            Some(bandwidth.span()),
            format!("link.bandwidth_mbit {mbit}: from 0.01 to 100000"),
        ));
    }
    Ok((mbit * 1e6) as u64)
}

/// 1-based line of a byte offset.
pub(crate) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
        + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<LabSpec, String> {
        LabSpec::parse(text, Path::new("lab.toml")).map_err(|e| e.to_string())
    }

    const TWO: &str = "[[site]]\nname = \"east\"\n[[site]]\nname = \"west\"\n";

    #[test]
    fn a_two_site_lab_reads_its_link() {
        let spec = parse(&format!(
            "{TWO}[[link]]\nsites = [\"west\", \"east\"]\ndelay_ms = 20\nloss_percent = 1.5\nbandwidth_mbit = 10\n"
        ))
        .unwrap();
        assert_eq!(spec.sites, ["east", "west"]);
        assert_eq!(
            spec.links,
            [SiteLink {
                sites: (0, 1),
                delay: Duration::from_millis(20),
                loss: 0.015,
                bandwidth_bps: Some(10_000_000),
            }]
        );
        assert_eq!((spec.router_site, spec.federate_site), (0, 1));
        let spec = parse(&format!("{TWO}[place]\ntop = \"west\"\n")).unwrap();
        assert_eq!(spec.placement, [("top".to_owned(), 1)]);
        let e = parse(&format!("{TWO}[place]\ntop = \"mars\"\n")).unwrap_err();
        assert_eq!(e, "lab.toml: line 6: place.top: no site named \"mars\"");
    }

    #[test]
    fn errors_name_file_line_and_field() {
        let e = parse(&format!("{TWO}[[link]]\nsites = [\"east\", \"north\"]\n")).unwrap_err();
        assert_eq!(e, "lab.toml: line 6: link.sites: no site named \"north\"");
        let e = parse(&format!(
            "{TWO}[[link]]\nsites = [\"east\", \"west\"]\ndelay = 3\n"
        ))
        .unwrap_err();
        assert!(
            e.starts_with("lab.toml: line 7: unknown field `delay`"),
            "{e}"
        );
        let e = parse("[[site]]\nname = \"East Coast\"\n").unwrap_err();
        assert!(
            e.starts_with("lab.toml: line 2: site.name \"East Coast\""),
            "{e}"
        );
        let e = parse(&format!(
            "{TWO}[[link]]\nsites = [\"east\", \"west\"]\nloss_percent = 120\n"
        ))
        .unwrap_err();
        assert_eq!(e, "lab.toml: line 7: link.loss_percent 120: from 0 to 100");
        let e = parse(&format!("{TWO}[bench]\nrouter_site = \"mars\"\n")).unwrap_err();
        assert_eq!(
            e,
            "lab.toml: line 6: bench.router_site: no site named \"mars\""
        );
        let e = parse("seed = 1\n").unwrap_err();
        assert_eq!(e, "lab.toml: site: a lab needs at least one [[site]]");
    }

    #[test]
    fn a_pair_linked_twice_is_refused() {
        let link = "[[link]]\nsites = [\"east\", \"west\"]\n";
        let e = parse(&format!("{TWO}{link}{link}")).unwrap_err();
        assert_eq!(
            e,
            "lab.toml: line 8: link.sites: these two sites are linked twice"
        );
    }
}
