// Generates TypeScript types from the JSON Schema files `orrery schema --out DIR` writes:
//   node generate.mjs SCHEMA_DIR OUT_DIR
// One .d.ts per schema file; every $defs entry becomes a named type (its short,
// stable definition name), so an app writes `PlaceAirship`, `TableView`, `Accepted`.
import { compile } from "json-schema-to-typescript";
import { mkdir, readdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";

const [schemaDir, outDir] = process.argv.slice(2);
if (!schemaDir || !outDir) {
  console.error("usage: node generate.mjs SCHEMA_DIR OUT_DIR");
  process.exit(2);
}
await mkdir(outDir, { recursive: true });
for (const file of (await readdir(schemaDir)).filter((f) => f.endsWith(".schema.json"))) {
  const schema = JSON.parse(await readFile(join(schemaDir, file), "utf8"));
  const name = file.replace(".schema.json", "");
  const ts = await compile(schema, name, {
    bannerComment: `// Generated from ${file} (orrery schema); do not edit.`,
    unreachableDefinitions: true,
    additionalProperties: false,
    format: false,
  });
  await writeFile(join(outDir, `${name}.d.ts`), ts);
  console.log(`${name}.d.ts`);
}
