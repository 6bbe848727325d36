// A static host for `make bench`'s documentation-site measurements: it serves
// a folder as any static host does, answers single `Range` requests (206,
// `Content-Range`), can gzip what it sends as most hosts do, can hold every
// response to a slow link (a fixed delay per request and one shared byte
// rate), and logs each response: what was asked, what crossed the wire, and
// what would have crossed it with the host compressing or not.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createSecureServer, type Http2ServerRequest, type Http2ServerResponse } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { gzipSync } from 'node:zlib';

const TYPES: Record<string, string> = {
  '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm',
  '.fathom': 'application/octet-stream', '.json': 'application/json', '.svg': 'image/svg+xml', '.bin': 'application/octet-stream',
  '.safetensors': 'application/octet-stream',
};

export interface Served {
  /** Path (from the site's root, with its query), method and range asked. */
  path: string;
  range: string | null;
  status: number;
  /** Bytes of the status line and headers. */
  header_bytes: number;
  /** Body bytes sent. */
  body_bytes: number;
  /** The body's bytes as the host had it, before any compression of its own. */
  plain_bytes: number;
  /** The same body gzipped (level 6), as a compressing host would send it; equal to plain_bytes where the body is already compressed. */
  gzip_bytes: number;
  /** Milliseconds from the server's start to the request's arrival and to the response's end. */
  start_ms: number;
  end_ms: number;
}

export interface Shaping {
  /** Added before each response's first byte. */
  latency_ms: number;
  /** Shared by every response at once, as one link is. */
  bytes_per_second: number;
}

export interface Host {
  url: string;
  /** Every response since the last `take`, in the order they ended. */
  take(): Served[];
  /** Changes how the host behaves from the next request on. */
  set(options: Partial<HostOptions>): void;
  close(): Promise<void>;
}

export interface HostOptions {
  /** Answer `Range: bytes=a-b` with 206; when false the whole file is sent with 200, as some hosts do. */
  ranges: boolean;
  /** Gzip what the client accepts gzipped, unless it is compressed already or a range. */
  compress: boolean;
  shaping: Shaping | null;
}

/**
 * How the host speaks: HTTP/1.1 in the clear, where a browser opens at most
 * six connections to it and so fetches six items at a time, or HTTP/2 over
 * TLS, as documentation hosts serve (GitHub Pages, Netlify, Read the Docs),
 * where every request of a wave shares one connection. The certificate is
 * made for the run: the browser must be told to accept it.
 */
export type Protocol = 'http1' | 'h2';

