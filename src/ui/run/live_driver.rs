//! The live chat's runner: it performs the requests the [`LiveSession`] asks for, through
//! [`crate::api::Client`], and feeds what came back into it. Every decision (what a reply's end
//! means, which summary is due, which queued message goes next, when a run pauses for Retry) is
//! the session's: [`LiveSession::reply_ended`] and [`LiveSession::summary_ended`] return the next
//! action, and this loop only performs it.
//!
//! The [`LiveDriver`] is created once at the App root, so that Stop still reaches a request that
//! started before the user switched tabs. As [`super::runner::Runner`] does for Inspect's jobs,
//! it owns the Stop handle of the request in flight (the chat's or the summariser's) and the
//! spawning, and the tabs hold neither: they draw the session (the summaries through the one
//! run machine's `RunControls`) and call [`LiveDriver::send`], [`LiveDriver::stop`] and
//! [`LiveDriver::retry`] (which goes on after a summary's stop or failure). Each request has a
//! number: one that comes back after a later one went out (Stop, then Retry at once) leaves the
//! later one's Stop handle alone. It also holds the clock that ticks a pending retry's countdown.
//!
//! [`LiveSession`]: crate::app::live::LiveSession
//! [`LiveSession::reply_ended`]: crate::app::live::LiveSession::reply_ended
//! [`LiveSession::summary_ended`]: crate::app::live::LiveSession::summary_ended

use leptos::prelude::*;
use leptos::task::spawn_local;

use gloo_timers::future::TimeoutFuture;

use crate::api::{Client, MAX_RETRIES, RetryNotice, StopHandle};
use crate::app::live::{ChatEnd, LiveAction, ReplyEnd, RetryWait, summary_timeout_ms};
use crate::app::workbench::Workbench;
use crate::engine::memory::SummaryJob;
use crate::engine::message::ChatMessage;
use crate::engine::openai::Purpose;
use crate::engine::settings::{Settings, ValidSettings};

use super::clock::now_ms;
use super::library_sync::{Sessions, stored_before_request};
use super::streamed::Streamed;
use super::token_service::SharedCounter;

/// Starts and stops the live chat's requests. Created once at the App root and shared through
/// context, so that Stop still reaches a reply that started before the user switched tabs.
#[derive(Clone, Copy)]
pub struct LiveDriver {
    workbench: RwSignal<Workbench>,
    settings: RwSignal<Settings>,
    counter: SharedCounter,
    /// Stops the request in flight, the chat's or the summariser's, and a wait before a retry.
    stop: StoredValue<Option<StopHandle>, LocalStorage>,
    /// The number of the latest request sent, whose Stop handle `stop` holds.
    sent: StoredValue<u64>,
    /// The session library, which stores the user's message before its request goes out.
    sessions: Option<Sessions>,
    /// The shell's clock while a retry is pending, ticking so the countdown can be read.
    clock: RwSignal<u64>,
    /// Told of each streamed piece instead of the workbench's readers.
    streamed: Option<Streamed>,
}

impl LiveDriver {
    /// Creates the driver and shares it through context.
    pub fn provide(
        workbench: RwSignal<Workbench>,
        settings: RwSignal<Settings>,
        counter: SharedCounter,
    ) -> LiveDriver {
        let driver = LiveDriver {
            workbench,
            settings,
            counter,
            stop: StoredValue::new_local(None),
            sent: StoredValue::new(0),
            sessions: use_context::<Sessions>(),
            clock: RwSignal::new(now_ms()),
            streamed: Streamed::from_context(),
        };
        provide_context(driver);
        driver
    }

    pub fn from_context() -> LiveDriver {
        expect_context::<LiveDriver>()
    }

