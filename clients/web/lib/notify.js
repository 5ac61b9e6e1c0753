// Turn notifications in the page: the tab's title ("(2) Your turn — Orrery") and a badge
// on its icon while any of my tables waits for me (GET /v1/players/me/turns, asked again
// every few seconds and on each page change), the service worker (/sw.js) registered, and
// the first time I sit at a turn-based table, a bar offering to tell me by push when it
// is my turn
// (permission is asked on its button, then the browser subscribes with the notifiers'
// key and POST /v1/players/me/push keeps the subscription).
//
// This module is the one writer of document.title: a page says its own title through
// setPageTitle, and the count of waiting tables goes in front of it here (lib/turn.js
// only answers "is it my turn at this table", and the table page asks for a fresh count
// when that answer changes: refreshTurns).

import { session } from "./api.js";
import { h } from "./dom.js";

const POLL_MS = 15000;
const ASKED_KEY = "orrery.push-asked";
// A table is played in real time when its clock gives a seat less than an hour for its
// next move (the matchmaker's realtime pace: a 600 s bank and 10 s a move); a table
// without a clock, or a day a move, is turn-based: its players come back to it.
const REALTIME_BELOW_MS = 3600 * 1000;

export function turnBased(view) {
  const clock = view && view.clock;
  return !clock || clock.bank_ms + clock.per_move_ms >= REALTIME_BELOW_MS;
}
let waiting = 0;
let pageTitle = document.title;

async function authed(method, path, body) {
  const current = session();
  if (!current) return null;
  const response = await fetch(path, {
    method,
    headers: { Authorization: `Bearer ${current.token}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return response.ok ? response.json() : null;
}

function icon(count) {
  if (!count) return "data:,";
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 32;
  const g = canvas.getContext("2d");
  g.fillStyle = "#2b4c7e";
  g.beginPath();
  g.arc(16, 16, 14, 0, 2 * Math.PI);
  g.fill();
  g.fillStyle = "#d3212c";
  g.beginPath();
  g.arc(23, 9, 9, 0, 2 * Math.PI);
  g.fill();
  g.fillStyle = "#fff";
  g.font = "bold 13px sans-serif";
  g.textAlign = "center";
  g.textBaseline = "middle";
  g.fillText(count > 9 ? "9+" : String(count), 23, 10);
  return canvas.toDataURL("image/png");
}

function apply() {
  document.title = waiting ? `(${waiting}) Your turn — Orrery` : pageTitle;
  const link = document.querySelector('link[rel="icon"]');
  if (link) link.href = icon(waiting);
  document.documentElement.dataset.turnsWaiting = String(waiting);
}

async function refresh() {
  try {
    const turns = await authed("GET", "/v1/players/me/turns");
    waiting = turns ? turns.tables.length : 0;
  } catch {
    return; // offline for a moment: keep what is shown
  }
  apply();
}

async function subscribe() {
  const registration = await navigator.serviceWorker.ready;
  const settings = await authed("GET", "/v1/players/me/notifications");
  if (!settings || !settings.vapid_public_key) return;
  const key = Uint8Array.from(
    atob(settings.vapid_public_key.replace(/-/g, "+").replace(/_/g, "/")),
    (c) => c.charCodeAt(0),
  );
  const subscription = await registration.pushManager.subscribe({
    userVisibleOnly: true,
    applicationServerKey: key,
  });
  await authed("POST", "/v1/players/me/push", subscription.toJSON());
}

// The first time I hold a seat at a turn-based table: offer push (a browser asks for
// permission on a click).
async function offer(tableId) {
  if (!("Notification" in window) || !("serviceWorker" in navigator)) return;
  if (Notification.permission !== "default" || localStorage.getItem(ASKED_KEY)) return;
  const current = session();
  const path = `/v1/tables/${encodeURIComponent(tableId)}`;
  const table = await authed("GET", path);
  if (!current || !table || !table.players.some((p) => p.player_id === current.player_id)) return;
  if (!turnBased(await authed("GET", `${path}/view`))) return;
  if (document.getElementById("push-offer")) return;
  const bar = h("div", { id: "push-offer", class: "push-offer", role: "status", "data-testid": "push-offer" }, [
    "Be told when it is your turn, even with this page closed? ",
    h("button", {
      type: "button",
      "data-testid": "push-yes",
      onclick: async () => {
        localStorage.setItem(ASKED_KEY, "1");
        bar.remove();
        if ((await Notification.requestPermission()) === "granted") {
          subscribe().catch(() => {}); // (no push service reachable: nothing to keep)
        }
      },
    }, "Yes"),
    " ",
    h("button", {
      type: "button",
      class: "link",
      onclick: () => {
        localStorage.setItem(ASKED_KEY, "1");
        bar.remove();
      },
    }, "Not now"),
  ]);
  document.getElementById("main")?.prepend(bar);
}

function onPage() {
  const table = location.hash.match(/^#\/table\/([A-Za-z0-9_.:-]{1,64})$/);
  if (table) offer(table[1]).catch(() => {});
  refresh();
}

// A page's own title (shown as it is while no table waits for me).
export function setPageTitle(title) {
  if (title === pageTitle) return;
  pageTitle = title;
  apply();
}

// The table page saw my turn begin or end: count the waiting tables again now.
export function refreshTurns() {
  refresh();
  setTimeout(refresh, 1500); // the turns' record may follow the view by a moment
}

export function startNotifications() {
  if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js").catch(() => {});
  window.addEventListener("hashchange", onPage);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) refresh();
  });
  setInterval(refresh, POLL_MS);
  onPage();
}
