// Fractured Sky: the regions (by their catalogue names, with stardust, airships, chips and
// skimmers), the floating platforms, the turn track, the secret stardust cards and the
// objective tray, every participant's resources and supplies (automated opponents too),
// the last round's results, my private panel (my unused chips, exploration draws,
// scouted cards, peeked objectives, pending choices) and my moves in place.

import { capitalise, h, listing, plural } from "../lib/dom.js";
import { fittedText, flowBoard, hot, panel, pick, s, text, thing } from "../lib/svg.js";
import { facts, phaseWords, section, swatch } from "./common.js";

const RES = ["gold", "iron", "wood"];
const ICON = { gold: "●", iron: "■", wood: "▲" };

export function handles(body) {
  return body.type.startsWith("fs.");
}

// ------------------------------------------------------------------ naming

function regionName(cat, index) {
  const region = cat && cat.regions[index];
  return region ? region.name : `region ${index + 1}`;
}

export function participant(ctx, seat) {
  const game = ctx.game;
  if (seat < ctx.view.seats.length) return ctx.name(seat);
  const ai = game && (game.ais || []).find((a) => a.seat === seat);
  return ai ? `${capitalise(ai.name)} AI` : `Participant ${seat + 1}`;
}

function amounts(body) {
  return listing(RES.filter((r) => body[r]).map((r) => `${body[r]} ${r}`));
}

function costText(cost) {
  return listing(Object.entries(cost).map(([r, n]) => `${n} ${r}`)) || "nothing";
}

// A platform by the regions it bridges that are in play at this player count (a region
// removed from the board is never named).
function platformText(ctx, index) {
  const { cat, game } = ctx;
  const active = new Set(game ? game.regions_active : cat.platforms[index].regions);
  const names = cat.platforms[index].regions.filter((r) => active.has(r)).map((r) => regionName(cat, r));
  return names.length ? `platform ${index + 1} (bridges ${listing(names)})` : `platform ${index + 1}`;
}

function objectiveText(cat, card) {
  const objective = cat.objectives[card];
  return objective ? objective.text : `objective card ${card + 1}`;
}

function goldSlot(ctx, slot) {
  const slots = (ctx.cat.gold_slots || {})[String(ctx.game.slot_count)] || [];
  return slots.includes(slot);
}

export function label(body, ctx) {
  const cat = ctx.cat;
  const costs = cat.costs;
  switch (body.type) {
    case "fs.choose_start":
      return `Start with ${amounts(body)}`;
    case "fs.trade":
      return `Trade ${amounts(body)} for 1 ${body.get}`;
    case "fs.place_airship":
      return `Place the ${body.chip} chip on ${regionName(cat, body.region)}`;
    case "fs.choose_slot":
      return `Take turn slot ${body.slot} for the next round${goldSlot(ctx, body.slot) ? " (+1 gold)" : ""}`;
    case "fs.build_fortress":
      return `Build a fortress on ${platformText(ctx, body.platform)} for ${costText(costs.fortress)}`;
    case "fs.build_market":
      return `Build a market on ${platformText(ctx, body.platform)} for ${costText(costs.market)}`;
    case "fs.place_skimmer":
      return `Place a skimmer on ${regionName(cat, body.region)} for ${costText(costs.skimmer)}`;
    case "fs.scout":
      return `Scout secret stardust card ${body.card + 1} for ${costText(costs.scout)}`;
    case "fs.scout_take":
      return body.resource
        ? `Take 1 ${body.resource} from the scouted card`
        : "Take nothing from the scouted card";
    case "fs.peek": {
      const objective = ctx.game.objectives.find((o) => o.position === body.objective);
      const icon = objective ? ` (${cat.objective_icons[objective.icon] || objective.icon})` : "";
      return `Peek at objective ${body.objective + 1}${icon} paying ${amounts(body)}`;
    }
    case "fs.choose_resource": {
      const choice = (ctx.game.my_choices || [])[0];
      const why = choice
        ? ` (${choice.reason === "market" ? "market payout" : "rank reward"} at ${regionName(cat, choice.region)})`
        : "";
      return `Take 1 ${body.resource}${why}`;
    }
    default:
      return body.type;
  }
}

// ------------------------------------------------------------------ drawing


export function render(ctx) {
  const game = ctx.game;
  const cat = ctx.cat;
  if (!cat) return { details: h("p", {}, "Loading the catalogue…") };
  const who = (seat) =>
    h("span", { class: `who seat-text-${seat % 6}` }, swatch(seat), participant(ctx, seat), seat === ctx.me ? " (you)" : "");
  const turnText = game.turn >= 0 ? participant(ctx, game.turn) : "—";
  return {
    board: board(ctx),
    moves: movesPanel(ctx),
    hand: privatePanel(ctx),
    details: h(
      "div",
      { class: "game fs" },
      h(
        "div",
        { class: "game-top panel" },
        facts([
          ["Round", `${game.round} of ${cat.rounds}`],
          ["Phase", phaseWords(cat, game.phase)],
          ["Turn", turnText],
          ["Public stardust card", regionName(cat, game.public_card)],
          ["Stardust supply", String(game.stardust_supply)],
          ["Chips", game.revealed ? "revealed" : "hidden until the round ends"],
          game.difficulty ? ["Automated opponents", game.difficulty] : null,
        ]),
      ),
      regionsPanel(ctx, who),
      platformsPanel(ctx, who),
      trackPanel(ctx, who),
      traysPanel(ctx, who),
      playersPanel(ctx, who),
      game.ais && game.ais.length ? aiPanel(ctx) : null,
      resultsPanel(ctx, who),
    ),
  };
}

// ------------------------------------------------------------------ the picture
// The regions where the catalogue puts them (north row above, south row below, the
// floating platforms between), airships as chips in their owner's colour, skimmers,
// buildings, stardust; the turn track under it. A region you may place on is one
// click (with the chip chosen in your hand), so are a skimmer, a building and a slot.

