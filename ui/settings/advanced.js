// The Advanced page: the person's own settings (answer size limit, asking before reads, time to answer a card,
// export folder, enabled tools, starting in the sandbox) and Start at login. The core keeps and checks the
// settings and says who decides each one (advanced_settings); a setting decided by the administrator or the
// environment is shown with who decides it and can't be edited here. Settings apply when Gatehouse restarts.
//
// Hooks for tests: each setting is a <section class="setting" data-key="…">; its control has the id
// "setting-<key>", its message a role=alert/status paragraph inside it.
"use strict";

(function () {
  const { invoke, el } = window.Gatehouse;

  // Words for each setting; what they do and their limits come from the core's values.
  const WORDS = {
    response_cap: {
      label: "Largest answer an assistant may get, in characters",
      hint: "A bigger answer is refused with advice to ask for less, because very large answers can make an assistant stop working.",
      unit: "characters",
    },
    cache_ttl: {
      label: "How long to reuse an answer, in seconds",
      hint: "When a file hasn't changed since an assistant read it, Gatehouse can give the same answer again without asking Google, which is faster. 0 turns this off.",
      unit: "seconds",
    },
    gate_reads: {
      label: "Ask me before an assistant reads my files too",
      hint: "Normally Gatehouse asks only before a change. With this on, every read asks first as well.",
    },
    approval_timeout: {
      label: "Time to answer a request, in seconds",
      hint: "If you don't answer in time, the change is not made and the assistant is told so.",
      unit: "seconds",
    },
    export_dir: {
      label: "Export folder",
      hint: "Where files go when an assistant exports or downloads something to this computer. Type the folder's full location.",
    },
    enabled_tools: {
      label: "Tools your assistants can use",
      hint: "A tool that is turned off is not offered to any assistant.",
    },
    google_backend: {
      label: "How Gatehouse reaches Google",
      hint: "Google asks AI assistants to use its Workspace MCP servers. Both uses them for every tool they can serve and Google's other services for the rest; MCP only offers just the tools they can serve; REST uses Google's other services only.",
      choices: { both: "Both (recommended)", mcp: "Google's MCP servers only", rest: "REST only" },
    },
    start_in_sandbox: {
      label: "Start in the sandbox",
      hint: "Use the built-in sample files instead of your Google account, to try things out safely.",
    },
    answer_from_terminal: {
      label: "Answer from a terminal",
      hint: "Also take answers to requests from `gatehouse approvals` in a terminal while this app is open. Leave it off if an assistant can run commands on this computer: it could answer its own requests. Even when on, an answer from an assistant or a program it started is refused.",
    },
  };

  // 1000000 → "1,000,000", whatever the system's locale data.
  function number(value) {
    return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
  }

  // Who decides the value and whether it waits for a restart, under the control.
  function status(setting) {
    return [
      setting.decided_by ? el("p", { class: "decided-by" }, setting.decided_by, setting.editable ? "" : " It can't be changed here.") : null,
      setting.limit ? el("p", { class: "hint" }, setting.limit) : null,
      setting.restart_needed ? el("p", { class: "pending" }, "Applies when Gatehouse restarts.") : null,
    ];
  }

  function messageBox(key, messages) {
    const message = messages[key];
    if (!message) return el("p", { class: "message", role: "status" });
    return el(
      "p",
      { class: "message notice " + message.kind, role: message.kind === "error" ? "alert" : "status" },
      message.text
    );
  }

  function resetButton(section, setting) {
    if (!setting.editable || setting.source.kind !== "person") return null;
    return el(
      "button",
      {
        type: "button",
        "aria-label": `Go back to the default: ${WORDS[setting.key].label}`,
        onclick: () => change(section, setting.key, () => invoke("advanced_reset", { key: setting.key })),
      },
      "Use the default"
    );
  }

  function textSetting(section, setting, messages) {
    const words = WORDS[setting.key];
    const id = "setting-" + setting.key;
    const isNumber = typeof setting.value === "number";
    const input = el("input", {
      id,
      type: "text",
      inputmode: isNumber ? "numeric" : null,
      value: isNumber ? String(setting.value) : setting.value,
      disabled: !setting.editable,
      "aria-describedby": `${id}-hint`,
      class: isNumber ? "number" : "path",
    });
    const save = () => change(section, setting.key, () => invoke("advanced_set", { key: setting.key, value: input.value }));
    input.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        event.preventDefault();
        save();
      }
    });
    const defaultText = isNumber ? `${number(setting.default)} ${words.unit}` : setting.default;
    return el(
      "section",
      { class: "setting", "data-key": setting.key },
      el("label", { for: id }, words.label),
      el(
        "div",
        { class: "row" },
        input,
        el("button", { type: "button", class: "primary", disabled: !setting.editable, onclick: save }, "Save"),
        resetButton(section, setting)
      ),
      el("p", { class: "hint", id: `${id}-hint` }, words.hint, ` The default is ${defaultText}.`),
      status(setting),
      messageBox(setting.key, messages)
    );
  }

  // A setting with a few named values: a drop-down of them.
  function choiceSetting(section, setting, messages) {
    const words = WORDS[setting.key];
    const id = "setting-" + setting.key;
    const select = el(
      "select",
      { id, disabled: !setting.editable, "aria-describedby": `${id}-hint` },
      Object.entries(words.choices).map(([value, label]) =>
        el("option", { value, selected: value === setting.value }, label)
      )
    );
    select.addEventListener("change", () =>
      change(section, setting.key, () => invoke("advanced_set", { key: setting.key, value: select.value }))
    );
    return el(
      "section",
      { class: "setting", "data-key": setting.key },
      el("label", { for: id }, words.label),
      el("div", { class: "row" }, select, resetButton(section, setting)),
      el("p", { class: "hint", id: `${id}-hint` }, words.hint, ` The default is ${words.choices[setting.default]}.`),
      status(setting),
      messageBox(setting.key, messages)
    );
  }

  function switchSetting(section, setting, messages) {
    const words = WORDS[setting.key];
    const id = "setting-" + setting.key;
    const box = el("input", {
      id,
      type: "checkbox",
      checked: setting.value,
      disabled: !setting.editable,
      "aria-describedby": `${id}-hint`,
    });
    box.addEventListener("change", () =>
      change(section, setting.key, () => invoke("advanced_set", { key: setting.key, value: box.checked }))
    );
    return el(
      "section",
      { class: "setting", "data-key": setting.key },
      el("div", { class: "row" }, box, el("label", { for: id }, words.label)),
      el("p", { class: "hint", id: `${id}-hint` }, words.hint),
      status(setting),
      messageBox(setting.key, messages)
    );
  }

  function toolsSetting(section, setting, tools, messages) {
    const words = WORDS.enabled_tools;
    const on = new Set(setting.value);
    const groups = {};
    for (const tool of tools) (groups[tool.service] = groups[tool.service] || []).push(tool);
    const boxes = [];
    const fieldsets = Object.entries(groups).map(([service, list]) =>
      el(
        "fieldset",
        { class: "tool-group" },
        el("legend", {}, service),
        list.map((tool) => {
          const id = "tool-" + tool.name;
          const box = el("input", {
            id,
            type: "checkbox",
            value: tool.name,
            checked: on.has(tool.name),
            disabled: !setting.editable,
          });
          boxes.push(box);
          return el(
            "div",
            { class: "tool" },
            box,
            el(
              "label",
              { for: id },
              tool.title,
              tool.changes ? el("span", { class: "muted" }, " — makes changes") : null,
              el("span", { class: "muted tool-name" }, ` (${tool.name})`)
            )
          );
        })
      )
    );
    const save = () =>
      change(section, "enabled_tools", () =>
        invoke("advanced_set", { key: "enabled_tools", value: boxes.filter((b) => b.checked).map((b) => b.value) })
      );
    const all = () => {
      for (const box of boxes) box.checked = true;
    };
    return el(
      "section",
      { class: "setting", "data-key": "enabled_tools", id: "setting-enabled_tools", "aria-labelledby": "tools-heading" },
      el("h3", { id: "tools-heading" }, words.label),
      el("p", { class: "hint" }, words.hint),
      status(setting),
      el("div", { class: "tool-groups" }, fieldsets),
      el(
        "div",
        { class: "row" },
        el("button", { type: "button", class: "primary", disabled: !setting.editable, onclick: save }, "Save tools"),
        el("button", { type: "button", disabled: !setting.editable, onclick: all }, "Turn every tool on")
      ),
      messageBox("enabled_tools", messages)
    );
  }

  function startAtLogin(section, view, messages) {
    const id = "setting-start_at_login";
    const box = el("input", {
      id,
      type: "checkbox",
      checked: view.start_at_login.enabled,
      disabled: !view.start_at_login.supported,
      "aria-describedby": `${id}-hint`,
    });
    box.addEventListener("change", () =>
      change(section, "start_at_login", () => invoke("advanced_start_at_login", { enabled: box.checked }), true)
    );
    return el(
      "section",
      { class: "setting", "data-key": "start_at_login" },
      el("div", { class: "row" }, box, el("label", { for: id }, "Start Gatehouse when I log in")),
      el(
        "p",
        { class: "hint", id: `${id}-hint` },
        view.start_at_login.supported
          ? "Gatehouse then waits in the tray from the moment you log in. This applies at once."
          : "Gatehouse can't set this up on this operating system: add it to your startup apps yourself."
      ),
      messageBox("start_at_login", messages)
    );
  }

  function restartBanner(view) {
    if (!view.restart_needed) return null;
    const waits = view.waiting_cards
      ? ` ${view.waiting_cards === 1 ? "1 request is" : view.waiting_cards + " requests are"} waiting for your answer; restarting refuses ${view.waiting_cards === 1 ? "it" : "them"}.`
      : "";
    return el(
      "div",
      { class: "notice restart", role: "status" },
      el("p", {}, "Some changes apply when Gatehouse restarts.", waits),
      el("button", { type: "button", class: "primary", onclick: () => invoke("advanced_restart") }, "Restart now")
    );
  }

  // Runs a change, then shows the page as the core has it now, with the outcome next to the setting and the
  // focus back where it was.
  async function change(section, key, action, appliesNow) {
    const focused = document.activeElement && document.activeElement.id;
    const control = document.getElementById("setting-" + key);
    const typed = control && control.type === "text" ? control.value : null;
    let view;
    let messages = {};
    try {
      view = await action();
      messages[key] = { kind: "done", text: appliesNow ? "Saved." : "Saved. Applies when Gatehouse restarts." };
    } catch (error) {
      messages[key] = { kind: "error", text: String(error) };
      try {
        view = await invoke("advanced_settings");
      } catch (again) {
        window.Gatehouse.notice(section, "error", again);
        return;
      }
    }
    render(section, view, messages);
    // A refused value stays in its field, for the person to correct.
    if (messages[key].kind === "error" && typed !== null) {
      const field = document.getElementById("setting-" + key);
      if (field) field.value = typed;
    }
    const again = focused && document.getElementById(focused);
    if (again) again.focus();
  }

  function render(section, view, messages) {
    // Every setting the core has, in its order: a new one shows up here without a change to this page.
    const rows = view.settings.map((setting) => {
      if (setting.key === "enabled_tools") return toolsSetting(section, setting, view.tools, messages);
      if (typeof setting.value === "boolean") return switchSetting(section, setting, messages);
      if (WORDS[setting.key] && WORDS[setting.key].choices) return choiceSetting(section, setting, messages);
      return textSetting(section, setting, messages);
    });
    const parts = [
      el("h2", {}, "Advanced"),
      el("p", { class: "hint" }, "Some changes apply only when Gatehouse restarts; those say so."),
      restartBanner(view),
      rows,
      startAtLogin(section, view, messages),
    ];
    section.replaceChildren(...parts.flat(Infinity).filter(Boolean));
  }

  Gatehouse.page("advanced", {
    async show(section) {
      render(section, await invoke("advanced_settings"), {});
    },
  });
})();
