//! Records the demos "a real 135M model": plays the drift conversation's user messages and the
//! FinCoach six turns through a real model behind an OpenAI-compatible server, once, and writes
//! what it said to `src/engine/demos/real-135m.json` (`engine::recording`).
//!
//! Run it through `scripts/record-real-model.sh`, which starts llama-cpp-python's server with
//! SmolLM2-135M-Instruct on a free loopback port, passes these variables, and stops the server:
//!
//! - `SM_RECORD_BASE_URL`: the server's `/v1` URL;
//! - `SM_RECORD_MODEL_FILE`: the GGUF file it serves (its name gives the quantisation);
//! - `SM_RECORD_SERVER`: e.g. `llama-cpp-python 0.3.36`;
//! - `SM_RECORD_N_CTX`, `SM_RECORD_N_THREADS`: the server's settings, recorded as they were;
//! - `SM_RECORD_AT`: the time of the run;
//! - `SM_RECORD_OUT`: where to write the recording.
//!
//! Every request is built by the engine's own code, as the app builds it: the chat request is
//! `MemoryState::request` (system prompt, the summary as a second system message, the verbatim
//! turns), and each summariser request is the `SummaryJob` the memory emits under the demo's
//! policy, committed back with `MemoryState::commit`. The test command never runs this (it needs
//! the server and takes minutes); the shipped file is checked by native and end-to-end tests.

use std::error::Error;
use std::time::{SystemTime, UNIX_EPOCH};

use summary_memory::engine::demo::{DemoScript, written_sources};
use summary_memory::engine::edition::Provenance;
use summary_memory::engine::memory::{CommitMeta, MemoryState};
use summary_memory::engine::message::{ChatMessage, Message, Role, WordCounter};
use summary_memory::engine::openai::reply::{ChatResponse, parse_chat_response};
use summary_memory::engine::openai::request::{ChatRequest, Purpose};
use summary_memory::engine::recording::{
    RecordedEdition, RecordedModel, RecordedRun, RecordedSettings, RecordedTurn, Recording,
};

/// The name the server serves the model under (`--model_alias`).
const ALIAS: &str = "smollm2";

const SETTINGS_TEMPERATURE: f64 = 0.0;
const SEED: u64 = 1;
/// Enough for the demos' 3-to-5-sentence replies; a longer one is cut, and recorded as cut.
const CHAT_MAX_TOKENS: u32 = 160;
/// The prompt asks for at most 80 words (about 110 tokens); the room above that lets an
/// overrun show instead of being cut off by the server.
const SUMMARY_MAX_TOKENS: u32 = 200;

fn main() -> Result<(), Box<dyn Error>> {
    let var = |name: &str| std::env::var(name).map_err(|_| format!("{name} is not set"));
    let base_url = var("SM_RECORD_BASE_URL")?;
    let model_file = var("SM_RECORD_MODEL_FILE")?;
    let file = model_file
        .rsplit('/')
        .next()
        .unwrap_or(&model_file)
        .to_owned();
    let settings = RecordedSettings {
        temperature: SETTINGS_TEMPERATURE,
        seed: SEED,
        chat_max_tokens: CHAT_MAX_TOKENS,
        summary_max_tokens: SUMMARY_MAX_TOKENS,
        n_ctx: var("SM_RECORD_N_CTX")?.parse()?,
        n_threads: var("SM_RECORD_N_THREADS")?.parse()?,
    };
    let model = RecordedModel {
        name: file
            .split('.')
            .next()
            .unwrap_or("SmolLM2-135M-Instruct")
            .to_owned(),
        quantisation: quantisation(&file),
        file,
        server: var("SM_RECORD_SERVER")?,
    };
    let client = Client {
        url: format!("{}/chat/completions", base_url.trim_end_matches('/')),
        settings: settings.clone(),
    };
    let mut recording = Recording {
        note: "Written by scripts/record-real-model.sh (examples/record_real_model.rs) from one \
               run of the model below; do not edit by hand, run the script again."
            .to_owned(),
        recorded_at: var("SM_RECORD_AT")?,
        model,
        settings,
        runs: Vec::new(),
    };
    let label = recording.model_label();
    for script in [DemoScript::drift(), DemoScript::fincoach()] {
        eprintln!("record: {}", script.slug);
        recording.runs.push(record(&client, &script, &label)?);
    }
    recording.check(&written_sources())?;
    std::fs::write(var("SM_RECORD_OUT")?, recording.to_json())?;
    Ok(())
}

