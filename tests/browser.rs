//! The browser tier: modules that only work in a real browser, run by wasm-bindgen-test in
//! headless Chromium (`cargo test --target wasm32-unknown-unknown --test browser`): the address
//! bar (`ui::url`), the key's and the settings' storage (`store`), and the client (`api`).
#![cfg(target_arch = "wasm32")]

use summary_memory::route::{Navigation, Route, Tab};
use summary_memory::ui::url::{current_query, replace_query, write_query};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

#[wasm_bindgen_test]
fn replace_query_rewrites_the_address_bar_without_navigating() {
    let before = web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap();
    replace_query("tab=tuner&max_turns=4");
    assert_eq!(current_query(), "?tab=tuner&max_turns=4");
    let route = Route::parse(&current_query());
    assert_eq!(route.tab, Tab::Tuner);
    assert_eq!(route.max_turns, Some(4));
    // replaceState, not pushState: the back button must not walk through every keystroke.
    let after = web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap();
    assert_eq!(before, after);
}

fn history_length() -> u32 {
    web_sys::window()
        .unwrap()
        .history()
        .unwrap()
        .length()
        .unwrap()
}

#[wasm_bindgen_test]
fn another_place_is_a_new_history_entry_and_none_writes_nothing() {
    replace_query("tab=inspect");
    let before = history_length();
    write_query("tab=inspect&session=s1&view=probes", Navigation::Push);
    assert_eq!(current_query(), "?tab=inspect&session=s1&view=probes");
    assert_eq!(history_length(), before + 1, "Back returns to the library");
    write_query("tab=tuner", Navigation::None);
    assert_eq!(current_query(), "?tab=inspect&session=s1&view=probes");
    assert_eq!(history_length(), before + 1);
}

#[wasm_bindgen_test]
fn an_empty_query_drops_the_question_mark() {
    replace_query("tab=tokens");
    replace_query("");
    assert_eq!(current_query(), "");
    let href = web_sys::window().unwrap().location().href().unwrap();
    assert!(!href.contains('?'), "{href}");
}

mod key_storage {
    use summary_memory::engine::settings::Settings;
    use summary_memory::store::{API_KEY_KEY, SETTINGS_KEY, load_settings, save_settings};
    use wasm_bindgen_test::*;
    use web_sys::Storage;

    fn local() -> Storage {
        web_sys::window().unwrap().local_storage().unwrap().unwrap()
    }

    fn session() -> Storage {
        web_sys::window()
            .unwrap()
            .session_storage()
            .unwrap()
            .unwrap()
    }

    fn stored(storage: &Storage, key: &str) -> Option<String> {
        storage.get_item(key).unwrap()
    }

    // One test walks the whole lifecycle, because the tests of this file share one page and
    // therefore one localStorage.
    #[wasm_bindgen_test]
    fn the_key_lives_in_session_storage_unless_the_user_opts_in() {
        local().clear().unwrap();
        session().clear().unwrap();
        let mut settings = Settings {
            base_url: "http://127.0.0.1:11434/v1".into(),
            api_key: "sk-browser-test".into(),
            chat_model: "test-chat".into(),
            ..Settings::default()
        };

        // By default the key goes to sessionStorage only, and the settings record omits it.
        save_settings(&settings).unwrap();
        assert_eq!(
            stored(&session(), API_KEY_KEY).as_deref(),
            Some("sk-browser-test")
        );
        assert_eq!(stored(&local(), API_KEY_KEY), None);
        let record = stored(&local(), SETTINGS_KEY).unwrap();
        assert!(record.contains("test-chat"), "{record}");
        assert!(!record.contains("sk-browser-test"), "{record}");
        assert_eq!(load_settings().unwrap(), settings);

        // Opting in moves it to localStorage and out of sessionStorage.
        settings.remember_key = true;
        save_settings(&settings).unwrap();
        assert_eq!(
            stored(&local(), API_KEY_KEY).as_deref(),
            Some("sk-browser-test")
        );
        assert_eq!(stored(&session(), API_KEY_KEY), None);
        // A new tab has an empty sessionStorage; the remembered key must still load.
        session().clear().unwrap();
        assert_eq!(load_settings().unwrap(), settings);

        // Opting out removes it from localStorage again.
        settings.remember_key = false;
        save_settings(&settings).unwrap();
        assert_eq!(stored(&local(), API_KEY_KEY), None);
        assert_eq!(
            stored(&session(), API_KEY_KEY).as_deref(),
            Some("sk-browser-test")
        );

        // Clearing the key removes it everywhere.
        settings.api_key.clear();
        save_settings(&settings).unwrap();
        assert_eq!(stored(&local(), API_KEY_KEY), None);
        assert_eq!(stored(&session(), API_KEY_KEY), None);
        let all_local: Vec<String> = (0..local().length().unwrap())
            .filter_map(|i| local().key(i).unwrap())
            .filter_map(|k| stored(&local(), &k))
            .collect();
        assert!(
            all_local.iter().all(|v| !v.contains("sk-browser-test")),
            "{all_local:?}"
        );
    }

