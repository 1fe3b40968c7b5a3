// The export panel's syntax highlighter: highlight.js's core and three grammars (copied beside
// this file by scripts/highlight.py from the pinned npm package), loaded by the page only when
// the panel opens (src/ui/widgets/export_policy.rs).
//
// It never turns the snippet's text into markup. highlight.js escapes the text it wraps, but
// this does not rely on that: its HTML is parsed into an inert <template> (nothing in it runs or
// loads), and the code element is rebuilt from it node by node, every piece of text as a text
// node and every element as a plain <span> whose only attribute is highlight.js's own class
// names. The result must hold exactly the text it was given, or the element is left as it was.
import hljs from "./core.min.js";
import python from "./python.min.js";
import javascript from "./javascript.min.js";
import json from "./json.min.js";

hljs.registerLanguage("python", python);
hljs.registerLanguage("javascript", javascript);
hljs.registerLanguage("json", json);

const CLASS = /^hljs-[a-z_-]+$/;

// Highlights one <code data-language="…"> element in place; returns whether it did.
function highlight(element) {
  delete element.dataset.highlighted;
  const code = element.textContent;
  const language = element.dataset.language;
  if (!language || !hljs.getLanguage(language)) return false;
  const template = document.createElement("template");
  template.innerHTML = hljs.highlight(code, { language, ignoreIllegals: true }).value;
  const rebuilt = document.createDocumentFragment();
  copy(template.content, rebuilt);
  if (rebuilt.textContent !== code) return false;
  element.replaceChildren(rebuilt);
  element.dataset.highlighted = "true";
  return true;
}

// Copies the text of `from` into `into`, keeping only spans and their highlight.js classes.
function copy(from, into) {
  for (const node of from.childNodes) {
    if (node.nodeType === Node.TEXT_NODE) {
      into.appendChild(document.createTextNode(node.data));
    } else if (node.nodeType === Node.ELEMENT_NODE) {
      const span = document.createElement("span");
      const classes = [...node.classList].filter((c) => CLASS.test(c));
      if (classes.length > 0) span.className = classes.join(" ");
      copy(node, span);
      into.appendChild(span);
    }
  }
}

globalThis.smHighlight = highlight;
for (const element of document.querySelectorAll("code[data-language]")) highlight(element);