const COL = 90; // x distance between neighbouring region columns
const NORTH = 95; // centre of the north row; the south row is ROW lower
const ROW = 190;
const RW = 160; // a region's size
const RH = 150;

// On a narrow screen (or a board column too narrow for the wide map) the map turns a
// quarter: the two rows of regions become two columns (north on the left) and the
// regions run down the screen. Set by board() per drawing.
let narrowMap = false;

const NARROW_GUTTER = 85 + 0.5 * 165; // the x between the turned map's two columns

function regionCentre(info) {
  if (narrowMap) return [85 + (1 - info.y) * 165, 85 + info.x * 85];
  return [100 + info.x * COL, NORTH + (1 - info.y) * ROW];
}

function chipValue(ship) {
  return ship.chip !== null && ship.chip !== undefined ? String(ship.chip) : "?";
}

// The chip a click on a region places: the one chosen in the hand, else the first.
function chosenChip(ctx) {
  const chips = [...new Set(ctx.of("fs.place_airship").map((b) => b.chip))];
  if (!chips.length) return null;
  const ui = (ctx.ui.fs = ctx.ui.fs || {});
  if (!chips.includes(ui.chip)) ui.chip = chips[0];
  return ui.chip;
}

function board(ctx) {
  const { game, cat } = ctx;
  narrowMap = ctx.narrow;
  const active = new Set(game.regions_active);
  const chip = chosenChip(ctx);
  const places = ctx.of("fs.place_airship").filter((b) => b.chip === chip);
  const skimmers = ctx.of("fs.place_skimmer");
  const forts = ctx.of("fs.build_fortress");
  const markets = ctx.of("fs.build_market");
  const regions = game.regions.map((region) => regionDrawing(ctx, region, active));
  const overlays = game.regions.map((region) => {
    const [cx, cy] = regionCentre(cat.regions[region.index]);
    const place = places.find((b) => b.region === region.index);
    const skimmer = skimmers.find((b) => b.region === region.index);
    return [
      place
        ? hot(ctx, place, label(place, ctx), { class: "region-hot", "data-region": region.index },
            s("rect", { class: "hit", x: cx - RW / 2, y: cy - RH / 2, width: RW, height: RH, rx: 18 }))
        : null,
      skimmer
        ? hot(ctx, skimmer, label(skimmer, ctx), { class: "small-hot" },
            s("rect", { class: "hit", x: cx + 8, y: cy + 44, width: 70, height: 24, rx: 8 }),
            text(cx + 43, cy + 61, "+ skimmer", { class: "tiny", "text-anchor": "middle" }))
        : null,
    ];
  });
  const platforms = game.platforms.map((platform) => {
    const info = cat.platforms[platform.index];
    const [cx, cy] = regionCentre(info);
    const built = [];
    platform.fortresses.forEach((n, p) => n && built.push(`${participant(ctx, p)}: ${plural(n, "fortress", "fortresses")}`));
    platform.markets.forEach((n, p) => n && built.push(`${participant(ctx, p)}: ${plural(n, "market")}`));
    const marks = [];
    platform.fortresses.forEach((n, p) => {
      for (let i = 0; i < n; i += 1) marks.push(s("rect", { class: `p${p % 6} piece`, x: cx - 14 + marks.length * 9, y: cy - 30, width: 8, height: 8 }));
    });
    platform.markets.forEach((n, p) => {
      for (let i = 0; i < n; i += 1) marks.push(s("circle", { class: `p${p % 6} piece`, cx: cx - 10 + marks.length * 9, cy: cy + 27, r: 4 }));
    });
    const fort = forts.find((b) => b.platform === platform.index);
    const market = markets.find((b) => b.platform === platform.index);
    // F left of the platform and M right of it, in the gap between two regions; on the
    // map in two columns (a phone's, or a board column too narrow for the wide map) a
    // platform between the columns has regions left and right (their names reach its
    // sides), so there F goes above it (over the fortresses) and M below (the markets)
    // (each letter clear of the pieces it is drawn over)
    const between = narrowMap && Math.abs(cx - NARROW_GUTTER) < 10;
    const [fx, fy, fText] = between ? [cx - 11, cy - 46, 15] : [cx - 40, cy - 11, 16];
    const [mx, my, mText] = between ? [cx - 11, cy + 20, 18] : [cx + 18, cy - 11, 16];
    return [
      thing(
        `${capitalise(platformText(ctx, platform.index))}: ${built.length ? built.join("; ") : "nothing built"}`,
        { class: "platform", "data-platform": platform.index },
        s("polygon", { points: `${cx},${cy - 16} ${cx + 16},${cy} ${cx},${cy + 16} ${cx - 16},${cy}` }),
        text(cx, cy + 4, String(platform.index + 1), { class: "tiny", "text-anchor": "middle" }),
        marks,
      ),
      fort
        ? hot(ctx, fort, label(fort, ctx), { class: "small-hot" },
            s("rect", { class: "hit", x: fx, y: fy, width: 22, height: 22, rx: 5 }),
            text(fx + 11, fy + fText, "F", { class: "tiny", "text-anchor": "middle" }))
        : null,
      market
        ? hot(ctx, market, label(market, ctx), { class: "small-hot" },
            s("rect", { class: "hit", x: mx, y: my, width: 22, height: 22, rx: 11 }),
            text(mx + 11, my + mText, "M", { class: "tiny", "text-anchor": "middle" }))
        : null,
    ];
  });
  const name = `Fractured Sky board, round ${game.round} of ${cat.rounds}: ${phaseWords(cat, game.phase)}`;
  // The map spans the regions in play (3 players leave out the two ends).
  const centres = game.regions.map((region) => regionCentre(cat.regions[region.index]));
  const left = Math.min(...centres.map(([x]) => x)) - RW / 2 - 10;
  const top = Math.min(...centres.map(([, y]) => y)) - RH / 2 - 10;
  const right = Math.max(...centres.map(([x]) => x)) + RW / 2 + 10;
  const bottom = Math.max(...centres.map(([, y]) => y)) + RH / 2 + 10;
  const legend = panel(290, 24, text(0, 17, "● gold  ■ iron  ▲ wood  ★ stardust", { class: "small" }));
  return flowBoard(ctx, Math.max(right - left, 660), name, "fs-board", [
    panel(right - left, bottom - top, [regions, overlays, takeOverlays(ctx), platforms], left, top),
    trackDrawing(ctx),
    ...trayDrawing(ctx),
    legend,
  ]);
}

