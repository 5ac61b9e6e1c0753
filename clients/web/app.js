// The web client's entry point: a hash router over five pages (sign in, lobby, table,
// replay, my games), the header, and the session. Plain ES modules, no build step, nothing fetched
// from elsewhere: every file is served by the gateway from clients/web/.

import { SESSION_KEY, clearSession, session } from "./lib/api.js";
import { h, replaceChildren } from "./lib/dom.js";
import { setPageTitle, startNotifications } from "./lib/notify.js";
import { startSocial } from "./components/social.js";
import { mountAuth } from "./pages/auth.js";
import { mountGames } from "./pages/games.js";
import { mountLobby } from "./pages/lobby.js";
import { mountReplay } from "./pages/replay.js";
import { mountTable } from "./pages/table.js";
import { mountTournament, mountTournaments } from "./pages/tournaments.js";

const main = document.getElementById("main");
const account = document.getElementById("account");
let unmount = null;
let shownAs = null; // the account this tab shows (its name), to notice another tab's change
let accountNotice = "";

function parseHash() {
  const raw = location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = raw.split("?");
  return { path, params: new URLSearchParams(query) };
}

export function go(path) {
  if (location.hash === "#" + path) route();
  else location.hash = path;
}

function renderAccount() {
  const current = session();
  shownAs = current ? current.name : null;
  replaceChildren(
    account,
    accountNotice ? h("span", { class: "meta", role: "status", "data-testid": "account-notice" }, accountNotice) : null,
    current
      ? [
          h("span", { class: "who", "data-testid": "signed-in-as" }, current.name),
          h(
            "button",
            {
              type: "button",
              class: "link",
              "data-testid": "sign-out",
              onclick: () => {
                clearSession();
                go("/signin");
              },
            },
            "Sign out",
          ),
        ]
      : h("a", { href: "#/signin" }, "Sign in"),
  );
}

function route() {
  if (unmount) unmount();
  unmount = null;
  renderAccount();
  const { path, params } = parseHash();
  const table = path.match(/^\/table\/([A-Za-z0-9_.:-]{1,64})(\/replay)?$/);
  if (path !== "/signin" && !session()) {
    sessionStorage.setItem("orrery.after", path + (params.toString() ? "?" + params : ""));
    unmount = mountAuth(main, { done: afterSignIn });
    return;
  }
  setPageTitle("Orrery");
  if (path === "/signin") unmount = mountAuth(main, { done: afterSignIn });
  else if (table && table[2]) unmount = mountReplay(main, { tableId: table[1], params });
  else if (table) unmount = mountTable(main, { tableId: table[1], params });
  else if (path === "/games") unmount = mountGames(main);
  else if (path === "/tournaments") unmount = mountTournaments(main);
  else if (path.match(/^\/tournament\/[A-Za-z0-9_-]{1,64}$/))
    unmount = mountTournament(main, { tournamentId: path.split("/")[2] });
  else unmount = mountLobby(main, { params });
  main.focus({ preventScroll: true });
}

function afterSignIn() {
  const after = sessionStorage.getItem("orrery.after") || "/";
  sessionStorage.removeItem("orrery.after");
  go(after === "/signin" ? "/" : after);
}

window.addEventListener("hashchange", () => {
  accountNotice = "";
  route();
});
// Another tab of this browser signed in as someone else, or signed out (the session is
// shared through localStorage): this tab follows at once and says so, instead of showing
// the old account's seat until a reload.
window.addEventListener("storage", (event) => {
  if (event.key !== SESSION_KEY && event.key !== null) return;
  const current = session();
  const now = current ? current.name : null;
  if (now === shownAs) return;
  accountNotice = now ? `Signed in as ${now} in another tab.` : "Signed out in another tab.";
  route();
});
window.addEventListener("orrery:signed-out", () => {
  if (parseHash().path !== "/signin") route();
});
route();
startSocial(); // my presence, friends' notices and presence dots (components/social.js)
startNotifications(); // the title's count, the icon's badge, push (lib/notify.js)

document.getElementById("skip").addEventListener("click", (event) => {
  event.preventDefault();
  main.focus();
});
