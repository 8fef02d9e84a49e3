// The one DOM helper every page script uses: h('button', { class: 'secondary', onclick }, 'Text').
// Attributes that are null, undefined or false are left out, true sets an empty attribute, and
// `on<event>` keys add listeners. Children may be nodes, strings, numbers or (nested) arrays.

export type Child = Node | string | number | null | undefined | false | Child[];
export type Attributes = Record<
  string,
  string | number | boolean | null | undefined | EventListener | ((event: never) => unknown)
>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes?: Attributes | null,
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key.startsWith('on') && typeof value === 'function')
      node.addEventListener(key.slice(2), value as EventListener);
    else node.setAttribute(key, value === true ? '' : String(value));
  }
  append(node, children);
  return node;
}

/** An SVG element (charts). */
export function svg(tag: string, attributes: Record<string, string | number>, ...children: Child[]): SVGElement {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  append(node, children);
  return node;
}

function append(node: Element, children: Child[]): void {
  for (const child of children.flat(Infinity as 1) as Child[]) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
}

/** Shows `text` as the alert at the end of `where`, replacing the one shown before. */
export function showError(where: Element, text: string): void {
  where.querySelector('.error')?.remove();
  where.append(h('p', { class: 'error', role: 'alert' }, text));
}
