// The lobby's "My tables": my ratings, and every table I hold a seat at, to resume (or
// to replay once finished).

import { api } from "../lib/api.js";
import { h, replaceChildren } from "../lib/dom.js";
import { seatsText } from "./table-list.js";

export async function renderMyTables(mineBox, lobby) {
  const { titleOf } = lobby;
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
  if (lobby.stopped()) return;
  replaceChildren(mineBox, h("h2", { id: "mine-title" }, "My tables"), body);
}
