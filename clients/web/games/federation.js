// Federation: the senate (18 spaces by their planet or room, occupants, votes, funding,
// tokens, and the outer space), the five planets' tracks (orange asteroids, blue
// alteration tokens, yellow stalls, purple erudite tiles, green structures), projects,
// laws and medals, every player's board, and my moves: an ambassador placement chosen in
// steps (ambassador, side or die or token, then the space); a start tile, a stall spot,
// an erudite tile or a structure on offer is a click on the board, and every other
// pending choice (payments, crystals, tokens, projects, checks, spy targets, medals,
// income, upkeep, laws, missions) a labelled button.

import { capitalise, h, listing, plural } from "../lib/dom.js";
import { fittedText, flowBoard, flowWidth, hot, panel, panelRows, s, text, thing, wrapWords } from "../lib/svg.js";
import { facts, phaseWords, section, swatch } from "./common.js";

export function handles(body) {
  return body.type.startsWith("fed.");
}

// ------------------------------------------------------------------ naming

const CRYSTAL_KEYS = ["copp", "lav", "ocean"];

function iconName(cat, icon) {
  return cat.icons[icon] ? cat.icons[icon].name : `icon ${icon}`;
}

function spaceName(cat, space) {
  if (space === cat.outer) return "the outer space";
  const row = Math.floor(space / 6);
  const col = space % 6;
  const icon = cat.senate[row][col];
  return `the ${iconName(cat, icon)} (row ${row + 1}, ${col < 3 ? "left" : "right"} wing)`;
}

function planet(cat, index) {
  return cat.planets[index] || `planet ${index}`;
}

function crystals(cat, body) {
  return listing(
    CRYSTAL_KEYS.map((key, i) => (body[key] ? `${body[key]} ${cat.crystals[i]}` : null)).concat(
      body.diamond ? [plural(body.diamond, "diamond")] : [],
    ),
  );
}

// An alteration token by what it does, never by its number in the catalogue.
function alteration(cat, id) {
  const token = cat.alterations[id];
  if (!token) return "an alteration token";
  const side = token.votes ? `${plural(token.votes, "vote")}` : "funding side";
  return `“${token.text}” (power ${token.power}, ${side})`;
}

function structure(cat, game, index) {
  if (index < cat.n_production) {
    const kind = game.production[index];
    const info = cat.production[kind];
    return `production structure ${index + 1} (${info ? `${info.text}; costs ${costText(info)}` : kind})`;
  }
  const j = index - cat.n_production;
  const criteria = (game.mega[j] || []).map((c) => (cat.mega_criteria[c] ? cat.mega_criteria[c].text : c));
  return `megastructure ${j + 1} (scores by ${listing(criteria)})`;
}

function costText(info) {
  const [copp, lav, ocean, any, diamond] = info.cost;
  const parts = [];
  if (copp) parts.push(`${copp} coppernium`);
  if (lav) parts.push(`${lav} lavandium`);
  if (ocean) parts.push(`${ocean} oceanium`);
  if (any) parts.push(plural(any, "crystal"));
  if (diamond) parts.push(plural(diamond, "diamond"));
  return parts.join(" + ") || "free";
}

function ambassadorName(cat, index) {
  const amb = cat.ambassadors[index];
  return `ambassador ${index + 1} (${plural(amb ? amb.votes : 1, "vote")})`;
}

function placeMode(body) {
  if (body.token >= 0) return `token:${body.token}`;
  if (body.die) return "die";
  return body.funding ? "funding" : "vote";
}

function modeText(cat, game, seat, mode, ambassador) {
  if (mode === "vote") return "vote side";
  if (mode === "funding") {
    const amb = cat.ambassadors[ambassador];
    return `funding side${amb && amb.funding.text !== "nothing" ? ` (${amb.funding.text})` : ""}`;
  }
  if (mode === "die") {
    const p = game.players[seat];
    return `vote side with the assistant die (${p ? p.die : "?"})`;
  }
  return `with alteration ${alteration(cat, Number(mode.split(":")[1]))}`;
}

export function label(body, ctx) {
  const { cat, game } = ctx;
  const me = ctx.me;
  switch (body.type) {
    case "fed.place":
      if (body.space === cat.outer) return `Place ${ambassadorName(cat, body.ambassador)} on the outer space (+1 oceanium)`;
      return `Place ${ambassadorName(cat, body.ambassador)} on ${spaceName(cat, body.space)}, ${modeText(cat, game, me, placeMode(body), body.ambassador)}`;
    case "fed.start_tile":
      return `Take start tile ${body.tile + 1}: ${cat.start_tiles[body.tile] ? cat.start_tiles[body.tile].text : ""}`;
    case "fed.pay":
      return `Pay ${crystals(cat, body) || "nothing"}`;
    case "fed.discard":
      return `Discard ${crystals(cat, body)}`;
    case "fed.crystal":
      return `Take 1 ${cat.crystals[body.kind]}`;
    case "fed.fork":
      return body.straight ? "Go straight at the fork (+2 levels)" : "Take the detour (+1 level and its token)";
    case "fed.dead_asteroid":
      return `Take a dead asteroid: ${cat.dead_rewards[body.reward] ? cat.dead_rewards[body.reward].text : body.reward}`;
    case "fed.take_token": {
      const id = game.blue_tokens[body.level - 1] ? game.blue_tokens[body.level - 1][body.spot] : -1;
      return `Take the alteration token ${id >= 0 ? alteration(cat, id) : "lying face down"} from blue level ${body.level}`;
    }
    case "fed.stall": {
      const stall = cat.stalls[body.stall];
      const times = body.upper ? ` ×${stall.upper_factor}` : "";
      return `Take the ${body.upper ? "upper" : "lower"} spot of stall ${body.stall + 1}: pay ${stall.text}, get ${stall.reward}${times}`;
    }
    case "fed.erudite": {
      const tile = cat.erudite[body.tile];
      const when = { now: "now", planet: `after your next ${tile.planet} action`, loop: "once per turn, from now on" }[tile.timing];
      return `Take the level-${tile.level} ${tile.planet} erudite tile (${when}: ${tile.text})`;
    }
    case "fed.build":
      return `Build ${structure(cat, game, body.structure)}`;
    case "fed.project":
      if (body.project === cat.common_project) return "Advance the common project";
      return `Advance the ${projectName(cat, body.project)} project`;
    case "fed.check":
      return `Put a check on the ${iconName(cat, body.mission)} mission`;
    case "fed.spy":
      return `Spy: copy the action of the ${iconName(cat, body.target)}`;
    case "fed.medal":
      return `Take the ${body.kind} medal`;
    case "fed.influence":
      return `Add 1 influence on the ${planet(cat, body.planet)} planet`;
    case "fed.deep_space":
      return `Take face-down deep-space tile ${body.index + 1}`;
    case "fed.retrigger":
      return `Fire ${structure(cat, game, body.structure)} again`;
    case "fed.income":
      return `${body.take ? "Take" : "Skip"} the income of ${structure(cat, game, body.structure)}`;
    case "fed.upkeep": {
      const p = game.players[me];
      const paid = crystals(cat, body);
      const keep = p && body.level >= p.authority_level;
      return `${keep ? "Keep" : "Drop to"} authority level ${body.level}${paid ? ` paying ${paid}` : " (nothing to pay)"}`;
    }
    case "fed.law": {
      const side = body.side === 0 ? "left" : "right";
      const law = game.laws[body.side];
      return `Pass the ${side} law${law >= 0 ? ` (${planet(cat, law)} planet)` : ""}`;
    }
    case "fed.mission":
      return `Perform the ${iconName(cat, body.mission)} mission`;
    case "fed.use_tile": {
      const tile = cat.erudite[body.tile];
      return `Use your ${tile ? `level-${tile.level} ${tile.planet}` : ""} erudite tile: ${tile ? tile.text : body.tile}`;
    }
    case "fed.end_turn":
      return "End your turn";
    default:
      return body.type;
  }
}

