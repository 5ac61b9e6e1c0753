// Generates TypeScript types from the two documents a running gateway serves:
//   node generate-api.mjs BASE_URL OUT_DIR
// OUT_DIR/openapi.d.ts   from GET /v1/openapi.json, by openapi-typescript: `paths` for
//                        openapi-fetch, `components["schemas"]` for the bodies
// OUT_DIR/asyncapi.d.ts  from GET /v1/asyncapi.json, by json-schema-to-typescript: one
//                        named type per schema (`ViewFrame`, `CommandFrame`, `TableView`,
//                        `Command`, …) and per channel the frames the gateway sends
//                        (`TableLiveServerFrame`, …) and those it receives
//                        (`TableLiveClientFrame`, …)
// and both documents as they were served (OUT_DIR/openapi.json, OUT_DIR/asyncapi.json).
import openapiTS, { astToString } from "openapi-typescript";
import { compile } from "json-schema-to-typescript";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";

const [baseUrl, outDir] = process.argv.slice(2);
if (!baseUrl || !outDir) {
  console.error("usage: node generate-api.mjs BASE_URL OUT_DIR");
  process.exit(2);
}

async function served(path) {
  const response = await fetch(new URL(path, baseUrl));
  if (!response.ok) {
    throw new Error(`GET ${path}: ${response.status} ${await response.text()}`);
  }
  return response.json();
}

const SCHEMAS = "#/components/schemas/";

/** Every `$ref` to `#/components/schemas/X` made `#/$defs/X` (JSON Schema's own place). */
function toDefs(value) {
  if (Array.isArray(value)) return value.map(toDefs);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [
        k,
        k === "$ref" && typeof v === "string" && v.startsWith(SCHEMAS)
          ? `#/$defs/${v.slice(SCHEMAS.length)}`
          : toDefs(v),
      ]),
    );
  }
  return value;
}

/** A `#/…` reference inside the AsyncAPI document, resolved. */
function resolve(document, ref) {
  return ref
    .slice(2)
    .split("/")
    .reduce((node, part) => node[part.replaceAll("~1", "/").replaceAll("~0", "~")], document);
}

const pascal = (name) => name.charAt(0).toUpperCase() + name.slice(1);

/** The payload schemas of messages (each a `$ref` to a message, and from it to a schema). */
function payloads(asyncapi, messages) {
  return messages.map((message) => {
    let resolved = resolve(asyncapi, message.$ref);
    while (resolved.$ref) resolved = resolve(asyncapi, resolved.$ref);
    return resolved.payload;
  });
}

/** The AsyncAPI document's schemas plus, per channel, the union of the frames the gateway
 * sends on it (`<Channel>ServerFrame`: its `send` operations' messages and the replies of
 * its `receive` operations) and of those it receives (`<Channel>ClientFrame`), as one JSON
 * Schema with everything under `$defs`. */
function framesSchema(asyncapi) {
  const defs = { ...asyncapi.components.schemas };
  const unions = {};
  const add = (channelRef, side, messages) => {
    const name = `${pascal(channelRef.split("/").pop())}${side}Frame`;
    unions[name] = [...(unions[name] ?? []), ...payloads(asyncapi, messages ?? [])];
  };
  for (const operation of Object.values(asyncapi.operations ?? {})) {
    const [mine, theirs] = operation.action === "send" ? ["Server", "Client"] : ["Client", "Server"];
    add(operation.channel.$ref, mine, operation.messages);
    if (operation.reply?.messages) {
      add((operation.reply.channel ?? operation.channel).$ref, theirs, operation.reply.messages);
    }
  }
  for (const [name, members] of Object.entries(unions)) {
    const unique = [...new Map(members.map((m) => [JSON.stringify(m), m])).values()];
    defs[name] = { title: name, oneOf: unique };
  }
  return toDefs({ title: "AsyncApiSchemas", $defs: defs });
}

await mkdir(outDir, { recursive: true });
const [openapi, asyncapi] = await Promise.all([
  served("/v1/openapi.json"),
  served("/v1/asyncapi.json"),
]);
await writeFile(join(outDir, "openapi.json"), JSON.stringify(openapi, null, 1));
await writeFile(join(outDir, "asyncapi.json"), JSON.stringify(asyncapi, null, 1));

const http = astToString(await openapiTS(openapi, { rootTypes: true, defaultNonNullable: false, silent: true }));
await writeFile(
  join(outDir, "openapi.d.ts"),
  `// Generated from the gateway's /v1/openapi.json (openapi-typescript); do not edit.\n${http}`,
);
console.log("openapi.d.ts");

const frames = await compile(framesSchema(asyncapi), "AsyncApiSchemas", {
  bannerComment: "// Generated from the gateway's /v1/asyncapi.json (json-schema-to-typescript); do not edit.",
  unreachableDefinitions: true,
  additionalProperties: false,
  format: false,
});
await writeFile(join(outDir, "asyncapi.d.ts"), frames);
console.log("asyncapi.d.ts");
