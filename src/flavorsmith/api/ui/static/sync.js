// The sync plan (GET /v1/sync/plan?only=KIND for each kind the service keeps in sync, or the
// one ``?only=`` names): one line when nothing would change ("Up to date: …, checked at …");
// else, for each kind that would change, the same diff ``flavorsmith sync plan`` prints. The
// kinds, and whether the caller may apply, come from GET /v1/sync/allowed. Callers whom policy
// allows to apply (admins by default) get an Apply button (POST /v1/sync/apply for each kind
// with changes), then the outcome per object; others see the plan only.
import { ApiError, api, el, explainError, loading, shell, showStatus } from "/ui/common.js";

const asked = new URLSearchParams(location.search).get("only") || "";
// The kinds the page plans, each as [API name, heading, noun for one object (as ``sync plan``
// prints it), noun for many]: the one asked for, else every kind the service keeps in sync.
let kinds = [];

function chooseKinds(offered) {
  const all = offered.map((k) => [k.name, k.noun.charAt(0).toUpperCase() + k.noun.slice(1), k.subject, k.noun]);
  const select = document.getElementById("only");
  select.replaceChildren(
    el("option", { value: "", text: "Everything kept in sync" }),
    ...all.map(([name, heading]) => el("option", { value: name, text: heading })),
  );
  if (!asked) return all.filter((_, i) => offered[i].watched);
  const chosen = all.filter(([name]) => name === asked);
  return chosen.length ? chosen : [[asked, asked, "object", asked]]; // the API says why not
}

// ``sync plan``'s diff (flavorsmith/cli/sync/diff.py), line for line.
const SIGNS = { create: "+", update: "~", repair: "~", access: "~", replace: "-/+", delete: "-", conflict: "!" };
const OP_SIGNS = { add: "+", remove: "-", change: "~" };
const WORDS = {
  create: "to create",
  update: "to update",
  repair: "to repair",
  access: "to change access",
  replace: "to replace",
  delete: "to delete",
};
const OTHERS = { noop: "up to date", conflict: "in conflict" };
const WRITES = new Set(Object.keys(WORDS));
const SIGN_CLASS = { "+": "add", "-": "del", "~": "mod", "-/+": "mod", "!": "del" };

// A value as Python's json.dumps writes it (", " and ": " between items; strings quoted).
function pyJson(value) {
  if (Array.isArray(value)) return `[${value.map(pyJson).join(", ")}]`;
  if (value !== null && typeof value === "object") {
    return `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${pyJson(v)}`).join(", ")}}`;
  }
  return JSON.stringify(value === undefined ? null : value);
}

function changeLine(change) {
  const sign = OP_SIGNS[change.op];
  let body;
  if (change.op === "add") body = `${change.field}: ${pyJson(change.new)}`;
  else if (change.op === "remove") body = `${change.field}: ${pyJson(change.old)}`;
  else body = `${change.field}: ${pyJson(change.old)} → ${pyJson(change.new)}`;
  if (change.forces_replace) body += " (forces replacement)";
  return ["    ", `${sign} ${body}`, sign];
}

function serversPhrase(servers) {
  if (servers.count === null || servers.count === undefined) return "servers using it: unknown";
  let said =
    servers.count === 0
      ? "no servers use it"
      : `${servers.count} ${servers.count === 1 ? "server uses" : "servers use"} it`;
  if (servers.scope === "own_project") said += " in this credential's project; other projects not counted";
  return said;
}

function named(entry) {
  const name = entry.flavor ?? entry.template ?? entry.subject;
  return typeof name === "string" && name !== entry.subject ? `${name} (id ${entry.subject})` : entry.subject;
}

function summaryLine(actions) {
  const counts = {};
  for (const entry of actions) counts[entry.action] = (counts[entry.action] || 0) + 1;
  const writes = actions.filter((a) => WRITES.has(a.action)).length;
  let head = "No changes.";
  if (writes) {
    const words = Object.entries(WORDS)
      .filter(([verb]) => counts[verb])
      .map(([verb, word]) => `${counts[verb]} ${word}`);
    head = `Plan: ${writes} ${writes === 1 ? "change" : "changes"} (${words.join(", ")}).`;
  }
  const rest = Object.entries(counts)
    .filter(([verb]) => !(verb in WORDS))
    .map(([verb, n]) => `${n} ${OTHERS[verb] || verb}`);
  return head + (rest.length ? ` ${rest.join(", ")}.` : "");
}

// The plan's lines: [indent, text, sign] each (sign: what the line is marked with, or "").
function diffLines(actions, noun) {
  const lines = [];
  const unmanaged = [];
  for (const entry of actions) {
    if (entry.action === "unmanaged") {
      unmanaged.push(named(entry));
      continue;
    }
    if (entry.action === "noop") continue;
    const changes = entry.changes || [];
    const sign = SIGNS[entry.action] || " ";
    let header = `${sign} ${entry.action} ${noun} ${named(entry)}`;
    const notes = [];
    if (entry.action === "replace") {
      const forced = changes.filter((c) => c.forces_replace).map((c) => c.field);
      if (forced.length) notes.push(`${forced.join(", ")} ${forced.length === 1 ? "forces" : "force"} replacement`);
    }
    if (entry.servers) notes.push(serversPhrase(entry.servers));
    if (notes.length) header += ` (${notes.join("; ")})`;
    if (!changes.length || ["conflict", "keep", "delete"].includes(entry.action)) header += `: ${entry.reason}`;
    lines.push(["", header, sign]);
    if (entry.servers && entry.servers.note) lines.push(["    ", `# ${entry.servers.note}`, ""]);
    lines.push(...changes.map(changeLine));
  }
  if (unmanaged.length) lines.push(["  ", `unmanaged (left alone): ${unmanaged.join(", ")}`, ""]);
  lines.push(["", summaryLine(actions), ""]);
  return lines;
}

