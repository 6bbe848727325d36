// Tiny DOM helpers shared by the views.

import type { NodeRef } from '../protocol';

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined>;

/** Creates an element; attributes with value false/null/undefined are omitted, true sets an empty attribute. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === false || value === null || value === undefined) continue;
    element.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    element.append(child instanceof Node ? child : String(child));
  }
  return element;
}

/** Looks up an element that the page markup guarantees. */
export function required<T extends HTMLElement = HTMLElement>(selector: string, root: ParentNode = document): T {
  const element = root.querySelector<T>(selector);
  if (!element) throw new Error(`missing element ${selector}`);
  return element;
}

export function byTestId<T extends HTMLElement = HTMLElement>(id: string, root: ParentNode = document): T {
  return required<T>(`[data-testid="${id}"]`, root);
}

export function formatMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(ms < 10 ? 1 : 0)} ms`;
}

export function plural(count: number, singular: string, pluralForm = `${singular}s`): string {
  return `${count.toLocaleString('en-US')} ${count === 1 ? singular : pluralForm}`;
}

/** A button naming a symbol that opens it, with its `file:line` as a tooltip. */
export function symbolLink(node: NodeRef, open: (node: NodeRef) => void, label = node.qualified_name): HTMLButtonElement {
  const button = h('button', { type: 'button', class: 'link', 'data-symbol': node.qualified_name,
    title: node.file ? `${node.file}:${node.start_line}` : 'outside the repository' }, label);
  button.addEventListener('click', () => open(node));
  return button;
}
