//! Terminal colour: the styles bqsuite's human output uses, as `anstyle` values, and the one
//! function that applies them. Whether to colour at all is decided once, by the CLI, with
//! `anstream`'s reading of the conventions (`NO_COLOR` wins over `CLICOLOR_FORCE`, then
//! `CLICOLOR`, the terminal and `TERM`), and `--color always|never` overrides it.
//!
//! Invariant: with `color` false, [`paint`] returns the text unchanged, so uncoloured output
//! holds no escape sequence at all.

use anstyle::{AnsiColor, Style};

/// An error label.
pub const ERROR: Style = AnsiColor::Red.on_default().bold();
/// A warning label.
pub const WARNING: Style = AnsiColor::Yellow.on_default().bold();
/// A finding's code.
pub const EMPHASIS: Style = Style::new().bold();
/// The arrow before a location.
pub const LOCATION: Style = AnsiColor::Blue.on_default();
/// A clean verdict.
pub const CLEAN: Style = AnsiColor::Green.on_default().bold();
/// A good status word.
pub const GOOD: Style = AnsiColor::Green.on_default();
/// A status word that asks for attention.
pub const CAUTION: Style = AnsiColor::Yellow.on_default();
/// A bad status word.
pub const BAD: Style = AnsiColor::Red.on_default();

/// `text` in `style` when `color`, else `text` as it is.
pub fn paint(style: Style, text: &str, color: bool) -> String {
    if color { format!("{style}{text}{style:#}") } else { text.to_owned() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paint_wraps_in_the_style_or_leaves_the_text_alone() {
        assert_eq!(paint(CLEAN, "clean", false), "clean");
        let on = paint(CLEAN, "clean", true);
        assert!(on.starts_with('\x1b') && on.contains("clean") && on.ends_with("\x1b[0m"), "{on:?}");
    }
}
