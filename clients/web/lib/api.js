// The gateway's HTTP API: the session kept in localStorage, JSON requests with the
// bearer token, errors as ApiError {status, code, message} (the API's {"error","message"}).

export const SESSION_KEY = "orrery.session";
const CREATED_KEY = "orrery.created";

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function session() {
  try {
    const stored = JSON.parse(localStorage.getItem(SESSION_KEY) || "null");
    if (stored && stored.expires_at && Date.parse(stored.expires_at) <= Date.now()) {
      localStorage.removeItem(SESSION_KEY);
      return null;
    }
    return stored;
  } catch {
    return null;
  }
}

export function saveSession(value) {
  localStorage.setItem(SESSION_KEY, JSON.stringify(value));
}

export function clearSession() {
  localStorage.removeItem(SESSION_KEY);
}

// Tables this browser created (the creator may add bots before taking a seat), with the
// invite of a private one (the API shows an invite only once, at creation).
export function created() {
  try {
    return JSON.parse(localStorage.getItem(CREATED_KEY) || "{}");
  } catch {
    return {};
  }
}

export function rememberCreated(tableId, invite) {
  const all = created();
  all[tableId] = { invite: invite || null, at: Date.now() };
  const recent = Object.entries(all).sort((a, b) => b[1].at - a[1].at).slice(0, 50);
  localStorage.setItem(CREATED_KEY, JSON.stringify(Object.fromEntries(recent)));
}

export async function request(method, path, body, { auth = true } = {}) {
  const headers = { Accept: "application/json" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const current = session();
  if (auth && current) headers.Authorization = `Bearer ${current.token}`;
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch {
    throw new ApiError(0, "offline", "The server cannot be reached; try again in a moment.");
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) {
    const code = (data && data.error) || `http_${response.status}`;
    const message = (data && data.message) || response.statusText || "request failed";
    if (response.status === 401 && auth) {
      clearSession();
      window.dispatchEvent(new CustomEvent("orrery:signed-out"));
    }
    throw new ApiError(response.status, code, message);
  }
  return data;
}

export const api = {
  signUp: (name, password) => request("POST", "/v1/players", { name, password }, { auth: false }),
  signIn: (name, password) => request("POST", "/v1/sessions", { name, password }, { auth: false }),
  me: () => request("GET", "/v1/players/me"),
  // my finished games, newest first (live and archived); `cursor`: the previous page's next
  myGames: (cursor) => {
    const query = new URLSearchParams({ limit: "20" });
    if (cursor) query.set("cursor", cursor);
    return request("GET", `/v1/players/me/games?${query}`);
  },
  tables: (state, game, cursor) => {
    const query = new URLSearchParams({ state, limit: "20" });
    if (game) query.set("game", game);
    if (cursor) query.set("cursor", cursor);
    return request("GET", `/v1/tables?${query}`);
  },
  create: (game, seats, options, isPrivate) =>
    request("POST", "/v1/tables", { game, seats, options, private: isPrivate }),
  join: (tableId, invite) =>
    request("POST", `/v1/tables/${encodeURIComponent(tableId)}/join`, invite ? { invite } : {}),
  bot: (tableId, level) =>
    request("POST", `/v1/tables/${encodeURIComponent(tableId)}/bots`, level ? { level } : {}),
  start: (tableId) => request("POST", `/v1/tables/${encodeURIComponent(tableId)}/start`),
  leave: (tableId) => request("POST", `/v1/tables/${encodeURIComponent(tableId)}/leave`),
  command: (tableId, commandId, body) =>
    request("POST", `/v1/tables/${encodeURIComponent(tableId)}/commands`, {
      command_id: commandId,
      body,
    }),
  table: (tableId) => request("GET", `/v1/tables/${encodeURIComponent(tableId)}`),
  view: (tableId) => request("GET", `/v1/tables/${encodeURIComponent(tableId)}/view`),
  // {at: SEQ} or {step: N} (neither: now); the answer's `replay` says which seq it shows
  replay: (tableId, where = {}) => {
    const query = new URLSearchParams();
    for (const key of ["at", "step", "as"]) if (where[key] !== undefined) query.set(key, String(where[key]));
    return request("GET", `/v1/tables/${encodeURIComponent(tableId)}/replay?${query}`);
  },
  leaderboard: (game) => request("GET", `/v1/leaderboard/${encodeURIComponent(game)}?limit=20`),
  // quick play: a ticket {game, seats, options?, pace?, bots_ok?, bots_after_s?}
  queue: (ticket) => request("POST", "/v1/queue", ticket),
  ticket: (ticketId) => request("GET", `/v1/queue/${encodeURIComponent(ticketId)}`),
  cancelTicket: (ticketId) => request("DELETE", `/v1/queue/${encodeURIComponent(ticketId)}`),
};

export function newCommandId() {
  const bytes = new Uint8Array(12);
  crypto.getRandomValues(bytes);
  return "w" + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}
