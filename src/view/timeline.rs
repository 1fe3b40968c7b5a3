//! The Editions timeline: which edition is shown, and the animation of its rewrite, in which
//! yesterday's paragraph turns into today's word by word.
//!
//! The schedule is pure: [`Rewrite::frame`] says what every word shows at a given step, and the
//! shell's timer only advances the step. The animation is driven by the word diff the editions
//! already show: first the removed words are struck out one by one, then they go and the added
//! words appear one by one, and a last step settles on today's paragraph exactly.

use crate::engine::drift::{DiffKind, DiffSegment};

/// How one piece of text shows in a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    /// Unchanged text, or a removed word not yet struck.
    Plain,
    /// A removed word being struck out.
    Leaving,
    /// An added word that has appeared.
    Arrived,
}

/// The rewrite of one edition, split into words and the whitespace between them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rewrite {
    /// (kind, text, order): `order` is the index of the removed or added word the piece belongs
    /// to (whitespace goes with the word after it).
    pieces: Vec<(DiffKind, String, usize)>,
    removed: usize,
    added: usize,
}

/// Which edition the timeline shows and how far its rewrite has played.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timeline {
    /// Index into the editions, from 0.
    pub index: usize,
    /// The rewrite's step; a stepped-to edition shows its final state.
    pub step: usize,
}

impl Rewrite {
    /// The rewrite a diff describes (the segments of [`crate::engine::drift::word_diff`]).
    pub fn new(segments: &[DiffSegment]) -> Rewrite {
        let mut pieces = Vec::new();
        let (mut removed, mut added) = (0, 0);
        for segment in segments {
            for piece in split_words(&segment.text) {
                let is_word = !piece.trim().is_empty();
                let order = match segment.kind {
                    DiffKind::Equal => 0,
                    DiffKind::Removed => removed,
                    DiffKind::Added => added,
                };
                match segment.kind {
                    DiffKind::Removed if is_word => removed += 1,
                    DiffKind::Added if is_word => added += 1,
                    _ => {}
                }
                pieces.push((segment.kind, piece.to_owned(), order));
            }
        }
        Rewrite {
            pieces,
            removed,
            added,
        }
    }

    /// The step of the final frame: one step per removed word, one per added word, and one to
    /// settle. Frame 0 is yesterday's paragraph.
    pub fn steps(&self) -> usize {
        self.removed + self.added + 1
    }

    /// What shows at `step` (clamped to the last): the visible pieces in order. Removed words
    /// that have gone and added words still to come are left out.
    pub fn frame(&self, step: usize) -> Vec<(Mark, &str)> {
        let step = step.min(self.steps());
        let settled = step == self.steps();
        self.pieces
            .iter()
            .filter_map(|(kind, text, order)| {
                let mark = match kind {
                    DiffKind::Equal => Some(Mark::Plain),
                    DiffKind::Removed if settled || step > self.removed => None,
                    DiffKind::Removed if step > *order => Some(Mark::Leaving),
                    DiffKind::Removed => Some(Mark::Plain),
                    DiffKind::Added if settled || step > self.removed + order => {
                        Some(Mark::Arrived)
                    }
                    DiffKind::Added => None,
                };
                mark.map(|mark| (mark, text.as_str()))
            })
            .collect()
    }

    /// The text a frame shows.
    pub fn text(&self, step: usize) -> String {
        self.frame(step).into_iter().map(|(_, text)| text).collect()
    }
}

impl Timeline {
    /// Shows edition `index` of `count`, in its final state.
    pub fn go(&mut self, index: usize, count: usize, steps: usize) {
        self.index = index.min(count.saturating_sub(1));
        self.step = steps;
    }

    /// The previous edition, if there is one.
    pub fn previous(self) -> Option<usize> {
        self.index.checked_sub(1)
    }

    /// The next edition of `count`, if there is one.
    pub fn next(self, count: usize) -> Option<usize> {
        (self.index + 1 < count).then_some(self.index + 1)
    }

