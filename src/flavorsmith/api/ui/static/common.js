// Shared by every page: the navigation, the token, the Keystone login, calls to the /v1 APIs,
// safe DOM building. The token (typed in, or returned by POST /v1/login) lives in this tab's
// sessionStorage and goes out as X-Auth-Token; never a cookie. Beside it, after a login, who it
// is for (user, project, roles, expiry), which the header shows until the token is forgotten
// or refused.

const TOKEN_KEY = "flavorsmith.token";
const WHO_KEY = "flavorsmith.who";

const PAGES = [
  ["capacity", "/ui/", "Capacity"],
  ["matrix", "/ui/matrix.html", "Flavors × nodes"],
  ["sync", "/ui/sync.html", "Sync plan"],
  ["review", "/ui/review.html", "Review"],
];

export class ApiError extends Error {
  constructor(status, detail, body = null) {
    super(`${status}: ${detail}`);
    this.status = status;
    this.detail = detail;
    this.body = body; // the parsed JSON answer, when there was one
  }
}

export function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

// Who the held token is for, as the login answered ({user, project, roles, expires_at}), or
// null: no login (a token entered by hand, or none), the token was refused, or it expired.
function who() {
  if (!token()) return null;
  let held = null;
  try {
    held = JSON.parse(sessionStorage.getItem(WHO_KEY) || "null");
  } catch {
    return null;
  }
  if (!held || typeof held !== "object" || typeof held.user !== "string") return null;
  const expires = Date.parse(held.expires_at);
  if (!Number.isNaN(expires) && expires <= Date.now()) return null;
  return held;
}

// Keep who a login's token is for (names, falling back to ids).
function rememberWho(answer) {
  const named = (part) => (part && (part.name || part.id)) || "unknown";
  const roles = Array.isArray(answer.roles) ? answer.roles.map(String) : [];
  const held = {
    user: String(named(answer.user)),
    project: String(named(answer.project)),
    roles,
    expires_at: typeof answer.expires_at === "string" ? answer.expires_at : null,
  };
  sessionStorage.setItem(WHO_KEY, JSON.stringify(held));
}

// The service refused the token (401: expired or revoked): the header stops saying who is
// logged in. The token itself stays until it is forgotten or replaced, as before.
function forgetWho() {
  tokenRefused = true;
  sessionStorage.removeItem(WHO_KEY);
  showWho();
  const username = document.getElementById("login-username");
  if (username) username.placeholder = "";
}

let tokenRefused = false;

// The header's who-line: "Logged in as USER (project P; roles: R), until TIME" after a login,
// "A token entered by hand is set" for a typed token, empty otherwise. Text only.
function showWho() {
  const line = document.getElementById("who");
  if (!line) return;
  const held = who();
  line.replaceChildren();
  if (held) {
    const roles = held.roles.length ? held.roles.join(", ") : "none";
    line.append(`Logged in as ${held.user} (project ${held.project}; roles: ${roles})`);
    const expires = held.expires_at ? new Date(held.expires_at) : null;
    if (expires && !Number.isNaN(expires.getTime())) {
      line.append(
        ", until ",
        el("time", { datetime: held.expires_at, text: expires.toLocaleString() }),
      );
    }
  } else if (token() && !tokenRefused && !sessionStorage.getItem(WHO_KEY)) {
    line.append("A token entered by hand is set");
  }
}

// Call a /v1 path (GET unless ``method`` says otherwise); the parsed JSON, or an ApiError
// carrying the service's own message and its answer.
export async function api(path, method = "GET") {
  const headers = { Accept: "application/json" };
  const held = token();
  if (held) headers["X-Auth-Token"] = held;
  const response = await fetch(path, { method, headers, credentials: "omit", cache: "no-store" });
  if (response.status === 401 && held) forgetWho();
  if (!response.ok) {
    let detail = response.statusText;
    let body = null;
    try {
      body = await response.json();
      detail = body.detail || body.title || body.error || detail;
    } catch {
      // not JSON: keep the status text
    }
    throw new ApiError(response.status, detail, body);
  }
  return response.json();
}

