// SPACEcraft: the junkyard (piles, visible tops, pawns), the workshop (token junk per
// column, parts and their supply), the design rows or advanced cards, the countdown,
// every seat's board, junk, rocket and goal, my private panel (goal options, reserved
// card), and my moves: take a pile, leave, build (the offered cheapest payment, or any
// payment and a cell of my choice in the workshop order), rearrange, fulfil / reserve /
// mark, end the turn.

import { capitalise, h, listing, plural } from "../lib/dom.js";
import { fittedText, flowBoard, flowWidth, hot, panel, panelRows, pick, s, text, thing, wrapWords } from "../lib/svg.js";
import { facts, phaseWords, section, swatch } from "./common.js";

export function handles(body) {
  return body.type.startsWith("sc.");
}

// ------------------------------------------------------------------ naming

export function partName(cat, kind) {
  const [shape, colours] = kind.split(".");
  const names = [...colours].map((c) => (cat.colours[c] || c)).join("-");
  return `${names} ${shape}`;
}

function junkList(pay) {
  return pay.join(" + ");
}

function pileText(game, x, y) {
  const cell = game.junkyard[y * game.grid_size + x];
  const top = cell && cell.top ? `the ${cell.top}` : "its top tile";
  return `${top} from the pile at column ${x + 1}, row ${y + 1}`;
}

function goalText(cat, id) {
  const goal = cat.goals.find((g) => g.id === id);
  return goal ? `${goal.text} (${goal.points} points)` : `goal ${id}`;
}

function designText(cat, id) {
  const card = cat.design_cards.find((c) => c.id === id);
  return card ? `${card.text} (${card.points} points)` : `card ${id}`;
}

function advancedCard(cat, id) {
  return cat.advanced_cards.find((c) => c.id === id);
}

export function label(body, ctx) {
  const { cat, game } = ctx;
  switch (body.type) {
    case "sc.choose_goal":
      return `Keep the personal goal: ${goalText(cat, body.goal)}`;
    case "sc.visit":
      return `Enter the junkyard and take ${pileText(game, body.x, body.y)}`;
    case "sc.search":
      return `Move and take ${pileText(game, body.x, body.y)}`;
    case "sc.leave":
      return game.phase === "final"
        ? "Leave the junkyard for the last time (then build and design)"
        : "Leave the junkyard (then build and design)";
    case "sc.build": {
      const slot = cat.slots[body.slot];
      const where = body.layout ? " at the chosen place" : "";
      return `Build a ${slot ? slot.name : "part"} paying ${junkList(body.pay)}${where}`;
    }
    case "sc.arrange":
      return `Rearrange the rocket (${plural(body.layout.length, "part")} in a new layout)`;
    case "sc.fulfil":
      return `Fulfil design card ${body.card}: ${designText(cat, body.card)}`;
    case "sc.reserve":
      return `Reserve design card ${body.card}: ${designText(cat, body.card)}`;
    case "sc.mark": {
      const card = game.advanced.find((c) => c.card === body.card);
      const info = advancedCard(cat, body.card);
      const next = card ? card.track[card.markers.length] : "?";
      return `Mark advanced card ${body.card} (${info ? info.text : card.subject}): next space worth ${next}`;
    }
    case "sc.end_turn":
      return "End your turn";
    default:
      return body.type;
  }
}

// ------------------------------------------------------------------ drawing


export function render(ctx) {
  const { game, cat } = ctx;
  if (!cat) return { details: h("p", {}, "Loading the catalogue…") };
  const who = (seat) =>
    h("span", { class: `who seat-text-${seat % 6}` }, swatch(seat), ctx.name(seat), seat === ctx.me ? " (you)" : "");
  const blueprint = cat.blueprints.find((b) => b.id === game.blueprint);
  return {
    board: board(ctx),
    moves: movesPanel(ctx),
    hand: privatePanel(ctx),
    under: assemblyPanel(ctx),
    details: h(
      "div",
      { class: "game sc" },
      h(
        "div",
        { class: "game-top panel" },
        facts([
          ["Variant", game.variant],
          ["Phase", phaseWords(ctx.cat, game.phase)],
          game.phase === "play" || game.phase === "final"
            ? ["Turn", h("span", {}, who(game.current), ` · ${phaseWords(ctx.cat, game.step)}`)]
            : null,
          ["Blueprint", blueprint ? `card ${blueprint.id}: ${blueprint.text}` : String(game.blueprint)],
          [
            "Countdown",
            game.countdown_holder === null || game.countdown_holder === undefined
              ? "not started (first rocket to meet the blueprint takes it)"
              : h("span", {}, who(game.countdown_holder), ` holds it · ${game.countdown_top === 0 ? "launch!" : game.countdown_top}`),
          ],
          game.variant === "basic" ? ["Design deck", plural(game.deck_size, "card")] : null,
        ]),
      ),
      junkyardPanel(ctx, who),
      workshopPanel(ctx),
      game.variant === "advanced" ? advancedPanel(ctx, who) : designPanel(ctx),
      seatsPanel(ctx, who),
    ),
  };
}

// ------------------------------------------------------------------ the picture
// The junkyard grid (each pile's visible top, its weight and height, the pawns), the
// workshop's seven columns (the junk each needs, each part with its supply) and every
// seat's rocket as built parts. Taking a pile and building an offered part are one
// click on the pile or the part.

