// Plays a game of each hosted game to the end through the gateway alone, typed only by
// what `node generate-api.mjs BASE_URL generated` made of the two documents it serves:
//
//   node dist/play/main.js BASE_URL [GAME ...] [--seed N]
//
// Two new accounts sit at a two-seat table of each game and play every move themselves,
// each chosen at random from its seat's own view's `legal` list (the server decides what
// is legal; this program never looks at the rules). Seat 0 sends its commands as command
// frames on its WebSocket, seat 1 through POST /v1/tables/{id}/commands; both follow
// their views on their sockets. The first `table.undo` a view offers is sent, and each
// seat says something (a `say` frame; the chat route) and hears both lines as chat
// frames. One JSON line per game once its table is finished.
import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { type Game, type Player, signUp } from "./http.js";
import { tableFrameCheck, type FrameCheck } from "./frames.js";
import { TableSocket, type WsCommand, type WsView } from "./socket.js";

const GAMES: Game[] = ["fractured_sky", "spacecraft", "federation"];
const GAME_MS = 120_000;
const MAX_REFUSALS = 20;

/** A small seeded generator (mulberry32), so a seed replays the same choices. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What a view offers this seat: its game moves, and an undo when one is accepted now.
 * Creating, joining, starting, leaving, closing, ending and clock expiry are not moves. */
function offered(view: WsView): { moves: WsCommand[]; undo: WsCommand | null } {
  const moves: WsCommand[] = [];
  let undo: WsCommand | null = null;
  for (const command of view.legal) {
    switch (command.type) {
      case "table.create":
      case "table.join":
      case "table.start":
      case "table.leave":
      case "table.expire":
      case "table.close":
      case "table.end":
        break;
      case "table.undo":
        undo = command;
        break;
      default:
        moves.push(command);
    }
  }
  return { moves, undo };
}

function myTurn(view: WsView): boolean {
  return view.phase === "playing" && view.viewer !== null && view.to_move.includes(view.viewer);
}

interface Tally {
  websocket: number;
  http: number;
  /** an undo is on its way (one per game, whichever seat is offered one first) */
  undoing: boolean;
  undos: number;
  refused: number;
}

/** How a seat sends a command: its answer is the last seq of the events it made, or
 * the code of the refusal. */
type Send = (body: WsCommand) => Promise<{ lastSeq: number } | { refused: string }>;

function overSocket(socket: TableSocket): Send {
  return async (body) => {
    const commandId = randomUUID();
    let answer = await socket.command(commandId, body);
    // the per-player rate limit: the same command again a second later
    while (answer.type === "error" && answer.error === "rate_limited") {
      await sleep(1000);
      answer = await socket.command(commandId, body);
    }
    if (answer.type === "error") return { refused: answer.error };
    if (answer.outcome === "accepted") return { lastSeq: answer.last_seq };
    if (answer.outcome === "duplicate") throw new Error("a new command id came back a duplicate");
    return { refused: answer.code ?? answer.error };
  };
}

function overHttp(player: Player, tableId: string): Send {
  return async (body) => {
    const sent = await player.command(tableId, randomUUID(), body);
    if ("rejected" in sent) return { refused: sent.rejected.code ?? sent.rejected.error };
    if (sent.outcome.outcome === "accepted") return { lastSeq: sent.outcome.last_seq };
    throw new Error("a new command id came back a duplicate");
  };
}

