// Tests of the protocol loop (PROTOCOL.md §2–§4) and its helpers, in memory and through a real
// child process. Expected answers are written from PROTOCOL.md, not copied from the kit's output.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { Kit, KitError, HandleTable, parseJson, compactJson, cloneJson, keysInOrder } from "../index.mjs";

const FIXTURE = fileURLToPath(new URL("../testdata/fixture-driver.mjs", import.meta.url));
const STARTER = fileURLToPath(new URL("../../../ports/starter-ts/driver.mjs", import.meta.url));

/** A kit with the starter's command set (§0, §1, §4) and a handler that answers its input. */
function starterLike({ adapter = true } = {}) {
  const kit = new Kit({ port: { name: "t", language: "javascript", version: "0" }, spec: "0.16.0", implements: ["0", "1", "4"] });
  for (const cmd of ["build", "tools", "execute", "sanitize", "close"]) kit.handle(cmd, () => ({}));
  if (adapter) kit.handle("adapter", () => ({ output: [] }));
  kit.handle("length", (req) => ({ length: req.value.length, value: req.value.length < 100 ? req.value : undefined }));
  return kit;
}

/** Feed `chunks` to `kit.serve` and parse each answer line. */
async function serve(kit, chunks) {
  const out = [];
  async function* input() {
    for (const c of chunks) yield typeof c === "string" ? Buffer.from(c) : c;
  }
  const end = await kit.serve(input(), (line) => {
    assert.ok(line.endsWith("\n") && !line.slice(0, -1).includes("\n"), "one line per answer");
    out.push(JSON.parse(line));
  });
  return { answers: out, end };
}

/** Run the fixture driver (or another script) with `input` on stdin, closing it after. */
async function run(script, input) {
  const child = spawn(process.execPath, [script], { stdio: ["pipe", "pipe", "pipe"] });
  const out = [];
  const err = [];
  child.stdout.on("data", (d) => out.push(d));
  child.stderr.on("data", (d) => err.push(d));
  child.stdin.on("error", () => {}); // a driver that stopped reading after shutdown
  const exited = once(child, "exit");
  const closed = once(child, "close"); // both listened for now: "close" can follow "exit" at once
  child.stdin.end(input);
  const [code, signal] = await exited;
  await closed;
  return { code, signal, stdout: Buffer.concat(out).toString("utf8"), stderr: Buffer.concat(err).toString("utf8") };
}

const answersOf = (stdout) => stdout.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));

test("a request split across chunks, even inside a UTF-8 character, is one request", async () => {
  const bytes = Buffer.from('{"cmd":"length","value":"héllo","seq":3}\n{"cmd":"hello","protocol":1,"seq":4}\n');
  const cut = bytes.indexOf(Buffer.from("é")) + 1; // between the two bytes of é
  const { answers } = await serve(starterLike(), [bytes.subarray(0, 5), bytes.subarray(5, cut), bytes.subarray(cut, 50), bytes.subarray(50)]);
  assert.deepEqual(answers[0], { ok: true, length: 5, value: "héllo", seq: 3 });
  assert.equal(answers[1].seq, 4);
  assert.equal(answers.length, 2);
});

test("a last line without its newline is still answered at EOF", async () => {
  const { answers, end } = await serve(starterLike(), ['{"cmd":"hello","protocol":1,"seq":0}']);
  assert.equal(answers.length, 1);
  assert.equal(end, "eof");
});

test("a line of 6 MiB arrives whole, in memory and through a pipe", async () => {
  const value = "x".repeat(6 * 1024 * 1024);
  const line = Buffer.from(JSON.stringify({ cmd: "length", value, seq: 1 }) + "\n");
  const chunks = [];
  for (let i = 0; i < line.length; i += 65536) chunks.push(line.subarray(i, i + 65536));
  const { answers } = await serve(starterLike(), chunks);
  assert.deepEqual(answers, [{ ok: true, length: value.length, seq: 1 }]);

  const r = await run(FIXTURE, line);
  assert.equal(r.code, 0);
  assert.deepEqual(answersOf(r.stdout), [{ ok: true, length: value.length, seq: 1 }]);
});

