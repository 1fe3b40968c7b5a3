//! Inspect as a workspace of two levels, each with its own link: the library (import, the
//! session list, export, the corpus comparison), and one session with its views (Archive,
//! Editions and checks, Probes, Replay, Two summarisers, Export), one task at a time. The screen
//! is computed here from the route and the library; the component draws it as it is.

use crate::app::library::Library;
use crate::engine::library_session::ContinuedFrom;
use crate::route::{Route, SessionView};

/// What Inspect shows for a route.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InspectScreen {
    /// No session open: import, the list, export, the corpus comparison.
    Library,
    /// The link names a session, and the library is still being read.
    Loading { id: String },
    /// The link names a session this browser's library does not hold.
    Missing { id: String, note: String },
    /// One session, at one of its views.
    Session(SessionScreen),
}

/// One open session: its heading, the view bar and what the view shows first.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionScreen {
    pub id: String,
    pub name: String,
    /// The line under the name: turns, messages, editions, where it came from.
    pub facts: String,
    pub views: Vec<ViewTab>,
    pub view: SessionView,
    /// The system prompt, when the session has one (an empty one is not drawn).
    pub system_prompt: Option<String>,
    /// What the view needs and does not have yet, said instead of drawing it empty.
    pub needs: Option<&'static str>,
    /// The session and edition this one was continued from ("Continue in a new session").
    pub continued_from: Option<SessionLink>,
    /// The sessions continued from one of this one's editions, oldest edition first.
    pub continued_in: Vec<SessionLink>,
}

/// A link between a continued session and its source, as the heading draws it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionLink {
    /// E.g. "Continued from “FinCoach”, edition 2".
    pub text: String,
    /// The library id the link opens; `None` when this library does not hold the session (a
    /// demo, or a source left in another browser).
    pub open: Option<String>,
    /// `data-edition`: the edition continued from.
    pub edition: u32,
}

/// The links of session `id` (named `name`, holding `continued_from`) both ways: the source it
/// was continued from, found by its id or, in a library that imported both, by its name; and
/// every session continued from it.
pub fn continued_links(
    library: &Library,
    id: &str,
    name: &str,
    continued_from: Option<&ContinuedFrom>,
) -> (Option<SessionLink>, Vec<SessionLink>) {
    let find = |from: &ContinuedFrom| {
        library
            .get(&from.session_id)
            .or_else(|| library.list().iter().find(|e| e.session.name == from.name))
            .map(|e| e.id.clone())
    };
    let from = continued_from.map(|from| {
        let open = find(from);
        let demo = from.session_id.starts_with("demo:");
        SessionLink {
            text: format!(
                "Continued from {}\u{201c}{}\u{201d}, edition {}{}",
                if demo { "the demo " } else { "" },
                from.name,
                from.edition,
                if open.is_none() && !demo {
                    " (not in this browser's library)"
                } else {
                    ""
                }
            ),
            open,
            edition: from.edition,
        }
    });
    let mut to: Vec<SessionLink> = library
        .list()
        .iter()
        .filter(|e| e.id != id)
        .filter_map(|e| {
            let link = e.session.continued_from.as_ref()?;
            let ours = link.session_id == id
                || (library.get(&link.session_id).is_none() && link.name == name);
            ours.then(|| SessionLink {
                text: format!(
                    "Edition {} continued in \u{201c}{}\u{201d}",
                    link.edition, e.session.name
                ),
                open: Some(e.id.clone()),
                edition: link.edition,
            })
        })
        .collect();
    to.sort_by(|a, b| a.edition.cmp(&b.edition).then_with(|| a.text.cmp(&b.text)));
    (from, to)
}

/// One button of the view bar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ViewTab {
    pub view: SessionView,
    /// The button's words, with a count where one helps ("Editions and checks (3)").
    pub label: String,
    pub selected: bool,
    /// `session-view-{slug}`.
    pub testid: String,
}

