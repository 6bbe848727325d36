// The error banner (role="alert") shown when an archive cannot be indexed.
import { required } from '../../web/src/ui/dom';

export class ErrorBanner {
  readonly #root: HTMLElement;
  readonly #message: HTMLElement;

  constructor(root: HTMLElement) {
    this.#root = root;
    this.#message = required('.banner-message', root);
    required('.banner-close', root).addEventListener('click', () => this.hide());
  }

  show(message: string): void {
    this.#message.textContent = message;
    this.#root.hidden = false;
  }

  hide(): void {
    this.#root.hidden = true;
    this.#message.textContent = '';
  }
}
