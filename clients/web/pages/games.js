// "My games": my finished and closed tables, newest finish first, live and archived
// (GET /v1/players/me/games), twenty at a time, each opening its replay.

import { api } from "../lib/api.js";
import { gamesIndex } from "../lib/catalogue.js";
import { h, replaceChildren } from "../lib/dom.js";

export function mountGames(root) {
  let stopped = false;
  let games = [];
  const shown = [];
  let next = null;
  const box = h("section", { class: "card mine", "aria-labelledby": "games-title" });
  replaceChildren(root, h("div", { class: "lobby", "data-testid": "my-games-page" }, box));

  const titleOf = (name) => (games.find((g) => g.name === name) || { title: name }).title;
  const when = (ms) => new Date(ms).toLocaleString();

  function row(game) {
    const others = game.seats
      .filter((s) => s.seat !== game.seat)
      .map((s) => `${s.name}${s.bot ? " (bot)" : ""}${s.rank ? ` #${s.rank}` : ""}`)
      .join(", ");
    const mine = game.rank ? `rank ${game.rank}, ${game.score ?? 0} points` : game.state;
    return h(
      "li",
      { "data-table": game.table_id },
      h("strong", {}, titleOf(game.game)),
      h("span", { class: "meta" }, ` · ${when(game.finished_at)} · ${mine} · `),
      h("span", {}, others ? `against ${others}` : "alone"),
      " ",
      h(
        "a",
        {
          class: "button",
          "data-key": `replay-${game.table_id}`,
          "aria-label": `Replay the ${titleOf(game.game)} game ${game.table_id}`,
          href: `#/table/${game.table_id}/replay`,
        },
        "Replay",
      ),
    );
  }

  function render(message) {
    if (stopped) return;
    replaceChildren(
      box,
      h("h2", { id: "games-title" }, "My games"),
      shown.length
        ? h("ul", { class: "table-list", "data-testid": "my-games" }, shown.map(row))
        : h("p", { class: "hint" }, message || "No finished game yet."),
      next
        ? h(
            "button",
            { type: "button", "data-testid": "older-games", onclick: () => load() },
            "Older games",
          )
        : null,
    );
  }

  async function load() {
    try {
      const page = await api.myGames(next);
      shown.push(...page.games);
      next = page.next;
      render();
    } catch (error) {
      render(error.message);
    }
  }

  gamesIndex().then((index) => {
    games = index;
    load();
  });
  return () => {
    stopped = true;
  };
}