impl InspectScreen {
    /// The screen for `route` over `library`, read from storage once `loaded`.
    pub fn of(route: &Route, library: &Library, loaded: bool) -> InspectScreen {
        let Some(id) = route.session.clone() else {
            return InspectScreen::Library;
        };
        let Some(entry) = library.get(&id) else {
            return if loaded {
                InspectScreen::Missing {
                    note: format!(
                        "No session \u{201c}{id}\u{201d} is kept in this browser: it was deleted, or the link comes from another browser. Import its file to open it here."
                    ),
                    id,
                }
            } else {
                InspectScreen::Loading { id }
            };
        };
        let session = &entry.session;
        let memory = &session.memory;
        let editions = memory.editions().len();
        let turns = memory.turn_count();
        let view = route.session_view();
        let views = SessionView::ALL
            .into_iter()
            .map(|v| ViewTab {
                view: v,
                label: match v {
                    SessionView::Archive => format!("Archive ({})", plural(turns, "turn")),
                    SessionView::Editions => format!("Editions and checks ({editions})"),
                    _ => v.label().to_owned(),
                },
                selected: v == view,
                testid: format!("session-view-{}", v.slug()),
            })
            .collect();
        let origin = entry
            .origin
            .as_ref()
            .map(|o| format!(" · from {}", o.file))
            .unwrap_or_default();
        let facts = format!(
            "{} · {} messages · {}{origin}",
            plural(turns, "turn"),
            memory.archive().len(),
            plural(editions as u32, "edition"),
        );
        let needs = match view {
            SessionView::Editions if editions == 0 => Some(
                "No summary was written in this session, so it has no editions to read or check. Replay it under a policy to see what one would fold.",
            ),
            _ => None,
        };
        let prompt = memory.system_prompt().trim();
        let (continued_from, continued_in) =
            continued_links(library, &id, &session.name, session.continued_from.as_ref());
        InspectScreen::Session(SessionScreen {
            id,
            name: session.name.clone(),
            facts,
            views,
            view,
            system_prompt: (!prompt.is_empty()).then(|| prompt.to_owned()),
            needs,
            continued_from,
            continued_in,
        })
    }
}

/// The way back to the library, with how many sessions it holds.
pub fn all_sessions(count: usize) -> String {
    format!("\u{2190} All sessions ({count})")
}

/// The hook of view `v`'s panel: `view-{slug}`.
pub fn view_panel_testid(v: SessionView) -> String {
    format!("view-{}", v.slug())
}

/// The library's import hint: what it reads.
pub fn import_reads() -> String {
    format!(
        "Read: this app's sessions, {}, as JSON or JSON Lines (a coding agent's own compactions become editions). ",
        crate::engine::transcript::reads()
    )
}

/// The undo notice after a deletion, before its buttons.
pub fn deleted_line(name: &str) -> String {
    format!("Deleted \u{201c}{name}\u{201d}. ")
}

/// A session's row in the list, after its name: its turns and editions.
pub fn session_counts(turns: u32, editions: usize) -> String {
    format!(" · {turns} turns · {editions} editions")
}

/// One row of the library's session list, as drawn: what the row at a place in the list shows.
/// The list is virtualised, so a row stands for a place, and shows whichever session is there.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionRow {
    pub id: String,
    pub name: String,
    /// " · 3 turns · 2 editions", after the name.
    pub counts: String,
}

impl SessionRow {
    /// The row at place `index` of the list (newest change first), if the list is that long.
    pub fn at(library: &Library, index: usize) -> Option<SessionRow> {
        library.list().get(index).map(|e| SessionRow {
            id: e.id.clone(),
            name: e.session.name.clone(),
            counts: session_counts(
                e.session.memory.turn_count(),
                e.session.memory.editions().len(),
            ),
        })
    }
}

