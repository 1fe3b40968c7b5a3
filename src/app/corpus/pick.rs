//! Which library sessions a corpus run covers, and the `source` and `index` each one's rows
//! carry: the imports the picker offers as groups ([`imports`]), and the run's members in the
//! order the command-line tool writes its rows ([`members`]).
//!
//! A session from an import carries its file's name as its source and its place among the
//! conversations read from that file as its index, as `summary-memory-cli compare` numbers
//! the same file, so the page's CSV of an import equals the tool's CSV of the file, index
//! column included, whatever order the library lists the sessions in. Two imports of files of
//! one name are told apart as `name`, `name #2`, … by import time. A session from no import (a
//! chat, a copy, one stored before imports were recorded) has the source `library` and its
//! place among those in the order given.

use std::collections::BTreeMap;

use crate::app::library::{Entry, Library};

/// The source of a session from no import.
pub const LIBRARY: &str = "library";

/// One import of the library, as the picker offers it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ImportGroup {
    pub file: String,
    pub imported_ms: u64,
    /// Its sessions still in the library.
    pub count: usize,
}

impl ImportGroup {
    /// The picker's value for this import: its time and file.
    pub fn key(&self) -> String {
        format!("{}:{}", self.imported_ms, self.file)
    }

    /// Whether `entry` came from this import.
    pub fn holds(&self, entry: &Entry) -> bool {
        entry
            .origin
            .as_ref()
            .is_some_and(|o| o.imported_ms == self.imported_ms && o.file == self.file)
    }
}

/// Every import the library holds sessions of, newest first (ties by file name): read from
/// the counts the library keeps as sessions come and go, not counted over its sessions.
pub fn imports(library: &Library) -> Vec<ImportGroup> {
    let mut out: Vec<ImportGroup> = library
        .list()
        .imports()
        .map(|(imported_ms, file, count)| ImportGroup {
            file: file.to_owned(),
            imported_ms,
            count,
        })
        .collect();
    out.sort_unstable_by(|a, b| {
        b.imported_ms
            .cmp(&a.imported_ms)
            .then_with(|| a.file.cmp(&b.file))
    });
    out
}

/// One conversation of a run: its library id, and the source and index its rows carry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub id: String,
    pub source: String,
    pub index: u32,
}

/// The run's members for `entries`, in the rows' order (by source, then index, as
/// [`crate::engine::corpus::sort_rows`] sorts them), so the rows of a run in member order are
/// the command-line tool's rows.
pub fn members<'a>(entries: impl IntoIterator<Item = &'a Entry>) -> Vec<Member> {
    let entries: Vec<&Entry> = entries.into_iter().collect();
    // Each file name's imports, oldest first: the first keeps the name, the next get `#2`, ….
    let mut times: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    for origin in entries.iter().filter_map(|e| e.origin.as_ref()) {
        let at = times.entry(origin.file.as_str()).or_default();
        if !at.contains(&origin.imported_ms) {
            at.push(origin.imported_ms);
        }
    }
    for at in times.values_mut() {
        at.sort_unstable();
    }
    let mut loose = 0u32;
    let mut out: Vec<Member> = entries
        .iter()
        .map(|e| match &e.origin {
            Some(origin) => {
                let nth = times[origin.file.as_str()]
                    .iter()
                    .position(|&t| t == origin.imported_ms)
                    .unwrap_or(0);
                Member {
                    id: e.id.clone(),
                    source: if nth == 0 {
                        origin.file.clone()
                    } else {
                        format!("{} #{}", origin.file, nth + 1)
                    },
                    index: origin.position,
                }
            }
            None => {
                loose += 1;
                Member {
                    id: e.id.clone(),
                    source: LIBRARY.to_owned(),
                    index: loose - 1,
                }
            }
        })
        .collect();
    out.sort_unstable_by(|a, b| (a.source.as_str(), a.index).cmp(&(b.source.as_str(), b.index)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::library::Origin;
    use crate::engine::session::fixture::verbatim;

    fn entry(id: &str, origin: Option<(&str, u64, u32)>) -> Entry {
        Entry {
            id: id.into(),
            session: verbatim(2),
            updated_ms: 1,
            revision: 1,
            origin: origin.map(|(file, imported_ms, position)| Origin {
                file: file.into(),
                imported_ms,
                position,
            }),
            counted_in: None,
        }
    }

    #[test]
    fn imports_are_offered_newest_first_with_their_counts() {
        let library = Library::from_stored(vec![
            entry("a", Some(("old.json", 5, 0))),
            entry("b", Some(("new.jsonl", 9, 1))),
            entry("c", Some(("new.jsonl", 9, 0))),
            entry("chat", None),
            entry("d", Some(("old.json", 5, 1))),
        ]);
        let groups = imports(&library);
        assert_eq!(
            groups
                .iter()
                .map(|g| (g.file.as_str(), g.imported_ms, g.count))
                .collect::<Vec<_>>(),
            [("new.jsonl", 9, 2), ("old.json", 5, 2)]
        );
        let held: Vec<&str> = library
            .list()
            .iter()
            .filter(|e| groups[1].holds(e))
            .map(|e| e.id.as_str())
            .collect();
        assert_eq!(held.len(), 2);
        assert!(held.contains(&"a") && held.contains(&"d"));
        assert_eq!(groups[0].key(), "9:new.jsonl");
    }

    #[test]
    fn members_carry_the_file_and_its_place_in_the_tools_order_whatever_the_list_order() {
        let entries = [
            entry("z", Some(("b.json", 5, 1))),
            entry("chat", None),
            entry("y", Some(("b.json", 5, 0))),
            entry("again", Some(("b.json", 8, 0))),
            entry("x", Some(("a.json", 3, 0))),
            entry("copy", None),
        ];
        let got: Vec<(String, String, u32)> = members(&entries)
            .into_iter()
            .map(|m| (m.id, m.source, m.index))
            .collect();
        let want = [
            ("x", "a.json", 0),
            ("y", "b.json", 0),
            ("z", "b.json", 1),
            ("again", "b.json #2", 0),
            ("chat", "library", 0),
            ("copy", "library", 1),
        ];
        assert_eq!(
            got,
            want.map(|(i, s, n)| (i.to_owned(), s.to_owned(), n))
                .to_vec()
        );
    }
}
