// The Account page: who Gatehouse acts as, the signed-in Google accounts (use one, sign out), Sign in with Google,
// and what this kind of sign-in can't do (the core's server://auth-status limitations, as cards). Everything shown
// comes from the core (account_status); this file only lays it out and words it.
//
// Hooks the end-to-end test relies on: each limitation is an <article class="card limitation"
// data-category="…"> with an <h3> title and its alternatives as the <li>s of a list. The guided setup is
// <details id="setup">, a <li data-step="KEY"> per step (its button opens the console page), then
// <input id="client-file"> (also a drop target: #client-drop) whose outcome shows in #client-file-said.
"use strict";

(function () {
  const { invoke, el, notice } = window.Gatehouse;

  // Plain-words titles for the limitation categories the core reports; an unknown one shows its reason only.
  const TITLES = {
    no_drive_storage_quota: "Can't create, copy or upload files in its own Drive",
    no_personal_drive_identity: "Can't give or take ownership of files",
    no_mailbox: "Can't use Gmail: it has no mailbox",
    not_signed_in: "Not signed in to Google",
    missing_scopes: "Some permissions were not granted",
    uses_rest_api: "Some tools still use Google's older way in",
    client_not_agentic: "Google refuses this sign-in's client for AI agents",
  };

  const HOW = {
    oauth: "with your Google sign-in.",
    service_account:
      "with a service-account key. A service account is not a person: it reaches only the files shared with it, and has no Drive storage of its own.",
    adc: "with Google Cloud's Application Default Credentials on this computer.",
  };

  // Text with `code` spans (the core's alternatives name commands that way).
  function withCode(text) {
    return String(text)
      .split("`")
      .map((part, i) => (i % 2 ? el("code", {}, part) : part));
  }

  function limitationCard(limitation) {
    const id = "limitation-" + limitation.category;
    const tools = limitation.tools.map((tool) => tool.title || tool.name);
    return el(
      "article",
      { class: "card limitation", "data-category": limitation.category, "aria-labelledby": id },
      el("h3", { id }, TITLES[limitation.category] || "Something this sign-in can't do"),
      el("p", {}, limitation.reason),
      tools.length
        ? el(
            "details",
            {},
            el("summary", {}, tools.length === 1 ? "Affects 1 tool" : `Affects ${tools.length} tools`),
            el("ul", { class: "tools" }, tools.map((name) => el("li", {}, name)))
          )
        : null,
      limitation.alternatives.length
        ? [
            el("h4", {}, "What you can do"),
            el("ul", { class: "alternatives" }, limitation.alternatives.map((alt) => el("li", {}, withCode(alt)))),
          ]
        : null
    );
  }

  // What the page says first: whose files the assistants work in, and how.
  function whoBlock(view) {
    if (view.sandbox_because_signed_out) {
      return el(
        "div",
        { class: "card who" },
        el("h3", {}, "You're in the sandbox"),
        el(
          "p",
          {},
          "Nobody is signed in to Google yet, so Gatehouse runs in its sandbox: your assistants work on sample files, and nothing touches a Google account."
        ),
        el("p", {}, "Sign in with Google to let them work in your own Sheets, Docs and Drive.")
      );
    }
    if (view.sandbox) {
      return el(
        "div",
        { class: "card who" },
        el("h3", {}, "You're in the sandbox"),
        el(
          "p",
          {},
          "Gatehouse was asked to start in the sandbox: your assistants work on sample files, not your Google account. To leave it, turn off “Start in the sandbox” on the Advanced page and restart."
        )
      );
    }
    if (view.method === "none") {
      return el(
        "div",
        { class: "card who" },
        el("h3", {}, "Not signed in"),
        el("p", {}, "Gatehouse can't reach Google: the sign-in is missing or has stopped working. Sign in with Google again.")
      );
    }
    return el(
      "div",
      { class: "card who" },
      el("h3", {}, "Gatehouse acts as ", el("strong", {}, view.account || "an unknown account")),
      el("p", {}, "Your assistants work in this account's files, ", HOW[view.method] || "", "")
    );
  }

  function accountsBlock(section, view) {
    const items = view.accounts.map((account) =>
      el(
        "li",
        { class: "row", "data-account": account.email },
        el("span", {}, el("strong", {}, account.email), account.active ? el("span", { class: "muted" }, " — in use") : null),
        account.active
          ? null
          : el(
              "button",
              {
                type: "button",
                "aria-label": `Use this account: ${account.email}`,
                onclick: (event) => useAccount(section, account.email, event.currentTarget),
              },
              "Use this account"
            ),
        el(
          "button",
          {
            type: "button",
            class: "danger",
            "aria-label": `Sign out ${account.email}`,
            onclick: (event) => signOut(section, account.email, event.currentTarget),
          },
          "Sign out"
        )
      )
    );
    return [
      el("h3", {}, "Google accounts"),
      view.accounts_problem ? el("p", { class: "notice error", role: "alert" }, view.accounts_problem) : null,
      items.length
        ? el("ul", { class: "accounts", "aria-label": "Signed-in Google accounts" }, items)
        : view.accounts_problem
          ? null
          : el("p", { class: "muted" }, "No Google account is signed in to Gatehouse."),
      view.sign_in_problem ? null : productsBlock(view),
      el(
        "div",
        { class: "row" },
        el(
          "button",
          {
            type: "button",
            class: "primary",
            id: "sign-in",
            disabled: Boolean(view.sign_in_problem),
            onclick: () => signIn(section),
          },
          items.length ? "Sign in with another Google account" : "Sign in with Google"
        )
      ),
      view.client_missing
        ? el("p", { class: "hint" }, "Signing in with Google needs a Google Cloud client of your own first (it's free). Follow these steps once; they take about ten minutes.")
        : view.sign_in_problem
          ? el("p", { class: "notice error", role: "alert" }, view.sign_in_problem)
          : null,
      setupBlock(section, view),
      el("div", { id: "sign-in-progress", role: "status" }),
      // Where sign-ins are kept, in plain words; the keychain service or file path only as a tooltip.
      view.kept_in
        ? el("p", { class: "hint", id: "kept-in", title: view.kept_in_detail || undefined }, "Google sign-ins are kept ", view.kept_in, ".")
        : null,
    ];
  }

  // Getting an OAuth client in Google Cloud, one sentence and one button per step (the core's steps), then the
  // downloaded file, chosen or dropped. Open when there is no client, or when Google refuses the one in use for
  // AI agents; otherwise folded, for changing the client.
  function setupBlock(section, view) {
    const notAgentic = view.limitations.some((limitation) => limitation.category === "client_not_agentic");
    const steps = view.setup_steps.map((step, i) =>
      el(
        "li",
        { class: "setup-step", "data-step": step.key },
        el("strong", {}, `${i + 1}. ${step.title}`),
        el("p", {}, step.sentence),
        el("button", { type: "button", onclick: (event) => openConsole(event.currentTarget, step) }, step.button)
      )
    );
    const input = el("input", {
      id: "client-file",
      type: "file",
      accept: ".json,application/json",
      class: "visually-hidden",
      tabindex: -1,
      onchange: (event) => {
        const [file] = event.currentTarget.files;
        if (file) chooseFile(section, view, file);
        event.currentTarget.value = "";
      },
    });
    const drop = el(
      "li",
      { class: "setup-step drop-zone", id: "client-drop", "data-step": "file" },
      el("strong", {}, `${steps.length + 1}. Choose the downloaded file`),
      el("p", {}, "Choose the file you just downloaded (its name starts with client_secret_), or drop it here."),
      input,
      el("button", { type: "button", class: "primary", id: "choose-client-file", onclick: () => input.click() }, "Choose the downloaded file…"),
      el("p", { id: "client-file-said", role: "status" })
    );
    drop.addEventListener("dragover", (event) => {
      event.preventDefault();
      drop.classList.add("dragging");
    });
    drop.addEventListener("dragleave", () => drop.classList.remove("dragging"));
    drop.addEventListener("drop", (event) => {
      event.preventDefault();
      drop.classList.remove("dragging");
      const [file] = event.dataTransfer ? event.dataTransfer.files : [];
      if (file) chooseFile(section, view, file);
    });
    const title = view.client_missing
      ? "How to set it up"
      : notAgentic
        ? "Set up a new client for AI agents"
        : "Use another Google Cloud client";
    return el(
      "details",
      { class: "setup", id: "setup", open: view.client_missing || notAgentic },
      el("summary", {}, title),
      view.client_source ? el("p", { class: "hint" }, "Gatehouse signs in with ", view.client_source, ".") : null,
      el("ol", { class: "setup-steps" }, steps, drop)
    );
  }

  async function openConsole(button, step) {
    const item = button.closest("li");
    item.querySelector(".console-url")?.remove();
    try {
      const opened = await invoke("account_setup_open", { step: step.key });
      if (!opened.browser_opened) {
        item.append(
          el("p", { class: "console-url" }, "Your browser could not be opened. Open this address in it: ", el("code", {}, opened.url))
        );
      }
    } catch (error) {
      item.append(el("p", { class: "console-url notice error", role: "alert" }, String(error)));
    }
  }

  async function chooseFile(section, view, file) {
    const said = section.querySelector("#client-file-said");
    const fail = (text) => {
      said.className = "notice error";
      said.setAttribute("role", "alert");
      said.textContent = String(text);
    };
    if (file.size > view.client_file_max_bytes) {
      // Not read at all: the core would refuse it the same way.
      fail(`That file is too large to be a client file (${file.size} bytes; the file Google Cloud gives you is under 1 KB). Choose the client_secret_….json you downloaded for your Desktop app client.`);
      return;
    }
    let chosen;
    try {
      chosen = await invoke("account_client_choose", { contents: await file.text() });
    } catch (error) {
      fail(error);
      return;
    }
    await render(section, await current());
    notice(
      section,
      "done",
      chosen.sign_in_again
        ? `Gatehouse will sign in with this client from now on. Sign in with Google again to use it: your current sign-in keeps the client it was made with.`
        : `Your client is set up. You can sign in with Google now.`
    );
    section.querySelector("#sign-in")?.focus();
  }

  // The Google products the next sign-in asks for: Google's page lists only these. Mail and calendars are
  // unticked unless already allowed (the core suggests which).
  function productsBlock(view) {
    if (!view.products.length) return null;
    return el(
      "fieldset",
      { class: "tool-group products", id: "products" },
      el("legend", {}, "What your assistants may use"),
      view.products.map((product) => {
        const id = "product-" + product.key;
        return el(
          "div",
          { class: "tool" },
          el("input", { id, type: "checkbox", name: "product", value: product.key, checked: product.suggested }),
          el(
            "label",
            { for: id },
            el("strong", {}, product.name),
            ": ",
            product.allows,
            product.granted ? el("span", { class: "muted" }, " (allowed)") : null
          )
        );
      }),
      el("p", { class: "hint" }, "Google asks you to allow only what is ticked. To add more later, tick it and sign in again.")
    );
  }

  function limitationsBlock(view) {
    if (view.sandbox) return null;
    return [
      el("h3", {}, "What this sign-in can't do"),
      view.limitations.length
        ? el("div", { class: "cards limitations" }, view.limitations.map(limitationCard))
        : el("p", {}, "Nothing: every enabled tool works with this sign-in."),
    ];
  }

  // After a change of account: the running Gatehouse keeps the sign-in it started with, so it restarts. When
  // changes wait for an answer, the person decides when (a restart refuses them).
  function restartAfter(section, message, waiting) {
    const box = el("div", { class: "notice done", role: "status" });
    if (!waiting) {
      box.append(message, " Gatehouse restarts now to use it…");
      section.prepend(box);
      setTimeout(() => invoke("account_restart").catch((error) => notice(section, "error", error)), 1500);
      return;
    }
    const waits = waiting === 1 ? "1 request from an assistant is" : `${waiting} requests from assistants are`;
    box.append(
      el("p", {}, message, " Gatehouse uses it after a restart."),
      el("p", {}, `${waits} waiting for your answer; restarting refuses them.`),
      el("button", { type: "button", class: "primary", onclick: () => invoke("account_restart") }, "Restart now")
    );
    section.prepend(box);
    box.querySelector("button").focus();
  }

  async function current() {
    return invoke("account_status");
  }

  async function signIn(section) {
    const progress = section.querySelector("#sign-in-progress");
    const button = section.querySelector("#sign-in");
    button.disabled = true;
    let started;
    try {
      // None offered (no enabled tool calls Google): the core asks for what the enabled tools need.
      const products = section.querySelector("#products")
        ? [...section.querySelectorAll("#products input:checked")].map((box) => box.value)
        : null;
      started = await invoke("account_sign_in_start", { products });
    } catch (error) {
      button.disabled = false;
      notice(section, "error", error);
      return;
    }
    const cancel = el(
      "button",
      { type: "button", onclick: () => invoke("account_sign_in_cancel") },
      "Cancel sign-in"
    );
    progress.replaceChildren(
      el("p", {}, started.browser_opened
        ? "Google's sign-in page is open in your browser. Choose your account there and allow access; this page updates when you're done."
        : "Your browser could not be opened. Open this address in your browser to sign in:"),
      el("p", {}, el("label", { for: "sign-in-url" }, "Sign-in address")),
      el("input", { id: "sign-in-url", type: "text", readonly: true, value: started.url }),
      el("div", { class: "row" }, cancel)
    );
    cancel.focus();
    try {
      const signedIn = await invoke("account_sign_in_finish");
      progress.replaceChildren();
      let message = `Signed in as ${signedIn.email}.`;
      if (signedIn.missing_scopes.length) {
        message += " Some permissions were not allowed on Google's page, so the tools that need them won't work until you sign in again and allow them.";
      }
      const view = await current();
      await render(section, view);
      restartAfter(section, message, view.waiting_cards);
    } catch (error) {
      progress.replaceChildren();
      button.disabled = false;
      notice(section, "error", error);
    }
  }

  async function useAccount(section, email, button) {
    button.disabled = true;
    try {
      const active = await invoke("account_use", { email });
      const view = await current();
      await render(section, view);
      restartAfter(section, `${active} is now the account Gatehouse uses.`, view.waiting_cards);
    } catch (error) {
      button.disabled = false;
      notice(section, "error", error);
    }
  }

  async function signOut(section, email, button) {
    if (!window.confirm(`Sign ${email} out of Gatehouse? Your assistants will no longer reach this account's files.`)) return;
    button.disabled = true;
    try {
      const out = await invoke("account_sign_out", { email });
      let message = out.revoke_problem
        ? `Signed out ${out.email}. The sign-in was deleted from this computer, but Google could not confirm it (${out.revoke_problem}). To be sure, remove Gatehouse at https://myaccount.google.com/permissions.`
        : `Signed out ${out.email}: Google no longer lets Gatehouse in, and the sign-in was deleted from this computer.`;
      if (out.now_active) message += ` ${out.now_active} is now the account in use.`;
      const view = await current();
      await render(section, view);
      restartAfter(section, message, view.waiting_cards);
    } catch (error) {
      button.disabled = false;
      notice(section, "error", error);
    }
  }

  async function render(section, view) {
    const parts = [
      el("h2", {}, "Account"),
      whoBlock(view),
      accountsBlock(section, view),
      limitationsBlock(view),
      view.warnings.length
        ? [el("h3", {}, "Good to know"), el("ul", {}, view.warnings.map((warning) => el("li", {}, warning)))]
        : null,
    ];
    section.replaceChildren(...parts.flat(Infinity).filter(Boolean));
  }

  Gatehouse.page("account", {
    async show(section) {
      const view = await current();
      // Don't wipe a sign-in in progress (its address, its Cancel) when the page is shown again.
      if (view.signing_in && section.querySelector("#sign-in-progress")?.childElementCount) return;
      await render(section, view);
    },
  });
})();
