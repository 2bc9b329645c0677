// @ts-check
// Newline framing of PROTOCOL.md §2: bytes in, one Buffer per line out, whatever the chunking.

/**
 * Split a byte stream into lines (without their `\n`), awaiting the consumer between lines so
 * requests are handled one at a time. A last line without `\n` before EOF is still yielded.
 * A line is kept as its list of chunks until its end arrives, so a line of many MiB costs one
 * concatenation, not one per chunk.
 * @param {AsyncIterable<Buffer | Uint8Array | string>} input
 * @returns {AsyncGenerator<Buffer>}
 */
export async function* lines(input) {
  /** @type {Buffer[]} */
  let pending = [];
  for await (const raw of input) {
    const chunk = typeof raw === "string" ? Buffer.from(raw, "utf8") : Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    let start = 0;
    let nl;
    while ((nl = chunk.indexOf(10, start)) !== -1) {
      pending.push(chunk.subarray(start, nl));
      const line = pending.length === 1 ? pending[0] : Buffer.concat(pending);
      pending = [];
      start = nl + 1;
      yield line;
    }
    if (start < chunk.length) pending.push(chunk.subarray(start));
  }
  if (pending.length > 0) yield Buffer.concat(pending);
}

/** ASCII whitespace as Python's bytes.strip() sees it: a line of only these is blank (§2). */
const BLANK = new Set([0x20, 0x09, 0x0a, 0x0b, 0x0c, 0x0d]);

/**
 * Whether a line holds nothing but whitespace.
 * @param {Buffer} line
 */
export function isBlank(line) {
  for (const b of line) if (!BLANK.has(b)) return false;
  return true;
}

/** Strict UTF-8: a bad byte is an error, never a silent U+FFFD (§2: answered `bad_request`). */
const UTF8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/**
 * Decode one line as strict UTF-8.
 * @param {Buffer} line
 * @returns {string}
 */
export function decodeUtf8(line) {
  return UTF8.decode(line);
}