    #[wasm_bindgen_test]
    fn unreadable_stored_settings_are_reported_not_panicked_on() {
        local().set_item(SETTINGS_KEY, "{not json").unwrap();
        let error = load_settings().unwrap_err();
        assert!(error.to_string().contains("could not be read"), "{error}");
        local().remove_item(SETTINGS_KEY).unwrap();
        assert_eq!(load_settings().unwrap().base_url, "");
    }
}

/// The fetch client against a scripted stand-in for `window.fetch`, which lets these tests
/// drive streaming, Stop, the timeout, retries and the include_usage fallback without a server.
mod client {
    use std::cell::RefCell;
    use std::rc::Rc;

    use serde_json::{Value, json};
    use summary_memory::api::{Client, StopHandle, StreamEnd, skips_include_usage};
    use summary_memory::engine::Role;
    use summary_memory::engine::openai::{ApiError, ChatMessage, ChatRequest, Usage};
    use summary_memory::engine::settings::Endpoint;
    use wasm_bindgen_test::*;

    const FAKE_FETCH: &str = r#"
      window.__calls = [];
      const enc = new TextEncoder();
      const sleep = ms => new Promise(r => setTimeout(r, ms));
      const aborted = () => new DOMException('The user aborted a request.', 'AbortError');
      window.fetch = async (request) => {
        const body = request.method === 'POST' ? await request.clone().text() : '';
        window.__calls.push({ url: request.url, method: request.method,
                              headers: [...request.headers.entries()], body });
        const spec = SCRIPT.shift() || { status: 500, body: '{"error":{"message":"script ran out"}}' };
        const signal = request.signal;
        if (spec.network) throw new TypeError('Failed to fetch');
        if (spec.hang) {
          return new Promise((_, reject) => signal.addEventListener('abort', () => reject(aborted())));
        }
        if (spec.sse) {
          const stream = new ReadableStream({
            async start(controller) {
              let dead = false;
              signal.addEventListener('abort', () => { dead = true; try { controller.error(aborted()); } catch (e) {} });
              for (const piece of spec.sse) {
                if (spec.delay) await sleep(spec.delay);
                if (dead) return;
                controller.enqueue(enc.encode(piece));
              }
              if (!spec.thenHang && !dead) controller.close();
            }
          });
          return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
        }
        return new Response(spec.body, { status: spec.status, headers: spec.headers || {} });
      };
    "#;

    fn install(script: Value) {
        let code = format!("{{ const SCRIPT = {script}; {FAKE_FETCH} }}");
        js_sys::eval(&code).unwrap();
    }

    fn calls() -> Vec<Value> {
        let window = web_sys::window().unwrap();
        let calls = js_sys::Reflect::get(&window, &"__calls".into()).unwrap();
        let text: String = js_sys::JSON::stringify(&calls).unwrap().into();
        serde_json::from_str(&text).unwrap()
    }

    fn endpoint(name: &str, timeout_ms: u64) -> Endpoint {
        Endpoint {
            base_url: format!("http://fake.test/{name}/v1"),
            api_key: Some("sk-fake".into()),
            timeout_ms,
        }
    }

    fn request() -> ChatRequest {
        ChatRequest::new("test-chat", vec![ChatMessage::new(Role::User, "hi")]).max_tokens(50)
    }

    /// An SSE event with one delta, cut in two pieces mid-way (also mid-character).
    fn delta(text: &str) -> Vec<String> {
        let event = format!(
            "data: {}\n\n",
            json!({"choices": [{"delta": {"content": text}}]})
        );
        let bytes = event.as_bytes();
        let mid = bytes.len() / 2;
        let (a, b) = (
            String::from_utf8_lossy(&bytes[..mid]),
            String::from_utf8_lossy(&bytes[mid..]),
        );
        // Lossy halves would corrupt a split character; keep the event whole in that case.
        if a.contains('\u{FFFD}') || b.contains('\u{FFFD}') {
            vec![event]
        } else {
            vec![a.into_owned(), b.into_owned()]
        }
    }

