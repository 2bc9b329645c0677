// @ts-check
// Which commands `hello` needs registered before it lists a SPEC section (issue 49, decided by the
// lead). Kept alone in this file on purpose: it is to be replaced by one generated from
// conformance/protocol.schema.json.

const TOOLKIT = Object.freeze(["build", "tools", "execute"]);
const CLIENT = Object.freeze(["client", "run"]);
const RUNTIME = Object.freeze(["agent_runtime", "agent_close_runtime"]);

/**
 * The CORE commands per SPEC section. A section absent here is listed whenever it is declared;
 * the other commands a section's scenarios send are per scenario (their `unsupported` answer
 * skips that scenario only).
 * @type {Readonly<Record<string, readonly string[]>>}
 */
export const CORE_COMMANDS = Object.freeze({
  "0": TOOLKIT, "1": TOOLKIT, "2": TOOLKIT, "3": TOOLKIT, "4": TOOLKIT, "4A": TOOLKIT,
  "6": TOOLKIT, "7": TOOLKIT, "7A": TOOLKIT,
  "7B": Object.freeze(["serve", "serve_stop", "client"]),
  "7C": Object.freeze(["serve", "serve_stop"]),
  "7D": RUNTIME, "7E": RUNTIME,
  "7F": Object.freeze(["compact"]),
  "8": CLIENT, "8A": CLIENT, "10": CLIENT,
  "8B": Object.freeze(["classifier", "evaluate"]),
  "11": Object.freeze(["translate"]),
});

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
