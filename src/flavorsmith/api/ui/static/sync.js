// The sync plan (GET /v1/sync/plan?only=KIND): what a sync of the catalog would create, update
// or delete in the service, each object's changes field by field. Callers whom policy allows
// to apply (GET /v1/sync/allowed; admins by default) get an Apply button (POST /v1/sync/apply),
// then the outcome per object; others see the plan only.
import { ApiError, api, el, explainError, loading, shell, showStatus } from "/ui/common.js";

const only = new URLSearchParams(location.search).get("only") || "flavors";

function shown(value) {
  if (value === undefined) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function action(entry) {
  const rows = (entry.changes || []).map((change) =>
    el(
      "tr",
      { "data-op": change.op },
      el("td", { text: change.op }),
      el("th", { scope: "row" }, el("code", { text: change.field })),
      el("td", {}, change.old === undefined ? "—" : el("del", { text: shown(change.old) })),
      el("td", {}, change.new === undefined ? "—" : el("ins", { text: shown(change.new) })),
    ),
  );
  const title = `${entry.action} ${entry.subject}`;
  return el(
    "section",
    { class: `action action-${entry.action}`, "data-subject": entry.subject, "data-action": entry.action },
    el("h2", {}, el("span", { class: "verb", text: entry.action }), " ", el("code", { text: entry.subject })),
    el("p", { text: entry.reason || "" }),
    rows.length
      ? el(
          "table",
          { class: "changes" },
          el("caption", { text: `Changes: ${title} (${rows.length})` }),
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              ...["Change", "Field", "Now", "After the sync"].map((h) => el("th", { scope: "col", text: h })),
            ),
          ),
          el("tbody", {}, ...rows),
        )
      : null,
  );
}

function summarize(plan) {
  const counts = {};
  for (const entry of plan.actions) counts[entry.action] = (counts[entry.action] || 0) + 1;
  const parts = Object.entries(counts).map(([verb, count]) =>
    verb === "noop" ? `${count} up to date` : `${count} to ${verb}`,
  );
  document.getElementById("summary").textContent = plan.actions.length
    ? `${plan.kind}: ${parts.join(", ")}.`
    : `${plan.kind}: nothing to change; the service matches the catalog.`;
  document.getElementById("actions").replaceChildren(...plan.actions.map(action));
}

// What applying did, object by object (the answer's ``results``), and the catalog's errors.
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

async function apply(button) {
  const writes = button.dataset.writes;
  if (!window.confirm(`Apply the catalog to the service's ${only}: ${writes} change(s)?`)) return;
  button.disabled = true;
  showStatus("Applying…");
  let body;
  try {
    body = await api(`/v1/sync/apply?only=${encodeURIComponent(only)}`, "POST");
  } catch (error) {
    // 409 carries the round itself: what failed, or why nothing was applied.
    if (!(error instanceof ApiError && error.status === 409 && error.body)) {
      showStatus(explainError(error), true);
      button.disabled = false;
      return;
    }
    body = error.body;
  }
  const shown = outcome(body);
  document.getElementById("outcome-area").replaceChildren(shown);
  try {
    const plan = await api(`/v1/sync/plan?only=${encodeURIComponent(only)}`);
    summarize(plan);
    setButton(button, plan);
  } catch (error) {
    showStatus(explainError(error), true);
  }
  showStatus("");
  shown.focus();
  document.body.dataset.applied = body.failed || body.error ? "failed" : "done";
}

function writesOf(plan) {
  return plan.actions.filter((a) => a.action !== "noop").length;
}

function setButton(button, plan) {
  const writes = writesOf(plan);
  button.dataset.writes = String(writes);
  button.textContent = writes ? `Apply ${writes} change(s)` : "Apply (nothing to change)";
  button.disabled = writes === 0;
}

async function main() {
  shell("sync");
  document.getElementById("only").value = only;
  await loading(async () => {
    const [plan, allowed] = await Promise.all([
      api(`/v1/sync/plan?only=${encodeURIComponent(only)}`),
      api("/v1/sync/allowed"),
    ]);
    summarize(plan);
    if (allowed.apply) {
      const button = el("button", { type: "button", id: "apply" });
      setButton(button, plan);
      button.addEventListener("click", () => apply(button));
      document.getElementById("apply-area").replaceChildren(
        el("p", {}, button, " ", el("span", { class: "hint", text: "Makes the service's objects match the catalog (asks first)." })),
      );
    }
  });
}

main();
