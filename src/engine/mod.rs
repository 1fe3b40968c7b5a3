//! The memory engine: triggers, schedules, summary jobs, editions, drift checks, the SSE parser
//! the sessions the app keeps and their file format.
//!
//! It decides and emits what it wants done as data; it never performs I/O. It imports nothing
//! from leptos, web-sys, gloo, wasm-bindgen or js-sys (tests/purity.rs enforces this).

pub mod ab;
pub mod checks;
pub mod compare;
pub mod corpus;
pub mod demo;
pub mod drift;
pub mod edition;
pub mod export;
pub mod extractive;
pub mod facts;
pub mod library_session;
pub mod memory;
pub mod message;
pub mod models;
pub mod openai;
pub mod pattern;
pub mod peers;
pub mod policy;
pub mod probes;
pub mod prompts;
pub mod recording;
pub mod replay;
pub mod run;
pub mod schedule;
pub mod scripted;
pub mod sections;
pub mod session;
pub mod settings;
pub mod sse;
pub mod structured;
pub mod text;
pub mod transcript;
mod words;

pub use compare::{CompareRow, Comparison, compare};
pub use demo::{DemoError, DemoEvent, DemoPlayer, DemoScript, TurnRequest};
pub use edition::{Compactor, Edition, MAX_LEVEL, Provenance, TurnRange};
pub use library_session::{Session, SessionSettings};
pub use memory::{
    CommitMeta, Failure, JobKind, MemoryError, MemoryState, MessageState, SummaryJob,
};
pub use message::{ChatMessage, CountTokens, GrowingCount, Message, Role, WordCounter, word_count};
pub use policy::{FoldMode, Placement, Policy, PolicyError, SummaryFormat, Trigger};
pub use prompts::{PresetId, PromptSpec};
pub use schedule::{Schedule, ScheduleInput, ScheduleRow, TurnSize, schedule};
pub use session::{ImportError, export, export_all, import, import_all};
