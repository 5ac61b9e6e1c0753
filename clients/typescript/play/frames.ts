// The frames of a table's WebSocket, checked against the AsyncAPI document the gateway
// serves (GET /v1/asyncapi.json) before the program uses them: JSON.parse knows no
// types, so a frame becomes a `TableLiveServerFrame` (generated/asyncapi.d.ts, from the
// same document) only once it validates against the document's own schemas.
import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import type { TableLiveServerFrame } from "../generated/asyncapi.js";

const DOCUMENT = "asyncapi.json";

/** `value[key]` of a JSON object; undefined for anything else. */
function member(value: unknown, key: string): unknown {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined;
  const entries: [string, unknown][] = Object.entries(value);
  return entries.find(([name]) => name === key)?.[1];
}

function items(value: unknown): unknown[] {
  const list: unknown[] = Array.isArray(value) ? value : [];
  return list;
}

function values(value: unknown): unknown[] {
  if (typeof value !== "object" || value === null) return [];
  const list: unknown[] = Object.values(value);
  return list;
}

/** A local reference (`#/components/messages/view`) followed to what it points at. */
function follow(document: unknown, value: unknown): unknown {
  let node = value;
  for (let ref = member(node, "$ref"); typeof ref === "string"; ref = member(node, "$ref")) {
    if (!ref.startsWith("#/")) throw new Error(`not a local reference: ${ref}`);
    node = ref
      .slice(2)
      .split("/")
      .map((part) => part.replaceAll("~1", "/").replaceAll("~0", "~"))
      .reduce(member, document);
  }
  return node;
}

/** The payload schemas of every message the gateway sends on `channel`. The document
 * describes the gateway: what it sends are its `send` operations' messages and the
 * replies of its `receive` operations. */
function sentPayloads(document: unknown, channel: string): string[] {
  const refs: string[] = [];
  const here = `#/channels/${channel}`;
  for (const operation of values(member(document, "operations"))) {
    const action = member(operation, "action");
    const on = member(member(operation, "channel"), "$ref");
    const reply = member(operation, "reply");
    const replyOn = member(member(reply, "channel"), "$ref") ?? on;
    const messages = [
      ...(action === "send" && on === here ? items(member(operation, "messages")) : []),
      ...(action === "receive" && replyOn === here ? items(member(reply, "messages")) : []),
    ];
    for (const message of messages) {
      const payload = member(member(follow(document, message), "payload"), "$ref");
      if (typeof payload !== "string") throw new Error(`a ${channel} message has no payload`);
      if (!refs.includes(payload)) refs.push(payload);
    }
  }
  if (refs.length === 0) throw new Error(`the AsyncAPI document sends nothing on ${channel}`);
  return refs;
}

export type FrameCheck = ValidateFunction<TableLiveServerFrame>;

/** A validator of the frames a table's socket sends, from the served AsyncAPI document. */
export async function tableFrameCheck(baseUrl: string): Promise<FrameCheck> {
  const response = await fetch(new URL("/v1/asyncapi.json", baseUrl));
  if (!response.ok) throw new Error(`GET /v1/asyncapi.json: ${response.status}`);
  const document: unknown = await response.json();
  const ajv = new Ajv2020({ strict: true, allErrors: false, validateFormats: false });
  ajv.addKeyword("discriminator"); // OpenAPI's hint for generators; `oneOf` decides
  ajv.addKeyword("components"); // where the document keeps its schemas
  ajv.addSchema({ $id: DOCUMENT, components: member(document, "components") });
  const oneOf = sentPayloads(document, "tableLive").map((ref) => ({ $ref: DOCUMENT + ref }));
  return ajv.compile<TableLiveServerFrame>({ oneOf });
}

/** Why a frame did not validate (the first few errors, by where they are). */
export function failures(check: FrameCheck): string {
  return (check.errors ?? [])
    .slice(0, 5)
    .map((error) => `${error.instancePath || "/"} ${error.message ?? error.keyword}`)
    .join("; ");
}
