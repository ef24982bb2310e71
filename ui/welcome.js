// The welcome window: what Gatehouse does and its three first steps. Each button does the real thing: the
// Account page's sign-in, the sandbox (Gatehouse switches to it, or is in it already), the Assistants page's
// Connect. What it shows comes from the core (welcome_status); this file only lays it out and words it.
//
// Hooks the end-to-end test relies on: #sign-in, #sandbox, #connect, #reopen (with class "no-tray" when the
// desktop shows no tray icons), #notice.
"use strict";

(function () {
  const invoke = (command, args) => window.__TAURI__.core.invoke(command, args || {});

  function say(kind, text) {
    const box = document.getElementById("notice");
    box.hidden = false;
    box.className = "notice " + kind;
    box.setAttribute("role", kind === "error" ? "alert" : "status");
    box.textContent = String(text);
  }

  function show(view) {
    if (view.signed_in_as) {
      document.getElementById("step-sign-in").classList.add("done");
      document.getElementById("sign-in-words").textContent = `Signed in as ${view.signed_in_as}.`;
      document.getElementById("sign-in").textContent = "Manage your account";
    }
    if (view.sandbox) {
      document.getElementById("step-sandbox").classList.add("done");
      document.getElementById("sandbox-words").textContent = view.signed_in_as
        ? "You chose the sandbox: your assistants work on sample files, not your Google account."
        : "Until you sign in, Gatehouse uses sample files: your assistants can try everything on them.";
    }
    if (view.assistant_connected) {
      document.getElementById("step-connect").classList.add("done");
      document.getElementById("connect-words").textContent = "An assistant is connected. You can connect more.";
    }
    const reopen = document.getElementById("reopen");
    if (view.tray_host) {
      reopen.className = "reopen";
      reopen.textContent =
        "Gatehouse keeps running in the tray when you close this window: its shield icon opens it again.";
    } else {
      reopen.className = "reopen no-tray";
      reopen.textContent =
        "This desktop shows no tray icons, so Gatehouse has no icon to click. It keeps running when you close this window, and your assistants still reach it. To open Gatehouse again, start it again from your applications.";
    }
  }

  async function openPage(page) {
    try {
      await invoke("welcome_open_page", { page });
    } catch (error) {
      say("error", error);
    }
  }

  async function trySandbox(button) {
    button.disabled = true;
    try {
      const tried = await invoke("welcome_try_sandbox");
      if (tried === "already_in") {
        say("done", "You're in the sandbox: Gatehouse is using sample spreadsheets and documents. Connect an assistant and ask it to open “Budget 2026”.");
        document.getElementById("connect").focus();
        button.disabled = false;
      } else {
        say("done", "Gatehouse restarts now on sample files. To use your Google account again, turn off “Start in the sandbox” on the Advanced page.");
      }
    } catch (error) {
      button.disabled = false;
      say("error", error);
    }
  }

  document.addEventListener("DOMContentLoaded", async () => {
    document.getElementById("sign-in").addEventListener("click", () => openPage("account"));
    document.getElementById("connect").addEventListener("click", () => openPage("assistants"));
    document.getElementById("sandbox").addEventListener("click", (event) => trySandbox(event.currentTarget));
    try {
      show(await invoke("welcome_status"));
    } catch (error) {
      say("error", error);
    }
    document.getElementById("heading").focus();
  });
})();
