// The toolkit-side interpreters of PROTOCOL.md §7 (extra tools, HTTP tools, skillProvider,
// waitFor) against PROTOCOL.md's examples. Expected values are quoted from PROTOCOL.md.
import { test } from "node:test";
import assert from "node:assert/strict";
import { extraTool, skillProvider, waitFor, parseJson, Records, VirtualClock, KitError, Kit } from "../index.mjs";

/** A tool spec as the kit hands it to a driver: parsed from the request line. */
const spec = (json) => parseJson(json);
const kind = (k) => (e) => e instanceof KitError && e.kind === k;

test("echo: compact JSON, keys in the order received, non-ASCII as itself (§5.4 example)", async () => {
  const tool = extraTool(spec('{"name":"echo","description":"Echo the arguments.","behaviour":{"echo":true}}'));
  // > {"cmd":"execute","toolkit":"tk1","name":"echo","args":{"z":1,"a":"é","n":[true,null]}}
  const req = parseJson('{"cmd":"execute","toolkit":"tk1","name":"echo","args":{"z":1,"a":"é","n":[true,null]}}');
  assert.equal(await tool.execute(req.args), '{"z":1,"a":"é","n":[true,null]}');
  // §7: {"b":1,"2":2} must not echo as {"2":2,"b":1}
  assert.equal(await tool.execute(parseJson('{"b":1,"2":2}')), '{"b":1,"2":2}');
  assert.equal(await tool.execute(undefined), "{}", "absent args are {} (§5.4)");
});

test("an extra tool's defaults: description \"\", the empty object schema, source native (§5.2 example)", () => {
  const tool = extraTool(spec('{"name":"approve","behaviour":{"suspend":{"kind":"approval"}}}'));
  assert.equal(tool.type, "native");
  assert.deepEqual({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema, source: tool.source },
    { name: "approve", description: "", inputSchema: { type: "object", properties: {} }, source: "native" });
  const custom = extraTool(spec('{"name":"s","source":"custom","inputSchema":{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]},"behaviour":{"text":"no hits"}}'));
  assert.equal(custom.source, "custom");
  assert.deepEqual(custom.inputSchema, { type: "object", properties: { q: { type: "string" } }, required: ["q"] });
});

test("text and template (§7: {\"template\": \"data({{q}})\"} with {\"q\": \"x\"} is data(x))", async () => {
  assert.equal(await extraTool(spec('{"name":"search","behaviour":{"text":"no hits"}}')).execute({}), "no hits");
  const t = extraTool(spec('{"name":"t","behaviour":{"template":"data({{q}})"}}'));
  assert.equal(await t.execute({ q: "x" }), "data(x)");
  const t2 = extraTool(spec('{"name":"t","behaviour":{"template":"{{ n }}|{{o}}|{{gone}}|{{s}}"}}'));
  assert.equal(await t2.execute(parseJson('{"n":42,"o":{"b":1,"2":[true]},"s":"é"}')), '42|{"b":1,"2":[true]}||é',
    "a non-string as compact JSON, an absent argument as nothing");
});

test("fail throws exactly M; panic throws M, marked to stay outside the port's native helper", async () => {
  const boom = extraTool(spec('{"name":"boom","behaviour":{"fail":"it broke"}}'));
  assert.equal(boom.panics, false);
  await assert.rejects(boom.execute({}), (e) => e instanceof Error && e.message === "it broke");
  const crash = extraTool(spec('{"name":"crash","behaviour":{"panic":"kaboom"}}'));
  assert.equal(crash.panics, true);
  // The kit does not catch it: the throw reaches whoever called the body (the port).
  await assert.rejects(crash.execute({}), (e) => e instanceof Error && e.message === "kaboom");
});