// The choices of a resource that belong to a region, drawn on it: what to take from the
// scouted card (its region's resources) and a round-end reward or market payout there.
function takeOverlays(ctx) {
  const { game, cat } = ctx;
  const at = new Map();
  const scouting = game.secret_cards.find((card) => card.position === game.scouting);
  if (scouting && scouting.region !== null && scouting.region !== undefined) {
    at.set(scouting.region, ctx.of("fs.scout_take"));
  }
  const choice = (game.my_choices || [])[0];
  if (choice && !at.has(choice.region)) at.set(choice.region, ctx.of("fs.choose_resource"));
  return [...at].map(([region, bodies]) => {
    const [cx, cy] = regionCentre(cat.regions[region]);
    const w = Math.min(50, (RW - 12) / Math.max(bodies.length, 1));
    const x0 = cx - (bodies.length * w) / 2;
    return bodies.map((body, i) =>
      hot(ctx, body, label(body, ctx), { class: "small-hot take-hot", "data-region": region },
        s("rect", { class: "hit", x: x0 + i * w + 2, y: cy + 34, width: w - 4, height: 24, rx: 8 }),
        text(x0 + i * w + w / 2, cy + 51, body.resource ? `+${ICON[body.resource]} ${body.resource}` : "nothing", { class: "tiny", "text-anchor": "middle" })),
    );
  });
}

function payKey(body) {
  return RES.map((r) => body[r] || 0).join(",");
}

// The secret stardust cards and the objectives, each drawn with what is known of it. A
// card you may scout is one click. An objective you may peek at is one click when there
// is one way to pay; else the click picks it and the payments appear beside the board.
const CARD_W = 56;
const CARD_H = 62;
const CARD_STEP = 64;
const OBJ_W = 92;
const OBJ_STEP = 100;
const TRAY_Y = 28;

function marks(seats, x, y) {
  return seats.map((seat, i) => s("circle", { class: `p${seat % 6} piece`, cx: x + 9 + i * 10, cy: y, r: 4 }));
}

// The objective picked on the board (this view only), waiting for its payment.
export function pickedObjective(ctx) {
  const pick = ctx.ui.fsObjective;
  if (!pick || pick.seq !== ctx.view.seq) return null;
  return ctx.of("fs.peek").some((b) => b.objective === pick.objective) ? pick.objective : null;
}

function pickObjective(ctx, objective) {
  if (ctx.busy) return;
  ctx.ui.fsObjective = pickedObjective(ctx) === objective ? null : { seq: ctx.view.seq, objective };
  ctx.rerender();
}