function projectName(cat, project) {
  const category = cat.project_category[project];
  return category >= 0 ? `${planet(cat, category)} (column ${project + 1})` : `spaceships (column ${project + 1})`;
}

// ------------------------------------------------------------------ drawing


export function render(ctx) {
  const { game, cat } = ctx;
  if (!cat) return { details: h("p", {}, "Loading the catalogue…") };
  const who = (seat) =>
    h("span", { class: `who seat-text-${seat % 6}` }, swatch(seat), ctx.name(seat), seat === ctx.me ? " (you)" : "");
  return {
    board: board(ctx),
    moves: [movesPanel(ctx), placementChooser(ctx)],
    hand: myPanel(ctx),
    details: h(
      "div",
      { class: "game fed" },
      h(
        "div",
        { class: "game-top panel" },
        facts([
          ["Round", `${game.round} of ${cat.rounds}`],
          [
            "Now",
            game.pending_seat >= 0
              ? h("span", {}, who(game.pending_seat), `: ${phaseWords(ctx.cat, game.pending)}`)
              : phaseWords(ctx.cat, game.pending) || "—",
          ],
          ["Start player", h("span", {}, who(game.start_player))],
          ["President next", game.president_next >= 0 ? h("span", {}, who(game.president_next)) : "nobody"],
          ["Laws this round", listing(game.laws.filter((l) => l >= 0).map((l) => `${planet(cat, l)} planet`)) || "none"],
          game.next_laws.length ? ["Next laws", listing(game.next_laws.map((l) => planet(cat, l)))] : null,
        ]),
      ),
      senatePanel(ctx, who),
      playersPanel(ctx, who),
      tracksPanel(ctx, who),
      boardPanel(ctx, who),
    ),
  };
}

// ------------------------------------------------------------------ the picture
// The senate (three rows, two wings of three rooms each, and the outer space) with the
// ambassadors on it, the tracks every player climbs (orange, blue, authority, projects),
// the yellow, purple and green planets' boards (stalls, erudite tiles, structures) and
// each player's board (crystals, diamonds, PP, ships, ambassadors left, influence
// on the five planets), and while they are picked the start tiles on offer. A free senate
// space where the placement chosen under the board may go is one click, so is a start
// tile, a stall spot, an erudite tile or a structure on offer.

const PLANET_COLOUR = ["#fb8c00", "#1e88e5", "#fdd835", "#8e24aa", "#43a047"];
const SPACE_W = 96;
const SPACE_H = 60;

function spaceX(col) {
  return 10 + col * (SPACE_W + 4) + (col >= 3 ? 16 : 0);
}

// On a narrow screen the senate turns a quarter (its rows become columns) and the outer
// space goes under it. Set by board() per drawing.
let narrowSenate = false;
const WING_GAP = 22;

function spaceXY(col, row) {
  if (narrowSenate) return [10 + row * (SPACE_W + 4), 34 + col * (SPACE_H + 8) + (col >= 3 ? WING_GAP : 0)];
  return [spaceX(col), 34 + row * (SPACE_H + 8)];
}

// A player's box (its panel 8 units narrower): as many side by side as the board's width
// holds at 240 units and more each (one on a phone).
function playerBoxW(ctx, n) {
  if (ctx.narrow) return 320;
  const width = flowWidth(ctx, 1010);
  const perRow = Math.max(1, Math.min(n, Math.floor((width + 10) / 250)));
  return (width - 10 * (perRow - 1)) / perRow + 8 - 0.5;
}

function board(ctx) {
  const { game, cat } = ctx;
  narrowSenate = ctx.narrow;
  const now = game.pending_seat >= 0 ? ` · ${ctx.name(game.pending_seat)}: ${phaseWords(ctx.cat, game.pending)}` : "";
  const n = game.players.length;
  const boxW = playerBoxW(ctx, n);
  const top = BAND + BAND_H + 6;
  const wings = ctx.narrow
    ? [text(10, 26, "left wing ↓", { class: "tiny" }), text(10, spaceXY(3, 0)[1] - 6, "right wing ↓", { class: "tiny" })]
    : [text(spaceX(0), 254, "left wing", { class: "tiny" }), text(spaceX(3), 254, "right wing", { class: "tiny" })];
  const senateW = ctx.narrow ? 3 * (SPACE_W + 4) + 6 : spaceX(6) + 98;
  const senateH = ctx.narrow ? spaceXY(6, 0)[1] + 8 + 70 : 262;
  const bandTop = BAND - 2;
  return flowBoard(ctx, 1010, `Federation board, round ${game.round} of ${cat.rounds}${now}`, "fed-board", [
    startTilesPanel(ctx),
    panel(senateW, senateH, [text(10, ctx.narrow ? 12 : 24, "Senate", { class: "name" }), wings, senateDrawing(ctx)], 0, ctx.narrow ? -8 : 0),
    panel(270, 280, tracksDrawing(ctx), 725, 0),
    panel(168, 146, orangeBlueDrawing(ctx), 8, bandTop),
    panel(240, 146, stallsDrawing(ctx), 180, bandTop),
    panel(262, 16 + 3 * (TILE_H + 2) + 4, eruditeDrawing(ctx), 426, bandTop),
    panel(300, 146, structuresDrawing(ctx), 694, bandTop),
    panelRows(
      playersDrawing(ctx).map((nodes, seat) => panel(boxW - 8, 236, nodes, (ctx.narrow ? 10 : 10 + seat * boxW) + 2, top)),
      flowWidth(ctx, 1010),
    ),
  ]);
}

