//! The command-line reference: every visible subcommand and flag, from the clap definitions
//! (the same text `--help` prints), with each command's exit codes.

use std::fmt::Write as _;

use super::GENERATED_NOTE;
use super::markdown::{code, prose, table};

fn styled(s: &clap::builder::StyledStr) -> String {
    s.to_string()
}

/// Is the argument one to document: not hidden, not clap's own `--help` / `--version`?
fn shown(a: &clap::Arg) -> bool {
    !a.is_hide_set()
        && !matches!(
            a.get_action(),
            clap::ArgAction::Help | clap::ArgAction::HelpShort | clap::ArgAction::HelpLong | clap::ArgAction::Version
        )
}

/// One argument's flags and value, as `--out <FILE>` or `<CODE>`.
fn spelling(a: &clap::Arg) -> String {
    let values: Vec<String> =
        a.get_value_names().map(|v| v.iter().map(|n| format!("<{n}>")).collect()).unwrap_or_default();
    let takes = a.get_num_args().is_some_and(|n| n.takes_values());
    let value = if takes && !values.is_empty() { format!(" {}", values.join(" ")) } else { String::new() };
    match (a.get_short(), a.get_long()) {
        (Some(s), Some(l)) => format!("-{s}, --{l}{value}"),
        (None, Some(l)) => format!("--{l}{value}"),
        (Some(s), None) => format!("-{s}{value}"),
        (None, None) => values.join(" "),
    }
}

fn arg_row(a: &clap::Arg) -> Vec<String> {
    let mut text = a.get_long_help().or_else(|| a.get_help()).map(styled).unwrap_or_default().replace('\n', " ");
    let defaults: Vec<String> = a.get_default_values().iter().map(|v| v.to_string_lossy().into_owned()).collect();
    if !defaults.is_empty() && a.get_num_args().is_some_and(|n| n.takes_values()) {
        let _ = write!(text, " Default: {}.", defaults.iter().map(|d| code(d)).collect::<Vec<_>>().join(", "));
    }
    let possible: Vec<String> =
        a.get_possible_values().iter().filter(|p| !p.is_hide_set()).map(|p| code(p.get_name())).collect();
    if !possible.is_empty() && a.get_num_args().is_some_and(|n| n.takes_values()) {
        let _ = write!(text, " Values: {}.", possible.join(", "));
    }
    if let Some(env) = a.get_env() {
        let _ = write!(text, " Environment: {}.", code(&env.to_string_lossy()));
    }
    if a.is_required_set() {
        text.push_str(" Required.");
    }
    vec![code(&spelling(a)), prose(text.trim())]
}

fn command(out: &mut String, cmd: &mut clap::Command, path: &str, depth: usize) {
    let usage = cmd.render_usage().to_string();
    let usage = usage.trim_start_matches("Usage:").trim();
    let _ = writeln!(out, "{} `{path}`\n", "#".repeat(depth));
    if let Some(about) = cmd.get_long_about().or_else(|| cmd.get_about()) {
        let _ = writeln!(out, "{}\n", prose(&styled(about)));
    }
    let _ = writeln!(out, "```\n{usage}\n```\n");
    let args: Vec<&clap::Arg> = cmd.get_arguments().filter(|a| shown(a)).collect();
    if !args.is_empty() {
        let rows: Vec<Vec<String>> = args.iter().map(|a| arg_row(a)).collect();
        out.push_str(&table(&["argument", "meaning"], &rows));
        out.push('\n');
    }
    if let Some(after) = cmd.get_after_long_help().or_else(|| cmd.get_after_help()) {
        let _ = writeln!(out, "```\n{}\n```\n", styled(after).trim_end());
    }
    subcommands(out, cmd, path, depth + 1);
}

/// The visible subcommands of `cmd`, each under a heading of `depth`.
fn subcommands(out: &mut String, cmd: &mut clap::Command, path: &str, depth: usize) {
    let names: Vec<String> = cmd
        .get_subcommands()
        .filter(|s| !s.is_hide_set() && s.get_name() != "help")
        .map(|s| s.get_name().to_owned())
        .collect();
    for name in names {
        if let Some(sub) = cmd.find_subcommand_mut(&name) {
            command(out, sub, &format!("{path} {name}"), depth);
        }
    }
}