test("suspend without an answer: a pending Request with a fresh id, optional keys only when given (§5.4 example)", async () => {
  const approve = extraTool(spec('{"name":"approve","behaviour":{"suspend":{"kind":"approval","prompt":"Approve the trade?","url":"https://example.test/approve"}}}'));
  const a = await approve.execute({ trade: 42 }, {});
  const b = await approve.execute({ trade: 42 }, { answer: null });
  assert.deepEqual(a, { output: "Approve the trade?", isError: true,
    metadata: { pending: { id: a.metadata.pending.id, kind: "approval", prompt: "Approve the trade?", url: "https://example.test/approve" } } });
  assert.equal(typeof a.metadata.pending.id, "string");
  assert.ok(a.metadata.pending.id.length > 0);
  assert.notEqual(a.metadata.pending.id, b.metadata.pending.id, "a fresh id per call");
  const bare = await extraTool(spec('{"name":"x","behaviour":{"suspend":{}}}')).execute({});
  assert.deepEqual(Object.keys(bare.metadata.pending), ["id", "kind", "prompt"]);
  assert.equal(bare.metadata.pending.kind, "approval", "kind defaults to approval");
  assert.equal(bare.metadata.pending.prompt, "", "prompt defaults to empty");
  const full = await extraTool(spec('{"name":"x","behaviour":{"suspend":{"kind":"input","data":{"b":1},"expiresAt":"2030-01-01T00:00:00Z"}}}')).execute({});
  assert.deepEqual(full.metadata.pending.data, { b: 1 });
  assert.equal(full.metadata.pending.expiresAt, "2030-01-01T00:00:00Z");
});

test("suspend with an answer: answer.data as compact JSON, null without data; always, echoArgs, answerText", async () => {
  const approve = extraTool(spec('{"name":"approve","behaviour":{"suspend":{"kind":"approval","prompt":"Approve the trade?"}}}'));
  // > …"context":{"answer":{"id":"req-18ec99351f6a7d5f-0","ok":true,"data":{"approved":true}}}}
  // < {"ok":true,"result":{"output":"{\"approved\":true}","isError":false}}
  const req = parseJson('{"args":{"trade":42},"context":{"answer":{"id":"req-18ec99351f6a7d5f-0","ok":true,"data":{"approved":true,"2":"é"}}}}');
  assert.deepEqual(await approve.execute(req.args, req.context), { output: '{"approved":true,"2":"é"}', isError: false });
  assert.deepEqual(await approve.execute({}, { answer: { id: "r", ok: true } }), { output: "null", isError: false });
  const always = extraTool(spec('{"name":"a","behaviour":{"suspend":{"prompt":"again","always":true}}}'));
  const again = await always.execute({}, { answer: { id: "r", ok: true, data: {} } });
  assert.equal(again.isError, true);
  assert.equal(again.metadata.pending.prompt, "again");
  const echoArgs = extraTool(spec('{"name":"a","behaviour":{"suspend":{"echoArgs":true}}}'));
  assert.deepEqual(await echoArgs.execute(parseJson('{"b":1,"2":2}'), { answer: { id: "r", ok: true, data: { x: 1 } } }),
    { output: '{"b":1,"2":2}', isError: false });
  // PROTOCOL.md §5.27's check_secret: {"suspend":{…,"answerText":"secret-token"}}
  const secret = extraTool(spec('{"name":"check_secret","behaviour":{"suspend":{"kind":"approval","prompt":"approve secret access?","answerText":"secret-token"}}}'));
  assert.deepEqual(await secret.execute({}, { answer: { id: "req-18ec-0", ok: true } }), { output: "secret-token", isError: false });
  assert.deepEqual(await secret.execute({}, { answer: { id: "req-18ec-0", ok: false } }), { output: "null", isError: false },
    "answerText answers an ok answer only");
});

