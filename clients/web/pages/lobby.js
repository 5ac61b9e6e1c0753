// The lobby: create a table, the open / playing / finished public tables (per game),
// my tables (to resume), and each game's leaderboard. Refreshed every few seconds.

import { api, rememberCreated } from "../lib/api.js";
import { gamesIndex } from "../lib/catalogue.js";
import { h, plural, replaceChildren } from "../lib/dom.js";

const REFRESH_MS = 5000;
const STATES = [
  ["open", "Open tables"],
  ["playing", "Being played"],
  ["finished", "Finished"],
];

function valueLabel(option, value) {
  return (option.value_labels && option.value_labels[value]) || value;
}

export function mountLobby(root) {
  let games = [];
  let stopped = false;
  let timer = null;
  const state = { listState: "open", game: "", boardGame: "", pages: {} };

  const createBox = h("section", { class: "card create", "aria-labelledby": "create-title" });
  const listBox = h("section", { class: "card tables", "aria-labelledby": "list-title" });
  const mineBox = h("section", { class: "card mine", "aria-labelledby": "mine-title" });
  const boardBox = h("section", { class: "card board", "aria-labelledby": "board-title" });
  replaceChildren(
    root,
    h(
      "div",
      { class: "lobby", "data-testid": "lobby" },
      h("div", { class: "lobby-side" }, createBox, boardBox),
      h("div", { class: "lobby-main" }, listBox, mineBox),
    ),
  );

  const titleOf = (name) => (games.find((g) => g.name === name) || { title: name }).title;

  // ------------------------------------------------------------ create a table
  function renderCreate() {
    const message = h("p", { class: "message", role: "alert" });
    const select = h(
      "select",
      { id: "create-game", "data-testid": "create-game" },
      games.map((g) => h("option", { value: g.name }, g.title)),
    );
    const seats = h("input", {
      id: "create-seats",
      type: "number",
      inputmode: "numeric",
      "data-testid": "create-seats",
    });
    const privateBox = h("input", { id: "create-private", type: "checkbox" });
    // As on Board Game Arena the creator sits down at once, unless told not to.
    const sitBox = h("input", { id: "create-sit", type: "checkbox", checked: true, "data-testid": "create-sit" });
    const optionsBox = h("div", { class: "options" });
    const blurb = h("p", { class: "hint" });

    function syncGame() {
      const game = games.find((g) => g.name === select.value) || games[0];
      if (!game) return;
      seats.min = String(game.min_seats);
      seats.max = String(game.max_seats);
      seats.value = String(game.default_seats);
      blurb.textContent = `${game.blurb} ${game.min_seats}–${game.max_seats} players.`;
      replaceChildren(
        optionsBox,
        game.options.map((option) =>
          h(
            "div",
            { class: "field" },
            h("label", { for: `create-option-${option.key}` }, option.label),
            h(
              "select",
              {
                id: `create-option-${option.key}`,
                "data-option": option.key,
                "data-testid": `create-option-${option.key}`,
              },
              option.values.map((value) =>
                h("option", { value, selected: value === option.default }, valueLabel(option, value)),
              ),
            ),
          ),
        ),
      );
    }
    select.addEventListener("change", syncGame);

    const form = h(
      "form",
      {
        onsubmit: async (event) => {
          event.preventDefault();
          message.textContent = "";
          const options = {};
          for (const field of optionsBox.querySelectorAll("select[data-option]")) {
            options[field.dataset.option] = field.value;
          }
          const button = form.querySelector("button");
          button.disabled = true;
          try {
            const made = await api.create(
              select.value,
              Number(seats.value),
              options,
              privateBox.checked,
            );
            rememberCreated(made.table_id, made.invite);
            if (sitBox.checked) {
              const joined = await api.join(made.table_id, made.invite);
              if (joined && joined.outcome === "rejected") throw new Error(joined.message);
            }
            location.hash = `/table/${made.table_id}`;
          } catch (error) {
            message.textContent = error.message;
            button.disabled = false;
          }
        },
      },
      h("div", { class: "field" }, h("label", { for: "create-game" }, "Game"), select),
      blurb,
      h("div", { class: "field" }, h("label", { for: "create-seats" }, "Seats"), seats),
      optionsBox,
      h(
        "div",
        { class: "field check" },
        privateBox,
        h("label", { for: "create-private" }, "Private (only people with the invite link can join)"),
      ),
      h(
        "div",
        { class: "field check" },
        sitBox,
        h("label", { for: "create-sit" }, "Take a seat at it (untick to create it for others)"),
      ),
      h("button", { type: "submit", class: "primary", "data-testid": "create-submit" }, "Create table"),
      message,
    );
    replaceChildren(createBox, h("h2", { id: "create-title" }, "New table"), form);
    syncGame();
  }

  // ------------------------------------------------------------ public tables
  async function renderList() {
    const filter = h(
      "select",
      {
        id: "list-game",
        "data-key": "list-game",
        "aria-label": "Game",
        onchange: () => {
          state.game = filter.value;
          state.more = 0;
          renderList();
        },
      },
      h("option", { value: "" }, "All games"),
      games.map((g) => h("option", { value: g.name, selected: g.name === state.game }, g.title)),
    );
    const tabs = h(
      "div",
      { class: "tabs", role: "group", "aria-label": "Which tables" },
      STATES.map(([value, label]) =>
        h(
          "button",
          {
            type: "button",
            "aria-pressed": String(state.listState === value),
            "data-key": `tab-${value}`,
            "data-testid": `list-${value}`,
            onclick: () => {
              state.listState = value;
              state.more = 0;
              renderList();
            },
          },
          label,
        ),
      ),
    );
    let body;
    try {
      // The first page, and as many more as the person asked for ("More tables").
      const tables = [];
      let cursor = null;
      for (let page = 0; page <= (state.more || 0); page += 1) {
        const got = await api.tables(state.listState, state.game || null, cursor);
        tables.push(...got.tables);
        cursor = got.next;
        if (!cursor) break;
      }
      body = tables.length
        ? [
            h("ul", { class: "table-list", "data-testid": "table-list" }, tables.map(tableRow)),
            cursor
              ? h(
                  "button",
                  {
                    type: "button",
                    "data-key": "more-tables",
                    onclick: () => {
                      state.more = (state.more || 0) + 1;
                      renderList();
                    },
                  },
                  "More tables",
                )
              : null,
          ]
        : h("p", { class: "hint" }, "No tables here yet.");
    } catch (error) {
      body = h("p", { class: "message" }, error.message);
    }
    if (stopped) return;
    replaceChildren(
      listBox,
      h("h2", { id: "list-title" }, "Tables"),
      h("div", { class: "row" }, tabs, filter),
      body,
    );
  }

  function seatsText(table) {
    const names = table.players.map((p) => (p.bot ? `${p.name} (bot)` : p.name));
    const open = table.seats - table.players.length;
    const seated = names.length ? names.join(", ") : "nobody seated yet";
    return open > 0 ? `${seated} · ${plural(open, "seat")} open` : seated;
  }

  // "Laws score: only the most influence scores", in the catalogue's words.
  function optionsText(game, options) {
    const known = (games.find((g) => g.name === game) || { options: [] }).options;
    const entries = Object.entries(options || {});
    if (!entries.length) return "default options";
    return entries
      .map(([key, value]) => {
        const option = known.find((o) => o.key === key);
        return option ? `${option.label}: ${valueLabel(option, value)}` : `${key}: ${value}`;
      })
      .join(", ");
  }

  function tableRow(table) {
    const action = {
      open: "Open",
      playing: "Watch",
      finished: "Replay",
      closed: "Open",
    }[table.state];
    const href =
      table.state === "finished" ? `#/table/${table.table_id}/replay` : `#/table/${table.table_id}`;
    return h(
      "li",
      { "data-table": table.table_id },
      h("strong", {}, titleOf(table.game)),
      h("span", { class: "meta" }, ` · ${table.players.length}/${table.seats} seats taken · `),
      h("span", {}, seatsText(table)),
      h("span", { class: "meta" }, ` · ${optionsText(table.game, table.options)}`),
      " ",
      h(
        "a",
        {
          class: "button",
          href,
          "data-key": `row-${table.table_id}`,
          "aria-label": `${action} the ${titleOf(table.game)} table ${table.table_id}`,
        },
        action,
      ),
    );
  }

  // ------------------------------------------------------------ my tables
  async function renderMine() {
    let body;
    try {
      const me = await api.me();
      const ratings = Object.entries(me.ratings || {});
      body = [
        ratings.length
          ? h(
              "p",
              { class: "hint" },
              "Your ratings: ",
              ratings.map(([game, r]) => `${titleOf(game)} ${r}`).join(", "),
            )
          : null,
        me.tables.length
          ? h(
              "ul",
              { class: "table-list", "data-testid": "my-tables" },
              me.tables.map((table) =>
                h(
                  "li",
                  { "data-table": table.table_id },
                  h("strong", {}, titleOf(table.game)),
                  h("span", { class: "meta" }, ` · seat ${table.seat + 1} · ${table.state} · `),
                  h("span", {}, seatsText(table)),
                  " ",
                  h(
                    "a",
                    {
                      class: "button",
                      "data-key": `mine-${table.table_id}`,
                      href:
                        table.state === "finished"
                          ? `#/table/${table.table_id}/replay`
                          : `#/table/${table.table_id}`,
                    },
                    table.state === "finished" ? "Replay" : "Resume",
                  ),
                ),
              ),
            )
          : h("p", { class: "hint" }, "You hold no seat yet: create a table or join one."),
      ];
    } catch (error) {
      body = h("p", { class: "message" }, error.message);
    }
    if (stopped) return;
    replaceChildren(mineBox, h("h2", { id: "mine-title" }, "My tables"), body);
  }

  // ------------------------------------------------------------ leaderboard
  async function renderBoard() {
    if (!state.boardGame && games.length) state.boardGame = games[0].name;
    const select = h(
      "select",
      {
        "aria-label": "Leaderboard of",
        "data-key": "board-game",
        "data-testid": "leaderboard-game",
        onchange: () => {
          state.boardGame = select.value;
          renderBoard();
        },
      },
      games.map((g) => h("option", { value: g.name, selected: g.name === state.boardGame }, g.title)),
    );
    let body;
    try {
      const board = await api.leaderboard(state.boardGame);
      body = board.entries.length
        ? h(
            "table",
            { "data-testid": "leaderboard" },
            h("thead", {}, h("tr", {}, h("th", {}, "#"), h("th", {}, "Player"), h("th", {}, "Rating"), h("th", {}, "Games"))),
            h(
              "tbody",
              {},
              board.entries.map((entry, i) =>
                h("tr", {}, h("td", {}, i + 1), h("td", {}, entry.name), h("td", {}, entry.rating), h("td", {}, entry.games)),
              ),
            ),
          )
        : h(
            "p",
            { class: "hint", "data-testid": "leaderboard-empty" },
            "Nobody is rated yet. Only games between two or more signed-in players are rated " +
              "(games against bots alone are not): finish one to be listed.",
          );
    } catch (error) {
      body = h("p", { class: "message" }, error.message);
    }
    if (stopped) return;
    replaceChildren(boardBox, h("h2", { id: "board-title" }, "Leaderboard"), select, body);
  }

  async function refresh() {
    if (stopped) return;
    await Promise.all([renderList(), renderMine(), renderBoard()]);
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }

  gamesIndex().then((index) => {
    games = index;
    if (stopped) return;
    renderCreate();
    refresh();
  });

  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
