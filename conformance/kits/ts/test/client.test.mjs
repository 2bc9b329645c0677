// The client, classifier, compact and agent-runtime interpreters of PROTOCOL.md §7, §5.26 and
// §5.27 against PROTOCOL.md's text and examples, and the records they write.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  hooks, onError, onMetric, generate, bodyTransform, seededStore, evaluate, onBudget, clientBehaviours,
  compactOptions, Records, RECORD_CAP, parseJson, KitError,
} from "../index.mjs";

const kind = (k) => (e) => e instanceof KitError && e.kind === k;
const call = (over = {}) => ({ turn: 1, model: "m-basic", messages: [{ role: "user", content: "hi" }], tools: [], ...over });

test("hooks record {hook, …} in hookCalls before acting, copied when they happen (§5.14 example)", async () => {
  const records = new Records();
  // > {"cmd":"client",…,"hooks":{"beforeTool":{"observe":true}},…}
  const h = hooks(parseJson('{"beforeTool":{"observe":true}}'), records);
  assert.deepEqual(Object.keys(h), ["beforeTool"], "only the hooks given are installed");
  const args = { city: "Paris" };
  assert.equal(await h.beforeTool({ name: "get_weather", args, id: "call_w1", turn: 1, extra: "not recorded" }), undefined);
  args.city = "Lyon"; // the port mutating later changes nothing recorded
  // < …"hookCalls":[{"hook":"beforeTool","name":"get_weather","args":{"city":"Paris"},"id":"call_w1","turn":1}]
  assert.deepEqual(records.get("hookCalls"), [{ hook: "beforeTool", name: "get_weather", args: { city: "Paris" }, id: "call_w1", turn: 1 }]);
  const all = hooks(parseJson('{"beforeLLM":{"observe":true},"afterLLM":{"observe":true},"afterTool":{"observe":true}}'), records);
  await all.beforeLLM(call());
  await all.afterLLM({ turn: 1, model: "m", response: { choices: [] } });
  await all.afterTool({ name: "t", args: {}, result: { output: "o", isError: false }, id: "c", turn: 2 });
  assert.deepEqual(records.get("hookCalls").slice(1), [
    { hook: "beforeLLM", turn: 1, model: "m-basic", messages: [{ role: "user", content: "hi" }], tools: [] },
    { hook: "afterLLM", turn: 1, model: "m", response: { choices: [] } },
    { hook: "afterTool", name: "t", args: {}, result: { output: "o", isError: false }, id: "c", turn: 2 },
  ]);
});

test("beforeLLM replaceMessages: the messages on the first call of a run only", async () => {
  const records = new Records();
  const h = hooks(parseJson('{"beforeLLM":{"replaceMessages":[{"role":"user","content":"replaced"}]}}'), records);
  assert.deepEqual(await h.beforeLLM(call()), { messages: [{ role: "user", content: "replaced" }] });
  assert.equal(await h.beforeLLM(call({ turn: 2 })), undefined, "nothing later");
  assert.equal(records.get("hookCalls").length, 2, "both calls recorded");
  records.reset(); // the next loop command is a new run
  assert.deepEqual(await h.beforeLLM(call()), { messages: [{ role: "user", content: "replaced" }] });
});

test("beforeLLM keepTools (function.name or name, received order; [] empties), appendMessage, abort", async () => {
  const records = new Records();
  const tools = [{ type: "function", function: { name: "b" } }, { name: "a" }, { name: "c" }];
  const keep = hooks(parseJson('{"beforeLLM":{"keepTools":["a","b"]}}'), records);
  assert.deepEqual(await keep.beforeLLM(call({ tools })), { tools: [tools[0], tools[1]] });
  assert.deepEqual(await hooks(parseJson('{"beforeLLM":{"keepTools":[]}}'), records).beforeLLM(call({ tools })), { tools: [] });
  const append = hooks(parseJson('{"beforeLLM":{"appendMessage":{"role":"user","content":"also"}}}'), records);
  for (let turn = 1; turn <= 2; turn++) {
    assert.deepEqual(await append.beforeLLM(call({ turn })), { messages: [{ role: "user", content: "hi" }, { role: "user", content: "also" }] }, "on every call");
  }
  const before = records.get("hookCalls").length;
  const abort = hooks(parseJson('{"beforeLLM":{"abort":"route closed"}}'), records);
  await assert.rejects(abort.beforeLLM(call()), (e) => e.message === "route closed");
  assert.equal(records.get("hookCalls").length, before + 1, "recorded before it raised");
});

