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