test("bad UTF-8 is a bad_request without seq, and the driver goes on reading", async () => {
  const input = Buffer.concat([Buffer.from('{"cmd":"hello","seq":1,"x":"'), Buffer.from([0xff, 0xfe]), Buffer.from('"}\n{"cmd":"hello","protocol":1,"seq":2}\n')]);
  const r = await run(FIXTURE, input);
  assert.equal(r.code, 0, r.stderr);
  const [bad, hello] = answersOf(r.stdout);
  assert.equal(bad.ok, false);
  assert.equal(bad.error.kind, "bad_request");
  assert.match(bad.error.message, /UTF-8/);
  assert.ok(!("seq" in bad), "an unreadable line has no seq to copy (§2)");
  assert.equal(hello.ok, true);
  assert.equal(hello.seq, 2);
});

test("a line that is not JSON, or not an object, is a bad_request without seq", async () => {
  const { answers } = await serve(starterLike(), ["{nope\n", '[{"seq":1}]\n', '"seq"\n']);
  assert.equal(answers.length, 3);
  for (const a of answers) {
    assert.equal(a.ok, false);
    assert.equal(a.error.kind, "bad_request");
    assert.ok(!("seq" in a));
  }
  assert.match(answers[0].error.message, /^request is not JSON: /);
});

test("blank lines are ignored, never answered", async () => {
  const { answers } = await serve(starterLike(), ["\n", "   \r\n\t\n", '{"cmd":"hello","protocol":1,"seq":9}\n', "\n"]);
  assert.equal(answers.length, 1);
  assert.equal(answers[0].seq, 9);
});

test("an unregistered command answers unsupported with PROTOCOL.md §4's wording, seq copied", async () => {
  // §4: > {"cmd":"transmogrify","toolkit":"tk1"}
  //     < {"ok":false,"error":{"kind":"unsupported","message":"unknown command \"transmogrify\""}}
  const { answers } = await serve(starterLike(), ['{"cmd":"transmogrify","toolkit":"tk1","seq":5}\n']);
  assert.deepEqual(answers, [{ ok: false, error: { kind: "unsupported", message: 'unknown command "transmogrify"' }, seq: 5 }]);
});

test("hello lists the declared sections whose commands are all registered", async () => {
  const { answers } = await serve(starterLike(), ['{"cmd":"hello","protocol":1,"seq":0}\n', '{"cmd":"hello","protocol":1,"seq":1}\n']);
  assert.deepEqual(answers[0], {
    ok: true, seq: 0, protocol: 1, spec: "0.16.0", implements: ["0", "1", "4"],
    port: { name: "t", language: "javascript", version: "0" },
  });
  assert.deepEqual({ ...answers[1], seq: 0 }, answers[0], "a repeated hello is answered the same way (§3)");
  // adapter, sanitize and close are per scenario, not CORE: §4 is still listed without adapter.
  assert.deepEqual(starterLike({ adapter: false }).implemented(), ["0", "1", "4"]);
});

test("hello lists a declared section only when its CORE commands are all registered", () => {
  const kit = new Kit({ port: { name: "t", language: "javascript", version: "0" },
    implements: ["0", "4", "7B", "7C", "7D", "7F", "8", "8B", "11", "99"] });
  assert.deepEqual(kit.implemented(), ["99"], "nothing registered: only the section outside the table");
  for (const cmd of ["build", "tools"]) kit.handle(cmd, () => ({}));
  assert.deepEqual(kit.implemented(), ["99"], "execute is CORE for §0 and §4");
  kit.handle("execute", () => ({}));
  assert.deepEqual(kit.implemented(), ["0", "4", "99"]);
  kit.handle("serve", () => ({})).handle("serve_stop", () => ({}));
  assert.deepEqual(kit.implemented(), ["0", "4", "7C", "99"], "§7B needs client too");
  kit.handle("client", () => ({}));
  assert.deepEqual(kit.implemented(), ["0", "4", "7B", "7C", "99"], "§8 needs run too");
  kit.handle("run", () => ({})).handle("agent_runtime", () => ({})).handle("compact", () => ({}));
  assert.deepEqual(kit.implemented(), ["0", "4", "7B", "7C", "7F", "8", "99"], "§7D needs agent_close_runtime");
  kit.handle("agent_close_runtime", () => ({})).handle("classifier", () => ({})).handle("evaluate", () => ({})).handle("translate", () => ({}));
  assert.deepEqual(kit.implemented(), ["0", "4", "7B", "7C", "7D", "7F", "8", "8B", "11", "99"]);
});