function trayDrawing(ctx) {
  const { game, cat } = ctx;
  const scouts = ctx.of("fs.scout");
  const peeks = ctx.of("fs.peek");
  const picked = pickedObjective(ctx);
  const cards = game.secret_cards.map((card, i) => {
    const x = i * CARD_STEP;
    const known = card.region !== null && card.region !== undefined;
    const scoutedBy = card.scouts.map((m) => `${participant(ctx, m.seat)}${m.resource ? ` (took ${m.resource})` : ""}`);
    const words =
      `Secret stardust card ${card.position + 1}: ` +
      (known ? `${regionName(cat, card.region)}${card.opened ? " (opened)" : game.revealed ? "" : " (you scouted it)"}` : "face down") +
      (scoutedBy.length ? `; scouted by ${listing(scoutedBy)}` : "");
    const face = [
      s("rect", { class: "card" + (known ? " known" : ""), x, y: TRAY_Y, width: CARD_W, height: CARD_H, rx: 6 }),
      text(x + CARD_W / 2, TRAY_Y + 16, `★ ${card.position + 1}`, { class: "tiny", "text-anchor": "middle" }),
      known
        ? fittedText(x + CARD_W / 2, TRAY_Y + 36, regionName(cat, card.region).split(" ")[0], CARD_W - 6, 7.5, { class: "micro-strong", "text-anchor": "middle" })
        : text(x + CARD_W / 2, TRAY_Y + 36, "?", { class: "small", "text-anchor": "middle" }),
      marks(card.scouts.map((m) => m.seat), x, TRAY_Y + CARD_H - 9),
    ];
    const scout = scouts.find((b) => b.card === card.position);
    if (scout) {
      return hot(ctx, scout, label(scout, ctx), { class: "card-hot", "data-secret": card.position },
        face, s("rect", { class: "hit", x, y: TRAY_Y, width: CARD_W, height: CARD_H, rx: 6 }));
    }
    return thing(words, { class: "fs-card", "data-secret": card.position }, face);
  });
  const perRow = ctx.narrow ? 3 : Math.max(game.objectives.length, 1);
  const objectives = game.objectives.map((objective, i) => {
    const x = (i % perRow) * OBJ_STEP;
    const y = TRAY_Y + Math.floor(i / perRow) * (CARD_H + 8);
    const icon = cat.objective_icons[objective.icon] || objective.icon;
    const known = objective.card !== null && objective.card !== undefined;
    const words =
      `Objective ${objective.position + 1} (${icon}): ` +
      (known ? `${objectiveText(cat, objective.card)}${objective.revealed ? "" : " (you peeked)"}` : "face down") +
      (objective.peeked_by.length ? `; peeked by ${listing(objective.peeked_by.map((p) => participant(ctx, p)))}` : "");
    const face = [
      s("rect", { class: "card objective" + (objective.revealed ? " revealed" : known ? " known" : ""), x, y, width: OBJ_W, height: CARD_H, rx: 6 }),
      text(x + OBJ_W / 2, y + 16, `Objective ${objective.position + 1}`, { class: "tiny", "text-anchor": "middle" }),
      fittedText(x + OBJ_W / 2, y + 33, icon, OBJ_W - 8, 7.5, { class: "micro-strong", "text-anchor": "middle" }),
      known ? text(x + OBJ_W / 2, y + 47, objective.revealed ? "revealed" : "seen", { class: "tiny", "text-anchor": "middle" }) : null,
      marks(objective.peeked_by, x, y + CARD_H - 7),
    ];
    const mine = peeks.filter((b) => b.objective === objective.position);
    const hit = s("rect", { class: "hit", x, y, width: OBJ_W, height: CARD_H, rx: 6 });
    if (mine.length === 1) {
      return hot(ctx, mine[0], label(mine[0], ctx), { class: "card-hot", "data-objective": objective.position }, face, hit);
    }
    if (mine.length > 1) {
      const chosen = picked === objective.position;
      const name = `Peek at objective ${objective.position + 1} (${icon}), then choose the payment`;
      const attrs = { "data-objective": objective.position, "data-pick": objective.position, "data-key": `fs-pick:${objective.position}` };
      return pick(name, chosen, () => pickObjective(ctx, objective.position), attrs, face, hit);
    }
    return thing(words, { class: "fs-card", "data-objective": objective.position }, face);
  });
  const rows = Math.ceil(game.objectives.length / perRow);
  return [
    panel(Math.max(game.secret_cards.length * CARD_STEP - 8, 160), TRAY_Y + CARD_H, [
      text(0, 18, "Secret stardust cards", { class: "small" }),
      cards,
    ]),
    game.objectives.length
      ? panel(Math.min(game.objectives.length, perRow) * OBJ_STEP - 8, TRAY_Y + rows * (CARD_H + 8) - 8, [
          text(0, 18, "Objectives", { class: "small" }),
          objectives,
        ])
      : null,
  ];
}

function regionDrawing(ctx, region, active) {
  const { game, cat } = ctx;
  const info = cat.regions[region.index];
  const [cx, cy] = regionCentre(info);
  const inPlay = active.has(region.index);
  const ships = region.airships;
  const skimmerText = listing(region.skimmers.map((n, p) => (n ? `${participant(ctx, p)} ${n}` : null)));
  const words = inPlay
    ? `${info.name}: ${region.stardust} stardust, produces ${listing(info.resources)}` +
      (game.public_card === region.index ? ", the public stardust card" : "") +
      (ships.length ? `; airships: ${listing(ships.map((ship) => `${participant(ctx, ship.seat)} ${chipText(ship)}`))}` : "; no airships") +
      (skimmerText ? `; skimmers: ${skimmerText}` : "")
    : `${info.name}: not in play`;
  const shipY = cy + 12;
  const firstX = cx - ((Math.min(ships.length, 5) - 1) * 30) / 2;
  return thing(
    words,
    { class: "fs-region" + (inPlay ? "" : " inactive") + (game.public_card === region.index ? " public" : ""), "data-region": region.index },
    s("rect", { class: "land", x: cx - RW / 2, y: cy - RH / 2, width: RW, height: RH, rx: 18 }),
    text(cx, cy - 50, info.name, { class: "name", "text-anchor": "middle" }),
    inPlay
      ? [
          text(cx, cy - 28, `${info.resources.map((r) => ICON[r]).join(" ")}  ★ ${region.stardust}`, { class: "small", "text-anchor": "middle" }),
          ships.map((ship, i) =>
            s(
              "g",
              { class: `ship chip-${ship.chip_class}` },
              s("circle", { class: `p${ship.seat % 6}`, cx: firstX + i * 30, cy: shipY, r: 13 }),
              text(firstX + i * 30, shipY + 5, chipValue(ship), { class: "chip-text", "text-anchor": "middle" }),
            ),
          ),
          region.skimmers.map((n, p) =>
            n
              ? s(
                  "g",
                  {},
                  s("polygon", { class: `p${p % 6}`, points: `${cx - 70 + p * 26},${cy + 68} ${cx - 60 + p * 26},${cy + 50} ${cx - 50 + p * 26},${cy + 68}` }),
                  n > 1 ? text(cx - 60 + p * 26, cy + 48, String(n), { class: "tiny", "text-anchor": "middle" }) : null,
                )
              : null,
          ),
        ]
      : text(cx, cy + 5, "not in play", { class: "small", "text-anchor": "middle" }),
  );
}

