// The lobby: quick play (a "Play now" button per game, a "Find a game" form), create a
// table, the open / playing / finished public tables (per game),
// my tables (to resume), and each game's leaderboard, refreshed every few seconds. The
// page holds the shared state and places one component per box.

import { gamesIndex } from "../lib/catalogue.js";
import { h, replaceChildren } from "../lib/dom.js";
import { renderCreateTable } from "../components/create-table.js";
import { renderLeaderboard } from "../components/leaderboard.js";
import { renderMyTables } from "../components/my-tables.js";
import { renderQuickPlay } from "../components/quick-play.js";
import { renderFriends } from "../components/social.js";
import { renderTableList } from "../components/table-list.js";

const REFRESH_MS = 5000;

export function mountLobby(root) {
  let stopped = false;
  let timer = null;
  let stopQuick = () => {};
  const lobby = {
    games: [],
    state: { listState: "open", game: "", boardGame: "", pages: {} },
    stopped: () => stopped,
    titleOf: (name) => (lobby.games.find((g) => g.name === name) || { title: name }).title,
  };

  const quickBox = h("section", { class: "card quick", "aria-labelledby": "quick-title" });
  const createBox = h("section", { class: "card create", "aria-labelledby": "create-title" });
  const listBox = h("section", { class: "card tables", "aria-labelledby": "list-title" });
  const mineBox = h("section", { class: "card mine", "aria-labelledby": "mine-title" });
  const boardBox = h("section", { class: "card board", "aria-labelledby": "board-title" });
  const friendsBox = h("section", { class: "card friends-card", "aria-labelledby": "friends-title" });
  replaceChildren(
    root,
    h(
      "div",
      { class: "lobby", "data-testid": "lobby" },
      h("div", { class: "lobby-side" }, quickBox, friendsBox, createBox, boardBox),
      h("div", { class: "lobby-main" }, listBox, mineBox),
    ),
  );

  async function refresh() {
    if (stopped) return;
    await Promise.all([
      renderTableList(listBox, lobby),
      renderMyTables(mineBox, lobby),
      renderLeaderboard(boardBox, lobby),
      renderFriends(friendsBox),
    ]);
    if (!stopped) timer = setTimeout(refresh, REFRESH_MS);
  }

  gamesIndex().then((index) => {
    lobby.games = index;
    if (stopped) return;
    stopQuick = renderQuickPlay(quickBox, lobby);
    renderCreateTable(createBox, lobby);
    refresh();
  });

  return () => {
    stopped = true;
    clearTimeout(timer);
    stopQuick();
  };
}