test("beforeLLM compactor: the port's compactor built from the interpreted options is the hook", async () => {
  const records = new Records();
  let built;
  const compactor = (options) => {
    built = options;
    return async ({ messages }) => ({ messages: [{ role: "system", content: options.summarize(messages.slice(0, 1)) }] });
  };
  const h = hooks(parseJson('{"beforeLLM":{"compactor":{"maxTokens":100,"keepTail":2,"summarize":{"text":"S"}}}}'), records, { compactor });
  assert.equal(built.maxTokens, 100);
  assert.equal(built.keepTail, 2);
  assert.deepEqual(await h.beforeLLM(call()), { messages: [{ role: "system", content: "S" }] });
  assert.equal(records.get("hookCalls").length, 1);
  assert.throws(() => hooks(parseJson('{"beforeLLM":{"compactor":{"maxTokens":1,"summarize":{"text":"S"}}}}'), records), kind("unsupported"),
    "a port without §7F answers unsupported");
});

test("beforeTool result/args and afterTool result/prefix; a behaviour on the wrong hook is bad_request", async () => {
  const records = new Records();
  const bt = { name: "t", args: { a: 1 }, id: "c1", turn: 1 };
  assert.deepEqual(await hooks(parseJson('{"beforeTool":{"result":{"output":"short","isError":false}}}'), records).beforeTool(bt),
    { result: { output: "short", isError: false } });
  assert.deepEqual(await hooks(parseJson('{"beforeTool":{"args":{"a":2}}}'), records).beforeTool(bt), { args: { a: 2 } });
  const result = { output: "out", isError: true, metadata: { k: 1 } };
  assert.deepEqual(await hooks(parseJson('{"afterTool":{"prefix":"P: "}}'), records).afterTool({ ...bt, result }),
    { result: { output: "P: out", isError: true, metadata: { k: 1 } } }, "isError and metadata kept");
  assert.deepEqual(await hooks(parseJson('{"afterTool":{"result":{"output":"x","isError":false}}}'), records).afterTool({ ...bt, result }),
    { result: { output: "x", isError: false } });
  assert.throws(() => hooks(parseJson('{"afterLLM":{"abort":"x"}}'), records), kind("bad_request"));
  assert.throws(() => hooks(parseJson('{"duringLLM":{"observe":true}}'), records), kind("bad_request"));
  assert.throws(() => hooks(parseJson('{"beforeTool":{"reroute":"x"}}'), records), kind("unsupported"));
});

test("onError answers for every failure, each info recorded in onErrorCalls", () => {
  const records = new Records();
  const retry = onError(parseJson('{"answer":"retry"}'), records);
  assert.equal(retry({ status: 503, attempt: 1, retryable: true }), "retry");
  assert.equal(onError(parseJson('{"answer":"fail"}'), records)({ error: "connection refused", attempt: 2, retryable: true }), "fail");
  assert.deepEqual(records.get("onErrorCalls"), [{ status: 503, attempt: 1, retryable: true }, { error: "connection refused", attempt: 2, retryable: true }]);
  assert.throws(() => onError(parseJson('{"answer":"maybe"}'), records), kind("bad_request"));
});