test("shutdown closes, answers, and stops reading", async () => {
  const kit = starterLike();
  let closes = 0;
  kit.onClose(() => closes++);
  const { answers, end } = await serve(kit, ['{"cmd":"shutdown","seq":7}\n{"cmd":"hello","protocol":1,"seq":8}\n']);
  assert.deepEqual(answers, [{ ok: true, seq: 7 }]);
  assert.equal(end, "shutdown");
  assert.equal(closes, 1);
  await kit.close();
  assert.equal(closes, 1, "onClose hooks run once");
});

test("shutdown through a real process: exit 0, one answer, onClose ran", async () => {
  const r = await run(FIXTURE, '{"cmd":"hello","protocol":1,"seq":0}\n{"cmd":"shutdown","seq":1}\n{"cmd":"hello","protocol":1,"seq":2}\n');
  assert.equal(r.code, 0);
  assert.deepEqual(answersOf(r.stdout).map((a) => a.seq), [0, 1]);
  assert.match(r.stderr, /onClose ran/);
});

test("EOF on stdin ends the driver with exit 0 after onClose", async () => {
  const r = await run(FIXTURE, '{"cmd":"hello","protocol":1,"seq":0}\n');
  assert.equal(r.code, 0);
  assert.match(r.stderr, /onClose ran/);
});

