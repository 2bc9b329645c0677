package dev.toolnexus.conformance.kit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Splits a byte stream into {@code \n}-terminated lines (PROTOCOL.md §2), whatever the chunking
 * and with no length cap; a last line without {@code \n} is still a line. Bytes are kept as
 * bytes until {@link #decode}, so a split inside a UTF-8 character is harmless.
 */
public final class LineReader {
  private final InputStream in;
  private byte[] buf = new byte[64 * 1024];
  private int start;
  private int end;
  private int scanned; // buf[start, scanned) holds no '\n'
  private boolean eof;

  /** Reads lines from {@code in}. */
  public LineReader(InputStream in) {
    this.in = in;
  }

  /** The next line without its {@code \n}, or {@code null} at EOF. */
  public byte[] next() throws IOException {
    while (true) {
      for (int i = scanned; i < end; i++) {
        if (buf[i] == '\n') {
          byte[] line = Arrays.copyOfRange(buf, start, i);
          start = i + 1;
          scanned = start;
          return line;
        }
      }
      scanned = end;
      if (eof) {
        if (start == end) {
          return null;
        }
        byte[] line = Arrays.copyOfRange(buf, start, end);
        start = end;
        scanned = end;
        return line;
      }
      fill();
    }
  }

  private void fill() throws IOException {
    if (start > 0) { // move the partial line to the front before growing
      System.arraycopy(buf, start, buf, 0, end - start);
      end -= start;
      scanned -= start;
      start = 0;
    }
    if (end == buf.length) {
      buf = Arrays.copyOf(buf, buf.length * 2);
    }
    int n = in.read(buf, end, buf.length - end);
    if (n < 0) {
      eof = true;
    } else {
      end += n;
    }
  }

  /** Decodes a line as strict UTF-8: malformed bytes throw instead of becoming U+FFFD. */
  public static String decode(byte[] line) throws CharacterCodingException {
    return StandardCharsets.UTF_8.newDecoder()
        .onMalformedInput(CodingErrorAction.REPORT)
        .onUnmappableCharacter(CodingErrorAction.REPORT)
        .decode(ByteBuffer.wrap(line))
        .toString();
  }

  /** Whether a line holds only whitespace (ignored, §2). */
  public static boolean isBlank(byte[] line) {
    for (byte b : line) {
      if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
        return false;
      }
    }
    return true;
  }
}