// The turn track: this round's slots and the next round's. On a phone the row names go
// above their slots, so five slots (4-5 participants) stay within the phone's width.
function trackDrawing(ctx) {
  const { game } = ctx;
  const slots = ctx.of("fs.choose_slot");
  const above = ctx.narrow;
  const labelW = above ? 0 : 95;
  const slotW = above ? 58 : 72;
  const step = slotW + 6;
  const rowH = above ? 52 : 38; // a row of slots, with its name above it on a phone
  const y = above ? 20 : 0;
  const box = (x, seat, extra = null, at = y) => [
    s("rect", { class: seat >= 0 ? `p${seat % 6} slot` : "slot free", x, y: at, width: slotW, height: 30, rx: 6 }),
    fittedText(x + slotW / 2, at + 20, extra || (seat >= 0 ? participant(ctx, seat) : "free"), slotW - 6, 6.2, { class: "tiny slot-text", "text-anchor": "middle" }),
  ];
  const now = game.order.map((seat, i) =>
    thing(`This round, slot ${i + 1}: ${participant(ctx, seat)}`, { class: "track-slot" }, box(labelW + i * step, seat)),
  );
  const y2 = y + rowH;
  const next = game.next_slots.map((seat, i) => {
    const slot = i + 1;
    const x = labelW + i * step;
    const take = slots.find((b) => b.slot === slot);
    const gold = goldSlot(ctx, slot) ? " (+1 gold)" : "";
    if (take) {
      return hot(ctx, take, label(take, ctx), { class: "slot-hot" },
        s("rect", { class: "hit", x, y: y2, width: slotW, height: 30, rx: 6 }),
        text(x + slotW / 2, y2 + 20, `take ${slot}${gold ? " ●" : ""}`, { class: "tiny", "text-anchor": "middle" }));
    }
    return thing(`Next round, slot ${slot}${gold}: ${seat >= 0 ? participant(ctx, seat) : "free"}`, { class: "track-slot" },
      box(x, seat, seat >= 0 ? null : `${slot}${gold ? " ●" : ""}`, y2));
  });
  const w = Math.max(labelW + Math.max(game.order.length, game.next_slots.length) * step - 6, above ? 90 : 0);
  const nameY = (row) => (above ? row - 8 : row + 20);
  return panel(w, y2 + 30, [
    text(0, nameY(y), "This round", { class: "small" }),
    now,
    text(0, nameY(y2), "Next round", { class: "small" }),
    next,
  ]);
}

function chipText(ship) {
  if (ship.chip !== null && ship.chip !== undefined) return `chip ${ship.chip}`;
  return { white: "a white chip", black: "a black chip", token: "an AI token" }[ship.chip_class] || "a chip";
}

function regionsPanel(ctx, who) {
  const { game, cat } = ctx;
  const places = ctx.of("fs.place_airship");
  const skimmers = ctx.of("fs.place_skimmer");
  const results = new Map((game.region_results || []).map((r) => [r.region, r]));
  return section(
    "Regions",
    { class: "panel regions", "data-testid": "regions" },
    h(
      "div",
      { class: "region-grid" },
      game.regions.map((region) => {
        const info = cat.regions[region.index];
        const here = places.filter((b) => b.region === region.index);
        const skimmer = skimmers.find((b) => b.region === region.index);
        const result = results.get(region.index);
        return h(
          "article",
          {
            class: "region" + (game.public_card === region.index ? " public" : ""),
            "data-region": region.index,
            "aria-label": info.name,
          },
          h("h4", {}, info.name),
          h(
            "p",
            { class: "meta" },
            `${info.y === 1 ? "north" : "south"} · produces ${listing(info.resources.map((r) => `${ICON[r]} ${r}`))}`,
          ),
          h(
            "p",
            { class: "stardust" },
            `★ ${region.stardust} stardust`,
            game.public_card === region.index ? h("span", { class: "badge" }, "public card") : null,
          ),
          region.airships.length
            ? h(
                "ul",
                { class: "airships" },
                region.airships.map((ship) =>
                  h(
                    "li",
                    { "data-seat": ship.seat, class: `chip-${ship.chip_class}` },
                    who(ship.seat),
                    ": ",
                    h("span", { class: "chip" }, chipText(ship)),
                    ship.explorer ? h("span", { class: "meta" }, " · explorer") : null,
                  ),
                ),
              )
            : h("p", { class: "meta" }, "no airships"),
          region.skimmers.some((n) => n)
            ? h(
                "p",
                { class: "meta" },
                "Skimmers: ",
                listing(region.skimmers.map((n, seat) => (n ? `${participant(ctx, seat)} ${n}` : null))),
              )
            : null,
          result
            ? h(
                "p",
                { class: "meta" },
                "Last round power: ",
                listing(result.power.map((p, seat) => (p >= 0 ? `${participant(ctx, seat)} ${p}` : null))) || "none",
              )
            : null,
          here.length || skimmer
            ? h(
                "div",
                { class: "chip-buttons", role: "group", "aria-label": `Moves on ${info.name}` },
                here.map((body) => ctx.button(body, label(body, ctx), String(body.chip), { class: "chip-move" })),
                skimmer ? ctx.button(skimmer, label(skimmer, ctx), "Skimmer") : null,
              )
            : null,
        );
      }),
    ),
  );
}

function platformsPanel(ctx, who) {
  const { game, cat } = ctx;
  const forts = ctx.of("fs.build_fortress");
  const markets = ctx.of("fs.build_market");
  const active = new Set(game.regions_active);
  return section(
    "Floating platforms",
    { class: "panel platforms" },
    h(
      "ul",
      { class: "platform-list" },
      game.platforms.map((platform) => {
        const info = cat.platforms[platform.index];
        const bridged = info.regions.filter((r) => active.has(r)).map((r) => regionName(cat, r));
        const built = [];
        platform.fortresses.forEach((n, seat) => n && built.push(`${participant(ctx, seat)}: ${plural(n, "fortress", "fortresses")}`));
        platform.markets.forEach((n, seat) => n && built.push(`${participant(ctx, seat)}: ${plural(n, "market")}`));
        const fort = forts.find((b) => b.platform === platform.index);
        const market = markets.find((b) => b.platform === platform.index);
        return h(
          "li",
          { "data-platform": platform.index },
          h("strong", {}, `Platform ${platform.index + 1}`),
          ` bridges ${listing(bridged)}. `,
          h("span", { class: "meta" }, built.length ? built.join("; ") : "nothing built"),
          fort ? ctx.button(fort, label(fort, ctx), "Fortress") : null,
          market ? ctx.button(market, label(market, ctx), "Market") : null,
        );
      }),
    ),
  );
}

