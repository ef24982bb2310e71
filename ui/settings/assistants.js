// The Assistants page: Connect / Disconnect for the assistants Gatehouse can set up itself (it edits their own
// settings file, keeping everything else and saving a copy first), and for any other assistant what to paste
// plus a web address with a token of its own. All the work is done by the app's assistants_* commands.
"use strict";

(function () {
  const { invoke, el, notice, when } = window.Gatehouse;

  // A set's name, what it holds, and how many of Gatehouse's own tools: a product reached only through Google's
  // MCP server (Slides) has none of its own, so its count is left out rather than shown as 0.
  function setLabel(set) {
    const count = set.tools.length > 0 ? " (" + set.tools.length + ")" : "";
    return set.name + " — " + set.description + count;
  }

  // What the last Connect / Disconnect said, by assistant id: shown in that assistant's card after the page redraws.
  const said = {};
  // The token just made: shown until the person leaves the page, never again.
  let fresh = null;

  // Text that may hold long paths, with a line-break opportunity after each slash (a <wbr>, which copying leaves
  // out), so a path wraps inside its card instead of running past it.
  function breakable(text) {
    return String(text)
      .split(/([\\/])/)
      .flatMap((part) => (part === "/" || part === "\\" ? [part, el("wbr")] : [part]));
  }

  // Copies the text of `source` (an element); where the clipboard is not available (WebKit may refuse it),
  // selects the text instead and says how to copy it.
  async function copy(source, status) {
    const text = source.value !== undefined ? source.value : source.textContent;
    try {
      if (!navigator.clipboard || !navigator.clipboard.writeText) throw new Error("no clipboard");
      await navigator.clipboard.writeText(text);
      status.textContent = "Copied.";
      return;
    } catch (_) {
      // Fall through: select it, so the person can copy it themselves.
    }
    source.focus();
    if (typeof source.select === "function") {
      source.select();
    } else {
      window.getSelection().selectAllChildren(source);
    }
    let copied = false;
    try {
      copied = document.execCommand("copy");
    } catch (_) {
      copied = false;
    }
    status.textContent = copied
      ? "Copied."
      : "Selected. Press Ctrl+C (⌘C on a Mac) to copy it.";
  }

  // A block of text with a Copy button; `label` names it for screen readers.
  function copyable(id, label, text) {
    const block = el("pre", { id, tabindex: 0, "aria-label": label }, text);
    const status = el("span", { class: "muted", role: "status" });
    const button = el("button", { type: "button", "aria-label": "Copy " + label.toLowerCase() }, "Copy");
    button.addEventListener("click", () => copy(block, status));
    return el("div", {}, block, el("div", { class: "row" }, button, status));
  }

  // A one-line value (a token, an address) in a read-only field with a Copy button.
  function copyField(id, label, value) {
    const field = el("input", { id, type: "text", readonly: true, value, size: 48, spellcheck: "false" });
    field.addEventListener("focus", () => field.select());
    const status = el("span", { class: "muted", role: "status" });
    const button = el("button", { type: "button", "aria-label": "Copy " + label.toLowerCase() }, "Copy");
    button.addEventListener("click", () => copy(field, status));
    return el("div", { class: "row" }, el("label", { for: id }, label), field, button, status);
  }

  // Runs a command from `button`, keeping it disabled meanwhile; errors come back as the app's words.
  async function busy(button, work) {
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      return await work();
    } finally {
      button.disabled = false;
      button.removeAttribute("aria-busy");
    }
  }

  function clientCard(section, client, page) {
    const headingId = "assistant-" + client.id;
    const messageId = "assistant-" + client.id + "-said";
    const card = el("article", { class: "card", "aria-labelledby": headingId });
    card.append(el("h3", { id: headingId }, client.name));
    card.append(el("p", {}, client.summary));
    if (!client.installed && client.path) {
      card.append(el("p", { class: "muted" }, client.name + " does not look installed on this computer."));
    }
    if (client.path) {
      card.append(el("p", { class: "hint" }, "Its settings file: ", el("code", {}, breakable(client.path))));
    }
    if (client.tools) {
      card.append(el("p", { class: "hint" }, "Tools offered: " + client.tools));
    }
    if (client.over_limit) {
      // The assistant takes fewer tools than its entry offers: say so where the choice is made.
      card.append(el("p", { class: "notice error", role: "alert" }, client.over_limit));
    }
    const row = el("div", { class: "row" });
    const entryThere = client.state === "connected" || client.state === "elsewhere";
    let tools = null;
    if (client.state !== "connected" && (page.sets || []).length > 0) {
      // Which tools Connect offers the assistant: fewer tools leave it more room to think.
      tools = el(
        "select",
        { "aria-label": "Tools to offer " + client.name },
        el("option", { value: "" }, "Every tool"),
        page.sets.filter((set) => set.name !== "all").map((set) => el("option", { value: set.name }, setLabel(set))),
      );
      tools.value = client.tools && page.sets.some((set) => set.name === client.tools) ? client.tools : "";
      row.append(tools);
    }
    if (client.state !== "connected") {
      const connect = el(
        "button",
        {
          type: "button",
          class: "primary",
          "aria-label": (client.state === "elsewhere" ? "Connect " + client.name + " again" : "Connect " + client.name),
          disabled: !page.program,
          "aria-describedby": page.program ? null : "assistants-program-problem",
        },
        client.state === "elsewhere" ? "Connect again" : "Connect",
      );
      connect.addEventListener("click", () => act(section, connect, "assistants_connect", client, tools && tools.value ? { tools: tools.value } : {}));
      row.append(connect);
    }
    if (entryThere) {
      const disconnect = el(
        "button",
        { type: "button", class: "danger", "aria-label": "Disconnect " + client.name },
        "Disconnect",
      );
      disconnect.addEventListener("click", () => act(section, disconnect, "assistants_disconnect", client));
      row.append(disconnect);
    }
    card.append(row);
    const last = said[client.id];
    if (last) {
      card.append(
        el("p", { id: messageId, class: "notice " + last.kind, role: last.kind === "error" ? "alert" : "status", tabindex: -1 }, breakable(last.text)),
      );
    }
    return card;
  }

  // Connect or Disconnect, then redraw the assistants with what happened in that assistant's card.
  async function act(section, button, command, client, extra) {
    try {
      const done = await busy(button, () => invoke(command, Object.assign({ client: client.id }, extra || {})));
      said[client.id] = { kind: "done", text: done.message };
    } catch (error) {
      said[client.id] = { kind: "error", text: String(error) };
    }
    try {
      await renderClients(section);
    } catch (error) {
      notice(section, "error", error);
      return;
    }
    const message = document.getElementById("assistant-" + client.id + "-said");
    if (message) message.focus();
  }

  async function renderClients(section) {
    const box = section.querySelector("#assistants-clients");
    const page = await invoke("assistants_list");
    box.replaceChildren();
    if (page.program_problem) {
      box.append(el("p", { id: "assistants-program-problem", class: "notice error", role: "alert" }, page.program_problem));
    }
    box.append(el("div", { class: "cards" }, page.clients.map((client) => clientCard(section, client, page))));
    return page;
  }

  function renderOthers(section, page) {
    const box = section.querySelector("#assistants-others");
    box.replaceChildren(el("h3", {}, "Any other assistant"));
    if (page.snippet) {
      box.append(
        el("p", {}, "If it starts a program for its tools (most do), paste this into its MCP settings:"),
        copyable("assistants-snippet", "Settings to paste", page.snippet),
      );
    }
    if (page.http_url) {
      box.append(
        el("p", {}, "If it connects to a web address instead, use this one, with a token of its own (below):"),
        copyField("assistants-http-url", "Web address", page.http_url),
      );
    } else {
      box.append(
        el(
          "p",
          { class: "muted" },
          "Gatehouse is not serving assistants over the web right now (its address was taken when it started), so only assistants that start a program can reach it.",
        ),
      );
    }
  }

  function renderFresh(section) {
    const box = section.querySelector("#assistants-fresh");
    box.replaceChildren();
    if (!fresh) return;
    const made = fresh;
    const heading = el("h4", { id: "assistants-fresh-title", tabindex: -1 }, "The token for “" + made.assistant.name + "”");
    box.append(
      heading,
      el("p", { class: "notice done", role: "status" }, "Copy it now: Gatehouse shows it only this once. Anyone who has it can act as this assistant, so keep it private."),
      copyField("assistants-fresh-token", "Token", made.token),
    );
    if (made.snippet) {
      box.append(el("p", {}, "Settings to paste into an assistant that takes JSON:"), copyable("assistants-fresh-snippet", "Settings with the token", made.snippet));
    }
    if (made.url_with_token) {
      box.append(el("p", {}, "For an assistant that takes only an address:"), copyField("assistants-fresh-url", "Address with the token", made.url_with_token));
    }
    if (made.note) box.append(el("p", { class: "muted" }, made.note));
    const done = el("button", { type: "button" }, "Done: hide the token");
    done.addEventListener("click", () => {
      fresh = null;
      renderFresh(section);
      const name = section.querySelector("#assistants-token-name");
      if (name) name.focus();
    });
    box.append(el("div", { class: "row" }, done));
  }

  // A message about tokens, shown beside them (the page's own notice would be out of view).
  function sayTokens(section, kind, text) {
    const box = section.querySelector("#assistants-token-said");
    box.replaceChildren(el("p", { class: "notice " + kind, role: kind === "error" ? "alert" : "status" }, String(text)));
  }

  // The tools a token is offered: a choice of the sets Gatehouse derives from its tools ("all" is every tool). A
  // list typed elsewhere (tool names, several sets) is kept as a choice of its own. Revoked tokens only show it.
  function toolsCell(section, token, sets) {
    const current = token.tools || "";
    const label = (set) => set.name === "all" ? "Every tool" : setLabel(set);
    if (token.revoked) return el("td", {}, current || "Every tool");
    const options = sets.filter((set) => set.name !== "all").map((set) => el("option", { value: set.name }, label(set)));
    const custom = current && !sets.some((set) => set.name === current) ? el("option", { value: current }, current) : null;
    const select = el("select", { "aria-label": "Tools offered to " + token.name }, el("option", { value: "" }, "Every tool"), custom, options);
    select.value = current;
    select.addEventListener("change", async () => {
      try {
        const done = await busy(select, () => invoke("assistants_set_tools", { id: token.id, tools: select.value || null }));
        sayTokens(section, "done", done.message);
      } catch (error) {
        sayTokens(section, "error", error);
        select.value = current;
        return;
      }
      try {
        await renderTokens(section);
      } catch (error) {
        sayTokens(section, "error", error);
      }
    });
    return el("td", {}, select);
  }

  function state(token) {
    return token.revoked ? "Revoked " + when(token.revoked) : "Active";
  }

  async function renderTokens(section) {
    const box = section.querySelector("#assistants-tokens");
    const listed = await invoke("assistants_tokens");
    box.replaceChildren();
    if (listed.problem) {
      box.append(el("p", { class: "notice error", role: "alert" }, listed.problem));
      return;
    }
    if (listed.tokens.length === 0) {
      box.append(el("p", { class: "muted" }, "No assistant has a token yet."));
      return;
    }
    const rows = listed.tokens.map((token) => {
      const cell = el("td", {});
      if (!token.revoked) {
        const revoke = el("button", { type: "button", class: "danger", "aria-label": "Revoke the token of " + token.name }, "Revoke");
        revoke.addEventListener("click", async () => {
          try {
            const done = await busy(revoke, () => invoke("assistants_revoke_token", { id: token.id }));
            sayTokens(section, "done", done.message);
            // A token that no longer works is not worth copying.
            if (fresh && fresh.assistant.id === token.id) {
              fresh = null;
              renderFresh(section);
            }
          } catch (error) {
            sayTokens(section, "error", error);
          }
          try {
            await renderTokens(section);
          } catch (error) {
            sayTokens(section, "error", error);
          }
          const heading = section.querySelector("#assistants-tokens-title");
          if (heading) heading.focus();
        });
        cell.append(revoke);
      }
      return el(
        "tr",
        {},
        el("th", { scope: "row" }, token.name),
        el("td", {}, when(token.created)),
        el("td", {}, token.last_used ? when(token.last_used) : "Never"),
        el("td", {}, state(token)),
        toolsCell(section, token, listed.sets || []),
        cell,
      );
    });
    box.append(
      el(
        "table",
        {},
        el("caption", { class: "muted" }, "Tokens, newest first"),
        el(
          "thead",
          {},
          el("tr", {}, el("th", { scope: "col" }, "Assistant"), el("th", { scope: "col" }, "Created"), el("th", { scope: "col" }, "Last used"), el("th", { scope: "col" }, "State"), el("th", { scope: "col" }, "Tools"), el("th", { scope: "col" }, "Action")),
        ),
        el("tbody", {}, rows),
      ),
    );
  }

  function tokenForm(section) {
    const name = el("input", { id: "assistants-token-name", type: "text", required: true, maxlength: 64, autocomplete: "off", "aria-describedby": "assistants-token-hint" });
    const create = el("button", { type: "submit", class: "primary" }, "Create token");
    const form = el(
      "form",
      { "aria-labelledby": "assistants-tokens-title" },
      el("p", { id: "assistants-token-hint", class: "hint" }, "Give each assistant its own token, named so you recognise it on approval cards and in the activity log (for example “my-notebook”). Revoke it to cut that assistant off without touching the others. Under Tools, offer it only the tools it needs: fewer tools leave it more room to think."),
      el("div", { class: "row" }, el("label", { for: "assistants-token-name" }, "Assistant's name"), name, create),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        fresh = await busy(create, () => invoke("assistants_create_token", { name: name.value }));
        name.value = "";
        section.querySelector("#assistants-token-said").replaceChildren();
      } catch (error) {
        sayTokens(section, "error", error);
        name.focus();
        return;
      }
      renderFresh(section);
      try {
        await renderTokens(section);
      } catch (error) {
        sayTokens(section, "error", error);
      }
      const title = section.querySelector("#assistants-fresh-title");
      if (title) title.focus();
    });
    return form;
  }

  window.Gatehouse.page("assistants", {
    async show(section) {
      // Coming back to the page forgets the last token and messages: a token is shown only once.
      fresh = null;
      for (const id of Object.keys(said)) delete said[id];
      section.replaceChildren(
        el("h2", {}, "Assistants"),
        el("p", { class: "hint" }, "Connect an assistant and it can work in your Google files through Gatehouse, asking you before every change. Connect changes that assistant's own settings file and keeps everything else in it; a copy of the file as it was is saved next to it."),
        el("div", { id: "assistants-sandbox" }),
        el("div", { id: "assistants-clients" }),
        el("section", { id: "assistants-others", "aria-label": "Any other assistant" }),
        el(
          "section",
          { "aria-labelledby": "assistants-tokens-title" },
          el("h3", { id: "assistants-tokens-title", tabindex: -1 }, "Tokens for assistants that connect over the web"),
          tokenForm(section),
          el("div", { id: "assistants-token-said" }),
          el("div", { id: "assistants-fresh" }),
          el("div", { id: "assistants-tokens" }),
        ),
      );
      const page = await renderClients(section);
      if (page.sandbox) {
        section.querySelector("#assistants-sandbox").append(
          el(
            "p",
            { class: "notice done", role: "status" },
            page.sandbox_until_sign_in
              ? "Nobody is signed in yet, so assistants you connect now work on the sandbox's sample files. Once you sign in with Google, the same connection reaches your account: there is nothing to connect again."
              : "Gatehouse runs the sandbox: assistants you connect or give a token now reach the sample files, not your Google account."
          ),
        );
      }
      renderOthers(section, page);
      await renderTokens(section);
    },
  });
})();
