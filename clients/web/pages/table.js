// The table page: live over the WebSocket. It holds the page's state (the view shown, my
// command waiting for its outcome, messages) and places the components: the status line
// with the turn announcer, the seat strip, before the start the seating panel, then the
// board with the side column (my moves, my hand, the move log, and a slot for other
// side panels), the table in words below, and at the end the standings.
//
// The root carries data-testid="table", data-seq and data-phase of the view shown, and
// data-busy while a command of mine waits for its outcome and for the view showing it.
//
// Side panels of other modules (chat, undo…) go into the element returned by
// sideSlot(page): it is made once and kept across re-renders, at the end of the side
// column under the move log. There: the table's chat (../chat.js). Above my moves: an
// Undo button (data-testid="undo") when my view's legal offers table.undo.

import { TableChat } from "../chat.js";
import { api, created } from "../lib/api.js";
import { catalogue, gameTitle } from "../lib/catalogue.js";
import { h, replaceChildren } from "../lib/dom.js";
import { LiveTable } from "../lib/live.js";
import { LastMoves } from "../lib/lastmove.js";
import { refreshTurns, setPageTitle } from "../lib/notify.js";
import { forgetTurn, noticeTurn } from "../lib/turn.js";
import { NARROW_QUERY, makeContext } from "../games/common.js";
import { gameModule } from "../games/index.js";
import { gameParts } from "../components/game.js";
import { MoveLog } from "../components/log.js";
import { otherMoves } from "../components/moves.js";
import { leaveButton, lobbyPanel } from "../components/seating.js";
import { seatStrip } from "../components/seats.js";
import { renderFriends } from "../components/social.js";
import { standingsPanel } from "../components/standings.js";
import { Announcer, statusHeader, turnText } from "../components/status.js";

const BUSY_LIMIT_MS = 15000;