const BOARD_W = 1000; // the wide layout's width where the page does not measure it (the replay)
const PART_COLOUR = { W: "#f5f5f5", B: "#1e88e5", G: "#fbc02d", R: "#e53935", K: "#9e9e9e" };
const CELL = 72;

function partShape(cat, kind, x, y, size) {
  const [shape, colours] = kind.split(".");
  const band = size / colours.length;
  return [
    [...colours].map((c, i) => s("rect", { class: "part band", x: x + i * band, y, width: band, height: size, fill: PART_COLOUR[c] || "#999" })),
    s("rect", { class: "part-edge", x, y, width: size, height: size, rx: 3 }),
    size >= 18 ? text(x + size / 2, y + size / 2 + 4, shape[0].toUpperCase(), { class: "tiny part-letter", "text-anchor": "middle" }) : null,
  ];
}

function board(ctx) {
  const { game } = ctx;
  const step = game.phase === "play" || game.phase === "final" ? ` · ${ctx.name(game.current)}: ${phaseWords(ctx.cat, game.step)}` : "";
  const name = `SPACEcraft board: ${phaseWords(ctx.cat, game.phase)}${step}`;
  const columnsPerPanel = ctx.narrow ? 3 : ctx.cat.columns;
  const workshop = [];
  for (let first = 0; first < ctx.cat.columns; first += columnsPerPanel) {
    workshop.push(workshopDrawing(ctx, first, Math.min(ctx.cat.columns, first + columnsPerPanel), ctx.narrow ? 100 : 84));
  }
  return flowBoard(ctx, BOARD_W, name, "sc-board", [
    goalsDrawing(ctx),
    junkyardDrawing(ctx),
    ...workshop,
    game.variant === "advanced" ? advancedDrawing(ctx) : designDrawing(ctx),
    panelRows(rocketsDrawing(ctx), flowWidth(ctx, BOARD_W)),
  ]);
}

// A drawn button: a labelled box that sends a legal command (leave, end the turn, …).
function boardButton(ctx, body, words, x, y, w, attrs = {}) {
  return hot(
    ctx,
    body,
    label(body, ctx),
    { class: "board-button", ...attrs },
    s("rect", { class: "hit button-face", x, y, width: w, height: 30, rx: 6 }),
    text(x + w / 2, y + 20, words, { class: "small", "text-anchor": "middle" }),
  );
}

// My two personal goal options while everybody chooses: keeping one is a click on it.
function goalsDrawing(ctx) {
  const { game, cat } = ctx;
  const choose = ctx.of("sc.choose_goal");
  if (!choose.length) return null;
  const w = 300;
  const cards = choose.map((body, i) => {
    const goal = cat.goals.find((g) => g.id === body.goal);
    const lines = wrapWords(goal ? capitalise(goal.text) : `Goal ${body.goal}`, 44);
    const y = 30 + i * 96;
    // its name says what is written on it, in the same order
    const head = `Keep goal ${body.goal} (${goal ? goal.points : "?"} points)`;
    return hot(
      ctx,
      body,
      `${head}: ${goal ? goal.text : ""}`,
      { class: "card-hot", "data-card": body.goal },
      s("rect", { class: "hit design-card", x: 0, y, width: w, height: 88, rx: 8 }),
      text(10, y + 20, head, { class: "small" }),
      lines.slice(0, 3).map((line, k) => text(10, y + 40 + k * 15, line, { class: "tiny" })),
    );
  });
  return panel(w, 30 + choose.length * 96, [text(0, 20, "Keep one goal (secret)", { class: "name" }), cards]);
  // (game.seats' goals are drawn nowhere else on the board: they stay in the hand panel)
}

function junkyardDrawing(ctx) {
  const { game, cat } = ctx;
  const size = game.grid_size;
  const takes = [...ctx.of("sc.visit"), ...ctx.of("sc.search")];
  const leave = ctx.of("sc.leave")[0];
  const weight = Object.fromEntries(cat.junk.map((j) => [j.name, j.weight]));
  const piles = game.junkyard.map((cell, i) => {
    const x = i % size;
    const y = Math.floor(i / size);
    const px = x * (CELL + 3);
    const py = 30 + y * (CELL + 3);
    const where = `column ${x + 1}, row ${y + 1}`;
    const pawn = cell.pawn !== null && cell.pawn !== undefined ? cell.pawn : null;
    const words = cell.height
      ? `Pile at ${where}: ${plural(cell.height, "tile")}, ${cell.top} on top (weight ${weight[cell.top] || "?"})`
      : `Empty pile at ${where}`;
    const take = takes.find((b) => b.x === x && b.y === y);
    return [
      thing(
        words + (pawn !== null ? `; ${ctx.name(pawn)}'s pawn` : ""),
        { class: "pile" + (cell.height ? "" : " empty"), "data-x": x, "data-y": y },
        s("rect", { class: "tile", x: px, y: py, width: CELL, height: CELL, rx: 6 }),
        cell.height
          ? [
              text(px + CELL / 2, py + 22, cell.top, { class: "small", "text-anchor": "middle" }),
              text(px + CELL / 2, py + 40, `w${weight[cell.top] || "?"} · ×${cell.height}`, { class: "tiny", "text-anchor": "middle" }),
            ]
          : text(px + CELL / 2, py + 40, "empty", { class: "tiny", "text-anchor": "middle" }),
        pawn !== null ? s("circle", { class: `p${pawn % 6} piece`, cx: px + CELL / 2, cy: py + 58, r: 8 }) : null,
      ),
      take
        ? hot(ctx, take, label(take, ctx), { class: "pile-hot" }, s("rect", { class: "hit", x: px + 2, y: py + 2, width: CELL - 4, height: CELL - 4, rx: 6 }))
        : null,
    ];
  });
  const w = size * (CELL + 3) - 3;
  const bottom = 30 + size * (CELL + 3);
  return panel(w, bottom + (leave ? 36 : 0), [
    text(0, 20, "Junkyard", { class: "name" }),
    piles,
    leave ? boardButton(ctx, leave, game.phase === "final" ? "Leave for the last time" : "Leave the junkyard", 0, bottom + 2, w) : null,
  ]);
}