// While the start tiles are picked: the tiles on offer, each with what it gives, the one
// to take a click on it (drawn first, above the senate).
const START_W = 150;
const START_H = 72;

function startTilesPanel(ctx) {
  const { game, cat } = ctx;
  if (game.pending !== "start_pick" || !game.start_tiles.length) return null;
  const offered = ctx.of("fed.start_tile");
  const perRow = Math.max(2, Math.min(6, Math.floor((flowWidth(ctx, 1010) + 8) / (START_W + 8))));
  const tiles = game.start_tiles.map((t, i) => {
    const x = (i % perRow) * (START_W + 8);
    const y = 26 + Math.floor(i / perRow) * (START_H + 8);
    const words = cat.start_tiles[t] ? cat.start_tiles[t].text : "";
    const face = [
      s("rect", { class: "room", x, y, width: START_W, height: START_H, rx: 6 }),
      text(x + 8, y + 17, `Start tile ${t + 1}`, { class: "tiny" }),
      wrapWords(words, 22)
        .slice(0, 3)
        .map((line, k) => fittedText(x + 8, y + 35 + k * 14, line, START_W - 16, 6.2, { class: "tiny" })),
    ];
    const body = offered.find((b) => b.tile === t);
    if (body) {
      return hot(ctx, body, label(body, ctx), { class: "card-hot", "data-start-tile": t }, face,
        s("rect", { class: "hit", x, y, width: START_W, height: START_H, rx: 6 }));
    }
    return thing(`Start tile ${t + 1}: ${words}`, { class: "fed-start-tile", "data-start-tile": t }, face);
  });
  const rows = Math.ceil(game.start_tiles.length / perRow);
  const w = Math.min(game.start_tiles.length, perRow) * (START_W + 8) - 8;
  return panel(Math.max(w, 200), 26 + rows * (START_H + 8), [text(0, 16, "Start tiles on offer", { class: "name" }), tiles]);
}

// The five planets' own rows, under the senate. Orange and blue are climbed on the
// tracks to the right; here what their actions find (asteroids, face-up tokens). Yellow,
// purple and green are drawn as their boards: the six stalls with a lower and an upper
// spot (each player's pawn where it stands), the erudite tiles by colour and level (how
// many are left, who holds one) and the structures (production and megastructures, who
// built them). A stall spot, a tile or a structure the pending choice offers is a click.
const BAND = 280; // top of the planets' band
const BAND_H = 144; // its height: two rows of stalls or structures (the tiles' panel is taller)

function short(words) {
  return words
    .replace(/coppernium/g, "copp")
    .replace(/lavandium/g, "lav")
    .replace(/oceanium/g, "ocean")
    .replace(/alteration token/g, "token")
    .replace(/authority step/g, "authority")
    .replace(/on the assistant die/g, "die")
    .replace(/spaceship/g, "ship")
    .replace(/ crystals?/g, " cryst");
}

function pawns(seats, x, y, gap = 11) {
  return seats.map((seat, k) => s("circle", { class: `p${seat % 6} piece`, cx: x + k * gap, cy: y, r: 4.5 }));
}

function planetTitle(cat, i, x, words) {
  return [
    s("rect", { x, y: BAND, width: 10, height: 10, rx: 2, fill: PLANET_COLOUR[i] }),
    text(x + 14, BAND + 9, `${capitalise(cat.planets[i])}: ${words}`, { class: "tiny" }),
  ];
}

function orangeBlueDrawing(ctx) {
  const { game, cat } = ctx;
  const onTrack = game.orange_tokens.filter((t) => t !== -1).length;
  const faceUp = game.blue_tokens.flat().filter((t) => t >= 0).length;
  const box = (i, y, line1, line2, words) =>
    thing(
      `The ${cat.planets[i]} planet: ${words}`,
      { class: "fed-planet", "data-planet": i },
      s("rect", { class: "room", x: 10, y, width: 160, height: 60, rx: 8 }),
      s("rect", { x: 10, y, width: 160, height: 6, rx: 3, fill: PLANET_COLOUR[i] }),
      text(18, y + 24, line1, { class: "tiny" }),
      text(18, y + 44, line2, { class: "tiny" }),
    );
  return [
    box(0, BAND, `Orange: ${plural(onTrack, "asteroid")} on it`, `dead asteroids left: ${game.dead_asteroids}`,
      `${plural(onTrack, "asteroid")} on the track, ${game.dead_asteroids} dead asteroids left (the track is on the right)`),
    box(1, BAND + 72, `Blue: ${faceUp} tokens face up`, `levels 1-${cat.blue_max}`,
      `${faceUp} alteration tokens face up on levels 1 to ${cat.blue_max} (the track is on the right)`),
  ];
}

