// Runs the card page (ui/card.js) in Node over a small stand-in for the DOM it uses, fed the queue the card
// window gets (JSON on stdin), and prints what a person would see and what the page answered, as JSON.
// Usage: node harness.js CARD_HTML CARD_JS < queue.json
//        node harness.js CARD_HTML CARD_JS form FILL_JSON < queue.json   (Google's form: its controls, filled
//        in as FILL_JSON says, one entry per field: {"value": …}, {"checked": true} or {"checked": [values]})
//        node harness.js CARD_HTML CARD_JS update CARD_JSON < queue.json   (the card's preview arrives later: the
//        queue of one card, then CARD_JSON, the same card updated)
"use strict";

const fs = require("fs");
const vm = require("vm");

const [html, script] = [fs.readFileSync(process.argv[2], "utf8"), fs.readFileSync(process.argv[3], "utf8")];
const queue = JSON.parse(fs.readFileSync(0, "utf8"));

// A clock the scenario moves by hand, and the timers waiting on it.
let now = Date.parse("2030-01-01T00:00:00Z");
let timers = [];
function advance(ms) {
  now += ms;
  const due = timers.filter((timer) => timer.at <= now);
  timers = timers.filter((timer) => timer.at > now);
  for (const timer of due) timer.fn();
}
class FakeDate extends Date {
  static now() {
    return now;
  }
}

let htmlWrites = 0;
class Element {
  constructor(tag, id) {
    this.tagName = tag.toUpperCase();
    this.id = id || "";
    this.children = [];
    this.ownText = "";
    this.hidden = false;
    this.disabled = false;
    this.listeners = {};
    this.attributes = {};
    this.classList = { toggle() {} };
    this.onclick = null;
  }
  get textContent() {
    return this.ownText + this.children.map((child) => child.textContent).join("");
  }
  set textContent(text) {
    this.ownText = String(text);
    this.children = [];
  }
  set innerHTML(_) {
    htmlWrites += 1;
  }
  set outerHTML(_) {
    htmlWrites += 1;
  }
  insertAdjacentHTML() {
    htmlWrites += 1;
  }
  append(...nodes) {
    this.children.push(...nodes);
  }
  replaceChildren(...nodes) {
    this.ownText = "";
    this.children = nodes;
  }
  setAttribute(name, value) {
    this.attributes[name] = value;
  }
  focus() {}
  getBoundingClientRect() {
    return {};
  }
  addEventListener(type, fn) {
    (this.listeners[type] = this.listeners[type] || []).push(fn);
  }
  // A disabled button takes no click, as in a browser.
  click() {
    if (this.disabled) return;
    for (const fn of this.listeners.click || []) fn({ preventDefault() {} });
    if (this.onclick) this.onclick({ preventDefault() {} });
  }
  descendants() {
    return this.children.flatMap((child) => (child instanceof Element ? [child, ...child.descendants()] : []));
  }
  querySelector(selector) {
    const named = /input\[name="([^"]+)"\]:checked/.exec(selector);
    return (
      this.descendants().find(
        (el) => el.tagName === "INPUT" && el.checked && (!named || el.name === named[1])
      ) || null
    );
  }
}
class Text {
  constructor(text) {
    this.textContent = String(text);
  }
}

// Every element of the page by id, as card.html declares them.
const elements = {};
for (const match of html.matchAll(/<(\w+)[^>]*\sid="([^"]+)"([^>]*)>/g)) {
  const element = new Element(match[1], match[2]);
  element.hidden = /\shidden/.test(match[0]);
  elements[match[2]] = element;
}
const documentListeners = {};
const document = {
  visibilityState: "visible",
  getElementById: (id) => elements[id] || null,
  querySelectorAll: (selector) =>
    selector === "button" ? Object.values(elements).filter((el) => el.tagName === "BUTTON") : [],
  createElement: (tag) => new Element(tag),
  createTextNode: (text) => new Text(text),
  addEventListener: (type, fn) => (documentListeners[type] = documentListeners[type] || []).push(fn)
};

const answers = [];
let onQueue = null;
let pending = queue;
const tauri = {
  core: {
    invoke: async (command, args) => {
      if (command === "card_pending") return pending;
      if (command === "card_answer") {
        answers.push(args);
        return null;
      }
      throw new Error("unknown command " + command);
    }
  },
  event: {
    listen: async (name, fn) => {
      if (name === "card-queue") onQueue = fn;
    }
  }
};

const context = vm.createContext({
  window: { __TAURI__: tauri, scrollTo() {} },
  document,
  Date: FakeDate,
  setTimeout: (fn, ms) => {
    const timer = { fn, at: now + (ms || 0) };
    timers.push(timer);
    return timer;
  },
  clearTimeout: (timer) => (timers = timers.filter((other) => other !== timer)),
  setInterval: () => 0,
  console
});