// Columns first..last-1 of the workshop: the junk each column's payments need, each part
// with its weight and supply. Building is a click on the part, then on the payment.
function workshopDrawing(ctx, first, last, colW) {
  const { game, cat, ui } = ctx;
  const builds = ctx.of("sc.build");
  const picked = pickedSlot(ctx);
  const out = [];
  for (let column = first; column < last; column += 1) {
    const x = (column - first) * colW;
    out.push(
      thing(
        `Workshop column ${column + 1}${cat.section_a.includes(column) ? " (section A)" : ""}: its payments need a ${game.tokens[column]}`,
        { class: "ws-column" },
        s("rect", { class: "ws-col", x, y: 30, width: colW - 4, height: 326, rx: 6 }),
        text(x + (colW - 4) / 2, 47, game.tokens[column], { class: "tiny", "text-anchor": "middle" }),
      ),
    );
    cat.slots
      .filter((slot) => slot.column === column)
      .forEach((slot, k) => {
        const y = 56 + k * 59;
        const [shape, colours] = slot.kind.split(".");
        const left = game.supply[slot.index];
        const build = builds.find((b) => b.slot === slot.index);
        const colourWords = [...colours].map((c) => cat.colours[c] || c).join("-");
        out.push(
          thing(
            `${capitalise(slot.name)}: weight ${slot.weight}, ${left} left`,
            { class: "ws-slot" + (left ? "" : " empty"), "data-slot": slot.index },
            partShape(cat, slot.kind, x + 4, y + 4, 22),
            fittedText(x + 30, y + 15, colourWords, colW - 38, 5.6, { class: "micro" }),
            fittedText(x + 30, y + 28, shape, colW - 38, 6.2, { class: "tiny" }),
            text(x + 4, y + 46, `w${slot.weight} · ${left} left`, { class: "tiny" }),
          ),
        );
        if (build) {
          const chosen = picked === slot.index;
          out.push(
            pick(
              `Build a ${slot.name} (then choose the payment)`,
              chosen,
              () => pickSlot(ctx, slot.index),
              { "data-pick": slot.index, "data-key": `sc-pick:${slot.index}` },
              s("rect", { class: "hit", x: x + 1, y, width: colW - 6, height: 54, rx: 5 }),
            ),
          );
        }
        void ui;
      });
  }
  const w = (last - first) * colW - 4;
  const title = first === 0 ? "Workshop: a column's payments need its junk" : `Workshop, columns ${first + 1}–${last}`;
  return panel(w, 356, [fittedText(0, 20, title, w, 8.5, { class: "name" }), out]);
}

// The part picked in the workshop (this turn's view only), waiting for its payment.
function pickedSlot(ctx) {
  const pick = ctx.ui.scPick;
  if (!pick || pick.seq !== ctx.view.seq) return null;
  return ctx.of("sc.build").some((b) => b.slot === pick.slot) ? pick.slot : null;
}

function pickSlot(ctx, slot) {
  if (ctx.busy) return;
  const now = pickedSlot(ctx);
  ctx.ui.scPick = now === slot ? null : { seq: ctx.view.seq, slot };
  ctx.rerender();
}

// The payments for the picked part, beside the board (the one choice after the click).
function paymentChoice(ctx) {
  const slot = pickedSlot(ctx);
  if (slot === null) return null;
  const info = ctx.cat.slots[slot];
  const builds = ctx.of("sc.build").filter((b) => b.slot === slot);
  return h(
    "div",
    { class: "payment", "data-testid": "payment" },
    h("p", { class: "hint" }, `Pay for the ${info.name}:`),
    builds.map((body) => {
      const words = `Pay ${junkList(body.pay)}`;
      return ctx.button(body, `${words} to build the ${info.name}`, words, { class: "pay-choice" });
    }),
    h("p", { class: "meta" }, "Another payment or place: the workshop order under the board."),
  );
}

const CARD_W = 150;
const CARD_H = 116;

