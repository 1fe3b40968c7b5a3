//! Inspect's A/B comparison as the page shows it: one row per cycle with side A's and side B's
//! edition (each a card with its offline checks: unsourced figures, what the folded turns said
//! that it still holds, pinned facts kept or lost), the word diff from A's summary to B's, and
//! the fold points both sides share (the estimate and the progress are every run's,
//! `view::run`). The same rows serve a run in progress, a finished one and a saved pair
//! reopened from the library, since all three are two sessions.
//!
//! Each side's card keeps its edition's own `cycle` in its session, so a per-edition score
//! (the probe matrix's) can be shown beside each side by looking it up in that session.

use crate::engine::ab::{AbRun, FoldPlan, FoldSource, pair_rows};
use crate::engine::drift::{DiffSegment, word_diff};
use crate::engine::library_session::{PairSide, Session};
use crate::view::editions::{EditionCard, cards_of, edition_checks};
use crate::view::run::{Job, Run, RunView};

/// One side's heading.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SideHeading {
    pub side: PairSide,
    /// E.g. "A: Claude Code's own compactions, as recorded".
    pub label: String,
}

/// One cycle, both sides.
#[derive(Clone, Debug, PartialEq)]
pub struct PairRowView {
    pub cycle: u32,
    /// E.g. "Turns 1–2 folded", or "No whole turn folded".
    pub turns: String,
    /// The row's heading: "Cycle 2 · Turns 1–2 folded".
    pub heading: String,
    pub a: Option<EditionCard>,
    pub b: Option<EditionCard>,
    /// From A's summary to B's, when both wrote one.
    pub diff: Option<PairDiff>,
    /// Why a side has no edition here.
    pub note: Option<String>,
    /// Each side's probe score for its edition here, e.g. "Probes: 75%", when that side's
    /// session has grades for it.
    pub score_a: Option<ProbeScore>,
    pub score_b: Option<ProbeScore>,
}

/// A side's probe score for one edition: `percent` is what `data-score` carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeScore {
    pub percent: u32,
    pub label: String,
}

/// The probe score `session` holds for its edition of `cycle`.
fn probe_score(session: &Session, cycle: u32) -> Option<ProbeScore> {
    session.probes.score(cycle).map(|score| {
        let percent = (score * 100.0).round() as u32;
        ProbeScore {
            percent,
            label: format!("Probes: {percent}%"),
        }
    })
}

/// A word diff from A's summary to B's: removed words are A's only, added ones B's only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairDiff {
    pub segments: Vec<DiffSegment>,
    pub only_a: usize,
    pub only_b: usize,
    /// "From A to B: 3 words only in A, 5 only in B".
    pub label: String,
}

/// The comparison of two sides.
#[derive(Clone, Debug, PartialEq)]
pub struct AbView {
    pub headings: [SideHeading; 2],
    /// The session both sides replayed.
    pub source: String,
    pub rows: Vec<PairRowView>,
}

impl AbView {
    /// Above a saved side's rows: which session the pair replayed.
    pub fn stored_line(&self) -> String {
        format!(
            "This session is one side of a saved A/B pair on “{}”.",
            self.source
        )
    }
}

/// What the A/B section shows of a comparison under way or over: the run's progress and
/// buttons, the rows written so far until it is done, then the finished rows (or why no run
/// started, or why it broke off), and whether they were saved as a pair.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AbScreen {
    /// The run's progress, Stop, Go on and Try again; `None` before a run starts.
    pub run: Option<RunView>,
    /// The rows written so far, while the run goes on, is stopped or has failed.
    pub so_far: Option<AbView>,
    /// Once over: both sides' rows, or why there are none.
    pub result: Option<Result<AbView, String>>,
    /// Said once the two sides are saved as a pair (and Save is off).
    pub saved: Option<&'static str>,
}

