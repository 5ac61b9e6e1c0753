// Replay: step through a table's views one move at a time (GET /v1/tables/{id}/replay:
// my seat's view if I held one, else the spectator's). Step n is the table after its
// n-th command (a join, the start, a move): the gateway never shows the table between
// the events of one command, since nobody saw it there. The slider's value is the step;
// the page keeps the seq the gateway answered in data-seq (for links; the words say
// "step", never a seq) and a short text of who did what at that step and the few before.

import { api } from "../lib/api.js";
import { catalogue, gameTitle } from "../lib/catalogue.js";
import { h, replaceChildren } from "../lib/dom.js";
import { setPageTitle } from "../lib/notify.js";
import { makeContext } from "../games/common.js";
import { gameModule } from "../games/index.js";
import { gameParts } from "../components/game.js";
import { ReplayControls } from "../components/replay-controls.js";
import { replayStory } from "../components/replay-story.js";
import { standingsPanel } from "../components/standings.js";

export function mountReplay(root, { tableId, params }) {
  const cache = new Map(); // step -> the answer's promise
  const st = { steps: 1, step: 0, seq: 0, last: 0, view: null, mod: null, cat: null, title: "", ui: {} };
  let stopped = false;
  let shown = 0; // the latest show() call: an older one that resolves later is dropped

  const controls = new ReplayControls({
    go: (step) => show({ step }),
    current: () => st.step,
    steps: () => st.steps,
  });
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
      controls.element,
      message,
      log,
      board,
      h("p", {}, h("a", { href: `#/table/${tableId}` }, "Back to the table"), " · ", h("a", { href: "#/" }, "Lobby")),
    ),
  );

  function remember(answer) {
    const where = answer.replay;
    const promise = Promise.resolve(answer);
    if (!cache.has(where.step)) cache.set(where.step, promise);
    st.steps = where.steps;
    st.last = where.last_seq;
    controls.setSteps(where.steps);
    return answer;
  }

  async function atStep(step) {
    if (!cache.has(step)) {
      cache.set(
        step,
        api.replay(tableId, { step }).then(remember, (error) => {
          cache.delete(step);
          throw error;
        }),
      );
    }
    return cache.get(step);
  }

  const HISTORY = 5; // earlier steps shown under the current one

  function contextFor(view) {
    const quiet = { ...view, legal: [] };
    return makeContext({ view: quiet, cat: st.cat, ui: st.ui, busy: true, send: () => {}, rerender: () => draw() });
  }

  // where: {step: N} or {at: SEQ} (a seq inside one command shows the table after it)
  async function show(where) {
    const call = ++shown;
    try {
      let answer;
      if (where.step === undefined) {
        // a seq (or, with none, now): the gateway answers the step holding it
        answer = remember(await api.replay(tableId, where.at === undefined ? {} : { at: where.at }));
        if (answer.replay.step === 0) answer = await atStep(1); // seq 0: before the table
      } else {
        answer = await atStep(Math.max(1, Math.min(st.steps, where.step)));
      }
      const step = answer.replay.step;
      const first = Math.max(1, step - HISTORY - 1);
      // Earlier steps only add context: one that cannot be read is left out.
      const views = await Promise.all(
        Array.from({ length: step - first + 1 }, (_, i) =>
          first + i === step ? answer : atStep(first + i).catch(() => null),
        ),
      );
      if (stopped || call !== shown) return;
      st.step = step;
      st.seq = answer.seq;
      st.view = answer;
      st.views = views;
      st.first = first;
      const asked = answer.replay.at;
      st.note =
        where.at !== undefined && asked !== answer.seq && asked > 0
          ? `The link points into the middle of a move: showing the table after that move (step ${answer.replay.step}).`
          : "";
      draw();
    } catch (error) {
      if (call !== shown) return;
      message.textContent = `That step cannot be shown: ${error.message}.`;
    }
  }

  function draw() {
    const view = st.view;
    if (!view) return;
    const { views, first, step } = st;
    controls.show(step, st.steps);
    const ctx = contextFor(view);
    replaceChildren(log, replayStory({ views, first, step, contextFor, mod: st.mod }));
    board.dataset.seq = String(view.seq);
    board.dataset.step = String(step);
    board.dataset.phase = view.phase;
    board.dataset.viewer = view.viewer === null ? "spectator" : String(view.viewer);
    const parts = view.view ? gameParts(st.mod, ctx) : null;
    replaceChildren(
      board,
      parts ? [parts.board, parts.hand, parts.details] : h("p", { class: "hint" }, "The game has not started at this step."),
      view.phase === "finished" ? standingsPanel(view, ctx.name, tableId) : null,
    );
    const url = `#/table/${tableId}/replay?at=${view.seq}`;
    if (location.hash !== url) history.replaceState(null, "", url);
    message.textContent = st.note;
  }

  (async () => {
    try {
      const table = await api.table(tableId);
      st.mod = gameModule(table.game);
      [st.cat, st.title] = await Promise.all([catalogue(table.game), gameTitle(table.game)]);
      titleEl.textContent = `Replay · ${st.title} · table ${tableId}`;
      setPageTitle(`Replay · ${st.title} · Orrery`);
      const at = Number(params.get("at"));
      const step = Number(params.get("step"));
      if (params.get("step") && Number.isInteger(step) && step > 0) {
        remember(await api.replay(tableId)); // how many steps there are
        await show({ step });
      } else {
        await show(params.get("at") && Number.isInteger(at) && at >= 0 ? { at } : {});
      }
    } catch (error) {
      message.textContent = error.message;
    }
  })();

  return () => {
    stopped = true;
    controls.stop();
  };
}
