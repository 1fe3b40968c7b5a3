//! The guided lesson ("Walk me through it"): short steps that follow the source lesson's path
//! through the app's own views, as data.
//!
//! Each [`Step`] says which view to open (the tab, the demo and how far it has played, the
//! Tuner's trigger) and what on it to look at ([`Look`]). [`Step::apply`] sets that view on the
//! route and the [`Workbench`]; the shell (`ui/widgets/lesson_bar.rs`) only calls it, draws the
//! step's text with Back and Next, and mirrors [`Look`] onto the page for the stylesheet to
//! highlight. The steps are [`STEPS`]. The step is in the link (`?lesson=N`, counted from 1), so
//! a teacher can share it.

use crate::app::rows::RowState;
use crate::app::workbench::Workbench;
use crate::engine::message::CountTokens;
use crate::route::{DemoKind, LESSON_STEPS, Route, Tab, TriggerKind};

/// How far a step's demo has played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Played {
    /// This many steps from its start (a message, a summary cycle or a question each).
    Steps(u32),
    /// To its end.
    All,
}

/// What a step points at; the page highlights it. Its slug is what the stylesheet matches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Look {
    /// The Tuner's count of summariser calls and its schedule.
    Calls,
    /// The summary on the Chat tab's front page.
    Summary,
    /// The last request beside what a sliding window would have sent.
    Window,
    /// An edition's note that a rule's force weakened.
    Weakened,
    /// The pinned facts' badges on each edition.
    Facts,
    /// An edition's note that it ran past its word limit.
    Overrun,
    /// The folded turns, kept word for word.
    Archive,
}

impl Look {
    /// The value of `data-lesson-look` on the page's root element.
    pub fn slug(self) -> &'static str {
        match self {
            Look::Calls => "calls",
            Look::Summary => "summary",
            Look::Window => "window",
            Look::Weakened => "weakened",
            Look::Facts => "facts",
            Look::Overrun => "overrun",
            Look::Archive => "archive",
        }
    }

    /// A CSS selector for the first element to scroll into view.
    pub fn selector(self) -> &'static str {
        match self {
            Look::Calls => "[data-testid='summariser-calls']",
            Look::Summary => "[data-testid='summary']",
            Look::Window => "[data-testid='last-request']",
            Look::Weakened => "[data-testid='weakened-note']",
            // The badge of the rule the edition weakened, not the ones it kept.
            Look::Facts => "[data-testid='fact'][data-verdict='weakened']",
            Look::Overrun => "[data-testid='overrun-note']",
            Look::Archive => ".archive",
        }
    }
}

/// One step of the lesson.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Step {
    pub title: &'static str,
    /// What to see, in two or three sentences.
    pub text: &'static str,
    pub tab: Tab,
    /// The Tuner's turn trigger as (summarise at, keep), over ten turns.
    pub tuner: Option<(u32, u32)>,
    /// The demo on screen and how far it has played.
    pub demo: Option<(DemoKind, Played)>,
    pub look: Look,
}

/// How many turns the Tuner steps simulate, as the source's schedule does.
pub const TUNER_TURNS: u32 = 10;

/// Steps until FinCoach's turn-6 question has been asked: five turns of two messages, the
/// summary cycle after turn 4, then the question.
const FINCOACH_TURN_6: u32 = 5 * 2 + 1 + 1;

