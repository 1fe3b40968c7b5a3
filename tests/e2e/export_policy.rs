//! The "Export policy" panel: a policy tuned in the Tuner exported to every target (with the
//! prompt and the model names from Settings, never the key), exactness said for a policy a
//! target cannot express, Copy and the download, the highlighter's work, and the JSON target
//! imported back into the same policy.

use summary_memory::engine::export::{ExportContext, Target, export, import_policy};
use summary_memory::engine::policy::{Placement, Policy, Trigger};
use summary_memory::engine::session::{export as export_session, synthetic};
use summary_memory::view::export::COPIED;

use crate::harness::{Browser, StoppableApp, TempDir, dist_dir, pause};
use crate::pages::chat::ChatPage;
use crate::pages::export::ExportPanel;
use crate::pages::inspect::InspectPage;
use crate::pages::settings::SettingsPage;

/// A key typed in Settings; no snippet may ever hold it.
const KEY: &str = "sk-e2e-never-in-a-snippet";
const CHAT_MODEL: &str = "e2e-chat-model";
const SUMMARY_MODEL: &str = "e2e-summary-model";
const BASE_URL: &str = "http://127.0.0.1:9/v1";
/// The summariser prompt typed in the policy panel; every snippet carries it.
const PROMPT: &str = "Summarise the conversation and keep every rupee figure exact.";

/// A name each target's snippet must hold: the library's class or function it builds on.
fn names(target: Target) -> &'static str {
    match target {
        Target::LangchainMiddlewarePy => "SummarizationMiddleware",
        Target::LangchainMiddlewareJs => "summarizationMiddleware",
        Target::LangchainBuffer => "ConversationSummaryBufferMemory",
        Target::Langgraph => "StateGraph",
        Target::Llamaindex => "ChatSummaryMemoryBuffer",
        Target::AgentsSession => "SummarizingSession",
        Target::SeedClass => "SummaryMemory",
        Target::SummaryMemoryMiddleware => "SummaryMemoryMiddleware(",
        Target::Json => "summary-memory-policy",
    }
}

/// What a snippet carries besides the policy, with no Settings and no pinned facts.
fn bare_context(policy: &Policy) -> ExportContext<'_> {
    ExportContext {
        summary_prompt: &policy.prompt.text,
        word_limit: Some(policy.prompt.word_limit),
        must_keep: &policy.prompt.must_keep,
        pinned: &[],
        chat_model: "",
        summary_model: "",
        base_url: "",
        context_window: 128_000,
    }
}

/// Sets the Tuner's trigger to `kind` with `fields`, in the page already open (a reload could
/// lose the policy panel's edits).
async fn tune(browser: &Browser, kind: &str, fields: &[(&str, &str)]) {
    browser.click_testid("tab-tuner").await;
    browser
        .wait_testid("trigger")
        .await
        .select_by_value(kind)
        .await
        .unwrap();
    for (id, value) in fields {
        browser.set_field(id, value).await;
        browser
            .wait_value(id, value, "the Tuner's field typed")
            .await;
    }
}

/// Settings with a base URL, a key and both models, and the policy panel's prompt edited.
async fn set_up(browser: &Browser) {
    let settings = SettingsPage::open(browser).await;
    settings
        .fill(&[
            ("base-url", BASE_URL),
            ("api-key", KEY),
            ("chat-model", CHAT_MODEL),
            ("summary-model", SUMMARY_MODEL),
        ])
        .await;
    settings.wait_saved(SUMMARY_MODEL, "the models saved").await;
    browser.click_testid("tab-chat").await;
    browser.set_field("policy-prompt", PROMPT).await;
    browser
        .wait_value("policy-prompt", PROMPT, "the prompt typed")
        .await;
}

#[tokio::test]
async fn a_policy_tuned_in_the_tuner_exports_to_every_target_with_its_prompt_and_models_and_no_key()
{
    let browser = Browser::new().await;
    set_up(&browser).await;
    tune(
        &browser,
        "tokens",
        &[("budget", "900"), ("keep_tokens", "300")],
    )
    .await;
    let panel = ExportPanel::open(&browser).await;
    for target in Target::ALL {
        panel.choose(target).await;
        let code = panel.code().await;
        assert!(
            code.contains(names(target)),
            "{target:?} names no {}:\n{code}",
            names(target)
        );
        assert!(!code.contains(KEY), "{target:?} carries the key");
        assert!(
            code.contains(CHAT_MODEL),
            "{target:?} lacks the chat model:\n{code}"
        );
        assert!(
            code.contains(SUMMARY_MODEL),
            "{target:?} lacks the summariser model"
        );
        assert!(code.contains(BASE_URL), "{target:?} lacks the base URL");
        assert!(
            code.contains(PROMPT),
            "{target:?} lacks the prompt:\n{code}"
        );
        let (name, downloaded) = panel.download().await;
        assert_eq!(name, target.file_name());
        assert_eq!(
            downloaded, code,
            "{target:?}: the download is not the code shown"
        );
    }
    browser.close().await;
}

