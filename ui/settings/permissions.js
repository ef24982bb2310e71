// The Permissions page: the standing approvals (what an assistant may repeat without asking), each with a
// Revoke button, and the "never allow" rules (list, add, remove). Everything shown, and every word describing a
// grant's scope, limit, uses and state, comes from the core (permissions_list); this file only lays it out.
//
// Hooks the end-to-end test relies on: each standing approval is a <tr data-grant-id="…"> whose button's
// accessible name starts with "Revoke"; each never-allow rule is a <tr data-rule-id="…">.
"use strict";

(function () {
  const { invoke, el, notice, when } = window.Gatehouse;

  const DAY_WORDS = { 1: "1 day", 7: "1 week", 30: "30 days", 90: "90 days", 365: "1 year" };

  // A cell that keeps its column's name for narrow windows, where each row becomes a stacked block.
  function cell(label, ...children) {
    return el("td", { "data-label": label }, ...children);
  }

  // A date short enough to stay on one or two lines: "5 Dec 2026, 05:26" in the person's own format.
  function short(iso) {
    const date = new Date(iso);
    return isNaN(date) ? when(iso) : date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }

  function time(iso) {
    return iso ? el("time", { datetime: iso, title: when(iso) }, short(iso)) : "—";
  }

  function table(caption, headings, rows) {
    return el(
      "table",
      { class: "stack" },
      el("caption", { class: "visually-hidden" }, caption),
      el("thead", {}, el("tr", {}, headings.map((heading) => el("th", { scope: "col" }, heading)))),
      el("tbody", {}, rows)
    );
  }

  // "Update cells, any assistant, only the spreadsheet …": how a row is named to a screen reader.
  function described(row) {
    return `${row.tool_title}, ${row.scope}, ${row.limit}`;
  }

  function usesText(grant) {
    if (!grant.use_count) return "Never used";
    const times = grant.use_count === 1 ? "1 time" : `${grant.use_count} times`;
    return grant.last_used ? `${times}, last ${short(grant.last_used)}` : times;
  }

  function stateText(state) {
    return state.charAt(0).toUpperCase() + state.slice(1);
  }

  function grantRow(grant, section) {
    const revoke = grant.active
      ? el(
          "button",
          {
            type: "button",
            class: "danger",
            "aria-label": `Revoke standing approval: ${described(grant)}`,
            onclick: (event) => revokeGrant(section, grant, event.currentTarget),
          },
          "Revoke"
        )
      : null;
    const cells = [
      cell("Action", el("strong", { title: grant.tool }, grant.tool_title)),
      cell("Assistants", grant.scope),
      cell("Limited to", el("span", { class: "long" }, grant.limit)),
      grant.active ? cell("Until", time(grant.expires)) : cell("State", stateText(grant.state)),
      cell("Used", usesText(grant)),
    ];
    if (grant.active) cells.push(cell("", revoke));
    return el("tr", { "data-grant-id": grant.id }, cells);
  }

  function ruleRow(rule, section) {
    const remove = rule.active
      ? el(
          "button",
          {
            type: "button",
            "aria-label": `Remove never-allow rule: ${described(rule)}`,
            onclick: (event) => removeRule(section, rule, event.currentTarget),
          },
          "Remove"
        )
      : null;
    const cells = [
      cell("Action", el("strong", { title: rule.tool }, rule.tool_title)),
      cell("Assistants", rule.scope),
      rule.active ? cell("Until", time(rule.expires)) : cell("State", stateText(rule.state)),
    ];
    if (rule.active) cells.push(cell("", remove));
    return el("tr", { "data-rule-id": rule.id }, cells);
  }

  const GRANT_HEADINGS = ["Action", "Assistants", "Limited to", "Until", "Used", "Revoke"];
  const ENDED_GRANT_HEADINGS = ["Action", "Assistants", "Limited to", "Ended", "Used"];
  const RULE_HEADINGS = ["Action", "Assistants", "Until", "Remove"];
  const ENDED_RULE_HEADINGS = ["Action", "Assistants", "Ended"];

  function grantsPart(view, section) {
    const active = view.grants.filter((grant) => grant.active);
    const ended = view.grants.filter((grant) => !grant.active);
    const part = el(
      "div",
      {},
      el("h3", { id: "grants-heading", tabindex: "-1" }, "Standing approvals"),
      el(
        "p",
        { class: "hint" },
        "When you choose “Always allow…” on an approval card, the assistant may repeat that change without asking, " +
          "within the limits you chose and until the date shown. Revoke one and those changes ask you again."
      )
    );
    if (active.length) {
      part.append(table("Standing approvals in force", GRANT_HEADINGS, active.map((grant) => grantRow(grant, section))));
    } else {
      part.append(el("p", {}, "No standing approval is in force: every change asks you first."));
    }
    if (ended.length) {
      part.append(
        el(
          "details",
          {},
          el("summary", {}, `Ended standing approvals (${ended.length})`),
          table("Ended standing approvals", ENDED_GRANT_HEADINGS, ended.map((grant) => grantRow(grant, section)))
        )
      );
    }
    return part;
  }

  function rulesPart(view, section) {
    const active = view.rules.filter((rule) => rule.active);
    const ended = view.rules.filter((rule) => !rule.active);
    const part = el(
      "div",
      {},
      el("h3", { id: "never-heading", tabindex: "-1" }, "Never allow"),
      el(
        "p",
        { class: "hint" },
        "An action you never allow is refused at once, without a card, until the date shown. " +
          "The assistant is told you chose not to allow it."
      )
    );
    if (active.length) {
      part.append(table("Actions never allowed", RULE_HEADINGS, active.map((rule) => ruleRow(rule, section))));
    } else {
      part.append(el("p", {}, "Nothing is refused this way."));
    }
    if (ended.length) {
      part.append(
        el(
          "details",
          {},
          el("summary", {}, `Ended never-allow rules (${ended.length})`),
          table("Ended never-allow rules", ENDED_RULE_HEADINGS, ended.map((rule) => ruleRow(rule, section)))
        )
      );
    }
    part.append(neverForm(view, section));
    return part;
  }

  function neverForm(view, section) {
    const tool = el(
      "select",
      { id: "never-tool", name: "tool", required: true },
      view.tools.map((choice) => el("option", { value: choice.name }, `${choice.title} (${choice.name})`))
    );
    const agent = el("input", {
      id: "never-agent",
      name: "agent",
      type: "text",
      list: "never-agents",
      autocomplete: "off",
      placeholder: "Any assistant",
      "aria-describedby": "never-agent-hint",
    });
    const agents = el("datalist", { id: "never-agents" }, view.assistants.map((name) => el("option", { value: name })));
    const days = el(
      "select",
      { id: "never-days", name: "days" },
      view.days.map((count) => el("option", { value: count, selected: count === 30 }, DAY_WORDS[count] || `${count} days`))
    );
    const submit = el("button", { type: "submit", class: "primary" }, "Never allow");
    const form = el(
      "form",
      { class: "never-form", "aria-labelledby": "never-add-heading" },
      el("h4", { id: "never-add-heading" }, "Add a never-allow rule"),
      el("div", { class: "row" }, el("label", { for: "never-tool" }, "Action"), tool),
      el(
        "div",
        { class: "row" },
        el("label", { for: "never-agent" }, "Only from this assistant"),
        agent,
        agents,
        el("span", { id: "never-agent-hint", class: "muted" }, "Leave empty for every assistant.")
      ),
      el("div", { class: "row" }, el("label", { for: "never-days" }, "For"), days),
      el("div", { class: "row" }, submit)
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      submit.disabled = true;
      try {
        const name = agent.value.trim();
        const rule = await invoke("permissions_never_add", {
          tool: tool.value,
          agent: name || null,
          days: Number(days.value),
        });
        await render(section);
        notice(section, "done", `${rule.tool_title} from ${rule.scope} is now refused without asking, until ${short(rule.expires)}.`);
        focus(section, "#never-heading");
      } catch (error) {
        notice(section, "error", error);
        submit.disabled = false;
      }
    });
    return form;
  }

  function focus(section, selector) {
    const target = section.querySelector(selector);
    if (target) target.focus();
  }

  async function revokeGrant(section, grant, button) {
    button.disabled = true;
    try {
      const result = await invoke("permissions_revoke", { id: grant.id });
      await render(section);
      notice(section, "done", result.message);
      focus(section, "#grants-heading");
    } catch (error) {
      notice(section, "error", error);
      button.disabled = false;
    }
  }

  async function removeRule(section, rule, button) {
    button.disabled = true;
    try {
      const result = await invoke("permissions_never_remove", { id: rule.id });
      await render(section);
      notice(section, "done", result.message);
      focus(section, "#never-heading");
    } catch (error) {
      notice(section, "error", error);
      button.disabled = false;
    }
  }

  async function render(section) {
    const view = await invoke("permissions_list");
    const parts = [el("h2", {}, "Permissions")];
    if (view.unavailable) {
      parts.push(el("p", { class: "notice error", role: "alert" }, view.unavailable));
    } else {
      parts.push(grantsPart(view, section), rulesPart(view, section));
    }
    section.replaceChildren(...parts);
  }

  window.Gatehouse.page("permissions", { show: render });
})();