    fn finish_and_usage() -> Vec<String> {
        vec![
            "data: {\"choices\":[{\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n".into(),
            "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":7,\"completion_tokens\":3}}\n\n"
                .into(),
            "data: [DONE]\n\n".into(),
        ]
    }

    fn headers_of(call: &Value) -> Vec<String> {
        let mut names: Vec<String> = call["headers"]
            .as_array()
            .unwrap()
            .iter()
            .map(|pair| pair[0].as_str().unwrap().to_owned())
            .collect();
        names.sort();
        names
    }

    #[wasm_bindgen_test]
    async fn a_stream_delivers_deltas_usage_and_the_whole_text() {
        let mut sse: Vec<String> = [delta("₹1,20"), delta(",000 "), delta("a month")].concat();
        sse.extend(finish_and_usage());
        install(json!([{ "sse": sse }]));
        let seen = Rc::new(RefCell::new(Vec::new()));
        let sink = seen.clone();
        let reply = Client::new(endpoint("stream", 5_000))
            .stream(&request(), &StopHandle::new(), move |d| {
                sink.borrow_mut().push(d.to_owned())
            })
            .await;
        assert_eq!(reply.end, StreamEnd::Complete);
        // The client forwards the pieces and keeps no text of its own; they make the reply.
        assert_eq!(seen.borrow().concat(), "₹1,20,000 a month");
        assert_eq!(*seen.borrow(), ["₹1,20", ",000 ", "a month"]);
        assert_eq!(reply.finish_reason.as_deref(), Some("stop"));
        assert_eq!(
            reply.usage,
            Some(Usage {
                prompt_tokens: 7,
                completion_tokens: 3,
                reasoning_tokens: None
            })
        );
        let calls = calls();
        assert_eq!(
            calls[0]["url"],
            "http://fake.test/stream/v1/chat/completions"
        );
        assert_eq!(headers_of(&calls[0]), ["authorization", "content-type"]);
        let body: Value = serde_json::from_str(calls[0]["body"].as_str().unwrap()).unwrap();
        assert_eq!(body["stream"], true);
        assert_eq!(body["stream_options"]["include_usage"], true);
    }

    #[wasm_bindgen_test]
    async fn a_rejected_include_usage_is_dropped_and_remembered_for_the_base_url() {
        let ok: Vec<String> = [delta("fine"), finish_and_usage()].concat();
        install(json!([
            { "status": 400, "body": "{\"error\":{\"message\":\"Unrecognized request argument supplied: stream_options\"}}" },
            { "sse": ok },
            { "sse": ok },
        ]));
        let client = Client::new(endpoint("no-usage", 5_000));
        assert!(!skips_include_usage(&client.endpoint().base_url));
        let mut text = String::new();
        let reply = client
            .stream(&request(), &StopHandle::new(), |d| text.push_str(d))
            .await;
        assert_eq!(reply.end, StreamEnd::Complete);
        assert_eq!(text, "fine");
        assert!(skips_include_usage(&client.endpoint().base_url));
        client.stream(&request(), &StopHandle::new(), |_| {}).await;
        let bodies: Vec<Value> = calls()
            .iter()
            .map(|c| serde_json::from_str(c["body"].as_str().unwrap()).unwrap())
            .collect();
        assert_eq!(bodies.len(), 3);
        assert!(bodies[0].get("stream_options").is_some());
        assert!(bodies[1].get("stream_options").is_none());
        assert!(bodies[2].get("stream_options").is_none());
    }

    #[wasm_bindgen_test]
    async fn stop_keeps_the_partial_reply() {
        let sse: Vec<String> = [delta("first "), delta("second "), delta("third")].concat();
        install(json!([{ "sse": sse, "delay": 30, "thenHang": true }]));
        let stop = StopHandle::new();
        let stopper = stop.clone();
        let mut partial = String::new();
        let reply = Client::new(endpoint("stop", 5_000))
            .stream(&request(), &stop, |text| {
                partial.push_str(text);
                if text == "first " {
                    stopper.stop();
                }
            })
            .await;
        assert_eq!(reply.end, StreamEnd::Stopped);
        assert_eq!(partial, "first ");
        assert!(reply.is_incomplete());
    }