/** A self-signed certificate for 127.0.0.1, made with openssl for one run. */
function certificate(): { key: Buffer; cert: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'fathom-tls-'));
  try {
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
      '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1',
      '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'),
    ], { stdio: 'ignore' });
    return { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const GZIP_MAGIC = (body: Uint8Array) => body.length > 2 && body[0] === 0x1f && body[1] === 0x8b;

/** A link's byte rate, shared by all responses: each chunk waits for its turn. */
class Link {
  #free = 0;
  constructor(readonly bytesPerSecond: number) {}
  /** Milliseconds from `now` until `bytes` more have passed. */
  reserve(now: number, bytes: number): number {
    this.#free = Math.max(this.#free, now) + (bytes * 1000) / this.bytesPerSecond;
    return this.#free - now;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Serves `root` on a free port of 127.0.0.1. */
export function countedHost(root: string, options: Partial<HostOptions> = {}, protocol: Protocol = 'http1'): Promise<Host> {
  let settings: HostOptions = { ranges: true, compress: true, shaping: null, ...options };
  let link = settings.shaping ? new Link(settings.shaping.bytes_per_second) : null;
  let log: Served[] = [];
  const zero = performance.now();
  const cache = new Map<string, { body: Buffer; gzip: Buffer }>();

  const read = (file: string) => {
    let entry = cache.get(file);
    if (!entry) {
      const body = readFileSync(file);
      entry = { body, gzip: GZIP_MAGIC(body) ? body : gzipSync(body, { level: 6 }) };
      cache.set(file, entry);
    }
    return entry;
  };

  const send = async (request: IncomingMessage | Http2ServerRequest, answer: ServerResponse | Http2ServerResponse) => {
    // HTTP/2's compatibility response has HTTP/1's methods: one type for both.
    const response = answer as ServerResponse;
    const start_ms = performance.now() - zero;
    const url = new URL(request.url ?? '/', 'http://x');
    const path = normalize(decodeURIComponent(url.pathname)).replace(/^(\.\.[/\\])+/, '');
    const file = join(root, path.endsWith('/') ? `${path}index.html` : path);
    const rangeHeader = request.headers.range ?? null;
    let status = 200;
    let body: Buffer;
    let plain: Buffer;
    let gzip: Buffer;
    const headers: Record<string, string> = { 'cache-control': 'no-cache' };
    try {
      if (!statSync(file).isFile()) throw new Error('not a file');
      const whole = read(file);
      headers['content-type'] = TYPES[extname(file)] ?? 'application/octet-stream';
      const range = settings.ranges && rangeHeader ? /^bytes=(\d+)-(\d*)$/.exec(rangeHeader) : null;
      if (settings.ranges) headers['accept-ranges'] = 'bytes';
      if (range) {
        const from = Number(range[1]);
        const to = Math.min(range[2] ? Number(range[2]) : whole.body.length - 1, whole.body.length - 1);
        if (from > to) {
          status = 416;
          headers['content-range'] = `bytes */${whole.body.length}`;
          plain = body = gzip = Buffer.alloc(0);
        } else {
          status = 206;
          headers['content-range'] = `bytes ${from}-${to}/${whole.body.length}`;
          plain = body = whole.body.subarray(from, to + 1);
          gzip = GZIP_MAGIC(whole.body) ? plain : gzipSync(plain, { level: 6 });
        }
      } else {
        plain = whole.body;
        gzip = whole.gzip;
        const accepts = /\bgzip\b/.test(String(request.headers['accept-encoding'] ?? ''));
        if (settings.compress && accepts && gzip !== plain) {
          headers['content-encoding'] = 'gzip';
          body = gzip;
        } else body = plain;
      }
    } catch {
      status = 404;
      headers['content-type'] = 'text/html';
      plain = body = Buffer.from('<!doctype html><title>Not found</title><h1>404</h1>');
      gzip = gzipSync(plain);
    }
    headers['content-length'] = String(body.length);
    if (settings.shaping) await sleep(settings.shaping.latency_ms);
    response.writeHead(status, headers);
    const header_bytes = `HTTP/1.1 ${status} \r\n`.length + Object.entries(headers).reduce((n, [k, v]) => n + k.length + v.length + 4, 2);
    if (request.method === 'HEAD') body = Buffer.alloc(0);
    // Through the link in 16 KiB pieces, each waiting for its share of the rate.
    for (let at = 0; at < body.length || at === 0; at += 16_384) {
      // A reader that went away (a page left) takes no more of the link.
      if (response.destroyed || ('stream' in answer && answer.stream.destroyed)) break;
      const piece = body.subarray(at, at + 16_384);
      if (link) await sleep(link.reserve(performance.now(), piece.length + (at === 0 ? header_bytes : 0)));
      if (!response.write(piece)) await new Promise((resolve) => response.once('drain', resolve));
      if (body.length === 0) break;
    }
    response.end();
    log.push({
      path: url.pathname + url.search, range: rangeHeader, status, header_bytes, body_bytes: body.length,
      plain_bytes: plain.length, gzip_bytes: gzip.length, start_ms, end_ms: performance.now() - zero,
    });
  };

  const sessions = new Set<{ destroy(): void }>();
  const server =
    protocol === 'h2'
      ? createSecureServer(certificate(), (request, response) => {
          send(request, response).catch(() => response.stream.destroy());
        }).on('session', (session) => {
          sessions.add(session);
          session.on('close', () => sessions.delete(session));
        })
      : createServer((request, response) => {
          send(request, response).catch(() => response.destroy());
        });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        url: `${protocol === 'h2' ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}/`,
        take: () => {
          const taken = log;
          log = [];
          return taken;
        },
        set: (options) => {
          settings = { ...settings, ...options };
          link = settings.shaping ? new Link(settings.shaping.bytes_per_second) : null;
        },
        close: () => new Promise<void>((done) => {
          if (protocol === 'h2') for (const session of sessions) session.destroy();
          else (server as Server).closeAllConnections();
          server.close(() => done());
        }),
      }),
    ),
  );
}

/**
 * Round trips one after another: responses are grouped into waves, each
 * wave the requests that began before any response of the previous wave
 * ended; what a wave asks for could only be known once the one before it had
 * arrived, so with a fixed delay per request the waves are what it costs.
 */
export function waves(served: Served[]): number {
  const sorted = [...served].sort((a, b) => a.start_ms - b.start_ms);
  let count = 0;
  let boundary = -Infinity;
  let firstEnd = Infinity;
  for (const s of sorted) {
    if (s.start_ms >= boundary) {
      count += 1;
      boundary = Infinity;
      firstEnd = Infinity;
    }
    firstEnd = Math.min(firstEnd, s.end_ms);
    boundary = firstEnd;
  }
  return count;
}