test("onMetric collect: every event in metricEvents, in order", () => {
  const records = new Records();
  const sink = onMetric(parseJson('{"collect":true}'), records);
  sink({ event: "llm", model: "m", status: "ok", ms: 3, promptTokens: 1, completionTokens: 2 });
  sink({ event: "run", model: "m", turns: 1, toolCalls: 0, totalTokens: 3, ms: 4 });
  assert.deepEqual(records.get("metricEvents").map((e) => e.event), ["llm", "run"]);
  assert.throws(() => onMetric(parseJson('{"collect":false}'), records), kind("bad_request"));
});

test("generate script: call n answers step n, the last again; fail raises; requests recorded", () => {
  const records = new Records();
  const g = generate(parseJson(`{"script":[
    {"toolCalls":[{"id":"c1","name":"get_weather","arguments":{"city":"Paris"}}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15}},
    {"content":"It is sunny."}]}`), records);
  assert.deepEqual(g({ messages: [{ role: "user", content: "weather?" }] }), {
    toolCalls: [{ id: "c1", name: "get_weather", arguments: { city: "Paris" } }],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  });
  assert.deepEqual(g({ messages: [] }), { content: "It is sunny." });
  assert.deepEqual(g({ messages: [] }), { content: "It is sunny." }, "the last step again once used up");
  assert.equal(records.get("generateCalls").length, 3);
  assert.deepEqual(records.get("generateCalls")[0], { messages: [{ role: "user", content: "weather?" }] });
  const f = generate(parseJson('{"script":[{"fail":"model down"}]}'), records);
  assert.throws(() => f({ messages: [] }), (e) => e.message === "model down");
  assert.equal(records.get("generateCalls").length, 4, "recorded before it raised");
  assert.throws(() => generate(parseJson('{"script":[]}'), records), kind("bad_request"));
  assert.throws(() => generate(parseJson('{"script":[{"content":"x","usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2,"cost":1}}]}'), records),
    kind("bad_request"), "usage takes the three snake_case keys only");
});

test("bodyTransform set adds or replaces top-level keys; copy sets body[to] = body[from] (null when absent)", () => {
  const set = bodyTransform(parseJson('{"set":{"temperature":0,"model":"x"}}'));
  assert.deepEqual(set({ model: "m", messages: [] }), { model: "x", messages: [], temperature: 0 });
  const copy = bodyTransform(parseJson('{"copy":{"model":"seenModel","nope":"seenNope"}}'));
  assert.deepEqual(copy({ model: "m" }), { model: "m", seenModel: "m", seenNope: null });
  const swap = bodyTransform(parseJson('{"copy":{"a":"b","b":"a"}}'));
  assert.deepEqual(swap({ a: 1, b: 2 }), { a: 2, b: 1 }, "every source read before any is written");
});

test("store seeded: a host store holding these transcripts, copies in and out", () => {
  const store = seededStore(parseJson('{"seeded":{"t1":[{"role":"user","content":"earlier"}]}}'));
  assert.deepEqual(store.get("t1"), [{ role: "user", content: "earlier" }]);
  assert.equal(store.get("nope"), undefined);
  const msgs = [{ role: "user", content: "new" }];
  store.save("t2", msgs);
  msgs.push({ role: "assistant", content: "later" });
  assert.deepEqual(store.get("t2"), [{ role: "user", content: "new" }]);
});

test("classifier evaluate: decision returned, fail raised, {state, questions} recorded before acting", () => {
  const records = new Records();
  const decision = '{"model":"jev-test","answers":{"move":{"type":"choice","choice":"left","probabilities":{"left":0.8,"right":0.2},"confidence":0.7}},"calibrated":true}';
  const ev = evaluate(parseJson(`{"decision":${decision}}`), records);
  const questions = parseJson('{"move":{"type":"choice","instructions":"Pick a move","criteria":{"left":"turn away from the wall","right":"turn into the wall"}}}');
  assert.deepEqual(ev({ hp: 3 }, questions), JSON.parse(decision));
  const fail = evaluate(parseJson('{"fail":"backend down"}'), records);
  assert.throws(() => fail({}, {}), (e) => e.message === "backend down");
  assert.deepEqual(records.get("evaluateCalls"), [{ state: { hp: 3 }, questions: JSON.parse(JSON.stringify(questions)) }, { state: {}, questions: {} }]);
});

