//! Context windows of common models, for the window trigger's presets. Each is the model's
//! documented maximum input context in tokens (the provider's model page); the field stays
//! editable, since deployments often serve a smaller window (a local server's `--ctx-size`).

/// A model and its context window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelWindow {
    pub model: &'static str,
    /// Other models with the same window.
    pub also: &'static [&'static str],
    pub context: u32,
}

/// The presets the Tuner offers, smallest window first; no two share a window, so a window
/// names its preset.
pub const MODEL_WINDOWS: [ModelWindow; 7] = [
    // SmolLM2's model card: trained with an 8k context (the model the real-model tests run).
    ModelWindow {
        model: "SmolLM2-135M-Instruct",
        also: &[],
        context: 8_192,
    },
    // Qwen2.5-7B-Instruct's model card: 32,768 tokens without YaRN scaling.
    ModelWindow {
        model: "Qwen2.5-7B-Instruct",
        also: &[],
        context: 32_768,
    },
    // Meta's Llama 3.1 model card: 128k.
    ModelWindow {
        model: "Llama-3.1-8B-Instruct",
        also: &[],
        context: 131_072,
    },
    // OpenAI's model pages (gpt-4o-mini has gpt-4o's window).
    ModelWindow {
        model: "gpt-4o",
        also: &["gpt-4o-mini"],
        context: 128_000,
    },
    // Anthropic's models overview: 200k for the Claude 4 family; OpenAI's o3 page: 200k.
    ModelWindow {
        model: "claude-sonnet-4",
        also: &["o3"],
        context: 200_000,
    },
    ModelWindow {
        model: "gpt-5",
        also: &[],
        context: 400_000,
    },
    ModelWindow {
        model: "gpt-4.1",
        also: &[],
        context: 1_047_576,
    },
];

/// The preset whose window is `context`, if one is.
pub fn model_of(context: u32) -> Option<&'static ModelWindow> {
    MODEL_WINDOWS.iter().find(|m| m.context == context)
}

/// The window of a model by name: an exact preset name, or the preset a served name starts with
/// (`gpt-4o-2024-08-06` is gpt-4o; the longest matching name wins, so `gpt-4o-mini-…` is mini).
pub fn window_of(model: &str) -> Option<u32> {
    MODEL_WINDOWS
        .iter()
        .flat_map(|m| {
            std::iter::once(m.model)
                .chain(m.also.iter().copied())
                .map(|n| (n, m.context))
        })
        .filter(|(name, _)| model.eq_ignore_ascii_case(name) || model.starts_with(name))
        .max_by_key(|(name, _)| name.len())
        .map(|(_, context)| context)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_names_find_their_preset_and_the_longest_name_wins() {
        assert_eq!(window_of("gpt-4o"), Some(128_000));
        assert_eq!(window_of("gpt-4o-mini-2024-07-18"), Some(128_000));
        assert_eq!(window_of("gpt-4.1-2025-04-14"), Some(1_047_576));
        assert_eq!(window_of("gpt-5"), Some(400_000));
        assert_eq!(window_of("o3-2025-04-16"), Some(200_000));
        assert_eq!(window_of("unknown-model"), None);
        assert_eq!(
            model_of(8_192).map(|m| m.model),
            Some("SmolLM2-135M-Instruct")
        );
        let mut windows: Vec<u32> = MODEL_WINDOWS.iter().map(|m| m.context).collect();
        windows.dedup();
        assert_eq!(windows.len(), MODEL_WINDOWS.len(), "one preset per window");
        // Within the route's limit, so every preset can be put in a link.
        assert!(
            MODEL_WINDOWS
                .iter()
                .all(|m| m.context <= crate::route::MAX_CONTEXT)
        );
    }
}
