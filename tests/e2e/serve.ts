// A plain static file server on a free port of 127.0.0.1, with nothing but
// the files: what any static host does. For the static-site test and for
// `make bench`'s web-tree-sitter reference page.
import { readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.fathom': 'application/octet-stream', '.json': 'application/json', '.xml': 'application/xml', '.svg': 'image/svg+xml',
};

export interface Served {
  url: string;
  close(): void;
}

/** Serves the folder `root`; resolves to its URL, ending in `/`. */
export function serveDir(root: string): Promise<Served> {
  const server: Server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://x').pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      const type = TYPES[extname(file)] ?? 'application/octet-stream';
      const body = readFileSync(file);
      // One range (`bytes=a-b`), as static hosts answer it: a split bundle's packed items.
      const range = /^bytes=(\d+)-(\d+)$/.exec(request.headers.range ?? '');
      if (range) {
        const [from, to] = [Number(range[1]), Math.min(Number(range[2]), body.length - 1)];
        if (from > to) {
          response.writeHead(416, { 'content-range': `bytes */${body.length}` }).end();
          return;
        }
        response.writeHead(206, { 'content-type': type, 'content-range': `bytes ${from}-${to}/${body.length}`, 'accept-ranges': 'bytes' });
        response.end(body.subarray(from, to + 1));
        return;
      }
      response.writeHead(200, { 'content-type': type, 'accept-ranges': 'bytes' });
      response.end(body);
    } catch {
      response.writeHead(404).end('not found');
    }
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, close: () => server.close() }),
    ),
  );
}