/// The lesson, in order.
pub const STEPS: [Step; LESSON_STEPS as usize] = [
    Step {
        title: "The schedule, before any model is called",
        text: "Summary memory folds the oldest turns into a summary once a trigger fires. Here it fires when four turns are held word for word and keeps the last two: ten turns cost four summariser calls, and every request carries three or four verbatim turns.",
        tab: Tab::Tuner,
        tuner: Some((4, 2)),
        demo: None,
        look: Look::Calls,
    },
    Step {
        title: "Keep three of four: a call after almost every turn",
        text: "Keeping three turns means each cycle folds only one. From turn 4 on, the summariser runs after every turn: seven calls in ten turns. The gap between the trigger and what is kept sets the cost.",
        tab: Tab::Tuner,
        tuner: Some((4, 3)),
        demo: None,
        look: Look::Calls,
    },
    Step {
        title: "Wait for six, keep two: fewer, larger folds",
        text: "With the trigger at six turns, ten turns need only two summariser calls, and turn 10's request holds six verbatim turns. Cheaper in calls, dearer in tokens per request.",
        tab: Tab::Tuner,
        tuner: Some((6, 2)),
        demo: None,
        look: Look::Calls,
    },
    Step {
        title: "FinCoach, turn 6: the salary comes back from the summary",
        text: "Chiru gives his take-home salary, ₹1,20,000, in turn 1. After turn 4 the first cycle folds turns 1 and 2 into the summary. At turn 6 he asks for the salary again: no verbatim turn holds it any more, only the front page does, and the reply is right.",
        tab: Tab::Chat,
        tuner: None,
        demo: Some((DemoKind::FinCoach, Played::Steps(FINCOACH_TURN_6))),
        look: Look::Summary,
    },
    Step {
        title: "What a sliding window would have sent",
        text: "A sliding window of the same size keeps only the newest turns and drops the rest. Turn 1 falls out, and the salary with it: the agent would have had to ask again. The bar compares the two requests.",
        tab: Tab::Chat,
        tuner: None,
        demo: Some((DemoKind::FinCoach, Played::Steps(FINCOACH_TURN_6))),
        look: Look::Window,
    },
    Step {
        title: "The drift run: a rule becomes a preference",
        text: "Three batches, three summary cycles, each written from the one before. The user's \"never suggest equities\" is a hard rule in the first edition and a mere preference by the third: {quote}",
        tab: Tab::Editions,
        tuner: None,
        demo: Some((DemoKind::Drift, Played::All)),
        look: Look::Weakened,
    },
    Step {
        title: "What a keyword check misses",
        text: "Every edition still mentions equity, so a check for the word passes every time. The badges check the rule's force as well: its words survived, its meaning did not.",
        tab: Tab::Editions,
        tuner: None,
        demo: Some((DemoKind::Drift, Played::All)),
        look: Look::Facts,
    },
    Step {
        title: "The overrun: a word limit is a request",
        text: "The prompt allows 80 words. FinCoach's second edition runs past them, and most of its length is advice whose figures no user message holds. A limit in a prompt is not a guarantee, so the app counts and checks each edition.",
        tab: Tab::Editions,
        tuner: None,
        demo: Some((DemoKind::FinCoach, Played::All)),
        look: Look::Overrun,
    },
    Step {
        title: "What the archive is for",
        text: "Nothing is thrown away: every folded turn stays in the archive word for word, {folded} messages after two cycles. It is what a summary is checked against, and what a lost fact can be recovered or rebuilt from.",
        tab: Tab::Chat,
        tuner: None,
        demo: Some((DemoKind::FinCoach, Played::All)),
        look: Look::Archive,
    },
];

/// What the drift step quotes when the demo on screen has no edition stating the rule.
const NO_QUOTE: &str = "the rule's words survive, its force does not.";

/// Step `number`, counted from 1 as the link counts it.
pub fn step(number: u32) -> Option<&'static Step> {
    STEPS.get(usize::try_from(number.checked_sub(1)?).ok()?)
}

impl Step {
    /// The step's text as the screen beside it shows it: the words that quote the screen are
    /// read from the same data the views draw. `{folded}` is how many messages the archive holds
    /// folded; `{quote}` is the last edition's sentence on the first pinned fact, quoted.
    pub fn words(&self, workbench: &Workbench) -> String {
        let mut text = self.text.to_owned();
        if text.contains("{folded}") {
            let folded = workbench
                .on_screen()
                .rows()
                .iter()
                .filter(|r| r.state == RowState::Folded)
                .count();
            text = text.replace("{folded}", &folded.to_string());
        }
        if text.contains("{quote}") {
            let quote = workbench
                .demo()
                .and_then(|player| {
                    player
                        .fact_tracks()
                        .into_iter()
                        .next()?
                        .sentences
                        .last()
                        .cloned()
                        .flatten()
                })
                .map_or_else(|| NO_QUOTE.to_owned(), |s| format!("\u{201c}{s}\u{201d}"));
            text = text.replace("{quote}", &quote);
        }
        text
    }