/// The Tuner's policy (a turn trigger) exported to the first target that cannot run it: the
/// panel says so, lists the same differences the core names, says what that does on the
/// conversation, and draws both dry runs.
#[tokio::test]
async fn a_target_that_cannot_express_the_policy_says_what_differs_and_draws_both_runs() {
    let browser = Browser::new().await;
    browser
        .open("?tab=tuner&trigger=turns&max_turns=6&keep=2&turns=20")
        .await;
    let policy = Policy::new(Trigger::Turns {
        max_turns: 6,
        keep: 2,
    })
    .unwrap();
    let ctx = bare_context(&policy);
    let (target, expected) = Target::ALL
        .into_iter()
        .map(|t| (t, export(t, &policy, &ctx)))
        .find(|(_, e)| !e.exact)
        .expect("some target cannot run a turn trigger as it is");
    let panel = ExportPanel::open(&browser).await;
    panel.choose(target).await;
    let shown = panel.exactness().await;
    assert!(!shown.exact, "{target:?}: {shown:?}");
    assert_eq!(shown.differences, expected.differences);
    let schedule = shown.schedule.expect("the schedule sentence");
    assert!(schedule.starts_with("On this conversation"), "{schedule}");
    assert!(schedule.contains("turn"), "{schedule}");
    assert_eq!(shown.chart_lines, 2, "your run and the snippet's");

    panel.choose(Target::Json).await;
    let shown = panel.exactness().await;
    assert!(shown.exact && shown.differences.is_empty() && shown.schedule.is_none());
    assert_eq!(shown.chart_lines, 0);
    browser.close().await;
}

#[tokio::test]
async fn copy_puts_the_snippet_on_the_clipboard_and_the_download_is_named_by_its_target() {
    let browser = Browser::new().await;
    browser.open("?tab=tuner").await;
    let origin = Browser::app_url("");
    browser
        .devtools(
            "Browser.grantPermissions",
            serde_json::json!({
                "origin": origin.trim_end_matches('/'),
                "permissions": ["clipboardReadWrite", "clipboardSanitizedWrite"],
            }),
        )
        .await;
    let panel = ExportPanel::open(&browser).await;
    panel.choose(Target::LangchainMiddlewarePy).await;
    let code = panel.code().await;
    assert_eq!(panel.copy().await, COPIED);
    let pasted = panel.clipboard().await;
    assert_eq!(pasted, code);
    let (name, downloaded) = panel.download().await;
    assert_eq!(name, "summary_memory_langchain.py");
    assert_eq!(name, Target::LangchainMiddlewarePy.file_name());
    assert_eq!(downloaded, code);
    browser.close().await;
}

#[tokio::test]
async fn the_highlighter_colours_the_snippet_and_never_turns_its_text_into_markup() {
    let browser = Browser::new().await;
    browser.open("?tab=chat").await;
    let planted = "Keep <img src=x onerror=\"window.__pwned=1\"> and </code><b>this</b> as text.";
    browser.set_field("policy-prompt", planted).await;
    browser
        .wait_value("policy-prompt", planted, "the prompt typed")
        .await;
    let panel = ExportPanel::open(&browser).await;
    for target in [
        Target::LangchainMiddlewarePy,
        Target::LangchainMiddlewareJs,
        Target::Json,
    ] {
        panel.choose(target).await;
        let coloured = panel.wait_highlighted().await;
        assert!(coloured > 5, "{target:?}: {coloured} highlighted spans");
        assert_eq!(
            panel.foreign_elements().await,
            Vec::<String>::new(),
            "{target:?}"
        );
        let code = panel.code().await;
        assert!(
            code.contains("<img src=x"),
            "{target:?}: the prompt is not text:\n{code}"
        );
        let pwned: bool = browser.read("window.__pwned === 1").await;
        assert!(!pwned, "the snippet's text ran as markup");
    }
    browser.close().await;
}

