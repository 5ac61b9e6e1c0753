// Replay: step through a table's views, seq by seq (GET /v1/tables/{id}/replay?at=SEQ:
// my seat's view if I held one, else the spectator's). A slider, step buttons, and a
// short text of who did what at that step (the difference from the step before).

import { api } from "../lib/api.js";
import { catalogue, gameTitle } from "../lib/catalogue.js";
import { h, replaceChildren } from "../lib/dom.js";
import { makeContext } from "../games/common.js";
import { gameModule } from "../games/index.js";
import { describeTable } from "../games/describe.js";
import { drawGame } from "./table.js";

const DEBOUNCE_MS = 120;

export function mountReplay(root, { tableId, params }) {
  const cache = new Map();
  const st = { last: 0, seq: 0, view: null, mod: null, cat: null, title: "", error: "", ui: {} };
  let stopped = false;
  let timer = null;

  const slider = h("input", {
    id: "replay-seq",
    type: "range",
    min: "1",
    step: "1",
    "data-testid": "replay-slider",
    "aria-label": "Step (seq)",
    oninput: () => {
      seqOut.textContent = slider.value;
      clearTimeout(timer);
      const direction = Number(slider.value) >= st.seq ? 1 : -1;
      timer = setTimeout(() => show(Number(slider.value), direction), DEBOUNCE_MS);
    },
  });
  const seqOut = h("output", { for: "replay-seq", "data-testid": "replay-seq" });
  const button = (testid, text, label, delta) =>
    h(
      "button",
      {
        type: "button",
        "data-testid": testid,
        "aria-label": label,
        onclick: () => {
          if (delta === "first") show(1, 1);
          else if (delta === "last") show(st.last, -1);
          else show(st.seq + delta, delta);
        },
      },
      text,
    );
  const controls = h(
    "div",
    { class: "replay-controls row", role: "group", "aria-label": "Replay controls" },
    button("replay-first", "|◀", "First step", "first"),
    button("replay-prev", "◀", "Previous step", -1),
    h("label", { for: "replay-seq" }, "Step "),
    slider,
    seqOut,
    button("replay-next", "▶", "Next step", 1),
    button("replay-last", "▶|", "Last step", "last"),
  );
  const log = h("div", { class: "replay-log", "data-testid": "replay-log", "aria-live": "polite" });
  const board = h("section", {
    class: "table-page replay",
    "data-testid": "table",
    "data-replay": "1",
    "data-table": tableId,
  });
  const message = h("p", { class: "message", role: "alert" });
  const titleEl = h("h1", {}, "Replay");
  replaceChildren(
    root,
    h(
      "div",
      { class: "replay-page", "data-testid": "replay" },
      titleEl,
      controls,
      message,
      log,
      board,
      h("p", {}, h("a", { href: `#/table/${tableId}` }, "Back to the table"), " · ", h("a", { href: "#/" }, "Lobby")),
    ),
  );

  async function viewAt(seq) {
    if (!cache.has(seq)) {
      cache.set(
        seq,
        api.replay(tableId, seq).catch((error) => {
          cache.delete(seq);
          throw error;
        }),
      );
    }
    return cache.get(seq);
  }

  const HISTORY = 5; // earlier steps shown under the current one

  function contextFor(view) {
    const quiet = { ...view, legal: [] };
    return makeContext({ view: quiet, cat: st.cat, ui: st.ui, busy: true, send: () => {}, rerender: () => show(st.seq) });
  }

  // The service cannot replay some steps for a seat (inside one command's events, see
  // docs/web.md): look for the nearest step it can show, in the direction of travel.
  const SEARCH = 40;
  async function readable(seq, direction) {
    let lastError = null;
    for (let i = 0, at = seq; i < SEARCH && at >= 1 && at <= st.last; i += 1, at += direction) {
      try {
        await viewAt(at);
        return { at, skipped: at - seq };
      } catch (error) {
        lastError = error;
        if (error.status !== 500) break;
      }
    }
    throw lastError || new Error("no such step");
  }

  async function show(wanted, direction = -1) {
    wanted = Math.max(1, Math.min(st.last, wanted));
    let seq = wanted;
    let note = "";
    try {
      const found = await readable(wanted, direction);
      seq = found.at;
      if (found.skipped) {
        note = `Step ${wanted} cannot be replayed for this view; showing step ${seq}.`;
      }
      const first = Math.max(1, seq - HISTORY - 1);
      // Earlier steps only add context: one that cannot be read is left out.
      const views = await Promise.all(
        Array.from({ length: seq - first + 1 }, (_, i) =>
          first + i === seq ? viewAt(seq) : viewAt(first + i).catch(() => null),
        ),
      );
      if (stopped) return;
      const view = views[views.length - 1];
      st.seq = seq;
      st.view = view;
      slider.value = String(seq);
      seqOut.textContent = `${seq} / ${st.last}`;
      const ctx = contextFor(view);
      const stepLines = (i) => {
        const at = first + i;
        const prev = i > 0 ? views[i - 1] : null;
        if (!views[i] || (!prev && at > 1)) return [];
        return describeTable(prev, views[i], contextFor(views[i]), st.mod);
      };
      const lines = stepLines(views.length - 1);
      const earlier = [];
      for (let i = views.length - 2; i >= 1; i -= 1) {
        const said = stepLines(i);
        if (said.length) earlier.push(h("li", {}, h("strong", {}, `Step ${first + i}: `), said.join(" ")));
      }
      replaceChildren(
        log,
        h("h2", {}, `Step ${seq}`),
        h("ul", {}, (lines.length ? lines : ["Nothing visible changed at this step."]).map((line) => h("li", {}, line))),
        earlier.length ? h("details", { open: true }, h("summary", {}, "Just before"), h("ul", { class: "meta" }, earlier)) : null,
      );
      board.dataset.seq = String(view.seq);
      board.dataset.phase = view.phase;
      board.dataset.viewer = view.viewer === null ? "spectator" : String(view.viewer);
      replaceChildren(
        board,
        view.view ? drawGame(st.mod, ctx) : h("p", { class: "hint" }, "The game has not started at this step."),
        view.phase === "finished" && view.standing ? finalLine(view, ctx) : null,
      );
      const url = `#/table/${tableId}/replay?at=${seq}`;
      if (location.hash !== url) history.replaceState(null, "", url);
      message.textContent = note;
    } catch (error) {
      message.textContent = `Step ${wanted} cannot be shown: ${error.message}.`;
      seqOut.textContent = `${wanted} / ${st.last}`;
    }
  }

  function finalLine(view, ctx) {
    const order = view.seats.map((s) => s.seat).sort((a, b) => view.standing.ranks[a] - view.standing.ranks[b]);
    return h(
      "section",
      { class: "panel standings", "data-testid": "standings" },
      h("h2", {}, "Final standings"),
      h(
        "ol",
        {},
        order.map((seat) =>
          h("li", {}, `${ctx.name(seat)}: ${view.standing.points[seat]} points (rank ${view.standing.ranks[seat]})`),
        ),
      ),
    );
  }

  (async () => {
    try {
      const current = await api.view(tableId);
      st.mod = gameModule(current.game);
      [st.cat, st.title] = await Promise.all([catalogue(current.game), gameTitle(current.game)]);
      st.last = current.seq;
      titleEl.textContent = `Replay · ${st.title} · table ${tableId}`;
      document.title = `Replay · ${st.title} · Orrery`;
      slider.max = String(st.last);
      const wanted = Number(params.get("at") || st.last);
      await show(Number.isFinite(wanted) && wanted > 0 ? wanted : st.last);
    } catch (error) {
      message.textContent = error.message;
    }
  })();

  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