    /// Starts the rewrite from yesterday's paragraph, or at once in its final state when the
    /// reader prefers reduced motion.
    pub fn play(&mut self, steps: usize, reduced_motion: bool) {
        self.step = if reduced_motion { steps } else { 0 };
    }

    /// One tick of the timer: returns whether the animation goes on.
    pub fn tick(&mut self, steps: usize) -> bool {
        if self.step < steps {
            self.step += 1;
        }
        self.step < steps
    }
}

/// Splits text into words and the whitespace runs between them, keeping every character.
fn split_words(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    let mut in_space = None;
    for (i, ch) in text.char_indices() {
        let space = ch.is_whitespace();
        if in_space.is_some_and(|s| s != space) {
            out.push(&text[start..i]);
            start = i;
        }
        in_space = Some(space);
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::demo::{DemoPlayer, DemoScript};
    use crate::engine::drift::word_diff;
    use crate::engine::message::WordCounter;

    #[test]
    fn the_rewrite_starts_at_yesterday_and_settles_on_today_exactly() {
        let old = "The user earns 1,20,000 and avoids equities.";
        let new = "The user earns 1,20,000 a month and never wants equities.";
        let rewrite = Rewrite::new(&word_diff(old, new).segments);
        assert_eq!(rewrite.text(0), old);
        assert_eq!(rewrite.text(rewrite.steps()), new);
        assert_eq!(rewrite.text(rewrite.steps() + 5), new, "clamped");
        let diff = word_diff(old, new);
        assert_eq!(rewrite.steps(), diff.removed_words + diff.added_words + 1);
        // Step 1 strikes the removed word and keeps it visible.
        assert!(rewrite.frame(1).contains(&(Mark::Leaving, "avoids")));
        // Step 2 removes it and brings the first added word.
        let second = rewrite.frame(2);
        assert!(!second.iter().any(|(_, t)| *t == "avoids"));
        assert_eq!(
            second
                .iter()
                .filter(|(m, t)| *m == Mark::Arrived && !t.trim().is_empty())
                .count(),
            1
        );
        // Word by word: each step adds at most one visible word.
        for step in 2..rewrite.steps() {
            let words = |s| {
                rewrite
                    .frame(s)
                    .iter()
                    .filter(|(m, t)| *m == Mark::Arrived && !t.trim().is_empty())
                    .count()
            };
            assert!(words(step + 1) <= words(step) + 1, "step {step}");
        }
    }

    #[test]
    fn every_demo_edition_animates_from_its_previous_text_to_its_own() {
        for script in DemoScript::all() {
            let mut player = DemoPlayer::new(script).unwrap();
            player.play_all(&WordCounter).unwrap();
            for edition in player.editions() {
                let before = edition.previous.as_deref().unwrap_or("");
                let rewrite = Rewrite::new(&word_diff(before, &edition.summary).segments);
                assert_eq!(rewrite.text(0), before);
                assert_eq!(rewrite.text(rewrite.steps()), edition.summary);
            }
        }
    }

    #[test]
    fn the_timeline_steps_between_editions_and_the_timer_stops_at_the_end() {
        let mut timeline = Timeline::default();
        assert_eq!(timeline.previous(), None);
        assert_eq!(timeline.next(3), Some(1));
        timeline.go(2, 3, 7);
        assert_eq!((timeline.index, timeline.step), (2, 7));
        assert_eq!(timeline.next(3), None);
        timeline.go(9, 3, 4);
        assert_eq!(timeline.index, 2, "clamped to the last edition");
        timeline.play(4, false);
        assert_eq!(timeline.step, 0);
        let mut ticks = 0;
        while timeline.tick(4) {
            ticks += 1;
        }
        assert_eq!((ticks, timeline.step), (3, 4));
        assert!(!timeline.tick(4));
        // Reduced motion shows the final state at once.
        timeline.play(4, true);
        assert_eq!(timeline.step, 4);
    }
}
