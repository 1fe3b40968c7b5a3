//! The chat apps' files that other projects committed (`tests/fixtures/wild/`), imported
//! through Inspect's file input: the note names the format and the number of conversations,
//! and each conversation opens as a session under its title.

use crate::harness::{Browser, TempDir};
use crate::pages::inspect::InspectPage;

/// Each file: its name, its text, the `data-format` the page reports, how many conversations
/// it holds, and the title of one of them.
const FILES: [(&str, &str, &str, usize, &str); 2] = [
    (
        "openwebui-export.json",
        include_str!("../fixtures/wild/openwebui/openwebui-export.json"),
        "openwebui",
        3,
        "Chat with tool call",
    ),
    (
        "Megumin.jsonl",
        include_str!("../fixtures/wild/sillytavern/Megumin-1673323621108.jsonl"),
        "sillytavern",
        1,
        "Megumin",
    ),
];

#[tokio::test]
async fn open_webui_and_sillytavern_files_import_through_the_file_input() {
    let browser = Browser::new().await;
    let dir = TempDir::new();
    let inspect = InspectPage::open_counted(&browser).await;
    let mut sessions = 0;
    for (name, text, slug, conversations, title) in FILES {
        let path = dir.0.join(name);
        std::fs::write(&path, text).unwrap();
        inspect.import(&path.display().to_string()).await;
        let (note, count) = inspect.wait_import_note(slug).await;
        sessions += conversations;
        inspect.wait_sessions(sessions).await;
        assert_eq!(count, conversations.to_string(), "{name}");
        let label = match slug {
            "openwebui" => "an Open WebUI chat export",
            _ => "a SillyTavern chat",
        };
        assert!(note.contains(&format!(" from {label}.")), "{name}: {note}");
        let names = inspect.names().await;
        assert!(names.iter().any(|n| n == title), "{name}: {names:?}");
    }
    browser.close().await;
}
