// The lobby's quick play: a "Play now" button per game (one click: a ticket for the
// game's usual seats, realtime, bots after 30 s) and a "Find a game" form (seats, pace,
// options, bots and after how long). While a ticket waits, a panel shows the time waited
// and a Cancel button; the player's live socket (WS /v1/players/me/live) keeps the
// ticket alive and brings its "matched" frame, and the table then opens by itself. The
// ticket is also read every few seconds, so a matched ticket opens its table even if a
// frame was missed, and an expired one says so.

import { api, session } from "../lib/api.js";
import { h, replaceChildren } from "../lib/dom.js";
import { valueLabel } from "./create-table.js";

const POLL_MS = 2000;
const PLAY_NOW_BOTS_AFTER_S = 30;

function elapsed(seconds) {
  const m = Math.floor(seconds / 60);
  const s = String(Math.floor(seconds % 60)).padStart(2, "0");
  return `${m}:${s}`;
}

export function renderQuickPlay(box, lobby) {
  const { games } = lobby;
  const message = h("p", { class: "message", role: "alert", "data-testid": "quick-message" });
  const panel = h("div", { class: "waiting", hidden: true, "data-testid": "quick-waiting" });
  let waiting = null; // {ticketId, game, started, socket, timers}

  function stopWaiting() {
    if (!waiting) return;
    clearInterval(waiting.tick);
    clearTimeout(waiting.poll);
    if (waiting.socket) waiting.socket.close();
    waiting = null;
    panel.hidden = true;
    for (const button of box.querySelectorAll("button[data-quick]")) button.disabled = false;
  }

  function open(tableId) {
    stopWaiting();
    location.hash = `/table/${tableId}`;
  }

  function listen() {
    // my notices: the "matched" frame, and a live connection that keeps the ticket
    const current = session();
    if (!current) return null;
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/v1/players/me/live`);
    socket.onopen = () => socket.send(JSON.stringify({ type: "auth", token: current.token }));
    socket.onmessage = (event) => {
      let frame = null;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame && frame.type === "matched" && waiting && frame.ticket_id === waiting.ticketId) {
        open(frame.table_id);
      }
    };
    return socket;
  }

  async function poll() {
    if (!waiting || lobby.stopped()) return stopWaiting();
    const mine = waiting;
    try {
      const ticket = await api.ticket(mine.ticketId);
      if (waiting !== mine) return;
      if (ticket.state === "matched" && ticket.table_id) return open(ticket.table_id);
      if (ticket.state !== "waiting") {
        stopWaiting();
        message.textContent =
          ticket.state === "expired"
            ? "Nobody was found in time: the search has ended. Try again?"
            : "The search was cancelled.";
        return;
      }
    } catch (error) {
      if (waiting !== mine) return;
      if (error.status === 404) {
        stopWaiting();
        return;
      }
    }
    mine.poll = setTimeout(poll, POLL_MS);
  }

  function showWaiting(title) {
    const clock = h("span", { class: "elapsed", "data-testid": "quick-elapsed" }, "0:00");
    const cancel = h(
      "button",
      {
        type: "button",
        "data-testid": "quick-cancel",
        onclick: async () => {
          const ticketId = waiting && waiting.ticketId;
          stopWaiting();
          if (!ticketId) return;
          try {
            await api.cancelTicket(ticketId);
            message.textContent = "Search cancelled.";
          } catch (error) {
            message.textContent = error.message;
          }
        },
      },
      "Cancel",
    );
    replaceChildren(
      panel,
      h("p", { role: "status" }, `Looking for a ${title} table… `, clock),
      cancel,
    );
    panel.hidden = false;
    waiting.tick = setInterval(() => {
      if (waiting) clock.textContent = elapsed((Date.now() - waiting.started) / 1000);
    }, 1000);
  }

  async function queue(ticket) {
    message.textContent = "";
    if (waiting) return;
    for (const button of box.querySelectorAll("button[data-quick]")) button.disabled = true;
    const title = lobby.titleOf(ticket.game);
    try {
      // the socket first: a realtime ticket waits while I am connected
      const socket = listen();
      let made;
      try {
        made = await api.queue(ticket);
      } catch (error) {
        if (socket) socket.close();
        throw error;
      }
      waiting = { ticketId: made.ticket_id, started: Date.now(), socket, tick: null, poll: null };
      if (made.state === "matched" && made.table_id) return open(made.table_id);
      showWaiting(title);
      waiting.poll = setTimeout(poll, POLL_MS);
    } catch (error) {
      stopWaiting();
      message.textContent = error.message;
    }
  }

  const playNow = h(
    "ul",
    { class: "play-now" },
    games.map((game) =>
      h(
        "li",
        {},
        h(
          "button",
          {
            type: "button",
            class: "primary",
            "data-quick": game.name,
            "data-testid": `play-now-${game.name}`,
            onclick: () =>
              queue({
                game: game.name,
                seats: game.default_seats,
                pace: "realtime",
                bots_ok: true,
                bots_after_s: PLAY_NOW_BOTS_AFTER_S,
              }),
          },
          `Play now: ${game.title}`,
        ),
      ),
    ),
  );

  // "Find a game": the same ticket with everything chosen
  const select = h(
    "select",
    { id: "find-game", "data-testid": "find-game" },
    games.map((g) => h("option", { value: g.name }, g.title)),
  );
  const low = h("input", { id: "find-min", type: "number", inputmode: "numeric", "data-testid": "find-min" });
  const high = h("input", { id: "find-max", type: "number", inputmode: "numeric", "data-testid": "find-max" });
  const pace = h(
    "select",
    { id: "find-pace", "data-testid": "find-pace" },
    h("option", { value: "realtime" }, "Real time (while I am here)"),
    h("option", { value: "turn_based" }, "Turn-based (a day a move)"),
  );
  const bots = h("input", { id: "find-bots", type: "checkbox", checked: true, "data-testid": "find-bots" });
  const botsAfter = h("input", {
    id: "find-bots-after",
    type: "number",
    min: "1",
    value: String(PLAY_NOW_BOTS_AFTER_S),
    inputmode: "numeric",
    "data-testid": "find-bots-after",
  });
  const optionsBox = h("div", { class: "options" });

  function syncGame() {
    const game = games.find((g) => g.name === select.value) || games[0];
    if (!game) return;
    for (const field of [low, high]) {
      field.min = String(game.min_seats);
      field.max = String(game.max_seats);
    }
    low.value = high.value = String(game.default_seats);
    replaceChildren(
      optionsBox,
      game.options.map((option) =>
        h(
          "div",
          { class: "field" },
          h("label", { for: `find-option-${option.key}` }, option.label),
          h(
            "select",
            { id: `find-option-${option.key}`, "data-option": option.key },
            h("option", { value: "" }, "Any"),
            option.values.map((value) => h("option", { value }, valueLabel(option, value))),
          ),
        ),
      ),
    );
  }
  select.addEventListener("change", syncGame);

  const form = h(
    "form",
    {
      onsubmit: (event) => {
        event.preventDefault();
        const options = {};
        for (const field of optionsBox.querySelectorAll("select[data-option]")) {
          if (field.value) options[field.dataset.option] = field.value;
        }
        queue({
          game: select.value,
          seats: { min: Number(low.value), max: Number(high.value) },
          options,
          pace: pace.value,
          bots_ok: bots.checked,
          bots_after_s: Math.max(1, Number(botsAfter.value) || PLAY_NOW_BOTS_AFTER_S),
        });
      },
    },
    h("div", { class: "field" }, h("label", { for: "find-game" }, "Game"), select),
    h(
      "div",
      { class: "field seats-range" },
      h("label", { for: "find-min" }, "Seats from"),
      low,
      h("label", { for: "find-max" }, "to"),
      high,
    ),
    h("div", { class: "field" }, h("label", { for: "find-pace" }, "Pace"), pace),
    optionsBox,
    h("div", { class: "field check" }, bots, h("label", { for: "find-bots" }, "Bots may fill empty seats")),
    h(
      "div",
      { class: "field" },
      h("label", { for: "find-bots-after" }, "Bots after (seconds)"),
      botsAfter,
    ),
    h("button", { type: "submit", "data-quick": "find", "data-testid": "find-submit" }, "Find a game"),
  );

  replaceChildren(
    box,
    h("h2", { id: "quick-title" }, "Quick play"),
    playNow,
    panel,
    message,
    h("details", { class: "find" }, h("summary", {}, "Find a game"), form),
  );
  syncGame();
  return stopWaiting;
}
