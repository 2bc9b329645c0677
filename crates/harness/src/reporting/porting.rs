//! Renders `porting`'s map ([`crate::run::porting::PortingMap`]) as text; its JSON is the map
//! serialised.

use std::fmt::Write;

use crate::run::porting::{Count, PortingMap, Step};

/// The widest a line of counts grows before it wraps.
const WIDTH: usize = 100;

/// The map as text: the commands every session sends, then per section its counts and order,
/// then the order across the selection.
pub fn text(map: &PortingMap) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "every session: {} (not counted below). After a scenario's steps the harness also\n\
         sends `close` for its toolkit and `agent_close_runtime` for its agent runtime and\n\
         ignores the answers: they count only where a step sends them. `build.builtins`\n\
         counts builds with the builtin tools on (the option absent, or not false).",
        map.always.join(", ")
    );
    for s in &map.sections {
        let title = s.title.map_or(String::new(), |t| format!(" {t}"));
        let _ = writeln!(out, "\n§{}{title}: {} scenarios", s.section, s.scenarios);
        if !s.left_out.is_empty() {
            let _ = writeln!(
                out,
                "  left out of the counts and the order, {} (not passed on the reference, so \
                 maybe not every request sent):",
                s.left_out.len()
            );
            for l in &s.left_out {
                let _ = writeln!(out, "    {} ({})", l.id, l.why);
            }
        }
        if s.need_nothing > 0 {
            let _ = writeln!(
                out,
                "  {} need nothing beyond hello and shutdown",
                s.need_nothing
            );
        }
        counts(&mut out, "commands", &s.commands);
        counts(&mut out, "options", &s.options);
        counts(&mut out, "behaviours", &s.behaviours);
        order(&mut out, &s.order, s.scenarios - s.left_out.len());
    }
    if let Some(all) = &map.order {
        let left_out: usize = map.sections.iter().map(|s| s.left_out.len()).sum();
        let _ = writeln!(
            out,
            "\nall {} selected sections ({} scenarios):",
            map.sections.len(),
            map.scenarios
        );
        order(&mut out, all, map.scenarios - left_out);
    }
    out
}

/// `  commands (…): build 24, tools 12, …`; nothing when empty.
fn counts(out: &mut String, heading: &str, list: &[Count]) {
    if list.is_empty() {
        return;
    }
    let items: Vec<String> = list
        .iter()
        .map(|c| format!("{} {}", c.need, c.scenarios))
        .collect();
    let head = format!("  {heading} (scenarios using each): ");
    wrapped(out, &head, "    ", &items, "");
}

/// `head`, then `items` joined by `, ` and `tail`, wrapped at [`WIDTH`] (an item is never
/// split), each further line starting with `indent`.
fn wrapped(out: &mut String, head: &str, indent: &str, items: &[String], tail: &str) {
    let mut line = head.to_string();
    let mut fresh = true;
    for (i, item) in items.iter().enumerate() {
        let sep = if i + 1 < items.len() { "," } else { tail };
        let piece = format!("{}{item}{sep}", if fresh { "" } else { " " });
        if !fresh && line.chars().count() + piece.chars().count() > WIDTH {
            let _ = writeln!(out, "{line}");
            line = indent.to_string();
            line.push_str(piece.trim_start());
        } else {
            line.push_str(&piece);
        }
        fresh = false;
    }
    let _ = writeln!(out, "{line}");
}

/// The numbered steps: what to implement, how many it unlocks, the running total of `of`.
fn order(out: &mut String, steps: &[Step], of: usize) {
    if steps.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "  order (implement; scenarios it unlocks; unlocked so far):"
    );
    let width = steps.len().to_string().len();
    let indent = " ".repeat(width + 6);
    for (i, step) in steps.iter().enumerate() {
        let head = format!("  {:>width$}. ", i + 1);
        let tail = format!("  +{}  {}/{of}", step.unlocks, step.unlocked);
        wrapped(out, &head, &indent, &step.implement, &tail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::outcome::needs::Need;
    use crate::run::porting::ScenarioNeeds;
    use toolnexus_protocol::Command;

    #[test]
    fn each_section_shows_its_counts_and_numbered_order() {
        let needs = |list: &[Need]| list.iter().cloned().collect();
        let build = Need::command(Command::Build);
        let sanitize = Need::command(Command::Sanitize);
        let map = PortingMap::of(&[
            ScenarioNeeds {
                id: "a".into(),
                section: "0".into(),
                left_out: None,
                needs: needs(&[sanitize]),
            },
            ScenarioNeeds {
                id: "b".into(),
                section: "1".into(),
                left_out: None,
                needs: needs(&[build.clone(), Need::option(Command::Build, "builtins")]),
            },
            ScenarioNeeds {
                id: "c".into(),
                section: "1".into(),
                left_out: Some("failed: the answer broke a rule".into()),
                needs: needs(&[build]),
            },
        ]);
        let text = text(&map);
        assert!(text.starts_with("every session: hello, shutdown"), "{text}");
        assert!(text.contains("\n§1 Core types: 2 scenarios\n"), "{text}");
        assert!(
            text.contains("  left out of the counts and the order, 1 (not passed on the reference, so maybe not every request sent):\n    c (failed: the answer broke a rule)\n"),
            "{text}"
        );
        assert!(
            text.contains("  commands (scenarios using each): build 1\n"),
            "{text}"
        );
        assert!(
            text.contains("  options (scenarios using each): build.builtins 1\n"),
            "{text}"
        );
        assert!(
            text.contains("  1. build, build.builtins  +1  1/1\n"),
            "{text}"
        );
        assert!(
            text.contains("\nall 2 selected sections (3 scenarios):"),
            "{text}"
        );
        // Across sections, one need for one scenario comes before two for one.
        assert!(
            text.ends_with("  1. sanitize  +1  1/2\n  2. build, build.builtins  +1  2/2\n"),
            "{text}"
        );
    }

    #[test]
    fn long_lists_wrap_between_items_under_the_width() {
        let items: Vec<String> = (0..30).map(|i| format!("build.option{i}")).collect();
        let mut out = String::new();
        wrapped(&mut out, "  1. ", "      ", &items, "  +3  3/9");
        let lines: Vec<&str> = out.lines().collect();
        assert!(lines.len() > 3, "{out}");
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH), "{out}");
        assert!(
            lines[1..]
                .iter()
                .all(|l| l.starts_with("      build.option")),
            "{out}"
        );
        assert!(out.ends_with("build.option29  +3  3/9\n"), "{out}");
        let joined: String = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        assert_eq!(joined, format!("1. {}  +3  3/9", items.join(", ")));
    }
}