function diff(plan, noun) {
  const pre = el("pre", { class: "diff", "data-kind": plan.kind });
  for (const [indent, text, sign] of diffLines(plan.actions, noun)) {
    pre.append(indent, el("span", { class: sign ? `line ${SIGN_CLASS[sign] || ""}` : "line", text }), "\n");
  }
  return pre;
}

function writesOf(plan) {
  return plan.actions.filter((a) => WRITES.has(a.action)).length;
}

// A kind whose plan neither writes nor says anything to review (a conflict, a kept object).
function quiet(plan) {
  return plan.actions.every((a) => a.action === "noop" || a.action === "unmanaged");
}

function upToDate(plan, many) {
  const same = plan.actions.filter((a) => a.action === "noop").length;
  const alone = plan.actions.filter((a) => a.action === "unmanaged").length;
  return `${same} ${many}` + (alone ? ` (${alone} unmanaged left alone)` : "");
}

// Everything the page shows of the plans: one line when no kind would change anything, else
// that line for the kinds that would not and the diff of each kind that would.
function show(plans) {
  const checked = new Date();
  const stamp = el("time", { datetime: checked.toISOString(), text: checked.toLocaleTimeString() });
  const same = plans.filter(({ plan }) => quiet(plan));
  const changing = plans.filter(({ plan }) => !quiet(plan));
  const line = document.getElementById("summary");
  const sameText = same.map(({ plan, kind }) => upToDate(plan, kind[3])).join(", ");
  if (changing.length === 0) {
    line.replaceChildren(`Up to date: ${sameText}, checked at `, stamp, ".");
  } else {
    const writes = changing.reduce((n, { plan }) => n + writesOf(plan), 0);
    const where = changing.map(({ kind }) => kind[3]).join(", ");
    line.replaceChildren(
      `To review: ${writes} ${writes === 1 ? "change" : "changes"} (${where})`,
      same.length ? `; up to date: ${sameText}` : "",
      ", checked at ",
      stamp,
      ".",
    );
  }
  line.dataset.state = changing.length ? "changes" : "up-to-date";
  document.getElementById("actions").replaceChildren(
    ...changing.map(({ plan, kind }) =>
      el(
        "section",
        { class: "plan", "data-kind": plan.kind, "aria-labelledby": `plan-${plan.kind}` },
        el("h2", { id: `plan-${plan.kind}`, text: `${kind[1]}: flavorsmith sync plan --only ${plan.kind}` }),
        diff(plan, kind[2]),
      ),
    ),
  );
}

async function plansOf() {
  return Promise.all(
    kinds.map(async (kind) => ({ kind, plan: await api(`/v1/sync/plan?only=${encodeURIComponent(kind[0])}`) })),
  );
}