// One design card where it lies: its number, points and requirement written on it, and
// on it the buttons of what I may do with it (fulfil, reserve).
function designCard(ctx, id, x, y, where) {
  const { cat } = ctx;
  if (id < 0) {
    return thing(`Empty ${where} slot`, { class: "design-empty" }, s("rect", { class: "design-card empty", x, y, width: CARD_W, height: CARD_H, rx: 8 }),
      text(x + CARD_W / 2, y + CARD_H / 2, "empty", { class: "tiny", "text-anchor": "middle" }));
  }
  const info = cat.design_cards.find((c) => c.id === id);
  const words = info ? capitalise(info.text) : `Card ${id}`;
  const doing = [...ctx.of("sc.fulfil"), ...ctx.of("sc.reserve")].filter((b) => b.card === id);
  const lines = wrapWords(words, 22).slice(0, 3);
  const buttonW = doing.length > 1 ? (CARD_W - 12) / 2 : CARD_W - 8;
  return s(
    "g",
    { "data-card": id, class: "design-drawn" },
    thing(
      `Design card ${id} (${where}): ${words}, ${info ? info.points : "?"} points`,
      {},
      s("rect", { class: "design-card", x, y, width: CARD_W, height: CARD_H, rx: 8 }),
      text(x + 8, y + 18, `Card ${id} · ${info ? info.points : "?"} pts`, { class: "small" }),
      lines.map((line, k) => text(x + 8, y + 36 + k * 14, line, { class: "tiny" })),
    ),
    doing.map((body, k) =>
      hot(
        ctx,
        body,
        label(body, ctx),
        { class: "card-hot" },
        s("rect", { class: "hit", x: x + 4 + k * (buttonW + 4), y: y + CARD_H - 30, width: buttonW, height: 26, rx: 5 }),
        text(x + 4 + k * (buttonW + 4) + buttonW / 2, y + CARD_H - 12, body.type === "sc.fulfil" ? "Fulfil" : "Reserve", {
          class: "small",
          "text-anchor": "middle",
        }),
      ),
    ),
  );
}

// Cards in a row: as many as the board's width holds, at most `most`.
function cardsPerRow(ctx, most) {
  return Math.max(2, Math.min(most, Math.floor((flowWidth(ctx, BOARD_W) + 8) / (CARD_W + 8))));
}

function designDrawing(ctx) {
  const { game } = ctx;
  const mine = ctx.me !== null && ctx.me !== undefined ? game.seats[ctx.me] : null;
  const perRow = cardsPerRow(ctx, 4);
  const rows = [
    ["Upper row", game.upper, "upper row"],
    ["Lower row: fulfil or reserve from here", game.lower, "lower row"],
  ];
  if (mine && mine.reserved) rows.push(["Your reserved card (only you see it)", [mine.reserved], "reserved by you"]);
  const out = [];
  let y = 0;
  for (const [title, ids, where] of rows) {
    out.push(text(0, y + 20, title, { class: "name" }));
    y += 30;
    ids.forEach((id, i) => {
      out.push(designCard(ctx, id, (i % perRow) * (CARD_W + 8), y + Math.floor(i / perRow) * (CARD_H + 8), where));
    });
    y += Math.ceil(Math.max(1, ids.length) / perRow) * (CARD_H + 8);
  }
  return panel(perRow * (CARD_W + 8) - 8, y, out);
}

function advancedDrawing(ctx) {
  const { game, cat } = ctx;
  const marks = ctx.of("sc.mark");
  const perRow = cardsPerRow(ctx, 5);
  const cards = game.advanced.map((card, i) => {
    const info = advancedCard(cat, card.card);
    const x = (i % perRow) * (CARD_W + 8);
    const y = 30 + Math.floor(i / perRow) * (CARD_H + 8);
    const mark = marks.find((b) => b.card === card.card);
    const words = info ? capitalise(info.text) : card.subject;
    const spaces = card.track.map((value, k) => (card.markers[k] !== undefined ? `[${value}]` : String(value))).join(" ");
    return s(
      "g",
      { "data-card": card.card, class: "design-drawn" },
      thing(
        `Advanced card ${card.card} (side ${card.side}): ${words}; spaces ${card.track.join(", ")}, ${card.markers.length} marked`,
        {},
        s("rect", { class: "design-card", x, y, width: CARD_W, height: CARD_H, rx: 8 }),
        text(x + 8, y + 18, `Card ${card.card} · side ${card.side}`, { class: "small" }),
        wrapWords(words, 22).slice(0, 2).map((line, k) => text(x + 8, y + 36 + k * 14, line, { class: "tiny" })),
        fittedText(x + 8, y + 68, spaces, CARD_W - 16, 6.2, { class: "tiny" }),
        card.markers.map((m, k) => s("circle", { class: `p${m % 6} piece`, cx: x + 12 + k * 14, cy: y + 78, r: 5 })),
      ),
      mark
        ? hot(
            ctx,
            mark,
            label(mark, ctx),
            { class: "card-hot" },
            s("rect", { class: "hit", x: x + 4, y: y + CARD_H - 30, width: CARD_W - 8, height: 26, rx: 5 }),
            text(x + CARD_W / 2, y + CARD_H - 12, "Mark", { class: "small", "text-anchor": "middle" }),
          )
        : null,
    );
  });
  const rows = Math.ceil(game.advanced.length / perRow);
  return panel(perRow * (CARD_W + 8) - 8, 30 + rows * (CARD_H + 8), [text(0, 20, "Advanced design cards", { class: "name" }), cards]);
}

