"""Line counts for STATUS.md: `python3 count_lines.py FILE…` prints, per file, all lines, code
lines (lines holding a token other than a comment, a newline or indentation: blank and
comment-only lines left out) and code lines without docstrings."""
import io, sys, tokenize

def count(path):
    src = open(path, encoding="utf-8").read()
    code, doc = set(), set()
    toks = list(tokenize.generate_tokens(io.StringIO(src).readline))
    for i, t in enumerate(toks):
        if t.type in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER):
            continue
        lines = range(t.start[0], t.end[0] + 1)
        code.update(lines)
        # A docstring: a string that is a whole statement.
        if t.type == tokenize.STRING:
            j = i - 1
            while j >= 0 and toks[j].type in (tokenize.NL, tokenize.COMMENT, tokenize.INDENT, tokenize.DEDENT):
                j -= 1
            k = i + 1
            while k < len(toks) and toks[k].type in (tokenize.COMMENT,):
                k += 1
            if (j < 0 or toks[j].type == tokenize.NEWLINE) and toks[k].type in (tokenize.NEWLINE, tokenize.ENDMARKER):
                doc.update(lines)
    total = src.count("\n")
    return total, len(code), len(code - doc)

rows = []
for p in sys.argv[1:]:
    rows.append((p,) + count(p))
for p, t, c, n in rows:
    print(f"{t:6d} {c:6d} {n:6d}  {p}")
if len(rows) > 1:
    print(f"{sum(r[1] for r in rows):6d} {sum(r[2] for r in rows):6d} {sum(r[3] for r in rows):6d}  total")