// What applying did, object by object (the answers' ``results``), and the catalog's errors.
function outcome(body) {
  const results = body.results || [];
  const rows = results.map((entry) =>
    el(
      "tr",
      { "data-subject": entry.subject, "data-outcome": entry.outcome },
      el("th", { scope: "row" }, el("code", { text: entry.subject })),
      el("td", { text: entry.action }),
      el("td", {}, el("strong", { class: `outcome-${entry.outcome}`, text: entry.outcome })),
      el("td", { text: entry.error || "" }),
    ),
  );
  const errors = (body.diagnostics || []).filter((d) => d.severity === "error");
  const failed = body.failed || 0;
  const headline = body.error
    ? `Not applied: ${body.error}`
    : errors.length
      ? `Not applied: the catalog has ${errors.length} error(s).`
      : `Applied: ${body.writes || 0} object(s) changed, ${failed} failed.`;
  return el(
    "section",
    { id: "outcome", "aria-labelledby": "outcome-title", tabindex: "-1" },
    el("h2", { id: "outcome-title", text: "Outcome" }),
    el("p", { id: "outcome-summary", class: failed || body.error || errors.length ? "error" : null, text: headline }),
    errors.length ? el("ul", {}, ...errors.map((d) => el("li", { class: "error", text: d.message || JSON.stringify(d) }))) : null,
    rows.length
      ? el(
          "table",
          { class: "outcome" },
          el("caption", { text: `What applying did, object by object (${rows.length})` }),
          el(
            "thead",
            {},
            el("tr", {}, ...["Object", "Action", "Outcome", "Error"].map((h) => el("th", { scope: "col", text: h }))),
          ),
          el("tbody", {}, ...rows),
        )
      : null,
  );
}

// POST /v1/sync/apply for one kind: its round (409 carries the round too: what failed, or why
// nothing was applied).
async function applyKind(name) {
  try {
    return await api(`/v1/sync/apply?only=${encodeURIComponent(name)}`, "POST");
  } catch (error) {
    if (error instanceof ApiError && error.status === 409 && error.body) return error.body;
    throw error;
  }
}

// The kinds' rounds as one: every object's outcome, the counts added up; a kind that failed
// stops the ones after it.
function merged(bodies) {
  return {
    results: bodies.flatMap((b) => b.results || []),
    diagnostics: bodies.flatMap((b) => b.diagnostics || []),
    writes: bodies.reduce((n, b) => n + (b.writes || 0), 0),
    failed: bodies.reduce((n, b) => n + (b.failed || 0), 0),
    error: bodies.map((b) => b.error).filter(Boolean).join("; ") || null,
  };
}

let current = [];

async function apply(button) {
  const writes = button.dataset.writes;
  const where = current.filter(({ plan }) => writesOf(plan)).map(({ kind }) => kind[3]);
  if (!window.confirm(`Apply the catalog to the service's ${where.join(" and ")}: ${writes} change(s)?`)) return;
  button.disabled = true;
  showStatus("Applying…");
  const bodies = [];
  try {
    for (const { kind, plan } of current) {
      if (!writesOf(plan)) continue;
      const body = await applyKind(kind[0]);
      bodies.push(body);
      if (body.failed || body.error) break;
    }
  } catch (error) {
    showStatus(explainError(error), true);
    button.disabled = false;
    if (bodies.length === 0) return;
  }
  const body = merged(bodies);
  const shown = outcome(body);
  document.getElementById("outcome-area").replaceChildren(shown);
  try {
    current = await plansOf();
    show(current);
    setButton(button, current);
    showStatus("");
  } catch (error) {
    showStatus(explainError(error), true);
  }
  shown.focus();
  document.body.dataset.applied = body.failed || body.error ? "failed" : "done";
}

// The Apply button and its hint: shown only when there is something to apply.
function setButton(button, plans) {
  const writes = plans.reduce((n, { plan }) => n + writesOf(plan), 0);
  button.dataset.writes = String(writes);
  button.textContent = `Apply ${writes} change(s)`;
  button.disabled = writes === 0;
  button.closest("p").hidden = writes === 0;
}

async function main() {
  shell("sync");
  await loading(async () => {
    const allowed = await api("/v1/sync/allowed");
    kinds = chooseKinds(allowed.kinds);
    document.getElementById("only").value = asked;
    const plans = await plansOf();
    current = plans;
    show(plans);
    if (allowed.apply) {
      const button = el("button", { type: "button", id: "apply" });
      button.addEventListener("click", () => apply(button));
      document.getElementById("apply-area").replaceChildren(
        el("p", {}, button, " ", el("span", { class: "hint", text: "Makes the service's objects match the catalog (asks first)." })),
      );
      setButton(button, plans);
    }
  });
}

main();
