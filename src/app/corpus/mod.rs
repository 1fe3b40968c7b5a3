//! The corpus comparison's scheduling: which conversations go to which worker of the pool, how
//! far the run has come, Stop, and the rows put back in conversation order. Where it stands is
//! the one run machine's [`RunStatus`]: a stopped or broken-off run does not go on (the rows
//! done so far are all there is).
//!
//! The shell's pool (`ui::run::corpus_pool`) only performs what [`CorpusRun`] returns: it posts
//! each [`Dispatch`] to its worker and feeds the worker's answer back with
//! [`CorpusRun::finished`], which hands that worker its next batch. Workers answer in any order;
//! the rows are kept per conversation and read back in conversation order
//! ([`CorpusRun::rows`]), so a run on any number of workers yields the rows of a run on one
//! thread, bit for bit (the rows are integers; the native tests below shuffle the answers).
//!
//! The run is generic over the row type so that it knows nothing of what a worker measures.

pub mod form;
pub mod lean;
pub mod pick;
pub mod wire;
pub mod work;

use std::ops::Range;

use thiserror::Error;

use crate::engine::run::{Progress, RunStatus, Unit};

/// One batch of conversations for one worker: the conversations `range` of the corpus, in order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dispatch {
    pub worker: usize,
    pub range: Range<usize>,
}

/// An answer the run cannot take: it names the worker and what does not fit. Nothing is stored.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum AnswerError {
    /// The worker had no batch out, so the answer belongs to nothing.
    #[error("worker {0} answered without a batch; its answer was left out")]
    NotBusy(usize),
    /// The worker answered for a different number of conversations than it was sent.
    #[error("worker {worker} sent rows for {got} conversations, but its batch held {sent}")]
    WrongCount {
        worker: usize,
        sent: usize,
        got: usize,
    },
}

/// A corpus comparison on a pool of workers: the conversations still to hand out, the batch each
/// worker has, and the rows of each conversation done.
#[derive(Clone, Debug, PartialEq)]
pub struct CorpusRun<R> {
    total: usize,
    batch: usize,
    /// The first conversation not yet handed out.
    next: usize,
    /// The batch each worker has out, if any.
    busy: Vec<Option<Range<usize>>>,
    /// Each conversation's rows once its batch came back.
    results: Vec<Option<Vec<R>>>,
    done: usize,
    status: RunStatus,
}

impl<R: Clone> CorpusRun<R> {
    /// A run over `total` conversations on `workers` workers, handing out `batch` conversations
    /// at a time (at least one worker and one conversation per batch).
    pub fn new(total: usize, workers: usize, batch: usize) -> CorpusRun<R> {
        CorpusRun {
            total,
            batch: batch.max(1),
            next: 0,
            busy: vec![None; workers.max(1)],
            results: vec![None; total],
            done: 0,
            status: if total == 0 {
                RunStatus::Done
            } else {
                RunStatus::Running
            },
        }
    }

    /// The batch size for a corpus on a pool: small enough that every worker gets several
    /// batches (so one slow conversation does not leave the others idle at the end, and progress
    /// moves), large enough that the messages' overhead stays small.
    pub fn batch_for(total: usize, workers: usize) -> usize {
        (total / (workers.max(1) * 8)).clamp(1, 32)
    }

    /// The first batch of every idle worker. Call once the workers are ready.
    pub fn start(&mut self) -> Vec<Dispatch> {
        (0..self.busy.len())
            .filter_map(|worker| self.hand_out(worker))
            .collect()
    }

    /// Takes a worker's answer for its batch: one list of rows per conversation of the batch,
    /// in the batch's order. Returns that worker's next batch, if there is one and the run goes
    /// on. After Stop or a failure the answer is dropped: the progress stays where it froze.
    pub fn finished(
        &mut self,
        worker: usize,
        rows: Vec<Vec<R>>,
    ) -> Result<Option<Dispatch>, AnswerError> {
        let Some(range) = self.busy.get(worker).cloned().flatten() else {
            return Err(AnswerError::NotBusy(worker));
        };
        if rows.len() != range.len() {
            return Err(AnswerError::WrongCount {
                worker,
                sent: range.len(),
                got: rows.len(),
            });
        }
        self.busy[worker] = None;
        if !self.status.is_running() {
            return Ok(None);
        }
        for (index, conversation) in range.zip(rows) {
            self.results[index] = Some(conversation);
            self.done += 1;
        }
        if self.done == self.total {
            self.status.finish();
            return Ok(None);
        }
        Ok(self.hand_out(worker))
    }

