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

/** What a symbol label needs: its own name, its qualified name and its kind. */
export interface Nameable {
  name: string;
  qualified_name: string;
  kind: string;
}

/**
 * A qualified name cut into its container and its own name:
 * `com.acme.repo.UserRepository` and `findByUsername`. The separator between
 * them (`.`, `::`, `/`, `#`, `:`) belongs to neither.
 */
export function splitName(qualified: string, name: string): { container: string; name: string } {
  // A module's name is its whole import name: it reads as its last segment, in its package.
  if (name === qualified) name = '';
  if (name && qualified.endsWith(name)) {
    const container = qualified.slice(0, qualified.length - name.length).replace(/(::|[.:/#])$/, '');
    return { container, name };
  }
  const at = Math.max(qualified.lastIndexOf('.'), qualified.lastIndexOf('::') + 1, qualified.lastIndexOf('/'), qualified.lastIndexOf('#'));
  if (at <= 0) return { container: '', name: name || qualified };
  return { container: qualified.slice(0, at).replace(/(::|[.:/#])$/, ''), name: name || qualified.slice(at + 1) };
}

/**
 * A symbol as people read it: its own name first, whole (bold), then its
 * kind where asked, then its container in a lighter weight, which gives way
 * first, cut from its start (`…repo.UserRepository`), since the nearest
 * container says most. The full name is the tooltip.
 */
export function symbolLabel(node: Nameable, options: { kind?: boolean; where?: string | undefined; container?: boolean | undefined } = {}): HTMLSpanElement {
  const { container, name } = splitName(node.qualified_name, node.name);
  const title = `${node.kind} ${node.qualified_name}${options.where ? `\n${options.where}` : ''}`;
  return h('span', { class: 'sym', title, 'data-qualified': node.qualified_name },
    h('span', { class: 'sym-name' }, name),
    options.kind ? h('span', { class: 'sym-kind' }, node.kind) : null,
    container && options.container !== false ? h('span', { class: 'sym-container', 'data-full': container }, h('bdi', { dir: 'ltr' }, container)) : null);
}

/**
 * A path (with its lines) that gives way in the middle: the folders are cut
 * and the file name stays whole, `src/main/ja…/UserRepository.java:10-12`.
 * Its text is the whole citation.
 */
export function pathLabel(path: string, lines = '', className = 'cite'): HTMLSpanElement {
  const full = lines ? `${path}:${lines}` : path;
  const slash = path.lastIndexOf('/');
  return h('span', { class: `${className} sym-path`, title: full, 'data-full': full },
    slash >= 0 ? h('span', { class: 'path-head' }, path.slice(0, slash + 1)) : null,
    h('span', { class: 'path-tail' }, full.slice(slash + 1)));
}

/** Where a node is defined, as a tooltip says it. */
export function whereOf(node: NodeRef): string {
  return node.file ? `${node.file}:${node.start_line}` : 'outside the repository';
}

/** A button naming a symbol that opens it, with its `file:line` as a tooltip. */
export function symbolLink(node: NodeRef, open: (node: NodeRef) => void, options: { container?: boolean } = {}): HTMLButtonElement {
  const where = whereOf(node);
  const button = h('button', { type: 'button', class: 'link', 'data-symbol': node.qualified_name, title: where },
    symbolLabel(node, { where, container: options.container }));
  button.addEventListener('click', () => open(node));
  return button;
}
