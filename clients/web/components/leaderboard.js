// The lobby's leaderboard of one game: rated players, best first. Only games between two
// or more signed-in players are rated, and the empty board says so.

import { api } from "../lib/api.js";
import { h, replaceChildren } from "../lib/dom.js";

export async function renderLeaderboard(boardBox, lobby) {
  const { games, state } = lobby;
  const renderBoard = () => renderLeaderboard(boardBox, lobby);
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
              h(
                "tr",
                entry.bot ? { class: "bot", "data-bot": entry.player_id } : {},
                h("td", {}, i + 1),
                h("td", {}, entry.name, entry.bot ? h("span", { class: "badge" }, " bot") : null),
                h("td", {}, entry.rating),
                h("td", {}, entry.games),
              ),
            ),
          ),
        )
      : h(
          "p",
          { class: "hint", "data-testid": "leaderboard-empty" },
          "Nobody is rated yet. A finished game rates its signed-in players and its bots " +
            "(each level rated like a player) when it has two of them: finish one to be listed.",
        );
  } catch (error) {
    body = h("p", { class: "message" }, error.message);
  }
  if (lobby.stopped()) return;
  replaceChildren(boardBox, h("h2", { id: "board-title" }, "Leaderboard"), select, body);
}