function trackPanel(ctx, who) {
  const { game } = ctx;
  const slots = ctx.of("fs.choose_slot");
  return section(
    "Turn order",
    { class: "panel track" },
    h(
      "p",
      {},
      "This round: ",
      h("ol", { class: "inline" }, game.order.map((seat) => h("li", {}, who(seat)))),
    ),
    h(
      "p",
      {},
      "Next round: ",
      h(
        "ol",
        { class: "inline" },
        game.next_slots.map((seat, i) => {
          const slot = i + 1;
          const button = slots.find((b) => b.slot === slot);
          return h(
            "li",
            {},
            seat >= 0 ? who(seat) : "free",
            goldSlot(ctx, slot) ? h("span", { class: "meta" }, " (+1 gold)") : null,
            button ? ctx.button(button, label(button, ctx), `Take slot ${slot}`) : null,
          );
        }),
      ),
    ),
  );
}

function traysPanel(ctx, who) {
  const { game, cat } = ctx;
  const scouts = ctx.of("fs.scout");
  const peeks = ctx.of("fs.peek");
  return section(
    "Secret stardust cards and objectives",
    { class: "panel trays" },
    h(
      "ul",
      { class: "cards" },
      game.secret_cards.map((card) => {
        const scout = scouts.find((b) => b.card === card.position);
        return h(
          "li",
          { "data-secret": card.position },
          h("strong", {}, `Secret card ${card.position + 1}: `),
          card.region !== null && card.region !== undefined
            ? `${regionName(cat, card.region)}${card.opened ? " (opened)" : game.revealed ? "" : " (you scouted it)"}`
            : "face down",
          card.scouts.length
            ? h(
                "span",
                { class: "meta" },
                " · scouted by ",
                listing(card.scouts.map((m) => `${participant(ctx, m.seat)}${m.resource ? ` (took ${m.resource})` : ""}`)),
              )
            : null,
          scout ? ctx.button(scout, label(scout, ctx), "Scout") : null,
        );
      }),
    ),
    h(
      "ul",
      { class: "cards" },
      game.objectives.map((objective) => {
        const mine = peeks.filter((b) => b.objective === objective.position);
        return h(
          "li",
          { "data-objective": objective.position },
          h("strong", {}, `Objective ${objective.position + 1} (${cat.objective_icons[objective.icon] || objective.icon}): `),
          objective.card !== null && objective.card !== undefined
            ? `${objectiveText(cat, objective.card)}${objective.revealed ? "" : " (you peeked)"}`
            : "face down",
          objective.peeked_by.length
            ? h("span", { class: "meta" }, " · peeked by ", listing(objective.peeked_by.map((s) => participant(ctx, s))))
            : null,
          mine.length
            ? h(
                "span",
                { class: "peek-buttons" },
                mine.map((body) => ctx.button(body, label(body, ctx), `Peek (${amounts(body)})`)),
              )
            : null,
        );
      }),
    ),
  );
}

function playersPanel(ctx, who) {
  const { game } = ctx;
  return section(
    "Players",
    { class: "panel players" },
    h(
      "div",
      { class: "scroll", tabindex: "0", role: "region", "aria-label": "Every player, in a table" },
      h(
        "table",
        {},
        h(
          "thead",
          {},
          h(
            "tr",
            {},
            ["Player", "Gold", "Iron", "Wood", "Stardust", "Airships", "Fortresses", "Markets", "Skimmers", "Next slot"].map((t) =>
              h("th", { scope: "col" }, t),
            ),
          ),
        ),
        h(
          "tbody",
          {},
          game.players.map((p) =>
            h(
              "tr",
              { "data-seat": p.seat, class: p.seat === game.turn ? "to-move" : "" },
              h("th", { scope: "row" }, who(p.seat), p.ai ? " (AI)" : "", p.started ? "" : " · choosing"),
              h("td", {}, p.gold),
              h("td", {}, p.iron),
              h("td", {}, p.wood),
              h("td", {}, p.stardust),
              h("td", {}, p.airships_left),
              h("td", {}, p.fortresses_left),
              h("td", {}, p.markets_left),
              h("td", {}, p.skimmers_left),
              h("td", {}, p.next_slot || "—"),
            ),
          ),
        ),
      ),
    ),
  );
}

function aiPanel(ctx) {
  const { game, cat } = ctx;
  return section(
    "Automated opponents",
    { class: "panel ais" },
    h(
      "ul",
      {},
      game.ais.map((ai) =>
        h(
          "li",
          {},
          h("strong", {}, participant(ctx, ai.seat)),
          `: ${plural(ai.cards_left, "action card")} left; flipped this round: `,
          listing(ai.flipped.map((c) => (cat.ai_deck[c] ? cat.ai_deck[c].text : `card ${c}`))) || "none",
          `; set-aside tokens: ${listing(ai.out_tokens.map((t) => (cat.ai_tokens[t] ? `${cat.ai_tokens[t].high}/${cat.ai_tokens[t].low}` : t))) || "none"}`,
          ai.threshold ? `; market card ${ai.tally}/${ai.threshold}` : "",
        ),
      ),
    ),
  );
}

