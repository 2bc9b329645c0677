"""A tiny driver on the kit, run as a real child process by test_process.py."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import toolnexus_kit as kit  # noqa: E402

driver = kit.Kit(port={"name": "fixture", "language": "python", "version": "0"}, implements=["0"])


@driver.command("echo_line")
def echo_line(req):
    return {"text": req["text"], "length": len(req["text"])}


@driver.command("stray")
def stray(req):
    print("a stray print")  # must land on stderr, never on the wire
    os.write(1, b"a stray write to fd 1\n")
    return {"done": True}


driver.on_close(lambda: print("closed", file=sys.stderr, flush=True))

if __name__ == "__main__":
    driver.main()