// Yellow: six stalls in two rows of three; each a lower spot (its reward) and an upper
// spot (the reward ×3, for a player whose pawn is on the lower one).
function stallsDrawing(ctx) {
  const { game, cat } = ctx;
  const offered = ctx.of("fed.stall");
  const x0 = 182;
  const w = 78;
  const h2 = 62;
  return [
    planetTitle(cat, 2, x0, "stalls"),
    cat.stalls.map((stall, i) => {
      const x = x0 + (i % 3) * (w + 2);
      const y = BAND + 16 + Math.floor(i / 3) * (h2 + 2);
      const at = (level) => game.players.map((p, seat) => (p.stalls[i] === level ? seat : null)).filter((seat) => seat !== null);
      const lower = at(1);
      const upper = at(2);
      const words =
        `Stall ${i + 1}: pay ${stall.text}, get ${stall.reward} (upper ×${stall.upper_factor})` +
        `; lower spot: ${listing(lower.map((seat) => ctx.name(seat))) || "nobody"}` +
        `; upper spot: ${listing(upper.map((seat) => ctx.name(seat))) || "nobody"}`;
      const spot = (upperSpot) => {
        const y1 = upperSpot ? y + 22 : y + 42;
        const body = offered.find((b) => b.stall === i && !!b.upper === upperSpot);
        const shape = s("rect", { class: "hit", x: x + 3, y: y1 - 1, width: w - 6, height: 18, rx: 4 });
        return body ? hot(ctx, body, label(body, ctx), { class: "small-hot", "data-stall": i, "data-upper": String(upperSpot) }, shape) : null;
      };
      return [
        thing(
          words,
          { class: "fed-stall", "data-stall": i },
          s("rect", { class: "room", x, y, width: w, height: h2, rx: 6 }),
          s("rect", { x, y, width: w, height: 4, rx: 2, fill: PLANET_COLOUR[2] }),
          fittedText(x + 4, y + 15, `${i + 1}: ${short(stall.text)}`, w - 8, 7.5, { class: "micro-strong" }),
          s("rect", { class: "step", x: x + 3, y: y + 21, width: w - 6, height: 18, rx: 4 }),
          text(x + 6, y + 33, `×${stall.upper_factor}`, { class: "micro" }),
          pawns(upper, x + 26, y + 30),
          s("rect", { class: "step", x: x + 3, y: y + 41, width: w - 6, height: 18, rx: 4 }),
          text(x + 6, y + 53, short(stall.reward), { class: "micro" }),
          pawns(lower, x + w - 10 - (lower.length - 1) * 11, y + 50),
        ),
        spot(true),
        spot(false),
      ];
    }),
  ];
}

// Purple: the erudite tiles, a column per colour, a row per level, each with what it
// gives in a few words (its timing is in its name).
const TILE_H = 64;