function resultsPanel(ctx, who) {
  const { game, cat } = ctx;
  if (!(game.region_results || []).length && !(game.objective_results || []).length) return null;
  return section(
    "Last results",
    { class: "panel results" },
    (game.objective_results || []).length
      ? h(
          "ul",
          {},
          game.objective_results.map((o) =>
            h(
              "li",
              {},
              `Round ${o.round}: ${objectiveText(cat, o.card)} — `,
              o.winner >= 0 ? `${participant(ctx, o.winner)} won 1 stardust` : "nobody scored",
            ),
          ),
        )
      : null,
    h(
      "ul",
      {},
      (game.region_results || []).map((r) =>
        h(
          "li",
          {},
          `${regionName(cat, r.region)}: `,
          r.ranking.length ? `ranking ${r.ranking.map((s) => participant(ctx, s)).join(" > ")}` : "nobody eligible",
          r.stardust_seat >= 0 ? `; ${participant(ctx, r.stardust_seat)} took ${r.stardust} stardust` : "",
        ),
      ),
    ),
  );
}

function privatePanel(ctx) {
  const { game, cat } = ctx;
  if (game.seat === null || game.seat === undefined) return null;
  const scouted = game.secret_cards.filter(
    (c) => c.region !== null && c.region !== undefined && !game.revealed && !c.opened,
  );
  const peeked = game.objectives.filter((o) => !o.revealed && o.card !== null && o.card !== undefined);
  return section(
    "Your hand (only you see this)",
    { class: "panel private", "data-testid": "private" },
    facts([
      [
        "Unused chips",
        game.my_chips && game.my_chips.length ? chipPicker(ctx, game.my_chips) : "none",
      ],
      ["Exploration draws", listing((game.my_drawn || []).map((r) => regionName(cat, r))) || "none"],
      ["Scouted secret cards", listing(scouted.map((c) => `card ${c.position + 1}: ${regionName(cat, c.region)}`)) || "none"],
      ["Peeked objectives", listing(peeked.map((o) => `${o.position + 1}: ${objectiveText(cat, o.card)}`)) || "none"],
      [
        "Pending choices",
        listing(
          (game.my_choices || []).map(
            (c) => `${c.reason === "market" ? "market" : "rank reward"} at ${regionName(cat, c.region)}: ${c.options.join(" or ")}`,
          ),
        ) || "none",
      ],
    ]),
  );
}

// My unused chips; while I may place an airship, each is a toggle: the chosen chip is
// the one a click on a region places.
function chipPicker(ctx, chips) {
  const chosen = chosenChip(ctx);
  const placeable = new Set(ctx.of("fs.place_airship").map((b) => b.chip));
  return h(
    "span",
    { class: "chips", role: chosen === null ? null : "group", "aria-label": chosen === null ? null : "Chip to place" },
    chips.map((c, i) => {
      const colour = ctx.cat.white_chips.includes(c) ? "white" : "black";
      // two chips of one value are one choice: the first is the toggle
      if (!placeable.has(c) || chips.indexOf(c) !== i) return h("span", { class: `chip ${colour}` }, c);
      return h(
        "button",
        {
          type: "button",
          class: `chip ${colour}`,
          "aria-pressed": String(c === chosen),
          "aria-label": `Place the ${c} chip next (then click a region)`,
          "data-key": `fs-chip-${c}`,
          onclick: () => {
            ctx.ui.fs.chip = c;
            ctx.rerender();
          },
        },
        c,
      );
    }),
  );
}

// The button's own text where the group's title says the rest ("Scout …": "Card 2").
function shortLabel(body, ctx) {
  switch (body.type) {
    case "fs.choose_start":
      return amounts(body);
    case "fs.scout":
      return `Card ${body.card + 1}`;
    case "fs.peek":
      return `Objective ${body.objective + 1} (${amounts(body)})`;
    default:
      return label(body, ctx);
  }
}

function movesPanel(ctx) {
  if (!ctx.legal.length) return null;
  const groups = [
    ["fs.choose_start", "Choose your 4 starting resources"],
    ["fs.scout_take", "Finish scouting"],
    ["fs.choose_resource", "Choose a resource"],
  ];
  const boxes = groups
    .map(([type, title]) => [ctx.of(type), title])
    .filter(([moves]) => moves.length)
    .map(([moves, title]) =>
      h(
        "div",
        { class: "move-group" },
        h("h4", {}, title),
        h("div", { class: "move-list compact" }, moves.map((body) => ctx.button(body, label(body, ctx), shortLabel(body, ctx)))),
      ),
    );
  const elsewhere = ["fs.place_airship", "fs.place_skimmer", "fs.build_fortress", "fs.build_market", "fs.choose_slot", "fs.scout", "fs.peek", "fs.scout_take", "fs.choose_resource"]
    .filter((type) => ctx.of(type).length)
    .map((type) => ({
      "fs.place_airship": "place an airship: choose a chip in your hand, then click a region on the board",
      "fs.place_skimmer": "place a skimmer (“+ skimmer” on a region)",
      "fs.build_fortress": "build a fortress (F beside a platform)",
      "fs.build_market": "build a market (M beside a platform)",
      "fs.choose_slot": "take a turn slot for the next round (under the board)",
      "fs.scout": "scout a secret stardust card (click it under the board)",
      "fs.peek": "peek at an objective (click it on the board, then its payment)",
      "fs.scout_take": "take a resource from the scouted card (on its region)",
      "fs.choose_resource": "choose a resource (on the region it comes from)",
    })[type]);
  return section(
    "Your moves",
    { class: "panel moves game-moves", "data-testid": "game-moves" },
    elsewhere.length ? h("p", { class: "hint" }, `You may ${listing(elsewhere)}.`) : null,
    peekPayments(ctx),
    boxes,
    tradePanel(ctx),
  );
}

// The payments for the objective picked on the board (the one choice after the click).
function peekPayments(ctx) {
  const objective = pickedObjective(ctx);
  if (objective === null) return null;
  return h(
    "div",
    { class: "payment", "data-testid": "payment" },
    h("p", { class: "hint" }, `Pay for the peek at objective ${objective + 1}:`),
    ctx
      .of("fs.peek")
      .filter((body) => body.objective === objective)
      .map((body) => {
        const words = `Pay ${amounts(body)}`;
        return ctx.button(body, `${words} to peek at objective ${objective + 1}`, words, { class: "pay-choice" });
      }),
  );
}