/// The JSON export of a policy tuned in the Tuner, imported after the Tuner and the policy
/// panel were changed, gives back the same policy: the Tuner's trigger fields and the panel's
/// prompt and placement read back as they were; a broken file is refused with its name and the
/// reason, and changes nothing.
#[tokio::test]
async fn the_json_export_imports_back_into_the_same_policy() {
    let browser = Browser::new().await;
    set_up(&browser).await;
    ChatPage::new(&browser)
        .choose("policy-placement", "user_ack")
        .await;
    tune(
        &browser,
        "tokens",
        &[("budget", "900"), ("keep_tokens", "300")],
    )
    .await;
    let panel = ExportPanel::open(&browser).await;
    panel.choose(Target::Json).await;
    let json = panel.code().await;

    // Change everything the file holds.
    tune(&browser, "turns", &[("max_turns", "5"), ("keep", "1")]).await;
    browser.click_testid("tab-chat").await;
    browser.set_field("policy-prompt", "Another prompt.").await;
    ChatPage::new(&browser)
        .choose("policy-placement", "second_system")
        .await;
    browser.click_testid("tab-tuner").await;

    let panel = ExportPanel::open(&browser).await;
    let error = panel
        .import_pasted("{\"format\": \"summary-memory-policy\", ")
        .await;
    let error = error.unwrap_err();
    assert!(error.starts_with("the pasted text: "), "{error}");
    assert!(error.contains("line 1"), "{error}");
    assert_eq!(browser.value_of("trigger").await, "turns");

    let dir = TempDir::new();
    let path = dir.write("summary_memory_policy.json", &json);
    panel.import_file(&path).await.unwrap();
    browser
        .wait_value("trigger", "tokens", "the imported trigger")
        .await;
    assert_eq!(browser.value_of("budget").await, "900");
    assert_eq!(browser.value_of("keep_tokens").await, "300");
    browser.click_testid("tab-chat").await;
    assert_eq!(browser.value_of("policy-prompt").await, PROMPT);
    assert_eq!(browser.value_of("policy-placement").await, "user_ack");
    assert_eq!(browser.value_of("policy-trigger").await, "tokens");
    assert_eq!(browser.value_of("policy-budget").await, "900");

    // Exported again from the policy panel, it is the same file.
    let panel = ExportPanel::open(&browser).await;
    panel.choose(Target::Json).await;
    assert_eq!(panel.code().await, json);
    browser.close().await;
}

/// Inspect's replay form exports the policy it shows (the session's own, to begin with), and a
/// policy JSON imported there is what its fields show next: the trigger, its numbers and the
/// placement.
#[tokio::test]
async fn the_replay_form_exports_its_policy_and_takes_an_imported_one() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let session = synthetic(12);
    let path = dir.write("twelve.json", &export_session(&session, 5, "0.1.0"));
    let inspect = InspectPage::open_counted(&browser).await;
    inspect.import(&path).await;
    inspect.wait_sessions(1).await;
    inspect.show("replay").await;
    let panel = ExportPanel::open(&browser).await;
    panel.choose(Target::Json).await;
    let shown = import_policy(&panel.code().await).unwrap();
    assert_eq!(shown.trigger, session.memory.policy().trigger);

    let mut other = session.memory.policy().clone();
    other.trigger = Trigger::Tokens {
        budget: 700,
        keep_tokens: 200,
    };
    other.placement = Placement::UserAck;
    let json = export(Target::Json, &other, &bare_context(&other)).code;
    panel.import_pasted(&json).await.unwrap();
    browser
        .wait_value("replay-trigger", "tokens", "the imported trigger")
        .await;
    assert_eq!(browser.value_of("replay-a").await, "700");
    assert_eq!(browser.value_of("replay-b").await, "200");
    assert_eq!(browser.value_of("replay-placement").await, "user_ack");
    browser.close().await;
}

/// A dist built without the highlighter (scripts/tools.sh never installed it): the page's
/// request for it gets the page itself, as a host that falls back to index.html answers, and
/// the panel shows its code plain and whole.
#[tokio::test]
async fn without_the_highlighter_the_code_shows_plain_and_whole() {
    // The dist's own files, without the highlight/ folder (nor the icons, which play no part).
    let copy = TempDir::new();
    for entry in std::fs::read_dir(dist_dir()).unwrap() {
        let entry = entry.unwrap();
        if entry.path().is_file() {
            let to = copy.0.join(entry.file_name());
            if std::fs::hard_link(entry.path(), &to).is_err() {
                std::fs::copy(entry.path(), &to).unwrap();
            }
        }
    }
    let app = StoppableApp::start_with(copy.0.clone());
    let browser = Browser::new().await;
    browser
        .client
        .goto(&format!("{}?tab=tuner", app.url))
        .await
        .unwrap();
    browser.wait_testid("tab-chat").await;
    let panel = ExportPanel::open(&browser).await;
    panel.choose(Target::LangchainMiddlewarePy).await;
    browser
        .wait_until(
            "performance.getEntriesByType('resource').some(e => e.name.endsWith('highlight/highlight.mjs'))",
            "the page to ask for the highlighter",
        )
        .await;
    // The module fails as soon as its answer is in (the page is not JavaScript); a moment more
    // for anything that would still colour the code.
    pause(300).await;
    let code = panel.code().await;
    assert!(code.contains("SummarizationMiddleware"), "{code}");
    assert_eq!(panel.download().await.1, code, "the code is whole");
    let coloured: usize = browser
        .read("document.querySelectorAll(\"[data-testid='export-code'] *\").length")
        .await;
    assert_eq!(coloured, 0, "plain text only");
    browser.close().await;
}