    /// Sets this step's view, as step `number` of the lesson: the route's tab, demo, Tuner
    /// trigger and lesson step, and the demo loaded and played as far as the step needs. A
    /// demo already there is played again from its start, so every step shows the same thing
    /// however it was reached.
    pub fn apply(
        &self,
        number: u32,
        route: &mut Route,
        workbench: &mut Workbench,
        counter: &dyn CountTokens,
    ) {
        route.tab = self.tab;
        route.lesson = Some(number);
        route.errors.clear();
        if let Some((at, keep)) = self.tuner {
            route.trigger = Some(TriggerKind::Turns);
            route.max_turns = Some(at);
            route.keep = Some(keep);
            route.turns = Some(TUNER_TURNS);
            (route.budget, route.keep_tokens, route.every) = (None, None, None);
        }
        if let Some((kind, played)) = self.demo {
            route.demo = Some(kind);
            workbench.load(kind);
            match played {
                Played::Steps(n) => (0..n).for_each(|_| workbench.step(counter)),
                Played::All => workbench.play_all(counter),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::WordCounter;
    use crate::view::editions::edition_cards;
    use crate::view::tuner::Tuner;

    fn applied(number: u32) -> (Route, Workbench) {
        let mut route = Route::default();
        let mut workbench = Workbench::default();
        step(number)
            .unwrap()
            .apply(number, &mut route, &mut workbench, &WordCounter);
        (route, workbench)
    }

    #[test]
    fn the_link_counts_every_step_and_only_them() {
        assert_eq!(STEPS.len(), LESSON_STEPS as usize);
        assert!(step(0).is_none());
        assert!(step(LESSON_STEPS + 1).is_none());
        for number in 1..=LESSON_STEPS {
            let (route, _) = applied(number);
            assert_eq!(route.lesson, Some(number));
            assert_eq!(Route::parse(&route.to_query()).lesson, Some(number));
        }
    }

    #[test]
    fn the_tuner_steps_show_the_source_schedules() {
        // 4/2: four calls; 4/3: seven; 6/2: two, as the source's dry run prints.
        for (number, calls) in [(1, 4), (2, 7), (3, 2)] {
            let (route, _) = applied(number);
            assert_eq!(route.tab, Tab::Tuner);
            let run = Tuner::from_route(&route).outcome.unwrap();
            assert_eq!(run.schedule.calls, calls, "step {number}");
        }
        let (route, _) = applied(3);
        let rows = Tuner::from_route(&route).outcome.unwrap().schedule.rows;
        let last = rows.last().unwrap();
        assert_eq!(last.turn - last.verbatim_from + 1, 6);
    }

    #[test]
    fn turn_6_holds_the_salary_only_in_the_summary() {
        let (route, workbench) = applied(4);
        assert_eq!(
            (route.tab, route.demo),
            (Tab::Chat, Some(DemoKind::FinCoach))
        );
        let player = workbench.demo().unwrap();
        assert_eq!(player.last_request().unwrap().turn, 6);
        assert!(player.summary().unwrap().contains("1,20,000"));
        let rows = workbench.on_screen().rows();
        assert!(
            rows.iter()
                .filter(|r| r.state == RowState::Verbatim)
                .all(|r| !r.content.contains("1,20,000"))
        );
        // The next step looks at the same moment from the sliding window's side.
        let (_, next) = applied(5);
        assert_eq!(next.demo().unwrap().last_request().unwrap().turn, 6);
    }

    #[test]
    fn the_drift_and_overrun_steps_open_editions_that_show_them() {
        let (route, workbench) = applied(6);
        assert_eq!(
            (route.tab, route.demo),
            (Tab::Editions, Some(DemoKind::Drift))
        );
        let cards = edition_cards(workbench.demo().unwrap());
        assert!(cards.iter().any(|c| !c.weakened_notes.is_empty()));
        let (_, workbench) = applied(8);
        let cards = edition_cards(workbench.demo().unwrap());
        assert!(cards.iter().any(|c| c.overrun_note.is_some()));
    }

    #[test]
    fn the_archive_step_keeps_all_twelve_messages() {
        let (_, workbench) = applied(9);
        let player = workbench.demo().unwrap();
        assert!(player.is_done());
        assert_eq!(player.memory().archive().len(), 12);
    }

    // Step 9 said "twelve messages" where the archive showed 8, and step 6 quoted "avoids
    // equities" where edition 3 says "prefers fixed-income options to equities".
    #[test]
    fn the_words_that_quote_the_screen_come_from_what_it_shows() {
        let (_, workbench) = applied(9);
        let folded = workbench
            .on_screen()
            .rows()
            .iter()
            .filter(|r| r.state == RowState::Folded)
            .count();
        assert_eq!(folded, 8);
        let words = step(9).unwrap().words(&workbench);
        assert!(
            words.contains("word for word, 8 messages after two cycles"),
            "{words}"
        );
        let (_, workbench) = applied(6);
        let last = workbench
            .demo()
            .unwrap()
            .memory()
            .editions()
            .last()
            .unwrap();
        let words = step(6).unwrap().words(&workbench);
        assert!(
            words.ends_with("\u{201c}He prefers fixed-income options to equities.\u{201d}"),
            "{words}"
        );
        assert!(
            last.summary
                .contains("He prefers fixed-income options to equities.")
        );
        // No step's words keep a placeholder.
        for number in 1..=LESSON_STEPS {
            let (_, workbench) = applied(number);
            let words = step(number).unwrap().words(&workbench);
            assert!(!words.contains('{'), "step {number}: {words}");
        }
    }

    #[test]
    fn a_step_reached_twice_shows_the_same_view() {
        let mut route = Route::default();
        let mut workbench = Workbench::default();
        for number in [4, 5, 4] {
            step(number)
                .unwrap()
                .apply(number, &mut route, &mut workbench, &WordCounter);
        }
        assert_eq!(workbench.demo().unwrap().last_request().unwrap().turn, 6);
    }
}
