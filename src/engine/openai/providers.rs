//! The OpenAI-compatible servers offered as presets in Settings, and which one a base URL
//! points at (for tailored network hints).

use super::origin::Origin;

/// A known OpenAI-compatible server, for the settings presets and for tailored network hints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Provider {
    pub id: &'static str,
    pub name: &'static str,
    pub base_url: &'static str,
    pub needs_api_key: bool,
    /// What the browser needs before it may call this server from this page.
    pub browser_note: &'static str,
}

/// The presets offered in Settings.
pub const PROVIDERS: &[Provider] = &[
    Provider {
        id: "openai",
        name: "OpenAI",
        base_url: "https://api.openai.com/v1",
        needs_api_key: true,
        browser_note: "Accepts browser requests. The key stays in this browser, but anyone using it can read it.",
    },
    Provider {
        id: "groq",
        name: "Groq",
        base_url: "https://api.groq.com/openai/v1",
        needs_api_key: true,
        browser_note: "Accepts browser requests. The free tier limits tokens per minute, so expect 429s on long runs.",
    },
    Provider {
        id: "openrouter",
        name: "OpenRouter",
        base_url: "https://openrouter.ai/api/v1",
        needs_api_key: true,
        browser_note: "Accepts browser requests. Model ids include the vendor, e.g. openai/gpt-oss-120b.",
    },
    Provider {
        id: "ollama",
        name: "Ollama",
        base_url: "http://localhost:11434/v1",
        needs_api_key: false,
        browser_note: "Ollama only accepts its own default origins. Start it with OLLAMA_ORIGINS set to this page's origin (for example OLLAMA_ORIGINS=\"https://your.site\" ollama serve), or OLLAMA_ORIGINS=\"*\" on a trusted machine.",
    },
    Provider {
        id: "lmstudio",
        name: "LM Studio",
        base_url: "http://localhost:1234/v1",
        needs_api_key: false,
        browser_note: "Turn on \"Enable CORS\" in LM Studio's local server settings (Developer tab), then start the server.",
    },
    Provider {
        id: "llamacpp",
        name: "llama.cpp server",
        base_url: "http://localhost:8080/v1",
        needs_api_key: false,
        browser_note: "llama-server answers cross-origin requests by default; start it with the model loaded (llama-server -m model.gguf) and check the port.",
    },
    Provider {
        id: "vllm",
        name: "vLLM",
        base_url: "http://localhost:8000/v1",
        needs_api_key: false,
        browser_note: "vLLM allows all origins unless --allowed-origins was narrowed; if it was, add this page's origin.",
    },
];

/// The preset whose server the base URL points at: a hosted provider by its exact host
/// (never a substring, so `api.openai.com.evil.example` is not OpenAI), a self-hosted server
/// by its default port on any other host (they need no key, so a wrong guess costs only a hint).
pub fn detect_provider(base_url: &str) -> Option<&'static Provider> {
    let origin = Origin::parse(base_url)?;
    let id = match origin.host.as_str() {
        "api.openai.com" => "openai",
        "api.groq.com" => "groq",
        "openrouter.ai" => "openrouter",
        _ => match origin.port {
            11434 => "ollama",
            1234 => "lmstudio",
            8080 => "llamacpp",
            8000 => "vllm",
            _ => return None,
        },
    };
    PROVIDERS.iter().find(|p| p.id == id)
}
