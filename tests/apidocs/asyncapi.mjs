// Parse and validate an AsyncAPI document with @asyncapi/parser (its default rules: the
// AsyncAPI 3 schema, the spec's own checks, the payload schemas). Usage:
//   node asyncapi.mjs DOCUMENT.json
// Prints one JSON line: {"errors": [...], "warnings": [...]} (each {code, message,
// path}); exits 1 when the document has errors or cannot be parsed, else 0.
import { readFile } from "node:fs/promises";
import { Parser, DiagnosticSeverity } from "@asyncapi/parser";

const path = process.argv[2];
if (!path) {
  console.error("usage: node asyncapi.mjs DOCUMENT.json");
  process.exit(2);
}
const text = await readFile(path, "utf8");
const parser = new Parser();
const { document, diagnostics } = await parser.parse(text, { source: path });
const item = (d) => ({ code: String(d.code), message: d.message, path: d.path.join("/") });
const errors = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Error).map(item);
const warnings = diagnostics.filter((d) => d.severity === DiagnosticSeverity.Warning).map(item);
console.log(JSON.stringify({ parsed: document !== undefined, errors, warnings }));
process.exit(errors.length || document === undefined ? 1 : 0);
