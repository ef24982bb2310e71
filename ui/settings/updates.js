// The update banner under the Gatehouse window's header, on every page: a new version the app found (with its
// notes), the install under way, or what went wrong with it. The app installs only when the person clicks
// "Install update"; what to say comes from the core (updates_status), and the app tells the window each time
// it changes ("updates-changed").
"use strict";

(function () {
  const { invoke, el } = window.Gatehouse;

  function draw(view) {
    const banner = document.getElementById("update");
    // Whether there is something to show is the core's to say (a failed look in the background is not).
    banner.hidden = !view.banner;
    banner.setAttribute("role", view.state === "failed" ? "alert" : "status");
    if (!view.banner) return banner.replaceChildren();
    banner.replaceChildren(
      el("span", { class: "update-message" }, view.message),
      view.can_install && el("button", { class: "primary", id: "update-install", onclick: install }, "Install update"),
      view.notes && el("details", {}, el("summary", {}, "What's new"), el("p", {}, view.notes)),
    );
  }

  async function install(event) {
    event.target.disabled = true;
    try {
      draw(await invoke("updates_install"));
    } catch (error) {
      // The refusal's words are the core's; the banner says them with what can still be done.
      draw(await invoke("updates_status"));
    }
  }

  async function refresh() {
    try {
      draw(await invoke("updates_status"));
    } catch (error) {
      document.getElementById("update").hidden = true;
    }
  }

  document.addEventListener("DOMContentLoaded", () => {
    window.__TAURI__.event.listen("updates-changed", (event) => draw(event.payload));
    refresh();
  });
})();
