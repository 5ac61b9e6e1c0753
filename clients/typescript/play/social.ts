// Notifications and friends through the gateway's HTTP API, typed by the served OpenAPI
// document alone (generated/openapi.d.ts): two new players; the first sets its
// notification preferences (push only, quiet hours in its own time zone), keeps a push
// subscription and forgets it, reads its turns; a friend request is sent and accepted,
// and both read their friends with presence. Prints one JSON line of what it read.
//
//   node dist/play/social.js BASE_URL
import createClient from "openapi-fetch";
import type { paths } from "../generated/openapi.js";
import { signUp } from "./http.js";

/** A success body, or the refusal's status and error code as an Error. */
function body<T>(answer: { data?: T; error?: { error: string }; response: Response }): T {
  if (answer.data === undefined) {
    throw new Error(`${answer.response.status} ${answer.error?.error ?? "without a body"}`);
  }
  return answer.data;
}

async function main(baseUrl: string): Promise<void> {
  const suffix = Math.random().toString(36).slice(2, 8);
  const ann = await signUp(baseUrl, `TsAnn${suffix}`, "a good password");
  const ben = await signUp(baseUrl, `TsBen${suffix}`, "a good password");
  const clientOf = (token: string) =>
    createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${token}` } });
  const a = clientOf(ann.token);
  const b = clientOf(ben.token);

  const quiet = { start: "22:00", end: "07:30" };
  const prefs = body(
    await a.PUT("/v1/players/me/notifications", {
      body: { channels: ["push"], quiet_hours: quiet, time_zone: "Europe/Paris" },
    }),
  );
  const endpoint = `https://fcm.googleapis.com/fcm/send/${ann.playerId}`;
  const kept = body(
    await a.POST("/v1/players/me/push", {
      body: { endpoint, keys: { p256dh: "BKey", auth: "auth" } },
    }),
  );
  const forgot = await a.DELETE("/v1/players/me/push", { body: { endpoint } });
  const turns = body(await a.GET("/v1/players/me/turns"));

  const asked = body(
    await a.POST("/v1/players/{player_id}/friend", {
      params: { path: { player_id: ben.playerId } },
    }),
  );
  const accepted = body(
    await b.POST("/v1/players/{player_id}/friend", {
      params: { path: { player_id: ann.playerId } },
    }),
  );
  const annFriends = body(await a.GET("/v1/players/me/friends"));
  const benFriends = body(await b.GET("/v1/players/me/friends"));
  const presence = body(
    await a.GET("/v1/players/presence", { params: { query: { players: ben.playerId } } }),
  );

  console.log(
    JSON.stringify({
      ann: ann.playerId,
      ben: ben.playerId,
      prefs: { channels: prefs.channels, quiet_hours: prefs.quiet_hours, time_zone: prefs.time_zone },
      push_kept: kept.push_subscriptions,
      push_forgot: forgot.response.status,
      turns: turns.tables.length,
      friendship: [asked.state, accepted.state],
      friends: {
        ann: annFriends.friends.map((f) => f.player_id),
        ben: benFriends.friends.map((f) => f.player_id),
      },
      presence: presence.players.map((p) => [p.player_id, p.presence]),
    }),
  );
}

const baseUrl = process.argv[2];
if (baseUrl === undefined) {
  console.error("usage: node dist/play/social.js BASE_URL");
  process.exit(2);
}
main(baseUrl).catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
