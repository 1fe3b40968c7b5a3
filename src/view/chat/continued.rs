//! The Chat tab's words for a live chat continued from another session's edition: the note over
//! the chat (where it came from, and what it needs when no endpoint is set), and the context
//! window the side panel draws (a demo's last request, or the continued chat's next one).

use crate::app::workbench::Workbench;
use crate::engine::facts::compile_facts;
use crate::engine::message::CountTokens;
use crate::view::context_window::{ContextWindow, context_window, continued_window};

/// The note over a continued chat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContinuedNote {
    /// Where the chat came from and what its first request holds.
    pub text: String,
    /// What it needs before it can send, when no endpoint is set: `data-needs="endpoint"`.
    pub needs: Option<String>,
}

/// The note for the live chat on screen when it was continued from an edition; `None` for a
/// demo or any other chat.
pub fn continued_note(workbench: &Workbench, endpoint_valid: bool) -> Option<ContinuedNote> {
    if !workbench.is_live() {
        return None;
    }
    let from = workbench.live.continued_from()?;
    let turns = workbench.live.memory().turn_count();
    let text = if turns == 0 {
        format!(
            "A new session from \u{201c}{}\u{201d}, edition {}: its first request holds the system prompt and that summary, and none of the old turns (see the context window).",
            from.name, from.edition
        )
    } else {
        format!(
            "Continued from \u{201c}{}\u{201d}, edition {}.",
            from.name, from.edition
        )
    };
    let needs = (!endpoint_valid).then(|| {
        "No endpoint is configured, so nothing can be sent yet: set one in Settings (a base URL and a model), then ask your first question here.".to_owned()
    });
    Some(ContinuedNote { text, needs })
}

/// The context window the Chat tab draws: a demo's last request, or a continued live chat's
/// next one (before anything is sent, its first); `None` otherwise.
pub fn chat_window(workbench: &Workbench, counter: &dyn CountTokens) -> Option<ContextWindow> {
    if let Some(player) = workbench.demo() {
        return context_window(player);
    }
    let live = &workbench.live;
    let facts = compile_facts(live.pinned()).unwrap_or_default();
    continued_window(live.memory(), live.continued_from(), &facts, counter)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::continue_chat::{continue_in_new_session, on_screen_source};
    use crate::app::library::LIVE_NAME;
    use crate::engine::message::WordCounter;
    use crate::route::Route;

    #[test]
    fn a_continued_chat_says_where_it_came_from_and_what_it_needs_and_shows_its_first_request() {
        let route = Route::parse("?demo=fincoach");
        let mut workbench = Workbench::from_route(&route);
        workbench.play_all(&WordCounter);
        assert!(continued_note(&workbench, false).is_none(), "a demo");
        let demo_window = chat_window(&workbench, &WordCounter).unwrap();
        let (source, id) = on_screen_source(&workbench, None, LIVE_NAME);
        continue_in_new_session(&mut workbench, &route, &source, &id, 2, 1, &WordCounter).unwrap();
        let note = continued_note(&workbench, false).unwrap();
        assert!(note.text.contains(&source.name) && note.text.contains("edition 2"));
        assert!(note.needs.unwrap().contains("Settings"));
        assert_eq!(continued_note(&workbench, true).unwrap().needs, None);
        let window = chat_window(&workbench, &WordCounter).unwrap();
        assert_ne!(window, demo_window);
        assert_eq!(window.turn, 1);
        assert!(window.segments.iter().all(|s| s.kind.slug() != "turn"));
        // A plain live chat has neither.
        assert!(continued_note(&Workbench::default(), false).is_none());
        assert!(chat_window(&Workbench::default(), &WordCounter).is_none());
    }
}
