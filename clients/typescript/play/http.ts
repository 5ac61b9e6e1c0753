// The gateway's HTTP API through openapi-fetch, typed by openapi-typescript's `paths`
// (generated/openapi.d.ts, from GET /v1/openapi.json).
import createClient from "openapi-fetch";
import type { components, paths } from "../generated/openapi.js";

export type Schemas = components["schemas"];
export type Game = Schemas["NewTable"]["game"];
export type HttpView = Schemas["TableView"];
export type HttpCommand = Schemas["Command"];
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
    const made = must(await this.api.POST("/v1/tables", { body: { game, seats } }));
    return made.table_id;
  }

  async join(tableId: string): Promise<number> {
    const params = { path: { table_id: tableId } };
    return must(await this.api.POST("/v1/tables/{table_id}/join", { params, body: {} })).seat;
  }

  async start(tableId: string): Promise<CommandOutcome> {
    const params = { path: { table_id: tableId } };
    return must(await this.api.POST("/v1/tables/{table_id}/start", { params }));
  }

  async command(tableId: string, commandId: string, body: HttpCommand): Promise<Sent> {
    const params = { path: { table_id: tableId } };
    const answer = await this.api.POST("/v1/tables/{table_id}/commands", {
      params,
      body: { command_id: commandId, body },
    });
    if (answer.error !== undefined && answer.error.outcome === "rejected") {
      return { rejected: answer.error };
    }
    return { outcome: must(answer) };
  }

  async view(tableId: string): Promise<HttpView> {
    const params = { path: { table_id: tableId } };
    return must(await this.api.GET("/v1/tables/{table_id}/view", { params }));
  }

  async table(tableId: string): Promise<TableDetail> {
    const params = { path: { table_id: tableId } };
    return must(await this.api.GET("/v1/tables/{table_id}", { params }));
  }

  async say(tableId: string, text: string): Promise<ChatMessage> {
    const params = { path: { table_id: tableId } };
    return must(await this.api.POST("/v1/tables/{table_id}/chat", { params, body: { text } }));
  }
}

/** A new account (POST /v1/players), then a session for it (POST /v1/sessions). */
export async function signUp(baseUrl: string, name: string, password: string): Promise<Player> {
  const anonymous = createClient<paths>({ baseUrl });
  const created = must(await anonymous.POST("/v1/players", { body: { name, password } }));
  const session = must(await anonymous.POST("/v1/sessions", { body: { name, password } }));
  if (session.player_id !== created.player_id) {
    throw new Error(`signed in as ${session.player_id}, not ${created.player_id}`);
  }
  return new Player(baseUrl, created.name, session.player_id, session.token);
}
