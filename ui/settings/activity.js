// The Activity page: every call the assistants made, newest first, a page at a time ("Show older"), with
// filters; who or what decided each one, in the core's words; "Revoke the grant" on a call a standing approval
// allowed while that approval is still in force; and one line saying whether the log is intact.
//
// Hooks for end-to-end tests: each record is a <tr data-seq="…">; its revoke button's accessible name starts
// with "Revoke the grant".
"use strict";

(function () {
  const { invoke, el, notice, when } = window.Gatehouse;

  // The filters survive leaving and coming back to the page, and so does whether their box is open.
  let filter = { tool: "", agent: "", verdict: "", source: "", text: "" };
  let filtersOpen = false;

  function cell(label, ...children) {
    return el("td", { "data-label": label }, ...children);
  }

  // The date, then the time on a line of its own: a narrow column that doesn't wrap mid-date.
  function short(iso) {
    const date = new Date(iso);
    if (isNaN(date)) return when(iso);
    const day = date.toLocaleDateString(undefined, { dateStyle: "medium" });
    return [day, el("br"), date.toLocaleTimeString(undefined, { timeStyle: "short" })];
  }

  function capital(text) {
    return text.charAt(0).toUpperCase() + text.slice(1);
  }

  function decisionText(row) {
    return row.verdict === "allowed" ? "Allowed" : "Refused";
  }

  function resultText(row) {
    if (row.outcome === "ok") return "Done";
    if (row.outcome === "refused") return "Not run";
    // A call Gatehouse was stopped during (killed, crashed): it may have been done in part or whole.
    if (row.outcome.startsWith("interrupted: ")) return row.outcome.replace(/^interrupted: /, "Interrupted: ");
    return row.outcome.replace(/^error: /, "Failed: ");
  }

  function recordRow(row, section) {
    const grant = row.grant;
    const revoke =
      grant && grant.active
        ? el(
            "button",
            {
              type: "button",
              class: "danger",
              "aria-label": `Revoke the grant behind this call: ${row.tool_title}, ${grant.words}`,
              onclick: (event) => revokeBehind(section, row, event.currentTarget),
            },
            "Revoke the grant"
          )
        : null;
    const decision = [el("strong", {}, decisionText(row)), el("div", {}, capital(row.decided_by))];
    // Where the card was answered: a terminal answer stands out, since an assistant's shell could be one.
    if (row.answered_via) decision.push(el("div", { class: "answered-via" }, `Answered ${row.answered_via}.`));
    if (grant && !grant.active) decision.push(el("div", { class: "muted" }, `That approval is now ${grant.state}.`));
    const details = el(
      "details",
      {},
      el("summary", {}, "Details", el("span", { class: "visually-hidden" }, ` of record ${row.seq}`)),
      el(
        "dl",
        { class: "record" },
        el("dt", {}, "Record"),
        el("dd", {}, String(row.seq)),
        el("dt", {}, "Time (UTC)"),
        el("dd", {}, row.time_words),
        el("dt", {}, "Tool"),
        el("dd", {}, row.tool),
        el("dt", {}, "Arguments"),
        el("dd", {}, el("code", {}, row.arguments)),
        el("dt", {}, "Took"),
        el("dd", {}, `${row.duration_ms} ms`),
        el("dt", {}, "Recorded source"),
        el("dd", {}, el("code", {}, row.source)),
        row.answered_via ? el("dt", {}, "Answered") : null,
        row.answered_via ? el("dd", {}, row.answered_via) : null
      )
    );
    return el(
      "tr",
      { "data-seq": row.seq, tabindex: "-1" },
      cell("When", el("time", { datetime: row.time, title: when(row.time) }, short(row.time))),
      cell(
        "Call",
        el("div", {}, row.agent || el("span", { class: "muted" }, "An unnamed assistant")),
        el("strong", { title: row.tool }, row.tool_title),
        // By name when the core found it ("spreadsheet “Budget 2026”"); the recorded id in the tooltip.
        row.target ? el("div", { class: "long target", title: row.target }, row.target_words || row.target) : null
      ),
      cell("Decision", ...decision),
      cell("Result", el("span", { class: "long" }, resultText(row))),
      cell("", revoke, details)
    );
  }

  const HEADINGS = ["When", "Call", "Decision", "Result", "More"];

  function filterForm(page, section) {
    const tool = el(
      "select",
      { id: "activity-tool", name: "tool" },
      el("option", { value: "" }, "Any action"),
      page.tools.map((choice) => el("option", { value: choice.name, selected: choice.name === filter.tool }, choice.title))
    );
    const agent = el("input", { id: "activity-agent", name: "agent", type: "text", value: filter.agent, placeholder: "Any assistant" });
    const verdict = el(
      "select",
      { id: "activity-verdict", name: "verdict" },
      [
        ["", "Allowed or refused"],
        ["allowed", "Allowed"],
        ["denied", "Refused"],
      ].map(([value, label]) => el("option", { value, selected: value === filter.verdict }, label))
    );
    const source = el(
      "select",
      { id: "activity-source", name: "source" },
      el("option", { value: "" }, "Anyone or anything"),
      page.sources.map((choice) => el("option", { value: choice.value, selected: choice.value === filter.source }, choice.label))
    );
    const text = el("input", { id: "activity-text", name: "text", type: "search", value: filter.text, placeholder: "A file name, a word…" });
    const clear = el("button", { type: "button" }, "Clear filters");
    const form = el(
      "form",
      { class: "filters", role: "search", "aria-label": "Filter the activity" },
      el("label", { for: "activity-tool" }, "Action"),
      tool,
      el("label", { for: "activity-verdict" }, "Decision"),
      verdict,
      el("label", { for: "activity-agent" }, "Assistant"),
      agent,
      el("label", { for: "activity-source" }, "Decided by"),
      source,
      el("label", { for: "activity-text" }, "Containing"),
      text,
      el("div", { class: "filter-buttons" }, el("button", { type: "submit", class: "primary" }, "Filter"), clear)
    );
    // Folded into one line until opened, so the calls themselves are in view when the page opens; open while
    // a filter is on, so what narrows the list is never hidden.
    const on = Object.values(filter).filter((value) => value.trim() !== "").length;
    const box = el(
      "details",
      { class: "filter-box", id: "activity-filters", open: filtersOpen || on > 0 },
      el("summary", {}, "Filter", on ? el("span", { class: "muted" }, ` (${on === 1 ? "1 filter" : `${on} filters`} on)`) : null),
      form
    );
    box.addEventListener("toggle", () => {
      filtersOpen = box.open;
    });
    const apply = async () => {
      filter = { tool: tool.value, agent: agent.value, verdict: verdict.value, source: source.value, text: text.value };
      await reload(section, "#activity-count");
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      apply();
    });
    for (const select of [tool, verdict, source]) select.addEventListener("change", apply);
    clear.addEventListener("click", async () => {
      filter = { tool: "", agent: "", verdict: "", source: "", text: "" };
      await reload(section, "#activity-tool");
    });
    return box;
  }

  function filtered() {
    return Object.values(filter).some((value) => value.trim() !== "");
  }

  function countText(shown, more) {
    const records = shown === 1 ? "1 call" : `${shown} calls`;
    if (!shown) return filtered() ? "No call matches these filters." : "No assistant has called Gatehouse yet.";
    return `Showing the newest ${records}${filtered() ? " matching the filters" : ""}${more ? "; older ones follow." : "."}`;
  }

  // Fetches the first page for the current filters and redraws; focus goes to `focusSelector` afterwards.
  async function reload(section, focusSelector) {
    try {
      await render(section);
      const target = focusSelector && section.querySelector(focusSelector);
      if (target) target.focus();
    } catch (error) {
      notice(section, "error", error);
    }
  }

  async function integrityLine(line) {
    try {
      const result = await invoke("activity_verify");
      line.className = result.intact ? "integrity ok" : "integrity broken";
      line.textContent = (result.intact ? "✓ " : "⚠ ") + result.message;
    } catch (error) {
      line.className = "integrity broken";
      line.textContent = "⚠ " + error;
    }
  }

  async function revokeBehind(section, row, button) {
    button.disabled = true;
    try {
      const result = await invoke("activity_revoke_grant", { seq: row.seq });
      await render(section);
      notice(section, "done", result.message);
      const again = section.querySelector(`tr[data-seq="${row.seq}"]`);
      if (again) again.focus();
    } catch (error) {
      notice(section, "error", error);
      button.disabled = false;
    }
  }

  async function render(section) {
    const page = await invoke("activity_list", { filter, before: null });
    const heading = el("h2", {}, "Activity");
    if (page.unavailable) {
      section.replaceChildren(heading, el("p", { class: "notice error", role: "alert" }, page.unavailable));
      return;
    }
    const line = el("p", { class: "integrity", role: "status" }, "Checking that nobody changed the log…");
    const count = el("p", { id: "activity-count", tabindex: "-1", "aria-live": "polite" }, countText(page.rows.length, page.older));
    const body = el("tbody", {}, page.rows.map((row) => recordRow(row, section)));
    const list = el(
      "table",
      { class: "stack activity", hidden: page.rows.length === 0 },
      el("caption", { class: "visually-hidden" }, "Calls, newest first"),
      el("thead", {}, el("tr", {}, HEADINGS.map((name) => el("th", { scope: "col" }, name)))),
      body
    );
    const older = el("button", { type: "button", hidden: page.older === null }, "Show older");
    let before = page.older;
    let shown = page.rows.length;
    older.addEventListener("click", async () => {
      older.disabled = true;
      try {
        const next = await invoke("activity_list", { filter, before });
        const rows = next.rows.map((row) => recordRow(row, section));
        body.append(...rows);
        shown += rows.length;
        before = next.older;
        count.textContent = countText(shown, before !== null);
        older.hidden = before === null;
        if (rows.length) rows[0].focus();
      } catch (error) {
        notice(section, "error", error);
      } finally {
        older.disabled = false;
      }
    });
    section.replaceChildren(
      heading,
      el("p", { class: "hint" }, "Every call your assistants made through Gatehouse, newest first, and who or what decided it."),
      line,
      filterForm(page, section),
      count,
      list,
      el("div", { class: "row" }, older)
    );
    integrityLine(line);
  }

  window.Gatehouse.page("activity", { show: render });
})();
