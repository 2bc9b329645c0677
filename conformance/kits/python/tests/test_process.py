"""The loop as a real child process: framing (a split line, a huge line, bad UTF-8), the stdout
guard, shutdown, EOF and SIGTERM. No timing: every step waits for an answer or the exit."""
import json
import os
import queue
import signal
import subprocess
import sys
import threading

# Only a guard against a hang (a broken loop that never answers): nothing is timed.
HANG = 120

FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixture_driver.py")


def start():
    p = subprocess.Popen([sys.executable, FIXTURE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE)
    p.lines = queue.Queue()  # the answer lines, read by a thread so a hang cannot block the test

    def pump():
        for line in iter(p.stdout.readline, b""):
            p.lines.put(line)
        p.lines.put(b"")
    p.pump = threading.Thread(target=pump, daemon=True)
    p.pump.start()
    return p


def send(p, data):
    p.stdin.write(data)
    p.stdin.flush()


def read(p):
    try:
        return json.loads(p.lines.get(timeout=HANG))
    except queue.Empty:
        p.kill()
        raise AssertionError(f"no answer in {HANG} s") from None


def finish(p):
    if not p.stdin.closed:
        p.stdin.close()
    try:
        p.wait(timeout=HANG)
    except subprocess.TimeoutExpired:
        p.kill()
        raise
    p.pump.join()
    out = b"".join(iter(p.lines.get_nowait, b""))
    return p.returncode, out, p.stderr.read().decode("utf-8", "replace")


def test_a_line_split_across_writes_even_inside_a_character_is_one_request():
    p = start()
    line = '{"cmd":"echo_line","text":"é€","seq":1}\n'.encode("utf-8")
    cut = line.index("€".encode("utf-8")) + 1  # inside the three bytes of €
    send(p, line[:cut])
    send(p, line[cut:])
    assert read(p) == {"ok": True, "text": "é€", "length": 2, "seq": 1}
    assert finish(p)[0] == 0


def test_a_huge_line():
    p = start()
    text = "x" * (8 * 1024 * 1024)
    send(p, json.dumps({"cmd": "echo_line", "text": text, "seq": 2}).encode() + b"\n")
    resp = read(p)
    assert resp["length"] == len(text) and resp["seq"] == 2
    assert finish(p)[0] == 0


def test_bad_utf8_then_reading_goes_on():
    p = start()
    send(p, b'{"cmd":"echo_line","text":"\xff\xfe","seq":3}\n{"cmd":"echo_line","text":"ok","seq":4}\n')
    bad = read(p)
    assert bad["ok"] is False and bad["error"]["kind"] == "bad_request" and "seq" not in bad
    assert read(p)["seq"] == 4
    assert finish(p)[0] == 0


def test_stray_output_goes_to_stderr():
    p = start()
    send(p, b'{"cmd":"stray","seq":1}\n{"cmd":"shutdown","seq":2}\n')
    code, out, err = finish(p)
    assert code == 0
    assert [json.loads(x) for x in out.splitlines()] == [{"ok": True, "done": True, "seq": 1}, {"ok": True, "seq": 2}]
    assert "a stray print" in err and "a stray write to fd 1" in err


def test_shutdown_answers_closes_once_exits_0_and_reads_no_further():
    p = start()
    send(p, b'{"cmd":"shutdown","seq":1}\n{"cmd":"echo_line","text":"late","seq":2}\n')
    code, out, err = finish(p)
    assert code == 0 and out == b'{"ok":true,"seq":1}\n' and err.count("closed") == 1


def test_eof_closes_once_and_exits_0():
    p = start()
    send(p, b'{"cmd":"hello","protocol":1,"seq":0}\n')
    assert read(p)["implements"] == []  # "0" needs build, tools and execute
    code, _, err = finish(p)
    assert code == 0 and err.count("closed") == 1


def test_sigterm_and_sigint_close_once_and_exit_0():
    for sig in (signal.SIGTERM, signal.SIGINT):
        p = start()
        send(p, b'{"cmd":"hello","seq":0}\n')
        read(p)  # the loop is running
        p.send_signal(sig)
        code, _, err = finish(p)
        assert code == 0 and err.count("closed") == 1, (sig, code, err)