    /// A worker broke off (it crashed, or could not start): the run stops with the reason.
    pub fn failed(&mut self, worker: usize, reason: &str) {
        if let Some(slot) = self.busy.get_mut(worker) {
            *slot = None;
        }
        self.status.fail(format!("worker {worker}: {reason}"));
    }

    /// Stop: no batch is handed out any more, and answers still on their way are dropped, so
    /// the progress freezes where it is. A finished run stays finished.
    pub fn stop(&mut self) {
        self.status.stop();
    }

    pub fn status(&self) -> &RunStatus {
        &self.status
    }

    /// Conversations measured, of those in the corpus.
    pub fn progress(&self) -> Progress {
        Progress::of(Unit::Conversation, self.done as u64, self.total as u64)
    }

    /// Whether a worker still has a batch out.
    pub fn in_flight(&self) -> bool {
        self.busy.iter().any(Option::is_some)
    }

    /// The rows of every conversation done, in conversation order, whatever order the workers
    /// answered in. After a full run these are the rows of a single-threaded run.
    pub fn rows(&self) -> Vec<R> {
        self.results.iter().flatten().flatten().cloned().collect()
    }

    /// Which conversations are done, by index (for a partial table, which ones it covers).
    pub fn done_indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.results
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.as_ref().map(|_| i))
    }

    /// The next batch for `worker`, marked as out, if conversations remain and the run goes on.
    fn hand_out(&mut self, worker: usize) -> Option<Dispatch> {
        if !self.status.is_running() || self.next >= self.total || self.busy[worker].is_some() {
            return None;
        }
        let range = self.next..(self.next + self.batch).min(self.total);
        self.next = range.end;
        self.busy[worker] = Some(range.clone());
        Some(Dispatch { worker, range })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a fake worker measures: two rows per conversation, from its index, as a real
    /// measure gives one row per policy.
    fn measure(index: usize) -> Vec<(usize, u8)> {
        vec![(index, 0), (index, 1)]
    }

    /// Runs the corpus on `workers` workers, answering the batches out in the order `pick`
    /// chooses (an index into the batches in flight), and returns the run.
    fn run_with(
        total: usize,
        workers: usize,
        batch: usize,
        mut pick: impl FnMut(usize) -> usize,
    ) -> CorpusRun<(usize, u8)> {
        let mut run = CorpusRun::new(total, workers, batch);
        let mut out = run.start();
        while !out.is_empty() {
            let d = out.remove(pick(out.len()) % out.len());
            let rows = d.range.clone().map(measure).collect();
            if let Some(next) = run.finished(d.worker, rows).unwrap() {
                out.push(next);
            }
        }
        run
    }

    fn single_threaded(total: usize) -> Vec<(usize, u8)> {
        (0..total).flat_map(measure).collect()
    }

    #[test]
    fn every_worker_gets_a_batch_and_the_rest_wait() {
        let mut run = CorpusRun::<u8>::new(10, 3, 4);
        let out = run.start();
        assert_eq!(
            out,
            vec![
                Dispatch {
                    worker: 0,
                    range: 0..4
                },
                Dispatch {
                    worker: 1,
                    range: 4..8
                },
                Dispatch {
                    worker: 2,
                    range: 8..10
                },
            ]
        );
        // Nothing is left, so the first answer gets no new batch, and the run is not done yet.
        assert_eq!(run.finished(1, vec![vec![]; 4]), Ok(None));
        assert_eq!(run.progress(), Progress::of(Unit::Conversation, 4, 10));
        assert_eq!(run.status(), &RunStatus::Running);
    }

    #[test]
    fn answers_in_reverse_order_give_the_single_threaded_rows() {
        let run = run_with(37, 4, 3, |n| n - 1);
        assert_eq!(run.status(), &RunStatus::Done);
        assert_eq!(run.rows(), single_threaded(37));
    }

    proptest! {
        #[test]
        fn any_completion_order_on_any_pool_equals_one_thread(
            total in 0usize..80,
            workers in 1usize..9,
            batch in 1usize..10,
            seed in any::<u64>(),
        ) {
            let mut state = seed | 1;
            let run = run_with(total, workers, batch, |_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as usize
            });
            prop_assert_eq!(run.status(), &RunStatus::Done);
            prop_assert_eq!(run.progress(), Progress::of(Unit::Conversation, total as u64, total as u64));
            prop_assert_eq!(run.rows(), single_threaded(total));
        }
    }

    #[test]
    fn stop_freezes_progress_below_the_total_and_drops_late_answers() {
        let mut run = CorpusRun::new(20, 2, 5);
        let out = run.start();
        assert_eq!(
            run.finished(0, (0..5).map(measure).collect())
                .unwrap()
                .map(|d| d.range),
            Some(10..15)
        );
        run.stop();
        // The answer already on its way when Stop came is dropped, and no batch goes out.
        assert_eq!(
            run.finished(out[1].worker, (5..10).map(measure).collect()),
            Ok(None)
        );
        assert_eq!(run.finished(0, (10..15).map(measure).collect()), Ok(None));
        assert_eq!(run.progress(), Progress::of(Unit::Conversation, 5, 20));
        assert_eq!(run.status(), &RunStatus::Stopped);
        assert!(!run.in_flight());
        assert_eq!(run.rows(), single_threaded(5));
        assert_eq!(run.done_indices().collect::<Vec<_>>(), vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn a_partial_run_keeps_the_done_conversations_in_order_with_gaps() {
        let mut run = CorpusRun::new(9, 3, 3);
        run.start();
        // The last batch answers first; the first never does.
        run.finished(2, (6..9).map(measure).collect()).unwrap();
        run.finished(1, (3..6).map(measure).collect()).unwrap();
        run.stop();
        assert_eq!(run.rows(), (3..9).flat_map(measure).collect::<Vec<_>>());
        assert_eq!(
            run.done_indices().collect::<Vec<_>>(),
            vec![3, 4, 5, 6, 7, 8]
        );
    }

    #[test]
    fn an_answer_from_an_idle_worker_or_of_the_wrong_size_is_refused_and_stores_nothing() {
        let mut run = CorpusRun::<(usize, u8)>::new(4, 2, 2);
        assert_eq!(run.finished(0, vec![]), Err(AnswerError::NotBusy(0)));
        assert_eq!(run.finished(7, vec![]), Err(AnswerError::NotBusy(7)));
        run.start();
        assert_eq!(
            run.finished(1, vec![measure(2)]),
            Err(AnswerError::WrongCount {
                worker: 1,
                sent: 2,
                got: 1
            })
        );
        assert_eq!(run.progress().done, 0);
        assert!(run.in_flight());
    }

    #[test]
    fn a_worker_that_breaks_off_fails_the_run_by_name_and_keeps_what_was_done() {
        let mut run = CorpusRun::new(6, 2, 2);
        run.start();
        run.finished(0, (0..2).map(measure).collect()).unwrap();
        run.failed(1, "the worker's wasm could not start");
        assert_eq!(
            run.status(),
            &RunStatus::Failed("worker 1: the worker's wasm could not start".into())
        );
        assert_eq!(run.rows(), single_threaded(2));
    }

    #[test]
    fn an_empty_corpus_is_done_at_once() {
        let mut run = CorpusRun::<u8>::new(0, 4, 8);
        assert!(run.start().is_empty());
        assert_eq!(run.status(), &RunStatus::Done);
    }

    #[test]
    fn batches_are_several_per_worker_and_never_empty() {
        assert_eq!(CorpusRun::<u8>::batch_for(1000, 2), 32);
        assert_eq!(CorpusRun::<u8>::batch_for(100, 4), 3);
        assert_eq!(CorpusRun::<u8>::batch_for(3, 8), 1);
        assert_eq!(CorpusRun::<u8>::batch_for(0, 0), 1);
    }
}
