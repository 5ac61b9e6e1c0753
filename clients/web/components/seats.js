// The seat strip: every seat (name, bot and its level, you, left, taken over by a bot, to move) with its live points and
// rank from the view's standings (the rules' own score: no client computes one), and
// the built-in opponents that hold no seat (Fractured Sky's AIs in 1-2 player games).

import { h } from "../lib/dom.js";
import { swatch } from "../games/common.js";
import { playerMenu, presenceDot } from "./social.js";

// The view's standings per participant number (seats, then built-in opponents).
export function standingOf(view) {
  return new Map((view.standings || []).map((line) => [line.participant, line]));
}

export function points(n) {
  return `${n} ${n === 1 ? "pt" : "pts"}`;
}

// A place while playing: equal points share it ("=1"), whatever order the rules would
// break the tie in at the end (each line's place is one more than the number ahead).
export function sharedRank(lines, line) {
  const ahead = lines.filter((other) => other.points > line.points).length;
  const tied = lines.filter((other) => other.points === line.points).length > 1;
  return `${tied ? "=" : "#"}${ahead + 1}`;
}

// A bot's seat, with its level when the view gives one (a seat a bot took over is marked
// after "left" instead).
function botMark(seat, bots) {
  if (seat.bot_from_seq) return null;
  if (seat.bot_level) return h("span", { class: "meta", "data-testid": `bot-${seat.seat}` }, ` (bot: ${seat.bot_level})`);
  return bots.has(seat.seat) ? h("span", { class: "meta" }, " (bot)") : null;
}

// players: the table's seats as its summary lists them (their player ids: presence, menu)
export function seatStrip(view, bots, players = []) {
  const account = new Map(players.filter((p) => p.player_id && !p.bot).map((p) => [p.seat, p]));
  const standing = standingOf(view);
  const place = (participant) => {
    const line = standing.get(participant);
    if (!line) return null;
    return h(
      "span",
      { class: "score", "data-testid": `score-${participant}`, "data-rank": line.rank, "data-points": line.points },
      `${points(line.points)} · ${sharedRank(view.standings, line)}`,
    );
  };
  const ais = (view.standings || []).filter((line) => line.ai);
  ais.sort((a, b) => a.participant - b.participant);
  return h(
    "ol",
    { class: "seats", "aria-label": "Seats", "data-testid": "seats" },
    view.seats.map((seat) =>
      h(
        "li",
        {
          class:
            "seat" +
            (view.to_move.includes(seat.seat) ? " to-move" : "") +
            (seat.seat === view.viewer ? " mine" : ""),
          "data-seat": seat.seat,
        },
        swatch(seat.seat),
        account.has(seat.seat) ? presenceDot(account.get(seat.seat).player_id) : null,
        h("span", { class: "name" }, seat.name || "open seat"),
        account.has(seat.seat) ? playerMenu(account.get(seat.seat).player_id, seat.name) : null,
        botMark(seat, bots),
        seat.seat === view.viewer ? h("span", { class: "meta" }, " (you)") : null,
        seat.left ? h("span", { class: "meta" }, " (left)") : null,
        seat.bot_from_seq
          ? h("span", { class: "meta", "data-testid": `taken-over-${seat.seat}` }, ` (a ${seat.bot_level} bot plays it)`)
          : null,
        view.to_move.includes(seat.seat) ? h("span", { class: "badge turn-badge" }, "to move") : null,
        place(seat.seat),
      ),
    ),
    ais.map((line) =>
      h(
        "li",
        { class: "seat ai", "data-participant": line.participant, "data-ai": "1" },
        swatch(line.participant),
        h("span", { class: "name" }, line.name),
        h("span", { class: "meta" }, " (automated opponent)"),
        place(line.participant),
      ),
    ),
  );
}
