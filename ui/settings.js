// The settings window's frame: the header (whose files, the sandbox badge), the page tabs, and the helpers every
// page uses. Each page lives in settings/<page>.js and registers itself with Gatehouse.page(name, {show}); the
// frame calls show(section) each time the page comes into view, so a page always shows the core's current state.
"use strict";

window.Gatehouse = (function () {
  const tauri = window.__TAURI__;
  const pages = {};
  const names = ["account", "assistants", "permissions", "activity", "advanced"];
  let current = null;

  // Calls a settings command; a failure comes back as the core's plain-words message.
  async function invoke(command, args) {
    return tauri.core.invoke(command, args || {});
  }

  // Builds an element: el("button", {class: "primary", onclick: f}, "Text", child, …).
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (value === undefined || value === null || value === false) continue;
      if (key.startsWith("on") && typeof value === "function") node.addEventListener(key.slice(2), value);
      else if (key === "class") node.className = value;
      else if (value === true) node.setAttribute(key, "");
      else node.setAttribute(key, String(value));
    }
    // Flattened at every depth: a page may pass arrays of arrays (a list of rows, each a list of cells).
    for (const child of children.flat(Infinity)) {
      if (child === undefined || child === null || child === false) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  // A message for the person at the top of a page: kind is "error" or "done".
  function notice(section, kind, text) {
    let box = section.querySelector(":scope > .notice");
    if (!box) {
      box = el("p", { class: "notice", role: kind === "error" ? "alert" : "status" });
      section.prepend(box);
    }
    box.className = "notice " + kind;
    box.setAttribute("role", kind === "error" ? "alert" : "status");
    box.textContent = String(text);
  }

  // A date and time in the person's own format; "—" when there is none.
  function when(iso) {
    if (!iso) return "—";
    const date = new Date(iso);
    return isNaN(date) ? String(iso) : date.toLocaleString();
  }

  function page(name, handlers) {
    pages[name] = handlers;
    if (current === name) render(name);
  }

  async function render(name) {
    const section = document.getElementById("page-" + name);
    const handlers = pages[name];
    if (!section || !handlers) return;
    try {
      await handlers.show(section);
    } catch (error) {
      notice(section, "error", error);
    }
  }

  function go(name) {
    if (!names.includes(name)) name = "account";
    current = name;
    for (const other of names) {
      const selected = other === name;
      document.getElementById("page-" + other).hidden = !selected;
      const tab = document.getElementById("tab-" + other);
      tab.setAttribute("aria-selected", String(selected));
      tab.tabIndex = selected ? 0 : -1;
    }
    render(name);
  }

  async function header() {
    try {
      const overview = await invoke("settings_overview");
      // With the badge shown, the line beside it says only what the badge doesn't: why the sandbox is in use.
      document.getElementById("mode").textContent = !overview.sandbox
        ? overview.mode
        : overview.sandbox_because_signed_out
          ? "Nobody is signed in to Google yet"
          : "You chose the sandbox";
      document.getElementById("sandbox-badge").hidden = !overview.sandbox;
      document.title = overview.sandbox ? "Gatehouse — sandbox" : "Gatehouse";
    } catch (error) {
      document.getElementById("mode").textContent = String(error);
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    window.addEventListener("hashchange", () => go(location.hash.slice(1)));
    // Arrow keys move between the tabs, as a tab list should.
    document.querySelector("[role=tablist]").addEventListener("keydown", (event) => {
      const step = { ArrowDown: 1, ArrowRight: 1, ArrowUp: -1, ArrowLeft: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      const next = names[(names.indexOf(current) + step + names.length) % names.length];
      location.hash = next;
      document.getElementById("tab-" + next).focus();
    });
    tauri.event.listen("settings-page", (event) => {
      if (location.hash.slice(1) === event.payload) go(event.payload);
      else location.hash = event.payload;
    });
    header();
    go(location.hash.slice(1));
  });

  return { invoke, el, notice, when, page, refresh: () => current && render(current), header };
})();
