// A minimal driver on the kit for the subprocess tests: real stdin/stdout, signals and exit codes.
import { Kit, KitError } from "../index.mjs";

const kit = new Kit({ port: { name: "fixture", language: "javascript", version: "0" }, spec: "0.16.0", implements: ["0"] });
kit.handle("length", (req) => ({ length: req.value.length })); // proves a huge line arrived whole
kit.handle("say", (req) => {
  console.log(`console.log from a handler: ${req.value}`); // must reach stderr, never stdout (§2)
  process.stdout.write("a stray stdout write\n");
  return { value: req.value };
});
kit.handle("refuse", () => {
  throw new KitError("unsupported", "refused on purpose");
});
kit.onClose(() => process.stderr.write("onClose ran\n"));
await kit.main();
