// Fractured Sky: the regions (by their catalogue names, with stardust, airships, chips and
// skimmers), the floating platforms, the turn track, the secret stardust cards and the
// objective tray, every participant's resources and supplies (automated opponents too),
// the last round's results, my private panel (my unused chips, exploration draws,
// scouted cards, peeked objectives, pending choices) and my moves in place.

import { capitalise, h, listing, plural } from "../lib/dom.js";
import { facts, section, swatch } from "./common.js";

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

function platformText(cat, index) {
  const platform = cat.platforms[index];
  const names = platform.regions.map((r) => regionName(cat, r));
  return `platform ${index + 1} (bridges ${listing(names)})`;
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
      return `Build a fortress on ${platformText(cat, body.platform)} for ${costText(costs.fortress)}`;
    case "fs.build_market":
      return `Build a market on ${platformText(cat, body.platform)} for ${costText(costs.market)}`;
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

export function scores(ctx) {
  const game = ctx.game;
  if (!game) return null;
  return ctx.view.seats.map((s) => (game.players[s.seat] ? game.players[s.seat].stardust : null));
}

// ------------------------------------------------------------------ drawing

const PHASES = {
  start: "Everybody chooses 4 starting resources",
  play: "Actions: airships, buildings, skimmers, scouting, peeking",
  scout: "Scouting: take a resource from the scouted card",
  slot: "Choosing a turn slot for the next round",
  rewards: "Round end: resource choices",
  finished: "Game over",
};

export function render(ctx) {
  const game = ctx.game;
  const cat = ctx.cat;
  if (!cat) return h("p", {}, "Loading the catalogue…");
  const who = (seat) =>
    h("span", { class: `who seat-text-${seat % 6}` }, swatch(seat), participant(ctx, seat), seat === ctx.me ? " (you)" : "");
  const turnText = game.turn >= 0 ? participant(ctx, game.turn) : "—";
  return h(
    "div",
    { class: "game fs" },
    h(
      "div",
      { class: "game-top panel" },
      facts([
        ["Round", `${game.round} of ${cat.rounds}`],
        ["Phase", PHASES[game.phase] || game.phase],
        ["Turn", turnText],
        ["Public stardust card", regionName(cat, game.public_card)],
        ["Stardust supply", String(game.stardust_supply)],
        ["Chips", game.revealed ? "revealed" : "hidden until the round ends"],
        game.difficulty ? ["Automated opponents", game.difficulty] : null,
      ]),
    ),
    movesPanel(ctx),
    privatePanel(ctx),
    regionsPanel(ctx, who),
    platformsPanel(ctx, who),
    trackPanel(ctx, who),
    traysPanel(ctx, who),
    playersPanel(ctx, who),
    game.ais && game.ais.length ? aiPanel(ctx) : null,
    resultsPanel(ctx, who),
  );
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
      { class: "scroll" },
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
        game.my_chips && game.my_chips.length
          ? h("span", { class: "chips" }, game.my_chips.map((c) => h("span", { class: `chip ${cat.white_chips.includes(c) ? "white" : "black"}` }, c)))
          : "none",
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

function movesPanel(ctx) {
  if (!ctx.legal.length) return null;
  const groups = [
    ["fs.choose_start", "Choose your 4 starting resources"],
    ["fs.scout_take", "Finish scouting"],
    ["fs.choose_resource", "Choose a resource"],
    ["fs.trade", "Trade (free action: 2 resources for 1)"],
  ];
  const boxes = groups
    .map(([type, title]) => [ctx.of(type), title])
    .filter(([moves]) => moves.length)
    .map(([moves, title]) =>
      h(
        "div",
        { class: "move-group" },
        h("h4", {}, title),
        h("div", { class: "move-list" }, moves.map((body) => ctx.button(body, label(body, ctx)))),
      ),
    );
  const elsewhere = ["fs.place_airship", "fs.place_skimmer", "fs.build_fortress", "fs.build_market", "fs.scout", "fs.peek", "fs.choose_slot"]
    .filter((type) => ctx.of(type).length)
    .map((type) => ({
      "fs.place_airship": "place an airship (chip buttons on the regions)",
      "fs.place_skimmer": "place a skimmer (on the regions)",
      "fs.build_fortress": "build a fortress (on the platforms)",
      "fs.build_market": "build a market (on the platforms)",
      "fs.scout": "scout a secret card",
      "fs.peek": "peek at an objective",
      "fs.choose_slot": "take a turn slot (turn order)",
    })[type]);
  return section(
    "Your moves",
    { class: "panel moves game-moves", "data-testid": "game-moves" },
    elsewhere.length ? h("p", { class: "hint" }, `You may ${listing(elsewhere)}.`) : null,
    boxes,
  );
}

// ------------------------------------------------------------------ replays

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