impl AbScreen {
    /// The screen of `run` (`None` before one starts), what it ended with (`outcome`: both
    /// sides, or why it could not start or broke off) and whether they were `saved`.
    pub fn of(
        run: Option<&AbRun>,
        outcome: Option<&Result<Box<[Session; 2]>, String>>,
        saved: bool,
    ) -> AbScreen {
        let view = run.map(|r| {
            let now = Run {
                status: r.status(),
                progress: r.progress(),
                pace: None,
            };
            RunView::new(Job::Ab, Some(now), None, None)
        });
        let so_far = run.filter(|r| !r.status().is_done()).map(ab_view_so_far);
        let result = outcome.map(|o| match o {
            Ok(sides) => Ok(ab_view(&sides[0], &sides[1])),
            Err(reason) => Err(reason.clone()),
        });
        let done = matches!(result, Some(Ok(_)));
        AbScreen {
            run: view,
            so_far,
            result,
            saved: (done && saved)
                .then_some(" Saved: both sides are in the list, linked as a pair."),
        }
    }
}

/// The hooks and words of one side's fields in the form, and of its card in a row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideHooks {
    /// The side's fieldset: `ab-side-a`.
    pub fieldset: &'static str,
    /// "Side A".
    pub legend: &'static str,
    pub recorded: &'static str,
    pub model: &'static str,
    pub preset: &'static str,
    pub word_limit: &'static str,
    pub format: &'static str,
    /// The side's card in each row: `ab-card-a`.
    pub card: &'static str,
}

/// The hooks of `side`'s fields and card.
pub const fn side_hooks(side: PairSide) -> SideHooks {
    match side {
        PairSide::A => SideHooks {
            fieldset: "ab-side-a",
            legend: "Side A",
            recorded: "ab-a-recorded",
            model: "ab-a-model",
            preset: "ab-a-preset",
            word_limit: "ab-a-word-limit",
            format: "ab-a-format",
            card: "ab-card-a",
        },
        PairSide::B => SideHooks {
            fieldset: "ab-side-b",
            legend: "Side B",
            recorded: "ab-b-recorded",
            model: "ab-b-model",
            preset: "ab-b-preset",
            word_limit: "ab-b-word-limit",
            format: "ab-b-format",
            card: "ab-card-b",
        },
    }
}

/// The rows of sides `a` and `b`, paired by cycle.
pub fn ab_view(a: &Session, b: &Session) -> AbView {
    rows_of(a, b, true)
}

/// The rows of a run as it stands, while it goes on or once stopped or failed: each edition
/// written so far, and a side's edition still to write said to be so.
pub fn ab_view_so_far(run: &AbRun) -> AbView {
    let [a, b] = run.sides();
    rows_of(&a, &b, false)
}

fn rows_of(a: &Session, b: &Session, finished: bool) -> AbView {
    let cards = |s: &Session| -> Vec<EditionCard> {
        cards_of(&s.memory, &s.pinned)
            .into_iter()
            .zip(edition_checks(&s.memory, &s.pinned))
            .map(|(card, checks)| card.with_checks(&checks))
            .collect()
    };
    let (cards_a, cards_b) = (cards(a), cards(b));
    let rows = pair_rows(a.memory.editions(), b.memory.editions())
        .into_iter()
        .map(|row| {
            let card_a = row.a.and_then(|i| cards_a.get(i).cloned());
            let card_b = row.b.and_then(|i| cards_b.get(i).cloned());
            let diff = match (&card_a, &card_b) {
                (Some(x), Some(y)) => {
                    let d = word_diff(&x.text, &y.text);
                    Some(PairDiff {
                        segments: d
                            .segments
                            .into_iter()
                            .filter(|s| !s.text.is_empty())
                            .collect(),
                        only_a: d.removed_words,
                        only_b: d.added_words,
                        label: format!(
                            "From A to B: {} words only in A, {} only in B",
                            d.removed_words, d.added_words
                        ),
                    })
                }
                _ => None,
            };
            let note = match (&card_a, &card_b, row.folded) {
                (Some(_), None, None) => Some(
                    "This compaction folded no whole turn, so side B had nothing to fold here."
                        .to_owned(),
                ),
                (Some(_), None, Some(_)) if !finished => {
                    Some("Side B's edition for these turns is still to write.".into())
                }
                (None, Some(_), _) if !finished => {
                    Some("Side A's edition for these turns is still to write.".into())
                }
                (Some(_), None, Some(_)) => Some("Side B wrote no edition for these turns.".into()),
                (None, Some(_), _) => Some("Side A wrote no edition for these turns.".into()),
                _ => None,
            };
            let turns = match row.folded {
                Some(r) if r.first == r.last => format!("Turn {} folded", r.first),
                Some(r) => format!("Turns {}–{} folded", r.first, r.last),
                None => "No whole turn folded".to_owned(),
            };
            PairRowView {
                score_a: card_a.as_ref().and_then(|c| probe_score(a, c.cycle)),
                score_b: card_b.as_ref().and_then(|c| probe_score(b, c.cycle)),
                cycle: row.cycle,
                heading: format!("Cycle {} · {turns}", row.cycle),
                turns,
                a: card_a,
                b: card_b,
                diff,
                note,
            }
        })
        .collect();
    let heading = |s: &Session, side: PairSide| SideHeading {
        side,
        label: format!(
            "{}: {}",
            side.letter(),
            s.pair
                .as_ref()
                .map_or_else(|| s.name.clone(), |l| l.config.describe())
        ),
    };
    AbView {
        headings: [heading(a, PairSide::A), heading(b, PairSide::B)],
        source: a
            .pair
            .as_ref()
            .map_or_else(|| a.name.clone(), |l| l.source.clone()),
        rows,
    }
}

