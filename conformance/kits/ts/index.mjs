// @ts-check
// The toolnexus conformance driver kit for Node 20 (conformance/PROTOCOL.md). See STATUS.md.
export { Kit, PROTOCOL } from "./kit.mjs";
export { CORE_COMMANDS, servedSections } from "./sections.mjs";
export { PROTOCOL_VERSION, COMMANDS } from "./protocol_gen.mjs";
export { KitError, ERROR_KINDS, need, quote, dquote } from "./errors.mjs";
export { HandleTable } from "./handles.mjs";
export { parseJson, compactJson, cloneJson, keysInOrder, KEY_ORDER } from "./ordered-json.mjs";
export { lines, isBlank, decodeUtf8 } from "./framing.mjs";
export { Records, RECORD_CAP, RECORD_LISTS, snapshot } from "./records.mjs";
export { VirtualClock, realTimers } from "./clock.mjs";
export { newRequestId } from "./behaviour.mjs";
export { extraTool, fillTemplate, skillProvider, waitFor, TOOL_BEHAVIOURS, AWAIT_CANCEL_DEFAULT_MS } from "./tools.mjs";
export { hooks, onError, onMetric, generate, bodyTransform, seededStore, evaluate, onBudget, clientBehaviours, HOOK_BEHAVIOURS } from "./client.mjs";
export { compactOptions } from "./compact.mjs";
