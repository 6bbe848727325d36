// Drag-and-drop area plus the pickers. An archive (.zip, .tar.gz, .tgz, .tar)
// is handed over as one file, with any SCIP index (`index.scip`) dropped or
// picked beside it; a dropped or picked folder as its files, each with its
// path inside the folder.

export interface Dropped {
  kind: 'archive' | 'folder';
  name: string;
  archive?: File;
  /** SCIP indexes given beside the archive. */
  scip?: File[];
  files?: { path: string; file: File }[];
}

/** The archive among the files given, and the SCIP indexes beside it. */
function archiveOf(files: File[]): Dropped | undefined {
  const isScip = (file: File): boolean => file.name.endsWith('.scip');
  const archive = files.find((file) => !isScip(file));
  if (!archive) return undefined;
  return { kind: 'archive', name: archive.name, archive, scip: files.filter(isScip) };
}

export function setupDropZone(
  zone: HTMLElement,
  inputs: { archive: HTMLInputElement; folder: HTMLInputElement },
  onDrop: (dropped: Dropped) => void,
): void {
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
    const item = event.dataTransfer?.items?.[0];
    const entry = item?.webkitGetAsEntry?.();
    if (entry?.isDirectory) {
      void readFolder(entry as FileSystemDirectoryEntry).then((files) => onDrop({ kind: 'folder', name: entry.name, files }));
      return;
    }
    const dropped = archiveOf([...(event.dataTransfer?.files ?? [])]);
    if (dropped) onDrop(dropped);
  });

  // A file dropped outside the zone must not make the browser navigate away.
  window.addEventListener('dragover', (event) => event.preventDefault());
  window.addEventListener('drop', (event) => event.preventDefault());

  inputs.archive.addEventListener('change', () => {
    const dropped = archiveOf([...(inputs.archive.files ?? [])]);
    inputs.archive.value = '';
    if (dropped) onDrop(dropped);
  });
  inputs.folder.addEventListener('change', () => {
    const picked = [...(inputs.folder.files ?? [])];
    inputs.folder.value = '';
    if (picked.length === 0) return;
    const files = picked.map((file) => ({ path: file.webkitRelativePath || file.name, file }));
    const name = files[0]?.path.split('/')[0] ?? 'folder';
    onDrop({ kind: 'folder', name, files });
  });
}

/** Every file under a dropped directory, with paths that start at its name. */
async function readFolder(root: FileSystemDirectoryEntry): Promise<{ path: string; file: File }[]> {
  const out: { path: string; file: File }[] = [];
  const pending: FileSystemDirectoryEntry[] = [root];
  while (pending.length > 0) {
    const dir = pending.pop() as FileSystemDirectoryEntry;
    const reader = dir.createReader();
    // readEntries returns a batch at a time (100 in Chromium) until it returns none.
    for (;;) {
      const batch = await new Promise<FileSystemEntry[]>((resolve, reject) => reader.readEntries(resolve, reject));
      if (batch.length === 0) break;
      for (const entry of batch) {
        if (entry.isDirectory) pending.push(entry as FileSystemDirectoryEntry);
        else {
          const file = await new Promise<File>((resolve, reject) => (entry as FileSystemFileEntry).file(resolve, reject));
          out.push({ path: entry.fullPath.replace(/^\//, ''), file });
        }
      }
    }
  }
  return out;
}