function rocketsDrawing(ctx) {
  const { game, cat } = ctx;
  const seats = game.seats;
  // as many rockets side by side as keep each at least 240 units wide (one on a phone)
  const width = flowWidth(ctx, BOARD_W);
  const perRow = Math.max(1, Math.min(seats.length, Math.floor((width + 10) / 250)));
  const boxW = Math.min(490, (width - 10 * (perRow - 1)) / perRow);
  const endTurn = ctx.of("sc.end_turn")[0];
  return seats.map((seat) => {
    const rocket = seat.rocket;
    const xs = rocket.map((p) => p.x);
    const ys = rocket.map((p) => p.y);
    const minX = Math.min(0, ...xs);
    const maxX = Math.max(0, ...xs);
    const maxY = Math.max(0, ...ys);
    const minY = Math.min(0, ...ys);
    const size = Math.max(18, Math.min(26, Math.floor(Math.min((boxW - 20) / (maxX - minX + 1), 120 / (maxY - minY + 1)))));
    const originX = (boxW - (maxX - minX + 1) * size) / 2;
    const parts = rocket.map((p) => partShape(cat, p.kind, originX + (p.x - minX) * size, 34 + (maxY - p.y) * size, size - 1));
    const words =
      `${ctx.name(seat.seat)}'s rocket: ${listing(rocket.map((p) => partName(cat, p.kind)))}` +
      (seat.meets_blueprint ? "; it meets the blueprint" : "");
    const mine = seat.seat === ctx.me;
    const height = 40 + (maxY - minY + 1) * size + (mine && endTurn ? 40 : 6);
    const title = `${ctx.name(seat.seat)}${mine ? " (you)" : ""}${seat.meets_blueprint ? " ✓ blueprint" : ""}`;
    return panel(boxW, height, [
      thing(
        words,
        { class: "rocket-drawing", "data-seat": seat.seat },
        s("rect", { class: "rocket-box" + (game.current === seat.seat ? " current" : ""), x: 0, y: 0, width: boxW, height, rx: 8 }),
        s("circle", { class: `p${seat.seat % 6}`, cx: 14, cy: 16, r: 6 }),
        fittedText(26, 21, title, boxW - 34, 7.4, { class: "small" }),
        parts,
      ),
      mine && endTurn ? boardButton(ctx, endTurn, "End your turn", 8, height - 36, boxW - 16) : null,
    ]);
  });
}

function junkyardPanel(ctx, who) {
  const { game, cat } = ctx;
  const size = game.grid_size;
  const takes = [...ctx.of("sc.visit"), ...ctx.of("sc.search")];
  const weight = Object.fromEntries(cat.junk.map((j) => [j.name, j.weight]));
  return section(
    "Junkyard",
    { class: "panel junkyard-panel", "data-testid": "junkyard" },
    h(
      "div",
      { class: "junkyard", style: { "grid-template-columns": `repeat(${size}, minmax(0, 1fr))` }, role: "group", "aria-label": "Junkyard piles" },
      game.junkyard.map((cell, i) => {
        const x = i % size;
        const y = Math.floor(i / size);
        const take = takes.find((b) => b.x === x && b.y === y);
        return h(
          "div",
          { class: "pile" + (cell.height ? "" : " empty"), "data-x": x, "data-y": y },
          cell.height
            ? [h("strong", {}, cell.top), h("span", { class: "meta" }, ` w${weight[cell.top] || "?"} · ${plural(cell.height, "tile")}`)]
            : h("span", { class: "meta" }, "empty"),
          cell.pawn !== null && cell.pawn !== undefined ? h("div", { class: "pawn" }, who(cell.pawn)) : null,
          take ? ctx.button(take, label(take, ctx), "Take") : null,
        );
      }),
    ),
  );
}

function workshopPanel(ctx) {
  const { game, cat } = ctx;
  const builds = ctx.of("sc.build");
  return section(
    "Workshop",
    { class: "panel workshop-panel" },
    h(
      "div",
      { class: "workshop" },
      Array.from({ length: cat.columns }, (_, column) =>
        h(
          "div",
          { class: "column", "data-column": column },
          h("h4", {}, `Column ${column + 1}${cat.section_a.includes(column) ? " (A)" : ""}: needs ${game.tokens[column]}`),
          h(
            "ul",
            {},
            cat.slots
              .filter((slot) => slot.column === column)
              .map((slot) => {
                const build = builds.find((b) => b.slot === slot.index);
                return h(
                  "li",
                  { "data-slot": slot.index },
                  `${slot.name} `,
                  h("span", { class: "meta" }, `weight ${slot.weight} · ${game.supply[slot.index]} left`),
                  build ? ctx.button(build, label(build, ctx), `Build (${junkList(build.pay)})`) : null,
                );
              }),
          ),
        ),
      ),
    ),
  );
}

// The design cards as text (their deck too); fulfilling and reserving are clicks on the
// cards drawn on the board (designCard), never buttons here.
function designPanel(ctx) {
  const { game, cat } = ctx;
  const card = (id) => {
    if (id < 0) return h("div", { class: "design empty" }, "empty");
    const info = cat.design_cards.find((c) => c.id === id);
    return h(
      "div",
      { class: "design", "data-card": id },
      h("strong", {}, `Card ${id}`),
      info ? h("span", { class: "meta" }, ` · deck ${info.deck} · ${info.points} points`) : null,
      h("div", {}, info ? capitalise(info.text) : ""),
    );
  };
  return section(
    "Design cards",
    { class: "panel designs" },
    h("h4", {}, "Upper row"),
    h("div", { class: "design-row" }, game.upper.map((id) => card(id))),
    h("h4", {}, "Lower row (fulfil or reserve from here)"),
    h("div", { class: "design-row" }, game.lower.map((id) => card(id))),
  );
}

