//! The parts of the app loaded on first use (`ui::on_demand`, docs/size.md): which tabs are, and
//! what a tab's place says while its module loads and when it cannot be fetched.

use crate::route::Tab;

/// What the page shows in a tab's place while its module loads, or after it failed to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModuleView {
    /// The module's slug, as `data-module` and in the file's name (`split_<slug>-<hash>.wasm`).
    pub slug: &'static str,
    pub loading: String,
    pub failed: String,
    pub retry: &'static str,
}

/// The tabs whose code is a module of its own, fetched the first time one opens. The lesson's and
/// the demos' tabs (Chat, Editions, the Tuner) are in the page's first load.
pub const ON_DEMAND: [Tab; 3] = [Tab::Tokens, Tab::Inspect, Tab::Settings];

pub fn is_on_demand(tab: Tab) -> bool {
    ON_DEMAND.contains(&tab)
}

/// The words for a tab's module.
pub fn module_view(tab: Tab) -> ModuleView {
    let name = tab.label();
    ModuleView {
        slug: tab.slug(),
        loading: format!("Loading {name}…"),
        failed: format!("{name} could not be loaded: {WHY}"),
        retry: "Retry",
    }
}

/// The words for the policy exporters' module, in the export panel's place: its button is in
/// the first load (the Tuner and the Chat's policy panel show it), the panel's code is not.
pub fn exporters_view() -> ModuleView {
    ModuleView {
        slug: "export",
        loading: "Loading the exporters…".to_owned(),
        failed: format!("The exporters could not be loaded: {WHY}"),
        retry: "Retry",
    }
}

/// Why a module may be missing, and that nothing was lost.
const WHY: &str = "this part of the app is fetched the first time it opens, and the network did \
                   not answer. Nothing is lost; try again once you are online.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_on_demand_tab_names_itself_while_loading_and_says_what_failed_and_that_nothing_is_lost()
    {
        for tab in ON_DEMAND {
            let view = module_view(tab);
            assert_eq!(view.slug, tab.slug());
            assert_eq!(view.loading, format!("Loading {}…", tab.label()));
            assert!(view.failed.starts_with(tab.label()), "{}", view.failed);
            assert!(view.failed.contains("Nothing is lost"), "{}", view.failed);
            assert_eq!(view.retry, "Retry");
        }
    }

    #[test]
    fn the_exporters_say_what_loads_and_what_failed_in_the_panels_place() {
        let view = exporters_view();
        assert_eq!(view.slug, "export");
        assert_eq!(view.loading, "Loading the exporters…");
        assert_eq!(
            view.failed,
            "The exporters could not be loaded: this part of the app is fetched the first time \
             it opens, and the network did not answer. Nothing is lost; try again once you are \
             online."
        );
        assert!(!ON_DEMAND.iter().any(|t| t.slug() == view.slug));
    }

    #[test]
    fn the_lesson_s_tabs_are_in_the_first_load() {
        for tab in [Tab::Chat, Tab::Editions, Tab::Tuner] {
            assert!(!is_on_demand(tab), "{tab:?}");
        }
        assert!(is_on_demand(Tab::Inspect));
        assert_eq!(
            Tab::ALL.iter().filter(|t| is_on_demand(**t)).count(),
            ON_DEMAND.len()
        );
    }
}
