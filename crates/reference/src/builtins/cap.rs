//! A bound on how much of an output a builtin keeps: the first and the last bytes, with a note
//! in between that says how many were left out.
//!
//! Without it `bash` kept everything a command wrote (`yes` under a 2 s timeout took 4.2 GB),
//! and `read` and `webfetch` returned whole files and pages however large. The head shows how
//! a run started, the tail how it ended (an error, a summary); the middle of a flood is what a
//! reader can best do without, and the note tells them to narrow the request to see it.

use std::collections::VecDeque;

/// Bytes kept from the start of an output.
pub(crate) const KEEP_HEAD: usize = 128 * 1024;

/// Bytes kept from the end of an output.
pub(crate) const KEEP_TAIL: usize = 128 * 1024;

/// An output sink that keeps at most `head + tail` bytes however much is pushed into it.
#[derive(Debug)]
pub(crate) struct Capped {
    head: Vec<u8>,
    tail: VecDeque<u8>,
    head_cap: usize,
    tail_cap: usize,
    total: u64,
}

impl Capped {
    /// The builtins' bound: [`KEEP_HEAD`] and [`KEEP_TAIL`].
    pub(crate) fn new() -> Self {
        Self::with_caps(KEEP_HEAD, KEEP_TAIL)
    }

    /// A sink keeping the first `head_cap` and the last `tail_cap` bytes.
    pub(crate) fn with_caps(head_cap: usize, tail_cap: usize) -> Self {
        Self {
            head: Vec::new(),
            tail: VecDeque::new(),
            head_cap,
            tail_cap,
            total: 0,
        }
    }

    /// Appends `bytes`, forgetting whatever falls between the head and the tail.
    pub(crate) fn push(&mut self, mut bytes: &[u8]) {
        self.total = self.total.saturating_add(bytes.len() as u64);
        let room = self.head_cap.saturating_sub(self.head.len());
        if room > 0 {
            let n = room.min(bytes.len());
            self.head.extend_from_slice(&bytes[..n]);
            bytes = &bytes[n..];
        }
        if self.tail_cap == 0 || bytes.is_empty() {
            return;
        }
        if bytes.len() >= self.tail_cap {
            self.tail.clear();
            self.tail
                .extend(bytes[bytes.len() - self.tail_cap..].iter().copied());
            return;
        }
        let excess = (self.tail.len() + bytes.len()).saturating_sub(self.tail_cap);
        self.tail.drain(..excess);
        self.tail.extend(bytes.iter().copied());
    }

    /// Every byte pushed, kept or not.
    #[cfg(test)]
    pub(crate) fn total(&self) -> u64 {
        self.total
    }

    /// The kept bytes as text (invalid UTF-8 replaced), with the note where bytes were cut
    /// out. The cut never splits a character: a sequence the cut would break is left out
    /// whole, and counted among the omitted bytes.
    pub(crate) fn into_text(self) -> String {
        let tail: Vec<u8> = self.tail.into_iter().collect();
        let kept = (self.head.len() + tail.len()) as u64;
        if kept == self.total {
            let mut all = self.head;
            all.extend_from_slice(&tail);
            return String::from_utf8_lossy(&all).into_owned();
        }
        let head = &self.head[..char_end(&self.head)];
        let tail = &tail[char_start(&tail)..];
        let omitted = self.total - (head.len() + tail.len()) as u64;
        format!(
            "{}\n\n[... {omitted} bytes of output omitted ({} bytes in all; the first {} and \
             the last {} are shown) ...]\n\n{}",
            String::from_utf8_lossy(head),
            self.total,
            head.len(),
            tail.len(),
            String::from_utf8_lossy(tail)
        )
    }
}

/// Where `bytes` ends once an incomplete UTF-8 sequence at its very end is dropped.
fn char_end(bytes: &[u8]) -> usize {
    match std::str::from_utf8(bytes) {
        Err(e) if e.error_len().is_none() => e.valid_up_to(),
        _ => bytes.len(),
    }
}

