// The lobby's public tables: open / being played / finished, of every game or one, a
// page at a time ("More tables"); each with its seats (bots marked) and its options in
// the catalogue's words, and a link to open, watch or replay it.

import { api } from "../lib/api.js";
import { h, plural, replaceChildren } from "../lib/dom.js";
import { valueLabel } from "./create-table.js";
import { presenceDot } from "./social.js";

const STATES = [
  ["open", "Open tables"],
  ["playing", "Being played"],
  ["finished", "Finished"],
];

export async function renderTableList(listBox, lobby) {
  const { games, state, titleOf } = lobby;
  const renderList = () => renderTableList(listBox, lobby);
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
          h("ul", { class: "table-list", "data-testid": "table-list" }, tables.map((table) => tableRow(table, titleOf, games))),
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
  if (lobby.stopped()) return;
  replaceChildren(
    listBox,
    h("h2", { id: "list-title" }, "Tables"),
    h("div", { class: "row" }, tabs, filter),
    body,
  );
}

export function seatsText(table) {
  const names = table.players.map((p) => (p.bot ? `${p.name} (bot)` : p.name));
  const open = table.seats - table.players.length;
  const seated = names.length ? names.join(", ") : "nobody seated yet";
  return open > 0 ? `${seated} · ${plural(open, "seat")} open` : seated;
}

// "Laws score: only the most influence scores", in the catalogue's words; an option the
// table's player count does not use (opponents' difficulty at a 3-player table) unsaid.
function optionsText(games, game, options, seats) {
  const known = (games.find((g) => g.name === game) || { options: [] }).options;
  const applies = ([key]) => {
    const option = known.find((o) => o.key === key);
    return !(option && option.seats_up_to && seats > option.seats_up_to);
  };
  const entries = Object.entries(options || {}).filter(applies);
  if (!entries.length) return "default options";
  return entries
    .map(([key, value]) => {
      const option = known.find((o) => o.key === key);
      return option ? `${option.label}: ${valueLabel(option, value)}` : `${key}: ${value}`;
    })
    .join(", ");
}

function tableRow(table, titleOf, games) {
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
    table.players.filter((p) => p.player_id && !p.bot).map((p) => presenceDot(p.player_id)),
    h("span", { class: "meta" }, ` · ${optionsText(games, table.game, table.options, table.seats)}`),
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
