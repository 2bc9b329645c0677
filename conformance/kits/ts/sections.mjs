// @ts-check
// Which commands `hello` needs registered before it lists a SPEC section: the CORE table comes
// from protocol_gen.mjs, generated from conformance/protocol.schema.json (`schema --kit ts`).

import { CORE_COMMANDS } from "./protocol_gen.mjs";

export { CORE_COMMANDS };

/**
 * The declared sections `hello` lists: each whose CORE commands are all in `registered`, in
 * the order declared.
 * @param {readonly string[]} declared
 * @param {(cmd: string) => boolean} registered
 * @returns {string[]}
 */
export function servedSections(declared, registered) {
  return declared.filter((s) => (CORE_COMMANDS[s] ?? []).every(registered));
}