function advancedPanel(ctx, who) {
  const { game, cat } = ctx;
  const marks = ctx.of("sc.mark");
  return section(
    "Advanced design cards",
    { class: "panel designs" },
    h(
      "div",
      { class: "design-row" },
      game.advanced.map((card) => {
        const info = advancedCard(cat, card.card);
        const mark = marks.find((b) => b.card === card.card);
        return h(
          "div",
          { class: "design", "data-card": card.card },
          h("strong", {}, `Card ${card.card} (side ${card.side})`),
          h("div", {}, info ? capitalise(info.text) : card.subject),
          h(
            "div",
            { class: "meta" },
            "Spaces: ",
            card.track.map((value, i) =>
              h("span", {}, i ? " · " : "", card.markers[i] !== undefined ? [swatch(card.markers[i]), `${value}`] : `${value}`),
            ),
          ),
          mark ? ctx.button(mark, label(mark, ctx), "Mark") : null,
        );
      }),
    ),
  );
}

function rocketGrid(cat, rocket, { pad = 0, extra = null, selected = null, onCell = null, cellLabel = null } = {}) {
  const all = extra ? [...rocket, extra] : rocket;
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y);
  const minX = Math.min(0, ...xs) - pad;
  const maxX = Math.max(0, ...xs) + pad;
  const minY = Math.min(0, ...ys) - pad;
  const maxY = Math.max(0, ...ys) + pad;
  const at = new Map(all.map((p) => [`${p.x},${p.y}`, p]));
  const cells = [];
  for (let y = maxY; y >= minY; y -= 1) {
    for (let x = minX; x <= maxX; x += 1) {
      const part = at.get(`${x},${y}`);
      const key = `${x},${y}`;
      const text = part ? partName(cat, part.kind) : "";
      const where = `column ${x - minX + 1}, row ${maxY - y + 1}`;
      const cls = "cell" + (part ? " part" : "") + (selected === key ? " selected" : "") + (extra && part === extra ? " new" : "");
      cells.push(
        onCell
          ? h(
              "button",
              {
                type: "button",
                class: cls,
                "data-key": `cell:${key}`,
                "aria-label": cellLabel(x, y, part, where),
                "aria-pressed": String(selected === key),
                onclick: () => onCell(x, y, part),
              },
              text,
            )
          : h("div", { class: cls, title: text }, text),
      );
    }
  }
  const grid = h(
    "div",
    {
      class: "rocket",
      style: { "grid-template-columns": `repeat(${maxX - minX + 1}, auto)` },
      role: onCell ? "group" : "img",
      "aria-label": onCell ? "Rocket grid" : `Rocket: ${listing(rocket.map((p) => partName(cat, p.kind)))}`,
    },
    cells,
  );
  // focusable: a wide rocket scrolls sideways, with the keyboard too
  return h("div", { class: "rocket-wrap", tabindex: "0", role: "region", "aria-label": "Rocket" }, grid);
}

function seatsPanel(ctx, who) {
  const { game, cat } = ctx;
  const everyoneChose = game.seats.every((s) => s.goal !== null && s.goal !== undefined);
  return section(
    "Players",
    { class: "panel seats-panel" },
    h(
      "div",
      { class: "seat-cards" },
      game.seats.map((seat) => {
        const beside = Object.entries(seat.beside).filter(([, n]) => n);
        return h(
          "article",
          { class: "seat-card", "data-seat": seat.seat },
          h("h4", {}, who(seat.seat)),
          facts([
            ["Pawn", seat.pawn ? `in the junkyard at column ${seat.pawn[0] + 1}, row ${seat.pawn[1] + 1}` : "outside"],
            ["Board", seat.board.length ? seat.board.join(", ") : "empty"],
            ["Junk beside", beside.length ? beside.map(([j, n]) => `${n} ${j}`).join(", ") : "none"],
            ["Rocket", `${seat.width} wide × ${seat.height} high${seat.meets_blueprint ? " · meets the blueprint" : ""}`],
            [
              "Goal",
              seat.goal !== null && seat.goal !== undefined
                ? seat.seat === ctx.me || everyoneChose
                  ? goalText(cat, seat.goal)
                  : "chosen"
                : game.phase === "goals"
                  ? "choosing"
                  : "hidden",
            ],
            game.variant === "basic"
              ? ["Fulfilled", seat.fulfilled.length ? seat.fulfilled.map((id) => `card ${id}`).join(", ") : "none"]
              : ["Markers left", String(seat.markers_left)],
            game.variant === "basic"
              ? ["Reserved", seat.has_reserved ? (seat.reserved ? `card ${seat.reserved}` : "a card (face down)") : "none"]
              : null,
            game.points ? ["Points", String(game.points[seat.seat])] : null,
          ]),
          rocketGrid(cat, seat.rocket),
        );
      }),
    ),
  );
}