function tileWords(words) {
  const brief = short(words)
    .replace(/ of your choice/, " any")
    .replace(/the (\w+) planet's action/g, "$1 action")
    .replace(/fire one of your production structures/, "fire a structure")
    .replace(/ per /g, "/");
  return brief.split(", ").flatMap((piece) => wrapWords(piece, 10)).slice(0, 3);
}

function eruditeDrawing(ctx) {
  const { game, cat } = ctx;
  const offered = ctx.of("fed.erudite");
  const x0 = 428;
  const w = 50;
  const h2 = TILE_H;
  return [
    planetTitle(cat, 3, x0, `erudite tiles (${game.erudite_stock.reduce((a, b) => a + b, 0)} left)`),
    cat.erudite.map((tile) => {
      const colour = Math.max(0, cat.planets.indexOf(tile.planet));
      const x = x0 + colour * (w + 2);
      const y = BAND + 16 + (tile.level - 1) * (h2 + 2);
      const left = game.erudite_stock[tile.tile];
      const holders = game.players.map((p, seat) => (p.erudite.includes(tile.tile) ? seat : null)).filter((seat) => seat !== null);
      const words =
        `${capitalise(tile.planet)} erudite tile, level ${tile.level} (${tile.timing}): ${tile.text}; ${left} left` +
        (holders.length ? `; held by ${listing(holders.map((seat) => ctx.name(seat)))}` : "");
      const body = offered.find((b) => b.tile === tile.tile);
      const face = [
        s("rect", { class: "room" + (left ? "" : " empty"), x, y, width: w, height: h2, rx: 5 }),
        s("rect", { x, y, width: 5, height: h2, rx: 2, fill: PLANET_COLOUR[colour] }),
        text(x + 9, y + 13, `L${tile.level}`, { class: "micro-strong" }),
        text(x + w - 4, y + 13, `×${left}`, { class: "micro", "text-anchor": "end" }),
        tileWords(tile.text).map((line, k) => fittedText(x + 8, y + 26 + k * 10, line, w - 11, 5.4, { class: "micro" })),
        pawns(holders, x + 13, y + h2 - 8, 10),
      ];
      if (body) {
        return hot(ctx, body, label(body, ctx), { class: "tile-hot", "data-tile": tile.tile }, face,
          s("rect", { class: "hit", x, y, width: w, height: h2, rx: 5 }));
      }
      return thing(words, { class: "fed-tile", "data-tile": tile.tile }, face);
    }),
  ];
}

// Green: the production structures (their effect and cost) over the megastructures
// (what they score by, how many of their slots are filled), with who built each.
function structuresDrawing(ctx) {
  const { game, cat } = ctx;
  const offered = ctx.of("fed.build");
  const x0 = 696;
  const w = 72;
  const h2 = 62;
  const builders = (index) => game.players.map((p, seat) => (p.built.includes(index) ? seat : null)).filter((seat) => seat !== null);
  // a structure's lines, never cut: its name or effect (bold), then the rest
  const one = (index, x, y, lines) => {
    const seats = builders(index);
    const words = `${capitalise(structure(cat, game, index))}; built by ${listing(seats.map((seat) => ctx.name(seat))) || "nobody"}`;
    const body = offered.find((b) => b.structure === index);
    const face = [
      s("rect", { class: "room", x, y, width: w, height: h2, rx: 6 }),
      s("rect", { x, y, width: w, height: 4, rx: 2, fill: PLANET_COLOUR[4] }),
      fittedText(x + 5, y + 15, lines[0], w - 10, 7.5, { class: "micro-strong" }),
      lines.slice(1, 3).map((line, k) => fittedText(x + 4, y + 27 + k * 11, line, w - 8, 6.2, { class: "micro" })),
      pawns(seats, x + 9, y + h2 - 12),
    ];
    if (body) {
      return hot(ctx, body, label(body, ctx), { class: "structure-hot", "data-structure": index }, face,
        s("rect", { class: "hit", x, y, width: w, height: h2, rx: 6 }));
    }
    return thing(words, { class: "fed-structure", "data-structure": index }, face);
  };
  const production = game.production.map((kind, i) => {
    const info = cat.production[kind];
    const effect = short(info ? info.text : String(kind)).split(", ").flatMap((piece) => wrapWords(piece, 12));
    return one(i, x0 + i * (w + 2), BAND + 16, [...effect.slice(0, 2), short(info ? costText(info) : "")]);
  });
  const mega = game.mega.map((criteria, j) => {
    const by = criteria.map((c) => (cat.mega_criteria[c] ? cat.mega_criteria[c].key.split("_")[0] : String(c)));
    const lines = [`mega ${j + 1} · ${game.mega_filled[j]}/${cat.mega_slots.length}`, ...by.map((c, k) => (k < by.length - 1 ? `${c} +` : c))];
    return one(cat.n_production + j, x0 + j * (w + 2), BAND + 16 + h2 + 2, lines);
  });
  return [planetTitle(cat, 4, x0, "structures"), production, mega];
}

function senateDrawing(ctx) {
  const { game, cat } = ctx;
  const placing = placementState(ctx);
  const out = [];
  game.spaces.forEach((space, i) => {
    const row = Math.floor(i / 6);
    const col = i % 6;
    const [x, y] = spaceXY(col, row);
    const icon = cat.senate[row][col];
    const colour = icon < 5 ? PLANET_COLOUR[icon] : null;
    let who = "free";
    if (space.seat >= 0) who = `${ctx.name(space.seat)}, ${plural(space.votes, "vote")}${space.funding ? ", funding side" : ""}`;
    else if (space.seat === -2) who = "blocked this round";
    else if (space.seat === -3) who = `a neutral vote (${space.votes})`;
    const words = `${capitalise(spaceName(cat, i))}: ${who}${space.token >= 0 ? `, alteration token ${alteration(cat, space.token)}` : ""}`;
    out.push(
      thing(
        words,
        { class: "fed-space" + (space.seat === -2 ? " blocked" : ""), "data-space": i },
        s("rect", { class: "room", x, y, width: SPACE_W, height: SPACE_H, rx: 8 }),
        colour ? s("rect", { x, y, width: 8, height: SPACE_H, rx: 3, fill: colour }) : null,
        fittedText(x + 13, y + 17, capitalise(iconName(cat, icon)).replace(" planet", ""), SPACE_W - 17, 6.2, { class: "tiny" }),
        space.seat >= 0 || space.seat === -3
          ? [
              s("circle", { class: space.seat >= 0 ? `p${space.seat % 6} piece` : "neutral piece", cx: x + 30, cy: y + 40, r: 12 }),
              text(x + 30, y + 45, String(space.votes), { class: "small piece-text", "text-anchor": "middle" }),
              space.funding ? text(x + 48, y + 45, "funding", { class: "tiny" }) : null,
            ]
          : space.seat === -2
            ? text(x + 14, y + 44, "blocked", { class: "tiny" })
            : null,
      ),
    );
    const body = placing ? placing.chosen.find((b) => b.space === i) : null;
    if (body) {
      out.push(hot(ctx, body, label(body, ctx), { class: "space-hot" }, s("rect", { class: "hit", x: x + 2, y: y + 2, width: SPACE_W - 4, height: SPACE_H - 4, rx: 7 })));
    }
  });
  // the outer space: a column right of the senate, or on a narrow screen a row under it
  const [x, y] = narrowSenate ? [10, spaceXY(6, 0)[1] + 8] : [spaceX(6) + 8, 34];
  const [w, hgt] = narrowSenate ? [3 * (SPACE_W + 4) - 4, 64] : [80, 3 * SPACE_H + 16];
  const at = (seat) => (narrowSenate ? [x + 100 + seat * 50, y + 34] : [x + 24, 96 + seat * 30]);
  const outerWords = `The outer space (+1 oceanium, no vote): ${listing(game.outer.map((n, seat) => (n ? `${ctx.name(seat)} ${n}` : null))) || "empty"}`;
  out.push(
    thing(
      outerWords,
      { class: "fed-space outer" },
      s("rect", { class: "room outer", x, y, width: w, height: hgt, rx: 8 }),
      narrowSenate
        ? text(x + 10, y + 20, "outer space", { class: "tiny" })
        : [text(x + 40, y + 20, "outer", { class: "tiny", "text-anchor": "middle" }), text(x + 40, y + 34, "space", { class: "tiny", "text-anchor": "middle" })],
      game.outer.map((n, seat) =>
        n ? [s("circle", { class: `p${seat % 6} piece`, cx: at(seat)[0], cy: at(seat)[1], r: 10 }), text(at(seat)[0] + 14, at(seat)[1] + 5, `×${n}`, { class: "tiny" })] : null,
      ),
    ),
  );
  const outer = placing ? placing.chosen.find((b) => b.space === cat.outer) : null;
  if (outer) {
    out.push(hot(ctx, outer, label(outer, ctx), { class: "space-hot" }, s("rect", { class: "hit", x: x + 2, y: y + 2, width: w - 4, height: hgt - 4, rx: 7 })));
  }
  return out;
}

// One track: a row of numbered steps with each player's marker on its step.
function track(ctx, y, title, steps, levelOf) {
  const { game } = ctx;
  const x0 = 730;
  const w = 260 / (steps + 1);
  const markers = game.players.map((p, seat) => [seat, levelOf(p)]);
  const spread = (k) => (k - (markers.length - 1) / 2) * 5;
  return thing(
    `${title}: ${listing(markers.map(([seat, level]) => `${ctx.name(seat)} at ${level}`))}`,
    { class: "fed-track" },
    text(x0, y - 4, title, { class: "tiny" }),
    Array.from({ length: steps + 1 }, (_, i) => [
      s("rect", { class: "step", x: x0 + i * w, y, width: w - 2, height: 24, rx: 3 }),
      text(x0 + i * w + 2, y + 9, String(i), { class: "micro" }),
    ]),
    markers.map(([seat, level], k) =>
      s("circle", { class: `p${seat % 6} piece`, cx: x0 + Math.max(0, Math.min(steps, level)) * w + w / 2 + spread(k), cy: y + 16, r: 5 }),
    ),
  );
}

function tracksDrawing(ctx) {
  const { game, cat } = ctx;
  return [
    text(730, 24, "Tracks", { class: "name" }),
    track(ctx, 50, "Orange (asteroids)", cat.orange_max, (p) => p.orange),
    track(ctx, 96, "Blue (alteration tokens)", cat.blue_max, (p) => p.blue),
    track(ctx, 142, "Authority step", cat.max_step, (p) => p.authority_step),
    track(ctx, 188, "Common project", cat.project_max, (p) => p.common),
    thing(
      `Projects: ${game.projects.map((level, i) => `${projectName(cat, i)} ${level} of ${cat.project_max}`).join(", ")}`,
      { class: "fed-projects" },
      text(730, 232, "Projects", { class: "tiny" }),
      game.projects.map((level, i) => {
        const category = cat.project_category[i];
        const x = 730 + i * 37;
        return [
          s("rect", { class: "step", x, y: 238, width: 33, height: 6 + level * 2 }),
          s("rect", { x, y: 238, width: 33, height: 4, fill: category >= 0 ? PLANET_COLOUR[category] : "#777" }),
          text(x + 16, 254 + level * 2, String(level), { class: "micro", "text-anchor": "middle" }),
        ];
      }),
    ),
  ];
}

function playersDrawing(ctx) {
  const { game, cat } = ctx;
  const n = game.players.length;
  const boxW = playerBoxW(ctx, n);
  const top = BAND + BAND_H + 6;
  return game.players.map((p, seat) => {
    const x = ctx.narrow ? 10 : 10 + seat * boxW;
    const left = p.ambassadors_used.map((used, i) => (used ? null : i + 1)).filter((v) => v);
    const words =
      `${ctx.name(seat)}'s board: ${p.copp} coppernium, ${p.lav} lavandium, ${p.ocean} oceanium, ${plural(p.diamond, "diamond")}, ${p.pp} PP, ` +
      `${p.hangar} ships in the hangar, authority level ${p.authority_level}, ambassadors left: ${left.join(", ") || "none"}, ` +
      `influence: ${cat.planets.map((name, i) => `${name} ${p.influence[i]}`).join(", ")}`;
    const line = (k, words2) => text(x + 12, top + 46 + k * 20, words2, { class: "small" });
    return thing(
      words,
      { class: "fed-player", "data-seat": seat },
      s("rect", { class: "player-box" + (game.pending_seat === seat ? " current" : ""), x: x + 2, y: top, width: boxW - 8, height: 236, rx: 10 }),
      s("circle", { class: `p${seat % 6}`, cx: x + 18, cy: top + 18, r: 7 }),
      text(x + 32, top + 23, `${ctx.name(seat)}${seat === ctx.me ? " (you)" : ""}`, { class: "name" }),
      line(0, `${p.copp} copp · ${p.lav} lav · ${p.ocean} ocean`),
      line(1, `${p.diamond} diamonds · ${p.pp} PP`),
      line(2, `ships: ${p.hangar} hangar, ${p.reserve} reserve`),
      line(3, `authority ${p.authority_level} · die ${p.die < 0 ? "—" : p.die}`),
      line(4, `ambassadors left: ${left.join(" ") || "none"}`),
      line(5, `missions ${p.missions.filter((m) => m).length} · medals ${p.medals.length}`),
      text(x + 12, top + 170, "influence", { class: "tiny" }),
      p.influence.map((level, i) => [
        s("rect", { x: x + 80 + i * 30, y: top + 212 - Math.min(level, 8) * 6, width: 24, height: Math.max(2, Math.min(level, 8) * 6), fill: PLANET_COLOUR[i] }),
        text(x + 92 + i * 30, top + 226, String(level), { class: "micro", "text-anchor": "middle" }),
      ]),
    );
  });
}

function placementState(ctx) {
  const places = ctx.of("fed.place");
  if (!places.length) return null;
  const ui = (ctx.ui.fed = ctx.ui.fed || {});
  const ambassadors = [...new Set(places.map((b) => b.ambassador))].sort();
  if (!ambassadors.includes(ui.ambassador)) ui.ambassador = ambassadors[0];
  const forAmb = places.filter((b) => b.ambassador === ui.ambassador);
  const modes = [...new Set(forAmb.map(placeMode))];
  if (!modes.includes(ui.mode)) ui.mode = modes.includes("vote") ? "vote" : modes[0];
  const chosen = forAmb.filter((b) => placeMode(b) === ui.mode);
  return { places, ambassadors, modes, chosen, ui };
}

// The placement in steps: the ambassador, then how (vote side, funding side, the die or
// an alteration token); then a space on the board (or "Place here" in the senate below).
function placementChooser(ctx) {
  const { game, cat } = ctx;
  const placing = placementState(ctx);
  if (!placing) return null;
  const choice = (legend, name, values, field, text) =>
    h(
      "fieldset",
      {},
      h("legend", {}, legend),
      values.map((value) =>
        h(
          "label",
          { class: "radio" },
          h("input", {
            type: "radio",
            name,
            value: String(value),
            checked: value === placing.ui[field],
            "data-key": `${name}-${value}`,
            onchange: () => {
              placing.ui[field] = value;
              ctx.rerender();
            },
          }),
          ` ${capitalise(text(value))} `,
        ),
      ),
    );
  return h(
    "section",
    { class: "panel placement", "data-testid": "placement", "aria-label": "Placing an ambassador" },
    choice("1. Ambassador", "fed-amb", placing.ambassadors, "ambassador", (a) => ambassadorName(cat, a)),
    choice("2. How", "fed-mode", placing.modes, "mode", (m) => modeText(cat, game, ctx.me, m, placing.ui.ambassador)),
    h("p", { class: "hint" }, "3. Click a free space of the senate on the board (or “Place here” in the senate below)."),
  );
}

function senatePanel(ctx, who) {
  const { game, cat } = ctx;
  const placing = placementState(ctx);
  const spaceButton = (space) => {
    if (!placing) return null;
    const body = placing.chosen.find((b) => b.space === space);
    return body ? ctx.button(body, `Place here: ${label(body, ctx).replace(/^Place /, "")}`, "Place here") : null;
  };
  return section(
    "Senate",
    { class: "panel senate", "data-testid": "senate" },
    h(
      "div",
      { class: "senate-grid", role: "group", "aria-label": "Senate spaces" },
      game.spaces.map((space, i) => {
        const occupant =
          space.seat >= 0
            ? h("div", {}, who(space.seat), ` · ${plural(space.votes, "vote")}${space.funding ? " · funding" : ""}`)
            : space.seat === -2
              ? h("div", { class: "meta" }, "blocked this round")
              : space.seat === -3
                ? h("div", { class: "meta" }, `neutral vote (${space.votes})`)
                : h("div", { class: "meta" }, "free");
        return h(
          "div",
          {
            class: "space" + (space.seat >= 0 || space.seat === -3 ? " taken" : "") + (space.seat === -2 ? " blocked" : "") + (i % 6 >= 3 ? " wing-right" : ""),
            "data-space": i,
          },
          h("strong", {}, capitalise(iconName(cat, space.icon))),
          occupant,
          space.token >= 0 ? h("div", { class: "meta" }, `alteration ${alteration(cat, space.token)}`) : null,
          spaceButton(i),
        );
      }),
    ),
    h(
      "p",
      {},
      h("strong", {}, "Outer space"),
      " (+1 oceanium, no vote): ",
      listing(game.outer.map((n, seat) => (n ? `${ctx.name(seat)} ${n}` : null))) || "empty",
      " ",
      spaceButton(cat.outer),
    ),
  );
}

function movesPanel(ctx) {
  if (!ctx.legal.length) return null;
  const { game } = ctx;
  // a start tile, stall spot, erudite tile or structure drawn on the board is a click there
  const onBoard = ctx.legal.filter((b) => ctx.rendered.has(JSON.stringify(b)));
  const others = ctx.legal.filter((b) => b.type !== "fed.place" && !onBoard.includes(b));
  return section(
    "Your moves",
    { class: "panel moves game-moves", "data-testid": "game-moves" },
    h("p", { class: "hint" }, `You must ${phaseWords(ctx.cat, game.pending)}.`),
    onBoard.some((b) => b.type !== "fed.place") ? h("p", { class: "hint" }, "Click your choice on the board.") : null,
    ctx.of("fed.place").length ? h("p", { class: "hint" }, "Choose the ambassador and how, then a space in the senate.") : null,
    others.length ? h("div", { class: "move-list" }, others.map((body) => ctx.button(body, label(body, ctx)))) : null,
  );
}

function myPanel(ctx) {
  const { game, cat } = ctx;
  const p = ctx.me !== null && ctx.me !== undefined ? game.players[ctx.me] : null;
  if (!p) return null;
  return section(
    "Your board",
    { class: "panel private", "data-testid": "private" },
    h("p", { class: "hint" }, "In Federation every player's board is public; here is yours at a glance."),
    facts([
      ["Crystals", `${p.copp} coppernium, ${p.lav} lavandium, ${p.ocean} oceanium`],
      ["Diamonds and PP", `${p.diamond} diamonds, ${p.pp} PP`],
      ["Ambassadors left", listing(p.ambassadors_used.map((used, i) => (used ? null : ambassadorName(cat, i)))) || "none"],
      ["Assistant die", p.die < 0 ? "none" : `${p.die}${p.die_on_board ? " (on the board)" : ""}`],
      ["Alteration tokens", listing(p.tokens.map((t) => alteration(cat, t))) || "none"],
      ["Missions you may do", listing(p.checks.map((c, i) => (c && !p.missions[i] && p.authority_level >= cat.mission_level[i] ? iconName(cat, i) : null))) || "none yet"],
    ]),
  );
}

function playersPanel(ctx, who) {
  const { game, cat } = ctx;
  const rows = [
    ["Crystals", (p) => `${p.copp} copp · ${p.lav} lav · ${p.ocean} ocean`],
    ["Diamonds", (p) => p.diamond],
    ["PP", (p) => p.pp],
    ["Ships", (p) => `${p.hangar} in hangar, ${p.reserve} in reserve`],
    ["Authority", (p) => `step ${p.authority_step}, level ${p.authority_level}`],
    ["Die", (p) => (p.die < 0 ? "none" : `${p.die}${p.die_on_board ? " (on the board)" : ""}`)],
    ["Ambassadors left", (p) => p.ambassadors_used.map((u, i) => (u ? null : i + 1)).filter((x) => x).join(", ") || "none"],
    ["Missions done", (p) => listing(p.missions.map((m, i) => (m ? iconName(cat, i) : null))) || "none"],
    ["Checks", (p) => listing(p.checks.map((c, i) => (c && !p.missions[i] ? iconName(cat, i) : null))) || "none"],
    ["Medals", (p) => listing(p.medals) || "none"],
    ["Tracks", (p) => `orange ${p.orange} · blue ${p.blue} · common project ${p.common}`],
    ["Stalls", (p) => listing(p.stalls.map((n, i) => (n ? `stall ${i + 1}${n > 1 ? " (upper)" : ""}` : null))) || "none"],
    ["Tokens", (p) => listing(p.tokens.map((t) => alteration(cat, t))) || "none"],
    ["Erudite tiles", (p) => listing(p.erudite.map((t) => `${cat.erudite[t].planet} ${cat.erudite[t].level}${p.erudite_used.includes(t) ? " (used)" : ""}`)) || "none"],
    ["Built", (p) => listing(p.built.map((b) => (b < cat.n_production ? `production ${b + 1}` : `megastructure ${b - cat.n_production + 1}`))) || "nothing"],
    ["Influence", (p) => cat.planets.map((name, i) => `${name} ${p.influence[i]}`).join(" · ")],
    ["Start tile", (p) => (p.start_tile >= 0 ? `${p.start_tile + 1}: ${cat.start_tiles[p.start_tile].text}` : "—")],
    ["Deep space", (p) => listing(p.deep_space.map((t) => cat.deep_space[t].text)) || "none"],
  ];
  return section(
    "Players",
    { class: "panel seats-panel" },
    h(
      "div",
      { class: "scroll", tabindex: "0", role: "region", "aria-label": "Every player, in a table" },
      h(
        "table",
        {},
        h("thead", {}, h("tr", {}, h("th", {}, ""), game.players.map((_, seat) => h("th", { scope: "col", "data-seat": seat }, who(seat))))),
        h(
          "tbody",
          {},
          rows.map(([title, value]) =>
            h("tr", {}, h("th", { scope: "row" }, title), game.players.map((p, seat) => h("td", { "data-seat": seat }, String(value(p))))),
          ),
        ),
      ),
    ),
  );
}

function tracksPanel(ctx, who) {
  const { game, cat } = ctx;
  const at = (field, level) =>
    listing(game.players.map((p, seat) => (p[field] === level ? ctx.name(seat) : null)));
  const orange = game.orange_tokens.map((t, level) => {
    const token = t === -2 ? "face-down asteroid" : t >= 0 ? `asteroid: ${cat.asteroids[t].text}` : null;
    const reward = cat.orange_rewards[level] ? cat.orange_rewards[level].text : "";
    return h("li", {}, `Level ${level}: ${reward}`, token ? ` · ${token}` : "", at("orange", level) ? h("strong", {}, ` · ${at("orange", level)}`) : "");
  });
  const blue = game.blue_tokens.map((row, i) =>
    h(
      "li",
      {},
      `Level ${i + 1} (power ${cat.blue_power[i]}): `,
      listing(row.map((t) => (t === -2 ? "a face-down token" : t === -1 ? null : alteration(cat, t)))) || "all taken",
      at("blue", i + 1) ? h("strong", {}, ` · ${at("blue", i + 1)}`) : "",
    ),
  );
  const stalls = cat.stalls.map((stall, i) =>
    h(
      "li",
      {},
      `Stall ${i + 1}: pay ${stall.text}, get ${stall.reward} (upper ×${stall.upper_factor})`,
      h("span", { class: "meta" }, " · ", listing(game.players.map((p, seat) => (p.stalls[i] ? `${ctx.name(seat)}${p.stalls[i] > 1 ? " (upper)" : ""}` : null))) || "nobody"),
    ),
  );
  const erudite = cat.erudite.map((tile) =>
    h("li", {}, `${capitalise(tile.planet)} ${tile.level} (${tile.timing}): ${tile.text} — ${game.erudite_stock[tile.tile]} left`),
  );
  return section(
    "Planet tracks",
    { class: "panel tracks-panel" },
    h(
      "div",
      { class: "tracks" },
      h("div", {}, h("h4", {}, `Orange (dead asteroids left: ${game.dead_asteroids})`), h("ul", {}, orange)),
      h("div", {}, h("h4", {}, "Blue (alteration tokens)"), h("ul", {}, blue)),
      h("div", {}, h("h4", {}, "Yellow (stalls)"), h("ul", {}, stalls)),
      h("div", {}, h("h4", {}, "Purple (erudite tiles)"), h("ul", {}, erudite)),
    ),
  );
}

function boardPanel(ctx, who) {
  const { game, cat } = ctx;
  const builtBy = (index) =>
    listing(game.players.map((p, seat) => (p.built.includes(index) ? ctx.name(seat) : null))) || "nobody";
  return section(
    "Structures, projects and medals",
    { class: "panel structures" },
    h("h4", {}, "Green: production structures"),
    h("ul", {}, game.production.map((kind, i) => h("li", {}, `${i + 1}: ${cat.production[kind].text}, costs ${costText(cat.production[kind])} — built by ${builtBy(i)}`))),
    h("h4", {}, "Green: megastructures"),
    h(
      "ul",
      {},
      game.mega.map((criteria, j) =>
        h("li", {}, `${j + 1}: scores by ${listing(criteria.map((c) => cat.mega_criteria[c].text))}; ${game.mega_filled[j]} of ${cat.mega_slots.length} slots filled — built by ${builtBy(cat.n_production + j)}`),
      ),
    ),
    h("h4", {}, "Projects"),
    h(
      "ul",
      {},
      game.projects.map((level, i) =>
        h("li", {}, i === cat.common_project ? `Common project: ${level} of ${cat.project_max}` : `${capitalise(projectName(cat, i))}: ${level} of ${cat.project_max}`),
      ),
    ),
    h("p", {}, "Medals left: ", Object.entries(game.medal_supply).map(([k, n]) => `${k} ${n}`).join(" · ")),
    h("p", {}, `Deep-space tiles left: ${game.deep_space_left}. Law stacks: ${game.law_stacks.join(" and ")} laws.`),
    game.start_tiles.length ? h("p", {}, "Start tiles on offer: ", listing(game.start_tiles.map((t) => `${t + 1}: ${cat.start_tiles[t].text}`))) : null,
  );
}

// ------------------------------------------------------------------ replays

export function describe(prev, next, ctx) {
  const { cat } = ctx;
  const lines = [];
  const name = (seat) => ctx.name(seat);
  if (next.round !== prev.round) lines.push(`Round ${next.round} begins.`);
  next.spaces.forEach((space, i) => {
    const old = prev.spaces[i];
    if (space.seat >= 0 && old.seat !== space.seat) {
      lines.push(`${name(space.seat)} placed an ambassador on ${spaceName(cat, i)} (${space.funding ? "funding side" : plural(space.votes, "vote")}).`);
    }
  });
  next.outer.forEach((n, seat) => n > prev.outer[seat] && lines.push(`${name(seat)} placed an ambassador on the outer space.`));
  next.players.forEach((p, seat) => {
    const old = prev.players[seat];
    if (!old) return;
    const fields = [
      ["copp", "coppernium"],
      ["lav", "lavandium"],
      ["ocean", "oceanium"],
      ["diamond", "diamonds"],
      ["pp", "PP"],
      ["hangar", "ships in hangar"],
      ["authority_step", "authority"],
      ["orange", "orange track"],
      ["blue", "blue track"],
    ];
    const changes = fields
      .map(([key, text]) => [text, p[key] - old[key]])
      .filter(([, d]) => d)
      .map(([text, d]) => `${d > 0 ? "+" : "−"}${Math.abs(d)} ${text}`);
    if (changes.length) lines.push(`${name(seat)}: ${changes.join(", ")}.`);
    p.missions.forEach((m, i) => m && !old.missions[i] && lines.push(`${name(seat)} performed the ${iconName(cat, i)} mission.`));
    p.medals.filter((m) => !old.medals.includes(m)).forEach((m) => lines.push(`${name(seat)} took the ${m} medal.`));
    p.tokens.filter((t) => !old.tokens.includes(t)).forEach((t) => lines.push(`${name(seat)} took alteration ${alteration(cat, t)}.`));
    p.erudite.filter((t) => !old.erudite.includes(t)).forEach((t) => lines.push(`${name(seat)} took the ${cat.erudite[t].planet} ${cat.erudite[t].level} erudite tile.`));
    p.built.filter((b) => !old.built.includes(b)).forEach((b) => lines.push(`${name(seat)} built ${b < cat.n_production ? `production structure ${b + 1}` : `megastructure ${b - cat.n_production + 1}`}.`));
    if (p.start_tile >= 0 && old.start_tile < 0) lines.push(`${name(seat)} took start tile ${p.start_tile + 1}.`);
  });
  if (JSON.stringify(next.laws) !== JSON.stringify(prev.laws)) {
    lines.push(`Laws now: ${listing(next.laws.filter((l) => l >= 0).map((l) => planet(cat, l))) || "none"}.`);
  }
  if (next.pending_seat >= 0 && (ctx.cat.phases || {})[next.pending] && (next.pending !== prev.pending || next.pending_seat !== prev.pending_seat)) {
    lines.push(`Now ${name(next.pending_seat)} must ${phaseWords(ctx.cat, next.pending)}.`);
  }
  return lines;
}