test("onBudget (§5.27): the answer for every stop, each info recorded", () => {
  const records = new Records();
  assert.equal(onBudget(parseJson('{"answer":"stop"}'), records)({ limit: "maxTurns" }), "stop");
  assert.equal(onBudget(parseJson('{"answer":"extend"}'), records)({ limit: "maxTokens" }), "extend");
  assert.deepEqual(records.get("onBudgetCalls"), [{ limit: "maxTurns" }, { limit: "maxTokens" }]);
  assert.throws(() => onBudget(parseJson('{"answer":"pray"}'), records), kind("bad_request"));
});

test("compact options (§5.26 example): template <N>, perMessage countTokens, summarize calls recorded", () => {
  // > {"cmd":"compact",…,"options":{"maxTokens":3,"keepTail":2,"countTokens":{"perMessage":1},"summarize":{"template":"summarized <N> messages"}}}
  const { options, summarizeCalls } = compactOptions(parseJson('{"maxTokens":3,"keepTail":2,"countTokens":{"perMessage":1},"summarize":{"template":"summarized <N> messages"}}'));
  const older = [{ role: "user", content: "q0" }, { role: "assistant", content: "a0" }];
  assert.equal(options.summarize(older), "summarized 2 messages");
  // < …"summarizeCalls":[[{"role":"user","content":"q0"},{"role":"assistant","content":"a0"}]]
  assert.deepEqual(summarizeCalls, [older]);
  assert.equal(options.countTokens(older), 2);
  assert.equal(options.maxTokens, 3);
  assert.equal(options.keepTail, 2);
  const text = compactOptions(parseJson('{"maxTokens":9,"summarize":{"text":"T <N>"}}')).options;
  assert.equal(text.summarize([]), "T <N>", "text answers T as given");
  assert.equal(text.countTokens, undefined, "absent: the port's default estimator");
  assert.equal("keepTail" in text, false);
  assert.throws(() => compactOptions(parseJson('{"maxTokens":1,"summarize":{"text":"x"},"keepHead":1}')), kind("bad_request"), "unknown keys are bad_request");
  assert.throws(() => compactOptions(parseJson('{"maxTokens":1}')), kind("bad_request"), "summarize is required");
});

test("clientBehaviours: the seams of the options present, and the lists a loop command answers", async () => {
  const records = new Records();
  const { seams, recorded } = clientBehaviours(parseJson(`{"baseUrl":"http://127.0.0.1:1","style":"openai","model":"m",
    "hooks":{"beforeTool":{"observe":true}},"onMetric":{"collect":true},"waitFor":{"answer":{}},"bodyTransform":{"set":{"a":1}}}`), records);
  assert.deepEqual(Object.keys(seams).sort(), ["bodyTransform", "hooks", "onMetric", "waitFor"]);
  assert.deepEqual(recorded, ["hookCalls", "metricEvents", "waitForCalls"]);
  seams.onMetric({ event: "llm" });
  assert.deepEqual(records.take(recorded), { hookCalls: [], metricEvents: [{ event: "llm" }], waitForCalls: [] });
  assert.deepEqual(records.get("metricEvents"), [], "take empties");
});

test("records: at most RECORD_CAP entries per list; reset empties the named lists", () => {
  const records = new Records();
  for (let n = 0; n < RECORD_CAP + 5; n++) records.push("metricEvents", { n });
  assert.equal(records.get("metricEvents").length, RECORD_CAP);
  assert.equal(records.get("metricEvents").at(-1).n, RECORD_CAP - 1);
  records.push("toolCancels", { name: "x", cancelled: false });
  records.reset("toolCancels"); // a build empties toolCancels (§5.25)
  assert.equal(records.get("toolCancels").length, 0);
  assert.equal(records.get("metricEvents").length, RECORD_CAP);
  assert.throws(() => records.push("nope", {}), TypeError);
});