// How often the live pages (capacity, matrix, node) ask again while the tab is shown.
export const POLL_MS = 5000;

// Follow the service live: call ``load`` now and every POLL_MS while the tab is shown, and
// ``show`` its answer whenever that differs from the one shown (a node or catalog change). The
// page's main answer (``part`` unset) reports errors in the status line (the next answer that
// loads clears it), marks the page loaded (``body[data-loaded]``) after its first answer and
// counts its renders (``body[data-renders]``); a part of the page (``part``: a name) handles its
// own errors in ``load`` and marks its element ``data-loaded``. Either sets a performance mark
// when first shown ("flavorsmith:rendered", or "flavorsmith:rendered:PART").
export function follow(load, show, part = null) {
  let shown = null;
  let busy = false;
  async function once() {
    if (busy || (document.hidden && shown !== null)) return;
    busy = true;
    try {
      const answer = await load();
      const text = JSON.stringify(answer);
      if (text !== shown) {
        show(answer);
        if (shown === null) markRendered(part ? `flavorsmith:rendered:${part}` : "flavorsmith:rendered");
        shown = text;
        if (!part) {
          document.body.dataset.renders = String(Number(document.body.dataset.renders || 0) + 1);
        }
      }
      if (!part) {
        showStatus("");
        document.body.dataset.loaded = "true";
      }
    } catch (error) {
      if (part) throw error;
      showStatus(explainError(error), true);
      document.body.dataset.loaded = "error";
    } finally {
      busy = false;
    }
  }
  const started = once();
  setInterval(once, POLL_MS);
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden) once();
  });
  return started;
}

// A performance mark (its time: since the navigation began) once the answer just shown is
// painted: what benchmarks/dashboard.py measures.
function markRendered(name) {
  requestAnimationFrame(() => setTimeout(() => performance.mark(name), 0));
}

// An element with attributes (``text`` sets its text; never HTML) and children.
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name === "text") node.textContent = String(value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function flavorHref(name) {
  return `/ui/flavor.html?name=${encodeURIComponent(name)}`;
}

export function nodeHref(ident) {
  return `/ui/node.html?node=${encodeURIComponent(ident)}`;
}

// What went wrong, in the page's status line (announced to screen readers).
export function showStatus(text, isError = false) {
  const status = document.getElementById("status");
  status.textContent = text;
  status.classList.toggle("error", isError);
  status.setAttribute("role", isError ? "alert" : "status");
}

export function explainError(error) {
  if (error instanceof ApiError && error.status === 401) {
    return loginOffered
      ? "The service needs a token: log in or enter one above (it stays in this tab only)."
      : "The service needs a token: enter one above (it stays in this tab only).";
  }
  if (error instanceof ApiError && error.status === 403) {
    return `Your token may not read this: ${error.detail}`;
  }
  return `Could not load: ${error.message}`;
}

// The header every page shares: the pages, and the token form.
export function shell(current) {
  const header = document.getElementById("shell");
  const nav = el("nav", { "aria-label": "Dashboard pages" });
  const list = el("ul");
  for (const [key, href, label] of PAGES) {
    const link = el("a", { href, "aria-current": key === current ? "page" : null, text: label });
    list.append(el("li", {}, link));
  }
  nav.append(el("span", { class: "brand", text: "Flavorsmith" }), list);
  const input = el("input", {
    id: "token",
    name: "token",
    type: "password",
    autocomplete: "off",
    placeholder: token() ? "(a token is set)" : "none needed without auth",
  });
  const form = el(
    "form",
    { id: "token-form", "aria-label": "API token" },
    el("label", { for: "token", text: "Token" }),
    input,
    el("button", { type: "submit", text: "Use token" }),
    el("button", { type: "button", id: "token-forget", text: "Forget token" }),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    if (input.value) {
      sessionStorage.setItem(TOKEN_KEY, input.value);
      sessionStorage.removeItem(WHO_KEY); // typed in: who it is for is not known here
    }
    location.reload();
  });
  form.querySelector("#token-forget").addEventListener("click", () => {
    sessionStorage.removeItem(TOKEN_KEY);
    sessionStorage.removeItem(WHO_KEY);
    location.reload();
  });
  const whoLine = el("p", { id: "who", role: "status", "aria-live": "polite" });
  header.append(nav, whoLine, form);
  showWho();
  offerLogin(header, form);
}

