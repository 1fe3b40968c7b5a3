//! The colour theme: light, dark, or whatever the system prefers. The stylesheet reads it from
//! `data-theme` on `<html>`; without the attribute it follows `prefers-color-scheme`.
//!
//! It lives in the app layer, below the shell, because two rooms of the shell need it: the store
//! (`store/theme.rs`) keeps its slug in localStorage, and the masthead's toggle
//! (`ui/widgets/theme_toggle.rs`) steps through it. The store is shell infrastructure that reads
//! app values, never the view models drawn from them.

/// The user's choice of colours.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Theme {
    /// Follow the system's light or dark preference.
    #[default]
    System,
    Light,
    Dark,
}

impl Theme {
    pub const ALL: [Theme; 3] = [Theme::System, Theme::Light, Theme::Dark];

    /// The stored value, and the `data-theme` value (none for the system's).
    pub fn slug(self) -> &'static str {
        match self {
            Theme::System => "system",
            Theme::Light => "light",
            Theme::Dark => "dark",
        }
    }

    /// Reads a stored value; anything unknown (or nothing) follows the system.
    pub fn parse(stored: Option<&str>) -> Theme {
        Theme::ALL
            .into_iter()
            .find(|t| Some(t.slug()) == stored.map(str::trim))
            .unwrap_or_default()
    }

    /// What `data-theme` on `<html>` should be; `None` removes it so the system decides.
    pub fn attribute(self) -> Option<&'static str> {
        match self {
            Theme::System => None,
            other => Some(other.slug()),
        }
    }

    /// The next choice when the toggle is pressed: system, light, dark, and round again.
    pub fn next(self) -> Theme {
        match self {
            Theme::System => Theme::Light,
            Theme::Light => Theme::Dark,
            Theme::Dark => Theme::System,
        }
    }

    /// The toggle's visible text, which is also its accessible name.
    pub fn label(self) -> &'static str {
        match self {
            Theme::System => "Theme: follow the system",
            Theme::Light => "Theme: light",
            Theme::Dark => "Theme: dark",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_toggle_cycles_through_all_three_and_round_trips_through_storage() {
        let mut seen = Vec::new();
        let mut theme = Theme::default();
        for _ in 0..3 {
            seen.push(theme);
            assert_eq!(Theme::parse(Some(theme.slug())), theme);
            theme = theme.next();
        }
        assert_eq!(theme, Theme::System);
        assert_eq!(seen, Theme::ALL);
        assert_eq!(Theme::parse(None), Theme::System);
        assert_eq!(Theme::parse(Some("sepia")), Theme::System);
        assert_eq!(Theme::Dark.attribute(), Some("dark"));
        assert_eq!(Theme::System.attribute(), None);
    }
}