    #[wasm_bindgen_test]
    async fn a_silent_server_times_out() {
        // A timed-out request is retried like a 5xx, so the server stays silent for every
        // attempt; the last timeout is what the caller sees.
        install(json!([{ "hang": true }, { "hang": true }, { "hang": true }]));
        let result = Client::new(endpoint("hang", 300))
            .complete(&request(), &StopHandle::new())
            .await;
        assert_eq!(
            result,
            Err(ApiError::Timeout {
                after_ms: Some(300)
            })
        );
        // A stream that stalls after some text is timed out too, and keeps the text.
        let sse = delta("partial");
        install(json!([{ "sse": sse, "thenHang": true }]));
        let mut partial = String::new();
        let reply = Client::new(endpoint("stall", 300))
            .stream(&request(), &StopHandle::new(), |d| partial.push_str(d))
            .await;
        assert_eq!(partial, "partial");
        assert_eq!(
            reply.end,
            StreamEnd::Failed(ApiError::Timeout {
                after_ms: Some(300)
            })
        );
    }

    #[wasm_bindgen_test]
    async fn server_errors_are_retried_and_quota_errors_are_not() {
        let ok = json!({"choices": [{"message": {"content": "done"}, "finish_reason": "stop"}]});
        install(json!([
            { "status": 503, "body": "{\"error\":{\"message\":\"overloaded\"}}" },
            { "status": 200, "body": ok.to_string() },
        ]));
        let notices = Rc::new(RefCell::new(Vec::new()));
        let sink = notices.clone();
        let reply = Client::new(endpoint("retry", 5_000))
            .on_retry(move |notice| sink.borrow_mut().push(notice.clone()))
            .complete(&request(), &StopHandle::new())
            .await
            .unwrap()
            .unwrap();
        assert_eq!(reply.content, "done");
        assert_eq!(calls().len(), 2);
        let notices = notices.borrow().clone();
        assert_eq!(notices.len(), 1);
        assert_eq!(notices[0].retry, 1);
        assert!(
            (500..=1_000).contains(&notices[0].delay_ms),
            "{:?}",
            notices[0]
        );

        install(json!([
            { "status": 429, "body": "{\"error\":{\"message\":\"You exceeded your current quota\",\"code\":\"insufficient_quota\"}}" },
            { "status": 200, "body": ok.to_string() },
        ]));
        let result = Client::new(endpoint("quota", 5_000))
            .complete(&request(), &StopHandle::new())
            .await;
        assert!(
            matches!(result, Err(ApiError::InsufficientQuota { .. })),
            "{result:?}"
        );
        assert_eq!(calls().len(), 1);
    }

    #[wasm_bindgen_test]
    async fn failures_before_and_during_a_stream() {
        install(json!([{ "network": true }]));
        let result = Client::new(endpoint("down", 5_000)).list_models().await;
        match result {
            Err(ApiError::Network { detail, .. }) => assert_eq!(detail, "Failed to fetch"),
            other => panic!("expected a network error, got {other:?}"),
        }
        // The connection closes before [DONE] and before any finish_reason.
        install(json!([{ "sse": delta("half a rep") }]));
        let mut partial = String::new();
        let reply = Client::new(endpoint("cut", 5_000))
            .stream(&request(), &StopHandle::new(), |d| partial.push_str(d))
            .await;
        assert_eq!(partial, "half a rep");
        assert!(
            matches!(
                reply.end,
                StreamEnd::Failed(ApiError::Server { status: None, .. })
            ),
            "{:?}",
            reply.end
        );
        install(json!([{ "status": 200, "body": "{\"data\":[{\"id\":\"b\"},{\"id\":\"a\"}]}" }]));
        let models = Client::new(Endpoint {
            api_key: None,
            ..endpoint("models", 5_000)
        })
        .list_models()
        .await
        .unwrap();
        assert_eq!(models, ["b", "a"]);
        // No key, no body: the GET carries no header the page chose.
        assert_eq!(headers_of(&calls()[0]), Vec::<String>::new());
    }
}

mod session_store {
    use summary_memory::app::library::Origin;
    use summary_memory::store::StoreError;
    use summary_memory::store::sessions::{Record, delete, get, load_all, put, put_value};
    use wasm_bindgen::JsValue;
    use wasm_bindgen_test::*;