/** Play one seat until its table is finished: its final view. */
async function playSeat(
  player: Player,
  tableId: string,
  socket: TableSocket,
  send: Send,
  via: "websocket" | "http",
  tally: Tally,
  next: () => number,
): Promise<WsView> {
  let view = await socket.nextView(-1);
  let refusals = 0;
  for (;;) {
    if (view.phase === "finished") return view;
    if (view.phase === "closed") throw new Error(`table ${tableId} closed before its end`);
    const { moves, undo } = offered(view);
    if (!myTurn(view) || (moves.length === 0 && undo === null)) {
      view = await socket.nextView(view.seq);
      continue;
    }
    const undoing = undo !== null && !tally.undoing && tally.undos === 0;
    tally.undoing ||= undoing;
    const move = undoing ? undo : moves[Math.floor(next() * moves.length)];
    if (move === undefined || move === null) {
      view = await socket.nextView(view.seq);
      continue;
    }
    const answer = await send(move);
    if (undoing) tally.undoing = false;
    if ("lastSeq" in answer) {
      refusals = 0;
      tally[via] += 1;
      if (undoing) tally.undos += 1;
      view = await socket.nextView(answer.lastSeq - 1);
    } else {
      // Chosen from a view that was no longer the newest (the other seat moved): read it.
      refusals += 1;
      tally.refused += 1;
      if (refusals > MAX_REFUSALS) {
        throw new Error(`seat ${view.viewer}: ${refusals} refusals in a row (${answer.refused})`);
      }
      const fresh: WsView = await player.view(tableId);
      const seen = view.seq;
      view =
        fresh.seq > seen
          ? fresh
          : await socket.nextView(seen).catch((error: unknown) => {
              throw new Error(`refused (${answer.refused}) with no newer view than ${seen}`, {
                cause: error,
              });
            });
    }
  }
}

async function withDeadline<T>(what: string, ms: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not over within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

async function playGame(
  baseUrl: string,
  game: Game,
  players: [Player, Player],
  check: FrameCheck,
  next: () => number,
): Promise<Record<string, unknown>> {
  const started = Date.now();
  const [first, second] = players;
  const tableId = await first.createTable(game, 2);
  const seats = [await first.join(tableId), await second.join(tableId)];
  const sockets = await Promise.all(
    players.map((p, i) => TableSocket.open(baseUrl, tableId, p.token, check, `${game} seat ${i}`)),
  );
  const [socket0, socket1] = sockets;
  if (socket0 === undefined || socket1 === undefined) throw new Error("two sockets");
  try {
    const outcome = await first.start(tableId);
    if (outcome.outcome !== "accepted") throw new Error(`start: ${outcome.outcome}`);
    const lines = [`${first.name}: good luck (${game})`, `${second.name}: have fun (${game})`];
    const [line0, line1] = lines;
    if (line0 === undefined || line1 === undefined) throw new Error("two lines");
    socket0.say(line0);
    await second.say(tableId, line1);

    const tally: Tally = { websocket: 0, http: 0, undoing: false, undos: 0, refused: 0 };
    const [end] = await withDeadline(
      `${game} table ${tableId}`,
      GAME_MS,
      Promise.all([
        playSeat(first, tableId, socket0, overSocket(socket0), "websocket", tally, next),
        playSeat(second, tableId, socket1, overHttp(second, tableId), "http", tally, next),
        socket0.heard(lines),
        socket1.heard(lines),
      ]),
    );
    const table = await first.table(tableId);
    return {
      game,
      table_id: tableId,
      seats,
      phase: end.phase,
      table_phase: table.phase,
      seq: end.seq,
      standing: end.standing ?? null,
      standings: end.standings ?? [],
      moves: { websocket: tally.websocket, http: tally.http },
      undos: tally.undos,
      refused: tally.refused,
      chat: socket0.chat.map((frame) => frame.text),
      seconds: (Date.now() - started) / 1000,
    };
  } finally {
    for (const socket of sockets) socket.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [baseUrl, ...rest] = argv;
  if (baseUrl === undefined) {
    throw new Error("usage: node dist/play/main.js BASE_URL [GAME ...] [--seed N]");
  }
  const seedAt = rest.indexOf("--seed");
  const seed = seedAt >= 0 ? Number(rest[seedAt + 1]) : Date.now();
  const wanted = seedAt >= 0 ? [...rest.slice(0, seedAt), ...rest.slice(seedAt + 2)] : rest;
  const games = wanted.length > 0 ? GAMES.filter((g) => wanted.includes(g)) : GAMES;
  if (games.length !== wanted.length && wanted.length > 0) {
    throw new Error(`unknown game in ${wanted.join(", ")}: ${GAMES.join(", ")}`);
  }
  const check = await tableFrameCheck(baseUrl);
  const suffix = randomUUID().slice(0, 8);
  const players: [Player, Player] = [
    await signUp(baseUrl, `Ts${suffix}a`, randomUUID()),
    await signUp(baseUrl, `Ts${suffix}b`, randomUUID()),
  ];
  const next = random(seed);
  for (const game of games) {
    console.log(JSON.stringify(await playGame(baseUrl, game, players, check, next)));
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