for (const sig of ["SIGTERM", "SIGINT"]) {
  test(`${sig} ends the driver with exit 0 after onClose`, async () => {
    const child = spawn(process.execPath, [FIXTURE], { stdio: ["pipe", "pipe", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    child.stdin.write('{"cmd":"hello","protocol":1,"seq":0}\n');
    await once(child.stdout, "data"); // the answer: the loop (and its signal handlers) is up
    const closed = once(child, "close");
    child.kill(sig);
    const [code] = await closed;
    assert.equal(code, 0);
    assert.match(stderr, /onClose ran/);
  });
}

test("console.log and stray stdout writes of a handler go to stderr", async () => {
  const r = await run(FIXTURE, '{"cmd":"say","value":"hi","seq":1}\n');
  assert.deepEqual(answersOf(r.stdout), [{ ok: true, value: "hi", seq: 1 }]);
  assert.match(r.stderr, /console\.log from a handler: hi/);
  assert.match(r.stderr, /a stray stdout write/);
});

test("error envelopes: KitError keeps its kind, a throw is internal, a missing cmd is bad_request; seq copied", async () => {
  const kit = starterLike();
  const tables = new HandleTable("toolkit");
  kit.handle("refuse", (req) => tables.get(req.toolkit));
  kit.handle("break", async () => { throw new RangeError("oops"); });
  kit.handle("scalar", () => 3);
  const { answers } = await serve(kit, ['{"cmd":"refuse","toolkit":"tk9","seq":1}\n{"cmd":"break","seq":2}\n{"seq":3}\n{"cmd":"scalar","seq":4}\n']);
  // §4: < {"ok":false,"error":{"kind":"unknown_toolkit","message":"no toolkit \"tk9\""}}
  assert.deepEqual(answers[0], { ok: false, error: { kind: "unknown_toolkit", message: 'no toolkit "tk9"' }, seq: 1 });
  assert.deepEqual(answers[1], { ok: false, error: { kind: "internal", message: "RangeError: oops" }, seq: 2 });
  assert.equal(answers[2].error.kind, "bad_request");
  assert.equal(answers[2].seq, 3);
  assert.equal(answers[3].error.kind, "internal");
  assert.throws(() => new KitError("nope", "x"), TypeError);
});

test("requests are handled one at a time, in order, async handlers awaited", async () => {
  const kit = starterLike();
  const log = [];
  kit.handle("slow", async (req) => {
    log.push(`start ${req.seq}`);
    await new Promise((r) => setImmediate(r));
    log.push(`end ${req.seq}`);
    return {};
  });
  await serve(kit, ['{"cmd":"slow","seq":1}\n{"cmd":"slow","seq":2}\n']);
  assert.deepEqual(log, ["start 1", "end 1", "start 2", "end 2"]);
});

test("the handle table: unknown ids are unknown_toolkit, take is idempotent, clear closes each", async () => {
  const t = new HandleTable("toolkit");
  t.put("tk1", "a");
  assert.equal(t.put("tk1", "b"), "a");
  assert.equal(t.get("tk1"), "b");
  assert.throws(() => t.get("tk9"), (e) => e instanceof KitError && e.kind === "unknown_toolkit" && e.message === 'no toolkit "tk9"');
  assert.equal(t.take("tk1"), "b");
  assert.equal(t.take("tk1"), undefined);
  t.put("a", 1);
  t.put("b", 2);
  const closed = [];
  await t.clear((v, id) => closed.push(`${id}=${v}`));
  assert.deepEqual(closed, ["a=1", "b=2"]);
  assert.equal(t.size, 0);
});

test("order-keeping JSON: integer-like keys stay where received, non-ASCII as itself", () => {
  const text = '{"b":1,"2":[true,null,-1.5e3],"a":{"10":"é\\"\\\\","1":{}},"":"\\u00e9","__proto__":{"x":1}}';
  const v = parseJson(text);
  assert.deepEqual(v, JSON.parse(text), "the same values as JSON.parse");
  assert.equal(Object.getPrototypeOf(v), Object.prototype, "a __proto__ key is an own key, as with JSON.parse");
  assert.equal(compactJson(v), '{"b":1,"2":[true,null,-1500],"a":{"10":"é\\"\\\\","1":{}},"":"é","__proto__":{"x":1}}');
  assert.equal(JSON.stringify(JSON.parse('{"b":1,"2":2}')), '{"2":2,"b":1}', "why the kit has its own parser");
  assert.equal(compactJson(cloneJson(v)), compactJson(v), "a copy keeps the order");
  const o = parseJson('{"b":1,"2":2,"a":3}');
  delete o.b;
  o.z = 4;
  assert.deepEqual(keysInOrder(o), ["2", "a", "z"], "deleted keys gone, added keys last");
  assert.equal(compactJson({ u: undefined, f: () => 1, n: [undefined] }), '{"n":[null]}', "as JSON.stringify leaves them");
  assert.equal(parseJson('{"a":1,"a":2}').a, 2, "a repeated key: the last wins");
  assert.throws(() => parseJson('{"a":1} x'), SyntaxError);
  assert.throws(() => parseJson('{"a":}'), SyntaxError);
  assert.throws(() => parseJson("[1,]"), SyntaxError);
});

test("the starter's echo keeps the key order of the request's args (PROTOCOL.md §7)", async () => {
  const r = await run(STARTER, [
    '{"cmd":"build","id":"tk1","options":{"builtins":false,"extraTools":[{"name":"e","behaviour":{"echo":true}}]},"seq":1}',
    '{"cmd":"execute","toolkit":"tk1","name":"e","args":{"b":1,"2":"é","a":{"10":0,"1":0}},"seq":2}',
    "",
  ].join("\n"));
  assert.equal(r.code, 0, r.stderr);
  const answers = answersOf(r.stdout);
  assert.deepEqual(answers[1], { ok: true, result: { output: '{"b":1,"2":"é","a":{"10":0,"1":0}}', isError: false }, seq: 2 });
});
