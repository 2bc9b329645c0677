// index.d.mts is kept by hand: every runtime export of index.mjs must be declared there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import * as kit from "../index.mjs";

test("every export of index.mjs is declared in index.d.mts", () => {
  const dts = readFileSync(new URL("../index.d.mts", import.meta.url), "utf8");
  const declared = new Set([...dts.matchAll(/^export declare (?:const|function|class) (\w+)/gm)].map((m) => m[1]));
  // Re-exports of the generated module's constants count as declared.
  for (const m of dts.matchAll(/^export \{([^}]*)\} from "\.\/protocol_gen\.mjs";/gm)) {
    for (const name of m[1].split(",")) declared.add(name.trim());
  }
  assert.deepEqual(Object.keys(kit).sort(), [...declared].sort());
});