/// Where `bytes` starts once the continuation bytes of a character cut at its start are dropped.
fn char_start(bytes: &[u8]) -> usize {
    bytes
        .iter()
        .take(3)
        .take_while(|b| (**b & 0xC0) == 0x80)
        .count()
}

/// Caps a finished text the same way a stream is capped.
pub(crate) fn cap_text(text: String) -> String {
    if text.len() <= KEEP_HEAD + KEEP_TAIL {
        return text;
    }
    let mut sink = Capped::new();
    sink.push(text.as_bytes());
    sink.into_text()
}

/// A UTF-8 validator fed in pieces: a character split across two pieces is still valid.
#[derive(Debug, Default)]
pub(crate) struct Utf8Check {
    carry: Vec<u8>,
}

impl Utf8Check {
    /// Checks the next piece; false once the bytes so far cannot be UTF-8.
    pub(crate) fn feed(&mut self, mut data: &[u8]) -> bool {
        while !self.carry.is_empty() {
            let Some((first, rest)) = data.split_first() else {
                return true;
            };
            self.carry.push(*first);
            data = rest;
            match std::str::from_utf8(&self.carry) {
                Ok(_) => self.carry.clear(),
                Err(e) if e.error_len().is_some() => return false,
                Err(_) => {}
            }
        }
        match std::str::from_utf8(data) {
            Ok(_) => true,
            Err(e) if e.error_len().is_none() => {
                self.carry.extend_from_slice(&data[e.valid_up_to()..]);
                true
            }
            Err(_) => false,
        }
    }

    /// Whether the bytes fed so far end on a whole character.
    pub(crate) fn complete(&self) -> bool {
        self.carry.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_outputs_are_kept_whole() {
        let mut c = Capped::with_caps(4, 4);
        c.push(b"abc");
        c.push(b"defgh");
        assert_eq!(c.total(), 8);
        assert_eq!(c.into_text(), "abcdefgh");
    }

    #[test]
    fn large_outputs_keep_head_and_tail_with_a_note() {
        let mut c = Capped::with_caps(4, 3);
        for chunk in [&b"0123"[..], b"45", b"6789ab", b"c", b"de"] {
            c.push(chunk);
        }
        assert_eq!(c.total(), 15);
        assert_eq!(
            c.into_text(),
            "0123\n\n[... 8 bytes of output omitted (15 bytes in all; the first 4 and the last 3 \
             are shown) ...]\n\ncde"
        );
        let mut c = Capped::with_caps(2, 2);
        c.push(&[b'y'; 1000]);
        let text = c.into_text();
        assert!(text.starts_with("yy\n\n[... 996 bytes"), "{text}");
        assert!(text.ends_with("\n\nyy"), "{text}");
    }

    #[test]
    fn the_cut_never_splits_a_character() {
        // "é" is 2 bytes, "😀" 4: the head ends inside the first "é", the tail starts inside 😀.
        let mut c = Capped::with_caps(3, 3);
        c.push("aé".as_bytes());
        c.push("é-----😀".as_bytes());
        let text = c.into_text();
        assert!(text.starts_with("aé\n\n[... "), "{text}");
        assert!(text.ends_with("...]\n\n"), "{text}");
        assert!(!text.contains('\u{fffd}'), "{text}");
        assert!(text.contains("the first 3 and the last 0"), "{text}");
    }

    #[test]
    fn utf8_check_across_pieces() {
        let bytes = "hé😀\n".as_bytes();
        for split in 0..bytes.len() {
            let mut u = Utf8Check::default();
            assert!(
                u.feed(&bytes[..split]) && u.feed(&bytes[split..]),
                "{split}"
            );
            assert!(u.complete());
        }
        let mut u = Utf8Check::default();
        assert!(u.feed(&[0xC3]));
        assert!(!u.complete());
        assert!(!u.feed(b"\n"));
        assert!(!Utf8Check::default().feed(&[0xff]));
    }
}