// Set once GET /v1/auth says the service offers a Keystone login.
let loginOffered = false;

// Under Keystone auth (GET /v1/auth says ``login``), a "Log in" form before the token form:
// the service asks Keystone for a project-scoped token (POST /v1/login), which is kept where
// the token form keeps a token; the page then reloads its data. Keystone's refusal is shown
// beside the form. "Forget token" logs out.
async function offerLogin(header, tokenForm) {
  let auth;
  try {
    auth = await api("/v1/auth");
  } catch {
    return; // an older service without /v1/auth: the token form alone
  }
  if (!auth.login) return;
  loginOffered = true;
  const shown = document.getElementById("status");
  if (shown && shown.textContent.startsWith("The service needs a token: enter")) {
    showStatus(explainError(new ApiError(401, "")), true); // the first load was quicker
  }
  const field = (id, name, label, attrs) => [
    el("label", { for: id, text: label }),
    el("input", { id, name, required: true, ...attrs }),
  ];
  const status = el("span", { id: "login-status", role: "status", "aria-live": "polite" });
  const button = el("button", { type: "submit", text: "Log in" });
  const form = el(
    "form",
    { id: "login-form", "aria-label": "Keystone login" },
    ...field("login-username", "username", "User", { autocomplete: "username" }),
    ...field("login-password", "password", "Password", {
      type: "password",
      autocomplete: "current-password",
    }),
    ...field("login-project", "project", "Project", { autocomplete: "off" }),
    button,
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const value = (name) => form.elements.namedItem(name).value;
    button.disabled = true;
    status.classList.remove("error");
    status.setAttribute("role", "status");
    status.textContent = "Logging in…";
    try {
      const answer = await login(value("username"), value("password"), value("project"));
      sessionStorage.setItem(TOKEN_KEY, answer.token);
      rememberWho(answer);
      location.reload();
    } catch (error) {
      status.textContent = error instanceof ApiError ? error.detail : `Login failed: ${error.message}`;
      status.classList.add("error");
      status.setAttribute("role", "alert");
      button.disabled = false;
    }
  });
  header.insertBefore(form, tokenForm);
  if (token() && !tokenRefused) {
    form.querySelector("#login-username").placeholder = "(logged in)";
  }
}

// POST /v1/login: Keystone's token for a user, password and project name, or an ApiError
// carrying the service's message (Keystone's refusal, or why it cannot be asked).
async function login(username, password, project) {
  const response = await fetch("/v1/login", {
    method: "POST",
    headers: { Accept: "application/json", "Content-Type": "application/json" },
    body: JSON.stringify({ username, password, project_name: project }),
    credentials: "omit",
    cache: "no-store",
  });
  let body = null;
  try {
    body = await response.json();
  } catch {
    // not JSON: the status text says what happened
  }
  if (!response.ok) {
    const detail = (body && (body.detail || body.title)) || response.statusText;
    throw new ApiError(response.status, detail, body);
  }
  return body;
}

// An explain answer's reasons as a list, each under its layer ("Nothing stops it" when none).
export function reasonsList(reasons) {
  const list = el("ul", { class: "explain" });
  for (const reason of reasons) {
    list.append(
      el(
        "li",
        { "data-layer": reason.layer },
        el("strong", { text: `${reason.layer}${reason.blocking ? "" : " (not blocking)"}: ` }),
        reason.detail,
      ),
    );
  }
  if (reasons.length === 0) list.append(el("li", { text: "Nothing stops it: schedulable." }));
  return list;
}

// Runs a page's load; the status line and body[data-loaded] say how it went ("true", or
// "error" with the reason in the status line).
export async function loading(load) {
  try {
    await load();
    showStatus("");
    document.body.dataset.loaded = "true";
  } catch (error) {
    showStatus(explainError(error), true);
    document.body.dataset.loaded = "error";
  }
}