    /// Sends `text` as the user's next message. Returns whether the session took it (the
    /// composer then clears its draft); a refusal leaves its reason in the session.
    pub fn send(&self, text: &str) -> bool {
        let Some(valid) = self.valid() else {
            return false;
        };
        let counter = self.counter;
        let sent = self
            .workbench
            .try_update(|w| w.send(text, now_ms(), &counter))
            .flatten();
        match sent {
            Some(action) => {
                self.start(valid, action);
                true
            }
            None => false,
        }
    }

    /// The clock the retry countdown is read against.
    pub fn clock(&self) -> Signal<u64> {
        self.clock.into()
    }

    /// Redoes what failed: goes on with the summary that was stopped or failed, else asks for
    /// the reply again. A refused retry leaves its reason in the session.
    pub fn retry(&self) {
        let Some(valid) = self.valid() else {
            return;
        };
        let counter = self.counter;
        if let Some(Ok(action)) = self.workbench.try_update(|w| w.live.retry(&counter)) {
            self.start(valid, action);
        }
    }

    /// Leaves the loaded demo and sends its user messages to the endpoint, one turn at a time.
    /// Returns whether the demo was left (no demo, or no valid endpoint, changes nothing).
    pub fn run_live(&self) -> bool {
        let Some(valid) = self.valid() else {
            return false;
        };
        if self.workbench.with_untracked(Workbench::is_live) {
            return false;
        }
        let counter = self.counter;
        let first = self
            .workbench
            .try_update(|w| w.run_live(now_ms(), &counter))
            .flatten();
        if let Some(action) = first {
            self.start(valid, action);
        }
        // A refusal (a request of the live chat still running) leaves the demo on screen.
        self.workbench.with_untracked(Workbench::is_live)
    }

    /// Summarise now, for the conversation on screen: a demo prints the edition at once; the
    /// live chat's summariser request is performed here (it needs a valid endpoint, and does
    /// nothing without one).
    pub fn summarise_now(&self) {
        let counter = self.counter;
        if !self.workbench.with_untracked(Workbench::is_live) {
            self.workbench.update(|w| {
                w.summarise_now(&counter);
            });
            return;
        }
        let Some(valid) = self.valid() else {
            return;
        };
        if let Some(action) = self
            .workbench
            .try_update(|w| w.summarise_now(&counter))
            .flatten()
        {
            self.start(valid, action);
        }
    }

    /// Stops the request in flight (the chat reply arriving now, or the summary being written),
    /// or cancels the wait before its next attempt.
    pub fn stop(&self) {
        self.stop.with_value(|slot| {
            if let Some(handle) = slot {
                handle.stop();
            }
        });
    }

    /// Holds `stop` as the Stop handle of the request going out, and returns its number.
    fn hold(&self, stop: &StopHandle) -> u64 {
        let number = self.sent.get_value() + 1;
        self.sent.set_value(number);
        self.stop.set_value(Some(stop.clone()));
        number
    }

    /// Request `number` came back: its Stop handle goes, unless a later request holds the slot.
    fn release(&self, number: u64) {
        if self.sent.get_value() == number {
            self.stop.set_value(None);
        }
    }

    /// The settings a request goes out with. A key typed before any base URL is bound to the
    /// origin it is about to reach, so a later change of the base URL withdraws it.
    fn valid(&self) -> Option<ValidSettings> {
        self.settings.update(Settings::bind_key);
        self.settings.with_untracked(Settings::validate).ok()
    }

    fn start(self, valid: ValidSettings, action: LiveAction) {
        spawn_local(self.drive(valid, action));
    }

    /// A client that tells the session about each wait before a retry, and keeps the clock
    /// ticking through it so the countdown moves.
    fn client(&self, endpoint: crate::engine::settings::Endpoint, purpose: Purpose) -> Client {
        let (workbench, clock) = (self.workbench, self.clock);
        Client::new(endpoint).on_retry(move |notice: &RetryNotice| {
            let until_ms = now_ms() + notice.delay_ms;
            workbench.update(|w| {
                w.live.retrying(RetryWait {
                    purpose,
                    attempt: notice.retry + 1,
                    attempts: MAX_RETRIES + 1,
                    until_ms,
                    reason: notice.error.to_string(),
                })
            });
            clock.set(now_ms());
            spawn_local(async move {
                while now_ms() < until_ms {
                    TimeoutFuture::new(250).await;
                    clock.set(now_ms());
                }
            });
        })
    }

