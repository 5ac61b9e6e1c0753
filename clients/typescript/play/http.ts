// The gateway's HTTP API through openapi-fetch, typed by openapi-typescript's `paths`
// (generated/openapi.d.ts, from GET /v1/openapi.json).
import { setTimeout as sleep } from "node:timers/promises";
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/openapi.js";

export type Schemas = components["schemas"];
export type Game = Schemas["NewTable"]["game"];
export type HttpView = Schemas["TableView"];
export type HttpCommand = Schemas["CommandIn"]["body"];
export type CommandOutcome = Schemas["CommandOutcome"];
export type ErrorBody = Schemas["ErrorBody"];
export type ChatMessage = Schemas["ChatMessage"];
export type TableDetail = Schemas["TableDetail"];

/** A refusal: the HTTP status and the `ErrorBody` every non-2xx answer carries. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: ErrorBody,
  ) {
    super(`${status} ${body.error}: ${body.message}`);
  }
}

/** openapi-fetch's answer: the success body, or an ApiError for the error body. */
function must<T>(answer: { data?: T; error?: ErrorBody; response: Response }): T {
  if (answer.error !== undefined) {
    throw new ApiError(answer.response.status, answer.error);
  }
  if (answer.data === undefined) {
    throw new Error(`${answer.response.status} without a body`);
  }
  return answer.data;
}

const RETRIES = 20;

/** A call again after the `Retry-After` seconds of each 429 (the gateway's per-player
 * rate limit); the same request, so a command keeps its command id. */
async function patiently<R extends { response: Response }>(call: () => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt += 1) {
    const answer = await call();
    if (answer.response.status !== 429 || attempt >= RETRIES) return answer;
    const seconds = Number(answer.response.headers.get("Retry-After"));
    await sleep(1000 * (Number.isFinite(seconds) && seconds > 0 ? seconds : 1));
  }
}

/** A command the rules refused comes back as 422 with its outcome (`outcome: "rejected"`). */
export type Sent = { outcome: CommandOutcome } | { rejected: ErrorBody };

/** One signed-in player: every call carries the session as a bearer token. */
export class Player {
  private readonly api;

  constructor(
    readonly baseUrl: string,
    readonly name: string,
    readonly playerId: string,
    readonly token: string,
  ) {
    this.api = createClient<paths>({
      baseUrl,
      headers: { Authorization: `Bearer ${token}` },
    });
  }

  async createTable(game: Game, seats: number): Promise<string> {
    const body = { game, seats };
    const made = must(await patiently(() => this.api.POST("/v1/tables", { body })));
    return made.table_id;
  }

  async join(tableId: string): Promise<number> {
    const params = { path: { table_id: tableId } };
    const url = "/v1/tables/{table_id}/join";
    return must(await patiently(() => this.api.POST(url, { params, body: {} }))).seat;
  }

  async start(tableId: string): Promise<CommandOutcome> {
    const params = { path: { table_id: tableId } };
    return must(await patiently(() => this.api.POST("/v1/tables/{table_id}/start", { params })));
  }

  async command(tableId: string, commandId: string, body: HttpCommand): Promise<Sent> {
    const params = { path: { table_id: tableId } };
    const command = { command_id: commandId, body };
    const answer = await patiently(() =>
      this.api.POST("/v1/tables/{table_id}/commands", { params, body: command }),
    );
    if (answer.error !== undefined && answer.error.outcome === "rejected") {
      return { rejected: answer.error };
    }
    return { outcome: must(answer) };
  }

  async view(tableId: string): Promise<HttpView> {
    const params = { path: { table_id: tableId } };
    return must(await patiently(() => this.api.GET("/v1/tables/{table_id}/view", { params })));
  }

  async table(tableId: string): Promise<TableDetail> {
    const params = { path: { table_id: tableId } };
    return must(await patiently(() => this.api.GET("/v1/tables/{table_id}", { params })));
  }

  async say(tableId: string, text: string): Promise<ChatMessage> {
    const params = { path: { table_id: tableId } };
    const body = { text };
    return must(
      await patiently(() => this.api.POST("/v1/tables/{table_id}/chat", { params, body })),
    );
  }
}

/** A new account (POST /v1/players), then a session for it (POST /v1/sessions). */
export async function signUp(baseUrl: string, name: string, password: string): Promise<Player> {
  const anonymous = createClient<paths>({ baseUrl });
  const body = { name, password };
  const created = must(await patiently(() => anonymous.POST("/v1/players", { body })));
  const session = must(await patiently(() => anonymous.POST("/v1/sessions", { body })));
  if (session.player_id !== created.player_id) {
    throw new Error(`signed in as ${session.player_id}, not ${created.player_id}`);
  }
  return new Player(baseUrl, created.name, session.player_id, session.token);
}