function privatePanel(ctx) {
  const { game, cat } = ctx;
  if (ctx.me === null || ctx.me === undefined) return null;
  const mine = game.seats[ctx.me];
  if (!mine) return null;
  // Once every seat has kept its goal the goals are public (shown with each seat).
  const everyoneChose = game.seats.every((seat) => seat.goal !== null && seat.goal !== undefined);
  return section(
    "Your hand (only you see this)",
    { class: "panel private", "data-testid": "private" },
    facts([
      everyoneChose
        ? null
        : ["Personal goal", mine.goal !== null && mine.goal !== undefined ? goalText(cat, mine.goal) : "not chosen yet"],
      mine.goal_options && mine.goal_options.length
        ? ["Goal options", listing(mine.goal_options.map((g) => goalText(cat, g)))]
        : null,
      game.variant === "basic"
        ? ["Reserved card", mine.reserved ? `card ${mine.reserved}: ${designText(cat, mine.reserved)}` : "none"]
        : null,
    ]),
    // the goals to keep are cards on the board: keeping one is a click there
    everyoneChose && !(game.variant === "basic" && mine.reserved) ? h("p", { class: "hint" }, "Nothing secret right now: your goal is public since everyone chose.") : null,
  );
}

function movesPanel(ctx) {
  if (!ctx.legal.length) return null;
  // Cards, piles, parts, leaving and ending the turn are clicks on the board; here: the
  // payment of the part picked there, and the same simple moves for the keyboard.
  const simple = [...ctx.of("sc.leave"), ...ctx.of("sc.arrange"), ...ctx.of("sc.end_turn")];
  const text = (body) => (body.type === "sc.arrange" ? "Rearrange automatically" : label(body, ctx));
  const name = (body) => (body.type === "sc.arrange" ? "Rearrange automatically" : label(body, ctx));
  const hints = [];
  if (ctx.of("sc.visit").length || ctx.of("sc.search").length) hints.push("take a pile in the junkyard");
  if (ctx.of("sc.build").length) hints.push("build: click a part in the workshop, then its payment");
  if (ctx.of("sc.fulfil").length || ctx.of("sc.reserve").length) hints.push("fulfil or reserve a design card on the board");
  if (ctx.of("sc.mark").length) hints.push("mark an advanced card on the board");
  if (ctx.of("sc.choose_goal").length) hints.push("keep one of your personal goals on the board");
  return section(
    "Your moves",
    { class: "panel moves game-moves", "data-testid": "game-moves" },
    hints.length ? h("p", { class: "hint" }, `You may ${listing(hints)}.`) : null,
    paymentChoice(ctx),
    simple.length
      ? h(
          "div",
          { class: "move-list" },
          simple.map((body) => ctx.button(body, name(body), text(body))),
        )
      : null,
  );
}

// ------------------------------------------------------------------ the workshop order:
// any part, any payment, any cell (multi-step; the service checks and explains a refusal)

function assemblyPanel(ctx) {
  const { game, cat, ui } = ctx;
  const me = ctx.me;
  if (me === null || me === undefined || !ctx.myTurn || game.step !== "build") return null;
  const seat = game.seats[me];
  const canBuild = game.builds_this_turn < 2 && ctx.of("sc.build").length > 0;
  const canArrange = ctx.of("sc.arrange").length > 0 || ctx.of("sc.build").length > 0;
  const order = (ui.sc = ui.sc && ui.sc.seq === ctx.view.seq ? ui.sc : { seq: ctx.view.seq, slot: "", pay: {}, cell: null, layout: null, moving: null });
  const weight = Object.fromEntries(cat.junk.map((j) => [j.name, j.weight]));
  const slot = order.slot === "" ? null : cat.slots[Number(order.slot)];
  const pay = Object.entries(order.pay).flatMap(([junk, n]) => Array(n).fill(junk));
  const paid = pay.reduce((sum, j) => sum + weight[j], 0);
  const token = slot ? game.tokens[slot.column] : null;
  const enough = slot && pay.includes(token) && paid >= slot.weight;
  const newPart = slot && order.cell ? { kind: slot.kind, x: order.cell[0], y: order.cell[1] } : null;
  const buildBody = slot
    ? { type: "sc.build", slot: slot.index, pay: [...pay].sort(), layout: newPart ? [...seat.rocket, newPart] : null }
    : null;

  const layout = order.layout || seat.rocket;
  const arrangeBody = { type: "sc.arrange", layout };
  const changed = JSON.stringify(layout) !== JSON.stringify(seat.rocket);

  const partSelect = h(
    "select",
    {
      id: "sc-order-part",
      "data-key": "sc-order-part",
      onchange: (event) => {
        order.slot = event.target.value;
        ctx.rerender();
      },
    },
    h("option", { value: "" }, "Choose a part…"),
    cat.slots
      .filter((s) => game.supply[s.index] > 0)
      .map((s) =>
        h("option", { value: String(s.index), selected: String(s.index) === order.slot }, `${s.name} (weight ${s.weight}, needs ${game.tokens[s.column]})`),
      ),
  );
  const payInputs = Object.entries(seat.beside)
    .filter(([, n]) => n > 0)
    .map(([junk, n]) =>
      h(
        "label",
        { class: "field" },
        `${junk} (weight ${weight[junk]}, you have ${n})`,
        h("input", {
          type: "number",
          min: "0",
          max: String(n),
          value: String(order.pay[junk] || 0),
          "data-key": `sc-pay-${junk}`,
          onchange: (event) => {
            order.pay[junk] = Math.max(0, Math.min(n, Number(event.target.value) || 0));
            ctx.rerender();
          },
        }),
      ),
    );

  return section(
    "Workshop order: choose the part, the payment and where it goes",
    { class: "panel assembly", "data-testid": "assembly" },
    canBuild
      ? h(
          "div",
          {},
          h("div", { class: "field" }, h("label", { for: "sc-order-part" }, "Part"), partSelect),
          h("div", { class: "row" }, payInputs),
          h(
            "p",
            { class: "hint" },
            slot
              ? `Paying ${paid} of ${slot.weight} weight${pay.includes(token) ? "" : `; the payment must include a ${token}`}. ` +
                  (order.cell ? "The new part goes in the cell you chose (click it again to let it be attached automatically)." : "Pick a free cell below, or leave it to be attached automatically.")
              : "Choose a part first.",
          ),
          slot
            ? rocketGrid(cat, seat.rocket, {
                pad: 1,
                extra: newPart,
                selected: order.cell ? `${order.cell[0]},${order.cell[1]}` : null,
                onCell: (x, y, part) => {
                  if (part && part !== newPart) return;
                  order.cell = order.cell && order.cell[0] === x && order.cell[1] === y ? null : [x, y];
                  ctx.rerender();
                },
                cellLabel: (x, y, part, where) =>
                  part ? `${capitalise(partName(cat, part.kind))} at ${where}` : `Put the new ${slot.name} at ${where}`,
              })
            : null,
          buildBody
            ? ctx.button(buildBody, label(buildBody, ctx), "Build this", {
                "data-composed": "1",
                disabled: ctx.busy || !enough,
              })
            : null,
        )
      : null,
    canArrange && seat.rocket.length > 1
      ? h(
          "div",
          {},
          h("h4", {}, "Rearrange: pick a part, then a free cell"),
          rocketGrid(cat, layout, {
            pad: 1,
            selected: order.moving,
            onCell: (x, y, part) => {
              const key = `${x},${y}`;
              if (part) order.moving = order.moving === key ? null : key;
              else if (order.moving) {
                const [mx, my] = order.moving.split(",").map(Number);
                order.layout = layout.map((p) => (p.x === mx && p.y === my ? { ...p, x, y } : p));
                order.moving = null;
              }
              ctx.rerender();
            },
            cellLabel: (x, y, part, where) =>
              part
                ? `Pick up the ${partName(cat, part.kind)} at ${where}`
                : order.moving
                  ? `Move the picked part to ${where}`
                  : `Free cell at ${where}`,
          }),
          h(
            "div",
            { class: "row" },
            ctx.button(arrangeBody, "Send this arrangement", "Send this arrangement", {
              "data-composed": "1",
              disabled: ctx.busy || !changed,
            }),
            h(
              "button",
              {
                type: "button",
                "data-key": "sc-arrange-reset",
                disabled: !changed,
                onclick: () => {
                  order.layout = null;
                  order.moving = null;
                  ctx.rerender();
                },
              },
              "Undo changes",
            ),
          ),
        )
      : null,
  );
}

