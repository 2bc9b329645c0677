// @ts-check
// The toolnexus conformance driver kit for Node 20 (conformance/PROTOCOL.md). See STATUS.md.
export { Kit, PROTOCOL, SECTION_COMMANDS } from "./kit.mjs";
export { KitError, ERROR_KINDS, need, quote } from "./errors.mjs";
export { HandleTable } from "./handles.mjs";
export { parseOrdered, compactJson, RawNumber } from "./ordered-json.mjs";
export { lines, isBlank, decodeUtf8 } from "./framing.mjs";
