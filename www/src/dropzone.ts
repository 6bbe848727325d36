// Drag-and-drop area plus the file picker; both hand the first chosen file over.

export function setupDropZone(zone: HTMLElement, input: HTMLInputElement, onFile: (file: File) => void): void {
  let depth = 0;
  const setHover = (hover: boolean): void => {
    zone.classList.toggle('dragover', hover);
  };

  zone.addEventListener('dragenter', (event) => {
    event.preventDefault();
    depth += 1;
    setHover(true);
  });
  zone.addEventListener('dragover', (event) => {
    event.preventDefault();
    if (event.dataTransfer) event.dataTransfer.dropEffect = 'copy';
  });
  zone.addEventListener('dragleave', () => {
    depth = Math.max(0, depth - 1);
    if (depth === 0) setHover(false);
  });
  zone.addEventListener('drop', (event) => {
    event.preventDefault();
    depth = 0;
    setHover(false);
    const file = event.dataTransfer?.files[0];
    if (file) onFile(file);
  });

  // A file dropped outside the zone must not make the browser navigate away.
  window.addEventListener('dragover', (event) => event.preventDefault());
  window.addEventListener('drop', (event) => event.preventDefault());

  input.addEventListener('change', () => {
    const file = input.files?.[0];
    input.value = '';
    if (file) onFile(file);
  });
}
