// How a TypeScript app uses the generated types (compiled by tests/test_typescript_types.py
// against freshly generated files: `node generate.mjs SCHEMA_DIR types`).
import type {
  Accepted,
  CommandEnvelope,
  PlaceAirship,
  Rejection,
  TableView,
} from "./types/fractured_sky";

const move: PlaceAirship = { type: "fs.place_airship", region: 7, chip: 7 };

export const envelope: CommandEnvelope = {
  command_id: "6f1c2a",
  table_id: "my-table",
  seat: 0,
  token: "Ann-secret-0123456789abcdef",
  reply_to: "orrery:reply:myapp:7d2e",
  body: move,
};

export function describe(outcome: Accepted | Rejection): string {
  return outcome.outcome === "accepted"
    ? `applied as events ${outcome.first_seq}..${outcome.last_seq}`
    : `${outcome.code}: ${outcome.message}`;
}

export function myTurn(view: TableView): boolean {
  return view.viewer !== null && view.to_move.includes(view.viewer) && view.legal.length > 0;
}

// The gateway's HTTP API (types/gateway.d.ts, from gateway.schema.json: the very bodies of
// /v1/openapi.json): a view as GET …/view answers it, a legal move sent back as it is.
import type {
  CommandIn,
  ErrorBody,
  TableView as HttpView,
} from "./types/gateway";

// tables are created and joined through their own endpoints; expiries and ends are the
// server's
const NOT_SENT = new Set<string>(["table.create", "table.join", "table.expire", "table.close", "table.end"]);

function sendable<M extends { type: string }>(move: M): move is Extract<M, CommandIn["body"]> {
  return !NOT_SENT.has(move.type);
}

export function firstMove(view: HttpView, commandId: string): CommandIn | null {
  if (view.game !== "spacecraft" || view.viewer === null || !view.to_move.includes(view.viewer)) {
    return null;
  }
  const move = view.legal.filter(sendable).find((m) => m.type.startsWith("sc."));
  return move ? { command_id: commandId, body: move } : null;
}

export function refusal(error: ErrorBody): string {
  return error.code !== undefined ? `${error.code}: ${error.message}` : error.message;
}
