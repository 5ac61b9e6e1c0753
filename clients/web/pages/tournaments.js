// Tournaments: the list (#/tournaments: each tournament's game, format, state and
// players, with Register for the open ones and a small form to organise one) and one
// tournament (#/tournament/ID: its players, each round's tables, the standings with
// their tie-breaks, an elimination's bracket by round, and my next table), read from
// GET /v1/tournaments[/{id}] and refreshed every few seconds while it runs.

import { request, session } from "../lib/api.js";
import { h, replaceChildren } from "../lib/dom.js";

const FORMATS = {
  swiss: "Swiss",
  round_robin: "Round robin",
  single_elimination: "Single elimination",
  double_elimination: "Double elimination",
};
const REFRESH_MS = 3000;

function me() {
  const current = session();
  return current ? current.player_id : null;
}

function describe(t) {
  const rounds = t.rounds ? ` · ${t.round_list.length}/${t.rounds} rounds` : "";
  return `${FORMATS[t.format] || t.format}, ${t.seats} a table · ${t.players.length}/${t.capacity} players · ${t.state}${rounds}`;
}

export function mountTournaments(root) {
  let stopped = false;
  const box = h("section", { class: "card", "aria-labelledby": "tournaments-title" });
  const status = h("p", { class: "meta", role: "status", "data-testid": "tournaments-status" });
  replaceChildren(root, h("div", { class: "lobby", "data-testid": "tournaments-page" }, box));

  const game = h("input", { name: "game", value: "spacecraft", "aria-label": "Game", required: true });
  const format = h(
    "select",
    { name: "format", "aria-label": "Format" },
    Object.entries(FORMATS).map(([value, label]) => h("option", { value }, label)),
  );
  const seats = h("input", { name: "seats", type: "number", min: "2", max: "5", value: "2", "aria-label": "Seats a table" });
  const form = h(
    "form",
    {
      class: "row",
      "data-testid": "create-tournament",
      onsubmit: async (event) => {
        event.preventDefault();
        try {
          const made = await request("POST", "/v1/tournaments", {
            game: game.value.trim(),
            format: format.value,
            seats: Number(seats.value),
          });
          location.hash = `/tournament/${made.tournament_id}`;
        } catch (error) {
          status.textContent = error.message;
        }
      },
    },
    game,
    format,
    seats,
    h("button", { type: "submit" }, "Organise"),
  );

  function row(t) {
    const mine = t.players.some((p) => p.player_id === me());
    return h(
      "li",
      { "data-tournament": t.tournament_id },
      h("a", { href: `#/tournament/${t.tournament_id}` }, h("strong", {}, t.name), ` — ${t.game}`),
      h("span", { class: "meta" }, ` · ${describe(t)}`),
      t.state === "registering" && !mine
        ? h(
            "button",
            {
              type: "button",
              "data-key": `register-${t.tournament_id}`,
              onclick: async () => {
                try {
                  await request("POST", `/v1/tournaments/${t.tournament_id}/register`);
                  load();
                } catch (error) {
                  status.textContent = error.message;
                }
              },
            },
            "Register",
          )
        : mine
          ? h("span", { class: "meta" }, " · registered")
          : null,
    );
  }

  async function load() {
    try {
      const page = await request("GET", "/v1/tournaments");
      if (stopped) return;
      replaceChildren(
        box,
        h("h2", { id: "tournaments-title" }, "Tournaments"),
        form,
        status,
        page.tournaments.length
          ? h("ul", { class: "table-list", "data-testid": "tournament-list" }, page.tournaments.map(row))
          : h("p", { class: "hint" }, "No tournament yet: organise one."),
      );
    } catch (error) {
      status.textContent = error.message;
    }
  }

  load();
  return () => {
    stopped = true;
  };
}

