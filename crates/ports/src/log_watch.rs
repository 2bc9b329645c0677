//! Watching a driver's log (its stderr) for text that must never appear there: SPEC §8 treats
//! a part's base64 like a header value, used and never logged. The bytes are searched as they
//! pass, before any redaction or cut, so a needle is found anywhere in the stream, however
//! long the line, while only the needles and one needle's length of carry are kept.

/// The needles of one scenario and whether each has been seen.
#[derive(Default)]
pub struct LogWatch {
    needles: Vec<(Vec<u8>, bool)>,
    /// The end of what passed, one byte shorter than the longest needle: a needle straddling
    /// two reads is still found.
    carry: Vec<u8>,
    /// Every byte fed so far (watched or not), so a reader can tell when the log settled.
    fed: u64,
}

impl LogWatch {
    /// Watches for `needle` from now on (an empty needle is ignored).
    pub fn watch(&mut self, needle: &str) {
        if !needle.is_empty() && !self.needles.iter().any(|(n, _)| n == needle.as_bytes()) {
            self.needles.push((needle.as_bytes().to_vec(), false));
        }
    }

    /// Forgets every needle (a new scenario).
    pub fn clear(&mut self) {
        self.needles.clear();
        self.carry.clear();
    }

    /// Searches the next bytes of the log.
    pub fn feed(&mut self, bytes: &[u8]) {
        self.fed += bytes.len() as u64;
        let longest = self.needles.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        if longest == 0 {
            return;
        }
        let mut window = std::mem::take(&mut self.carry);
        window.extend_from_slice(bytes);
        for (needle, seen) in &mut self.needles {
            if !*seen && window.windows(needle.len()).any(|w| w == needle.as_slice()) {
                *seen = true;
            }
        }
        let keep = (longest - 1).min(window.len());
        self.carry = window.split_off(window.len() - keep);
    }

    /// Whether `needle` appeared since it was watched; `None` when it is not watched.
    pub fn seen(&self, needle: &str) -> Option<bool> {
        self.needles
            .iter()
            .find(|(n, _)| n == needle.as_bytes())
            .map(|(_, seen)| *seen)
    }

    /// How many bytes of log have passed in all.
    pub fn fed(&self) -> u64 {
        self.fed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_needle_is_found_inside_one_read_and_across_reads() {
        let mut w = LogWatch::default();
        w.watch("Q0FOQVJZ");
        w.feed(b"warning: part {type, mimeType, bytes}\n");
        assert_eq!(w.seen("Q0FOQVJZ"), Some(false));
        w.feed(b"leaked Q0FO");
        assert_eq!(w.seen("Q0FOQVJZ"), Some(false));
        w.feed(b"QVJZ rest\n");
        assert_eq!(w.seen("Q0FOQVJZ"), Some(true));
        assert_eq!(w.seen("other"), None);
    }

    #[test]
    fn a_byte_at_a_time_still_finds_it_and_clear_forgets() {
        let mut w = LogWatch::default();
        w.watch("abc");
        for b in b"xxabxabcx" {
            w.feed(&[*b]);
        }
        assert_eq!(w.seen("abc"), Some(true));
        assert_eq!(w.fed(), 9);
        w.clear();
        w.watch("abc");
        w.feed(b"ab");
        w.feed(b"xc");
        assert_eq!(w.seen("abc"), Some(false));
    }
}
