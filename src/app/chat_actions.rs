//! What the Chat tab's demo bar and welcome lead to once the app has answered: the edit of the
//! link's `?demo=` an action makes, the value a refused picker shows again, and the welcome's
//! "start a demo" as one app-layer operation. The component calls the app (or the live driver),
//! hands the answer to [`after`] and performs what it returns; it decides none of it.

use crate::app::workbench::Workbench;
use crate::engine::demo::DemoSummariser;
use crate::engine::message::CountTokens;
use crate::route::{DemoKind, Route};

/// What the user asked of the Chat tab that can change the conversation on screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChatAction {
    /// The demo picker: a demo, or `None` for the live chat.
    PickDemo(Option<DemoKind>),
    /// "Run live": the demo's user messages sent to the endpoint.
    RunLive,
    /// The summariser picker: a built-in summariser, or `None` for "Your endpoint", which runs
    /// the demo live.
    PickSummariser(Option<DemoSummariser>),
    /// A welcome button: the demo loaded and its first step played.
    StartDemo(DemoKind),
}

/// What the shell does after an action, besides rendering the new state.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Followup {
    /// The link changes to this route (its `?demo=` follows the conversation on screen).
    Route(Route),
    /// The action was refused: the picker that asked shows this value again, the one in use.
    ShowAgain(&'static str),
    /// Nothing beyond the new state.
    Nothing,
}

/// What follows `action`, given whether the app `taken` it, the link as it is and the
/// workbench after the action. Leaving a demo for the live chat clears `?demo=`, loading one
/// sets it; a refused picker shows what is on screen again, so the page never claims a choice
/// the app did not make.
pub fn after(action: ChatAction, taken: bool, route: &Route, workbench: &Workbench) -> Followup {
    let link = |demo: Option<DemoKind>| {
        let mut next = route.clone();
        next.demo = demo;
        Followup::Route(next)
    };
    match (action, taken) {
        (ChatAction::PickDemo(chosen), true) => link(chosen),
        (ChatAction::PickDemo(_), false) => {
            Followup::ShowAgain(workbench.demo_kind().map_or("", DemoKind::slug))
        }
        (ChatAction::RunLive | ChatAction::PickSummariser(None), true) => link(None),
        (ChatAction::PickSummariser(None), false) => {
            Followup::ShowAgain(workbench.demo_summariser().slug())
        }
        (ChatAction::StartDemo(kind), _) => link(Some(kind)),
        // A built-in summariser replays the demo in place; a refused Run live leaves the demo
        // on screen, which the link already names.
        (ChatAction::PickSummariser(Some(_)), _) | (ChatAction::RunLive, false) => {
            Followup::Nothing
        }
    }
}

/// The welcome's "start a demo": loads `kind` and plays its first step, so one click shows
/// something happening. Returns what follows (the link names the demo).
pub fn start_demo(
    workbench: &mut Workbench,
    route: &Route,
    kind: DemoKind,
    counter: &dyn CountTokens,
) -> Followup {
    workbench.load(kind);
    workbench.step(counter);
    after(ChatAction::StartDemo(kind), true, route, workbench)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::message::WordCounter;

    fn route_with(demo: Option<DemoKind>) -> Route {
        let mut route = Route::parse("?tab=chat&trigger=turns&max_turns=3");
        route.demo = demo;
        route
    }

    #[test]
    fn a_demo_taken_by_the_picker_is_named_in_the_link_and_the_rest_of_it_kept() {
        let route = route_with(None);
        let mut workbench = Workbench::default();
        assert!(workbench.pick(Some(DemoKind::Drift)));
        let Followup::Route(next) = after(
            ChatAction::PickDemo(Some(DemoKind::Drift)),
            true,
            &route,
            &workbench,
        ) else {
            panic!("a taken pick edits the link");
        };
        assert_eq!(next.demo, Some(DemoKind::Drift));
        assert_eq!(next.trigger, route.trigger);
        assert_eq!(next.max_turns, Some(3));
        // Going back to the live chat clears `?demo=`.
        assert_eq!(
            after(
                ChatAction::PickDemo(None),
                true,
                &route_with(Some(DemoKind::Drift)),
                &workbench
            ),
            Followup::Route(route_with(None))
        );
    }

    #[test]
    fn a_refused_pick_shows_the_demo_on_screen_again() {
        let mut workbench = Workbench::default();
        let route = route_with(None);
        // No demo on screen: the picker's empty choice.
        assert_eq!(
            after(
                ChatAction::PickDemo(Some(DemoKind::FinCoach)),
                false,
                &route,
                &workbench
            ),
            Followup::ShowAgain("")
        );
        workbench.load(DemoKind::Drift);
        assert_eq!(
            after(
                ChatAction::PickDemo(Some(DemoKind::FinCoach)),
                false,
                &route,
                &workbench
            ),
            Followup::ShowAgain(DemoKind::Drift.slug())
        );
    }

    #[test]
    fn running_a_demo_live_clears_the_demo_from_the_link_and_a_refusal_keeps_it() {
        let route = route_with(Some(DemoKind::FinCoach));
        let mut workbench = Workbench::default();
        workbench.load(DemoKind::FinCoach);
        for action in [ChatAction::RunLive, ChatAction::PickSummariser(None)] {
            assert_eq!(
                after(action, true, &route, &workbench),
                Followup::Route(route_with(None)),
                "{action:?}"
            );
        }
        assert_eq!(
            after(ChatAction::RunLive, false, &route, &workbench),
            Followup::Nothing
        );
        // "Your endpoint" refused: the summariser picker shows the one in use again.
        workbench.set_demo_summariser(DemoSummariser::Scripted, &WordCounter);
        assert_eq!(
            after(ChatAction::PickSummariser(None), false, &route, &workbench),
            Followup::ShowAgain("scripted")
        );
        // A built-in summariser changes nothing in the link.
        assert_eq!(
            after(
                ChatAction::PickSummariser(Some(DemoSummariser::Extractive)),
                true,
                &route,
                &workbench
            ),
            Followup::Nothing
        );
    }

    #[test]
    fn starting_a_demo_from_the_welcome_loads_it_plays_one_step_and_names_it_in_the_link() {
        let route = route_with(None);
        let mut workbench = Workbench::default();
        let followup = start_demo(&mut workbench, &route, DemoKind::Drift, &WordCounter);
        assert_eq!(followup, Followup::Route(route_with(Some(DemoKind::Drift))));
        assert_eq!(workbench.demo_kind(), Some(DemoKind::Drift));
        let player = workbench.demo().expect("the demo is loaded");
        assert_eq!(player.events().len(), 1, "one step is played");
        assert_eq!(workbench.error_shown(), None);
    }
}