    fn record(id: &str, revision: u64, file: &str) -> Record {
        Record {
            id: id.into(),
            name: format!("Session {id}"),
            updated_ms: 1_700_000_000_000 + revision,
            revision,
            file: file.into(),
            deleted_ms: None,
            origin: None,
        }
    }

    #[wasm_bindgen_test]
    async fn a_saved_session_loads_back_unchanged() {
        let first = record("round-trip", 1, "{\"format\":\"x\"}");
        put(&first, None).await.unwrap();
        assert_eq!(get("round-trip").await.unwrap(), Some(first.clone()));
        let second = record("round-trip", 2, "changed");
        put(&second, Some(1)).await.unwrap();
        let all = load_all().await.unwrap();
        assert!(all.contains(&second), "{all:?}");
        assert!(!all.contains(&first));
        delete("round-trip", "x", Some(2)).await.unwrap();
        assert_eq!(get("round-trip").await.unwrap(), None);
    }

    #[wasm_bindgen_test]
    async fn the_import_a_session_came_from_is_stored_and_a_record_stored_before_reads_as_none() {
        let imported = Record {
            origin: Some(Origin {
                file: "sharegpt.json".into(),
                imported_ms: 1_780_000_000_000,
                position: 41,
            }),
            ..record("from-an-import", 1, "{}")
        };
        put(&imported, None).await.unwrap();
        assert_eq!(get("from-an-import").await.unwrap(), Some(imported));
        // A record as the page stored it before imports were recorded: no import fields.
        let older = js_sys::Object::new();
        for (key, value) in [
            ("id", JsValue::from_str("stored-before")),
            ("name", JsValue::from_str("Session stored-before")),
            ("updated_ms", JsValue::from_f64(1_700_000_000_001.0)),
            ("revision", JsValue::from_f64(1.0)),
            ("file", JsValue::from_str("older")),
        ] {
            js_sys::Reflect::set(&older, &key.into(), &value).unwrap();
        }
        put_value("stored-before", "Session stored-before", older.into(), None)
            .await
            .unwrap();
        assert_eq!(
            get("stored-before").await.unwrap(),
            Some(record("stored-before", 1, "older"))
        );
    }

    #[wasm_bindgen_test]
    async fn a_failed_write_leaves_the_old_record() {
        let old = record("atomic", 1, "the good copy");
        put(&old, None).await.unwrap();
        // A function cannot be stored (DataCloneError), so this write's transaction aborts.
        let bad = js_sys::Object::new();
        js_sys::Reflect::set(&bad, &"id".into(), &"atomic".into()).unwrap();
        js_sys::Reflect::set(&bad, &"revision".into(), &JsValue::from_f64(2.0)).unwrap();
        js_sys::Reflect::set(&bad, &"file".into(), &js_sys::Function::new_no_args("")).unwrap();
        let error = put_value("atomic", "Atomic", bad.into(), Some(1))
            .await
            .unwrap_err();
        assert!(
            matches!(&error, StoreError::TransactionFailed(reason) if reason.contains("DataCloneError")),
            "{error:?}"
        );
        assert!(error.to_string().contains("the last saved copy is kept"));
        assert_eq!(get("atomic").await.unwrap(), Some(old));
    }

    #[wasm_bindgen_test]
    async fn a_write_based_on_a_stale_revision_is_refused() {
        put(&record("two-tabs", 1, "base"), None).await.unwrap();
        // Tab A saves revision 2 on top of 1.
        let tab_a = record("two-tabs", 2, "from tab A");
        put(&tab_a, Some(1)).await.unwrap();
        // Tab B, still on revision 1, must not overwrite it.
        let error = put(&record("two-tabs", 2, "from tab B"), Some(1))
            .await
            .unwrap_err();
        assert_eq!(
            error,
            StoreError::Conflict {
                name: "Session two-tabs".into()
            }
        );
        assert!(error.to_string().contains("Reload"));
        assert_eq!(get("two-tabs").await.unwrap(), Some(tab_a));
        // Creating a record that already exists is a conflict too, and so is a stale delete.
        assert!(put(&record("two-tabs", 1, "new"), None).await.is_err());
        assert!(delete("two-tabs", "x", Some(1)).await.is_err());
        assert!(get("two-tabs").await.unwrap().is_some());
    }
}