export function sideSlot(page) {
  return page.querySelector("[data-slot=side-extra]");
}

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
  // Made once, moved into each render: their content and scroll position persist.
  const announcer = new Announcer();
  const log = new MoveLog(tableId);
  const lastMoves = new LastMoves();
  const extra = h("div", { class: "side-extra", "data-slot": "side-extra" });
  const chat = new TableChat(tableId);
  // Labelled by its heading only while the friends list is drawn (an empty section with a
  // label pointing nowhere is an accessibility error).
  const friendsBox = h("section", { class: "panel", "data-testid": "table-friends", hidden: true });
  extra.append(chat.node, friendsBox);
  replaceChildren(root, page);

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
      const shown = () => {
        log.update(view, context(), st.mod);
        render();
      };
      if (first) prepare(view).then(shown);
      else shown();
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
  // The boards have a narrow layout for phones: draw again when the width crosses it.
  const narrow = matchMedia(NARROW_QUERY);
  const redraw = () => st.view && render();
  narrow.addEventListener("change", redraw);

  async function prepare(view) {
    st.mod = gameModule(view.game);
    [st.cat, st.title] = await Promise.all([catalogue(view.game), gameTitle(view.game)]);
    loadSummary();
  }

  async function loadSummary() {
    // Bot marks live in the table's summary (GET /v1/tables/{id}: the lobby's record).
    try {
      st.summary = await api.table(tableId);
      if (st.summary.state === "open") {
        friendsBox.hidden = false;
        friendsBox.setAttribute("aria-labelledby", "friends-title");
        renderFriends(friendsBox, { tableId }); // invite them
      } else {
        friendsBox.hidden = true;
        friendsBox.removeAttribute("aria-labelledby");
        friendsBox.replaceChildren();
      }
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
    } catch (error) {
      say(error.message);
    }
    st.busy = false;
    st.confirmLeave = false;
    render();
    if (what !== "leave") loadSummary();
  }

  const actions = {
    join: () => lifecycle("join", () => api.join(tableId, invite)),
    bot: (level) => lifecycle("bot", () => api.bot(tableId, level)),
    start: () => lifecycle("start", () => api.start(tableId)),
    leave: () => lifecycle("leave", () => api.leave(tableId)),
    confirm: (yes) => {
      st.confirmLeave = yes;
      render();
    },
  };

  function context() {
    return makeContext({ view: st.view, cat: st.cat, ui: st.ui, busy: st.busy, send, rerender: render, boardPx: boardPx() });
  }

  // The board column's inner width (its board's border left out), read before drawing:
  // the board is packed into it at a legible scale (lib/svg.js flowBoard).
  function boardPx() {
    const column = frame.layout.firstChild;
    return column && column.isConnected ? Math.max(0, column.clientWidth - 2) : 0;
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

  // The page's frame, made once: each render fills its boxes. A box that stays in place
  // keeps its scroll position (the side column, the board's frame on a phone) and the
  // side slot never moves (a panel there keeps its focus and what is typed in it).
  const box = (attrs = {}) => h("div", attrs);
  const frame = {
    head: box(),
    message: h("p", { class: "message", "data-testid": "message" }),
    seats: box(),
    phase: box(),
    boardWrap: box({ class: "board-wrap" }),
    under: box(),
    sideDynamic: box(),
    details: box(),
    foot: box(),
  };
  frame.layout = h(
    "div",
    { class: "table-layout" },
    h("div", { class: "board-column" }, frame.boardWrap, frame.under),
    h(
      "aside",
      { class: "side-column", "aria-label": "Your moves, your hand and the move log", "data-testid": "side" },
      frame.sideDynamic,
      extra,
    ),
  );
  // A board column that changes width (the window resized, the side column moving below)
  // gets its board packed again, in the next frame (not inside the observer's round,
  // which the new board's height would start again); a change of height alone does not.
  let drawnPx = 0;
  const resized = new ResizeObserver(() => {
    if (st.view && drawnPx && Math.abs(boardPx() - drawnPx) >= 1) requestAnimationFrame(() => render());
  });
  resized.observe(frame.layout.firstChild);
  const frameNodes = [
    frame.head,
    announcer.element,
    frame.message,
    frame.seats,
    frame.phase,
    frame.layout,
    frame.details,
    frame.foot,
  ];

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
    if (page.firstChild !== frame.head) replaceChildren(page, frameNodes);
    page.dataset.seq = String(view.seq);
    page.dataset.phase = view.phase;
    page.dataset.viewer = view.viewer === null ? "spectator" : String(view.viewer);
    page.dataset.toMove = view.to_move.join(",");
    if (st.busy) page.dataset.busy = "1";
    else delete page.dataset.busy;

    const playing = view.view !== null && view.view !== undefined;
    frame.layout.className = "table-layout" + (playing ? "" : " no-board");
    const ctx = context();
    drawnPx = ctx.boardPx;
    if (ctx.myTurn) page.dataset.myTurn = "1";
    else delete page.dataset.myTurn;
    setPageTitle(`${st.title} · Orrery`);
    if (noticeTurn(ctx.myTurn)) refreshTurns();
    announcer.say(turnText(view, ctx));

    const parts = view.view ? gameParts(st.mod, ctx) : {};
    const leftovers = ctx.legal.filter(
      (body) => !(st.mod.handles(body) && !ctx.fellBack) && !ctx.rendered.has(JSON.stringify(body)),
    );
    const bots = new Set(((st.summary && st.summary.players) || []).filter((p) => p.bot).map((p) => p.seat));
    const hadFocus = page.contains(document.activeElement);

    replaceChildren(frame.head, statusHeader(view, ctx, { title: st.title, connection: st.connection }));
    frame.message.className = "message " + (st.tone || "");
    frame.message.setAttribute("role", st.tone === "error" ? "alert" : "status");
    frame.message.textContent = st.fatal || st.message;
    replaceChildren(frame.seats, seatStrip(view, bots, (st.summary && st.summary.players) || []));
    replaceChildren(
      frame.phase,
      view.phase === "lobby"
        ? lobbyPanel(view, {
            tableId,
            busy: st.busy,
            createdHere: created()[tableId],
            confirming: st.confirmLeave,
            actions,
          })
        : null,
      view.phase === "finished" ? standingsPanel(view, ctx.name, tableId) : null,
    );
    // On a phone the board keeps a legible size and pans inside its frame.
    frame.boardWrap.hidden = !parts.board;
    replaceChildren(frame.boardWrap, parts.board);
    lastMoves.mark(parts.board, view);
    replaceChildren(frame.under, parts.under);
    replaceChildren(
      frame.sideDynamic,
      undoBar(view),
      parts.moves,
      otherMoves(leftovers, ctx, st.mod),
      parts.hand,
      playing ? log.element : null,
    );
    replaceChildren(
      frame.details,
      parts.details
        ? h(
            "section",
            { class: "details", "aria-labelledby": "details-title" },
            h("h2", { id: "details-title" }, "The table in words"),
            parts.details,
          )
        : null,
    );
    replaceChildren(frame.foot, footer(view));
    if (playing) log.restore();
    if (hadFocus && !page.contains(document.activeElement)) {
      const target =
        page.querySelector("[data-testid=side] button:not([disabled]), [data-testid=board] [data-command]") || page;
      target.focus({ preventScroll: true });
    }
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

  function footer(view) {
    const canLeave = view.phase === "playing" && (view.legal || []).some((b) => b.type === "table.leave");
    return h(
      "footer",
      { class: "table-foot row" },
      h("a", { href: "#/" }, "Back to the lobby"),
      view.seq > 1 ? h("a", { href: `#/table/${tableId}/replay` }, "Replay so far") : null,
      canLeave ? leaveButton(view, "Concede", { busy: st.busy, confirming: st.confirmLeave, actions }) : null,
    );
  }

  return () => {
    narrow.removeEventListener("change", redraw);
    resized.disconnect();
    forgetTurn();
    live.close();
    clearTimeout(st.busyTimer);
  };
}
