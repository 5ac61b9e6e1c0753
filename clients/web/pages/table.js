// The table page: live over the WebSocket. Before the start: seats, join, bots, start,
// the invite link. While playing: the game drawn by its module, whose turn it is, live
// scores, my private panel and my legal moves as buttons. At the end: the standings.
//
// The root carries data-testid="table", data-seq and data-phase of the view shown, and
// data-busy while a command of mine waits for its outcome and for the view showing it.
// Beside the board: an Undo button (data-testid="undo") when my view's legal offers
// table.undo, and the table's chat (../chat.js), kept outside the re-rendered page.

import { TableChat } from "../chat.js";
import { api, created } from "../lib/api.js";
import { catalogue, gameTitle } from "../lib/catalogue.js";
import { h, plural, replaceChildren } from "../lib/dom.js";
import { LiveTable } from "../lib/live.js";
import { makeContext, swatch } from "../games/common.js";
import * as generic from "../games/generic.js";
import { gameModule } from "../games/index.js";

const BUSY_LIMIT_MS = 15000;

export function mountTable(root, { tableId, params }) {
  const invite = params.get("invite");
  const st = {
    view: null,
    cat: null,
    mod: null,
    title: "",
    busy: false,
    waitSeq: null,
    busyTimer: null,
    message: "",
    tone: "",
    connection: "connecting",
    fatal: null,
    ui: {},
    confirmLeave: false,
    summary: null,
  };
  const page = h("section", {
    class: "table-page",
    "data-testid": "table",
    "data-table": tableId,
    "aria-labelledby": "table-title",
  });
  const chat = new TableChat(tableId);
  replaceChildren(root, h("div", { class: "table-layout" }, page, chat.node));

  const live = new LiveTable(tableId, {
    onChat: (message) => chat.receive(message),
    onChatError: (message) => chat.refused(message),
    onOpen: () => chat.refresh(),
    onView: (view) => {
      const first = st.view === null;
      const seatsChanged = st.view && JSON.stringify(st.view.seats) !== JSON.stringify(view.seats);
      st.view = view;
      chat.setViewer(view.viewer);
      if (st.busy && st.waitSeq !== null && view.seq >= st.waitSeq) settle();
      if (first) prepare(view).then(render);
      else render();
      if ((first || seatsChanged) && view.phase === "lobby") loadSummary();
    },
    onStatus: (status) => {
      st.connection = status;
      if (st.view) render();
    },
    onFatal: (code, message) => {
      st.fatal = message;
      render();
    },
  });
  chat.attach(live);
  live.start();

  async function prepare(view) {
    st.mod = gameModule(view.game);
    [st.cat, st.title] = await Promise.all([catalogue(view.game), gameTitle(view.game)]);
  }

  async function loadSummary() {
    // Bot marks live in the table's summary (GET /v1/tables/{id}: the lobby's record).
    try {
      st.summary = await api.table(tableId);
      render();
    } catch {
      /* not essential */
    }
  }

  function settle() {
    st.busy = false;
    st.waitSeq = null;
    clearTimeout(st.busyTimer);
  }

  function say(message, tone = "error") {
    st.message = message;
    st.tone = tone;
  }

  async function send(body) {
    if (st.busy) return;
    st.busy = true;
    st.waitSeq = null;
    say("");
    page.dataset.outcome = "pending";
    render();
    const outcome = await live.send(body);
    if (outcome.outcome === "accepted") {
      page.dataset.outcome = "accepted";
      if (st.view && st.view.seq >= outcome.last_seq) settle();
      else {
        st.waitSeq = outcome.last_seq;
        st.busyTimer = setTimeout(() => {
          settle();
          render();
        }, BUSY_LIMIT_MS);
      }
    } else {
      page.dataset.outcome = "rejected";
      settle();
      say(outcome.message || "The move was refused.");
    }
    render();
  }

  async function lifecycle(what, action) {
    say("");
    st.busy = true;
    render();
    try {
      const outcome = await action();
      if (outcome && outcome.outcome === "rejected") say(outcome.message);
      else if (what === "join") say("You took a seat.", "ok");
    } catch (error) {
      say(error.message);
    }
    st.busy = false;
    st.confirmLeave = false;
    render();
    if (what !== "leave") loadSummary();
  }

  // ------------------------------------------------------------ drawing
  let drawing = false;
  let again = false;
  function render() {
    // A render may fire events (a focused input losing focus) that ask for another one:
    // run that one right after, never inside.
    if (drawing) {
      again = true;
      return;
    }
    drawing = true;
    try {
      draw();
    } finally {
      drawing = false;
    }
    if (again) {
      again = false;
      queueMicrotask(render);
    }
  }

  function draw() {
    if (st.fatal && !st.view) {
      replaceChildren(
        page,
        h("h1", { id: "table-title" }, "Table"),
        h("p", { class: "message", role: "alert", "data-testid": "message" }, st.fatal),
        h("p", {}, h("a", { href: "#/" }, "Back to the lobby")),
      );
      return;
    }
    const view = st.view;
    if (!view || !st.mod) {
      replaceChildren(page, h("p", { class: "hint" }, "Connecting to the table…"));
      return;
    }
    page.dataset.seq = String(view.seq);
    page.dataset.phase = view.phase;
    page.dataset.viewer = view.viewer === null ? "spectator" : String(view.viewer);
    page.dataset.toMove = view.to_move.join(",");
    if (st.busy) page.dataset.busy = "1";
    else delete page.dataset.busy;

    const ctx = makeContext({
      view,
      cat: st.cat,
      ui: st.ui,
      busy: st.busy,
      send,
      rerender: render,
    });
    if (ctx.myTurn) page.dataset.myTurn = "1";
    else delete page.dataset.myTurn;
    document.title = `${st.title} · Orrery`;

    const board = view.view ? drawGame(st.mod, ctx) : null;
    const leftovers = ctx.legal.filter(
      (body) => !(st.mod.handles(body) && !ctx.fellBack) && !ctx.rendered.has(JSON.stringify(body)),
    );
    const hadFocus = page.contains(document.activeElement);
    replaceChildren(
      page,
      header(view, ctx),
      h(
        "p",
        {
          class: "message " + (st.tone || ""),
          role: st.tone === "error" ? "alert" : "status",
          "data-testid": "message",
        },
        st.fatal || st.message,
      ),
      seatStrip(view, ctx),
      view.phase === "lobby" ? lobbyPanel(view) : null,
      view.phase === "finished" ? standings(view, ctx) : null,
      leftovers.length ? otherMoves(leftovers, ctx) : null,
      undoBar(view),
      board,
      footer(view),
    );
    if (hadFocus && !page.contains(document.activeElement)) {
      const target = page.querySelector("[data-testid=moves] button:not([disabled])") || page;
      target.focus({ preventScroll: true });
    }
  }

  function header(view, ctx) {
    const turn = view.to_move.length
      ? view.to_move.map((seat) => (seat === view.viewer ? "you" : ctx.name(seat))).join(", ")
      : null;
    const phase = {
      lobby: "Waiting for players",
      playing: turn ? `To move: ${turn}` : "Playing",
      finished: "Game over",
      none: "No such table",
    }[view.phase];
    return h(
      "header",
      { class: "table-head" },
      h("h1", { id: "table-title" }, st.title, h("span", { class: "meta" }, ` · table ${view.table_id}`)),
      h(
        "p",
        { class: "status-line" },
        h("span", { "data-testid": "turn", "aria-live": "polite" }, phase),
        view.round ? h("span", { class: "meta" }, ` · round ${view.round}`) : null,
        view.viewer === null
          ? h("span", { class: "badge", "data-testid": "spectating" }, "Watching")
          : h("span", { class: "badge" }, `You are seat ${view.viewer + 1}`),
        h(
          "span",
          { class: `badge conn-${st.connection}`, role: "status", "data-testid": "connection" },
          { live: "Live", connecting: "Connecting…", reconnecting: "Reconnecting…", closed: "Offline" }[
            st.connection
          ] || st.connection,
        ),
        ctx.myTurn ? h("strong", { class: "your-turn" }, " Your turn") : null,
      ),
    );
  }

  function seatStrip(view, ctx) {
    const scores = view.view ? st.mod.scores(ctx) : null;
    const bots = new Set(
      ((st.summary && st.summary.players) || []).filter((p) => p.bot).map((p) => p.seat),
    );
    return h(
      "ol",
      { class: "seats", "aria-label": "Seats", "data-testid": "seats" },
      view.seats.map((seat) =>
        h(
          "li",
          {
            class:
              "seat" +
              (view.to_move.includes(seat.seat) ? " to-move" : "") +
              (seat.seat === view.viewer ? " mine" : ""),
            "data-seat": seat.seat,
          },
          swatch(seat.seat),
          h("span", { class: "name" }, seat.name || "open seat"),
          bots.has(seat.seat) ? h("span", { class: "meta" }, " (bot)") : null,
          seat.seat === view.viewer ? h("span", { class: "meta" }, " (you)") : null,
          seat.left ? h("span", { class: "meta" }, " (left)") : null,
          view.to_move.includes(seat.seat)
            ? h("span", { class: "badge turn-badge" }, "to move")
            : null,
          scores && scores[seat.seat] !== undefined && scores[seat.seat] !== null
            ? h("span", { class: "score", "data-testid": `score-${seat.seat}` }, `${scores[seat.seat]} pts`)
            : null,
        ),
      ),
    );
  }

  function lobbyPanel(view) {
    const open = view.seats.filter((s) => !s.name).length;
    const mine = view.viewer !== null;
    const mineCreated = created()[tableId];
    const canStart = (view.legal || []).some((b) => b.type === "table.start");
    const canLeave = (view.legal || []).some((b) => b.type === "table.leave");
    const inviteLink =
      mineCreated && mineCreated.invite
        ? `${location.origin}${location.pathname}#/table/${tableId}?invite=${mineCreated.invite}`
        : null;
    return h(
      "section",
      { class: "panel lobby-panel", "aria-labelledby": "lobby-title" },
      h("h2", { id: "lobby-title" }, "Before the start"),
      h(
        "p",
        {},
        open
          ? `${plural(open, "seat")} still open. Invite friends, add bots, then start.`
          : "Every seat is taken: any seated player can start.",
      ),
      inviteLink
        ? h(
            "p",
            { class: "invite" },
            h("label", { for: "invite-link" }, "Invite link (private table): "),
            h("input", {
              id: "invite-link",
              readonly: true,
              value: inviteLink,
              "data-testid": "invite-link",
              onfocus: (event) => event.target.select(),
            }),
          )
        : null,
      h(
        "div",
        { class: "row" },
        !mine && open
          ? h(
              "button",
              {
                type: "button",
                class: "primary",
                "data-testid": "join",
                "data-key": "join",
                disabled: st.busy,
                onclick: () => lifecycle("join", () => api.join(tableId, invite)),
              },
              "Take a seat",
            )
          : null,
        open && (mine || mineCreated)
          ? h(
              "button",
              {
                type: "button",
                "data-testid": "add-bot",
                "data-key": "add-bot",
                disabled: st.busy,
                onclick: () => lifecycle("bot", () => api.bot(tableId)),
              },
              "Add a bot",
            )
          : null,
        canStart
          ? h(
              "button",
              {
                type: "button",
                class: "primary",
                "data-testid": "start",
                "data-key": "start",
                "data-lifecycle": "table.start",
                disabled: st.busy,
                onclick: () => lifecycle("start", () => api.start(tableId)),
              },
              "Start the game",
            )
          : null,
        canLeave ? leaveButton("Give up my seat") : null,
      ),
    );
  }

  function leaveButton(text) {
    if (!st.confirmLeave) {
      return h(
        "button",
        {
          type: "button",
          "data-testid": "leave",
          "data-key": "leave",
          "data-lifecycle": "table.leave",
          disabled: st.busy,
          onclick: () => {
            st.confirmLeave = true;
            render();
          },
        },
        text,
      );
    }
    return h(
      "span",
      { class: "confirm" },
      st.view.phase === "playing" ? "Leave and concede? A bot plays your seat. " : "Leave your seat? ",
      h(
        "button",
        {
          type: "button",
          class: "danger",
          "data-testid": "leave-confirm",
          "data-key": "leave-confirm",
          "data-lifecycle": "table.leave",
          onclick: () => lifecycle("leave", () => api.leave(tableId)),
        },
        "Yes, leave",
      ),
      h(
        "button",
        {
          type: "button",
          "data-key": "leave-cancel",
          onclick: () => {
            st.confirmLeave = false;
            render();
          },
        },
        "Stay",
      ),
    );
  }

  function undoBar(view) {
    if (!(view.legal || []).some((body) => body.type === "table.undo")) return null;
    return h(
      "div",
      { class: "undo-bar row" },
      h(
        "button",
        {
          type: "button",
          "data-testid": "undo",
          "data-key": "undo",
          "data-lifecycle": "table.undo",
          disabled: st.busy,
          onclick: () => send({ type: "table.undo" }),
        },
        "Undo my last move",
      ),
      h("span", { class: "meta" }, " (only within your turn, before anything hidden is shown)"),
    );
  }

  function otherMoves(moves, ctx) {
    return h(
      "section",
      { class: "panel moves", "data-testid": "moves", "aria-labelledby": "moves-title" },
      h("h2", { id: "moves-title", tabindex: "-1" }, "Your moves"),
      h(
        "div",
        { class: "move-list" },
        moves.map((body) => ctx.button(body, st.mod.label(body, ctx))),
      ),
    );
  }

  function standings(view, ctx) {
    const standing = view.standing;
    if (!standing) return null;
    const order = view.seats
      .map((seat) => seat.seat)
      .sort((a, b) => standing.ranks[a] - standing.ranks[b] || a - b);
    return h(
      "section",
      { class: "panel standings", "data-testid": "standings", "aria-labelledby": "standings-title" },
      h("h2", { id: "standings-title" }, "Final standings"),
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, "Rank"), h("th", {}, "Player"), h("th", {}, "Points"))),
        h(
          "tbody",
          {},
          order.map((seat) =>
            h(
              "tr",
              { class: seat === view.viewer ? "mine" : "" },
              h("td", {}, standing.ranks[seat]),
              h("td", {}, swatch(seat), ctx.name(seat), view.seats[seat].left ? " (left)" : ""),
              h("td", {}, standing.points[seat]),
            ),
          ),
        ),
      ),
      h(
        "p",
        {},
        h("a", { href: `#/table/${tableId}/replay`, "data-testid": "replay-link" }, "Step through this game"),
      ),
    );
  }

  function footer(view) {
    const canLeave =
      view.phase === "playing" && (view.legal || []).some((b) => b.type === "table.leave");
    return h(
      "footer",
      { class: "table-foot row" },
      h("a", { href: "#/" }, "Back to the lobby"),
      view.seq > 1 ? h("a", { href: `#/table/${tableId}/replay` }, "Replay so far") : null,
      canLeave ? leaveButton("Concede") : null,
    );
  }

  return () => {
    live.close();
    clearTimeout(st.busyTimer);
  };
}

// A drawing bug must not blank the page: log it and fall back to the generic drawing
// (which still offers every legal move).
export function drawGame(mod, ctx) {
  try {
    return mod.render(ctx);
  } catch (error) {
    console.error("drawing failed", error);
    ctx.fellBack = true;
    return generic.render(ctx);
  }
}