    /// Performs `action` and whatever the session asks for after it, until it asks for nothing.
    async fn drive(self, valid: ValidSettings, action: LiveAction) {
        let mut next = Some(action);
        while let Some(action) = next.take() {
            // The user's message is stored before its request is sent (ARCHITECTURE.md).
            if let (LiveAction::Reply(_), Some(sessions)) = (&action, self.sessions) {
                stored_before_request(sessions).await;
            }
            next = match action {
                LiveAction::Reply(request) => self.reply(&valid, request).await,
                LiveAction::Summary(job) => self.summary(&valid, job).await,
            };
        }
    }

    /// Asks the chat model for a reply, streaming it into the session when streaming is on.
    async fn reply(&self, valid: &ValidSettings, request: Vec<ChatMessage>) -> Option<LiveAction> {
        let stop = StopHandle::new();
        let number = self.hold(&stop);
        let client = self.client(valid.endpoint.clone(), Purpose::Chat);
        let chat = valid.chat_request(request.clone());
        let workbench = self.workbench;
        let (streamed, counter) = (self.streamed, self.counter);
        let (end, usage, reasoning) = if valid.stream {
            // The session keeps the reply's text as its pieces arrive; the client only
            // forwards them and says how the stream ended.
            let reply = client
                .stream(&chat, &stop, |piece| match streamed {
                    // Only the streaming row and what follows it hear a piece.
                    Some(streamed) => streamed.arrived(workbench, piece, &counter),
                    None => workbench.update(|w| w.live.arrived(piece, &counter)),
                })
                .await;
            (ChatEnd::Streamed(reply.end), reply.usage, reply.reasoning)
        } else {
            let reply = client.complete(&chat, &stop).await;
            let usage = reply.as_ref().ok().flatten().and_then(|r| r.usage);
            let reasoning = reply
                .as_ref()
                .ok()
                .flatten()
                .map(|r| r.reasoning.clone())
                .unwrap_or_default();
            (
                ChatEnd::Whole(ReplyEnd::of_completion(reply.map(|r| r.map(|r| r.content)))),
                usage,
                reasoning,
            )
        };
        self.release(number);
        workbench.update(|w| w.live.reasoned(&reasoning));
        let counter = self.counter;
        workbench
            .try_update(|w| {
                w.live
                    .reply_ended(&request, usage.as_ref(), end, now_ms(), &counter)
            })
            .flatten()
    }

    /// Runs a summariser job through the same endpoint with the summary model.
    async fn summary(&self, valid: &ValidSettings, job: SummaryJob) -> Option<LiveAction> {
        // Not streamed, so nothing arrives until the whole summary is written: a slow local
        // model gets a timeout it can meet, and Stop ends it sooner.
        let mut endpoint = valid.endpoint.clone();
        endpoint.timeout_ms = summary_timeout_ms(endpoint.timeout_ms);
        let client = self.client(endpoint, Purpose::Summary);
        let request = valid.summary_request(job.request.clone());
        let stop = StopHandle::new();
        let number = self.hold(&stop);
        let reply = client.complete(&request, &stop).await;
        self.release(number);
        let usage = reply.as_ref().ok().flatten().and_then(|r| r.usage);
        let reply = reply.map(|r| r.map(|r| r.content));
        let counter = self.counter;
        self.workbench
            .try_update(|w| {
                w.live.summary_ended(
                    &job,
                    reply,
                    usage.as_ref(),
                    &valid.summary_model,
                    now_ms(),
                    &counter,
                )
            })
            .flatten()
    }
}
