//! The guided lesson's card as the lesson bar draws it ([`LessonScreen::of`]): which step of how
//! many, its title and words (read from the screen beside it, `Step::words`), what it points at,
//! and its buttons (Back disabled on the first step, Next that reads Done on the last).

use crate::app::lesson::{STEPS, step};
use crate::app::workbench::Workbench;

/// One step of the lesson, as its card shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LessonScreen {
    /// The step's number, counted from 1 (`data-step`).
    pub number: u32,
    /// E.g. "Lesson · step 2 of 9".
    pub count: String,
    pub title: &'static str,
    /// The step's words, with what they quote of the screen filled in.
    pub text: String,
    /// The selector of what the step points at (`data-target`).
    pub target: &'static str,
    /// The last step: Next reads Done, and the card leads on to Inspect.
    pub last: bool,
    /// "Next", or "Done" on the last step.
    pub next: &'static str,
    /// The first step: Back is disabled.
    pub first: bool,
}

impl LessonScreen {
    /// Step `number` (counted from 1) over the `workbench` on screen; `None` when the lesson
    /// has no such step.
    pub fn of(number: u32, workbench: &Workbench) -> Option<LessonScreen> {
        let shown = step(number)?;
        let total = STEPS.len() as u32;
        let last = number >= total;
        Some(LessonScreen {
            number,
            count: format!("Lesson · step {number} of {total}"),
            title: shown.title,
            text: shown.words(workbench),
            target: shown.look.selector(),
            last,
            next: if last { "Done" } else { "Next" },
            first: number <= 1,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::route::LESSON_STEPS;

    #[test]
    fn the_first_step_counts_from_one_and_disables_back() {
        let screen = LessonScreen::of(1, &Workbench::default()).expect("step 1");
        assert_eq!(screen.number, 1);
        assert_eq!(screen.count, format!("Lesson · step 1 of {}", STEPS.len()));
        assert_eq!(screen.title, STEPS[0].title);
        assert_eq!(screen.target, STEPS[0].look.selector());
        assert!(screen.first);
        assert!(!screen.last);
        assert_eq!(screen.next, "Next");
    }

    #[test]
    fn the_last_step_reads_done() {
        let screen = LessonScreen::of(LESSON_STEPS, &Workbench::default()).expect("last step");
        assert_eq!(
            screen.count,
            format!("Lesson · step {LESSON_STEPS} of {LESSON_STEPS}")
        );
        assert!(screen.last);
        assert!(!screen.first);
        assert_eq!(screen.next, "Done");
    }

    #[test]
    fn a_step_past_either_end_shows_no_card() {
        assert_eq!(LessonScreen::of(0, &Workbench::default()), None);
        assert_eq!(
            LessonScreen::of(LESSON_STEPS + 1, &Workbench::default()),
            None
        );
    }

    #[test]
    fn the_words_are_the_steps_own_over_the_screen() {
        let workbench = Workbench::default();
        for number in 1..=LESSON_STEPS {
            let screen = LessonScreen::of(number, &workbench).expect("a step");
            let shown = step(number).expect("a step");
            assert_eq!(screen.text, shown.words(&workbench));
            assert!(!screen.text.contains("{folded}"), "{}", screen.text);
        }
    }
}
