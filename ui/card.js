// The approval card: shows the oldest call waiting for the person and passes their answer to the core.
// Everything shown comes from the core's pending card, escaped by the core (control and direction characters
// arrive written out, e.g. `\u{202e}`) and set as text, never as HTML; the Always allow choices are built only
// from what the card's `offer` holds, so the card can never ask for more than the core offered. A card that
// carries Google's approval form shows its fields as controls and sends the filled form back on *Allow*. The card
// says in one sentence what will happen and previews the change (read from Google by the core, filled in when
// it arrives after the card showed); the raw arguments wait behind *Details*.
"use strict";

(function () {
  const tauri = window.__TAURI__;
  const $ = (id) => document.getElementById(id);

  let queue = [];
  let shown = null; // the id of the card on screen
  let busy = false;
  // A card drawn where another just was (the one on screen was answered, withdrawn or timed out) keeps its
  // buttons inert this long, so a click meant for the old card can't answer the new one.
  const INERT_MS = 700;
  let inertUntil = 0;
  let inertTimer = null;
  // The arguments are shown cut to this many characters, with a *Show all* to see the rest.
  const ARGUMENTS_SHOWN = 4000;

  function words(list) {
    if (list.length <= 1) return list.join("");
    return list.slice(0, -1).join(", ") + " or " + list[list.length - 1];
  }

  // A registered assistant by its name; a name the client only gave of itself says so.
  function agentWords(agent) {
    if (!agent) return null;
    return "“" + agent.name + "”" + (agent.self_reported ? " (says it is)" : "");
  }

  function agentName(card) {
    return agentWords(card.agent) || "An assistant";
  }

  // JSON, one level per line, but anything whose one-line form is short stays on one line: `"data": [["x"]]`
  // reads better than five lines of brackets.
  function compactJson(value, indent) {
    const one = JSON.stringify(value);
    if (one === undefined || value === null || typeof value !== "object" || one.length <= 60) return one;
    // A row of plain values stays one (wrapped) line, however long.
    if (Array.isArray(value) && value.every((item) => item === null || typeof item !== "object")) return one;
    const inner = indent + "  ";
    const items = Array.isArray(value)
      ? value.map((item) => inner + (compactJson(item, inner) ?? "null"))
      : Object.keys(value)
          .filter((key) => value[key] !== undefined)
          .map((key) => inner + JSON.stringify(key) + ": " + compactJson(value[key], inner));
    const [open, close] = Array.isArray(value) ? ["[", "]"] : ["{", "}"];
    return items.length ? open + "\n" + items.join(",\n") + "\n" + indent + close : one;
  }

  function preview(args) {
    let text;
    try {
      text = compactJson(args, "");
    } catch (_) {
      text = String(args);
    }
    if (text === undefined || text === "null") return "(no arguments)";
    return text;
  }

  // The arguments, cut with a visible *Show all* when long.
  function showArguments(args) {
    const text = preview(args);
    const all = $("arguments-all");
    const cut = text.length > ARGUMENTS_SHOWN;
    $("arguments").textContent = cut ? text.slice(0, ARGUMENTS_SHOWN) + "…" : text;
    all.hidden = !cut;
    all.textContent = cut ? "Show all (" + (text.length - ARGUMENTS_SHOWN) + " more characters)" : "";
    all.onclick = cut
      ? () => {
          $("arguments").textContent = text;
          all.hidden = true;
        }
      : null;
  }

  function timeLeft(card) {
    const left = Math.round((Date.parse(card.deadline) - Date.now()) / 1000);
    if (!(left > 0)) return "Time is up: it will not run.";
    const when = left < 60 ? left + " s" : Math.floor(left / 60) + " min " + (left % 60) + " s";
    return "Answer within " + when + ", or it will not run.";
  }

  // The core names a target as `“Budget 2026” (spreadsheet 1AbC…)`: the name reads first, the id (there to
  // check against) goes on a quieter line of its own. Any other wording is shown as it came.
  function showTarget(target) {
    const where = $("target");
    const named = /^(“[^”]*”) \((.+)\)$/.exec(target || "");
    if (!named) {
      where.textContent = target || "Not named";
      return;
    }
    const id = document.createElement("span");
    id.className = "target-id";
    id.textContent = named[2];
    id.title = named[2];
    where.replaceChildren(document.createTextNode(named[1]), id);
  }

  // The sentence: what the call will do, in the person's words (the core's parts, each set as text). Names
  // and values from outside are set apart, so a name written like the card's own words still reads as a name.
  function showSentence(card) {
    const heading = $("heading");
    const parts = Array.isArray(card.sentence) ? card.sentence : [];
    if (!parts.length) {
      heading.textContent = card.title;
      return;
    }
    const nodes = [];
    let before = "";
    for (const part of parts) {
      const [kind, text] = Object.entries(part)[0] || ["words", ""];
      // A space between parts, but not before closing punctuation or after an opening bracket.
      if (nodes.length && !/^[,.;:)…]/.test(text) && !before.endsWith("(")) nodes.push(document.createTextNode(" "));
      if (kind === "words") {
        nodes.push(document.createTextNode(text));
      } else {
        const span = document.createElement("span");
        span.className = kind === "name" ? "name" : "value";
        span.textContent = kind === "name" ? "“" + text + "”" : text;
        nodes.push(span);
      }
      before = text;
    }
    heading.replaceChildren(...nodes);
  }

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function plural(n, one, many) {
    return n + " " + (n === 1 ? one : many);
  }

  // The preview of the change, from the core's preview state: a before → after grid of cells, what a delete
  // removes, who has access, whom mail goes to. Everything in it is Google's or the assistant's text, set as text.
  function previewNodes(state) {
    if (!state || state.state === "none") return null;
    if (state.state === "reading") return [el("p", "quiet", "Reading what it holds now…")];
    if (state.state === "unread") {
      return [el("p", "quiet", "The preview could not be read: " + state.why + ". You can still decide without it.")];
    }
    const preview = state.preview;
    switch (preview.kind) {
      case "cells": {
        if (!preview.cells.length) return [el("p", "quiet", "No cell changes: every value given leaves its cell as it is.")];
        const table = el("table");
        const head = el("tr");
        head.append(el("th", "cell", "Cell"), el("th", "", "Now"), el("th", "", "After"));
        table.append(head);
        for (const change of preview.cells) {
          const row = el("tr");
          const was = change.before === "" ? el("td", "before empty", "(empty)") : el("td", "before", change.before);
          const after = change.after === "" ? el("td", "after", "(empty)") : el("td", "after", change.after);
          row.append(el("td", "cell", change.cell), was, after);
          table.append(row);
        }
        const nodes = [table];
        if (preview.more > 0) nodes.push(el("p", "quiet", "and " + plural(preview.more, "more cell", "more cells")));
        return nodes;
      }
      case "removal": {
        const facts = [preview.what];
        if (preview.size) facts.push(preview.size);
        if (preview.items !== null && preview.items !== undefined) {
          facts.push(preview.items_more ? "more than " + plural(preview.items, "item", "items") : plural(preview.items, "item", "items"));
        }
        const what = el("p", "");
        const name = el("strong", "", "“" + preview.name + "”");
        what.append(name, document.createTextNode(" — " + facts.join(", ")));
        const where = preview.permanent
          ? el("p", "warning", "Deleted for good: it will not go to the trash and cannot be restored.")
          : el("p", "quiet", "It goes to the trash, where it can be restored for 30 days.");
        return [what, where];
      }
      case "sharing": {
        const nodes = [el("p", "quiet", preview.now.length ? "Who has access now:" : "Nobody else has access now.")];
        if (preview.now.length) {
          const list = el("ul", "list");
          for (const who of preview.now) list.append(el("li", "", who));
          if (preview.more > 0) list.append(el("li", "quiet", "and " + preview.more + " more"));
          nodes.push(list);
        }
        return nodes;
      }
      case "mail": {
        const line = (label, list) => (list.length ? [el("p", "", label + ": " + list.join(", "))] : []);
        const nodes = [
          ...line("To", preview.to.length ? preview.to : ["no one"]),
          ...line("Cc", preview.cc),
          ...line("Bcc", preview.bcc),
          el("p", "", "Subject: “" + preview.subject + "”"),
        ];
        if (preview.first_lines) nodes.push(el("blockquote", "", preview.first_lines));
        return nodes;
      }
      case "text": {
        return [
          el("p", "quiet", "Now:"), el("blockquote", "", preview.before || "(empty)"),
          el("p", "quiet", "After:"), el("blockquote", "", preview.after || "(empty)"),
        ];
      }
      default:
        return null;
    }
  }

  let previewShown = null; // the preview state on screen, as JSON, to redraw only what changed
  function showPreview(card) {
    const text = JSON.stringify(card.preview || null);
    if (text === previewShown) return;
    previewShown = text;
    const nodes = previewNodes(card.preview);
    const box = $("preview");
    box.hidden = !nodes;
    box.replaceChildren(...(nodes || []));
  }

  // A label as a choice reads it: with a capital letter ("only this spreadsheet …" → "Only this spreadsheet …").
  function capitalized(text) {
    return text ? text.charAt(0).toUpperCase() + text.slice(1) : text;
  }

  function radio(group, value, text, checked) {
    const label = document.createElement("label");
    const input = document.createElement("input");
    input.type = "radio";
    input.name = group;
    input.value = value;
    input.checked = checked;
    label.append(input, document.createTextNode(text));
    return label;
  }

  // The choices, narrowest first and preselected: this assistant, the shortest time, the offered limit.
  function buildChoices(offer) {
    const scopes = $("scopes");
    const durations = $("durations");
    const limits = $("limits");
    scopes.replaceChildren();
    durations.replaceChildren();
    limits.replaceChildren();
    if (offer.agent) scopes.append(radio("scope", "AGENT", "Only " + agentWords(offer.agent), true));
    scopes.append(radio("scope", "TOOL", "Any assistant", !offer.agent));
    offer.durations.forEach((days, i) => {
      durations.append(radio("days", String(days), days === 1 ? "1 day" : days + " days", i === 0));
    });
    if (offer.constraint) limits.append(radio("limit", "CONSTRAINED", capitalized(offer.constraint.label), true));
    limits.append(radio("limit", "ANY", "Any arguments", !offer.constraint));
  }

  // Google's approval form (issue 17): each field of the form as a real control, labelled and described by
  // the schema's own words (escaped by the core). Option values and field names are sent back as Google wrote
  // them and never shown; what is shown is their titles.
  let formControls = []; // [{ field, read() }] of the form on screen

  function fieldControl(field, id) {
    const kind = field.kind;
    const input = (type) => {
      const control = document.createElement("input");
      control.type = type;
      control.id = id;
      if (field.required) control.required = true;
      return control;
    };
    switch (kind.type) {
      case "text": {
        const types = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };
        const control = input(types[kind.format] || "text");
        if (kind.min_length != null) control.minLength = kind.min_length;
        if (kind.max_length != null) control.maxLength = kind.max_length;
        if (kind.default != null) control.value = kind.format === "date-time" ? localTime(kind.default) : kind.default;
        const read = () => {
          if (control.value === "") return undefined;
          // A local date and time, as the control takes it, goes back with its offset (RFC 3339).
          if (kind.format === "date-time") {
            const when = new Date(control.value);
            return isNaN(when.getTime()) ? control.value : when.toISOString();
          }
          return control.value;
        };
        return { control, read };
      }
      case "number":
      case "integer": {
        const control = input("number");
        control.step = kind.type === "integer" ? "1" : "any";
        if (kind.minimum != null) control.min = String(kind.minimum);
        if (kind.maximum != null) control.max = String(kind.maximum);
        if (kind.default != null) control.value = String(kind.default);
        const read = () => {
          if (control.value === "") return undefined;
          const number = Number(control.value);
          // Not a number: sent as typed, so the core names the field and what it takes.
          return isNaN(number) ? control.value : number;
        };
        return { control, read };
      }
      case "boolean": {
        const control = input("checkbox");
        control.checked = kind.default === true;
        return { control, read: () => control.checked };
      }
      case "choice": {
        const control = document.createElement("select");
        control.id = id;
        if (field.required) control.required = true;
        if (kind.default == null) {
          const none = document.createElement("option");
          none.value = "";
          none.textContent = field.required ? "Choose…" : "(none)";
          control.append(none);
        }
        for (const choice of kind.options) {
          const option = document.createElement("option");
          option.value = choice.value;
          option.textContent = choice.title;
          option.selected = choice.value === kind.default;
          control.append(option);
        }
        control.value = kind.default != null ? kind.default : "";
        return { control, read: () => (control.value === "" ? undefined : control.value) };
      }
      case "choices": {
        const control = document.createElement("div");
        control.id = id;
        control.className = "choices";
        const boxes = kind.options.map((choice) => {
          const label = document.createElement("label");
          const box = document.createElement("input");
          box.type = "checkbox";
          box.value = choice.value;
          box.checked = (kind.default || []).includes(choice.value);
          label.append(box, document.createTextNode(choice.title));
          control.append(label);
          return box;
        });
        return { control, read: () => boxes.filter((box) => box.checked).map((box) => box.value) };
      }
      default:
        return null;
    }
  }

  // "2026-12-31T09:00:00Z" as a datetime-local control shows it, in local time.
  function localTime(text) {
    const when = new Date(text);
    if (isNaN(when.getTime())) return "";
    const pad = (n) => String(n).padStart(2, "0");
    return when.getFullYear() + "-" + pad(when.getMonth() + 1) + "-" + pad(when.getDate()) + "T" +
      pad(when.getHours()) + ":" + pad(when.getMinutes());
  }

  function showForm(form) {
    const box = $("google-form");
    const fields = $("google-fields");
    fields.replaceChildren();
    formControls = [];
    box.hidden = !form;
    if (!form) return;
    $("google-too").hidden = !form.google_asks_too;
    $("google-message").textContent = form.message;
    form.fields.forEach((field, i) => {
      const id = "google-field-" + i;
      const made = fieldControl(field, id);
      if (!made) return;
      const wrap = document.createElement("div");
      wrap.className = "google-field";
      const label = document.createElement("label");
      label.htmlFor = id;
      label.textContent = field.label;
      if (field.required) {
        const required = document.createElement("span");
        required.className = "required";
        required.textContent = " (required)";
        label.append(required);
      }
      wrap.append(label);
      if (field.description) {
        const help = document.createElement("p");
        help.className = "field-help";
        help.id = id + "-help";
        help.textContent = field.description;
        made.control.setAttribute("aria-describedby", help.id);
        wrap.append(help);
      }
      wrap.append(made.control);
      fields.append(wrap);
      formControls.push({ field, read: made.read });
    });
  }

  // The form's content as the person filled it in. Each name is set as an own property, so a field called
  // `__proto__` is a field like any other.
  function formContent() {
    const content = {};
    for (const { field, read } of formControls) {
      const value = read();
      if (value === undefined) continue;
      Object.defineProperty(content, field.name, { value, enumerable: true, configurable: true, writable: true });
    }
    return content;
  }

  function showAlways(open) {
    $("always-options").hidden = !open;
    $("always").setAttribute("aria-expanded", String(open));
    $("card").classList.toggle("choosing", open);
    if (open) {
      // What is asked stays in view above the choice; the focus goes to its first, narrowest option.
      window.scrollTo(0, 0);
      const first = $("always-options").querySelector("input:checked");
      if (first) first.focus({ preventScroll: true });
    }
  }

  function render() {
    const card = queue.find((c) => c.id === shown) || queue[0];
    if (!card) {
      shown = null;
      $("card").hidden = true;
      $("empty").hidden = false;
      return;
    }
    const fresh = card.id !== shown;
    // Another card was on screen a moment ago: this one is drawn under the pointer.
    const replacing = fresh && !$("card").hidden;
    shown = card.id;
    $("card").hidden = false;
    $("empty").hidden = true;
    const position = queue.indexOf(card) + 1;
    // "1 of 2 waiting": the others show, one by one, once this one is answered.
    $("queue").textContent = queue.length > 1 ? position + " of " + queue.length + " waiting" : "";
    $("time-left").textContent = timeLeft(card);
    // The preview may arrive after the card showed: it is filled in where it goes.
    if (!fresh) return showPreview(card);

    $("who").textContent = agentName(card) + " wants to";
    showSentence(card);
    previewShown = null;
    showPreview(card);
    $("asked-again").hidden = !card.asked_again;
    $("asked-again").textContent = card.asked_again || "";
    $("tool-name").textContent = "Tool: " + card.title + " (" + card.tool + ")";
    showTarget(card.target);
    showArguments(card.arguments);
    $("error").textContent = "";
    showForm(card.form);
    $("allow-once").textContent = card.form ? "Allow" : "Allow once";
    $("allow-once").setAttribute(
      "aria-label",
      card.form ? "Allow: send Google your answer to its form" : "Allow once: run this one call"
    );
    $("deny").setAttribute("aria-label", card.form ? "Deny: tell Google no" : "Deny: do not run this");
    const offer = card.offer;
    $("always").hidden = !offer.grantable;
    const why = card.why_not_grantable || (card.retry ? "this call repeats one you already answered." : null);
    $("not-grantable").hidden = offer.grantable;
    $("not-grantable").textContent = offer.grantable ? "" : "Always allow is not offered: " + (why || "this call must be answered each time.");
    showAlways(false);
    if (offer.grantable) buildChoices(offer);
    if (replacing) holdInert();
    setBusy(false);
    // A new card: the heading takes the focus (read out by screen readers), never an Allow button.
    $("heading").focus();
  }

  function inert() {
    return Date.now() < inertUntil;
  }

  // Keeps the answers inert for INERT_MS from now (see INERT_MS).
  function holdInert() {
    inertUntil = Date.now() + INERT_MS;
    if (inertTimer !== null) clearTimeout(inertTimer);
    inertTimer = setTimeout(() => {
      inertTimer = null;
      setBusy(busy);
    }, INERT_MS);
  }

  function setBusy(value) {
    busy = value;
    const off = value || inert();
    for (const button of document.querySelectorAll("button")) {
      // *Show all* only shows: it stays usable.
      if (button.id !== "arguments-all") button.disabled = off;
    }
  }

  async function answer(value) {
    if (busy || inert() || shown === null) return;
    setBusy(true);
    $("error").textContent = "";
    try {
      await tauri.core.invoke("card_answer", { id: shown, answer: value });
    } catch (error) {
      $("error").textContent = String(error);
      setBusy(false);
      return;
    }
    // The core's change of queue arrives as an event; asking as well keeps the card right if it was missed.
    await refresh();
  }

  async function refresh() {
    try {
      queue = await tauri.core.invoke("card_pending");
    } catch (error) {
      $("error").textContent = String(error);
      return;
    }
    shownGone();
    render();
  }

  // The card on screen was answered elsewhere or timed out: take the next one fresh.
  function shownGone() {
    if (shown !== null && !queue.some((c) => c.id === shown)) {
      shown = null;
      busy = false;
    }
  }

  function alwaysChoice() {
    const form = $("always-options");
    const picked = (name) => {
      const input = form.querySelector('input[name="' + name + '"]:checked');
      return input ? input.value : null;
    };
    return { scope: picked("scope"), days: picked("days"), limit: picked("limit") };
  }

  $("deny").addEventListener("click", () => answer("Deny"));
  $("allow-once").addEventListener("click", () => {
    const card = queue.find((c) => c.id === shown);
    answer(card && card.form ? { Form: formContent() } : "AllowOnce");
  });
  $("always").addEventListener("click", () => showAlways($("always-options").hidden));
  $("always-back").addEventListener("click", () => {
    showAlways(false);
    $("always").focus();
  });
  $("always-options").addEventListener("submit", (event) => {
    event.preventDefault();
    const choice = alwaysChoice();
    const missing = [];
    if (!choice.scope) missing.push("which assistants");
    if (!choice.days) missing.push("for how long");
    if (!choice.limit) missing.push("which calls");
    if (missing.length) {
      $("error").textContent = "Choose " + words(missing) + " first.";
      return;
    }
    answer({ Always: choice });
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && shown !== null) {
      event.preventDefault();
      answer("Deny");
    }
  });
  setInterval(() => {
    const card = queue.find((c) => c.id === shown);
    if (card) $("time-left").textContent = timeLeft(card);
  }, 1000);

  // WebKit lays out a hidden page only when asked, and its first layout loads the fonts: about 90 ms, which
  // would otherwise fall between the first call and its card (docs/benchmarks.md). So while the page is still
  // hidden and nothing waits, the card is laid out once with a sample of each kind of text it shows, and hidden
  // again in the same task: nothing of it is ever drawn, and a real card replaces every field it set.
  function layOutAhead() {
    if (shown !== null || document.visibilityState !== "hidden") return;
    $("card").hidden = false;
    $("always-options").hidden = false;
    $("queue").textContent = "1 of 2 waiting";
    $("who").textContent = agentName({ agent: { name: "Assistant", self_reported: true } }) + " wants to";
    showSentence({ title: "", sentence: [{ words: "write 2 cells in" }, { name: "Sample" }, { value: "(A1:B1)" }] });
    $("preview").hidden = false;
    $("preview").replaceChildren(...previewNodes({ state: "ready", preview: {
      kind: "cells", more: 1, cells: [{ cell: "A1", before: "Old", after: "New" }, { cell: "B1", before: "", after: "12" }]
    } }));
    showTarget("“Sample” (spreadsheet 0123456789)");
    showArguments({ range: "Sheet1!A1:B2", data: [["Text", 12.5, true, null]] });
    $("time-left").textContent = "Answer within 59 s, or it will not run.";
    buildChoices({
      agent: { name: "Assistant", self_reported: true },
      durations: [1, 7, 30],
      constraint: { label: "only this spreadsheet" }
    });
    void $("card").getBoundingClientRect();
    $("card").hidden = true;
    $("always-options").hidden = true;
    for (const id of ["queue", "who", "heading", "target", "arguments", "time-left"]) $(id).textContent = "";
    $("preview").replaceChildren();
    $("preview").hidden = true;
    previewShown = null;
    $("arguments-all").hidden = true;
    for (const id of ["scopes", "durations", "limits"]) $(id).replaceChildren();
  }

  // Listen first, then ask, so no change falls between the two.
  tauri.event
    .listen("card-queue", (event) => {
      queue = Array.isArray(event.payload) ? event.payload : [];
      shownGone();
      render();
    })
    .then(refresh, (error) => {
      $("error").textContent = String(error);
      return refresh();
    })
    .then(layOutAhead);
})();
