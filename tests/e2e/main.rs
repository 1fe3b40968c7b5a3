//! End-to-end tests: the release dist in headless Chromium, driven over WebDriver, against a
//! loopback OpenAI-compatible test server, the LiteLLM proxy (`litellm.rs`) and a real model
//! behind llama-cpp-python's server (`real_model.rs`). They assert on what a person sees.
//!
//! `pages/` holds one page object per tab, so a test reads as the steps a person takes;
//! `harness.rs` the browser, the dist's server and the waits; `openai_server.rs` the loopback
//! endpoint. `crash.rs` is the crash tier: the browser's process tree killed with SIGKILL at the
//! moments that matter, then reopened on the same profile. The servers we did not write run
//! through `third_party.rs`, and every wait's pause ([`harness::pause`]) checks them first, so a
//! test waiting on a server that died fails at once and names it.
//!
//! Run through `scripts/test.sh`, which builds the dist first. By hand:
//! `trunk build --release --offline && cargo test --features e2e --test e2e`.
#![cfg(not(target_arch = "wasm32"))]

mod a11y;
mod ab;
mod agent_logs;
mod big_import;
mod big_library;
mod chat_apps;
mod continued;
mod contrast;
mod corpus;
mod crash;
mod demos;
mod drift_checks;
mod export_policy;
mod harness;
mod lesson;
mod litellm;
mod live;
mod long_chat;
mod markdown;
mod modules;
mod openai_server;
mod pages;
mod persistence;
mod policy_controls;
mod probes;
mod providers;
mod pwa;
mod real_demo;
mod real_model;
mod replay;
mod screenshots;
mod sessions;
mod settings;
mod shell;
mod storage;
mod third_party;
mod tokens;
mod transcripts;
mod tuner;
mod welcome;
mod wild_transcripts;
mod workbench;
mod workspace;