// ------------------------------------------------------------------ replays

export function describe(prev, next, ctx) {
  const { cat } = ctx;
  const lines = [];
  const name = (seat) => ctx.name(seat);
  if (prev.phase !== next.phase && next.phase === "final") lines.push("The final round begins.");
  next.seats.forEach((seat, i) => {
    const old = prev.seats[i];
    if (!old) return;
    if (seat.goal !== null && (old.goal === null || old.goal === undefined) && seat.goal !== undefined) {
      lines.push(`${name(i)} kept a personal goal${seat.seat === ctx.me ? `: ${goalText(cat, seat.goal)}` : ""}.`);
    }
    if (seat.board.length > old.board.length) {
      const taken = seat.board[seat.board.length - 1];
      const where = seat.pawn ? ` at column ${seat.pawn[0] + 1}, row ${seat.pawn[1] + 1}` : "";
      lines.push(`${name(i)} took a ${taken}${where}.`);
    }
    if (old.pawn && !seat.pawn) lines.push(`${name(i)} left the junkyard.`);
    const before = old.rocket.map((p) => p.kind);
    const added = seat.rocket.map((p) => p.kind).filter((k) => {
      const at = before.indexOf(k);
      if (at >= 0) {
        before.splice(at, 1);
        return false;
      }
      return true;
    });
    added.forEach((k) => lines.push(`${name(i)} built a ${partName(cat, k)}.`));
    if (!added.length && seat.rocket.length === old.rocket.length && JSON.stringify(seat.rocket) !== JSON.stringify(old.rocket)) {
      lines.push(`${name(i)} rearranged the rocket.`);
    }
    seat.fulfilled.filter((c) => !old.fulfilled.includes(c)).forEach((c) => lines.push(`${name(i)} fulfilled design card ${c}.`));
    if (seat.has_reserved && !old.has_reserved) lines.push(`${name(i)} reserved a design card.`);
    if (seat.markers_left < old.markers_left) lines.push(`${name(i)} marked an advanced card.`);
  });
  if (next.countdown_holder !== prev.countdown_holder && next.countdown_holder !== null) {
    lines.push(`${name(next.countdown_holder)}'s rocket meets the blueprint: the countdown starts.`);
  } else if (next.countdown_top !== prev.countdown_top && next.countdown_top !== null) {
    lines.push(`Countdown: ${next.countdown_top === 0 ? "launch!" : next.countdown_top}.`);
  }
  if (prev.current !== next.current && next.phase !== "goals") lines.push(`${name(next.current)}'s turn.`);
  return lines;
}