export function mountTournament(root, { tournamentId }) {
  let stopped = false;
  let timer = null;
  const box = h("section", { class: "card", "aria-labelledby": "tournament-title" });
  const status = h("p", { class: "meta", role: "status", "data-testid": "tournament-status" });
  replaceChildren(root, h("div", { class: "lobby", "data-testid": "tournament-page" }, box));

  const nameOf = (t, id) => (t.players.find((p) => p.player_id === id) || { name: id }).name;

  function nextTable(t) {
    const last = t.round_list[t.round_list.length - 1];
    if (!last) return null;
    const table = last.tables.find((x) => x.players.includes(me()) && x.state === "playing");
    if (!table) return null;
    return h(
      "p",
      { "data-testid": "my-next-table" },
      `Round ${last.round}: your table is ready. `,
      h("a", { class: "button", href: `#/table/${table.table_id}` }, "Go to my table"),
    );
  }

  function standings(t) {
    if (!t.standings.length) return null;
    const two = t.seats === 2;
    const breaks = two ? ["Buchholz", "Sonneborn-Berger"] : ["Opponents' points"];
    return h(
      "table",
      { class: "standings", "data-testid": "tournament-standings" },
      h("caption", {}, t.state === "finished" ? "Final standings" : "Standings"),
      h("thead", {}, h("tr", {}, ["#", "Player", "Points", ...breaks].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        t.standings.map((row) =>
          h(
            "tr",
            { "data-player": row.player_id, class: row.player_id === me() ? "me" : "" },
            h("td", {}, String(row.rank)),
            h("td", {}, row.name + (row.eliminated ? " (out)" : "")),
            h("td", {}, String(row.points)),
            row.tiebreaks.map((b) => h("td", {}, String(b))),
          ),
        ),
      ),
    );
  }

  function rounds(t) {
    const bracket = t.format.endsWith("elimination");
    return t.round_list.map((r) =>
      h(
        "section",
        { class: bracket ? "bracket-round" : "round", "data-round": String(r.round) },
        h("h3", {}, `Round ${r.round}${r.finished ? "" : " (playing)"}`),
        h(
          "ul",
          { class: "table-list" },
          r.tables.map((table) =>
            h(
              "li",
              { "data-table": table.table_id },
              table.bracket ? h("span", { class: "meta" }, `${table.bracket}: `) : null,
              table.players
                .map((p, i) => nameOf(t, p) + (table.ranks.length ? ` (#${table.ranks[i]})` : ""))
                .join(" vs "),
              " ",
              h("a", { href: `#/table/${table.table_id}` }, table.state === "playing" ? "Watch" : "Replay"),
            ),
          ),
          r.byes.map((p) => h("li", {}, `${nameOf(t, p)}: bye`)),
        ),
      ),
    );
  }

  function actions(t) {
    const mine = t.players.some((p) => p.player_id === me());
    const act = (label, path, key) =>
      h(
        "button",
        {
          type: "button",
          "data-key": key,
          onclick: async () => {
            try {
              await request("POST", `/v1/tournaments/${tournamentId}/${path}`);
              load();
            } catch (error) {
              status.textContent = error.message;
            }
          },
        },
        label,
      );
    if (t.state !== "registering") return null;
    return h(
      "p",
      {},
      mine ? h("span", { class: "meta" }, "You are registered. ") : act("Register", "register", "register"),
      t.organiser === me() ? act("Start now", "start", "start") : null,
    );
  }

  async function load() {
    try {
      const t = await request("GET", `/v1/tournaments/${tournamentId}`);
      if (stopped) return;
      replaceChildren(
        box,
        h("h2", { id: "tournament-title" }, `${t.name} — ${t.game}`),
        h("p", { class: "meta" }, describe(t)),
        status,
        actions(t),
        nextTable(t),
        standings(t),
        rounds(t),
        t.seed ? h("p", { class: "meta" }, `Seed: ${t.seed}`) : h("p", { class: "meta" }, `Seed commitment: ${t.seed_commitment}`),
      );
      if (t.state === "running" || t.state === "registering") timer = setTimeout(load, REFRESH_MS);
    } catch (error) {
      status.textContent = error.message;
      if (!box.contains(status)) replaceChildren(box, status);
    }
  }

  load();
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