/// The fold points both sides share, in a sentence, before the estimate's.
pub fn describe_folds(plan: &FoldPlan) -> String {
    let folds = plan.folds.len();
    let from = match plan.source {
        FoldSource::Editions => "the turns this session's own editions folded",
        FoldSource::Policy => "where this session's policy folds in the offline replay",
    };
    format!(
        "{folds} fold{} ({from}), the same for both sides.",
        if folds == 1 { "" } else { "s" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::ab::{ModelSide, SideSpec};
    use crate::engine::message::WordCounter;
    use crate::engine::policy::SummaryFormat;
    use crate::engine::prompts::{PresetId, PromptSpec};
    use crate::engine::replay::SummaryCost;
    use crate::engine::session::read;

    const CLAUDE_CODE: &str =
        include_str!("../../tests/fixtures/transcripts/claude_code_session.jsonl");

    /// The Claude Code log's own compactions as side A against the model "mine" as side B,
    /// started: the log, the run and B's first summary to write.
    fn claude_code_against_mine() -> (Session, AbRun, Option<crate::engine::ab::AbJob>) {
        let session = read(CLAUDE_CODE.as_bytes(), &WordCounter)
            .unwrap()
            .sessions
            .remove(0);
        let b = SideSpec::Model(ModelSide {
            model: "mine".into(),
            prompt: PromptSpec::from_preset(PresetId::Technical),
            format: SummaryFormat::Prose,
        });
        let policy = session.memory.policy().clone();
        let (run, job) =
            AbRun::start(&session, &policy, SideSpec::Recorded, b, "p", &WordCounter).unwrap();
        (session, run, job)
    }

    #[test]
    fn a_tools_compactions_beside_the_users_summaries_with_the_diff_and_the_checks() {
        let (session, mut run, job) = claude_code_against_mine();
        let job = job.unwrap();
        // A figure no archived message holds is marked on B's side.
        let text = "The CSV import costs 987654 rows; the user wants a dry run.";
        run.answered(
            job.job.id,
            Ok(text.into()),
            SummaryCost::default(),
            &WordCounter,
        )
        .unwrap();
        let [sa, sb] = run.finished().unwrap();
        let view = ab_view(&sa, &sb);
        assert!(
            view.headings[0].label.starts_with("A: Claude Code"),
            "{:?}",
            view.headings
        );
        assert!(
            view.headings[1].label.starts_with("B: mine"),
            "{:?}",
            view.headings
        );
        assert_eq!(view.source, session.name);
        assert_eq!(view.rows.len(), 2);
        let first = &view.rows[0];
        assert_eq!(first.turns, "Turns 1–2 folded");
        assert_eq!(
            first.heading,
            format!("Cycle {} · Turns 1–2 folded", first.cycle)
        );
        assert_eq!(
            view.stored_line(),
            format!(
                "This session is one side of a saved A/B pair on “{}”.",
                session.name
            )
        );
        let (ca, cb) = (first.a.as_ref().unwrap(), first.b.as_ref().unwrap());
        assert_eq!(ca.summariser, "claude-code");
        assert_eq!(cb.summariser, "model");
        assert!(
            cb.marked
                .iter()
                .any(|(t, unsourced)| *unsourced && t == "987654")
        );
        assert!(
            !cb.survival.is_empty(),
            "what the folded turns said, checked"
        );
        let diff = first.diff.as_ref().unwrap();
        assert!(diff.only_b > 0 && diff.only_a > 0);
        assert_eq!(
            diff.label,
            format!(
                "From A to B: {} words only in A, {} only in B",
                diff.only_a, diff.only_b
            )
        );
        let b_text: String = diff
            .segments
            .iter()
            .filter(|s| s.kind != crate::engine::drift::DiffKind::Removed)
            .map(|s| s.text.as_str())
            .collect();
        assert_eq!(b_text, text);
        let second = &view.rows[1];
        assert!(second.b.is_none() && second.diff.is_none());
        assert!(second.note.as_deref().unwrap().contains("no whole turn"));
    }

    #[test]
    fn a_run_in_progress_shows_the_editions_written_so_far_and_what_is_still_to_write() {
        let (_, mut run, job) = claude_code_against_mine();
        assert!(job.is_some(), "B's summary was asked for");
        // Before B's one summary: A's two compactions, the first still to write on B's side,
        // the second one B cannot repeat.
        let before = ab_view_so_far(&run);
        assert_eq!(before.rows.len(), 2);
        assert!(before.rows.iter().all(|r| r.a.is_some() && r.b.is_none()));
        assert_eq!(
            before.rows[0].note.as_deref(),
            Some("Side B's edition for these turns is still to write.")
        );
        assert!(
            before.rows[1]
                .note
                .as_deref()
                .unwrap()
                .contains("no whole turn")
        );
        run.stop();
        assert_eq!(ab_view_so_far(&run), before, "a stopped run shows the same");
        let job = run.resume().expect("going on asks for it again");
        run.answered(
            job.job.id,
            Ok("The user wants a dry run of the CSV import.".into()),
            SummaryCost::default(),
            &WordCounter,
        )
        .unwrap();
        let after = ab_view_so_far(&run);
        let [sa, sb] = run.finished().unwrap();
        assert_eq!(
            after,
            ab_view(&sa, &sb),
            "once done, the rows are the finished ones"
        );
        assert!(after.rows[0].b.is_some() && after.rows[0].note.is_none());
    }

    #[test]
    fn each_side_shows_its_own_probe_score_beside_its_edition() {
        use crate::engine::library_session::{Evidence, Grade, Probe, ProbeResult, ProbeSource};
        let session = crate::engine::session::synthetic(20);
        let (mut a, mut b) = (session.clone(), session);
        let probe = |id| Probe {
            id,
            question: format!("Question {id}?"),
            evidence: Evidence {
                message: 0,
                quote: "quoted".into(),
            },
            source: ProbeSource::User,
        };
        let graded = |probe, cycle, grade| ProbeResult {
            probe,
            cycle,
            answer: "an answer".into(),
            grade,
            evidence: String::new(),
        };
        for side in [&mut a, &mut b] {
            side.probes.add([probe(1), probe(2)]);
        }
        a.probes.record(graded(1, 1, Grade::Correct));
        a.probes.record(graded(2, 1, Grade::Partly));
        b.probes.record(graded(1, 1, Grade::Wrong));
        b.probes.record(graded(1, 2, Grade::Correct));
        let view = ab_view(&a, &b);
        assert!(view.rows.len() >= 2, "{:?}", view.rows.len());
        let (first, second) = (&view.rows[0], &view.rows[1]);
        let score = |s: &Option<ProbeScore>| s.as_ref().map(|s| (s.percent, s.label.clone()));
        assert_eq!(score(&first.score_a), Some((75, "Probes: 75%".to_owned())));
        assert_eq!(score(&first.score_b), Some((0, "Probes: 0%".to_owned())));
        // A side with no grade for its edition shows no score there.
        assert_eq!(score(&second.score_a), None);
        assert_eq!(
            score(&second.score_b),
            Some((100, "Probes: 100%".to_owned()))
        );
    }

    #[test]
    fn each_sides_hooks_carry_its_letter() {
        for side in [PairSide::A, PairSide::B] {
            let h = side_hooks(side);
            let id = side.letter().to_lowercase();
            assert_eq!(h.fieldset, format!("ab-side-{id}"));
            assert_eq!(h.legend, format!("Side {}", side.letter()));
            assert_eq!(
                [h.recorded, h.model, h.preset, h.word_limit, h.format],
                ["recorded", "model", "preset", "word-limit", "format"]
                    .map(|f| format!("ab-{id}-{f}"))
                    .each_ref()
                    .map(String::as_str)
            );
            assert_eq!(h.card, format!("ab-card-{id}"));
        }
    }

    #[test]
    fn the_screen_before_a_run_while_it_goes_stopped_failed_and_done() {
        // Empty: no run, nothing said.
        assert_eq!(AbScreen::of(None, None, false), AbScreen::default());
        // A form that could not start says why, with no run.
        let refused = Err("side B: name the summariser model".to_owned());
        let screen = AbScreen::of(None, Some(&refused), false);
        assert_eq!(screen.run, None);
        assert_eq!(
            screen.result,
            Some(Err("side B: name the summariser model".into()))
        );
        assert_eq!(screen.saved, None, "nothing to save");
        // Running: the progress with Stop, and the rows so far.
        let (_, mut run, job) = claude_code_against_mine();
        let running = AbScreen::of(Some(&run), None, false);
        let view = running.run.as_ref().unwrap();
        assert_eq!((view.slug, view.stop), (Some("running"), true));
        assert_eq!(running.so_far, Some(ab_view_so_far(&run)));
        assert_eq!(running.result, None);
        // Stopped: Go on, the same rows.
        run.stop();
        let stopped = AbScreen::of(Some(&run), None, false);
        let view = stopped.run.as_ref().unwrap();
        assert_eq!(view.slug, Some("stopped"));
        assert!(view.go_on && !view.stop);
        assert_eq!(stopped.so_far, running.so_far);
        // Failed: Try again, with the reason, and still the rows so far.
        let job = run.resume().or(job).unwrap();
        run.answered(
            job.job.id,
            Err("model overloaded".into()),
            SummaryCost::default(),
            &WordCounter,
        )
        .unwrap();
        let failed = AbScreen::of(Some(&run), None, false);
        let view = failed.run.as_ref().unwrap();
        assert_eq!(view.slug, Some("failed"));
        assert!(view.try_again && view.failed);
        assert!(view.status.as_deref().unwrap().contains("model overloaded"));
        assert!(failed.so_far.is_some());
        // Done: the finished rows in place of those so far, then saved.
        let again = run.resume().unwrap();
        run.answered(
            again.job.id,
            Ok("The user wants a dry run of the CSV import.".into()),
            SummaryCost::default(),
            &WordCounter,
        )
        .unwrap();
        let [a, b] = run.finished().unwrap();
        let sides = Ok(Box::new([a.clone(), b.clone()]));
        let done = AbScreen::of(Some(&run), Some(&sides), false);
        assert_eq!(done.run.as_ref().unwrap().slug, Some("done"));
        assert_eq!(done.so_far, None);
        assert_eq!(done.result, Some(Ok(ab_view(&a, &b))));
        assert_eq!(done.saved, None);
        let saved = AbScreen::of(Some(&run), Some(&sides), true);
        assert_eq!(
            saved.saved,
            Some(" Saved: both sides are in the list, linked as a pair.")
        );
    }
}