test("parts: output O and the parts as given", async () => {
  const t = extraTool(spec('{"name":"p","behaviour":{"parts":{"output":"see image","parts":[{"type":"image","mimeType":"image/png","data":"iVBORw0KGgo="}]}}}'));
  assert.deepEqual(await t.execute({}), { output: "see image", isError: false, parts: [{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" }] });
});

test("awaitCancel: the signal or the ms, whichever first, recorded in toolCancels (virtual clock)", async () => {
  const clock = new VirtualClock();
  const records = new Records();
  const t = extraTool(spec('{"name":"slow","behaviour":{"awaitCancel":{"ms":500}}}'), { records, timers: clock });
  const abort = new AbortController();
  const cancelled = t.execute({}, { signal: abort.signal });
  abort.abort();
  assert.equal(await cancelled, "cancelled");
  const waited = t.execute({}, {});
  let settled = false;
  waited.then(() => (settled = true));
  await clock.advance(499);
  assert.equal(settled, false, "not before its ms");
  await clock.advance(1);
  assert.equal(await waited, "not cancelled");
  assert.deepEqual(records.get("toolCancels"), [{ name: "slow", cancelled: true }, { name: "slow", cancelled: false }]);
  const dflt = extraTool(spec('{"name":"d","behaviour":{"awaitCancel":{}}}'), { records, timers: clock }).execute({});
  await clock.advance(9999);
  assert.equal(clock.pending, 1, "the default is 10000 ms");
  await clock.advance(1);
  assert.equal(await dflt, "not cancelled");
});

test("an HTTP tool is a typed declaration of its http block, source http", () => {
  const t = extraTool(spec('{"name":"weather","description":"Weather","http":{"method":"GET","url":"http://127.0.0.1:1/w/{city}","query":["units"],"resultMode":"json","timeout":500}}'));
  assert.deepEqual(t, { type: "http", name: "weather", description: "Weather", source: "http",
    http: { method: "GET", url: "http://127.0.0.1:1/w/{city}", query: ["units"], resultMode: "json", timeout: 500 } });
});

test("a behaviour outside the catalogue is unsupported naming it; a malformed one bad_request", async () => {
  assert.throws(() => extraTool(spec('{"name":"x","behaviour":{"teleport":true}}')), (e) => kind("unsupported")(e) && e.message.includes('"teleport"'));
  assert.throws(() => extraTool(spec('{"name":"x","behaviour":{"text":"a","fail":"b"}}')), kind("bad_request"));
  assert.throws(() => extraTool(spec('{"name":"x","behaviour":{"text":1}}')), kind("bad_request"));
  assert.throws(() => extraTool(spec('{"name":"x"}')), kind("bad_request"));
  // Through the loop: the envelope of §4, seq copied.
  const kit = new Kit({ port: { name: "t", language: "javascript", version: "0" }, implements: [] });
  kit.handle("build", (req) => void req.options.extraTools.map((s) => extraTool(s)));
  const out = [];
  async function* input() {
    yield Buffer.from('{"cmd":"build","id":"tk1","options":{"extraTools":[{"name":"x","behaviour":{"teleport":true}}]},"seq":4}\n');
  }
  await kit.serve(input(), (line) => out.push(JSON.parse(line)));
  assert.equal(out[0].error.kind, "unsupported");
  assert.equal(out[0].seq, 4);
});

test("skillProvider: skills returns the defs, fail throws M (§7)", () => {
  const defs = skillProvider(spec('{"skills":[{"name":"notes","description":"Take notes","content":"Write it down."}]}'));
  assert.deepEqual(defs(), [{ name: "notes", description: "Take notes", content: "Write it down." }]);
  defs()[0].name = "changed";
  assert.equal(defs()[0].name, "notes", "each call hands out its own copy");
  const fail = skillProvider(spec('{"fail":"provider down"}'));
  assert.throws(fail, (e) => e instanceof Error && e.message === "provider down");
});

test("waitFor answer: {id: request.id, ok (default true), data?, reason?}, each Request recorded first", () => {
  const records = new Records();
  const request = { id: "req-1", kind: "approval", prompt: "Approve?" };
  assert.deepEqual(waitFor(spec('{"answer":{}}'), records)(request), { id: "req-1", ok: true });
  assert.deepEqual(waitFor(spec('{"answer":{"ok":false,"reason":"expired"}}'), records)(request), { id: "req-1", ok: false, reason: "expired" });
  assert.deepEqual(waitFor(spec('{"answer":{"data":{"approved":true}}}'))(request), { id: "req-1", ok: true, data: { approved: true } });
  assert.deepEqual(records.get("waitForCalls"), [request, request]);
});

test("waitFor echoRequest: the Request flattened to primitives, data as compact JSON text", () => {
  const answer = waitFor(spec('{"echoRequest":true}'))(parseJson('{"id":"e1","kind":"input","prompt":"Name?","url":"https://x.test","data":{"schema":{"type":"object","2":1}}}'));
  assert.deepEqual(answer, { id: "e1", ok: true,
    data: { id: "e1", kind: "input", prompt: "Name?", url: "https://x.test", data: '{"schema":{"type":"object","2":1}}' } });
  assert.deepEqual(waitFor(spec('{"echoRequest":true}'))({ id: "e2", kind: "k", prompt: "" }).data, { id: "e2", kind: "k", prompt: "" });
  assert.throws(() => waitFor(spec('{"ask":true}')), kind("unsupported"));
});