/// The reference page of `cli` (bqsuite's top-level command).
pub fn page(cli: &clap::Command) -> String {
    let mut cmd = cli.clone().bin_name("bqsuite").term_width(100);
    cmd.build();
    let mut out = String::new();
    let _ = writeln!(out, "{GENERATED_NOTE}\n");
    let _ = writeln!(out, "# The `bqsuite` command line\n");
    let _ = writeln!(
        out,
        "Every subcommand and flag, as `bqsuite <command> --help` prints them. `--color auto|always|never` applies to every command. The finding codes are in [the code reference](codes.md); what each command does is in the manual pages linked from [the docs' map](README.md).\n"
    );
    let _ = writeln!(out, "```\n{}\n```\n", cmd.render_usage().to_string().trim_start_matches("Usage:").trim());
    if let Some(after) = cmd.get_after_help() {
        let _ = writeln!(out, "```\n{}\n```\n", styled(after).trim_end());
    }
    subcommands(&mut out, &mut cmd, "bqsuite", 2);
    out
}

/// The visible subcommands of bqsuite, leaves first-level and nested (`results check`), each
/// with its built command.
fn leaves(cli: &clap::Command) -> Vec<(String, clap::Command)> {
    let mut cmd = cli.clone().bin_name("bqsuite").term_width(100);
    cmd.build();
    let mut out = Vec::new();
    fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<(String, clap::Command)>) {
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
            let path = format!("{path} {}", sub.get_name()).trim().to_owned();
            if sub.has_subcommands() {
                walk(sub, &path, out);
            } else {
                out.push((path, sub.clone()));
            }
        }
    }
    walk(&cmd, "", &mut out);
    out
}

/// The `commands` region: every command and what it does (its one-line help), linked to its
/// entry in the command-line reference, for a page at `from`.
pub fn commands_table(from: &str, cli: &clap::Command) -> String {
    let link = super::markdown::relative(from, super::CLI_PAGE);
    let rows: Vec<Vec<String>> = leaves(cli)
        .iter()
        .map(|(path, c)| {
            let about = c.get_about().map(styled).unwrap_or_default();
            let anchor = super::markdown::slug(&format!("bqsuite {path}"));
            vec![format!("[`{path}`]({link}#{anchor})"), prose(&about)]
        })
        .collect();
    table(&["command", "what it does"], &rows)
}

/// The `synopsis` region: every command with every flag it takes, `[…]` when optional.
pub fn synopsis(cli: &clap::Command) -> String {
    let mut lines = Vec::new();
    for (path, c) in leaves(cli) {
        let mut words = vec![format!("bqsuite {path}")];
        // `--color` is global: the page says so once.
        for a in c.get_arguments().filter(|a| shown(a) && a.get_id() != "color") {
            let mut w = match (a.get_long(), a.get_short()) {
                (Some(l), _) => format!("--{l}"),
                (None, Some(s)) => format!("-{s}"),
                (None, None) => String::new(),
            };
            let takes = a.get_num_args().is_some_and(|n| n.takes_values());
            let names: Vec<String> =
                a.get_value_names().map(|v| v.iter().map(|n| n.to_string()).collect()).unwrap_or_default();
            let possible: Vec<String> =
                a.get_possible_values().iter().filter(|p| !p.is_hide_set()).map(|p| p.get_name().to_owned()).collect();
            if takes {
                let value = match (possible.len(), names.is_empty()) {
                    (1..=4, _) => possible.join("|"),
                    (_, true) => a.get_id().as_str().to_uppercase(),
                    (_, false) => names.join(" "),
                };
                w = if w.is_empty() { value } else { format!("{w} {value}") };
                if a.get_num_args().is_some_and(|n| n.max_values() > 1) {
                    w.push_str("...");
                }
            }
            words.push(if a.is_required_set() { w } else { format!("[{w}]") });
        }
        // Wrapped at 100 columns, continuation lines indented under the first flag.
        let indent = " ".repeat(words[0].len() + 1);
        let mut line = String::new();
        for w in words {
            if !line.is_empty() && line.len() + 1 + w.len() > 100 {
                lines.push(std::mem::take(&mut line));
                line.push_str(&indent);
                line.push_str(&w);
            } else {
                if !line.is_empty() && !line.ends_with(' ') {
                    line.push(' ');
                }
                line.push_str(&w);
            }
        }
        lines.push(line);
    }
    format!("```\n{}\n```\n", lines.join("\n"))
}