/// Plays one demo's user messages through the model, with the demo's policy deciding when the
/// model is asked for a summary.
fn record(
    client: &Client,
    script: &DemoScript,
    label: &str,
) -> Result<RecordedRun, Box<dyn Error>> {
    let counter = WordCounter;
    let mut memory = MemoryState::new(script.system_prompt, script.policy.clone())?;
    let mut run = RecordedRun {
        source: script.slug.to_owned(),
        turns: Vec::new(),
        editions: Vec::new(),
    };
    let mut at_ms = 0;
    for (turn, (user, _)) in script.turns.iter().enumerate() {
        at_ms += 1_000;
        memory.add_message(Message::new(Role::User, *user, &counter, at_ms))?;
        let messages: Vec<ChatMessage> = memory
            .request(&counter)
            .iter()
            .map(ChatMessage::from)
            .collect();
        let reply = client.call(ChatRequest::new(ALIAS, messages).max_tokens(CHAT_MAX_TOKENS))?;
        eprintln!("record: turn {} replied", turn + 1);
        at_ms += 1_000;
        let mut job = memory.add_message(Message::new(
            Role::Assistant,
            reply.content.trim(),
            &counter,
            at_ms,
        ))?;
        run.turns.push(RecordedTurn {
            user: (*user).to_owned(),
            reply: reply.content.trim().to_owned(),
            finish_reason: reply.finish_reason,
            completion_tokens: reply.usage.map(|u| u.completion_tokens),
        });
        while let Some(due) = job {
            let summary = client.call(
                ChatRequest::new(ALIAS, due.request.clone())
                    .max_tokens(SUMMARY_MAX_TOKENS)
                    .purpose(Purpose::Summary),
            )?;
            at_ms += 1_000;
            let meta = CommitMeta {
                model: Some(label.to_owned()),
                provenance: Provenance::Model,
                at_ms,
            };
            job = memory.commit(due.id, &summary.content, meta, &counter)?;
            let edition = memory.editions().last().expect("a commit adds an edition");
            eprintln!("record: edition {} written", edition.cycle);
            run.editions.push(RecordedEdition {
                cycle: edition.cycle,
                after_turn: turn as u32 + 1,
                folds: edition.folded.map(Into::into),
                text: edition.summary.clone(),
                finish_reason: summary.finish_reason,
                completion_tokens: summary.usage.map(|u| u.completion_tokens),
            });
        }
    }
    Ok(run)
}

/// The chat completions endpoint and the settings every call carries.
struct Client {
    url: String,
    settings: RecordedSettings,
}

impl Client {
    /// Sends one request, not streamed, with the run's temperature and seed, and decodes the
    /// reply with the engine's own decoder.
    fn call(&self, request: ChatRequest) -> Result<ChatResponse, Box<dyn Error>> {
        let max_tokens = request.max_tokens;
        let mut body = request.temperature(self.settings.temperature).to_value();
        body["seed"] = self.settings.seed.into();
        let started = SystemTime::now().duration_since(UNIX_EPOCH)?;
        let mut response = ureq::post(&self.url)
            .header("Content-Type", "application/json")
            .send(body.to_string())?;
        let text = response.body_mut().read_to_string()?;
        let took = SystemTime::now().duration_since(UNIX_EPOCH)? - started;
        eprintln!("record:   {:.1} s", took.as_secs_f64());
        Ok(parse_chat_response(&text, max_tokens)?)
    }
}

/// The quantisation a GGUF file's name states, e.g. `Q4_1` in `SmolLM2-135M-Instruct.Q4_1.gguf`.
fn quantisation(file: &str) -> String {
    file.trim_end_matches(".gguf")
        .rsplit('.')
        .next()
        .filter(|q| q.starts_with('Q') || q.starts_with('F') || q.starts_with("IQ"))
        .unwrap_or("unknown")
        .to_owned()
}
