// The sync plan (GET /v1/sync/plan?only=KIND): what a sync of the catalog would create, update
// or delete in the service, each object's changes field by field. Read-only: applying is a
// later page's work (admins only).
import { api, el, explainError, shell, showStatus } from "/ui/common.js";

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

async function main() {
  shell("sync");
  document.getElementById("only").value = only;
  try {
    const plan = await api(`/v1/sync/plan?only=${encodeURIComponent(only)}`);
    const counts = {};
    for (const entry of plan.actions) counts[entry.action] = (counts[entry.action] || 0) + 1;
    const parts = Object.entries(counts).map(([verb, count]) => `${count} to ${verb}`);
    document.getElementById("summary").textContent = plan.actions.length
      ? `${plan.kind}: ${parts.join(", ")}.`
      : `${plan.kind}: nothing to change; the service matches the catalog.`;
    document.getElementById("actions").replaceChildren(...plan.actions.map(action));
    showStatus("");
    document.body.dataset.loaded = "true";
  } catch (error) {
    showStatus(explainError(error), true);
    document.body.dataset.loaded = "error";
  }
}

main();
