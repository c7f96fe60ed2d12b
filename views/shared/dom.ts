// Building the page from data without ever parsing data as HTML: every string becomes a text node.
// Campaign names, captions and reasons come from upstream and are untrusted (issue 20).

type Child = Node | string | number | false | null | undefined;

/** An element with attributes (set as attributes, never as HTML) and children (strings as text). */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attributes: Record<string, string | boolean | undefined> = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === true) element.setAttribute(name, '');
    else if (typeof value === 'string') element.setAttribute(name, value);
  }
  element.append(...children.filter((child): child is Node | string | number => child !== false && child !== null && child !== undefined).map((child) => (typeof child === 'number' ? String(child) : child)));
  return element;
}

/** An SVG element (charts): attributes only, text through textContent. */
export function svg(tag: string, attributes: Record<string, string | number> = {}, text?: string): SVGElement {
  const element = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes)) element.setAttribute(name, String(value));
  if (text !== undefined) element.textContent = text;
  return element;
}

/** The element with this id, which the page's HTML has. */
export function byId<T extends HTMLElement = HTMLElement>(id: string): T {
  const element = document.getElementById(id);
  if (!element) throw new Error(`The page has no #${id}`);
  return element as T;
}

/** A name from upstream, isolated so right-to-left text cannot reorder the words around it. */
export const named = (text: string, className?: string): HTMLElement => h('bdi', className ? { class: className } : {}, text);

/**
 * A server sentence with its quoted names ("…", as src/text.ts quote writes them: never a quote
 * inside) isolated for right-to-left text, the rest as plain text, through `words` when given.
 */
export function sentence(text: string, words = (part: string) => part): Array<Node | string> {
  return text.split(/("[^"\n]*")/).map((part, index) => (index % 2 === 1 ? named(part) : words(part)));
}