/// `n` and `word`, with an s when `n` is not 1.
fn plural(n: u32, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::library::Entry;
    use crate::engine::library_session::{Session, SessionSettings};
    use crate::engine::memory::MemoryState;
    use crate::engine::session::synthetic;

    fn library_with(id: &str, system_prompt: &str) -> Library {
        let made = synthetic(3);
        let mut memory = MemoryState::new(system_prompt, made.memory.policy().clone())
            .expect("the fixture's policy is valid");
        for m in made.memory.archive() {
            memory
                .add_message(m.clone())
                .expect("three turns never fold at 8");
        }
        let session = Session::new("Budget talk".to_owned(), SessionSettings::default(), memory);
        Library::from_stored(vec![Entry {
            id: id.to_owned(),
            session,
            updated_ms: 1,
            revision: 1,
            origin: None,
            counted_in: None,
        }])
    }

    #[test]
    fn a_continued_session_and_its_source_link_to_each_other_also_after_export_and_import() {
        use crate::app::live::LiveSession;
        use crate::engine::message::WordCounter;
        use crate::engine::session::{export_all, import_all};
        let source = synthetic(12);
        let mut library = Library::default();
        library.add("src".into(), source.clone(), 1).unwrap();
        let live = LiveSession::continue_from(&source, "src", 2, 5, &WordCounter).unwrap();
        let new = library
            .keep_live(None, || "cont".into(), &live, 6, &WordCounter)
            .unwrap();
        let route = |id: &str| Route {
            session: Some(id.to_owned()),
            ..Route::default()
        };
        let screen =
            |library: &Library, id: &str| match InspectScreen::of(&route(id), library, true) {
                InspectScreen::Session(s) => s,
                other => panic!("{other:?}"),
            };
        let continued = screen(&library, &new);
        let back = continued.continued_from.clone().unwrap();
        assert_eq!(back.open.as_deref(), Some("src"));
        assert_eq!(back.edition, 2);
        assert_eq!(
            back.text,
            format!("Continued from \u{201c}{}\u{201d}, edition 2", source.name)
        );
        let forth = screen(&library, "src").continued_in;
        assert_eq!(forth.len(), 1);
        assert_eq!(forth[0].open.as_deref(), Some(new.as_str()));
        assert!(
            forth[0].text.starts_with("Edition 2 continued in"),
            "{:?}",
            forth[0].text
        );

        // Exported together and imported into another browser under new ids: found by name.
        let sessions: Vec<Session> = library.list().iter().map(|e| e.session.clone()).collect();
        let file = export_all(&sessions, 0, "test");
        let read = import_all(file.as_bytes(), &WordCounter).unwrap();
        let mut other = Library::default();
        for (i, s) in read.into_iter().enumerate() {
            other.add(format!("new-{i}"), s, 10).unwrap();
        }
        let id_of = |name: &str| {
            other
                .list()
                .iter()
                .find(|e| e.session.name == name)
                .unwrap()
                .id
                .clone()
        };
        let (src, cont) = (id_of(&source.name), id_of(&continued.name));
        assert_eq!(
            screen(&other, &cont).continued_from.unwrap().open,
            Some(src.clone())
        );
        assert_eq!(screen(&other, &src).continued_in[0].open, Some(cont));

        // Alone in another library: the source is named, with no link.
        let mut alone = Library::default();
        alone
            .add("x".into(), library.get(&new).unwrap().session.clone(), 1)
            .unwrap();
        let link = screen(&alone, "x").continued_from.unwrap();
        assert_eq!(link.open, None);
        assert!(
            link.text.ends_with("(not in this browser's library)"),
            "{}",
            link.text
        );
    }

    #[test]
    fn the_way_back_names_how_many_sessions_the_library_holds() {
        assert_eq!(all_sessions(1), "\u{2190} All sessions (1)");
        assert_eq!(all_sessions(41), "\u{2190} All sessions (41)");
    }

    #[test]
    fn the_library_levels_lines_name_the_formats_the_deleted_session_and_each_sessions_counts() {
        let hint = import_reads();
        assert!(hint.starts_with("Read: this app's sessions, "), "{hint}");
        assert!(
            hint.contains(&crate::engine::transcript::reads()),
            "every format read is named: {hint}"
        );
        assert!(hint.ends_with("become editions). "), "{hint}");
        assert_eq!(
            deleted_line("Budget talk"),
            "Deleted \u{201c}Budget talk\u{201d}. "
        );
        assert_eq!(session_counts(3, 1), " · 3 turns · 1 editions");
        assert_eq!(session_counts(0, 0), " · 0 turns · 0 editions");
    }

    #[test]
    fn each_view_has_its_buttons_and_its_panels_hook() {
        let library = library_with("s1", "");
        let route = Route::parse("?tab=inspect&session=s1&view=ab");
        let InspectScreen::Session(screen) = InspectScreen::of(&route, &library, true) else {
            panic!("the session is in the library");
        };
        let hooks: Vec<_> = screen.views.iter().map(|v| v.testid.as_str()).collect();
        assert_eq!(
            hooks,
            [
                "session-view-archive",
                "session-view-editions",
                "session-view-probes",
                "session-view-replay",
                "session-view-ab",
                "session-view-export"
            ]
        );
        let panels: Vec<_> = SessionView::ALL
            .into_iter()
            .map(view_panel_testid)
            .collect();
        assert_eq!(
            panels,
            [
                "view-archive",
                "view-editions",
                "view-probes",
                "view-replay",
                "view-ab",
                "view-export"
            ]
        );
    }

    #[test]
    fn no_session_in_the_link_is_the_library() {
        let route = Route::parse("?tab=inspect&view=probes");
        assert_eq!(
            InspectScreen::of(&route, &Library::default(), true),
            InspectScreen::Library
        );
    }

    #[test]
    fn a_session_the_library_lacks_is_loading_then_missing_with_what_to_do() {
        let route = Route::parse("?tab=inspect&session=gone-1");
        let library = library_with("other", "");
        assert_eq!(
            InspectScreen::of(&route, &library, false),
            InspectScreen::Loading {
                id: "gone-1".into()
            }
        );
        let InspectScreen::Missing { id, note } = InspectScreen::of(&route, &library, true) else {
            panic!("a loaded library without the session is Missing");
        };
        assert_eq!(id, "gone-1");
        assert_eq!(
            note,
            "No session \u{201c}gone-1\u{201d} is kept in this browser: it was deleted, or the link comes from another browser. Import its file to open it here."
        );
    }

    #[test]
    fn a_session_opens_at_the_archive_with_one_selected_view_and_counts_on_its_buttons() {
        let library = library_with("s1", "You are terse.");
        let route = Route::parse("?tab=inspect&session=s1");
        let InspectScreen::Session(screen) = InspectScreen::of(&route, &library, true) else {
            panic!("the session is in the library");
        };
        assert_eq!(screen.name, "Budget talk");
        assert_eq!(screen.view, SessionView::Archive);
        let labels: Vec<_> = screen.views.iter().map(|v| v.label.as_str()).collect();
        assert_eq!(
            labels,
            [
                "Archive (3 turns)",
                "Editions and checks (0)",
                "Probes",
                "Replay",
                "Two summarisers",
                "Export"
            ]
        );
        let selected: Vec<_> = screen.views.iter().filter(|v| v.selected).collect();
        assert_eq!(selected.len(), 1);
        assert_eq!(selected[0].view, SessionView::Archive);
        assert_eq!(screen.system_prompt.as_deref(), Some("You are terse."));
        assert_eq!(screen.facts, "3 turns · 6 messages · 0 editions");
        assert_eq!(screen.needs, None);
    }

    #[test]
    fn an_empty_system_prompt_and_an_empty_editions_view_are_not_drawn_but_said() {
        let library = library_with("s1", "  ");
        let route = Route::parse("?tab=inspect&session=s1&view=editions");
        let InspectScreen::Session(screen) = InspectScreen::of(&route, &library, true) else {
            panic!("the session is in the library");
        };
        assert_eq!(screen.system_prompt, None);
        assert_eq!(screen.view, SessionView::Editions);
        assert!(
            screen
                .needs
                .is_some_and(|n| n.starts_with("No summary was written"))
        );
    }

    #[test]
    fn a_row_shows_the_session_at_its_place_in_the_list() {
        let mut library = library_with("s1", "be brief");
        let session = library.get("s1").unwrap().session.clone();
        library.add("s2".into(), session, u64::MAX).unwrap();
        library.rename("s2", "Newer", u64::MAX).unwrap();
        let first = SessionRow::at(&library, 0).unwrap();
        assert_eq!(first.id, "s2");
        assert_eq!(first.name, "Newer");
        assert_eq!(first.counts, " · 3 turns · 0 editions");
        assert_eq!(SessionRow::at(&library, 1).unwrap().id, "s1");
        assert_eq!(SessionRow::at(&library, 2), None);
    }
}
