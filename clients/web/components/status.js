// The table page's heading and status line (whose turn, round, my seat, connection),
// and the one live region that announces whose turn it is. The announcer is a single
// element made once: a region re-created on every render would not be read out.

import { h } from "../lib/dom.js";

const CONNECTION = {
  live: "Live",
  connecting: "Connecting…",
  reconnecting: "Reconnecting…",
  closed: "Offline",
};

export function turnText(view, ctx) {
  if (view.phase === "lobby") return "Waiting for players";
  if (view.phase === "finished") return "Game over";
  if (view.phase !== "playing") return "No such table";
  if (!view.to_move.length) return "Playing";
  if (ctx.myTurn) {
    const others = view.to_move.filter((seat) => seat !== view.viewer).map((seat) => ctx.name(seat));
    return others.length ? `Your turn (with ${others.join(", ")})` : "Your turn";
  }
  return `To move: ${view.to_move.map((seat) => (seat === view.viewer ? "you" : ctx.name(seat))).join(", ")}`;
}

export function statusHeader(view, ctx, { title, connection }) {
  return h(
    "header",
    { class: "table-head" },
    h("h1", { id: "table-title" }, title, h("span", { class: "meta" }, ` · table ${view.table_id}`)),
    h(
      "p",
      { class: "status-line" },
      h("span", { "data-testid": "turn", class: ctx.myTurn ? "your-turn" : "" }, turnText(view, ctx)),
      view.round ? h("span", { class: "meta" }, ` · round ${view.round}`) : null,
      view.viewer === null
        ? h("span", { class: "badge", "data-testid": "spectating" }, "Watching")
        : h("span", { class: "badge" }, `You are seat ${view.viewer + 1}`),
      h(
        "span",
        { class: `badge conn-${connection}`, role: "status", "data-testid": "connection" },
        CONNECTION[connection] || connection,
      ),
    ),
  );
}

export class Announcer {
  constructor() {
    this.element = h("p", {
      class: "sr-only",
      role: "status",
      "aria-live": "polite",
      "data-testid": "announce",
    });
  }

  say(text) {
    if (this.element.textContent !== text) this.element.textContent = text;
  }
}