// Trades as a grid: a row per payment (2 resources), a column per resource to get; a
// cell is a trade you may make (never one that pays with what it asks for).
function tradePanel(ctx) {
  const trades = ctx.of("fs.trade");
  if (!trades.length) return null;
  const rows = [...new Map(trades.map((body) => [payKey(body), body])).values()];
  return h(
    "div",
    { class: "move-group trade-panel", "data-testid": "trade-panel" },
    h(
      "table",
      { class: "trades" },
      h("caption", {}, "Trade (free action: 2 resources for 1)"),
      h(
        "thead",
        {},
        h("tr", {}, h("th", { scope: "col" }, "Give"), RES.map((r) => h("th", { scope: "col" }, `${ICON[r]} ${r}`))),
      ),
      h(
        "tbody",
        {},
        rows.map((row) =>
          h(
            "tr",
            {},
            h("th", { scope: "row" }, amounts(row)),
            RES.map((r) => {
              const body = trades.find((b) => payKey(b) === payKey(row) && b.get === r);
              return h("td", {}, body ? ctx.button(body, label(body, ctx), `→ 1 ${ICON[r]}`) : h("span", { class: "meta", "aria-hidden": "true" }, "—"));
            }),
          ),
        ),
      ),
    ),
  );
}

// ------------------------------------------------------------------ replays

// "2 wood for 1 gold" when a player's only change is a trade's: 2 resources paid, 1 of
// another kind gained (a trade never pays with the kind it asks for).
function tradeOf(old, now) {
  const delta = RES.map((r) => [r, now[r] - old[r]]);
  const paid = delta.filter(([, d]) => d < 0);
  const got = delta.filter(([, d]) => d > 0);
  const total = paid.reduce((sum, [, d]) => sum - d, 0);
  if (total !== 2 || got.length !== 1 || got[0][1] !== 1 || now.stardust !== old.stardust) return null;
  return `${listing(paid.map(([r, d]) => `${-d} ${r}`))} for 1 ${got[0][0]}`;
}

export function describe(prev, next, ctx) {
  const cat = ctx.cat;
  const lines = [];
  const name = (seat) => participant({ ...ctx, game: next }, seat);
  if (next.round !== prev.round) lines.push(`Round ${next.round} begins.`);
  const before = new Map(prev.regions.map((r) => [r.index, r]));
  for (const region of next.regions) {
    const old = before.get(region.index);
    if (!old) continue;
    for (const ship of region.airships.slice(old.airships.length)) {
      lines.push(`${name(ship.seat)} placed an airship with ${chipText(ship)} on ${regionName(cat, region.index)}${ship.explorer ? " (explorer)" : ""}.`);
    }
    region.skimmers.forEach((n, seat) => {
      if (n > (old.skimmers[seat] || 0)) lines.push(`${name(seat)} placed a skimmer on ${regionName(cat, region.index)}.`);
    });
  }
  next.platforms.forEach((platform, i) => {
    const old = prev.platforms[i];
    platform.fortresses.forEach((n, seat) => n > old.fortresses[seat] && lines.push(`${name(seat)} built a fortress on platform ${platform.index + 1}.`));
    platform.markets.forEach((n, seat) => n > old.markets[seat] && lines.push(`${name(seat)} built a market on platform ${platform.index + 1}.`));
  });
  next.secret_cards.forEach((card, i) => {
    const old = prev.secret_cards[i];
    if (!old) return;
    card.scouts.slice(old.scouts.length).forEach((m) => lines.push(`${name(m.seat)} scouted secret card ${card.position + 1}.`));
    card.scouts.forEach((m, j) => {
      const was = old.scouts[j];
      if (was && m.resource && !was.resource) lines.push(`${name(m.seat)} took ${m.resource} from it.`);
    });
  });
  next.objectives.forEach((o, i) => {
    const old = prev.objectives[i];
    if (!old) return;
    o.peeked_by.filter((s) => !old.peeked_by.includes(s)).forEach((s) => lines.push(`${name(s)} peeked at objective ${o.position + 1}.`));
    if (o.revealed && !old.revealed) lines.push(`Objective ${o.position + 1} was revealed: ${objectiveText(cat, o.card)}.`);
  });
  if (next.revealed && !prev.revealed) lines.push("The round ended: every chip and secret card was revealed.");
  next.next_slots.forEach((seat, i) => seat >= 0 && prev.next_slots[i] !== seat && lines.push(`${name(seat)} took turn slot ${i + 1}.`));
  next.players.forEach((p, i) => {
    const old = prev.players[i];
    if (!old) return;
    if (p.started && !old.started) lines.push(`${name(p.seat)} chose starting resources.`);
    const trade = tradeOf(old, p);
    if (trade) {
      lines.push(`${name(p.seat)} traded ${trade}.`);
      return;
    }
    const changes = [...RES, "stardust"]
      .map((r) => [r, p[r] - old[r]])
      .filter(([, d]) => d)
      .map(([r, d]) => `${d > 0 ? "+" : "−"}${Math.abs(d)} ${r}`);
    if (changes.length) lines.push(`${name(p.seat)}: ${changes.join(", ")}.`);
  });
  (next.ais || []).forEach((ai, i) => {
    const old = (prev.ais || [])[i];
    if (old && ai.flipped.length > old.flipped.length) {
      ai.flipped.slice(old.flipped.length).forEach((c) => lines.push(`${name(ai.seat)} flipped ${cat.ai_deck[c] ? cat.ai_deck[c].action : "a card"}.`));
    }
  });
  if (next.turn !== prev.turn && next.turn >= 0) lines.push(`${name(next.turn)}'s turn.`);
  return lines;
}