const settle = () => new Promise((resolve) => setImmediate(resolve));
const $ = (id) => elements[id];
const escape = () => (documentListeners.keydown || []).forEach((fn) => fn({ key: "Escape", preventDefault() {} }));

// A control of Google's form as a person meets it: what it is, its limits, its label and help.
function describeField(wrap) {
  const [label, ...rest] = wrap.children;
  const help = rest.find((child) => child.className === "field-help");
  const control = rest[rest.length - 1];
  const described = {
    label: label.textContent,
    labelFor: label.htmlFor,
    help: help ? help.textContent : null,
    describedBy: control.attributes["aria-describedby"] || null,
    tag: control.tagName,
    id: control.id
  };
  for (const key of ["type", "required", "min", "max", "step", "minLength", "maxLength", "value", "checked"]) {
    if (control[key] !== undefined) described[key] = control[key];
  }
  if (control.tagName === "SELECT") {
    described.options = control.children.map((option) => ({ value: option.value, text: option.textContent }));
  }
  if (control.tagName === "DIV") {
    described.options = control.children.map((label) => ({
      value: label.children[0].value,
      type: label.children[0].type,
      checked: label.children[0].checked,
      text: label.textContent
    }));
  }
  return described;
}

function fillField(wrap, fill) {
  const control = wrap.children[wrap.children.length - 1];
  if (control.tagName === "DIV") {
    for (const label of control.children) label.children[0].checked = fill.checked.includes(label.children[0].value);
  } else if ("checked" in fill) {
    control.checked = fill.checked;
  } else {
    control.value = fill.value;
  }
}

async function formScenario(fills) {
  const report = {
    formHidden: $("google-form").hidden,
    message: $("google-message").textContent,
    tooHidden: $("google-too").hidden,
    allow: $("allow-once").textContent,
    alwaysHidden: $("always").hidden,
    notGrantable: $("not-grantable").textContent,
    fields: $("google-fields").children.map(describeField)
  };
  $("google-fields").children.forEach((wrap, i) => fillField(wrap, fills[i]));
  $("allow-once").click();
  await settle();
  report.answers = answers.slice();
  report.htmlWrites = htmlWrites;
  return report;
}

// What the card says and previews, as a person reads it: the heading's parts (each part's text and whether it is
// set apart as a name or value), the preview's rows and lines.
function describeCard() {
  const parts = $("heading").children.map((child) => ({ text: child.textContent, apart: child.className || null }));
  const preview = $("preview");
  const rows = (node) =>
    node.children.flatMap((child) => (child.tagName === "TR" ? [child.children.map((cell) => [cell.className, cell.textContent])] : rows(child)));
  return {
    heading: $("heading").textContent,
    parts,
    previewHidden: preview.hidden,
    preview: preview.textContent,
    rows: rows(preview),
    askedAgain: $("asked-again").hidden ? null : $("asked-again").textContent,
    details: $("arguments-box").attributes.open === undefined && !/arguments-box" open/.test(html)
  };
}

// A card whose preview arrives after it showed: what it says before, and after the core's updated queue.
async function updateScenario(updated) {
  const report = { before: describeCard() };
  onQueue({ payload: [updated] });
  await settle();
  report.after = describeCard();
  report.answersBefore = answers.length;
  $("allow-once").click();
  await settle();
  report.answers = answers.slice();
  report.htmlWrites = htmlWrites;
  return report;
}

(async () => {
  vm.runInContext(script, context, { filename: "card.js" });
  if (process.argv[4] === "update") {
    await settle();
    await settle();
    process.stdout.write(JSON.stringify(await updateScenario(JSON.parse(process.argv[5]))));
    return;
  }
  if (process.argv[4] === "form") {
    await settle();
    await settle();
    process.stdout.write(JSON.stringify(await formScenario(JSON.parse(process.argv[5]))));
    return;
  }
  await settle();
  await settle();
  const report = {
    first: {
      who: $("who").textContent,
      target: $("target").textContent,
      argumentsShown: $("arguments").textContent.length,
      showAllHidden: $("arguments-all").hidden,
      showAll: $("arguments-all").textContent,
      allowDisabled: $("allow-once").disabled
    }
  };
  $("arguments-all").click();
  report.first.argumentsAfterShowAll = $("arguments").textContent.length;

  // The card on screen is withdrawn: the next one is drawn where it was.
  pending = queue.slice(1);
  onQueue({ payload: pending });
  await settle();
  advance(100);
  $("allow-once").click();
  $("deny").click();
  escape();
  await settle();
  report.replaced = {
    who: $("who").textContent,
    allowDisabled: $("allow-once").disabled,
    answersWhileInert: answers.length
  };
  advance(650);
  await settle();
  report.replaced.allowDisabledAfter = $("allow-once").disabled;
  $("allow-once").click();
  await settle();
  report.replaced.answers = answers.slice();
  report.htmlWrites = htmlWrites;
  process.stdout.write(JSON.stringify(report));
})().catch((error) => {
  console.error(error);
  process.exit(1);
});
