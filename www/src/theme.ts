// Dark and light themes. With no choice made the page follows the system
// (prefers-color-scheme, in CSS); a choice is kept in localStorage and written
// as data-theme on <html>, which the stylesheet's variables key on.

export type ThemeChoice = 'system' | 'dark' | 'light';

const STORAGE_KEY = 'fathom-theme';
const ORDER: ThemeChoice[] = ['system', 'dark', 'light'];
const LABELS: Record<ThemeChoice, string> = { system: 'Theme: system', dark: 'Theme: dark', light: 'Theme: light' };

function stored(): ThemeChoice {
  try {
    const value = localStorage.getItem(STORAGE_KEY);
    return value === 'dark' || value === 'light' ? value : 'system';
  } catch {
    return 'system';
  }
}

/** The theme in effect: the choice, or the system's when there is none. */
export function effectiveTheme(choice: ThemeChoice = stored()): 'dark' | 'light' {
  if (choice !== 'system') return choice;
  return matchMedia('(prefers-color-scheme: light)').matches ? 'light' : 'dark';
}

function apply(choice: ThemeChoice): void {
  const root = document.documentElement;
  if (choice === 'system') delete root.dataset.theme;
  else root.dataset.theme = choice;
}

/**
 * Wires the theme button: each press moves system → dark → light. `onChange`
 * hears every change of the theme in effect (a press, or the system's own).
 */
export function setupTheme(button: HTMLButtonElement, onChange: () => void): void {
  let choice = stored();
  const show = () => {
    apply(choice);
    button.textContent = LABELS[choice];
    button.dataset.theme = effectiveTheme(choice);
    button.setAttribute('aria-label', `${LABELS[choice]} (press to change)`);
  };
  show();
  button.addEventListener('click', () => {
    choice = ORDER[(ORDER.indexOf(choice) + 1) % ORDER.length] ?? 'system';
    try {
      if (choice === 'system') localStorage.removeItem(STORAGE_KEY);
      else localStorage.setItem(STORAGE_KEY, choice);
    } catch {
      // Storage may be off (private windows): the choice lasts for this page.
    }
    show();
    onChange();
  });
  matchMedia('(prefers-color-scheme: light)').addEventListener('change', () => {
    if (choice !== 'system') return;
    show();
    onChange();
  });
}
