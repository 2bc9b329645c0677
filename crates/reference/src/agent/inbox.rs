//! §7D's unsolicited rail: inbox items, their provenance, and the one coalesced block a
//! wake drains them into.

/// One unsolicited item: `{from: handle-path | "external" | "clock", channel, text}`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Item {
    /// Who sent it: a handle id, `"external"`, or `"clock"` (the handle's own timer).
    pub from: String,
    /// The channel it came on (`timer` ticks dedupe).
    pub channel: String,
    /// Its text.
    pub text: String,
}

/// The channel of timer ticks, which dedupe to one counted entry.
pub const TIMER: &str = "timer";

/// Whether `from` may speak to `receiver` outside the untrusted block: its own clock, or an
/// ancestor (a parent-prefixed id). Everyone else, `external` included, is untrusted.
fn trusted(from: &str, receiver: &str) -> bool {
    from == "clock"
        || from == receiver
        || receiver
            .strip_prefix(from)
            .is_some_and(|rest| rest.starts_with('/'))
}

/// The drained inbox as one context block: one numbered line per entry (`N. [from F via C]
/// text`), timer ticks merged into one `tick ×K` entry where the first one stood, and the
/// entries of untrusted senders inside `<untrusted>` … `</untrusted>`.
pub fn render(items: &[Item], receiver: &str) -> String {
    let mut entries: Vec<(Item, usize)> = Vec::new();
    for item in items {
        if item.channel == TIMER {
            if let Some(e) = entries.iter_mut().find(|(e, _)| e.channel == TIMER) {
                e.1 += 1;
                continue;
            }
        }
        entries.push((item.clone(), 1));
    }
    let mut out = format!("[inbox: {} item(s)]\n", entries.len());
    for (n, (item, count)) in entries.iter().enumerate() {
        let text = if *count > 1 {
            format!("{} ×{count}", item.text)
        } else {
            item.text.clone()
        };
        let line = format!(
            "{}. [from {} via {}] {}",
            n + 1,
            item.from,
            item.channel,
            text
        );
        if trusted(&item.from, receiver) {
            out.push_str(&line);
            out.push('\n');
        } else {
            out.push_str("<untrusted>\n");
            out.push_str(&line);
            out.push_str("\n</untrusted>\n");
        }
    }
    out
}

/// A turn's user text: the wake prompt, then the drained block.
pub fn turn_input(prompt: Option<&str>, items: &[Item], receiver: &str) -> String {
    match (prompt, items.is_empty()) {
        (Some(p), true) => p.to_string(),
        (Some(p), false) => format!("{p}\n\n{}", render(items, receiver)),
        (None, false) => render(items, receiver),
        (None, true) => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(from: &str, channel: &str, text: &str) -> Item {
        Item {
            from: from.into(),
            channel: channel.into(),
            text: text.into(),
        }
    }

    #[test]
    fn ticks_coalesce_and_strangers_are_untrusted() {
        let items = [
            item("root/coordinator.1", "peer", "update 1"),
            item("external", "external", "webhook payload"),
            item("clock", TIMER, "tick"),
            item("clock", TIMER, "tick"),
            item("root", "peer", "from above"),
        ];
        let text = render(&items, "root/peer.1");
        let numbered = text
            .lines()
            .filter(|l| {
                l.split_once(". ")
                    .is_some_and(|(n, _)| n.parse::<u32>().is_ok())
            })
            .count();
        assert_eq!(numbered, 4, "{text}");
        assert!(text.contains("3. [from clock via timer] tick ×2"), "{text}");
        assert!(
            text.contains("<untrusted>\n1. [from root/coordinator.1"),
            "{text}"
        );
        assert!(text.contains("<untrusted>\n2. [from external"), "{text}");
        assert!(text.contains("\n4. [from root via peer]"), "{text}");
    }
}
