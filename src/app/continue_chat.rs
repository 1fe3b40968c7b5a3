//! "Continue in a new session" as one app-layer operation: the edition's source (a library
//! session, or the conversation on screen: a demo or the live chat), the new live chat
//! ([`LiveSession::continue_from`]) put on screen, and the link that follows (the Chat tab, no
//! demo). The shell calls it and performs the route it returns; the library keeps the new chat
//! as it keeps every live chat.

use crate::app::live::{LiveError, LiveSession};
use crate::app::workbench::Workbench;
use crate::engine::library_session::{Session, SessionSettings};
use crate::engine::message::CountTokens;
use crate::route::{Route, Tab};

/// The source id of a demo's edition: `demo:` and the demo's slug (a demo is not a library
/// session, so Inspect finds no session by it and names the demo instead).
pub fn demo_source_id(slug: &str) -> String {
    format!("demo:{slug}")
}

/// The conversation on screen as a session to continue from, with its source id: a demo's
/// (named by its title), or the live chat's (its library id `live_id`, empty before the library
/// kept it, and the name it is kept under).
pub fn on_screen_source(
    workbench: &Workbench,
    live_id: Option<&str>,
    live_name: &str,
) -> (Session, String) {
    let screen = workbench.on_screen();
    let (name, id) = match workbench.demo() {
        Some(player) => (
            player.script().title.to_owned(),
            demo_source_id(player.script().slug),
        ),
        None => (live_name.to_owned(), live_id.unwrap_or_default().to_owned()),
    };
    let session = Session {
        pinned: screen.pinned().to_vec(),
        ..Session::new(name, SessionSettings::default(), screen.memory().clone())
    };
    (session, id)
}

/// Puts a new live chat from edition `cycle` of `source` (kept under `source_id`) on screen and
/// returns the link that follows: the Chat tab with no demo. Refused, with the reason in the
/// workbench's error and nothing else changed, while the live chat waits for a reply or a
/// summary (whose answer would land in the new chat) or when the source has no such edition.
pub fn continue_in_new_session(
    workbench: &mut Workbench,
    route: &Route,
    source: &Session,
    source_id: &str,
    cycle: u32,
    at_ms: u64,
    counter: &dyn CountTokens,
) -> Option<Route> {
    if workbench.live.is_busy() {
        workbench.error = Some(LiveError::StillRunning.into());
        return None;
    }
    match LiveSession::continue_from(source, source_id, cycle, at_ms, counter) {
        Ok(live) => {
            workbench.unload();
            workbench.set_live(live);
            let mut next = route.clone();
            next.tab = Tab::Chat;
            next.demo = None;
            Some(next)
        }
        Err(error) => {
            workbench.error = Some(error.into());
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::library::{LIVE_NAME, Library};
    use crate::engine::message::{Role, WordCounter};
    use crate::route::DemoKind;

    #[test]
    fn continuing_a_fincoach_edition_opens_the_live_chat_with_its_summary_and_no_turn() {
        let mut route = Route::parse("?tab=editions&demo=fincoach");
        let mut workbench = Workbench::from_route(&route);
        workbench.play_all(&WordCounter);
        let (source, id) = on_screen_source(&workbench, None, LIVE_NAME);
        assert_eq!(id, "demo:fincoach");
        let edition = source.memory.editions()[0].clone();
        let next =
            continue_in_new_session(&mut workbench, &route, &source, &id, 1, 9, &WordCounter)
                .unwrap();
        assert_eq!((next.tab, next.demo), (Tab::Chat, None));
        assert!(workbench.is_live() && workbench.error.is_none());
        let request = workbench.live.memory().request(&WordCounter);
        assert!(request.iter().any(|m| m.content.contains(&edition.summary)));
        assert!(
            request
                .iter()
                .all(|m| m.role != Role::User || m.content.contains(&edition.summary))
        );
        assert_eq!(workbench.live.continued_from().unwrap().name, source.name);
        // The library keeps it under a name that says where it came from.
        let mut library = Library::default();
        let kept = library
            .keep_live(None, || "c".into(), &workbench.live, 10, &WordCounter)
            .unwrap();
        assert!(
            library
                .get(&kept)
                .unwrap()
                .session
                .name
                .contains(&source.name)
        );
        // Another edition that is not there is refused, and the chat stays.
        route.demo = Some(DemoKind::FinCoach);
        assert_eq!(
            continue_in_new_session(&mut workbench, &route, &source, &id, 99, 9, &WordCounter),
            None
        );
        assert!(
            workbench.error_shown().unwrap().contains("99"),
            "{:?}",
            workbench.error_shown()
        );
        assert_eq!(workbench.live.continued_from().unwrap().edition, 1);
    }

    #[test]
    fn a_live_chat_waiting_for_its_reply_is_not_replaced() {
        let route = Route::default();
        let mut workbench = Workbench::default();
        workbench.send("hello", 1, &WordCounter).unwrap();
        let source = crate::engine::session::synthetic(12);
        assert_eq!(
            continue_in_new_session(&mut workbench, &route, &source, "s", 1, 2, &WordCounter),
            None
        );
        assert_eq!(workbench.live.memory().archive().len(), 1);
        assert!(workbench.live.continued_from().is_none());
        assert!(workbench.error_shown().is_some());
    }
}
