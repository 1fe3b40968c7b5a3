//! The shell's runners and services: they perform what the app layer asks for and feed the
//! results back, and draw nothing. Created at the App root and shared through context.
//!
//! - `live_driver.rs`: the live chat's requests;
//! - `runner.rs`: the one runner of every long job that calls the endpoint one request at a
//!   time (Inspect's live replay, A/B comparison and probes): the calls, Stop and Go on;
//! - `library_sync.rs`: the session library in IndexedDB and across the app's tabs;
//! - `streamed.rs`: the live reply's pieces as a signal of their own;
//! - `token_service.rs`: the app-wide token counter and its vocabulary loader;
//! - `offline.rs`: the service worker's registration, and its word when its install left files
//!   out;
//! - `export_io.rs`: the export panel's clipboard, policy file and syntax highlighter;
//! - `storage_status.rs`: the browser asked to keep the library, and its answer;
//! - `clock.rs`: the shell's one clock.
//! - `connection_test.rs`: Settings' "Test connection";
//! - `corpus_pool.rs`: the corpus comparison's pool of Web Workers, and `CorpusRunner`, which
//!   holds it for the tab;
//! - `probe_runner.rs`: Inspect's probe run (on `runner.rs`) and the model's probe writing;
//! - `draft.rs`: the chat box's draft, kept in storage as it is typed;
//! - `importer.rs`: a large file imported in a worker, a batch at a time, with Stop;
//! - `ticker.rs`: the timer of the tabs' animations;
//! - `theme.rs`: the colour theme, kept in storage and put on `<html>` as it changes.
//!
//! Architecture invariant: nothing here imports a tab or a widget (`tests/purity.rs`).

pub mod clock;
pub mod connection_test;
pub mod corpus_pool;
pub mod draft;
pub mod export_io;
pub mod importer;
pub mod library_sync;
pub mod live_driver;
pub mod offline;
pub mod probe_runner;
pub mod runner;
pub mod storage_status;
pub mod streamed;
pub mod theme;
pub mod ticker;
pub mod token_service;
