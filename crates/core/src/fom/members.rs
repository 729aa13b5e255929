//! The members (attributes or parameters) of one class definition, by name.
//!
//! A sorted vector rather than a map: most classes declare a handful of members, many none
//! or one, and a map's node per class cost far more than the members themselves (a B-tree
//! leaf holds eleven, about 3 KB for a class of one attribute), which in a model of tens of
//! thousands of classes made loading mostly page faults. Lookups are binary searches;
//! iteration is in name order, as a BTreeMap's.

use super::definitions::Member;
use super::error::Site;

#[derive(Clone, Default)]
pub(crate) struct Members(Vec<(String, Member)>);

/// A member declared again in the same definition: where, and where first.
pub(crate) struct Duplicate {
    pub name: String,
    pub site: Site,
    pub first: Site,
}

impl Members {
    /// The members of one definition as declared, in document order. Of a name declared
    /// more than once the first declaration is kept and every later one is returned, in
    /// document order.
    pub(crate) fn new(declared: Vec<(String, Member)>) -> (Members, Vec<Duplicate>) {
        let mut members: Vec<(usize, String, Member)> = (declared.into_iter().enumerate())
            .map(|(position, (name, member))| (position, name, member))
            .collect();
        // Stable, so that of one name the first declared comes first.
        members.sort_by(|a, b| a.1.cmp(&b.1));
        let mut duplicates: Vec<(usize, Duplicate)> = Vec::new();
        let mut kept: Vec<(String, Member)> = Vec::with_capacity(members.len());
        for (position, name, member) in members {
            match kept.last() {
                Some((first_name, first)) if *first_name == name => duplicates.push((
                    position,
                    Duplicate {
                        name,
                        site: member.site,
                        first: first.site.clone(),
                    },
                )),
                _ => kept.push((name, member)),
            }
        }
        duplicates.sort_by_key(|(position, _)| *position);
        let duplicates = duplicates.into_iter().map(|(_, d)| d).collect();
        (Members(kept), duplicates)
    }

    pub(crate) fn get(&self, name: &str) -> Option<&Member> {
        let found = self.0.binary_search_by(|(n, _)| n.as_str().cmp(name));
        found.ok().map(|i| &self.0[i].1)
    }

    pub(crate) fn contains_key(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    pub(crate) fn iter(&self) -> impl Iterator<Item = (&String, &Member)> {
        self.0.iter().map(|(name, member)| (name, member))
    }

    pub(crate) fn len(&self) -> usize {
        self.0.len()
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Every member named in `names` removed.
    pub(crate) fn remove_all(&mut self, mut names: Vec<String>) {
        if names.is_empty() {
            return;
        }
        names.sort_unstable();
        self.0
            .retain(|(name, _)| names.binary_search(name).is_err());
    }
}
